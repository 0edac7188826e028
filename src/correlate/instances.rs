//! Instance restarts, from orchestrator events (kills, starts) and from
//! application start-up and shutdown lines, merged per instance.
//!
//! In: the aggregates' infra events and log signals, and the identities
//! that name each instance one way. Out: [`InstanceHistory`]: each restart
//! (down, back up, why), probe failures per instance. A host that only
//! reports another instance's death (a node's `OOMKilling` beside the pod's
//! own `BackOff`) is not counted as an instance that restarted.

use std::collections::{BTreeMap, BTreeSet};

use crate::aggregate::Aggregates;

use super::identity::Identities;
use crate::event::{InfraKind, Millis, Origin, Signal};
use crate::formats::stop_causes::StopCauses;

/// The cause of a restart whose process crashed on its own (its logs said so).
pub const CRASHED: &str = "the process exited abnormally";
/// The cause of a crash whose instance's own crash line says it ran out of
/// memory (a Go runtime's `fatal error: runtime: out of memory`, a JVM's
/// `OutOfMemoryError`): what killed it, where no orchestrator said.
pub const RAN_OUT_OF_MEMORY: &str = "the process ran out of memory (its own log says so)";

/// Markers of one instance closer than this belong to one restart.
const SAME_RESTART_MS: Millis = 120_000;

/// One restart of one instance: when it went down and when it was back.
#[derive(Clone, Debug, PartialEq)]
pub struct Restart {
    pub instance: String,
    pub down: Millis,
    pub up: Option<Millis>,
    pub source: Origin,
    /// Why, in the orchestrator's words (`failed liveness probe`), if known.
    pub cause: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct InstanceHistory {
    /// Every instance the orchestrator or the application logs name.
    pub instances: BTreeSet<String>,
    pub restarts: Vec<Restart>,
    /// Probe failures per instance.
    pub probe_failures: BTreeMap<String, ProbeFailures>,
    /// Groups (ECS services) whose events named their instances, and those
    /// instances: a group's own events (it backs off) are about them.
    pub groups: BTreeMap<String, BTreeSet<String>>,
    /// One restart seen in two inputs: (earlier input, later input, how
    /// far the later one's stamp came after the other's), for telling the
    /// sources' clocks apart.
    pub seen_twice: Vec<(u32, u32, Millis)>,
}

/// An instance's failed liveness/readiness probes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProbeFailures {
    pub first: Millis,
    pub last: Millis,
    pub count: u32,
    pub origin: Origin,
    /// The failures in runs (first, last, where the first was logged), by
    /// time: failures less than [`PROBE_RUN_GAP_MS`] apart are one run, so
    /// that a blip an hour before does not date the incident's.
    pub runs: Vec<(Millis, Millis, Origin)>,
}

/// Probe failures this close together are one run.
pub const PROBE_RUN_GAP_MS: Millis = 120_000;

impl ProbeFailures {
    /// The first failure of the earliest run that reaches `from` or later.
    pub fn first_from(&self, from: Millis) -> Option<(Millis, Origin)> {
        self.runs.iter().find(|r| r.1 >= from).map(|r| (r.0, r.2))
    }
}

/// A marker of one instance going down or coming up: when, which, where, why.
type Marker = (Millis, Mark, Origin, Option<String>);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Mark {
    Down,
    Up,
}

/// Instances are named by their canonical name (see `identity`), so one
/// server seen as a pod, an address and a host is one instance.
pub fn history(agg: &Aggregates, ids: &Identities, causes: &StopCauses) -> InstanceHistory {
    let mut h = InstanceHistory::default();
    let mut marks: BTreeMap<String, Vec<Marker>> = BTreeMap::new();
    let mut groups: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for e in agg.infra_events() {
        // An event about a group that names its instances (an ECS service's
        // "has stopped 2 running tasks: (task a) (task b)") is about each
        // of them; the group is no instance of its own.
        let objects: Vec<String> = if e.members.is_empty() {
            if e.object.is_empty() {
                continue;
            }
            vec![ids.canonical(&e.object)]
        } else {
            let members: Vec<String> = e.members.iter().map(|m| ids.canonical(m)).collect();
            if !e.object.is_empty() {
                groups
                    .entry(ids.canonical(&e.object))
                    .or_default()
                    .extend(members.iter().cloned());
            }
            members
        };
        for object in objects {
            mark(&mut h, &mut marks, e, object);
        }
    }
    for g in groups.keys() {
        // What a group's own events said (it backs off, a target of it
        // failed a probe) stays in `groups` and the infra events: counted
        // as an instance, a service would be "1 of 5 instances restarted".
        // So is a probe failure of the group with no target named (an
        // awsvpc service's "(port 3000) is unhealthy in (target-group
        // ...)"): it made "health checks failing on 3 of 3 instances" of
        // a fleet of 2.
        if !groups.values().any(|m| m.contains(g)) {
            marks.remove(g);
            h.probe_failures.remove(g);
            h.instances.remove(g);
        }
    }
    h.groups = groups;
    finish(&mut h, marks, agg, ids, causes);
    h
}

