//! `backlog_growth`: queued work grows faster than it drains.
//!
//! Why it matters: a backlog outlives its cause; every restart and every
//! recovery starts under it (seed 001).
//!
//! Example: `sidekiq_queue_size` climbs from ~40 to 12,000 during the
//! incident and takes 25 minutes to drain after recovery.

use super::finding::{confidence, Evidence, Finding, Subject};
use super::Context;
use crate::correlate::stats::median;
use crate::correlate::timeline::ACTION_LOOKAHEAD_S;
use crate::correlate::{TimelineEntry, TimelineKind};
use crate::event::MetricRole;
use crate::zone::clock;

pub const ID: &str = "backlog_growth";

const ACTIONS: &[&str] = &[
    "Headroom and a lower scale-out threshold for the workers, so the queue drains faster than it fills",
    "Alert on queue depth and age (leading indicators), not only on failures",
];

/// Growth over the baseline's usual depth that counts as a backlog.
const GROWTH: f64 = 5.0;

/// Where a point sums up a period, the period it covers: the peak is
/// somewhere in it, and the timeline places it in the middle.
fn period_of(s: &crate::aggregate::Series, t: crate::event::Millis) -> String {
    if s.period_start {
        format!(", in the {} s from {}", s.step() / 1000, clock(t))
    } else {
        String::new()
    }
}

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let (Some(_), Some(window), Some(baseline)) = (a.incident, a.window(), a.baseline) else {
        return;
    };
    let (w0, w1) = (window.start * 1000, window.end * 1000);
    let mut best: Option<(f64, Finding)> = None;
    for s in cx
        .agg
        .metric_series()
        .filter(|s| s.role == Some(MetricRole::QueueDepth))
    {
        let base: Vec<f64> = s
            .points
            .iter()
            .filter(|p| baseline.contains(p.0.div_euclid(1000)))
            .map(|p| p.1)
            .collect();
        let usual = median(&base).max(1.0);
        let grew = s
            .points
            .iter()
            .filter(|p| p.0 >= w0 && p.0 < w1)
            .any(|p| p.1 >= GROWTH * usual);
        if !grew {
            continue;
        }
        // A backlog outlives the errors: the queue goes on filling until the
        // workers catch up, so its peak is the top of the excursion the
        // incident began, not the top inside the window: up to where it
        // drained (back under twice the usual depth), and no later than the
        // half hour after recovery that still belongs to the incident's story
        // (a later day's backlog in a long export is another one's).
        let until = w1 + ACTION_LOOKAHEAD_S * 1000;
        let drained_after_window = s
            .points
            .iter()
            .find(|p| p.0 >= w1 && p.1 <= 2.0 * usual)
            .map_or(until, |p| p.0.min(until));
        let Some(&(peak_t, peak)) = s
            .points
            .iter()
            .filter(|p| p.0 >= w0 && p.0 < drained_after_window)
            .max_by(|x, y| x.1.total_cmp(&y.1))
        else {
            continue;
        };
        // Drained: back under twice the usual depth after the peak.
        let drained = s
            .points
            .iter()
            .find(|p| p.0 > peak_t && p.1 <= 2.0 * usual)
            .map(|p| p.0);
        let mut evidence = vec![Evidence::new(
            format!(
                "{}: peak {peak:.0} at {} against a usual {usual:.0} ({:.0}x)",
                s.name,
                clock(peak_t),
                peak / usual
            ),
            format!("{} ({})", a.input_name(s.input), s.key),
        )];
        evidence.push(Evidence::new(
            match drained {
                Some(t) => format!(
                    "drained at {}, {} min after the peak",
                    clock(t),
                    (t - peak_t) / 60_000
                ),
                None => "not drained by the end of the data".to_string(),
            },
            format!("{} ({})", a.input_name(s.input), s.key),
        ));
        let c = 0.55
            + 0.25 * ((peak / usual).log10() / 3.0).min(1.0)
            + if drained.is_none_or(|t| t > w1) {
                0.1
            } else {
                0.0
            };
        let f = Finding {
            figures: Vec::new(),
            pattern: ID,
            // Against a usual depth of a handful, a ratio overstates: the
            // counts say it (a review read "1961x" of a queue usually at 1).
            title: if usual < 10.0 {
                format!("The queue backed up to {peak:.0} items against a usual {usual:.0}")
            } else {
                format!(
                    "The queue backed up to {:.0}x its usual depth",
                    peak / usual
                )
            },
            confidence: confidence(c),
            start: w0,
            end: drained.unwrap_or(w1),
            subject: Subject {
                instance: s.instance.clone(),
                ..Subject::default()
            },
            evidence,
            timeline: vec![TimelineEntry {
                ts: s.moment(peak_t),
                kind: TimelineKind::BacklogPeak,
                text: format!(
                    "{} peaks at {peak:.0} ({:.0}x usual){}",
                    s.name,
                    peak / usual,
                    period_of(s, peak_t)
                ),
                sources: vec![format!("{} ({})", a.input_name(s.input), s.key)],
            }],
            actions: ACTIONS,
        };
        if best.as_ref().is_none_or(|(b, _)| c > *b) {
            best = Some((c, f));
        }
    }
    if let Some((_, f)) = best {
        sink.push(f);
    }
}
