//! `slow_request_hogging`: long-running requests from one integration or
//! endpoint hold connections and starve everyone else, without needing a
//! high request rate.
//!
//! Why it matters: rate limits do not catch it; the subject's share of busy
//! time (the sum of request durations: the connections and workers it held)
//! does (seeds 003, 002).
//!
//! The subject is a tenant (with its integration), an integration, or an
//! endpoint (route) whose share of the servers' held time in the incident
//! (durations of served requests less the queueing all requests of their
//! second shared: a request waiting for a connection holds none) is at
//! least a third and at least twice its share of the requests: its
//! requests take twice as long as everyone else's on average, and it holds
//! the servers more than anyone. Where it held them this way before the
//! incident too, it is a standing cost rather than what changed, and the
//! finding says so with less confidence.
//!
//! Example: an integration sends 4% of the requests but holds the servers
//! for 55% of their busy time.

use super::finding::{confidence, Evidence, Finding, Subject};
use super::Context;
use crate::aggregate::{Dim, DimStats};

pub const ID: &str = "slow_request_hogging";

const ACTIONS: &[&str] = &[
    "Shorter queueing and request timeouts, so long-running requests release their connections",
    "Isolate the slow endpoint or integration (its own pool or workers) and add telemetry on its duration",
];
/// Where no request waited for a connection: the slow requests held
/// workers (waiting on their own calls), not database connections.
const WORKER_ACTIONS: &[&str] = &[
    "Shorter timeouts on what the slow requests wait for (their calls to a dependency), so they fail fast instead of holding workers",
    "Isolate the slow endpoint or integration (its own pool or workers) and add telemetry on its duration",
];

/// Busy-time share over request share that counts as hogging: its requests
/// hold the servers at least twice as long as the average request.
const HOG_FACTOR: f64 = 2.0;
/// The share of the busy time it holds, at the least.
const MIN_BUSY_SHARE: f64 = 1.0 / 3.0;
/// A hog "held this much before" when its baseline share was at least
/// this part of its share in the window: an integration that always held
/// 40% of the connections and now holds all of them changed (seed draw
/// slow-integration 1601002: 40% before, 99% in the incident); one at 45%
/// before and 55% now is a standing cost.
const SAME_SHARE: f64 = 2.0 / 3.0;

/// The share of an endpoint's time one tenant must take to be the one who
/// held the servers through it: most of it, twice anyone else's.
const OWNER_SHARE: f64 = 2.0 / 3.0;

/// The tenant an endpoint's time was mostly spent on.
#[derive(Clone, Debug)]
struct Owner {
    tenant: String,
    requests: u64,
    route_requests: u64,
    share: f64,
}

/// The tenant whose requests took at least [`OWNER_SHARE`] of `route`'s
/// time over the data, if one did.
fn endpoint_owner(cx: &Context<'_>, route: &str) -> Option<Owner> {
    let tenants = cx.agg.route_tenants(route);
    let total_ms: u64 = tenants.iter().map(|t| t.2).sum();
    let route_requests: u64 = tenants.iter().map(|t| t.1).sum();
    let (tenant, requests, ms) = tenants.first()?;
    let share = *ms as f64 / total_ms.max(1) as f64;
    (total_ms > 0 && share >= OWNER_SHARE).then(|| Owner {
        tenant: tenant.clone(),
        requests: *requests,
        route_requests,
        share,
    })
}

/// One candidate subject with its shares.
#[derive(Clone)]
struct Hog {
    subject: Subject,
    label: String,
    busy: f64,
    requests: f64,
    n: u64,
    was: bool,
    /// The tenant who held the servers through this endpoint.
    owner: Option<Owner>,
}

