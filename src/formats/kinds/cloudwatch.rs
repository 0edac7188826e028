//! Amazon CloudWatch metric API responses as the AWS CLI prints them (one
//! per line, or pretty-printed) -> one metric record per datapoint.
//!
//! - `aws cloudwatch get-metric-data`: `MetricDataResults[]`, each with
//!   `Id`, `Label` and parallel `Timestamps[]` / `Values[]` (newest first).
//!   The metric is the `Label` (the metric name unless the query set one),
//!   else the `Id`; the `Id` is a label.
//! - `aws cloudwatch get-metric-statistics`: `Label` and `Datapoints[]` with
//!   `Timestamp`, one value per statistic (`Average`, `Sum`, `Maximum`,
//!   `Minimum`, `SampleCount`, `ExtendedStatistics.p99`, ...) and `Unit`, in
//!   no particular order. Each statistic is its own series (`statistic`
//!   label), `Unit` a label.
//!
//! `metric-roles.json` maps CloudWatch names (`DatabaseConnections`,
//! `CPUUtilization`, ...) to roles.
//!
//! ```text
//! {"Label":"CPUUtilization","Datapoints":[{"Timestamp":"2026-10-01T07:58:00Z","Maximum":97.5,"Unit":"Percent"}]}
//!   -> CPUUtilization{statistic="Maximum",unit="Percent"} 97.5 at 07:58:00Z
//! ```

use serde_json::Value;
use std::borrow::Cow;

use super::{metric_record, number_text, Extractor, Skip};
use crate::formats::compile::Fields;

const STATISTICS: [&str; 5] = ["Average", "Sum", "Maximum", "Minimum", "SampleCount"];

pub struct Metrics;

impl Extractor for Metrics {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        super::json_document_line(line, records)
    }

    fn document<'a>(&mut self, doc: &'a Value) -> Result<Vec<Fields<'a>>, Skip> {
        records(doc)
    }

    fn sniff(&self, head: &str) -> f64 {
        let stats = head.contains("\"Datapoints\"") && head.contains("\"Label\"");
        if head.contains("\"MetricDataResults\"") || stats {
            1.0
        } else {
            0.0
        }
    }
}

fn records(doc: &Value) -> Result<Vec<Fields<'_>>, Skip> {
    if let Some(results) = doc.get("MetricDataResults").and_then(Value::as_array) {
        return Ok(results.iter().flat_map(metric_data).collect());
    }
    match (
        doc.get("Label"),
        doc.get("Datapoints").and_then(Value::as_array),
    ) {
        (Some(Value::String(label)), Some(points)) => Ok(statistics(label, points)),
        _ => Err("not a CloudWatch get-metric-data or get-metric-statistics response"),
    }
}

fn metric_data(result: &Value) -> Vec<Fields<'_>> {
    let text = |k: &str| {
        result
            .get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let Some(label) = text("Label").or_else(|| text("Id")) else {
        return Vec::new();
    };
    let (name, dimension) = split_label(label);
    let mut labels: Vec<(Cow<str>, Cow<str>)> = text("Id")
        .map(|id| (Cow::Borrowed("id"), Cow::Borrowed(id)))
        .into_iter()
        .collect();
    if let Some(d) = dimension {
        labels.push((Cow::Borrowed("dimension"), Cow::Borrowed(d)));
    }
    let times = result.get("Timestamps").and_then(Value::as_array);
    let values = result.get("Values").and_then(Value::as_array);
    let (Some(times), Some(values)) = (times, values) else {
        return Vec::new();
    };
    times
        .iter()
        .zip(values)
        .filter_map(|(t, v)| {
            let ts = t.as_str()?;
            let value = number_text(v)?;
            Some(metric_record(
                Cow::Borrowed(ts),
                Cow::Borrowed(name),
                value,
                &labels,
            ))
        })
        .collect()
}

/// The console and Metrics Insights label a result `MetricName value` (the
/// metric and its one dimension's value: `ApproximateNumberOfMessagesVisible
/// jobs`, `pod_cpu_utilization web-7c9d-k2xqp`): the metric is the first
/// word. A label of several words (one a query set: `API errors (5m)`) is
/// the name whole.
fn split_label(label: &str) -> (&str, Option<&str>) {
    let Some((first, rest)) = label.split_once(' ') else {
        return (label, None);
    };
    let metric_like = first.len() >= 6
        && first
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic())
        && first
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        // A capital, an underscore or a dot marks a metric's name: words
        // are not spelled `pod_cpu_utilization` or `hikaricp.connections.active`.
        && first
            .bytes()
            .any(|b| b.is_ascii_uppercase() || b == b'_' || b == b'.');
    let one_value = !rest.is_empty() && !rest.contains(char::is_whitespace);
    if metric_like && one_value {
        (first, Some(rest))
    } else {
        (label, None)
    }
}

