//! Traefik access logs: JSON (`accessLog.format=json`) and its Common Log Format.
//!
//! Followed field by field: corpus `traefik_access.jsonl` L4/L5 (v2 field set with
//! `RouterName`, `ServiceAddr`, `ServiceURL` object; keys sorted as logrus' JSON formatter
//! prints a map; durations in nanoseconds; `StartUTC`/`StartLocal` the request's start, `time`
//! the log time at second precision) and Traefik's `CommonLogFormatter` (pkg/middlewares/
//! accesslog/logger_formatters.go): `StartUTC` as `[02/Jan/2006:15:04:05 -0700]`, origin
//! status and size, quoted referer/agent/router/service URL, `<ms>ms`. Headers are logged
//! under `request_<Canonical-Name>` when kept; Go canonicalises `X-Tenant-ID` to `X-Tenant-Id`.

use super::{mix, protocol, View};
use crate::gen::emit::ctx::{Clock, Ctx, Scheme};
use crate::gen::emit::family::Platform;
use crate::gen::emit::json::{self, J};
use crate::gen::emit::plan::{Lines, SourcePlan};
use crate::gen::facts::Failure;
use crate::gen::rng::Rng;
use crate::gen::time::{self, OffsetStyle};

/// Go's `textproto.CanonicalMIMEHeaderKey`: `x-tenant-ID` -> `X-Tenant-Id`.
pub fn canonical_header(h: &str) -> String {
    h.split('-')
        .map(|p| {
            let mut c = p.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + &c.as_str().to_ascii_lowercase(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join("-")
}

struct Names {
    router: String,
    service: String,
    entry: &'static str,
}

fn names(ctx: &Ctx, rng: &mut Rng) -> Names {
    let port = ctx.w.instances.first().map(|i| i.port).unwrap_or(8080);
    let (router, service) = match ctx.platform {
        Platform::Kubernetes => (
            format!(
                "{}-{}-{}@kubernetescrd",
                ctx.w.namespace,
                ctx.w.service,
                rng.hex(20)
            ),
            format!("{}-{}-{port}@kubernetescrd", ctx.w.namespace, ctx.w.service),
        ),
        _ => (
            format!("{}@docker", ctx.w.service),
            format!("{}@docker", ctx.w.service),
        ),
    };
    Names {
        router,
        service,
        entry: rng.pick(&["websecure", "https", "web"]),
    }
}

fn ns(x: &View, ms: u32, salt: u64) -> i64 {
    i64::from(ms) * 1_000_000 + (mix(x.idx, salt) % 1_000_000) as i64
}

pub fn json(
    ctx: &Ctx,
    v: &[View],
    clock: &Clock,
    rng: &mut Rng,
    plan: &mut SourcePlan,
) -> (String, String) {
    let n = names(ctx, rng);
    let count0 = rng.range(1, 50_000);
    plan.stamps = "StartUTC/StartLocal: start; time: end (seconds)".into();
    plan.detail("router", &n.router);
    let out: Lines = v
        .iter()
        .enumerate()
        .map(|(k, x)| {
            let r = x.r;
            let dur = ns(x, r.duration_ms, 1);
            let start_ns = x.start * 1_000_000 + (mix(x.idx, 2) % 1_000_000) as i64;
            let mut o: Vec<(String, J)> = vec![
                (
                    "ClientAddr".into(),
                    J::s(format!("{}:{}", r.client_ip, r.client_port)),
                ),
                ("ClientHost".into(), J::s(&r.client_ip)),
                ("ClientPort".into(), J::s(r.client_port.to_string())),
                ("ClientUsername".into(), J::s("-")),
                ("DownstreamContentSize".into(), J::n(r.bytes)),
                ("DownstreamStatus".into(), J::n(r.status)),
                ("Duration".into(), J::n(dur)),
                ("RequestAddr".into(), J::s(&ctx.w.host)),
                ("RequestContentSize".into(), J::n(r.request_bytes)),
                ("RequestCount".into(), J::n(count0 + k as i64)),
                ("RequestHost".into(), J::s(&ctx.w.host)),
                ("RequestMethod".into(), J::s(&r.method)),
                ("RequestPath".into(), J::s(x.p.target())),
                ("RequestPort".into(), J::s("-")),
                ("RequestProtocol".into(), J::s(protocol(r))),
                ("RequestScheme".into(), J::s("https")),
                ("RetryAttempts".into(), J::n(0)),
                ("RouterName".into(), J::s(&n.router)),
                (
                    "StartLocal".into(),
                    J::s(time::rfc3339_ns(
                        start_ns,
                        clock.zone.offset_ms(x.start),
                        9,
                        true,
                        OffsetStyle::ZOrColon,
                    )),
                ),
                (
                    "StartUTC".into(),
                    J::s(time::rfc3339_ns(
                        start_ns,
                        0,
                        9,
                        true,
                        OffsetStyle::ZOrColon,
                    )),
                ),
                ("entryPointName".into(), J::s(n.entry)),
                ("level".into(), J::s("info")),
                ("msg".into(), J::s("")),
                ("request_User-Agent".into(), J::s(&r.user_agent)),
                (
                    "time".into(),
                    J::s(time::rfc3339(
                        x.end,
                        clock.zone.offset_ms(x.end),
                        0,
                        OffsetStyle::ZOrColon,
                    )),
                ),
            ];
            // The balancer's own 503 (no server) still comes out of the service handler,
            // so the origin fields are there; the service address is not.
            let origin_ms = match (r.instance, r.failure) {
                (None, _) => 0,
                (_, Some(Failure::ClientClosed)) => r.duration_ms,
                _ => r.upstream_ms.unwrap_or(r.duration_ms),
            };
            let origin = ns(x, origin_ms, 3).min(dur);
            o.push(("OriginContentSize".into(), J::n(r.bytes)));
            o.push(("OriginDuration".into(), J::n(origin)));
            o.push(("OriginStatus".into(), J::n(r.status)));
            o.push(("Overhead".into(), J::n(dur - origin)));
            if let Some(i) = r.instance {
                let addr = ctx.name(i, Scheme::IpPort);
                o.push(("ServiceAddr".into(), J::s(&addr)));
                o.push(("ServiceName".into(), J::s(&n.service)));
                o.push((
                    "ServiceURL".into(),
                    J::obj(vec![
                        ("Scheme", J::s("http")),
                        ("Opaque", J::s("")),
                        ("User", J::Null),
                        ("Host", J::s(&addr)),
                        ("Path", J::s("")),
                        ("RawPath", J::s("")),
                        ("OmitHost", J::Bool(false)),
                        ("ForceQuery", J::Bool(false)),
                        ("RawQuery", J::s("")),
                        ("Fragment", J::s("")),
                        ("RawFragment", J::s("")),
                    ]),
                ));
            }
            if let Some(referer) = &r.referer {
                o.push(("request_Referer".into(), J::s(referer)));
            }
            if let Some((h, val)) = &x.p.header {
                o.push((format!("request_{}", canonical_header(h)), J::s(val)));
            }
            if let Some(key) = &x.p.key_header {
                o.push(("request_X-Api-Key".into(), J::s(key)));
            }
            // logrus marshals a map: keys come out sorted, nested struct fields do not.
            o.sort_by(|a, b| a.0.cmp(&b.0));
            json::to_string(&J::Obj(o), &json::GO)
        })
        .collect();
    ("traefik-access.json".into(), out.0)
}

pub fn clf(ctx: &Ctx, v: &[View], rng: &mut Rng, plan: &mut SourcePlan) -> (String, String) {
    let n = names(ctx, rng);
    let count0 = rng.range(1, 50_000);
    plan.stamps = "start (StartUTC)".into();
    plan.zone = "UTC".into();
    plan.detail("router", &n.router);
    let out: Lines = v
        .iter()
        .enumerate()
        .map(|(k, x)| {
            let r = x.r;
            let url = r
                .instance
                .map(|i| format!("\"http://{}\"", ctx.name(i, Scheme::IpPort)))
                .unwrap_or_else(|| "\"-\"".into());
            format!(
                "{} - - [{}] \"{} {} {}\" {} {} \"{}\" \"{}\" {} \"{}\" {url} {}ms",
                r.client_ip,
                time::clf(x.start, 0),
                r.method,
                x.p.target(),
                protocol(r),
                r.status,
                r.bytes,
                r.referer.as_deref().unwrap_or("-"),
                r.user_agent,
                count0 + k as i64,
                n.router,
                r.duration_ms
            )
        })
        .collect();
    ("traefik-access.log".into(), out.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::emit::family::AccessFamily;
    use crate::gen::emit::fixture;

    #[test]
    fn canonical_headers_follow_go() {
        for (h, want) in [
            ("X-Tenant-ID", "X-Tenant-Id"),
            ("x-org-id", "X-Org-Id"),
            ("user-agent", "User-Agent"),
        ] {
            assert_eq!(canonical_header(h), want);
        }
    }

    #[test]
    fn json_lines_are_valid_sorted_and_in_nanoseconds() {
        let w = fixture::world();
        let ctx = fixture::ctx(&w);
        let clock = fixture::clock(0);
        let v = super::super::views(&ctx, AccessFamily::TraefikJson, &clock);
        let (_, body) = json(
            &ctx,
            &v,
            &clock,
            &mut Rng::new(4),
            &mut SourcePlan::default(),
        );
        for (line, x) in body.lines().zip(&v) {
            let j: serde_json::Value = serde_json::from_str(line).expect("valid JSON");
            let d = j["Duration"].as_i64().unwrap_or(-1);
            assert!(d / 1_000_000 == i64::from(x.r.duration_ms), "{line}");
            let keys: Vec<&str> = line
                .match_indices("\":")
                .map(|(i, _)| &line[..i])
                .map(|h| h.rsplit('"').next().unwrap_or(""))
                .collect();
            assert!(keys.first() == Some(&"ClientAddr"), "{line}");
            assert_eq!(j.get("ServiceAddr").is_some(), x.r.instance.is_some());
        }
    }

    #[test]
    fn clf_ends_with_duration_in_ms() {
        let w = fixture::world();
        let ctx = fixture::ctx(&w);
        let clock = fixture::clock(0);
        let v = super::super::views(&ctx, AccessFamily::TraefikClf, &clock);
        let (_, body) = clf(&ctx, &v, &mut Rng::new(4), &mut SourcePlan::default());
        for (line, x) in body.lines().zip(&v) {
            assert!(line.ends_with(&format!(" {}ms", x.r.duration_ms)), "{line}");
            assert!(line.contains(" +0000] "), "{line}");
        }
    }
}
