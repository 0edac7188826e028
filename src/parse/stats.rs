//! The account of one input: every line is parsed or skipped with a reason
//! (`lines == parsed + skipped`), a few bad lines kept for diagnostics.
//!
//! In: what the readers counted, line by line (and workers' accounts to
//! merge). Out: an [`InputStats`] for the report, `formats check` and
//! `--strict`.
//!
//! ```text
//! skip(3, "blank line", "") + parsed_at(ts) x 2 -> InputStats { lines: 3, parsed: 2, skipped: 1, .. }
//! ```

use std::collections::BTreeMap;

use crate::event::Millis;
use crate::formats::Format;

/// Bad lines kept per input for `--strict` and `formats check`.
const KEEP_BAD: usize = 5;

/// A line that was skipped, kept for diagnostics.
#[derive(Clone, Debug, PartialEq)]
pub struct BadLine {
    pub line: u64,
    pub reason: String,
    pub text: String,
    /// Where the line stops matching the input's format, once known
    /// (`formats/mismatch.rs`); `None`: nothing better than column 1.
    pub mismatch: Option<crate::formats::Mismatch>,
    /// Characters of the line before `text` (a long line is shown as a
    /// window around its column, once explained).
    pub text_from: usize,
}

impl BadLine {
    /// 1-based column where the line stops matching.
    pub fn column(&self) -> usize {
        self.mismatch.as_ref().map_or(1, |m| m.column)
    }

    /// What the format expected at [`BadLine::column`] (the skip reason
    /// when nothing more precise is known).
    pub fn expected(&self) -> &str {
        self.mismatch
            .as_ref()
            .map_or(self.reason.as_str(), |m| m.expected.as_str())
    }
}

/// What happened to one input.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputStats {
    pub path: String,
    pub format: String,
    pub score: f64,
    pub compression: String,
    /// Records: physical lines, or for JSON documents the records in them.
    pub lines: u64,
    pub parsed: u64,
    pub skipped: u64,
    pub skipped_by_reason: BTreeMap<String, u64>,
    /// Parsed records that cannot be put on the timeline (no time of their
    /// own: a Prometheus sample without a timestamp, a continuation line, a
    /// logger configured without timestamps), by reason.
    pub unplaced_by_reason: BTreeMap<String, u64>,
    pub first_ts: Option<Millis>,
    pub last_ts: Option<Millis>,
    pub invalid_utf8: u64,
    /// Timestamps without a zone were read in `--input-tz`.
    pub zoneless: bool,
    pub documents: bool,
    /// For envelopes: the format of the lines inside.
    pub inner_format: Option<String>,
    pub bad_lines: Vec<BadLine>,
    /// Why no format reads the input (`formats check` answers for it too).
    pub refused: Option<String>,
    /// Records read by other formats than `format` (the fallbacks of a
    /// mixed file, the generic reader), by format.
    pub read_by: BTreeMap<String, u64>,
    /// Where the input stopped being readable (a `.gz` cut short): the
    /// lines before it are read and counted.
    pub cut: Option<crate::read::Cut>,
    /// Why the input could not be read at all (given with others, which
    /// are read): no lines, no format.
    pub unreadable: Option<String>,
    /// The input given first that is the same file as this one (read once).
    pub same_as: Option<String>,
    /// The format the skipped lines read as, when not the input's own
    /// (two exports concatenated in one file).
    pub second_format: Option<String>,
}

impl InputStats {
    pub(crate) fn skip(&mut self, line: u64, reason: &str, text: &str) {
        self.lines += 1;
        self.skipped += 1;
        *self
            .skipped_by_reason
            .entry(reason.to_string())
            .or_insert(0) += 1;
        if self.bad_lines.len() < KEEP_BAD {
            self.bad_lines.push(BadLine {
                line,
                reason: reason.to_string(),
                // Whole until explained (`bad_line.rs`): an explanation
                // never reads less than the line.
                text: text.to_string(),
                mismatch: None,
                text_from: 0,
            });
        }
    }

