//! Kubernetes events as `kubectl get events -o json` prints them (a `List`), or one object per
//! line (`kubectl ... -o json | jq -c '.items[]'`, or an event exporter writing as they come).
//!
//! Followed field by field: corpus `k8s_events.jsonl` L1-L3 (kubelet's `Unhealthy`/`Killing`
//! with `involvedObject`, `source.component/host`, `firstTimestamp`, `lastTimestamp`, `count`,
//! `reportingComponent`), `k8s_event_watch.jsonl` L1 (`ScalingReplicaSet` on a Deployment from
//! the deployment-controller) and the core/v1 Event type: kubectl prints through unstructured
//! maps, so keys come out sorted, four-space indented; event names are `<object>.<hex of the
//! first time in ns>`, and the List is in name order. The scheduler's events come through the
//! events/v1 API: `eventTime` set, `firstTimestamp`/`lastTimestamp` null, no `count`.

use crate::gen::emit::ctx::{Clock, Ctx, Scheme};
use crate::gen::emit::json::{self, J};
use crate::gen::emit::plan::{lines, OutFile, SourcePlan};
use crate::gen::facts::{InfraEvent, InfraKind, Ms};
use crate::gen::rng::Rng;
use crate::gen::time::{self, OffsetStyle};

struct Kind {
    reason: &'static str,
    warning: bool,
    component: &'static str,
}

fn kind(k: InfraKind) -> Option<Kind> {
    use InfraKind::*;
    let (reason, warning, component) = match k {
        LivenessFailed | ReadinessFailed => ("Unhealthy", true, "kubelet"),
        Killing => ("Killing", false, "kubelet"),
        OomKilled => ("OOMKilling", true, "kernel-monitor"),
        BackOff => ("BackOff", true, "kubelet"),
        Scheduled => ("Scheduled", false, "default-scheduler"),
        Pulling => ("Pulling", false, "kubelet"),
        Pulled => ("Pulled", false, "kubelet"),
        Created => ("Created", false, "kubelet"),
        Started => ("Started", false, "kubelet"),
        ScalingReplicaSet => ("ScalingReplicaSet", false, "deployment-controller"),
        Autoscaled => ("SuccessfulRescale", false, "horizontal-pod-autoscaler"),
        // Load balancer target health is not a Kubernetes event.
        TargetUnhealthy | TargetHealthy => return None,
    };
    Some(Kind {
        reason,
        warning,
        component,
    })
}

fn default_message(ctx: &Ctx, e: &InfraEvent) -> String {
    let c = ctx.container();
    match e.kind {
        InfraKind::Killing => format!("Stopping container {c}"),
        InfraKind::Created => format!("Created container {c}"),
        InfraKind::Started => format!("Started container {c}"),
        InfraKind::BackOff => format!(
            "Back-off restarting failed container {c} in pod {}",
            e.instance
                .map(|i| ctx.name(i, Scheme::Pod))
                .unwrap_or_default()
        ),
        InfraKind::ScalingReplicaSet => format!(
            "Scaled {} replica set {} to {}",
            if e.to_replicas >= e.from_replicas {
                "up"
            } else {
                "down"
            },
            e.replica_set.as_deref().unwrap_or(&ctx.w.deployment),
            e.to_replicas.unwrap_or(0)
        ),
        _ => String::new(),
    }
}

fn ts(t: Ms) -> J {
    J::s(time::rfc3339(t, 0, 0, OffsetStyle::ZOrColon))
}

