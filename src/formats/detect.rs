//! Format detection: the first lines of an input are scored against every
//! definition (`score.rs`), specific formats winning ties; the generic
//! reader is scored only when no specific definition reads the head, and
//! wins only when it reads more. The formats that read the lines the chosen
//! one does not (a second format, concatenated) come with it.
//!
//! In: the head lines of an input. Out: the chosen format, its score,
//! whether records are lines or whole JSON documents, and the fallbacks.

use serde_json::Value;

use super::catalogue::Catalogue;
use super::definition::{DefinitionKind, Produces};
use super::score::{line_credit, record_mode, score, RecordMode};
use super::Role;

#[derive(Clone, Debug, PartialEq)]
pub struct Detection {
    pub format: usize,
    pub score: f64,
    pub mode: RecordMode,
    /// Formats for the lines `format` does not read, tried in order: the
    /// specific ones that read some of the head's other lines (a second
    /// format concatenated), then the generic reader.
    pub fallbacks: Vec<usize>,
    /// A request format read only some of the head and a log format reads
    /// much of the rest: an application's log that also writes a line per
    /// request (pino-http beside the app's own lines), not an access log.
    pub log_requests: bool,
}

/// The share of head lines a specific format must read to be chosen over
/// the generic reader without asking it.
pub const MIN_SCORE: f64 = 0.5;

/// The least share of the head worth reading when nothing reads more: one
/// line in five. Below it an input is refused.
pub const MIN_SHARE: f64 = 0.2;

/// Specific formats tried on the lines the chosen one does not read.
const MAX_FALLBACKS: usize = 2;

/// Pick the best format for an input's head, or `None` when none reads a
/// meaningful share of it ([`MIN_SHARE`]). Returns the scores worked out,
/// for diagnostics.
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
    let generic = |i: &usize| {
        let f = cat.formats.get(*i);
        f.is_some_and(|f| f.def.kind == DefinitionKind::Generic)
    };
    let json_ref = &json;
    let score_of = |stacks: bool| move |i: usize| (i, score(cat, i, head, json_ref, mode, stacks));
    let mut scores: Vec<(usize, f64)> = (0..cat.formats.len())
        .filter(|i| !generic(i))
        .map(score_of(false))
        .collect();
    let mut best = best_of(&scores)
        .filter(|(_, s)| *s >= MIN_SCORE)
        .map(|b| access_log(cat, b, &scores, head));
    if best.is_none() {
        // No specific format reads most of the head. Stack traces and
        // detail lines between records may be why: every format is scored
        // again without them, the generic reader too, which wins only by
        // reading more.
        scores = (0..cat.formats.len()).map(score_of(true)).collect();
        type Scores = Vec<(usize, f64)>;
        let (last_resort, specific): (Scores, Scores) =
            scores.iter().partition(|(i, _)| generic(i));
        best = match (best_of(&specific), best_of(&last_resort)) {
            (Some((_, s)), Some(g)) if g.1 > s => Some(g),
            (Some(b), _) => Some(b),
            (None, g) => g,
        };
    }
    let detection = best.map(|(format, score)| {
        let (fallbacks, read) = fallbacks(cat, format, head, &json, mode);
        let lines = head.iter().filter(|l| !l.trim().is_empty()).count().max(1);
        // Most of the lines the request format left are the application's
        // own (a structlog log in a CloudWatch export: 82% request lines,
        // the rest its messages); a stray line or two (under one in twenty)
        // does not make an access log an application's.
        let rest = (1.0 - score).max(0.0) * lines as f64;
        let produces =
            |i: usize, p: Produces| cat.formats.get(i).is_some_and(|f| f.def.produces == p);
        let log_requests = produces(format, Produces::Request)
            && score < ACCESS_SHARE
            && read.iter().any(|&(j, n)| {
                let n = n as f64;
                produces(j, Produces::Log) && n >= 0.5 * rest && n >= APP_LINES_SHARE * lines as f64
            });
        Detection {
            format,
            score,
            mode,
            fallbacks,
            log_requests,
        }
    });
    (detection, scores)
}

/// An access log is recognised by what (nearly) every one of its lines is:
/// a request format that reads [`ACCESS_SHARE`] of the head is chosen over
/// a log format that reads more (a banner line between the requests), and
/// one that reads less is not (an application's log whose error lines name
/// the request they failed is a log).
fn access_log(
    cat: &Catalogue,
    best: (usize, f64),
    scores: &[(usize, f64)],
    head: &[String],
) -> (usize, f64) {
    let produces_requests = |i: usize| {
        cat.formats
            .get(i)
            .is_some_and(|f| f.def.produces == Produces::Request)
    };
    if produces_requests(best.0) {
        return best;
    }
    let mut requests = scores.iter().filter(|(i, s)| {
        produces_requests(*i) && *s >= ACCESS_SHARE && request_share(cat, *i, head) >= ACCESS_SHARE
    });
    let first = requests.next().copied();
    requests
        .fold(first, |b, &r| match b {
            Some(b) if b.1 >= r.1 => Some(b),
            _ => Some(r),
        })
        .unwrap_or(best)
}

