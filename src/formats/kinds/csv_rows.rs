//! RFC 4180 rows for the CSV kinds, read by `csv-core` (the parser of the
//! `csv` crate, fed a line at a time): physical lines are joined while a
//! quoted field is open (a quoted cell may hold newlines, even blank
//! lines), then split into cells, `""` being a quote inside quotes. Like
//! the `csv` crate, a quote inside an unquoted cell is text, text after a
//! closing quote stays in the cell, and an unterminated quote runs to the
//! end of the row.
//!
//! ```text
//! 60,"X        -> (open)
//! Y",true      -> row `60,"X\nY",true` -> ["60", "X\nY", "true"]
//! ```

use csv_core::{ReadRecordResult, Reader, ReaderBuilder};
use std::borrow::Cow;

use super::Skip;

/// A quoted field longer than this many lines is taken to be unterminated.
const MAX_ROW_LINES: usize = 1000;

/// Joins physical lines into rows.
#[derive(Debug, Default)]
pub struct Rows {
    pending: Option<String>,
    lines: usize,
    /// The parser's state across the lines of an open row.
    reader: Option<Reader>,
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
        let reader = self.reader.get_or_insert_with(Reader::new);
        let complete = ends_row(reader, line);
        match self.pending.take() {
            None if complete => Ok(Some(Cow::Borrowed(line))),
            None => {
                self.pending = Some(line.to_string());
                self.lines = 1;
                Ok(None)
            }
            Some(mut row) => {
                row.push('\n');
                row.push_str(line);
                self.lines += 1;
                if complete {
                    Ok(Some(Cow::Owned(row)))
                } else if self.lines >= MAX_ROW_LINES {
                    self.reader = None;
                    Err("unterminated quoted CSV field")
                } else {
                    self.pending = Some(row);
                    Ok(None)
                }
            }
        }
    }
}

/// Feed a line and its newline to the parser: whether that ends the row
/// (a quoted field left open asks for more input).
fn ends_row(reader: &mut Reader, line: &str) -> bool {
    let mut out = [0u8; 1024];
    let mut ends = [0usize; 64];
    for mut input in [line.as_bytes(), b"\n"] {
        // An empty slice would tell the parser the input is over.
        if input.is_empty() {
            continue;
        }
        loop {
            let (res, nin, _, _) = reader.read_record(input, &mut out, &mut ends);
            // The parser read at most what it was given.
            input = input.get(nin..).unwrap_or_default();
            match res {
                ReadRecordResult::Record | ReadRecordResult::End => return true,
                ReadRecordResult::InputEmpty => break,
                // The cells are not kept here: only where the row ends matters.
                ReadRecordResult::OutputFull | ReadRecordResult::OutputEndsFull => {}
            }
        }
    }
    false
}

/// The cells of one complete comma-separated row.
pub fn split(row: &str) -> Vec<Cow<'_, str>> {
    split_on(row, ',')
}

/// [`split`] with another delimiter (Excel-compatible exports use a tab).
pub fn split_on(row: &str, delimiter: char) -> Vec<Cow<'_, str>> {
    let mut reader = ReaderBuilder::new()
        .delimiter(u8::try_from(delimiter).unwrap_or(b','))
        .build();
    let mut out = vec![0u8; row.len() + 1];
    let mut ends = vec![0usize; 16];
    let (mut nout, mut nend) = (0, 0);
    let mut input = row.as_bytes();
    // The parser reports no more than it was given room or input for, so
    // the `get`s below stay inside the buffers.
    loop {
        let (res, nin, o, e) = reader.read_record(
            input,
            out.get_mut(nout..).unwrap_or_default(),
            ends.get_mut(nend..).unwrap_or_default(),
        );
        input = input.get(nin..).unwrap_or_default();
        nout += o;
        nend += e;
        match res {
            // No more input: an empty slice tells the parser the row is over.
            ReadRecordResult::InputEmpty => input = &[],
            ReadRecordResult::OutputFull => out.resize(out.len() * 2, 0),
            ReadRecordResult::OutputEndsFull => ends.resize(ends.len() * 2, 0),
            ReadRecordResult::Record | ReadRecordResult::End => break,
        }
    }
    if nend == 0 {
        return vec![Cow::Borrowed("")];
    }
    let mut start = 0;
    ends.truncate(nend);
    ends.iter()
        .map(|&end| {
            let cell =
                String::from_utf8_lossy(out.get(start..end).unwrap_or_default()).into_owned();
            start = end;
            Cow::Owned(cell)
        })
        .collect()
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
