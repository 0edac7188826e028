//! Whole JSON documents (pretty-printed, several concatenated, a List):
//! each record inside counts as one line of the input and carries the line
//! its record starts on.
//!
//! In: the input's whole text and its [`Format`]. Out: events pushed to a
//! sink, each record counted in the input's [`InputStats`].
//!
//! ```text
//! {                         line 1
//!   "items": [ {..},        line 3 -> Event at line 3
//!              {..} ] }     line 4 -> Event at line 4
//! ```

use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::BTreeMap;

use super::kind::{collect_events, json_records};
use super::record::Builder;
use super::stats::InputStats;
use crate::event::{Event, Origin};
use crate::formats::{Catalogue, DefinitionKind, Extractor, Format};

/// Whole JSON documents (pretty-printed, or several concatenated): each
/// record inside counts as one line of the input, and carries the line its
/// record starts on.
#[allow(clippy::too_many_arguments)]
pub(super) fn parse_documents(
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
                let (records, cut) =
                    super::cut_document::records(rest, format.def.envelope.as_deref());
                let records = records
                    .into_iter()
                    .map(|r| {
                        let line = lines.line_of(text, r.get());
                        (r, Origin { input: index, line })
                    })
                    .collect();
                read_records(format, reader, cat, times, records, stats, sink);
                let line = lines.line_of(text, rest.get(cut..).unwrap_or_default());
                stats.skip(line, super::CUT_RECORD, "");
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
        DefinitionKind::Generic => Err("the generic reader cannot read JSON documents"),
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
