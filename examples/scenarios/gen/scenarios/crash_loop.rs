//! `crash-loop` (seed 001): a jobs service sized with little headroom. Jobs (syncs, actions,
//! webhooks) are queued by every tenant and pushed to the instances by a dispatcher. Load
//! grows organically (or a backlog lands at once); instances run out of CPU or memory, fail
//! their liveness probes or get OOM-killed, restart into the queued backlog plus live load and
//! crash again, with growing back-offs; the queue grows. Responders raise the scaling ceiling
//! (a scale-out) and it recovers; the backlog drains after. No tenant caused it.

use super::super::facts::ReqKind;
use super::super::routes::Route;
use super::super::sim::{Action, Actor, Curve, Dispatcher};
use super::base::{base, Spec, MIN};
use super::{finish, Intent, Parts};

pub fn draw(seed: u64, small: bool) -> Parts {
    let spec = Spec {
        span_h: (6.0, 24.0),
        d_max_min: if small { 120.0 } else { 330.0 },
        pool_util: (0.03, 0.15),
        cpu_util: (0.03, 0.1),
        ordinary_share: 0.3,
        fleet: (3, 6),
        needs_util: false,
    };
    let mut b = base("crash-loop", seed, small, &spec);
    b.fragile = true;
    if !b.cfg.stack.cpu_fifo {
        b.cfg.fleet.cores = b.rng.pick(&[1.0, 2.0]);
    }
    let cores = b.cfg.fleet.cores;
    let span_s = (b.cfg.end - b.cfg.start) as f64 / 1000.0;
    let lambda = b.rng.log_uniform(1.0, 25.0).min(b.budget * 0.5 / span_s).max(0.2);
    // A job is a few hundred ms to 2 s of CPU: longer ones would outlive the load balancer's
    // timeout at ordinary load. Fewer instances first, then less load, keep it there.
    let mut u0 = b.rng.uniform(0.5, 0.7);
    const JOB_MAX: f64 = 2000.0;
    while b.cfg.fleet.n > 3 && u0 * b.cfg.fleet.n as f64 * cores * 1000.0 / lambda > JOB_MAX {
        b.cfg.fleet.n -= 1;
    }
    let n = b.cfg.fleet.n as f64;
    if u0 * n * cores * 1000.0 / lambda > JOB_MAX {
        u0 = JOB_MAX * lambda / (n * cores * 1000.0);
    }
    b.recalibrate();
    // Worker threads are what the backlog takes first (the health check then waits for one).
    b.cfg.fleet.workers = match b.cfg.stack.lang {
        super::super::stack::Lang::Java => b.rng.pick(&[50, 100, 200]),
        super::super::stack::Lang::Ruby => b.rng.pick(&[5, 10, 16]),
        super::super::stack::Lang::Python => b.rng.pick(&[8, 16, 32]),
        _ => 0,
    };
    let job_cpu = u0 * n * cores * 1000.0 / lambda;
    let cap_i = cores * 1000.0 / job_cpu;
    let organic = b.rng.chance(0.6);
    let ramp = if small { b.rng.range(15, 40) } else { b.rng.range(30, 150) } * MIN;
    let (mult, batches) = if organic {
        let g = (b.rng.uniform(1.3, 1.8) / u0).min(6.0);
        (Curve(vec![(b.fault, 1.0), (b.fault + ramp, g)]), Vec::new())
    } else {
        let minutes = b.rng.uniform(5.0, 20.0);
        let jobs = (minutes * 60.0 * n * cap_i) as u32;
        (Curve(vec![(b.fault, 1.0), (b.fault + ramp, b.rng.uniform(1.0, 1.1))]), vec![(b.fault, jobs)])
    };
    let max_rate = lambda * b.rng.uniform(2.0, 4.0);
    let template = format!("{}/jobs/{{id}}/run", b.cfg.api.prefix);
    let route = b.cfg.api.add(Route { method: "POST", db_ms: b.rng.uniform(5.0, 30.0), cpu_ms: job_cpu, bytes: 120.0, ..Route::new("POST", template, ReqKind::Api) });
    // The health handler runs on the same CPU; it is cheap but not free.
    let live = b.cfg.api.live;
    b.cfg.api.routes[live].cpu_ms = b.rng.uniform(2.0, 10.0);
    // Goroutines have no thread limit: the memory they pile up is what ends them.
    let oom = b.rng.chance(0.5) || b.cfg.stack.lang == super::super::stack::Lang::Go;
    if oom {
        let limit = b.rng.pick(&[512.0, 1024.0, 2048.0]);
        let base_mb = limit * b.rng.uniform(0.35, 0.5);
        let k = b.rng.uniform(60.0, 200.0);
        b.cfg.fleet.mem_limit_mb = limit;
        b.cfg.fleet.mem_base_mb = base_mb;
        b.cfg.fleet.mem_per_flight_mb = (limit - base_mb) / k;
    }
    let probe = b.cfg.probes.liveness.get_or_insert_with(|| b.cfg.probes.readiness.clone());
    probe.route = live;
    probe.db = false;
    probe.timeout_ms = b.rng.pick(&[1_000, 1_000, 2_000]);
    b.cfg.probes.readiness.db = false;
    b.cfg.probes.own_port = false;
    b.cfg.lb.timeout_ms = b.rng.pick(&[30_000, 60_000]);
    let agent = format!("jobs-dispatcher/{}.{}", b.rng.range(1, 3), b.rng.range(0, 9));
    b.cfg.actors.push(Actor::Dispatcher(Dispatcher {
        route,
        rate: lambda,
        mult,
        batches,
        max_rate,
        visibility_ms: b.rng.range(30, 120) * 1000,
        cpu_ms: job_cpu,
        cpu_sigma: 0.5,
        db_ms: b.cfg.api.routes[route].db_ms,
        user_agent: agent,
        ip: format!("10.0.{}.{}", b.rng.range(4, 9), b.rng.range(2, 250)),
    }));
    // The new ceiling leaves the instances half idle even while the dispatcher drains the
    // backlog at its full rate.
    let to = ((2.0 * max_rate / cap_i).ceil() as usize).max(b.cfg.fleet.n + 2);
    let delay = if small { b.rng.range(15, 30) } else { b.rng.range(30, 90) } * MIN;
    let actor = b.person();
    b.cfg.responders.steps = vec![(delay, Action::ScaleOut { to, reason: "raise the scaling ceiling: instances crash-looping under load".into(), actor })];
    b.cfg.responders.fallback_ms = ramp + delay;
    b.p.set("jobs_per_s", (lambda * 1000.0).round() / 1000.0);
    b.p.set("job_cpu_ms", job_cpu.round());
    b.p.set("headroom_util", (u0 * 1000.0).round() / 1000.0);
    b.p.set("growth", if organic { "organic" } else { "backlog" });
    b.p.set("ramp_s", ramp / 1000);
    b.p.set("dispatch_max_per_s", (max_rate * 1000.0).round() / 1000.0);
    b.p.set("oom", oom);
    b.p.set("scale_to", to);
    let intent = Intent {
        incident: true,
        fault: b.fault,
        gradual: organic,
        ..Intent::default()
    };
    finish(b, intent)
}
