//! PostgreSQL `log_line_prefix` compiled to a line pattern, the way nginx's
//! `log_format` is compiled in `template.rs`: a user pastes the prefix their
//! server runs with, and each escape becomes a field of the shape that
//! escape writes. The escape table (role and shape of `%t`, `%p`, `%u`, ...)
//! and the record after the prefix (`LEVEL:  message`) are data, in the
//! `postgres` section of `parsers/log-format-variables.json`.
//!
//! A prefix is compiled to a regex, not to literal cuts like nginx's: `%q`
//! ends the prefix early for background processes (everything after it is
//! optional), and values may be empty (`%u` of the checkpointer), which a
//! cut at the next literal cannot express.
//!
//! In: a `log_line_prefix` value. Out: the source of an anchored regex with
//! named captures for roles (`ts`, `user`, `client`, `level`, `message`).
//!
//! ```text
//! '%m [%p] %q%u@%d '
//!   -> ^(?P<ts>\d{4}-..)\ \[(?:\d+)\]\ (?:(?P<user>\S*?)@(?:\S*?)\ )?(?P<level>LOG|..):\s*(?P<message>.*)$
//! 2026-10-01 07:58:06.113 UTC [4411] api@orders FATAL:  sorry, too many clients already
//!   -> ts 2026-10-01 07:58:06.113 UTC, user api, level FATAL
//! ```

use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::role::Role;

/// What one escape writes.
#[derive(Debug, Deserialize)]
pub(crate) struct Escape {
    /// The role its value fills; `None`: read and ignored.
    pub role: Option<Role>,
    /// A regex without captures matching any value it writes.
    pub shape: String,
    #[serde(default)]
    #[allow(dead_code)]
    pub meaning: String,
}

/// The `postgres` section of the variable file.
#[derive(Debug, Deserialize)]
pub(crate) struct Table {
    /// What follows the prefix: `LEVEL:  message`, with `level` and `message` captures.
    pub record: String,
    /// Escape letter -> what it writes.
    pub escapes: BTreeMap<char, Escape>,
    /// `key=` names -> the escape whose value follows (`user=` -> `u`), for inference.
    pub keys: BTreeMap<String, char>,
}

#[derive(Debug, Deserialize)]
struct VariableFile {
    postgres: Table,
}

/// The built-in escape table.
pub(crate) fn table() -> Result<&'static Table, String> {
    static T: OnceLock<Result<Table, String>> = OnceLock::new();
    T.get_or_init(|| {
        serde_json::from_str::<VariableFile>(include_str!(
            "../../parsers/log-format-variables.json"
        ))
        .map(|f| f.postgres)
        .map_err(|e| format!("the built-in log_line_prefix table does not load: {e}"))
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// One piece of a prefix.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Item {
    Lit(String),
    /// An escape letter; `padded` when written with a width (`%-10u`),
    /// which adds spaces on one side.
    Esc {
        letter: char,
        padded: bool,
    },
    /// `%q`: background processes stop here.
    Stop,
}

/// Split a prefix into literals and escapes; an unknown escape is an error
/// (PostgreSQL writes nothing for it, which is never what was meant).
pub(crate) fn items(prefix: &str) -> Result<Vec<Item>, String> {
    let t = table()?;
    let mut out = Vec::new();
    let mut lit = String::new();
    let mut chars = prefix.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            lit.push(c);
            continue;
        }
        // A width (`%-10u`, `%5p`) pads the value with spaces.
        let mut padded = false;
        while let Some(&d) = chars.peek() {
            if d == '-' || d.is_ascii_digit() {
                padded = true;
                chars.next();
            } else {
                break;
            }
        }
        let letter = chars.next().ok_or("a % at the end of the prefix")?;
        match letter {
            '%' => lit.push('%'),
            'q' => {
                if !lit.is_empty() {
                    out.push(Item::Lit(std::mem::take(&mut lit)));
                }
                out.push(Item::Stop);
            }
            l if t.escapes.contains_key(&l) => {
                if !lit.is_empty() {
                    out.push(Item::Lit(std::mem::take(&mut lit)));
                }
                out.push(Item::Esc { letter: l, padded });
            }
            l => return Err(format!("unknown escape %{l}")),
        }
    }
    if !lit.is_empty() {
        out.push(Item::Lit(lit));
    }
    Ok(out)
}