/// One orchestrator event's marker on one instance.
fn mark(
    h: &mut InstanceHistory,
    marks: &mut BTreeMap<String, Vec<Marker>>,
    e: &crate::event::InfraEvent,
    object: String,
) {
    match e.kind {
        InfraKind::Killing | InfraKind::OomKilled | InfraKind::BackOff => {
            h.instances.insert(object.clone());
            marks.entry(object.clone()).or_default().push((
                e.ts,
                Mark::Down,
                e.origin,
                Some(e.message.clone()),
            ));
        }
        InfraKind::Started => {
            h.instances.insert(object.clone());
            marks
                .entry(object.clone())
                .or_default()
                .push((e.ts, Mark::Up, e.origin, None));
        }
        InfraKind::ProbeFailed => {
            h.instances.insert(object.clone());
            let p = h
                .probe_failures
                .entry(object.clone())
                .or_insert(ProbeFailures {
                    first: e.first_ts,
                    last: e.ts,
                    count: 0,
                    origin: e.origin,
                    runs: Vec::new(),
                });
            p.first = p.first.min(e.first_ts);
            p.last = p.last.max(e.ts);
            // Event streams repeat one event with a growing count (a
            // Kubernetes `Unhealthy` seen 1, 2, 5 times): keep the largest.
            // An event of its own (ECS's "failed container health checks",
            // once per failure) adds one. Repeats of a counted event at one
            // time are one event.
            let repeat = p.runs.iter().any(|r| r.1 == e.ts && r.0 == e.first_ts);
            if e.count > 1 || (repeat && e.count > 0) {
                p.count = p.count.max(e.count);
            } else {
                p.count += e.count.max(1);
            }
            p.runs.push((e.first_ts, e.ts, e.origin));
        }
        _ => {}
    }
}

/// Probe runs merged, log markers added, markers turned into restarts.
fn finish(
    h: &mut InstanceHistory,
    mut marks: BTreeMap<String, Vec<Marker>>,
    agg: &Aggregates,
    ids: &Identities,
    causes: &StopCauses,
) {
    // A log line saying a health check failed (a systemd watchdog timing
    // out, an app's own "liveness check failed") is a probe failure of
    // that instance, as an orchestrator's `Unhealthy` event is.
    for (inst, s, c) in agg.signal_counts(Signal::HealthCheckFailed) {
        if inst.is_empty() {
            continue;
        }
        let inst = ids.canonical(&inst);
        h.instances.insert(inst.clone());
        let t = s * 1000;
        let p = h.probe_failures.entry(inst).or_insert(ProbeFailures {
            first: t,
            last: t,
            count: 0,
            origin: c.first,
            runs: Vec::new(),
        });
        if t < p.first {
            p.origin = c.first;
        }
        p.first = p.first.min(t);
        p.last = p.last.max(t);
        p.count += c.count;
        p.runs.push((t, t, c.first));
    }
    for p in h.probe_failures.values_mut() {
        p.runs.sort_unstable();
        let mut merged: Vec<(Millis, Millis, Origin)> = Vec::with_capacity(p.runs.len());
        for r in std::mem::take(&mut p.runs) {
            match merged.last_mut() {
                Some(m) if r.0 <= m.1 + PROBE_RUN_GAP_MS => m.1 = m.1.max(r.1),
                _ => merged.push(r),
            }
        }
        p.runs = merged;
    }
    // An instance whose first crash line says it ran out of memory crashed
    // of that: one quote per instance is kept, and a crash loop repeats
    // its death.
    let oom = quoted(agg, ids, Signal::Crash, |m| causes.out_of_memory(m));
    for (signal, mark) in [
        (Signal::Shutdown, Mark::Down),
        (Signal::Crash, Mark::Down),
        (Signal::Startup, Mark::Up),
    ] {
        for (inst, s, c) in agg.signal_counts(signal) {
            if inst.is_empty() {
                continue;
            }
            let inst = ids.canonical(&inst);
            h.instances.insert(inst.clone());
            let cause = (signal == Signal::Crash).then(|| {
                if oom.contains(&inst) {
                    RAN_OUT_OF_MEMORY
                } else {
                    CRASHED
                }
                .to_string()
            });
            marks
                .entry(inst)
                .or_default()
                .push((s * 1000, mark, c.first, cause));
        }
    }
    let seen_up: BTreeSet<String> = marks
        .iter()
        .filter(|(_, ms)| ms.iter().any(|m| m.1 == Mark::Up))
        .map(|(i, _)| i.clone())
        .collect();
    for (inst, ms) in marks {
        h.restarts.extend(restarts_of(&inst, ms));
    }
    h.restarts
        .sort_by(|a, b| (a.down, &a.instance).cmp(&(b.down, &b.instance)));
    attribute_host_restarts(h, ids);
    merge_seen_twice(h, causes);
    let watchdog = quoted(agg, ids, Signal::HealthCheckFailed, |m| {
        causes.killed_by_watchdog(m)
    });
    killed_for_the_check(h, &watchdog, causes);
    drop_reports_of_others(h, &seen_up);
    let groups: Vec<String> = h.groups.keys().cloned().collect();
    for g in groups {
        if !h.restarts.iter().any(|r| r.instance == g) {
            h.instances.remove(&g);
        }
    }
}

