//! The incident's timeline points and its instances, measured. In: the pattern context. Out:
//! `{kind: time}` (an array where a kind happened more than once) for the kinds of
//! `report-json.md` that apply, and each instance with its names and whether it was affected.
//!
//! Definitions (the contract): a point is given only when its pattern is required or its
//! change happened near the incident.
//! - `surge_start`: the surging tenant's first request from the fault on (`tenant_surge`).
//! - `pool_saturated`: the start of the first >= 5 s pool wait from 1 min before the onset
//!   (`pool_exhaustion`).
//! - `health_checks_failing`: the first probe failure from 1 min before the onset (dropped,
//!   with `health_check_coupling` from the required patterns and probe-only affected
//!   instances, when no exported file shows probes: `gen::write`).
//! - `errors_start`: the first fault failure answered of those sent in the incident's
//!   windows that meet the failure criterion (from the first such window on).
//! - `all_instances_restarted`: the first kill of the synchronized group
//!   (`synchronized_restart`).
//! - `retries`: the retrying client's first re-sent request once errors began (`errors_start`;
//!   its first in the incident where none came after) (`retry_storm`).
//! - `reconnect_spike`: the first connect of the first 10 s with half as many distinct clients
//!   connecting as the busiest 10 s (`thundering_herd`).
//! - `deploy`, `rollback`, `flag_change`, `scale_out`: the changes from 30 min before the
//!   onset to 10 min after recovery.
//! - `crash`: the first kill in the incident (`crash_loop`); `backlog_peak`: the queue's peak
//!   (`backlog_growth`); `instance_stuck`: when the first instance stopped answering
//!   (`stuck_instance`); `upstream_rate_limited`: the first upstream rate-limit line
//!   (`upstream_rate_limit`); `recovered`: the recovery.
//!
//! An instance is *affected* when, in the incident, it answered >= 3 fault failures (and >= 1%
//! of its requests), was killed, failed a probe, had a request wait >= 5 s for its pool, or
//! stopped answering. The fleet is every instance routed to during the incident.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::super::facts::*;
use super::super::time::iso_s;
use super::patterns::{causal, herd_counts, kills, queue, sync_group, top_retrier, Ctx, Verdict};
use super::symptoms::{fault_failure, W};

