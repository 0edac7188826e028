//! Which cascade patterns the incident shows, measured. Each pattern is *required* when
//! clearly present, *forbidden* when clearly absent, neither in between; on a quiet day every
//! pattern is forbidden. In: the world, the ground truth, the symptoms and shares. Out: a
//! verdict and the figures behind it per pattern id of `patterns.md`.
//!
//! Definitions (I = the incident, [onset, recovered]; the contract):
//! - `tenant_surge`: required when a tenant's request rate in I is >= 5x its baseline rate,
//!   its share of I's requests >= 0.3 and that share rose >= 0.2; forbidden when no tenant
//!   has >= 2x, >= 0.1 and a rise >= 0.05.
//! - `slow_request_hogging`: required when a tenant's or route's share of busy time or of pool
//!   hold time in I is >= 0.3, >= 2x its share of requests, and rose >= 0.2 over its baseline
//!   share; forbidden when no tenant, route or instance has >= 0.15, >= 1.5x and a rise >= 0.1.
//! - `pool_exhaustion`: required when a pool had a request waiting for >= 10 s on end in I
//!   and at least 3 requests failed on the acquire timeout; forbidden when no wait reached
//!   1 s and no request failed so.
//! - `health_check_coupling`: required when the probes take a pool connection and probes
//!   failed in I on >= 2 instances while their pool had waiters; forbidden when the probes
//!   do not touch the pool or no probe failed while its pool had waiters.
//! - `synchronized_restart`: required when >= 2 instances and >= half of those running were
//!   killed (liveness, OOM, crash) within 60 s; forbidden when no 60 s saw two such kills.
//! - `retry_storm`: required when a client (a tenant, or a non-browser agent) re-sent >= 100
//!   failed requests in I, >= 30% of its requests there, at a rate above its baseline rate;
//!   forbidden when no client re-sent >= 20 and >= 10% of its requests.
//! - `thundering_herd`: required when the distinct clients on connect and login routes in a
//!   minute of I are >= 10x their usual count per minute and >= 100; forbidden below 3x or 30.
//! - `crash_loop`: required when an instance was killed >= 2 times in I; forbidden when none was.
//! - `backlog_growth`: required when the queue depth peaked (in I and 30 min after) >= 5x its
//!   baseline median and >= 100; forbidden without a queue, or below 2x or 20.
//! - `stuck_instance`: required when a minority of instances had a timeout rate (504, 499) in
//!   I >= 10x their peers' and >= 20% while the peers failed < 10% of their requests;
//!   forbidden when none had >= 3x and >= 5%. Peers are the instances serving in I's first
//!   half (not those a scale-out added at its end).
//! - `upstream_rate_limit`: required with >= 20 upstream rate-limit lines from the onset on;
//!   forbidden with none.
//! - `red_herring_deploy`: required when a deploy or rollback within 30 min of the onset was
//!   not the cause (the simulation knows the cause); forbidden when there is none.
//! - `deploy_regression`: required when the change that caused it (a deploy, canary or flag)
//!   came within 30 min before the onset; forbidden when no change caused it.
//! - `read_path_writes`: no database write metrics are simulated: neither (forbidden on a
//!   quiet day).

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};

use super::super::facts::*;
use super::super::scenarios::{CausalChange, Draw};
use super::super::sim::Ground;
use super::super::time::iso_s;
use super::shares::{round3, Shares, BUSY, HOLD, REQ};
use super::symptoms::{hard_kill, is_api, Symptoms, W};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Required,
    Forbidden,
    Neither,
}

pub const IDS: [&str; 14] = [
    "tenant_surge",
    "pool_exhaustion",
    "health_check_coupling",
    "synchronized_restart",
    "retry_storm",
    "thundering_herd",
    "crash_loop",
    "backlog_growth",
    "stuck_instance",
    "slow_request_hogging",
    "read_path_writes",
    "upstream_rate_limit",
    "red_herring_deploy",
    "deploy_regression",
];

