//! `stuck-instances` (seed 002): one or two of 3-8 instances stop answering in time while
//! still accepting connections (their health endpoint still answers, so nothing restarts
//! them): requests routed there hang until the load balancer's timeout (504). When the load
//! balancer has a connection limit, the hung requests fill it and everyone else gets 503s too.
//! Responders restart the stuck instances and it recovers. No tenant caused it; load is normal.

use super::super::sim::{Action, Which};
use super::base::{base, Spec, MIN};
use super::{finish, Intent, Parts};

pub fn draw(seed: u64, small: bool) -> Parts {
    let spec = Spec {
        d_max_min: 45.0,
        fleet: (3, 8),
        ordinary_share: 0.7,
        ..Spec::default()
    };
    let mut b = base("stuck-instances", seed, small, &spec);
    // The health endpoint still answers (its own port and threads): nothing restarts them.
    b.cfg.probes.own_port = true;
    let n = b.cfg.fleet.n;
    let k = if n >= 5 && b.rng.chance(0.5) { 2 } else { 1 };
    let mut stuck = Vec::new();
    while stuck.len() < k {
        let i = b.rng.range(0, n as i64 - 1) as usize;
        if !stuck.contains(&i) {
            stuck.push(i);
        }
    }
    let second = b.rng.range(0, 120_000);
    for (j, i) in stuck.iter().enumerate() {
        let t = b.fault + if j == 0 { 0 } else { second };
        b.cfg.script.push((t, Action::Stick { instance: *i }));
    }
    b.cfg.lb.timeout_ms = b.rng.pick(&[30_000, 60_000, 60_000, 120_000]);
    let congested = b.rng.chance(0.5);
    if congested {
        let rate = b.cfg.traffic.rate_at(b.fault);
        let hung = rate * k as f64 / n as f64 * b.cfg.lb.timeout_ms as f64 / 1000.0;
        b.cfg.lb.max_conns = Some((hung * b.rng.uniform(0.4, 0.8)).max(8.0) as u32);
    }
    let delay = b.rng.range(8, 30) * MIN;
    let actor = b.person();
    b.cfg.responders.steps = vec![(delay, Action::Restart { which: Which::Stuck, reason: "instances not answering: restart".into(), actor })];
    b.cfg.responders.fallback_ms = 10 * MIN;
    b.p.set("stuck", stuck.clone());
    b.p.set("lb_max_conns", b.cfg.lb.max_conns);
    b.p.set("congested", congested);
    let intent = Intent {
        incident: true,
        fault: b.fault,
        ..Intent::default()
    };
    finish(b, intent)
}
