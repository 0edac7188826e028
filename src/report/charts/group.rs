//! Series in, charts out: one unit and one scale per chart. A series joins
//! the first chart of its unit whose series peak within [`SCALE`] times of
//! its own; otherwise it starts a chart, so a series ten times smaller is
//! never drawn as a flat line under a larger one. The first series of a
//! chart of counts is drawn as bars, the rest as lines.
//!
//! ```text
//! [completed 10186, acct-4411 9134, failed 8333] -> one chart
//! [pool in use 20, pool size 20, waiting 1550]   -> [in use, size], [waiting]
//! ```

use super::{round_max, Chart, Mark, Series};

/// How far apart two peaks may be and still share a y-axis.
pub const SCALE: f64 = 10.0;

pub fn by_scale(series: Vec<Series>) -> Vec<Chart> {
    let mut charts: Vec<Chart> = Vec::new();
    for s in series {
        let m = s.max();
        let unit = s.measure.unit();
        let home = charts.iter_mut().find(|c| {
            c.unit == unit && {
                let peaks: Vec<f64> = c.series.iter().map(Series::max).collect();
                let low = peaks
                    .iter()
                    .copied()
                    .filter(|p| *p > 0.0)
                    .fold(f64::MAX, f64::min);
                let high = peaks.iter().copied().fold(0.0, f64::max);
                // Nothing above 0 is flattened by nothing: it is 0.
                m == 0.0 || high == 0.0 || (m * SCALE >= high && m <= low * SCALE)
            }
        });
        match home {
            Some(c) => c.series.push(s),
            None => charts.push(Chart {
                unit,
                y_max: 0.0,
                series: vec![s],
            }),
        }
    }
    for c in &mut charts {
        for (i, s) in c.series.iter_mut().enumerate() {
            s.mark = if i == 0 && s.measure.is_count() {
                Mark::Bars
            } else {
                Mark::Line
            };
        }
        c.y_max = round_max(c.series.iter().map(Series::max).fold(0.0, f64::max));
    }
    charts
}

#[cfg(test)]
mod tests {
    use super::super::{Measure, Unit};
    use super::*;

    fn s(measure: Measure, peak: f64) -> Series {
        Series {
            measure,
            mark: Mark::Line,
            values: vec![Some(0.0), Some(peak), None],
        }
    }

    type Layout = Vec<Vec<(Measure, Mark)>>;

    fn layout(charts: &[Chart]) -> Layout {
        charts
            .iter()
            .map(|c| {
                c.series
                    .iter()
                    .map(|s| (s.measure.clone(), s.mark))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn series_share_a_chart_only_on_one_unit_and_scale() {
        let client = || Measure::Client("acct-1".to_string());
        let cases: Vec<(&str, Vec<Series>, Layout)> = vec![
            (
                "a surge and its failures on one scale",
                vec![
                    s(Measure::Completed, 10_186.0),
                    s(client(), 9134.0),
                    s(Measure::Failed, 8333.0),
                ],
                vec![vec![
                    (Measure::Completed, Mark::Bars),
                    (client(), Mark::Line),
                    (Measure::Failed, Mark::Line),
                ]],
            ),
            (
                "a few failures get their own chart",
                vec![s(Measure::Completed, 1200.0), s(Measure::Failed, 14.0)],
                vec![
                    vec![(Measure::Completed, Mark::Bars)],
                    vec![(Measure::Failed, Mark::Bars)],
                ],
            ),
            (
                "no failure at all stays on the requests chart",
                vec![s(Measure::Completed, 1200.0), s(Measure::Failed, 0.0)],
                vec![vec![
                    (Measure::Completed, Mark::Bars),
                    (Measure::Failed, Mark::Line),
                ]],
            ),
            (
                "pool in use and waiting apart when 10x apart",
                vec![
                    s(Measure::PoolInUse, 20.0),
                    s(Measure::PoolSize, 20.0),
                    s(Measure::PoolWaiting, 1550.0),
                ],
                vec![
                    vec![
                        (Measure::PoolInUse, Mark::Line),
                        (Measure::PoolSize, Mark::Line),
                    ],
                    vec![(Measure::PoolWaiting, Mark::Line)],
                ],
            ),
            (
                "units never mix",
                vec![s(Measure::Failed, 3.0), s(Measure::Restarts, 3.0)],
                vec![
                    vec![(Measure::Failed, Mark::Bars)],
                    vec![(Measure::Restarts, Mark::Bars)],
                ],
            ),
        ];
        for (name, input, want) in cases {
            assert_eq!(layout(&by_scale(input)), want, "{name}");
        }
    }

    #[test]
    fn every_pair_on_a_chart_is_within_the_scale() {
        // 100 then 12 join; 1.5 is within 10x of 12 but not of 100.
        let charts = by_scale(vec![
            s(Measure::Completed, 100.0),
            s(Measure::Failed, 12.0),
            s(Measure::Client("a".to_string()), 1.5),
        ]);
        assert_eq!(charts.len(), 2);
        for c in &charts {
            let peaks: Vec<f64> = c.series.iter().map(Series::max).collect();
            for a in &peaks {
                for b in &peaks {
                    assert!(a * SCALE >= *b, "{peaks:?}");
                }
            }
        }
    }

    #[test]
    fn the_y_axis_ends_on_a_round_value_above_every_series() {
        let c = by_scale(vec![s(Measure::PoolWaiting, 1550.0)]);
        assert_eq!((c[0].unit, c[0].y_max), (Unit::Connections, 2000.0));
    }
}
