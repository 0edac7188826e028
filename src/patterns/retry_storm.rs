//! `retry_storm`: clients retry failed work while the service is
//! recovering, adding load at the worst moment.
//!
//! Why it matters: recovering servers start cold, into the retried backlog
//! plus live traffic (seeds 000 and 004).
//!
//! Example: after the restart, acct-4411's exporter starts over from page 1,
//! re-sending 2,400 paths it had already requested, at 60 req/s.

use super::finding::{confidence, Evidence, Finding, Subject};
use super::Context;
use crate::aggregate::{Dim, Span};
use crate::correlate::attribution::SINGLE_CULPRIT_SHARE;
use crate::correlate::stats::poisson_exceeds;
use crate::correlate::timeline::rate;
use crate::correlate::{TimelineEntry, TimelineKind};

pub const ID: &str = "retry_storm";

const ACTIONS: &[&str] = &[
    "Retries with jittered exponential backoff and a retry budget in the client SDKs and integrations",
    "Honour Retry-After / 429 responses, and resume bulk jobs where they stopped instead of starting over",
];

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let (Some(inc), Some(span)) = (a.incident, a.span) else {
        return;
    };
    // The failure: the first restart in the incident, else the first errors.
    let restart = a
        .history
        .restarts
        .iter()
        .map(|r| r.down / 1000)
        .filter(|s| *s >= inc.onset && *s < inc.recovered)
        .min();
    let Some(fail) = restart.or(a.errors_start.map(|e| e.0)) else {
        return;
    };
    let after = Span::new(fail, inc.recovered);
    if after.is_empty() {
        return;
    }
    let Some(baseline) = a.baseline else { return };
    // The extra load in the recovery span, over all traffic: a retry storm is
    // one client's share of it, not everyone coming back.
    let all: u64 = (after.start..after.end)
        .filter(|s| span.contains(*s))
        .map(|s| u64::from(a.totals[(s - span.start) as usize].requests))
        .sum();
    let total_excess = (all as f64 - a.attribution.baseline_rate_per_s * after.secs()).max(0.0);
    let mut best: Option<(f64, Finding)> = None;
    for row in &a.attribution.rows {
        let cells = cx.agg.dim_series(Dim::Tenant, &row.value, span);
        let idx = |s: i64| (s - span.start) as usize;
        let sent: u64 = (after.start..after.end)
            .map(|s| u64::from(cells[idx(s)].requests))
            .sum();
        let expected = row.baseline_rate_per_s * after.secs();
        if !poisson_exceeds(sent as f64, expected) {
            continue;
        }
        let excess = sent as f64 - expected;
        let share = if total_excess > 0.0 {
            (excess / total_excess).min(1.0)
        } else {
            0.0
        };
        if share < SINGLE_CULPRIT_SHARE {
            continue;
        }
        let (paths, resent) = cx.agg.resent_paths(&row.value, after);
        let resent_share = if paths > 0 {
            resent as f64 / paths as f64
        } else {
            0.0
        };
        let got_errors: u64 = (inc.onset..after.start.max(inc.onset))
            .filter(|s| span.contains(*s))
            .map(|s| u64::from(cells[idx(s)].failed))
            .sum();
        // Without re-sent work or errors to retry, more traffic is a surge, not retries.
        if resent == 0 && got_errors == 0 {
            continue;
        }
        let rate_after = sent as f64 / after.secs();
        let ratio =
            rate_after / ((baseline_requests(row, baseline) + 1.0) / baseline.secs().max(1.0));
        let c = 0.3
            + 0.25 * share
            + 0.15 * (ratio.max(1.0).log10() / 2.0).min(1.0)
            + 0.2 * resent_share
            + if got_errors > 0 { 0.1 } else { 0.0 };
        // Where the retries start: if its traffic paused after the failure,
        // where it resumed; otherwise at the failure.
        let pause =
            (after.start..after.end.min(after.start + 60)).find(|s| cells[idx(*s)].requests == 0);
        let first = pause
            .and_then(|p| (p..after.end).find(|s| cells[idx(*s)].requests > 0))
            .unwrap_or(after.start);
        let origin = cells[idx(first)].first;
        let who = row.label();
        let mut evidence = vec![Evidence::new(
            format!(
                "{who} sent {sent} requests between {} and {} ({:.1} req/s; {} req/s in the baseline), {:.0}% of all the extra load in that span",
                crate::zone::clock(after.start * 1000),
                crate::zone::clock(after.end * 1000),
                rate_after,
                rate(row.baseline_rate_per_s),
                share * 100.0
            ),
            a.source(origin),
        )];
        if resent > 0 {
            evidence.push(Evidence::new(
                format!(
                    "{}{resent} of the {paths} distinct paths it requested then ({:.0}%) it had already requested before the failure: re-sent work{}",
                    if cx.agg.path_sample_rate() > 1 { "about " } else { "" },
                    resent_share * 100.0,
                    match cx.agg.path_sample_rate() {
                        1 => String::new(),
                        n => format!(" (estimated from 1 path in {n})"),
                    }
                ),
                a.input_name(origin.input).to_string(),
            ));
        }
        if got_errors > 0 {
            evidence.push(Evidence::new(
                format!("it had received {got_errors} failed responses before the failure point"),
                a.input_name(origin.input).to_string(),
            ));
        }
        let finding = Finding {
            pattern: ID,
            title: format!("{who} retried into the recovering service"),
            confidence: confidence(c),
            start: first * 1000,
            end: after.end * 1000,
            subject: Subject {
                tenant: Some(row.value.clone()),
                integration: row.integration.clone(),
                ..Subject::default()
            },
            evidence,
            timeline: vec![TimelineEntry {
                ts: first * 1000,
                kind: TimelineKind::Retries,
                text: format!(
                    "{who} retries while the service recovers: {rate_after:.1} req/s, {:.0}% of its paths re-sent",
                    resent_share * 100.0
                ),
                sources: vec![a.source(origin)],
            }],
            actions: ACTIONS,
        };
        if best.as_ref().is_none_or(|(bc, _)| c > *bc) {
            best = Some((c, finding));
        }
    }
    if let Some((_, f)) = best {
        sink.push(f);
    }
}

fn baseline_requests(row: &crate::correlate::AttributionRow, baseline: Span) -> f64 {
    row.baseline_rate_per_s * baseline.secs()
}