/// The subjects (tenants, integrations, endpoints) that `hogs` passes,
/// their shares of held time, or of busy time when `by_busy`.
fn hogs_by(
    cx: &Context<'_>,
    hogs: &dyn Fn(&Share<'_>) -> bool,
    by_busy: bool,
    (window, baseline): (crate::aggregate::Span, crate::aggregate::Span),
) -> Vec<Hog> {
    let mut found: Vec<Hog> = Vec::new();
    // Tenants, with the integration each mostly sent.
    for dim in [Dim::Tenant, Dim::Integration, Dim::Route] {
        let Ok(stats) = cx.agg.dim_stats(dim, window, baseline) else {
            continue;
        };
        for Share {
            stats: s,
            held: busy,
            requests: req,
            was,
            ..
        } in shares(&stats, by_busy, (window.secs(), baseline.secs()))
            .into_iter()
            .filter(|x| hogs(x))
        {
            let (subject, label) = match dim {
                Dim::Tenant => {
                    let integ = cx.agg.main_integration(&s.value);
                    let label = match &integ {
                        Some(i) => format!("`{}` (integration `{i}`)", s.value),
                        None => format!("`{}`", s.value),
                    };
                    (
                        Subject {
                            tenant: Some(s.value.clone()),
                            integration: integ,
                            ..Subject::default()
                        },
                        label,
                    )
                }
                Dim::Integration => (
                    Subject {
                        integration: Some(s.value.clone()),
                        ..Subject::default()
                    },
                    format!("integration `{}`", s.value),
                ),
                _ => (
                    Subject {
                        endpoint: Some(s.value.clone()),
                        ..Subject::default()
                    },
                    format!("`{}`", s.value),
                ),
            };
            found.push(Hog {
                subject,
                label,
                busy,
                requests: req,
                n: s.window_requests,
                was,
                owner: None,
            });
        }
    }
    found
}

/// Each value's share of the time served requests held the servers (their
/// durations less the wait every request of their second shared: while a
/// pool is exhausted everyone's durations grow by the queue, and only the
/// work itself is what the hog held), its share of the requests, and
/// whether it held this much before. `spans`: the window's and the
/// baseline's length in seconds, for its own use against its usual.
fn shares(stats: &[DimStats], by_busy: bool, spans: (f64, f64)) -> Vec<Share<'_>> {
    let held = |s: &DimStats| {
        if by_busy {
            (s.window_busy_ms, s.baseline_busy_ms)
        } else {
            (s.window_held_ms, s.baseline_held_ms)
        }
    };
    let (held_w, req_w): (f64, f64) = stats.iter().fold((0.0, 0.0), |(b, r), s| {
        (b + held(s).0, r + s.window_requests as f64)
    });
    let (held_b, req_b): (f64, f64) = stats.iter().fold((0.0, 0.0), |(b, r), s| {
        (b + held(s).1, r + s.baseline_requests as f64)
    });
    if held_w <= 0.0 || req_w <= 0.0 {
        return Vec::new();
    }
    let peers = Peers::of(stats.iter().map(|s| (s, held(s).0)));
    stats
        .iter()
        .map(|s| {
            let (w, b) = held(s);
            let share = w / held_w;
            let req = s.window_requests as f64 / req_w;
            let was = held_b > 0.0
                && req_b > 0.0
                && b / held_b >= HOG_FACTOR * (s.baseline_requests as f64 / req_b)
                && b / held_b >= MIN_BUSY_SHARE
                && b / held_b >= SAME_SHARE * share;
            // Its own use per second against its usual: a bigger slice of a
            // smaller whole is not holding more (deploy-leak draw 702506: an
            // endpoint always 2.3x slower than the rest went from 31% to 52%
            // of the held time while it held a third of what it usually
            // did, because a leak left everyone else failing fast).
            let (window_s, baseline_s) = spans;
            let grew = b <= 0.0
                || baseline_s <= 0.0
                || w / window_s.max(1.0) >= HOG_FACTOR * b / baseline_s;
            Share {
                stats: s,
                held: share,
                requests: req,
                was,
                grew,
                stands_out: stands_out(s, w, &peers),
            }
        })
        .collect()
}

/// One value's shares in the window ([`shares`]).
struct Share<'a> {
    stats: &'a DimStats,
    /// Of the held time (or busy time, see [`shares`]).
    held: f64,
    requests: f64,
    /// It held this much before the incident too.
    was: bool,
    /// It held the servers at least [`HOG_FACTOR`] times as long a second
    /// as in the baseline (or held nothing there): it took more, not only
    /// a larger part of less.
    grew: bool,
    /// Its requests held the servers far longer each than anyone else's.
    stands_out: bool,
}

/// Whether a value's requests held the servers [`HOG_FACTOR`] times as
/// long each as those of any other value with [`PEER_REQUESTS`] requests
/// or more: a hog stands out from every other client, not only from the
/// average. Held time takes each client's quickest tenth of served
/// requests as its work; where every request of a client waited in a long
/// queue, that tenth is waiting, and the clients with enough served
/// requests to use their own figures all look slow alike (seed 3255012: a
/// thundering herd's queue gave one tenant 0.6 s a request and 42% of the
/// held time, and another 1.0 s; the real hog of a slow integration holds
/// hundreds of times what anyone else does).
fn stands_out(s: &DimStats, held: f64, peers: &Peers) -> bool {
    let own = held / s.window_requests.max(1) as f64;
    let other = match peers.top {
        Some((v, _)) if v == s.value => peers.second,
        Some((_, x)) => Some(x),
        None => None,
    };
    other.is_none_or(|x| own >= HOG_FACTOR * x)
}

/// Values with at least this many requests in the window are peers a hog
/// must stand out from: fewer, and a single slow request is its figure.
const PEER_REQUESTS: u64 = 30;

/// The two highest held times per request among the values with
/// [`PEER_REQUESTS`] requests or more (the first with its value).
struct Peers<'a> {
    top: Option<(&'a str, f64)>,
    second: Option<f64>,
}

