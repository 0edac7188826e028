//! The access log: the load balancer's (or the service's own) record of each request.
//!
//! In: the World's requests, the tenant plan, the family and the source's clock; out: one file
//! in that family's format, lines in the order the software writes them (at the end of each
//! request), each stamped with the moment that software stamps (nginx and ALB the end, HAProxy
//! the accept time, Envoy and Traefik the start), plus the plan entry.

mod alb;
mod envoy;
mod gcp;
mod haproxy;
mod json_access;
mod nginx;
mod traefik;

use super::ctx::{Clock, Ctx, Scheme};
use super::family::{AccessFamily, Platform};
use super::plan::{OutFile, SourceOut, SourcePlan};
use super::tenant::Placed;
use crate::gen::facts::{Failure, Ms, ReqKind, Request};
use crate::gen::rng::Rng;

/// One request as an access writer sees it.
pub struct View<'a> {
    pub r: &'a Request,
    /// Index in `World::requests`.
    pub idx: usize,
    pub p: Placed,
    /// Start and end on the writer's clock.
    pub start: Ms,
    pub end: Ms,
}

/// The requests `fam` logs, in the order it writes them (by end time).
pub fn views<'a>(ctx: &'a Ctx, fam: AccessFamily, clock: &Clock) -> Vec<View<'a>> {
    let own_log = fam == AccessFamily::JsonAccess;
    let mut v: Vec<View> = ctx
        .w
        .requests
        .iter()
        .enumerate()
        .filter(|(_, r)| r.kind != ReqKind::HealthCheck || fam.logs_health_checks())
        // The service's own log sees only what reached it and did not kill it mid-request.
        .filter(|(_, r)| {
            !own_log || (r.instance.is_some() && r.failure != Some(Failure::UpstreamReset))
        })
        .map(|(idx, r)| {
            let dur = if own_log {
                r.upstream_ms.unwrap_or(r.duration_ms)
            } else {
                r.duration_ms
            };
            View {
                r,
                idx,
                p: ctx.tenant.place(ctx.w, r),
                start: clock.at(r.start),
                end: clock.at(r.start + Ms::from(dur)),
            }
        })
        .collect();
    v.sort_by_key(|x| (x.end, x.idx));
    v
}

/// Seconds with millisecond resolution, as nginx and HAProxy print them (`0.049`).
pub fn secs3(ms: Ms) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// The HTTP version a client speaks: browsers often HTTP/2, API clients HTTP/1.1.
pub fn protocol(r: &Request) -> &'static str {
    let h = r
        .client_ip
        .bytes()
        .fold(7u32, |a, b| a.wrapping_mul(31).wrapping_add(u32::from(b)));
    if r.user_agent.starts_with("Mozilla") && h % 3 != 0 {
        "HTTP/2.0"
    } else {
        "HTTP/1.1"
    }
}

/// The status the upstream itself returned, when one answered.
pub fn upstream_status(r: &Request) -> Option<u16> {
    match (r.instance, r.failure) {
        (None, _) => None,
        (
            Some(_),
            Some(Failure::UpstreamTimeout | Failure::UpstreamReset | Failure::ClientClosed),
        ) => None,
        (Some(_), _) => Some(r.status),
    }
}

/// `-` for an absent value.
pub fn dash<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_else(|| "-".into())
}

/// A deterministic 32-bit mix of a request, for ids that must not consume the stream.
pub fn mix(idx: usize, salt: u64) -> u64 {
    let mut z = (idx as u64)
        .wrapping_add(salt)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^ (z >> 31)
}

/// Hex digits of a request's mixed id.
pub fn hex_id(idx: usize, salt: u64, n: usize) -> String {
    let mut s = String::new();
    let mut k = 0u64;
    while s.len() < n {
        s.push_str(&format!("{:016x}", mix(idx, salt ^ k)));
        k += 1;
    }
    s.truncate(n);
    s
}

