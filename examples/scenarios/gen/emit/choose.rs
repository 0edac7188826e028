//! The draw: which platform, families, envelope, layout and zones a scenario is written with,
//! and which records must link the names instances go by in different sources.
//!
//! In: the World, `Force` (pinned choices) and the PRNG; out: a [`Choice`]. Anything not
//! pinned is drawn among what fits the platform (an ECS service has no ingress-nginx; a VM
//! fleet has a journal, not Kubernetes events). Links: each source names instances its own way
//! (access log by IP:port, app log by pod or host, metrics by labels, events by pod, task or
//! host); the names in use must form one connected graph through records that hold two of
//! them, for every instance. When the chosen families do not connect them, the app writes a
//! start-up line naming its address (see `app::listen_line`).

use super::access;
use super::app::{self, Layout};
use super::ctx::Scheme;
use super::events;
use super::family::{
    AccessFamily, AppFamily, Envelope, EventsFamily, Lang, MetricsFamily, Platform,
};
use super::Force;
use crate::gen::facts::{InfraKind, MetricRole, World};
use crate::gen::rng::Rng;

pub struct Choice {
    pub platform: Platform,
    pub lang: Lang,
    pub access: AccessFamily,
    pub variant: access::Variant,
    pub app: AppFamily,
    pub envelope: Option<Envelope>,
    pub layout: Layout,
    pub metrics: MetricsFamily,
    pub events: Vec<EventsFamily>,
    /// Links the chosen families make by themselves: (a, b, via, instances covered).
    pub natural: Vec<(Scheme, Scheme, String, usize)>,
    /// Whether the app log must add listen lines to link addresses to its own names.
    pub listen: bool,
    /// Pairs of naming schemes no record links.
    pub unlinked: Vec<String>,
}

fn pick_fit<T: Copy>(all: &[T], fits: impl Fn(T) -> bool, rng: &mut Rng) -> T {
    let ok: Vec<T> = all.iter().copied().filter(|x| fits(*x)).collect();
    if ok.is_empty() {
        all[0]
    } else {
        rng.pick(&ok)
    }
}

pub fn platform(force: &Force, rng: &mut Rng) -> Platform {
    if let Some(p) = force.naming {
        return p;
    }
    let fits = |p: Platform| {
        force.access.is_none_or(|a| a.fits(p))
            && force.metrics.is_none_or(|m| m.fits(p))
            && force.envelope.flatten().is_none_or(|e| e.fits(p))
            && force.events.as_ref().is_none_or(|ev| {
                ev.iter().all(|f| {
                    !EventsFamily::ALL[..4].contains(f) || EventsFamily::orchestrator(p).contains(f)
                })
            })
    };
    let weights: Vec<f64> = Platform::ALL
        .iter()
        .zip([0.55, 0.2, 0.25])
        .map(|(p, w)| if fits(*p) { w } else { 0.0 })
        .collect();
    if weights.iter().all(|w| *w == 0.0) {
        return Platform::Kubernetes;
    }
    Platform::ALL[rng.weighted(&weights)]
}

