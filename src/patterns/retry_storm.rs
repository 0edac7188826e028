//! `retry_storm`: clients retry failed work while the service is
//! recovering, adding load at the worst moment.
//!
//! Why it matters: recovering servers start cold, into the retried backlog
//! plus live traffic (seeds 000 and 004).
//!
//! What it reads: a retry is the same request again after it failed, so
//! for each client (a tenant, or an integration across every tenant it
//! works for: a retrying SDK) it counts the requests that followed a failed
//! request for the same path (`Aggregates::retried`). A storm is a client
//! whose re-sent requests are a large part of what it sent in the incident
//! while it sent more than its own baseline rate: the retries were added
//! load, not its usual traffic failing. A client that re-sent work it had
//! already done before the failure (an export starting over from page 1)
//! is reported with it.
//!
//! Example: after the restart, acct-4411's exporter re-sends 1,900 failed
//! requests, 35% of what it sent in the incident, at 60 req/s against 2 in
//! its baseline.

use super::finding::{confidence, Evidence, Finding, Subject};
use super::Context;
use crate::aggregate::{Dim, DimStats, Span};
use crate::correlate::timeline::rate;
use crate::correlate::{TimelineEntry, TimelineKind};

pub const ID: &str = "retry_storm";
/// The figure (see [`Finding::figures`]): the share of the requests the
/// service received in the incident that clients re-sent after a failure.
pub const RESENT_SHARE: &str = "resent_share";

const ACTIONS: &[&str] = &[
    "Retries with jittered exponential backoff and a retry budget in the client SDKs and integrations",
    "Shed or rate-limit with 429 and Retry-After while recovering, so retries wait instead of piling on",
];
/// When the retrier started its work over (an export from page 1).
const ACTIONS_RESUMED: &[&str] = &[
    "Retries with jittered exponential backoff and a retry budget in the client SDKs and integrations",
    "Resume bulk jobs where they stopped (a cursor or checkpoint) instead of starting over",
];

/// Clients of each dimension examined, the busiest in the incident first.
const CANDIDATES: usize = 40;
/// Integrations that are people, not programs: a person pressing reload is
/// not a retry policy.
const PEOPLE: &[&str] = &["browser"];
/// Re-sent requests as a share of what was sent: below about a tenth,
/// retries are what clients always do on a bad minute; from about a
/// quarter on they are a large part of the load. The confidence rises
/// between the two.
const SHARE_ORDINARY: f64 = 0.08;
const SHARE_STORM: f64 = 0.3;
/// Of the re-sent requests, the share that must show as requests above the
/// client's baseline rate for them to be added load: half, so that a storm
/// whose client also slowed its own work still counts, while a client whose
/// rate hardly moved does not.
const ADDED_OF_RESENT: f64 = 0.5;
/// A client is named as the retrier when its request rate rose at least
/// this many times as far as the rest of the service's did.
const STANDS_OUT: f64 = 2.0;
/// A client's own share counts once it re-sent this many: a handful of
/// retries from a small client is no storm however large its share.
const CLIENT_MIN_RETRIED: u64 = 20;

/// How far a named client's re-sent count may exceed its own failures: a
/// sampled estimate (1 path in N scaled up) errs by some; a count well
/// above them cannot be its retries.
const RESENT_OVER_FAILED: f64 = 1.2;

/// Who retried: the whole service's clients, or one of them.
struct Case {
    who: Option<(Dim, String)>,
    retried: crate::aggregate::paths::Retried,
    /// Its re-sent work was counted from this failure point on.
    resent_from: Option<i64>,
    /// Requests it sent again after they failed (without the work it
    /// asked for again after the failure point): what ranks the retriers.
    after_failure: u64,
    sent: u64,
    baseline_sent: u64,
    /// Its requests that failed in the window.
    failed: u64,
}

