//! A skipped line kept for diagnostics: explained on the whole line, shown
//! as a window of it.
//!
//! Regression (issue 12): kept lines were cut to 400 characters when
//! skipped, and the explanation then read the cut copy: a structlog line
//! with a long `exception` was explained as "invalid JSON: EOF while
//! parsing a string" at column 400. The line is now kept whole until it is
//! explained, and only then cut to a window around the column.
//!
//! In: a [`BadLine`] holding its whole line and the input's format. Out:
//! the same line with its [`Mismatch`] and at most [`SHOWN_CHARS`]
//! characters of text around it (`text_from` says where they start).

use super::BadLine;
use crate::formats::Format;

/// Characters of a bad line shown in a diagnostic.
pub const SHOWN_CHARS: usize = 400;

impl BadLine {
    /// Find where the whole line stops matching `format`, then keep only
    /// the window of it a diagnostic shows.
    pub(crate) fn explain(&mut self, format: &Format) {
        if self.reason != "blank line" && !self.text.is_empty() && self.mismatch.is_none() {
            self.mismatch = format.mismatch(&self.text, &self.reason);
        }
        self.shrink();
    }

    /// Cut the text to [`SHOWN_CHARS`] characters around the mismatch
    /// (its start when there is none); the mismatch's column stays the
    /// column in the whole line, its offset moves into the window.
    fn shrink(&mut self) {
        let chars = self.text.chars().count();
        if chars <= SHOWN_CHARS {
            return;
        }
        let at = self.mismatch.as_ref().map_or(0, |m| m.column - 1);
        let from = at.saturating_sub(SHOWN_CHARS / 2).min(chars - SHOWN_CHARS);
        let start = byte_of_char(&self.text, from);
        let end = byte_of_char(&self.text, from + SHOWN_CHARS);
        self.text = self.text.get(start..end).unwrap_or_default().to_string();
        if let Some(m) = self.mismatch.as_mut() {
            m.offset = m.offset.saturating_sub(start).min(self.text.len());
        }
        self.text_from += from;
    }
}

/// The byte offset of the `n`th character (the length past the end).
fn byte_of_char(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Catalogue;

    /// A structlog-style line, several hundred bytes with escaped quotes
    /// and `\n` in its traceback, missing the key a format requires.
    fn long_line() -> String {
        let exception = "Traceback (most recent call last):\\n  File \\\"/srv/app/views.py\\\", line 42, in handle\\n    order = Order.objects.get(id=order_id)\\n  File \\\"/srv/app/db.py\\\", line 19, in get\\n    raise OperationalError(\\\"pool exhausted: \\\\\\\"default\\\\\\\" (timeout 30s)\\\")\\napp.db.OperationalError: pool exhausted";
        format!(
            r#"{{"event": "request failed", "level": "error", "logger": "app.http", "timestamp": "2026-10-01T07:00:00Z", "exception": "{exception}", "involvedObject": {{"name": "a"}}}}"#
        )
    }

    #[test]
    fn the_explanation_reads_the_whole_line() {
        let cat = Catalogue::builtin().expect("catalogue");
        let k8s = &cat.formats[cat.find("k8s_events").expect("k8s_events")];
        let line = long_line();
        assert!(line.chars().count() > SHOWN_CHARS, "{}", line.len());
        serde_json::from_str::<serde_json::Value>(&line).expect("the line is valid JSON");
        // Kept as a skip keeps it, explained as a parse explains it.
        let mut stats = super::super::InputStats::default();
        stats.skip(3, "a required field is missing", &line);
        stats.explain_bad_lines(k8s);
        let b = &stats.bad_lines[0];
        let expected = b.expected().to_string();
        assert!(!expected.contains("invalid JSON"), "{expected}");
        assert!(expected.contains("`reason`"), "{expected}");
        assert_eq!(b.text.chars().count(), SHOWN_CHARS);
        assert!(line.starts_with(&b.text));
    }

    #[test]
    fn a_long_line_is_shown_around_its_column() {
        let cat = Catalogue::builtin().expect("catalogue");
        let nginx = &cat.formats[cat.find("nginx_combined").expect("nginx_combined")];
        let path = "x".repeat(1000);
        let line = format!("203.0.113.7 - - [01/Oct/2026:13:26:55 +0530] \"GET /{path} HTTP/1.1\" 2OO 5 \"-\" \"curl/8\"");
        let column = line.find("2OO").expect("status") + 2;
        let mut b = BadLine {
            line: 1,
            reason: "does not match the format".into(),
            text: line.clone(),
            mismatch: None,
            text_from: 0,
        };
        b.explain(nginx);
        assert_eq!(b.column(), column, "the column in the whole line");
        let m = b.mismatch.clone().expect("mismatch");
        assert_eq!(
            &b.text[m.offset..m.offset + 1],
            "O",
            "the window points at it"
        );
        assert_eq!(b.text_from + b.text[..m.offset].chars().count() + 1, column);
        let shown = b.diagnostic("access.log").to_string();
        assert!(shown.contains(&format!("access.log:1:{column}")), "{shown}");
    }
}
