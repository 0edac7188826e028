//! A leak that starts at a change: connections in use, summed over the
//! instances, flat before a deploy and climbing from it to the onset while
//! the request rate stays where it was. That is what a connection leak
//! shipped in a release looks like (seed 004's pool filled over minutes);
//! `deploy_verdict` weighs it as evidence for the deploy.
//!
//! In: the metric series, the change's time, the onset, the per-second
//! totals. Out: a [`Leak`] (the level before, the level at the onset, the
//! series' name) or none.
//!
//! ```text
//! sv_active: about 1 in use 10:17-10:47, deploy 10:47:35, 7 at 10:48, 71 at 10:52,
//!   236 at 10:59 (onset), requests 7.9 -> 8.1 req/s  -> Leak { before: 1, at_onset: 236 }
//! ```

use std::collections::BTreeMap;

use crate::aggregate::{Aggregates, Cell, Span};
use crate::event::{MetricRole, Millis};

/// The time before the change whose level is "before".
const BEFORE_MS: Millis = 30 * 60 * 1000;
/// Samples are summed per bucket; a series' last value carries over this
/// many buckets (scrapes every 15-60 s, some missed).
const BUCKET_MS: Millis = 60_000;
const CARRY: i64 = 2;
/// The level at the onset is at least this many times the highest level
/// before, and this many connections above it: a pool filling, not noise.
const RISE_FACTOR: f64 = 3.0;
const MIN_RISE: f64 = 5.0;
/// The climb starts within this long of the change (a rollout's time).
const STARTS_WITHIN_MS: Millis = 5 * 60 * 1000;
/// Requests may grow this much and the climb still be no load's doing.
const MAX_LOAD_GROWTH: f64 = 1.5;

/// A climb of connections in use from a change to the onset.
#[derive(Clone, Debug, PartialEq)]
pub struct Leak {
    pub metric: String,
    /// The input of the first series, for the evidence's source.
    pub input: u32,
    pub series: usize,
    pub before: f64,
    pub at_onset: f64,
    /// When the sum first rose above everything before it.
    pub rising_from: Millis,
    pub rate_before: f64,
    pub rate_after: f64,
}

/// Connections in use summed over every series of that role, per bucket:
/// (bucket start ms, sum, series seen).
type Summed = (String, u32, usize, Vec<(Millis, f64)>);

fn summed(agg: &Aggregates, from: Millis, to: Millis) -> Summed {
    // One metric's series only: the database's own count of backends and
    // the pools' counts of the same connections added up would count each
    // twice. The metric with the most series (a pool per instance) is read.
    let mut by_name: BTreeMap<&str, Vec<&crate::aggregate::Series>> = BTreeMap::new();
    for s in agg
        .metric_series()
        .filter(|s| s.role == Some(MetricRole::DbConnectionsInUse))
    {
        by_name.entry(s.name.as_str()).or_default().push(s);
    }
    let series: Vec<&crate::aggregate::Series> = by_name
        .into_values()
        .rev()
        .max_by_key(Vec::len)
        .unwrap_or_default();
    let name = series.first().map(|s| s.name.clone()).unwrap_or_default();
    let input = series.first().map_or(0, |s| s.input);
    let first = from.div_euclid(BUCKET_MS);
    let last = to.div_euclid(BUCKET_MS);
    let mut sums: BTreeMap<i64, f64> = BTreeMap::new();
    for s in &series {
        // The series' last value in each bucket, carried over a few buckets.
        let mut by_bucket: BTreeMap<i64, f64> = BTreeMap::new();
        for &(t, v) in &s.points {
            let b = t.div_euclid(BUCKET_MS);
            if b + CARRY >= first && b <= last {
                by_bucket.insert(b, v);
            }
        }
        let mut held: Option<(i64, f64)> = None;
        for b in first..=last {
            if let Some(v) = by_bucket.get(&b) {
                held = Some((b, *v));
            }
            if let Some((_, v)) = held.filter(|(hb, _)| b - hb <= CARRY) {
                *sums.entry(b).or_default() += v;
            }
        }
    }
    let points = sums.into_iter().map(|(b, v)| (b * BUCKET_MS, v)).collect();
    (name, input, series.len(), points)
}

/// Requests per second over `[from, to)` (seconds) of the per-second totals.
fn rate(totals: &[Cell], span: Span, from: i64, to: i64) -> Option<f64> {
    let (a, b) = (from.max(span.start), to.min(span.end));
    if b <= a {
        return None;
    }
    let n: u64 = (a..b)
        .filter_map(|s| totals.get((s - span.start) as usize))
        .map(|c| u64::from(c.requests))
        .sum();
    Some(n as f64 / (b - a) as f64)
}

