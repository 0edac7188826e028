//! Google Cloud HTTP(S) load balancer request logs, as Cloud Logging `LogEntry` JSON.
//!
//! Followed field by field: corpus `gcp_lb.jsonl` L1 (Elastic's test input, key order of a
//! log sink export) and the `HttpRequest` proto (int64 sizes as JSON strings, `latency` as a
//! duration string `"0.048154s"`, `serverIp` the backend without port). Two exports: a sink's
//! JSON-lines file (oldest first, the sample's key order) or `gcloud logging read
//! --format=json` (one pretty array, keys sorted, newest first). `timestamp` is taken as the
//! request's start (assumed; noted in the plan). The balancer's own health checks are not
//! logged.

use super::{hex_id, protocol, View};
use crate::gen::emit::ctx::{Ctx, Scheme};
use crate::gen::emit::json::{self, J};
use crate::gen::emit::plan::{Lines, SourcePlan};
use crate::gen::facts::Failure;
use crate::gen::rng::Rng;
use crate::gen::time::{self, OffsetStyle};

fn status_details(x: &View) -> &'static str {
    match (x.r.instance, x.r.failure) {
        // A Cloud Armor rate-limit rule answers 429 itself.
        (None, Some(Failure::RateLimited)) => "denied_by_security_policy",
        (None, _) => "failed_to_pick_backend",
        (_, Some(Failure::UpstreamTimeout)) => "backend_timeout",
        (_, Some(Failure::UpstreamReset)) => "backend_connection_closed_before_data_sent_to_client",
        (_, Some(Failure::ClientClosed)) => "client_disconnected_before_any_response",
        _ => "response_sent_by_backend",
    }
}

