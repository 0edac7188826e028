//! Azure Monitor metrics (`az monitor metrics list` output, the REST
//! `.../providers/Microsoft.Insights/metrics` response), one per line or
//! pretty-printed -> one metric record per data point.
//!
//! A response's `value[]` holds one entry per metric: `name.value`
//! (`active_connections`), its `id` (the resource's id, then
//! `/providers/Microsoft.Insights/metrics/<name>`) and `timeseries[]`, one
//! per combination of dimension values (`metadatavalues`), each with
//! `data[]` points. A point is stamped with the start of its time grain
//! (`interval`, `PT1M`) and holds the aggregations asked for: its value is
//! the `average`, else the `maximum`, `total`, `minimum` or `count`; a point
//! with none (no data in that grain) is a gap and gives no record.
//!
//! The dimensions become labels (a `host` dimension names the instance),
//! and the resource's name (`app-db` of `.../flexibleServers/app-db`; a
//! child's is `parent/child`) a `resource` label.
//!
//! ```text
//! {"interval":"PT1M","value":[{"id":"/subscriptions/s/resourceGroups/rg/providers/Microsoft.DBforPostgreSQL/flexibleServers/app-db/providers/Microsoft.Insights/metrics/active_connections",
//!   "name":{"value":"active_connections"},"timeseries":[{"metadatavalues":[],"data":[{"timeStamp":"2026-10-01T07:59:00Z","average":98.0}]}]}]}
//!   -> active_connections{resource="app-db"} 98.0 at 07:59:00Z
//! ```

use serde_json::Value;
use std::borrow::Cow;

use super::{metric_record, number_text, Extractor, Skip};
use crate::formats::compile::Fields;

pub struct Metrics;

impl Extractor for Metrics {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        super::json_document_line(line, records)
    }

    fn document<'a>(&mut self, doc: &'a Value) -> Result<Vec<Fields<'a>>, Skip> {
        records(doc)
    }

    fn sniff(&self, head: &str) -> f64 {
        if head.contains("\"timeseries\"")
            && (head.contains("\"metadatavalues\"") || head.contains("\"timeStamp\""))
        {
            1.0
        } else {
            0.0
        }
    }
}

/// The aggregations a point may hold, in the order one is taken for its value.
const AGGREGATIONS: [&str; 5] = ["average", "maximum", "total", "minimum", "count"];

fn records(doc: &Value) -> Result<Vec<Fields<'_>>, Skip> {
    let metrics = doc
        .get("value")
        .and_then(Value::as_array)
        .filter(|m| !m.is_empty())
        .filter(|m| m.iter().all(|e| e.get("timeseries").is_some()))
        .ok_or("not an Azure Monitor metrics response: no `value[].timeseries`")?;
    let mut out = Vec::new();
    for metric in metrics {
        let Some(name) = metric.pointer("/name/value").and_then(Value::as_str) else {
            continue;
        };
        let resource = metric
            .get("id")
            .and_then(Value::as_str)
            .and_then(resource_name);
        for series in metric
            .get("timeseries")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let mut labels: Vec<(Cow<str>, Cow<str>)> = series
                .get("metadatavalues")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|m| {
                    let key = m.pointer("/name/value").and_then(Value::as_str)?;
                    let value = m.get("value").and_then(Value::as_str)?;
                    Some((Cow::Borrowed(key), Cow::Borrowed(value)))
                })
                .collect();
            if let Some(r) = &resource {
                labels.push((Cow::Borrowed("resource"), Cow::Owned(r.clone())));
            }
            for point in series
                .get("data")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let Some(ts) = point.get("timeStamp").and_then(Value::as_str) else {
                    continue;
                };
                let value = AGGREGATIONS
                    .iter()
                    .find_map(|a| point.get(*a).filter(|v| v.is_number()));
                let Some(value) = value.and_then(number_text) else {
                    continue;
                };
                out.push(metric_record(
                    Cow::Borrowed(ts),
                    Cow::Borrowed(name),
                    value,
                    &labels,
                ));
            }
        }
    }
    Ok(out)
}

