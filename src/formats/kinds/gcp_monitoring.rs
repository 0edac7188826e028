//! Google Cloud Monitoring time series: a `projects.timeSeries.list`
//! response (`{"timeSeries": [...], "nextPageToken": ...}`) or the bare
//! array of time series the client tools print, one per line or
//! pretty-printed -> one metric record per point.
//!
//! The metric is the series' `metric.type`
//! (`cloudsql.googleapis.com/database/postgresql/num_backends`); the labels
//! of `resource.labels` and `metric.labels` become labels. A point's time is
//! its `interval.endTime` (a GAUGE's start and end are the same instant).
//! Its value is `int64Value` (a string), `doubleValue`, or a distribution's
//! `mean`; a boolean, a string or an empty distribution is no measurement
//! and gives no record.
//!
//! The instance is the first of the labels that name one: a pod
//! (`pod_name`), a VM (`instance_name`, else its numeric `instance_id`) or a
//! Cloud SQL instance (`database_id`, `project:instance`).
//!
//! ```text
//! {"timeSeries":[{"metric":{"type":"cloudsql.googleapis.com/database/postgresql/num_backends","labels":{"database":"orders"}},
//!   "resource":{"type":"cloudsql_database","labels":{"database_id":"shop:orders-db"}},
//!   "points":[{"interval":{"startTime":"2026-10-01T07:59:00Z","endTime":"2026-10-01T07:59:00Z"},"value":{"int64Value":"98"}}]}]}
//!   -> cloudsql.googleapis.com/database/postgresql/num_backends{database="orders",database_id="shop:orders-db"} 98
//!      at 07:59:00Z, instance shop:orders-db
//! ```

use serde_json::{Map, Value};
use std::borrow::Cow;

use super::{metric_record, number_text, Extractor, Skip};
use crate::formats::compile::Fields;
use crate::formats::role::Role;

pub struct TimeSeries;

impl Extractor for TimeSeries {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        super::json_document_line(line, records)
    }

    fn document<'a>(&mut self, doc: &'a Value) -> Result<Vec<Fields<'a>>, Skip> {
        records(doc)
    }

    fn sniff(&self, head: &str) -> f64 {
        // gcloud sorts keys: `valueType` comes after `points`, out of a
        // head that holds many of them.
        let series = head.contains("\"timeSeries\"") || head.contains("\"metricKind\"");
        if series && head.contains("\"points\"") {
            1.0
        } else {
            0.0
        }
    }
}

/// Labels that name an instance, most specific first.
const INSTANCE_LABELS: [&str; 4] = ["pod_name", "instance_name", "instance_id", "database_id"];

fn records(doc: &Value) -> Result<Vec<Fields<'_>>, Skip> {
    let series = match doc {
        Value::Array(s) => Some(s),
        _ => doc.get("timeSeries").and_then(Value::as_array),
    }
    .filter(|s| !s.is_empty())
    .filter(|s| {
        s.iter().all(|e| {
            e.pointer("/metric/type").is_some_and(Value::is_string) && e.get("points").is_some()
        })
    })
    .ok_or("not a Cloud Monitoring time series list: no `timeSeries[].metric.type` and `points`")?;
    Ok(series.iter().flat_map(points).collect())
}

fn points(series: &Value) -> Vec<Fields<'_>> {
    let (Some(name), Some(points)) = (
        series.pointer("/metric/type").and_then(Value::as_str),
        series.get("points").and_then(Value::as_array),
    ) else {
        return Vec::new();
    };
    let label_map = |path: &str| series.pointer(path).and_then(Value::as_object);
    let mut labels: Vec<(Cow<str>, Cow<str>)> = Vec::new();
    for (k, v) in [label_map("/resource/labels"), label_map("/metric/labels")]
        .into_iter()
        .flatten()
        .flat_map(Map::iter)
    {
        if let Some(v) = v.as_str() {
            if !labels.iter().any(|(have, _)| have == k) {
                labels.push((Cow::Borrowed(k.as_str()), Cow::Borrowed(v)));
            }
        }
    }
    let instance = INSTANCE_LABELS.iter().find_map(|want| {
        labels
            .iter()
            .find(|(k, v)| k == want && !v.is_empty())
            .map(|(_, v)| v.clone())
    });
    points
        .iter()
        .filter_map(|p| {
            let ts = p.pointer("/interval/endTime").and_then(Value::as_str)?;
            let value = value_text(p.get("value")?)?;
            let mut f = metric_record(Cow::Borrowed(ts), Cow::Borrowed(name), value, &labels);
            if let Some(i) = &instance {
                f.set(Role::Instance, i.clone());
            }
            Some(f)
        })
        .collect()
}

