//! Datadog metrics query responses (`GET /api/v1/query`, `res_type:
//! time_series`), one per line or pretty-printed -> one metric record per
//! point of each `series[]` entry.
//!
//! A point is `[epoch milliseconds, value]`; `null` values (gaps) give no
//! record. The metric is `metric` (`system.cpu.idle`); the tags of
//! `tag_set` (`host:web-1`), or of `scope` when `tag_set` is empty, become
//! labels, so a `host` tag names the instance.
//!
//! ```text
//! {"series":[{"metric":"postgresql.connections","scope":"host:db-1","tag_set":["host:db-1"],
//!             "pointlist":[[1790841480000.0,198.0]]}], ...}
//!   -> postgresql.connections{host="db-1"} 198.0 at 1790841480000.0 (ms)
//! ```

use serde_json::Value;
use std::borrow::Cow;

use super::{metric_record, number_text, Extractor, Skip};
use crate::formats::compile::Fields;

pub struct Query;

impl Extractor for Query {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        super::json_document_line(line, records)
    }

    fn document<'a>(&mut self, doc: &'a Value) -> Result<Vec<Fields<'a>>, Skip> {
        records(doc)
    }

    fn sniff(&self, head: &str) -> f64 {
        if head.contains("\"pointlist\"")
            || (head.contains("\"series\"") && head.contains("\"res_type\""))
        {
            1.0
        } else {
            0.0
        }
    }
}

fn records(doc: &Value) -> Result<Vec<Fields<'_>>, Skip> {
    let series = doc
        .get("series")
        .and_then(Value::as_array)
        .filter(|s| s.iter().all(|e| e.get("pointlist").is_some()))
        .ok_or("not a Datadog query response: no `series[].pointlist`")?;
    let mut out = Vec::new();
    for s in series {
        let Some(metric) = s.get("metric").and_then(Value::as_str) else {
            continue;
        };
        let tags: Vec<&str> = match s.get("tag_set").and_then(Value::as_array) {
            Some(t) if !t.is_empty() => t.iter().filter_map(Value::as_str).collect(),
            _ => s
                .get("scope")
                .and_then(Value::as_str)
                .map(|sc| sc.split(',').map(str::trim).collect())
                .unwrap_or_default(),
        };
        let labels: Vec<(Cow<str>, Cow<str>)> = tags
            .iter()
            .filter_map(|t| t.split_once(':'))
            .map(|(k, v)| (Cow::Borrowed(k), Cow::Borrowed(v)))
            .collect();
        let Some(points) = s.get("pointlist").and_then(Value::as_array) else {
            continue;
        };
        for p in points {
            let (Some(ts), Some(v)) = (
                p.get(0).and_then(number_text),
                p.get(1).and_then(number_text),
            ) else {
                continue;
            };
            out.push(metric_record(ts, Cow::Borrowed(metric), v, &labels));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::role::Role;

    #[test]
    fn series_points_and_tags() {
        let line = r#"{"status":"ok","res_type":"time_series","series":[{"metric":"postgresql.connections","scope":"host:db-1,env:prod","tag_set":["host:db-1","env:prod"],"pointlist":[[1790841480000.0,198.0],[1790841540000.0,null]],"length":2}],"from_date":1790841480000}"#;
        let recs = Query.line(line).expect("records");
        assert_eq!(recs.len(), 1, "the null point is a gap");
        assert_eq!(recs[0].get(Role::Ts), Some("1790841480000.0"));
        assert_eq!(recs[0].get(Role::Value), Some("198.0"));
        assert_eq!(
            recs[0].get(Role::Series),
            Some("postgresql.connections{env=\"prod\",host=\"db-1\"}")
        );
        assert_eq!(recs[0].label("host"), Some("db-1"));

        let scope_only = r#"{"series":[{"metric":"system.load.1","scope":"host:web-2","tag_set":[],"pointlist":[[1790841480000.0,3.5]]}]}"#;
        let recs = Query.line(scope_only).expect("records");
        assert_eq!(recs[0].label("host"), Some("web-2"));

        let cases = [
            r#"{"status":"success","data":{"resultType":"matrix","result":[]}}"#,
            r#"{"series":[{"name":"x"}]}"#,
            "",
        ];
        for c in cases {
            assert!(Query.line(c).is_err(), "{c}");
        }
    }
}