fn statistics<'a>(label: &'a str, points: &'a [Value]) -> Vec<Fields<'a>> {
    let mut out = Vec::new();
    for p in points {
        let Some(ts) = p.get("Timestamp").and_then(Value::as_str) else {
            continue;
        };
        let unit = p.get("Unit").and_then(Value::as_str);
        let mut values: Vec<(&str, &Value)> = STATISTICS
            .iter()
            .filter_map(|s| p.get(*s).map(|v| (*s, v)))
            .collect();
        if let Some(ext) = p.get("ExtendedStatistics").and_then(Value::as_object) {
            values.extend(ext.iter().map(|(k, v)| (k.as_str(), v)));
        }
        for (statistic, v) in values {
            let Some(value) = number_text(v) else {
                continue;
            };
            let mut labels = vec![(Cow::Borrowed("statistic"), Cow::Borrowed(statistic))];
            if let Some(u) = unit {
                labels.push((Cow::Borrowed("unit"), Cow::Borrowed(u)));
            }
            out.push(metric_record(
                Cow::Borrowed(ts),
                Cow::Borrowed(label),
                value,
                &labels,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(line: &str) -> Result<Vec<String>, Skip> {
        Metrics
            .line(line)
            .map(|recs| super::super::point_summary(&recs))
    }

    #[test]
    fn responses() {
        type Case = (&'static str, &'static str, Result<Vec<&'static str>, Skip>);
        let cases: [Case; 6] = [
            (
                "a dotted metric's label: a Micrometer gauge and its pod",
                r#"{"MetricDataResults":[{"Id":"m3","Label":"hikaricp.connections.active web-7c9d-k2xqp","Timestamps":["2026-10-01T07:59:00+00:00"],"Values":[20.0],"StatusCode":"Complete"}],"Messages":[]}"#,
                Ok(vec![
                    "2026-10-01T07:59:00+00:00 hikaricp.connections.active{dimension=\"web-7c9d-k2xqp\",id=\"m3\"} 20.0",
                ]),
            ),
            (
                "a console label: the metric and its dimension's value",
                r#"{"MetricDataResults":[{"Id":"m14","Label":"ApproximateNumberOfMessagesVisible jobs","Timestamps":["2026-10-01T07:59:00+00:00"],"Values":[6100.0],"StatusCode":"Complete"},{"Id":"m2","Label":"API errors (5m)","Timestamps":["2026-10-01T07:59:00+00:00"],"Values":[3.0],"StatusCode":"Complete"}],"Messages":[]}"#,
                Ok(vec![
                    "2026-10-01T07:59:00+00:00 ApproximateNumberOfMessagesVisible{dimension=\"jobs\",id=\"m14\"} 6100.0",
                    "2026-10-01T07:59:00+00:00 API errors (5m){id=\"m2\"} 3.0",
                ]),
            ),
            (
                "get-metric-data",
                r#"{"MetricDataResults":[{"Id":"m1","Label":"DatabaseConnections","Timestamps":["2026-10-01T07:59:00+00:00","2026-10-01T07:58:00+00:00"],"Values":[198.0,121.5],"StatusCode":"Complete"}],"Messages":[]}"#,
                Ok(vec![
                    "2026-10-01T07:59:00+00:00 DatabaseConnections{id=\"m1\"} 198.0",
                    "2026-10-01T07:58:00+00:00 DatabaseConnections{id=\"m1\"} 121.5",
                ]),
            ),
            (
                "get-metric-statistics",
                r#"{"Label":"CPUUtilization","Datapoints":[{"Timestamp":"2026-10-01T07:58:00Z","Average":61.2,"Maximum":97.5,"Unit":"Percent","ExtendedStatistics":{"p99":96.0}}]}"#,
                Ok(vec![
                    "2026-10-01T07:58:00Z CPUUtilization{statistic=\"Average\",unit=\"Percent\"} 61.2",
                    "2026-10-01T07:58:00Z CPUUtilization{statistic=\"Maximum\",unit=\"Percent\"} 97.5",
                    "2026-10-01T07:58:00Z CPUUtilization{statistic=\"p99\",unit=\"Percent\"} 96.0",
                ]),
            ),
            (
                "prometheus",
                r#"{"status":"success","data":{"resultType":"vector","result":[]}}"#,
                Err("not a CloudWatch get-metric-data or get-metric-statistics response"),
            ),
            ("not json", "Label=x", Err("not valid JSON")),
        ];
        for (name, line, want) in cases {
            let want = want.map(|w| w.into_iter().map(str::to_string).collect::<Vec<_>>());
            assert_eq!(summary(line), want, "{name}");
        }
    }
}
