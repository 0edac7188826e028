//! Prometheus HTTP API responses (`query_range` matrices and `query`
//! vectors), one document per input or per line, -> one record per sample.

use serde_json::Value;
use std::borrow::Cow;

use super::{Extractor, Skip, BLANK};
use crate::formats::compile::Fields;
use crate::formats::role::Role;

pub struct Matrix;

impl Extractor for Matrix {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        if line.trim().is_empty() {
            return Err(BLANK);
        }
        let doc: Value = serde_json::from_str(line).map_err(|_| "not valid JSON")?;
        // The line's value is dropped here, so its records own their text.
        Ok(samples(&doc)?.into_iter().map(owned).collect())
    }

    fn document<'a>(&mut self, doc: &'a Value) -> Result<Vec<Fields<'a>>, Skip> {
        samples(doc)
    }

    fn sniff(&self, head: &str) -> f64 {
        if head.contains("\"resultType\"") && head.contains("\"result\"") {
            1.0
        } else {
            0.0
        }
    }
}

fn owned(f: Fields<'_>) -> Fields<'static> {
    f.into_owned()
}

/// One record per sample: ts, metric, value, series (name and sorted labels)
/// and every label as a `label.NAME` extra for instance lookup.
fn samples(doc: &Value) -> Result<Vec<Fields<'_>>, Skip> {
    let data = doc
        .get("data")
        .ok_or("no `data` in the Prometheus response")?;
    // Loki answers log queries in the same envelope: those are log lines, not samples.
    if data.get("resultType").and_then(Value::as_str) == Some("streams") {
        return Err("a Loki log stream response, not metrics");
    }
    let result = data
        .get("result")
        .and_then(Value::as_array)
        .ok_or("no `data.result` array")?;
    let mut out = Vec::new();
    for series in result {
        let Some(labels) = series.get("metric").and_then(Value::as_object) else {
            continue;
        };
        let name = labels.get("__name__").and_then(Value::as_str).unwrap_or("");
        // serde_json keeps object keys sorted, so the series key is stable.
        let mut key = format!("{name}{{");
        let mut first = true;
        for (k, v) in labels.iter().filter(|(k, _)| k.as_str() != "__name__") {
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
            let (Some(ts), Some(v)) = (p.get(0), p.get(1)) else {
                continue;
            };
            let value = match v {
                Value::String(s) => Cow::Borrowed(s.as_str()),
                Value::Number(n) => Cow::Owned(n.to_string()),
                _ => continue,
            };
            let mut f = Fields::default();
            f.set(Role::Ts, Cow::Owned(ts.to_string()));
            f.set(Role::Metric, Cow::Borrowed(name));
            f.set(Role::Value, value);
            f.set(Role::Series, Cow::Owned(key.clone()));
            for (k, v) in labels {
                if let Some(v) = v.as_str() {
                    f.set_label(k, v);
                }
            }
            out.push(f);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_and_vector_samples() {
        let doc = r#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"__name__":"hikaricp_connections_active","instance":"10.0.0.1:8080","pool":"p"},
             "values":[[1790841420,"20"],[1790841425.5,"19"]]}]}}"#;
        let v: Value = serde_json::from_str(doc).expect("json");
        let recs = Matrix.document(&v).expect("records");
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[1].get(Role::Ts), Some("1790841425.5"));
        assert_eq!(recs[0].get(Role::Value), Some("20"));
        assert_eq!(
            recs[0].get(Role::Series),
            Some("hikaricp_connections_active{instance=\"10.0.0.1:8080\",pool=\"p\"}")
        );
        assert_eq!(recs[0].label("instance"), Some("10.0.0.1:8080"));
        let vector = r#"{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"up"},"value":[1,"1"]}]}}"#;
        let v: Value = serde_json::from_str(vector).expect("json");
        assert_eq!(Matrix.document(&v).expect("records").len(), 1);
        assert!(Matrix.line("{}").is_err());
        let loki = r#"{"status":"success","data":{"resultType":"streams","result":[{"stream":{"job":"x"},"values":[["1790841480000000000","hello"]]}]}}"#;
        assert!(Matrix.line(loki).is_err());
    }
}
