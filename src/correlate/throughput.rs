//! Instances that stopped completing requests, by their own request-rate
//! metrics (`http_requests_total` per pod, a load balancer's count per
//! target): a stuck instance keeps its connections but finishes far fewer
//! requests than its peers, which is all an access log that names no
//! upstream leaves to see of it.
//!
//! In: the metric series of role `requests_rate` that name an instance, the
//! baseline and the incident window. Out: one [`Stall`] per instance whose
//! rate fell to well under its peers' (each against its own baseline).
//!
//! ```text
//! pod-a 0.83 -> 0.68 req/s, pod-b 0.83 -> 0.68, pod-c 0.83 -> 0.20
//!   -> Stall { instance: pod-c, share: 0.29 of its own rate, peers 0.82 }
//! ```

use std::collections::BTreeMap;

use crate::aggregate::{Aggregates, Series, Span};
use crate::event::{MetricRole, Millis};

use super::identity::Identities;
use super::stats::median;

/// One instance whose completed requests fell far below its peers'.
#[derive(Clone, Debug, PartialEq)]
pub struct Stall {
    /// Canonical name.
    pub instance: String,
    /// Its rate before and in the window (per second for a counter, the
    /// series' own unit for a rate or a per-period count).
    pub before: f64,
    pub during: f64,
    /// The median of its peers' window rate over their own before.
    pub peers_ratio: f64,
    /// How many instances were compared (it among them).
    pub of: usize,
    /// The first series read for it, and its input, for evidence.
    pub series: String,
    pub input: u32,
}

impl Stall {
    /// Its window rate over its own before.
    pub fn ratio(&self) -> f64 {
        self.during / self.before.max(f64::MIN_POSITIVE)
    }
}

/// An instance stalled when its rate against its own before is under this
/// share of its peers' (the median peer): a stuck pod in a fleet of six
/// finished a third of what its peers did. A fleet that shrank or grew
/// moves every instance's rate alike, which the peers' ratio takes out.
const STALLED_SHARE: f64 = 0.5;
/// Instances compared: with two, which of them is the odd one is a guess.
const MIN_COMPARED: usize = 3;
/// Samples a series needs on each side to have a rate there: three, or
/// two where each sample sums up a minute or more (a five-minute Datadog
/// or CloudWatch rollup already averages 300 s of traffic, and a stuck
/// spell of a quarter of an hour holds only two or three of them).
const MIN_POINTS: usize = 3;
const MIN_ROLLUPS: usize = 2;
const ROLLUP_MS: Millis = 60_000;

/// The request-rate series that name an instance, with that name.
pub fn per_instance(agg: &Aggregates) -> impl Iterator<Item = (&Series, &str)> {
    agg.metric_series()
        .filter_map(|s| match (s.role, s.instance.as_deref()) {
            (Some(MetricRole::RequestsRate), Some(i)) if !i.is_empty() => Some((s, i)),
            _ => None,
        })
}

/// Stalled instances in `window` against `baseline`; none when the metrics
/// compare fewer than [`MIN_COMPARED`] instances, or when half or more of
/// them fell (then it is the service, not an instance).
pub fn stalls(agg: &Aggregates, ids: &Identities, window: Span, baseline: Span) -> Vec<Stall> {
    let before = (baseline.start * 1000, baseline.end * 1000);
    let during = (window.start * 1000, window.end * 1000);
    // (before, during, first series, input) per instance; several series
    // of one instance (one per status code) add up.
    let mut by_instance: BTreeMap<String, (f64, f64, String, u32)> = BTreeMap::new();
    let mut measured: BTreeMap<String, (bool, bool)> = BTreeMap::new();
    for (s, inst) in per_instance(agg) {
        let name = ids.canonical(inst);
        let (b, d) = (rate(s, before), rate(s, during));
        let seen = measured.entry(name.clone()).or_default();
        seen.0 |= b.is_some();
        seen.1 |= d.is_some();
        let e = by_instance
            .entry(name)
            .or_insert_with(|| (0.0, 0.0, s.key.clone(), s.input));
        e.0 += b.unwrap_or(0.0);
        e.1 += d.unwrap_or(0.0);
    }
    // Only instances measured on both sides, that served before.
    let compared: Vec<(String, (f64, f64, String, u32))> = by_instance
        .into_iter()
        .filter(|(n, (b, _, _, _))| measured.get(n) == Some(&(true, true)) && *b > 0.0)
        .collect();
    if compared.len() < MIN_COMPARED {
        return Vec::new();
    }
    let ratios: Vec<f64> = compared.iter().map(|(_, (b, d, _, _))| d / b).collect();
    let fleet = median(&ratios);
    let of = compared.len();
    if fleet <= 0.0 {
        return Vec::new();
    }
    let out: Vec<Stall> = compared
        .into_iter()
        // Stalled: it finished fewer requests than before, and far fewer
        // than its peers did against theirs. One that finished twice its
        // usual while its peers took six times theirs (bulk-export draw
        // 1319213: a pod busy with exports) did not stop; it was busy.
        .filter(|(_, (b, d, _, _))| d < b && d / b < STALLED_SHARE * fleet)
        .map(|(instance, (before, during, series, input))| {
            let peers: Vec<f64> = ratios
                .iter()
                .copied()
                .filter(|r| *r >= STALLED_SHARE * fleet)
                .collect();
            Stall {
                instance,
                before,
                during,
                peers_ratio: median(&peers),
                of,
                series,
                input,
            }
        })
        .collect();
    if out.len() * 2 >= ratios.len() {
        return Vec::new();
    }
    out
}