pub fn write(ctx: &Ctx, v: &[View], rng: &mut Rng, plan: &mut SourcePlan) -> (String, String) {
    let project = format!(
        "{}-{}",
        ctx.w.service,
        rng.pick(&["prod", "production", "platform"])
    );
    let number = rng.range(100_000_000_000, 999_999_999_999);
    let h = rng.hex(8);
    let port = ctx.w.instances.first().map(|i| i.port).unwrap_or(8080);
    let backend = format!(
        "k8s1-{h}-{}-{}-{port}-{}",
        ctx.w.namespace,
        ctx.w.service,
        rng.hex(8)
    );
    let gcloud = rng.chance(0.5);
    plan.stamps = "start (timestamp, assumed); receiveTimestamp after the end".into();
    plan.zone = "UTC".into();
    plan.detail(
        "export",
        if gcloud {
            "gcloud logging read --format=json (array, newest first)"
        } else {
            "log sink JSON lines"
        },
    );
    let resource = J::obj(vec![
        ("type", J::s("http_load_balancer")),
        (
            "labels",
            J::obj(vec![
                ("zone", J::s("global")),
                (
                    "url_map_name",
                    J::s(format!("k8s2-um-{h}-{}-{}", ctx.w.namespace, ctx.w.service)),
                ),
                (
                    "forwarding_rule_name",
                    J::s(format!("k8s2-fs-{h}-{}-{}", ctx.w.namespace, ctx.w.service)),
                ),
                (
                    "target_proxy_name",
                    J::s(format!("k8s2-ts-{h}-{}-{}", ctx.w.namespace, ctx.w.service)),
                ),
                ("backend_service_name", J::s(&backend)),
                ("project_id", J::s(&project)),
            ]),
        ),
    ]);
    // The same for every entry: printed once for the one-line export.
    let resource = if gcloud {
        resource
    } else {
        J::Num(json::to_string(&resource, &json::COMPACT))
    };
    // Each entry is printed as soon as it is built: a day of requests as one tree would not
    // fit in memory beside its text.
    let entries = v.iter().map(|x| {
            let r = x.r;
            let details = status_details(x);
            let mut http = vec![
                ("requestMethod", J::s(&r.method)),
                ("requestUrl", J::s(format!("https://{}{}", ctx.w.host, x.p.target()))),
                ("requestSize", J::s(r.request_bytes.to_string())),
                ("status", J::n(r.status)),
                ("responseSize", J::s(r.bytes.to_string())),
                ("userAgent", J::s(&r.user_agent)),
                ("remoteIp", J::s(&r.client_ip)),
            ];
            if let Some(i) = r.instance {
                http.push(("serverIp", J::s(ctx.name(i, Scheme::Ip))));
            }
            if let Some(referer) = &r.referer {
                http.push(("referer", J::s(referer)));
            }
            let sub_us = super::mix(x.idx, 5) % 1000;
            http.push(("latency", J::s(format!("{}.{:03}{:03}s", r.duration_ms / 1000, r.duration_ms % 1000, sub_us))));
            http.push(("protocol", J::s(protocol(r))));
            let start_ns = x.start * 1_000_000 + (super::mix(x.idx, 6) % 1000 * 1000) as i64;
            let entry = J::obj(vec![
                ("insertId", J::s(hex_id(x.idx, 0x6c9, 14))),
                (
                    "jsonPayload",
                    J::obj(vec![
                        ("@type", J::s("type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry")),
                        ("backendTargetProjectNumber", J::s(format!("projects/{number}"))),
                        ("remoteIp", J::s(&r.client_ip)),
                        ("statusDetails", J::s(details)),
                    ]),
                ),
                ("httpRequest", J::obj(http)),
                ("resource", resource.clone()),
                ("timestamp", J::s(time::rfc3339_ns(start_ns, 0, 6, false, OffsetStyle::ZOrColon))),
                ("severity", J::s(if details == "response_sent_by_backend" { "INFO" } else { "WARNING" })),
                ("logName", J::s(format!("projects/{project}/logs/requests"))),
                ("trace", J::s(format!("projects/{project}/traces/{}", hex_id(x.idx, 0x7ace, 32)))),
                ("receiveTimestamp", J::s(time::rfc3339_ns((x.end + 500) * 1_000_000 + 123_456, 0, 9, false, OffsetStyle::ZOrColon))),
                ("spanId", J::s(hex_id(x.idx, 0x5a, 16))),
            ]);
            if gcloud {
                json::to_string_at(&entry.sorted(), &json::PRETTY2, 1)
            } else {
                json::to_string(&entry, &json::COMPACT)
            }
        });
    if gcloud {
        let mut newest_first: Vec<String> = entries.collect();
        newest_first.reverse();
        let items: Vec<String> = newest_first.into_iter().map(|e| format!("  {e}")).collect();
        (
            "gcp-lb-requests.json".into(),
            format!("[\n{}\n]\n", items.join(",\n")),
        )
    } else {
        ("gcp-lb-requests.jsonl".into(), entries.collect::<Lines>().0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::emit::family::AccessFamily;
    use crate::gen::emit::fixture;

    #[test]
    fn both_exports_hold_every_logged_request_once() {
        let w = fixture::world();
        let ctx = fixture::ctx(&w);
        let clock = fixture::clock(0);
        let v = super::super::views(&ctx, AccessFamily::GcpLb, &clock);
        let mut seen = [false, false];
        for seed in 0..8 {
            let mut plan = SourcePlan::default();
            let (name, body) = write(&ctx, &v, &mut Rng::new(seed), &mut plan);
            let entries: Vec<serde_json::Value> = if name.ends_with(".jsonl") {
                seen[0] = true;
                body.lines()
                    .map(|l| serde_json::from_str(l).expect("json line"))
                    .collect()
            } else {
                seen[1] = true;
                serde_json::from_str::<Vec<serde_json::Value>>(&body).expect("json array")
            };
            assert_eq!(entries.len(), v.len());
            assert!(entries
                .iter()
                .all(|e| e["httpRequest"]["requestSize"].is_string()));
        }
        assert_eq!(seen, [true, true]);
    }
}
