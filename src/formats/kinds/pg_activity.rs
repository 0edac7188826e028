//! `pg_stat_activity` snapshots a DBA takes during an incident, exported
//! with `psql --csv` and a capture-time column, e.g.
//! `SELECT now() AS captured_at, * FROM pg_stat_activity \watch 5`
//! -> per capture, connection counts as metric records.
//!
//! Rows are connections, so a capture is summed over its rows: the records
//! of one capture come out when the next capture starts (a repeated header
//! or a new capture time) or at the end of the input. Per capture:
//!
//! - `pg_stat_activity_count`: client connections (rows whose
//!   `backend_type` is `client backend`, or every row before PostgreSQL 10),
//!   whatever their state, since every one counts against `max_connections`.
//!   `metric-roles.json` maps it to `db_connections_in_use`.
//! - `pg_stat_activity_count_by_state{state}`, `..._by_application
//!   {application_name}`, `..._by_user{usename}`, `..._by_client
//!   {client_addr}` (`local` for a Unix socket) and `..._by_wait_event
//!   {wait_event_type,wait_event}`: the same connections broken down, for
//!   the reader; they fill no role.
//! - `pg_settings_max_connections` when a `max_connections` column is there
//!   (`current_setting('max_connections')`): `db_connections_max`.
//!
//! The capture time is the first of `captured_at`, `capture_time`,
//! `snapshot_time`, `sampled_at`, `collected_at`, `ts`, `time`,
//! `timestamp`, `now`. Without one the rows cannot be placed in time: they
//! are parsed and counted as unplaced.
//!
//! ```text
//! captured_at,pid,usename,application_name,client_addr,state,wait_event_type,wait_event,backend_type
//! 2026-10-01 07:58:00+00,4242,app,orders-api,10.0.1.21,active,Lock,transactionid,client backend
//! 2026-10-01 07:58:00+00,4243,app,orders-api,10.0.1.22,idle in transaction,Client,ClientRead,client backend
//!   -> pg_stat_activity_count 2, pg_stat_activity_count_by_state{state="active"} 1, ...
//! ```

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::csv_rows::{split, Rows};
use super::{metric_record, Extractor, Skip, BLANK};
use crate::formats::compile::Fields;

const CAPTURE_COLUMNS: [&str; 9] = [
    "captured_at",
    "capture_time",
    "snapshot_time",
    "sampled_at",
    "collected_at",
    "ts",
    "time",
    "timestamp",
    "now",
];

/// (metric, its labels): each label is the column of that name.
const BREAKDOWNS: [(&str, &[&str]); 5] = [
    ("pg_stat_activity_count_by_state", &["state"]),
    (
        "pg_stat_activity_count_by_application",
        &["application_name"],
    ),
    ("pg_stat_activity_count_by_user", &["usename"]),
    ("pg_stat_activity_count_by_client", &["client_addr"]),
    (
        "pg_stat_activity_count_by_wait_event",
        &["wait_event_type", "wait_event"],
    ),
];

#[derive(Debug)]
struct Columns {
    names: Vec<String>,
    capture: Option<usize>,
    backend_type: Option<usize>,
    max_connections: Option<usize>,
}

impl Columns {
    fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
}

/// A breakdown metric and its label values.
type Breakdown = (&'static str, Vec<(&'static str, String)>);

/// One capture's counts so far.
#[derive(Debug)]
struct Capture {
    ts: String,
    total: u64,
    by: BTreeMap<Breakdown, u64>,
    max_connections: Option<String>,
}

#[derive(Debug, Default)]
pub struct PgActivity {
    rows: Rows,
    columns: Option<Columns>,
    capture: Option<Capture>,
    unplaced: bool,
}

