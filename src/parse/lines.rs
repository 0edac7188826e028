//! Line-oriented inputs, one line at a time: a regex line, a JSON line
//! (read lazily where the definition allows) or a code kind's line ->
//! the record builder's events; continuation lines (stack frames, TAB
//! detail lines) belong to the record above.
//!
//! In: one line, its number, and the input's [`Format`]. Out: events
//! pushed to a sink, and the line counted in the input's [`InputStats`].
//!
//! ```text
//! 2026-10-01 07:58:06.113 ERROR request failed        -> Event::Log at 07:58:06.113
//! Caused by: ... Connection is not available ...      -> Event::Log (pool signal) at 07:58:06.113
//! ```

use serde_json::Value;

use super::kind::parse_line;
use super::record::Builder;
use super::stats::InputStats;
use crate::event::{Event, EventSink, Millis, Origin};
use crate::formats::{Catalogue, DefinitionKind, Extractor, Format, LazyRecord, Record};

/// What parsing one line needs.
pub(super) struct LineCx<'c, 'i> {
    format: &'c Format,
    cat: &'c Catalogue,
    index: u32,
    pub(super) reader: &'c mut Option<Box<dyn Extractor>>,
    pub(super) times: &'c mut Builder<'i>,
    /// Time and instance of the last log record, for its continuation lines.
    last: Option<(Millis, Option<String>, Origin)>,
    /// Where routes are folded, line after line, without a new string each.
    route_buf: String,
}

impl<'c, 'i> LineCx<'c, 'i> {
    pub(super) fn new(
        format: &'c Format,
        cat: &'c Catalogue,
        index: u32,
        reader: &'c mut Option<Box<dyn Extractor>>,
        times: &'c mut Builder<'i>,
    ) -> LineCx<'c, 'i> {
        LineCx {
            format,
            cat,
            index,
            reader,
            times,
            last: None,
            route_buf: String::new(),
        }
    }

    pub(super) fn line<S: EventSink>(
        &mut self,
        n: u64,
        line: &str,
        stats: &mut InputStats,
        sink: &mut S,
    ) {
        let origin = Origin {
            input: self.index,
            line: n,
        };
        // Code kinds see blank lines: one may sit inside a quoted CSV field.
        if line.trim().is_empty() && self.reader.is_none() {
            stats.skip(n, "blank line", line);
            return;
        }
        if self.continues(line) {
            self.continuation(line, n, stats, sink);
            return;
        }
        // The hot path: one record per line, no list to allocate.
        if self.format.def.kind == DefinitionKind::Regex {
            let mut fields = crate::formats::Fields::default();
            if !self.format.match_line_into(line, &mut fields) {
                stats.skip(n, "does not match the format", line);
                return;
            }
            // Out of `self` while the event borrows it; back after the sink took it.
            let mut route_buf = std::mem::take(&mut self.route_buf);
            let built = self.times.build_in(
                self.format,
                &self.cat.rules,
                &fields,
                None,
                origin,
                Some(&mut route_buf),
            );
            self.settle(built, n, line, stats, sink);
            self.route_buf = route_buf;
            return;
        }
        // JSON lines of one record each: read lazily where the definition
        // allows, the event borrowing from the line; else parsed whole.
        if self.format.def.kind == DefinitionKind::Json
            && self.format.def.envelope.is_none()
            && line.trim_start().starts_with('{')
        {
            if let Some(lazy) = LazyRecord::parse(line) {
                match self.format.match_lazy(&lazy) {
                    Some(Some(fields)) => {
                        let built = self.times.build(
                            self.format,
                            &self.cat.rules,
                            &fields,
                            Some(Record::Lazy(&lazy)),
                            origin,
                        );
                        self.settle(built, n, line, stats, sink);
                        return;
                    }
                    Some(None) => {
                        stats.skip(n, "a required field is missing", line);
                        return;
                    }
                    // Only the parsed record can say.
                    None => {}
                }
            }
            let Ok(value) = serde_json::from_str::<Value>(line) else {
                stats.skip(n, "not valid JSON", line);
                return;
            };
            let Some(fields) = self.format.match_json(&value) else {
                stats.skip(n, "a required field is missing", line);
                return;
            };
            let built = self.times.build(
                self.format,
                &self.cat.rules,
                &fields,
                Some(Record::Value(&value)),
                origin,
            );
            self.settle(built, n, line, stats, sink);
            return;
        }
        let parsed = parse_line(self.format, self.reader, self.cat, self.times, line, origin);
        // A record without a time, or a code kind's record without one.
        let unplaced = self.times.take_unplaced().or_else(|| {
            self.reader
                .as_mut()
                .and_then(|r| r.unplaced())
                .map(String::from)
        });
        match (parsed, unplaced) {
            // Understood, but no time to place it on the timeline, or no
            // record in it (a CSV header): read, not skipped.
            (Ok(events), Some(reason)) if events.is_empty() => stats.parsed_unplaced(&reason),
            (Ok(events), None) if events.is_empty() => stats.parsed_without_event(),
            // A line with several records (a JSON document) counts each one.
            (Ok(events), _) => {
                for ev in events {
                    self.remember(&ev);
                    stats.parsed_at(ev.ts());
                    sink.push(ev);
                }
            }
            (Err(reason), _) => stats.skip(n, reason, line),
        }
    }

