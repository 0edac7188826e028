//! HAProxy HTTP log lines behind an RFC 3164 syslog prefix.
//!
//! Followed field by field: corpus `haproxy.log` L1/L4 (HAProxy manual examples) and L20 (a
//! real line): the syslog prefix stamps the moment the line was emitted (the request's end),
//! `[accept_date]` the moment the connection was accepted (the start), both local time with
//! no zone; timers `TR/Tw/Tc/Tr/Ta` with `-1` for phases never reached; `<NOSRV>` when no
//! server was picked; termination states from the manual (`sH--` server timeout, `SH--`
//! server abort, `sQ--` queue timeout, `SC--` no server, `CH--` client abort, `PR--` denied by
//! a rate-limit rule).
//! Servers carry the names the config gives them (the VM host names here). HAProxy does not
//! log its own health checks.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::{protocol, View};
use crate::gen::emit::ctx::{Clock, Ctx, Scheme};
use crate::gen::emit::family::Platform;
use crate::gen::emit::plan::{Lines, SourcePlan};
use crate::gen::facts::{Failure, Ms};
use crate::gen::rng::Rng;
use crate::gen::time;

/// Requests in flight (whole proxy, and on the same server) when each request arrived.
fn in_flight(v: &[View]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by_key(|&i| (v[i].start, v[i].idx));
    let mut all: BinaryHeap<Reverse<Ms>> = BinaryHeap::new();
    let mut per: HashMap<Option<usize>, BinaryHeap<Reverse<Ms>>> = HashMap::new();
    let mut out = vec![(0, 0); v.len()];
    for i in order {
        let (s, e) = (v[i].start, v[i].end);
        while all.peek().is_some_and(|Reverse(t)| *t <= s) {
            all.pop();
        }
        let h = per.entry(v[i].r.instance).or_default();
        while h.peek().is_some_and(|Reverse(t)| *t <= s) {
            h.pop();
        }
        all.push(Reverse(e));
        h.push(Reverse(e));
        out[i] = (all.len(), h.len());
    }
    out
}

pub fn write(
    ctx: &Ctx,
    v: &[View],
    clock: &Clock,
    rng: &mut Rng,
    plan: &mut SourcePlan,
) -> (String, String) {
    let host = rng.pick(&["lb-1", "haproxy-1", "edge-01", "lb01"]);
    let pid = rng.range(900, 30_000);
    let fe = rng.pick(&["https-in~", "fe_https~", "http-in", "public~"]);
    let be = format!("be_{}", ctx.w.service);
    let scheme = if ctx.platform == Platform::Vm {
        Scheme::Host
    } else {
        Scheme::Pod
    };
    plan.stamps = "syslog prefix: end; [accept_date]: start".into();
    plan.zoneless = true;
    plan.detail("frontend", fe);
    plan.detail("server_names", scheme.name());
    let flights = in_flight(v);
    let out: Lines = v
        .iter()
        .zip(flights)
        .map(|(x, (all, srv))| {
            let r = x.r;
            let tr = (x.idx % 4) as i64;
            let tc = (x.idx % 2) as i64;
            let ta = i64::from(r.duration_ms);
            let up = i64::from(r.upstream_ms.unwrap_or(r.duration_ms));
            let server = r.instance.map(|i| ctx.name(i, scheme)).unwrap_or_else(|| "<NOSRV>".into());
            let (timers, status, bytes, term, queue) = match (r.instance, r.failure) {
                // `http-request deny deny_status 429`: denied by the proxy while reading the request.
                (None, Some(Failure::RateLimited)) => (format!("{tr}/-1/-1/-1/{ta}"), "429".into(), 212, "PR--", 0),
                (None, _) if ta > 1000 => (format!("{tr}/{}/-1/-1/{ta}", ta - tr), "503".to_string(), 212, "sQ--", all / 4),
                (None, _) => (format!("{tr}/-1/-1/-1/{ta}"), "503".into(), 212, "SC--", 0),
                (Some(_), Some(Failure::UpstreamTimeout)) => (format!("{tr}/0/{tc}/-1/{ta}"), "504".into(), 194, "sH--", 0),
                (Some(_), Some(Failure::UpstreamReset)) => (format!("{tr}/0/{tc}/-1/{ta}"), "502".into(), 209, "SH--", 0),
                (Some(_), Some(Failure::ClientClosed)) => (format!("{tr}/0/{tc}/-1/{ta}"), "-1".into(), 0, "CH--", 0),
                (Some(_), _) => (
                    format!("{tr}/0/{tc}/{}/{ta}", (up - tc - tr).max(0)),
                    r.status.to_string(),
                    r.bytes + 150,
                    "----",
                    0,
                ),
            };
            let end_off = clock.zone.offset_ms(x.end);
            format!(
                "{} {host} haproxy[{pid}]: {}:{} [{}] {fe} {be}/{server} {timers} {status} {bytes} - - {term} {all}/{all}/{all}/{srv}/0 0/{queue} \"{} {} {}\"",
                time::syslog(x.end, end_off),
                r.client_ip,
                r.client_port,
                time::haproxy_date(x.start, clock.zone.offset_ms(x.start)),
                r.method,
                x.p.target(),
                protocol(r)
            )
        })
        .collect();
    ("haproxy.log".into(), out.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::emit::family::AccessFamily;
    use crate::gen::emit::fixture;

    #[test]
    fn timers_add_up_and_accept_dates_precede_the_prefix() {
        let w = fixture::world();
        let ctx = fixture::ctx(&w);
        let clock = fixture::clock(0);
        let v = super::super::views(&ctx, AccessFamily::Haproxy, &clock);
        let (_, body) = write(
            &ctx,
            &v,
            &clock,
            &mut Rng::new(5),
            &mut SourcePlan::default(),
        );
        assert_eq!(body.lines().count(), v.len());
        for (line, x) in body.lines().zip(&v) {
            let rest = line.split_once("]: ").map(|(_, r)| r).unwrap_or("");
            let f: Vec<&str> = rest.split(' ').collect();
            let timers: Vec<i64> = f[4].split('/').filter_map(|t| t.parse().ok()).collect();
            assert_eq!(timers.len(), 5, "{line}");
            assert_eq!(timers[4], i64::from(x.r.duration_ms), "{line}");
            if timers[3] >= 0 {
                assert!(timers[0] + timers[2] + timers[3] <= timers[4], "{line}");
            }
            assert_eq!(f[3].ends_with("<NOSRV>"), x.r.instance.is_none(), "{line}");
            if x.r.failure == Some(Failure::RateLimited) {
                assert_eq!((f[5], f[9]), ("429", "PR--"), "{line}");
            }
        }
    }

    #[test]
    fn in_flight_counts_overlaps() {
        let w = fixture::world();
        let ctx = fixture::ctx(&w);
        let clock = fixture::clock(0);
        let v = super::super::views(&ctx, AccessFamily::Haproxy, &clock);
        let f = in_flight(&v);
        assert!(f.iter().all(|&(a, s)| a >= 1 && s >= 1 && s <= a));
    }
}
