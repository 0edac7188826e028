//! Errors of the parse stage: an input whose format is unknown, an empty
//! input, a read failure part-way, and `--strict` bad lines.

use miette::{Diagnostic, NamedSource, SourceSpan};
use thiserror::Error;

use crate::read::ReadError;

#[derive(Debug, Error, Diagnostic)]
pub enum ParseError {
    #[error("{path}: no known format reads this input (best: {best})")]
    #[diagnostic(
        code(postmortem::parse::unknown_format),
        help("`postmortem formats` lists the known formats; --format NAME forces one, --formats-dir DIR adds definitions")
    )]
    UnknownFormat {
        path: String,
        best: String,
        #[source_code]
        src: NamedSource<String>,
        #[label("first line")]
        span: SourceSpan,
    },

    #[error("{path}: the input is empty")]
    #[diagnostic(
        code(postmortem::parse::empty),
        help("export the logs again, or leave this input out")
    )]
    Empty { path: String },

    #[error("unknown format `{name}`")]
    #[diagnostic(
        code(postmortem::parse::no_such_format),
        help("`postmortem formats` lists the known formats")
    )]
    NoSuchFormat { name: String },

    #[error("{path}:{line}:{column}: {reason}")]
    #[diagnostic(
        code(postmortem::parse::strict),
        help("without --strict such lines are counted and skipped")
    )]
    BadLine {
        path: String,
        line: u64,
        column: usize,
        reason: String,
        #[source_code]
        src: NamedSource<String>,
        #[label("{reason}")]
        span: SourceSpan,
    },

    #[error("{path}: a parsing thread stopped unexpectedly")]
    #[diagnostic(
        code(postmortem::parse::worker),
        help("this is a bug in postmortem; --threads 1 avoids threads")
    )]
    Worker { path: String },

    #[error(transparent)]
    #[diagnostic(transparent)]
    Read(#[from] ReadError),
}
