//! The `log_line_prefix` of a PostgreSQL log nobody described, inferred
//! from one of its lines: the text before `LEVEL:` is walked left to right
//! and each value in it is given the escape whose shape and context fit
//! (a time stamp at the start, `user=` before a value, `@` between user and
//! database, `[pid-line]`, a session id's `hex.hex`). The guess is kept only
//! if its compiled pattern reads the line back (`pg_prefix.rs`); the reader
//! (`kinds/postgres_log.rs`) guesses again from a line the guess misses
//! (a background process stopping at `%q`).
//!
//! In: one line. Out: a `log_line_prefix` that writes lines of its shape.
//!
//! ```text
//! 2026-10-01 07:58:06.113 UTC [4411] app=billing,user=api ERROR:  boom
//!   -> "%m [%p] app=%a,user=%u "
//! ```

use regex::Regex;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::pg_prefix::{compile, table};

/// Where the record starts: the first level word followed by a colon, not
/// inside a word.
fn level_at(line: &str) -> Option<usize> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    let re = RE
        .get_or_init(|| {
            Regex::new(r"(?:^|[^A-Za-z0-9_])(LOG|ERROR|FATAL|PANIC|WARNING|NOTICE|INFO|DEBUG[1-5]?|DETAIL|HINT|CONTEXT|STATEMENT|QUERY|LOCATION):\s")
                .ok()
        })
        .as_ref()?;
    re.captures(line)?.get(1).map(|m| m.start())
}

/// Each escape's shape, anchored, compiled once.
fn shapes() -> &'static BTreeMap<char, Regex> {
    static S: OnceLock<BTreeMap<char, Regex>> = OnceLock::new();
    S.get_or_init(|| {
        table()
            .map(|t| {
                t.escapes
                    .iter()
                    .filter_map(|(l, e)| Some((*l, Regex::new(&format!("^(?:{})", e.shape)).ok()?)))
                    .collect()
            })
            .unwrap_or_default()
    })
}

/// Characters a value is made of; the others are literal text between values.
fn value_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '/' | '+' | '~' | '$' | '#' | '&' | '*')
}

/// Which escapes were given, so a second number or word gets the next one.
#[derive(Default)]
struct Used(Vec<char>);

impl Used {
    fn has(&self, c: char) -> bool {
        self.0.contains(&c)
    }

    fn take(&mut self, c: char) -> char {
        self.0.push(c);
        c
    }

    /// The first of `order` not given yet.
    fn next_of(&mut self, order: &[char]) -> Option<char> {
        let c = order.iter().copied().find(|c| !self.has(*c))?;
        Some(self.take(c))
    }
}

/// Guess the prefix that wrote `line`; `None` when the line has no level
/// word, no time stamp at its start, or a value no escape fits.
pub fn infer(line: &str) -> Option<String> {
    let table = table().ok()?;
    let end = level_at(line)?;
    let text = &line[..end];
    let shape = |letter: char| shapes().get(&letter);
    let mut out = String::new();
    let mut used = Used::default();
    let mut pos = 0;
    // A time stamp first: with milliseconds, without, or as an epoch.
    let stamps = ['m', 't', 'n'];
    let (letter, len) = stamps.iter().find_map(|&l| {
        let m = shape(l)?.find(text)?;
        Some((l, m.end()))
    })?;
    out.push('%');
    out.push(used.take(letter));
    pos += len;
    while pos < text.len() {
        let rest = &text[pos..];
        let c = rest.chars().next()?;
        // A second time stamp is the session's start.
        if !value_char(c) && !rest.starts_with("[unknown]") && !rest.starts_with("[local]") {
            if c == '%' {
                out.push_str("%%");
            } else {
                out.push(c);
            }
            pos += c.len_utf8();
            continue;
        }
        if let Some(m) = shape('s').and_then(|re| re.find(rest)) {
            if m.len() > 10 {
                out.push_str("%s");
                pos += m.end();
                continue;
            }
        }
        let len = if rest.starts_with("[unknown]") {
            "[unknown]".len()
        } else if rest.starts_with("[local]") {
            "[local]".len()
        } else {
            rest.find(|c: char| !value_char(c)).unwrap_or(rest.len())
        };
        let mut value = &rest[..len];
        let after = &rest[len..];
        let before = &text[..pos];
        // `host(port)`: the remote host with its port.
        let port = after
            .strip_prefix('(')
            .and_then(|a| {
                a.find(')')
                    .filter(|&k| k > 0 && a[..k].bytes().all(|b| b.is_ascii_digit()))
            })
            .map(|k| k + 2);
        // A key before `=` is literal text (`user=`, `sql_error_code = `).
        if after.trim_start().starts_with('=') {
            out.push_str(value);
            pos += len;
            continue;
        }
        let escape = if let Some(p) = port {
            value = &rest[..len + p];
            used.take('r')
        } else if let Some(key) = key_before(before) {
            let l = *table.keys.get(&key.to_ascii_lowercase())?;
            used.take(l)
        } else if is_sqlstate(value) {
            used.take('e')
        } else if value.bytes().all(|b| b.is_ascii_digit()) {
            used.next_of(&['p', 'l', 'x'])?
        } else if let Some((a, b)) = value.split_once('-').filter(|(a, b)| {
            !a.is_empty()
                && a.bytes().all(|x| x.is_ascii_digit())
                && b.bytes().all(|x| x.is_ascii_digit())
                && !b.is_empty()
        }) {
            // `[pid-line]`, or `[line-1]` once the pid is known (syslog's and
            // Cloud SQL's `[%l-1]`).
            let _ = a;
            if used.has('p') {
                out.push_str(&format!("%{}-{b}", used.take('l')));
            } else {
                out.push_str(&format!("%{}-%{}", used.take('p'), used.take('l')));
            }
            pos += len;
            continue;
        } else if after.starts_with('@') {
            used.take('u')
        } else if before.ends_with('@') {
            used.take('d')
        } else if is_session_id(value) {
            used.take('c')
        } else if is_vxid(value) {
            used.take('v')
        } else if is_address(value) {
            used.take('h')
        } else {
            used.next_of(&['u', 'd', 'a'])?
        };
        out.push('%');
        out.push(escape);
        pos += value.len();
    }
    // The guess must read the line it was made from.
    let re = Regex::new(&compile(&out).ok()?).ok()?;
    re.is_match(line).then_some(out)
}

