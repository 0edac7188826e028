//! VictoriaMetrics `/api/v1/export` output (JSON lines: one series per
//! line, its samples as parallel `values[]` / `timestamps[]`) -> one metric
//! record per sample.
//!
//! The metric is the series' `__name__`; its other labels become labels, so
//! an `instance` or `pod` label names the instance. Timestamps are epoch
//! milliseconds. A value is a number, or a string for what JSON cannot
//! write (`"NaN"`, `"Inf"`, and Prometheus' stale marker, a NaN): those are
//! not measurements and give no record.
//!
//! ```text
//! {"metric":{"__name__":"hikaricp_connections_active","instance":"10.0.0.1:8080"},"values":[20,"NaN"],"timestamps":[1790841480000,1790841495000]}
//!   -> hikaricp_connections_active{instance="10.0.0.1:8080"} 20 at 1790841480000 (ms)
//! ```

use serde_json::Value;
use std::borrow::Cow;

use super::{metric_record, Extractor, Skip};
use crate::formats::compile::Fields;

pub struct Export;

impl Extractor for Export {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        super::json_document_line(line, records)
    }

    fn document<'a>(&mut self, doc: &'a Value) -> Result<Vec<Fields<'a>>, Skip> {
        records(doc)
    }

    fn sniff(&self, head: &str) -> f64 {
        let keys = ["\"metric\"", "\"values\"", "\"timestamps\""];
        if keys.iter().all(|k| head.contains(k)) {
            1.0
        } else {
            0.0
        }
    }
}

fn records(doc: &Value) -> Result<Vec<Fields<'_>>, Skip> {
    let (Some(metric), Some(values), Some(times)) = (
        doc.get("metric").and_then(Value::as_object),
        doc.get("values").and_then(Value::as_array),
        doc.get("timestamps").and_then(Value::as_array),
    ) else {
        return Err("not a VictoriaMetrics export line: no `metric`, `values` and `timestamps`");
    };
    if values.len() != times.len() {
        return Err("`values` and `timestamps` differ in length");
    }
    let name = metric
        .get("__name__")
        .and_then(Value::as_str)
        .ok_or("the series has no `__name__`")?;
    let labels: Vec<(Cow<str>, Cow<str>)> = metric
        .iter()
        .filter(|(k, _)| k.as_str() != "__name__")
        .filter_map(|(k, v)| Some((Cow::Borrowed(k.as_str()), Cow::Borrowed(v.as_str()?))))
        .collect();
    Ok(times
        .iter()
        .zip(values)
        .filter_map(|(t, v)| {
            let ts = t.is_number().then(|| t.to_string())?;
            Some(metric_record(
                Cow::Owned(ts),
                Cow::Borrowed(name),
                finite(v)?,
                &labels,
            ))
        })
        .collect())
}

/// A sample value's text when it is a finite number.
fn finite(v: &Value) -> Option<Cow<'_, str>> {
    match v {
        Value::Number(n) => Some(Cow::Owned(n.to_string())),
        Value::String(s) => s
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(|_| Cow::Borrowed(s.as_str())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::role::Role;

    #[test]
    fn series_lines() {
        let line = r#"{"metric":{"__name__":"hikaricp_connections_active","job":"api","instance":"10.0.0.1:8080","pool":"HikariPool-1"},"values":[20,19.5,"NaN","12","+Inf"],"timestamps":[1790841480000,1790841495000,1790841510000,1790841525000,1790841540000]}"#;
        let recs = Export.line(line).expect("records");
        let got: Vec<(Option<&str>, Option<&str>)> = recs
            .iter()
            .map(|r| (r.get(Role::Ts), r.get(Role::Value)))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some("1790841480000"), Some("20")),
                (Some("1790841495000"), Some("19.5")),
                (Some("1790841525000"), Some("12")),
            ],
            "NaN and Inf are no measurements"
        );
        let first = recs.first().expect("a record");
        assert_eq!(first.get(Role::Metric), Some("hikaricp_connections_active"));
        assert_eq!(
            first.get(Role::Series),
            Some("hikaricp_connections_active{instance=\"10.0.0.1:8080\",job=\"api\",pool=\"HikariPool-1\"}")
        );
        assert_eq!(first.label("instance"), Some("10.0.0.1:8080"));
    }

    #[test]
    fn malformed_lines_are_skipped() {
        let cases = [
            (
                r#"{"status":"success","data":{"resultType":"matrix","result":[]}}"#,
                "not a VictoriaMetrics export line: no `metric`, `values` and `timestamps`",
            ),
            (
                r#"{"metric":{"__name__":"up"},"values":[1,1],"timestamps":[1790841480000]}"#,
                "`values` and `timestamps` differ in length",
            ),
            (
                r#"{"metric":{"job":"x"},"values":[1],"timestamps":[1790841480000]}"#,
                "the series has no `__name__`",
            ),
            (
                r#"{"metric":{"__name__":"up"},"values":[1"#,
                "not valid JSON",
            ),
        ];
        for (line, want) in cases {
            assert_eq!(Export.line(line).err(), Some(want), "{line}");
        }
    }
}
