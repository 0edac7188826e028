//! `slow-integration` (seed 003): one tenant's integration starts sending slow, expensive
//! requests (seconds of database time each) at only 1-1.5x its usual rate. They hold the pool
//! and starve everyone else: latency first, then 500s. A deploy finished a few minutes before
//! the first symptoms; responders roll it back (the red herring): symptoms ease for a while
//! only if the integration happens to pause, then come back. Responders then rate-limit the
//! integration (429s to it) and service recovers. Variant: no deploy at all.

use super::super::facts::ReqKind;
use super::super::routes::Route;
use super::super::sim::{Action, Actor, Stream, Version};
use super::base::{base, Spec, MIN};
use super::{finish, Intent, Parts};

const INTEGRATIONS: [&str; 5] = ["hookrelay", "crm-sync", "zapier", "reportly", "slack-app"];

pub fn draw(seed: u64, small: bool) -> Parts {
    let spec = Spec {
        span_h: (1.0, 3.0),
        d_max_min: 90.0,
        pool_util: (0.05, 0.25),
        fleet: (2, 4),
        ordinary_share: 0.7,
        ..Spec::default()
    };
    let mut b = base("slow-integration", seed, small, &spec);
    // Generous timeouts let slow requests hold their connections (as in the seed).
    b.cfg.lb.timeout_ms = b.rng.pick(&[60_000, 90_000, 120_000, 300_000]);
    b.cfg.traffic.rate = b.cfg.traffic.rate.max(b.rng.uniform(15.0, 40.0));
    b.fit_budget();
    b.cfg.fleet.pool = b.cfg.fleet.pool.min(b.rng.range(5, 12) as u32);
    b.recalibrate();
    let culprit = b.tenant_ranked(5, 300);
    let token = b.rng.pick(&INTEGRATIONS);
    b.cfg.people.make_integration(&mut b.rng, culprit, token);
    let prefix = b.cfg.api.prefix.clone();
    let (method, template) = match b.rng.range(0, 2) {
        0 => ("POST", format!("{prefix}/integrations/{{id}}/events")),
        1 => ("POST", format!("{prefix}/webhooks/{{id}}/deliveries")),
        _ => ("GET", format!("{prefix}/reports/{{id}}/export")),
    };
    let usual_db = b.cfg.api.mix_means().0 * b.rng.uniform(0.5, 2.0);
    let route = b.cfg.api.add(Route { db_ms: usual_db, cpu_ms: b.rng.uniform(5.0, 20.0), ..Route::new(method, template, ReqKind::Api) });
    // Slow requests at a rate that asks for more connections than the fleet has, while
    // staying a small share of all requests.
    let mut demand = b.rng.uniform(1.5, 4.0);
    let lb_s = b.cfg.lb.timeout_ms as f64 / 1000.0;
    let db_s = b.rng.log_uniform(5.0, 30.0).min(lb_s * 0.6);
    let rate_f = b.cfg.traffic.rate_at(b.fault);
    // At most 8% of the requests: a smaller pool, a smaller fleet, then a smaller excess.
    let most = 0.08 * rate_f;
    while demand * b.pool_capacity() / db_s > most && b.cfg.fleet.pool > 5 {
        b.cfg.fleet.pool -= 1;
    }
    while demand * b.pool_capacity() / db_s > most && b.cfg.fleet.n > 2 {
        b.cfg.fleet.n -= 1;
    }
    b.recalibrate();
    if demand * b.pool_capacity() / db_s > most {
        demand = (most * db_s / b.pool_capacity()).max(1.3);
    }
    let slow_rate = demand * b.pool_capacity() / db_s;
    let usual_rate = slow_rate / b.rng.uniform(1.0, 1.5);
    let policy = b.cfg.people.policies[culprit];
    let cpu_ms = b.cfg.api.routes[route].cpu_ms;
    b.cfg.actors.push(Actor::Stream(Stream { tenant: culprit, route, start: b.cfg.start, end: b.fault, rate: usual_rate, db_ms: usual_db, db_sigma: 0.5, cpu_ms, pauses: Vec::new(), policy }));
    let deploy = b.rng.chance(0.7);
    let pause = deploy && b.rng.chance(0.5);
    let mut steps = Vec::new();
    let mut pauses = Vec::new();
    if deploy {
        let v1 = b.next_version();
        b.cfg.versions.push(Version { name: v1.clone(), ..Version::default() });
        let rollout = b.cfg.fleet.n as i64 * (b.cfg.fleet.boot_ms as i64 + 15_000);
        let start = b.fault - rollout - b.rng.range(1, 6) * MIN;
        let actor = b.bot();
        b.cfg.script.push((start, Action::Deploy { version: 1, rollback: false, reason: None, actor }));
        let d1 = b.rng.range(3, 10) * MIN;
        let actor = b.person();
        steps.push((d1, Action::Deploy { version: 0, rollback: true, reason: Some(format!("latency and 5xx up after {v1}")), actor }));
        if pause {
            let t = b.fault + 2 * MIN + d1 + b.rng.range(-30_000, 60_000);
            pauses.push((t, t + b.rng.range(2, 6) * MIN));
        }
        b.p.set("deploy_version", v1);
        b.p.set("deploy_start", super::super::time::iso_ms(start));
    }
    let d2 = b.rng.range(8, 30) * MIN;
    let actor = b.person();
    let reason = format!("{token} requests holding connections");
    steps.push((d2, Action::RateLimit { tenant: culprit, rps: b.rng.uniform(0.05, 0.5), reason, actor }));
    let d3 = b.rng.range(10, 30) * MIN;
    steps.push((d3, Action::StopActor { actor: b.cfg.actors.len() }));
    b.cfg.actors.push(Actor::Stream(Stream {
        tenant: culprit,
        route,
        start: b.fault,
        end: b.cfg.end,
        rate: slow_rate,
        db_ms: db_s * 1000.0,
        db_sigma: 0.6,
        cpu_ms,
        pauses,
        policy,
    }));
    b.cfg.responders.steps = steps;
    b.cfg.responders.fallback_ms = 12 * MIN;
    b.p.set("culprit", b.cfg.people.tenants[culprit].id.clone());
    b.p.set("integration", token);
    b.p.set("slow_db_s", (db_s * 100.0).round() / 100.0);
    b.p.set("slow_rate_per_s", (slow_rate * 1000.0).round() / 1000.0);
    b.p.set("usual_rate_per_s", (usual_rate * 1000.0).round() / 1000.0);
    b.p.set("demand_over_capacity", (demand * 100.0).round() / 100.0);
    b.p.set("red_herring_deploy", deploy);
    b.p.set("integration_pauses", pause);
    let intent = Intent {
        incident: true,
        fault: b.fault,
        client_change: true,
        culprit: Some(culprit),
        red_herring: deploy,
        ..Intent::default()
    };
    finish(b, intent)
}