/// A `TypedValue`'s number: `int64Value` (a decimal string), `doubleValue`,
/// or a distribution's `mean`.
fn value_text(v: &Value) -> Option<Cow<'_, str>> {
    if let Some(i) = v.get("int64Value") {
        return number_text(i);
    }
    if let Some(d) = v.get("doubleValue") {
        // The JSON mapping writes NaN and the infinities as strings.
        return d.is_number().then(|| number_text(d)).flatten();
    }
    v.pointer("/distributionValue/mean")
        .filter(|m| m.is_number())
        .and_then(number_text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(line: &str) -> Result<Vec<String>, Skip> {
        TimeSeries.line(line).map(|recs| {
            recs.iter()
                .map(|r| {
                    format!(
                        "{} {} {} {}",
                        r.get(Role::Ts).unwrap_or(""),
                        r.get(Role::Series).unwrap_or(""),
                        r.get(Role::Value).unwrap_or(""),
                        r.get(Role::Instance).unwrap_or("-")
                    )
                })
                .collect()
        })
    }

    #[test]
    fn responses() {
        type Case = (&'static str, &'static str, Result<Vec<&'static str>, Skip>);
        let cases: [Case; 5] = [
            (
                "list response: int64 as a string, the instance from database_id",
                r#"{"timeSeries":[{"metric":{"type":"cloudsql.googleapis.com/database/postgresql/num_backends","labels":{"database":"orders"}},"resource":{"type":"cloudsql_database","labels":{"project_id":"shop","database_id":"shop:orders-db","region":"europe-west1"}},"metricKind":"GAUGE","valueType":"INT64","points":[{"interval":{"startTime":"2026-10-01T07:59:00Z","endTime":"2026-10-01T07:59:00Z"},"value":{"int64Value":"98"}},{"interval":{"startTime":"2026-10-01T07:58:00Z","endTime":"2026-10-01T07:58:00Z"},"value":{"boolValue":true}}]}],"unit":"1","nextPageToken":"abc"}"#,
                Ok(vec![
                    "2026-10-01T07:59:00Z cloudsql.googleapis.com/database/postgresql/num_backends{database=\"orders\",database_id=\"shop:orders-db\",project_id=\"shop\",region=\"europe-west1\"} 98 shop:orders-db",
                ]),
            ),
            (
                "bare array: double and distribution mean, the pod names the instance",
                r#"[{"metric":{"type":"kubernetes.io/container/cpu/limit_utilization"},"resource":{"type":"k8s_container","labels":{"pod_name":"api-7c9d-k2xqp","instance_id":"123"}},"metricKind":"GAUGE","valueType":"DOUBLE","points":[{"interval":{"endTime":"2026-10-01T07:59:00Z"},"value":{"doubleValue":0.91}}]},{"metric":{"type":"loadbalancing.googleapis.com/https/total_latencies"},"resource":{"type":"https_lb_rule","labels":{}},"metricKind":"DELTA","valueType":"DISTRIBUTION","points":[{"interval":{"startTime":"2026-10-01T07:58:00Z","endTime":"2026-10-01T07:59:00Z"},"value":{"distributionValue":{"count":"4","mean":212.5}}},{"interval":{"startTime":"2026-10-01T07:57:00Z","endTime":"2026-10-01T07:58:00Z"},"value":{"distributionValue":{"count":"0"}}}]}]"#,
                Ok(vec![
                    "2026-10-01T07:59:00Z kubernetes.io/container/cpu/limit_utilization{instance_id=\"123\",pod_name=\"api-7c9d-k2xqp\"} 0.91 api-7c9d-k2xqp",
                    "2026-10-01T07:59:00Z loadbalancing.googleapis.com/https/total_latencies 212.5 -",
                ]),
            ),
            (
                "a NaN double is no measurement",
                r#"{"timeSeries":[{"metric":{"type":"custom.googleapis.com/x"},"points":[{"interval":{"endTime":"2026-10-01T07:59:00Z"},"value":{"doubleValue":"NaN"}}]}]}"#,
                Ok(vec![]),
            ),
            (
                "a Datadog response",
                r#"{"series":[{"metric":"x","pointlist":[]}]}"#,
                Err("not a Cloud Monitoring time series list: no `timeSeries[].metric.type` and `points`"),
            ),
            ("not json", "timeSeries", Err("not valid JSON")),
        ];
        for (name, line, want) in cases {
            let want = want.map(|w| w.into_iter().map(str::to_string).collect::<Vec<_>>());
            assert_eq!(summary(line), want, "{name}");
        }
    }
}
