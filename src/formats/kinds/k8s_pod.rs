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
//! YAML is read whole by a YAML parser (`saphyr`), one document at a time
//! (`---` separates them; a `kind: List` holds pods under `items`): flow
//! mappings, quoted and folded scalars, comments and anchors read as YAML
//! says. The driver hands the input's whole text to [`Extractor::text`], and
//! every line gets an outcome: a record placed on the line of the value that
//! completes it (`reason:` or `finishedAt:`, and `startedAt:`), read without
//! a record, or skipped. A document that stops being YAML (a syntax error, a
//! log line after the pod, an input cut short) is read up to the line above
//! the error, and the rest of it is skipped with the reason. A document whose
//! first key is no pod key (`apiVersion`, `status`, `lastState`, ...) is not
//! this format, nor is JSON on its own lines (read as JSON documents instead).
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

use saphyr::{LoadableYamlNode, MarkedYaml, Scalar, YamlData};
use serde_json::Value;
use std::borrow::Cow;

use super::{Extractor, Lines, Read, Skip};
use crate::formats::compile::Fields;
use crate::formats::role::Role;

/// Keys a pod manifest or an excerpt of its status starts with; a document
/// that starts with another key (or `label: value` text) is not a pod.
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

/// The line where a document stops being YAML.
const SYNTAX: Skip = "not YAML: a syntax error on this line";
/// The line where a pod's document stops being one: a top-level key that
/// no pod has (a log line after the pod: `2026-10-01 07:58:06 ERROR: boom`).
const FOREIGN: Skip = "not Kubernetes YAML: a top-level key no pod has";
/// The lines of a document below where it stops being a pod's YAML.
const BELOW: Skip = "below where its document stops being a pod's YAML";
/// The lines of a document that does not read after several cuts.
const BROKEN: Skip = "not YAML: in a document with a syntax error";
/// A document that is YAML but not a pod's.
const NO_POD: Skip = "not Kubernetes YAML: no pod key";
/// JSON on its own lines is the JSON document reader's.
const JSON: Skip = "not YAML: a JSON document";

/// Readings of one document that stops being YAML: each drops the lines
/// from the error down, so a document cut short (or followed by log lines)
/// still gives what is above the cut.
const ATTEMPTS: usize = 4;

/// The lists of container statuses in a pod's `status`.
const STATUS_LISTS: [&str; 3] = [
    "initContainerStatuses",
    "containerStatuses",
    "ephemeralContainerStatuses",
];

#[derive(Debug, Default)]
pub struct PodStatus {
    /// A pod document was read: a later document with nothing in it (a
    /// trailing `---`, a comment) belongs with it.
    pods_seen: bool,
}

