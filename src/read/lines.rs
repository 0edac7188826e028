//! Splitting a stream into numbered lines: CRLF and a leading BOM removed,
//! invalid UTF-8 replaced lossily and counted.

use std::io::BufRead;

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
