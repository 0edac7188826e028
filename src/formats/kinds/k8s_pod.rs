//! Kubernetes pod status, from `kubectl get pod -o yaml` (or `-o json`, or
//! an excerpt of either) -> infra records for containers that were killed
//! and restarted. An OOM kill is a container's termination reason in the
//! pod's status, not an Event, so `kubectl get events` never shows it.
//!
//! Per entry of `containerStatuses` (also init and ephemeral containers):
//! `lastState.terminated` gives a record at `finishedAt` whose reason is the
//! termination reason (`OOMKilled`, `Error`, ...), and a following
//! `state.running.startedAt` gives a `Started` record: the restart. The
//! object is the pod (`metadata.name`), so restarts line up with the pod's
//! log lines.
//!
//! YAML is read line by line, tracking keys by indentation: enough for what
//! kubectl prints (block mappings, `- ` lists, block scalars), not a general
//! YAML parser. Lines that are not YAML are refused.
//!
//! ```text
//! metadata:
//!   name: orders-api-7d9c-x2k4
//! status:
//!   containerStatuses:
//!   - lastState:
//!       terminated:
//!         exitCode: 137
//!         finishedAt: "2026-10-01T07:58:41Z"
//!         reason: OOMKilled       -> OOMKilled at 07:58:41Z, object orders-api-7d9c-x2k4
//!     state:
//!       running:
//!         startedAt: "2026-10-01T07:58:44Z"   -> Started at 07:58:44Z
//! ```

use serde_json::Value;
use std::borrow::Cow;

use super::{Extractor, Skip};
use crate::formats::compile::Fields;
use crate::formats::role::Role;

/// A list item in the key path.
const ITEM: &str = "[]";

/// Keys a pod manifest or an excerpt of its status starts with; other YAML
/// (or `label: value` text) is refused until one is seen.
const ANCHORS: [&str; 10] = [
    "apiVersion",
    "kind",
    "metadata",
    "spec",
    "status",
    "items",
    "containerStatuses",
    "initContainerStatuses",
    "lastState",
    "state",
];

/// One container status being read.
#[derive(Debug, Default)]
struct Container {
    exit_code: Option<String>,
    finished: Option<String>,
    reason: Option<String>,
    terminated: bool,
    restarted: bool,
}

#[derive(Debug, Default)]
pub struct PodStatus {
    /// (indent, key) of the open mappings; `[]` for list items.
    stack: Vec<(usize, String)>,
    /// Inside a block scalar (`|`, `>`) opened at this indent.
    block: Option<usize>,
    pod: Option<String>,
    container: Container,
    /// A `key: value` line was read: comments count as YAML only after one.
    yaml: bool,
}

impl Extractor for PodStatus {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        let text = line.trim_end();
        let t = text.trim_start();
        let indent = text.len() - t.len();
        if let Some(b) = self.block {
            if t.is_empty() || indent > b {
                return Ok(Vec::new());
            }
            self.block = None;
        }
        if t.is_empty() {
            return Ok(Vec::new());
        }
        if t.starts_with('#') {
            return if self.yaml {
                Ok(Vec::new())
            } else {
                Err("not YAML: a comment before any key")
            };
        }
        if t == "---" || t == "..." {
            self.stack.clear();
            return Ok(Vec::new());
        }
        if text[..indent].contains('\t') {
            return Err("not YAML: tab indentation");
        }
        if !self.yaml {
            let anchor = key_value(t).is_some_and(|(k, _)| ANCHORS.contains(&k));
            if !anchor {
                return Err("not Kubernetes YAML: no pod key yet");
            }
        }
        let (indent, t) = match t.strip_prefix('-') {
            Some(rest) if rest.is_empty() || rest.starts_with(' ') => {
                self.item(indent);
                let inner = rest.trim_start();
                if inner.is_empty() {
                    return Ok(Vec::new());
                }
                (indent + 1 + (rest.len() - inner.len()), inner)
            }
            _ => (indent, t),
        };
        let Some((key, value)) = key_value(t) else {
            // A scalar list item (`- --port=8080`) is fine; anything else is not YAML.
            return if self
                .stack
                .last()
                .is_some_and(|(i, k)| k == ITEM && *i < indent)
            {
                Ok(Vec::new())
            } else {
                Err("not a YAML key: value line")
            };
        };
        self.yaml = true;
        while self.stack.last().is_some_and(|(i, _)| *i >= indent) {
            self.stack.pop();
        }
        if value.starts_with('|') || value.starts_with('>') {
            self.block = Some(indent);
        }
        let value = scalar(value);
        let out = self.key(key, value);
        if value.is_none() && !matches!(self.block, Some(b) if b == indent) {
            self.stack.push((indent, key.to_string()));
        }
        Ok(out)
    }

    fn document<'a>(&mut self, doc: &'a Value) -> Result<Vec<Fields<'a>>, Skip> {
        let pods: Vec<&Value> = match doc.get("items").and_then(Value::as_array) {
            Some(items) => items.iter().collect(),
            None => vec![doc],
        };
        let mut out = Vec::new();
        for pod in pods {
            let status = pod.get("status").ok_or("not a pod: no `status`")?;
            let name = pod.pointer("/metadata/name").and_then(Value::as_str);
            for list in [
                "initContainerStatuses",
                "containerStatuses",
                "ephemeralContainerStatuses",
            ] {
                for c in status
                    .get(list)
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    out.extend(container_records(c, name));
                }
            }
        }
        Ok(out)
    }

    fn sniff(&self, head: &str) -> f64 {
        if head.contains("\"containerStatuses\"") || (head.contains("\"kind\": \"Pod\"")) {
            1.0
        } else {
            0.0
        }
    }
}