fn v(required: bool, forbidden: bool) -> Verdict {
    if required {
        Verdict::Required
    } else if forbidden {
        Verdict::Forbidden
    } else {
        Verdict::Neither
    }
}

pub struct Ctx<'a> {
    pub d: &'a Draw,
    pub w: &'a World,
    pub g: &'a Ground,
    pub s: &'a Symptoms,
    pub sh: &'a Shares,
    pub onset: Ms,
    pub recovered: Ms,
}

/// Hard kills (time, instance) within [a, b).
pub fn kills(w: &World, a: Ms, b: Ms) -> Vec<(Ms, usize)> {
    let mut out: Vec<(Ms, usize)> = w
        .instances
        .iter()
        .enumerate()
        .flat_map(|(i, inst)| {
            inst.lives
                .iter()
                .filter(|l| hard_kill(l.end_cause))
                .filter_map(move |l| l.ended.map(|t| (t, i)))
        })
        .filter(|(t, _)| *t >= a && *t < b)
        .collect();
    out.sort();
    out
}

pub fn measure(c: &Ctx) -> Vec<(&'static str, Verdict, Value)> {
    let mut out = vec![
        ("tenant_surge", surge(c)),
        ("slow_request_hogging", hogging(c)),
        ("pool_exhaustion", pool(c)),
        ("health_check_coupling", coupling(c)),
        ("synchronized_restart", sync_restart(c)),
        ("retry_storm", retries(c)),
        ("thundering_herd", herd(c)),
        ("crash_loop", crash_loop(c)),
        ("backlog_growth", backlog(c)),
        ("stuck_instance", stuck(c)),
        ("upstream_rate_limit", upstream(c)),
        ("red_herring_deploy", red_herring(c)),
        ("deploy_regression", regression(c)),
        (
            "read_path_writes",
            (
                Verdict::Neither,
                json!({"note": "no database write metrics are simulated"}),
            ),
        ),
    ]
    .into_iter()
    .map(|(id, (v, f))| (id, v, f))
    .collect::<Vec<_>>();
    out.sort_by_key(|x| IDS.iter().position(|y| *y == x.0));
    out
}

fn surge(c: &Ctx) -> (Verdict, Value) {
    let t = &c.sh.tenants;
    let mut best = (0usize, 0.0, 0.0, 0.0);
    let mut any = false;
    for k in 0..t.rows.len() {
        let rate_b = t.rows[k].b[REQ].max(0.5) / c.sh.base_s;
        let ratio = t.rows[k].i[REQ] / c.sh.inc_s / rate_b;
        let share = t.share_i(k, REQ);
        let rise = share - t.share_b(k, REQ);
        any |= ratio >= 2.0 && share >= 0.1 && rise >= 0.05;
        if share > best.2 && ratio >= 2.0 {
            best = (k, ratio, share, rise);
        }
    }
    let req = best.1 >= 5.0 && best.2 >= 0.3 && best.3 >= 0.2;
    (
        v(req, !any),
        json!({"tenant": c.w.tenants.get(best.0).map(|x| x.id.clone()), "rate_ratio": round3(best.1), "share": round3(best.2), "share_rise": round3(best.3)}),
    )
}

fn hogging(c: &Ctx) -> (Verdict, Value) {
    let mut best = json!(null);
    let mut best_share = 0.0;
    let mut present = false;
    let mut any = false;
    for (name, table, subject) in [
        ("tenant", &c.sh.tenants, true),
        ("route", &c.sh.routes, true),
        ("instance", &c.sh.instances, false),
    ] {
        for k in 0..table.rows.len() {
            let req = table.share_i(k, REQ);
            for j in [BUSY, HOLD] {
                let sh = table.share_i(k, j);
                let rise = sh - table.share_b(k, j);
                if subject && sh >= 0.3 && sh >= 2.0 * req && rise >= 0.2 {
                    present = true;
                    if sh > best_share {
                        best_share = sh;
                        let id = match name {
                            "tenant" => c.w.tenants[k].id.clone(),
                            "route" => c.g.routes[k].clone(),
                            _ => c.w.instances[k].pod.clone(),
                        };
                        best = json!({"subject": name, "id": id, "measure": if j == BUSY { "busy time" } else { "pool hold time" }, "share": round3(sh), "share_of_requests": round3(req), "rise": round3(rise)});
                    }
                }
                any |= sh >= 0.15 && sh >= 1.5 * req && rise >= 0.1;
            }
        }
    }
    (v(present, !any), best)
}