impl Extractor for PodStatus {
    /// A line on its own is a text of its own: the driver hands the whole
    /// input to [`Extractor::text`] instead.
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        self.text(line).pop().unwrap_or(Ok(Vec::new()))
    }

    fn whole_text(&self) -> bool {
        true
    }

    fn text(&mut self, text: &str) -> Lines {
        let lines: Vec<&str> = text.split('\n').collect();
        let mut out = Lines::with_capacity(lines.len());
        let mut start = 0;
        for end in document_ends(&lines) {
            // The ends rise from 1 to `lines.len()`.
            if let Some(doc) = lines.get(start..end) {
                out.extend(self.read_document(doc));
            }
            start = end;
        }
        out
    }

    fn document<'a>(&mut self, doc: &'a Value) -> Result<Vec<Fields<'a>>, Skip> {
        let mut out = Vec::new();
        for pod in pods(doc) {
            let status = pod.get("status").ok_or("not a pod: no `status`")?;
            let name = pod.pointer("/metadata/name").and_then(Node::text);
            for c in container_statuses(status) {
                out.extend(
                    container_records(c, name.as_deref())
                        .into_iter()
                        .map(|(_, f)| f),
                );
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
    /// The outcome of each line of one document (its lines from `---` on).
    fn read_document(&mut self, lines: &[&str]) -> Lines {
        let mut out: Lines = vec![Ok(Vec::new()); lines.len()];
        let first = lines
            .iter()
            .map(|l| l.trim_start())
            .find(|l| !l.is_empty() && !l.starts_with('#') && !is_marker(l));
        if first.is_some_and(|l| l.starts_with('{') || l.starts_with('[')) {
            refuse(&mut out, lines, JSON);
            return out;
        }
        // Lines `..end` are read; from `end` down they were refused. `out`
        // has a slot per line and `end` only falls, so the `get`s hold.
        let mut end = lines.len();
        for _ in 0..ATTEMPTS {
            let kept = lines.get(..end).unwrap_or_default();
            let (cut, reason) = match MarkedYaml::load_from_str(&kept.join("\n")) {
                Ok(docs) => match docs.iter().find_map(foreign_key) {
                    Some(line) => (line, FOREIGN),
                    None => {
                        self.read_nodes(&docs, kept, out.get_mut(..end).unwrap_or_default());
                        return out;
                    }
                },
                Err(e) => (e.marker().line(), SYNTAX),
            };
            let at = cut.saturating_sub(1).min(end.saturating_sub(1));
            // Only the topmost cut is the reason: what is below it follows.
            let below = lines.get(at..).unwrap_or_default();
            refuse(out.get_mut(at..).unwrap_or_default(), below, BELOW);
            refuse(out.get_mut(at..=at).unwrap_or_default(), below, reason);
            end = at;
            if end == 0 {
                return out;
            }
        }
        refuse(
            out.get_mut(..end).unwrap_or_default(),
            lines.get(..end).unwrap_or_default(),
            BROKEN,
        );
        out
    }

    /// The records of the nodes one document's lines hold, each on the line
    /// of the value that completes it.
    fn read_nodes(&mut self, docs: &[MarkedYaml<'_>], lines: &[&str], out: &mut [Read]) {
        if docs.iter().all(|d| d.data.is_null()) && self.pods_seen {
            return;
        }
        if !docs.iter().any(is_pod_document) {
            refuse(out, lines, NO_POD);
            return;
        }
        self.pods_seen = true;
        for doc in docs.iter().filter(|d| is_pod_document(d)) {
            for pod in pods(doc) {
                // An excerpt may start anywhere down from the pod.
                let status = pod.get("status").unwrap_or(pod);
                let name = pod
                    .get("metadata")
                    .and_then(|m| m.get("name"))
                    .and_then(Node::text);
                for c in container_statuses(status) {
                    for (line, f) in container_records(c, name.as_deref()) {
                        let at = usize::try_from(line.saturating_sub(1)).unwrap_or(usize::MAX);
                        let last = out.len().saturating_sub(1);
                        if let Some(Ok(recs)) = out.get_mut(at.min(last)) {
                            recs.push(f);
                        }
                    }
                }
            }
        }
    }
}

/// Each line of `lines` but the blank ones (read, as YAML reads them) is
/// skipped for `reason`.
fn refuse(out: &mut [Read], lines: &[&str], reason: Skip) {
    for (o, l) in out.iter_mut().zip(lines) {
        if !l.trim().is_empty() {
            *o = Err(reason);
        }
    }
}

/// Where each document of the text ends (exclusive): before a `---` line,
/// after a `...` line, and at the end. A marker at column 0 ends a document
/// wherever it stands (YAML forbids one inside a scalar), so a document that
/// does not parse costs only its own lines.
fn document_ends(lines: &[&str]) -> Vec<usize> {
    let mut ends = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 && starts_marker(l, "---") && ends.last() != Some(&i) {
            ends.push(i);
        }
        if starts_marker(l, "...") {
            ends.push(i + 1);
        }
    }
    if ends.last() != Some(&lines.len()) {
        ends.push(lines.len());
    }
    ends
}

/// `---` or `...` alone, or followed by a space (`--- # pod 2`).
fn starts_marker(line: &str, marker: &str) -> bool {
    line.strip_prefix(marker)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r']))
}

/// A document marker after its indentation was taken off.
fn is_marker(trimmed: &str) -> bool {
    starts_marker(trimmed, "---") || starts_marker(trimmed, "...")
}

/// A mapping whose first key is a pod key: `key: value` log text is not a pod.
fn is_pod_document(doc: &MarkedYaml<'_>) -> bool {
    doc.data
        .as_mapping()
        .and_then(|map| map.keys().next())
        .and_then(|k| k.data.as_str())
        .is_some_and(|k| ANCHORS.contains(&k))
}

/// In a pod's document, the line of the first top-level key that is no
/// Kubernetes key (lowerCamelCase): where the pod's YAML ends and text
/// that YAML also reads as a key (a log line) begins.
fn foreign_key(doc: &MarkedYaml<'_>) -> Option<usize> {
    if !is_pod_document(doc) {
        return None;
    }
    let map = doc.data.as_mapping()?;
    map.keys()
        .find(|k| !k.data.as_str().is_some_and(is_kube_key))
        .map(|k| k.span.start.line())
}

/// lowerCamelCase or a label key (`app.kubernetes.io/name`), which keeps
/// log text like `ERROR: ...` out.
fn is_kube_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/'))
}

