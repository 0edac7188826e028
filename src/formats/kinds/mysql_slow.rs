//! MySQL/MariaDB slow query log: a record is a block of `# Key: value`
//! header lines (`# Time:`, `# User@Host:`, `# Query_time:`), then `use
//! db;` and `SET timestamp=N;`, then the statement, which ends at the
//! first line ending in `;`. One log record per statement, at its `SET
//! timestamp` (MySQL writes `# Time:` only when the second changes), with
//! the user, the client and the query time in the message. The server's
//! banner lines at the top of a file are read without a record.
//!
//! In: lines. Out: a log record per statement (`ts`, `user`, `client`, `message`).
//!
//! ```text
//! # Time: 2026-10-01T07:58:06.113204Z
//! # User@Host: api[api] @ app-2 [10.42.3.9]  Id:    41
//! # Query_time: 28.114203  Lock_time: 0.000090 Rows_sent: 1  Rows_examined: 4821093
//! SET timestamp=1790841486;
//! SELECT * FROM order_items WHERE org_id = 17;
//!   -> ts 1790841486, user api, client 10.42.3.9,
//!      message "query took 28.114203 s (rows examined 4821093): SELECT * FROM order_items WHERE org_id = 17;"
//! ```

use std::borrow::Cow;

use super::{Extractor, Skip, BLANK};
use crate::formats::compile::Fields;
use crate::formats::role::Role;

/// A statement longer than this many lines is cut into a record of its own.
const MAX_STATEMENT_LINES: usize = 500;

#[derive(Debug, Default)]
struct Entry {
    time: Option<String>,
    stamp: Option<String>,
    user: Option<String>,
    client: Option<String>,
    query_time: Option<String>,
    rows_examined: Option<String>,
    statement: Vec<String>,
}

#[derive(Debug, Default)]
pub struct SlowLog {
    /// The header of the entry being read, once one was seen.
    entry: Option<Entry>,
    /// The time of the entry before: an entry without `# Time:` has the same second.
    last_time: Option<String>,
}

impl Extractor for SlowLog {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        let t = line.trim_end();
        if t.trim().is_empty() {
            // Inside a statement a blank line is part of it; elsewhere it is nothing.
            return if self.entry.as_ref().is_some_and(|e| !e.statement.is_empty()) {
                Ok(Vec::new())
            } else {
                Err(BLANK)
            };
        }
        if is_banner(t) {
            return Ok(Vec::new());
        }
        if let Some(header) = t.strip_prefix("# ").filter(|h| is_header(h)) {
            let starts = header.starts_with("Time:") || header.starts_with("User@Host:");
            if !starts && self.entry.is_none() {
                return Err("a `# Key: value` line before any `# Time:` or `# User@Host:` header");
            }
            return Ok(self.header(header));
        }
        let Some(entry) = self.entry.as_mut() else {
            return Err("a statement before any `# Time:` or `# User@Host:` header");
        };
        if entry.statement.is_empty() {
            if let Some(n) = t
                .strip_prefix("SET timestamp=")
                .and_then(|r| r.strip_suffix(';'))
            {
                entry.stamp = Some(n.to_string());
                return Ok(Vec::new());
            }
            // `use orders;` before the statement says which schema.
            if t.starts_with("use ") && t.ends_with(';') && t.split_whitespace().count() == 2 {
                return Ok(Vec::new());
            }
        }
        entry.statement.push(t.to_string());
        if t.ends_with(';') || entry.statement.len() >= MAX_STATEMENT_LINES {
            return Ok(self.take().into_iter().collect());
        }
        Ok(Vec::new())
    }

    fn finish(&mut self) -> Vec<Fields<'static>> {
        self.take().into_iter().collect()
    }
}

