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

mod error;
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

use crate::event::{Event, Millis, Origin};
use crate::formats::{
    detect, record_mode, Catalogue, DefinitionKind, Detection, Extractor, Format, RecordMode,
};
use crate::read::Input;
use crate::zone::Zone;

/// Lines read for detection.
const HEAD_LINES: usize = 200;
/// Bad lines kept per input for `--strict` and `formats check`.
const KEEP_BAD: usize = 5;

/// How to parse.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// `--format NAME`, resolved to a catalogue index.
    pub forced: Option<usize>,
    /// `--input-tz`.
    pub input_tz: Zone,
}

/// A line that was skipped, kept for diagnostics.
#[derive(Clone, Debug, PartialEq)]
pub struct BadLine {
    pub line: u64,
    pub reason: String,
    pub text: String,
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
    /// own: a continuation line, a logger configured without timestamps), by reason.
    pub unplaced_by_reason: BTreeMap<String, u64>,
    pub first_ts: Option<Millis>,
    pub last_ts: Option<Millis>,
    pub invalid_utf8: u64,
    /// Timestamps without a zone were read in `--input-tz`.
    pub zoneless: bool,
    pub documents: bool,
    pub bad_lines: Vec<BadLine>,
}

impl InputStats {
    fn skip(&mut self, line: u64, reason: &str, text: &str) {
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
                text: text.chars().take(400).collect(),
            });
        }
    }

    fn parsed_without_event(&mut self) {
        self.lines += 1;
        self.parsed += 1;
    }

    fn parsed_unplaced(&mut self, reason: &str) {
        self.parsed_without_event();
        *self
            .unplaced_by_reason
            .entry(reason.to_string())
            .or_insert(0) += 1;
    }

    fn parsed_at(&mut self, ts: Millis) {
        self.lines += 1;
        self.parsed += 1;
        self.first_ts = Some(self.first_ts.map_or(ts, |f| f.min(ts)));
        self.last_ts = Some(self.last_ts.map_or(ts, |l| l.max(ts)));
    }
}

/// Parse one input, pushing its events to `sink`. `index` is the input's
/// position in the run (it goes into every [`Origin`]).
pub fn parse_input(
    input: Input,
    index: u32,
    cat: &Catalogue,
    opts: &ParseOptions,
    sink: &mut dyn FnMut(Event),
) -> Result<InputStats, ParseError> {
    parse_input_inspect(input, index, cat, opts, sink, None)
}