fn pool(c: &Ctx) -> (Verdict, Value) {
    let longest =
        c.g.pool_waits
            .iter()
            .flatten()
            .filter(|(a, b)| *b > c.onset && *a < c.recovered)
            .map(|(a, b)| b.min(&c.recovered) - a.max(&c.onset))
            .max()
            .unwrap_or(0);
    let timeouts = c
        .w
        .requests
        .iter()
        .filter(|r| {
            r.start >= c.onset && r.start < c.recovered && r.failure == Some(Failure::PoolTimeout)
        })
        .count();
    (
        v(
            longest >= 10_000 && timeouts >= 3,
            longest < 1_000 && timeouts == 0,
        ),
        json!({"longest_wait_s": longest / 1000, "acquire_timeouts": timeouts}),
    )
}

fn waiting_at(g: &Ground, i: usize, t: Ms) -> bool {
    g.pool_waits
        .get(i)
        .is_some_and(|s| s.iter().any(|(a, b)| *a <= t && t <= *b))
}

fn coupling(c: &Ctx) -> (Verdict, Value) {
    let p = &c.d.cfg.probes;
    let db = p.readiness.db || p.liveness.as_ref().is_some_and(|l| l.db);
    let insts: HashSet<usize> =
        c.g.probe_failures
            .iter()
            .filter(|(t, i, _)| *t >= c.onset && *t < c.recovered && waiting_at(c.g, *i, *t))
            .map(|x| x.1)
            .collect();
    let failures =
        c.g.probe_failures
            .iter()
            .filter(|(t, _, _)| *t >= c.onset && *t < c.recovered)
            .count();
    // Forbidden only where no instance failed a probe while its pool had
    // waiters. A probe that needs no connection but failed then was still
    // answered by a server whose workers all waited on the pool: failing
    // with user traffic is what the data shows, so neither asked nor
    // forbidden (bulk-export draw 1601008: 28 such failures, called a
    // false finding).
    (
        v(db && insts.len() >= 2, insts.is_empty()),
        json!({"probes_need_db": db, "instances_failing_while_pool_waits": insts.len(), "probe_failures": failures}),
    )
}

/// The largest number of distinct instances killed within 60 s, with its first kill.
fn densest(kills: &[(Ms, usize)]) -> (usize, Ms) {
    let mut best = (0, 0);
    for (k, &(t, _)) in kills.iter().enumerate() {
        let set: HashSet<usize> = kills[k..]
            .iter()
            .take_while(|x| x.0 < t + 60_000)
            .map(|x| x.1)
            .collect();
        if set.len() > best.0 {
            best = (set.len(), t);
        }
    }
    best
}

pub fn sync_group(c: &Ctx) -> (usize, Ms, usize) {
    let ks = kills(c.w, c.onset - 60_000, c.recovered);
    let (k, t) = densest(&ks);
    let running =
        c.w.instances
            .iter()
            .filter(|i| {
                i.lives
                    .iter()
                    .any(|l| l.started < t - 1000 && l.ended.is_none_or(|e| e >= t - 1000))
            })
            .count();
    (k, t, running)
}

fn sync_restart(c: &Ctx) -> (Verdict, Value) {
    let (k, _, running) = sync_group(c);
    (
        v(k >= 2 && 2 * k >= running, k <= 1),
        json!({"killed_within_60s": k, "running_before": running}),
    )
}