/// One instance's markers, in any order, turned into its restarts.
fn restarts_of(inst: &str, mut ms: Vec<Marker>) -> Vec<Restart> {
    let mut out = Vec::new();
    let starts_seen = ms.iter().any(|m| m.1 == Mark::Up);
    ms.sort_by_key(|a| (a.0, a.1, a.2));
    let mut current: Option<Restart> = None;
    let mut last_up: Option<Millis> = None;
    for (t, mark, origin, cause) in ms {
        match mark {
            Mark::Down => match &mut current {
                // A second kill marker of the same restart (event and log
                // line). Where this instance's starts are seen at all, one
                // that is still down cannot go down again: systemd's
                // "Stopped" after a long restart back-off, a pod's
                // repeated `BackOff`, belong to the kill before them.
                Some(r) if r.up.is_none() && (t - r.down <= SAME_RESTART_MS || starts_seen) => {
                    if r.cause.is_none() {
                        r.cause = cause;
                    }
                }
                _ => {
                    if let Some(r) = current.take() {
                        out.push(r);
                    }
                    current = Some(Restart {
                        instance: inst.to_string(),
                        down: t,
                        up: None,
                        source: origin,
                        cause,
                    });
                }
            },
            Mark::Up => match &mut current {
                Some(r) if r.up.is_none() => r.up = Some(t),
                Some(r) if r.up.is_some_and(|u| t - u <= SAME_RESTART_MS) => {
                    // Started event and start-up log line of one restart: keep the later.
                    r.up = Some(r.up.map_or(t, |u| u.max(t)));
                }
                // Two markers of one start (the Started event and the log line).
                _ if last_up.is_some_and(|u| t - u <= SAME_RESTART_MS) => {}
                _ => {
                    // A start without a known stop is a restart only if this instance
                    // had already been up: its first start is a boot or a scale-out.
                    let was_up = current.is_some() || last_up.is_some();
                    if let Some(r) = current.take() {
                        out.push(r);
                    }
                    if was_up {
                        current = Some(Restart {
                            instance: inst.to_string(),
                            down: t,
                            up: Some(t),
                            source: origin,
                            cause: None,
                        });
                    }
                }
            },
        }
        if mark == Mark::Up {
            last_up = Some(t);
        }
    }
    if let Some(r) = current.take() {
        out.push(r);
    }
    out
}

/// How close two restarts of one instance, each seen in a different input,
/// are one restart both inputs saw: the clocks of two sources (an app's
/// log and the host's journal) differ by a few seconds, so the one restart
/// reads as down-up in one and down-up again in the other.
const SEEN_TWICE_MS: Millis = 10_000;

/// Which of two records' causes of one restart to keep: a stated death
/// (killed for its probe, out of memory) over the bare "exited abnormally"
/// a log line gives, over none, over an orchestrator's word that it
/// stopped a task. That last says what it did, not why; kept, it would make
/// the restart a planned one that the other record (the app's own
/// shutdown, with no change near) shows was not.
fn rank(cause: Option<&str>, causes: &StopCauses) -> u8 {
    match cause {
        Some(c) if c == CRASHED => 2,
        Some(c) if causes.died_of(c) => 3,
        Some(_) => 0,
        None => 1,
    }
}

/// A restart of a host that ran several instances over the span (a node's
/// journal: `app.service: Watchdog timeout`, then `Started`), seen in
/// another input as the restart of exactly one of them at the same moment,
/// is that instance's restart: counted as the host's own, one restart was
/// "2 of 4 instances restarted together" (deploy-leak draw 2631804).
/// Left as it is where no resident, or more than one, went down then.
fn attribute_host_restarts(h: &mut InstanceHistory, ids: &Identities) {
    let mut moved: BTreeSet<String> = BTreeSet::new();
    let renamed: Vec<Option<String>> = h
        .restarts
        .iter()
        .map(|r| {
            let residents = ids.residents(&r.instance);
            if residents.is_empty() {
                return None;
            }
            let with: BTreeSet<&String> = h
                .restarts
                .iter()
                .filter(|o| {
                    residents.contains(&o.instance)
                        && o.source.input != r.source.input
                        && (o.down - r.down).abs() <= SEEN_TWICE_MS
                })
                .map(|o| &o.instance)
                .collect();
            with.first()
                .filter(|_| with.len() == 1)
                .map(|o| (*o).clone())
        })
        .collect();
    for (r, to) in h.restarts.iter_mut().zip(renamed) {
        if let Some(to) = to {
            moved.insert(std::mem::replace(&mut r.instance, to));
        }
    }
    for host in moved {
        if !h.restarts.iter().any(|r| r.instance == host) && !h.probe_failures.contains_key(&host) {
            h.instances.remove(&host);
        }
    }
    h.restarts
        .sort_by(|a, b| (a.down, &a.instance).cmp(&(b.down, &b.instance)));
}

