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
