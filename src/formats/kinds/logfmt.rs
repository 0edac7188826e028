//! logfmt lines (logrus TextFormatter, go-kit, Grafana, Heroku-style
//! `key=value` logs) -> the pairs as a JSON-like object, then the
//! definition's `fields` mapping exactly as the `json` kind applies it.
//!
//! Values are unquoted words or double-quoted strings with `\"`, `\\`, `\n`
//! and `\t` escapes; `key=` is an empty value; a bare key is `true`. Keys
//! come in any order; the first of a repeated key wins. A line is logfmt
//! only when it has more `key=value` pairs than bare keys and every token is
//! one of the two, so prose, access logs and syslog lines are refused. A
//! line without a time field (go-kit's default) is parsed but cannot be put
//! on the timeline: it gives no record and is counted as unplaced.
//!
//! ```text
//! t=2026-10-01T07:58:06.113Z level=error msg="Connection is not available" pod=web-0
//!   -> {"t": "2026-10-01T07:58:06.113Z", "level": "error", "msg": "...", "pod": "web-0"}
//!   -> ts, level, message, instance (by `parsers/app/logfmt.json`)
//! ```

use serde_json::{Map, Value};

use super::{Extractor, Skip, BLANK};
use crate::formats::compile::{map_json, Fields};
use crate::formats::definition::Definition;
use crate::formats::role::Role;

pub struct Logfmt {
    def: Definition,
    unplaced: bool,
}

impl Logfmt {
    pub fn new(def: &Definition) -> Logfmt {
        Logfmt {
            def: def.clone(),
            unplaced: false,
        }
    }
}

impl Extractor for Logfmt {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        self.unplaced = false;
        if line.trim().is_empty() {
            return Err(BLANK);
        }
        let record = Value::Object(pairs(line)?);
        let fields = map_json(&self.def, &record)
            .ok_or("a required field is missing")?
            .into_owned();
        if !fields.has(Role::Ts) {
            self.unplaced = true;
            return Ok(Vec::new());
        }
        Ok(vec![fields])
    }

    fn unplaced(&mut self) -> Option<Skip> {
        std::mem::take(&mut self.unplaced).then_some("logfmt line without a time field")
    }
}

/// The pairs of one line, or why it is not logfmt.
fn pairs(line: &str) -> Result<Map<String, Value>, Skip> {
    let mut map = Map::new();
    let (mut with_value, mut bare) = (0usize, 0usize);
    let mut rest = line.trim_start();
    while !rest.is_empty() {
        let key_len = rest
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(rest.len());
        let key = &rest[..key_len];
        rest = &rest[key_len..];
        let value = match rest.strip_prefix('=') {
            Some(after) => {
                if !is_key(key) {
                    return Err("not a logfmt key");
                }
                with_value += 1;
                let (v, after) = match after.strip_prefix('"') {
                    Some(q) => quoted(q)?,
                    None => {
                        let end = after.find(char::is_whitespace).unwrap_or(after.len());
                        let word = &after[..end];
                        if word.contains('"') {
                            return Err("a quote inside an unquoted logfmt value");
                        }
                        (word.to_string(), &after[end..])
                    }
                };
                if !after.is_empty() && !after.starts_with(char::is_whitespace) {
                    return Err("text right after a quoted logfmt value");
                }
                rest = after;
                Value::String(v)
            }
            None => {
                // Bare keys are plain words: timestamps, `host:` prefixes and prose are refused.
                if !is_bare_key(key) {
                    return Err("not a logfmt key");
                }
                bare += 1;
                Value::Bool(true)
            }
        };
        map.entry(key.to_string()).or_insert(value);
        rest = rest.trim_start();
    }
    if with_value == 0 || bare >= with_value {
        return Err("not logfmt: too few key=value pairs");
    }
    Ok(map)
}

