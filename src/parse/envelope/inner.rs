//! Inner lines -> events: the inner format is detected on the first
//! records (an envelope inside an envelope is not unwrapped twice), then
//! every line is read with it; a line it does not read goes to the
//! specific formats that read some of the other head lines (Caddy's access
//! lines among its own JSON log, both behind `docker compose logs`), and
//! one none reads stays a plain log record at the envelope's time. The
//! envelope's instance fills in where the line names none.
//!
//! In: [`Wrapped`] inner lines. Out: events pushed to a sink, each
//! envelope line counted in the input's [`InputStats`].
//!
//! ```text
//! Wrapped { inner: "203.0.113.7 - - [..] \"GET /x\" 200 ..", instance: "api-7f" } -> Event::Request { instance: "api-7f", .. }
//! ```

use super::unwrap::Wrapped;
use crate::event::{Event, EventSink, Level, LogRecord};
use crate::formats::{detect, Catalogue, DefinitionKind, Format};
use crate::parse::kind::parse_line;
use crate::parse::others::{Fallback, LinePlan, Others};
use crate::parse::record::{self, Builder};
use crate::parse::stats::InputStats;
use crate::parse::timestamp::TimeParser;
use crate::parse::ParseOptions;

/// Inner lines looked at to detect their format.
const INNER_HEAD: usize = 200;

/// Detects the inner format on the first records, then parses them all.
pub(super) struct InnerParser<'c> {
    pub(super) cat: &'c Catalogue,
    envelope_times: TimeParser,
    inner: Option<usize>,
    inner_times: Option<Builder<'static>>,
    /// The inner format's reader, for code kinds.
    inner_reader: Option<Box<dyn crate::formats::Extractor>>,
    buffered: Vec<Wrapped>,
    detected: bool,
    /// The inner lines are an application's log that also writes a line per
    /// request (a structlog app log in a CloudWatch export): its requests
    /// are marked [`crate::event::Request::from_log`], as an input's are.
    log_requests: bool,
    /// Specific formats for the inner lines the inner format does not read.
    others: Option<Others<'c, 'static>>,
    /// The last (envelope, line) names of a writer told to the sink: a
    /// stream's records tell the same pair line after line.
    told: Option<(String, String)>,
    pub(super) opts: &'c ParseOptions,
}