    /// Count one record's outcome and hand its event on.
    fn settle<S: EventSink>(
        &mut self,
        built: Result<Option<Event<'_>>, &'static str>,
        n: u64,
        line: &str,
        stats: &mut InputStats,
        sink: &mut S,
    ) {
        match (built, self.times.take_unplaced()) {
            (Ok(Some(ev)), _) => {
                self.remember(&ev);
                stats.parsed_at(ev.ts());
                sink.push(ev);
            }
            // Read, but no time to place it on the timeline.
            (Ok(None), Some(reason)) => stats.parsed_unplaced(&reason),
            (Ok(None), None) => stats.parsed_without_event(),
            (Err(reason), _) => stats.skip(n, reason, line),
        }
    }

    /// Records a kind held back to the end of the input (a snapshot summed
    /// over its rows): they count like records of the last line.
    pub(super) fn finish<S: EventSink>(&mut self, last: u64, stats: &mut InputStats, sink: &mut S) {
        let held = self.reader.as_mut().map(|r| r.finish()).unwrap_or_default();
        let origin = Origin {
            input: self.index,
            line: last,
        };
        for f in &held {
            let built = self
                .times
                .build(self.format, &self.cat.rules, f, None, origin);
            match (built, self.times.take_unplaced()) {
                (Ok(Some(ev)), _) => {
                    stats.parsed_at(ev.ts());
                    sink.push(ev);
                }
                (Ok(None), Some(reason)) => stats.parsed_unplaced(&reason),
                (Ok(None), None) => stats.parsed_without_event(),
                (Err(reason), _) => stats.skip(last, reason, ""),
            }
        }
    }

    fn remember(&mut self, ev: &Event<'_>) {
        // Only formats with continuation lines need the record above.
        if self.format.def.continuation_prefixes.is_empty() {
            return;
        }
        if let Event::Log(l) = ev {
            self.last = Some((l.ts, l.instance.as_deref().map(str::to_string), l.origin));
        }
    }

    /// A line that continues the last log record (and does not parse on its own).
    fn continues(&self, line: &str) -> bool {
        self.last.is_some()
            && self
                .format
                .def
                .continuation_prefixes
                .iter()
                .any(|p| line.starts_with(p.as_str()))
            && self.format.match_line(line).is_none()
    }

    /// A continuation line belongs to the record above it. It is read, and if
    /// it says something (a `Caused by: ... pool ...` deep in a trace) it
    /// becomes a log record at that record's time.
    fn continuation<S: EventSink>(
        &mut self,
        line: &str,
        n: u64,
        stats: &mut InputStats,
        sink: &mut S,
    ) {
        let Some((ts, instance, _)) = self.last.clone() else {
            return;
        };
        match self.cat.rules.signal_of(line) {
            Some(signal) => {
                stats.parsed_at(ts);
                sink.push(Event::Log(crate::event::LogRecord {
                    ts,
                    origin: Origin {
                        input: self.index,
                        line: n,
                    },
                    level: crate::event::Level::Error,
                    message: std::borrow::Cow::Borrowed(line.trim()),
                    instance: instance.map(std::borrow::Cow::Owned),
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