/// Restarts of one instance that [`SEEN_TWICE_MS`] and two inputs make one.
fn merge_seen_twice(h: &mut InstanceHistory, causes: &StopCauses) {
    let mut by_instance: BTreeMap<String, Vec<Restart>> = BTreeMap::new();
    for r in std::mem::take(&mut h.restarts) {
        by_instance.entry(r.instance.clone()).or_default().push(r);
    }
    for (_, rs) in by_instance {
        let mut kept: Vec<(Restart, bool)> = Vec::with_capacity(rs.len());
        for r in rs {
            match kept.last_mut() {
                Some((k, merged))
                    if !*merged
                        && r.down - k.down <= SEEN_TWICE_MS
                        && r.source.input != k.source.input =>
                {
                    h.seen_twice
                        .push((k.source.input, r.source.input, r.down - k.down));
                    k.up = match (k.up, r.up) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        (a, b) => a.or(b),
                    };
                    if rank(r.cause.as_deref(), causes) > rank(k.cause.as_deref(), causes) {
                        k.cause = r.cause;
                    }
                    // Merged once: a third is a restart of its own.
                    *merged = true;
                }
                _ => kept.push((r, false)),
            }
        }
        h.restarts.extend(kept.into_iter().map(|(r, _)| r));
    }
    h.restarts
        .sort_by(|a, b| (a.down, &a.instance).cmp(&(b.down, &b.instance)));
}

/// Clock differences between two inputs that show in restarts both saw.
const SKEW_MIN_MS: Millis = 3_000;
const SKEW_MIN_SEEN: usize = 2;

/// (earlier input, later input, median offset) for each pair of inputs whose
/// shared restarts are all stamped at least [`SKEW_MIN_MS`] apart the same
/// way, in at least [`SKEW_MIN_SEEN`] restarts: one restart's two records
/// come a second or so apart (the kill, then the process's own line), not
/// several seconds every time, unless the clocks differ.
pub fn clock_skews(h: &InstanceHistory) -> Vec<(u32, u32, Millis)> {
    let mut by_pair: BTreeMap<(u32, u32), Vec<Millis>> = BTreeMap::new();
    for &(a, b, d) in &h.seen_twice {
        let (key, d) = if a < b { ((a, b), d) } else { ((b, a), -d) };
        by_pair.entry(key).or_default().push(d);
    }
    by_pair
        .into_iter()
        .filter_map(|((a, b), mut ds)| {
            ds.sort_unstable();
            let same_way =
                ds.iter().all(|d| *d >= SKEW_MIN_MS) || ds.iter().all(|d| *d <= -SKEW_MIN_MS);
            let median = *ds.get(ds.len() / 2)?;
            (ds.len() >= SKEW_MIN_SEEN && same_way).then_some((a, b, median))
        })
        .collect()
}

/// How soon before an instance went down a failed health check of its own
/// says the check killed it (a watchdog aborts at once, a kubelet within a
/// period or two).
const CHECK_KILL_MS: Millis = 60_000;

/// The cause of a restart that came right after its health check failed.
pub const KILLED_FOR_CHECK: &str = "killed for failing its health check";
/// A watchdog (systemd's `WatchdogSec`) kills a process that sent no
/// keep-alive in time: hung or too busy to, not a failed probe of a service.
pub const KILLED_BY_WATCHDOG: &str =
    "killed by its watchdog: it sent no keep-alive in time (hung or too busy)";

/// The instances whose first record of `signal` says what `says` looks
/// for (one quote per instance is kept).
fn quoted(
    agg: &Aggregates,
    ids: &Identities,
    signal: Signal,
    says: impl Fn(&str) -> bool,
) -> BTreeSet<String> {
    agg.signal_quotes(signal)
        .into_iter()
        .filter(|(_, q)| says(&q.message))
        .map(|(i, _)| ids.canonical(&i))
        .collect()
}