/// The client that re-sent most: (name, retries, requests, rate during I, baseline rate).
/// Whether the service's own request log (written by each instance) has `r`: it
/// reached an instance and did not kill it mid-request. A load balancer's log has
/// every request.
pub fn own_log_has(r: &Request) -> bool {
    r.instance.is_some() && r.failure != Some(Failure::UpstreamReset)
}

/// The client that re-sent the most requests in the incident: who, with its figures.
/// With `own_log`, as the
/// service's own log shows it: only the requests it has, and a re-send only where the
/// attempt before it (same client, method and path) is in it too; a re-send of what
/// the load balancer answered alone looks like a first try there.
pub fn top_retrier(c: &Ctx, own_log: bool) -> Retrier {
    // Per client: re-sent and requests in the incident, requests in the baseline, the
    // first re-send in the incident.
    // The storm is re-sending during the failures (`patterns.md`: "during or
    // right after an error/restart span"): a stray failure re-sent in the ramp
    // minutes before errors start is not its beginning (organic-growth draw
    // 2501004: one at 03:02:29, errors from 03:08:11). The first re-send in
    // the incident stands where none came after errors began.
    let errors_from = super::timeline::errors_start(c).unwrap_or(c.onset);
    let mut first_in_errors: HashMap<String, Ms> = HashMap::new();
    let mut by: HashMap<String, (usize, usize, usize, Option<Ms>)> = HashMap::new();
    let mut last_logged: HashMap<(&str, &str, &str, &str), bool> = HashMap::new();
    for r in c.w.requests.iter().filter(|r| is_api(r)) {
        let logged = own_log_has(r);
        let before = last_logged.insert(
            (
                r.client_ip.as_str(),
                r.user_agent.as_str(),
                r.method.as_str(),
                r.path.as_str(),
            ),
            logged,
        );
        if own_log && !logged {
            continue;
        }
        let resent = r.retry && (!own_log || before == Some(true));
        let base =
            c.s.baseline
                .get(((r.start - c.s.start) / W) as usize)
                .copied()
                .unwrap_or(false);
        let inc = r.start >= c.onset && r.start < c.recovered;
        if !base && !inc {
            continue;
        }
        let mut keys = Vec::new();
        if let Some(t) = r.tenant {
            keys.push(format!("tenant {}", c.w.tenants[t].id));
        }
        if !r.user_agent.starts_with("Mozilla") {
            keys.push(format!(
                "agent {}",
                r.user_agent.split('/').next().unwrap_or("")
            ));
        }
        for k in keys {
            let e = by.entry(k.clone()).or_default();
            if inc {
                e.1 += 1;
                e.0 += resent as usize;
                if resent && e.3.is_none() {
                    e.3 = Some(r.start);
                }
                if resent && r.start >= errors_from {
                    first_in_errors.entry(k.clone()).or_insert(r.start);
                }
            } else {
                e.2 += 1;
            }
        }
    }
    let mut best = Retrier::default();
    let mut keys: Vec<_> = by.into_iter().collect();
    keys.sort_by(|a, b| a.0.cmp(&b.0));
    for (k, (re, n, nb, first)) in keys {
        if re > best.resent {
            let first = first_in_errors.get(&k).copied().or(first);
            best = Retrier {
                who: k,
                resent: re,
                requests: n,
                rate: n as f64 / c.sh.inc_s,
                baseline_rate: nb as f64 / c.sh.base_s.max(1.0),
                first,
            };
        }
    }
    best
}

/// The client that re-sent the most (`top_retrier`).
#[derive(Default)]
pub struct Retrier {
    /// `tenant ID` or `agent NAME`.
    pub who: String,
    pub resent: usize,
    /// Its requests in the incident.
    pub requests: usize,
    /// Its rates in the incident and the baseline, per second.
    pub rate: f64,
    pub baseline_rate: f64,
    /// Its first re-send once errors began (else its first in the incident).
    pub first: Option<Ms>,
}

