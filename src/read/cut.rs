//! Inputs that end early: a download cut short, a corrupt `.gz`/`.zst`, a
//! disk that fails part-way. What was read before the failure is kept and
//! analysed; the failure becomes a [`Cut`] that names where it happened,
//! for the report's warnings.
//!
//! In: the raw stream of an input (counted by [`Counted`]) and the read
//! error. Out: a [`Cut`]: the byte of the file and the line reached, the
//! reason, and the unfinished last line (which is counted as skipped, not
//! parsed: a line cut short can read as a wrong value).

use std::io::{self, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Where an input stopped being readable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cut {
    /// Bytes of the file (compressed, for `.gz`/`.zst`) read before the failure.
    pub file_byte: u64,
    /// Bytes of text (after decompression) read before the failure.
    pub text_byte: u64,
    /// The last line read whole (0: none).
    pub line: u64,
    /// What the reader said (`incomplete deflate stream`).
    pub reason: String,
    /// The text of a line the cut fell inside, if any.
    pub partial: Option<String>,
}

impl Cut {
    /// The warning the report shows for an input cut here.
    pub fn warning(&self, path: &str) -> String {
        let partial = if self.partial.is_some() {
            format!(", inside line {}", self.line + 1)
        } else {
            String::new()
        };
        format!(
            "{path}: the input is cut at byte {} ({} bytes of text, after line {}{partial}): {}; the lines before the cut are analysed",
            self.file_byte, self.text_byte, self.line, self.reason
        )
    }
}

/// A reader that counts the bytes read through it, for [`Cut::file_byte`]
/// (the decoder runs on another thread: the count is shared).
pub struct Counted<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Counted<R> {
    pub fn new(inner: R) -> (Counted<R>, Arc<AtomicU64>) {
        let count = Arc::new(AtomicU64::new(0));
        (
            Counted {
                inner,
                count: Arc::clone(&count),
            },
            count,
        )
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counted_counts_what_passes() {
        let (mut r, count) = Counted::new(io::Cursor::new(vec![7u8; 1000]));
        let mut out = Vec::new();
        r.read_to_end(&mut out).map_err(|e| e.to_string()).ok();
        assert_eq!(count.load(Ordering::Relaxed), 1000);
    }

    #[test]
    fn the_warning_names_byte_line_and_reason() {
        let cut = Cut {
            file_byte: 5120,
            text_byte: 40960,
            line: 311,
            reason: "incomplete deflate stream".into(),
            partial: Some("203.0.113.7 - - [01/Oct".into()),
        };
        assert_eq!(
            cut.warning("access.log.gz"),
            "access.log.gz: the input is cut at byte 5120 (40960 bytes of text, after line 311, inside line 312): incomplete deflate stream; the lines before the cut are analysed"
        );
    }
}
