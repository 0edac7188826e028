//! Symptom windows, the baseline they are measured against, the clusters they form, and the
//! incident's onset, recovery and onset tolerance. In: the world, the ground truth and the
//! scenario's intent. Out: a [`Symptoms`].
//!
//! Definitions (the contract; `README.md` repeats them):
//! - Time is cut into 10 s windows from the span's start. A request belongs to the window it
//!   started in. A *fault failure* is an API, websocket or login request answered 5xx or 499
//!   that the simulation did not draw as background noise (429s are answers, not failures).
//! - The *baseline* is every window before the fault, less the windows from 1 min before to
//!   2 min after each blip (for a quiet day: every window but the blips').
//! - A window is a *symptom window* when any of these holds:
//!   1. its fault failures are >= max(3, 3x the baseline failures per request x its
//!      requests), or it has one and the minute around it has >= max(6, 3x the expectation);
//!   2. its latency measure (the mean of the window, or of the 30 s or the minute around it,
//!      the first of those with >= 10 requests) is >= max(2x the baseline's median of that
//!      measure, +100 ms, 1.5x its baseline 99th percentile): clearly out of its normal range;
//!   3. an instance's pool had a request waiting for >= 5 s of it;
//!   4. a kubelet probe failed, or an instance was killed (liveness, OOM, crash), in it;
//!   5. nothing succeeded in it while >= 10 successes were expected from the ordinary rate.
//! - Symptom windows less than 120 s apart form one *cluster*. A cluster is *significant*
//!   when it spans >= 90 s and holds more than failed probes (a failure, slowness, a wait, a
//!   kill, or nothing served): a pod failing a probe now and then, as some do all day, hurts
//!   no one (crash-loop draw 895308 ran to the last three such failures, 3.7 h after the
//!   service was back). The *incident* runs from the first to the last significant
//!   cluster that ends after the fault began (the blips' clusters come before it),
//!   widened over clusters of two windows or more that began after the fault, are no
//!   blip's, and lie less than 5 minutes from it (a relapse, or an instance killed before
//!   the wave), or less than 10 minutes when an instance killed in it was killed in the
//!   incident too (a crash loop's back-off resets only after 10 minutes of running).
//! - *Onset*: the first symptom event (a fault failure's start, a pool wait's start, a probe
//!   failure or kill) in the incident's first window, or its start when only latency flagged it;
//!   when the fault is a client's behaviour change that ran into it within 180 s, the change.
//!   *Recovered*: one second after the last symptom event of its last window (a failed
//!   request's answer, a wait's end, a probe failure or kill, a slow request's answer).
//! - *Onset tolerance*: 30 s, or for a gradual onset the time the symptom measure (failures
//!   over their baseline expectation, or latency over its baseline, whichever is larger) took
//!   to go from <= 1.25x to >= 3x, whichever is larger.

use super::super::facts::*;
use super::super::scenarios::Draw;
use super::super::sim::{Ground, ReqTruth};
use super::patterns::kills;
use std::collections::HashSet;

pub const W: Ms = 10_000;
/// Fault symptom clusters closer than this to the incident belong to it.
const RELAPSE: Ms = 300_000;
/// Nor those in which an instance killed in the incident was killed again
/// this soon: the kubelet resets a crash loop's back-off after ten minutes.
const CRASH_LOOP_RESET: Ms = 600_000;

pub fn is_api(r: &Request) -> bool {
    matches!(r.kind, ReqKind::Api | ReqKind::Websocket | ReqKind::Login)
}

/// A failure caused by a condition of the service (not drawn as noise).
pub fn fault_failure(r: &Request, x: &ReqTruth) -> bool {
    is_api(r) && (r.status >= 500 || r.status == 499) && !x.noise
}

pub fn hard_kill(c: Option<EndCause>) -> bool {
    matches!(
        c,
        Some(EndCause::LivenessKill | EndCause::OomKill | EndCause::Crash)
    )
}

pub struct Symptoms {
    pub start: Ms,
    pub n: Vec<u32>,
    pub fail: Vec<u32>,
    pub ok: Vec<u32>,
    pub lat: Vec<f64>,
    pub wait: Vec<Ms>,
    pub health: Vec<u32>,
    pub baseline: Vec<bool>,
    pub flags: Vec<bool>,
    /// Symptom windows for more than a failed probe.
    pub hurt: Vec<bool>,
    /// Baseline fault failures per request, median 30 s latency and the latency threshold.
    pub fail_rate: f64,
    pub lat_med: f64,
    pub lat_thr: f64,
    /// Clusters as window index ranges (inclusive), and whether each is significant.
    pub clusters: Vec<(usize, usize, bool)>,
    pub incident: Option<(usize, usize)>,
    pub onset: Option<Ms>,
    pub recovered: Option<Ms>,
    pub tolerance_s: i64,
}

