//! `organic-growth` (control, seed 001's cause): every tenant's load grows together (a ramp)
//! until the pools saturate: latency first, then pool-timeout 500s. Responders scale out and
//! it recovers. No culprit: each tenant's share stays what it was.

use super::super::sim::{Action, Curve};
use super::base::{base, Spec, MIN};
use super::{finish, Intent, Parts};

pub fn draw(seed: u64, small: bool) -> Parts {
    // A busy service (the pools must run near their capacity at plausible costs), so a
    // short span keeps the draw within its request budget.
    let spec = Spec {
        span_h: (1.0, 2.0),
        d_max_min: 70.0,
        pool_util: (0.35, 0.5),
        fleet: (2, 4),
        ordinary_share: 0.95,
        needs_util: true,
        ..Spec::default()
    };
    let mut b = base("organic-growth", seed, small, &spec);
    b.cfg.traffic.rate = b.cfg.traffic.rate.max(b.rng.uniform(20.0, 60.0));
    let target = b.rng.uniform(1.3, 1.8);
    let mut g = b.rng.uniform(2.2, 3.5);
    let ramp = b.rng.range(10, 40) * MIN;
    b.cfg.traffic.mult = Curve(vec![(b.fault, 1.0), (b.fault + ramp, g)]);
    b.fit_budget();
    // The CPUs keep headroom: the pools are what runs out.
    let v = (0.4 / g).min(b.u_cpu);
    b.calibrate((target / g).min(0.5), v, b.fault);
    // When calibration could not load the pools that far, the growth goes further.
    if b.u_pool * g < 1.25 {
        g = (1.3 / b.u_pool).min(4.0);
        b.cfg.traffic.mult = Curve(vec![(b.fault, 1.0), (b.fault + ramp, g)]);
    }
    let n = b.cfg.fleet.n as f64;
    let to = ((n * g * b.u_pool / 0.5).ceil() as usize).max(b.cfg.fleet.n + 1);
    let delay = b.rng.range(5, 20) * MIN;
    let actor = b.person();
    b.cfg.responders.steps = vec![(
        delay,
        Action::ScaleOut {
            to,
            reason: "database pool saturated under load: add capacity".into(),
            actor,
        },
    )];
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
