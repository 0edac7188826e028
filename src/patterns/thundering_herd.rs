//! `thundering_herd`: many clients act at the same moment (reconnect,
//! re-login) after an interruption.
//!
//! Why it matters: the herd can knock the service over again right as it
//! comes back, and spill onto dependencies such as login providers (seed 004).
//!
//! Example: after the outage ends at 16:58, websocket handshakes run at 40x
//! their usual rate for two minutes.

use super::finding::{confidence, Evidence, Finding, Subject};
use super::Context;
use crate::aggregate::{Dim, Span};
use crate::correlate::stats::{poisson_exceeds, prefix_sums, range_sum};
use crate::correlate::{TimelineEntry, TimelineKind};
use crate::zone::clock;

pub const ID: &str = "thundering_herd";

const ACTIONS: &[&str] = &[
    "Reconnect and re-login with jittered exponential backoff in every client",
    "Admission control on connect/login endpoints while recovering (queue, shed, or serve a static page)",
];

/// How long after an interruption ends a herd is looked for.
const AFTER_S: i64 = 120;
/// How far above the usual rate a herd is.
const HERD_RATIO: f64 = 5.0;
/// Seconds a breaker's line may be stamped after the storm it set off.
const BREAKER_SKEW_S: i64 = 15;

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let (Some(_), Some(window), Some(baseline), Some(span)) =
        (a.incident, a.window(), a.baseline, a.span)
    else {
        return;
    };
    let routes: Vec<String> = cx
        .agg
        .dim_values(Dim::Route)
        .into_iter()
        .filter(|r| a.reconnect_routes.iter().any(|f| r.contains(f.as_str())))
        .collect();
    if routes.is_empty() {
        return;
    }
    // Where an interruption ends: an outage ends, or restarted instances come back.
    let mut ends: Vec<i64> = a.outages.iter().map(|o| o.end).collect();
    ends.extend(
        a.history
            .restarts
            .iter()
            .filter_map(|r| r.up)
            .map(|u| u.div_euclid(1000)),
    );
    ends.retain(|e| *e >= window.start && *e <= window.end);
    ends.sort_unstable();
    ends.dedup();
    let counts = |route: &str, s: Span| -> f64 {
        cx.agg
            .dim_series(Dim::Route, route, span)
            .iter()
            .enumerate()
            .filter(|(i, _)| s.contains(span.start + *i as i64))
            .map(|(_, c)| f64::from(c.requests))
            .sum()
    };
    // A herd also comes without an interruption the data shows (a load
    // balancer dropping every websocket): each route's own surge is a
    // candidate start, dated at its first second.
    let mut starts: Vec<(i64, &String)> = Vec::new();
    for route in &routes {
        for e in &ends {
            starts.push((*e, route));
        }
        if let Some(s) = surge_start(cx, route, span, window, baseline) {
            starts.push((s, route));
        }
    }
    starts.sort_unstable();
    starts.dedup();
    // A breaker that opened shortly before cut its callers off at once
    // (seed 004): said where it did. Its line may be stamped a few seconds
    // after the first reconnects (a log shipped late, a skewed clock: herd
    // draw 2501003's breaker line came 9 s after the storm's first second).
    let breaker = |start: i64| {
        a.circuit
            .as_ref()
            .filter(|c| (-BREAKER_SKEW_S..=AFTER_S).contains(&(start - c.opened)))
    };
    // Every start that makes a herd, with its excess over the expected.
    let mut found: Vec<(f64, Finding)> = Vec::new();
    for (end, route) in starts {
        let after = Span::new(end, (end + AFTER_S).min(span.end));
        {
            let base_rate = counts(route, baseline) / baseline.secs().max(1.0);
            let sent = counts(route, after);
            let expected = base_rate * after.secs();
            let ratio = sent / (expected + 1.0);
            if !poisson_exceeds(sent, expected) || ratio < HERD_RATIO {
                continue;
            }
            let c = 0.5 + 0.3 * (ratio.log10() / 2.0).min(1.0) + 0.1;
            let input = a.request_input();
            let f = Finding {
                figures: Vec::new(),
                pattern: ID,
                // "As the service came back" only where an interruption
                // ended there: clients also reconnect while it fails (a
                // review found it said of a storm inside the outage).
                title: format!(
                    "Clients stormed `{route}`{} ({ratio:.0}x its usual rate)",
                    if ends.contains(&end) {
                        " as the service came back"
                    } else if let Some(c) = breaker(end) {
                        // Logged after the storm's first second, it opened
                        // about when the storm began: which came first is
                        // within the sources' clock difference.
                        if end - c.opened < 0 {
                            " as a circuit breaker opened"
                        } else {
                            " after a circuit breaker opened"
                        }
                    } else {
                        ""
                    }
                ),
                confidence: confidence(c),
                start: end * 1000,
                end: after.end * 1000,
                subject: Subject {
                    endpoint: Some(route.clone()),
                    ..Subject::default()
                },
                evidence: std::iter::once(Evidence::new(
                    format!(
                        "{sent:.0} requests to `{route}` in the {} s after {} against {expected:.1} expected from its baseline rate",
                        after.len(),
                        clock(end * 1000)
                    ),
                    input.clone(),
                ))
                .chain(breaker(end).map(|c| {
                    Evidence::new(
                        format!(
                            "a circuit breaker opened at {}, {}",
                            clock(c.opened * 1000),
                            match end - c.opened {
                                0 => "the second the storm began".to_string(),
                                d if d > 0 => format!("{d} s before the storm"),
                                d => format!(
                                    "its line stamped {} s after the storm's first request: which came first is within the few seconds two sources' clocks can differ",
                                    -d
                                ),
                            }
                        ),
                        a.source(c.origin),
                    )
                }))
                .collect(),
                timeline: vec![TimelineEntry {
                    ts: end * 1000,
                    kind: TimelineKind::ReconnectSpike,
                    text: format!("Reconnect/login spike on `{route}`: {ratio:.0}x its usual rate"),
                    sources: vec![input],
                }],
                actions: ACTIONS,
            };
            found.push((sent - expected, f));
        }
    }
    // The herd is many clients: it began at the first surge with half the
    // excess of the largest. Chosen by ratio, a login route's 29 extra
    // requests (252x a near-zero usual) outranked a websocket route's
    // thousands four minutes earlier (herd draw 2501004).
    let most = found.iter().map(|(x, _)| *x).fold(0.0, f64::max);
    if let Some((_, f)) = found.into_iter().find(|(x, _)| 2.0 * x >= most) {
        sink.push(f);
    }
}

