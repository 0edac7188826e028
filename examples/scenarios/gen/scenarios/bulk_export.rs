//! `bulk-export` (seed 000): one tenant's integration starts a bulk export at a very high
//! rate: pages of a list route whose handler writes for every record it returns, so each page
//! holds a connection for a long time. The pools run dry within seconds; probes that need the
//! database time out and the orchestrator restarts most or all instances at once; the
//! integration retries into the recovering fleet, restarts its export from its last
//! checkpoint, and gives up (or is rate-limited by responders). Variants: probes that do not
//! touch the database (no restarts), an integration that does not retry, a bounded page size.

use super::super::sim::{Action, Actor, Exporter};
use super::base::{base, Spec, MIN};
use super::{finish, Intent, Parts};

const EXPORTERS: [&str; 5] = ["acme-exporter", "datasync", "backup-agent", "etl-runner", "ledger-bridge"];

pub fn draw(seed: u64, small: bool) -> Parts {
    let spec = Spec {
        d_max_min: 45.0,
        pool_util: (0.04, 0.25),
        ordinary_share: 0.55,
        ..Spec::default()
    };
    let mut b = base("bulk-export", seed, small, &spec);
    b.cap_pool(if small { 60 } else { 240 });
    let culprit = b.tenant_ranked(10, 400);
    let token = b.rng.pick(&EXPORTERS);
    b.cfg.people.make_integration(&mut b.rng, culprit, token);
    let coupled = b.rng.chance(0.75);
    if coupled {
        b.cfg.probes.liveness.get_or_insert_with(|| b.cfg.probes.readiness.clone()).db = true;
        b.cfg.probes.readiness.db = true;
        if let Some(l) = b.cfg.probes.liveness.as_mut() {
            l.route = b.cfg.api.live;
        }
    } else {
        b.cfg.probes.readiness.db = false;
        if let Some(l) = b.cfg.probes.liveness.as_mut() {
            l.db = false;
        }
    }
    let retries = b.rng.chance(0.8);
    let bounded = b.rng.chance(0.35);
    let cap = b.pool_capacity();
    let (per_page, db_ms) = if bounded {
        (100, b.rng.log_uniform(150.0, 800.0))
    } else {
        (b.rng.pick(&[500, 1000, 2000, 5000]), b.rng.log_uniform(500.0, 3000.0))
    };
    // Asks for several times the fleet's connections: rate x hold time = demanded connections.
    let demand = b.rng.uniform(3.0, 12.0);
    // Serialising a page costs a few ms of CPU; the export must not simply run out of CPU.
    let page_cpu = b.rng.uniform(2.0, 8.0);
    let cpu_cap = 0.4 * b.cfg.fleet.n as f64 * b.cfg.fleet.cores * 1000.0 / page_cpu;
    let rate = (demand * cap / (db_ms / 1000.0)).clamp(5.0, 400.0).min(cpu_cap);
    let restarts = if retries { b.rng.range(1, 2) as u32 } else { 0 };
    // Pages for a few minutes at that rate, within the budget.
    let run_s = b.rng.uniform(120.0, 420.0);
    let pages = (rate * run_s).min(b.budget * 0.3 / (1.0 + restarts as f64)) as u32;
    let exporter = Exporter {
        tenant: culprit,
        route: b.cfg.api.list_route(),
        start: b.fault,
        pages: pages.max(200),
        per_page,
        rate,
        max_inflight: b.rng.range(200, 2000) as u32,
        db_ms,
        db_sigma: 0.5,
        cpu_ms: page_cpu,
        attempts: if retries { b.rng.range(3, 6) as u32 } else { 1 },
        retry_delay_ms: if b.rng.chance(0.5) { 0.0 } else { b.rng.uniform(200.0, 3000.0) },
        restarts,
        checkpoint_every: b.rng.range(10, 100) as u32,
        restart_after_ms: b.rng.range(5_000, 60_000),
        timeout_ms: if b.rng.chance(0.5) { 0 } else { b.rng.range(30, 90) * 1000 },
    };
    b.p.set("culprit", b.cfg.people.tenants[culprit].id.clone());
    b.p.set("integration", token);
    b.p.set("probes_coupled", coupled);
    b.p.set("retries", retries);
    b.p.set("bounded_page_size", bounded);
    b.p.set("pages_per_s", (rate * 100.0).round() / 100.0);
    b.p.set("demand_over_capacity", (demand * 100.0).round() / 100.0);
    b.p.set("pages", exporter.pages);
    b.p.set("per_page", per_page);
    b.p.set("page_db_ms", db_ms.round());
    b.cfg.actors.push(Actor::Exporter(exporter));
    let actor = b.person();
    let delay = b.rng.range(8, 25) * MIN;
    let reason = format!("bulk export by {token} exhausting database connections");
    b.cfg.responders.steps = vec![(delay, Action::RateLimit { tenant: culprit, rps: b.rng.uniform(0.2, 2.0), reason, actor })];
    b.cfg.responders.fallback_ms = 20 * MIN;
    let intent = Intent {
        incident: true,
        fault: b.fault,
        client_change: true,
        culprit: Some(culprit),
        ..Intent::default()
    };
    finish(b, intent)
}