/// The leak from `change` to `onset` (ms), if the data shows one.
pub fn since(
    agg: &Aggregates,
    totals: &[Cell],
    span: Span,
    change: Millis,
    onset: Millis,
) -> Option<Leak> {
    if onset - change < 2 * BUCKET_MS {
        return None;
    }
    let (metric, input, n, points) = summed(agg, change - BEFORE_MS, onset);
    let before: Vec<f64> = points
        .iter()
        .filter(|(t, _)| *t + BUCKET_MS <= change)
        .map(|p| p.1)
        .collect();
    // Half the time before, at least, to know the level.
    if before.len() < (BEFORE_MS / BUCKET_MS / 2) as usize {
        return None;
    }
    let high_before = before.iter().copied().fold(0.0, f64::max);
    let at_onset = points.iter().rev().find(|(t, _)| *t <= onset)?.1;
    if at_onset < RISE_FACTOR * high_before.max(1.0) || at_onset < high_before + MIN_RISE {
        return None;
    }
    let rising_from = points
        .iter()
        .find(|(t, v)| *t + BUCKET_MS > change && *v > high_before)?
        .0;
    if rising_from - change > STARTS_WITHIN_MS {
        return None;
    }
    // Load did not do it: the request rate after the change is about the rate before.
    let (c, o) = (change.div_euclid(1000), onset.div_euclid(1000));
    let rate_before = rate(totals, span, c - BEFORE_MS / 1000, c)?;
    let rate_after = rate(totals, span, c, o)?;
    if rate_after > MAX_LOAD_GROWTH * rate_before.max(0.01) {
        return None;
    }
    Some(Leak {
        metric,
        input,
        series: n,
        before: high_before,
        at_onset,
        rising_from: rising_from.max(change),
        rate_before,
        rate_after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Event, EventSink, MetricSample, Origin};

    /// Three pods' connections in use, one sample a minute from 10:00 to
    /// 11:00 (ms from 0 = 10:00); `level(pod, minute)` gives each value.
    fn agg(level: impl Fn(usize, i64) -> f64) -> Aggregates {
        let mut a = Aggregates::new();
        for pod in 0..3 {
            for m in 0..60 {
                a.push(Event::Metric(MetricSample {
                    ts: m * 60_000 + 5_000,
                    origin: Origin::default(),
                    name: "pgbouncer_pools_sv_active".into(),
                    role: Some(MetricRole::DbConnectionsInUse),
                    value: level(pod, m),
                    instance: Some(format!("api-{pod}")),
                    series: format!("pgbouncer_pools_sv_active{{pod=\"api-{pod}\"}}"),
                    period_start: false,
                }));
            }
        }
        a.finish();
        a
    }

    fn totals(rate: impl Fn(i64) -> u32) -> Vec<Cell> {
        (0..3600)
            .map(|s| Cell {
                requests: rate(s),
                ..Cell::default()
            })
            .collect()
    }

    const SPAN: Span = Span {
        start: 0,
        end: 3600,
    };
    const DEPLOY: Millis = 40 * 60_000;
    const ONSET: Millis = 52 * 60_000;

    #[test]
    fn connections_climbing_from_the_deploy_at_the_same_load_are_a_leak() {
        let a = agg(|pod, m| {
            if m < 40 {
                (m as usize + pod) as f64 % 2.0
            } else {
                (m - 39) as f64 * 4.0
            }
        });
        let l = since(&a, &totals(|s| 8 + (s % 3) as u32), SPAN, DEPLOY, ONSET).expect("a leak");
        assert_eq!(l.series, 3);
        assert!(l.before <= 3.0 && l.at_onset >= 100.0, "{l:?}");
        assert_eq!(l.rising_from, DEPLOY);
    }

    #[test]
    fn a_climb_the_load_explains_or_that_starts_late_is_none() {
        let climbing = agg(|_, m| if m < 40 { 1.0 } else { (m - 39) as f64 * 4.0 });
        // Requests tripled with the connections: load, not a leak.
        let busier = totals(|s| if s < 2400 { 8 } else { 24 });
        assert_eq!(since(&climbing, &busier, SPAN, DEPLOY, ONSET), None);
        // The pool filled ten minutes after the deploy: something else did it.
        let late = agg(|_, m| if m < 50 { 1.0 } else { (m - 49) as f64 * 40.0 });
        assert_eq!(since(&late, &totals(|_| 8), SPAN, DEPLOY, ONSET), None);
        // Flat all along.
        let flat = agg(|_, _| 2.0);
        assert_eq!(since(&flat, &totals(|_| 8), SPAN, DEPLOY, ONSET), None);
    }
}