fn retries(c: &Ctx) -> (Verdict, Value) {
    let (verdict, figures) = retries_seen(c, false);
    let (own_verdict, own_figures) = retries_seen(c, true);
    let mut figures = figures;
    if let Some(o) = figures.as_object_mut() {
        let mut own = own_figures;
        if let Some(x) = own.as_object_mut() {
            x.insert("required".into(), json!(own_verdict == Verdict::Required));
        }
        o.insert("own_log".into(), own);
    }
    (verdict, figures)
}

/// The retry storm as every request shows it, or (`own_log`) as the service's own log
/// does: `gen::write` takes the second where no load balancer's log is exported.
fn retries_seen(c: &Ctx, own_log: bool) -> (Verdict, Value) {
    let r = top_retrier(c, own_log);
    let (re, n) = (r.resent, r.requests);
    let share = re as f64 / n.max(1) as f64;
    (
        v(
            re >= 100 && share >= 0.3 && r.rate > r.baseline_rate,
            !(re >= 20 && share >= 0.1),
        ),
        json!({"client": r.who, "resent": re, "requests": n, "share": round3(share), "rate_per_s": round3(r.rate), "baseline_rate_per_s": round3(r.baseline_rate), "first_resent": r.first.map(iso_s)}),
    )
}

/// Distinct client addresses per minute on connect and login routes: (usual per minute,
/// peak in I on a grid from the onset, the first connect of the first 10 s with half the
/// busiest 10 s's distinct clients).
pub fn herd_counts(c: &Ctx) -> (f64, usize, Ms) {
    let mut base: HashMap<i64, HashSet<&str>> = HashMap::new();
    let mut inc: HashMap<i64, HashSet<&str>> = HashMap::new();
    // The incident's connects in order, for when the storm began: on a grid
    // from the onset, the peak minute's first request was an ordinary one up
    // to a minute before the storm (herd draw 2501016: 06:09:40 against
    // connects surging from 06:10:30).
    let mut connects: Vec<(Ms, &str)> = Vec::new();
    for r in
        c.w.requests
            .iter()
            .filter(|r| matches!(r.kind, ReqKind::Websocket | ReqKind::Login))
    {
        let is_base =
            c.s.baseline
                .get(((r.start - c.s.start) / W) as usize)
                .copied()
                .unwrap_or(false);
        if is_base {
            base.entry((r.start - c.s.start) / 60_000)
                .or_default()
                .insert(&r.client_ip);
        } else if r.start >= c.onset && r.start < c.recovered {
            let m = (r.start - c.onset) / 60_000;
            inc.entry(m).or_default().insert(&r.client_ip);
            connects.push((r.start, &r.client_ip));
        }
    }
    connects.sort_unstable();
    // The storm begins in the first 10 s with half the busiest 10 s's
    // distinct clients: the same clients reconnecting every few seconds
    // fill any minute that holds the storm's first seconds, so the busiest
    // minute may begin well before it.
    let mut tens: Vec<(i64, HashSet<&str>, Ms)> = Vec::new();
    for &(t, who) in &connects {
        let k = (t - c.onset).div_euclid(10_000);
        match tens.last_mut() {
            Some((j, set, _)) if *j == k => {
                set.insert(who);
            }
            _ => tens.push((k, HashSet::from([who]), t)),
        }
    }
    let most = tens.iter().map(|x| x.1.len()).max().unwrap_or(0);
    let best_at = tens
        .iter()
        .find(|x| 2 * x.1.len() >= most)
        .map_or(c.onset, |x| x.2);
    let base_minutes = (c.sh.base_s / 60.0).max(1.0);
    let usual = (base.values().map(|s| s.len()).sum::<usize>() as f64 / base_minutes).max(1.0);
    let peak = inc.values().map(HashSet::len).max().unwrap_or(0);
    (usual, peak, best_at)
}

