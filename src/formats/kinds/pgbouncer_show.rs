//! PgBouncer admin console tables as psql prints them (`SHOW POOLS;`,
//! `SHOW STATS;`, `SHOW DATABASES;`, `SHOW USERS;`, also under `\watch`)
//! -> one metric record per numeric cell of each row.
//!
//! Lines: the psql prompt with the command, a capture-time line (see
//! `capture.rs`: a `\watch` title, `-- captured at ...`, a `date` line), the
//! header (`database | user | cl_active | ...`), the `---+---` rule, rows,
//! the `(N rows)` footer and blank lines. Cells are split on `|`, not by
//! position: hand-edited tables lose their alignment. The metric is the
//! column as PgBouncer names it (`cl_waiting`, `sv_active`,
//! `total_xact_count`; `metric-roles.json` maps the pool ones); text cells
//! (`database`, `user`, `pool_mode`) are labels, and the pool
//! (`database/user`) is the instance.
//!
//! A table is a snapshot without a time of its own: its rows are placed at
//! the last capture time seen above them. Without one they are parsed and
//! counted as unplaced.
//!
//! ```text
//! Thu 01 Oct 2026 07:58:00 AM UTC (every 5s)
//!  database |   user   | cl_active | cl_waiting | sv_active | ...
//! ----------+----------+-----------+------------+-----------+
//!  orders   | app      |       412 |        388 |        80 | ...
//!   -> cl_active 412, cl_waiting 388, sv_active 80 at 07:58:00Z, instance orders/app
//! ```

use std::borrow::Cow;

use super::capture::capture_time;
use super::{metric_record, Extractor, Skip};
use crate::formats::compile::Fields;
use crate::formats::role::Role;

/// Columns that only PgBouncer's SHOW POOLS / SHOW STATS tables have.
const MARKERS: [&str; 8] = [
    "cl_active",
    "cl_waiting",
    "sv_active",
    "sv_idle",
    "total_xact_count",
    "total_query_count",
    "total_requests",
    "avg_query_time",
];

/// Text columns (and a port): labels, never samples.
const LABEL_COLUMNS: [&str; 7] = [
    "database",
    "user",
    "pool_mode",
    "force_user",
    "name",
    "host",
    "port",
];

/// Whether a row of cells is the header of a PgBouncer table: SHOW POOLS
/// and SHOW STATS (`database` and one of their columns), SHOW DATABASES
/// (`name host port database ... pool_size`), SHOW USERS (`name` first,
/// `pool_mode`, no `host`).
fn is_header(cells: &[&str]) -> bool {
    let has = |c: &str| cells.contains(&c);
    (has("database") && cells.iter().any(|c| MARKERS.contains(c)))
        || (["name", "host", "port", "database", "pool_size"]
            .iter()
            .all(|c| has(c)))
        || (cells.first() == Some(&"name") && has("pool_mode") && !has("host"))
}

#[derive(Debug, Default)]
pub struct Show {
    columns: Option<Vec<String>>,
    ts: Option<String>,
    unplaced: bool,
}

impl Extractor for Show {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        self.unplaced = false;
        let t = line.trim();
        let table = self.columns.is_some();
        if t.is_empty() || is_prompt(t) || (table && (is_rule(t) || is_footer(t))) {
            return Ok(Vec::new());
        }
        if let Some(ts) = capture_time(t) {
            self.ts = Some(ts);
            return Ok(Vec::new());
        }
        let cells: Vec<&str> = t.split('|').map(str::trim).collect();
        if is_header(&cells) {
            self.columns = Some(cells.iter().map(|c| c.to_string()).collect());
            return Ok(Vec::new());
        }
        let columns = self
            .columns
            .as_ref()
            .ok_or("not a PgBouncer SHOW table: no header yet")?;
        if cells.len() != columns.len() {
            return Err("a PgBouncer table row with the wrong number of cells");
        }
        let Some(ts) = &self.ts else {
            self.unplaced = true;
            return Ok(Vec::new());
        };
        let mut labels: Vec<(Cow<'a, str>, Cow<'a, str>)> = Vec::new();
        let mut values = Vec::new();
        for (name, cell) in columns.iter().zip(&cells) {
            let numeric = cell.parse::<f64>().is_ok();
            if LABEL_COLUMNS.contains(&name.as_str()) || !numeric {
                if !cell.is_empty() {
                    labels.push((Cow::Owned(name.clone()), Cow::Borrowed(*cell)));
                }
            } else {
                values.push((name, *cell));
            }
        }
        // The pool; SHOW DATABASES and SHOW USERS name their row in `name`.
        let pool = match (label(&labels, "database"), label(&labels, "user")) {
            (Some(d), Some(u)) => Some(format!("{d}/{u}")),
            (d, _) => label(&labels, "name").or(d).map(str::to_string),
        };
        // pool_mode describes the pool; it is kept as a label but not in the series key.
        let key_labels: Vec<(Cow<str>, Cow<str>)> = labels
            .iter()
            .filter(|(k, _)| k != "pool_mode")
            .cloned()
            .collect();
        let mut out = Vec::with_capacity(values.len());
        for (name, value) in values {
            let mut f = metric_record(
                Cow::Owned(ts.clone()),
                Cow::Owned(name.clone()),
                Cow::Borrowed(value),
                &key_labels,
            );
            if let Some(mode) = label(&labels, "pool_mode") {
                f.set_label("pool_mode", mode.to_string());
            }
            if let Some(p) = &pool {
                f.set(Role::Instance, Cow::Owned(p.clone()));
            }
            out.push(f);
        }
        Ok(out)
    }

    fn unplaced(&mut self) -> Option<Skip> {
        std::mem::take(&mut self.unplaced).then_some(
            "PgBouncer table without a capture time (add a \\watch title or a `-- captured at` line)",
        )
    }
}