impl Case {
    /// Whether its own failures could have prompted what it re-sent (work
    /// asked for again after the failure point needs no failure of its own).
    fn plausible(&self) -> bool {
        self.resent_from.is_some()
            || self.retried.requests as f64 <= RESENT_OVER_FAILED * self.failed as f64
    }

    fn share(&self) -> f64 {
        (self.retried.requests as f64 / self.sent.max(1) as f64).min(1.0)
    }

    /// The share of what it sent that was retries adding to the `expected`
    /// count (its baseline rate over the window): re-sends beyond the rise
    /// replaced requests that would have come anyway.
    fn added_share(&self, expected: f64) -> f64 {
        let added = (self.sent as f64 - expected).max(0.0);
        (added.min(self.retried.requests as f64) / self.sent.max(1) as f64).min(self.share())
    }
}

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let (Some(inc), Some(baseline), Some(span)) = (a.incident, a.baseline, a.span) else {
        return;
    };
    let window = Span::new(inc.onset, inc.recovered);
    if window.is_empty() {
        return;
    }
    let sum = |w: Span| -> u64 {
        (w.start.max(span.start)..w.end.min(span.end))
            .filter_map(|t| a.totals.get((t - span.start) as usize))
            .map(|c| u64::from(c.requests))
            .sum()
    };
    let retried_all = cx.agg.retried(None, window);
    let all = Case {
        who: None,
        after_failure: retried_all.requests,
        retried: retried_all,
        resent_from: None,
        sent: sum(window),
        baseline_sent: sum(baseline),
        failed: 0,
    };
    if all.retried.requests == 0 {
        return;
    }
    // Where the service failed: the first restart in the incident, else the
    // first failed requests. Work a tenant had done before it and asked for
    // again after it is re-sent too (an export starting over from page 1).
    let fail = a
        .history
        .restarts
        .iter()
        .map(|r| r.down / 1000)
        .filter(|s| *s >= inc.onset && *s < inc.recovered)
        .min()
        .or(a.errors_start.map(|e| e.0));
    // Every client examined, the busiest in the incident first.
    let mut cases: Vec<Case> = Vec::new();
    for dim in [Dim::Tenant, Dim::Integration] {
        let Ok(mut stats) = cx.agg.dim_stats(dim, window, baseline) else {
            continue;
        };
        // People, not programs: an integration named for them, or a tenant
        // whose requests come mostly from them (reloading a page someone
        // opened before is not a retry policy).
        stats.retain(|s| {
            let person = PEOPLE.contains(&s.value.as_str())
                || (dim == Dim::Tenant
                    && cx
                        .agg
                        .main_integration(&s.value)
                        .is_some_and(|i| PEOPLE.contains(&i.as_str())));
            !s.value.is_empty() && !person
        });
        stats.sort_by(|x, y| {
            y.window_requests
                .cmp(&x.window_requests)
                .then(x.value.cmp(&y.value))
        });
        for s in stats.iter().take(CANDIDATES) {
            cases.push(client_case(cx, dim, s, window, fail));
        }
        if dim == Dim::Integration {
            cases.extend(programs(cx, stats.iter().take(CANDIDATES), window));
        }
    }
    // Counted on the paths kept, before scaling: a few sampled paths scaled
    // up are not twenty retries seen.
    let sample = cx.agg.path_sample_rate().max(1);
    let enough = |t: &Case| {
        t.retried.requests >= CLIENT_MIN_RETRIED
            && t.retried.requests / sample >= CLIENT_MIN_RETRIED / 2
    };
    // Named only when it stands out from everyone else: its rate rose well
    // beyond theirs, or it re-sent a far larger part of what it sent than
    // they did (a retry policy of its own). When every client sends about
    // 2.7x its baseline and re-sends alike (retries all round), the
    // busiest of them is no more the cause than the rest, and naming it
    // blames a customer.
    let rate_ratio = |sent: u64, base: u64| {
        (sent as f64 / window.secs().max(1.0)) / ((base as f64 + 1.0) / baseline.secs().max(1.0))
    };
    // Above its own rate: the retries were added load, not its usual
    // traffic failing (margin so that noise does not count). Added load
    // that retries made is most of what was re-sent: a client that sends
    // what it always sends, some of it for paths it asked for before (a
    // poller), is not storming however many paths repeat.
    let adds = |t: &Case| {
        let expected = t.baseline_sent as f64 / baseline.secs().max(1.0) * window.secs();
        let added = t.sent as f64 - expected;
        added > 3.0 * expected.sqrt() + 3.0 && added >= ADDED_OF_RESENT * t.retried.requests as f64
    };
    let stands_out = |t: &Case| {
        let own = rate_ratio(t.sent, t.baseline_sent);
        let rest_sent = all.sent.saturating_sub(t.sent);
        let rest = rate_ratio(rest_sent, all.baseline_sent.saturating_sub(t.baseline_sent));
        let rest_share = all.retried.requests.saturating_sub(t.retried.requests) as f64
            / rest_sent.max(1) as f64;
        // The share counts only re-sent failures: paths a client asked for
        // before (a poller, an export) repeat without any retry policy.
        own >= STANDS_OUT * rest
            || (t.resent_from.is_none() && t.share() >= STANDS_OUT * rest_share && adds(t))
    };
    // Who carries most of the retries dates them, named or not: the rest
    // are the retries every client makes on a bad minute.
    let dated_by = most(cases.iter().filter(|t| enough(t)))
        .filter(|t| t.retried.requests * 2 >= all.retried.requests && t.resent_from.is_none())
        .and_then(|t| t.retried.began);
    // The client that re-sent the most, if it stands out: never a lesser
    // one that does, which would point at a customer that re-sent a few
    // of its own requests beside the storm.
    // Nor one whose own failures could not have prompted what it re-sent:
    // every re-send follows a failure of its own, so a count above them (a
    // sampled estimate scaled up) is no figure to tell a customer by.
    let top = most(cases.iter().filter(|t| enough(t)))
        .filter(|t| stands_out(t))
        .filter(|t| t.plausible());
    // The storm is judged by the client that re-sent the most, standing
    // out or not: a storm is a client re-sending above its own rate
    // (`patterns.md`), and the part of its own requests it re-sent says how
    // hard it retried, where every client's re-sends together are diluted
    // by those who hardly failed (stuck-instances draw 702506: an SDK
    // re-sent 35% of its requests at 1.4x its rate, the service 20%, and
    // was scored 0.27). Only naming it needs it to stand out. Work asked
    // for again after the failure point is no retry unless its client
    // stands out: a poller asks for the same paths all day (canary draw
    // 2631807: a Terraform provider's 121 repeated paths, 21% of what it
    // sent at 1.2x its rate, were scored a storm at 0.68).
    let retrier = top.or_else(|| {
        most(
            cases
                .iter()
                .filter(|t| enough(t) && t.plausible() && t.resent_from.is_none()),
        )
    });
    let judged = match retrier {
        Some(t) if t.share() > all.share() => t,
        _ => &all,
    };
    // Named only when it carries most of the retries: a small client that
    // re-sent most of its own few requests is one retrier among many, and
    // naming it for the storm points the follow-up at the wrong customer.
    let named = top.filter(|t| t.retried.requests * 2 >= all.retried.requests);
    let rate_in = judged.sent as f64 / window.secs().max(1.0);
    let rate_base = judged.baseline_sent as f64 / baseline.secs().max(1.0);
    let above = adds(judged);
    // Where no client stands out, the retries are every client's on a bad
    // minute: a storm only by the load they added. Re-sends beyond the
    // rise in traffic replaced requests that would have come anyway
    // (stuck-instances draw 1665300: 18% re-sent at 1.1x the usual rate,
    // each client retrying once or twice, was told as a storm).
    let share = if judged.who.is_none() {
        judged.added_share(judged.baseline_sent as f64 / baseline.secs().max(1.0) * window.secs())
    } else {
        judged.share()
    };
    let c = storm_confidence(judged, share, above);
    sink.push(finding(
        cx,
        named.unwrap_or(&all),
        judged,
        &all,
        (window, dated_by),
        c,
        above,
        rate_in,
        rate_base,
    ));
}

