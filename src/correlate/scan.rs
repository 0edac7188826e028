//! The first look at a long export: the whole span in coarse buckets, to
//! find where the incident is before the second-by-second analysis zooms in
//! on it. A week of data costs what its buckets cost, and the incident is
//! found wherever it sits in the span: nothing is cut to a busiest day.
//!
//! Every bucket is judged against the buckets of the hours before it, so a
//! quiet night is compared with the evening before it, not with the
//! afternoon peak, and a diurnal swing in traffic is no symptom: failures
//! count as a share of the requests completed, latency as a mean per
//! request. Symptoms are failed requests well above the local share, mean
//! latency at least double the local median, error logs far above their
//! local rate, and the orchestrator killing, restarting or failing probes.
//!
//! In: the aggregates and the span. Out: the most severe cluster of
//! symptomatic buckets, and the focus span around it (hours of baseline
//! before, an hour after) that the per-second analysis reads.
//!
//! ```text
//! 3 days in 60 s buckets; 02:00-05:00 nights at 0.2 req/s (no symptom),
//! day 3 14:02-14:27 37% failed -> Cluster { 14:02, 14:28 } -> focus 11:02 .. 15:28
//! ```

use crate::aggregate::{Aggregates, Cell, Span};
use crate::event::InfraKind;

use super::stats::{median, poisson_exceeds};

/// Spans up to this long are analysed second by second whole.
pub const WHOLE_SPAN_S: usize = 6 * 3600;
/// Baseline kept before a cluster, and context after it.
const FOCUS_BEFORE_S: i64 = 3 * 3600;
const FOCUS_AFTER_S: i64 = 3600;
/// The hours a bucket is compared with.
const LOCAL_BASELINE_S: i64 = 3 * 3600;
/// Buckets this far apart belong to one cluster.
const MERGE_GAP_S: i64 = 180;

/// A run of symptomatic buckets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cluster {
    pub start: i64,
    pub end: i64,
    /// Requests failed above the local share, slow requests and
    /// orchestrator events, weighed (see [`bucket_severity`]).
    pub severity: f64,
}

/// The bucket length for a span: about 2,000 buckets, at least 10 s.
pub fn bucket_for(span: Span) -> i64 {
    let want = (span.len() as i64 / 2000).max(10);
    [10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600]
        .into_iter()
        .find(|b| *b >= want)
        .unwrap_or(3600)
}

/// The span the per-second analysis reads: the whole span when it is short
/// enough, else hours around the most severe cluster (the last hours when
/// there is none).
pub fn focus(agg: &Aggregates, span: Span) -> (Span, Option<Cluster>) {
    if span.len() <= WHOLE_SPAN_S {
        return (span, None);
    }
    let bucket = bucket_for(span);
    let best = clusters(agg, span, bucket).into_iter().max_by(|a, b| {
        a.severity
            .total_cmp(&b.severity)
            .then(b.start.cmp(&a.start))
    });
    let focus = match best {
        Some(c) => Span::new(
            (c.start - FOCUS_BEFORE_S).max(span.start),
            (c.end + FOCUS_AFTER_S).min(span.end),
        ),
        None => Span::new(span.end - WHOLE_SPAN_S as i64, span.end),
    };
    (focus, best)
}

