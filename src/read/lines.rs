//! Splitting a stream into numbered lines: CRLF and a leading BOM removed,
//! invalid UTF-8 replaced lossily and counted. A read that fails part-way
//! (a `.gz` cut short) ends the lines there and leaves a [`Cut`]: what was
//! read before it is kept.

use std::io::{BufRead, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::cut::Cut;
use super::error::ReadError;

/// Numbered lines of one input.
pub struct Lines {
    name: String,
    reader: Box<dyn BufRead + Send>,
    buf: Vec<u8>,
    line: u64,
    /// Lines that held invalid UTF-8 (replaced with U+FFFD).
    pub invalid_utf8: u64,
    /// Bytes of text handed out so far.
    text_bytes: u64,
    /// Bytes of the file read so far (shared with the decoder thread).
    file_bytes: Option<Arc<AtomicU64>>,
    /// Set when a read failed part-way: the lines end there.
    cut: Option<Cut>,
}

impl Lines {
    pub fn new(name: String, reader: Box<dyn BufRead + Send>) -> Lines {
        Lines {
            name,
            reader,
            buf: Vec::with_capacity(4096),
            line: 0,
            invalid_utf8: 0,
            text_bytes: 0,
            file_bytes: None,
            cut: None,
        }
    }

    /// [`Lines::new`], with the count of the file's bytes read (the raw
    /// stream under a decoder), for the byte a cut names.
    pub(crate) fn counted(
        name: String,
        reader: Box<dyn BufRead + Send>,
        file_bytes: Arc<AtomicU64>,
    ) -> Lines {
        let mut lines = Lines::new(name, reader);
        lines.file_bytes = Some(file_bytes);
        lines
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Bytes read so far: of the file, and of text.
    pub fn bytes_read(&self) -> (u64, u64) {
        let file = self
            .file_bytes
            .as_ref()
            .map_or(self.text_bytes, |c| c.load(Ordering::Relaxed));
        (file, self.text_bytes)
    }

    /// Where the input stopped being readable, if it did: taken once.
    pub fn take_cut(&mut self) -> Option<Cut> {
        self.cut.take()
    }

    /// A read failed after `partial` bytes of an unfinished line: the
    /// lines end here. A failure before anything was read is an error (a
    /// file that cannot be read at all), returned as such.
    fn cut_here(&mut self, e: &std::io::Error, partial: &[u8]) -> Result<(), ReadError> {
        let text_byte = self.text_bytes + partial.len() as u64;
        if text_byte == 0 && self.cut.is_none() {
            return Err(ReadError::Io {
                path: self.name.clone(),
                message: e.to_string(),
            });
        }
        let file_byte = self
            .file_bytes
            .as_ref()
            .map_or(text_byte, |c| c.load(Ordering::Relaxed));
        self.text_bytes = text_byte;
        self.cut = Some(Cut {
            file_byte,
            text_byte,
            line: self.line,
            reason: e.to_string(),
            partial: (!partial.is_empty()).then(|| String::from_utf8_lossy(partial).into_owned()),
        });
        // Nothing more is read from a stream that failed.
        self.reader = Box::new(std::io::empty());
        Ok(())
    }

    /// Everything left, as one string (for whole JSON documents). A cut
    /// keeps the text read before it (a JSON reader then finds where the
    /// last whole record ends).
    pub fn rest_to_string(&mut self) -> Result<String, ReadError> {
        let mut bytes = Vec::new();
        match self.reader.read_to_end(&mut bytes) {
            Ok(_) => self.text_bytes += bytes.len() as u64,
            Err(e) => {
                self.cut_here(&e, &bytes)?;
                if let Some(cut) = self.cut.as_mut() {
                    // The text is kept whole: the cut is at its last line.
                    cut.line += memchr::memchr_iter(b'\n', &bytes).count() as u64;
                    cut.partial = None;
                }
            }
        }
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
        let data: &[u8] = self.data.strip_suffix(b"\n").unwrap_or(&self.data);
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
            // `start` is at most one past the last line end, so inside `data`.
            let end = match memchr::memchr(b'\n', data.get(start..)?) {
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
            if end > from && data.get(end - 1) == Some(&b'\r') {
                end -= 1;
            }
            // A valid chunk is checked once; line ends are ASCII, so every
            // line of it is a valid `str` slice.
            if let Some(line) = text.and_then(|t| t.get(from..end)) {
                return (first + i as u64, std::borrow::Cow::Borrowed(line), false);
            }
            let raw = data.get(from..end).unwrap_or_default();
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
        if let Err(e) = self.fill_chunk(target, continuations, &mut data) {
            // What follows the last line end is an unfinished line: kept
            // with the cut, not parsed. The cut is placed after the whole
            // lines of this chunk, which are still handed out.
            let whole = memchr::memrchr(b'\n', &data).map_or(0, |i| i + 1);
            let partial = data.split_off(whole);
            let (line, text_bytes) = (self.line, self.text_bytes);
            self.line += memchr::memchr_iter(b'\n', &data).count() as u64;
            self.text_bytes += data.len() as u64;
            let cut = self.cut_here(&e, &partial);
            (self.line, self.text_bytes) = (line, text_bytes);
            cut?;
        }
        if data.is_empty() {
            return Ok(None);
        }
        self.text_bytes += data.len() as u64;
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
    /// Read about `target` bytes of whole lines into `data` (see
    /// [`Lines::next_chunk`]); on an error, `data` holds what was read.
    fn fill_chunk(
        &mut self,
        target: usize,
        continuations: &[String],
        data: &mut Vec<u8>,
    ) -> std::io::Result<()> {
        // Straight into the chunk: a large read bypasses the reader's own
        // buffer, one copy fewer than going through it.
        let want = target as u64;
        let got = (&mut self.reader).take(want).read_to_end(data)?;
        if got as u64 == want && data.last() != Some(&b'\n') {
            // Full: finish the line we are in.
            self.reader.read_until(b'\n', data)?;
        }
        while !continuations.is_empty() && data.last() == Some(&b'\n') {
            let buf = self.reader.fill_buf()?;
            if !continuations.iter().any(|c| buf.starts_with(c.as_bytes())) {
                break;
            }
            self.reader.read_until(b'\n', data)?;
        }
        Ok(())
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
            Err(e) => return self.cut_here(&e, &[]).err().map(Err),
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
            Ok(n) => {
                self.line += 1;
                self.text_bytes += n as u64;
                let mut bytes: &[u8] = &self.buf;
                while let [rest @ .., b'\n' | b'\r'] = bytes {
                    bytes = rest;
                }
                // The BOM holds no line end, so the trim above left it whole.
                if self.line == 1 {
                    bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
                }
                let text = match std::str::from_utf8(bytes) {
                    Ok(s) => s.to_string(),
                    Err(_) => {
                        self.invalid_utf8 += 1;
                        String::from_utf8_lossy(bytes).into_owned()
                    }
                };
                Some(Ok((self.line, text)))
            }
            Err(e) => {
                let partial = std::mem::take(&mut self.buf);
                let cut = self.cut_here(&e, &partial);
                self.buf = partial;
                cut.err().map(Err)
            }
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
