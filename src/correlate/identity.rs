//! One identity per instance across sources. The access log names a server
//! by the address it proxied to (`10.42.1.11:8080`), metrics by a label
//! (`pod="api-7c9d8b6f5-k2xqp"`, `instance="10.42.1.11:9090"`), the
//! orchestrator by the pod, a VM's journal by its host name. Any record that
//! names two of them ties them together: a probe failure naming the address
//! it probed, a series carrying both an address and a pod label, a start-up
//! line that says where it listens, a pod scheduled on its node, a pod's
//! event reported from its node. Names tied
//! together, directly or through others, are one instance. A name a record
//! pairs with several others of one kind (the exporter's address on every
//! pod's series, a node running two pods) is nobody's name and ties nothing.
//!
//! In: the names the aggregates hold and the records that tie them. Out:
//! [`Identities`]: each name's instance, named the way the access log names
//! it (that is where requests are counted) and shown with its other names.
//!
//! ```text
//! probe "Get http://10.42.1.11:8080/healthz" on pod api-k2xqp -> {10.42.1.11:8080, api-k2xqp}
//! series {instance="10.42.1.11:9090", pod="api-k2xqp"}        -> {10.42.1.11:8080, 10.42.1.11:9090, api-k2xqp}
//! restarts {instance="10.42.0.24:8080", pod=...} for every pod -> 10.42.0.24:8080 ties nothing
//! canonical("api-k2xqp") = "10.42.1.11:8080"; display = "api-k2xqp (10.42.1.11:8080)"
//! ```

use std::collections::{BTreeMap, BTreeSet};

use crate::aggregate::ties::{address_in, split_address};
use crate::aggregate::{Aggregates, Dim, Span};
use crate::event::{InfraKind, MetricRole};

/// Instance names tied into instances (a union-find over names).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Identities {
    index: BTreeMap<String, usize>,
    names: Vec<String>,
    parent: Vec<usize>,
    /// Names requests were counted under (access logs): preferred as canonical.
    served: BTreeSet<String>,
    /// Names a record gave as the machine an instance ran on (a kubelet's
    /// node): where the pod is the same instance, the pod names it (canary
    /// draw 698211 named its canary pods by their nodes).
    hosts: BTreeSet<String>,
    /// Each host and the instances records placed on it (a pod's node, the
    /// directory a container's log was in): a host of several is none of
    /// them, but what it says of "the service" at a moment is about the
    /// one that went down with it then.
    residents: BTreeMap<String, BTreeSet<String>>,
}

/// What a name looks like, for choosing how to show an instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Shape {
    /// `10.42.1.11:8080`, `[::1]:8443`
    Address,
    /// `10.42.1.11`
    Ip,
    /// A pod, task, host or dyno name.
    Name,
    /// A name that ends in one of its own (see [`path_tail`]): a log stream
    /// `app/web/<task>`, a task ARN. The id alone is what other records
    /// use, and shorter.
    Path,
}

fn shape(name: &str) -> Shape {
    match split_address(name) {
        Some((_, Some(_))) => Shape::Address,
        Some((_, None)) => Shape::Ip,
        None if path_tail(name).is_some() => Shape::Path,
        None => Shape::Name,
    }
}

/// `http://10.42.1.11:8080/` -> `10.42.1.11:8080`; other names as they are.
pub fn normalise(name: &str) -> &str {
    let n = name.trim();
    let n = n
        .strip_prefix("http://")
        .or_else(|| n.strip_prefix("https://"))
        .or_else(|| n.strip_prefix("tcp://"))
        .unwrap_or(n);
    n.trim_end_matches('/')
}

impl Identities {
    fn id(&mut self, name: &str) -> Option<usize> {
        let name = normalise(name);
        if name.is_empty() || name == "-" {
            return None;
        }
        if let Some(&i) = self.index.get(name) {
            return Some(i);
        }
        let i = self.names.len();
        self.names.push(name.to_string());
        self.parent.push(i);
        self.index.insert(name.to_string(), i);
        Some(i)
    }

    fn root(&self, mut i: usize) -> usize {
        // Parents are indices of `parent`: a miss ends the walk there.
        while let Some(&p) = self.parent.get(i).filter(|&&p| p != i) {
            i = p;
        }
        i
    }

    /// Know a name (an instance on its own until something ties it).
    pub fn add(&mut self, name: &str) {
        self.id(name);
    }

    /// A name requests were counted under.
    pub fn add_served(&mut self, name: &str) {
        if self.id(name).is_some() {
            self.served.insert(normalise(name).to_string());
        }
    }