impl PodStatus {
    /// A `- ` list item at `indent`: siblings and deeper keys close.
    fn item(&mut self, indent: usize) {
        while self
            .stack
            .last()
            .is_some_and(|(i, k)| *i > indent || (*i == indent && k == ITEM))
        {
            self.stack.pop();
        }
        if self
            .stack
            .last()
            .is_some_and(|(_, k)| k.ends_with("ontainerStatuses"))
        {
            self.container = Container::default();
        }
        self.stack.push((indent, ITEM.to_string()));
    }

    /// A key and its inline value, under the current path.
    fn key(&mut self, key: &str, value: Option<&str>) -> Vec<Fields<'static>> {
        let path: Vec<&str> = self
            .stack
            .iter()
            .map(|(_, k)| k.as_str())
            .chain([key])
            .collect();
        let n = path.len();
        let ends = |tail: &[&str]| n >= tail.len() && path[n - tail.len()..] == *tail;
        let Some(v) = value else {
            return Vec::new();
        };
        // The pod's own name: `metadata.name` at the top or in a List's items.
        if ends(&["metadata", "name"]) && (n == 2 || path[n - 3] == ITEM) {
            self.pod = Some(v.to_string());
            self.container = Container::default();
            return Vec::new();
        }
        let c = &mut self.container;
        if n >= 3 && path[n - 3..n - 1] == ["lastState", "terminated"] {
            match key {
                "exitCode" => c.exit_code = Some(v.to_string()),
                "finishedAt" => c.finished = Some(v.to_string()),
                "reason" => c.reason = Some(v.to_string()),
                _ => {}
            }
            if let (false, Some(ts), Some(reason)) = (c.terminated, &c.finished, &c.reason) {
                c.terminated = true;
                let message = format!(
                    "container terminated: {reason} (exit code {})",
                    c.exit_code.as_deref().unwrap_or("?")
                );
                return vec![infra(ts.clone(), reason.clone(), message, self.pod.clone())];
            }
        } else if ends(&["state", "running", "startedAt"]) && c.terminated && !c.restarted {
            c.restarted = true;
            let message = format!(
                "container running again after {}",
                c.reason.as_deref().unwrap_or("a termination")
            );
            return vec![infra(
                v.to_string(),
                "Started".into(),
                message,
                self.pod.clone(),
            )];
        }
        Vec::new()
    }
}

fn infra(ts: String, reason: String, message: String, object: Option<String>) -> Fields<'static> {
    let mut f = Fields::default();
    f.set(Role::Ts, Cow::Owned(ts));
    f.set(Role::Reason, Cow::Owned(reason));
    f.set(Role::Message, Cow::Owned(message));
    if let Some(o) = object {
        f.set(Role::Object, Cow::Owned(o));
    }
    f
}

/// The records of one container status in a JSON pod.
fn container_records(c: &Value, pod: Option<&str>) -> Vec<Fields<'static>> {
    let mut out = Vec::new();
    let Some(t) = c.pointer("/lastState/terminated") else {
        return out;
    };
    let text = |v: Option<&Value>| v.and_then(|v| v.as_str()).map(str::to_string);
    let (Some(ts), Some(reason)) = (text(t.get("finishedAt")), text(t.get("reason"))) else {
        return out;
    };
    let code = t.get("exitCode").map_or("?".to_string(), |v| v.to_string());
    let message = format!("container terminated: {reason} (exit code {code})");
    out.push(infra(ts, reason.clone(), message, pod.map(str::to_string)));
    if let Some(up) = text(c.pointer("/state/running/startedAt")) {
        let message = format!("container running again after {reason}");
        out.push(infra(
            up,
            "Started".into(),
            message,
            pod.map(str::to_string),
        ));
    }
    out
}

