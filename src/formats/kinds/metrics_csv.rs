//! Metrics as CSV: Grafana panel exports and generic time series files ->
//! one metric record per value cell. The first row decides the shape:
//!
//! - generic, no header: `timestamp,metric,value[,label=value...]`;
//! - long, with a header that has a time and a `value` column (Grafana's
//!   "Series,Time,Value", or `timestamp,metric,value,pool`): one sample per
//!   row, the `metric`/`series`/`name` column names it (a PromQL-style
//!   `name{a="b"}` is taken apart), other columns are labels;
//! - wide, a header whose first column is the time, joined by one column per
//!   series (Grafana's "series joined by time"): one sample per non-empty
//!   cell;
//! - a Grafana data frame (`#name#`, `#type#`, `#unit#` header rows): `time`
//!   columns are the time, `number` columns series (with a `unit` label),
//!   other columns labels. A frame without a time column cannot be put on a
//!   timeline: its rows are parsed and counted as unplaced.
//!
//! Cells are RFC 4180: quoted cells may hold commas, quotes and newlines. A
//! header with tabs and no commas (Grafana's "Excel compatible" download)
//! is tab-separated. Under a header, any number in the time column is a time
//! (Grafana writes epoch milliseconds); without one, a time is a date or a
//! 9+ digit epoch, so other CSV is not taken for metrics.
//! Empty and `null` cells give no sample; any other cell that is not a
//! number where a value belongs refuses the row.
//!
//! ```text
//! Time,web-0,web-1
//! 2026-10-01 07:58:00,20,3   -> web-0 = 20, web-1 = 3 at 07:58:00
//! ```

use std::borrow::Cow;

use super::csv_rows::{split_on, Rows};
use super::prometheus_text::{series_name, Label};
use super::{metric_record, Extractor, Skip, BLANK};
use crate::formats::compile::Fields;

const TIME_COLUMNS: [&str; 6] = ["time", "timestamp", "ts", "date", "datetime", "time (utc)"];
const NAME_COLUMNS: [&str; 4] = ["metric", "series", "name", "__name__"];

/// A series column: its index, metric name, and labels (from a PromQL
/// name or a unit).
type SeriesColumn = (usize, String, Vec<(String, String)>);

#[derive(Debug, Default)]
enum Shape {
    #[default]
    Start,
    /// A Grafana data frame header, before its first data row.
    Frame {
        names: Vec<String>,
        types: Vec<String>,
        units: Vec<String>,
    },
    Headerless,
    Long {
        time: usize,
        value: usize,
        metric: Option<usize>,
        labels: Vec<(usize, String)>,
    },
    Wide {
        time: usize,
        series: Vec<SeriesColumn>,
        labels: Vec<(usize, String)>,
    },
    /// A frame without a time column.
    Timeless,
}

#[derive(Debug, Default)]
pub struct MetricsCsv {
    rows: Rows,
    shape: Shape,
    /// `None` until the first row says: `,` or a tab.
    delimiter: Option<char>,
    unplaced: bool,
}

impl Extractor for MetricsCsv {
    fn open_lines(&self) -> u64 {
        self.rows.open_lines()
    }

    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        self.unplaced = false;
        if !self.rows.is_open() {
            if line.trim().is_empty() {
                return Err(BLANK);
            }
            // Only a file already known to be ours may open a multi-line cell;
            // a JSON line is never a CSV header.
            let start = matches!(self.shape, Shape::Start);
            let odd = line.bytes().filter(|b| *b == b'"').count() % 2 == 1;
            if start && (odd || line.trim_start().starts_with(['{', '['])) {
                return Err("not a metrics CSV header");
            }
        }
        match self.rows.push(line)? {
            None => Ok(Vec::new()),
            Some(Cow::Borrowed(row)) => self.row(row),
            Some(Cow::Owned(row)) => Ok(self
                .row(&row)?
                .into_iter()
                .map(Fields::into_owned)
                .collect()),
        }
    }

    fn unplaced(&mut self) -> Option<Skip> {
        std::mem::take(&mut self.unplaced).then_some("Grafana data frame without a time column")
    }
}

