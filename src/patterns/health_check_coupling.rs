//! `health_check_coupling`: liveness/health checks depend on the same
//! saturated resource, so they fail together with user traffic and get
//! healthy-but-slow servers killed.
//!
//! Why it matters: the check turns a slow-but-serving state into a full
//! outage by restarting every server at once (seed 000).
//!
//! Example: `/healthz` goes from 4 ms to 5 s timeouts on all three servers
//! while their DB pools are at the maximum, then kubelet kills them for
//! "failed liveness probe".

use super::finding::{confidence, Evidence, Finding, Subject};
use super::Context;
use crate::correlate::ProbeFailures;

pub const ID: &str = "health_check_coupling";

/// The most this finding can claim (see `detect`): "likely" in words.
const LIKELY_AT_MOST: f64 = 0.85;

/// Failures of one instance's probe that make a repeat (see `detect`).
const PROBE_REPEATS: u32 = 2;

const ACTIONS: &[&str] = &[
    "Liveness checks that do not touch the database or other shared dependencies (keep those in readiness)",
    "Longer liveness thresholds than the pool's acquire timeout, so slowness is not mistaken for death",
];
/// Where a systemd watchdog did the killing: its keep-alive is the check.
const WATCHDOG_ACTIONS: &[&str] = &[
    "A watchdog keep-alive sent from a thread that waits on neither the database nor the request load, so a slow database makes servers slow, not dead",
    "A watchdog timeout (WatchdogSec) longer than the pool's acquire timeout, so slowness is not mistaken for death",
];

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let (Some(_), Some(window)) = (a.incident, a.window()) else {
        return;
    };
    let (w0, w1) = (window.start * 1000, window.end * 1000);
    let probes: Vec<(&String, &ProbeFailures)> = a
        .history
        .probe_failures
        .iter()
        .filter(|(_, p)| p.first < w1 && p.last >= w0 - 120_000)
        .collect();
    let access_failing = &a.health.failing;
    if probes.is_empty() && access_failing.is_empty() {
        return;
    }
    let first_fail = {
        let from_access = a.health.first_failure.map(|(s, _)| s * 1000);
        // The run that reaches the window: a lone failure an hour before
        // is no start of this one.
        let from_probe = probes
            .iter()
            .filter_map(|(_, p)| p.first_from(w0 - 120_000).map(|f| f.0))
            .min();
        match (from_access, from_probe) {
            (Some(x), Some(y)) => x.min(y),
            (Some(x), None) | (None, Some(x)) => x,
            (None, None) => return,
        }
    };
    let span = a.span.unwrap_or(window);
    let sat_start = a.pool.first_saturated(span, window).map(|s| s * 1000);
    let mut evidence = Vec::new();
    let mut c: f64 = 0.3;
    if let Some(s) = sat_start {
        if s <= first_fail {
            c += 0.25;
            evidence.push(Evidence::new(
                format!(
                    "health checks began failing {} s after the connection pool saturated",
                    (first_fail - s) / 1000
                ),
                "pool metrics and health checks",
            ));
        }
    }
    let failing = access_failing.len().max(probes.len());
    // Of the instances running then, as the title counts them: pods a
    // rollback or a scale-out added at the end were never at risk.
    let total = a
        .running(a.health.instances.len().max(a.fleet.len()), failing)
        .max(1);
    c += 0.2 * (failing as f64 / total as f64).min(1.0);
    if !access_failing.is_empty() {
        evidence.push(Evidence::new(
            format!(
                "{} of {} health checks failed in the window on {} of {} instances (slowest {:.0} ms; {:.0} ms is usual)",
                a.health.failed_in_window,
                a.health.checks_in_window,
                access_failing.len(),
                a.health.instances.len(),
                a.health.window_max_ms,
                a.health.baseline_median_ms
            ),
            a.health.first_failure.map_or_else(String::new, |(_, o)| a.source(o)),
        ));
    }
    for (inst, p) in probes.iter().take(5) {
        evidence.push(Evidence::new(
            format!(
                "probe failures on {}: {} failures from {} on",
                a.ids.display(inst),
                p.count,
                crate::zone::clock(p.first)
            ),
            a.source(p.origin),
        ));
    }
    // Kills for failed probes close the loop: the check restarted the servers.
    let killed_by_probe: Vec<&crate::correlate::Restart> = a
        .history
        .restarts
        .iter()
        .filter(|r| {
            r.down >= first_fail
                && r.down < w1
                && r.cause
                    .as_deref()
                    .is_some_and(|c| a.stop_causes.killed_by_check(c))
        })
        .collect();
    if let Some(first_kill) = killed_by_probe.first() {
        c += 0.2;
        // Kills, not instances: one instance killed three times is three.
        let instances: std::collections::BTreeSet<&str> = killed_by_probe
            .iter()
            .map(|r| r.instance.as_str())
            .collect();
        evidence.push(Evidence::new(
            format!(
                "{} kill(s) for failing the probe, of {} instance(s)",
                killed_by_probe.len(),
                instances.len()
            ),
            a.source(first_kill.source),
        ));
    }
    // Coupling means the checks failed with the users' requests, on a shared
    // resource. Without either in the data, failing checks are a weak signal.
    let users_hurt = [a.errors_start.map(|e| e.0), a.latency_start]
        .into_iter()
        .flatten()
        .any(|s| (s * 1000 - first_fail).abs() <= 120_000);
    if users_hurt {
        evidence.push(Evidence::new(
            "user requests were failing or slow at the same time".to_string(),
            a.request_input(),
        ));
    }
    if sat_start.is_none() && !users_hurt {
        c = c.min(0.45);
    }
    // The pattern is checks bound to a saturated shared resource: where
    // pools reported through the window and none saturated, the checks
    // failed on something else (a process too busy or crashing to answer:
    // a crash loop's probes), and coupling is not shown.
    let waited = (window.start.max(span.start)..window.end.min(span.end))
        .any(|s| a.pool.waiting_secs.get((s - span.start) as usize) == Some(&true));
    // A pool whose maximum is known shows whether it was reached; one
    // whose maximum is not (a database's own count of backends) shows a
    // strain only by going above the most it held in the baseline.
    let baseline = a.baseline.unwrap_or(span);
    let above_usual = |key: &str, input: u32| {
        let Some(series) = cx
            .agg
            .metric_series()
            .find(|x| x.key == key && x.input == input)
        else {
            return true;
        };
        let peak = |from: i64, to: i64| {
            series
                .points
                .iter()
                .filter(|(t, _)| *t >= from && *t < to)
                .map(|(_, v)| *v)
                .fold(f64::NAN, f64::max)
        };
        let usual = peak(baseline.start * 1000, baseline.end * 1000);
        let now = peak(w0, w1);
        // No baseline to compare with: nothing is shown either way.
        usual.is_nan() || now > usual
    };
    // A window of fewer than three samples can miss a saturation between
    // them: such a pool shows nothing either way.
    let reporting: Vec<&crate::correlate::PoolInstance> = a
        .pool
        .instances
        .iter()
        .filter(|p| p.reported(w0, w1) && w1 - w0 >= 3 * p.step)
        .collect();
    let bounded = !reporting.is_empty()
        && reporting
            .iter()
            .all(|p| p.max.is_some() || !above_usual(&p.series, p.input));
    if sat_start.is_none() && !waited && bounded {
        c = c.min(0.45);
    }
    // A check bound to an exhausted resource fails again and again while it
    // lasts (a kubelet kills after three in a row); one failed probe per
    // server on a busy hour is a timeout, not coupling. Without a repeat, a
    // failing check in the access log or a kill for the probe, the signal
    // stays weak.
    let repeated = probes.iter().any(|(_, p)| p.count >= PROBE_REPEATS);
    if !repeated && access_failing.is_empty() && killed_by_probe.is_empty() {
        c = c.min(0.45);
    }
    // Failing together with a saturated pool is what the data can show;
    // that the check itself waits for a connection, rather than for a
    // worker or the CPU the users' requests also filled, it cannot (a
    // probe's handler is not in any log): likely, not shown.
    c = c.min(LIKELY_AT_MOST);
    sink.push(Finding {
        figures: Vec::new(),
        pattern: ID,
        title: format!(
            "Health checks failed together with user traffic on {failing} of {total} instances"
        ),
        confidence: confidence(c),
        start: first_fail,
        end: w1,
        subject: Subject {
            endpoint: Some("health checks".to_string()),
            ..Subject::default()
        },
        evidence,
        timeline: Vec::new(),
        actions: if killed_by_probe.iter().any(|r| {
            r.cause
                .as_deref()
                .is_some_and(|c| a.stop_causes.killed_by_watchdog(c))
        }) {
            WATCHDOG_ACTIONS
        } else {
            ACTIONS
        },
    });
}