impl<'a> Peers<'a> {
    fn of(per_request: impl Iterator<Item = (&'a DimStats, f64)>) -> Peers<'a> {
        let mut p = Peers {
            top: None,
            second: None,
        };
        for (s, held) in per_request.filter(|(s, _)| s.window_requests >= PEER_REQUESTS) {
            let x = held / s.window_requests as f64;
            match p.top {
                Some((_, t)) if x <= t => {
                    p.second = Some(p.second.map_or(x, |y: f64| y.max(x)));
                }
                _ => {
                    p.second = p.top.map(|t| t.1);
                    p.top = Some((s.value.as_str(), x));
                }
            }
        }
        p
    }
}

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let (Some(_), Some(window), Some(baseline)) = (a.incident, a.window(), a.baseline) else {
        return;
    };
    let hogs = |s: &Share<'_>| {
        s.held >= MIN_BUSY_SHARE
            && s.held >= HOG_FACTOR * s.requests
            && s.stats.window_requests >= 10
            && s.requests >= crate::correlate::attribution::MIN_CULPRIT_REQUESTS
            && s.stands_out
            && s.grew
    };
    // Held time leaves out queueing for a pool, and with it every failed
    // request. Where the pool metrics show no request waiting and no pool
    // at its maximum in the window, nothing queued for a connection: a
    // request's whole duration held a worker, failed or not (a 504 after
    // 2 s held its worker for those 2 s), and busy time is what was held.
    // Only metrics that could show a queue say none formed: a database's
    // count of its connections cannot, and then either may have run out.
    // Connections first (slow-integration draw 895317: a tenant holding 94%
    // of the pool's time was judged by its 27% of the busy time, queueing
    // included, and missed), then workers (flag-flip draw 3377713: a route
    // whose requests timed out held its workers, not the pool).
    let unqueued = a.pool.has_metrics() && !pool_queued(a, window);
    let modes: &[bool] = match (unqueued, a.pool.can_show_queue()) {
        (true, true) => &[true],
        (true, false) => &[false, true],
        (false, _) => &[false],
    };
    let Some((by_busy, found)) = modes
        .iter()
        .map(|&mode| (mode, hogs_by(cx, &hogs, mode, (window, baseline))))
        .find(|(_, found)| !found.is_empty())
    else {
        return;
    };
    // The most specific subject that holds the most: a tenant before its
    // integration, an integration before an endpoint, when they hold about
    // as much.
    let Some(best) = found.iter().max_by(|x, y| x.busy.total_cmp(&y.busy)) else {
        return;
    };
    let hog = found
        .iter()
        .find(|h| h.busy >= 0.8 * best.busy)
        .unwrap_or(best);
    // An endpoint held the servers, and one tenant's requests took most of
    // its time: that tenant, whose quick requests elsewhere hid its slow ones
    // in its own figures, is who held them through it.
    let owner = hog
        .subject
        .endpoint
        .as_deref()
        .and_then(|route| endpoint_owner(cx, route));
    let hog_owned;
    let to = match owner {
        Some(_) => format!(" to {}", hog.label),
        None => String::new(),
    };
    let hog = match owner {
        Some(o) => {
            let integ = cx.agg.main_integration(&o.tenant);
            let who = match &integ {
                Some(i) => format!("`{}` (integration `{i}`)", o.tenant),
                None => format!("`{}`", o.tenant),
            };
            hog_owned = Hog {
                label: who,
                subject: Subject {
                    tenant: Some(o.tenant.clone()),
                    integration: integ,
                    endpoint: hog.subject.endpoint.clone(),
                    ..Subject::default()
                },
                owner: Some(o),
                ..hog.clone()
            };
            &hog_owned
        }
        None => hog,
    };
    let factor = hog.busy / hog.requests.max(1e-6);
    let input = a.request_input();
    let c = if hog.was {
        0.45
    } else {
        0.55 + 0.25 * (factor / 10.0).min(1.0) + 0.15 * hog.busy
    };
    let measure = if by_busy {
        "of the servers' busy time in the window (the sum of request durations; the pool metrics show no request waiting for a connection)"
    } else {
        "of the time served requests held the servers in the window (their durations less the queueing every request shared)"
    };
    let mut evidence = vec![Evidence::new(
        format!(
            "{}{to}: {:.0}% {measure}, from {:.1}% of the requests ({factor:.1}x its share)",
            hog.label,
            hog.busy * 100.0,
            hog.requests * 100.0
        ),
        input.clone(),
    )];
    evidence.push(Evidence::new(
        format!("{} requests in the window", hog.n),
        input.clone(),
    ));
    if let Some(o) = &hog.owner {
        evidence.push(Evidence::new(
            format!(
                "`{}` sent {} of the endpoint's {} requests over the data and {:.0}% of the time they took",
                o.tenant,
                o.requests,
                o.route_requests,
                o.share * 100.0
            ),
            input.clone(),
        ));
    }
    if hog.was {
        evidence.push(Evidence::new(
            "it held the servers this way before the incident too: a standing cost, not what changed".to_string(),
            input,
        ));
    }
    sink.push(Finding {
        figures: Vec::new(),
        pattern: ID,
        title: format!(
            "{} held the servers with slow requests{to}: {:.0}% of the time they were held, from {:.1}% of requests",
            hog.label,
            hog.busy * 100.0,
            hog.requests * 100.0
        ),
        confidence: confidence(c),
        start: window.start * 1000,
        end: window.end * 1000,
        subject: hog.subject.clone(),
        evidence,
        timeline: Vec::new(),
        actions: if by_busy { WORKER_ACTIONS } else { ACTIONS },
    });
}

