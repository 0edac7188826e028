//! Decompression on a thread of its own: a gzip or zstd stream is inflated
//! by a thread that hands blocks of text over a bounded channel, so the
//! parsing workers never wait on the decoder and the decoder never waits on
//! them, up to a few blocks ahead.
//!
//! In: a decoder (any `Read`). Out: a [`Pipe`] that reads the same bytes.

use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver};

/// Bytes per block handed over.
const BLOCK: usize = 1 << 20;
/// Blocks the decoder may run ahead.
const AHEAD: usize = 4;

/// The reading end of a decoder thread.
pub struct Pipe {
    rx: Receiver<io::Result<Vec<u8>>>,
    block: Vec<u8>,
    at: usize,
}

impl Pipe {
    /// Start a thread that reads `source` to its end (or its first error).
    /// The thread stops when the pipe is dropped.
    pub fn spawn(mut source: impl Read + Send + 'static) -> Pipe {
        let (tx, rx) = sync_channel(AHEAD);
        std::thread::spawn(move || loop {
            let mut block = Vec::with_capacity(BLOCK);
            let sent = match (&mut source).take(BLOCK as u64).read_to_end(&mut block) {
                Ok(0) => break,
                Ok(_) => tx.send(Ok(block)),
                Err(e) => {
                    // What was inflated before the failure is text too: a
                    // stream cut short keeps it.
                    if !block.is_empty() && tx.send(Ok(block)).is_err() {
                        break;
                    }
                    let _ = tx.send(Err(e));
                    break;
                }
            };
            // The reader is gone (the run ended early): stop decoding.
            if sent.is_err() {
                break;
            }
        });
        Pipe {
            rx,
            block: Vec::new(),
            at: 0,
        }
    }
}

impl Read for Pipe {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.at == self.block.len() {
            match self.rx.recv() {
                Ok(Ok(block)) => {
                    self.block = block;
                    self.at = 0;
                }
                Ok(Err(e)) => return Err(e),
                // The thread ended: the end of the stream.
                Err(_) => return Ok(0),
            }
        }
        // `&[u8]`'s read copies what fits of the rest of the block.
        let mut rest = self.block.get(self.at..).unwrap_or_default();
        let n = rest.read(out)?;
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_reads_what_its_source_holds() {
        let data: Vec<u8> = (0..3 * BLOCK + 17).map(|i| (i % 251) as u8).collect();
        let mut got = Vec::new();
        Pipe::spawn(io::Cursor::new(data.clone()))
            .read_to_end(&mut got)
            .expect("read");
        assert_eq!(got, data);
    }

    /// Regression: the bytes inflated before a corrupt block were dropped
    /// with the block, so a cut `.gz` lost up to a block of lines.
    #[test]
    fn bytes_before_an_error_reach_the_reader_then_the_error() {
        let data = b"first line\nsecond".to_vec();
        let source = io::Cursor::new(data.clone()).chain(Broken);
        let mut pipe = Pipe::spawn(source);
        let mut got = Vec::new();
        let err = pipe.read_to_end(&mut got).expect_err("error");
        assert_eq!(got, data);
        assert!(err.to_string().contains("corrupt"), "{err}");
    }

    struct Broken;
    impl Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "corrupt deflate stream",
            ))
        }
    }

    #[test]
    fn a_source_error_reaches_the_reader() {
        let err = Pipe::spawn(Broken)
            .read_to_end(&mut Vec::new())
            .expect_err("error");
        assert!(err.to_string().contains("corrupt"));
    }
}
