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
use crate::aggregate::Dim;
use crate::correlate::stats::median;
use crate::correlate::{TimelineEntry, TimelineKind};

pub const ID: &str = "stuck_instance";

const ACTIONS: &[&str] = &[
    "Stricter timeouts and fail-fast behaviour between the gateway and the backends, so a stuck instance cannot hold connections",
    "Health checks that exercise the real request path, so an instance that stops answering is taken out of rotation and restarted",
];

/// An instance is stuck when it is this many times worse than its peers.
const SEPARATION: f64 = 5.0;

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let (Some(_), Some(window), Some(baseline)) = (a.incident, a.window(), a.baseline) else {
        return;
    };
    let Ok(stats) = cx.agg.dim_stats(Dim::Instance, window, baseline) else {
        return;
    };
    let rows: Vec<(&str, f64, f64, u64)> = stats
        .iter()
        .filter(|s| s.window_requests >= 20)
        .map(|s| {
            let n = s.window_requests as f64;
            (
                s.value.as_str(),
                s.window_busy_ms / n,
                s.window_failed as f64 / n,
                s.window_requests,
            )
        })
        .collect();
    // Peers are needed to call one instance the odd one out.
    if rows.len() < 3 {
        return;
    }
    let peer_latency = median(&rows.iter().map(|r| r.1).collect::<Vec<_>>());
    let peer_failed = median(&rows.iter().map(|r| r.2).collect::<Vec<_>>());
    let stuck: Vec<&(&str, f64, f64, u64)> = rows
        .iter()
        .filter(|r| {
            let slow = r.1 >= 1000.0 && r.1 >= SEPARATION * peer_latency.max(1.0);
            let failing = r.2 >= 0.2 && r.2 >= SEPARATION * peer_failed.max(0.01);
            slow || failing
        })
        .collect();
    // A gray failure is a minority; when most instances are bad it is an outage of its own kind.
    if stuck.is_empty() || stuck.len() * 2 > rows.len() {
        return;
    }
    let mut evidence = Vec::new();
    let input = a.inputs.first().cloned().unwrap_or_default();
    for r in &stuck {
        evidence.push(Evidence::new(
            format!(
                "{}: mean {:.0} ms and {:.0}% failed over {} requests; peers: {:.0} ms and {:.1}% (medians)",
                a.ids.display(r.0),
                r.1,
                r.2 * 100.0,
                r.3,
                peer_latency,
                peer_failed * 100.0
            ),
            input.clone(),
        ));
    }
    let worst = stuck
        .iter()
        .map(|r| (r.1 / peer_latency.max(1.0)).max(r.2 / peer_failed.max(0.01)))
        .fold(0.0, f64::max);
    let c = 0.55
        + 0.3 * (worst.log10() / 2.0).min(1.0)
        + 0.1 * (1.0 - stuck.len() as f64 / rows.len() as f64);
    let names: Vec<String> = stuck.iter().map(|r| a.ids.display(r.0)).collect();
    sink.push(Finding {
        pattern: ID,
        title: format!(
            "{} of {} instances stopped answering in time while their peers were fine",
            stuck.len(),
            rows.len()
        ),
        confidence: confidence(c),
        start: window.start * 1000,
        end: window.end * 1000,
        subject: Subject {
            instance: (stuck.len() == 1).then(|| names[0].clone()),
            ..Subject::default()
        },
        evidence,
        timeline: vec![TimelineEntry {
            ts: window.start * 1000,
            kind: TimelineKind::InstanceStuck,
            text: format!(
                "{} slow or timing out while peers answer normally",
                names.join(", ")
            ),
            sources: vec![input],
        }],
        actions: ACTIONS,
    });
}
