//! Amazon ECS service events: `aws ecs describe-services` output (one
//! response per line, or pretty-printed), `services[].events[]` as `jq`
//! prints them (an array, or one event per line) -> one infra record per
//! event.
//!
//! An event is `{id, createdAt, message}`; `createdAt` is epoch seconds (CLI
//! v1) or RFC 3339 (CLI v2). The object is the service (`serviceName`, else
//! the `(service NAME)` that starts every message). ECS events have no
//! reason field, so the documented message shapes are turned into one here
//! (`has stopped 2 running tasks` -> `TaskStopped`), and
//! `parsers/signals.json` `infra_reasons` says what each means.
//!
//! ```text
//! {"services":[{"serviceName":"orders-api","events":[{"id":"e1","createdAt":1790841480.2,
//!   "message":"(service orders-api) has stopped 2 running tasks: (task 5f1c...) (task 9b0a...)."}]}]}
//!   -> ts 1790841480.2, object orders-api, reason TaskStopped
//! ```

use serde_json::Value;
use std::borrow::Cow;

use super::{number_text, Extractor, Skip};
use crate::formats::compile::Fields;
use crate::formats::role::Role;

/// Message text -> reason, first match wins (documented ECS service event
/// messages; `deregistered` before `registered`).
const REASONS: [(&str, &str); 13] = [
    ("has reached a steady state", "SteadyState"),
    ("has stopped", "TaskStopped"),
    ("has started", "TaskStarted"),
    ("is unable to consistently start tasks", "TaskFailedToStart"),
    ("failed container health checks", "Unhealthy"),
    ("is unhealthy in", "Unhealthy"),
    ("failed elb health checks", "Unhealthy"),
    ("was unable to place a task", "UnableToPlaceTask"),
    ("rolling back", "Rollback"),
    ("deployment failed", "DeploymentFailed"),
    ("deployment completed", "DeploymentCompleted"),
    ("has begun draining connections", "Draining"),
    ("deregistered", "TargetsDeregistered"),
];

pub struct Events;

impl Extractor for Events {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        super::json_document_line(line, records)
    }

    fn document<'a>(&mut self, doc: &'a Value) -> Result<Vec<Fields<'a>>, Skip> {
        records(doc)
    }

    fn sniff(&self, head: &str) -> f64 {
        let service = head.contains("\"serviceName\"") && head.contains("\"serviceArn\"");
        let events = head.contains("\"createdAt\"") && head.contains("\"(service ");
        if service || events {
            1.0
        } else {
            0.0
        }
    }
}

fn records(doc: &Value) -> Result<Vec<Fields<'_>>, Skip> {
    let services: Vec<&Value> = match (doc.get("services"), doc.get("service")) {
        (Some(Value::Array(s)), _) => s.iter().collect(),
        (_, Some(s @ Value::Object(_))) => vec![s],
        _ => Vec::new(),
    };
    if !services.is_empty() || doc.get("services").is_some() {
        let mut out = Vec::new();
        for s in services {
            let name = s.get("serviceName").and_then(Value::as_str);
            if let Some(events) = s.get("events").and_then(Value::as_array) {
                out.extend(events.iter().filter_map(|e| event(e, name)));
            }
        }
        return Ok(out);
    }
    let events: Vec<&Value> = match doc {
        Value::Array(a) => a.iter().collect(),
        v => vec![v],
    };
    if events.is_empty() || !events.iter().all(|e| is_event(e)) {
        return Err("not ECS describe-services output or service events");
    }
    Ok(events.into_iter().filter_map(|e| event(e, None)).collect())
}

/// A bare event: `id`, `createdAt` and a `(service ...)` message.
fn is_event(e: &Value) -> bool {
    e.get("id").is_some()
        && e.get("createdAt").is_some()
        && e.get("message")
            .and_then(Value::as_str)
            .is_some_and(|m| m.starts_with("(service "))
}

fn event<'a>(e: &'a Value, service: Option<&'a str>) -> Option<Fields<'a>> {
    let ts = e.get("createdAt").and_then(number_text)?;
    let message = e.get("message").and_then(Value::as_str)?;
    let object = service.or_else(|| service_in(message));
    let mut f = Fields::default();
    f.set(Role::Ts, ts);
    f.set(Role::Message, Cow::Borrowed(message));
    f.set(Role::Reason, Cow::Borrowed(reason(message)));
    if let Some(o) = object {
        f.set(Role::Object, Cow::Borrowed(o));
    }
    if let Some(id) = e.get("id").and_then(Value::as_str) {
        f.set(Role::RequestId, Cow::Borrowed(id));
    }
    Some(f)
}

/// `(service orders-api) has ...` -> `orders-api`.
fn service_in(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("(service ")?;
    rest.split_once(')').map(|(name, _)| name)
}

fn reason(message: &str) -> &'static str {
    let m = message.to_ascii_lowercase();
    if let Some((_, r)) = REASONS.iter().find(|(needle, _)| m.contains(needle)) {
        return r;
    }
    if m.contains("registered") {
        "TargetsRegistered"
    } else {
        "ServiceEvent"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_of_messages() {
        let cases = [
            ("(service orders-api) has reached a steady state.", "SteadyState"),
            (
                "(service orders-api) has stopped 2 running tasks: (task 5f1c0a) (task 9b0a11).",
                "TaskStopped",
            ),
            ("(service orders-api) has started 2 tasks: (task 77ac02).", "TaskStarted"),
            (
                "(service orders-api) (instance i-0ab12) (port 8080) is unhealthy in (target-group arn:aws:...) due to (reason Health checks failed).",
                "Unhealthy",
            ),
            (
                "(service orders-api) deregistered 1 targets in (target-group arn:aws:...)",
                "TargetsDeregistered",
            ),
            ("(service orders-api) registered 1 targets in (target-group arn:aws:...)", "TargetsRegistered"),
            (
                "(service orders-api) (deployment ecs-svc/123) deployment completed.",
                "DeploymentCompleted",
            ),
            ("(service orders-api) something new.", "ServiceEvent"),
        ];
        for (message, want) in cases {
            assert_eq!(reason(message), want, "{message}");
        }
    }

    #[test]
    fn shapes() {
        let describe = r#"{"services":[{"serviceName":"orders-api","serviceArn":"arn:aws:ecs:eu-west-1:111122223333:service/prod/orders-api","events":[{"id":"e2","createdAt":1790841540.8,"message":"(service orders-api) has started 2 tasks: (task 77ac02) (task 81bd13)."},{"id":"e1","createdAt":1790841480.2,"message":"(service orders-api) has stopped 2 running tasks: (task 5f1c0a) (task 9b0a11)."}]}],"failures":[]}"#;
        let recs = Events.line(describe).expect("records");
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[1].get(Role::Ts), Some("1790841480.2"));
        assert_eq!(recs[1].get(Role::Object), Some("orders-api"));
        assert_eq!(recs[1].get(Role::Reason), Some("TaskStopped"));

        let bare = r#"{"id":"e3","createdAt":"2026-10-01T07:58:00.200000+00:00","message":"(service billing) has reached a steady state."}"#;
        let recs = Events.line(bare).expect("records");
        assert_eq!(recs[0].get(Role::Object), Some("billing"));

        let cases = [
            r#"{"id":"x","createdAt":1,"message":"hello"}"#,
            r#"{"items":[]}"#,
            "[]",
        ];
        for c in cases {
            assert!(Events.line(c).is_err(), "{c}");
        }
    }
}
