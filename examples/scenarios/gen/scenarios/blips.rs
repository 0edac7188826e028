//! Earlier harmless blips: a few seconds of 502s from one instance, a short latency blip, a
//! routine pod replacement, one tenant's short burst. Each is short and small, so by the
//! truth's own definition it is no incident; the tool must not call it one either. In: a
//! [`Base`] and a window. Out: the blips added to its configuration.

use serde_json::{json, Value};

use super::super::facts::Ms;
use super::super::sim::{Action, Actor, Stream};
use super::super::time::iso_ms;
use super::base::{Base, MIN};

#[derive(Clone, Debug)]
pub struct Blip {
    pub kind: &'static str,
    pub start: Ms,
    pub end: Ms,
    pub instance: Option<usize>,
    pub tenant: Option<usize>,
}

impl Blip {
    pub fn json(&self) -> Value {
        json!({
            "kind": self.kind,
            "start": iso_ms(self.start),
            "end": iso_ms(self.end),
            "instance": self.instance,
        })
    }
}

/// Up to `count` blips in [from, to], at least 3 minutes apart.
pub fn add(b: &mut Base, count: usize, from: Ms, to: Ms) -> Vec<Blip> {
    let mut out: Vec<Blip> = Vec::new();
    if to - from < 2 * MIN {
        return out;
    }
    for _ in 0..count {
        let start = from + b.rng.range(0, to - from - MIN);
        if out.iter().any(|x| (x.start - start).abs() < 3 * MIN) {
            continue;
        }
        let n = b.cfg.fleet.n;
        let inst = b.rng.range(0, n as i64 - 1) as usize;
        let kind = b.rng.range(0, 3);
        let kind = if b.fragile && kind < 3 { 1 + 2 * (kind % 2) } else { kind };
        let blip = match kind {
            0 => {
                let ms = b.rng.range(2_000, 8_000);
                b.cfg.script.push((start, Action::Refuse { instance: inst, ms }));
                Blip { kind: "upstream_resets", start, end: start + ms, instance: Some(inst), tenant: None }
            }
            1 => {
                let d = b.rng.range(10_000, 30_000);
                let m = b.rng.uniform(1.5, 2.5);
                let c = &mut b.cfg.traffic.db_mult.0;
                c.extend([(start - 1, 1.0), (start, m), (start + d, m), (start + d + 1, 1.0)]);
                c.sort_by_key(|p| p.0);
                Blip { kind: "latency", start, end: start + d, instance: None, tenant: None }
            }
            2 => {
                b.cfg.script.push((start, Action::Evict { instance: inst }));
                Blip { kind: "pod_replaced", start, end: start + 60_000, instance: Some(inst), tenant: None }
            }
            _ => {
                let t = b.tenant_ranked(5, 200);
                let d = b.rng.range(60_000, 180_000);
                let usual = b.tenant_rate(t, start);
                let rate = (usual * b.rng.uniform(4.0, 10.0)).max(0.5).min(b.cfg.traffic.rate_at(start) * 0.15).max(0.2);
                let route = b.cfg.api.list_route();
                let r = &b.cfg.api.routes[route];
                let (db_ms, cpu_ms) = (r.db_ms, r.cpu_ms);
                let policy = b.cfg.people.policies[t];
                b.cfg.actors.push(Actor::Stream(Stream {
                    tenant: t,
                    route,
                    start,
                    end: start + d,
                    rate,
                    db_ms,
                    db_sigma: 0.5,
                    cpu_ms,
                    pauses: Vec::new(),
                    policy,
                }));
                Blip { kind: "tenant_burst", start, end: start + d, instance: None, tenant: Some(t) }
            }
        };
        out.push(blip);
    }
    out.sort_by_key(|x| x.start);
    b.cfg.script.sort_by_key(|x| x.0);
    out
}