impl MetricsCsv {
    fn row<'r>(&mut self, row: &'r str) -> Result<Vec<Fields<'r>>, Skip> {
        let delimiter =
            *self
                .delimiter
                .get_or_insert(if row.contains('\t') && !row.contains(',') {
                    '\t'
                } else {
                    ','
                });
        let cells = split_on(row, delimiter);
        let in_header = matches!(self.shape, Shape::Start | Shape::Frame { .. });
        if let Some(rest) = cells
            .first()
            .and_then(|c| c.strip_prefix('#'))
            .filter(|_| in_header)
        {
            return self.frame_header(rest, &cells).map(|()| Vec::new());
        }
        if let Shape::Frame { .. } = self.shape {
            self.shape = self.frame_shape();
        }
        match &self.shape {
            Shape::Start => {
                if cells.first().is_some_and(|c| is_time(c)) {
                    self.shape = Shape::Headerless;
                    return self.row(row);
                }
                self.shape = header_shape(&cells)?;
                Ok(Vec::new())
            }
            Shape::Frame { .. } => Ok(Vec::new()),
            Shape::Timeless => {
                self.unplaced = true;
                Ok(Vec::new())
            }
            Shape::Headerless => headerless(cells),
            Shape::Long {
                time,
                value,
                metric,
                labels,
            } => long(cells, *time, *value, *metric, labels),
            Shape::Wide {
                time,
                series,
                labels,
            } => wide(cells, *time, series, labels),
        }
    }

    /// `#name#a,b`, `#type#number,string`, `#unit#ms,`.
    fn frame_header(&mut self, first: &str, cells: &[Cow<str>]) -> Result<(), Skip> {
        let (tag, head) = first.split_once('#').ok_or("not a metrics CSV header")?;
        let values = || -> Vec<String> {
            std::iter::once(head)
                .chain(cells.iter().skip(1).map(|c| c.as_ref()))
                .map(str::to_string)
                .collect()
        };
        match (&mut self.shape, tag) {
            (Shape::Start, "name") => {
                self.shape = Shape::Frame {
                    names: values(),
                    types: Vec::new(),
                    units: Vec::new(),
                }
            }
            (Shape::Frame { types, .. }, "type") => *types = values(),
            (Shape::Frame { units, .. }, "unit") => *units = values(),
            // Other `#key#` rows (labels, config) add nothing we use.
            (Shape::Frame { .. }, _) => {}
            _ => return Err("not a metrics CSV header"),
        }
        Ok(())
    }

    /// The frame's header rows are done: which columns are time, series, labels.
    fn frame_shape(&self) -> Shape {
        let Shape::Frame {
            names,
            types,
            units,
        } = &self.shape
        else {
            return Shape::Timeless;
        };
        let ty = |i: usize| types.get(i).map_or("", String::as_str);
        let time = (0..names.len())
            .find(|&i| ty(i) == "time")
            .or_else(|| names.iter().position(|n| is_time_column(n)));
        let Some(time) = time else {
            return Shape::Timeless;
        };
        let mut series = Vec::new();
        let mut labels = Vec::new();
        for (i, name) in names.iter().enumerate() {
            if i == time {
                continue;
            }
            if ty(i) == "number" || ty(i).is_empty() {
                let mut l = Vec::new();
                if let Some(u) = units.get(i).filter(|u| !u.is_empty()) {
                    l.push(("unit".to_string(), u.clone()));
                }
                series.push((i, name.clone(), l));
            } else {
                labels.push((i, name.clone()));
            }
        }
        Shape::Wide {
            time,
            series,
            labels,
        }
    }
}

fn is_time_column(name: &str) -> bool {
    TIME_COLUMNS.contains(&name.trim().to_ascii_lowercase().as_str())
}

/// A header row -> the long or wide shape.
fn header_shape(cells: &[Cow<str>]) -> Result<Shape, Skip> {
    let lower: Vec<String> = cells
        .iter()
        .map(|c| c.trim().to_ascii_lowercase())
        .collect();
    if cells.len() < 2 || lower.iter().any(|c| c.is_empty()) {
        return Err("not a metrics CSV header");
    }
    let time = lower
        .iter()
        .position(|c| is_time_column(c))
        .ok_or("not a metrics CSV header: no time column")?;
    let value = lower.iter().position(|c| c == "value");
    if value.is_none() && time != 0 {
        return Err("not a metrics CSV header: the time is not the first column");
    }
    if let Some(value) = value {
        let metric = lower
            .iter()
            .position(|c| NAME_COLUMNS.contains(&c.as_str()));
        let labels = cells
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != time && i != value && Some(i) != metric)
            .map(|(i, c)| (i, c.trim().to_string()))
            .collect();
        return Ok(Shape::Long {
            time,
            value,
            metric,
            labels,
        });
    }
    let series: Vec<SeriesColumn> = cells
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != time)
        .map(|(i, c)| {
            let text = c.trim();
            match series_name(text) {
                Some((name, labels)) => (
                    i,
                    name.into_owned(),
                    labels
                        .into_iter()
                        .map(|(k, v)| (k.into_owned(), v.into_owned()))
                        .collect(),
                ),
                None => (i, text.to_string(), Vec::new()),
            }
        })
        .collect();
    Ok(Shape::Wide {
        time,
        series: apart(series),
        labels: Vec::new(),
    })
}

