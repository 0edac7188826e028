//! The report's charts as values: the analysis and the aggregates in, one
//! shared [`TimeAxis`] and the [`Chart`]s drawn on it out. Text (titles,
//! labels) is the renderers' job (`render::mermaid`, `render::svg`); what a
//! chart may claim is settled here:
//!
//! - whole buckets of a round size, at most about 20, none partial;
//! - counts per bucket counted one way: every request where it ended, so
//!   failed requests never exceed requests in a bucket;
//! - a gauge bucket with no reading is `None` (a gap), never 0;
//! - one scale per chart: a series 10x smaller than a chart's largest goes
//!   on a chart of its own ([`group`]); y from 0 to a round maximum;
//! - the colours of [`PALETTE`], each at least 3:1 against white.
//!
//! ```text
//! incident 07:56:55..08:01:35 -> axis 15 x 1 min from 07:52;
//!   [requests: completed (bars), acct-4411, failed], [pool in use, pool size],
//!   [clients waiting], [restarts]
//! ```

mod axis;
mod group;
mod series;

pub use axis::{round_max, LabelForm, TimeAxis, MAX_BUCKETS, ROUND_MAXIMA};

use crate::aggregate::{Aggregates, Dim, Span};
use crate::correlate::Analysis;
use crate::event::MetricRole;

/// A series colour and the word the text uses for it (Mermaid's xychart
/// has no legend, so titles say "blue bars").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Colour {
    pub hex: &'static str,
    pub name: &'static str,
}

/// Series colours in the order series are drawn. Okabe-Ito hues
/// (distinguishable with the common colour-vision deficiencies), darkened
/// where needed to reach WCAG's 3:1 for graphical objects on white.
/// Series `i`'s colour: the palette again from its start past its end.
pub fn colour(i: usize) -> &'static Colour {
    let [first, ..] = &PALETTE;
    PALETTE.get(i % PALETTE.len()).unwrap_or(first)
}

pub const PALETTE: [Colour; 4] = [
    Colour {
        hex: "#0072B2",
        name: "blue",
    },
    Colour {
        hex: "#D55E00",
        name: "orange",
    },
    Colour {
        hex: "#007A5E",
        name: "green",
    },
    Colour {
        hex: "#A8437F",
        name: "purple",
    },
];

/// What a series measures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Requests that ended in the bucket, whatever their outcome.
    Completed,
    /// Of those, the ones that failed (5xx, 408).
    Failed,
    /// Requests of the client the attribution blames, counted as `Completed`.
    Client(String),
    /// Connections in use: the highest reading of any instance.
    PoolInUse,
    /// The pool's maximum size: the highest of any instance.
    PoolSize,
    /// Callers waiting for a connection: the highest reading of any instance.
    PoolWaiting,
    /// Instances that went down (restarts begun).
    Restarts,
}

/// What the y-axis counts; series of different units never share a chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unit {
    Requests,
    Connections,
    Restarts,
}

impl Measure {
    pub fn unit(&self) -> Unit {
        match self {
            Measure::Completed | Measure::Failed | Measure::Client(_) => Unit::Requests,
            Measure::PoolInUse | Measure::PoolSize | Measure::PoolWaiting => Unit::Connections,
            Measure::Restarts => Unit::Restarts,
        }
    }

    /// Counted per bucket (a sum), as opposed to the highest reading of a gauge.
    pub fn is_count(&self) -> bool {
        !matches!(
            self,
            Measure::PoolInUse | Measure::PoolSize | Measure::PoolWaiting
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Bars,
    Line,
}

/// One series: a value per bucket of the axis, `None` where nothing was
/// measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub measure: Measure,
    pub mark: Mark,
    pub values: Vec<Option<f64>>,
}

impl Series {
    pub fn max(&self) -> f64 {
        self.values.iter().flatten().fold(0.0, |m, v| m.max(*v))
    }
}

/// One chart: series of one unit and one scale, y from 0 to `y_max`.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub unit: Unit,
    pub y_max: f64,
    /// Drawn in this order, series `i` in `PALETTE[i]`; bars first.
    pub series: Vec<Series>,
}

impl Chart {
    /// A short name for file names: what the first series measures.
    pub fn id(&self) -> &'static str {
        match self.series.first().map(|s| &s.measure) {
            Some(Measure::Completed) => "requests",
            Some(Measure::Failed) => "failed",
            Some(Measure::Client(_)) => "client",
            Some(Measure::PoolInUse | Measure::PoolSize) => "pool-in-use",
            Some(Measure::PoolWaiting) => "pool-waiting",
            Some(Measure::Restarts) | None => "restarts",
        }
    }

    /// Buckets where some series has no value: drawn as gaps where the
    /// renderer can, left out with a note where it cannot.
    pub fn gaps(&self) -> Vec<usize> {
        let n = self
            .series
            .iter()
            .map(|s| s.values.len())
            .max()
            .unwrap_or(0);
        (0..n)
            .filter(|&i| {
                self.series
                    .iter()
                    .any(|s| s.values.get(i).is_none_or(Option::is_none))
            })
            .collect()
    }
}

