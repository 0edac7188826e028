//! Parsing: each input's lines (or JSON documents) -> normalised events, or a
//! counted skip with its reason. Every line is accounted for:
//! `lines == parsed + skipped`.
//!
//! In: an [`Input`] from `read` and the [`Catalogue`] from `formats`. Out:
//! [`Event`]s pushed to a sink, and the input's [`InputStats`].
//!
//! ```text
//! access.log:1  203.0.113.7 - - [01/Oct/2026:13:26:55 +0530] "GET /api/..." 200 ...
//!   -> Event::Request(Request { ts: 07:56:52.583Z, route: "/api/v1/accounts/{id}/...", tenant: "acct-4411", .. })
//! ```

mod bad_line;
mod console;
mod cut_document;
mod envelope;
mod error;
mod json_fallback;
mod record;
mod route;
mod timestamp;

pub use error::ParseError;
pub use record::{level, Builder};
pub use route::fold as fold_route;
pub use timestamp::TimeParser;

use miette::NamedSource;
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::BTreeMap;

use crate::event::{Event, EventSink, Millis, Origin};
use crate::formats::{
    array_records, detect, record_mode, Catalogue, DefinitionKind, Detection, Extractor, Format,
    LazyRecord, Record, RecordMode,
};
use crate::read::Input;
use crate::zone::Zone;

/// Lines read for detection.
const HEAD_LINES: usize = 200;
/// Bad lines kept per input for `--strict` and `formats check`.
const KEEP_BAD: usize = 5;
/// The skip reason of a line the end of a cut input fell inside.
pub const CUT_SHORT: &str = "cut short: the input ends inside this line";
/// The skip reason of the lines of a CSV row the input ends inside.
pub const CUT_ROW: &str = "cut short: the input ends inside this row";
/// The skip reason of the record a cut JSON document ends inside.
pub const CUT_RECORD: &str = "cut short: the document ends inside this record";

/// How to parse.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// `--format NAME`, resolved to a catalogue index.
    pub forced: Option<usize>,
    /// `--input-tz`.
    pub input_tz: Zone,
    /// Worker threads for large line inputs (1: parse on the calling thread).
    pub threads: usize,
    /// Told how many bytes were handed to the workers, for a progress bar.
    pub progress: Option<Progress>,
}

