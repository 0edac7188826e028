//! Argo CD application history: `kubectl get application APP -o json` or
//! `argocd app get APP -o json` (an `Application`), or a `List` of them
//! (`kubectl get applications -o json`) -> one infra record per entry of
//! `status.history[]`.
//!
//! The records sit under the application whose name they are about, which
//! a field mapping cannot reach, hence a kind. An entry is `{id,
//! deployedAt, deployStartedAt, revision (or revisions[] for multi-source
//! apps), source.targetRevision, initiatedBy}`. Argo CD writes no rollback
//! marker: `argocd app rollback` syncs an earlier entry's revision again,
//! so an entry whose revision an earlier entry (not the one just before it)
//! deployed is a `Rollback`; every other entry is a `Sync`
//! (`parsers/signals.json` says what each reason means).
//!
//! ```text
//! {"kind":"Application","metadata":{"name":"orders-api"},"status":{"history":[
//!   {"id":7,"deployedAt":"2026-10-01T07:40:12Z","revision":"3f9a1c2...","source":{"targetRevision":"v4.18.3"}}]}}
//!   -> ts 2026-10-01T07:40:12Z, object orders-api, reason Sync, message "v4.18.3 (3f9a1c2)"
//! ```

use serde_json::Value;
use std::borrow::Cow;

use super::{number_text, Extractor, Skip};
use crate::formats::compile::Fields;
use crate::formats::role::Role;

pub struct History;

impl Extractor for History {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        super::json_document_line(line, records)
    }

    fn document<'a>(&mut self, doc: &'a Value) -> Result<Vec<Fields<'a>>, Skip> {
        records(doc)
    }

    fn sniff(&self, head: &str) -> f64 {
        let argo = head.contains("argoproj.io/");
        let app = head.contains("\"Application\"") || head.contains("\"ApplicationList\"");
        if argo && app {
            1.0
        } else {
            0.0
        }
    }
}

fn records(doc: &Value) -> Result<Vec<Fields<'_>>, Skip> {
    let apps: Vec<&Value> = match doc.get("items").and_then(Value::as_array) {
        Some(items) => items.iter().filter(|i| is_application(i)).collect(),
        None if is_application(doc) => vec![doc],
        None => Vec::new(),
    };
    if apps.is_empty() {
        return Err("not an Argo CD Application or a list of them");
    }
    Ok(apps.into_iter().flat_map(history).collect())
}

fn is_application(v: &Value) -> bool {
    v.get("apiVersion")
        .and_then(Value::as_str)
        .is_some_and(|a| a.starts_with("argoproj.io/"))
        && v.get("kind").and_then(Value::as_str) == Some("Application")
}

fn history(app: &Value) -> Vec<Fields<'_>> {
    let name = app.pointer("/metadata/name").and_then(Value::as_str);
    let entries = app
        .pointer("/status/history")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for e in entries {
        let Some(ts) = e.get("deployedAt").and_then(number_text) else {
            continue;
        };
        let revision = e
            .get("revision")
            .and_then(Value::as_str)
            .or_else(|| e.pointer("/revisions/0").and_then(Value::as_str))
            .unwrap_or("");
        let target = e
            .pointer("/source/targetRevision")
            .or_else(|| e.pointer("/sources/0/targetRevision"))
            .and_then(Value::as_str);
        let back =
            !revision.is_empty() && seen.last() != Some(&revision) && seen.contains(&revision);
        seen.push(revision);
        let mut message = match (target, revision.get(..7)) {
            (Some(t), Some(short)) => format!("{t} ({short})"),
            (Some(t), None) => t.to_string(),
            (None, _) => revision.to_string(),
        };
        if let Some(who) = e.pointer("/initiatedBy/username").and_then(Value::as_str) {
            message.push_str(&format!(" by {who}"));
        } else if e.pointer("/initiatedBy/automated").and_then(Value::as_bool) == Some(true) {
            message.push_str(" (automated sync)");
        }
        let mut f = Fields::default();
        f.set(Role::Ts, ts);
        if let Some(started) = e.get("deployStartedAt").and_then(number_text) {
            f.set(Role::FirstTs, started);
        }
        f.set(
            Role::Reason,
            Cow::Borrowed(if back { "Rollback" } else { "Sync" }),
        );
        f.set(Role::Message, Cow::Owned(message));
        if let Some(n) = name {
            f.set(Role::Object, Cow::Borrowed(n));
        }
        if let Some(id) = e.get("id").and_then(number_text) {
            f.set(Role::RequestId, id);
        }
        out.push(f);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_and_rollbacks() {
        let app = r#"{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"orders-api"},
          "status":{"history":[
            {"id":5,"deployedAt":"2026-10-01T07:12:31Z","revision":"aa11bb22cc33dd44","source":{"targetRevision":"v4.18.2"},"initiatedBy":{"automated":true}},
            {"id":6,"deployedAt":"2026-10-01T07:40:12Z","deployStartedAt":"2026-10-01T07:39:58Z","revision":"3f9a1c27d5e0b8a4","source":{"targetRevision":"v4.18.3"},"initiatedBy":{"username":"dana.ops@example.com"}},
            {"id":7,"deployedAt":"2026-10-01T07:52:40Z","revision":"aa11bb22cc33dd44","source":{"targetRevision":"v4.18.2"}}]}}"#;
        let doc: Value = serde_json::from_str(app).expect("json");
        let recs = History.document(&doc).expect("records");
        let reasons: Vec<_> = recs.iter().map(|r| r.get(Role::Reason)).collect();
        assert_eq!(reasons, [Some("Sync"), Some("Sync"), Some("Rollback")]);
        assert_eq!(recs[1].get(Role::Object), Some("orders-api"));
        assert_eq!(recs[1].get(Role::FirstTs), Some("2026-10-01T07:39:58Z"));
        assert_eq!(
            recs[0].get(Role::Message),
            Some("v4.18.2 (aa11bb2) (automated sync)")
        );

        let list = format!(r#"{{"apiVersion":"v1","kind":"List","items":[{app}]}}"#);
        let doc: Value = serde_json::from_str(&list).expect("json");
        assert_eq!(History.document(&doc).expect("records").len(), 3);

        for other in [
            r#"{"kind":"List","items":[]}"#,
            r#"{"kind":"Application"}"#,
            "[]",
        ] {
            assert!(History.line(other).is_err(), "{other}");
        }
    }
}
