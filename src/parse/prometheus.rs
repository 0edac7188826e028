//! Prometheus HTTP API responses (`query_range` matrices and `query`
//! vectors) -> metric samples. A document kind: the series structure does
//! not fit a field mapping, so this small module reads it.

use serde_json::Value;

use crate::event::{MetricSample, Origin};
use crate::formats::Rules;

/// Samples of one response document, or why it is not one. Each sample is a
/// record for the input's accounting.
pub fn samples(
    doc: &Value,
    rules: &Rules,
    origin: Origin,
) -> Result<Vec<MetricSample>, &'static str> {
    let data = doc.get("data").ok_or("no `data` in Prometheus response")?;
    let result = data
        .get("result")
        .and_then(Value::as_array)
        .ok_or("no `data.result` array")?;
    let mut out = Vec::new();
    for series in result {
        let Some(labels) = series.get("metric").and_then(Value::as_object) else {
            continue;
        };
        let name = labels
            .get("__name__")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let instance = rules
            .instance_labels
            .iter()
            .find_map(|l| labels.get(l).and_then(Value::as_str))
            .map(str::to_string);
        // serde_json keeps keys sorted (no preserve_order), so the key is stable.
        let mut key = name.clone();
        key.push('{');
        let mut first = true;
        for (k, v) in labels {
            if k == "__name__" {
                continue;
            }
            if !first {
                key.push(',');
            }
            first = false;
            key.push_str(&format!("{k}=\"{}\"", v.as_str().unwrap_or("")));
        }
        key.push('}');
        let points: Vec<&Value> = match (series.get("values"), series.get("value")) {
            (Some(Value::Array(vs)), _) => vs.iter().collect(),
            (_, Some(v)) => vec![v],
            _ => Vec::new(),
        };
        for p in points {
            let (Some(ts), Some(v)) = (p.get(0).and_then(Value::as_f64), p.get(1)) else {
                continue;
            };
            let value = match v {
                Value::String(s) => s.parse::<f64>().ok(),
                Value::Number(n) => n.as_f64(),
                _ => None,
            };
            let Some(value) = value.filter(|v| v.is_finite()) else {
                continue;
            };
            out.push(MetricSample {
                ts: (ts * 1000.0).round() as i64,
                origin,
                name: name.clone(),
                role: rules.metric_role(&name),
                value,
                instance: instance.clone(),
                series: key.clone(),
            });
        }
    }
    Ok(out)
}