impl Extractor for PgActivity {
    fn open_lines(&self) -> u64 {
        self.rows.open_lines()
    }

    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        self.unplaced = false;
        if !self.rows.is_open() && line.trim().is_empty() {
            // `\watch` may leave a blank line between captures.
            return if self.columns.is_some() {
                Ok(Vec::new())
            } else {
                Err(BLANK)
            };
        }
        if self.columns.is_none() && line.bytes().filter(|b| *b == b'"').count() % 2 == 1 {
            return Err("not a pg_stat_activity header");
        }
        let Some(row) = self.rows.push(line)? else {
            return Ok(Vec::new());
        };
        let cells = split(&row);
        if let Some(columns) = header(&cells) {
            // A repeated header starts the next capture.
            let done = self.flush();
            self.columns = Some(columns);
            return Ok(done);
        }
        let Some(columns) = &self.columns else {
            return Err("not a pg_stat_activity header");
        };
        if cells.len() != columns.names.len() {
            return Err("a pg_stat_activity row with the wrong number of columns");
        }
        let Some(capture) = columns.capture else {
            self.unplaced = true;
            return Ok(Vec::new());
        };
        // The row has a cell per column (checked above).
        let ts = pg_time(cells.get(capture).map_or("", |c| c.trim()));
        if ts.is_empty() {
            return Err("no capture time in the row");
        }
        let done = match &self.capture {
            Some(c) if c.ts != ts => self.flush(),
            _ => Vec::new(),
        };
        self.count(&cells, ts);
        Ok(done)
    }

    fn unplaced(&mut self) -> Option<Skip> {
        std::mem::take(&mut self.unplaced)
            .then_some("pg_stat_activity rows without a capture-time column")
    }

    fn finish(&mut self) -> Vec<Fields<'static>> {
        self.flush()
    }
}

impl PgActivity {
    fn count(&mut self, cells: &[Cow<str>], ts: String) {
        let Some(columns) = &self.columns else {
            return;
        };
        let capture = self.capture.get_or_insert_with(|| Capture {
            ts,
            total: 0,
            by: BTreeMap::new(),
            max_connections: None,
        });
        // `row` checked that there is a cell per column.
        if let Some(c) = columns.max_connections.and_then(|i| cells.get(i)) {
            capture.max_connections = Some(c.trim().to_string());
        }
        let client = columns
            .backend_type
            .and_then(|i| cells.get(i))
            .is_none_or(|c| c.trim() == "client backend");
        if !client {
            return;
        }
        capture.total += 1;
        for (metric, labels) in BREAKDOWNS {
            let mut values = Vec::new();
            for &label in labels {
                let Some(v) = columns.index(label).and_then(|i| cells.get(i)) else {
                    break;
                };
                let v = v.trim();
                let v = match (label, v) {
                    ("client_addr", "") => "local",
                    _ => v,
                };
                if !v.is_empty() {
                    values.push((label, v.to_string()));
                }
            }
            // A breakdown needs its first label (no wait event: not waiting).
            if values
                .first()
                .is_some_and(|(l, _)| labels.first() == Some(l))
            {
                *capture.by.entry((metric, values)).or_insert(0) += 1;
            }
        }
    }

    /// The current capture's records; the capture is done.
    fn flush(&mut self) -> Vec<Fields<'static>> {
        let Some(c) = self.capture.take() else {
            return Vec::new();
        };
        let ts = || Cow::Owned(c.ts.clone());
        let mut out = vec![metric_record(
            ts(),
            Cow::Borrowed("pg_stat_activity_count"),
            Cow::Owned(c.total.to_string()),
            &[],
        )];
        if let Some(max) = c
            .max_connections
            .clone()
            .filter(|m| m.parse::<f64>().is_ok())
        {
            out.push(metric_record(
                ts(),
                Cow::Borrowed("pg_settings_max_connections"),
                Cow::Owned(max),
                &[],
            ));
        }
        for ((metric, labels), n) in &c.by {
            let labels: Vec<(Cow<'static, str>, Cow<'static, str>)> = labels
                .iter()
                .map(|(k, v)| (Cow::Borrowed(*k), Cow::Owned(v.clone())))
                .collect();
            out.push(metric_record(
                ts(),
                Cow::Borrowed(metric),
                Cow::Owned(n.to_string()),
                &labels,
            ));
        }
        out
    }
}

/// A `pg_stat_activity` header: it names `pid` and `state`, and `datname` or `usename`.
fn header(cells: &[Cow<str>]) -> Option<Columns> {
    let names: Vec<String> = cells
        .iter()
        .map(|c| c.trim().to_ascii_lowercase())
        .collect();
    let has = |n: &str| names.iter().any(|c| c == n);
    if !(has("pid") && has("state") && (has("datname") || has("usename"))) {
        return None;
    }
    let find = |n: &str| names.iter().position(|c| c == n);
    Some(Columns {
        capture: CAPTURE_COLUMNS.iter().find_map(|c| find(c)),
        backend_type: find("backend_type"),
        max_connections: find("max_connections"),
        names,
    })
}

