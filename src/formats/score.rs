//! Scoring one definition on an input's head: the share of its non-blank
//! lines the definition reads, a line read without a time counting for
//! half; stack frames and detail lines under a record count for nothing.
//!
//! In: the head lines (and each one's JSON value, when it is one). Out: a
//! score in 0..=1, and whether records are lines or whole JSON documents.
//!
//! ```text
//! nginx_combined on 200 access-log lines -> 1.0; json_lines on them -> 0.0
//! ```

use serde::de::IgnoredAny;
use serde_json::Value;

use super::catalogue::Catalogue;
use super::compile::Fields;
use super::definition::DefinitionKind;
use super::role::Role;

/// How records are laid out in an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordMode {
    /// One record per line.
    Lines,
    /// JSON documents that span lines (pretty-printed, or a List).
    Documents,
}

/// What a record read without a time counts for: the format recognises it
/// but cannot place it on the timeline, so a format that can wins.
const UNTIMED_CREDIT: f64 = 0.5;

/// How much one record says the input is in its format: 1 with a time, half
/// without one when it still holds something (a message, a request, a
/// reason), nothing otherwise.
fn credit(fields: &Fields<'_>) -> f64 {
    if fields.untimed().is_none() {
        1.0
    } else if [
        Role::Message,
        Role::Request,
        Role::Path,
        Role::Status,
        Role::Reason,
    ]
    .into_iter()
    .any(|r| fields.get(r).is_some_and(|v| !v.trim().is_empty()))
    {
        UNTIMED_CREDIT
    } else {
        0.0
    }
}

/// Whether the input holds JSON that does not fit one value per line.
pub fn record_mode(head: &[String]) -> RecordMode {
    let first = head.iter().map(|l| l.trim()).find(|l| !l.is_empty());
    match first {
        Some(l)
            if (l.starts_with('{') || l.starts_with('['))
                && serde_json::from_str::<Value>(l).is_err()
                && is_json_text(&head.join("\n")) =>
        {
            RecordMode::Documents
        }
        _ => RecordMode::Lines,
    }
}

/// Whether text is JSON, possibly cut short: a pretty-printed document's
/// head is, a log line that starts with a bracket (`[2026-10-01T07:58:06Z]
/// "GET /"`, `[Mon Aug 31 ...]`) is not.
///
/// Every value in the text must read, the last one possibly cut short:
/// `[0] cpu.local: [..]` (Fluent Bit's stdout) and `[   20.888224] host
/// unit[1]: ..` (journalctl's monotonic time) open with a JSON array, but
/// what follows it is not JSON.
fn is_json_text(text: &str) -> bool {
    let values = serde_json::Deserializer::from_str(text).into_iter::<IgnoredAny>();
    let mut any = false;
    for v in values {
        match v {
            Ok(_) => any = true,
            Err(e) => return e.is_eof(),
        }
    }
    any
}

