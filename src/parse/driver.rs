//! The parse stage's driver: it reads an input's head, detects its format
//! (or takes `--format`), and hands the input to the reader its records
//! need: an envelope, whole JSON documents, or lines (the head here, the
//! rest in chunks on worker threads). It owns order and threads; the
//! readers never call back into it.
//!
//! In: an [`Input`] from `read` and the [`Catalogue`]. Out: events pushed
//! to a sink, and the input's [`InputStats`].
//!
//! ```text
//! access.log -> head (200 lines) -> detect: nginx_combined 1.0 -> lines: head here, the rest in chunks
//! ```

use miette::NamedSource;
use std::borrow::Cow;

use super::chunks::parse_chunks;
use super::documents::parse_documents;
use super::error::ParseError;
use super::lines::LineCx;
use super::others::LinePlan;
use super::record::{Builder, Inspect};
use super::stats::InputStats;
use super::timestamp::TimeParser;
use super::{console, envelope, ParseOptions};
use crate::event::{Event, EventSink};
use crate::formats::{
    detect, record_mode, Catalogue, DefinitionKind, Detection, Format, RecordMode, Role,
};
use crate::read::Input;

/// Lines read for detection.
const HEAD_LINES: usize = 200;

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

/// [`parse_input`], also showing `inspect` the raw fields of every record
/// (`postmortem formats check --fields`).
pub fn parse_input_inspect<S: EventSink>(
    input: Input,
    index: u32,
    cat: &Catalogue,
    opts: &ParseOptions,
    sink: &mut S,
    inspect: Option<Inspect<'_>>,
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
    // Decorations (ANSI colour codes) go before anything reads the lines.
    let stripper = cat
        .generic()
        .filter(|g| head_text.iter().any(|l| g.decorated(l)));
    if let Some(g) = stripper {
        for (h, t) in head.iter_mut().zip(head_text.iter_mut()) {
            if let Cow::Owned(clean) = g.strip(t) {
                h.1.clone_from(&clean);
                *t = clean;
            }
        }
    }
    let detection = match opts.forced {
        Some(format) => Detection {
            format,
            score: 1.0,
            mode: record_mode(&head_text),
            fallbacks: Vec::new(),
            log_requests: false,
        },
        None => match detect(cat, &head_text) {
            (Some(d), _) => d,
            (None, scores) => {
                // `kubectl get events -o json` an hour after the events
                // expired: a well-formed export with nothing in it. Its
                // lines are counted, and the other inputs are read.
                if head.len() < HEAD_LINES && holds_no_records(&head_text.join("\n")) {
                    stats.format = "empty export".to_string();
                    stats.lines = head.len() as u64;
                    stats.skipped = stats.lines;
                    stats
                        .skipped_by_reason
                        .insert(EMPTY_EXPORT.to_string(), stats.lines);
                    return Ok(stats);
                }
                return Err(unknown_format(cat, &stats.path, &head_text, &scores));
            }
        },
    };
    // Detection and `--format` name a format of this catalogue.
    let Some(format) = cat.formats.get(detection.format) else {
        return Err(unknown_format(cat, &stats.path, &head_text, &[]));
    };
    stats.format = format.name().to_string();
    stats.score = detection.score;
    let chunked = inspect.is_none();
    let mut times = Builder::new(
        TimeParser::new(&format.def.timestamp_formats, opts.input_tz).near(opts.year_hint),
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
            stripper,
            // A decoded payload is an input of its own, read from the top.
            parse_input_inspect::<Vec<Event<'static>>>,
        )?;
        stats.invalid_utf8 = lines.invalid_utf8;
        stats.settle_cut(&mut lines);
        stats.explain_bad_lines(format);
        return Ok(stats);
    }
    let mut reader = format.extractor();
    match detection.mode {
        RecordMode::Lines => {
            let plan = LinePlan {
                fallbacks: detection.fallbacks.clone(),
                wrapped: wrapped(cat, format, &head_text),
                strip: stripper.is_some(),
                zone: opts.input_tz,
                log_requests: detection.log_requests,
            };
            let mut cx = LineCx::new(format, cat, index, &mut reader, &mut times, &plan);
            if cx.reads_whole() {
                // A syntax read whole (YAML): every line first, then one reading.
                let mut all = head;
                for item in lines.by_ref() {
                    all.push(item?);
                }
                let last = cx.whole(&all, &mut stats, sink);
                cx.finish(last, &mut stats, sink);
            } else {
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
                        &mut lines, format, &plan, cat, opts, index, &seed, &mut stats, sink,
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

/// The formats whose lines a wrapping format's records carry: those of the
/// kinds it wraps (`wraps`) that read the message of a head record.
fn wrapped(cat: &Catalogue, format: &Format, head: &[String]) -> Vec<usize> {
    if format.def.wraps.is_empty() {
        return Vec::new();
    }
    let messages: Vec<String> = head
        .iter()
        .filter_map(|l| Some(format.match_line(l)?.get(Role::Message)?.to_string()))
        .collect();
    cat.formats
        .iter()
        .enumerate()
        .filter(|(_, inner)| {
            inner.def.kind == DefinitionKind::Regex
                && format.def.wraps.contains(&inner.def.produces)
                && messages.iter().any(|m| inner.match_line(m).is_some())
        })
        .map(|(j, _)| j)
        .collect()
}

/// Why the lines of an export with no records in it were read and kept.
const EMPTY_EXPORT: &str = "a JSON export whose every list is empty: it holds no records";

/// Whether `text` is one JSON document that has lists and all of them
/// empty (`{"kind":"List","items":[]}`, `{"data":{"result":[]}}`, `[]`).
fn holds_no_records(text: &str) -> bool {
    fn arrays(v: &serde_json::Value, any: &mut bool) -> bool {
        match v {
            serde_json::Value::Array(a) => {
                *any = true;
                a.is_empty()
            }
            serde_json::Value::Object(o) => o.values().all(|x| arrays(x, any)),
            _ => true,
        }
    }
    let Ok(v) = serde_json::from_str::<serde_json::Value>(text.trim()) else {
        return false;
    };
    let mut any = false;
    arrays(&v, &mut any) && any
}

fn unknown_format(
    cat: &Catalogue,
    path: &str,
    head: &[String],
    scores: &[(usize, f64)],
) -> ParseError {
    let mut ranked: Vec<&(usize, f64)> = scores.iter().filter(|(_, s)| *s > 0.0).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let best = match ranked
        .first()
        .and_then(|(i, s)| Some((cat.formats.get(*i)?, s)))
    {
        Some((f, s)) => format!("{} reads {:.0}% of the first lines", f.name(), s * 100.0),
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
mod tests;
