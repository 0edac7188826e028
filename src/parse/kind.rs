//! One line or JSON value, read the way its definition's kind says: a
//! regex's captures, a JSON record's keys (or each record of a JSON array),
//! a code kind's extractor -> each record's fields, handed to the record
//! builder.
//!
//! In: a [`Format`], its reader state and one line or value. Out: the
//! events of the records in it, or the reason it was skipped.
//!
//! ```text
//! {"items": [{..}, {..}]}  (json kind with an envelope) -> [Event, Event]
//! ```

use serde_json::Value;

use super::record::Builder;
use crate::event::{Event, Origin};
use crate::formats::{
    array_records, Catalogue, DefinitionKind, Extractor, Fields, Format, Record, Skip,
};

/// One line of a line-oriented input -> its events (a JSON line may be a
/// whole document with several records).
pub(super) fn parse_line(
    format: &Format,
    reader: &mut Option<Box<dyn Extractor>>,
    cat: &Catalogue,
    times: &mut Builder<'_>,
    line: &str,
    origin: Origin,
) -> Result<Vec<Event<'static>>, &'static str> {
    match format.def.kind {
        DefinitionKind::Regex | DefinitionKind::Generic => {
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
            code_events(format, cat, times, reader.line(line), origin)
        }
    }
}

/// The events of what a code kind's reader gave one line.
pub(super) fn code_events(
    format: &Format,
    cat: &Catalogue,
    times: &mut Builder<'_>,
    records: Result<Vec<Fields<'_>>, Skip>,
    origin: Origin,
) -> Result<Vec<Event<'static>>, &'static str> {
    collect_events(
        records?
            .iter()
            .map(|f| times.build(format, &cat.rules, f, None, origin)),
    )
}

pub(super) fn json_records(
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
pub(super) fn collect_events<'a>(
    built: impl Iterator<Item = Result<Option<Event<'a>>, &'static str>>,
) -> Result<Vec<Event<'static>>, &'static str> {
    let mut out = Vec::new();
    for b in built {
        out.extend(b?.map(Event::into_owned));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::TimeParser;
    use crate::zone::Zone;

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
            // A kind that reads its text whole reads the samples as one text.
            let samples: Vec<&str> = f.def.samples.iter().map(|s| s.line.as_str()).collect();
            let mut whole = reader
                .as_mut()
                .filter(|x| x.whole_text())
                .map(|x| x.text(&samples.join("\n")).into_iter());
            for s in &f.def.samples {
                let mut times =
                    Builder::new(TimeParser::new(&f.def.timestamp_formats, Zone::Utc), None);
                let got = match whole.as_mut() {
                    Some(lines) => {
                        let read = lines.next().unwrap_or(Err("no outcome"));
                        code_events(f, &cat, &mut times, read, Origin::default())
                    }
                    None => {
                        parse_line(f, &mut reader, &cat, &mut times, &s.line, Origin::default())
                    }
                };
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
}