/// Columns that bear the same name and labels (a panel whose legend is the
/// metric's name, one column per pod) are still one series each: a
/// `column` label (its place among those of its name, from 1) keeps them
/// apart instead of mixing their values into one.
fn apart(mut series: Vec<SeriesColumn>) -> Vec<SeriesColumn> {
    let same = |a: &SeriesColumn, b: &SeriesColumn| a.1 == b.1 && a.2 == b.2;
    // (how many of its kind come before it, whether any other is alike)
    let places: Vec<(usize, bool)> = series
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let before = series.iter().take(i).filter(|d| same(c, d)).count();
            let after = series.iter().skip(i + 1).any(|d| same(c, d));
            (before, before > 0 || after)
        })
        .collect();
    for (c, (before, repeated)) in series.iter_mut().zip(places) {
        if repeated {
            c.2.push(("column".to_string(), (before + 1).to_string()));
        }
    }
    series
}

/// `2026-10-01 07:58:00`, `2026-10-01T07:58:00Z`, epoch seconds or millis.
fn is_time(cell: &str) -> bool {
    let t = cell.trim();
    let b = t.as_bytes();
    let dated = matches!(b, [y0, y1, y2, y3, sep @ (b'-' | b'/'), _, _, sep2, _, _, ..]
        if sep2 == sep && [y0, y1, y2, y3].iter().all(|c| c.is_ascii_digit()));
    let epoch = b.len() >= 9 && t.bytes().all(|c| c.is_ascii_digit() || c == b'.');
    dated || epoch
}

/// A cell in a column the header calls the time: a date or any epoch number.
fn is_time_cell(cell: &str) -> bool {
    let t = cell.trim();
    is_time(t) || (!t.is_empty() && t.bytes().all(|c| c.is_ascii_digit() || c == b'.'))
}

/// Nothing to record in this cell.
fn is_empty_value(cell: &str) -> bool {
    let t = cell.trim();
    t.is_empty() || t.eq_ignore_ascii_case("null")
}

fn number<'r>(cell: Cow<'r, str>) -> Result<Cow<'r, str>, Skip> {
    if cell.trim().parse::<f64>().is_ok() {
        Ok(cell)
    } else {
        Err("a value cell is not a number")
    }
}

/// A metric cell: a PromQL-style series is taken apart, anything else is the name.
fn metric_and_labels(cell: Cow<'_, str>) -> Result<(Cow<'_, str>, Vec<Label<'_>>), Skip> {
    if cell.contains('{') {
        if let Some((n, l)) = series_name(&cell) {
            let owned = l
                .into_iter()
                .map(|(k, v)| (Cow::Owned(k.into_owned()), Cow::Owned(v.into_owned())))
                .collect();
            return Ok((Cow::Owned(n.into_owned()), owned));
        }
    }
    if cell.trim().is_empty() {
        return Err("no metric name");
    }
    Ok((cell, Vec::new()))
}