impl Symptoms {
    fn idx(&self, t: Ms) -> usize {
        ((t - self.start).max(0) / W) as usize
    }

    /// Mean latency of window `w`, or of the 30 s or the minute around it: the first of
    /// those with >= 10 requests.
    pub fn lat30(&self, w: usize) -> Option<f64> {
        for half in [0, 1, 3] {
            let (a, b) = (w.saturating_sub(half), (w + half).min(self.n.len() - 1));
            let n: u32 = self.n[a..=b].iter().sum();
            if n >= 10 {
                return Some(self.lat[a..=b].iter().sum::<f64>() / n as f64);
            }
        }
        None
    }

    /// Fault failures in window `w` meet the failure criterion.
    pub fn failing(&self, w: usize) -> bool {
        let exp = self.fail_rate * self.n[w] as f64;
        if self.fail[w] as f64 >= (3.0f64).max(3.0 * exp) {
            return true;
        }
        let (a, b) = (w.saturating_sub(3), (w + 3).min(self.n.len()));
        let (f, n) = (a..b).fold((0u32, 0u32), |x, k| (x.0 + self.fail[k], x.1 + self.n[k]));
        self.fail[w] > 0 && f as f64 >= (6.0f64).max(3.0 * self.fail_rate * n as f64)
    }
}

