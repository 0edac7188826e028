//! Docker Engine API log streams (`GET /containers/{id}/logs` of a container
//! without a TTY, saved as it came): every chunk of output is a frame, an
//! 8-byte header (stream `0`/`1`/`2`, three zero bytes, the payload length
//! as a big-endian u32) and the payload. Frames are transport chunks, not
//! lines: a line longer than 16 KiB comes in several frames, and with
//! `timestamps=1` each of them repeats the line's timestamp.
//!
//! In: the raw body. Out: the payloads joined into the text `docker logs`
//! prints, a repeated timestamp inside a line dropped.
//!
//! ```text
//! 01 00 00 00 00 00 00 2a  "2026-10-01T07:58:06.113456789Z GET /a 200\n"
//!   -> 2026-10-01T07:58:06.113456789Z GET /a 200
//! ```

use std::io::{self, Read};

/// Frame header length.
const HEADER: usize = 8;
/// A frame longer than this is not one (Docker writes at most 16 KiB of a
/// line per frame, plus its timestamp): the input is something else.
const MAX_FRAME: u32 = 1 << 20;

/// Whether a stream's first bytes are Docker frames: each whole header in
/// `head` is well formed, and there is at least one.
pub fn is_docker_stream(head: &[u8]) -> bool {
    let mut rest = head;
    let mut frames = 0;
    while let Some(header) = rest.get(..HEADER) {
        match frame_len(header) {
            Some(len) => {
                // A frame running past `head` ends the look.
                rest = rest.get(HEADER + len as usize..).unwrap_or_default();
                frames += 1;
            }
            None => return false,
        }
    }
    frames > 0
}

/// The payload length a header announces, or `None` when it is no header.
fn frame_len(header: &[u8]) -> Option<u32> {
    match header {
        [0..=2, 0, 0, 0, a, b, c, d] => {
            let len = u32::from_be_bytes([*a, *b, *c, *d]);
            (len > 0 && len <= MAX_FRAME).then_some(len)
        }
        _ => None,
    }
}

/// The timestamp that opens a line (`2026-10-01T07:58:06.113456789Z `), if any.
fn timestamp_prefix(line: &[u8]) -> Option<&[u8]> {
    let space = line.iter().take(40).position(|b| *b == b' ')?;
    let ts = line.get(..space)?;
    let looks = ts.len() >= 20
        && matches!(ts, [y0, y1, y2, y3, b'-', _, _, _, _, _, b'T', ..]
            if [y0, y1, y2, y3].iter().all(|b| b.is_ascii_digit()));
    if looks {
        line.get(..=space)
    } else {
        None
    }
}

/// Reads a Docker log stream as the text it carries.
pub struct DockerStream<R> {
    inner: R,
    /// The current frame's payload, and how much of it was handed out.
    frame: Vec<u8>,
    pos: usize,
    /// The timestamp prefix of the line being read, while it is unfinished.
    open_line: Option<Vec<u8>>,
}

impl<R: Read> DockerStream<R> {
    pub fn new(inner: R) -> DockerStream<R> {
        DockerStream {
            inner,
            frame: Vec::new(),
            pos: 0,
            open_line: None,
        }
    }

    /// Read the next frame; `false` at the end of the stream.
    fn next_frame(&mut self) -> io::Result<bool> {
        let mut header = [0u8; HEADER];
        let mut got = 0;
        while got < HEADER {
            let Some(rest) = header.get_mut(got..) else {
                break;
            };
            match self.inner.read(rest)? {
                0 if got == 0 => return Ok(false),
                0 => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "Docker log stream: a frame header is cut short",
                    ))
                }
                n => got += n,
            }
        }
        let len = frame_len(&header).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "Docker log stream: a frame header is not well formed",
            )
        })?;
        self.frame.clear();
        self.frame.resize(len as usize, 0);
        // A last frame cut short keeps what arrived.
        let mut filled = 0;
        while filled < self.frame.len() {
            let Some(rest) = self.frame.get_mut(filled..) else {
                break;
            };
            match self.inner.read(rest)? {
                0 => break,
                n => filled += n,
            }
        }
        self.frame.truncate(filled);
        self.pos = 0;
        // The rest of a long line repeats its timestamp: drop it.
        let continued = self.open_line.take();
        if let Some(prefix) = &continued {
            if self.frame.starts_with(prefix) {
                self.pos = prefix.len();
            }
        }
        if self.frame.last().is_some_and(|b| *b != b'\n') {
            self.open_line = match self.frame.iter().rposition(|b| *b == b'\n') {
                Some(i) => self
                    .frame
                    .get(i + 1..)
                    .and_then(timestamp_prefix)
                    .map(<[u8]>::to_vec),
                None => continued.or_else(|| timestamp_prefix(&self.frame).map(<[u8]>::to_vec)),
            };
        }
        Ok(true)
    }
}

impl<R: Read> Read for DockerStream<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos >= self.frame.len() {
            if !self.next_frame()? {
                return Ok(0);
            }
        }
        // The loop above left `pos` inside the frame; `&[u8]`'s read copies what fits.
        let mut rest = self.frame.get(self.pos..).unwrap_or_default();
        let n = rest.read(buf)?;
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(stream: u8, payload: &str) -> Vec<u8> {
        let mut out = vec![stream, 0, 0, 0];
        out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
        out.extend_from_slice(payload.as_bytes());
        out
    }

    fn read_all(bytes: Vec<u8>) -> String {
        let mut out = String::new();
        DockerStream::new(io::Cursor::new(bytes))
            .read_to_string(&mut out)
            .expect("read");
        out
    }

    #[test]
    fn frames_are_joined_into_their_text() {
        let mut bytes = frame(1, "2026-10-01T07:58:06.113456789Z GET /a 200\n");
        bytes.extend(frame(2, "2026-10-01T07:58:06.200000000Z pool timeout\n"));
        assert!(is_docker_stream(&bytes));
        assert_eq!(
            read_all(bytes),
            "2026-10-01T07:58:06.113456789Z GET /a 200\n2026-10-01T07:58:06.200000000Z pool timeout\n"
        );
    }

    #[test]
    fn a_long_line_split_over_frames_is_one_line() {
        let mut bytes = frame(1, "2026-10-01T07:58:06.113456789Z aaaa");
        bytes.extend(frame(1, "2026-10-01T07:58:06.113456789Z bb\n"));
        bytes.extend(frame(1, "2026-10-01T07:58:07.000000000Z next\n"));
        assert_eq!(
            read_all(bytes),
            "2026-10-01T07:58:06.113456789Z aaaabb\n2026-10-01T07:58:07.000000000Z next\n"
        );
    }

    #[test]
    fn text_and_broken_frames_are_not_streams() {
        let cases: [(&str, &[u8], bool); 4] = [
            ("text", b"2026-10-01T07:58:06Z GET /a 200\n", false),
            ("bad stream byte", &[7, 0, 0, 0, 0, 0, 0, 1, b'x'], false),
            ("empty frame", &[1, 0, 0, 0, 0, 0, 0, 0], false),
            ("header only", &[1, 0, 0, 0, 0, 0, 0, 3], true),
        ];
        for (name, head, want) in cases {
            assert_eq!(is_docker_stream(head), want, "{name}");
        }
    }

    #[test]
    fn a_cut_header_is_an_error_not_a_panic() {
        let mut bytes = frame(1, "2026-10-01T07:58:06.113456789Z a\n");
        bytes.extend_from_slice(&[1, 0, 0]);
        let mut out = String::new();
        let err = DockerStream::new(io::Cursor::new(bytes)).read_to_string(&mut out);
        assert!(err.is_err());
    }
}
