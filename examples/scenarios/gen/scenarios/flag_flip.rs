//! `flag-flip` (control): a feature flag turned on (LaunchDarkly, Unleash) sends a popular
//! route to a slow dependency: dependency timeouts (500/504) for minutes, and, when the call
//! is made inside a transaction, a pool that fills too. The flag is turned off and it
//! recovers. No culprit: the change caused it.

use super::super::sim::{Action, Flag};
use super::base::{base, Spec, MIN};
use super::{finish, CausalChange, Intent, Parts};

pub fn draw(seed: u64, small: bool) -> Parts {
    let spec = Spec {
        d_max_min: 60.0,
        fleet: (2, 6),
        ..Spec::default()
    };
    let mut b = base("flag-flip", seed, small, &spec);
    let weights = b.cfg.api.weights();
    let mut order: Vec<usize> = (0..weights.len()).filter(|r| weights[*r] > 0.0).collect();
    order.sort_by(|x, y| weights[*y].total_cmp(&weights[*x]));
    let route = order[b.rng.range(0, (order.len() as i64 - 1).min(2)) as usize];
    let key = b.rng.pick(&["new-recommendations", "search-v2-backend", "pricing-engine-v3", "fraud-check-sync"]);
    let dependency = b.rng.pick(&["recommendations-service", "search-v2", "pricing-api", "fraud-check"]);
    let dep_ms = b.rng.log_uniform(2000.0, 15_000.0);
    let timeout = (dep_ms * b.rng.uniform(0.5, 1.5)).round() as i64 / 100 * 100;
    let holds_db = b.rng.chance(0.4);
    b.cfg.flag = Some(Flag {
        key: key.into(),
        route,
        dep_ms,
        dep_sigma: 0.5,
        dep_timeout_ms: timeout.max(1000),
        holds_db,
        dependency: dependency.into(),
    });
    let actor = b.person();
    b.cfg.script.push((b.fault, Action::FlagOn { actor }));
    let delay = b.rng.range(3, 15) * MIN;
    let actor = b.person();
    let reason = format!("{dependency} timeouts after enabling {key}");
    b.cfg.responders.steps = vec![(delay, Action::FlagOff { reason, actor })];
    b.cfg.responders.fallback_ms = 20 * MIN;
    b.p.set("flag", key);
    b.p.set("flag_route", b.cfg.api.routes[route].template.clone());
    b.p.set("dependency_ms", dep_ms.round());
    b.p.set("dependency_timeout_ms", timeout.max(1000));
    b.p.set("holds_db", holds_db);
    let intent = Intent {
        incident: true,
        fault: b.fault,
        causal_change: Some(CausalChange::Flag(key.into())),
        ..Intent::default()
    };
    finish(b, intent)
}
