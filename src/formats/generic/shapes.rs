//! Timestamp shapes: the ways a log line opens with its time, as one table
//! of data (the `timestamps` of a `generic` definition). The shapes are
//! tried together, as one anchored alternation, at the start of the line
//! and after each of its first few tokens ("near the start"), optionally
//! inside `[...]` or `(...)`.
//!
//! In: the table's entries. Out: [`Shapes`], which finds a line's time as a
//! byte span (the time parser reads the text; the strftime formats a shape
//! needs beyond the parser's built-in forms come with it).
//!
//! ```text
//! nova-api.log.1 2017-05-16 00:00:00.008 25746 INFO ...  -> time at 15..38 (one token before it)
//! [2026-10-01 07:58:06] app.ERROR: ...                   -> time at 1..20, bracketed
//! ```

use regex::Regex;
use serde::Deserialize;

/// One row of the table, as written in the definition.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShapeSpec {
    /// What the shape is called (tests and documentation).
    pub shape: String,
    /// The time's text as a regex (unanchored, no captures needed).
    pub pattern: String,
    /// strftime formats the time parser needs for this shape beyond its
    /// built-in forms (RFC 3339, CLF, epochs, `%Y/%m/%d`, syslog's).
    #[serde(default)]
    pub formats: Vec<String>,
    /// A line that opens with the shape.
    pub example: String,
    /// The time `example` holds, as RFC 3339 in UTC (a zoneless time read as
    /// UTC, a year-less one in this year).
    pub utc: String,
}

/// Where a line's time is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    /// Byte span of the time's text.
    pub start: usize,
    pub end: usize,
    /// The closing bracket that matches an opening one just before the time.
    pub close: Option<u8>,
}

/// The compiled table.
#[derive(Debug)]
pub struct Shapes {
    /// Every shape, first listed first, anchored at the start of the text.
    any: Regex,
    /// Each shape on its own, for tests and diagnostics.
    each: Vec<Regex>,
    /// Tokens that may come before the time (a file name, a process tag).
    max_prefix_tokens: usize,
}

impl Shapes {
    pub fn compile(specs: &[ShapeSpec], max_prefix_tokens: usize) -> Result<Shapes, String> {
        if specs.is_empty() {
            return Err("a generic definition needs `timestamps`".to_string());
        }
        let mut each = Vec::with_capacity(specs.len());
        for s in specs {
            let re = Regex::new(&format!("^(?:{})", s.pattern))
                .map_err(|e| format!("timestamp shape `{}`: {e}", s.shape))?;
            if re.captures_len() > 1 {
                return Err(format!(
                    "timestamp shape `{}`: use (?:...) groups, the whole match is the time",
                    s.shape
                ));
            }
            each.push(re);
        }
        let alternation: Vec<String> = specs.iter().map(|s| format!("(?:{})", s.pattern)).collect();
        let any = Regex::new(&format!("^(?:{})", alternation.join("|")))
            .map_err(|e| format!("timestamp shapes: {e}"))?;
        Ok(Shapes {
            any,
            each,
            max_prefix_tokens,
        })
    }

    /// The time near the start of `line`: at the start, or after one of the
    /// first tokens, possibly just inside a bracket.
    pub fn find(&self, line: &str) -> Option<Found> {
        let b = line.as_bytes();
        let mut pos = 0;
        for _ in 0..=self.max_prefix_tokens {
            while b.get(pos).is_some_and(u8::is_ascii_whitespace) {
                pos += 1;
            }
            let (at, close) = match *b.get(pos)? {
                b'[' => (pos + 1, Some(b']')),
                b'(' => (pos + 1, Some(b')')),
                _ => (pos, None),
            };
            if let Some(m) = self.any.find(&line[at..]) {
                let end = at + m.end();
                if ends_a_word(b, end) {
                    return Some(Found {
                        start: at,
                        end,
                        close,
                    });
                }
            }
            // On to the next token.
            while b.get(pos).is_some_and(|c| !c.is_ascii_whitespace()) {
                pos += 1;
            }
        }
        None
    }

    /// The index of the first shape that reads `text` from its start, and
    /// where it ends.
    pub fn which(&self, text: &str) -> Option<(usize, usize)> {
        self.each
            .iter()
            .enumerate()
            .find_map(|(i, re)| re.find(text).map(|m| (i, m.end())))
    }
}

/// Whether a time ending at `end` ends a word: `2026-10-01 07:58:06Z` yes,
/// the `1790841486` in `1790841486abc` no.
fn ends_a_word(b: &[u8], end: usize) -> bool {
    b.get(end).is_none_or(|c| !c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes(patterns: &[&str], prefix: usize) -> Shapes {
        let specs: Vec<ShapeSpec> = patterns
            .iter()
            .enumerate()
            .map(|(i, p)| ShapeSpec {
                shape: format!("s{i}"),
                pattern: p.to_string(),
                formats: Vec::new(),
                example: String::new(),
                utc: String::new(),
            })
            .collect();
        Shapes::compile(&specs, prefix).expect("compiles")
    }

    #[test]
    fn a_time_is_found_at_the_start_after_a_bracket_or_after_a_token() {
        let s = shapes(&[r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"], 1);
        // (name, line, span of the time, closing bracket)
        let cases = [
            ("start", "2026-10-01 07:58:06 x", Some((0, 19, None))),
            (
                "bracketed",
                "[2026-10-01 07:58:06] x",
                Some((1, 20, Some(b']'))),
            ),
            (
                "after a token",
                "api.log 2026-10-01 07:58:06 x",
                Some((8, 27, None)),
            ),
            ("two tokens in", "a b 2026-10-01 07:58:06 x", None),
            ("glued to a word", "2026-10-01 07:58:06abc", None),
            ("no time", "GET / HTTP/1.1", None),
        ];
        for (name, line, want) in cases {
            let got = s.find(line).map(|f| (f.start, f.end, f.close));
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn a_shape_with_a_capture_group_is_refused() {
        let spec = ShapeSpec {
            shape: "bad".into(),
            pattern: r"(\d+)".into(),
            formats: Vec::new(),
            example: String::new(),
            utc: String::new(),
        };
        assert!(Shapes::compile(&[spec], 0).is_err());
        assert!(Shapes::compile(&[], 0).is_err());
    }
}
