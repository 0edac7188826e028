//! Splitting a stream into numbered lines: CRLF and a leading BOM removed,
//! invalid UTF-8 replaced lossily and counted.

use std::io::{BufRead, Read};

use super::error::ReadError;

/// Numbered lines of one input.
pub struct Lines {
    name: String,
    reader: Box<dyn BufRead + Send>,
    buf: Vec<u8>,
    line: u64,
    /// Lines that held invalid UTF-8 (replaced with U+FFFD).
    pub invalid_utf8: u64,
}

impl Lines {
    pub fn new(name: String, reader: Box<dyn BufRead + Send>) -> Lines {
        Lines {
            name,
            reader,
            buf: Vec::with_capacity(4096),
            line: 0,
            invalid_utf8: 0,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Everything left, as one string (for whole JSON documents).
    pub fn rest_to_string(&mut self) -> Result<String, ReadError> {
        let mut bytes = Vec::new();
        self.reader
            .read_to_end(&mut bytes)
            .map_err(|e| ReadError::Io {
                path: self.name.clone(),
                message: e.to_string(),
            })?;
        Ok(match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => {
                self.invalid_utf8 += 1;
                String::from_utf8_lossy(e.as_bytes()).into_owned()
            }
        })
    }
}

/// A run of whole lines read in one go, for a worker thread.
#[derive(Debug, Default)]
pub struct Chunk {
    /// The number of the chunk's first line.
    pub first_line: u64,
    /// Raw bytes, ending at a line end (or the end of the input).
    pub data: Vec<u8>,
}

impl Chunk {
    /// The chunk's lines with their numbers: CRLF removed, invalid UTF-8
    /// replaced; the second value counts lines that held invalid UTF-8.
    pub fn lines(&self) -> impl Iterator<Item = (u64, std::borrow::Cow<'_, str>, bool)> {
        let mut data: &[u8] = &self.data;
        if data.last() == Some(&b'\n') {
            data = &data[..data.len() - 1];
        }
        let first = self.first_line;
        let empty = self.data.is_empty();
        // simdutf8 checks a 4 MiB chunk several times faster than std.
        let text = simdutf8::basic::from_utf8(data).ok();
        // memchr finds line ends a vector at a time; `split` looks at each byte.
        let mut start = 0;
        let mut done = empty;
        std::iter::from_fn(move || {
            if done {
                return None;
            }
            let end = match memchr::memchr(b'\n', &data[start..]) {
                Some(i) => start + i,
                None => {
                    done = true;
                    data.len()
                }
            };
            let from = start;
            start = end + 1;
            Some((from, end))
        })
        .enumerate()
        .map(move |(i, (from, mut end))| {
            if end > from && data[end - 1] == b'\r' {
                end -= 1;
            }
            // A valid chunk is checked once; line ends are ASCII, so every
            // line of it is a valid `str` slice.
            if let Some(line) = text.and_then(|t| t.get(from..end)) {
                return (first + i as u64, std::borrow::Cow::Borrowed(line), false);
            }
            let raw = &data[from..end];
            match std::str::from_utf8(raw) {
                Ok(s) => (first + i as u64, std::borrow::Cow::Borrowed(s), false),
                Err(_) => (first + i as u64, String::from_utf8_lossy(raw), true),
            }
        })
    }
}

impl Lines {
    /// The next run of about `target` bytes of whole lines, or `None` at the end.
    /// Lines that start with one of `continuations` stay in the chunk of the
    /// record they continue (a stack trace under its log line).
    pub fn next_chunk(
        &mut self,
        target: usize,
        continuations: &[String],
    ) -> Result<Option<Chunk>, ReadError> {
        self.next_chunk_into(target, continuations, Vec::new())
    }

