//! PostgreSQL csvlog (`log_destination = 'csvlog'`): RFC 4180 rows in a
//! fixed column order without a header, 23 columns up to PostgreSQL 12,
//! `backend_type` from 13, `leader_pid` and `query_id` from 14 -> one log
//! record per row. A quoted message may span lines; its lines are joined
//! (the first ones are parsed without a record, the last gives it).
//!
//! Out: `ts` (log_time), `user`, `level` (error_severity), `message`,
//! `client` (connection_from), and labels `database`, `pid`, `sql_state`,
//! `command_tag`, `application_name`, `backend_type` where present.
//!
//! ```text
//! 2026-10-01 07:58:06.113 UTC,"app","orders",4242,"10.0.1.21:51234",...,FATAL,53300,"sorry, too many clients already",...
//!   -> ts "2026-10-01 07:58:06.113 UTC", level FATAL, message "sorry, too many clients already"
//! ```

use std::borrow::Cow;

use super::csv_rows::{split, Rows};
use super::{Extractor, Skip, BLANK};
use crate::formats::compile::Fields;
use crate::formats::role::Role;

const LOG_TIME: usize = 0;
const USER: usize = 1;
const DATABASE: usize = 2;
const PID: usize = 3;
const CONNECTION_FROM: usize = 4;
const COMMAND_TAG: usize = 7;
const SEVERITY: usize = 11;
const SQL_STATE: usize = 12;
const MESSAGE: usize = 13;
const APPLICATION_NAME: usize = 22;
const BACKEND_TYPE: usize = 23;

const SEVERITIES: [&str; 14] = [
    "DEBUG5",
    "DEBUG4",
    "DEBUG3",
    "DEBUG2",
    "DEBUG1",
    "DEBUG",
    "INFO",
    "NOTICE",
    "WARNING",
    "ERROR",
    "LOG",
    "FATAL",
    "PANIC",
    "STATEMENT",
];

#[derive(Debug, Default)]
pub struct Csvlog {
    rows: Rows,
}

impl Extractor for Csvlog {
    fn open_lines(&self) -> u64 {
        self.rows.open_lines()
    }

    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        if !self.rows.is_open() {
            if line.trim().is_empty() {
                return Err(BLANK);
            }
            // A row starts with its log time: anything else is not csvlog,
            // and must not open a quoted field that swallows the next lines.
            if !starts_with_time(line.trim_start_matches('"')) {
                return Err("not a csvlog row: no log time first");
            }
        }
        match self.rows.push(line)? {
            None => Ok(Vec::new()),
            Some(Cow::Borrowed(row)) => record(row).map(|r| vec![r]),
            Some(Cow::Owned(row)) => record(&row).map(|r| vec![r.into_owned()]),
        }
    }
}

fn record(row: &str) -> Result<Fields<'_>, Skip> {
    let cells = split(row);
    if !(22..=26).contains(&cells.len()) {
        return Err("not a csvlog row: wrong number of columns");
    }
    // Every column index below is under 22, so the `get`s find a cell.
    if !cells
        .get(SEVERITY)
        .is_some_and(|s| SEVERITIES.contains(&s.as_ref()))
    {
        return Err("not a csvlog row: unknown severity");
    }
    if !cells
        .get(PID)
        .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err("not a csvlog row: process id is not a number");
    }
    let mut cells: Vec<Option<Cow<str>>> = cells.into_iter().map(Some).collect();
    let mut take = |i: usize| {
        cells
            .get_mut(i)
            .and_then(Option::take)
            .filter(|c| !c.is_empty())
    };
    let mut f = Fields::default();
    let ts = take(LOG_TIME).ok_or("not a csvlog row: no log time")?;
    f.set(Role::Ts, ts);
    for (i, role) in [
        (USER, Role::User),
        (SEVERITY, Role::Level),
        (MESSAGE, Role::Message),
        (CONNECTION_FROM, Role::Client),
    ] {
        if let Some(v) = take(i) {
            f.set(role, v);
        }
    }
    for (i, label) in [
        (DATABASE, "database"),
        (PID, "pid"),
        (SQL_STATE, "sql_state"),
        (COMMAND_TAG, "command_tag"),
        (APPLICATION_NAME, "application_name"),
        (BACKEND_TYPE, "backend_type"),
    ] {
        if let Some(v) = take(i) {
            f.set_label(label, v);
        }
    }
    Ok(f)
}