/// `user` of `..,user=` (or `user = `), when the text before a value ends so.
fn key_before(before: &str) -> Option<&str> {
    let b = before.trim_end().strip_suffix('=')?.trim_end();
    // Past the last character that is not a key's, whatever its width.
    let start = b
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let key = &b[start..];
    (!key.is_empty()).then_some(key)
}

/// `%c`: the process start time and pid in hex, `64e3a1f0.2b3c`.
fn is_session_id(v: &str) -> bool {
    v.split_once('.').is_some_and(|(a, b)| {
        !a.is_empty()
            && !b.is_empty()
            && (a.len() + b.len()) >= 6
            && (a.bytes().chain(b.bytes()))
                .all(|x| x.is_ascii_hexdigit() && !x.is_ascii_uppercase())
            && a.bytes().any(|x| x.is_ascii_alphabetic())
    })
}

/// `%e`: five digits or capitals, with a capital or a leading zero (an
/// all-digit value otherwise reads as a pid: `00000` cannot be one).
fn is_sqlstate(v: &str) -> bool {
    v.len() == 5
        && v.bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
        && v.bytes().any(|b| b.is_ascii_digit())
        && (v.starts_with('0') || v.bytes().any(|b| b.is_ascii_uppercase()))
}

/// `%v`: backend id and local transaction, `3/1234`.
fn is_vxid(v: &str) -> bool {
    v.split_once('/').is_some_and(|(a, b)| {
        !a.is_empty() && !b.is_empty() && a.bytes().chain(b.bytes()).all(|x| x.is_ascii_digit())
    })
}

/// An IPv4 address, or `[local]` for a Unix socket.
fn is_address(v: &str) -> bool {
    v == "[local]"
        || (v.split('.').count() == 4
            && v.split('.')
                .all(|p| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `pipeline` fuzz target: a key after a character wider
    /// than a byte (invalid UTF-8 read lossily) was sliced inside it.
    #[test]
    fn a_key_after_a_wide_character_is_read_whole() {
        let line = String::from_utf8_lossy(
            b"2024-06-07 10:32:02 UTC [66057]: user=relation_id_6,db=maas\xfe\xff\xff\xffpp=[unknown],client=10.1.160.44,line=1 FATAL:  remaining connection slots are reserved for non-replication superuser connections",
        );
        let _ = infer(&line);
        assert_eq!(key_before("db=maas\u{FFFD}pp="), Some("pp"));
        assert_eq!(key_before("\u{e9}user = "), Some("user"));
    }

    #[test]
    fn prefixes_are_inferred_from_a_line() {
        let cases = [
            (
                "stock",
                "2025-08-13 01:45:01.123 PDT [12345] LOG:  starting PostgreSQL 15.4",
                "%m [%p] ",
            ),
            (
                "Debian",
                "2026-10-01 07:58:06 UTC [4411-1] api@orders FATAL:  sorry, too many clients already",
                "%t [%p-%l] %u@%d ",
            ),
            (
                "keys in any order",
                "2026-10-01 07:58:06.113 UTC [4411] app=billing,user=api,client=10.0.0.7 ERROR:  boom",
                "%m [%p] app=%a,user=%u,client=%h ",
            ),
            (
                "RDS",
                "2026-10-01 07:58:08 UTC:10.42.3.9(50122):api@orders:[4413]:LOG:  duration: 1 ms",
                "%t:%r:%u@%d:[%p]:",
            ),
            (
                "Cloud SQL",
                "2026-10-01 07:58:10.500 UTC [4420]: [3-1] db=orders,user=api LOG:  connection authorized",
                "%m [%p]: [%l-1] db=%d,user=%u ",
            ),
            (
                "session id and sqlstate",
                "1790841490.113 64e3a1f0.2b3c 57P03 [unknown]@[unknown] FATAL:  the database system is starting up",
                "%n %c %e %u@%d ",
            ),
        ];
        for (name, line, want) in cases {
            assert_eq!(infer(line).as_deref(), Some(want), "{name}");
        }
    }

    #[test]
    fn lines_without_a_prefix_shape_are_not_guessed() {
        for line in [
            "LOG:  no prefix at all",
            "Oct  1 07:58:09 db-1 postgres[4414]: [3-1] LOG:  syslog",
            "2026-10-01 07:58:06 UTC [4411] just a message",
            "",
        ] {
            assert_eq!(infer(line), None, "{line}");
        }
    }
}