/// Restarts with no stated cause, or only "exited abnormally" (the abort a
/// watchdog sends looks like a crash), that came within [`CHECK_KILL_MS`]
/// after the instance's health check failed were the check's kills.
/// `watchdog`: the instances whose failed check was their watchdog's.
fn killed_for_the_check(h: &mut InstanceHistory, watchdog: &BTreeSet<String>, causes: &StopCauses) {
    if h.probe_failures.is_empty() {
        return;
    }
    // When each instance's previous life began (it was back from its
    // previous restart): a check can only kill the life it failed in. A
    // watchdog's abort stamped by the journal a second after the app's own
    // shutdown line is that death's, not the next one's: the rollback that
    // stopped the restarted process 25 s later read as a second kill and a
    // crash loop (deploy-leak draw 2631812).
    let mut life_from: BTreeMap<String, Millis> = BTreeMap::new();
    for r in &mut h.restarts {
        let began = life_from.insert(r.instance.clone(), r.up.unwrap_or(r.down));
        // A cause that says only that it stopped (ECS's "has stopped 1
        // running tasks", logged in the same millisecond as "failed
        // container health checks") is no other reason: organic-growth
        // draw 895317's kills for the check went uncounted.
        if r.cause
            .as_deref()
            .is_some_and(|c| c != CRASHED && !causes.says_no_reason(c))
        {
            continue;
        }
        let Some(p) = h.probe_failures.get(&r.instance) else {
            continue;
        };
        let checked = p
            .runs
            .iter()
            // Its records may be stamped by another clock (the journal's
            // check, the app's own shutdown line): a few seconds either way.
            .any(|(from, to, _)| {
                *from <= r.down + SEEN_TWICE_MS
                    && r.down - to <= CHECK_KILL_MS
                    && began.is_none_or(|b| *to > b)
            });
        if checked {
            r.cause = Some(
                if watchdog.contains(&r.instance) {
                    KILLED_BY_WATCHDOG
                } else {
                    KILLED_FOR_CHECK
                }
                .to_string(),
            );
        }
    }
}

/// A name seen only going down, never starting, whose every kill comes
/// with a restart of an instance that is seen starting, is the host that
/// reported that instance's death (a node's kernel monitor: `OOMKilling`
/// on the node, `BackOff` and `Started` on the pod), not an instance of its
/// own: counting it would count one restart twice.
fn drop_reports_of_others(h: &mut InstanceHistory, seen_up: &BTreeSet<String>) {
    let near = |r: &Restart| {
        h.restarts.iter().any(|o| {
            seen_up.contains(&o.instance)
                && o.instance != r.instance
                && (o.down - r.down).abs() <= SAME_RESTART_MS / 2
        })
    };
    let reporters: BTreeSet<String> = h
        .restarts
        .iter()
        .filter(|r| !seen_up.contains(&r.instance))
        .map(|r| r.instance.clone())
        .filter(|i| h.restarts.iter().filter(|r| &r.instance == i).all(&near))
        .collect();
    if reporters.is_empty() {
        return;
    }
    h.restarts.retain(|r| !reporters.contains(&r.instance));
    for i in &reporters {
        if !h.probe_failures.contains_key(i) {
            h.instances.remove(i);
        }
    }
}

/// Whether a stop was planned (a rollout or a person replacing the
/// instance) rather than the instance dying: its stated cause says it did
/// not die, or it states none and a change came within minutes of it
/// (`near_change`, asked only then).
pub fn planned(
    cause: Option<&str>,
    causes: &StopCauses,
    near_change: impl FnOnce() -> bool,
) -> bool {
    match cause {
        Some(c) if causes.died_of(c) => false,
        Some(c) if !causes.says_no_reason(c) => true,
        _ => near_change(),
    }
}

impl Restart {
    /// When the instance was back, or, if it was never seen back (replaced
    /// in a rollout, or the data ends), a bounded guess so that a removed
    /// instance does not count as down forever.
    pub fn back_by(&self) -> Millis {
        self.up.unwrap_or(self.down + SAME_RESTART_MS)
    }
}