/// Every chart of a report on its one axis.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Charts {
    pub axis: Option<TimeAxis>,
    pub charts: Vec<Chart>,
}

/// How much context the charts show around an incident: half its length
/// on each side, at least five minutes.
const MIN_CONTEXT_S: i64 = 300;

/// Build the charts of a report.
pub fn build(agg: &Aggregates, a: &Analysis) -> Charts {
    let Some(span) = a.span else {
        return Charts::default();
    };
    // Request counts exist only where the access log does; outside it they
    // would be drawn as an empty bucket, not as "not measured".
    let requests = series::request_coverage(&a.totals, span);
    let data = requests.unwrap_or(span);
    let view = match a.incident {
        Some(i) => {
            let pad = ((i.recovered - i.onset) / 2).max(MIN_CONTEXT_S);
            Span::new(i.onset - pad, i.recovered + pad)
        }
        None => data,
    };
    let Some(axis) = TimeAxis::choose(view, data) else {
        return Charts::default();
    };
    let mut candidates = Vec::new();
    if requests.is_some() {
        candidates.push(series::completed(&a.totals, span, &axis, |c| c.done));
        // The client the attribution blames, when there is an incident to blame it for.
        if a.incident.is_some() && !a.attribution.organic {
            if let Some(row) = a.attribution.rows.first() {
                let dim = if a.attribution.dimension == "tenant" {
                    Dim::Tenant
                } else {
                    Dim::Integration
                };
                let cells = agg.dim_series(dim, &row.value, axis.span());
                let mut s = series::completed(&cells, axis.span(), &axis, |c| c.done);
                s.measure = Measure::Client(row.value.clone());
                candidates.push(s);
            }
        }
        let mut failed = series::completed(&a.totals, span, &axis, |c| c.failed);
        failed.measure = Measure::Failed;
        candidates.push(failed);
    }
    for (role, measure) in [
        // The size first, so in use is drawn over it where they meet.
        (MetricRole::DbConnectionsMax, Measure::PoolSize),
        (MetricRole::DbConnectionsInUse, Measure::PoolInUse),
        (MetricRole::DbConnectionsWaiting, Measure::PoolWaiting),
    ] {
        // The series read as pools: beside them, the database's own total
        // would draw as 28 in use in pools of 5.
        let pools = &a.pool.series;
        let readings = agg
            .metric_series()
            .filter(|s| s.role == Some(role) && (pools.is_empty() || pools.contains(&s.key)));
        if let Some(s) = series::peak(readings, &axis, measure) {
            candidates.push(s);
        }
    }
    let downs = a.history.restarts.iter().map(|r| r.down.div_euclid(1000));
    if let Some(s) = series::restarts(downs, &axis) {
        candidates.push(s);
    }
    Charts {
        axis: Some(axis),
        charts: group::by_scale(candidates),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// WCAG 2 relative luminance of an sRGB colour `#RRGGBB`.
    fn luminance(hex: &str) -> f64 {
        let channel = |i: usize| {
            let v = u8::from_str_radix(&hex[i..i + 2], 16).unwrap_or(255);
            let c = f64::from(v) / 255.0;
            if c <= 0.03928 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
    }

    #[test]
    fn every_colour_reads_on_white() {
        for c in PALETTE {
            let ratio = 1.05 / (luminance(c.hex) + 0.05);
            assert!(
                ratio >= 3.0,
                "{} ({}) is {ratio:.2}:1 on white",
                c.hex,
                c.name
            );
        }
        // Mermaid's own first colour, the one the issue saw, fails the same check.
        assert!(1.05 / (luminance("#ECECFF") + 0.05) < 3.0);
    }

    #[test]
    fn colours_and_their_names_are_distinct() {
        for (i, a) in PALETTE.iter().enumerate() {
            for b in &PALETTE[i + 1..] {
                assert_ne!(a.hex, b.hex);
                assert_ne!(a.name, b.name);
            }
        }
    }

    #[test]
    fn gaps_are_the_buckets_any_series_lacks() {
        let s = |values: Vec<Option<f64>>| Series {
            measure: Measure::PoolInUse,
            mark: Mark::Line,
            values,
        };
        let c = Chart {
            unit: Unit::Connections,
            y_max: 10.0,
            series: vec![
                s(vec![Some(1.0), None, Some(2.0), Some(0.0)]),
                s(vec![Some(1.0), Some(1.0), Some(2.0), None]),
            ],
        };
        assert_eq!(c.gaps(), vec![1, 3]);
    }
}