fn label<'l>(labels: &'l [(Cow<str>, Cow<str>)], name: &str) -> Option<&'l str> {
    labels
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_ref())
}

/// `------+------`.
fn is_rule(t: &str) -> bool {
    t.contains('-') && t.bytes().all(|b| b == b'-' || b == b'+')
}

/// `(3 rows)`, `(1 row)`.
fn is_footer(t: &str) -> bool {
    t.strip_prefix('(')
        .and_then(|r| r.strip_suffix(" rows)").or_else(|| r.strip_suffix(" row)")))
        .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
}

/// `pgbouncer=# show pools;` (the prompt psql echoes with the command).
fn is_prompt(t: &str) -> bool {
    let Some((_, command)) = t.split_once("=#").or_else(|| t.split_once("=>")) else {
        return false;
    };
    let c = command.trim().to_ascii_lowercase();
    c.starts_with("show ") || c.starts_with("\\watch")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: [&str; 6] = [
        "pgbouncer=# show pools;",
        " database |   user    | cl_active | cl_waiting | sv_active | sv_idle | maxwait | maxwait_us | pool_mode",
        "----------+-----------+-----------+------------+-----------+---------+---------+------------+-------------",
        " orders   | app       |       412 |        388 |        80 |       0 |       2 |     104311 | transaction",
        " pgbouncer| pgbouncer |         1 |          0 |         0 |       0 |       0 |          0 | statement",
        "(2 rows)",
    ];

    #[test]
    fn a_table_without_a_capture_time_is_unplaced() {
        let mut x = Show::default();
        let mut unplaced = 0;
        for l in TABLE {
            assert!(x.line(l).expect("understood").is_empty(), "{l}");
            unplaced += usize::from(x.unplaced().is_some());
        }
        assert_eq!(unplaced, 2);
    }

    #[test]
    fn rows_under_a_watch_title_are_samples() {
        let mut x = Show::default();
        x.line("Thu 01 Oct 2026 07:58:00 AM UTC (every 5s)")
            .expect("title");
        for l in &TABLE[..3] {
            x.line(l).expect("header");
        }
        let recs = x.line(TABLE[3]).expect("row");
        let got: Vec<(String, String)> = recs
            .iter()
            .map(|r| {
                (
                    r.get(Role::Metric).unwrap_or("").to_string(),
                    r.get(Role::Value).unwrap_or("").to_string(),
                )
            })
            .collect();
        assert_eq!(
            got[..3].to_vec(),
            [
                ("cl_active", "412"),
                ("cl_waiting", "388"),
                ("sv_active", "80")
            ]
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .to_vec()
        );
        assert_eq!(recs.len(), 6);
        assert_eq!(recs[1].get(Role::Ts), Some("2026-10-01T07:58:00Z"));
        assert_eq!(recs[1].get(Role::Instance), Some("orders/app"));
        assert_eq!(
            recs[1].get(Role::Series),
            Some("cl_waiting{database=\"orders\",user=\"app\"}")
        );
        assert_eq!(recs[1].label("pool_mode"), Some("transaction"));
    }

    /// Regression: SHOW DATABASES and SHOW USERS tables were refused.
    #[test]
    fn show_databases_and_show_users_tables_are_read() {
        let mut x = Show::default();
        let lines = [
            "-- captured at 2026-10-01T07:58:00Z",
            "pgbouncer=# show databases;",
            "   name    |   host    | port | database  | force_user | pool_size | min_pool_size | reserve_pool | server_lifetime | pool_mode | max_connections | current_connections | paused | disabled",
            "-----------+-----------+------+-----------+------------+-----------+---------------+--------------+-----------------+-----------+-----------------+---------------------+--------+----------",
            " orders    | 10.0.2.15 | 5432 | orders    |            |        80 |             0 |            0 |            3600 |           |               0 |                  80 |      0 |        0",
            "(1 row)",
            "",
            "pgbouncer=# show users;",
            "    name    | pool_mode",
            "------------+-----------",
            " orders_app |",
            " pgbouncer  | statement",
            "(2 rows)",
        ];
        let mut got = Vec::new();
        for l in lines {
            for r in x.line(l).unwrap_or_else(|e| panic!("{l}: {e}")) {
                got.push(format!(
                    "{} {} {}",
                    r.get(Role::Metric).unwrap_or("-"),
                    r.get(Role::Value).unwrap_or("-"),
                    r.get(Role::Instance).unwrap_or("-")
                ));
            }
        }
        assert!(
            got.contains(&"current_connections 80 orders".to_string()),
            "{got:?}"
        );
        assert!(got.iter().all(|g| !g.starts_with("port ")), "{got:?}");
        assert_eq!(got.len(), 8, "{got:?}");
    }

    #[test]
    fn other_lines_are_refused() {
        let cases = [
            " orders | app | 1",
            "http_requests_total 1027",
            "a | b | c",
            "level=info msg=hi",
            "---------+--------",
            "(3 rows)",
        ];
        for line in cases {
            assert!(Show::default().line(line).is_err(), "{line}");
        }
    }
}