/// The resource's name in a metric's id: the names between
/// `/providers/<namespace>/` and `/providers/Microsoft.Insights`, which
/// alternate with their types (`flexibleServers/app-db`,
/// `servers/sql-1/databases/orders` -> `sql-1/orders`).
fn resource_name(id: &str) -> Option<String> {
    let lower = id.to_ascii_lowercase();
    let start = lower.find("/providers/")? + "/providers/".len();
    let rest = id.get(start..)?;
    let end = rest
        .to_ascii_lowercase()
        .find("/providers/microsoft.insights")
        .unwrap_or(rest.len());
    let path = rest.get(..end)?;
    // namespace, then type/name pairs.
    let names: Vec<&str> = path
        .split('/')
        .skip(2)
        .step_by(2)
        .filter(|n| !n.is_empty())
        .collect();
    (!names.is_empty()).then(|| names.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::role::Role;

    fn summary(line: &str) -> Result<Vec<String>, Skip> {
        Metrics
            .line(line)
            .map(|recs| super::super::point_summary(&recs))
    }

    #[test]
    fn responses() {
        type Case = (&'static str, &'static str, Result<Vec<&'static str>, Skip>);
        let cases: [Case; 4] = [
            (
                "average first; a point without aggregations is a gap",
                r#"{"cost":0,"interval":"PT1M","namespace":"Microsoft.DBforPostgreSQL/flexibleServers","resourceregion":"westeurope","timespan":"2026-10-01T07:58:00Z/2026-10-01T08:01:00Z","value":[{"displayDescription":"Active Connections","errorCode":"Success","id":"/subscriptions/0b1f6471-1bf0-4dda-aec3-111122223333/resourceGroups/shop/providers/Microsoft.DBforPostgreSQL/flexibleServers/app-db/providers/Microsoft.Insights/metrics/active_connections","name":{"localizedValue":"Active Connections","value":"active_connections"},"resourceGroup":"shop","timeseries":[{"data":[{"average":41.0,"maximum":44.0,"timeStamp":"2026-10-01T07:58:00Z"},{"timeStamp":"2026-10-01T07:59:00Z"},{"maximum":98.0,"timeStamp":"2026-10-01T08:00:00Z"}],"metadatavalues":[]}],"type":"Microsoft.Insights/metrics","unit":"Count"}]}"#,
                Ok(vec![
                    "2026-10-01T07:58:00Z active_connections{resource=\"app-db\"} 41.0",
                    "2026-10-01T08:00:00Z active_connections{resource=\"app-db\"} 98.0",
                ]),
            ),
            (
                "dimensions are labels",
                r#"{"interval":"PT1M","value":[{"id":"/subscriptions/s/resourceGroups/rg/providers/Microsoft.Web/serverfarms/plan-1/providers/Microsoft.Insights/metrics/CpuPercentage","name":{"value":"CpuPercentage"},"timeseries":[{"metadatavalues":[{"name":{"localizedValue":"Instance","value":"Instance"},"value":"pd0mdwk000"}],"data":[{"timeStamp":"2026-10-01T07:58:00Z","total":null,"count":3}]}]}]}"#,
                Ok(vec![
                    "2026-10-01T07:58:00Z CpuPercentage{Instance=\"pd0mdwk000\",resource=\"plan-1\"} 3",
                ]),
            ),
            (
                "a CloudWatch response",
                r#"{"MetricDataResults":[],"Messages":[]}"#,
                Err("not an Azure Monitor metrics response: no `value[].timeseries`"),
            ),
            ("not json", "value=1", Err("not valid JSON")),
        ];
        for (name, line, want) in cases {
            let want = want.map(|w| w.into_iter().map(str::to_string).collect::<Vec<_>>());
            assert_eq!(summary(line), want, "{name}");
        }
    }

    #[test]
    fn resource_names() {
        for (id, want) in [
            (
                "/subscriptions/s/resourceGroups/rg/providers/Microsoft.DBforPostgreSQL/flexibleServers/app-db/providers/Microsoft.Insights/metrics/active_connections",
                Some("app-db"),
            ),
            (
                "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Sql/servers/sql-1/databases/orders/providers/Microsoft.Insights/metrics/cpu_percent",
                Some("sql-1/orders"),
            ),
            ("/subscriptions/s/resourceGroups/rg", None),
            ("", None),
        ] {
            assert_eq!(resource_name(id).as_deref(), want, "{id}");
        }
    }

    #[test]
    fn a_host_dimension_names_the_instance_label() {
        let line = r#"{"value":[{"name":{"value":"memory_percent"},"timeseries":[{"metadatavalues":[{"name":{"value":"host"},"value":"web-1"}],"data":[{"timeStamp":"2026-10-01T07:58:00Z","average":63.5}]}]}]}"#;
        let recs = Metrics.line(line).expect("records");
        assert_eq!(recs.first().and_then(|r| r.label("host")), Some("web-1"));
        assert_eq!(
            recs.first().and_then(|r| r.get(Role::Metric)),
            Some("memory_percent")
        );
    }
}
