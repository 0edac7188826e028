//! Metrics: the World's series under the names, labels and units a monitoring system gives
//! them, exported as a user would (Prometheus API or text, CloudWatch, Datadog, CSV).
//!
//! In: `World::series`, the family and the metrics system's clock; out: files and the plan
//! entry, with the links its labels make (a Prometheus series scraped from the app carries
//! both `instance="10.42.1.11:8080"` and `pod="api-..."`). Series are first resolved to
//! [`Resolved`] (name, labels, points on the system's clock in the metric's unit; counters
//! accumulated), then each writer prints them.

mod cloud;
mod csv;
pub mod names;
mod prom;

use names::{Limits, PoolLib, Spec, System};

use super::ctx::{Clock, Ctx, Scheme};
use super::family::{MetricsFamily, Platform};
use super::plan::{LinkPlan, OutFile, SourceOut, SourcePlan};
use crate::gen::facts::{MetricRole, Ms, Series};
use crate::gen::rng::Rng;

/// One series as the monitoring system holds it.
pub struct Resolved<'a> {
    pub s: &'a Series,
    pub spec: Spec,
    /// Labels (Prometheus), tags (Datadog) or dimensions (CloudWatch), in a stable order.
    pub labels: Vec<(String, String)>,
    /// (time on the system's clock, value in the metric's unit).
    pub points: Vec<(Ms, f64)>,
    /// Whether the series is scraped from the app itself (its labels name the instance's
    /// address and its pod or host).
    pub from_app: bool,
}

fn from_app(role: MetricRole) -> bool {
    matches!(
        role,
        MetricRole::PoolActive
            | MetricRole::PoolIdle
            | MetricRole::PoolMax
            | MetricRole::PoolPending
            | MetricRole::RequestsRate
            | MetricRole::JobsProcessed
    )
}

/// Labels that say which instance a series belongs to, per system and platform.
fn instance_labels(
    ctx: &Ctx,
    sys: System,
    role: MetricRole,
    i: usize,
    ksm: &str,
) -> Vec<(String, String)> {
    let pod = ctx.name(i, Scheme::Pod);
    let ns = ctx.w.namespace.clone();
    let svc = ctx.w.service.clone();
    let l = |v: &[(&str, String)]| {
        v.iter()
            .map(|(k, x)| (k.to_string(), x.clone()))
            .collect::<Vec<_>>()
    };
    match (sys, ctx.platform) {
        (System::Prometheus, Platform::Kubernetes) => match role {
            MetricRole::Restarts => l(&[
                ("container", svc),
                ("instance", ksm.into()),
                ("job", "kube-state-metrics".into()),
                ("namespace", ns),
                ("pod", pod),
                ("uid", ctx.ids[i].pod_uid.clone()),
            ]),
            MetricRole::Cpu | MetricRole::Memory => l(&[
                ("container", svc),
                ("instance", ctx.name(i, Scheme::Host)),
                ("job", "kubelet".into()),
                ("namespace", ns),
                ("node", ctx.name(i, Scheme::Host)),
                ("pod", pod),
            ]),
            _ => l(&[
                ("instance", ctx.name(i, Scheme::IpPort)),
                ("job", format!("{ns}/{svc}")),
                ("namespace", ns),
                ("pod", pod),
            ]),
        },
        (System::Prometheus, Platform::Vm) => match role {
            MetricRole::Restarts => l(&[
                ("instance", format!("{}:9100", ctx.name(i, Scheme::Ip))),
                ("job", "node".into()),
                ("name", format!("{svc}.service")),
            ]),
            _ => l(&[("instance", ctx.name(i, Scheme::IpPort)), ("job", svc)]),
        },
        (System::Prometheus, Platform::Ecs) => l(&[
            ("instance", ctx.name(i, Scheme::IpPort)),
            ("job", svc),
            (
                "task_arn",
                format!(
                    "arn:aws:ecs:{}:{}:task/{}/{}",
                    ctx.region,
                    ctx.account,
                    ctx.cluster,
                    ctx.name(i, Scheme::TaskId)
                ),
            ),
        ]),
        (System::Datadog, Platform::Kubernetes) => l(&[
            ("kube_deployment", ctx.w.deployment.clone()),
            ("kube_namespace", ns),
            ("pod_name", pod),
        ]),
        (System::Datadog, Platform::Ecs) => l(&[
            ("ecs_cluster_name", ctx.cluster.clone()),
            ("ecs_service", svc),
            (
                "task_arn",
                format!(
                    "arn:aws:ecs:{}:{}:task/{}/{}",
                    ctx.region,
                    ctx.account,
                    ctx.cluster,
                    ctx.name(i, Scheme::TaskId)
                ),
            ),
        ]),
        (System::Datadog, Platform::Vm) => l(&[("host", ctx.name(i, Scheme::Host))]),
        (System::CloudWatch, Platform::Kubernetes) => l(&[
            ("ClusterName", ctx.cluster.clone()),
            ("FullPodName", pod),
            ("Namespace", ns),
            ("PodName", svc),
        ]),
        (System::CloudWatch, Platform::Ecs) => l(&[
            ("ClusterName", ctx.cluster.clone()),
            ("ServiceName", svc),
            ("TaskId", ctx.name(i, Scheme::TaskId)),
        ]),
        (System::CloudWatch, Platform::Vm) => match role {
            MetricRole::Cpu => l(&[("InstanceId", ctx.name(i, Scheme::Ec2Id))]),
            _ => l(&[
                ("InstanceId", ctx.name(i, Scheme::Ec2Id)),
                ("host", ctx.name(i, Scheme::Host)),
            ]),
        },
    }
}