    /// [`Lines::next_chunk`], filling `buf` (a chunk's buffer handed back
    /// after use) instead of a new one.
    pub fn next_chunk_into(
        &mut self,
        target: usize,
        continuations: &[String],
        mut data: Vec<u8>,
    ) -> Result<Option<Chunk>, ReadError> {
        data.clear();
        data.reserve(target + 4096);
        let io = |e: std::io::Error| ReadError::Io {
            path: self.name.clone(),
            message: e.to_string(),
        };
        // Straight into the chunk: a large read bypasses the reader's own
        // buffer, one copy fewer than going through it.
        let want = target as u64;
        let got = (&mut self.reader)
            .take(want)
            .read_to_end(&mut data)
            .map_err(io)?;
        if got as u64 == want && data.last() != Some(&b'\n') {
            // Full: finish the line we are in.
            self.reader.read_until(b'\n', &mut data).map_err(io)?;
        }
        while !continuations.is_empty() && data.last() == Some(&b'\n') {
            let buf = self.reader.fill_buf().map_err(io)?;
            if !continuations.iter().any(|c| buf.starts_with(c.as_bytes())) {
                break;
            }
            self.reader.read_until(b'\n', &mut data).map_err(io)?;
        }
        if data.is_empty() {
            return Ok(None);
        }
        let mut newlines = memchr::memchr_iter(b'\n', &data).count() as u64;
        if data.last() != Some(&b'\n') {
            newlines += 1;
        }
        let chunk = Chunk {
            first_line: self.line + 1,
            data,
        };
        self.line += newlines;
        Ok(Some(chunk))
    }
}

impl Lines {
    /// The next line if it starts with one of `continuations` (it continues
    /// the record above), else `None` and nothing is read.
    pub fn next_continuation(
        &mut self,
        continuations: &[String],
    ) -> Option<Result<(u64, String), ReadError>> {
        if continuations.is_empty() {
            return None;
        }
        let buf = match self.reader.fill_buf() {
            Ok(b) => b,
            Err(e) => {
                return Some(Err(ReadError::Io {
                    path: self.name.clone(),
                    message: e.to_string(),
                }))
            }
        };
        if !continuations.iter().any(|c| buf.starts_with(c.as_bytes())) {
            return None;
        }
        self.next()
    }
}

impl Iterator for Lines {
    type Item = Result<(u64, String), ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.buf.clear();
        match self.reader.read_until(b'\n', &mut self.buf) {
            Ok(0) => None,
            Ok(_) => {
                self.line += 1;
                let mut end = self.buf.len();
                while end > 0 && (self.buf[end - 1] == b'\n' || self.buf[end - 1] == b'\r') {
                    end -= 1;
                }
                let mut start = 0;
                if self.line == 1 && self.buf.starts_with(&[0xEF, 0xBB, 0xBF]) {
                    start = 3;
                }
                let bytes = &self.buf[start..end.max(start)];
                let text = match std::str::from_utf8(bytes) {
                    Ok(s) => s.to_string(),
                    Err(_) => {
                        self.invalid_utf8 += 1;
                        String::from_utf8_lossy(bytes).into_owned()
                    }
                };
                Some(Ok((self.line, text)))
            }
            Err(e) => Some(Err(ReadError::Io {
                path: self.name.clone(),
                message: e.to_string(),
            })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn chunks_end_at_line_ends_and_keep_numbering() {
        let text: String = (1..=1000).map(|i| format!("line {i}\r\n")).collect();
        let mut lines = Lines::new("t".into(), Box::new(Cursor::new(text.into_bytes())));
        let first = lines.next().expect("one").expect("ok");
        assert_eq!(first, (1, "line 1".to_string()));
        let mut seen = vec![1u64];
        while let Some(c) = lines.next_chunk(100, &[]).expect("chunk") {
            for (n, l, bad) in c.lines() {
                assert!(!bad);
                assert_eq!(l, format!("line {n}"));
                seen.push(n);
            }
        }
        assert_eq!(seen, (1..=1000).collect::<Vec<u64>>());
    }

    #[test]
    fn continuation_lines_stay_with_their_record() {
        let text: String = (1..=200)
            .map(|i| format!("record {i}\n\tat frame {i}\n"))
            .collect();
        let mut lines = Lines::new("t".into(), Box::new(Cursor::new(text.into_bytes())));
        while let Some(c) = lines.next_chunk(50, &["\t".to_string()]).expect("chunk") {
            let first = c.lines().next().expect("a line").1.into_owned();
            assert!(
                first.starts_with("record"),
                "a chunk starts inside a record: {first}"
            );
        }
    }

    #[test]
    fn crlf_bom_and_bad_utf8_are_handled() {
        let data = b"\xEF\xBB\xBFfirst\r\nsec\xffond\nthird".to_vec();
        let mut lines = Lines::new("t".into(), Box::new(Cursor::new(data)));
        let got: Vec<(u64, String)> = lines.by_ref().map(|r| r.expect("ok")).collect();
        assert_eq!(got[0], (1, "first".to_string()));
        assert_eq!(got[1], (2, "sec\u{fffd}ond".to_string()));
        assert_eq!(got[2], (3, "third".to_string()));
        assert_eq!(lines.invalid_utf8, 1);
    }
}
