//! `thundering-herd` (seed 004): database pressure grows (organic) until the pools time out
//! and the application's circuit breaker opens: it answers 503 for minutes and drops every
//! websocket. Thousands of distinct clients (each its own address) reconnect aggressively;
//! when the breaker closes they arrive at the same moment (the websocket upgrade, then for
//! many a new login through the OAuth callback), re-saturating the pools; the OAuth provider
//! rate-limits the service (its 429s in the app's log). Responders relieve the database
//! (realtime reads to a read replica) and it recovers as clients back off. No tenant caused it.

use super::super::facts::ReqKind;
use super::super::routes::Route;
use super::super::sim::{Action, Actor, Breaker, Curve, Sockets};
use super::super::stack::Lang;
use super::base::{base, Spec, MIN};
use super::{finish, Intent, Parts};

pub fn draw(seed: u64, small: bool) -> Parts {
    let spec = Spec {
        span_h: (1.0, 6.0),
        d_max_min: 80.0,
        pool_util: (0.2, 0.35),
        fleet: (2, 6),
        ordinary_share: 0.5,
        needs_util: true,
        ..Spec::default()
    };
    let mut b = base("thundering-herd", seed, small, &spec);
    let ws = match b.cfg.stack.lang {
        Lang::Ruby => "/cable",
        Lang::Node => "/socket.io/",
        _ => b.rng.pick(&["/ws", "/graphql/ws", "/realtime"]),
    };
    let ws_db = b.rng.uniform(50.0, 200.0);
    let ws = b.cfg.api.add(Route { db_ms: ws_db, cpu_ms: b.rng.uniform(2.0, 6.0), bytes: 0.0, ..Route::new("GET", ws.to_string(), ReqKind::Websocket) });
    let login = b.cfg.api.add(Route { db_ms: 0.0, cpu_ms: b.rng.uniform(5.0, 15.0), bytes: 9000.0, ..Route::new("GET", "/login".into(), ReqKind::Login) });
    let (provider, cb) = b.rng.pick(&[("GitHub", "/auth/github/callback"), ("Google", "/auth/google_oauth2/callback"), ("Okta", "/oauth/callback")]);
    let callback = b.cfg.api.add(Route { db_ms: b.rng.uniform(10.0, 30.0), cpu_ms: b.rng.uniform(10.0, 30.0), bytes: 0.0, ..Route::new("GET", cb.into(), ReqKind::Login) });
    let clients = b.rng.log_uniform(1000.0, 6000.0).min(b.budget * 0.35 / 15.0).max(300.0) as u32;
    let relogin = b.rng.uniform(0.3, 0.8);
    let per_min = (clients as f64 * relogin / b.rng.uniform(4.0, 15.0)).max(20.0);
    b.cfg.actors.push(Actor::Sockets(Sockets {
        clients,
        ws_route: ws,
        login_route: login,
        callback_route: callback,
        churn_per_hour: b.rng.uniform(0.5, 2.0),
        retry_ms: b.rng.uniform(1000.0, 4000.0),
        max_retry_ms: b.rng.uniform(20_000.0, 60_000.0),
        relogin,
        provider_per_min: per_min,
        provider: provider.into(),
    }));
    let ramp = b.rng.range(10, 40) * MIN;
    let m = b.rng.uniform(1.3, 2.0) / b.u_pool;
    b.cfg.traffic.db_mult = Curve(vec![(b.fault, 1.0), (b.fault + ramp, m)]);
    b.cfg.breaker = Some(Breaker {
        threshold: b.rng.range(10, 40) as u32,
        open_ms: b.rng.range(60, 300) * 1000,
        name: b.rng.pick(&["database", "db", "postgres"]).into(),
    });
    let delay = b.rng.range(5, 20) * MIN;
    let actor = b.person();
    let fix = 1.0 / m * b.rng.uniform(0.7, 0.9);
    b.cfg.responders.steps = vec![(delay, Action::DbFix { mult: fix, reason: "realtime reads moved to the read replica".into(), actor })];
    b.cfg.responders.fallback_ms = ramp + 10 * MIN;
    b.p.set("clients", clients);
    b.p.set("relogin_share", (relogin * 100.0).round() / 100.0);
    b.p.set("provider", provider);
    b.p.set("provider_per_min", per_min.round());
    b.p.set("db_pressure", (m * 100.0).round() / 100.0);
    b.p.set("ramp_s", ramp / 1000);
    let intent = Intent {
        incident: true,
        fault: b.fault,
        gradual: true,
        ..Intent::default()
    };
    finish(b, intent)
}
