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

use std::borrow::Cow;

mod whole;

use super::above::Above;
use super::json_fallback::JsonFallback;
use super::kind::parse_line;
use super::others::{Fallback, LinePlan, Others};
use super::record::Builder;
use super::stats::InputStats;
use crate::event::{Event, EventSink, Origin};
use crate::formats::{Catalogue, DefinitionKind, Extractor, Format, LazyRecord, Record};

/// What parsing one line needs.
pub(super) struct LineCx<'c, 'i> {
    format: &'c Format,
    cat: &'c Catalogue,
    index: u32,
    pub(super) reader: &'c mut Option<Box<dyn Extractor>>,
    pub(super) times: &'c mut Builder<'i>,
    /// The formats for what `format` leaves, and the decorations to strip.
    others: Others<'c, 'i>,
    /// The last log record, for its continuation lines.
    pub(super) above: Above,
    /// Where routes are folded, line after line, without a new string each.
    route_buf: String,
    /// The other JSON formats, for a valid JSON line this one leaves.
    json_others: Option<JsonFallback<'c>>,
    /// Mark the requests read as an application log's ([`LinePlan::log_requests`]).
    log_requests: bool,
}

impl<'c, 'i> LineCx<'c, 'i> {
    pub(super) fn new(
        format: &'c Format,
        cat: &'c Catalogue,
        index: u32,
        reader: &'c mut Option<Box<dyn Extractor>>,
        times: &'c mut Builder<'i>,
        plan: &LinePlan,
    ) -> LineCx<'c, 'i> {
        LineCx {
            format,
            cat,
            index,
            reader,
            times,
            others: Others::new(cat, plan),
            above: Above::default(),
            route_buf: String::new(),
            json_others: None,
            log_requests: plan.log_requests,
        }
    }

    pub(super) fn line<S: EventSink>(
        &mut self,
        n: u64,
        line: &str,
        stats: &mut InputStats,
        sink: &mut S,
    ) {
        if self.others.strip {
            let clean = self.others.clean(line);
            if let Cow::Owned(clean) = clean {
                return self.read(n, &clean, stats, sink);
            }
        }
        self.read(n, line, stats, sink)
    }

