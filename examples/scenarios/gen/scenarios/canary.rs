//! `canary` (control): two new-version pods join 3-6 old ones; the new ones fail a share
//! (20-50%) of their requests fast (500 with an exception) while the old ones are healthy.
//! Responders abort the canary (a rollback) and it recovers. No culprit: the change caused it.

use super::super::sim::{Action, Version};
use super::base::{base, Spec, MIN};
use super::{finish, CausalChange, Intent, Parts};

pub fn draw(seed: u64, small: bool) -> Parts {
    let spec = Spec {
        d_max_min: 60.0,
        fleet: (3, 6),
        ..Spec::default()
    };
    let mut b = base("canary", seed, small, &spec);
    let share = b.rng.uniform(0.2, 0.5);
    let v1 = b.next_version();
    b.cfg.versions.push(Version { name: v1.clone(), error_rate: share, ..Version::default() });
    let actor = b.bot();
    b.cfg.script.push((b.fault, Action::Canary { version: 1, count: 2, actor }));
    let delay = b.rng.range(3, 15) * MIN;
    let actor = b.person();
    let reason = format!("abort canary {v1}: errors on the new pods");
    b.cfg.responders.steps = vec![(delay, Action::AbortCanary { reason, actor })];
    b.cfg.responders.fallback_ms = 20 * MIN;
    b.p.set("canary_version", v1.clone());
    b.p.set("canary_error_share", (share * 1000.0).round() / 1000.0);
    let intent = Intent {
        incident: true,
        fault: b.fault,
        causal_change: Some(CausalChange::Version(v1)),
        ..Intent::default()
    };
    finish(b, intent)
}