impl InstanceHistory {
    /// The earliest run of restarts in which the most distinct instances
    /// went down within `span` ms of the first of them, counting only the
    /// restarts `keep` keeps (one restart per instance, its first).
    pub fn densest(&self, span: Millis, keep: impl Fn(&Restart) -> bool) -> Vec<&Restart> {
        let kept: Vec<&Restart> = self.restarts.iter().filter(|r| keep(r)).collect();
        let mut best: Vec<&Restart> = Vec::new();
        for (k, r) in kept.iter().enumerate() {
            let mut seen = BTreeSet::new();
            let group: Vec<&Restart> = kept
                .iter()
                .skip(k)
                .take_while(|o| o.down - r.down <= span)
                .filter(|o| seen.insert(o.instance.as_str()))
                .copied()
                .collect();
            if group.len() > best.len() {
                best = group;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stop-cause rules of `parsers/signals.json`.
    fn causes() -> StopCauses {
        crate::formats::Catalogue::builtin()
            .expect("catalogue")
            .rules
            .stop_causes
    }
    use crate::event::Signal;
    use crate::formats::Catalogue;

    fn restart(instance: &str, down: Millis, cause: Option<&str>) -> Restart {
        Restart {
            instance: instance.to_string(),
            down,
            up: None,
            source: Origin::default(),
            cause: cause.map(str::to_string),
        }
    }

    /// The app's log 5 s ahead of the journal: one watchdog kill reads as
    /// a restart in each. Two restarts 5 s apart in one input are two.
    #[test]
    fn one_restart_two_inputs_saw_with_skewed_clocks_is_one() {
        let seen = |down: Millis, up: Millis, input: u32, cause: Option<&str>| Restart {
            up: Some(up),
            source: Origin { input, line: 1 },
            ..restart("vm-15", down, cause)
        };
        let mut h = InstanceHistory {
            restarts: vec![
                seen(27_000, 28_000, 0, None),
                seen(32_000, 33_000, 1, Some(CRASHED)),
                seen(600_000, 601_000, 1, None),
                seen(605_000, 606_000, 1, None),
            ],
            ..InstanceHistory::default()
        };
        merge_seen_twice(&mut h, &causes());
        assert_eq!(h.seen_twice, [(0, 1, 5_000)]);
        // One shared restart is not enough to call the clocks apart; two are.
        assert!(clock_skews(&h).is_empty());
        h.seen_twice.push((1, 0, -4_000));
        assert_eq!(clock_skews(&h), [(0, 1, 5_000)]);
        let got: Vec<(Millis, Option<Millis>, Option<&str>)> = h
            .restarts
            .iter()
            .map(|r| (r.down, r.up, r.cause.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (27_000, Some(33_000), Some(CRASHED)),
                (600_000, Some(601_000), None),
                (605_000, Some(606_000), None)
            ]
        );
    }

    /// systemd kills a stuck unit, backs off 2.5 min, then logs "Stopped"
    /// and "Started": one restart, not two. Where no start is ever seen,
    /// kills far apart stay two restarts.
    #[test]
    fn a_unit_still_down_cannot_go_down_again() {
        let at = |t: Millis, mark: Mark| (t, mark, Origin::default(), None);
        let kill_backoff_start = vec![
            at(0, Mark::Down),
            at(150_000, Mark::Down),
            at(150_000, Mark::Up),
            at(200_000, Mark::Down),
            at(201_000, Mark::Up),
        ];
        let got: Vec<(Millis, Option<Millis>)> = restarts_of("vm-13", kill_backoff_start)
            .iter()
            .map(|r| (r.down, r.up))
            .collect();
        assert_eq!(got, [(0, Some(150_000)), (200_000, Some(201_000))]);
        let never_up = vec![at(0, Mark::Down), at(150_000, Mark::Down)];
        assert_eq!(restarts_of("vm-13", never_up).len(), 2);
    }

    #[test]
    fn a_node_reporting_its_pods_oom_kill_is_not_a_second_restart() {
        let mut h = InstanceHistory {
            instances: ["api-a", "worker-1"]
                .into_iter()
                .map(String::from)
                .collect(),
            restarts: vec![
                restart("worker-1", 10_000, Some("Container api was OOMKilled")),
                restart(
                    "api-a",
                    12_000,
                    Some("Back-off restarting failed container"),
                ),
            ],
            ..InstanceHistory::default()
        };
        let up: BTreeSet<String> = ["api-a".to_string()].into_iter().collect();
        drop_reports_of_others(&mut h, &up);
        assert_eq!(h.restarts.len(), 1);
        assert_eq!(h.restarts[0].instance, "api-a");
        assert!(!h.instances.contains("worker-1"));
    }

    /// ECS says "failed container health checks" once per failure: three
    /// are three. Kubernetes repeats one `Unhealthy` event with a growing
    /// count: 1, then 3, is three.
    #[test]
    fn probe_failures_count_separate_events_and_a_repeated_event_once() {
        use crate::event::{EventSink, InfraEvent};
        let rules = Catalogue::builtin().expect("catalogue").rules;
        let mut agg = Aggregates::new();
        let mut push = |first_ts: Millis, ts: Millis, object: &str, message: &str, count: u32| {
            agg.push(crate::event::Event::Infra(InfraEvent {
                ts,
                first_ts,
                origin: Origin::default(),
                kind: rules.infra_kind("Unhealthy", message),
                object: object.into(),
                reason: "Unhealthy".into(),
                message: message.into(),
                count,
                members: rules.infra_members(message),
                host: None,
            }));
        };
        for k in 0..3 {
            push(
                600_000 + k * 20_000,
                600_000 + k * 20_000,
                "orders-api",
                "(service orders-api) (task aaaa1111) failed container health checks.",
                1,
            );
        }
        // The service's own target failing, no task named: no instance.
        push(
            610_000,
            610_000,
            "orders-api",
            "(service orders-api) (port 8080) is unhealthy in (target-group arn:aws:elasticloadbalancing:eu-west-1:1:targetgroup/orders/2) due to (reason Request timed out).",
            1,
        );
        push(
            600_000,
            600_000,
            "api-7c9d-x2",
            "Liveness probe failed: timeout",
            1,
        );
        push(
            600_000,
            640_000,
            "api-7c9d-x2",
            "Liveness probe failed: timeout",
            3,
        );
        let ids =
            crate::correlate::identity::build(&agg, crate::aggregate::Span::new(0, 1000), &[]);
        let h = history(&agg, &ids, &causes());
        assert_eq!(
            h.probe_failures["aaaa1111"].count, 3,
            "{:?}",
            h.probe_failures
        );
        assert_eq!(
            h.probe_failures["api-7c9d-x2"].count, 3,
            "{:?}",
            h.probe_failures
        );
        assert!(!h.probe_failures.contains_key("orders-api"));
        assert!(!h.instances.contains("orders-api"));
    }

    /// ECS service events are about a service and name its tasks: the
    /// tasks restarted, and the service is no instance ("1 of 4 instances
    /// restarted" with the service among them was a review's finding).
    #[test]
    fn an_ecs_service_is_no_instance_its_tasks_are() {
        use crate::event::{EventSink, InfraEvent};
        let rules = Catalogue::builtin().expect("catalogue").rules;
        let mut agg = Aggregates::new();
        let mut push = |ts: Millis, message: &str, reason: &str| {
            agg.push(crate::event::Event::Infra(InfraEvent {
                ts,
                first_ts: ts,
                origin: Origin::default(),
                kind: rules.infra_kind(reason, message),
                object: "orders-api".into(),
                reason: reason.into(),
                message: message.into(),
                count: 1,
                members: rules.infra_members(message),
                host: None,
            }));
        };
        for (k, t) in ["aaaa1111", "bbbb2222"].iter().enumerate() {
            let at = 600_000 + 5_000 * k as Millis;
            push(
                at,
                "(service orders-api) has reached a steady state.",
                "SteadyState",
            );
            for rep in 0..2 {
                let at = at + rep * 60_000;
                push(
                    at,
                    &format!("(service orders-api) has stopped 1 running tasks: (task {t})."),
                    "TaskStopped",
                );
                push(
                    at + 20_000,
                    &format!("(service orders-api) has started 1 tasks: (task {t})."),
                    "TaskStarted",
                );
            }
        }
        push(
            700_000,
            "(service orders-api) is unable to consistently start tasks successfully.",
            "TaskFailedToStart",
        );
        let ids =
            crate::correlate::identity::build(&agg, crate::aggregate::Span::new(0, 1000), &[]);
        let h = history(&agg, &ids, &causes());
        assert!(!h.instances.contains("orders-api"), "{:?}", h.instances);
        assert!(
            h.restarts.iter().all(|r| r.instance != "orders-api"),
            "{:?}",
            h.restarts
        );
        for t in ["aaaa1111", "bbbb2222"] {
            assert_eq!(
                h.restarts.iter().filter(|r| r.instance == t).count(),
                2,
                "{:?}",
                h.restarts
            );
        }
        assert_eq!(h.groups["orders-api"].len(), 2);
    }

    #[test]
    fn a_kill_nobody_else_restarted_for_stays() {
        let mut h = InstanceHistory {
            restarts: vec![
                restart("vm-1", 10_000, Some("the process crashed")),
                restart("api-a", 600_000, None),
            ],
            ..InstanceHistory::default()
        };
        let up: BTreeSet<String> = ["api-a".to_string()].into_iter().collect();
        drop_reports_of_others(&mut h, &up);
        assert_eq!(h.restarts.len(), 2);
    }

    #[test]
    fn a_check_kills_only_the_life_it_failed_in() {
        let mut h = InstanceHistory {
            restarts: vec![
                // The app's shutdown line at 100 s, back at 102 s; the
                // rollback stopped it again at 126 s.
                Restart {
                    up: Some(102_000),
                    ..restart("api-a", 100_000, None)
                },
                restart("api-a", 126_000, None),
            ],
            ..InstanceHistory::default()
        };
        // The journal's watchdog timeout, stamped a second after the app's line.
        h.probe_failures.insert(
            "api-a".into(),
            ProbeFailures {
                first: 101_000,
                last: 101_000,
                count: 1,
                origin: Origin::default(),
                runs: vec![(101_000, 101_000, Origin::default())],
            },
        );
        let watchdog: BTreeSet<String> = ["api-a".to_string()].into();
        killed_for_the_check(&mut h, &watchdog, &StopCauses::default());
        let causes: Vec<Option<&str>> = h.restarts.iter().map(|r| r.cause.as_deref()).collect();
        assert_eq!(causes, [Some(KILLED_BY_WATCHDOG), None]);
        // Failing again in its new life, it was killed again.
        if let Some(p) = h.probe_failures.get_mut("api-a") {
            p.runs.push((120_000, 121_000, Origin::default()));
        }
        for r in &mut h.restarts {
            r.cause = None;
        }
        killed_for_the_check(&mut h, &watchdog, &StopCauses::default());
        assert!(h
            .restarts
            .iter()
            .all(|r| r.cause.as_deref() == Some(KILLED_BY_WATCHDOG)));
    }

    #[test]
    fn a_hosts_restart_seen_as_one_residents_is_that_residents() {
        let mut ids = Identities::default();
        for (pod, node) in [("old", "node-1"), ("new", "node-1"), ("other", "node-2")] {
            ids.add(pod);
            ids.add(node);
            ids.place(pod, node);
        }
        let at = |instance: &str, down: Millis, input: u32| Restart {
            source: Origin { input, line: 1 },
            ..restart(instance, down, None)
        };
        // The node's journal 2 s before the pod's own log, and a third
        // pod down at the same time.
        let history = |third: &str| InstanceHistory {
            instances: ["node-1", "new", third].map(String::from).into(),
            restarts: vec![
                at("node-1", 100_000, 0),
                at("new", 102_000, 1),
                at(third, 101_000, 1),
            ],
            ..InstanceHistory::default()
        };
        // The third on its own node: the node's restart is the new pod's.
        let mut h = history("other");
        attribute_host_restarts(&mut h, &ids);
        merge_seen_twice(&mut h, &causes());
        let down: Vec<&str> = h.restarts.iter().map(|r| r.instance.as_str()).collect();
        assert_eq!(down, ["new", "other"]);
        assert!(!h.instances.contains("node-1"));
        // Two residents down with it: which one it was is not known.
        let mut h = history("old");
        attribute_host_restarts(&mut h, &ids);
        let of_node = h.restarts.iter().filter(|r| r.instance == "node-1");
        assert_eq!(of_node.count(), 1);
    }

    #[test]
    fn the_densest_minute_is_the_earliest_with_the_most_instances() {
        let h = InstanceHistory {
            restarts: vec![
                restart("a", 0, None),
                restart("b", 20_000, None),
                restart("a", 30_000, None),
                restart("a", 300_000, None),
                restart("b", 310_000, None),
            ],
            ..InstanceHistory::default()
        };
        let g = h.densest(60_000, |_| true);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].down, 0);
    }

    /// Restarts seen only in start-up and shutdown lines need those lines
    /// read as such, in the words each runtime and systemd use.
    #[test]
    fn start_up_and_shutdown_lines_signal() {
        let rules = Catalogue::builtin().expect("catalogue").rules;
        let cases = [
            (
                "* Listening on http://10.42.3.19:3000",
                Some(Signal::Startup),
            ),
            (
                "Listening at: http://0.0.0.0:8000 (1)",
                Some(Signal::Startup),
            ),
            ("Puma starting in single mode...", Some(Signal::Startup)),
            ("Started API service.", Some(Signal::Startup)),
            (
                "DiscoveryClient_API/10.42.1.11:8080 - registration status: 204",
                Some(Signal::Startup),
            ),
            ("Stopped API service.", Some(Signal::Shutdown)),
            (
                "app.service: Watchdog timeout (limit 30s)!",
                Some(Signal::HealthCheckFailed),
            ),
            ("Handling signal: term", Some(Signal::Shutdown)),
            // A Rails request line is not a start-up.
            (
                "Started GET \"/api/v1/orders\" for 10.0.0.1 at 2026-10-01 07:00:00 +0000",
                None,
            ),
        ];
        for (message, want) in cases {
            assert_eq!(rules.signal_of(message), want, "{message}");
        }
    }

    /// A Go service's last words before a crash say what killed it: the
    /// restart's cause is memory, not "exited abnormally" (review: 59 `fatal
    /// error: runtime: out of memory` lines, and a draft that never said so).
    #[test]
    fn a_crash_line_that_names_memory_is_the_restarts_cause() {
        use crate::event::{Event, Level, LogRecord};
        let mut agg = Aggregates::new();
        let mut line = |ts: Millis, inst: &str, message: &str, signal: Signal| {
            agg.add(Event::Log(LogRecord {
                ts,
                origin: Origin::default(),
                level: Level::Error,
                message: message.to_string().into(),
                instance: Some(inst.to_string().into()),
                tenant: None,
                signal: Some(signal),
                version: None,
            }));
        };
        line(
            10_000,
            "web-1",
            "fatal error: runtime: out of memory",
            Signal::Crash,
        );
        line(40_000, "web-1", "listening on :8080", Signal::Startup);
        line(
            10_000,
            "web-2",
            "panic: runtime error: index out of range",
            Signal::Crash,
        );
        line(40_000, "web-2", "listening on :8080", Signal::Startup);
        agg.finish();
        let ids = crate::correlate::identity::build(&agg, crate::aggregate::Span::new(0, 100), &[]);
        let h = history(&agg, &ids, &causes());
        let cause = |i: &str| {
            h.restarts
                .iter()
                .find(|r| r.instance == i)
                .and_then(|r| r.cause.clone())
        };
        assert_eq!(cause("web-1").as_deref(), Some(RAN_OUT_OF_MEMORY));
        assert_eq!(cause("web-2").as_deref(), Some(CRASHED));
    }

    /// ECS says a service stopped a task, not why: near a change it was the
    /// rollout, away from one it died; a stated orderly stop is planned.
    #[test]
    fn a_stop_that_gives_no_reason_is_planned_only_near_a_change() {
        let ecs = "(service app) has stopped 1 running tasks: (task 30b9dd92).";
        let c = causes();
        assert!(!planned(Some(ecs), &c, || false));
        assert!(planned(Some(ecs), &c, || true));
        assert!(planned(Some("Stopping container app"), &c, || false));
        assert!(!planned(Some("Liveness probe failed"), &c, || true));
        assert!(planned(None, &c, || true));
        assert!(!planned(None, &c, || false));
    }
}
