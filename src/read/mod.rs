//! Reading inputs: files, directories (recursively), standard input, and
//! gzip/zstd streams recognised by their magic bytes whatever their name,
//! and Docker Engine API log streams recognised by their frame headers.
//! Compressed streams are inflated on a thread of their own.
//!
//! In: the paths given on the command line. Out: one [`Input`] per file or
//! stream, whose [`Lines`] yield `(line number, text)` with CRLF and a BOM
//! removed and invalid UTF-8 replaced (and counted).
//!
//! ```text
//! ["samples/bulk-export", "-"] -> [Input "samples/bulk-export/access.log.gz", ..., Input "<stdin>"]
//! ```

mod cut;
mod docker_stream;
mod error;
mod input;
mod lines;
mod pipe;

pub use cut::Cut;
pub use error::ReadError;
pub use input::{open_all, open_each, Input};
pub use lines::{Chunk, Lines};
