//! OpenTelemetry OTLP/JSON log exports (the collector's file exporter, an
//! OTLP/HTTP request body): `resourceLogs[].scopeLogs[].logRecords[]`. Each
//! log record becomes one object holding its own fields, its attributes and
//! its resource's attributes by their dotted names (`service.name`,
//! `k8s.pod.name`), its body as text and its severity as a word; the
//! definition's `fields` pick roles from that object, so which attribute
//! is the instance is data.
//!
//! In: JSON lines or a document. Out: one log record per `logRecords` entry.
//!
//! ```text
//! {"resourceLogs":[{"resource":{"attributes":[{"key":"k8s.pod.name","value":{"stringValue":"api-7f"}}]},
//!   "scopeLogs":[{"logRecords":[{"timeUnixNano":"1790841486113000000","severityNumber":17,
//!   "body":{"stringValue":"pool timeout"}}]}]}]}
//!   -> {"k8s.pod.name": "api-7f", "timeUnixNano": "1790841486113000000", "severityText": "ERROR", "body": "pool timeout"}
//! ```

use serde_json::{Map, Value};

use super::{json_document_line, Extractor, Skip};
use crate::formats::compile::{map_json, Fields};
use crate::formats::definition::Definition;

pub struct Otlp {
    def: Definition,
}

impl Otlp {
    pub fn new(def: &Definition) -> Otlp {
        Otlp { def: def.clone() }
    }
}

impl Extractor for Otlp {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        let doc: Value = match serde_json::from_str(line.trim()) {
            Ok(v) => v,
            Err(_) => return json_document_line(line, |_| Err("not valid JSON")),
        };
        self.records(&doc)
    }

    fn document<'a>(&mut self, doc: &'a Value) -> Result<Vec<Fields<'a>>, Skip> {
        self.records(doc)
    }

    fn sniff(&self, head: &str) -> f64 {
        if head.contains("\"resourceLogs\"") && head.contains("\"scopeLogs\"") {
            1.0
        } else {
            0.0
        }
    }
}

impl Otlp {
    fn records(&self, doc: &Value) -> Result<Vec<Fields<'static>>, Skip> {
        let resources = doc
            .get("resourceLogs")
            .and_then(Value::as_array)
            .ok_or("no `resourceLogs`")?;
        let mut out = Vec::new();
        for rl in resources {
            let mut base = Map::new();
            attributes_into(rl.pointer("/resource/attributes"), &mut base);
            // Old exports call it `instrumentationLibraryLogs`.
            let scopes = rl
                .get("scopeLogs")
                .or_else(|| rl.get("instrumentationLibraryLogs"))
                .and_then(Value::as_array);
            for sl in scopes.into_iter().flatten() {
                let mut scoped = base.clone();
                if let Some(name) = sl.pointer("/scope/name").and_then(Value::as_str) {
                    scoped.insert("scope.name".into(), Value::String(name.to_string()));
                }
                let records = sl.get("logRecords").and_then(Value::as_array);
                for lr in records.into_iter().flatten() {
                    let record = Value::Object(flatten(lr, scoped.clone()));
                    if let Some(f) = map_json(&self.def, &record) {
                        out.push(f.into_owned());
                    }
                }
            }
        }
        Ok(out)
    }
}

/// A log record's own fields over its scope's and resource's attributes.
fn flatten(lr: &Value, mut object: Map<String, Value>) -> Map<String, Value> {
    attributes_into(lr.get("attributes"), &mut object);
    if let Some(fields) = lr.as_object() {
        for (k, v) in fields {
            match k.as_str() {
                "attributes" => {}
                "body" => {
                    if let Some(text) = any_value(v) {
                        object.insert("body".into(), Value::String(text));
                    }
                }
                // `0` means the time is unknown.
                "timeUnixNano" | "observedTimeUnixNano" if v == "0" || v == 0 => {}
                _ => {
                    object.insert(k.clone(), v.clone());
                }
            }
        }
    }
    if !object.contains_key("severityText") {
        if let Some(word) = lr
            .get("severityNumber")
            .and_then(Value::as_u64)
            .and_then(severity_word)
        {
            object.insert("severityText".into(), Value::String(word.into()));
        }
    }
    object
}

/// OTLP `KeyValue` lists -> `key: text`.
fn attributes_into(list: Option<&Value>, object: &mut Map<String, Value>) {
    for kv in list.and_then(Value::as_array).into_iter().flatten() {
        let (Some(k), Some(v)) = (kv.get("key").and_then(Value::as_str), kv.get("value")) else {
            continue;
        };
        if let Some(text) = any_value(v) {
            object.insert(k.to_string(), Value::String(text));
        }
    }
}

/// An OTLP `AnyValue` as text: scalars as written, lists and maps as JSON.
fn any_value(v: &Value) -> Option<String> {
    let (kind, inner) = v.as_object()?.iter().next()?;
    match kind.as_str() {
        "stringValue" | "bytesValue" => inner.as_str().map(str::to_string),
        "intValue" | "doubleValue" | "boolValue" => Some(match inner {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }),
        "kvlistValue" => {
            let mut m = Map::new();
            attributes_into(inner.get("values"), &mut m);
            Some(Value::Object(m).to_string())
        }
        "arrayValue" => {
            let items: Vec<Value> = inner
                .get("values")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(any_value)
                .map(Value::String)
                .collect();
            Some(Value::Array(items).to_string())
        }
        _ => None,
    }
}

/// OTLP's severity numbers (1-4 TRACE ... 21-24 FATAL) as words: the numbers
/// mean something else to the level reader (bunyan's 10-60).
fn severity_word(n: u64) -> Option<&'static str> {
    Some(match n {
        1..=4 => "TRACE",
        5..=8 => "DEBUG",
        9..=12 => "INFO",
        13..=16 => "WARN",
        17..=20 => "ERROR",
        21..=24 => "FATAL",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_values_and_severities() {
        let v: Value = serde_json::from_str(
            r#"{"kvlistValue":{"values":[{"key":"a","value":{"intValue":"3"}}]}}"#,
        )
        .expect("json");
        assert_eq!(any_value(&v).as_deref(), Some(r#"{"a":"3"}"#));
        assert_eq!(
            any_value(&serde_json::json!({"boolValue": true})).as_deref(),
            Some("true")
        );
        assert_eq!(severity_word(17), Some("ERROR"));
        assert_eq!(severity_word(0), None);
    }

    #[test]
    fn records_take_their_resource_attributes() {
        let lr: Value = serde_json::json!({"timeUnixNano": "0", "observedTimeUnixNano": "1790841486113000000",
            "severityNumber": 13, "body": {"stringValue": "slow"}, "attributes": [{"key": "http.route", "value": {"stringValue": "/runs"}}]});
        let mut base = Map::new();
        attributes_into(
            Some(&serde_json::json!([{"key": "k8s.pod.name", "value": {"stringValue": "api-7f"}}])),
            &mut base,
        );
        let o = flatten(&lr, base);
        assert_eq!(o["k8s.pod.name"], "api-7f");
        assert_eq!(o["http.route"], "/runs");
        assert_eq!(o["severityText"], "WARN");
        assert_eq!(o["body"], "slow");
        assert!(!o.contains_key("timeUnixNano"));
    }
}
