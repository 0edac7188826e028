//! Envelopes: what engineers download after an incident often wraps the
//! real log lines in a platform's record (Docker json-file, CRI and
//! `kubectl logs --timestamps` prefixes, Loki, CloudWatch Logs events). The
//! envelope gives a time, the inner line and labels; the inner lines are
//! detected and parsed like any input, labels fill in the instance where
//! the inner line names none, and an inner line no format reads is kept as
//! a plain log record at the envelope's time.
//!
//! In: an input whose detected format is an `envelope` definition. Out:
//! events of the inner format, and the input's statistics (a line is an
//! envelope record).
//!
//! ```text
//! {"log":"203.0.113.7 - - [01/Oct/2026:13:26:55 +0530] \"GET /x HTTP/1.1\" 200 5 \"-\" \"curl/8\"\n","time":"..."}
//!   -> inner nginx_combined line -> Event::Request { .. }
//! ```

use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;

use super::record::{self, Builder, Inspect};
use super::timestamp::TimeParser;
use super::{InputStats, ParseError, ParseOptions};
use crate::event::{Event, EventSink, Level, LogRecord, Origin};
use crate::formats::{
    detect, envelope_records, Catalogue, DefinitionKind, Fields, Format, RecordMode, Role,
};
use crate::formats::{tabular, Decode};
use crate::read::{Input, Lines};
use std::io::Cursor;

/// Inner lines looked at to detect their format.
const INNER_HEAD: usize = 200;

/// One unwrapped record.
struct Wrapped {
    origin: Origin,
    /// Envelope lines this record took (CRI partial lines join).
    lines: u64,
    ts: Option<String>,
    inner: String,
    instance: Option<String>,
}

/// Unwraps records and joins CRI partial lines.
struct Unwrapper<'f, 'i> {
    format: &'f Format,
    pending: Option<Wrapped>,
    /// `formats check --fields`: the envelope's own fields of every record,
    /// so that what a definition reads can be checked without the inner format.
    /// With `decode`, the fields of the payload's records instead.
    inspect: Option<Inspect<'i>>,
    /// The input's position in the run.
    index: u32,
}

impl Unwrapper<'_, '_> {
    /// Fields of one envelope record -> a finished record, or `None` while
    /// a partial line waits for its end.
    fn push(&mut self, f: &Fields<'_>, origin: Origin) -> Option<Wrapped> {
        if let Some(show) = self
            .inspect
            .as_mut()
            .filter(|_| self.format.def.decode.is_none())
        {
            show(origin, f);
        }
        let mut inner = f.get(Role::Message).unwrap_or("").to_string();
        if let Some(ts) = f.get(Role::Ts) {
            inner = join_runtime_chunks(inner, ts);
        }
        // Docker keeps the line's newline inside the record.
        while inner.ends_with(['\n', '\r']) {
            inner.pop();
        }
        let partial = f.get(Role::Partial) == Some("P");
        let rec = match self.pending.take() {
            Some(mut p) => {
                p.inner.push_str(&inner);
                p.lines += 1;
                p
            }
            None => Wrapped {
                origin,
                lines: 1,
                ts: f.get(Role::Ts).map(str::to_string),
                inner,
                instance: f
                    .get(Role::Instance)
                    .filter(|i| !i.is_empty())
                    .map(str::to_string),
            },
        };
        if partial {
            self.pending = Some(rec);
            None
        } else {
            Some(rec)
        }
    }

    /// Hand a finished record on: its line to the inner parser, or with
    /// `decode` its payload to a reading of its own.
    fn take<S: EventSink>(
        &mut self,
        w: Wrapped,
        parser: &mut InnerParser<'_>,
        stats: &mut InputStats,
        sink: &mut S,
    ) {
        match self.format.def.decode {
            Some(Decode::Base64) => self.decoded(w, parser, stats, sink),
            None => parser.take(w, stats, sink),
        }
    }