/// How sure a storm is, from the share of the load that was re-sent
/// failures. A named client's storm gains by how many it re-sent and by
/// sending above its usual rate. Every client's together gains by neither:
/// the added share already is their rise above the usual rate, and their
/// count grows with the traffic and the length of the incident, not with
/// any retry policy (flag-flip draw 1818115: 16% added, about one re-send
/// per two failures across 20 clients, was scored 0.60 a storm).
fn storm_confidence(judged: &Case, share: f64, above: bool) -> f64 {
    let by_share =
        0.6 * ((share - SHARE_ORDINARY) / (SHARE_STORM - SHARE_ORDINARY)).clamp(0.0, 1.0);
    let not_above = if above { 0.0 } else { -0.4 };
    if judged.who.is_none() {
        return 0.1 + by_share + not_above;
    }
    0.1 + by_share
        + 0.15 * (judged.retried.requests as f64 / 200.0).min(1.0)
        + if above { 0.15 } else { not_above }
}

/// The case with the most requests re-sent after they failed, the first of
/// equals (the busier client: cases come busiest first). Paths a client
/// asked for again after the failure point do not rank it: every tenant
/// of a service with few distinct pages asks for the same ones again.
fn most<'c>(cases: impl Iterator<Item = &'c Case>) -> Option<&'c Case> {
    cases.fold(None, |best: Option<&Case>, c| match best {
        Some(b) if c.after_failure <= b.after_failure => Some(b),
        _ => Some(c),
    })
}

