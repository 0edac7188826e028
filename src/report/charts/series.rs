//! Per-second figures in, one value per bucket of the axis out: counts
//! summed, gauges at their highest reading, a bucket with no reading left
//! `None` unless the gauge was simply between two regular readings.
//!
//! ```text
//! pool in use, readings every 15 s, 10 s buckets: [6, 6 (carried), 7, ...]
//! pool in use, no reading for 3 min:            [6, None, None, ..., 5]
//! ```

use crate::aggregate::{Cell, Series as Readings, Span};

use super::{Mark, Measure, Series, TimeAxis};

/// Where the access log has requests: from the first second with one to
/// the last. Outside it a request count is unknown, not zero.
pub fn request_coverage(totals: &[Cell], span: Span) -> Option<Span> {
    let seen = |c: &Cell| c.requests > 0 || c.done > 0;
    let first = totals.iter().position(seen)?;
    let last = totals.iter().rposition(seen)?;
    Some(Span::new(
        span.start + first as i64,
        span.start + last as i64 + 1,
    ))
}

/// A count per bucket: `count` of each cell summed. `cells` hold one
/// second each from `cells_span.start`.
pub fn completed(
    cells: &[Cell],
    cells_span: Span,
    axis: &TimeAxis,
    count: impl Fn(&Cell) -> u32,
) -> Series {
    let mut values = vec![0u64; axis.count];
    for (i, c) in cells.iter().enumerate() {
        // The axis gives indices of its own buckets.
        if let Some(v) = axis
            .index(cells_span.start + i as i64)
            .and_then(|b| values.get_mut(b))
        {
            *v += u64::from(count(c));
        }
    }
    Series {
        measure: Measure::Completed,
        mark: Mark::Line,
        values: values.into_iter().map(|v| Some(v as f64)).collect(),
    }
}

/// The highest reading per bucket across `readings` (one series per
/// instance); `None` when no series has any reading on the axis.
pub fn peak<'a>(
    readings: impl Iterator<Item = &'a Readings>,
    axis: &TimeAxis,
    measure: Measure,
) -> Option<Series> {
    let mut values: Vec<Option<f64>> = vec![None; axis.count];
    for r in readings {
        for (v, own) in values.iter_mut().zip(bucketed(&r.points, axis)) {
            *v = match (*v, own) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
        }
    }
    values.iter().any(Option::is_some).then_some(Series {
        measure,
        mark: Mark::Line,
        values,
    })
}

/// One gauge series: the highest reading in each bucket. A bucket without
/// a reading takes the one before it when the readings around it are no
/// further apart than twice the series' usual interval (buckets shorter
/// than the scrape interval); a longer silence is a gap.
fn bucketed(points: &[(i64, f64)], axis: &TimeAxis) -> Vec<Option<f64>> {
    let mut out: Vec<Option<f64>> = vec![None; axis.count];
    for &(ms, v) in points {
        if let Some(slot) = axis.index(ms.div_euclid(1000)).and_then(|b| out.get_mut(b)) {
            *slot = Some(slot.map_or(v, |o: f64| o.max(v)));
        }
    }
    let mut steps: Vec<i64> = points
        .windows(2)
        .filter_map(|w| match w {
            [a, b] => Some(b.0 - a.0),
            _ => None,
        })
        .collect();
    steps.sort_unstable();
    let Some(&step) = steps.get(steps.len() / 2) else {
        return out;
    };
    for (i, slot) in out.iter_mut().enumerate() {
        if slot.is_some() {
            continue;
        }
        let from = axis.bucket_start(i) * 1000;
        let to = from + axis.bucket_s * 1000;
        let after = points.partition_point(|p| p.0 < from);
        let Some(&(t_prev, v_prev)) = after.checked_sub(1).and_then(|k| points.get(k)) else {
            continue;
        };
        let regular = match points.get(after) {
            Some(&(t_next, _)) => t_next - t_prev <= 2 * step,
            None => to - t_prev <= step,
        };
        if regular {
            *slot = Some(v_prev);
        }
    }
    out
}