pub fn measure(d: &Draw, w: &World, g: &Ground) -> Symptoms {
    let start = w.start;
    let nw = ((w.end - w.start) / W + 1) as usize;
    let mut s = Symptoms {
        start,
        n: vec![0; nw],
        fail: vec![0; nw],
        ok: vec![0; nw],
        lat: vec![0.0; nw],
        wait: vec![0; nw],
        health: vec![0; nw],
        baseline: vec![false; nw],
        flags: vec![false; nw],
        hurt: vec![false; nw],
        fail_rate: 0.0,
        lat_med: 0.0,
        lat_thr: f64::MAX,
        clusters: Vec::new(),
        incident: None,
        onset: None,
        recovered: None,
        tolerance_s: 30,
    };
    for (r, x) in w
        .requests
        .iter()
        .zip(&g.requests)
        .filter(|(r, _)| is_api(r))
    {
        let i = s.idx(r.start).min(nw - 1);
        s.n[i] += 1;
        s.lat[i] += r.duration_ms as f64;
        if fault_failure(r, x) {
            s.fail[i] += 1;
        } else if r.status < 400 {
            s.ok[i] += 1;
        }
    }
    let mut per = vec![0 as Ms; nw];
    for spans in &g.pool_waits {
        per.iter_mut().for_each(|x| *x = 0);
        for &(a, b) in spans {
            // A wait still open when the world ends is counted to the last window's end, not
            // beyond it: past it every later second clamps to the last window, and the walk
            // would never advance.
            let b = b.min(start + nw as Ms * W);
            let mut t = a;
            while t < b {
                let i = s.idx(t).min(nw - 1);
                let wend = start + (i as Ms + 1) * W;
                per[i] += b.min(wend) - t;
                t = wend;
            }
        }
        for (w, p) in s.wait.iter_mut().zip(&per) {
            *w = (*w).max(*p);
        }
    }
    for &(t, _, _) in &g.probe_failures {
        let i = s.idx(t).min(nw - 1);
        s.health[i] += 1;
    }
    for inst in &w.instances {
        for l in inst.lives.iter().filter(|l| hard_kill(l.end_cause)) {
            if let Some(t) = l.ended {
                let i = s.idx(t).min(nw - 1);
                s.health[i] += 1;
                s.hurt[i] = true;
            }
        }
    }
    // The baseline: before the fault, blips (with a margin) left out.
    let fault_w = s.idx(d.intent.fault);
    for i in 0..nw.min(fault_w) {
        let t = start + i as Ms * W;
        s.baseline[i] = !d
            .intent
            .blips
            .iter()
            .any(|b| t + W > b.start - 60_000 && t < b.end + 120_000);
    }
    let (bn, bf): (u64, u64) = (0..nw)
        .filter(|i| s.baseline[*i])
        .fold((0, 0), |a, i| (a.0 + s.n[i] as u64, a.1 + s.fail[i] as u64));
    s.fail_rate = if bn > 0 { bf as f64 / bn as f64 } else { 0.0 };
    let mut lats: Vec<f64> = (0..nw)
        .filter(|i| s.baseline[*i])
        .filter_map(|i| s.lat30(i))
        .collect();
    lats.sort_by(f64::total_cmp);
    if !lats.is_empty() {
        s.lat_med = lats[lats.len() / 2];
        let p99 = lats[(lats.len() - 1) * 99 / 100];
        s.lat_thr = (2.0 * s.lat_med).max(s.lat_med + 100.0).max(1.5 * p99);
    }
    for i in 0..nw {
        let t = start + i as Ms * W;
        let failing = s.failing(i);
        let slow = s.lat30(i).is_some_and(|l| l >= s.lat_thr);
        let waiting = s.wait[i] >= 5_000;
        let health = s.health[i] > 0;
        let expected_ok = d.cfg.traffic.rate_at(t + W / 2) * 10.0 * (1.0 - s.fail_rate);
        let dark = s.ok[i] == 0 && expected_ok >= 10.0;
        s.flags[i] = failing || slow || waiting || health || dark;
        s.hurt[i] |= failing || slow || waiting || dark;
    }
    // Clusters: symptom windows less than 120 s apart.
    let mut i = 0;
    while i < nw {
        if !s.flags[i] {
            i += 1;
            continue;
        }
        let a = i;
        let mut b = i;
        let mut j = i + 1;
        while j < nw && (j as Ms - b as Ms - 1) * W < 120_000 {
            if s.flags[j] {
                b = j;
            }
            j += 1;
        }
        let significant = (b - a + 1) as Ms * W >= 90_000 && (a..=b).any(|k| s.hurt[k]);
        s.clusters.push((a, b, significant));
        i = b + 1;
    }
    let fault = d.intent.fault;
    let inc: Vec<&(usize, usize, bool)> = s
        .clusters
        .iter()
        .filter(|c| c.2 && start + (c.1 as Ms + 1) * W > fault)
        .collect();
    // A short cluster (two windows or more) of the fault's own symptoms (an instance killed
    // with its pool full, a last wave after the pods restarted) within 5 minutes of the
    // incident is part of it:
    // a service is not recovered minutes before its next failure (deploy-leak draws 2501012
    // and 2501017 dropped such waves for spanning 80 s and 20 s).
    let first = inc.first().map(|c| s.clusters.iter().position(|x| x == *c));
    let last = inc.last().map(|c| s.clusters.iter().position(|x| x == *c));
    let (first, last) = match (first.flatten(), last.flatten()) {
        (Some(mut f), Some(mut l)) => {
            // One window alone is a straggler (a last failure, a kill), not a wave.
            let fault_s = |c: &(usize, usize, bool)| {
                let (a, b) = (start + c.0 as Ms * W, start + (c.1 as Ms + 1) * W);
                c.1 > c.0
                    && a >= fault - W
                    && !d
                        .intent
                        .blips
                        .iter()
                        .any(|x| b > x.start - 60_000 && a < x.end + 120_000)
            };
            // An instance killed in both had not recovered between them
            // either, within its crash loop's back-off reset.
            let killed = |c: &(usize, usize, bool)| -> HashSet<usize> {
                let (a, b) = (start + c.0 as Ms * W, start + (c.1 as Ms + 1) * W);
                kills(w, a, b).into_iter().map(|(_, i)| i).collect()
            };
            let near = |x: &(usize, usize, bool), y: &(usize, usize, bool)| {
                let gap = (y.0 as Ms - x.1 as Ms - 1) * W;
                gap < RELAPSE || (gap < CRASH_LOOP_RESET && !killed(x).is_disjoint(&killed(y)))
            };
            while f > 0 && fault_s(&s.clusters[f - 1]) && near(&s.clusters[f - 1], &s.clusters[f]) {
                f -= 1;
            }
            while l + 1 < s.clusters.len()
                && fault_s(&s.clusters[l + 1])
                && near(&s.clusters[l], &s.clusters[l + 1])
            {
                l += 1;
            }
            (Some(s.clusters[f]), Some(s.clusters[l]))
        }
        _ => (None, None),
    };
    if let (Some(first), Some(last)) = (first.as_ref(), last.as_ref()) {
        // Symptoms before the fault belong to the baseline's noise, not to the incident.
        let mut a = first.0;
        while a < first.1 && start + (a as Ms + 1) * W <= fault - W {
            a += 1;
        }
        while a < first.1 && !s.flags[a] {
            a += 1;
        }
        s.incident = Some((a, last.1));
        let mut onset = first_event(d, w, g, &s, a);
        if d.intent.client_change && onset >= fault - W && onset - fault <= 180_000 {
            onset = fault;
        }
        s.onset = Some(onset);
        s.recovered = Some(last_event(w, g, &s, last.1) / 1000 * 1000 + 1000);
        if d.intent.gradual {
            s.tolerance_s = tolerance(&s, a);
        }
    }
    s
}