pub fn write(
    ctx: &Ctx,
    one_per_line: bool,
    clock: &Clock,
    rng: &mut Rng,
    plan: &mut SourcePlan,
) -> Vec<OutFile> {
    let reporting = rng.chance(0.6);
    let by_time = one_per_line && rng.chance(0.5);
    plan.stamps = "firstTimestamp/lastTimestamp (seconds)".into();
    plan.detail(
        "reporting_fields",
        if reporting {
            "set (newer clusters)"
        } else {
            "empty (older clusters)"
        },
    );
    if one_per_line {
        plan.detail(
            "order",
            if by_time {
                "as they came (event exporter)"
            } else {
                "List order (jq -c .items[])"
            },
        );
    }
    let mut rv = rng.range(100_000, 900_000);
    let mut skipped = 0;
    let mut items: Vec<(String, Ms, J)> = vec![];
    for e in &ctx.w.events {
        let Some(k) = kind(e.kind) else {
            skipped += 1;
            continue;
        };
        rv += rng.range(1, 40);
        let (first, last) = (clock.at(e.first_ts), clock.at(e.ts));
        let node = e
            .instance
            .map(|i| ctx.name(i, Scheme::Host))
            .unwrap_or_else(|| format!("ip-10-0-1-{}.ec2.internal", 20 + rv % 40));
        let obj = match (e.kind, e.instance) {
            (InfraKind::ScalingReplicaSet, _) => J::obj(vec![
                ("apiVersion", J::s("apps/v1")),
                ("kind", J::s("Deployment")),
                ("name", J::s(&ctx.w.deployment)),
                ("namespace", J::s(&ctx.w.namespace)),
                ("resourceVersion", J::s((rv - 7).to_string())),
                ("uid", J::s(rng.uuid())),
            ]),
            (InfraKind::Autoscaled, _) => J::obj(vec![
                ("apiVersion", J::s("autoscaling/v2")),
                ("kind", J::s("HorizontalPodAutoscaler")),
                ("name", J::s(&ctx.w.deployment)),
                ("namespace", J::s(&ctx.w.namespace)),
                ("resourceVersion", J::s((rv - 3).to_string())),
                ("uid", J::s(rng.uuid())),
            ]),
            (InfraKind::OomKilled, _) => J::obj(vec![
                ("kind", J::s("Node")),
                ("name", J::s(&node)),
                ("uid", J::s(&node)),
            ]),
            (_, Some(i)) => J::obj(vec![
                ("apiVersion", J::s("v1")),
                (
                    "fieldPath",
                    J::s(format!("spec.containers{{{}}}", ctx.container())),
                ),
                ("kind", J::s("Pod")),
                ("name", J::s(ctx.name(i, Scheme::Pod))),
                ("namespace", J::s(&ctx.w.namespace)),
                ("resourceVersion", J::s((rv - 11).to_string())),
                ("uid", J::s(&ctx.ids[i].pod_uid)),
            ]),
            (_, None) => {
                skipped += 1;
                continue;
            }
        };
        let obj_name = match &obj {
            J::Obj(kv) => kv
                .iter()
                .find(|(k, _)| k == "name")
                .and_then(|(_, v)| {
                    if let J::Str(s) = v {
                        Some(s.clone())
                    } else {
                        None
                    }
                })
                .unwrap_or_default(),
            _ => String::new(),
        };
        let name = format!("{obj_name}.{:x}", first * 1_000_000 + rng.range(0, 999_999));
        let msg = if e.message.is_empty() {
            default_message(ctx, e)
        } else {
            e.message.clone()
        };
        let scheduler = e.kind == InfraKind::Scheduled;
        let mut fields: Vec<(&str, J)> = vec![
            ("apiVersion", J::s("v1")),
            ("involvedObject", obj),
            ("kind", J::s("Event")),
            ("message", J::s(msg)),
            (
                "metadata",
                J::obj(vec![
                    ("creationTimestamp", ts(first)),
                    ("name", J::s(&name)),
                    ("namespace", J::s(&ctx.w.namespace)),
                    ("resourceVersion", J::s(rv.to_string())),
                    ("uid", J::s(rng.uuid())),
                ]),
            ),
            ("reason", J::s(k.reason)),
            ("type", J::s(if k.warning { "Warning" } else { "Normal" })),
        ];
        if scheduler {
            fields.push(("action", J::s("Binding")));
            fields.push((
                "eventTime",
                J::s(time::rfc3339(first, 0, 6, OffsetStyle::ZOrColon)),
            ));
            fields.push(("firstTimestamp", J::Null));
            fields.push(("lastTimestamp", J::Null));
            fields.push(("reportingComponent", J::s("default-scheduler")));
            fields.push((
                "reportingInstance",
                J::s(format!("default-scheduler-{node}")),
            ));
            fields.push(("source", J::Obj(vec![])));
        } else {
            fields.push(("count", J::n(e.count.max(1))));
            fields.push(("eventTime", J::Null));
            fields.push(("firstTimestamp", ts(first)));
            fields.push(("lastTimestamp", ts(last)));
            let host =
                (k.component == "kubelet" || k.component == "kernel-monitor").then(|| node.clone());
            fields.push((
                "reportingComponent",
                J::s(if reporting { k.component } else { "" }),
            ));
            fields.push((
                "reportingInstance",
                J::s(if reporting {
                    host.clone().unwrap_or_default()
                } else {
                    String::new()
                }),
            ));
            let mut src = vec![("component", J::s(k.component))];
            if let Some(h) = host {
                src.push(("host", J::s(h)));
            }
            fields.push(("source", J::obj(src)));
        }
        items.push((name, first, J::obj(fields).sorted()));
    }
    if by_time {
        items.sort_by_key(|(_, t, _)| *t);
    } else {
        items.sort_by(|a, b| a.0.cmp(&b.0));
    }
    plan.detail("world_events_not_in_kubernetes", skipped);
    let n = items.len();
    if one_per_line {
        let out: Vec<String> = items
            .iter()
            .map(|(_, _, j)| json::to_string(j, &json::GO))
            .collect();
        vec![OutFile::new(
            "k8s-events.jsonl",
            "k8s-events-lines",
            "events",
            lines(&out),
            n,
        )]
    } else {
        let doc = J::obj(vec![
            ("apiVersion", J::s("v1")),
            (
                "items",
                J::Arr(items.into_iter().map(|(_, _, j)| j).collect()),
            ),
            ("kind", J::s("List")),
            ("metadata", J::obj(vec![("resourceVersion", J::s(""))])),
        ]);
        vec![OutFile::new(
            "k8s-events.json",
            "k8s-events-list",
            "events",
            json::to_string(&doc, &json::KUBECTL) + "\n",
            n,
        )]
    }
}