/// What the records need of a document: a JSON value (`-o json`) or a
/// YAML node with its place.
trait Node: Sized {
    fn get(&self, key: &str) -> Option<&Self>;
    fn items(&self) -> &[Self];
    /// A string or a number; `None` for null and collections.
    fn text(&self) -> Option<Cow<'_, str>>;
    /// The 1-based line the node starts on (0: not known, a JSON document
    /// is placed whole).
    fn line(&self) -> u64;
}

impl Node for Value {
    fn get(&self, key: &str) -> Option<&Value> {
        Value::get(self, key)
    }

    fn items(&self) -> &[Value] {
        self.as_array().map_or(&[], Vec::as_slice)
    }

    fn text(&self) -> Option<Cow<'_, str>> {
        super::number_text(self)
    }

    fn line(&self) -> u64 {
        0
    }
}

impl<'y> Node for MarkedYaml<'y> {
    fn get(&self, key: &str) -> Option<&MarkedYaml<'y>> {
        match &self.data {
            YamlData::Tagged(_, inner) => inner.get(key),
            data => data.as_mapping_get(key),
        }
    }

    fn items(&self) -> &[MarkedYaml<'y>] {
        match &self.data {
            YamlData::Tagged(_, inner) => inner.items(),
            data => data.as_vec().map_or(&[], Vec::as_slice),
        }
    }

    fn text(&self) -> Option<Cow<'_, str>> {
        match &self.data {
            YamlData::Tagged(_, inner) => inner.text(),
            YamlData::Value(Scalar::String(s)) => Some(Cow::Borrowed(s.as_ref())),
            YamlData::Value(Scalar::Integer(i)) => Some(Cow::Owned(i.to_string())),
            YamlData::Value(Scalar::FloatingPoint(f)) => Some(Cow::Owned(f.to_string())),
            YamlData::Value(Scalar::Boolean(b)) => Some(Cow::Owned(b.to_string())),
            YamlData::Representation(s, _, _) => Some(Cow::Borrowed(s.as_ref())),
            _ => None,
        }
    }

    fn line(&self) -> u64 {
        self.span.start.line() as u64
    }
}

/// The pods of a document: a List's `items`, or the document itself.
fn pods<N: Node>(doc: &N) -> Vec<&N> {
    match doc.get("items") {
        Some(items) => items.items().iter().collect(),
        None => vec![doc],
    }
}

