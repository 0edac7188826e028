//! `upstream_rate_limit`: a dependency starts rejecting this service (HTTP
//! 429 from an upstream, an OAuth provider's limits), often as a secondary
//! effect of the primary failure.
//!
//! Why it matters: it keeps users out after the service itself has
//! recovered, and retries make it worse (seed 004: GitHub login limits).
//!
//! Example: from 17:08 the application logs "API rate limit exceeded" from
//! the OAuth provider on every instance, 6 minutes after the onset.

use super::finding::{confidence, Evidence, Finding, Subject};
use super::Context;
use crate::correlate::{TimelineEntry, TimelineKind};
use crate::event::Signal;
use crate::zone::clock;

pub const ID: &str = "upstream_rate_limit";

const ACTIONS: &[&str] = &[
    "Queue and back off calls to rate-limited dependencies (login providers, third-party APIs), and honour their Retry-After",
    "Serve degraded paths (e.g. hide login) while a dependency is limiting, instead of sending every user into the limit",
];

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let (Some(inc), Some(window)) = (a.incident, a.window()) else {
        return;
    };
    let counts: Vec<(String, i64, u32)> = cx
        .agg
        .signal_counts(Signal::RateLimited)
        .into_iter()
        .filter(|(_, s, _)| window.contains(*s))
        .map(|(i, s, c)| (i, s, c.count))
        .collect();
    let total: u32 = counts.iter().map(|c| c.2).sum();
    // A handful of lines is noise; a limit that bites repeats.
    if total < 5 {
        return;
    }
    let first = counts.iter().map(|c| c.1).min().unwrap_or(window.start);
    let mut instances: Vec<&str> = counts
        .iter()
        .map(|c| c.0.as_str())
        .filter(|i| !i.is_empty())
        .collect();
    instances.sort_unstable();
    instances.dedup();
    let quote = cx
        .agg
        .signal_quotes(Signal::RateLimited)
        .into_iter()
        .filter(|(_, q)| q.ts >= window.start * 1000)
        .min_by_key(|(_, q)| q.ts);
    let secondary = first > inc.symptoms_start;
    let mut evidence = vec![Evidence::new(
        format!(
            "{total} rate-limit log lines from {} on {} instance(s){}",
            clock(first * 1000),
            instances.len().max(1),
            if secondary {
                format!(", {} s after the first symptom", first - inc.symptoms_start)
            } else {
                String::new()
            }
        ),
        quote
            .as_ref()
            .map_or_else(String::new, |(_, q)| a.source(q.origin)),
    )];
    if let Some((_, q)) = &quote {
        evidence.push(Evidence::new(
            format!("\"{}\"", crate::redact::quote(&q.message, 160)),
            a.source(q.origin),
        ));
    }
    let c = 0.5
        + if secondary { 0.2 } else { 0.0 }
        + 0.1 * (instances.len().min(3) as f64 / 3.0)
        + 0.1 * (f64::from(total) / 50.0).min(1.0);
    sink.push(Finding {
        figures: Vec::new(),
        pattern: ID,
        title: format!("A dependency rate-limited the service ({total} rejections logged)"),
        confidence: confidence(c),
        start: first * 1000,
        end: window.end * 1000,
        subject: Subject::default(),
        evidence,
        timeline: vec![TimelineEntry {
            ts: first * 1000,
            kind: TimelineKind::UpstreamRateLimited,
            text: "A dependency starts rate-limiting the service".to_string(),
            sources: quote
                .map(|(_, q)| vec![a.source(q.origin)])
                .unwrap_or_default(),
        }],
        actions: ACTIONS,
    });
}