/// `2026-10-01 07:58:06`.
fn starts_with_time(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() >= 19
        && matches!(b, [y0, y1, y2, y3, b'-', _, _, b'-', _, _, b' ', _, _, b':', _, _, b':', ..]
            if [y0, y1, y2, y3].iter().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PG14: &str = "2026-10-01 07:58:06.113 UTC,\"app\",\"orders\",4242,\"10.0.1.21:51234\",6718a9e2.1092,1,\"authentication\",2026-10-01 07:58:06 UTC,,0,FATAL,53300,\"sorry, too many clients already\",,,,,,,,,\"\",\"client backend\",,0";
    const PG12: &str = "2026-10-01 07:58:07.001 UTC,\"app\",\"orders\",4250,\"10.0.1.22:40112\",6718a9e3.109a,2,\"SELECT\",2026-10-01 07:57:01 UTC,5/101,0,LOG,00000,\"duration: 30001.4 ms  statement: SELECT 1\",,,,,,,,,\"orders-api\"";

    #[test]
    fn rows() {
        // (name, line, (ts, level, message, database label))
        type Case = (&'static str, &'static str, Result<[&'static str; 4], Skip>);
        let cases: [Case; 4] = [
            (
                "pg14",
                PG14,
                Ok([
                    "2026-10-01 07:58:06.113 UTC",
                    "FATAL",
                    "sorry, too many clients already",
                    "orders",
                ]),
            ),
            (
                "pg12",
                PG12,
                Ok([
                    "2026-10-01 07:58:07.001 UTC",
                    "LOG",
                    "duration: 30001.4 ms  statement: SELECT 1",
                    "orders",
                ]),
            ),
            (
                "stderr log",
                "2026-10-01 07:58:06.113 UTC [4242] FATAL:  sorry, too many clients already",
                Err("not a csvlog row: wrong number of columns"),
            ),
            (
                "metrics csv",
                "2026-10-01T07:58:00Z,hikaricp_connections_active,20",
                Err("not a csvlog row: no log time first"),
            ),
        ];
        for (name, line, want) in cases {
            let got = Csvlog::default().line(line).map(|r| {
                [Role::Ts, Role::Level, Role::Message]
                    .map(|role| r[0].get(role).unwrap_or("").to_string())
                    .into_iter()
                    .chain([r[0].label("database").unwrap_or("").to_string()])
                    .collect::<Vec<_>>()
            });
            let want = want.map(|w| w.map(str::to_string).to_vec());
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn a_quoted_message_spans_lines() {
        let mut x = Csvlog::default();
        let first = "2026-10-01 07:58:08.000 UTC,\"app\",\"orders\",4251,\"10.0.1.23:40113\",6718a9e3.109b,3,\"UPDATE\",2026-10-01 07:57:01 UTC,5/102,0,ERROR,40P01,\"deadlock detected\",\"Process 4251 waits for ShareLock;";
        assert!(x.line(first).expect("open").is_empty());
        assert!(x.line("").expect("blank inside quotes").is_empty());
        let recs = x
            .line("blocked by process 4252.\",,,,,\"UPDATE orders SET state = 'paid'\",,,\"orders-api\",\"client backend\",,0")
            .expect("row");
        assert_eq!(recs[0].get(Role::Message), Some("deadlock detected"));
        assert_eq!(recs[0].label("application_name"), Some("orders-api"));
    }
}