/// The first symptom event in window `i`.
fn first_event(d: &Draw, w: &World, g: &Ground, s: &Symptoms, i: usize) -> Ms {
    let (a, b) = (s.start + i as Ms * W, s.start + (i as Ms + 1) * W);
    let mut best = b;
    let first_req = w.requests.partition_point(|r| r.start < a);
    if s.failing(i) {
        let rs = w.requests[first_req..].iter().zip(&g.requests[first_req..]);
        if let Some((r, _)) = rs
            .take_while(|(r, _)| r.start < b)
            .find(|(r, x)| fault_failure(r, x))
        {
            best = best.min(r.start);
        }
    }
    if s.wait[i] >= 5_000 {
        for spans in &g.pool_waits {
            for &(x, y) in spans {
                if y - x >= 5_000 && x < b && y > a {
                    best = best.min(x.max(a));
                }
            }
        }
    }
    if s.lat30(i).is_some_and(|l| l >= s.lat_thr) || (s.ok[i] == 0 && s.n[i] > 0) {
        best = best.min(a);
    }
    for inst in &w.instances {
        for l in inst.lives.iter().filter(|l| hard_kill(l.end_cause)) {
            if let Some(t) = l.ended.filter(|t| *t >= a && *t < b) {
                best = best.min(t);
            }
        }
    }
    for &(t, _, _) in &g.probe_failures {
        if t >= a && t < b {
            best = best.min(t);
        }
    }
    let _ = d;
    best
}

/// The last symptom event of window `i` (a failed or slow request's answer may come later).
fn last_event(w: &World, g: &Ground, s: &Symptoms, i: usize) -> Ms {
    let (a, b) = (s.start + i as Ms * W, s.start + (i as Ms + 1) * W);
    let mut best = a;
    let first_req = w.requests.partition_point(|r| r.start < a);
    for (r, x) in w.requests[first_req..]
        .iter()
        .zip(&g.requests[first_req..])
        .take_while(|(r, _)| r.start < b)
    {
        if fault_failure(r, x) || (is_api(r) && r.duration_ms as f64 >= s.lat_thr) {
            best = best.max(r.start + r.duration_ms as Ms);
        }
    }
    for spans in &g.pool_waits {
        for &(x, y) in spans {
            if x < b && y > a && y - x >= 1_000 {
                best = best.max(y.min(b));
            }
        }
    }
    for &(t, _, _) in &g.probe_failures {
        if t >= a && t < b {
            best = best.max(t);
        }
    }
    for inst in &w.instances {
        for l in inst.lives.iter().filter(|l| hard_kill(l.end_cause)) {
            if let Some(t) = l.ended.filter(|t| *t >= a && *t < b) {
                best = best.max(t);
            }
        }
    }
    best
}

/// For a gradual onset: the time the symptom measure took from <= 1.25x to >= 3x baseline,
/// the measure taken per minute (failures over their baseline expectation, floored at one;
/// mean latency over the baseline median).
fn tolerance(s: &Symptoms, onset_w: usize) -> i64 {
    let m = |i: usize| -> f64 {
        let (a, b) = (i.saturating_sub(3), (i + 3).min(s.n.len()));
        let (n, f, l) = (a..b).fold((0u32, 0u32, 0.0), |x, k| {
            (x.0 + s.n[k], x.1 + s.fail[k], x.2 + s.lat[k])
        });
        let fr = f as f64 / (s.fail_rate * n as f64).max(1.0);
        let lr = if n >= 8 {
            l / n as f64 / s.lat_med.max(1.0)
        } else {
            0.0
        };
        fr.max(lr)
    };
    let mut lo = onset_w;
    while lo > 0 && m(lo) > 1.25 {
        lo -= 1;
    }
    let mut hi = onset_w;
    while hi + 1 < s.n.len() && m(hi) < 3.0 {
        hi += 1;
    }
    (((hi as i64 - lo as i64) * W) / 1000).max(30)
}