fn client_case(cx: &Context<'_>, dim: Dim, s: &DimStats, window: Span, fail: Option<i64>) -> Case {
    let mut retried = cx.agg.retried(Some((dim, &s.value)), window);
    let after_failure = retried.requests;
    let mut resent_from = None;
    if let (Dim::Tenant, Some(f)) = (dim, fail) {
        let (_, resent) = cx.agg.resent_paths(&s.value, Span::new(f, window.end));
        // Distinct paths it asked for again, each at least one request of
        // the window's: never more than it sent (a sampled count scaled up
        // can be).
        let resent = resent.min(s.window_requests);
        if resent > retried.requests {
            retried.requests = resent;
            resent_from = Some(f);
        }
    }
    Case {
        who: Some((dim, s.value.clone())),
        retried,
        resent_from,
        after_failure,
        sent: s.window_requests,
        baseline_sent: s.baseline_requests,
        failed: s.window_failed,
    }
}

/// A program's integrations taken together. The same SDK sends with an API
/// key and without one, and each key is an integration of its own
/// (`python-requests`, `python-requests (key hash 4e0914d0)`), while the
/// retry policy is the program's: on thundering-herd draws the retrier
/// re-sent 213 requests under one name and 114 under another, fewer each
/// than a busy client that re-sent what it always sends, and was missed.
fn programs<'s>(
    cx: &Context<'_>,
    stats: impl Iterator<Item = &'s DimStats>,
    window: Span,
) -> Vec<Case> {
    let mut by: std::collections::BTreeMap<&str, Vec<&DimStats>> = Default::default();
    for s in stats {
        if let Some(program) = crate::event::integration_program(&s.value) {
            by.entry(program).or_default().push(s);
        }
    }
    by.into_iter()
        .filter(|(_, members)| members.len() >= 2)
        .map(|(program, members)| {
            let mut retried = crate::aggregate::paths::Retried::default();
            for m in &members {
                let r = cx.agg.retried(Some((Dim::Integration, &m.value)), window);
                retried.requests += r.requests;
                retried.paths += r.paths;
                retried.began = match (retried.began, r.began) {
                    (Some(x), Some(y)) => Some(x.min(y)),
                    (x, y) => x.or(y),
                };
            }
            Case {
                who: Some((Dim::Integration, program.to_string())),
                after_failure: retried.requests,
                retried,
                resent_from: None,
                sent: members.iter().map(|m| m.window_requests).sum(),
                baseline_sent: members.iter().map(|m| m.baseline_requests).sum(),
                failed: members.iter().map(|m| m.window_failed).sum(),
            }
        })
        .collect()
}