    /// Two names of one instance.
    pub fn tie(&mut self, a: &str, b: &str) {
        let (Some(x), Some(y)) = (self.id(a), self.id(b)) else {
            return;
        };
        let (rx, ry) = (self.root(x), self.root(y));
        if rx != ry {
            // The smaller index stays the root: the same ties in any order
            // give the same classes.
            let (lo, hi) = (rx.min(ry), rx.max(ry));
            if let Some(p) = self.parent.get_mut(hi) {
                *p = lo;
            }
        }
    }

    /// Tie each path-like name to its last segment (see [`path_tail`]): a
    /// task's log stream, its ARN on a metric and the task id in an ECS
    /// event are one task.
    pub fn tie_path_tails(&mut self) {
        let pairs: Vec<(String, String)> = self
            .names
            .iter()
            .filter_map(|n| path_tail(n).map(|t| (n.clone(), t.to_string())))
            .collect();
        for (name, tail) in pairs {
            self.tie(&name, &tail);
        }
    }

    /// Tie each EC2 private DNS name to the address it spells (see
    /// [`ec2_host_ip`]); `tie_ports` then ties that to the ports served.
    /// Only where some record names that address: otherwise the spelled
    /// address ties nothing and would only rename the host to an address
    /// no input uses (stuck-instances draw 1665313 listed `10.0.0.163`
    /// for the `ip-10-0-0-163.ec2.internal` every record named).
    pub fn tie_ec2_hosts(&mut self) {
        let used: BTreeSet<&str> = self
            .names
            .iter()
            .map(|n| split_address(n).map_or(n.as_str(), |(ip, _)| ip))
            .collect();
        let pairs: Vec<(String, String)> = self
            .names
            .iter()
            .filter_map(|n| ec2_host_ip(n).map(|ip| (n.clone(), ip)))
            .filter(|(_, ip)| used.contains(ip.as_str()))
            .collect();
        for (name, ip) in pairs {
            self.tie(&name, &ip);
        }
    }

    /// Tie an address to the other ports of its IP. A pod has one IP, so
    /// its metrics port and its service port are the same instance; but
    /// when requests reached one IP on several ports (several processes on
    /// one host), those stay apart.
    pub fn tie_ports(&mut self) {
        let mut by_ip: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for n in &self.names {
            if let Some((ip, _)) = split_address(n) {
                by_ip.entry(ip.to_string()).or_default().push(n.clone());
            }
        }
        for names in by_ip.values() {
            let served_ports = names
                .iter()
                .filter(|n| self.served.contains(*n) && shape(n) == Shape::Address)
                .count();
            if served_ports > 1 {
                continue;
            }
            if let [first, rest @ ..] = names.as_slice() {
                for n in rest {
                    self.tie(first, n);
                }
            }
        }
    }

    /// The names of `name`'s instance, sorted (none for an unknown name).
    pub fn names_of(&self, name: &str) -> Vec<&str> {
        let Some(&i) = self.index.get(normalise(name)) else {
            return Vec::new();
        };
        let r = self.root(i);
        self.names
            .iter()
            .enumerate()
            .filter(|&(j, _)| self.root(j) == r)
            .map(|(_, n)| n.as_str())
            .collect::<BTreeSet<&str>>()
            .into_iter()
            .collect()
    }

    /// The name `name`'s instance goes by: the one the access log uses,
    /// else an address, else the first name.
    pub fn canonical(&self, name: &str) -> String {
        let names = self.names_of(name);
        names
            .iter()
            .min_by_key(|n| {
                (
                    !self.served.contains(**n),
                    shape(n),
                    self.hosts.contains(**n),
                    **n,
                )
            })
            .map_or_else(|| normalise(name).to_string(), |n| (*n).to_string())
    }

    /// `pod (address)` when an instance has both, else its canonical name.
    pub fn display(&self, name: &str) -> String {
        let canonical = self.canonical(name);
        let names = self.names_of(name);
        if names.is_empty() {
            return canonical;
        }
        let label = names
            .iter()
            .filter(|n| shape(n) == Shape::Name)
            .min_by_key(|n| (self.hosts.contains(**n), n.len(), **n));
        match label {
            Some(l) if *l != canonical => format!("{l} ({canonical})"),
            _ => canonical,
        }
    }

