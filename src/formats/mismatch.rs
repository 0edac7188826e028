//! Where a line stops matching its format, for `formats check` and
//! `--strict` diagnostics: a column and what was expected there.
//!
//! In: a compiled [`Format`] and a line it did not read. Out: a
//! [`Mismatch`] (1-based column in characters, a short text of what the
//! format expected at that column).
//!
//! The method, for `regex` formats, is exact rather than a guess: each
//! pattern variant is compiled to a lazy DFA (regex-automata's hybrid
//! DFA, the engine inside `regex`), anchored at the start of the line. The
//! line is fed to it byte by byte. A DFA enters its *dead* state exactly
//! when no continuation of the bytes read so far can match, so the first
//! byte that leads to the dead state is where the line stops matching: every
//! shorter prefix could still have become a match, this one cannot. A line
//! that never reaches the dead state but does not match at its end is cut
//! short (column = one past the end). Of the variants, the one that reads
//! the longest prefix is reported. What was expected is read from the same
//! DFA: the bytes that would have kept the last live state alive, summarised
//! (`a digit`, `" "`, `one of "[", "-"`). A line the regex does match but that
//! was refused later (an unreadable timestamp, a status that is no number)
//! points at the capture that failed.
//!
//! For `json` formats: the column of the JSON syntax error, or, for a
//! record without a required key, column 1 with the key named.
//!
//! ```text
//! 203.0.113.7 - - [01/Oct/2026:13:26:55 +0530] "GET /a HTTP/1.1" 2OO 5
//!                                                                  ^ column 66: expected a digit
//! ```

use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::hybrid::LazyStateID;
use regex_automata::{Anchored, Input};

use super::compile::Format;
use super::definition::DefinitionKind;
use super::role::Role;

/// Where and why a line stops matching.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// 1-based, in characters.
    pub column: usize,
    /// Byte offset of the column in the line, for a source span.
    pub offset: usize,
    /// What the format expected there.
    pub expected: String,
}

impl Format {
    /// Where `line` stops matching this format, given the reason it was
    /// skipped; `None` when there is nothing better to say than column 1.
    pub fn mismatch(&self, line: &str, reason: &str) -> Option<Mismatch> {
        match self.def.kind {
            DefinitionKind::Regex => self.regex_mismatch(line, reason),
            DefinitionKind::Envelope if self.is_text() => self.regex_mismatch(line, reason),
            DefinitionKind::Json | DefinitionKind::Envelope => self.json_mismatch(line, reason),
            _ => None,
        }
    }