/// `s` with its first letter upper-case (a name in backticks is left as it is).
fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn label(cx: &Context<'_>, who: &Option<(Dim, String)>) -> String {
    match who {
        None => "clients".to_string(),
        Some((Dim::Tenant, v)) => match cx.agg.main_integration(v) {
            Some(i) => format!("`{v}` (integration `{i}`)"),
            None => format!("`{v}`"),
        },
        Some((_, v)) => format!("integration `{v}`"),
    }
}

#[allow(clippy::too_many_arguments)]
fn finding(
    cx: &Context<'_>,
    named: &Case,
    judged: &Case,
    all: &Case,
    (window, dated_by): (Span, Option<i64>),
    c: f64,
    above: bool,
    rate_in: f64,
    rate_base: f64,
) -> Finding {
    let a = cx.analysis;
    // Retrying starts where the retried failures of the client that re-sent
    // most of them (else of every client) begin to come together. A client
    // starting its work over is dated from where it resumed after the
    // failure point.
    let first = match named.resent_from {
        Some(f) => resumed(cx, named, f, window.end),
        // The second the first retried failure reached its client: a retry
        // sent at once falls in that same second.
        // Not before requests start failing: a stray timeout re-sent in
        // the ramp is not yet the storm, and a storm of retries cannot
        // come before the failures it retries.
        None => dated_by
            .or(all.retried.began)
            .map_or(window.start, |f| f.max(window.start))
            .max(a.errors_start.map_or(window.start, |e| e.0)),
    };
    let origin = a
        .totals
        .get(a.span.map_or(0, |sp| (first - sp.start).max(0) as usize))
        .map(|c| c.first)
        .unwrap_or_default();
    let source = a.input_name(origin.input).to_string();
    let sample = cx.agg.path_sample_rate();
    let about = if sample > 1 { "about " } else { "" };
    let estimated = match sample {
        1 => String::new(),
        n => format!(" (estimated from 1 path in {n})"),
    };
    let who = label(cx, &named.who);
    let judged_who = label(cx, &judged.who);
    let (from, to) = (
        crate::zone::clock(window.start * 1000),
        crate::zone::clock(window.end * 1000),
    );
    let what = match judged.resent_from {
        Some(f) => format!(
            "requests for paths it had already requested before the failure at {}",
            crate::zone::clock(f * 1000)
        ),
        None => format!(
            "requests after they had failed, on {about}{} paths",
            judged.retried.paths
        ),
    };
    let mut evidence = vec![Evidence::new(
        format!(
            "{judged_who} re-sent {about}{} {what}: {:.0}% of the {} requests {} between {from} and {to}{estimated}",
            judged.retried.requests,
            judged.share() * 100.0,
            judged.sent,
            if judged.who.is_none() { "the service received" } else { "it sent" },
        ),
        source.clone(),
    )];
    if named.who.is_some() && named.who != judged.who {
        evidence.push(Evidence::new(
            format!("{who} re-sent {about}{} of them", named.retried.requests),
            source.clone(),
        ));
    }
    // Told of every client (no one named) and judged by the one that re-sent
    // the most: what they all re-sent comes first, as the title says.
    if named.who.is_none() && judged.who.is_some() {
        evidence.insert(
            0,
            Evidence::new(
                format!(
                    "clients re-sent {about}{} requests after they had failed: {:.0}% of the {} requests the service received between {from} and {to}{estimated}",
                    all.retried.requests,
                    all.share() * 100.0,
                    all.sent,
                ),
                source.clone(),
            ),
        );
    }
    evidence.push(Evidence::new(
        format!(
            "{} {} req/s in the incident against {} req/s in the baseline{}",
            if judged.who.is_none() {
                "requests arrived at"
            } else {
                "it sent"
            },
            rate(rate_in),
            rate(rate_base),
            if above {
                ""
            } else {
                ": no more than usual, so the retries replaced traffic rather than adding to it"
            }
        ),
        source.clone(),
    ));
    // One client's re-sends against everything the service received: the
    // load they added to it, which its own share does not say (flag-flip
    // draw 698240: a quarter of one client's requests re-sent were 2% of
    // the service's traffic, told as "adding load to the struggling
    // service").
    if judged.who.is_some() && all.sent > 0 {
        evidence.push(Evidence::new(
            format!(
                "its re-sent requests were {} of the {} requests the service received in the incident",
                super::finding::percent(judged.retried.requests as f64 / all.sent as f64),
                all.sent
            ),
            source.clone(),
        ));
    }
    if let Some((Dim::Tenant, v)) = &named.who {
        let (paths, resent) = cx.agg.resent_paths(v, window);
        if resent > 0 && paths > 0 {
            evidence.push(Evidence::new(
                format!(
                    "{about}{resent} of the {paths} distinct paths it requested in the incident ({:.0}%) it had already requested before it: re-sent work",
                    resent as f64 / paths as f64 * 100.0
                ),
                source.clone(),
            ));
        }
    }
    let subject = match &named.who {
        Some((Dim::Tenant, v)) => Subject {
            tenant: Some(v.clone()),
            integration: cx.agg.main_integration(v),
            ..Subject::default()
        },
        Some((_, v)) => Subject {
            integration: Some(v.clone()),
            ..Subject::default()
        },
        None => Subject::default(),
    };
    Finding {
        // The share of everything the service received that was re-sent:
        // the growth a reader is told of is the rest.
        figures: vec![(RESENT_SHARE, all.share())],
        pattern: ID,
        title: format!("{who} retried failed requests into the struggling service"),
        confidence: confidence(c),
        start: first * 1000,
        end: window.end * 1000,
        subject,
        evidence,
        timeline: vec![TimelineEntry {
            ts: first * 1000,
            kind: TimelineKind::Retries,
            text: format!(
                "{} failed requests: {about}{} re-sent, {:.0}% of the requests {} in the incident",
                // A row of the timeline begins with a capital; one client retries.
                match &judged.who {
                    None => "Clients retry".to_string(),
                    Some((_, _)) => format!("{} retries", capitalised(&judged_who)),
                },
                judged.retried.requests,
                judged.share() * 100.0,
                if judged.who.is_none() {
                    "the service received"
                } else {
                    "it sent"
                }
            ),
            sources: vec![a.source(origin)],
        }],
        actions: if named.resent_from.is_some() {
            ACTIONS_RESUMED
        } else {
            ACTIONS
        },
    }
}

