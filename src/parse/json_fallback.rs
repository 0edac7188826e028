//! JSON lines the input's format leaves: a valid JSON line is never lost.
//!
//! One JSON-lines log often holds records of several kinds: structlog
//! writes `event`/`level` records and, on request lines, `method`, `path`
//! and `status` too. Detection picks one format for the input (the
//! generic `json_lines`), whose `exclude` leaves request records to a
//! request format. Such a line is read here by the first other JSON
//! format of the catalogue (most specific first) that takes it, with a
//! timestamp parser of that format's own.
//!
//! In: a line the input's format did not take, parsed as a JSON value.
//! Out: a [`Fallen`]: the name of the format that reads it (for the
//! input's `read_as` count) and what it made of it; `None` when no format
//! of the catalogue reads it.

use serde_json::Value;

use super::record::Builder;
use super::timestamp::TimeParser;
use crate::event::{Event, Origin};
use crate::formats::{Catalogue, DefinitionKind, Format, Record};

/// The other JSON formats, each with its own timestamp parser (made when
/// first needed: most inputs never fall back).
pub(crate) struct JsonFallback<'c> {
    cat: &'c Catalogue,
    others: Vec<(&'c Format, Option<Builder<'static>>)>,
    /// The input's parser: the zone and year context the others start from.
    seed: TimeParser,
}

/// What the format that took a line made of it.
pub(crate) struct Fallen<'c> {
    pub format: &'c str,
    pub built: Result<Option<Event<'static>>, &'static str>,
    /// Read, but without a time to place it on the timeline.
    pub unplaced: Option<String>,
    /// Its time had no zone and was read in `--input-tz`.
    pub zoneless: bool,
}

impl<'c> JsonFallback<'c> {
    /// The JSON formats of `cat` other than `detected`, in catalogue order
    /// (by priority: specific before generic). Envelopes are left out:
    /// their records wrap other formats' lines.
    pub(crate) fn new(cat: &'c Catalogue, detected: &Format, seed: TimeParser) -> Self {
        let others = cat
            .formats
            .iter()
            .filter(|f| {
                f.def.kind == DefinitionKind::Json
                    && f.def.envelope.is_none()
                    && f.name() != detected.name()
            })
            .map(|f| (f, None))
            .collect();
        JsonFallback { cat, others, seed }
    }

    /// The first other format that takes `value`, and its event.
    pub(crate) fn read(&mut self, value: &Value, origin: Origin) -> Option<Fallen<'c>> {
        let (format, builder) = self
            .others
            .iter_mut()
            .find(|(f, _)| f.match_json(value).is_some())?;
        let fields = format.match_json(value)?;
        let times = builder.get_or_insert_with(|| {
            Builder::new(self.seed.with_formats(&format.def.timestamp_formats), None)
        });
        let built = times
            .build(
                format,
                &self.cat.rules,
                &fields,
                Some(Record::Value(value)),
                origin,
            )
            .map(|ev| ev.map(Event::into_owned));
        Some(Fallen {
            format: format.name(),
            built,
            unplaced: times.take_unplaced(),
            zoneless: std::mem::take(&mut times.times.saw_zoneless),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zone::Zone;

    /// A structlog request line (with a traceback in `exception`) that
    /// `json_lines` leaves is read as a request by `json_access`.
    #[test]
    fn a_request_line_left_by_json_lines_is_read_as_a_request() {
        let cat = Catalogue::builtin().expect("catalogue");
        let json_lines = &cat.formats[cat.find("json_lines").expect("json_lines")];
        let line = r#"{"event": "request failed", "level": "error", "logger": "app.http", "timestamp": "2026-10-01T07:00:00.000000Z", "request_id": "req-1", "method": "GET", "path": "/api/v1/orders/7", "status": 500, "exception": "Traceback (most recent call last):\n  File \"/srv/app/db.py\", line 19, in get\n    raise OperationalError(\"pool exhausted: \\\"default\\\"\")\napp.db.OperationalError: pool exhausted"}"#;
        let value: Value = serde_json::from_str(line).expect("valid JSON");
        assert!(
            json_lines.match_json(&value).is_none(),
            "json_lines leaves it"
        );
        let mut fb = JsonFallback::new(&cat, json_lines, TimeParser::new(&[], Zone::Utc));
        let got = fb
            .read(&value, Origin::default())
            .expect("another format reads it");
        assert_eq!(got.format, "json_access");
        match got.built {
            Ok(Some(Event::Request(r))) => assert_eq!(r.status, Some(500)),
            other => panic!("not a request: {other:?}"),
        }
    }

    #[test]
    fn a_record_no_format_reads_is_none() {
        let cat = Catalogue::builtin().expect("catalogue");
        let json_lines = &cat.formats[cat.find("json_lines").expect("json_lines")];
        let value: Value = serde_json::from_str(r#"{"stream": 1}"#).expect("json");
        let mut fb = JsonFallback::new(&cat, json_lines, TimeParser::new(&[], Zone::Utc));
        assert!(fb.read(&value, Origin::default()).is_none());
    }
}