/// The share of the head's lines a request format reads as requests (a
/// method or a status): a format that also reads log lines (Heroku's
/// router format reads the app frames of a logplex drain) scores on those
/// too, but only its requests make the input an access log. Formats read
/// line by line only; the others answer with their score.
fn request_share(cat: &Catalogue, i: usize, head: &[String]) -> f64 {
    let Some(f) = cat.formats.get(i) else {
        return 0.0;
    };
    if !matches!(f.def.kind, DefinitionKind::Regex) {
        return 1.0;
    }
    let lines: Vec<&String> = head.iter().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return 0.0;
    }
    let requests = lines
        .iter()
        .filter(|l| {
            f.match_line(l)
                .is_some_and(|fl| fl.has(Role::Status) || fl.has(Role::Method))
        })
        .count();
    requests as f64 / lines.len() as f64
}

/// The share of an access log's lines that are requests: nearly all.
pub const ACCESS_SHARE: f64 = 0.9;

/// The least share of a log's head that must be the application's own
/// lines for its request lines to be an application's (see `log_requests`).
const APP_LINES_SHARE: f64 = 0.05;

/// The best score of at least [`MIN_SHARE`]; formats are ordered by
/// priority, so the first of equal scores is the most specific.
fn best_of(scores: &[(usize, f64)]) -> Option<(usize, f64)> {
    let mut best: Option<(usize, f64)> = None;
    for &(i, s) in scores {
        if s >= MIN_SHARE && best.is_none_or(|(_, b)| s > b) {
            best = Some((i, s));
        }
    }
    best
}

