//! RFC 4180 rows for the CSV kinds: physical lines are joined while a quoted
//! field is open (a quoted cell may hold newlines, even blank lines), then
//! split into cells, `""` being a quote inside quotes.
//!
//! ```text
//! 60,"X        -> (open)
//! Y",true      -> row `60,"X\nY",true` -> ["60", "X\nY", "true"]
//! ```

use std::borrow::Cow;

use super::Skip;

/// A quoted field longer than this many lines is taken to be unterminated.
const MAX_ROW_LINES: usize = 1000;

/// Joins physical lines into rows.
#[derive(Debug, Default)]
pub struct Rows {
    pending: Option<String>,
    lines: usize,
}

impl Rows {
    /// Whether a quoted field is open, waiting for more lines.
    pub fn is_open(&self) -> bool {
        self.pending.is_some()
    }

    /// The lines of a row still open (0 when none is): at the end of the
    /// input, a row cut inside a quoted field.
    pub fn open_lines(&self) -> u64 {
        if self.pending.is_some() {
            self.lines as u64
        } else {
            0
        }
    }

    /// Feed one physical line: the complete row, or `None` while a quoted
    /// field stays open.
    pub fn push<'a>(&mut self, line: &'a str) -> Result<Option<Cow<'a, str>>, Skip> {
        match self.pending.take() {
            None => {
                if quotes_balanced(line) {
                    Ok(Some(Cow::Borrowed(line)))
                } else {
                    self.pending = Some(line.to_string());
                    self.lines = 1;
                    Ok(None)
                }
            }
            Some(mut row) => {
                row.push('\n');
                row.push_str(line);
                self.lines += 1;
                if quotes_balanced(&row) {
                    Ok(Some(Cow::Owned(row)))
                } else if self.lines >= MAX_ROW_LINES {
                    Err("unterminated quoted CSV field")
                } else {
                    self.pending = Some(row);
                    Ok(None)
                }
            }
        }
    }
}

/// An even number of quotes: every quoted field is closed (`""` counts twice).
fn quotes_balanced(text: &str) -> bool {
    text.bytes().filter(|b| *b == b'"').count() % 2 == 0
}

/// The cells of one complete comma-separated row. Quoted cells lose their
/// quotes; a cell borrows from the row unless it held an escaped quote.
pub fn split(row: &str) -> Vec<Cow<'_, str>> {
    split_on(row, ',')
}

/// [`split`] with another delimiter (Excel-compatible exports use a tab).
pub fn split_on(row: &str, delimiter: char) -> Vec<Cow<'_, str>> {
    let mut cells = Vec::new();
    let mut rest = row;
    loop {
        if let Some(body) = rest.strip_prefix('"') {
            let (cell, after) = quoted(body);
            // Anything between the closing quote and the delimiter is kept (lenient).
            match after.find(delimiter) {
                Some(k) => {
                    cells.push(join(cell, &after[..k]));
                    rest = &after[k + 1..];
                }
                None => {
                    cells.push(join(cell, after));
                    return cells;
                }
            }
        } else {
            match rest.find(delimiter) {
                Some(k) => {
                    cells.push(Cow::Borrowed(&rest[..k]));
                    rest = &rest[k + 1..];
                }
                None => {
                    cells.push(Cow::Borrowed(rest));
                    return cells;
                }
            }
        }
    }
}

/// A quoted cell's text (after the opening quote) and what follows its
/// closing quote.
fn quoted(body: &str) -> (Cow<'_, str>, &str) {
    let mut out: Option<String> = None;
    let mut start = 0;
    loop {
        match body[start..].find('"') {
            None => {
                // Unterminated: the rest is the cell.
                return match out {
                    Some(mut s) => {
                        s.push_str(&body[start..]);
                        (Cow::Owned(s), "")
                    }
                    None => (Cow::Borrowed(body), ""),
                };
            }
            Some(k) => {
                let end = start + k;
                if body[end + 1..].starts_with('"') {
                    let s = out.get_or_insert_with(String::new);
                    s.push_str(&body[start..=end]);
                    start = end + 2;
                } else {
                    let cell = match out {
                        Some(mut s) => {
                            s.push_str(&body[start..end]);
                            Cow::Owned(s)
                        }
                        None => Cow::Borrowed(&body[..end]),
                    };
                    return (cell, &body[end + 1..]);
                }
            }
        }
    }
}

fn join<'a>(cell: Cow<'a, str>, tail: &'a str) -> Cow<'a, str> {
    if tail.is_empty() {
        cell
    } else {
        Cow::Owned(format!("{cell}{tail}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells() {
        let cases: [(&str, &str, &[&str]); 7] = [
            ("plain", "a,b,c", &["a", "b", "c"]),
            ("empty cells", ",a,,", &["", "a", "", ""]),
            ("quoted comma", "1,\"X,Y\",true", &["1", "X,Y", "true"]),
            (
                "escaped quotes",
                "\"say \"\"hi\"\"\",2",
                &["say \"hi\"", "2"],
            ),
            ("empty quoted", "\"\",x", &["", "x"]),
            ("newline", "60,\"X\nY\",true", &["60", "X\nY", "true"]),
            ("unterminated", "a,\"b,c", &["a", "b,c"]),
        ];
        assert_eq!(split_on("\"a\tb\"\tc", '\t'), ["a\tb", "c"]);
        for (name, row, want) in cases {
            let got: Vec<String> = split(row).into_iter().map(|c| c.into_owned()).collect();
            assert_eq!(got, want.to_vec(), "{name}");
        }
    }

    #[test]
    fn rows_join_lines_while_a_quote_is_open() {
        let mut rows = Rows::default();
        assert_eq!(rows.push("a,b").expect("row").as_deref(), Some("a,b"));
        assert_eq!(rows.push("60,\"X").expect("open"), None);
        assert!(rows.is_open());
        assert_eq!(rows.push("").expect("open"), None);
        assert_eq!(
            rows.push("Y\",true").expect("row").as_deref(),
            Some("60,\"X\n\nY\",true")
        );
        assert!(!rows.is_open());
    }
}
