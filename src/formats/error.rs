//! Errors in format definitions and rule files: each points into the file.

use miette::{Diagnostic, NamedSource, SourceSpan};
use thiserror::Error;

#[derive(Debug, Error, Diagnostic)]
pub enum FormatError {
    #[error("{file}: not a valid format definition: {message}")]
    #[diagnostic(
        code(postmortem::formats::invalid),
        help("see parsers/README.md for the definition schema")
    )]
    Invalid {
        file: String,
        message: String,
        #[source_code]
        src: NamedSource<String>,
        #[label("here")]
        span: SourceSpan,
    },

    #[error("{file}: pattern {index} of `{name}` does not compile: {message}")]
    #[diagnostic(
        code(postmortem::formats::bad_regex),
        help("patterns use Rust regex syntax (no look-around)")
    )]
    BadRegex {
        file: String,
        name: String,
        index: usize,
        message: String,
        #[source_code]
        src: NamedSource<String>,
        #[label("this pattern")]
        span: SourceSpan,
    },

    #[error("{file}: `{role}` is not a known role")]
    #[diagnostic(
        code(postmortem::formats::unknown_role),
        help("capture names must be roles from parsers/README.md (ts, method, path, status, ...)")
    )]
    UnknownRole {
        file: String,
        role: String,
        #[source_code]
        src: NamedSource<String>,
        #[label("unknown role")]
        span: SourceSpan,
    },

    #[error("{file}: sample {index} of `{name}` {problem}")]
    #[diagnostic(
        code(postmortem::formats::sample),
        help("every sample line must parse and give its `expect` values")
    )]
    Sample {
        file: String,
        name: String,
        index: usize,
        problem: String,
        #[source_code]
        src: NamedSource<String>,
        #[label("this sample")]
        span: SourceSpan,
    },

    #[error("cannot read format directory {path}: {message}")]
    #[diagnostic(code(postmortem::formats::dir))]
    Dir { path: String, message: String },

    #[error("two definitions are named `{name}` ({first} and {second})")]
    #[diagnostic(
        code(postmortem::formats::duplicate),
        help("format names must be unique")
    )]
    Duplicate {
        name: String,
        first: String,
        second: String,
    },
}

/// Byte offset of a 1-based line and column in `text`.
pub(crate) fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return (offset + column.saturating_sub(1)).min(text.len());
        }
        offset += l.len();
    }
    text.len()
}

/// The span of the first occurrence of `needle` (as it appears JSON-escaped
/// in the file), or the start of the file.
pub(crate) fn span_of(text: &str, needle: &str) -> SourceSpan {
    let escaped = serde_json::to_string(needle).unwrap_or_default();
    let inner = escaped.trim_matches('"');
    match text.find(inner) {
        Some(at) if !inner.is_empty() => (at, inner.len()).into(),
        _ => (0, 0).into(),
    }
}