/// Clusters of symptomatic buckets over the span.
pub fn clusters(agg: &Aggregates, span: Span, bucket: i64) -> Vec<Cluster> {
    let cells = agg.total_buckets(span, bucket);
    let logs = agg.error_log_buckets(span, bucket);
    let mut events = vec![0u32; cells.len()];
    for e in agg.infra_events() {
        let marks = matches!(
            e.kind,
            InfraKind::ProbeFailed | InfraKind::Killing | InfraKind::OomKilled | InfraKind::BackOff
        );
        let s = e.ts.div_euclid(1000);
        if marks && span.contains(s) {
            if let Some(n) = events.get_mut(((s - span.start) / bucket) as usize) {
                *n += e.count.max(1);
            }
        }
    }
    let local = (LOCAL_BASELINE_S / bucket).max(6) as usize;
    let mut out: Vec<Cluster> = Vec::new();
    // One bucket of each per bucket of the span.
    for (i, ((cell, log), events)) in cells.iter().zip(&logs).zip(&events).enumerate() {
        let from = i.saturating_sub(local);
        let sev = bucket_severity(
            cells.get(from..i).unwrap_or_default(),
            logs.get(from..i).unwrap_or_default(),
            *cell,
            *log,
            *events,
        ) + unserved(
            cells.get(from..i).unwrap_or_default(),
            cells
                .get(i + 1..(i + 1 + local).min(cells.len()))
                .unwrap_or_default(),
            *cell,
        );
        if sev <= 0.0 {
            continue;
        }
        let start = span.start + i as i64 * bucket;
        match out.last_mut() {
            Some(c) if start - c.end <= MERGE_GAP_S => {
                c.end = start + bucket;
                c.severity += sev;
            }
            _ => out.push(Cluster {
                start,
                end: start + bucket,
                severity: sev,
            }),
        }
    }
    out
}

/// How bad one bucket is against the buckets before it: failed requests
/// above the local failure share, slow requests when the mean latency is
/// at least double the local median, error logs far above their local
/// rate, and orchestrator events (each weighs as ten failed requests: a
/// kill or a failed probe is a whole instance in trouble). Zero when
/// nothing is abnormal.
pub fn bucket_severity(
    before: &[Cell],
    logs_before: &[u32],
    c: Cell,
    logs: u32,
    events: u32,
) -> f64 {
    let mut sev = 0.0;
    // Failures as a share of completions: the pooled share of the hours
    // before, so that traffic rising or falling changes nothing.
    let (bf, bm) = before.iter().fold((0.0, 0.0), |(f, m), b| {
        (f + f64::from(b.failed), m + f64::from(b.failed + b.ok))
    });
    let share = if bm > 0.0 { (bf / bm).max(0.001) } else { 0.01 };
    let done = f64::from(c.failed + c.ok);
    let failed = f64::from(c.failed);
    let expected = share * done;
    if c.failed >= 5 && poisson_exceeds(failed, expected) && failed >= 2.0 * expected {
        sev += failed - expected;
    }
    // Latency: the bucket's mean against the median of the buckets before.
    let means: Vec<f64> = before
        .iter()
        .filter(|b| b.timed >= 3)
        .filter_map(Cell::mean_ms)
        .collect();
    let base = median(&means);
    if let Some(mean) = c.mean_ms() {
        let excess_ms = c.busy_ms() - f64::from(c.timed) * base;
        if base > 0.0
            && c.timed >= 5
            && mean >= (2.0 * base).max(base + super::onset::LATENCY_NOTICEABLE_MS)
            && excess_ms >= 5.0 * base
        {
            sev += f64::from(c.timed) * (mean / base - 1.0).min(10.0) * 0.2;
        }
    }
    let log_base = median(
        &logs_before
            .iter()
            .map(|l| f64::from(*l))
            .collect::<Vec<_>>(),
    );
    let l = f64::from(logs);
    if l >= 5.0 && poisson_exceeds(l, log_base) && l >= 3.0 * log_base {
        sev += 0.5 * (l - log_base);
    }
    sev + 10.0 * f64::from(events)
}