fn headerless(cells: Vec<Cow<'_, str>>) -> Result<Vec<Fields<'_>>, Skip> {
    if cells.len() < 3 {
        return Err("not `timestamp,metric,value`: too few columns");
    }
    let mut it = cells.into_iter();
    let (Some(ts), Some(metric), Some(value)) = (it.next(), it.next(), it.next()) else {
        return Err("not `timestamp,metric,value`: too few columns");
    };
    if !is_time(&ts) {
        return Err("not `timestamp,metric,value`: no time first");
    }
    let (name, mut labels) = metric_and_labels(metric)?;
    if !name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
    {
        return Err("not `timestamp,metric,value`: no metric name second");
    }
    let value = number(value)?;
    for extra in it {
        labels.push(label_pair(extra).ok_or("an extra column is not label=value")?);
    }
    Ok(vec![metric_record(ts, name, value, &labels)])
}

fn long<'r>(
    cells: Vec<Cow<'r, str>>,
    time: usize,
    value: usize,
    metric: Option<usize>,
    label_columns: &[(usize, String)],
) -> Result<Vec<Fields<'r>>, Skip> {
    let mut cells: Vec<Option<Cow<'r, str>>> = cells.into_iter().map(Some).collect();
    let mut take = |i: usize| cells.get_mut(i).and_then(Option::take);
    let ts = take(time).ok_or("no time in the row")?;
    if !is_time_cell(&ts) {
        return Err("no time in the time column");
    }
    let Some(v) = take(value).filter(|v| !is_empty_value(v)) else {
        return Ok(Vec::new());
    };
    let v = number(v)?;
    let (name, mut labels) = match metric.and_then(&mut take) {
        Some(m) => metric_and_labels(m)?,
        None => (Cow::Borrowed("value"), Vec::new()),
    };
    for (i, label) in label_columns {
        if let Some(c) = take(*i).filter(|c| !c.is_empty()) {
            labels.push((Cow::Owned(label.clone()), c));
        }
    }
    // Cells past the header's columns: `timestamp,metric,value` headers over
    // rows that go on with `label=value` cells, as the headerless shape has.
    let header_columns = label_columns.len() + 2 + usize::from(metric.is_some());
    for extra in cells.into_iter().skip(header_columns).flatten() {
        // Anything else there (a trailing comma's empty cell) says nothing.
        if let Some((k, v)) = label_pair(extra).filter(|(k, v)| is_label_name(k) && !v.is_empty()) {
            labels.push((k, v));
        }
    }
    Ok(vec![metric_record(ts, name, v, &labels)])
}

