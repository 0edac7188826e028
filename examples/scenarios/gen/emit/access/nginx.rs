//! nginx access lines: `combined` with a timing tail, two key=value tails, and
//! ingress-nginx's `upstreaminfo`.
//!
//! Every line is written when the request ends and `$time_local` is that moment, in the
//! server's zone with its offset (`[01/Oct/2026:13:10:12 +0530]`).
//! Followed, field by field:
//! - combined + timing: corpus `http_access_combined.log` L1 (combined part) and nginx's
//!   `log_format main` from the nginx docs (with `"$http_x_forwarded_for"`), timing tail
//!   `$request_time $upstream_response_time $upstream_addr` as the spec lists;
//! - `upstream_time` from the nginx admin guide ("Configuring Logging"), whose published
//!   format has no space between `"$http_user_agent"` and `rt=` (kept: configs copy it);
//! - NGINX Amplify's `main_ext` (`rt= ua="" us="" ut="" ul="" cs=`);
//! - ingress-nginx `upstreaminfo`: corpus `nginx_upstream.log` L5 (Elastic integration input).

use super::{dash, protocol, secs3, View};
use crate::gen::emit::ctx::{Clock, Ctx, Scheme};
use crate::gen::emit::plan::{Lines, SourcePlan};
use crate::gen::facts::{Failure, Request};
use crate::gen::rng::Rng;
use crate::gen::time;

/// The `combined` head, up to and including the quoted user agent.
fn head(remote: &str, v: &View, clock: &Clock) -> String {
    let r = v.r;
    format!(
        "{remote} - - [{}] \"{} {} {}\" {} {} \"{}\" \"{}\"",
        time::clf(v.end, clock.zone.offset_ms(v.end)),
        r.method,
        v.p.target(),
        protocol(r),
        r.status,
        r.bytes,
        r.referer.as_deref().unwrap_or("-"),
        r.user_agent
    )
}

/// `$upstream_status` as nginx records it (504 and 502 for its own give-ups).
fn up_status(r: &Request) -> Option<u16> {
    r.instance?;
    match r.failure {
        Some(Failure::UpstreamTimeout) => Some(504),
        Some(Failure::UpstreamReset) => Some(502),
        Some(Failure::ClientClosed) => None,
        _ => Some(r.status),
    }
}

fn up_addr(ctx: &Ctx, r: &Request) -> Option<String> {
    r.instance.map(|i| ctx.name(i, Scheme::IpPort))
}

fn up_time(r: &Request) -> Option<String> {
    r.instance.and(r.upstream_ms).map(|ms| secs3(i64::from(ms)))
}

/// Addresses of the balancer nodes in front of nginx (what `$remote_addr` shows then).
fn lb_nodes(rng: &mut Rng) -> Vec<String> {
    (0..3)
        .map(|_| format!("10.0.{}.{}", rng.range(0, 3), rng.range(10, 250)))
        .collect()
}

pub fn timed(
    ctx: &Ctx,
    v: &[View],
    clock: &Clock,
    rng: &mut Rng,
    plan: &mut SourcePlan,
) -> (String, String) {
    let xff = rng.chance(0.5);
    let nodes = lb_nodes(rng);
    plan.stamps = "end ($time_local)".into();
    plan.detail(
        "log_format",
        if xff {
            "main + \"$http_x_forwarded_for\" $request_time $upstream_response_time $upstream_addr"
        } else {
            "combined $request_time $upstream_response_time $upstream_addr"
        },
    );
    let out: Lines = v
        .iter()
        .map(|x| {
            let r = x.r;
            let remote = if xff {
                nodes[x.idx % nodes.len()].clone()
            } else {
                r.client_ip.clone()
            };
            let mut line = head(&remote, x, clock);
            if xff {
                line.push_str(&format!(" \"{}\"", r.client_ip));
            }
            line.push_str(&format!(
                " {} {} {}",
                secs3(i64::from(r.duration_ms)),
                dash(up_time(r)),
                dash(up_addr(ctx, r))
            ));
            line
        })
        .collect();
    ("access.log".into(), out.0)
}