    /// A base64 payload (gzip inside is recognised by its magic) is read as
    /// an input of its own: detected, and unwrapped again if it is an
    /// envelope (a CloudWatch subscription message, a Cloud Logging entry).
    /// Its records count as this input's, at the line of the record that
    /// carried them. A payload no format reads is the inner line itself.
    fn decoded<S: EventSink>(
        &mut self,
        w: Wrapped,
        parser: &mut InnerParser<'_>,
        stats: &mut InputStats,
        sink: &mut S,
    ) {
        let line = w.origin.line;
        let Some(bytes) = decode_base64(&w.inner) else {
            for _ in 0..w.lines {
                stats.skip(line, "the payload is not base64", "");
            }
            return;
        };
        let opts = ParseOptions {
            threads: 1,
            progress: None,
            ..parser.opts.clone()
        };
        let payload =
            |bytes: Vec<u8>| Input::from_reader("payload".into(), Box::new(Cursor::new(bytes)));
        let mut events: Vec<Event> = Vec::new();
        let mut show = self.inspect.as_mut();
        let mut remap = |o: Origin, f: &Fields<'_>| {
            if let Some(s) = show.as_mut() {
                s(Origin { line, ..o }, f);
            }
        };
        let read = payload(bytes.clone())
            .map_err(ParseError::from)
            .and_then(|input| {
                super::parse_input_inspect(
                    input,
                    self.index,
                    parser.cat,
                    &opts,
                    &mut events,
                    Some(&mut remap),
                )
            });
        match read {
            Ok(mut sub) => {
                for b in &mut sub.bad_lines {
                    b.line = line;
                }
                let inner = match sub.inner_format.take() {
                    Some(i) => format!("{} > {i}", sub.format),
                    None => std::mem::take(&mut sub.format),
                };
                stats.inner_format.get_or_insert(inner);
                stats.merge(sub);
                for mut ev in events {
                    ev.origin_mut().line = line;
                    sink.push(ev);
                }
            }
            // Not a format of its own (Firehose's `Hello World`): the line.
            Err(ParseError::UnknownFormat { .. } | ParseError::Empty { .. }) => {
                let text: Vec<String> = match payload(bytes) {
                    Ok(input) => input
                        .lines()
                        .map_while(Result::ok)
                        .map(|(_, l)| l)
                        .collect(),
                    Err(_) => Vec::new(),
                };
                let inner = text.join("\n");
                let mut f = Fields::default();
                if let Some(ts) = &w.ts {
                    f.set(Role::Ts, Cow::Borrowed(ts.as_str()));
                }
                f.set(Role::Message, Cow::Borrowed(inner.as_str()));
                remap(w.origin, &f);
                parser.take(Wrapped { inner, ..w }, stats, sink);
            }
            Err(_) => {
                for _ in 0..w.lines {
                    stats.skip(line, "the payload does not read", "");
                }
            }
        }
    }

    fn records_of_json<'v>(&self, v: &'v Value) -> Vec<Cow<'v, Value>> {
        match self
            .format
            .def
            .envelope
            .as_deref()
            .and_then(|e| crate::formats::lookup(v, e))
        {
            Some(Value::Array(items)) => items.iter().flat_map(envelope_records).collect(),
            _ => envelope_records(v),
        }
    }
}