fn herd(c: &Ctx) -> (Verdict, Value) {
    let (usual, peak, _) = herd_counts(c);
    let p = peak as f64;
    (
        v(
            p >= 10.0 * usual && peak >= 100,
            p < 3.0 * usual || peak < 30,
        ),
        json!({"usual_per_min": round3(usual), "peak_per_min": peak}),
    )
}

fn crash_loop(c: &Ctx) -> (Verdict, Value) {
    let mut per: HashMap<usize, usize> = HashMap::new();
    for (_, i) in kills(c.w, c.onset - 60_000, c.recovered) {
        *per.entry(i).or_default() += 1;
    }
    let most = per.values().copied().max().unwrap_or(0);
    (
        v(most >= 2, most <= 1),
        json!({"most_kills_of_one_instance": most}),
    )
}

/// (baseline median, peak, peak time) of the queue depth.
pub fn queue(c: &Ctx) -> Option<(f64, f64, Ms)> {
    let q = &c.g.queue;
    if q.is_empty() {
        return None;
    }
    let mut b: Vec<f64> = q
        .iter()
        .filter(|(t, _)| {
            c.s.baseline
                .get(((t - c.s.start) / W) as usize)
                .copied()
                .unwrap_or(false)
        })
        .map(|x| x.1)
        .collect();
    b.sort_by(f64::total_cmp);
    let med = b.get(b.len() / 2).copied().unwrap_or(0.0);
    let (t, peak) = q
        .iter()
        .filter(|(t, _)| *t >= c.onset && *t < c.recovered + 1_800_000)
        .map(|x| (x.0, x.1))
        .fold((c.onset, 0.0), |a, x| if x.1 > a.1 { x } else { a });
    Some((med, peak, t))
}

fn backlog(c: &Ctx) -> (Verdict, Value) {
    match queue(c) {
        None => (Verdict::Forbidden, json!({"queue": false})),
        Some((med, peak, _)) => {
            let m = med.max(1.0);
            (
                v(
                    peak >= 5.0 * m && peak >= 100.0,
                    peak < 2.0 * m || peak < 20.0,
                ),
                json!({"baseline_median": med, "peak": peak}),
            )
        }
    }
}

/// Per instance in I: (instance, requests, timeouts, fault failures). Only instances that
/// served in I's first half: one a scale-out added near the end served beside the others
/// for minutes, not through the incident, and is no peer to compare them with.
fn timeouts(c: &Ctx) -> Vec<(usize, usize, usize, usize)> {
    let half = c.onset + (c.recovered - c.onset) / 2;
    let early: HashSet<usize> =
        c.w.requests
            .iter()
            .filter(|r| is_api(r) && r.start >= c.onset && r.start < half)
            .filter_map(|r| r.instance)
            .collect();
    let mut per: HashMap<usize, (usize, usize, usize)> = HashMap::new();
    for (r, x) in
        c.w.requests
            .iter()
            .zip(&c.g.requests)
            .filter(|(r, _)| is_api(r) && r.start >= c.onset && r.start < c.recovered)
    {
        if let Some(i) = r.instance {
            let e = per.entry(i).or_default();
            e.0 += 1;
            e.1 += (r.status == 504
                || r.status == 499
                || r.failure == Some(Failure::UpstreamTimeout)) as usize;
            e.2 += super::symptoms::fault_failure(r, x) as usize;
        }
    }
    let mut v: Vec<_> = per
        .into_iter()
        .map(|(i, (n, t, f))| (i, n, t, f))
        .filter(|x| x.1 >= 10 && early.contains(&x.0))
        .collect();
    v.sort();
    v
}