/// The naming scheme the family uses for the instance it forwarded to (if it names one).
pub fn scheme(
    fam: AccessFamily,
    platform: Platform,
    kv_variant_has_upstream: bool,
) -> Option<Scheme> {
    use AccessFamily::*;
    match fam {
        NginxKv if !kv_variant_has_upstream => None,
        NginxTimed | NginxKv | IngressNginx | Alb | Envoy | Istio | TraefikJson | TraefikClf => {
            Some(Scheme::IpPort)
        }
        GcpLb => Some(Scheme::Ip),
        Haproxy => Some(if platform == Platform::Vm {
            Scheme::Host
        } else {
            Scheme::Pod
        }),
        JsonAccess => Some(match platform {
            Platform::Kubernetes => Scheme::Pod,
            Platform::Ecs => Scheme::EcsHost,
            Platform::Vm => Scheme::Host,
        }),
    }
}

/// Variant choices drawn before writing (the nginx kv variant decides whether the log names
/// upstreams at all, which the naming plan needs first).
#[derive(Clone, Copy, Debug)]
pub struct Variant {
    pub nginx_kv_upstream_time: bool,
    /// The admin guide's `upstream_time` format concatenates `"$http_user_agent"` and `rt=`
    /// with no space; configs copied from it keep that (as remembered, not re-checked here).
    pub nginx_kv_no_space: bool,
}

impl Variant {
    pub fn draw(rng: &mut Rng) -> Variant {
        Variant {
            nginx_kv_upstream_time: rng.chance(0.5),
            nginx_kv_no_space: rng.chance(0.25),
        }
    }
}

pub fn write(
    ctx: &Ctx,
    fam: AccessFamily,
    variant: Variant,
    clock: Clock,
    rng: &mut Rng,
) -> SourceOut {
    let mut plan = SourcePlan {
        kind: "access",
        family: fam.name().into(),
        zone: clock.zone.name.into(),
        skew_ms: clock.skew_ms,
        ..SourcePlan::default()
    };
    if let Some(s) = scheme(fam, ctx.platform, !variant.nginx_kv_upstream_time) {
        plan.naming.push(s.name());
    }
    plan.detail("health_checks_logged", fam.logs_health_checks());
    let v = views(ctx, fam, &clock);
    let n = v.len();
    let (name, body) = match fam {
        AccessFamily::NginxTimed => nginx::timed(ctx, &v, &clock, rng, &mut plan),
        AccessFamily::NginxKv => nginx::kv(ctx, &v, &clock, variant, rng, &mut plan),
        AccessFamily::IngressNginx => nginx::ingress(ctx, &v, &clock, rng, &mut plan),
        AccessFamily::Alb => alb::write(ctx, &v, rng, &mut plan),
        AccessFamily::Haproxy => haproxy::write(ctx, &v, &clock, rng, &mut plan),
        AccessFamily::Envoy => envoy::write(ctx, &v, false, rng, &mut plan),
        AccessFamily::Istio => envoy::write(ctx, &v, true, rng, &mut plan),
        AccessFamily::TraefikJson => traefik::json(ctx, &v, &clock, rng, &mut plan),
        AccessFamily::TraefikClf => traefik::clf(ctx, &v, rng, &mut plan),
        AccessFamily::GcpLb => gcp::write(ctx, &v, rng, &mut plan),
        AccessFamily::JsonAccess => json_access::write(ctx, &v, &clock, rng, &mut plan),
    };
    plan.detail("requests_written", n);
    plan.detail("requests_in_world", ctx.w.requests.len());
    let mut file = OutFile::new(name, fam.name(), "access", body, n);
    file.always_gzip = fam == AccessFamily::Alb;
    SourceOut {
        files: vec![file],
        plan,
        links: vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_keep_milliseconds() {
        assert_eq!(secs3(49), "0.049");
        assert_eq!(secs3(60_001), "60.001");
        assert_eq!(secs3(0), "0.000");
    }

    #[test]
    fn ids_are_stable_and_sized() {
        assert_eq!(hex_id(3, 9, 32), hex_id(3, 9, 32));
        assert_ne!(hex_id(3, 9, 32), hex_id(4, 9, 32));
        assert_eq!(hex_id(3, 9, 24).len(), 24);
    }
}