/// Whether any pool was at its maximum, had requests waiting or logged
/// exhaustion in the window.
fn pool_queued(a: &crate::correlate::Analysis, window: crate::aggregate::Span) -> bool {
    let Some(span) = a.span else {
        return true;
    };
    a.pool.first_saturated(span, window).is_some()
        || (window.start.max(span.start)..window.end.min(span.end))
            .any(|s| a.pool.waiting_secs.get((s - span.start) as usize) == Some(&true))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value with `n` requests in the window holding `ms` each.
    fn value(name: &str, n: u64, ms: f64) -> DimStats {
        DimStats {
            value: name.to_string(),
            window_requests: n,
            window_failed: 0,
            window_busy_ms: n as f64 * ms,
            baseline_requests: n,
            baseline_busy_ms: n as f64 * 20.0,
            window_held_ms: n as f64 * ms,
            baseline_held_ms: n as f64 * 20.0,
            total_requests: 2 * n,
        }
    }

    fn found(stats: &[DimStats]) -> Vec<String> {
        shares(stats, false, (60.0, 60.0))
            .into_iter()
            .filter(|s| {
                s.held >= MIN_BUSY_SHARE
                    && s.held >= HOG_FACTOR * s.requests
                    && s.stands_out
                    && s.grew
            })
            .map(|s| s.stats.value.clone())
            .collect()
    }

    /// A queue everyone waited in: the biggest client holds most of the
    /// held time from its many served requests, but another holds as long
    /// a request; neither stands out.
    #[test]
    fn the_biggest_of_clients_slowed_alike_is_no_hog() {
        let mut stats = vec![value("big", 3_700, 620.0), value("other", 540, 1_000.0)];
        for i in 0..40 {
            stats.push(value(&format!("t{i}"), 60, 20.0));
        }
        assert!(shares(&stats, false, (60.0, 60.0))[0].held > 0.5);
        assert!(found(&stats).is_empty());
    }

    /// An endpoint always slower than the rest is no hog for holding a
    /// larger part of the servers' time while the rest fail fast: it held
    /// a third of what it usually did (deploy-leak draw 702506). The same
    /// endpoint holding four times its usual is one.
    #[test]
    fn a_larger_part_of_less_is_not_holding_more() {
        let slow = |window_ms: f64| DimStats {
            value: "/api/documents".into(),
            window_requests: 170,
            window_busy_ms: window_ms,
            window_held_ms: window_ms,
            baseline_requests: 170,
            baseline_busy_ms: 70_000.0,
            baseline_held_ms: 70_000.0,
            ..value("/api/documents", 170, 0.0)
        };
        let mut stats = vec![slow(26_000.0)];
        for i in 0..8 {
            let mut v = value(&format!("/r{i}"), 100, 3.0);
            v.baseline_held_ms = 20_000.0;
            v.baseline_busy_ms = 20_000.0;
            stats.push(v);
        }
        let first = |stats: &[DimStats]| {
            let s = shares(stats, false, (60.0, 60.0));
            s.first().map(|x| (x.held > 0.5, x.stands_out, x.grew))
        };
        assert_eq!(first(&stats), Some((true, true, false)));
        assert!(found(&stats).is_empty());
        stats[0] = slow(280_000.0);
        assert_eq!(first(&stats), Some((true, true, true)));
        assert_eq!(found(&stats), vec!["/api/documents".to_string()]);
    }

    /// A slow integration holds hundreds of times what anyone else does.
    #[test]
    fn a_hog_that_stands_out_from_everyone_is_found() {
        let mut stats = vec![value("hog", 5_600, 3_500.0)];
        for i in 0..20 {
            stats.push(value(&format!("t{i}"), 2_000, 7.0));
        }
        // A few slow requests of a small client are not a peer to beat.
        stats.push(value("tiny", 3, 20_000.0));
        assert_eq!(found(&stats), ["hog"]);
    }
}