    /// Find where each kept bad line stops matching `format` (only the few
    /// kept lines: the search compiles a DFA per pattern).
    pub(super) fn explain_bad_lines(&mut self, format: &Format) {
        for b in &mut self.bad_lines {
            b.explain(format);
        }
    }

    /// An input that could not be read at all, listed with why.
    pub fn unreadable(path: &str, why: &str) -> InputStats {
        InputStats {
            path: path.to_string(),
            format: "unreadable".to_string(),
            unreadable: Some(why.to_string()),
            ..InputStats::default()
        }
    }

    /// An input that is the same file as one given before it.
    pub fn same_as(path: &str, first: &str) -> InputStats {
        InputStats {
            path: path.to_string(),
            format: "same file as another input".to_string(),
            same_as: Some(first.to_string()),
            ..InputStats::default()
        }
    }

    /// The last `open` lines (up to `last`) held a record the input ends
    /// inside (a quoted CSV field never closed): counted as read while they
    /// waited, they are skipped, and the input is marked cut there.
    pub(super) fn cut_inside_record(&mut self, last: u64, open: u64) {
        let open = open.min(self.parsed);
        self.parsed -= open;
        self.skipped += open;
        *self
            .skipped_by_reason
            .entry(super::CUT_ROW.to_string())
            .or_insert(0) += open;
        self.cut = Some(crate::read::Cut {
            line: last.saturating_sub(open),
            reason: "the input ends inside a quoted CSV field".to_string(),
            ..Default::default()
        });
    }

    /// Take the input's cut, if it has one: an unfinished last line is
    /// counted as skipped (read in part, it could give wrong values).
    pub(super) fn settle_cut(&mut self, lines: &mut crate::read::Lines) {
        // A cut the parse found (a CSV row, a JSON document) is at the end
        // of what was read.
        if let Some(cut) = self.cut.as_mut().filter(|c| c.file_byte == 0) {
            (cut.file_byte, cut.text_byte) = lines.bytes_read();
        }
        let Some(cut) = lines.take_cut() else { return };
        if let Some(partial) = &cut.partial {
            self.skip(cut.line + 1, super::CUT_SHORT, partial);
        }
        self.cut = Some(cut);
    }

    /// Fold a worker's statistics in.
    pub(super) fn merge(&mut self, o: InputStats) {
        self.lines += o.lines;
        self.parsed += o.parsed;
        self.skipped += o.skipped;
        for (k, v) in o.skipped_by_reason {
            *self.skipped_by_reason.entry(k).or_insert(0) += v;
        }
        for (k, v) in o.unplaced_by_reason {
            *self.unplaced_by_reason.entry(k).or_insert(0) += v;
        }
        self.first_ts = [self.first_ts, o.first_ts].into_iter().flatten().min();
        self.last_ts = [self.last_ts, o.last_ts].into_iter().flatten().max();
        self.invalid_utf8 += o.invalid_utf8;
        self.zoneless |= o.zoneless;
        for (k, v) in o.read_by {
            *self.read_by.entry(k).or_insert(0) += v;
        }
        self.bad_lines.extend(o.bad_lines);
        self.bad_lines.sort_by_key(|b| b.line);
        self.bad_lines.truncate(KEEP_BAD);
    }

    /// `n` records of this input were read by the other format `by`.
    pub(crate) fn read_by(&mut self, by: &str, n: u64) {
        match self.read_by.get_mut(by) {
            Some(count) => *count += n,
            None => {
                self.read_by.insert(by.to_string(), n);
            }
        }
    }

    pub(crate) fn parsed_without_event(&mut self) {
        self.lines += 1;
        self.parsed += 1;
    }

    pub(crate) fn parsed_unplaced(&mut self, reason: &str) {
        self.parsed_without_event();
        *self
            .unplaced_by_reason
            .entry(reason.to_string())
            .or_insert(0) += 1;
    }

    pub(crate) fn parsed_at(&mut self, ts: Millis) {
        self.lines += 1;
        self.parsed += 1;
        self.first_ts = Some(self.first_ts.map_or(ts, |f| f.min(ts)));
        self.last_ts = Some(self.last_ts.map_or(ts, |l| l.max(ts)));
    }
}