/// Successes missing from a bucket that the hours on both sides of it
/// served: a service down or crash-looping behind a balancer logs neither
/// failures nor slow requests, only far fewer requests. Judged against the
/// lower of the two sides' medians, so an evening's fall into a quiet night
/// (low after it too) is no symptom, and only well below it, by Poisson
/// margin and to a quarter, so a slow hour is not either. A missing request
/// weighs half a failed one: some of the fall may be the callers'.
pub fn unserved(before: &[Cell], after: &[Cell], c: Cell) -> f64 {
    let side = |cells: &[Cell]| median(&cells.iter().map(|b| f64::from(b.ok)).collect::<Vec<_>>());
    if before.is_empty() || after.is_empty() {
        return 0.0;
    }
    let expected = side(before).min(side(after));
    let ok = f64::from(c.ok);
    let short = expected - 4.0 * expected.sqrt() - 3.0;
    if expected >= 20.0 && ok < short && ok <= expected / 4.0 {
        0.5 * (expected - ok)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(requests: u32, failed: u32, mean_ms: f64) -> Cell {
        Cell {
            requests,
            failed,
            ok: requests - failed,
            done: requests,
            timed: requests,
            busy_us: (f64::from(requests) * mean_ms * 1000.0) as u64,
            max_us: (mean_ms * 1000.0) as u64,
            ok_timed: requests - failed,
            ok_floor_us: (mean_ms * 1000.0) as u32,
            ok_busy_us: (f64::from(requests - failed) * mean_ms * 1000.0) as u64,
            ..Cell::default()
        }
    }

    #[test]
    fn a_quiet_night_is_no_symptom() {
        let day: Vec<Cell> = (0..180).map(|_| cell(600, 1, 40.0)).collect();
        // A night bucket with a twentieth of the traffic and no failures.
        assert_eq!(
            bucket_severity(&day, &[0; 180], cell(30, 0, 38.0), 0, 0),
            0.0
        );
    }

    #[test]
    fn a_stretch_served_far_below_both_sides_is_a_symptom_and_a_night_is_not() {
        let day: Vec<Cell> = (0..180).map(|_| cell(600, 1, 40.0)).collect();
        let night: Vec<Cell> = (0..180).map(|_| cell(30, 0, 40.0)).collect();
        // Down between two busy stretches: a dozen requests got through.
        assert!(unserved(&day, &day, cell(12, 0, 900.0)) > 250.0);
        // Into the night, and a night bucket itself.
        assert_eq!(unserved(&day, &night, cell(30, 0, 40.0)), 0.0);
        assert_eq!(unserved(&night, &night, cell(22, 0, 40.0)), 0.0);
        // But nothing at all where a night serves thirty is.
        assert!(unserved(&night, &night, cell(0, 0, 40.0)) > 0.0);
        // A slow half hour is no outage.
        assert_eq!(unserved(&day, &day, cell(400, 0, 40.0)), 0.0);
        // Nothing to compare with at the edges of the data.
        assert_eq!(unserved(&day, &[], cell(0, 0, 40.0)), 0.0);
    }

    #[test]
    fn failures_well_above_the_local_share_are_a_symptom() {
        let before: Vec<Cell> = (0..180).map(|_| cell(600, 1, 40.0)).collect();
        let sev = bucket_severity(&before, &[0; 180], cell(600, 200, 40.0), 0, 0);
        assert!(sev > 190.0, "{sev}");
        // The usual few failures are not.
        assert_eq!(
            bucket_severity(&before, &[0; 180], cell(600, 2, 40.0), 0, 0),
            0.0
        );
    }

    #[test]
    fn a_single_slow_request_in_a_sparse_bucket_is_no_symptom() {
        let before: Vec<Cell> = (0..180).map(|_| cell(20, 0, 40.0)).collect();
        let mut c = cell(3, 0, 40.0);
        c.busy_us += 5_000_000;
        assert_eq!(bucket_severity(&before, &[0; 180], c, 0, 0), 0.0);
        assert!(bucket_severity(&before, &[0; 180], cell(20, 0, 900.0), 0, 0) > 0.0);
    }

    #[test]
    fn bucket_sizes_keep_a_span_near_two_thousand_buckets() {
        assert_eq!(bucket_for(Span::new(0, 6 * 3600)), 10);
        assert_eq!(bucket_for(Span::new(0, 72 * 3600)), 300);
        assert_eq!(bucket_for(Span::new(0, 3600)), 10);
        assert_eq!(bucket_for(Span::new(0, 7 * 86_400)), 600);
    }
}