/// Parse an enveloped input: unwrap every record, detect the inner format
/// on the first ones, then parse them all.
#[allow(clippy::too_many_arguments)]
pub(super) fn parse<S: EventSink>(
    format: &Format,
    mode: RecordMode,
    head: Vec<(u64, String)>,
    lines: &mut Lines,
    cat: &Catalogue,
    opts: &ParseOptions,
    index: u32,
    stats: &mut InputStats,
    sink: &mut S,
    inspect: Option<Inspect<'_>>,
) -> Result<(), ParseError> {
    let mut un = Unwrapper {
        format,
        pending: None,
        inspect,
        index,
    };
    let mut parser = InnerParser {
        cat,
        envelope_times: TimeParser::new(&format.def.timestamp_formats, opts.input_tz),
        inner: None,
        inner_times: None,
        inner_reader: None,
        buffered: Vec::new(),
        detected: false,
        opts,
    };
    let mut feed = |n: u64, line: &str, stats: &mut InputStats, sink: &mut S| {
        let origin = Origin {
            input: index,
            line: n,
        };
        if line.trim().is_empty() {
            stats.skip(n, "blank line", line);
            return;
        }
        if format.is_text() {
            match format.match_line(line) {
                // A variant that captures no line is a header (Grafana's meta lines).
                Some(f) if !f.has(Role::Message) && !f.has(Role::Ts) => {
                    stats.parsed_without_event()
                }
                Some(f) => {
                    if let Some(w) = un.push(&f, origin) {
                        un.take(w, &mut parser, stats, sink);
                    }
                }
                None => stats.skip(n, "does not match the envelope", line),
            }
            return;
        }
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            stats.skip(n, "not valid JSON", line);
            return;
        };
        let recs = un.records_of_json(&v);
        if recs.is_empty() {
            stats.parsed_without_event();
        }
        for r in &recs {
            match (format.match_json(r), format.skip_reason(r)) {
                (Some(_), Some(reason)) => stats.skip(n, reason, line),
                (Some(f), None) => {
                    if let Some(w) = un.push(&f, origin) {
                        un.take(w, &mut parser, stats, sink);
                    }
                }
                (None, _) => stats.skip(n, "a required field is missing", line),
            }
        }
    };
    if let Some(syntax) = format.def.syntax {
        let text = whole_text(&head, lines)?;
        let table = tabular::read(syntax, &text);
        for n in table.blank {
            stats.skip(n, "blank line", "");
        }
        for _ in table.header {
            stats.parsed_without_event();
        }
        for (n, reason) in table.bad {
            stats.skip(n, reason, "");
        }
        for row in table.rows {
            let origin = Origin {
                input: index,
                line: row.line,
            };
            let reason = match (
                format.match_json(&row.value),
                format.skip_reason(&row.value),
            ) {
                (Some(_), Some(reason)) => Some(reason),
                (Some(f), None) => {
                    if let Some(mut w) = un.push(&f, origin) {
                        w.lines += row.lines - 1;
                        un.take(w, &mut parser, stats, sink);
                    }
                    None
                }
                (None, _) => Some("a required field is missing"),
            };
            if let Some(reason) = reason {
                for _ in 0..row.lines {
                    stats.skip(row.line, reason, "");
                }
            }
        }
        parser.flush(stats, sink);
        return Ok(());
    }
    match mode {
        RecordMode::Lines => {
            for (n, line) in &head {
                feed(*n, line, stats, sink);
            }
            for item in lines.by_ref() {
                let (n, line) = item?;
                feed(n, &line, stats, sink);
            }
        }
        RecordMode::Documents => {
            stats.documents = true;
            let text = whole_text(&head, lines)?;
            let text = super::console::console_to_json(&text).unwrap_or(text);
            let idx = super::LineIndex::new(&text);
            let mut docs: Vec<&RawValue> = Vec::new();
            let mut stream = serde_json::Deserializer::from_str(&text).into_iter::<&RawValue>();
            loop {
                match stream.next() {
                    None => break,
                    Some(Ok(raw)) => docs.push(raw),
                    Some(Err(e)) => {
                        // A pasted array cut short (no closing bracket) still holds whole records.
                        match array_elements(&text) {
                            Some(elements) if docs.is_empty() && !elements.is_empty() => {
                                docs = elements
                            }
                            _ => stats.skip(e.line() as u64, "invalid JSON document", ""),
                        }
                        break;
                    }
                }
            }
            for raw in docs {
                let items: Vec<&RawValue> = match format.def.envelope.as_deref() {
                    // Splunk 4 writes its results as a bare array, without the key.
                    Some(env) => raw_path(raw, env)
                        .or_else(|| serde_json::from_str(raw.get()).ok())
                        .unwrap_or_else(|| vec![raw]),
                    // A document that is an array (`gcloud logging read --format=json`) is its records.
                    None => serde_json::from_str(raw.get()).unwrap_or_else(|_| vec![raw]),
                };
                for item in items {
                    let origin = Origin {
                        input: index,
                        line: idx.line_of(&text, item.get()),
                    };
                    let Ok(value) = serde_json::from_str::<Value>(item.get()) else {
                        stats.skip(origin.line, "a required field is missing", "");
                        continue;
                    };
                    for record in envelope_records(&value) {
                        let matched = format.match_json(&record);
                        if let (Some(_), Some(reason)) = (&matched, format.skip_reason(&record)) {
                            stats.skip(origin.line, reason, "");
                            continue;
                        }
                        match matched.map(|f| un.push(&f, origin)) {
                            Some(Some(w)) => un.take(w, &mut parser, stats, sink),
                            Some(None) => {}
                            None => stats.skip(origin.line, "a required field is missing", ""),
                        }
                    }
                }
            }
        }
    }
    if let Some(w) = un.pending.take() {
        un.take(w, &mut parser, stats, sink);
    }
    parser.flush(stats, sink);
    Ok(())
}

/// Standard or URL-safe base64, padded or not, whitespace ignored.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    use base64::Engine;
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
        .iter()
        .find_map(|e| e.decode(&compact).ok())
}

/// How much of a line a container runtime writes per chunk.
const RUNTIME_CHUNK: usize = 16 * 1024;

/// A line longer than 16 KiB that Docker wrote in chunks, each opened with
/// the line's timestamp (a TTY container's `docker logs --timestamps`):
/// the repeated timestamps at the chunk ends are dropped.
///
/// ```text
/// 2026-10-01T07:58:06.1Z aaaa(16 KiB)2026-10-01T07:58:06.1Z a -> aaaa(16 KiB)a
/// ```
fn join_runtime_chunks(line: String, ts: &str) -> String {
    let repeat = format!("{ts} ");
    let mut rest = line.as_str();
    let mut out = String::new();
    while rest.len() > RUNTIME_CHUNK
        && rest.is_char_boundary(RUNTIME_CHUNK)
        && rest[RUNTIME_CHUNK..].starts_with(&repeat)
    {
        out.push_str(&rest[..RUNTIME_CHUNK]);
        rest = &rest[RUNTIME_CHUNK + repeat.len()..];
    }
    if out.is_empty() {
        return line;
    }
    out.push_str(rest);
    out
}

