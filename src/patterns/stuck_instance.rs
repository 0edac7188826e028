//! `stuck_instance`: a few instances keep accepting requests but stop
//! answering in time (gray failure) while their peers are fine.
//!
//! Why it matters: health checks that only test "accepts a connection" keep
//! the stuck instance in rotation, and held connections congest everything
//! in front of it (seed 002).
//!
//! Example: two of five upstreams answer in 30 s or time out (504) on 60% of
//! their requests while the other three answer in 40 ms.

use super::finding::{confidence, Evidence, Finding, Subject};
use super::Context;
use crate::aggregate::{Dim, Span};
use crate::correlate::stats::median;
use crate::correlate::{TimelineEntry, TimelineKind};

pub const ID: &str = "stuck_instance";

const ACTIONS: &[&str] = &[
    "Stricter timeouts and fail-fast behaviour between the gateway and the backends, so a stuck instance cannot hold connections",
    "Health checks that exercise the real request path, so an instance that stops answering is taken out of rotation and restarted",
];

/// An instance is slow in a minute when its mean latency is this many times
/// its peers' median that minute (and at least [`SLOW_MS`]): a gray failure
/// answers in tens of seconds or not at all, its peers in milliseconds.
const SEPARATION: f64 = 5.0;
const SLOW_MS: f64 = 1000.0;
/// Requests an instance needs in a minute for its mean to count.
const MIN_MINUTE_REQUESTS: u32 = 3;
/// A stuck instance is slow in most of the minutes from when it first was
/// to when it last was, for at least two minutes.
const MIN_STUCK_MINUTES: usize = 2;
const MIN_SLOW_SHARE: f64 = 0.6;

/// Peers are fine while they fail less than this share of their requests:
/// a fleet failing one request in ten is itself in trouble, and one of it
/// answering slower than the rest is part of that trouble.
const PEERS_FAILING: f64 = 0.1;

/// Far above its peers over the incident: a gray failure's timeouts or
/// time per request are several times theirs, diluted as they are by the
/// minutes before it stuck.
const STANDS_OUT: f64 = 3.0;

/// How far around the incident's start an instance must have served to be
/// one of the fleet compared (see `correlate::joined`, the same margins).
const ESTABLISHED_BEFORE_S: i64 = 300;
const ESTABLISHED_AFTER_S: i64 = 60;

/// The latest changes weighed as having brought slow instances in.
const MAX_CHANGES_WEIGHED: usize = 5;

/// One instance's minutes in the window: (requests, mean latency) or none.
type Minutes = Vec<Option<(u32, f64)>>;

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let found = sink.len();
    by_latency(cx, sink);
    if sink.len() == found {
        by_request_rate(cx, sink);
    }
}