/// [`parse_input`], also showing `inspect` the raw fields of every record
/// (`postmortem formats check --fields`).
pub fn parse_input_inspect(
    input: Input,
    index: u32,
    cat: &Catalogue,
    opts: &ParseOptions,
    sink: &mut dyn FnMut(Event),
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
    let head_text: Vec<String> = head.iter().map(|(_, l)| l.clone()).collect();
    if head_text.iter().all(|l| l.trim().is_empty()) {
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
    let mut times = Builder::new(
        timestamp::TimeParser::new(&format.def.timestamp_formats, opts.input_tz),
        inspect,
    );

    let mut reader = format.extractor();
    match detection.mode {
        RecordMode::Lines => {
            let mut handle = |n: u64, line: &str, stats: &mut InputStats| {
                let origin = Origin {
                    input: index,
                    line: n,
                };
                if line.trim().is_empty() {
                    stats.skip(n, "blank line", line);
                    return;
                }
                let parsed = parse_line(format, &mut reader, cat, &mut times, line, origin);
                match (parsed, times.take_unplaced()) {
                    // Understood, but no time to place it on the timeline, or no
                    // record in it (a CSV header): read, not skipped.
                    (Ok(events), Some(reason)) if events.is_empty() => {
                        stats.parsed_unplaced(reason)
                    }
                    (Ok(events), None) if events.is_empty() => stats.parsed_without_event(),
                    // A line with several records (a JSON document) counts each one.
                    (Ok(events), _) => {
                        for ev in events {
                            stats.parsed_at(ev.ts());
                            sink(ev);
                        }
                    }
                    (Err(reason), _) => stats.skip(n, reason, line),
                }
            };
            for (n, line) in &head {
                handle(*n, line, &mut stats);
            }
            for item in lines.by_ref() {
                let (n, line) = item?;
                handle(n, &line, &mut stats);
            }
        }
        RecordMode::Documents => {
            stats.documents = true;
            let mut text = head_text.join("\n");
            text.push('\n');
            text.push_str(&lines.rest_to_string()?);
            parse_documents(
                format,
                &mut reader,
                cat,
                &mut times,
                &text,
                index,
                &mut stats,
                sink,
            );
        }
    }
    stats.invalid_utf8 = lines.invalid_utf8;
    stats.zoneless = times.times.saw_zoneless;
    Ok(stats)
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
) -> Result<Vec<Event>, &'static str> {
    match format.def.kind {
        DefinitionKind::Regex => {
            let fields = format.match_line(line).ok_or("does not match the format")?;
            Ok(times
                .build(format, &cat.rules, &fields, None, origin)?
                .into_iter()
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
) -> Result<Vec<Event>, &'static str> {
    let items: Vec<&Value> = match format.def.envelope.as_deref().and_then(|e| value.get(e)) {
        Some(Value::Array(items)) => items.iter().collect(),
        _ => vec![value],
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let fields = format
            .match_json(item)
            .ok_or("a required field is missing")?;
        out.extend(times.build(format, &cat.rules, &fields, Some(item), origin)?);
    }
    Ok(out)
}

/// The events of several records, the first skip reason failing them all.
fn collect_events(
    built: impl Iterator<Item = Result<Option<Event>, &'static str>>,
) -> Result<Vec<Event>, &'static str> {
    let mut out = Vec::new();
    for b in built {
        out.extend(b?);
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
    sink: &mut dyn FnMut(Event),
) {
    let lines = LineIndex::new(text);
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<&RawValue>();
    loop {
        let raw = match stream.next() {
            None => break,
            Some(Ok(raw)) => raw,
            Some(Err(e)) => {
                stats.skip(e.line() as u64, "invalid JSON document", "");
                break;
            }
        };
        let origin = Origin {
            input: index,
            line: lines.line_of(text, raw.get()),
        };
        // Records under the envelope are parsed one by one so each keeps its line.
        let envelope = format.def.envelope.as_deref().and_then(|env| {
            let top: BTreeMap<&str, &RawValue> = serde_json::from_str(raw.get()).ok()?;
            serde_json::from_str::<Vec<&RawValue>>(top.get(env)?.get()).ok()
        });
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
        for (rec, origin) in records {
            let value: Value = match serde_json::from_str(rec.get()) {
                Ok(v) => v,
                Err(_) => {
                    stats.skip(origin.line, "invalid JSON document", "");
                    continue;
                }
            };
            let parsed = records_of_document(format, reader, cat, times, &value, origin);
            match (parsed, times.take_unplaced()) {
                // Read, but without a time to place it on the timeline.
                (Ok(events), Some(reason)) if events.is_empty() => stats.parsed_unplaced(reason),
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
}

/// Byte offsets of line starts, to turn a slice of the text into its line.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
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
    fn line_of(&self, text: &str, part: &str) -> u64 {
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
) -> Result<Vec<Event>, &'static str> {
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

    fn run(text: &str) -> (InputStats, Vec<Event>) {
        let cat = Catalogue::builtin().expect("catalogue");
        let input = Input::from_reader("t".into(), Box::new(Cursor::new(text.as_bytes().to_vec())))
            .expect("input");
        let mut events = Vec::new();
        let stats = parse_input(input, 0, &cat, &ParseOptions::default(), &mut |e| {
            events.push(e)
        })
        .expect("parse");
        (stats, events)
    }

    /// Every sample line of every built-in definition becomes an event, or,
    /// when it has no time, is read and counted without one.
    #[test]
    fn every_definition_sample_parses_into_an_event() {
        let cat = Catalogue::builtin().expect("catalogue");
        for (i, f) in cat.formats.iter().enumerate() {
            for s in &f.def.samples {
                let mut times =
                    Builder::new(TimeParser::new(&f.def.timestamp_formats, Zone::Utc), None);
                let mut reader = f.extractor();
                let got = parse_line(f, &mut reader, &cat, &mut times, &s.line, Origin::default());
                let untimed = times.take_unplaced().is_some();
                assert!(
                    matches!(&got, Ok(ev) if ev.is_empty() == untimed),
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

    #[test]
    fn an_unknown_format_is_a_diagnostic_not_a_panic() {
        let cat = Catalogue::builtin().expect("catalogue");
        let input = Input::from_reader(
            "x".into(),
            Box::new(Cursor::new(b"%%% nothing like a log\n".to_vec())),
        )
        .expect("input");
        let err = parse_input(input, 0, &cat, &ParseOptions::default(), &mut |_| {})
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
