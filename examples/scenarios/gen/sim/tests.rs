//! The simulation's mechanics on hand-made services: a pool asked for more than it has
//! queues and times out; a killed instance fails what it had in flight and restarts in place;
//! a stuck instance's requests wait for the load balancer's timeout.

use super::super::facts::*;
use super::super::people::RetryPolicy;
use super::super::scenarios::base::{base, Spec, MIN};
use super::*;

/// One instance, little ordinary traffic, no liveness probe; a tenant's stream of `db_ms`
/// requests at `rate` from minute 5 to minute 10.
fn service(rate: f64, db_ms: f64, pool: u32) -> Config {
    let spec = Spec {
        span_h: (0.6, 0.6),
        d_max_min: 0.0,
        ..Spec::default()
    };
    let mut b = base("sim-test", 7, true, &spec);
    let c = &mut b.cfg;
    c.traffic.rate = 0.5;
    c.fleet.n = 1;
    c.fleet.pool = pool;
    c.fleet.workers = 0;
    c.fleet.acquire_timeout_ms = 1_000;
    c.lb.timeout_ms = 60_000;
    c.probes.liveness = None;
    c.probes.readiness.db = false;
    c.script.clear();
    c.noise_errors = 0.0;
    let route = c.api.list_route();
    c.actors = vec![Actor::Stream(Stream {
        tenant: 0,
        route,
        start: c.start + 5 * MIN,
        end: c.start + 10 * MIN,
        rate,
        db_ms,
        db_sigma: 0.05,
        cpu_ms: 1.0,
        pauses: Vec::new(),
        policy: RetryPolicy::NONE,
    })];
    b.cfg
}

#[test]
fn a_pool_asked_for_more_than_it_has_queues_then_times_out() {
    let cfg = service(4.0, 2_000.0, 2);
    let (w, g) = run(&cfg, 1);
    let timeouts: Vec<(&Request, &ReqTruth)> = w
        .requests
        .iter()
        .zip(&g.requests)
        .filter(|(r, _)| r.failure == Some(Failure::PoolTimeout))
        .collect();
    assert!(timeouts.len() >= 100, "{} pool timeouts", timeouts.len());
    for (r, x) in &timeouts {
        assert_eq!(r.status, 500);
        assert!(x.pool_wait_ms >= 1_000, "waited {} ms", x.pool_wait_ms);
        assert!(
            r.start >= cfg.start + 5 * MIN,
            "a timeout before the load came: {r:?} {x:?}"
        );
    }
    // Someone is waiting most of the five minutes the load lasts.
    let waited: Ms = g.pool_waits[0].iter().map(|(a, b)| b - a).sum();
    assert!(waited >= 150_000, "waited {waited} ms in all");
    assert!(w.logs.iter().any(|l| l.topic == LogTopic::PoolTimeout));
    // Served requests never held more connections than the pool has: holds add up to at
    // most pool x time.
    let held: u64 = g.requests.iter().map(|x| x.pool_hold_ms as u64).sum();
    assert!(held <= 2 * (cfg.end - cfg.start) as u64);
}

#[test]
fn the_same_service_under_its_capacity_never_waits_long() {
    let mut cfg = service(0.2, 2_000.0, 2);
    cfg.fleet.acquire_timeout_ms = 10_000;
    let (w, _) = run(&cfg, 1);
    assert!(w
        .requests
        .iter()
        .all(|r| r.failure != Some(Failure::PoolTimeout)));
}

#[test]
fn a_killed_instance_fails_its_requests_in_flight_and_restarts_in_place() {
    let mut cfg = service(1.0, 5_000.0, 1);
    let live = cfg.api.live;
    cfg.probes.liveness = Some(Probe {
        route: live,
        period_ms: 1_000,
        timeout_ms: 500,
        failure_threshold: 2,
        db: true,
    });
    let (w, g) = run(&cfg, 1);
    // One entry of pool waits per instance, its last life's waits in it
    // too (they were pushed after the entries a kill had made).
    assert_eq!(g.pool_waits.len(), 1, "{} entries", g.pool_waits.len());
    let inst = &w.instances[0];
    let last_start = inst.lives.last().map_or(Ms::MAX, |l| l.started);
    assert!(
        g.pool_waits[0].iter().any(|(a, _)| *a >= last_start),
        "no wait in the last life (from {last_start})"
    );
    let kill = inst
        .lives
        .iter()
        .find(|l| l.end_cause == Some(EndCause::LivenessKill))
        .and_then(|l| l.ended);
    let Some(kill) = kill else {
        panic!("no liveness kill: {:?}", inst.lives)
    };
    let reset: Vec<&Request> = w
        .requests
        .iter()
        .filter(|r| {
            r.failure == Some(Failure::UpstreamReset)
                && r.start < kill
                && r.start + r.duration_ms as Ms >= kill
        })
        .collect();
    assert!(!reset.is_empty(), "nothing failed at the kill");
    assert!(reset
        .iter()
        .all(|r| r.start + r.duration_ms as Ms == kill && r.status == 502));
    assert!(
        inst.lives.len() >= 2,
        "restarted in place: {} lives",
        inst.lives.len()
    );
    assert_eq!(w.instances.len(), 1, "a restart in place keeps the pod");
    assert!(w
        .events
        .iter()
        .any(|e| e.kind == InfraKind::Killing && e.message.contains("failed liveness probe")));
    assert!(w
        .events
        .iter()
        .any(|e| e.kind == InfraKind::LivenessFailed && e.message.contains(&inst.ip)));
}

#[test]
fn a_stuck_instance_answers_only_through_the_load_balancers_timeout() {
    let mut cfg = service(0.1, 10.0, 5);
    cfg.fleet.n = 2;
    cfg.traffic.rate = 5.0;
    cfg.lb.timeout_ms = 30_000;
    cfg.script = vec![(cfg.start + 10 * MIN, Action::Stick { instance: 1 })];
    let (w, g) = run(&cfg, 1);
    let after: Vec<(&Request, &ReqTruth)> = w
        .requests
        .iter()
        .zip(&g.requests)
        .filter(|(r, _)| r.start > cfg.start + 11 * MIN && r.kind == ReqKind::Api)
        .collect();
    let (stuck, other): (Vec<_>, Vec<_>) = after.iter().partition(|(r, _)| r.instance == Some(1));
    assert!(stuck.len() > 50 && other.len() > 50);
    // Only the load balancer's 504 at its timeout, or the client giving up first (499).
    let answered: Vec<_> = stuck
        .iter()
        .filter(|(r, _)| {
            !(r.status == 504 && r.duration_ms == 30_000
                || r.status == 499 && r.failure == Some(Failure::ClientClosed))
        })
        .collect();
    assert!(
        answered.is_empty(),
        "the stuck instance answered: {answered:?}"
    );
    assert!(
        other
            .iter()
            .filter(|(r, x)| r.status >= 500 && !x.noise)
            .count()
            * 100
            <= other.len()
    );
    assert_eq!(g.stuck.len(), 1);
}