/// Score of one format on the head: the share of non-blank lines it reads,
/// lines without a time counting [`UNTIMED_CREDIT`]. With `stacks`, lines
/// shaped like a stack frame or detail line (the generic reader's
/// continuations) under a record of a line format count for nothing.
pub fn score(
    cat: &Catalogue,
    index: usize,
    head: &[String],
    json: &[Option<Value>],
    mode: RecordMode,
    stacks: bool,
) -> f64 {
    // Callers pass an index of this catalogue; none other scores anything.
    let Some(f) = cat.formats.get(index) else {
        return 0.0;
    };
    if let Some(syntax) = f.def.syntax {
        return tabular_score(f, syntax, head);
    }
    if mode == RecordMode::Documents {
        return document_score(cat, index, head);
    }
    let mut total = 0usize;
    let mut hits = 0.0;
    let mut reader = f.extractor();
    // A kind whose syntax is read whole (YAML) reads the head as one text.
    let whole = reader
        .as_mut()
        .filter(|x| x.whole_text())
        .map(|x| x.text(&head.join("\n")));
    let line_kind = matches!(f.def.kind, DefinitionKind::Regex | DefinitionKind::Generic);
    let generic = cat.generic().filter(|_| stacks);
    // Whether the line above was this format's record (or continued one).
    let mut after_record = false;
    for (i, (line, value)) in head.iter().zip(json).enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        // Read once for the line kinds: the checks below and the credit share it.
        let read = if line_kind { f.match_line(line) } else { None };
        // A stack frame or detail line belongs to the record above: it says
        // nothing about the format by itself.
        let prefixed = f
            .def
            .continuation_prefixes
            .iter()
            .any(|p| line.starts_with(p.as_str()));
        let stack = line_kind && after_record && generic.is_some_and(|g| g.continues(line));
        if (prefixed || stack) && read.is_none() && (line_kind || f.match_line(line).is_none()) {
            continue;
        }
        // A text envelope's header line (a variant that captures no line)
        // says nothing either: `key: 1` could be anything.
        let text_envelope = f.def.kind == DefinitionKind::Envelope && f.is_text();
        let envelope_fields = if text_envelope {
            f.match_line(line)
        } else {
            None
        };
        if envelope_fields
            .as_ref()
            .is_some_and(|fl| !fl.has(Role::Message) && !fl.has(Role::Ts))
        {
            continue;
        }
        total += 1;
        let got = match f.def.kind {
            DefinitionKind::Regex | DefinitionKind::Generic => read.map_or(0.0, |fl| credit(&fl)),
            DefinitionKind::Envelope if text_envelope => {
                if envelope_fields.is_some_and(|fl| fl.has(Role::Message)) {
                    1.0
                } else {
                    0.0
                }
            }
            DefinitionKind::Json | DefinitionKind::Envelope => value
                .as_ref()
                .map_or(0.0, |v| json_record_credit(cat, index, v)),
            // A line the kind understands but that holds no record (a header) counts.
            _ => match (&whole, reader.as_mut()) {
                (Some(lines), _) => match lines.get(i) {
                    Some(Ok(recs)) if recs.iter().all(|r| r.has(Role::Ts)) => 1.0,
                    _ => 0.0,
                },
                (None, Some(x)) => match x.line(line) {
                    Ok(recs) if recs.iter().all(|r| r.has(Role::Ts)) => 1.0,
                    _ => 0.0,
                },
                (None, None) => 0.0,
            },
        };
        after_record = got > 0.0;
        hits += got;
    }
    if total == 0 {
        0.0
    } else {
        hits / total as f64
    }
}

/// What one line says for a format read line by line (`regex`, `generic`,
/// `json`): its credit; `None` for kinds judged on the whole head.
pub fn line_credit(
    cat: &Catalogue,
    index: usize,
    line: &str,
    value: Option<&Value>,
) -> Option<f64> {
    let f = cat.formats.get(index)?;
    match f.def.kind {
        DefinitionKind::Regex | DefinitionKind::Generic => {
            Some(f.match_line(line).map_or(0.0, |fl| credit(&fl)))
        }
        DefinitionKind::Json => Some(value.map_or(0.0, |v| json_record_credit(cat, index, v))),
        _ => None,
    }
}

/// A record's credit, a record that a `skip` rule drops (a statistics row)
/// counting for half: it is this format, but holds no line.
fn record_credit(f: &super::compile::Format, record: &Value) -> Option<f64> {
    let fields = f.match_json(record)?;
    Some(if f.skip_reason(record).is_some() {
        UNTIMED_CREDIT
    } else {
        credit(&fields)
    })
}

/// CSV and XML envelopes: the share of the head's rows the definition reads.
fn tabular_score(
    f: &super::compile::Format,
    syntax: super::tabular::Syntax,
    head: &[String],
) -> f64 {
    let table = super::tabular::read(syntax, &head.join("\n"));
    if table.rows.is_empty() {
        return 0.0;
    }
    let hits: f64 = table
        .rows
        .iter()
        .map(|r| record_credit(f, &r.value).unwrap_or(0.0))
        .sum();
    hits / table.rows.len() as f64
}

fn json_record_credit(cat: &Catalogue, index: usize, v: &Value) -> f64 {
    let Some(f) = cat.formats.get(index) else {
        return 0.0;
    };
    if let Some(env) = &f.def.envelope {
        if let Some(items) = super::compile::lookup(v, env).and_then(Value::as_array) {
            return items
                .first()
                .and_then(|i| {
                    super::compile::envelope_records(i)
                        .first()
                        .and_then(|r| record_credit(f, r))
                })
                .unwrap_or(0.0);
        }
    }
    // A `json` document that is an array of records is judged by its first.
    let v = match f.def.kind {
        DefinitionKind::Json => super::compile::array_records(v)
            .and_then(|items| items.first())
            .unwrap_or(v),
        _ => v,
    };
    super::compile::envelope_records(v)
        .first()
        .and_then(|r| record_credit(f, r))
        .unwrap_or(0.0)
}