    /// Record that `instance` ran on `host`.
    pub fn place(&mut self, instance: &str, host: &str) {
        let (host, instance) = (normalise(host), normalise(instance));
        if host.is_empty() || instance.is_empty() || host == instance {
            return;
        }
        self.residents
            .entry(host.to_string())
            .or_default()
            .insert(instance.to_string());
    }

    /// The instances (canonical) that records placed on the host `name`
    /// names, when it is the host of more than one over the span and so
    /// tied to none of them; empty otherwise.
    pub fn residents(&self, name: &str) -> BTreeSet<String> {
        let own = self.canonical(name);
        let on: BTreeSet<String> = self
            .names_of(name)
            .iter()
            .filter_map(|n| self.residents.get(*n))
            .flatten()
            .map(|r| self.canonical(r))
            .collect();
        if on.contains(&own) {
            return BTreeSet::new();
        }
        on
    }

    /// Every instance once, by canonical name.
    pub fn instances(&self) -> BTreeSet<String> {
        self.names.iter().map(|n| self.canonical(n)).collect()
    }

    /// Whether requests were counted under one of `name`'s names.
    pub fn served(&self, name: &str) -> bool {
        self.names_of(name).iter().any(|n| self.served.contains(*n))
    }

    /// A set of instances as the access log sees them. When the access log
    /// names two or more of them, an instance it never names, and that no
    /// record ties to a name it uses, is one of its instances under another
    /// name (a pod or host the exports never pair with an address), or one
    /// that served nothing: either way not another instance to count.
    /// Without such an access log every instance counts.
    pub fn as_served(&self, set: BTreeSet<String>) -> BTreeSet<String> {
        let named: BTreeSet<String> = self.served.iter().map(|n| self.canonical(n)).collect();
        let served: BTreeSet<String> = set.iter().filter(|n| self.served(n)).cloned().collect();
        // A set the access log sees none of is not one it counts.
        if named.len() < 2 || served.is_empty() {
            return set;
        }
        served
    }
}

/// Pairs of names that records claim are one instance, by the kind of
/// record that claims it (the relation: "probe", "listen", a metric and its
/// two labels). A name is tied only to a partner it is paired with alone in
/// that relation: a label value shared by many pods (the address of the
/// exporter that scraped them, a node running several pods, a database every
/// instance connects to) is not an instance's name, and tying it would make
/// the whole fleet one instance.
#[derive(Debug, Default)]
pub struct Claims {
    pairs: BTreeSet<(String, String, String)>,
}

impl Claims {
    pub fn claim(&mut self, relation: &str, a: &str, b: &str) {
        let (a, b) = (normalise(a), normalise(b));
        if a.is_empty() || b.is_empty() || a == "-" || b == "-" || a == b {
            return;
        }
        self.pairs
            .insert((relation.to_string(), a.to_string(), b.to_string()));
    }

    /// Tie the pairs whose names have no other partner in their relation;
    /// every name claimed, tied or not, is known.
    pub fn settle(&self, ids: &mut Identities) {
        let mut partners: BTreeMap<(&str, &str), BTreeSet<&str>> = BTreeMap::new();
        for (rel, a, b) in &self.pairs {
            partners.entry((rel, a)).or_default().insert(b);
            partners.entry((rel, b)).or_default().insert(a);
        }
        let alone = |rel: &str, n: &str| partners.get(&(rel, n)).is_some_and(|p| p.len() == 1);
        for (rel, a, b) in &self.pairs {
            if alone(rel, a) && alone(rel, b) {
                ids.tie(a, b);
            } else {
                // The shared side is not a name of one instance; the other is.
                for n in [a, b] {
                    if alone(rel, n) {
                        ids.add(n);
                    }
                }
            }
        }
    }
}

/// `Successfully assigned prod/api-7c9d-k2xqp to worker-3`: a pod and its
/// node (Kubernetes' Scheduled event).
fn scheduled(message: &str) -> Option<(&str, &str)> {
    let rest = message.strip_prefix("Successfully assigned ")?;
    let (pod, node) = rest.split_once(" to ")?;
    let pod = pod.rsplit('/').next()?;
    let node = node.trim();
    (!pod.is_empty() && !node.is_empty() && !node.contains(' ')).then_some((pod, node))
}