/// psql prints `timestamptz` with an hours-only offset (`+00`): make it `+00:00`.
fn pg_time(t: &str) -> String {
    let b = t.as_bytes();
    if matches!(b, [.., d, b'+' | b'-', h1, h2]
        if d.is_ascii_digit() && h1.is_ascii_digit() && h2.is_ascii_digit())
    {
        format!("{t}:00")
    } else {
        t.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::role::Role;

    const HEADER: &str = "captured_at,datname,pid,usename,application_name,client_addr,wait_event_type,wait_event,state,backend_type";

    fn summary(recs: &[Fields<'_>]) -> Vec<String> {
        recs.iter()
            .map(|r| {
                format!(
                    "{} {} = {}",
                    r.get(Role::Ts).unwrap_or(""),
                    r.get(Role::Series).unwrap_or(""),
                    r.get(Role::Value).unwrap_or("")
                )
            })
            .collect()
    }

    #[test]
    fn captures_are_summed_over_their_rows() {
        let mut x = PgActivity::default();
        let lines = [
            HEADER,
            "2026-10-01 07:58:00.004+00,orders,4242,app,orders-api,10.0.1.21,Lock,transactionid,active,client backend",
            "2026-10-01 07:58:00.004+00,orders,4243,app,orders-api,10.0.1.22,Client,ClientRead,idle in transaction,client backend",
            "2026-10-01 07:58:00.004+00,,88,,,,Activity,WalWriterMain,,walwriter",
        ];
        for l in lines {
            assert!(x.line(l).expect("line").is_empty(), "{l}");
        }
        let recs = x
            .line("2026-10-01 07:58:05.010+00,orders,4242,app,orders-api,10.0.1.21,,,active,client backend")
            .expect("next capture");
        assert_eq!(
            summary(&recs),
            vec![
                "2026-10-01 07:58:00.004+00:00 pg_stat_activity_count = 2",
                "2026-10-01 07:58:00.004+00:00 pg_stat_activity_count_by_application{application_name=\"orders-api\"} = 2",
                "2026-10-01 07:58:00.004+00:00 pg_stat_activity_count_by_client{client_addr=\"10.0.1.21\"} = 1",
                "2026-10-01 07:58:00.004+00:00 pg_stat_activity_count_by_client{client_addr=\"10.0.1.22\"} = 1",
                "2026-10-01 07:58:00.004+00:00 pg_stat_activity_count_by_state{state=\"active\"} = 1",
                "2026-10-01 07:58:00.004+00:00 pg_stat_activity_count_by_state{state=\"idle in transaction\"} = 1",
                "2026-10-01 07:58:00.004+00:00 pg_stat_activity_count_by_user{usename=\"app\"} = 2",
                "2026-10-01 07:58:00.004+00:00 pg_stat_activity_count_by_wait_event{wait_event=\"ClientRead\",wait_event_type=\"Client\"} = 1",
                "2026-10-01 07:58:00.004+00:00 pg_stat_activity_count_by_wait_event{wait_event=\"transactionid\",wait_event_type=\"Lock\"} = 1",
            ]
        );
        let last = x.finish();
        assert_eq!(
            summary(&last)[0],
            "2026-10-01 07:58:05.010+00:00 pg_stat_activity_count = 1"
        );
        assert!(x.finish().is_empty());
    }

    #[test]
    fn without_a_capture_column_rows_are_unplaced() {
        let mut x = PgActivity::default();
        x.line("datname,pid,usename,state").expect("header");
        assert!(x.line("orders,4242,app,active").expect("row").is_empty());
        assert!(x.unplaced().is_some());
        assert!(x.finish().is_empty());
    }

    #[test]
    fn other_csv_is_refused() {
        let cases = [
            "Time,web-0,web-1",
            "2026-10-01T07:58:00Z,hikaricp_connections_active,20",
            "level=info msg=hi",
        ];
        for line in cases {
            assert!(PgActivity::default().line(line).is_err(), "{line}");
        }
    }

    #[test]
    fn psql_offsets() {
        assert_eq!(
            pg_time("2026-10-01 07:58:00.004+00"),
            "2026-10-01 07:58:00.004+00:00"
        );
        assert_eq!(
            pg_time("2026-10-01 07:58:00-05"),
            "2026-10-01 07:58:00-05:00"
        );
        assert_eq!(pg_time("2026-10-01T07:58:00Z"), "2026-10-01T07:58:00Z");
    }
}
