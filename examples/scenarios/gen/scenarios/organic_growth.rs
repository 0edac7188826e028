//! `organic-growth` (control, seed 001's cause): every tenant's load grows together (a ramp)
//! until the pools saturate: latency first, then pool-timeout 500s. Responders scale out and
//! it recovers. No culprit: each tenant's share stays what it was.

use super::super::sim::{Action, Curve};
use super::base::{base, Spec, MIN};
use super::{finish, Intent, Parts};

pub fn draw(seed: u64, small: bool) -> Parts {
    let spec = Spec {
        span_h: (1.0, 4.0),
        d_max_min: 100.0,
        pool_util: (0.3, 0.45),
        fleet: (2, 6),
        ordinary_share: 0.45,
        needs_util: true,
        ..Spec::default()
    };
    let mut b = base("organic-growth", seed, small, &spec);
    let target = b.rng.uniform(1.3, 1.8);
    let g = b.rng.uniform(2.0, 4.0);
    let ramp = b.rng.range(10, 60) * MIN;
    b.cfg.traffic.mult = Curve(vec![(b.fault, 1.0), (b.fault + ramp, g)]);
    b.fit_budget();
    // The CPUs keep headroom: the pools are what runs out.
    b.calibrate((target / g).min(0.5), (0.5 / g).min(b.u_cpu), b.fault);
    // The growth that takes the pools past saturation from where calibration left them.
    let u = b.u_pool;
    let g = (target / u).clamp(1.5, 6.0);
    b.cfg.traffic.mult = Curve(vec![(b.fault, 1.0), (b.fault + ramp, g)]);
    b.fit_budget();
    b.recalibrate();
    let n = b.cfg.fleet.n as f64;
    let to = ((n * g * u / 0.5).ceil() as usize).max(b.cfg.fleet.n + 1);
    let delay = b.rng.range(5, 20) * MIN;
    let actor = b.person();
    b.cfg.responders.steps = vec![(delay, Action::ScaleOut { to, reason: "database pool saturated under load: add capacity".into(), actor })];
    b.cfg.responders.fallback_ms = ramp + 10 * MIN;
    b.p.set("growth", (g * 100.0).round() / 100.0);
    b.p.set("ramp_s", ramp / 1000);
    b.p.set("scale_to", to);
    let intent = Intent {
        incident: true,
        fault: b.fault,
        gradual: true,
        ..Intent::default()
    };
    finish(b, intent)
}