/// Every instance name the aggregates hold, tied by every record that names
/// two: probe failures (pod and the address probed), series with several
/// identity labels, start-up lines naming their address, a pod's scheduling
/// on its node, and the ports of one IP.
pub fn build(agg: &Aggregates, span: Span, identity_labels: &[String]) -> Identities {
    let mut ids = Identities::default();
    let mut claims = Claims::default();
    for v in agg.dim_values(Dim::Instance) {
        ids.add_served(&v);
    }
    for (inst, _) in agg.health_by_instance(span) {
        if inst != "(unknown)" {
            ids.add_served(&inst);
        }
    }
    for e in agg.infra_events() {
        let about_an_instance = matches!(
            e.kind,
            InfraKind::ProbeFailed
                | InfraKind::Killing
                | InfraKind::Started
                | InfraKind::BackOff
                | InfraKind::OomKilled
        );
        if let Some((pod, node)) = scheduled(&e.message) {
            claims.claim("scheduled", pod, node);
            ids.place(pod, node);
            ids.hosts.insert(normalise(node).to_string());
        }
        if e.object.is_empty() || !about_an_instance {
            continue;
        }
        ids.add(&e.object);
        // A kubelet's event names the pod and the node it runs on (the
        // kernel monitor's OOM kill names only the node): one instance
        // where the node ran no other pod (crash-loop draw 2743107 counted
        // 3 pods as 6 instances).
        if let Some(host) = e.host.as_deref().filter(|h| *h != e.object) {
            claims.claim("event host", &e.object, host);
            ids.place(&e.object, host);
            ids.hosts.insert(normalise(host).to_string());
        }
        if e.kind == InfraKind::ProbeFailed {
            if let Some(addr) = address_in(&e.message) {
                claims.claim("probe", &e.object, addr);
            }
        }
    }
    for s in agg.metric_series() {
        let of_an_instance = matches!(
            s.role,
            Some(
                MetricRole::DbConnectionsInUse
                    | MetricRole::DbConnectionsMax
                    | MetricRole::DbConnectionsWaiting
                    | MetricRole::CpuUtilization
                    | MetricRole::MemoryUtilization
                    | MetricRole::Restarts
                    | MetricRole::RequestsRate
                    | MetricRole::InstanceInfo
            )
        );
        if !of_an_instance {
            continue;
        }
        let metric = s.key.split('{').next().unwrap_or("");
        let mut labels = series_label_pairs(&s.key, identity_labels);
        if let Some(i) = s.instance.as_deref() {
            if !labels.iter().any(|(_, v)| *v == i) {
                labels.push(("instance", i));
            }
        }
        if labels.len() < 2 {
            if let Some(i) = s.instance.as_deref() {
                ids.add(i);
            }
        }
        for (i, (ka, va)) in labels.iter().enumerate() {
            for (kb, vb) in labels.iter().skip(i + 1) {
                claims.claim(&format!("{metric} {ka} {kb}"), va, vb);
            }
        }
    }
    for (inst, addr) in agg.ties().iter() {
        claims.claim("listen", inst, addr);
    }
    // A host directory holding one instance's log is that instance's host;
    // one holding several is a node of several (not tied: see `Claims`).
    for (host, inst) in agg.ties().hosts() {
        claims.claim("path host", host, inst);
        ids.place(inst, host);
    }
    // A log stream and the host its lines name: one task's two names. A
    // host several streams name (tasks sharing an EC2 host) ties none.
    for (stream, inst) in agg.ties().writers() {
        claims.claim("log stream", stream, inst);
    }
    claims.settle(&mut ids);
    for b in agg.banners() {
        if let Some(i) = b.instance.as_deref() {
            ids.add(i);
        }
    }
    // Names only log records give (a task's log stream `ecs/api/<task>`)
    // join before path tails are tied, or a restart the logs show and the
    // one the orchestrator shows read as two instances.
    for signal in [
        crate::event::Signal::Startup,
        crate::event::Signal::Shutdown,
        crate::event::Signal::Crash,
    ] {
        for (inst, _, _) in agg.signal_counts(signal) {
            if !inst.is_empty() {
                ids.add(&inst);
            }
        }
    }
    // Every instance that logged, start-up or not: a task that ran all
    // through is named by its log stream and nowhere else in the logs.
    for inst in agg.logged().keys() {
        if !inst.is_empty() {
            ids.add(inst);
        }
    }
    ids.tie_path_tails();
    ids.tie_ec2_hosts();
    ids.tie_ports();
    ids
}

/// The IPv4 address an EC2 private DNS name spells: `ip-10-42-19-70`,
/// `ip-10-42-19-70.ap-south-1.compute.internal`, `ip-10-0-0-2.ec2.internal`
/// are the host at 10.42.19.70 (AWS names every instance so).
fn ec2_host_ip(name: &str) -> Option<String> {
    let rest = name.strip_prefix("ip-")?;
    let host = rest.split('.').next()?;
    let octets: Vec<&str> = host.split('-').collect();
    let valid = octets.len() == 4
        && octets
            .iter()
            .all(|o| !o.is_empty() && o.len() <= 3 && o.parse::<u8>().is_ok());
    valid.then(|| octets.join("."))
}