/// The elements of a top-level array read one by one, so that an array
/// that was cut short still gives the records it holds.
fn array_elements(text: &str) -> Option<Vec<&RawValue>> {
    let mut pos = text.find('[')? + 1;
    let mut out = Vec::new();
    loop {
        pos += text[pos..]
            .find(|c: char| !c.is_whitespace() && c != ',')
            .unwrap_or(text.len() - pos);
        if pos >= text.len() || text[pos..].starts_with(']') {
            break;
        }
        let mut one = serde_json::Deserializer::from_str(&text[pos..]).into_iter::<&RawValue>();
        match one.next() {
            Some(Ok(raw)) => {
                out.push(raw);
                pos += one.byte_offset();
            }
            _ => break,
        }
    }
    Some(out)
}

/// The array at a dotted path (`hits.hits`) inside a raw document, each
/// element still raw so that it keeps its place (and line) in the text.
fn raw_path<'a>(raw: &'a RawValue, path: &str) -> Option<Vec<&'a RawValue>> {
    let mut cur = raw;
    for part in path.split('.') {
        let obj: BTreeMap<&str, &RawValue> = serde_json::from_str(cur.get()).ok()?;
        cur = obj.get(part)?;
    }
    serde_json::from_str(cur.get()).ok()
}

/// Detects the inner format on the first records, then parses them all.
struct InnerParser<'c> {
    cat: &'c Catalogue,
    envelope_times: TimeParser,
    inner: Option<usize>,
    inner_times: Option<Builder<'static>>,
    /// The inner format's reader, for code kinds.
    inner_reader: Option<Box<dyn crate::formats::Extractor>>,
    buffered: Vec<Wrapped>,
    detected: bool,
    opts: &'c ParseOptions,
}

impl InnerParser<'_> {
    fn take<S: EventSink>(&mut self, w: Wrapped, stats: &mut InputStats, sink: &mut S) {
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
    fn flush<S: EventSink>(&mut self, stats: &mut InputStats, sink: &mut S) {
        if !self.detected {
            self.detected = true;
            let head: Vec<String> = self.buffered.iter().map(|w| w.inner.clone()).collect();
            // An envelope inside an envelope is not unwrapped twice.
            self.inner = detect(self.cat, &head)
                .0
                .map(|d| d.format)
                .filter(|&i| self.cat.formats[i].def.kind != DefinitionKind::Envelope);
            if let Some(i) = self.inner {
                stats.inner_format = Some(self.cat.formats[i].name().to_string());
                self.inner_reader = self.cat.formats[i].extractor();
                self.inner_times = Some(Builder::new(
                    TimeParser::new(
                        &self.cat.formats[i].def.timestamp_formats,
                        self.opts.input_tz,
                    ),
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
        let events = match (self.inner, self.inner_times.as_mut()) {
            (Some(i), Some(times)) => super::parse_line(
                &self.cat.formats[i],
                &mut self.inner_reader,
                self.cat,
                times,
                &w.inner,
                w.origin,
            )
            .ok(),
            _ => None,
        };
        let events = match events {
            Some(evs) if !evs.is_empty() => evs,
            // Not the inner format (or none was found): a plain log record at the envelope's time.
            _ => match w.ts.as_deref().map(|t| self.envelope_times.parse(t)) {
                Some(Some(ts)) => vec![Event::Log(LogRecord {
                    ts,
                    origin: w.origin,
                    level: level_in(&w.inner),
                    signal: self.cat.rules.signal_of(&w.inner),
                    version: self.cat.rules.versions.banner_of(&w.inner),
                    message: w.inner.clone().into(),
                    instance: w.instance.clone().map(Into::into),
                    tenant: None,
                })],
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
            if let Some(inst) = &w.instance {
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

/// The head lines read for detection and the rest of the input, as one text.
fn whole_text(
    head: &[(u64, String)],
    lines: &mut crate::read::Lines,
) -> Result<String, crate::read::ReadError> {
    let mut text = head
        .iter()
        .map(|(_, l)| l.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    text.push('\n');
    text.push_str(&lines.rest_to_string()?);
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_chunks_of_a_long_line_are_joined() {
        let ts = "2026-10-01T07:58:06.113456789Z";
        let a = "a".repeat(RUNTIME_CHUNK);
        let cases = [
            ("short", "GET /a 200".to_string(), "GET /a 200".to_string()),
            ("two chunks", format!("{a}{ts} b"), format!("{a}b")),
            (
                "three chunks",
                format!("{a}{ts} {a}{ts} c"),
                format!("{a}{a}c"),
            ),
            (
                "another time",
                format!("{a}2026-10-01T07:58:07Z b"),
                format!("{a}2026-10-01T07:58:07Z b"),
            ),
        ];
        for (name, line, want) in cases {
            assert_eq!(join_runtime_chunks(line, ts), want, "{name}");
        }
    }
}