/// A callback told of bytes read; the binary draws a progress bar with it.
#[derive(Clone)]
pub struct Progress(pub std::sync::Arc<dyn Fn(u64) + Send + Sync>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
}

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
    /// Records the input's format leaves that another format reads (a
    /// structlog request line in a JSON-lines log), by that format.
    pub read_as: BTreeMap<String, u64>,
    pub bad_lines: Vec<BadLine>,
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

    /// Fold a worker's statistics in.
    /// Find where each kept bad line stops matching `format` (only the few
    /// kept lines: the search compiles a DFA per pattern).
    fn explain_bad_lines(&mut self, format: &Format) {
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
    fn cut_inside_record(&mut self, last: u64, open: u64) {
        let open = open.min(self.parsed);
        self.parsed -= open;
        self.skipped += open;
        *self
            .skipped_by_reason
            .entry(CUT_ROW.to_string())
            .or_insert(0) += open;
        self.cut = Some(crate::read::Cut {
            line: last.saturating_sub(open),
            reason: "the input ends inside a quoted CSV field".to_string(),
            ..Default::default()
        });
    }

    /// Take the input's cut, if it has one: an unfinished last line is
    /// counted as skipped (read in part, it could give wrong values).
    fn settle_cut(&mut self, lines: &mut crate::read::Lines) {
        // A cut the parse found (a CSV row, a JSON document) is at the end
        // of what was read.
        if let Some(cut) = self.cut.as_mut().filter(|c| c.file_byte == 0) {
            (cut.file_byte, cut.text_byte) = lines.bytes_read();
        }
        let Some(cut) = lines.take_cut() else { return };
        if let Some(partial) = &cut.partial {
            self.skip(cut.line + 1, CUT_SHORT, partial);
        }
        self.cut = Some(cut);
    }

    fn merge(&mut self, o: InputStats) {
        self.lines += o.lines;
        self.parsed += o.parsed;
        self.skipped += o.skipped;
        for (k, v) in o.skipped_by_reason {
            *self.skipped_by_reason.entry(k).or_insert(0) += v;
        }
        for (k, v) in o.unplaced_by_reason {
            *self.unplaced_by_reason.entry(k).or_insert(0) += v;
        }
        for (k, v) in o.read_as {
            *self.read_as.entry(k).or_insert(0) += v;
        }
        self.first_ts = [self.first_ts, o.first_ts].into_iter().flatten().min();
        self.last_ts = [self.last_ts, o.last_ts].into_iter().flatten().max();
        self.invalid_utf8 += o.invalid_utf8;
        self.zoneless |= o.zoneless;
        self.bad_lines.extend(o.bad_lines);
        self.bad_lines.sort_by_key(|b| b.line);
        self.bad_lines.truncate(KEEP_BAD);
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

/// Parse one input, pushing its events to `sink`. `index` is the input's
/// position in the run (it goes into every [`Origin`]).
pub fn parse_input<S: EventSink>(
    input: Input,
    index: u32,
    cat: &Catalogue,
    opts: &ParseOptions,
    sink: &mut S,
) -> Result<InputStats, ParseError> {
    parse_input_inspect(input, index, cat, opts, sink, None)
}

/// Bytes handed to a worker at a time: large enough that the hand-off is
/// noise, small enough that both cores stay busy on a modest file.
const CHUNK_BYTES: usize = 4 << 20;

/// [`parse_input`], also showing `inspect` the raw fields of every record
/// (`postmortem formats check --fields`).
pub fn parse_input_inspect<S: EventSink>(
    input: Input,
    index: u32,
    cat: &Catalogue,
    opts: &ParseOptions,
    sink: &mut S,
    inspect: Option<record::Inspect<'_>>,
) -> Result<InputStats, ParseError> {
    let mut stats = InputStats {
        path: input.name.clone(),
        compression: input.compression.to_string(),
        ..InputStats::default()
    };
    let mut lines = input.lines();
    let mut head: Vec<(u64, String)> = Vec::new();
    for item in lines.by_ref() {
        head.push(item?);
        if head.len() >= HEAD_LINES {
            break;
        }
    }
    let mut head_text: Vec<String> = head.iter().map(|(_, l)| l.clone()).collect();
    // Kibana console output is JSON once its literals are: read it as such.
    if let Some(json) = console::console_to_json(&head_text.join("\n")) {
        let lines: Vec<String> = json.split('\n').map(str::to_string).collect();
        if lines.len() == head.len() && record_mode(&lines) == RecordMode::Documents {
            for (h, l) in head.iter_mut().zip(&lines) {
                h.1.clone_from(l);
            }
            head_text = lines;
        }
    }
    if head_text.iter().all(|l| l.trim().is_empty()) {
        // Cut before a line was whole: that is the error, not emptiness.
        if let Some(cut) = lines.take_cut() {
            return Err(ParseError::Read(crate::read::ReadError::Io {
                path: stats.path,
                message: format!(
                    "{} (at byte {}, before the first line ends)",
                    cut.reason, cut.file_byte
                ),
            }));
        }
        return Err(ParseError::Empty { path: stats.path });
    }
    let detection = match opts.forced {
        Some(format) => Detection {
            format,
            score: 1.0,
            mode: record_mode(&head_text),
        },
        None => match detect(cat, &head_text) {
            (Some(d), _) => d,
            (None, scores) => return Err(unknown_format(cat, &stats.path, &head_text, &scores)),
        },
    };
    let format = &cat.formats[detection.format];
    stats.format = format.name().to_string();
    stats.score = detection.score;
    let chunked = inspect.is_none();
    let mut times = Builder::new(
        timestamp::TimeParser::new(&format.def.timestamp_formats, opts.input_tz),
        inspect,
    );

    if format.def.kind == DefinitionKind::Envelope {
        envelope::parse(
            format,
            detection.mode,
            head,
            &mut lines,
            cat,
            opts,
            index,
            &mut stats,
            sink,
            times.inspect.take(),
        )?;
        stats.invalid_utf8 = lines.invalid_utf8;
        stats.settle_cut(&mut lines);
        stats.explain_bad_lines(format);
        return Ok(stats);
    }
    let mut reader = format.extractor();
    match detection.mode {
        RecordMode::Lines => {
            let mut cx = LineCx::new(format, cat, index, &mut reader, &mut times);
            let mut last = 0;
            for (n, line) in &head {
                cx.line(*n, line, &mut stats, sink);
                last = *n;
            }
            // Lines that continue the head's last record are read here, so
            // no chunk starts inside a record.
            while let Some(item) = lines.next_continuation(&format.def.continuation_prefixes) {
                let (n, line) = item?;
                cx.line(n, &line, &mut stats, sink);
                last = n;
            }
            if chunked && cx.reader.is_none() {
                // Stateless line formats: the rest is cut into chunks of whole
                // lines that worker threads parse into sinks of their own.
                let seed = cx.times.times.for_chunk();
                parse_chunks(
                    &mut lines, format, cat, opts, index, &seed, &mut stats, sink,
                )?;
            } else {
                for item in lines.by_ref() {
                    let (n, line) = item?;
                    cx.line(n, &line, &mut stats, sink);
                    last = n;
                }
                cx.finish(last, &mut stats, sink);
            }
        }
        RecordMode::Documents => {
            stats.documents = true;
            let mut text = head_text.join("\n");
            text.push('\n');
            text.push_str(&lines.rest_to_string()?);
            let text = console::console_to_json(&text).unwrap_or(text);
            parse_documents(
                format,
                &mut reader,
                cat,
                &mut times,
                &text,
                index,
                &mut stats,
                &mut |e| sink.push(e),
            );
        }
    }
    // The workers counted their chunks' lines; the reader counted the head's.
    stats.invalid_utf8 += lines.invalid_utf8;
    stats.zoneless |= times.times.saw_zoneless;
    stats.settle_cut(&mut lines);
    stats.explain_bad_lines(format);
    Ok(stats)
}

/// What parsing one line needs.
struct LineCx<'c, 'i> {
    format: &'c Format,
    cat: &'c Catalogue,
    index: u32,
    reader: &'c mut Option<Box<dyn Extractor>>,
    times: &'c mut Builder<'i>,
    /// Time and instance of the last log record, for its continuation lines.
    last: Option<(Millis, Option<String>, Origin)>,
    /// Where routes are folded, line after line, without a new string each.
    route_buf: String,
    /// The other JSON formats, for a JSON line this one leaves.
    fallback: Option<json_fallback::JsonFallback<'c>>,
}

impl<'c, 'i> LineCx<'c, 'i> {
    fn new(
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
            fallback: None,
        }
    }

    fn line<S: EventSink>(&mut self, n: u64, line: &str, stats: &mut InputStats, sink: &mut S) {
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
                    // Not this format's record: the full parse below
                    // hands it to the format that reads it.
                    Some(None) => {}
                    // Only the parsed record can say.
                    None => {}
                }
            }
            let Ok(value) = serde_json::from_str::<Value>(line) else {
                stats.skip(n, "not valid JSON", line);
                return;
            };
            let Some(fields) = self.format.match_json(&value) else {
                self.other_format(n, line, &value, stats, sink);
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

    /// A valid JSON line this format leaves: read by the first other JSON
    /// format that takes it, else skipped.
    fn other_format<S: EventSink>(
        &mut self,
        n: u64,
        line: &str,
        value: &Value,
        stats: &mut InputStats,
        sink: &mut S,
    ) {
        let (cat, format) = (self.cat, self.format);
        let times = &self.times.times;
        let fallback = self.fallback.get_or_insert_with(|| {
            json_fallback::JsonFallback::new(cat, format, times.for_chunk())
        });
        let origin = Origin {
            input: self.index,
            line: n,
        };
        let Some(read) = fallback.read(value, origin) else {
            stats.skip(n, "a required field is missing", line);
            return;
        };
        stats.zoneless |= read.zoneless;
        if read.built.is_ok() {
            *stats.read_as.entry(read.format.to_string()).or_insert(0) += 1;
        }
        match (read.built, read.unplaced) {
            (Ok(Some(ev)), _) => {
                self.remember(&ev);
                stats.parsed_at(ev.ts());
                sink.push(ev);
            }
            (Ok(None), Some(reason)) => stats.parsed_unplaced(&reason),
            (Ok(None), None) => stats.parsed_without_event(),
            (Err(reason), _) => stats.skip(n, reason, line),
        }
    }

    /// Records a kind held back to the end of the input (a snapshot summed
    /// over its rows): they count like records of the last line.
    fn finish<S: EventSink>(&mut self, last: u64, stats: &mut InputStats, sink: &mut S) {
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

/// Parse the rest of a line input on `opts.threads` workers. The reader
/// (this thread) cuts chunks; each worker keeps its own sink, statistics and
/// timestamp cache; all are joined at the end, in an order-free way. Chunk
/// buffers go back to the reader to be filled again, so memory stays at a
/// few chunks per worker and no page is faulted in twice. With one thread
/// the chunks are parsed here, in the same way.
#[allow(clippy::too_many_arguments)]
fn parse_chunks<S: EventSink>(
    lines: &mut crate::read::Lines,
    format: &Format,
    cat: &Catalogue,
    opts: &ParseOptions,
    index: u32,
    year_seed: &timestamp::TimeParser,
    stats: &mut InputStats,
    sink: &mut S,
) -> Result<(), ParseError> {
    use std::sync::{mpsc, Mutex};
    // One worker's state: its sink, statistics and timestamp cache.
    let worker =
        |part: &mut S, chunk: &crate::read::Chunk, cx: &mut LineCx<'_, '_>, st: &mut InputStats| {
            for (n, line, bad) in chunk.lines() {
                st.invalid_utf8 += u64::from(bad);
                cx.line(n, &line, st, part);
            }
        };
    let continuations = &format.def.continuation_prefixes;
    if opts.threads <= 1 {
        let mut reader = None;
        let mut times = Builder::new(year_seed.for_chunk(), None);
        let mut cx = LineCx::new(format, cat, index, &mut reader, &mut times);
        let mut st = InputStats::default();
        let mut buf = Vec::new();
        while let Some(chunk) = lines.next_chunk_into(CHUNK_BYTES, continuations, buf)? {
            if let Some(p) = &opts.progress {
                (p.0)(chunk.data.len() as u64);
            }
            worker(sink, &chunk, &mut cx, &mut st);
            buf = chunk.data;
        }
        st.zoneless = cx.times.times.saw_zoneless;
        stats.merge(st);
        return Ok(());
    }
    let (tx, rx) = mpsc::sync_channel::<crate::read::Chunk>(opts.threads * 2);
    let (back_tx, back_rx) = mpsc::channel::<Vec<u8>>();
    let rx = Mutex::new(rx);
    let forks: Vec<S> = (0..opts.threads).map(|_| sink.fork()).collect();
    let results = std::thread::scope(|scope| {
        let workers: Vec<_> = forks
            .into_iter()
            .map(|mut part| {
                let rx = &rx;
                let back = back_tx.clone();
                let worker = &worker;
                scope.spawn(move || {
                    let mut st = InputStats::default();
                    let mut reader = None;
                    // Year-less times in a chunk start from the year the head was in.
                    let mut times = Builder::new(year_seed.for_chunk(), None);
                    let mut cx = LineCx::new(format, cat, index, &mut reader, &mut times);
                    loop {
                        // The lock is held only to take the next chunk.
                        let next = rx.lock().map(|r| r.recv());
                        let Ok(Ok(chunk)) = next else { break };
                        worker(&mut part, &chunk, &mut cx, &mut st);
                        // The reader may be gone already: the buffer is then dropped.
                        let _ = back.send(chunk.data);
                    }
                    st.zoneless = cx.times.times.saw_zoneless;
                    (part, st)
                })
            })
            .collect();
        drop(back_tx);
        let mut read_result = Ok(());
        // A fixed set of buffers: the channel's, one per worker and one being
        // filled. Past that the reader waits for one to come back rather
        // than fault in a fresh one.
        let pool = opts.threads * 3 + 1;
        let mut made = 0;
        loop {
            let buf = match back_rx.try_recv() {
                Ok(b) => b,
                Err(_) if made < pool => {
                    made += 1;
                    Vec::new()
                }
                Err(_) => back_rx.recv().unwrap_or_default(),
            };
            match lines.next_chunk_into(CHUNK_BYTES, continuations, buf) {
                Ok(Some(chunk)) => {
                    if let Some(p) = &opts.progress {
                        (p.0)(chunk.data.len() as u64);
                    }
                    if tx.send(chunk).is_err() {
                        break;
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    read_result = Err(e);
                    break;
                }
            }
        }
        drop(tx);
        let parts: Vec<_> = workers.into_iter().filter_map(|w| w.join().ok()).collect();
        (read_result, parts)
    });
    let (read_result, parts) = results;
    if parts.len() != opts.threads {
        return Err(ParseError::Worker {
            path: stats.path.clone(),
        });
    }
    for (part, st) in parts {
        sink.join(part);
        stats.merge(st);
    }
    read_result?;
    Ok(())
}

/// One line of a line-oriented input -> its events (a JSON line may be a
/// whole document with several records).
fn parse_line(
    format: &Format,
    reader: &mut Option<Box<dyn Extractor>>,
    cat: &Catalogue,
    times: &mut Builder<'_>,
    line: &str,
    origin: Origin,
) -> Result<Vec<Event<'static>>, &'static str> {
    match format.def.kind {
        DefinitionKind::Regex => {
            let fields = format.match_line(line).ok_or("does not match the format")?;
            Ok(times
                .build(format, &cat.rules, &fields, None, origin)?
                .into_iter()
                .map(Event::into_owned)
                .collect())
        }
        DefinitionKind::Json => {
            let value: Value = serde_json::from_str(line).map_err(|_| "not valid JSON")?;
            json_records(format, cat, times, &value, origin)
        }
        _ => {
            let reader = reader.as_mut().ok_or("this format has no reader")?;
            let records = reader.line(line)?;
            collect_events(
                records
                    .iter()
                    .map(|f| times.build(format, &cat.rules, f, None, origin)),
            )
        }
    }
}

fn json_records(
    format: &Format,
    cat: &Catalogue,
    times: &mut Builder<'_>,
    value: &Value,
    origin: Origin,
) -> Result<Vec<Event<'static>>, &'static str> {
    let items: Vec<&Value> = match format.def.envelope.as_deref().and_then(|e| value.get(e)) {
        Some(Value::Array(items)) => items.iter().collect(),
        _ => match array_records(value) {
            Some(items) => items.iter().collect(),
            None => vec![value],
        },
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let fields = format
            .match_json(item)
            .ok_or("a required field is missing")?;
        out.extend(
            times
                .build(
                    format,
                    &cat.rules,
                    &fields,
                    Some(Record::Value(item)),
                    origin,
                )?
                .map(Event::into_owned),
        );
    }
    Ok(out)
}

/// The events of several records, the first skip reason failing them all.
fn collect_events<'a>(
    built: impl Iterator<Item = Result<Option<Event<'a>>, &'static str>>,
) -> Result<Vec<Event<'static>>, &'static str> {
    let mut out = Vec::new();
    for b in built {
        out.extend(b?.map(Event::into_owned));
    }
    Ok(out)
}

/// Whole JSON documents (pretty-printed, or several concatenated): each
/// record inside counts as one line of the input, and carries the line its
/// record starts on.
#[allow(clippy::too_many_arguments)]
fn parse_documents(
    format: &Format,
    reader: &mut Option<Box<dyn Extractor>>,
    cat: &Catalogue,
    times: &mut Builder<'_>,
    text: &str,
    index: u32,
    stats: &mut InputStats,
    sink: &mut dyn FnMut(Event<'_>),
) {
    let lines = LineIndex::new(text);
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<&RawValue>();
    loop {
        let start = stream.byte_offset();
        let raw = match stream.next() {
            None => break,
            Some(Ok(raw)) => raw,
            // Cut short: the whole records before the cut are read.
            Some(Err(e)) if e.is_eof() => {
                let rest = text.get(start..).unwrap_or_default();
                let (records, cut) = cut_document::records(rest, format.def.envelope.as_deref());
                let records = records
                    .into_iter()
                    .map(|r| {
                        let line = lines.line_of(text, r.get());
                        (r, Origin { input: index, line })
                    })
                    .collect();
                read_records(format, reader, cat, times, records, stats, sink);
                let line = lines.line_of(text, rest.get(cut..).unwrap_or_default());
                stats.skip(line, CUT_RECORD, "");
                // Bytes are those read, filled in when the input ends.
                stats.cut = Some(crate::read::Cut {
                    line: line.saturating_sub(1),
                    reason: e.to_string(),
                    ..Default::default()
                });
                break;
            }
            Some(Err(e)) => {
                stats.skip(e.line() as u64, "invalid JSON document", "");
                break;
            }
        };
        let origin = Origin {
            input: index,
            line: lines.line_of(text, raw.get()),
        };
        // Records under the envelope, or in a top-level array of records,
        // are parsed one by one so each keeps its line.
        let envelope = match format.def.envelope.as_deref() {
            Some(env) => (|| {
                let top: BTreeMap<&str, &RawValue> = serde_json::from_str(raw.get()).ok()?;
                serde_json::from_str::<Vec<&RawValue>>(top.get(env)?.get()).ok()
            })(),
            None if format.def.kind == DefinitionKind::Json
                && raw.get().trim_start().starts_with('[') =>
            {
                serde_json::from_str::<Vec<&RawValue>>(raw.get())
                    .ok()
                    .filter(|items| {
                        !items.is_empty()
                            && items.iter().all(|i| i.get().trim_start().starts_with('{'))
                    })
            }
            None => None,
        };
        let records: Vec<(&RawValue, Origin)> = match envelope {
            Some(items) => items
                .into_iter()
                .map(|i| {
                    let o = Origin {
                        input: index,
                        line: lines.line_of(text, i.get()),
                    };
                    (i, o)
                })
                .collect(),
            None => vec![(raw, origin)],
        };
        if records.is_empty() {
            stats.skip(origin.line, "no records in document", "");
        }
        read_records(format, reader, cat, times, records, stats, sink);
    }
}

/// The records of one document, each parsed and counted at its line.
fn read_records(
    format: &Format,
    reader: &mut Option<Box<dyn Extractor>>,
    cat: &Catalogue,
    times: &mut Builder<'_>,
    records: Vec<(&RawValue, Origin)>,
    stats: &mut InputStats,
    sink: &mut dyn FnMut(Event<'_>),
) {
    for (rec, origin) in records {
        let value: Value = match serde_json::from_str(rec.get()) {
            Ok(v) => v,
            Err(_) => {
                stats.skip(origin.line, "invalid JSON document", "");
                continue;
            }
        };
        let parsed = records_of_document(format, reader, cat, times, &value, origin);
        // A record without a time, or a code kind's snapshot without one.
        let unplaced = times
            .take_unplaced()
            .or_else(|| reader.as_mut().and_then(|r| r.unplaced()).map(String::from));
        match (parsed, unplaced) {
            // Read, but without a time to place it on the timeline.
            (Ok(events), Some(reason)) if events.is_empty() => stats.parsed_unplaced(&reason),
            (Ok(events), None) if events.is_empty() => {
                stats.skip(origin.line, "no records in document", "")
            }
            (Ok(events), _) => {
                for ev in events {
                    stats.parsed_at(ev.ts());
                    sink(ev);
                }
            }
            (Err(reason), _) => stats.skip(origin.line, reason, ""),
        }
    }
}

/// Byte offsets of line starts, to turn a slice of the text into its line.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { starts }
    }

    /// The 1-based line a sub-slice of `text` starts on.
    pub(crate) fn line_of(&self, text: &str, part: &str) -> u64 {
        let offset = (part.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
        self.starts.partition_point(|&s| s <= offset) as u64
    }
}

fn records_of_document(
    format: &Format,
    reader: &mut Option<Box<dyn Extractor>>,
    cat: &Catalogue,
    times: &mut Builder<'_>,
    doc: &Value,
    origin: Origin,
) -> Result<Vec<Event<'static>>, &'static str> {
    match format.def.kind {
        DefinitionKind::Json => json_records(format, cat, times, doc, origin),
        DefinitionKind::Regex => Err("a regex format cannot read JSON documents"),
        _ => {
            let reader = reader.as_mut().ok_or("this format has no reader")?;
            collect_events(
                reader
                    .document(doc)?
                    .iter()
                    .map(|f| times.build(format, &cat.rules, f, None, origin)),
            )
        }
    }
}

fn unknown_format(
    cat: &Catalogue,
    path: &str,
    head: &[String],
    scores: &[(usize, f64)],
) -> ParseError {
    let mut ranked: Vec<&(usize, f64)> = scores.iter().filter(|(_, s)| *s > 0.0).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let best = match ranked.first() {
        Some((i, s)) => format!(
            "{} reads {:.0}% of the first lines",
            cat.formats[*i].name(),
            s * 100.0
        ),
        None => "no format reads any of the first lines".to_string(),
    };
    let first = head
        .iter()
        .find(|l| !l.trim().is_empty())
        .cloned()
        .unwrap_or_default();
    let excerpt: String = first.chars().take(300).collect();
    let len = excerpt.len();
    ParseError::UnknownFormat {
        path: path.to_string(),
        best,
        src: NamedSource::new(path, excerpt),
        span: (0, len).into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn run(text: &str) -> (InputStats, Vec<Event<'static>>) {
        let cat = Catalogue::builtin().expect("catalogue");
        let input = Input::from_reader("t".into(), Box::new(Cursor::new(text.as_bytes().to_vec())))
            .expect("input");
        let mut events = Vec::new();
        let stats =
            parse_input(input, 0, &cat, &ParseOptions::default(), &mut events).expect("parse");
        (stats, events)
    }

    /// Every sample line of every built-in definition becomes an event, or,
    /// when it has no time, is read and counted without one. Code kinds read
    /// their samples in order with one reader, and a sample without `expect`
    /// may hold no record (a header).
    #[test]
    fn every_definition_sample_parses_into_an_event() {
        let cat = Catalogue::builtin().expect("catalogue");
        for (i, f) in cat.formats.iter().enumerate() {
            // Envelope samples hold other formats' lines: tests/cli/envelopes.rs runs them end to end.
            if f.def.kind == DefinitionKind::Envelope {
                continue;
            }
            let mut reader = f.extractor();
            for s in &f.def.samples {
                let mut times =
                    Builder::new(TimeParser::new(&f.def.timestamp_formats, Zone::Utc), None);
                let got = parse_line(f, &mut reader, &cat, &mut times, &s.line, Origin::default());
                let untimed = times.take_unplaced().is_some();
                let may_be_empty = untimed || (reader.is_some() && s.expect.is_empty());
                assert!(
                    matches!(&got, Ok(ev) if !ev.is_empty() || may_be_empty),
                    "{} ({i}): {:?} on {}",
                    f.name(),
                    got,
                    s.line
                );
            }
        }
    }

    #[test]
    fn every_line_is_accounted_for() {
        let text = "203.0.113.7 - - [01/Oct/2026:13:26:55 +0530] \"GET /a HTTP/1.1\" 200 5 \"-\" \"curl/8\"\n\
                    \n\
                    garbage here\n\
                    203.0.113.7 - - [01/Oct/2026:13:26:56 +0530] \"GET /b HTTP/1.1\" 500 5 \"-\" \"curl/8\"\n";
        let (stats, events) = run(text);
        assert_eq!(stats.lines, 4);
        assert_eq!(stats.parsed, 2);
        assert_eq!(stats.skipped, 2);
        assert_eq!(stats.lines, stats.parsed + stats.skipped);
        assert_eq!(stats.skipped_by_reason.get("blank line"), Some(&1));
        assert_eq!(events.len(), 2);
    }

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

    #[test]
    fn an_unknown_format_is_a_diagnostic_not_a_panic() {
        let cat = Catalogue::builtin().expect("catalogue");
        let input = Input::from_reader(
            "x".into(),
            Box::new(Cursor::new(b"%%% nothing like a log\n".to_vec())),
        )
        .expect("input");
        let err = parse_input(
            input,
            0,
            &cat,
            &ParseOptions::default(),
            &mut crate::event::Discard,
        )
        .expect_err("unknown");
        assert!(matches!(err, ParseError::UnknownFormat { .. }));
    }

    /// Regression: zap's example logger writes no timestamp; such records
    /// were skipped as "no timestamp field" and the input was not detected.
    #[test]
    fn records_without_a_time_are_read_and_counted_without_an_event() {
        let text = "{\"level\":\"info\",\"msg\":\"worker started\"}\n\
                    {\"level\":\"error\",\"msg\":\"pool exhausted\",\"ts\":\"-\"}\n\
                    {\"level\":\"info\",\"msg\":\"tick\",\"ts\":1790841415.5}\n";
        let (stats, events) = run(text);
        assert_eq!(stats.format, "json_lines");
        assert_eq!((stats.lines, stats.parsed, stats.skipped), (3, 3, 0));
        assert_eq!(stats.unplaced_by_reason.get("no timestamp"), Some(&1));
        assert_eq!(
            stats.unplaced_by_reason.get("placeholder timestamp"),
            Some(&1)
        );
        assert_eq!(events.len(), 1);
    }
}

#[cfg(test)]
mod change_tests {
    use super::*;
    use crate::event::InfraKind;
    use std::io::Cursor;

    /// The change sources' own samples: what kind of change each record is,
    /// and no creator's e-mail survives parsing.
    #[test]
    fn change_sources_give_deploys_rollbacks_and_flag_changes() {
        let cat = Catalogue::builtin().expect("catalogue");
        // (format, kinds of the first sample's records)
        let cases = [
            (
                "helm_history",
                vec![InfraKind::Deploy, InfraKind::Deploy, InfraKind::Rollback],
            ),
            (
                "argocd_application",
                vec![InfraKind::Deploy, InfraKind::Deploy, InfraKind::Rollback],
            ),
            ("github_deployments", vec![InfraKind::Deploy]),
            ("github_deployment_statuses", vec![InfraKind::Deploy]),
            ("launchdarkly_audit_log", vec![InfraKind::FlagChange]),
            ("unleash_events", vec![InfraKind::FlagChange]),
        ];
        for (name, want) in cases {
            let f = &cat.formats[cat.find(name).expect(name)];
            let text = format!("{}\n", f.def.samples[0].line);
            let input = Input::from_reader("t".into(), Box::new(Cursor::new(text.into_bytes())))
                .expect("input");
            let mut events: Vec<Event> = Vec::new();
            let stats =
                parse_input(input, 0, &cat, &ParseOptions::default(), &mut events).expect("parse");
            assert_eq!(stats.format, name);
            let got: Vec<InfraKind> = events
                .iter()
                .filter_map(|e| match e {
                    Event::Infra(i) => {
                        assert!(!i.message.contains('@'), "{name}: {}", i.message);
                        Some(i.kind)
                    }
                    _ => None,
                })
                .collect();
            assert_eq!(got, want, "{name}");
        }
    }
}
