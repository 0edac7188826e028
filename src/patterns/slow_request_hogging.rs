//! `slow_request_hogging`: long-running requests from one integration or
//! tenant hold connections and starve everyone else, without needing a
//! high request rate.
//!
//! Why it matters: rate limits do not catch it; the subject's share of busy
//! time (the sum of request durations, i.e. connections held) does (seeds 003, 002).
//!
//! Example: an integration sends 4% of the requests but holds the servers
//! for 55% of their busy time.

use super::finding::{confidence, Evidence, Finding, Subject};
use super::Context;

pub const ID: &str = "slow_request_hogging";

const ACTIONS: &[&str] = &[
    "Shorter queueing and request timeouts, so long-running requests release their connections",
    "Isolate the slow endpoint or integration (its own pool or workers) and add telemetry on its duration",
];

/// Busy-time share over request share that counts as hogging.
const HOG_FACTOR: f64 = 3.0;

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let (Some(_), Some(window)) = (a.incident, a.window()) else {
        return;
    };
    let attr = &a.attribution;
    let Some(row) = attr
        .rows
        .iter()
        .filter(|r| {
            r.share_of_busy_time >= 0.3 && r.share_of_busy_time >= HOG_FACTOR * r.share_of_requests
        })
        .max_by(|x, y| x.share_of_busy_time.total_cmp(&y.share_of_busy_time))
    else {
        return;
    };
    let factor = row.share_of_busy_time / row.share_of_requests.max(1e-6);
    let who = row.label();
    let input = a.inputs.first().cloned().unwrap_or_default();
    let c = 0.5 + 0.3 * (factor / 10.0).min(1.0) + 0.15 * row.share_of_busy_time;
    sink.push(Finding {
        pattern: ID,
        title: format!("{who} held the servers with slow requests: {:.0}% of busy time from {:.1}% of requests", row.share_of_busy_time * 100.0, row.share_of_requests * 100.0),
        confidence: confidence(c),
        start: window.start * 1000,
        end: window.end * 1000,
        subject: Subject {
            tenant: (attr.dimension == "tenant").then(|| row.value.clone()),
            integration: if attr.dimension == "tenant" { row.integration.clone() } else { Some(row.value.clone()) },
            ..Subject::default()
        },
        evidence: vec![
            Evidence::new(
                format!(
                    "{who}: {:.0}% of the servers' busy time (sum of request durations) in the window, from {:.1}% of the requests ({factor:.0}x its share)",
                    row.share_of_busy_time * 100.0,
                    row.share_of_requests * 100.0
                ),
                input.clone(),
            ),
            Evidence::new(
                format!("{} requests at {:.1} req/s ({} req/s in the baseline)", row.requests, row.window_rate_per_s, crate::correlate::timeline::rate(row.baseline_rate_per_s)),
                input,
            ),
        ],
        timeline: Vec::new(),
        actions: ACTIONS,
    });
}