impl<'c> InnerParser<'c> {
    /// A parser for the lines inside `envelope`'s records.
    pub(super) fn new(
        cat: &'c Catalogue,
        envelope: &Format,
        opts: &'c ParseOptions,
    ) -> InnerParser<'c> {
        InnerParser {
            cat,
            envelope_times: TimeParser::new(&envelope.def.timestamp_formats, opts.input_tz),
            inner: None,
            inner_times: None,
            inner_reader: None,
            buffered: Vec::new(),
            detected: false,
            log_requests: false,
            others: None,
            told: None,
            opts,
        }
    }

    pub(super) fn take<S: EventSink>(&mut self, w: Wrapped, stats: &mut InputStats, sink: &mut S) {
        if self.detected {
            self.parse(w, stats, sink);
            return;
        }
        self.buffered.push(w);
        if self.buffered.len() >= INNER_HEAD {
            self.flush(stats, sink);
        }
    }

    /// Detect on what is buffered (once), then parse it.
    pub(super) fn flush<S: EventSink>(&mut self, stats: &mut InputStats, sink: &mut S) {
        if !self.detected {
            self.detected = true;
            let head: Vec<String> = self.buffered.iter().map(|w| w.inner.clone()).collect();
            // An envelope inside an envelope is not unwrapped twice.
            let detection = detect(self.cat, &head).0.filter(|d| {
                let f = self.cat.formats.get(d.format);
                f.is_some_and(|f| f.def.kind != DefinitionKind::Envelope)
            });
            self.inner = detection.as_ref().map(|d| d.format);
            self.log_requests = detection.as_ref().is_some_and(|d| d.log_requests);
            if let Some(d) = &detection {
                // The generic reader is left out: a line no specific format
                // reads keeps the envelope's time, which the envelope wrote.
                let fallbacks: Vec<usize> = d
                    .fallbacks
                    .iter()
                    .copied()
                    .filter(|&j| {
                        self.cat.formats.get(j).is_some_and(|f| {
                            !matches!(
                                f.def.kind,
                                DefinitionKind::Envelope | DefinitionKind::Generic
                            )
                        })
                    })
                    .collect();
                if !fallbacks.is_empty() {
                    let plan = LinePlan {
                        fallbacks,
                        zone: self.opts.input_tz,
                        ..LinePlan::default()
                    };
                    self.others = Some(Others::new(self.cat, &plan));
                }
            }
            if let Some(f) = self.inner.and_then(|i| self.cat.formats.get(i)) {
                stats.inner_format = Some(f.name().to_string());
                self.inner_reader = f.extractor();
                self.inner_times = Some(Builder::new(
                    TimeParser::new(&f.def.timestamp_formats, self.opts.input_tz),
                    None,
                ));
            }
        }
        for w in std::mem::take(&mut self.buffered) {
            self.parse(w, stats, sink);
        }
    }

    fn parse<S: EventSink>(&mut self, w: Wrapped, stats: &mut InputStats, sink: &mut S) {
        if w.inner.trim().is_empty() {
            for _ in 0..w.lines {
                stats.skip(w.origin.line, "blank line", "");
            }
            return;
        }
        let cat = self.cat;
        let inner = self.inner.and_then(|i| cat.formats.get(i));
        let events = match (inner, self.inner_times.as_mut()) {
            (Some(f), Some(times)) => parse_line(
                f,
                &mut self.inner_reader,
                self.cat,
                times,
                &w.inner,
                w.origin,
            )
            .ok(),
            _ => None,
        };
        let events = match (events, self.others.as_mut()) {
            (Some(evs), _) if !evs.is_empty() => Some(evs),
            (evs, Some(others)) => match others.fallback(&w.inner, w.origin, &mut None) {
                Some(Fallback::Read(mut fallen, by)) if !fallen.is_empty() => {
                    stats.read_by(by, fallen.len() as u64);
                    // Request lines among an application's log lines (the
                    // inner format reads logs) are the application's, as
                    // `json_fallback` marks them in a plain input.
                    let app_log =
                        inner.is_none_or(|f| f.def.produces != crate::formats::Produces::Request);
                    for ev in &mut fallen {
                        if let Event::Request(r) = ev {
                            r.from_log |= app_log;
                        }
                    }
                    Some(fallen)
                }
                _ => evs,
            },
            (evs, None) => evs,
        };
        let events = match events {
            Some(evs) if !evs.is_empty() => evs,
            // Not the inner format (or none was found): a plain log record at the envelope's time.
            _ => match w.ts.as_deref().map(|t| self.envelope_times.parse(t)) {
                Some(Some(ts)) => {
                    // A JSON logger's object no definition reads (python-json-logger's
                    // `asctime`): its message and level, not the whole object.
                    let object = self.cat.generic().and_then(|g| g.read_object(&w.inner));
                    // What it signals is read from its message and error
                    // detail, never from the whole object: a time's
                    // milliseconds (`23:48:24,429`) are not a 429.
                    let (level, message, instance, detail) = match object {
                        Some(o) => (
                            o.level
                                .as_deref()
                                .map(record::level)
                                .unwrap_or_else(|| level_in(&w.inner)),
                            o.message,
                            w.instance.clone().or(o.instance),
                            o.detail,
                        ),
                        None => (
                            level_in(&w.inner),
                            w.inner.clone(),
                            w.instance.clone(),
                            String::new(),
                        ),
                    };
                    vec![Event::Log(LogRecord {
                        ts,
                        origin: w.origin,
                        level,
                        signal: self
                            .cat
                            .rules
                            .signal_of(&message)
                            .or_else(|| self.cat.rules.signal_of(&detail)),
                        version: self.cat.rules.versions.banner_of(&message),
                        message: message.into(),
                        instance: instance.map(Into::into),
                        tenant: None,
                    })]
                }
                // A time that does not read is a bad record.
                Some(None) => {
                    for _ in 0..w.lines {
                        stats.skip(w.origin.line, "unreadable timestamp in the envelope", "");
                    }
                    return;
                }
                // No time at all (Fluent Bit's multiline records): read, but
                // it cannot be placed on the timeline.
                None => {
                    for _ in 0..w.lines {
                        stats.parsed_unplaced("no timestamp in the envelope or the line");
                    }
                    return;
                }
            },
        };
        // The record's lines are one record: the first carries the events, the rest are read.
        for _ in 1..w.lines {
            stats.parsed_without_event();
        }
        for mut ev in events {
            if let Event::Request(r) = &mut ev {
                r.from_log |= self.log_requests;
            }
            if let Some(inst) = &w.instance {
                let named = match &ev {
                    Event::Request(r) => r.instance.as_deref(),
                    Event::Log(l) => l.instance.as_deref(),
                    _ => None,
                };
                if let Some(line) = named.filter(|l| *l != inst.as_str()) {
                    let told = self
                        .told
                        .as_ref()
                        .is_some_and(|(e, l)| e == inst && l == line);
                    if !told {
                        sink.one_writer(inst, line);
                        self.told = Some((inst.to_string(), line.to_string()));
                    }
                }
                match &mut ev {
                    Event::Request(r) if r.instance.is_none() => {
                        r.instance = Some(inst.clone().into())
                    }
                    Event::Log(l) if l.instance.is_none() => l.instance = Some(inst.clone().into()),
                    _ => {}
                }
            }
            stats.parsed_at(ev.ts());
            sink.push(ev);
        }
    }
}

/// A level word near the start of a plain line (`ERROR`, `[warn]`, `level=error`).
fn level_in(line: &str) -> Level {
    let head: String = line.chars().take(80).collect();
    for word in head.split(|c: char| !c.is_ascii_alphabetic()) {
        if word.len() >= 4 && word.len() <= 8 {
            let l = record::level(word);
            if l != Level::Info || word.eq_ignore_ascii_case("info") {
                return l;
            }
        }
    }
    Level::Info
}