pub fn families(w: &World, force: &Force, platform: Platform, lang: Lang, rng: &mut Rng) -> Choice {
    let access = force
        .access
        .unwrap_or_else(|| pick_fit(AccessFamily::ALL, |a| a.fits(platform), rng));
    let variant = access::Variant::draw(rng);
    let app = force
        .app
        .unwrap_or_else(|| rng.pick(&app::families_for(lang)));
    let envelope = match force.envelope {
        Some(e) => e,
        None => match platform {
            // The awslogs driver is ECS's default; the export is `aws logs`.
            Platform::Ecs => Some(Envelope::CloudWatchLogs),
            Platform::Kubernetes if rng.chance(0.6) => {
                Some(pick_fit(Envelope::ALL, |e| e.fits(platform), rng))
            }
            Platform::Vm if rng.chance(0.4) => {
                Some(pick_fit(Envelope::ALL, |e| e.fits(platform), rng))
            }
            _ => None,
        },
    };
    let mut layout = app::layout_for(platform, app, envelope, rng);
    if layout == Layout::Merged && !app.has_host() && !envelope.is_some_and(|e| e.merged()) {
        layout = Layout::PerInstance;
    }
    let metrics = force
        .metrics
        .unwrap_or_else(|| pick_fit(MetricsFamily::ALL, |m| m.fits(platform), rng));
    let events = match &force.events {
        Some(ev) => ev.clone(),
        None => {
            let mut ev = vec![rng.pick(EventsFamily::orchestrator(platform))];
            if w.changes.iter().any(|c| {
                matches!(
                    c.kind,
                    crate::gen::facts::ChangeKind::Deploy | crate::gen::facts::ChangeKind::Rollback
                )
            }) {
                let mut opts = vec![EventsFamily::DeployLog, EventsFamily::GithubDeployments];
                if platform == Platform::Kubernetes {
                    opts.push(EventsFamily::HelmHistory);
                }
                ev.push(rng.pick(&opts));
            }
            if w.changes.iter().any(|c| {
                matches!(
                    c.kind,
                    crate::gen::facts::ChangeKind::FlagChange
                        | crate::gen::facts::ChangeKind::FlagRevert
                )
            }) {
                let f = rng.pick(&[
                    EventsFamily::LaunchDarkly,
                    EventsFamily::Unleash,
                    EventsFamily::DeployLog,
                ]);
                if !ev.contains(&f) {
                    ev.push(f);
                }
            }
            if events::needs_deploy_log(&w.changes, &ev) {
                ev.push(EventsFamily::DeployLog);
            }
            ev
        }
    };
    let mut c = Choice {
        platform,
        lang,
        access,
        variant,
        app,
        envelope,
        layout,
        metrics,
        events,
        natural: vec![],
        listen: false,
        unlinked: vec![],
    };
    links(w, &mut c);
    c
}

/// The naming schemes each source uses, as classes (an IP with or without port is one).
fn used(c: &Choice) -> Vec<Scheme> {
    let own = match c.platform {
        Platform::Kubernetes => Scheme::Pod,
        Platform::Ecs => Scheme::EcsHost,
        Platform::Vm => Scheme::Host,
    };
    let mut s = vec![];
    if let Some(a) = access::scheme(c.access, c.platform, !c.variant.nginx_kv_upstream_time) {
        s.push(a.class());
    }
    s.push(own);
    if c.envelope == Some(Envelope::CloudWatchLogs)
        || (c.platform == Platform::Ecs && c.envelope.is_none())
    {
        s.push(Scheme::TaskId);
    }
    let metrics = match (c.metrics, c.platform) {
        (MetricsFamily::CloudWatch, Platform::Vm) => Scheme::Ec2Id,
        (MetricsFamily::CloudWatch | MetricsFamily::Datadog, Platform::Ecs) => Scheme::TaskId,
        (
            MetricsFamily::PromRange | MetricsFamily::PromText | MetricsFamily::Csv,
            Platform::Ecs,
        ) => Scheme::TaskId,
        (_, Platform::Kubernetes) => Scheme::Pod,
        (_, Platform::Vm) => Scheme::Host,
        (_, Platform::Ecs) => Scheme::TaskId,
    };
    s.push(metrics);
    for e in &c.events {
        match e {
            EventsFamily::K8sList | EventsFamily::K8sLines => s.push(Scheme::Pod),
            EventsFamily::EcsServices => s.push(Scheme::TaskId),
            EventsFamily::Journal => s.push(Scheme::Host),
            _ => {}
        }
    }
    s.sort();
    s.dedup();
    s
}

