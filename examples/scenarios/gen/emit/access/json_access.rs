//! The service's own JSON request log, merged over its instances: a Go service's `log/slog`
//! middleware line (flat: `method`, `path`, `status`, `duration_ms`, `tenant_id` ...) or
//! pino-http's (`req`/`res` objects with the request headers, `responseTime` in ms).
//!
//! Followed: Go's `slog.JSONHandler` key order (`time`, `level`, `msg`, then attributes) and
//! pino-http's default serializers (`req.id/method/url/query/params/headers/remoteAddress/
//! remotePort`, `res.statusCode/headers`, `responseTime`, `msg` last; level 30/50; headers in
//! lower case, so an `x-api-key` header shows: a secret the tool must hide). Each line is
//! written when the request ends, stamped with that moment. Only requests that reached an
//! instance appear; the kubelet's probes do (they hit the pod directly).

use super::View;
use crate::gen::emit::ctx::{Clock, Ctx};
use crate::gen::emit::family::Platform;
use crate::gen::emit::json::{self, J};
use crate::gen::emit::plan::{Lines, SourcePlan};
use crate::gen::emit::tenant::TenantPlace;
use crate::gen::facts::Failure;
use crate::gen::rng::Rng;
use crate::gen::time::{self, OffsetStyle};

fn owned(v: Vec<(&str, J)>) -> Vec<(String, J)> {
    v.into_iter().map(|(k, x)| (k.to_string(), x)).collect()
}

fn query_obj(q: &str) -> J {
    J::Obj(
        q.split('&')
            .filter(|kv| !kv.is_empty())
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                (k.to_string(), J::s(v))
            })
            .collect(),
    )
}

