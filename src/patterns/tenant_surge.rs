//! `tenant_surge`: one tenant or integration drives request volume far above
//! its own baseline and takes a large share of capacity (noisy neighbour).
//!
//! Why it matters: with no per-tenant limits a single integration competes
//! on equal terms with everyone's interactive traffic (seeds 000 and 003).
//!
//! Example: acct-4411's exporter goes from 0.007 req/s to 150 req/s and holds
//! 80% of the servers' busy time.

use super::finding::{confidence, Evidence, Finding, Subject};
use super::Context;
use crate::correlate::attribution::SINGLE_CULPRIT_SHARE;
use crate::correlate::timeline::rate;

pub const ID: &str = "tenant_surge";

/// "Far above its own baseline": three times its rate at the least, more
/// than the doubling that counts as a change of behaviour.
const SURGE_RATIO: f64 = 3.0;

const ACTIONS: &[&str] = &[
    "Per-account (per-integration) rate limits on the public API, with published quotas and advance notice to high-volume integrations",
    "Bounded page sizes on list endpoints, so one bulk reader cannot hold connections for seconds",
    "Separate capacity (pools, workers) for bulk/background and interactive traffic",
];

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let (Some(_), Some(window)) = (a.incident, a.window()) else {
        return;
    };
    let attr = &a.attribution;
    if !attr.culprit {
        return;
    }
    let Some(top) = attr.rows.first() else { return };
    // A surge is the culprit's volume: far above its own rate, and most of
    // the requests above baseline. A culprit by cost alone is a hog.
    if top.rate_ratio < SURGE_RATIO || top.share_of_excess < SINGLE_CULPRIT_SHARE {
        return;
    }
    let runs = a.surges.iter().filter(|s| s.value == top.value);
    let surge = runs.clone().min_by_key(|s| s.start);
    // The surge runs from its first run's start to its last run's end: a
    // client waiting on a full pool sends in bursts, and its first run
    // alone ended the surge at 09:53:37 where its traffic stopped only at
    // 10:04, the recovery (bulk-export draw 895307).
    let last_end = runs.map(|s| s.end).max();
    let (start, end) = match (surge, last_end) {
        (Some(s), Some(e)) => (s.start, e.max(s.start + 1)),
        _ => (window.start, window.end),
    };
    let source = surge.map_or_else(|| "access logs".to_string(), |s| a.source(s.first));
    let input = surge.map_or_else(
        || "access logs".to_string(),
        |s| a.input_name(s.first.input).to_string(),
    );
    let who = top.label();
    let mut evidence = vec![
        Evidence::new(
            format!(
                "{who} sent {:.1} req/s during the incident against {} req/s in the baseline ({}x)",
                top.window_rate_per_s,
                rate(top.baseline_rate_per_s),
                ratio(top.rate_ratio)
            ),
            source,
        ),
        Evidence::new(
            format!(
                "{} requests, {:.0}% of all requests in the window and {:.0}% of the requests above baseline",
                top.requests,
                top.share_of_requests * 100.0,
                top.share_of_excess * 100.0
            ),
            input.clone(),
        ),
    ];
    if top.share_of_busy_time > 0.0 {
        evidence.push(Evidence::new(
            format!(
                "{:.0}% of the servers' busy time (sum of request durations) in the window",
                top.share_of_busy_time * 100.0
            ),
            input.clone(),
        ));
    }
    if let Some(s) = surge {
        evidence.push(Evidence::new(
            format!("peak {:.0} req/s in one second", s.peak_rate),
            input,
        ));
    }
    let c = 0.35
        + 0.3 * top.share_of_excess
        + 0.2 * (top.rate_ratio.max(1.0).log10() / 3.0).min(1.0)
        + 0.15 * top.share_of_busy_time;
    sink.push(Finding {
        figures: Vec::new(),
        pattern: ID,
        title: format!(
            "{who} drove the load: {}x its own baseline",
            ratio(top.rate_ratio)
        ),
        confidence: confidence(c),
        start: start * 1000,
        end: end * 1000,
        subject: Subject {
            tenant: (attr.dimension == "tenant").then(|| top.value.clone()),
            integration: if attr.dimension == "tenant" {
                top.integration.clone()
            } else {
                Some(top.value.clone())
            },
            ..Subject::default()
        },
        evidence,
        timeline: Vec::new(),
        actions: ACTIONS,
    });
}

/// A ratio for text: whole numbers from 10 up.
pub fn ratio(r: f64) -> String {
    if r >= 10.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}