    fn regex_mismatch(&self, line: &str, reason: &str) -> Option<Mismatch> {
        // A line the pattern reads but that failed later: point at the field.
        if let Some(fields) = self.match_line(line) {
            let role = match reason {
                "unreadable timestamp" | "no timestamp field" => Role::Ts,
                "status is not a number" => Role::Status,
                "metric value is not a number" => Role::Value,
                "no metric name" => Role::Metric,
                _ => return None,
            };
            let value = fields.get(role)?;
            let offset = (value.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
            if offset > line.len() {
                return None;
            }
            return Some(Mismatch {
                column: line[..offset].chars().count() + 1,
                offset,
                expected: format!("{}: `{value}`", reason),
            });
        }
        let mut best: Option<(usize, String, bool)> = None;
        for p in &self.patterns {
            let Some((at, expected)) = dead_end(p.regex.as_str(), line.as_bytes()) else {
                continue;
            };
            if best.as_ref().is_none_or(|(b, _, _)| at > *b) {
                best = Some((at, expected, at >= line.len()));
            }
        }
        let (at, expected, at_end) = best?;
        // A dead end inside a multi-byte character is reported at its start.
        let mut offset = at.min(line.len());
        while !line.is_char_boundary(offset) {
            offset -= 1;
        }
        Some(Mismatch {
            column: line[..offset].chars().count() + 1,
            offset,
            expected: if at_end {
                format!("the line ends where `{}` expects {expected}", self.name())
            } else {
                format!("`{}` expects {expected} here", self.name())
            },
        })
    }

    fn json_mismatch(&self, line: &str, reason: &str) -> Option<Mismatch> {
        let value: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                // serde_json counts columns in bytes, 1-based; 0 means the end.
                let byte = if e.column() == 0 {
                    line.len()
                } else {
                    (e.column() - 1).min(line.len())
                };
                let mut offset = byte;
                while !line.is_char_boundary(offset) {
                    offset -= 1;
                }
                let message = e.to_string();
                let message = message
                    .rsplit_once(" at line ")
                    .map_or(message.as_str(), |(m, _)| m);
                return Some(Mismatch {
                    column: line[..offset].chars().count() + 1,
                    offset,
                    expected: format!("invalid JSON: {message}"),
                });
            }
        };
        let record = match self.def.envelope.as_deref().and_then(|e| value.get(e)) {
            Some(serde_json::Value::Array(items)) => items.first()?,
            _ => super::compile::array_records(&value)
                .and_then(|i| i.first())
                .unwrap_or(&value),
        };
        let missing = self
            .def
            .require
            .iter()
            .find(|k| super::compile::lookup(record, k).is_none());
        // A key that marks the record as another format's: say which.
        let excluded = self.def.exclude.iter().find(|k| {
            k.split('+')
                .all(|part| super::compile::lookup(record, part).is_some())
        });
        if let (None, Some(keys)) = (missing, excluded) {
            let keys: Vec<String> = keys.split('+').map(|k| format!("`{k}`")).collect();
            return Some(Mismatch {
                column: 1,
                offset: 0,
                expected: format!(
                    "`{}` leaves records with {} to another format, and no other format reads this one",
                    self.name(),
                    keys.join(" and ")
                ),
            });
        }
        let Some(missing) = missing else {
            // The record is this format's, but its time could not be read:
            // point at the time's value in the line.
            if reason != "unreadable timestamp" {
                return None;
            }
            let fields = self.match_json(record)?;
            let ts = fields.get(Role::Ts)?;
            let quoted = serde_json::to_string(ts).ok()?;
            let offset = line.find(&quoted).or_else(|| line.find(ts))?;
            return Some(Mismatch {
                column: line[..offset].chars().count() + 1,
                offset,
                expected: format!("{reason}: `{ts}`"),
            });
        };
        Some(Mismatch {
            column: 1,
            offset: 0,
            expected: format!("`{}` requires a `{missing}` key", self.name()),
        })
    }
}

/// The lazy DFA of `pattern`, anchored, or `None` when it cannot be built
/// (the line is then reported at column 1).
fn dfa(pattern: &str) -> Option<DFA> {
    DFA::builder()
        .configure(DFA::config().unicode_word_boundary(true))
        .build(pattern)
        .ok()
}

/// The byte offset at which `line` can no longer match `pattern`, and what
/// would have been accepted there; `None` when the line matches (or the DFA
/// gave up, on a Unicode word boundary next to a non-ASCII byte).
fn dead_end(pattern: &str, line: &[u8]) -> Option<(usize, String)> {
    let dfa = dfa(pattern)?;
    let mut cache = dfa.create_cache();
    let input = Input::new(line).anchored(Anchored::Yes);
    let mut sid = dfa.start_state_forward(&mut cache, &input).ok()?;
    for (i, &b) in line.iter().enumerate() {
        let next = dfa.next_state(&mut cache, sid, b).ok()?;
        if next.is_dead() {
            return Some((i, expected(&dfa, &mut cache, sid)));
        }
        if next.is_quit() {
            return None;
        }
        sid = next;
    }
    let end = dfa.next_eoi_state(&mut cache, sid).ok()?;
    if end.is_match() {
        return None;
    }
    Some((line.len(), expected(&dfa, &mut cache, sid)))
}

/// The bytes that keep `sid` alive, as words.
fn expected(dfa: &DFA, cache: &mut Cache, sid: LazyStateID) -> String {
    let alive: Vec<u8> = (0..=255u8)
        .filter(|&b| {
            dfa.next_state(cache, sid, b)
                .is_ok_and(|n| !n.is_dead() && !n.is_quit())
        })
        .collect();
    describe(&alive)
}