/// The first second in the window from which `route` ran at
/// [`HERD_RATIO`] times its baseline rate or more over the next minute
/// (and more than chance allows).
fn surge_start(
    cx: &Context<'_>,
    route: &str,
    span: Span,
    window: Span,
    baseline: Span,
) -> Option<i64> {
    const MINUTE: usize = 60;
    let cells = cx.agg.dim_series(Dim::Route, route, span);
    let counts: Vec<f64> = cells.iter().map(|c| f64::from(c.requests)).collect();
    let at = |s: i64| (s - span.start) as usize;
    // Seconds of the span index `counts`, which covers it.
    let base: f64 = (baseline.start.max(span.start)..baseline.end.min(span.end))
        .filter_map(|s| counts.get(at(s)))
        .sum::<f64>()
        / baseline.secs().max(1.0);
    let expected = base * MINUTE as f64;
    // Prefix sums: the count of the minute from each second.
    let prefix = prefix_sums(counts.iter().copied());
    let over = |s: i64, secs: usize, expected: f64| {
        let i = at(s);
        let j = (i + secs).min(counts.len());
        let sent = range_sum(&prefix, i, j);
        // The stretch's first second holds some of it: a herd starts there.
        counts.get(i).is_some_and(|c| *c > 0.0)
            && sent / (expected + 1.0) >= HERD_RATIO
            && poisson_exceeds(sent, expected)
    };
    let end = window.end.min(span.end);
    let first = (window.start.max(span.start)..end).find(|&s| over(s, MINUTE, expected))?;
    // A minute that starts before the herd holds it too: the herd starts
    // where ten seconds of it are already that far above the usual.
    const SHORT: usize = 10;
    let short = base * SHORT as f64;
    (first..(first + MINUTE as i64).min(end))
        .find(|&s| over(s, SHORT, short))
        .or(Some(first))
}
