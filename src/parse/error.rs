//! Errors of the parse stage: an input whose format is unknown, an empty
//! input, a read failure part-way, and `--strict` bad lines.

use miette::{Diagnostic, MietteError, MietteSpanContents, NamedSource, SourceSpan, SpanContents};
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
        code(postmortem::parse::bad_line),
        help("lines no format reads are counted and skipped; --strict makes them an error")
    )]
    BadLine {
        path: String,
        line: u64,
        column: usize,
        reason: String,
        /// What the format expected at the column.
        expected: String,
        #[source_code]
        src: LineSource,
        #[label("{expected}")]
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

/// One line of an input as diagnostic source: miette numbers it with its
/// line in the input (`access.log:6:66`), not as line 1 of a one-line text.
#[derive(Debug, Clone)]
pub struct LineSource {
    name: String,
    text: String,
    /// 1-based line of `text` in the input.
    line: u64,
    /// Characters of the line before `text` (a window of a long line).
    column_from: usize,
}

impl LineSource {
    pub fn new(name: impl Into<String>, text: impl Into<String>, line: u64) -> LineSource {
        LineSource {
            name: name.into(),
            text: text.into(),
            line,
            column_from: 0,
        }
    }

    /// The same, for a window of the line that starts after `chars` characters.
    pub fn starting_at_column(mut self, chars: usize) -> LineSource {
        self.column_from = chars;
        self
    }
}

impl miette::SourceCode for LineSource {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self.text.read_span(span, before, after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line() + self.line.saturating_sub(1) as usize,
            inner.column() + self.column_from,
            inner.line_count(),
        )))
    }
}

impl super::BadLine {
    /// This bad line of the input at `path` as a diagnostic pointing at its column.
    pub fn diagnostic(&self, path: &str) -> ParseError {
        let offset = self
            .mismatch
            .as_ref()
            .map_or(0, |m| m.offset.min(self.text.len()));
        // One character under the caret; a line cut short gets a space at
        // its end for the caret to point at.
        let (text, len) = match self.text.get(offset..).and_then(|t| t.chars().next()) {
            Some(c) => (self.text.clone(), c.len_utf8()),
            None => (format!("{} ", self.text), 1),
        };
        ParseError::BadLine {
            path: path.to_string(),
            line: self.line,
            column: self.column(),
            reason: self.reason.clone(),
            expected: self.expected().to_string(),
            src: LineSource::new(path, text, self.line).starting_at_column(self.text_from),
            span: (offset, len).into(),
        }
    }
}