/// Finds the links the chosen families make and decides whether listen lines are needed.
fn links(w: &World, c: &mut Choice) {
    let n = w.instances.len();
    let scraped = (0..n)
        .filter(|i| {
            w.series.iter().any(|s| {
                s.instance == Some(*i)
                    && matches!(
                        s.role,
                        MetricRole::PoolActive
                            | MetricRole::PoolMax
                            | MetricRole::PoolIdle
                            | MetricRole::PoolPending
                            | MetricRole::RequestsRate
                            | MetricRole::JobsProcessed
                    )
            })
        })
        .count();
    let any_series = (0..n)
        .filter(|i| w.series.iter().any(|s| s.instance == Some(*i)))
        .count();
    let labelled = matches!(
        c.metrics,
        MetricsFamily::PromRange | MetricsFamily::PromText | MetricsFamily::Csv
    );
    match c.platform {
        Platform::Kubernetes if labelled => c.natural.push((
            Scheme::Ip,
            Scheme::Pod,
            "metrics series labels (instance + pod)".into(),
            scraped,
        )),
        Platform::Vm if labelled && c.metrics != MetricsFamily::Csv => c.natural.push((
            Scheme::Ip,
            Scheme::Host,
            "node_uname_info (instance + nodename)".into(),
            any_series,
        )),
        Platform::Ecs if labelled => c.natural.push((
            Scheme::Ip,
            Scheme::TaskId,
            "metrics series labels (instance + task_arn)".into(),
            any_series,
        )),
        Platform::Vm if c.metrics == MetricsFamily::CloudWatch => c.natural.push((
            Scheme::Ec2Id,
            Scheme::Host,
            "CWAgent dimensions (InstanceId + host)".into(),
            any_series,
        )),
        _ => {}
    }
    if c.events
        .iter()
        .any(|e| matches!(e, EventsFamily::K8sList | EventsFamily::K8sLines))
    {
        let probed = w
            .instances
            .iter()
            .enumerate()
            .filter(|(i, inst)| {
                w.events.iter().any(|e| {
                    e.instance == Some(*i)
                        && matches!(
                            e.kind,
                            InfraKind::LivenessFailed | InfraKind::ReadinessFailed
                        )
                        && e.message.contains(&format!("{}:", inst.ip))
                })
            })
            .count();
        if probed > 0 {
            c.natural.push((
                Scheme::Ip,
                Scheme::Pod,
                "Kubernetes probe-failure messages (pod + its IP)".into(),
                probed,
            ));
        }
    }
    if c.platform == Platform::Ecs && c.envelope.is_none() {
        c.natural.push((
            Scheme::TaskId,
            Scheme::EcsHost,
            "per-task file names (log streams downloaded one by one)".into(),
            n,
        ));
    }
    if c.envelope == Some(Envelope::CloudWatchLogs) {
        let own = if c.platform == Platform::Ecs {
            Scheme::EcsHost
        } else {
            app_scheme(c.platform)
        };
        c.natural.push((
            Scheme::TaskId,
            own,
            "CloudWatch Logs stream names (task id) around the app's lines".into(),
            n,
        ));
    }
    let used = used(c);
    let missing = unconnected(&used, &full_links(&c.natural, n, None));
    if !missing.is_empty() {
        c.listen = true;
        let extra = Some((Scheme::Ip, app_scheme(c.platform)));
        c.unlinked = unconnected(&used, &full_links(&c.natural, n, extra));
    }
}

/// The links that cover every instance, plus `extra`.
fn full_links(
    natural: &[(Scheme, Scheme, String, usize)],
    n: usize,
    extra: Option<(Scheme, Scheme)>,
) -> Vec<(Scheme, Scheme)> {
    natural
        .iter()
        .filter(|l| l.3 >= n)
        .map(|l| (l.0, l.1))
        .chain(extra)
        .collect()
}

/// Schemes not connected to the first one through `edges` (label propagation: each scheme
/// takes the smallest label of its neighbours until nothing changes).
fn unconnected(used: &[Scheme], edges: &[(Scheme, Scheme)]) -> Vec<String> {
    let pos = |s: Scheme| used.iter().position(|u| *u == s);
    let mut label: Vec<usize> = (0..used.len()).collect();
    loop {
        let mut changed = false;
        for (a, b) in edges {
            if let (Some(i), Some(j)) = (pos(*a), pos(*b)) {
                let m = label[i].min(label[j]);
                if label[i] != m || label[j] != m {
                    (label[i], label[j], changed) = (m, m, true);
                }
            }
        }
        if !changed {
            break;
        }
    }
    used.iter()
        .zip(&label)
        .skip(1)
        .filter(|(_, l)| **l != label[0])
        .map(|(s, _)| format!("{} <-> {}", used[0].name(), s.name()))
        .collect()
}

fn app_scheme(p: Platform) -> Scheme {
    match p {
        Platform::Kubernetes => Scheme::Pod,
        Platform::Ecs => Scheme::EcsHost,
        Platform::Vm => Scheme::Host,
    }
}
