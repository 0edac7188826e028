//! Who used what: requests, busy time (sum of durations at the load balancer) and pool hold
//! time per tenant, route and instance, in the baseline and in the incident; and the culprit
//! measure. In: the world and the symptom windows. Out: [`Shares`] and [`Blame`].
//!
//! Definition of the culprit (the contract): the scarce resource is the pool when a pool had
//! a request waiting for >= 10 s during the incident, else the load balancer's busy time. A
//! tenant is the culprit when its share of that resource rose by >= 0.3 between the baseline
//! and the incident and its own use (per second) rose >= 2x; none otherwise. When this differs
//! from what the scenario made happen, the truth says so (`culprit_ambiguous`) with the
//! figures, instead of hiding it.

use serde_json::{json, Value};

use super::super::facts::*;
use super::super::scenarios::Draw;
use super::super::sim::Ground;
use super::symptoms::{is_api, Symptoms, W};

/// Sums for one key: (requests, busy ms, hold ms), baseline and incident.
#[derive(Clone, Copy, Default, Debug)]
pub struct Use {
    pub b: [f64; 3],
    pub i: [f64; 3],
}

pub struct Table {
    pub rows: Vec<Use>,
    pub total_b: [f64; 3],
    pub total_i: [f64; 3],
}

impl Table {
    fn new(n: usize) -> Table {
        Table {
            rows: vec![Use::default(); n],
            total_b: [0.0; 3],
            total_i: [0.0; 3],
        }
    }

    fn add(&mut self, k: usize, base: bool, v: [f64; 3]) {
        let (row, tot) = if base {
            (&mut self.rows[k].b, &mut self.total_b)
        } else {
            (&mut self.rows[k].i, &mut self.total_i)
        };
        for j in 0..3 {
            row[j] += v[j];
            tot[j] += v[j];
        }
    }

    pub fn share_b(&self, k: usize, j: usize) -> f64 {
        self.rows[k].b[j] / self.total_b[j].max(1e-9)
    }

    pub fn share_i(&self, k: usize, j: usize) -> f64 {
        self.rows[k].i[j] / self.total_i[j].max(1e-9)
    }
}

pub const REQ: usize = 0;
pub const BUSY: usize = 1;
pub const HOLD: usize = 2;

pub struct Shares {
    pub tenants: Table,
    pub routes: Table,
    pub instances: Table,
    /// Seconds of baseline and of incident.
    pub base_s: f64,
    pub inc_s: f64,
    /// The scarce resource: `HOLD` or `BUSY`.
    pub resource: usize,
}

pub fn measure(w: &World, g: &Ground, s: &Symptoms) -> Option<Shares> {
    let (onset, recovered) = (s.onset?, s.recovered?);
    let mut sh = Shares {
        tenants: Table::new(w.tenants.len()),
        routes: Table::new(g.routes.len()),
        instances: Table::new(w.instances.len()),
        base_s: s.baseline.iter().filter(|b| **b).count() as f64 * W as f64 / 1000.0,
        inc_s: ((recovered - onset) as f64 / 1000.0).max(1.0),
        resource: BUSY,
    };
    for (r, x) in w.requests.iter().zip(&g.requests).filter(|(r, _)| is_api(r)) {
        let base = s.baseline.get(((r.start - s.start) / W) as usize).copied().unwrap_or(false);
        let inc = r.start >= onset && r.start < recovered;
        if !base && !inc {
            continue;
        }
        let v = [1.0, r.duration_ms as f64, x.pool_hold_ms as f64];
        if let Some(t) = r.tenant {
            sh.tenants.add(t, base, v);
        }
        sh.routes.add(x.route as usize, base, v);
        if let Some(i) = r.instance {
            sh.instances.add(i, base, v);
        }
    }
    let waited = g.pool_waits.iter().flatten().any(|&(a, b)| b - a >= 10_000 && b > onset && a < recovered);
    sh.resource = if waited { HOLD } else { BUSY };
    Some(sh)
}

pub struct Blame {
    pub culprit: Option<usize>,
    pub ambiguous: bool,
    pub figures: Value,
}

/// The tenant whose share of resource `j` rose most, with (rise, own-use ratio).
fn top_riser(sh: &Shares, j: usize) -> Option<(usize, f64, f64)> {
    let t = &sh.tenants;
    (0..t.rows.len())
        .map(|k| {
            let rise = t.share_i(k, j) - t.share_b(k, j);
            let per_b = (t.rows[k].b[j] / sh.base_s).max(1e-9);
            let per_i = t.rows[k].i[j] / sh.inc_s;
            (k, rise, per_i / per_b)
        })
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
}

pub fn blame(d: &Draw, w: &World, sh: Option<&Shares>) -> Blame {
    let Some(sh) = sh else {
        return Blame { culprit: None, ambiguous: d.intent.culprit.is_some(), figures: Value::Null };
    };
    let qualifies = |x: Option<(usize, f64, f64)>| x.filter(|(_, rise, ratio)| *rise >= 0.3 && *ratio >= 2.0).map(|x| x.0);
    let by_res = top_riser(sh, sh.resource);
    let by_busy = top_riser(sh, BUSY);
    let by_hold = top_riser(sh, HOLD);
    let culprit = qualifies(by_res);
    let fig = |x: Option<(usize, f64, f64)>, j: usize| {
        x.map(|(k, rise, ratio)| {
            json!({
                "tenant": w.tenants[k].id,
                "share_baseline": round3(sh.tenants.share_b(k, j)),
                "share_incident": round3(sh.tenants.share_i(k, j)),
                "share_rise": round3(rise),
                "own_use_ratio": if ratio > 1e6 { Value::from("from zero") } else { Value::from(round3(ratio)) },
                "share_of_requests_incident": round3(sh.tenants.share_i(k, REQ)),
            })
        })
    };
    Blame {
        culprit,
        ambiguous: culprit != d.intent.culprit,
        figures: json!({
            "resource": if sh.resource == HOLD { "pool hold time" } else { "busy time" },
            "by_resource": fig(by_res, sh.resource),
            "by_busy_time": fig(by_busy, BUSY),
            "by_pool_hold": fig(by_hold, HOLD),
        }),
    }
}

pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