impl SlowLog {
    /// One `# Key: value` line; a `# Time:` or `# User@Host:` after a
    /// statement starts the next entry.
    fn header(&mut self, header: &str) -> Vec<Fields<'static>> {
        let mut out = Vec::new();
        let starts = header.starts_with("Time:") || header.starts_with("User@Host:");
        if starts
            && self.entry.as_ref().is_some_and(|e| {
                !e.statement.is_empty() || (header.starts_with("Time:") && e.user.is_some())
            })
        {
            out.extend(self.take());
        }
        let entry = self.entry.get_or_insert_with(Entry::default);
        if let Some(time) = header.strip_prefix("Time:") {
            entry.time = Some(time.trim().to_string());
        } else if let Some(who) = header.strip_prefix("User@Host:") {
            // `api[api] @ app-2 [10.42.3.9]  Id:    41`
            let who = who.split("Id:").next().unwrap_or(who).trim();
            let (user, host) = who.split_once(" @ ").unwrap_or((who, ""));
            entry.user = Some(user.split('[').next().unwrap_or(user).trim().to_string());
            let ip = host
                .split_once('[')
                .and_then(|(_, r)| r.split_once(']'))
                .map(|(ip, _)| ip.trim())
                .filter(|ip| !ip.is_empty());
            let name = host.split('[').next().unwrap_or("").trim();
            entry.client = ip
                .or((!name.is_empty()).then_some(name))
                .map(str::to_string);
        } else {
            for (k, v) in pairs(header) {
                match k {
                    "Query_time" => entry.query_time = Some(v.to_string()),
                    "Rows_examined" => entry.rows_examined = Some(v.to_string()),
                    _ => {}
                }
            }
        }
        out
    }

    /// The finished record of the entry being read, if it has a statement.
    fn take(&mut self) -> Option<Fields<'static>> {
        let e = self.entry.take()?;
        if let Some(t) = &e.time {
            self.last_time = Some(t.clone());
        }
        if e.statement.is_empty() {
            return None;
        }
        let mut f = Fields::default();
        let ts = e.stamp.or(e.time).or_else(|| self.last_time.clone());
        if let Some(ts) = ts {
            f.set(Role::Ts, Cow::Owned(ts));
        }
        let took = match (&e.query_time, &e.rows_examined) {
            (Some(q), Some(r)) => format!("query took {q} s (rows examined {r}): "),
            (Some(q), None) => format!("query took {q} s: "),
            _ => String::new(),
        };
        f.set(
            Role::Message,
            Cow::Owned(format!("{took}{}", e.statement.join("\n"))),
        );
        if let Some(u) = e.user {
            f.set(Role::User, Cow::Owned(u));
        }
        if let Some(c) = e.client {
            f.set(Role::Client, Cow::Owned(c));
        }
        Some(f)
    }
}

/// `Query_time: 0.011853  Lock_time: 0.011542  Rows_sent: 268` -> pairs.
fn pairs(header: &str) -> impl Iterator<Item = (&str, &str)> {
    let words: Vec<&str> = header.split_whitespace().collect();
    let mut out = Vec::new();
    for w in words.windows(2) {
        if let [key, value] = w {
            if let Some(k) = key.strip_suffix(':') {
                out.push((k, *value));
            }
        }
    }
    out.into_iter()
}

/// `Query_time: 0.01  Lock_time: 0.0`: a key without spaces and a colon
/// (`administrator command: Quit;` is a statement; Prometheus's `HELP x` no header).
fn is_header(h: &str) -> bool {
    let key_len = h
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '@'))
        .unwrap_or(h.len());
    key_len > 0 && (h[key_len..].starts_with(": ") || &h[key_len..] == ":")
}

/// The lines mysqld writes when it opens the log file.
fn is_banner(t: &str) -> bool {
    (t.contains(", Version: ") && t.ends_with("started with:"))
        || (t.starts_with("Tcp port: ") && t.contains("Unix socket: "))
        || t.split_whitespace()
            .eq(["Time", "Id", "Command", "Argument"])
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str =
        "/usr/sbin/mysqld, Version: 8.0.39 (MySQL Community Server - GPL). started with:
Tcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock
Time                 Id Command    Argument
# Time: 2026-10-01T07:58:06.113204Z
# User@Host: api[api] @ app-2 [10.42.3.9]  Id:    41
# Query_time: 28.114203  Lock_time: 0.000090 Rows_sent: 1  Rows_examined: 4821093
use orders;
SET timestamp=1790841486;
SELECT *
  FROM order_items WHERE org_id = 17;
# User@Host: web[web] @ localhost []  Id:    42
# Query_time: 2.5  Lock_time: 0.0 Rows_sent: 0  Rows_examined: 10
SET timestamp=1790841487;
UPDATE orders SET state = 'paid' WHERE id = 9;
# Time: 2026-10-01T07:58:09.000000Z
# User@Host: api[api] @  [10.42.3.9]  Id:    43
# Query_time: 1.0  Lock_time: 0.0 Rows_sent: 0  Rows_examined: 1
SET timestamp=1790841489;
# administrator command: Quit;";

    #[test]
    fn one_record_per_statement() {
        let mut x = SlowLog::default();
        let mut got = Vec::new();
        for l in LOG.lines() {
            for f in x.line(l).unwrap_or_else(|e| panic!("{l}: {e}")) {
                got.push(
                    [Role::Ts, Role::User, Role::Client, Role::Message]
                        .map(|r| f.get(r).unwrap_or("-").to_string())
                        .join(" | "),
                );
            }
        }
        assert_eq!(
            got,
            [
                "1790841486 | api | 10.42.3.9 | query took 28.114203 s (rows examined 4821093): SELECT *\n  FROM order_items WHERE org_id = 17;",
                "1790841487 | web | localhost | query took 2.5 s (rows examined 10): UPDATE orders SET state = 'paid' WHERE id = 9;",
                "1790841489 | api | 10.42.3.9 | query took 1.0 s (rows examined 1): # administrator command: Quit;",
            ]
        );
    }

    #[test]
    fn sql_without_headers_is_not_a_slow_log() {
        let mut x = SlowLog::default();
        assert!(x.line("# HELP http_requests_total Requests.").is_err());
        assert!(x.line("# Query_time: 1.0  Lock_time: 0.0").is_err());
        assert!(x.line("SELECT 1;").is_err());
        assert!(x.line("INSERT INTO t VALUES (1);").is_err());
    }
}
