//! ECS service events as `aws ecs describe-services` prints them.
//!
//! Followed field by field: corpus `ecs_describe_services.jsonl` L1 (`services[].events[]` with
//! `id`, `createdAt`, `message`; the service's other fields) and the message wording of
//! `ecs_service_events.txt` (`(service NAME) has started N tasks: (task ID).`, `has stopped`,
//! `is unhealthy in (target-group ...) due to (reason ...)`, `has reached a steady state.`,
//! `is unable to consistently start tasks successfully.`). Events are newest first and ECS
//! keeps only the latest 100. aws-cli v1 prints `createdAt` as epoch seconds, v2 as ISO 8601 in
//! the user's zone.

use crate::gen::emit::ctx::{Clock, Ctx, Scheme};
use crate::gen::emit::json::{self, py_float, J};
use crate::gen::emit::plan::{OutFile, SourcePlan};
use crate::gen::facts::{ChangeKind, InfraKind, Ms};
use crate::gen::rng::Rng;
use crate::gen::time::{self, OffsetStyle};

/// The `details` key of the oldest event the 100-event limit kept, where it
/// dropped any.
pub const KEPT_FROM: &str = "kept_from";

pub fn write(ctx: &Ctx, clock: &Clock, rng: &mut Rng, plan: &mut SourcePlan) -> Vec<OutFile> {
    let svc = &ctx.w.service;
    let cli_v2 = rng.chance(0.6);
    let tg = format!(
        "arn:aws:elasticloadbalancing:{}:{}:targetgroup/{svc}-tg/{}",
        ctx.region,
        ctx.account,
        rng.hex(16)
    );
    let deployment_id = format!(
        "ecs-svc/{}",
        rng.range(1_000_000_000_000_000_000, 9_000_000_000_000_000_000)
    );
    plan.stamps = "createdAt".into();
    plan.detail(
        "aws_cli",
        if cli_v2 {
            "v2 (ISO 8601 in the user's zone)"
        } else {
            "v1 (epoch seconds)"
        },
    );
    let task = |i: Option<usize>| i.map(|i| ctx.name(i, Scheme::TaskId)).unwrap_or_default();
    let mut ev: Vec<(Ms, String)> = vec![(
        ctx.w.start - rng.range(600_000, 6 * 3_600_000),
        format!("(service {svc}) has reached a steady state."),
    )];
    for e in &ctx.w.events {
        let msg = match e.kind {
            InfraKind::Started => format!("(service {svc}) has started 1 tasks: (task {}).", task(e.instance)),
            InfraKind::Killing | InfraKind::OomKilled => format!("(service {svc}) has stopped 1 running tasks: (task {}).", task(e.instance)),
            InfraKind::LivenessFailed => format!("(service {svc}) (task {}) failed container health checks.", task(e.instance)),
            InfraKind::ReadinessFailed | InfraKind::TargetUnhealthy => format!(
                "(service {svc}) (port {}) is unhealthy in (target-group {tg}) due to (reason Request timed out).",
                e.instance.map(|i| ctx.w.instances[i].port).unwrap_or(8080)
            ),
            InfraKind::TargetHealthy => format!("(service {svc}) registered 1 targets in (target-group {tg})"),
            InfraKind::BackOff => format!("(service {svc}) is unable to consistently start tasks successfully."),
            InfraKind::ScalingReplicaSet | InfraKind::Autoscaled => continue,
            InfraKind::Scheduled | InfraKind::Pulling | InfraKind::Pulled | InfraKind::Created => continue,
        };
        ev.push((clock.at(e.ts), msg));
    }
    for c in &ctx.w.changes {
        match c.kind {
            ChangeKind::Deploy | ChangeKind::Rollback => {
                ev.push((
                    clock.at(c.ts) + 90_000,
                    format!("(service {svc}) deployment {deployment_id} deployment completed."),
                ));
                ev.push((
                    clock.at(c.ts) + 95_000,
                    format!("(service {svc}) has reached a steady state."),
                ));
            }
            ChangeKind::ScaleOut | ChangeKind::ScaleIn => {
                ev.push((
                    clock.at(c.ts) + 60_000,
                    format!("(service {svc}) has reached a steady state."),
                ));
            }
            _ => {}
        }
    }
    ev.sort_by_key(|x| std::cmp::Reverse(x.0));
    let total = ev.len();
    ev.truncate(100);
    plan.detail("events_dropped_by_the_100_limit", total - ev.len());
    // What the export holds from on (its clock's time): a probe that failed
    // before it is in no file.
    if total > ev.len() {
        if let Some((t, _)) = ev.last() {
            plan.detail(KEPT_FROM, time::iso_s(*t));
        }
    }
    let events: Vec<J> = ev
        .iter()
        .map(|(t, m)| {
            let at = if cli_v2 {
                J::s(time::rfc3339(
                    *t,
                    ctx.zone.offset_ms(*t),
                    6,
                    OffsetStyle::Colon,
                ))
            } else {
                J::Num(py_float(*t as f64 / 1000.0))
            };
            J::obj(vec![
                ("id", J::s(rng.uuid())),
                ("createdAt", at),
                ("message", J::s(m)),
            ])
        })
        .collect();
    let n = events.len();
    let running = ctx
        .w
        .instances
        .iter()
        .filter(|i| i.lives.last().is_some_and(|l| l.ended.is_none()))
        .count();
    let created = if cli_v2 {
        J::s(time::rfc3339(
            ctx.w.start - 86_400_000 * 30,
            ctx.zone.offset_ms(ctx.w.start),
            6,
            OffsetStyle::Colon,
        ))
    } else {
        J::Num(py_float((ctx.w.start - 86_400_000 * 30) as f64 / 1000.0))
    };
    let service = J::obj(vec![
        (
            "serviceArn",
            J::s(format!(
                "arn:aws:ecs:{}:{}:service/{}/{svc}",
                ctx.region, ctx.account, ctx.cluster
            )),
        ),
        ("serviceName", J::s(svc)),
        (
            "clusterArn",
            J::s(format!(
                "arn:aws:ecs:{}:{}:cluster/{}",
                ctx.region, ctx.account, ctx.cluster
            )),
        ),
        (
            "loadBalancers",
            J::Arr(vec![J::obj(vec![
                ("targetGroupArn", J::s(&tg)),
                ("containerName", J::s(ctx.container())),
                ("containerPort", J::n(8080)),
            ])]),
        ),
        ("status", J::s("ACTIVE")),
        ("desiredCount", J::n(running)),
        ("runningCount", J::n(running)),
        ("pendingCount", J::n(0)),
        ("launchType", J::s("FARGATE")),
        (
            "taskDefinition",
            J::s(format!(
                "arn:aws:ecs:{}:{}:task-definition/{svc}:{}",
                ctx.region,
                ctx.account,
                rng.range(10, 90)
            )),
        ),
        (
            "deployments",
            J::Arr(vec![J::obj(vec![
                ("id", J::s(&deployment_id)),
                ("status", J::s("PRIMARY")),
                ("desiredCount", J::n(running)),
                ("runningCount", J::n(running)),
                ("rolloutState", J::s("COMPLETED")),
            ])]),
        ),
        ("events", J::Arr(events)),
        ("createdAt", created),
    ]);
    let doc = J::obj(vec![
        ("services", J::Arr(vec![service])),
        ("failures", J::Arr(vec![])),
    ]);
    vec![OutFile::new(
        "ecs-describe-services.json",
        "ecs-describe-services",
        "events",
        json::to_string(&doc, &json::AWS) + "\n",
        n,
    )]
}