/// A series' typical rate over `[from, to)` ms: the median of a counter's
/// increase per second between samples (a reset counts from zero), or of
/// a gauge's samples (a rate already, or a count per period). The median,
/// not the mean: a rate the exporter averages over minutes lags into the
/// window, and the instance's level in it is what counts. None with fewer
/// than [`MIN_POINTS`] samples in it.
fn rate(s: &Series, (from, to): (Millis, Millis)) -> Option<f64> {
    let points: Vec<&(Millis, f64)> = s
        .points
        .iter()
        .filter(|(t, _)| *t >= from && *t < to)
        .collect();
    let rollups = s.step() >= ROLLUP_MS;
    if points.len() < if rollups { MIN_ROLLUPS } else { MIN_POINTS } {
        return None;
    }
    let values: Vec<f64> = if is_counter(&s.points) {
        points
            .windows(2)
            .filter_map(|w| match w {
                [a, b] if b.0 > a.0 => {
                    let rise = if b.1 >= a.1 { b.1 - a.1 } else { b.1 };
                    Some(rise * 1000.0 / (b.0 - a.0) as f64)
                }
                _ => None,
            })
            .collect()
    } else {
        points.iter().map(|p| p.1).collect()
    };
    (!values.is_empty()).then(|| median(&values))
}

/// Whether a request-rate series shows requests completed in `[from, to)`
/// ms: a counter that rose there, or a rate above zero.
pub fn served(s: &Series, (from, to): (Millis, Millis)) -> bool {
    let inside = s.points.iter().filter(|(t, _)| *t >= from && *t < to);
    if is_counter(&s.points) {
        // From the last sample before the span, so a rise into it counts.
        let before = s.points.iter().take_while(|(t, _)| *t < from).last();
        let mut last = before.map(|p| p.1);
        for p in inside {
            if last.is_some_and(|l| p.1 > l) {
                return true;
            }
            last = Some(p.1);
        }
        false
    } else {
        inside.into_iter().any(|p| p.1 > 0.0)
    }
}