/// Restarts begun per bucket; `None` when none falls on the axis.
pub fn restarts(downs: impl Iterator<Item = i64>, axis: &TimeAxis) -> Option<Series> {
    let mut values = vec![0u32; axis.count];
    for s in downs {
        if let Some(v) = axis.index(s).and_then(|b| values.get_mut(b)) {
            *v += 1;
        }
    }
    values.iter().any(|v| *v > 0).then(|| Series {
        measure: Measure::Restarts,
        mark: Mark::Bars,
        values: values.into_iter().map(|v| Some(f64::from(v))).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(bucket_s: i64, count: usize) -> TimeAxis {
        TimeAxis {
            start: 1000,
            bucket_s,
            count,
        }
    }

    fn readings(points: &[(i64, f64)]) -> Readings {
        Readings {
            key: "pool".to_string(),
            name: "pool".to_string(),
            role: None,
            instance: None,
            input: 0,
            period_start: false,
            points: points.iter().map(|&(s, v)| (s * 1000, v)).collect(),
        }
    }

    #[test]
    fn counts_sum_per_bucket_and_skip_what_is_off_the_axis() {
        let cells: Vec<Cell> = (0..40)
            .map(|i| Cell {
                done: i,
                failed: i / 2,
                ..Cell::default()
            })
            .collect();
        // Cells from 995: seconds 995..999 are before the axis.
        let s = completed(&cells, Span::new(995, 1035), &axis(10, 3), |c| c.done);
        assert_eq!(s.values, vec![Some(95.0), Some(195.0), Some(295.0)]);
        let f = completed(&cells, Span::new(995, 1035), &axis(10, 3), |c| c.failed);
        for (d, f) in s.values.iter().zip(&f.values) {
            assert!(f <= d, "failed {f:?} above completed {d:?}");
        }
    }

    #[test]
    fn request_coverage_is_first_to_last_second_with_requests() {
        let mut cells = vec![Cell::default(); 10];
        cells[2].requests = 1;
        cells[7].done = 1;
        assert_eq!(
            request_coverage(&cells, Span::new(100, 110)),
            Some(Span::new(102, 108))
        );
        assert_eq!(request_coverage(&[Cell::default()], Span::new(0, 1)), None);
    }

    #[test]
    fn gauges_take_the_highest_reading_of_any_instance() {
        let a = readings(&[(1000, 3.0), (1005, 9.0), (1010, 4.0), (1015, 4.0)]);
        let b = readings(&[(1000, 5.0), (1010, 8.0), (1015, 1.0)]);
        let s = peak([&a, &b].into_iter(), &axis(10, 2), Measure::PoolInUse);
        assert_eq!(s.map(|s| s.values), Some(vec![Some(9.0), Some(8.0)]));
    }

    #[test]
    fn a_bucket_between_regular_readings_carries_the_reading_before_it() {
        // Readings every 15 s, buckets of 10 s: 1020..1030 has none.
        let r = readings(&[(1000, 1.0), (1015, 2.0), (1030, 3.0), (1045, 4.0)]);
        assert_eq!(
            bucketed(&r.points, &axis(10, 5)),
            vec![Some(1.0), Some(2.0), Some(2.0), Some(3.0), Some(4.0)]
        );
    }

    #[test]
    fn a_silent_gauge_is_a_gap_not_zero() {
        let r = readings(&[(1000, 6.0), (1010, 6.0), (1060, 5.0), (1070, 5.0)]);
        assert_eq!(
            bucketed(&r.points, &axis(10, 8)),
            vec![
                Some(6.0),
                Some(6.0),
                None,
                None,
                None,
                None,
                Some(5.0),
                Some(5.0)
            ]
        );
        // Before its first reading and well after its last, nothing is known.
        let late = readings(&[(1020, 1.0), (1030, 1.0)]);
        assert_eq!(
            bucketed(&late.points, &axis(10, 6)),
            vec![None, None, Some(1.0), Some(1.0), None, None]
        );
    }

    #[test]
    fn no_reading_on_the_axis_is_no_series() {
        let r = readings(&[(10, 1.0), (20, 1.0)]);
        assert_eq!(
            peak([&r].into_iter(), &axis(10, 3), Measure::PoolInUse),
            None
        );
    }

    #[test]
    fn restarts_count_per_bucket() {
        let s = restarts([1001, 1009, 1025, 5000].into_iter(), &axis(10, 3));
        assert_eq!(
            s.map(|s| s.values),
            Some(vec![Some(2.0), Some(0.0), Some(1.0)])
        );
        assert_eq!(restarts([5000].into_iter(), &axis(10, 3)), None);
    }
}