/// Every World series the system carries, resolved.
pub fn resolve<'a>(
    ctx: &'a Ctx,
    sys: System,
    lib: PoolLib,
    lim: Limits,
    clock: &Clock,
    rng: &mut Rng,
) -> Vec<Resolved<'a>> {
    let ksm = format!("10.42.0.{}:8080", rng.range(2, 60));
    let mut out = vec![];
    for s in &ctx.w.series {
        let pool = s.pool.clone().unwrap_or_else(|| "main".into());
        let Some(spec) = names::name_for(sys, s.role, lib, ctx.platform, ctx.lang, lim, &pool)
        else {
            continue;
        };
        let mut labels = spec.labels.clone();
        if let Some(i) = s.instance {
            labels.extend(instance_labels(ctx, sys, s.role, i, &ksm));
        }
        labels.sort();
        labels.dedup_by(|a, b| a.0 == b.0);
        let step_s = s.step_ms as f64 / 1000.0;
        // A counter starts from what the process had counted before the span.
        let mut acc = if spec.counter {
            rng.uniform(10.0, 5000.0).round()
        } else {
            0.0
        };
        let points = s
            .points
            .iter()
            .map(|&(t, v)| {
                let x = if spec.counter {
                    acc += v * spec.scale * step_s;
                    acc
                } else {
                    v * spec.scale
                };
                (clock.at(t), x)
            })
            .collect();
        out.push(Resolved {
            s,
            spec,
            labels,
            points,
            from_app: from_app(s.role),
        });
    }
    out
}

/// How many instances have a written series naming both their address and their pod or host.
pub fn label_links(ctx: &Ctx, r: &[Resolved], via: &str) -> Vec<LinkPlan> {
    let other = if ctx.platform == Platform::Vm {
        Scheme::Host
    } else {
        Scheme::Pod
    };
    let key = if other == Scheme::Pod {
        "pod"
    } else {
        "nodename"
    };
    let mut linked: Vec<usize> = r
        .iter()
        .filter(|x| {
            x.labels.iter().any(|(k, _)| k == "instance") && x.labels.iter().any(|(k, _)| k == key)
        })
        .filter_map(|x| x.s.instance)
        .collect();
    linked.sort();
    linked.dedup();
    if linked.is_empty() {
        vec![]
    } else {
        vec![LinkPlan::new(Scheme::IpPort, other, via, linked.len())]
    }
}

