//! `pool_exhaustion`: the application tier runs out of database (or other)
//! pool connections; requests queue for a connection, then fail.
//!
//! Why it matters: a shared, fixed pool turns one slow workload into
//! everyone's outage (seeds 000, 003, 004).
//!
//! Example: `hikaricp_connections_active` at `hikaricp_connections_max` (20)
//! on all three servers with 140 threads pending, and HikariCP's
//! "Connection is not available, request timed out" in the logs.

use super::finding::{confidence, Evidence, Finding, Subject};
use super::Context;
use crate::correlate::stats::poisson_exceeds;
use crate::event::Signal;

pub const ID: &str = "pool_exhaustion";

/// When one client's work held the pool.
const ACTIONS: &[&str] = &[
    "Dedicated connection pools for interactive and bulk work, so one cannot starve the other",
    "Fail fast on pool checkout (short acquire timeout) instead of queueing for tens of seconds",
    "Alert on the leading indicators: pool usage near its maximum and requests waiting for a connection",
];
/// When no client explains it: something in the service held connections.
const ACTIONS_NO_CLIENT: &[&str] = &[
    "Find what held the connections: turn on the pool's leak detection (every pool library has one) and measure checkout time per endpoint",
    "Fail fast on pool checkout (short acquire timeout) instead of queueing for tens of seconds",
    "Alert on the leading indicators: pool usage near its maximum and requests waiting for a connection",
];

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let (Some(_), Some(window)) = (a.incident, a.window()) else {
        return;
    };
    let (w0, w1) = (window.start * 1000, window.end * 1000);
    // One sample at the maximum counts where the instance shows it ran
    // short (its log says requests waited, or it failed, slowed, died):
    // alone it is a pool at its size the instant it was sampled
    // (bulk-export draw 2631806: 26 of 26 in one scrape, 2 waiting, and
    // not one request failed there).
    let logged = cx.pool_exhaustion_logged(window);
    let shown = |p: &crate::correlate::PoolInstance| {
        !p.instance.is_empty()
            && [&logged, &a.instances_affected]
                .iter()
                .any(|set| set.contains(&a.ids.canonical(&p.instance)))
    };
    let saturated: Vec<&crate::correlate::PoolInstance> = a
        .pool
        .instances
        .iter()
        .filter(|p| p.saturated.iter().any(|r| r.0 < w1 && r.1 > w0))
        .filter(|p| p.held_saturated(w0, w1) || shown(p))
        .collect();
    let span = a.span.unwrap_or(window);
    let lines_in = |w: crate::aggregate::Span| -> u32 {
        (w.start..w.end)
            .filter(|s| span.contains(*s))
            .filter_map(|s| a.pool.log_lines.get((s - span.start) as usize))
            .sum()
    };
    let mut log_lines = lines_in(window);
    // A pool logs its state all the time (HikariCP's pool stats every 30 s,
    // connections added): such lines count only when they come far more
    // often than before the incident.
    if let Some(b) = a.baseline.filter(|b| b.secs() > 0.0) {
        let expected = f64::from(lines_in(b)) / b.secs() * window.secs();
        if !poisson_exceeds(f64::from(log_lines), expected) {
            log_lines = 0;
        }
    }
    if saturated.is_empty() && log_lines == 0 {
        return;
    }
    let mut evidence = Vec::new();
    let mut start = i64::MAX;
    let mut end = i64::MIN;
    for p in &saturated {
        let runs: Vec<&(i64, i64)> = p
            .saturated
            .iter()
            .filter(|r| r.0 < w1 && r.1 > w0)
            .collect();
        // `saturated` holds pools with a run in the window.
        let (Some(first), Some(last)) = (runs.first(), runs.last()) else {
            continue;
        };
        let (s, e) = (first.0, last.1);
        // A rollup's first saturated period is dated by the onset inside it.
        let s = a
            .incident
            .map_or(s, |i| a.pool.dated(s / 1000, i.onset) * 1000);
        start = start.min(s);
        end = end.max(e);
        let secs: i64 = runs.iter().map(|r| (r.1 - r.0) / 1000).sum();
        let in_use = match p.max {
            Some(m) => format!("{:.0} of {m:.0} connections in use", p.peak_in_use),
            None => format!("{:.0} connections in use (its maximum)", p.peak_in_use),
        };
        evidence.push(Evidence::new(
            format!(
                "{}: {in_use}, up to {:.0} waiting; saturated for {secs} s",
                if p.instance.is_empty() {
                    "pool".to_string()
                } else {
                    a.ids.display(&p.instance)
                },
                p.peak_waiting
            ),
            format!("{} ({})", a.input_name(p.input), p.series),
        ));
    }
    let quotes = cx.agg.signal_quotes(Signal::PoolExhausted);
    let mut log_instances = 0;
    if log_lines > 0 {
        log_instances = a.pool.log_instances.len();
        if let Some((_, q)) = quotes.iter().min_by_key(|(_, q)| q.ts) {
            start = start.min(q.ts);
            evidence.push(Evidence::new(
                format!(
                    "{log_lines} pool-exhaustion log lines in the window on {} instance(s), the first: \"{}\"",
                    log_instances.max(1),
                    crate::redact::quote(&q.message, 160)
                ),
                a.source(q.origin),
            ));
        }
    }
    if end == i64::MIN {
        end = w1;
    }
    // Counted against the pools that reported around the incident: pods a
    // deploy replaced hours before are not "of 6" beside a fleet of 4.
    let reporting = a.pool.reporting(window).max(saturated.len());
    let known = reporting.max(a.fleet.len()).max(1);
    let c = if !saturated.is_empty() {
        0.6 + 0.2 * (saturated.len() as f64 / reporting.max(1) as f64)
            + if log_lines > 0 { 0.15 } else { 0.0 }
    } else {
        0.55 + 0.25 * (log_instances as f64 / known as f64).min(1.0)
    };
    let all = !saturated.is_empty() && saturated.len() == reporting && saturated.len() > 1;
    sink.push(Finding {
        figures: Vec::new(),
        pattern: ID,
        title: if all {
            match saturated.len() {
                2 => "Database connection pools exhausted on both instances".to_string(),
                n => format!("Database connection pools exhausted on all {n} instances"),
            }
        } else if !saturated.is_empty() {
            format!(
                "Database connection pool exhausted on {} of {} instances",
                saturated.len(),
                reporting
            )
        } else {
            "Connection pool exhausted (application logs)".to_string()
        },
        confidence: confidence(c.min(0.98)),
        start: start.max(w0 - 120_000),
        end,
        subject: Subject {
            instance: saturated
                .first()
                .filter(|_| saturated.len() == 1)
                .map(|p| p.instance.clone()),
            ..Subject::default()
        },
        evidence,
        timeline: Vec::new(),
        actions: if a.attribution.culprit {
            ACTIONS
        } else {
            ACTIONS_NO_CLIENT
        },
    });
}
