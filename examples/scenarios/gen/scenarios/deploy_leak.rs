//! `deploy-leak` (control for blame): a deploy ships a connection leak (one route does not
//! return its connection now and then). The new version's pools fill over minutes; requests
//! wait and time out. Responders roll back (with the reason in the deploy log) and it
//! recovers. No culprit: the change caused it.

use super::super::sim::{Action, Version};
use super::base::{base, Spec, MIN};
use super::{finish, CausalChange, Intent, Parts};

pub fn draw(seed: u64, small: bool) -> Parts {
    let spec = Spec {
        d_max_min: 75.0,
        fleet: (2, 6),
        ..Spec::default()
    };
    let mut b = base("deploy-leak", seed, small, &spec);
    let weights = b.cfg.api.weights();
    let total: f64 = weights.iter().sum();
    let mut order: Vec<usize> = (0..weights.len()).filter(|r| weights[*r] > 0.0).collect();
    order.sort_by(|x, y| weights[*y].total_cmp(&weights[*x]));
    let route = order[b.rng.range(0, (order.len() as i64 - 1).min(3)) as usize];
    let rate_r = b.cfg.traffic.rate_at(b.fault) * weights[route] / total;
    let fill_s = b.rng.uniform(180.0, 1200.0);
    let n = b.cfg.fleet.n as f64;
    let q = (b.cfg.fleet.pool as f64 / (fill_s * rate_r / n)).min(1.0);
    let v1 = b.next_version();
    b.cfg.versions.push(Version { name: v1.clone(), leak: Some((route, q)), ..Version::default() });
    let actor = b.bot();
    b.cfg.script.push((b.fault, Action::Deploy { version: 1, rollback: false, reason: None, actor }));
    let delay = b.rng.range(3, 15) * MIN;
    let actor = b.person();
    let reason = format!("connection pool exhaustion after {v1}");
    b.cfg.responders.steps = vec![(delay, Action::Deploy { version: 0, rollback: true, reason: Some(reason), actor })];
    b.cfg.responders.fallback_ms = 25 * MIN;
    b.p.set("deploy_version", v1.clone());
    b.p.set("leak_route", b.cfg.api.routes[route].template.clone());
    b.p.set("leak_probability", (q * 10_000.0).round() / 10_000.0);
    b.p.set("fill_s", fill_s.round());
    let intent = Intent {
        incident: true,
        fault: b.fault,
        gradual: true,
        causal_change: Some(CausalChange::Version(v1)),
        ..Intent::default()
    };
    finish(b, intent)
}