/// Compile a `log_line_prefix` to the source of an anchored regex that
/// reads a whole record line (prefix, level, message).
pub fn compile(prefix: &str) -> Result<String, String> {
    let t = table()?;
    let items = items(prefix)?;
    if !items
        .iter()
        .any(|i| matches!(i, Item::Esc { letter, .. } if t.escapes.get(letter).is_some_and(|e| e.role == Some(Role::Ts))))
    {
        return Err("the prefix has no time stamp (%t, %m or %n): its records cannot be placed".into());
    }
    let mut re = String::from("^");
    let mut used: BTreeMap<Role, usize> = BTreeMap::new();
    let mut open = 0;
    for item in &items {
        match item {
            Item::Lit(l) => re.push_str(&regex::escape(l)),
            Item::Stop => {
                re.push_str("(?:");
                open += 1;
            }
            Item::Esc { letter, padded } => {
                let e = t
                    .escapes
                    .get(letter)
                    .ok_or_else(|| format!("unknown escape %{letter}"))?;
                if *padded {
                    re.push_str(" *");
                }
                match e.role {
                    Some(role) => {
                        let n = used.entry(role).or_insert(0);
                        *n += 1;
                        // A role written twice (`%m %t`) gets `role__2`, read as the same role.
                        let name = match *n {
                            1 => role.name().to_string(),
                            n => format!("{}__{n}", role.name()),
                        };
                        re.push_str(&format!("(?P<{name}>{})", e.shape));
                    }
                    None => re.push_str(&format!("(?:{})", e.shape)),
                }
                if *padded {
                    re.push_str(" *");
                }
            }
        }
    }
    for _ in 0..open {
        re.push_str(")?");
    }
    re.push_str(&t.record);
    re.push('$');
    Ok(re)
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    fn read<'a>(prefix: &str, line: &'a str) -> Option<BTreeMap<String, &'a str>> {
        let re = Regex::new(&compile(prefix).expect("compiles")).expect("valid regex");
        let caps = re.captures(line)?;
        Some(
            re.capture_names()
                .flatten()
                .filter_map(|n| caps.name(n).map(|m| (n.to_string(), m.as_str())))
                .collect(),
        )
    }

    /// The prefixes the issue names, each on a line it writes.
    #[test]
    fn common_prefixes_read_their_lines() {
        // (name, prefix, line, ts, user, client, level, message)
        type Case = (
            &'static str,
            &'static str,
            &'static str,
            &'static str,
            Option<&'static str>,
            Option<&'static str>,
            &'static str,
            &'static str,
        );
        let cases: [Case; 8] = [
            (
                "Debian's default, a session",
                "%t [%p-%l] %q%u@%d ",
                "2026-10-01 07:58:06 UTC [4411-1] api@orders FATAL:  sorry, too many clients already",
                "2026-10-01 07:58:06 UTC",
                Some("api"),
                None,
                "FATAL",
                "sorry, too many clients already",
            ),
            (
                "Debian's default, the checkpointer stops at %q",
                "%t [%p-%l] %q%u@%d ",
                "2026-10-01 07:58:07 UTC [27-3] LOG:  checkpoint starting: time",
                "2026-10-01 07:58:07 UTC",
                None,
                None,
                "LOG",
                "checkpoint starting: time",
            ),
            (
                "the stock %m [%p]",
                "%m [%p] ",
                "2025-08-13 01:45:01.123 PDT [12345] LOG:  database system is ready to accept connections",
                "2025-08-13 01:45:01.123 PDT",
                None,
                None,
                "LOG",
                "database system is ready to accept connections",
            ),
            (
                "key=value pairs",
                "%m [%p] %q[user=%u,db=%d,app=%a] ",
                "2026-10-01 07:58:08.001 UTC [88] [user=api,db=orders,app=psql 16] ERROR:  relation \"x\" does not exist",
                "2026-10-01 07:58:08.001 UTC",
                Some("api"),
                None,
                "ERROR",
                "relation \"x\" does not exist",
            ),
            (
                "RDS",
                "%t:%r:%u@%d:[%p]:",
                "2026-10-01 07:58:08 UTC:10.42.3.9(50122):api@orders:[4413]:LOG:  duration: 28114.203 ms",
                "2026-10-01 07:58:08 UTC",
                Some("api"),
                Some("10.42.3.9(50122)"),
                "LOG",
                "duration: 28114.203 ms",
            ),
            (
                "RDS, a background process with empty session fields",
                "%t:%r:%u@%d:[%p]:",
                "2026-10-01 07:58:09 UTC::@:[512]:LOG:  checkpoint complete",
                "2026-10-01 07:58:09 UTC",
                Some(""),
                Some(""),
                "LOG",
                "checkpoint complete",
            ),
            (
                "Cloud SQL",
                "%m [%p]: [%l-1] db=%d,user=%u ",
                "2026-10-01 07:58:10.500 UTC [4420]: [3-1] db=orders,user=api LOG:  connection authorized",
                "2026-10-01 07:58:10.500 UTC",
                Some("api"),
                None,
                "LOG",
                "connection authorized",
            ),
            (
                "epoch time, padded user",
                "%n %-8u|%h ",
                "1790841490.113 api     |10.0.0.7 WARNING:  there is no transaction in progress",
                "1790841490.113",
                Some("api"),
                Some("10.0.0.7"),
                "WARNING",
                "there is no transaction in progress",
            ),
        ];
        for (name, prefix, line, ts, user, client, level, message) in cases {
            let f = read(prefix, line).unwrap_or_else(|| panic!("{name}: does not read {line}"));
            assert_eq!(f.get("ts").copied(), Some(ts), "{name}");
            assert_eq!(f.get("user").copied(), user, "{name}");
            assert_eq!(f.get("client").copied(), client, "{name}");
            assert_eq!(f.get("level").copied(), Some(level), "{name}");
            assert_eq!(f.get("message").copied(), Some(message), "{name}");
        }
    }

    #[test]
    fn a_prefix_does_not_read_another_prefixes_lines() {
        let cases = [
            (
                "%m [%p] ",
                "2026-10-01 07:58:06.113 UTC [4411] api@orders LOG:  x",
            ),
            (
                "%t [%p-%l] %q%u@%d ",
                "2026-10-01 07:58:06.113 UTC [4411] LOG:  x",
            ),
            (
                "%m [%p] ",
                "Oct  1 07:58:09 db-1 postgres[4414]: [3-1] LOG:  x",
            ),
            ("%m [%p] ", "2026-10-01 07:58:06.113 UTC [4411] SELECT 1"),
        ];
        for (prefix, line) in cases {
            assert!(read(prefix, line).is_none(), "{prefix} read {line}");
        }
    }

    #[test]
    fn bad_prefixes_are_errors() {
        for (prefix, why) in [
            ("%p %u ", "no time"),
            ("%t %Z ", "unknown escape"),
            ("%t %", "a % at the end"),
        ] {
            assert!(compile(prefix).is_err(), "{why}: {prefix}");
        }
        // `%%` is a literal percent sign.
        assert!(read("%t %% ", "2026-10-01 07:58:06 UTC % LOG:  x").is_some());
    }
}
