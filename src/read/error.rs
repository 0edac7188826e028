//! Errors while opening or reading inputs.

use miette::Diagnostic;
use thiserror::Error;

#[derive(Debug, Error, Diagnostic)]
pub enum ReadError {
    #[error("cannot open {path}: {message}")]
    #[diagnostic(
        code(postmortem::read::open),
        help("check the path and its permissions")
    )]
    Open { path: String, message: String },

    #[error("cannot read {path}: {message}")]
    #[diagnostic(
        code(postmortem::read::io),
        help("a truncated or corrupt .gz/.zst stream gives this too")
    )]
    Io { path: String, message: String },

    #[error("no input: {what}")]
    #[diagnostic(
        code(postmortem::read::empty),
        help("give a file, a directory with logs, or `-` for standard input")
    )]
    Empty { what: String },
}

impl ReadError {
    /// The input the error is about, if it is about one.
    pub fn path(&self) -> Option<&str> {
        match self {
            ReadError::Open { path, .. } | ReadError::Io { path, .. } => Some(path),
            ReadError::Empty { .. } => None,
        }
    }

    /// Why the input could not be read, without its path.
    pub fn reason(&self) -> &str {
        match self {
            ReadError::Open { message, .. } | ReadError::Io { message, .. } => message,
            ReadError::Empty { what } => what,
        }
    }
}