/// Instances whose requests in the access log answered far slower than
/// their peers'.
fn by_latency(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let (Some(_), Some(window)) = (a.incident, a.window()) else {
        return;
    };
    let names = cx.agg.dim_values(Dim::Instance);
    if names.len() < 3 {
        return;
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let series = cx.agg.dim_series_many(Dim::Instance, &refs, window);
    // Each instance's (failed, answered) requests per minute, to judge
    // whether its peers were fine.
    let outcomes: Vec<Vec<(u32, u32)>> = series
        .iter()
        .map(|cells| {
            cells
                .chunks(60)
                .map(|m| {
                    m.iter()
                        .fold((0, 0), |(f, d), c| (f + c.failed, d + c.done))
                })
                .collect()
        })
        .collect();
    let minutes: Vec<Minutes> = series
        .iter()
        .map(|cells| {
            cells
                .chunks(60)
                .map(|m| {
                    let (n, timed, busy) = m.iter().fold((0u32, 0u32, 0.0), |(n, t, b), c| {
                        (n + c.requests, t + c.timed, b + c.busy_ms())
                    });
                    (timed >= MIN_MINUTE_REQUESTS).then(|| (n, busy / f64::from(timed)))
                })
                .collect()
        })
        .collect();
    // Only instances that were serving when the incident began are
    // compared: a scale-out's fresh pods answer quickly because they carry
    // none of the queue the old ones still drain, which says nothing about
    // the old ones being stuck.
    let around_start = Span::new(
        window.start - ESTABLISHED_BEFORE_S,
        (window.start + ESTABLISHED_AFTER_S).min(window.end),
    );
    let Ok(at_start) = cx.agg.dim_stats(Dim::Instance, window, around_start) else {
        return;
    };
    let established: Vec<bool> = names
        .iter()
        .map(|n| {
            at_start
                .iter()
                .any(|d| &d.value == n && d.baseline_requests > 0)
        })
        .collect();
    let minutes: Vec<Minutes> = minutes
        .into_iter()
        .zip(&established)
        .map(|(m, e)| if *e { m } else { vec![None; m.len()] })
        .collect();
    let n_min = minutes.first().map_or(0, Vec::len);
    // Each minute: which instances were slow against their peers, and how
    // many answered at all.
    let mut slow = vec![vec![false; n_min]; names.len()];
    let mut serving = vec![0usize; n_min];
    let mut slow_count = vec![0usize; n_min];
    let mut peer_ms = vec![0.0; n_min];
    // Every instance has the same `n_min` minutes (one window each).
    let per_minute = serving.iter_mut().zip(&mut slow_count).zip(&mut peer_ms);
    for (m, ((serving, slow_count), peer_ms)) in per_minute.enumerate() {
        let at = |x: &Minutes| x.get(m).copied().flatten();
        let means: Vec<f64> = minutes.iter().filter_map(|x| at(x).map(|v| v.1)).collect();
        *serving = means.len();
        if means.len() < 3 {
            continue;
        }
        *peer_ms = median(&means);
        for (x, row) in minutes.iter().zip(&mut slow) {
            if let Some((_, mean)) = at(x) {
                if mean >= SLOW_MS && mean >= SEPARATION * peer_ms.max(1.0) {
                    if let Some(s) = row.get_mut(m) {
                        *s = true;
                    }
                    *slow_count += 1;
                }
            }
        }
    }
    // Over the whole incident, each established instance's failed share
    // and mean time per timed request.
    let whole: Vec<Option<(f64, Option<f64>)>> = series
        .iter()
        .zip(&established)
        .map(|(cells, e)| {
            let (f, d, t, b) = cells.iter().fold((0u32, 0u32, 0u32, 0.0), |a, c| {
                (
                    a.0 + c.failed,
                    a.1 + c.done,
                    a.2 + c.timed,
                    a.3 + c.busy_ms(),
                )
            });
            (*e && d > 0).then(|| {
                let mean = (t >= MIN_MINUTE_REQUESTS).then(|| b / f64::from(t));
                (f64::from(f) / f64::from(d), mean)
            })
        })
        .collect();
    // It stands out over the incident: its failures or its time per request
    // far above its peers' (the median peer), however long it was stuck. A
    // pod whose last two minutes were slow after an hour of failing as its
    // peers did (crash-loop draw 1319207, each of five pods timing out on
    // over half its requests) is one of a fleet in trouble.
    let stands_out = |i: usize| {
        let Some(Some((fail, mean))) = whole.get(i).copied() else {
            return false;
        };
        let others = || {
            whole
                .iter()
                .enumerate()
                .filter(move |(j, _)| *j != i)
                .filter_map(|(_, w)| *w)
        };
        let peer_fail = median(&others().map(|w| w.0).collect::<Vec<_>>());
        let peer_mean = median(&others().filter_map(|w| w.1).collect::<Vec<_>>());
        let failing = fail > 0.0 && fail >= STANDS_OUT * peer_fail;
        let slower = mean.is_some_and(|m| peer_mean > 0.0 && m >= STANDS_OUT * peer_mean);
        failing || slower
    };
    let mut stuck: Vec<(usize, usize, usize, f64)> = Vec::new(); // (instance, first, last, mean)
    for (i, ((flags, mins), name)) in slow.iter().zip(&minutes).zip(&names).enumerate() {
        let (Some(first), Some(last)) = (
            flags.iter().position(|f| *f),
            flags.iter().rposition(|f| *f),
        ) else {
            continue;
        };
        let at = |m: usize| mins.get(m).copied().flatten();
        let is_slow = |m: usize| flags.get(m) == Some(&true);
        let served: Vec<usize> = (first..=last).filter(|m| at(*m).is_some()).collect();
        let slow_minutes = served.iter().filter(|m| is_slow(**m)).count();
        // A minority: in its slow minutes most peers answered normally.
        let minority = served.iter().filter(|m| is_slow(**m)).all(
            |&m| matches!((slow_count.get(m), serving.get(m)), (Some(s), Some(n)) if s * 2 < *n),
        );
        // Restarting over and over in the middle of it is a crash loop, not
        // an instance that hangs while it keeps running.
        let (from, to) = (
            (window.start + first as i64 * 60 + 60) * 1000,
            (window.start + last as i64 * 60) * 1000,
        );
        let died_inside = a
            .history
            .restarts
            .iter()
            .any(|r| a.ids.canonical(name) == r.instance && r.down > from && r.down < to);
        // Its peers were fine: in its slow minutes, the instances that were
        // not slow answered nearly all their requests. One slow among a fleet
        // failing together is the fleet's trouble, not a gray failure
        // (crash-loop draw 1319207: five pods crash-looping, each failing
        // over half its requests, and one slower than the rest for its last
        // two minutes was called stuck).
        let (peers_failed, peers_done) = served
            .iter()
            .filter(|m| is_slow(**m))
            .flat_map(|&m| {
                slow.iter()
                    .zip(&outcomes)
                    .zip(&established)
                    .filter(move |((s, _), e)| **e && s.get(m) != Some(&true))
                    .filter_map(move |((_, o), _)| o.get(m).copied())
            })
            .fold((0u32, 0u32), |(f, d), (x, y)| (f + x, d + y));
        let peers_fine = f64::from(peers_failed) < PEERS_FAILING * f64::from(peers_done.max(1));
        if slow_minutes >= MIN_STUCK_MINUTES
            && slow_minutes as f64 >= MIN_SLOW_SHARE * served.len() as f64
            && minority
            && peers_fine
            && stands_out(i)
            && !died_inside
        {
            let mean = served
                .iter()
                .filter_map(|m| at(*m).map(|v| v.1))
                .sum::<f64>()
                / served.len().max(1) as f64;
            stuck.push((i, first, last, mean));
        }
    }
    // An instance that a change brought in (it served nothing before a
    // deploy, rollback or flag change made since the data began) and was
    // slow after it is the new version failing, which `deploy_regression`
    // weighs: a gray failure is an instance that answered before and stopped.
    if let Some(span) = a.span {
        let changes: Vec<i64> = a
            .changes
            .iter()
            .map(|c| c.ts.div_euclid(1000))
            .filter(|t| *t > span.start && *t < window.end)
            .collect();
        for t in changes.iter().rev().take(MAX_CHANGES_WEIGHED) {
            let Ok(before) = cx
                .agg
                .dim_stats(Dim::Instance, window, Span::new(span.start, *t))
            else {
                continue;
            };
            // The change tells the slow instance apart only where peers it
            // did not bring in stayed fine: when every instance serving came
            // in with it, the new version is what all of them run, and one
            // of them hanging is that instance's own trouble (deploy-leak
            // draw 895319: one of six new pods timed out 73 of 99 requests).
            let stuck_names: Vec<&String> = stuck.iter().filter_map(|st| names.get(st.0)).collect();
            let old_peers = before.iter().any(|d| {
                d.baseline_requests > 0 && d.window_requests > 0 && !stuck_names.contains(&&d.value)
            });
            if !old_peers {
                continue;
            }
            stuck.retain(|st| {
                let slow_from = window.start + st.1 as i64 * 60;
                let new = before
                    .iter()
                    .find(|d| names.get(st.0) == Some(&d.value))
                    .is_none_or(|d| d.baseline_requests == 0);
                !(new && slow_from >= *t)
            });
        }
    }
    // An instance that served nothing before it was slow (one a scale-out
    // added, taking the backlog while it warmed up) did not stop answering:
    // it never answered yet.
    if let Some(span) = a.span {
        stuck.retain(|st| {
            let slow_from = window.start + st.1 as i64 * 60;
            cx.agg
                .dim_stats(Dim::Instance, window, Span::new(span.start, slow_from))
                .is_ok_and(|before| {
                    before
                        .iter()
                        .find(|d| names.get(st.0) == Some(&d.value))
                        .is_some_and(|d| d.baseline_requests > 0)
                })
        });
    }
    // An instance waiting on its own exhausted pool (its log says so, or
    // its pool's metrics) is the pool running out there first, which
    // `pool_exhaustion` tells: a gray failure is one slow for no reason
    // the data shows.
    // Only where pools ran out across the fleet: an instance hanging on
    // its own pool while its peers' were fine is the gray failure itself
    // (deploy-leak draw 895319: one pod's leaked pool, five pods fine).
    let exhausted = pool_exhausted(cx, window);
    let serving = minutes
        .iter()
        .zip(&names)
        .filter(|(x, _)| x.iter().any(Option::is_some))
        .map(|(_, n)| a.ids.canonical(n))
        .collect::<std::collections::BTreeSet<_>>();
    let fleet_wide = 2 * exhausted.intersection(&serving).count() >= serving.len();
    stuck.retain(|st| {
        !fleet_wide
            || names
                .get(st.0)
                .is_none_or(|n| !exhausted.contains(&a.ids.canonical(n)))
    });
    // One instance named two ways (pod, IP:port) is one.
    let mut seen = std::collections::BTreeSet::new();
    // `stuck` holds indices of `names`.
    stuck.retain(|s| {
        names
            .get(s.0)
            .is_some_and(|n| seen.insert(a.ids.canonical(n)))
    });
    let active = serving.len();
    // Said against those running when it began: a replacement that started
    // at the end is not one of the peers it was compared with.
    let running = serving
        .iter()
        .filter(|n| !a.instances_joined.contains(*n))
        .count();
    if stuck.is_empty() || stuck.len() * 2 >= active {
        return;
    }
    let input = a.request_input();
    let mut evidence = Vec::new();
    let mut worst: f64 = 1.0;
    let name = |i: usize| names.get(i).map_or("", String::as_str);
    for &(i, first, last, mean) in &stuck {
        let row = slow.get(i).map(Vec::as_slice).unwrap_or_default();
        let peers: Vec<f64> = (first..=last)
            .filter(|m| row.get(*m) == Some(&true))
            .filter_map(|m| peer_ms.get(m).copied())
            .collect();
        let peer = median(&peers);
        worst = worst.max(mean / peer.max(1.0));
        evidence.push(Evidence::new(
            format!(
                "{}: mean {:.0} ms per request from {} to {}, while its peers answered in {:.0} ms (median)",
                a.ids.display(name(i)),
                mean,
                crate::zone::clock((window.start + first as i64 * 60) * 1000),
                crate::zone::clock((window.start + last as i64 * 60 + 60).min(window.end) * 1000),
                peer
            ),
            input.clone(),
        ));
    }
    let start = stuck.iter().map(|s| s.1).min().unwrap_or(0);
    let c = 0.55
        + 0.3 * (worst.log10() / 2.0).min(1.0)
        + 0.1 * (1.0 - stuck.len() as f64 / active as f64);
    let shown: Vec<String> = stuck.iter().map(|s| a.ids.display(name(s.0))).collect();
    sink.push(Finding {
        figures: Vec::new(),
        pattern: ID,
        title: format!(
            "{} of {} instances stopped answering in time while their peers were fine",
            stuck.len(),
            running.max(stuck.len())
        ),
        confidence: confidence(c),
        start: (window.start + start as i64 * 60) * 1000,
        end: window.end * 1000,
        subject: Subject {
            instance: shown.first().filter(|_| stuck.len() == 1).cloned(),
            ..Subject::default()
        },
        evidence,
        timeline: vec![TimelineEntry {
            ts: first_slow_second(&series, &stuck, window.start),
            kind: TimelineKind::InstanceStuck,
            text: format!(
                "{} slow or timing out while peers answer normally",
                shown.join(", ")
            ),
            sources: vec![input],
        }],
        actions: ACTIONS,
    });
}

/// Instances (canonical) that logged pool exhaustion, or whose pool
/// metrics had callers waiting, in `window`.
fn pool_exhausted(cx: &Context<'_>, window: Span) -> std::collections::BTreeSet<String> {
    let a = cx.analysis;
    let (lo, hi) = (window.start * 1000, window.end * 1000);
    let logged = cx.pool_exhaustion_logged(window);
    let waited = a
        .pool
        .instances
        .iter()
        .filter(|p| {
            !p.instance.is_empty()
                && p.peak_waiting > 0.0
                && p.saturated.iter().any(|(s, e)| *s < hi && *e > lo)
        })
        .map(|p| a.ids.canonical(&p.instance));
    logged.into_iter().chain(waited).collect()
}

/// A restart this close to the window's end is the responders ending it,
/// not the instance dying while it was stuck.
const ENDED_BY_RESTART_MS: i64 = 120_000;

/// Instances whose own request-rate metrics fell far below their peers'
/// (see `correlate::throughput`): what an access log that names no
/// upstream leaves to see of a stuck instance. An instance that restarted
/// in the middle of it was dying, not stuck; a fall alone says less than
/// requests timing out on one instance, so the certainty stays below the
/// latency path's.
fn by_request_rate(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let Some(window) = a.window().filter(|_| a.incident.is_some()) else {
        return;
    };
    let (from, to) = (
        (window.start + 60) * 1000,
        window.end * 1000 - ENDED_BY_RESTART_MS,
    );
    let stalled: Vec<&crate::correlate::throughput::Stall> =
        a.stalls
            .iter()
            .filter(|s| {
                !a.history.restarts.iter().any(|r| {
                    a.ids.canonical(&r.instance) == s.instance && r.down > from && r.down < to
                })
            })
            .collect();
    // As on the latency path: one whose own pool ran out is the pool's
    // trouble there first, not an instance stuck for no reason the data
    // shows (deploy-leak draw 2631819: a leak filled each pod's pool in
    // turn; the first to fall to a trickle was called stuck).
    let exhausted = pool_exhausted(cx, window);
    let stalled: Vec<_> = stalled
        .into_iter()
        .filter(|s| !exhausted.contains(&a.ids.canonical(&s.instance)))
        .collect();
    if stalled.is_empty() {
        return;
    }
    // Those compared all served before it began: none joined during it.
    let running = stalled.iter().map(|s| s.of).max().unwrap_or(0);
    let mut evidence = Vec::new();
    let mut deepest: f64 = 1.0;
    for s in &stalled {
        let rel = s.ratio() / s.peers_ratio.max(f64::MIN_POSITIVE);
        deepest = deepest.min(rel);
        evidence.push(Evidence::new(
            format!(
                "{}: its requests completed fell to {:.0}% of its own rate before the incident, while its peers kept {:.0}% of theirs (median), by `{}`",
                a.ids.display(&s.instance),
                100.0 * s.ratio(),
                100.0 * s.peers_ratio,
                s.series
            ),
            a.input_name(s.input).to_string(),
        ));
    }
    // 0.5 at the threshold (half its peers' share), up to 0.75 for one
    // that completed nothing.
    let c = 0.5 + 0.25 * (1.0 - deepest / 0.5).clamp(0.0, 1.0);
    let shown: Vec<String> = stalled.iter().map(|s| a.ids.display(&s.instance)).collect();
    let sources: Vec<String> = stalled
        .iter()
        .map(|s| a.input_name(s.input).to_string())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    sink.push(Finding {
        figures: Vec::new(),
        pattern: ID,
        title: format!(
            "{} of {} instances stopped completing requests while their peers went on",
            stalled.len(),
            running
        ),
        confidence: confidence(c),
        start: window.start * 1000,
        end: window.end * 1000,
        subject: Subject {
            instance: shown.first().filter(|_| stalled.len() == 1).cloned(),
            ..Subject::default()
        },
        evidence,
        timeline: vec![TimelineEntry {
            ts: window.start * 1000,
            kind: TimelineKind::InstanceStuck,
            text: format!(
                "{} completing far fewer requests than their peers (request-rate metrics)",
                shown.join(", ")
            ),
            sources,
        }],
        actions: ACTIONS,
    });
}

/// The first second a stuck instance served a request far slower than
/// usual, within its first slow minute (ms).
fn first_slow_second(
    series: &[Vec<crate::aggregate::Cell>],
    stuck: &[(usize, usize, usize, f64)],
    start: i64,
) -> i64 {
    stuck
        .iter()
        .filter_map(|&(i, first, _, _)| {
            let from = first * 60;
            series
                .get(i)?
                .iter()
                .enumerate()
                .skip(from)
                .take(60)
                .find(|(_, c)| c.mean_ms().is_some_and(|m| m >= SLOW_MS))
                .map(|(k, _)| (start + k as i64) * 1000)
        })
        .min()
        .unwrap_or(start * 1000)
}