/// `level`, `sample#memory_total`, `@timestamp`, `http.status`, `err-code`,
/// `k8s:pod`.
fn is_key(k: &str) -> bool {
    let mut chars = k.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '@')
        && chars.all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '#' | '@' | '/' | ':')
        })
}

fn is_bare_key(k: &str) -> bool {
    let mut chars = k.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

/// A quoted value after its opening quote -> the text and what follows.
fn quoted(s: &str) -> Result<(String, &str), Skip> {
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((out, &s[i + 1..])),
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((_, e)) => out.push(e),
                None => break,
            },
            c => out.push(c),
        }
    }
    Err("unterminated quoted logfmt value")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Catalogue;

    #[test]
    fn pairs_of_lines() {
        type Case = (
            &'static str,
            &'static str,
            Result<&'static [(&'static str, &'static str)], Skip>,
        );
        let cases: [Case; 10] = [
            (
                "quoted and bare values",
                r#"time="2026-10-01T07:58:06Z" level=info msg="pool \"main\" ready" n=8"#,
                Ok(&[
                    ("time", "\"2026-10-01T07:58:06Z\""),
                    ("level", "\"info\""),
                    ("msg", "\"pool \\\"main\\\" ready\""),
                    ("n", "\"8\""),
                ]),
            ),
            (
                "empty value",
                "reason= status=Pending",
                Ok(&[("reason", "\"\""), ("status", "\"Pending\"")]),
            ),
            (
                "bare key",
                "zork=zook plonk zonk=nork",
                Ok(&[
                    ("zork", "\"zook\""),
                    ("plonk", "true"),
                    ("zonk", "\"nork\""),
                ]),
            ),
            (
                "value with =",
                "arg=default.paths.data=/var/lib x=1",
                Ok(&[("arg", "\"default.paths.data=/var/lib\""), ("x", "\"1\"")]),
            ),
            (
                "prose",
                "the value a=b is wrong",
                Err("not logfmt: too few key=value pairs"),
            ),
            (
                "access log",
                "192.0.2.1 - - [01/Oct/2026:07:58:06 +0000] \"GET / HTTP/1.1\" 200",
                Err("not a logfmt key"),
            ),
            (
                "syslog",
                "Jan 08 10:55:11 host app: a=b c=d",
                Err("not a logfmt key"),
            ),
            ("json", "{\"a\":1}", Err("not a logfmt key")),
            (
                "unterminated",
                "msg=\"oops level=info",
                Err("unterminated quoted logfmt value"),
            ),
            (
                "heroku frame",
                "345 <45>1 2015-05-12T17:47:18+00:00 heroku web.1 - - source=web.1 a=b",
                Err("not a logfmt key"),
            ),
        ];
        for (name, line, want) in cases {
            let got = pairs(line).map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.to_string()))
                    .collect::<Vec<_>>()
            });
            let want = want.map(|w| {
                w.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect::<Vec<_>>()
            });
            // serde_json keeps keys sorted: compare as sets.
            let sorted = |r: Result<Vec<(String, String)>, Skip>| {
                r.map(|mut v| {
                    v.sort();
                    v
                })
            };
            assert_eq!(sorted(got), sorted(want), "{name}");
        }
    }

    #[test]
    fn fields_follow_the_definition_and_timeless_lines_are_unplaced() {
        let cat = Catalogue::builtin().expect("catalogue");
        let f = &cat.formats[cat.find("logfmt").expect("logfmt")];
        let mut x = f.extractor().expect("reader");
        let recs = x
            .line("t=2026-10-01T07:58:06.113Z level=error msg=\"Connection is not available\" pod=web-0")
            .expect("line");
        assert_eq!(recs[0].get(Role::Ts), Some("2026-10-01T07:58:06.113Z"));
        assert_eq!(recs[0].get(Role::Level), Some("error"));
        assert_eq!(recs[0].get(Role::Instance), Some("web-0"));
        assert!(x
            .line("level=info msg=\"no time here\"")
            .expect("line")
            .is_empty());
        assert!(x.unplaced().is_some());
    }
}