/// The container statuses under a pod's `status` (or an excerpt of one:
/// a lone container status is its own).
fn container_statuses<N: Node>(status: &N) -> Vec<&N> {
    if status.get("lastState").is_some() {
        return vec![status];
    }
    STATUS_LISTS
        .iter()
        .filter_map(|list| status.get(list))
        .flat_map(N::items)
        .collect()
}

/// The records of one container status, each with the line of the value
/// that completes it: the later of `finishedAt` and `reason`, and
/// `startedAt` for the restart.
fn container_records<N: Node>(c: &N, pod: Option<&str>) -> Vec<(u64, Fields<'static>)> {
    let mut out = Vec::new();
    let Some(t) = c.get("lastState").and_then(|s| s.get("terminated")) else {
        return out;
    };
    let (Some(finished), Some(reason_node)) = (t.get("finishedAt"), t.get("reason")) else {
        return out;
    };
    let (Some(ts), Some(reason)) = (finished.text(), reason_node.text()) else {
        return out;
    };
    let code = t.get("exitCode").and_then(N::text);
    let message = format!(
        "container terminated: {reason} (exit code {})",
        code.as_deref().unwrap_or("?")
    );
    let line = finished.line().max(reason_node.line());
    out.push((line, infra(&ts, &reason, message, pod)));
    let started = c
        .get("state")
        .and_then(|s| s.get("running"))
        .and_then(|r| r.get("startedAt"));
    if let Some((up, at)) = started.and_then(|s| Some((s.text()?, s.line()))) {
        let message = format!("container running again after {reason}");
        out.push((at, infra(&up, "Started", message, pod)));
    }
    out
}