    /// [`LineCx::line`] once decorations are stripped.
    fn read<S: EventSink>(&mut self, n: u64, line: &str, stats: &mut InputStats, sink: &mut S) {
        let origin = Origin {
            input: self.index,
            line: n,
        };
        // Code kinds see blank lines: one may sit inside a quoted CSV field.
        if line.trim().is_empty() && self.reader.is_none() {
            stats.skip(n, "blank line", line);
            return;
        }
        if self.above.is_some()
            && self
                .format
                .def
                .continuation_prefixes
                .iter()
                .any(|p| line.starts_with(p.as_str()))
            && self.format.match_line(line).is_none()
        {
            self.above.continuation(self.cat, origin, line, stats, sink);
            return;
        }
        // The hot path: one record per line, no list to allocate.
        if matches!(
            self.format.def.kind,
            DefinitionKind::Regex | DefinitionKind::Generic
        ) {
            let mut fields = crate::formats::Fields::default();
            if !self.format.match_line_into(line, &mut fields) {
                self.fail(n, line, "does not match the format", stats, sink);
                return;
            }
            // A wrapping record whose message is a line of its own (syslog
            // carrying an access log): that line's record.
            if self.others.wraps() {
                if let Some((i, inner)) = self.others.unwrap(&mut fields) {
                    stats.read_by(self.others.wrapped_name(i), 1);
                    let (built, unplaced) =
                        self.others
                            .build_wrapped(i, &inner, origin, &mut self.times.inspect);
                    self.settle_with(built, unplaced, n, line, stats, sink);
                    return;
                }
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
                    // Not this format's record: the full parse below
                    // hands it to the format that reads it.
                    Some(None) => {}
                    // Only the parsed record can say.
                    None => {}
                }
            }
            let Ok(value) = serde_json::from_str::<Value>(line) else {
                self.fail(n, line, "not valid JSON", stats, sink);
                return;
            };
            let Some(fields) = self.format.match_json(&value) else {
                self.other_json(n, line, &value, stats, sink);
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
        self.settle_records(n, line, parsed, stats, sink);
    }

    /// Count a code kind's line (or a JSON line's records) and hand its
    /// events on.
    fn settle_records<S: EventSink>(
        &mut self,
        n: u64,
        line: &str,
        parsed: Result<Vec<Event<'static>>, &'static str>,
        stats: &mut InputStats,
        sink: &mut S,
    ) {
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
                    self.above.remember(&ev);
                    stats.parsed_at(ev.ts());
                    sink.push(self.marked(ev));
                }
            }
            (Err(reason), _) => self.fail(n, line, reason, stats, sink),
        }
    }

    /// An event of this input's own format, its request marked as an
    /// application log's when the input is one.
    fn marked<'e>(&self, mut ev: Event<'e>) -> Event<'e> {
        if let Event::Request(r) = &mut ev {
            r.from_log |= self.log_requests;
        }
        ev
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
        let unplaced = self.times.take_unplaced();
        self.settle_with(built, unplaced, n, line, stats, sink);
    }

    /// [`LineCx::settle`] with the builder's word on a record without a time.
    fn settle_with<S: EventSink>(
        &mut self,
        built: Result<Option<Event<'_>>, &'static str>,
        unplaced: Option<String>,
        n: u64,
        line: &str,
        stats: &mut InputStats,
        sink: &mut S,
    ) {
        match (built, unplaced) {
            (Ok(Some(ev)), _) => {
                self.above.remember(&ev);
                stats.parsed_at(ev.ts());
                sink.push(self.marked(ev));
            }
            // Read, but no time to place it on the timeline.
            (Ok(None), Some(reason)) => stats.parsed_unplaced(&reason),
            (Ok(None), None) => stats.parsed_without_event(),
            (Err(reason), _) => self.fail(n, line, reason, stats, sink),
        }
    }

    /// A line the input's format does not read: the fallbacks the head
    /// showed, then the record above it if it continues one (a stack
    /// frame), else a skip with the format's reason.
    /// A valid JSON line this format leaves (a structlog request line in
    /// a JSON-lines log): read by the first other JSON format that takes
    /// it, else handed to the line fallbacks.
    fn other_json<S: EventSink>(
        &mut self,
        n: u64,
        line: &str,
        value: &Value,
        stats: &mut InputStats,
        sink: &mut S,
    ) {
        let (cat, format) = (self.cat, self.format);
        let seed = &self.times.times;
        let others = self
            .json_others
            .get_or_insert_with(|| JsonFallback::new(cat, format, seed.for_chunk()));
        let origin = Origin {
            input: self.index,
            line: n,
        };
        let Some(read) = others.read(value, origin) else {
            self.fail(n, line, "a required field is missing", stats, sink);
            return;
        };
        stats.zoneless |= read.zoneless;
        if read.built.is_ok() {
            stats.read_by(read.format, 1);
        }
        match (read.built, read.unplaced) {
            (Ok(Some(mut ev)), _) => {
                if let Event::Request(r) = &mut ev {
                    r.from_log = true;
                }
                self.above.remember(&ev);
                stats.parsed_at(ev.ts());
                sink.push(ev);
            }
            (Ok(None), Some(reason)) => stats.parsed_unplaced(&reason),
            (Ok(None), None) => stats.parsed_without_event(),
            (Err(reason), _) => stats.skip(n, reason, line),
        }
    }

    fn fail<S: EventSink>(
        &mut self,
        n: u64,
        line: &str,
        reason: &'static str,
        stats: &mut InputStats,
        sink: &mut S,
    ) {
        if line.trim().is_empty() {
            stats.skip(n, "blank line", line);
            return;
        }
        let origin = Origin {
            input: self.index,
            line: n,
        };
        match self.others.fallback(line, origin, &mut self.times.inspect) {
            Some(Fallback::Read(events, by)) => {
                stats.read_by(by, events.len().max(1) as u64);
                if events.is_empty() {
                    stats.parsed_without_event();
                }
                for ev in events {
                    self.above.remember(&ev);
                    stats.parsed_at(ev.ts());
                    sink.push(ev);
                }
            }
            Some(Fallback::Unplaced(why, by)) => {
                stats.read_by(by, 1);
                stats.parsed_unplaced(&why);
            }
            None if self.above.is_some() && self.others.continues(line) => {
                self.above.continuation(self.cat, origin, line, stats, sink);
            }
            None => stats.skip(n, reason, line),
        }
    }

    /// Records a kind held back to the end of the input (a snapshot summed
    /// over its rows): they count like records of the last line.
    pub(super) fn finish<S: EventSink>(&mut self, last: u64, stats: &mut InputStats, sink: &mut S) {
        let open = self.reader.as_ref().map_or(0, |r| r.open_lines());
        if open > 0 {
            stats.cut_inside_record(last, open);
        }
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
}
