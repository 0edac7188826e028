//! Per-dimension tables, built with polars: one row per (value, second),
//! grouped into window and baseline sums per value. polars stays inside this
//! stage; callers get plain [`DimStats`].

use polars::prelude::*;

use super::cell::Cell;

/// A half-open span of seconds since the epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: i64,
    pub end: i64,
}

impl Span {
    pub fn new(start: i64, end: i64) -> Span {
        Span {
            start,
            end: end.max(start),
        }
    }

    pub fn len(&self) -> usize {
        (self.end - self.start).max(0) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }

    pub fn contains(&self, s: i64) -> bool {
        s >= self.start && s < self.end
    }

    pub fn secs(&self) -> f64 {
        (self.end - self.start).max(0) as f64
    }
}

/// One dimension value's totals in the window and in the baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct DimStats {
    pub value: String,
    pub window_requests: u64,
    pub window_failed: u64,
    pub window_busy_ms: f64,
    pub baseline_requests: u64,
    pub baseline_busy_ms: f64,
    /// What its served requests held beyond queueing ([`super::held`]).
    pub window_held_ms: f64,
    pub baseline_held_ms: f64,
    pub total_requests: u64,
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("building the {what} table failed: {source}")]
#[diagnostic(
    code(postmortem::aggregate::table),
    help("this is a bug in postmortem; please report it with the command line")
)]
pub struct AggregateError {
    what: &'static str,
    #[source]
    source: PolarsError,
}

fn in_span(span: Span) -> Expr {
    col("sec")
        .gt_eq(lit(span.start))
        .and(col("sec").lt(lit(span.end)))
}

/// One dimension's cells as a table: a row per (value id, second). Built
/// once per dimension and queried for each window and baseline.
pub fn dim_frame<'a>(
    cells: impl Iterator<Item = (u32, i64, &'a Cell)>,
    // About how many cells there are, to size the columns.
    len_hint: usize,
) -> Result<DataFrame, AggregateError> {
    let err = |source| AggregateError {
        what: "dimension",
        source,
    };
    // Sized up front: these columns hold a cell each, and growing them
    // would copy and fault in each one several times.
    let n = len_hint;
    let (mut values, mut secs, mut requests, mut failed, mut busy) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for (v, s, c) in cells {
        values.push(v);
        secs.push(s);
        requests.push(i64::from(c.requests));
        failed.push(i64::from(c.failed));
        busy.push(c.busy_us as i64);
    }
    DataFrame::new_infer_height(vec![
        Column::new("value".into(), values),
        Column::new("sec".into(), secs),
        Column::new("requests".into(), requests),
        Column::new("failed".into(), failed),
        Column::new("busy_us".into(), busy),
    ])
    .map_err(err)
}

/// Group a [`dim_frame`] by value id, summing inside `window` and
/// `baseline`; `name` gives an id's value. Sorted by value. The table holds
/// ids, not names: grouping integers is cheaper than grouping strings, and
/// only the groups need their name.
pub fn dim_stats<'n>(
    df: &DataFrame,
    window: Span,
    baseline: Span,
    name: impl Fn(u32) -> &'n str,
    // Held time in the window and in the baseline, by value id.
    held: impl Fn(u32) -> (f64, f64),
) -> Result<Vec<DimStats>, AggregateError> {
    let err = |source| AggregateError {
        what: "dimension",
        source,
    };
    let out = df
        .clone()
        .lazy()
        .group_by([col("value")])
        .agg([
            col("requests").filter(in_span(window)).sum().alias("w_req"),
            col("failed").filter(in_span(window)).sum().alias("w_fail"),
            col("busy_us").filter(in_span(window)).sum().alias("w_busy"),
            col("requests")
                .filter(in_span(baseline))
                .sum()
                .alias("b_req"),
            col("busy_us")
                .filter(in_span(baseline))
                .sum()
                .alias("b_busy"),
            col("requests").sum().alias("t_req"),
        ])
        .collect()
        .map_err(err)?;
    let ids: Vec<u32> = out
        .column("value")
        .and_then(|c| c.u32().cloned())
        .map_err(err)?
        .iter()
        .map(|v| v.unwrap_or(0))
        .collect();
    let int = |name: &str| -> Result<Vec<u64>, AggregateError> {
        Ok(out
            .column(name)
            .and_then(|c| c.i64().cloned())
            .map_err(err)?
            .iter()
            .map(|v| v.unwrap_or(0).max(0) as u64)
            .collect())
    };
    let (w_req, w_fail, w_busy, b_req, b_busy, t_req) = (
        int("w_req")?,
        int("w_fail")?,
        int("w_busy")?,
        int("b_req")?,
        int("b_busy")?,
        int("t_req")?,
    );
    // Columns of one table: each has a row per id.
    let at = |column: &[u64], i: usize| column.get(i).copied().unwrap_or(0);
    let mut stats: Vec<DimStats> = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| DimStats {
            value: name(id).to_string(),
            window_held_ms: held(id).0,
            baseline_held_ms: held(id).1,
            window_requests: at(&w_req, i),
            window_failed: at(&w_fail, i),
            window_busy_ms: at(&w_busy, i) as f64 / 1000.0,
            baseline_requests: at(&b_req, i),
            baseline_busy_ms: at(&b_busy, i) as f64 / 1000.0,
            total_requests: at(&t_req, i),
        })
        .collect();
    stats.sort_by(|a, b| a.value.cmp(&b.value));
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_and_baseline_sums_per_value() {
        let c = |requests, failed, busy_ms: f64| Cell {
            requests,
            failed,
            busy_us: (busy_ms * 1000.0) as u64,
            ..Cell::default()
        };
        let a1 = c(2, 0, 10.0);
        let a2 = c(5, 1, 100.0);
        let b1 = c(1, 0, 1.0);
        // Ids in another order than their names: the result is by name.
        let cells = vec![(2, 10, &a1), (2, 20, &a2), (1, 10, &b1)];
        let name = |id: u32| if id == 2 { "a" } else { "b" };
        let df = dim_frame(cells.into_iter(), 3).expect("frame");
        let stats = dim_stats(&df, Span::new(15, 25), Span::new(0, 15), name, |_| {
            (0.0, 0.0)
        })
        .expect("table");
        assert_eq!(stats.len(), 2);
        assert_eq!(stats[0].value, "a");
        assert_eq!(
            (
                stats[0].window_requests,
                stats[0].window_failed,
                stats[0].baseline_requests
            ),
            (5, 1, 2)
        );
        assert_eq!(stats[0].window_busy_ms, 100.0);
        assert_eq!(stats[1].value, "b");
        assert_eq!(
            (
                stats[1].window_requests,
                stats[1].baseline_requests,
                stats[1].total_requests
            ),
            (0, 1, 1)
        );
    }
}
