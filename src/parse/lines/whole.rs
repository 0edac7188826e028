//! Kinds whose syntax is read whole (YAML): every line first, then one
//! reading, then each line counted with what it gave, as if read one by one.
//!
//! In: the input's lines. Out: their events and counts, through the same
//! settling as a line read alone ([`LineCx`]).

use std::borrow::Cow;

use super::super::kind::code_events;
use super::super::stats::InputStats;
use super::LineCx;
use crate::event::{EventSink, Origin};

impl LineCx<'_, '_> {
    /// Whether the format's reader reads the input whole ([`LineCx::whole`]).
    pub(in crate::parse) fn reads_whole(&self) -> bool {
        self.reader.as_ref().is_some_and(|r| r.whole_text())
    }

    /// A kind whose syntax is read whole (YAML): the reader reads all the
    /// lines as one text, then each line is counted with what it gave, as if
    /// read one by one. Returns the last line's number.
    pub(in crate::parse) fn whole<S: EventSink>(
        &mut self,
        lines: &[(u64, String)],
        stats: &mut InputStats,
        sink: &mut S,
    ) -> u64 {
        let clean: Vec<Cow<'_, str>> = lines
            .iter()
            .map(|(_, l)| {
                if self.others.strip {
                    self.others.clean(l)
                } else {
                    Cow::Borrowed(l.as_str())
                }
            })
            .collect();
        let read = match self.reader.as_mut() {
            Some(r) => r.text(&clean.join("\n")),
            None => Vec::new(),
        };
        let mut read = read.into_iter();
        for ((n, _), line) in lines.iter().zip(&clean) {
            let origin = Origin {
                input: self.index,
                line: *n,
            };
            let records = read
                .next()
                .unwrap_or(Err("the reader gave this line no outcome"));
            let parsed = code_events(self.format, self.cat, self.times, records, origin);
            self.settle_records(*n, line, parsed, stats, sink);
        }
        lines.last().map_or(0, |(n, _)| *n)
    }
}