/// The first second from `fail` on in which `named` (a tenant) sent a
/// request after a pause in its traffic, or `fail` when it never paused.
fn resumed(cx: &Context<'_>, named: &Case, fail: i64, end: i64) -> i64 {
    let Some((dim, v)) = &named.who else {
        return fail;
    };
    let span = Span::new(fail, end.max(fail + 1));
    let cells = cx.agg.dim_series(*dim, v, span);
    let pause = cells.iter().take(60).position(|c| c.requests == 0);
    pause
        .and_then(|p| {
            cells
                .iter()
                .skip(p)
                .position(|c| c.requests > 0)
                .map(|q| p + q)
        })
        .map_or(fail, |i| fail + i as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(resent: u64, failed: u64, resent_from: Option<i64>) -> Case {
        Case {
            who: Some((Dim::Tenant, "pied-labs".into())),
            retried: crate::aggregate::paths::Retried {
                requests: resent,
                ..Default::default()
            },
            resent_from,
            after_failure: resent,
            sent: 2444,
            baseline_sent: 1000,
            failed,
        }
    }

    /// A sampled estimate (1 path in 4) of 2,276 re-sent failures from a
    /// client that had 1,840 failures is no figure to name it by.
    #[test]
    fn a_client_cannot_have_re_sent_more_failures_than_it_had() {
        assert!(!case(2276, 1840, None).plausible());
        assert!(case(2000, 1840, None).plausible());
        // Work asked for again after the failure point is counted apart.
        assert!(case(2276, 0, Some(100)).plausible());
    }

    /// Only retries that added to the usual traffic make every client's
    /// re-sends a storm: 215 re-sent of 1,181 at 1.1x the usual rate is
    /// about 128 added (11%), not 18%; at 2.2x the re-sends all count.
    #[test]
    fn only_retries_that_added_load_count_for_every_client() {
        let mut all = case(215, 0, None);
        all.who = None;
        all.sent = 1181;
        let share = all.added_share(1053.0);
        assert!((share - 128.0 / 1181.0).abs() < 1e-9, "{share}");
        all.sent = 2316;
        assert!((all.added_share(1053.0) - all.share()).abs() < 1e-9);
        // Below the usual rate nothing was added.
        assert_eq!(case(300, 0, None).added_share(3000.0), 0.0);
    }

    /// Every client's retries that added a sixth to the load are ordinary
    /// retrying, not a storm; a quarter and more is one. A named client
    /// re-sending as much is surer: its policy is the one to look at.
    #[test]
    fn every_clients_retries_are_a_storm_only_by_the_load_they_added() {
        let mut all = case(185, 0, None);
        all.who = None;
        assert!(storm_confidence(&all, 0.159, true) < 0.5);
        assert!(storm_confidence(&all, 0.3, true) >= 0.5);
        assert!(storm_confidence(&all, 0.3, false) < 0.5);
        let one = case(185, 0, None);
        assert!(one.who.is_some());
        assert!(storm_confidence(&one, 0.159, true) > storm_confidence(&all, 0.159, true));
    }

    /// One program's retries under several keys are counted together; a
    /// program with one name only, or keys with no program, add no case.
    #[test]
    fn a_programs_keys_retry_together() {
        use crate::aggregate::Aggregates;
        use crate::event::{Event, EventSink, Request};
        let mut agg = Aggregates::new();
        let sends = [
            ("sdk", 1u64),
            ("sdk (key hash aa11)", 2),
            ("sdk (key hash bb22)", 3),
            ("key hash cc33", 4),
            ("lone", 5),
        ];
        for (integration, path) in sends {
            // Each fails at 100 s and is asked for again at 101 s.
            for (sec, status) in [(100, 503), (101, 200)] {
                agg.push(Event::Request(Request {
                    ts: sec * 1000,
                    end_ts: sec * 1000,
                    route: "/v1/things/{id}".into(),
                    path_hash: path,
                    status: Some(status),
                    integration: Some(integration.into()),
                    ..Request::default()
                }));
            }
        }
        agg.finish();
        let analysis = crate::correlate::Analysis::default();
        let cx = Context {
            agg: &agg,
            analysis: &analysis,
        };
        let window = Span::new(50, 200);
        let stats = agg
            .dim_stats(Dim::Integration, window, Span::new(0, 50))
            .unwrap_or_default();
        let cases = programs(&cx, stats.iter(), window);
        assert_eq!(cases.len(), 1);
        let sdk = cases
            .first()
            .map(|c| (c.who.clone(), c.retried.requests, c.sent));
        assert_eq!(
            sdk,
            Some((Some((Dim::Integration, "sdk".to_string())), 3, 6))
        );
    }
}