pub fn write(ctx: &Ctx, fam: MetricsFamily, clock: Clock, rng: &mut Rng) -> SourceOut {
    let mut plan = SourcePlan {
        kind: "metrics",
        family: fam.name().into(),
        zone: "UTC".into(),
        skew_ms: clock.skew_ms,
        stamps: "scrape / period time".into(),
        ..SourcePlan::default()
    };
    let lib = if rng.chance(0.25) {
        PoolLib::Pgbouncer
    } else {
        PoolLib::infer(ctx.w, ctx.lang)
    };
    let lim = Limits {
        cpu_cores: rng.pick(&[0.5, 1.0, 2.0, 4.0]),
        mem_bytes: rng.pick(&[512.0, 1024.0, 2048.0, 4096.0]) * 1_048_576.0,
    };
    plan.detail("pool_library", lib.name());
    plan.detail("cpu_limit_cores", lim.cpu_cores);
    plan.detail("memory_limit_bytes", lim.mem_bytes);
    let sys = match fam {
        MetricsFamily::CloudWatch => System::CloudWatch,
        MetricsFamily::Datadog => System::Datadog,
        _ => System::Prometheus,
    };
    let mut r = resolve(ctx, sys, lib, lim, &clock, rng);
    if sys == System::Prometheus && ctx.platform == Platform::Vm {
        r.extend(prom::uname_series(ctx, &clock));
    }
    let mut names: Vec<&str> = r.iter().map(|x| x.spec.name.as_str()).collect();
    names.sort();
    names.dedup();
    plan.detail("metric_names", names.join(" "));
    let dropped: Vec<String> = ctx
        .w
        .series
        .iter()
        .filter(|s| !r.iter().any(|x| std::ptr::eq(x.s, *s)))
        .map(|s| format!("{:?}", s.role))
        .collect();
    if !dropped.is_empty() {
        plan.detail("roles_this_system_does_not_carry", dropped.join(" "));
    }
    plan.naming = match (sys, ctx.platform) {
        (System::Prometheus, Platform::Kubernetes) => {
            vec![Scheme::IpPort.name(), Scheme::Pod.name()]
        }
        (System::Prometheus, Platform::Vm) => vec![Scheme::IpPort.name(), Scheme::Host.name()],
        (System::Prometheus, Platform::Ecs) => vec![Scheme::IpPort.name(), Scheme::TaskId.name()],
        (_, Platform::Kubernetes) => vec![Scheme::Pod.name()],
        (_, Platform::Ecs) => vec![Scheme::TaskId.name()],
        (System::CloudWatch, Platform::Vm) => vec![Scheme::Ec2Id.name(), Scheme::Host.name()],
        (_, Platform::Vm) => vec![Scheme::Host.name()],
    };
    let files: Vec<OutFile> = match fam {
        MetricsFamily::PromRange => prom::range(ctx, &r, rng, &mut plan),
        MetricsFamily::PromText => prom::text(&r, &mut plan),
        MetricsFamily::CloudWatch => cloud::cloudwatch(ctx, &r, &mut plan),
        MetricsFamily::Datadog => cloud::datadog(ctx, &r, &mut plan),
        MetricsFamily::Csv => csv::generic(ctx, &r, rng, &mut plan),
        MetricsFamily::GrafanaCsv => csv::grafana(ctx, &r, rng, &mut plan),
    };
    let mut links = vec![];
    if sys == System::Prometheus || fam == MetricsFamily::Csv {
        links = label_links(
            ctx,
            &r,
            &format!("{} series labels (instance + pod/nodename)", fam.name()),
        );
    }
    if fam == MetricsFamily::GrafanaCsv
        && plan
            .details
            .get("legend")
            .is_some_and(|l| l.contains("instance") && l.contains("pod"))
    {
        links = label_links(ctx, &r, "grafana-csv column names (instance and pod)");
    }
    if sys == System::CloudWatch && ctx.platform == Platform::Vm {
        links.push(LinkPlan::new(
            Scheme::Ec2Id,
            Scheme::Host,
            "cloudwatch CWAgent dimensions (InstanceId + host)",
            ctx.w.instances.len(),
        ));
    }
    SourceOut { files, plan, links }
}

#[cfg(test)]
mod tests;