/// The formats for the head's lines `primary` does not read: specific line
/// formats that read some of them, most lines first, then the generic
/// reader. Only for line inputs read line by line. With them, the specific
/// ones and how many of the head's lines each reads.
fn fallbacks(
    cat: &Catalogue,
    primary: usize,
    head: &[String],
    json: &[Option<Value>],
    mode: RecordMode,
) -> (Vec<usize>, Vec<(usize, usize)>) {
    // Line formats only: a code kind's lines are not records on their own.
    let by_line = cat.formats.get(primary).is_some_and(|f| {
        matches!(
            f.def.kind,
            DefinitionKind::Regex
                | DefinitionKind::Json
                | DefinitionKind::Generic
                | DefinitionKind::Logfmt
        )
    });
    if mode != RecordMode::Lines || !by_line {
        return (Vec::new(), Vec::new());
    }
    let stack = cat.generic();
    let unread: Vec<(&String, Option<&Value>)> = head
        .iter()
        .zip(json)
        .filter(|(l, _)| !l.trim().is_empty() && !stack.is_some_and(|g| g.continues(l)))
        .map(|(l, v)| (l, v.as_ref()))
        .filter(|(l, v)| line_credit(cat, primary, l, *v).is_some_and(|c| c == 0.0))
        .collect();
    let mut out = Vec::new();
    let mut read = Vec::new();
    if !unread.is_empty() {
        let mut counts: Vec<(usize, usize)> = cat
            .formats
            .iter()
            .enumerate()
            .filter(|&(j, f)| j != primary && f.def.kind != DefinitionKind::Generic)
            .filter_map(|(j, _)| {
                let n = unread
                    .iter()
                    .filter(|(l, v)| line_credit(cat, j, l, *v).is_some_and(|c| c > 0.0))
                    .count();
                (n > 0).then_some((j, n))
            })
            .collect();
        // Most lines read first; priority order breaks ties.
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        counts.truncate(MAX_FALLBACKS);
        out.extend(counts.iter().map(|(j, _)| *j));
        read = counts;
    }
    out.extend(
        cat.formats
            .iter()
            .enumerate()
            .filter(|&(j, f)| j != primary && f.def.kind == DefinitionKind::Generic)
            .map(|(j, _)| j),
    );
    (out, read)
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
                // The generic reader is below every format: it may read their lines as well.
                if other.kind == DefinitionKind::Generic {
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

    /// Whole files of each metric export, as the tools write them (one
    /// document per line, pretty-printed, comments), are that export's.
    #[test]
    fn metric_exports_are_detected_whole() {
        let cat = Catalogue::builtin().expect("catalogue");
        let graphite_series = |host: u32| {
            format!(
                r#"{{"target": "servers.api-{host}.hikaricp.connections.active", "tags": {{"name": "servers.api-{host}.hikaricp.connections.active"}}, "datapoints": [{}[20.0, 1790841440]]}}"#,
                "[12.0, 1790841420], [null, 1790841430], ".repeat(60)
            )
        };
        let graphite_one_line = format!("[{}, {}]", graphite_series(1), graphite_series(2));
        let graphite_pretty = serde_json::to_string_pretty(
            &serde_json::from_str::<Value>(&graphite_one_line).expect("json"),
        )
        .expect("json");
        let gcp = r#"[{"metric":{"type":"cloudsql.googleapis.com/database/postgresql/num_backends"},"resource":{"type":"cloudsql_database","labels":{"database_id":"shop:orders-db"}},"metricKind":"GAUGE","valueType":"INT64","points":[{"interval":{"startTime":"2026-10-01T07:59:00Z","endTime":"2026-10-01T07:59:00Z"},"value":{"int64Value":"98"}}]}]"#;
        // As gcloud prints it: keys sorted, so `valueType` comes after
        // more points than the head holds.
        let point = r#"{"interval":{"startTime":"2026-10-01T07:59:00Z","endTime":"2026-10-01T07:59:00Z"},"value":{"int64Value":"98"}}"#;
        let many = format!("[{}]", [point; 40].join(","));
        let gcp_pretty = serde_json::to_string_pretty(
            &serde_json::from_str::<Value>(&gcp.replace(&format!("[{point}]"), &many))
                .expect("json"),
        )
        .expect("json");
        assert!(gcp_pretty.lines().count() > 200);
        let azure = r#"{"cost":0,"interval":"PT1M","value":[{"id":"/subscriptions/s/resourceGroups/rg/providers/Microsoft.DBforPostgreSQL/flexibleServers/orders-db/providers/Microsoft.Insights/metrics/active_connections","name":{"value":"active_connections","localizedValue":"Active Connections"},"timeseries":[{"metadatavalues":[],"data":[{"timeStamp":"2026-10-01T07:58:00Z","average":41.0}]}],"unit":"Count"}]}"#;
        let azure_pretty =
            serde_json::to_string_pretty(&serde_json::from_str::<Value>(azure).expect("json"))
                .expect("json");
        let influx = (0..20)
            .map(|i| format!("cpu,cpu=cpu-total,host=api-1 usage_user={}.5,usage_idle=20i 17908414{i:02}000000000", 50 + i))
            .chain(["# DML".to_string(), "mem,host=api-1 used_percent=63.2".to_string()])
            .collect::<Vec<_>>()
            .join("\n");
        let victoria = (0..5)
            .map(|i| format!(r#"{{"metric":{{"__name__":"hikaricp_connections_active","instance":"10.0.3.{i}:8080"}},"values":[12,"NaN",20],"timestamps":[1790841420000,1790841435000,1790841450000]}}"#))
            .collect::<Vec<_>>()
            .join("\n");
        let cases = [
            ("graphite_render", graphite_one_line.clone()),
            ("graphite_render", graphite_pretty),
            ("gcp_time_series", gcp.to_string()),
            ("gcp_time_series", gcp_pretty),
            ("azure_metrics", azure.to_string()),
            ("azure_metrics", azure_pretty),
            ("influx_line_protocol", influx),
            ("victoriametrics_export", victoria),
        ];
        for (want, text) in cases {
            // The head detection sees (`parse/driver.rs`).
            let head: Vec<String> = text.lines().take(200).map(str::to_string).collect();
            let (det, scores) = detect(&cat, &head);
            let det = det.unwrap_or_else(|| panic!("{want}: refused: {scores:?}"));
            assert_eq!(cat.formats[det.format].name(), want, "{text}");
        }
    }

    /// Regression: a Graphite response of exactly two series is a
    /// two-item array, the shape of a Fluent Bit `[time, {record}]` event,
    /// and the envelope read it (without a time) before Graphite's reader
    /// existed: it must not read it at all.
    #[test]
    fn a_graphite_response_of_two_series_is_no_fluent_bit_event() {
        let cat = Catalogue::builtin().expect("catalogue");
        let head = vec![r#"[{"target": "a.b", "datapoints": [[1.0, 1790841420]]}, {"target": "a.c", "datapoints": [[2.0, 1790841420]]}]"#.to_string()];
        let (_, scores) = detect(&cat, &head);
        let fluentbit = cat
            .formats
            .iter()
            .position(|f| f.name() == "fluentbit_records")
            .expect("fluentbit_records");
        let score = scores.iter().find(|(i, _)| *i == fluentbit).map(|s| s.1);
        assert_eq!(score, Some(0.0));
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

    /// Python's logging writes `levelname`: a python-json-logger record
    /// that names the request it failed is the application's log line, not
    /// an access log's (read as requests, only the failures were counted,
    /// beside the proxy's log of every request, and no time was read).
    #[test]
    fn a_python_logging_record_naming_its_request_is_a_log() {
        let cat = Catalogue::builtin().expect("catalogue");
        let head: Vec<String> = (0..20)
            .map(|i| format!(r#"{{"asctime": "2025-01-21 01:30:{i:02},796", "levelname": "ERROR", "name": "app.web", "message": "GET /ws 503 210ms", "method": "GET", "path": "/ws", "status": 503, "duration_ms": 210}}"#))
            .collect();
        let (det, scores) = detect(&cat, &head);
        let det = det.unwrap_or_else(|| panic!("refused: {scores:?}"));
        assert_eq!(cat.formats[det.format].name(), "python_json_logger");
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