/// `key: value` or `key:`; keys are lowerCamelCase or label keys
/// (`app.kubernetes.io/name`), which keeps log lines like `ERROR: ...` out.
fn key_value(t: &str) -> Option<(&str, &str)> {
    let (key, value) = match t.split_once(": ") {
        Some((k, v)) => (k, v.trim()),
        None => (t.strip_suffix(':')?, ""),
    };
    let key = key.trim_matches('"');
    let mut chars = key.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/'));
    ok.then_some((key, value))
}

/// An inline value without quotes; `None` for no value, `null` and `~`.
fn scalar(v: &str) -> Option<&str> {
    let v = v.trim();
    if v.is_empty() || v == "null" || v == "~" {
        return None;
    }
    let unquoted = v
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .or_else(|| v.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')));
    Some(unquoted.unwrap_or(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    const POD: &str = "apiVersion: v1
kind: Pod
metadata:
  name: orders-api-7d9c-x2k4
  ownerReferences:
  - kind: ReplicaSet
    name: orders-api-7d9c
spec:
  containers:
  - args:
    - --port=8080
    command:
    - /bin/sh
    name: app
status:
  containerStatuses:
  - containerID: containerd://4a1b
    lastState:
      terminated:
        containerID: containerd://39f0
        exitCode: 137
        finishedAt: \"2026-10-01T07:58:41Z\"
        reason: OOMKilled
        startedAt: \"2026-10-01T07:41:02Z\"
    name: app
    ready: true
    restartCount: 3
    state:
      running:
        startedAt: \"2026-10-01T07:58:44Z\"
  - containerID: containerd://5c2d
    lastState: {}
    name: sidecar
    state:
      running:
        startedAt: \"2026-10-01T07:00:00Z\"
  message: |
    not: a key
      at all
  phase: Running";

    fn summary(recs: &[Fields<'_>]) -> Vec<String> {
        recs.iter()
            .map(|r| {
                [Role::Ts, Role::Reason, Role::Object]
                    .map(|role| r.get(role).unwrap_or("-"))
                    .join(" ")
            })
            .collect()
    }

    #[test]
    fn a_pod_yaml_gives_its_kill_and_restart() {
        let mut x = PodStatus::default();
        let mut got = Vec::new();
        for l in POD.lines() {
            let recs = x.line(l).unwrap_or_else(|e| panic!("{l}: {e}"));
            got.extend(summary(&recs));
        }
        assert_eq!(
            got,
            vec![
                "2026-10-01T07:58:41Z OOMKilled orders-api-7d9c-x2k4",
                "2026-10-01T07:58:44Z Started orders-api-7d9c-x2k4",
            ]
        );
    }

    #[test]
    fn a_three_space_excerpt_without_a_pod_name() {
        let mut x = PodStatus::default();
        let lines = [
            "lastState:",
            "   terminated:",
            "     exitCode: 137",
            "     finishedAt: 2026-10-01T07:58:41Z",
            "     reason: OOMKilled",
            "     startedAt: null",
        ];
        let mut got = Vec::new();
        for l in lines {
            got.extend(summary(&x.line(l).expect("yaml")));
        }
        assert_eq!(got, vec!["2026-10-01T07:58:41Z OOMKilled -"]);
    }

    #[test]
    fn a_pod_json_document() {
        let doc: Value = serde_json::from_str(
            r#"{"kind":"Pod","metadata":{"name":"web-0"},"status":{"containerStatuses":[{"name":"web","lastState":{"terminated":{"exitCode":137,"finishedAt":"2026-10-01T07:58:41Z","reason":"OOMKilled"}},"state":{"running":{"startedAt":"2026-10-01T07:58:44Z"}}}]}}"#,
        )
        .expect("json");
        let recs = PodStatus::default().document(&doc).expect("records");
        assert_eq!(
            summary(&recs),
            vec![
                "2026-10-01T07:58:41Z OOMKilled web-0",
                "2026-10-01T07:58:44Z Started web-0"
            ]
        );
    }

    #[test]
    fn log_lines_are_not_yaml() {
        let cases = [
            "ERROR: duplicate key value violates unique constraint",
            "2026-10-01 07:58:06 UTC [4242] FATAL:  sorry, too many clients already",
            "level=info msg=hi",
            "Oct 01 07:58:02 host systemd[1]: Started web.",
            "{\"a\": 1}",
            "### a comment first",
            "testLabel: 1",
            "- name: web",
        ];
        for line in cases {
            assert!(PodStatus::default().line(line).is_err(), "{line}");
        }
    }
}