/// `key=value` -> (key, value), borrowing when the cell does.
fn label_pair(cell: Cow<'_, str>) -> Option<Label<'_>> {
    match cell {
        Cow::Borrowed(e) => e
            .split_once('=')
            .map(|(k, v)| (Cow::Borrowed(k), Cow::Borrowed(v))),
        Cow::Owned(e) => e
            .split_once('=')
            .map(|(k, v)| (Cow::Owned(k.to_string()), Cow::Owned(v.to_string()))),
    }
}

/// A Prometheus label name: letters, digits and `_`, not starting with a digit.
fn is_label_name(k: &str) -> bool {
    let k = k.trim();
    k.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn wide<'r>(
    cells: Vec<Cow<'r, str>>,
    time: usize,
    series: &[SeriesColumn],
    label_columns: &[(usize, String)],
) -> Result<Vec<Fields<'r>>, Skip> {
    let ts = cells.get(time).ok_or("no time in the row")?;
    if !is_time_cell(ts) {
        return Err("no time in the time column");
    }
    let row_labels: Vec<Label<'r>> = label_columns
        .iter()
        .filter_map(|(i, name)| {
            let c = cells.get(*i)?;
            (!c.is_empty()).then(|| (Cow::Owned(name.clone()), c.clone()))
        })
        .collect();
    let mut out = Vec::new();
    for (i, name, labels) in series {
        let Some(cell) = cells.get(*i).filter(|c| !is_empty_value(c)) else {
            continue;
        };
        let value = number(cell.clone())?;
        let mut l: Vec<Label<'r>> = labels
            .iter()
            .map(|(k, v)| (Cow::Owned(k.clone()), Cow::Owned(v.clone())))
            .collect();
        l.extend(row_labels.iter().cloned());
        out.push(metric_record(
            ts.clone(),
            Cow::Owned(name.clone()),
            value,
            &l,
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::role::Role;

    /// Feed lines to one reader: per line, the (metric, value, series) of
    /// each record, or the skip reason.
    fn read(lines: &[&str]) -> Vec<Result<Vec<[String; 3]>, Skip>> {
        let mut x = MetricsCsv::default();
        lines
            .iter()
            .map(|l| {
                x.line(l).map(|recs| {
                    recs.iter()
                        .map(|r| {
                            [Role::Metric, Role::Value, Role::Series]
                                .map(|role| r.get(role).unwrap_or("").to_string())
                        })
                        .collect()
                })
            })
            .collect()
    }

    fn rec(m: &str, v: &str, s: &str) -> [String; 3] {
        [m.to_string(), v.to_string(), s.to_string()]
    }

    #[test]
    fn shapes() {
        type Case<'c> = (&'c str, Vec<&'c str>, Vec<Result<Vec<[String; 3]>, Skip>>);
        let cases: Vec<Case> = vec![
            (
                "headerless with labels",
                vec!["2026-10-01T07:58:00Z,hikaricp_connections_active,20,pool=HikariPool-1,instance=web-0"],
                vec![Ok(vec![rec(
                    "hikaricp_connections_active",
                    "20",
                    "hikaricp_connections_active{instance=\"web-0\",pool=\"HikariPool-1\"}",
                )])],
            ),
            (
                "a long header over rows that go on with labels",
                vec![
                    "timestamp,metric,value",
                    "2026-10-01T07:58:00Z,hikaricp_connections_active,20,instance=10.42.3.40:8080,task_arn=arn:aws:ecs:eu-west-1:1:task/prod/c7cc,",
                ],
                vec![
                    Ok(vec![]),
                    Ok(vec![rec(
                        "hikaricp_connections_active",
                        "20",
                        "hikaricp_connections_active{instance=\"10.42.3.40:8080\",task_arn=\"arn:aws:ecs:eu-west-1:1:task/prod/c7cc\"}",
                    )]),
                ],
            ),
            (
                "long with promql series",
                vec![
                    "\"Series\",\"Time\",\"Value\"",
                    "\"hikaricp_connections_pending{instance=\"\"web-0\"\"}\",2026-10-01 07:58:00,7",
                    "\"hikaricp_connections_pending{instance=\"\"web-0\"\"}\",2026-10-01 07:58:15,",
                ],
                vec![
                    Ok(vec![]),
                    Ok(vec![rec(
                        "hikaricp_connections_pending",
                        "7",
                        "hikaricp_connections_pending{instance=\"web-0\"}",
                    )]),
                    Ok(vec![]),
                ],
            ),
            (
                "wide",
                vec!["Time,web-0,web-1", "2026-10-01 07:58:00,20,null", "2026-10-01 07:58:15,x,1"],
                vec![
                    Ok(vec![]),
                    Ok(vec![rec("web-0", "20", "web-0")]),
                    Err("a value cell is not a number"),
                ],
            ),
            (
                "wide, one column per pod under one legend",
                vec!["\"Time\",\"pool_in_use\",\"pool_in_use\",\"up\"", "1790841480000,3,7,1"],
                vec![
                    Ok(vec![]),
                    Ok(vec![
                        rec("pool_in_use", "3", "pool_in_use{column=\"1\"}"),
                        rec("pool_in_use", "7", "pool_in_use{column=\"2\"}"),
                        rec("up", "1", "up"),
                    ]),
                ],
            ),
            (
                "frame without time",
                vec!["#name#a,b", "#type#number,string", "10,\"X", "Y\""],
                vec![Ok(vec![]), Ok(vec![]), Ok(vec![]), Ok(vec![])],
            ),
            (
                "frame with time",
                vec!["#name#time,pool_used,host", "#type#time,number,string", "#unit#,short,", "1790841480000,42,db-1"],
                vec![
                    Ok(vec![]),
                    Ok(vec![]),
                    Ok(vec![]),
                    Ok(vec![rec("pool_used", "42", "pool_used{host=\"db-1\",unit=\"short\"}")]),
                ],
            ),
            (
                "pg_stat_activity is not wide metrics",
                vec!["ts,datname,pid,state", "2026-10-01 07:58:00+00,orders,4242,active"],
                vec![Ok(vec![]), Err("a value cell is not a number")],
            ),
            (
                "csvlog is not headerless metrics",
                vec!["2026-10-01 07:58:06.113 UTC,\"app\",\"orders\",4242"],
                vec![Err("a value cell is not a number")],
            ),
            ("prose", vec!["hello, world"], vec![Err("not a metrics CSV header: no time column")]),
            (
                "splunk export",
                vec!["\"_raw\",\"_time\",host,time"],
                vec![Err("not a metrics CSV header: the time is not the first column")],
            ),
            ("json line", vec!["{\"time\":1,\"value\":2}"], vec![Err("not a metrics CSV header")]),
            (
                "excel-compatible grafana download",
                vec!["\"time\"\t\"name\"\t\"value\"", "1790841480000\tdb_connections\t198"],
                vec![Ok(vec![]), Ok(vec![rec("db_connections", "198", "db_connections")])],
            ),
        ];
        for (name, lines, want) in cases {
            assert_eq!(read(&lines), want, "{name}");
        }
    }

    #[test]
    fn a_frame_without_time_is_unplaced() {
        let mut x = MetricsCsv::default();
        x.line("#name#a,b").expect("header");
        assert!(x.unplaced().is_none());
        assert!(x.line("1,2").expect("row").is_empty());
        assert!(x.unplaced().is_some());
    }
}
