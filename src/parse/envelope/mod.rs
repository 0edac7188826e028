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
//!
//! The driver hands an envelope here; [`unwrap`] turns its records into
//! inner lines (joining partial lines, decoding payloads), and [`inner`]
//! detects their format and builds their events. Calls go one way:
//! this file -> `unwrap` -> `inner` -> the line readers.

mod inner;
mod unwrap;

use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;

use super::documents::LineIndex;
use super::error::ParseError;
use super::record::Inspect;
use super::stats::InputStats;
use super::ParseOptions;
use crate::event::{EventSink, Origin};
use crate::formats::generic::Generic;
use crate::formats::tabular;
use crate::formats::{envelope_records, Catalogue, Format, RecordMode, Role};
use crate::read::Lines;
use inner::InnerParser;
use unwrap::Unwrapper;

pub(super) use unwrap::ReadPayload;

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
    stripper: Option<&Generic>,
    read_payload: ReadPayload,
) -> Result<(), ParseError> {
    let mut un = Unwrapper {
        format,
        pending: None,
        inspect,
        index,
        read_payload,
    };
    let mut parser = InnerParser::new(cat, format, opts);
    let mut feed = |n: u64, line: &str, stats: &mut InputStats, sink: &mut S| {
        // Decorations (ANSI colour codes) go first.
        let clean = stripper.map_or(Cow::Borrowed(line), |g| g.strip(line));
        let line = clean.as_ref();
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
            let idx = LineIndex::new(&text);
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