pub fn kv(
    ctx: &Ctx,
    v: &[View],
    clock: &Clock,
    variant: super::Variant,
    rng: &mut Rng,
    plan: &mut SourcePlan,
) -> (String, String) {
    let upstream_time = variant.nginx_kv_upstream_time;
    let sep = if variant.nginx_kv_no_space { "" } else { " " };
    plan.stamps = "end ($time_local)".into();
    plan.detail(
        "log_format",
        match (upstream_time, sep) {
            (true, "") => "upstream_time (nginx admin guide, no space before rt=)",
            (true, _) => "upstream_time (nginx admin guide)",
            _ => "main_ext (NGINX Amplify)",
        },
    );
    let nodes = lb_nodes(rng);
    let out: Lines = v
        .iter()
        .map(|x| {
            let r = x.r;
            if upstream_time {
                let connect = r
                    .upstream_ms
                    .map(|u| i64::from(u.min(1 + (x.idx % 3) as u32)));
                let header = r
                    .upstream_ms
                    .map(|u| i64::from(u).saturating_sub(i64::from(u) / 20));
                let q = |o: Option<i64>| {
                    if r.instance.is_some() {
                        dash(o.map(secs3))
                    } else {
                        "-".into()
                    }
                };
                format!(
                    "{}{sep}rt={} uct=\"{}\" uht=\"{}\" urt=\"{}\"",
                    head(&r.client_ip, x, clock),
                    secs3(i64::from(r.duration_ms)),
                    q(connect),
                    q(header),
                    dash(up_time(r))
                )
            } else {
                let remote = nodes[x.idx % nodes.len()].clone();
                format!(
                    "{} \"{}\" \"{}\" sn=\"{}\" rt={} ua=\"{}\" us=\"{}\" ut=\"{}\" ul=\"{}\" cs=-",
                    head(&remote, x, clock),
                    r.client_ip,
                    ctx.w.host,
                    ctx.w.host,
                    secs3(i64::from(r.duration_ms)),
                    dash(up_addr(ctx, r)),
                    dash(up_status(r)),
                    dash(up_time(r)),
                    dash(up_status(r).map(|_| r.bytes))
                )
            }
        })
        .collect();
    ("access.log".into(), out.0)
}

pub fn ingress(
    ctx: &Ctx,
    v: &[View],
    clock: &Clock,
    _rng: &mut Rng,
    plan: &mut SourcePlan,
) -> (String, String) {
    plan.stamps = "end ($time_local)".into();
    let port = ctx.w.instances.first().map(|i| i.port).unwrap_or(8080);
    let upstream_name = format!("{}-{}-{}", ctx.w.namespace, ctx.w.service, port);
    plan.detail("proxy_upstream_name", &upstream_name);
    let out: Lines = v
        .iter()
        .map(|x| {
            let r = x.r;
            let (name, tail) = match r.instance {
                Some(_) => (
                    upstream_name.as_str(),
                    format!(
                        "{} {} {} {}",
                        dash(up_addr(ctx, r)),
                        if up_status(r).is_some() { r.bytes } else { 0 },
                        dash(up_time(r)),
                        dash(up_status(r))
                    ),
                ),
                // No endpoint: ingress-nginx answers 503 itself, upstream fields all `-`.
                None => (upstream_name.as_str(), "- - - -".to_string()),
            };
            format!(
                "{} {} {} [{}] [] {} {}",
                head(&r.client_ip, x, clock),
                r.request_bytes,
                secs3(i64::from(r.duration_ms)),
                name,
                tail,
                super::hex_id(x.idx, 0x1d, 32)
            )
        })
        .collect();
    ("ingress-nginx-controller.log".into(), out.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::emit::fixture;

    /// A small reader for the timing tail: the last three space-separated fields.
    fn tail3(line: &str) -> Vec<&str> {
        let mut f: Vec<&str> = line.rsplitn(4, ' ').take(3).collect();
        f.reverse();
        f
    }

    #[test]
    fn timed_lines_end_with_request_and_upstream_time_and_address() {
        let w = fixture::world();
        let ctx = fixture::ctx(&w);
        let clock = fixture::clock(0);
        let v = super::super::views(
            &ctx,
            crate::gen::emit::family::AccessFamily::NginxTimed,
            &clock,
        );
        let (_, body) = timed(
            &ctx,
            &v,
            &clock,
            &mut Rng::new(3),
            &mut SourcePlan::default(),
        );
        assert_eq!(body.lines().count(), v.len());
        for (line, x) in body.lines().zip(&v) {
            let t = tail3(line);
            assert_eq!(t[0], secs3(i64::from(x.r.duration_ms)), "{line}");
            match x.r.instance {
                Some(i) => assert_eq!(
                    t[2],
                    format!("{}:{}", w.instances[i].ip, w.instances[i].port)
                ),
                None => assert_eq!(t[1..], ["-", "-"]),
            }
        }
    }

    #[test]
    fn ingress_lines_have_the_upstreaminfo_field_count() {
        let w = fixture::world();
        let ctx = fixture::ctx(&w);
        let clock = fixture::clock(0);
        let v = super::super::views(
            &ctx,
            crate::gen::emit::family::AccessFamily::IngressNginx,
            &clock,
        );
        let (_, body) = ingress(
            &ctx,
            &v,
            &clock,
            &mut Rng::new(3),
            &mut SourcePlan::default(),
        );
        for line in body.lines() {
            // After the quoted user agent: length, time, [name], [alt], addr, len, time, status, id.
            let after = line.rsplit_once("\" ").map(|(_, t)| t).unwrap_or("");
            assert_eq!(after.split(' ').count(), 9, "{line}");
            assert!(after.contains(" [] "), "{line}");
        }
    }
}