/// Documents cannot be parsed from a truncated head, so they are recognised
/// by the keys a definition requires appearing in it.
fn document_score(cat: &Catalogue, index: usize, head: &[String]) -> f64 {
    let Some(f) = cat.formats.get(index) else {
        return 0.0;
    };
    let text: String = head.join("\n");
    let has_key = |k: &str| {
        let last = k.rsplit('.').next().unwrap_or(k);
        text.contains(&format!("\"{last}\""))
    };
    match f.def.kind {
        DefinitionKind::Regex | DefinitionKind::Generic => 0.0,
        DefinitionKind::Envelope if f.is_text() => 0.0,
        DefinitionKind::Json | DefinitionKind::Envelope => {
            // An array index (`0` of a Fluent Bit `[time, {record}]`) is no
            // key: its digits in quotes are any string value of the document.
            let is_index = |k: &String| k.rsplit('.').next().is_some_and(is_array_index);
            if f.def.require.is_empty() || f.def.require.iter().any(is_index) {
                return 0.0;
            }
            // A bare array of records (Splunk 4) stands for the envelope's array.
            let bare_array = text.trim_start().starts_with('[');
            let env_ok = bare_array || f.def.envelope.as_deref().is_none_or(has_key);
            let required = |k: &String| super::compile::alternatives(k).any(has_key);
            if env_ok && f.def.require.iter().all(required) {
                1.0
            } else {
                0.0
            }
        }
        _ => f.extractor().map_or(0.0, |x| x.sniff(&text)),
    }
}

/// Whether a key part is an array index (all digits).
fn is_array_index(part: &str) -> bool {
    !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document whose string values are `"0"` and `"1"` is not a Fluent
    /// Bit event, whose required keys are the indexes 0 and 1.
    #[test]
    fn array_indexes_are_not_sniffed_as_document_keys() {
        let cat = Catalogue::builtin().expect("catalogue");
        let head: Vec<String> = [
            "[",
            "  {\"_raw\": \"x\", \"_serial\": \"0\", \"linecount\": \"1\",",
            "   \"_time\": \"2026-10-01T07:58:06.113+00:00\"}",
            "]",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let i = cat
            .formats
            .iter()
            .position(|f| f.name() == "fluentbit_records")
            .expect("fluentbit_records");
        assert_eq!(document_score(&cat, i, &head), 0.0);
        assert!(is_array_index("0") && is_array_index("12"));
        assert!(!is_array_index("") && !is_array_index("log"));
    }

    #[test]
    fn pretty_printed_json_is_read_as_documents() {
        let head = vec!["{".to_string(), "  \"a\": 1".to_string(), "}".to_string()];
        assert_eq!(record_mode(&head), RecordMode::Documents);
        assert_eq!(record_mode(&["{\"a\":1}".to_string()]), RecordMode::Lines);
        // A document cut short by the head is still one.
        assert_eq!(record_mode(&head[..2]), RecordMode::Documents);
    }

    /// Regression: Envoy and Apache error lines, Fluent Bit's stdout and
    /// journalctl's monotonic lines start with `[` and were taken for
    /// pretty-printed JSON.
    #[test]
    fn log_lines_that_start_with_a_bracket_are_lines() {
        for first in [
            "[2026-10-01T07:58:06.113Z] \"GET / HTTP/1.1\" 200 - 0 2 1 1 \"-\" \"curl/8\"",
            "[Thu Oct 01 07:58:06.113 2026] [core:error] [pid 7] AH00135: Invalid method",
            "[01/Oct/2026:07:58:06 +0000] [php:warn] [pid 7] warning",
            "[0] api.app: [1790841486.113456, {\"log\"=>\"pool timeout\"}]",
            "[   20.888224] node-3 systemd[1]: Started api.service.",
        ] {
            assert_eq!(
                record_mode(&[first.to_string()]),
                RecordMode::Lines,
                "{first}"
            );
        }
    }
}