pub fn write(
    ctx: &Ctx,
    v: &[View],
    clock: &Clock,
    rng: &mut Rng,
    plan: &mut SourcePlan,
) -> (String, String) {
    let pino = match &ctx.tenant.place {
        TenantPlace::Header(_) => true,
        _ => rng.chance(0.5),
    };
    let proxy_ip = format!("10.{}.0.{}", rng.range(40, 44), rng.range(2, 99));
    let host_key = if ctx.platform == Platform::Kubernetes {
        "pod"
    } else {
        "host"
    };
    plan.stamps = "end (log time)".into();
    plan.detail("style", if pino { "pino-http" } else { "slog" });
    plan.detail(
        "omitted",
        "requests that reached no instance, and those whose instance died under them",
    );
    let out: Lines = v
        .iter()
        .enumerate()
        .filter_map(|(k, x)| {
            let r = x.r;
            let i = r.instance?;
            let me = ctx.name(i, ctx.self_scheme());
            let served_ms = x.end - x.start;
            let err = r.status >= 500 || r.failure == Some(Failure::UpstreamTimeout);
            Some(if pino {
                let mut headers: Vec<(String, J)> = owned(vec![
                    ("host", J::s(&ctx.w.host)),
                    ("user-agent", J::s(&r.user_agent)),
                    ("accept", J::s("application/json")),
                    ("x-forwarded-for", J::s(&r.client_ip)),
                    ("x-request-id", J::s(&r.request_id)),
                ]);
                if let Some((h, val)) = &x.p.header {
                    headers.push((h.to_ascii_lowercase(), J::s(val)));
                }
                if let Some(key) = &x.p.key_header {
                    headers.push(("x-api-key".into(), J::s(key)));
                }
                let mut o: Vec<(String, J)> = owned(vec![
                    ("level", J::n(if err { 50 } else { 30 })),
                    ("time", J::n(x.end)),
                    ("pid", J::n(ctx.pid(i, 0))),
                    ("hostname", J::s(&me)),
                ]);
                if let Some((f, val)) = &x.p.field {
                    o.push((f.clone(), J::s(val)));
                }
                o.push((
                    "req".into(),
                    J::obj(vec![
                        ("id", J::n(k + 1)),
                        ("method", J::s(&r.method)),
                        ("url", J::s(x.p.target())),
                        ("query", query_obj(&x.p.query)),
                        ("params", J::Obj(vec![])),
                        ("headers", J::Obj(headers)),
                        ("remoteAddress", J::s(format!("::ffff:{proxy_ip}"))),
                        ("remotePort", J::n(r.client_port)),
                    ]),
                ));
                o.push((
                    "res".into(),
                    J::obj(vec![
                        ("statusCode", J::n(r.status)),
                        (
                            "headers",
                            J::obj(vec![
                                ("content-type", J::s("application/json; charset=utf-8")),
                                ("content-length", J::s(r.bytes.to_string())),
                            ]),
                        ),
                    ]),
                ));
                if err {
                    let m = format!("failed with status code {}", r.status);
                    o.push((
                        "err".into(),
                        J::obj(vec![
                            ("type", J::s("Error")),
                            ("message", J::s(&m)),
                            ("stack", J::s(format!("Error: {m}\n    at ServerResponse.onResFinished (/app/node_modules/pino-http/logger.js:113:40)\n    at ServerResponse.emit (node:events:531:35)\n    at onFinish (node:_http_outgoing:1005:10)"))),
                        ]),
                    ));
                }
                o.push(("responseTime".into(), J::n(served_ms)));
                o.push(("msg".into(), J::s(if err { "request errored" } else { "request completed" })));
                json::to_string(&J::Obj(o), &json::COMPACT)
            } else {
                let mut o: Vec<(String, J)> = owned(vec![
                    ("time", J::s(time::rfc3339(x.end, clock.zone.offset_ms(x.end), 3, OffsetStyle::ZOrColon))),
                    ("level", J::s(if err { "ERROR" } else { "INFO" })),
                    ("msg", J::s("request")),
                    ("method", J::s(&r.method)),
                    ("path", J::s(&x.p.path)),
                ]);
                if !x.p.query.is_empty() {
                    o.push(("query".into(), J::s(&x.p.query)));
                }
                o.push(("status".into(), J::n(r.status)));
                o.push(("duration_ms".into(), J::Num(format!("{}.{:03}", served_ms, super::mix(x.idx, 9) % 1000))));
                o.push(("bytes".into(), J::n(r.bytes)));
                o.push(("remote_addr".into(), J::s(format!("{proxy_ip}:{}", r.client_port))));
                o.push(("user_agent".into(), J::s(&r.user_agent)));
                o.push(("request_id".into(), J::s(&r.request_id)));
                if let Some((f, val)) = &x.p.field {
                    o.push((f.clone(), J::s(val)));
                }
                if r.failure == Some(Failure::UpstreamTimeout) {
                    o.push(("error".into(), J::s("context canceled")));
                }
                o.push((host_key.into(), J::s(&me)));
                json::to_string(&J::Obj(o), &json::COMPACT)
            })
        })
        .collect();
    ("requests.json".into(), out.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::emit::family::AccessFamily;
    use crate::gen::emit::fixture;

    #[test]
    fn every_served_request_once_with_its_instance() {
        let w = fixture::world();
        let ctx = fixture::ctx(&w);
        let clock = fixture::clock(0);
        let v = super::super::views(&ctx, AccessFamily::JsonAccess, &clock);
        assert!(v.iter().all(|x| x.r.instance.is_some()));
        assert!(v
            .iter()
            .any(|x| x.r.kind == crate::gen::facts::ReqKind::HealthCheck));
        for seed in 0..4 {
            let (_, body) = write(
                &ctx,
                &v,
                &clock,
                &mut Rng::new(seed),
                &mut SourcePlan::default(),
            );
            let rows: Vec<serde_json::Value> = body
                .lines()
                .map(|l| serde_json::from_str(l).expect("json"))
                .collect();
            assert_eq!(rows.len(), v.len());
            for (row, x) in rows.iter().zip(v.iter()) {
                let status = row["status"].as_u64().or(row["res"]["statusCode"].as_u64());
                assert_eq!(status, Some(u64::from(x.r.status)));
                let me = row.get("pod").or(row.get("host")).or(row.get("hostname"));
                assert!(me.is_some(), "{row}");
            }
        }
    }
}