fn infra(ts: &str, reason: &str, message: String, object: Option<&str>) -> Fields<'static> {
    let mut f = Fields::default();
    f.set(Role::Ts, Cow::Owned(ts.to_string()));
    f.set(Role::Reason, Cow::Owned(reason.to_string()));
    f.set(Role::Message, Cow::Owned(message));
    if let Some(o) = object {
        f.set(Role::Object, Cow::Owned(o.to_string()));
    }
    f
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

    /// Each line's records as `line: ts reason object`, and each skipped
    /// line as `line! reason`.
    fn read(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let lines = PodStatus::default().text(text);
        assert_eq!(
            lines.len(),
            text.split('\n').count(),
            "one outcome per line"
        );
        for (i, l) in lines.iter().enumerate() {
            match l {
                Ok(recs) => out.extend(summary(recs).iter().map(|s| format!("{}: {s}", i + 1))),
                Err(reason) => out.push(format!("{}! {reason}", i + 1)),
            }
        }
        out
    }

    #[test]
    fn a_pod_yaml_gives_its_kill_and_restart() {
        assert_eq!(
            read(POD),
            vec![
                "23: 2026-10-01T07:58:41Z OOMKilled orders-api-7d9c-x2k4",
                "30: 2026-10-01T07:58:44Z Started orders-api-7d9c-x2k4",
            ]
        );
    }

    #[test]
    fn a_three_space_excerpt_without_a_pod_name() {
        let text = "lastState:
   terminated:
     exitCode: 137
     finishedAt: 2026-10-01T07:58:41Z
     reason: OOMKilled
     startedAt: null";
        assert_eq!(read(text), vec!["5: 2026-10-01T07:58:41Z OOMKilled -"]);
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
            "{\"kind\": \"Pod\", \"status\": {}}",
            "### a comment first",
            "testLabel: 1",
            "- name: web",
        ];
        for line in cases {
            assert!(PodStatus::default().line(line).is_err(), "{line}");
        }
    }

    /// A container status of `kubectl get pod -o yaml`, indented under `items`.
    fn killed(name: &str, finished: &str, started: &str) -> String {
        format!(
            "  metadata:
    name: {name}
  status:
    containerStatuses:
    - lastState:
        terminated:
          exitCode: 137
          finishedAt: \"{finished}\"
          reason: OOMKilled
      name: app
      state:
        running:
          startedAt: \"{started}\""
        )
    }

    #[test]
    fn a_list_of_two_pods() {
        let text = format!(
            "apiVersion: v1
items:
- apiVersion: v1
  kind: Pod
{}
- apiVersion: v1
  kind: Pod
{}
kind: List
metadata:
  resourceVersion: \"\"",
            killed("web-0", "2026-10-01T07:58:41Z", "2026-10-01T07:58:44Z"),
            killed("web-1", "2026-10-01T07:59:10Z", "2026-10-01T07:59:13Z"),
        );
        assert_eq!(
            read(&text),
            vec![
                "13: 2026-10-01T07:58:41Z OOMKilled web-0",
                "17: 2026-10-01T07:58:44Z Started web-0",
                "28: 2026-10-01T07:59:10Z OOMKilled web-1",
                "32: 2026-10-01T07:59:13Z Started web-1",
            ]
        );
    }

    #[test]
    fn two_documents_separated_by_dashes() {
        let pod = |name, at| {
            format!(
                "kind: Pod
metadata:
  name: {name}
status:
  containerStatuses:
  - lastState:
      terminated:
        reason: Error
        finishedAt: {at}"
            )
        };
        let text = format!(
            "# two pods\n---\n{}\n---  # the second\n{}\n...\n",
            pod("a-0", "2026-10-01T07:58:41Z"),
            pod("b-0", "2026-10-01T08:00:00Z")
        );
        assert_eq!(
            read(&text),
            vec![
                // A comment before any document is no pod's.
                "1! not Kubernetes YAML: no pod key",
                "11: 2026-10-01T07:58:41Z Error a-0",
                "21: 2026-10-01T08:00:00Z Error b-0",
            ]
        );
    }

    /// What the line tracker could not read: flow mappings, keys in quotes,
    /// a folded scalar that looks like keys, and a value on the line below
    /// its key.
    #[test]
    fn flow_style_and_quoted_scalars() {
        let text = r#"metadata: {name: 'api-0', labels: {app: api}}
status:
  "containerStatuses":
  - {name: app, lastState: {terminated: {exitCode: 137, reason: "OOMKilled", finishedAt: '2026-10-01T07:58:41Z'}},
     state: {running: {startedAt: "2026-10-01T07:58:44Z"}}}
  - name: sidecar
    lastState:
      terminated:
        message: 'reason: not this one,
          finishedAt: nor this'
        exitCode: 1
        "reason": Error
        finishedAt:
          "2026-10-01T07:58:50Z""#;
        assert_eq!(
            read(text),
            vec![
                "4: 2026-10-01T07:58:41Z OOMKilled api-0",
                "5: 2026-10-01T07:58:44Z Started api-0",
                "14: 2026-10-01T07:58:50Z Error api-0",
            ]
        );
    }

    /// A document that stops being YAML is read down to the line above the
    /// error; the rest of it is skipped, and the next document is read.
    #[test]
    fn a_malformed_document() {
        let text = format!(
            "{}\n  badIndent: [1, 2\n  phase: Running\n---\n{}",
            POD.replace("  phase: Running", ""),
            "lastState:\n  terminated: {reason: Error, finishedAt: 2026-10-01T08:00:00Z}"
        );
        assert_eq!(
            read(&text),
            [
                "23: 2026-10-01T07:58:41Z OOMKilled orders-api-7d9c-x2k4".to_string(),
                "30: 2026-10-01T07:58:44Z Started orders-api-7d9c-x2k4".to_string(),
                format!("41! {SYNTAX}"),
                format!("42! {BELOW}"),
                "45: 2026-10-01T08:00:00Z Error -".to_string(),
            ]
        );

        // Log lines after a pod, and an input cut inside a quoted scalar.
        let tail = "\n2026-10-01 07:58:06 ERROR: boom\n  message: \"cut";
        assert_eq!(
            read(&format!("{POD}{tail}"))[2..],
            [format!("41! {FOREIGN}"), format!("42! {BELOW}")]
        );
    }
}
