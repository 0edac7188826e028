//! The record above: a line that continues a log record (a stack frame,
//! an indented detail line, a `Caused by:`) belongs to it. It is read, and
//! if it says something (pool exhaustion deep in a trace) it becomes a log
//! record at that record's time and instance.
//!
//! In: the events read so far (the last log record is kept) and a line that
//! continues it. Out: the line counted as parsed, and its signal's event.
//!
//! ```text
//! 2026-10-01 07:58:06.113 ERROR request failed                   -> Event::Log at 07:58:06.113
//! Caused by: ... HikariPool-1 - Connection is not available ...  -> Event::Log (pool signal) at 07:58:06.113
//! ```

use std::borrow::Cow;

use super::stats::InputStats;
use crate::event::{Event, EventSink, Level, LogRecord, Millis, Origin};
use crate::formats::Catalogue;

/// The last log record's time and instance (its buffer reused from record
/// to record: this runs on every log line).
#[derive(Debug, Default)]
pub(super) struct Above {
    last: Option<(Millis, bool)>,
    instance: String,
}

impl Above {
    pub(super) fn is_some(&self) -> bool {
        self.last.is_some()
    }

    /// A chunk starts: its lines continue no record of another chunk, so
    /// the output is the same whichever thread read the chunk before.
    pub(super) fn clear(&mut self) {
        self.last = None;
    }

    pub(super) fn remember(&mut self, ev: &Event<'_>) {
        if let Event::Log(l) = ev {
            self.instance.clear();
            if let Some(i) = &l.instance {
                self.instance.push_str(i);
            }
            self.last = Some((l.ts, l.instance.is_some()));
        }
    }

    /// Count a continuation line, and hand on its signal's event if it has one.
    pub(super) fn continuation<S: EventSink>(
        &self,
        cat: &Catalogue,
        origin: Origin,
        line: &str,
        stats: &mut InputStats,
        sink: &mut S,
    ) {
        let Some((ts, has_instance)) = self.last else {
            return;
        };
        match cat.rules.signal_of(line) {
            Some(signal) => {
                stats.parsed_at(ts);
                sink.push(Event::Log(LogRecord {
                    ts,
                    origin,
                    level: Level::Error,
                    message: Cow::Borrowed(line.trim()),
                    instance: has_instance.then_some(Cow::Borrowed(self.instance.as_str())),
                    tenant: None,
                    signal: Some(signal),
                    version: None,
                }));
            }
            None => stats.parsed_without_event(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::event::Event;
    use crate::formats::Catalogue;
    use crate::parse::{parse_input, ParseOptions};
    use crate::read::Input;
    use std::io::Cursor;

    /// A Java stack trace under its log line is one record; a `Caused by`
    /// that names pool exhaustion deep in it is still seen.
    #[test]
    fn continuation_lines_belong_to_the_record_above() {
        let def = r#"{"name": "plain_test", "description": "t", "kind": "regex", "produces": "log",
            "patterns": ["^(?P<ts>\\S+ \\S+) (?P<level>[A-Z]+) (?P<message>.*)$"],
            "continuation_prefixes": ["\t", " ", "Caused by:"], "samples": []}"#;
        let mut cat = Catalogue::builtin().expect("catalogue");
        cat.formats
            .push(crate::formats::load_definition("t.json", def).expect("definition"));
        let forced = Some(cat.formats.len() - 1);
        let text = "2026-10-01 07:58:06.113 ERROR request failed\n\
                    \tat com.example.Api.handle(Api.java:42)\n\
                    Caused by: java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30000ms.\n\
                    \t... 12 more\n\
                    2026-10-01 07:58:07.000 INFO next\n";
        let input = Input::from_reader("t".into(), Box::new(Cursor::new(text.as_bytes().to_vec())))
            .expect("input");
        let mut events: Vec<Event<'static>> = Vec::new();
        let opts = ParseOptions {
            forced,
            ..ParseOptions::default()
        };
        let stats = parse_input(input, 0, &cat, &opts, &mut events).expect("parse");
        assert_eq!((stats.lines, stats.parsed, stats.skipped), (5, 5, 0));
        let signals: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                Event::Log(l) => l.signal.map(|s| (s, l.origin.line, l.ts)),
                _ => None,
            })
            .collect();
        assert_eq!(signals.len(), 1);
        assert_eq!(signals[0].1, 3, "the Caused by line");
        assert_eq!(
            signals[0].2,
            events[0].ts(),
            "at the time of the record it continues"
        );
    }
}