/// A counter only rises, but for a rare reset (a restart): at least nine
/// steps in ten rise or hold, and it ends above where it began. A rate or a
/// per-period count goes up and down.
fn is_counter(points: &[(Millis, f64)]) -> bool {
    let steps = points.len().saturating_sub(1);
    if steps < 2 {
        return false;
    }
    let falls = points
        .windows(2)
        .filter(|w| matches!(w, [a, b] if b.1 < a.1))
        .count();
    let rising = matches!((points.first(), points.last()), (Some(a), Some(b)) if b.1 > a.1);
    rising && falls * 10 <= steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aggregate::Aggregates;
    use crate::event::{Event, MetricSample};

    /// Per-pod counters sampled every 30 s for 40 minutes; the window is the
    /// last 20. `rates` are (before, during) per pod.
    fn fleet(rates: &[(f64, f64)], counter: bool) -> Vec<Stall> {
        fleet_every(rates, counter, 30, 1200, 1200)
    }

    /// [`fleet`] sampled every `step` s, the window the `window` s after
    /// `before` s.
    fn fleet_every(
        rates: &[(f64, f64)],
        counter: bool,
        step: i64,
        before: i64,
        window: i64,
    ) -> Vec<Stall> {
        let end = before + window;
        let mut agg = Aggregates::new();
        for (i, (b, d)) in rates.iter().enumerate() {
            let mut total = 100.0;
            for k in 0..end / step {
                let t = k * step;
                let r = if t < before { *b } else { *d };
                total += r * step as f64;
                agg.add(Event::Metric(MetricSample {
                    ts: t * 1000,
                    origin: Default::default(),
                    name: "http_requests_total".into(),
                    series: format!("http_requests_total{{pod=p{i}}}"),
                    role: Some(MetricRole::RequestsRate),
                    instance: Some(format!("p{i}")),
                    // A gauge's samples wobble, as measured rates do.
                    value: if counter {
                        total
                    } else {
                        r * (1.0 + 0.02 * (k % 3 - 1) as f64)
                    },
                    period_start: false,
                }));
            }
        }
        agg.finish();
        let ids = super::super::identity::build(&agg, Span::new(0, end), &[]);
        stalls(&agg, &ids, Span::new(before, end), Span::new(0, before))
    }

    /// Five-minute rollups (Datadog's, CloudWatch's) over a quarter of an
    /// hour stuck: two samples in it, each an average of 300 s.
    #[test]
    fn five_minute_rollups_show_a_stall_of_a_quarter_hour() {
        let rates = [(1.2, 1.3), (1.2, 1.3), (1.2, 0.1), (1.2, 1.25), (1.2, 0.1)];
        for counter in [false, true] {
            let s = fleet_every(&rates, counter, 300, 3601, 899);
            let names: Vec<&str> = s.iter().map(|s| s.instance.as_str()).collect();
            assert_eq!(names, ["p2", "p4"], "counter: {counter}");
        }
        // One 30-second sample each side says nothing yet.
        assert!(fleet_every(&rates, false, 30, 1200, 60).is_empty());
    }

    #[test]
    fn the_pod_that_finished_a_third_of_its_peers_requests_stalled() {
        let s = fleet(
            &[
                (0.83, 0.68),
                (0.83, 0.68),
                (0.83, 0.2),
                (0.83, 0.68),
                (0.83, 0.24),
                (0.83, 0.68),
            ],
            true,
        );
        let names: Vec<&str> = s.iter().map(|s| s.instance.as_str()).collect();
        assert_eq!(names, ["p2", "p4"]);
        let first = s.first().map(Stall::ratio).unwrap_or_default();
        assert!((first - 0.2 / 0.83).abs() < 0.01, "{first}");
    }

    #[test]
    fn a_rate_gauge_reads_as_well_as_a_counter() {
        let s = fleet(&[(5.0, 5.0), (5.0, 5.5), (5.0, 0.5), (5.0, 4.5)], false);
        let names: Vec<&str> = s.iter().map(|s| s.instance.as_str()).collect();
        assert_eq!(names, ["p2"]);
    }

    #[test]
    fn a_fleet_that_slowed_together_or_grew_has_no_stalled_instance() {
        // Every pod at a third (the service, not an instance).
        assert!(fleet(&[(1.0, 0.3), (1.0, 0.33), (1.0, 0.31)], true).is_empty());
        // A scale-out from 3 to 6 halves each old pod's share alike.
        assert!(fleet(&[(2.0, 1.0), (2.0, 1.0), (2.0, 1.1)], true).is_empty());
        // Half of them down is the service too.
        assert!(fleet(&[(1.0, 0.1), (1.0, 0.1), (1.0, 1.0), (1.0, 1.0)], true).is_empty());
        // Two pods: which one is odd is a guess.
        assert!(fleet(&[(1.0, 1.0), (1.0, 0.1)], true).is_empty());
    }

    #[test]
    fn one_that_rose_less_than_its_peers_did_not_stall() {
        // A surge sixfold on four pods, twofold on the one busy with long
        // requests: it finished more than before, so it is not stuck.
        let rates = [(1.0, 6.0), (1.0, 5.8), (1.0, 2.1), (1.0, 6.1), (1.0, 5.9)];
        assert!(fleet(&rates, true).is_empty());
        // The same pod finishing under its usual is.
        let rates = [(1.0, 6.0), (1.0, 5.8), (1.0, 0.6), (1.0, 6.1), (1.0, 5.9)];
        let s = fleet(&rates, true);
        let names: Vec<&str> = s.iter().map(|s| s.instance.as_str()).collect();
        assert_eq!(names, ["p2"]);
    }
    fn s(points: Vec<(Millis, f64)>) -> Series {
        Series {
            key: "x".into(),
            name: "x".into(),
            role: Some(MetricRole::RequestsRate),
            instance: Some("a".into()),
            input: 0,
            period_start: false,
            points,
        }
    }

    #[test]
    fn served_means_requests_completed_in_the_span() {
        let rising = s((0..10).map(|k| (k * 1000, k as f64)).collect());
        assert!(served(&rising, (5000, 6000)));
        // A counter that held flat (a pod gone, its last value repeated).
        let flat = s((0..10)
            .map(|k| (k * 1000, if k < 5 { k as f64 } else { 4.0 }))
            .collect());
        assert!(!served(&flat, (5500, 10_000)));
        let gauge = s(vec![(0, 2.0), (1000, 0.0), (2000, 3.0), (3000, 0.0)]);
        assert!(!served(&gauge, (1000, 2000)));
        assert!(served(&gauge, (1000, 3000)));
    }

    #[test]
    fn a_counter_reset_by_a_restart_is_no_fall() {
        let mut points: Vec<(Millis, f64)> = (0..20).map(|k| (k * 1000, k as f64 * 10.0)).collect();
        points.extend((20..40).map(|k| (k * 1000, (k - 20) as f64 * 10.0)));
        // Ten a second every step, the reset's step read from zero.
        let r = rate(&s(points), (0, 40_000)).unwrap_or_default();
        assert!((r - 10.0).abs() < 0.01, "{r}");
    }
}
