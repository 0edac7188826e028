//! Format detection: the first lines of an input are scored against every
//! definition (the share of lines it reads), specific formats winning ties.
//!
//! In: the head lines of an input. Out: the chosen format, its score and
//! whether records are lines or whole JSON documents.

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

#[derive(Clone, Debug, PartialEq)]
pub struct Detection {
    pub format: usize,
    pub score: f64,
    pub mode: RecordMode,
}

/// The lowest share of head lines a format must read to be chosen.
pub const MIN_SCORE: f64 = 0.5;

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
/// lines without a time counting [`UNTIMED_CREDIT`].
pub fn score(
    cat: &Catalogue,
    index: usize,
    head: &[String],
    json: &[Option<Value>],
    mode: RecordMode,
) -> f64 {
    let f = &cat.formats[index];
    if let Some(syntax) = f.def.syntax {
        return tabular_score(f, syntax, head);
    }
    if mode == RecordMode::Documents {
        return document_score(cat, index, head);
    }
    let mut total = 0usize;
    let mut hits = 0.0;
    let mut reader = f.extractor();
    for (line, value) in head.iter().zip(json) {
        if line.trim().is_empty() {
            continue;
        }
        // A stack frame or detail line belongs to the record above: it says
        // nothing about the format by itself.
        if f.def
            .continuation_prefixes
            .iter()
            .any(|p| line.starts_with(p.as_str()))
            && f.match_line(line).is_none()
        {
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
        hits += match f.def.kind {
            DefinitionKind::Regex => f.match_line(line).map_or(0.0, |fl| credit(&fl)),
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
            _ => match reader.as_mut() {
                // A line the kind understands but that holds no record (a header) counts.
                Some(x) => match x.line(line) {
                    Ok(recs) if recs.iter().all(|r| r.has(Role::Ts)) => 1.0,
                    _ => 0.0,
                },
                None => 0.0,
            },
        };
    }
    if total == 0 {
        0.0
    } else {
        hits / total as f64
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
    let f = &cat.formats[index];
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
    let f = &cat.formats[index];
    let text: String = head.join("\n");
    let has_key = |k: &str| {
        let last = k.rsplit('.').next().unwrap_or(k);
        text.contains(&format!("\"{last}\""))
    };
    match f.def.kind {
        DefinitionKind::Regex => 0.0,
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
            if env_ok && f.def.require.iter().all(|k| has_key(k)) {
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

/// Pick the best format for an input's head, or `None` when none reads at
/// least [`MIN_SCORE`] of it. Returns every format's score for diagnostics.
pub fn detect(cat: &Catalogue, head: &[String]) -> (Option<Detection>, Vec<(usize, f64)>) {
    let mode = record_mode(head);
    let json: Vec<Option<Value>> = head
        .iter()
        .map(|l| {
            let t = l.trim_start();
            // `[` too: Fluent Bit writes an event as `[time, {record}]`.
            if mode == RecordMode::Lines && (t.starts_with('{') || t.starts_with('[')) {
                serde_json::from_str(t).ok()
            } else {
                None
            }
        })
        .collect();
    let scores: Vec<(usize, f64)> = (0..cat.formats.len())
        .map(|i| (i, score(cat, i, head, &json, mode)))
        .collect();
    // Formats are ordered by priority, so the first of equal scores is the most specific.
    let mut best: Option<(usize, f64)> = None;
    for &(i, s) in &scores {
        if s >= MIN_SCORE && best.is_none_or(|(_, b)| s > b) {
            best = Some((i, s));
        }
    }
    (
        best.map(|(format, score)| Detection {
            format,
            score,
            mode,
        }),
        scores,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each definition's own samples must be detected as that definition, and
    /// no other definition may score as high on them, except an envelope of
    /// lower priority: `timestamped_lines` reads any line that starts with an
    /// RFC 3339 time, as every AWS Classic ELB line does, and is meant to
    /// lose that tie.
    #[test]
    fn samples_detect_as_their_own_format_and_no_other_scores_as_high() {
        let cat = Catalogue::builtin().expect("catalogue");
        for (i, f) in cat.formats.iter().enumerate() {
            if f.def.samples.is_empty() {
                continue;
            }
            let head: Vec<String> = f.def.samples.iter().map(|s| s.line.clone()).collect();
            let (det, scores) = detect(&cat, &head);
            let det = det.unwrap_or_else(|| panic!("{}: samples not detected", f.name()));
            assert_eq!(
                cat.formats[det.format].name(),
                f.name(),
                "scores: {scores:?}"
            );
            for &(j, s) in &scores {
                let other = &cat.formats[j].def;
                if other.kind == DefinitionKind::Envelope && other.priority < f.def.priority {
                    continue;
                }
                if j != i {
                    assert!(
                        s < det.score,
                        "{} scores {s} on the samples of {}",
                        cat.formats[j].name(),
                        f.name()
                    );
                }
            }
        }
    }

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

    /// Regression: a Splunk XML export of statistics rows only (no `_raw`,
    /// no `_time`) is Splunk's, its rows skipped by the `skip` rule, and not
    /// refused as no format.
    #[test]
    fn a_splunk_xml_export_of_statistics_rows_is_recognised() {
        let cat = Catalogue::builtin().expect("catalogue");
        let head: Vec<String> = "<results preview='1'>\n<meta>\n<fieldOrder>\n<field>count</field>\n</fieldOrder>\n</meta>\n\t<result offset='0'>\n\t\t<field k='count'>\n\t\t\t<value><text>54</text></value>\n\t\t</field>\n\t</result>\n</results>"
            .lines()
            .map(str::to_string)
            .collect();
        let (det, scores) = detect(&cat, &head);
        let det = det.unwrap_or_else(|| panic!("refused: {scores:?}"));
        assert_eq!(cat.formats[det.format].name(), "splunk_results_xml");
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