pub fn timeline(
    c: &Ctx,
    verdicts: &[(&'static str, Verdict, Value)],
) -> BTreeMap<&'static str, Vec<Ms>> {
    let req = |id: &str| {
        verdicts
            .iter()
            .any(|x| x.0 == id && x.1 == Verdict::Required)
    };
    let mut t: BTreeMap<&'static str, Vec<Ms>> = BTreeMap::new();
    let (on, rec) = (c.onset, c.recovered);
    if req("tenant_surge") {
        if let Some(k) = c.d.intent.culprit {
            if let Some(r) =
                c.w.requests
                    .iter()
                    .find(|r| r.start >= c.d.intent.fault && r.tenant == Some(k))
            {
                t.insert("surge_start", vec![r.start]);
            }
        }
    }
    if req("pool_exhaustion") {
        let first =
            c.g.pool_waits
                .iter()
                .flatten()
                .filter(|(a, b)| b - a >= 5_000 && *b > on - 60_000 && *a < rec)
                .map(|x| x.0)
                .min();
        if let Some(x) = first {
            t.insert("pool_saturated", vec![x]);
        }
    }
    if let Some(x) =
        c.g.probe_failures
            .iter()
            .map(|x| x.0)
            .filter(|x| *x >= on - 60_000 && *x < rec)
            .min()
    {
        t.insert("health_checks_failing", vec![x]);
    }
    if let Some(x) = errors_start(c) {
        t.insert("errors_start", vec![x]);
    }
    if req("synchronized_restart") {
        t.insert("all_instances_restarted", vec![sync_group(c).1]);
    }
    if req("retry_storm") {
        if let Some(x) = top_retrier(c, false).first {
            t.insert("retries", vec![x]);
        }
    }
    if req("thundering_herd") {
        t.insert("reconnect_spike", vec![herd_counts(c).2]);
    }
    for ch in
        c.w.changes
            .iter()
            .filter(|ch| ch.ts >= on - 1_800_000 && ch.ts <= rec + 600_000)
    {
        let kind = match ch.kind {
            ChangeKind::Deploy => "deploy",
            ChangeKind::Rollback => "rollback",
            ChangeKind::FlagChange | ChangeKind::FlagRevert => "flag_change",
            ChangeKind::ScaleOut => "scale_out",
            _ => continue,
        };
        t.entry(kind).or_default().push(ch.ts);
    }
    if req("crash_loop") {
        if let Some((x, _)) = kills(c.w, on - 60_000, rec).first() {
            t.insert("crash", vec![*x]);
        }
    }
    if req("backlog_growth") {
        if let Some((_, _, x)) = queue(c) {
            t.insert("backlog_peak", vec![x]);
        }
    }
    if req("stuck_instance") {
        if let Some(x) = c.g.stuck.iter().map(|x| x.1).min() {
            t.insert("instance_stuck", vec![x]);
        }
    }
    if req("upstream_rate_limit") {
        if let Some(l) =
            c.w.logs
                .iter()
                .find(|l| l.topic == LogTopic::UpstreamRateLimited && l.ts >= on)
        {
            t.insert("upstream_rate_limited", vec![l.ts]);
        }
    }
    let _ = causal(c);
    t.insert("recovered", vec![rec]);
    t
}

/// The first fault failure answered of those sent in the incident's failing windows (each
/// meeting the failure criterion), from the first on. Answered, not sent: a request held
/// until a client's 60 s timeout, sent in the first failing window, is seen to fail after
/// the load balancer's fast 503s to requests sent later (stuck-instances draw 1818107 dated
/// its errors 31 s after the first 503 in the access log).
pub(super) fn errors_start(c: &Ctx) -> Option<Ms> {
    let s = c.s;
    let (a, b) = s.incident?;
    let w = (a..=b).find(|i| s.failing(*i))?;
    let (x, y) = (s.start + w as Ms * W, s.start + (b as Ms + 1) * W);
    c.w.requests
        .iter()
        .zip(&c.g.requests)
        .filter(|(r, t)| r.start >= x && r.start < y && fault_failure(r, t))
        .filter(|(r, _)| s.failing(((r.start - s.start) / W) as usize))
        .map(|(r, _)| r.start + r.duration_ms as Ms)
        .min()
}

pub fn json_times(t: &BTreeMap<&'static str, Vec<Ms>>) -> Value {
    let mut m = serde_json::Map::new();
    for (k, v) in t {
        let v: Vec<String> = v.iter().map(|x| iso_s(*x)).collect();
        m.insert(
            k.to_string(),
            if v.len() == 1 { json!(v[0]) } else { json!(v) },
        );
    }
    Value::Object(m)
}

/// How far the incident's edges may move (the recovery check's tolerance):
/// an instance first routed to, or last routed to, that near an edge may
/// count in the fleet or not.
const FLEET_EDGE_MS: Ms = 60_000;

/// (each instance as JSON, fleet size and its range with the edges moved by
/// [`FLEET_EDGE_MS`], affected count and the count with the edges moved in).
pub fn instances(c: &Ctx) -> (Vec<Value>, (usize, usize, usize), (usize, usize)) {
    let (on, rec) = (c.onset, c.recovered);
    let n = c.w.instances.len();
    let (core_on, core_rec) = (
        on + FLEET_EDGE_MS,
        (rec - FLEET_EDGE_MS).max(on + FLEET_EDGE_MS),
    );
    // Per instance: requests and fault failures in the incident, and in its
    // core (the edges moved in by the tolerance).
    let mut fails = vec![[0usize; 2]; n];
    let mut reqs = vec![[0usize; 2]; n];
    for (r, x) in
        c.w.requests
            .iter()
            .zip(&c.g.requests)
            .filter(|(r, _)| r.start >= on && r.start < rec)
    {
        if let Some(i) = r.instance {
            let core = (r.start >= core_on && r.start < core_rec) as usize;
            let f = fault_failure(r, x) as usize;
            reqs[i][0] += 1;
            fails[i][0] += f;
            reqs[i][1] += core;
            fails[i][1] += f * core;
        }
    }
    let kills_in =
        |a: Ms, b: Ms| -> Vec<usize> { kills(c.w, a, b).into_iter().map(|x| x.1).collect() };
    let killed = [kills_in(on - 60_000, rec), kills_in(core_on, core_rec)];
    let mut out = Vec::new();
    let (mut fleet, mut affected, mut core_affected) = (0, 0, 0);
    let (mut least, mut most) = (0, 0);
    for (i, inst) in c.w.instances.iter().enumerate() {
        let routed = inst.routed.iter().any(|(a, b)| *a < rec && *b > on);
        least += inst
            .routed
            .iter()
            .any(|(a, b)| *a < core_rec && *b > core_on) as usize;
        most += inst
            .routed
            .iter()
            .any(|(a, b)| *a < rec + FLEET_EDGE_MS && *b > on - FLEET_EDGE_MS)
            as usize;
        // Affected between `a` and `b` (`k` picks the counts of that span).
        let hit = |k: usize, a: Ms, b: Ms| {
            let probed =
                c.g.probe_failures
                    .iter()
                    .any(|(t, j, _)| *j == i && *t >= a && *t < b);
            let otherwise = (fails[i][k] >= 3 && fails[i][k] * 100 >= reqs[i][k])
                || killed[k].contains(&i)
                || c.g
                    .pool_waits
                    .get(i)
                    .is_some_and(|s| s.iter().any(|(x, y)| y - x >= 5_000 && *y > a && *x < b))
                || c.g.stuck.iter().any(|(j, t)| *j == i && *t < b);
            (probed, otherwise)
        };
        let (probed, otherwise) = hit(0, on - 60_000, rec);
        let aff = probed || otherwise;
        // Affected only within the tolerance of an edge (a scale-out's new
        // instance waiting on its pool in the incident's last 40 s): the
        // edges may move that far, so it may count or not.
        let (p, o) = hit(1, core_on, core_rec);
        let core = aff && (p || o);
        fleet += routed as usize;
        affected += aff as usize;
        core_affected += core as usize;
        out.push(json!({
            "pod": inst.pod,
            "addr": format!("{}:{}", inst.ip, inst.port),
            "ip": inst.ip,
            "host": inst.host,
            "task_id": inst.task_id,
            "version": inst.version,
            "routed_in_incident": routed,
            "affected": aff,
            "affected_at_an_edge_only": aff && !core,
            // Affected by failed probes alone: unseen where no export shows probes.
            "affected_by_probes_only": probed && !otherwise,
        }));
    }
    (
        out,
        (fleet, least.min(fleet), most.max(fleet)),
        (affected, core_affected),
    )
}