/// A set of bytes in words: classes it covers whole, then a few literals.
fn describe(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "the end of the line".to_string();
    }
    let has = |b: u8| bytes.contains(&b);
    let digits = (b'0'..=b'9').all(has);
    let letters = (b'a'..=b'z').all(has) && (b'A'..=b'Z').all(has);
    let printable = (0x21..0x7f).filter(|b| has(*b)).count();
    if printable >= 90 {
        return if has(b' ') {
            "any character".to_string()
        } else {
            "a character other than a space".to_string()
        };
    }
    let mut words = Vec::new();
    if letters && digits {
        words.push("a letter or digit".to_string());
    } else if letters {
        words.push("a letter".to_string());
    } else if digits {
        words.push("a digit".to_string());
    }
    let rest: Vec<String> = bytes
        .iter()
        .filter(|&&b| {
            (0x20..0x7f).contains(&b)
                && !(digits && b.is_ascii_digit())
                && !(letters && b.is_ascii_alphabetic())
        })
        .map(|&b| match b {
            b' ' => "a space".to_string(),
            b => format!("`{}`", b as char),
        })
        .collect();
    if rest.len() > 6 {
        words.push(format!("{} other characters", rest.len()));
    } else {
        words.extend(rest);
    }
    match words.len() {
        0 => "a non-ASCII character".to_string(),
        1 => words.remove(0),
        _ => format!("one of {}", words.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Catalogue;

    #[test]
    fn the_column_is_where_no_continuation_can_match() {
        // (name, pattern, line, byte offset, expected)
        let cases = [
            (
                "letter for digit",
                r"^\d{3} (?P<m>\w+)$",
                "2O0 ok",
                Some(1),
                "a digit",
            ),
            (
                "cut short",
                r"^\d{3} (?P<m>\w+)$",
                "200",
                Some(3),
                "a space",
            ),
            ("matches", r"^\d{3} (?P<m>\w+)$", "200 ok", None, ""),
            ("literal", r"^\[(?P<t>[^\]]+)\] x$", "[a] y", Some(4), "`x`"),
        ];
        for (name, pattern, line, at, want) in cases {
            let got = dead_end(pattern, line.as_bytes());
            assert_eq!(got.as_ref().map(|g| g.0), at, "{name}");
            if let Some((_, e)) = got {
                assert_eq!(e, want, "{name}");
            }
        }
    }

    #[test]
    fn formats_point_at_the_failing_column() {
        let cat = Catalogue::builtin().expect("catalogue");
        let nginx = &cat.formats[cat.find("nginx_combined").expect("nginx_combined")];
        let line = "203.0.113.7 - - [01/Oct/2026:13:26:55 +0530] \"GET /a HTTP/1.1\" 2OO 5 \"-\" \"curl/8\"";
        let m = nginx
            .mismatch(line, "does not match the format")
            .expect("mismatch");
        assert_eq!(m.column, line.find("2OO").expect("status") + 2, "{m:?}");
        assert!(m.expected.contains("digit"), "{m:?}");

        let k8s = &cat.formats[cat.find("k8s_events").expect("k8s_events")];
        let m = k8s
            .mismatch(
                "{\"reason\": \"Killing\", \"involvedObject\": {",
                "not valid JSON",
            )
            .expect("mismatch");
        assert!(m.expected.starts_with("invalid JSON"), "{m:?}");
        let m = k8s
            .mismatch(
                "{\"involvedObject\": {\"name\": \"a\"}}",
                "a required field is missing",
            )
            .expect("mismatch");
        assert!(m.expected.contains("`reason`"), "{m:?}");

        let json_lines = &cat.formats[cat.find("json_lines").expect("json_lines")];
        let m = json_lines
            .mismatch(
                r#"{"msg": "x", "stream": "stdout"}"#,
                "a required field is missing",
            )
            .expect("mismatch");
        assert_eq!(
            m.expected,
            "`json_lines` leaves records with `stream` to another format, and no other format reads this one"
        );
    }

    #[test]
    fn bytes_in_words() {
        assert_eq!(describe(b"0123456789"), "a digit");
        assert_eq!(describe(b" "), "a space");
        assert_eq!(describe(b"\"-"), "one of `\"`, `-`");
        assert_eq!(describe(b""), "the end of the line");
    }
}