/// The largest minority of instances whose timeout rates are each >= `ratio` x the rest's
/// (pooled) and >= `floor`, the rest failing less than `healthy` of their requests; with the
/// number of instances serving.
pub fn stuck_ones(c: &Ctx, ratio: f64, floor: f64, healthy: f64) -> (Vec<usize>, usize) {
    let mut v = timeouts(c);
    v.sort_by(|a, b| {
        (b.2 as f64 / b.1 as f64)
            .total_cmp(&(a.2 as f64 / a.1 as f64))
            .then(a.0.cmp(&b.0))
    });
    let mut best = Vec::new();
    for k in 1..=v.len() {
        if 2 * k >= v.len() && k > 1 {
            break;
        }
        let (rn, rt, rf) = v[k..]
            .iter()
            .fold((0, 0, 0), |a, x| (a.0 + x.1, a.1 + x.2, a.2 + x.3));
        let rest = rt as f64 / rn.max(1) as f64;
        if (rf as f64) < healthy * rn as f64
            && v[..k].iter().all(|x| {
                let rate = x.2 as f64 / x.1 as f64;
                rate >= ratio * rest.max(0.002) && rate >= floor
            })
        {
            best = v[..k].iter().map(|x| x.0).collect();
        }
    }
    (best, v.len())
}

fn stuck(c: &Ctx) -> (Verdict, Value) {
    let (strong, n) = stuck_ones(c, 10.0, 0.2, 0.1);
    let (weak, _) = stuck_ones(c, 3.0, 0.05, 1.0);
    let names: Vec<&str> = strong
        .iter()
        .map(|i| c.w.instances[*i].pod.as_str())
        .collect();
    (
        v(!strong.is_empty() && 2 * strong.len() < n, weak.is_empty()),
        json!({"stuck": names, "instances_serving": n}),
    )
}

fn upstream(c: &Ctx) -> (Verdict, Value) {
    let n =
        c.w.logs
            .iter()
            .filter(|l| {
                l.topic == LogTopic::UpstreamRateLimited
                    && l.ts >= c.onset
                    && l.ts <= c.recovered + 600_000
            })
            .count();
    (v(n >= 20, n == 0), json!({"lines": n}))
}

fn related(ch: &Change, cause: &Option<CausalChange>) -> bool {
    match cause {
        Some(CausalChange::Version(v)) => {
            ch.version.as_deref() == Some(v) || ch.from_version.as_deref() == Some(v)
        }
        Some(CausalChange::Flag(k)) => ch.flag.as_deref() == Some(k),
        None => false,
    }
}

/// Deploys and rollbacks within 30 min of the onset that did not cause it.
pub fn herrings<'a>(c: &'a Ctx) -> Vec<&'a Change> {
    c.w.changes
        .iter()
        .filter(|ch| matches!(ch.kind, ChangeKind::Deploy | ChangeKind::Rollback))
        .filter(|ch| {
            (ch.ts - c.onset).abs() <= 1_800_000 && !related(ch, &c.d.intent.causal_change)
        })
        .collect()
}

fn red_herring(c: &Ctx) -> (Verdict, Value) {
    let h = herrings(c);
    let times: Vec<String> = h
        .iter()
        .map(|ch| super::super::time::iso_s(ch.ts))
        .collect();
    (
        v(!h.is_empty(), h.is_empty()),
        json!({"unrelated_changes": times}),
    )
}

/// The change that caused it, when it came within 30 min before the onset.
pub fn causal<'a>(c: &'a Ctx) -> Option<&'a Change> {
    c.d.intent.causal_change.as_ref()?;
    c.w.changes
        .iter()
        .filter(|ch| {
            matches!(
                ch.kind,
                ChangeKind::Deploy | ChangeKind::FlagChange | ChangeKind::Config
            )
        })
        .find(|ch| {
            related(ch, &c.d.intent.causal_change)
                && ch.ts <= c.onset + 120_000
                && ch.ts >= c.onset - 1_800_000
        })
}

fn regression(c: &Ctx) -> (Verdict, Value) {
    let ch = causal(c);
    (
        v(ch.is_some(), c.d.intent.causal_change.is_none()),
        json!({"change": ch.map(|x| super::super::time::iso_s(x.ts))}),
    )
}