/// The last segment of a path-like name, when it is an id of its own: a
/// CloudWatch log stream `ecs/api/9f8e7d6c5b4a`, a task ARN
/// `arn:aws:ecs:...:task/live/9f8e7d6c5b4a`, `default/api-7c9d8b6f5-k2xqp`.
/// Ids are long and hold a digit; `logs/api` or `pod/web` name no instance.
fn path_tail(name: &str) -> Option<&str> {
    let (head, tail) = name.rsplit_once('/')?;
    let id_like = tail.len() >= 8
        && tail.bytes().any(|b| b.is_ascii_digit())
        && tail
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    (!head.is_empty() && id_like && split_address(name).is_none()).then_some(tail)
}

/// Label values of a series key (`name{a="1",b="2"}`) whose label is one
/// of `labels`.
pub fn series_labels<'k>(key: &'k str, labels: &[String]) -> Vec<&'k str> {
    series_label_pairs(key, labels)
        .into_iter()
        .map(|(_, v)| v)
        .collect()
}

/// (label, value) of a series key whose label is one of `labels`.
fn series_label_pairs<'k>(key: &'k str, labels: &[String]) -> Vec<(&'k str, &'k str)> {
    let Some(inner) = key
        .split_once('{')
        .and_then(|(_, rest)| rest.rsplit_once('}'))
        .map(|(inner, _)| inner)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut rest = inner;
    while let Some((k, after)) = rest.split_once("=\"") {
        let k = k.trim_start_matches(',').trim();
        let Some(end) = after.find('"') else { break };
        let v = &after[..end];
        if labels.iter().any(|l| l == k) && !v.is_empty() {
            out.push((k, v));
        }
        rest = &after[end + 1..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_tied_directly_or_through_others_are_one_instance() {
        let mut ids = Identities::default();
        ids.add_served("10.42.1.11:8080");
        ids.add_served("10.42.2.12:8080");
        ids.tie("api-k2xqp", "http://10.42.1.11:8080");
        ids.tie("10.42.1.11:9090", "api-k2xqp");
        ids.add("api-m8wzt");
        ids.tie("api-m8wzt", "10.42.2.12:9090");
        ids.tie_ports();
        assert_eq!(ids.canonical("api-k2xqp"), "10.42.1.11:8080");
        assert_eq!(ids.canonical("10.42.1.11:9090"), "10.42.1.11:8080");
        assert_eq!(ids.canonical("api-m8wzt"), "10.42.2.12:8080");
        assert_eq!(
            ids.display("10.42.2.12:8080"),
            "api-m8wzt (10.42.2.12:8080)"
        );
        assert_eq!(ids.instances().len(), 2);
    }

    /// A pino access log naming EC2 hosts, and ECS task log streams and
    /// events that nothing ties to them: three instances, not six.
    #[test]
    fn tasks_nothing_ties_to_the_hosts_served_are_not_more_instances() {
        let mut ids = Identities::default();
        for h in [
            "ip-10-42-14-30.eu-west-1.compute.internal",
            "ip-10-42-15-45.eu-west-1.compute.internal",
            "ip-10-42-3-26.eu-west-1.compute.internal",
        ] {
            ids.add_served(h);
        }
        for t in [
            "ecs/api/119b03910c64a834cefb622302cb4f71",
            "ecs/api/36c04a89e7aa440a112da1ac610b2074",
            "ecs/api/e5793460245f9da38162a507cb65497c",
            "36c04a89e7aa440a112da1ac610b2074",
        ] {
            ids.add(t);
        }
        ids.tie_path_tails();
        ids.tie_ec2_hosts();
        ids.tie_ports();
        let fleet = ids.as_served(ids.instances());
        assert_eq!(fleet.len(), 3, "{fleet:?}");
    }

    /// A task that ran all through (no start-up or shutdown line) is named
    /// by its log stream only; its metrics name its ARN beside its
    /// address. Built from the aggregates, the three are one instance.
    #[test]
    fn a_task_that_only_logged_is_tied_to_its_metrics_address() {
        use crate::event::{Event, Level, LogRecord, MetricRole, MetricSample};
        let mut agg = Aggregates::new();
        let task = "4b6caf1fbfb2671bc61465e74f051205";
        for k in 0..3i64 {
            agg.add(Event::Metric(MetricSample {
                ts: k * 30_000,
                origin: Default::default(),
                name: "http_requests_total".into(),
                role: Some(MetricRole::RequestsRate),
                value: 1.0,
                instance: Some("10.42.12.70:3000".into()),
                series: format!(
                    "http_requests_total{{instance=\"10.42.12.70:3000\",task_arn=\"arn:aws:ecs:ap-south-1:1:task/live-1/{task}\"}}"
                ),
                period_start: false,
            }));
        }
        agg.add(Event::Log(LogRecord {
            ts: 10_000,
            origin: Default::default(),
            level: Level::Error,
            message: "boom".into(),
            instance: Some(format!("ecs/web/{task}").into()),
            tenant: None,
            signal: None,
            version: None,
        }));
        agg.finish();
        let ids = build(&agg, Span::new(0, 90), &["task_arn".to_string()]);
        assert_eq!(
            ids.canonical(&format!("ecs/web/{task}")),
            "10.42.12.70:3000"
        );
    }

    /// A log stream whose lines name their host is that host's task: the
    /// task id an ECS event names, the stream and the host are one instance
    /// (thundering-herd draw 702504 counted one restart twice, "2 of 2
    /// instances"). A host the lines of two streams name (two tasks on one
    /// EC2 host) is neither task.
    #[test]
    fn a_log_stream_and_the_host_its_lines_name_are_one_instance() {
        use crate::event::{Event, EventSink, InfraEvent, InfraKind};
        let (a, b, c) = (
            "c34f27c69fb664253c0e932e474b61f7",
            "22a407c8e0d54b8f9a1c3d2e4f5a6b7c",
            "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b",
        );
        let mut agg = Aggregates::new();
        for (task, host) in [
            (a, "ip-10-42-3-26"),
            (b, "ip-10-42-7-23"),
            (c, "ip-10-42-7-23"),
        ] {
            agg.one_writer(&format!("app/web/{task}"), host);
            agg.add(Event::Infra(InfraEvent {
                ts: 1_000,
                first_ts: 1_000,
                origin: Default::default(),
                kind: InfraKind::Started,
                object: task.into(),
                reason: String::new(),
                message: String::new(),
                count: 1,
                members: Vec::new(),
                host: None,
            }));
        }
        agg.finish();
        let ids = build(&agg, Span::new(0, 90), &[]);
        assert_eq!(ids.canonical(a), ids.canonical("ip-10-42-3-26"));
        assert_eq!(ids.canonical(a), ids.canonical(&format!("app/web/{a}")));
        // Named by the id other records use, not by its stream.
        assert_eq!(ids.canonical(&format!("app/web/{a}")), a);
        for task in [b, c] {
            assert_ne!(ids.canonical(task), ids.canonical("ip-10-42-7-23"));
        }
        assert_ne!(ids.canonical(b), ids.canonical(c));
    }

    /// A kubelet's events name the pod and its node; the kernel monitor's
    /// OOM kill names only the node: one instance, named by its pod. A node
    /// that ran two pods ties neither.
    #[test]
    fn a_pods_event_from_its_node_ties_the_two() {
        use crate::event::{Event, InfraEvent, InfraKind};
        let ev = |ts: i64, kind: InfraKind, object: &str, host: &str| {
            Event::Infra(InfraEvent {
                ts,
                first_ts: ts,
                origin: Default::default(),
                kind,
                object: object.into(),
                reason: String::new(),
                message: String::new(),
                count: 1,
                members: Vec::new(),
                host: Some(host.into()),
            })
        };
        let mut agg = Aggregates::new();
        agg.add(ev(1_000, InfraKind::OomKilled, "aks-a", "aks-a"));
        agg.add(ev(2_000, InfraKind::Started, "api-1", "aks-a"));
        agg.add(ev(3_000, InfraKind::Started, "api-2", "node-b"));
        agg.add(ev(4_000, InfraKind::Started, "api-3", "node-b"));
        agg.add(ev(5_000, InfraKind::OomKilled, "node-b", "node-b"));
        agg.finish();
        let ids = build(&agg, Span::new(0, 90), &[]);
        assert_eq!(ids.canonical("aks-a"), ids.canonical("api-1"));
        // The pod names the instance, not the node it ran on.
        assert_eq!(ids.canonical("aks-a"), "api-1");
        assert_eq!(ids.display("aks-a"), "api-1");
        assert_ne!(ids.canonical("node-b"), ids.canonical("api-2"));
        assert_ne!(ids.canonical("node-b"), ids.canonical("api-3"));
    }

    /// A task's CloudWatch log stream, its ARN on a metric beside its
    /// address, and its id in an ECS event are one task; a path whose last
    /// segment is no id (`logs/api`) ties nothing.
    #[test]
    fn a_task_named_by_its_stream_its_arn_and_its_id_is_one_instance() {
        let mut ids = Identities::default();
        ids.add_served("10.42.19.42:8080");
        ids.add_served("10.42.21.51:8080");
        ids.tie(
            "10.42.19.42:8080",
            "arn:aws:ecs:us-west-2:123456789012:task/live/bbe079fbbb9cd5b89c2bc64573b1ec5b",
        );
        ids.add("ecs/api/bbe079fbbb9cd5b89c2bc64573b1ec5b");
        ids.add("bbe079fbbb9cd5b89c2bc64573b1ec5b");
        ids.add("logs/api");
        ids.add("default/web");
        ids.tie_path_tails();
        for n in [
            "ecs/api/bbe079fbbb9cd5b89c2bc64573b1ec5b",
            "bbe079fbbb9cd5b89c2bc64573b1ec5b",
        ] {
            assert_eq!(ids.canonical(n), "10.42.19.42:8080", "{n}");
        }
        assert_eq!(ids.canonical("logs/api"), "logs/api");
        assert_eq!(ids.instances().len(), 4);
    }

    #[test]
    fn an_ec2_host_name_is_the_address_it_spells() {
        let mut ids = Identities::default();
        ids.add_served("10.42.19.70:3000");
        ids.add_served("10.42.21.51:3000");
        ids.add("ip-10-42-19-70.ap-south-1.compute.internal");
        ids.add("ip-10-42-21-51");
        ids.add("ip-10-42-300-1.ec2.internal");
        ids.add("ip-gateway");
        ids.tie_ec2_hosts();
        ids.tie_ports();
        assert_eq!(
            ids.canonical("ip-10-42-19-70.ap-south-1.compute.internal"),
            "10.42.19.70:3000"
        );
        assert_eq!(ids.canonical("ip-10-42-21-51"), "10.42.21.51:3000");
        assert_eq!(
            ids.canonical("ip-10-42-300-1.ec2.internal"),
            "ip-10-42-300-1.ec2.internal"
        );
        assert_eq!(ids.instances().len(), 4);
        // An address no record names is not made up for the host.
        let mut ids = Identities::default();
        ids.add("ip-10-0-0-163.ec2.internal");
        ids.add("ip-10-0-2-140.ec2.internal");
        ids.add("10.0.2.140:8000");
        ids.tie_ec2_hosts();
        ids.tie_ports();
        assert_eq!(
            ids.canonical("ip-10-0-0-163.ec2.internal"),
            "ip-10-0-0-163.ec2.internal"
        );
        assert_eq!(
            ids.canonical("ip-10-0-2-140.ec2.internal"),
            "10.0.2.140:8000"
        );
    }

    #[test]
    fn ports_of_one_host_that_served_requests_stay_apart() {
        let mut ids = Identities::default();
        ids.add_served("10.0.0.5:8080");
        ids.add_served("10.0.0.5:8081");
        ids.add("10.0.0.5:9100");
        ids.tie_ports();
        assert_eq!(ids.instances().len(), 3);
    }

    #[test]
    fn the_same_ties_in_any_order_give_the_same_names() {
        let ties = [
            ("a-1", "10.0.0.1:80"),
            ("b-2", "10.0.0.2:80"),
            ("a-1", "host-a"),
        ];
        let mut x = Identities::default();
        let mut y = Identities::default();
        for (a, b) in ties {
            x.tie(a, b);
        }
        for (a, b) in ties.iter().rev() {
            y.tie(b, a);
        }
        for n in ["a-1", "host-a", "b-2", "10.0.0.1:80"] {
            assert_eq!(x.canonical(n), y.canonical(n), "{n}");
        }
    }

    #[test]
    fn instances_the_access_log_never_names_do_not_add_to_its_count() {
        let mut ids = Identities::default();
        ids.add_served("10.0.0.1:8080");
        ids.add_served("10.0.0.2:8080");
        ids.add("vm-1");
        ids.add("vm-2");
        ids.tie("vm-1", "10.0.0.1:8080");
        let set: BTreeSet<String> = ["10.0.0.1:8080", "10.0.0.2:8080", "vm-2"]
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(ids.as_served(set).len(), 2);
        // One served name is not an access log that names the fleet.
        let mut one = Identities::default();
        one.add_served("lb-1");
        one.add("vm-1");
        one.add("vm-2");
        let set: BTreeSet<String> = ["lb-1", "vm-1", "vm-2"]
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(one.as_served(set).len(), 3);
    }

    #[test]
    fn a_label_shared_by_many_pods_ties_none_of_them() {
        // kube-state-metrics is scraped at its own address, and labels
        // every pod's restart counter with it: that address is no pod's.
        let mut c = Claims::default();
        let rel = "kube_pod_container_status_restarts_total instance pod";
        for pod in ["api-a", "api-b", "api-c"] {
            c.claim(rel, "10.42.0.24:8080", pod);
        }
        c.claim(
            "http_requests_total instance pod",
            "10.42.1.11:8080",
            "api-a",
        );
        c.claim(
            "http_requests_total instance pod",
            "10.42.2.12:8080",
            "api-b",
        );
        let mut ids = Identities::default();
        ids.add_served("10.42.1.11:8080");
        ids.add_served("10.42.2.12:8080");
        c.settle(&mut ids);
        assert_eq!(ids.canonical("api-a"), "10.42.1.11:8080");
        assert_eq!(ids.canonical("api-b"), "10.42.2.12:8080");
        assert_eq!(ids.names_of("10.42.0.24:8080"), Vec::<&str>::new());
        assert_eq!(ids.names_of("api-c"), vec!["api-c"]);
    }

    #[test]
    fn a_node_running_two_pods_is_neither_of_them() {
        let mut c = Claims::default();
        c.claim("scheduled", "api-a", "worker-1");
        c.claim("scheduled", "api-b", "worker-1");
        c.claim("scheduled", "api-c", "worker-2");
        let mut ids = Identities::default();
        c.settle(&mut ids);
        assert_eq!(ids.names_of("api-a"), vec!["api-a"]);
        assert_eq!(ids.names_of("api-c"), vec!["api-c", "worker-2"]);
    }

    #[test]
    fn scheduling_messages_name_the_pod_and_its_node() {
        assert_eq!(
            scheduled(
                "Successfully assigned prod/web-f9f6gqbs7v-vzbnz to gke-prod-pool-1-0a83ff5d-zhf2"
            ),
            Some(("web-f9f6gqbs7v-vzbnz", "gke-prod-pool-1-0a83ff5d-zhf2"))
        );
        assert_eq!(scheduled("Created container web"), None);
    }

    /// The journal names a VM by its host name, the access log by the
    /// address it proxied to; node_exporter's info series says which host
    /// answers at which address.
    #[test]
    fn an_info_series_ties_a_host_name_to_its_address() {
        use crate::event::{Event, MetricSample, Request};
        let mut agg = Aggregates::new();
        agg.add(Event::Request(Request {
            ts: 1_000,
            end_ts: 1_010,
            route: "/x".into(),
            status: Some(200),
            instance: Some("10.42.5.56:3000".into()),
            ..Request::default()
        }));
        for (addr, node) in [
            ("10.42.5.56:9100", "worker-5"),
            ("10.42.7.51:9100", "worker-7"),
        ] {
            agg.add(Event::Metric(MetricSample {
                ts: 1_000,
                origin: Default::default(),
                name: "node_uname_info".into(),
                role: Some(MetricRole::InstanceInfo),
                value: 1.0,
                instance: Some(addr.into()),
                series: format!(r#"node_uname_info{{instance="{addr}",nodename="{node}"}}"#),
                period_start: false,
            }));
        }
        agg.finish();
        let labels = vec!["instance".to_string(), "nodename".to_string()];
        let ids = build(&agg, Span::new(0, 10), &labels);
        assert_eq!(ids.canonical("worker-5"), "10.42.5.56:3000");
        assert_eq!(ids.canonical("worker-7"), ids.canonical("10.42.7.51:9100"));
        assert_ne!(ids.canonical("worker-7"), "10.42.5.56:3000");
    }

    #[test]
    fn series_keys_name_instances() {
        let labels = vec!["pod".to_string(), "instance".to_string()];
        assert_eq!(
            series_labels(
                r#"hikaricp_connections_active{instance="10.42.1.11:8080",job="api",pod="api-k2xqp"}"#,
                &labels
            ),
            vec!["10.42.1.11:8080", "api-k2xqp"]
        );
        assert_eq!(series_labels("cpu", &labels), Vec::<&str>::new());
    }
}
