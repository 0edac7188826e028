//! Envoy's default access-log format and Istio's (the ingress gateway's) default.
//!
//! Followed field by field: corpus `envoy_access.log` L1 (Envoy's documented default format)
//! and L2 (Istio's, with the field table in the same doc). `START_TIME` is when the request
//! started (UTC, milliseconds); the line is written when it ends. Response flags from Envoy's
//! docs: `UT` upstream timeout, `UC` upstream connection termination, `UH` no healthy upstream,
//! `DC` downstream termination (response code 0), `RL` rate limited. Envoy keeps its active
//! health checks out of the access log.

use super::{hex_id, View};
use crate::gen::emit::ctx::{Ctx, Scheme};
use crate::gen::emit::plan::{Lines, SourcePlan};
use crate::gen::facts::{Failure, Request};
use crate::gen::rng::Rng;
use crate::gen::time::{self, OffsetStyle};

/// `%RESPONSE_CODE%`, `%RESPONSE_FLAGS%` and Istio's `%RESPONSE_CODE_DETAILS%`.
fn outcome(r: &Request) -> (u16, &'static str, &'static str) {
    match (r.instance, r.failure) {
        (_, Some(Failure::ClientClosed)) => (0, "DC", "downstream_remote_disconnect"),
        (None, Some(Failure::RateLimited)) => (r.status, "RL", "request_rate_limited"),
        (None, _) => (r.status, "UH", "no_healthy_upstream"),
        (Some(_), Some(Failure::UpstreamTimeout)) => (r.status, "UT", "response_timeout"),
        (Some(_), Some(Failure::UpstreamReset)) => (
            r.status,
            "UC",
            "upstream_reset_before_response_started{connection_termination}",
        ),
        _ => (r.status, "-", "via_upstream"),
    }
}

/// Envoy prints HTTP/2 without the minor version.
fn proto(r: &Request) -> &'static str {
    if super::protocol(r) == "HTTP/2.0" {
        "HTTP/2"
    } else {
        "HTTP/1.1"
    }
}

/// A UUID v4 for `x-request-id`, as Envoy generates when the client sends none.
fn uuid(idx: usize) -> String {
    let h = hex_id(idx, 0xe17, 32);
    format!(
        "{}-{}-4{}-a{}-{}",
        &h[..8],
        &h[8..12],
        &h[13..16],
        &h[17..20],
        &h[20..32]
    )
}

pub fn write(
    ctx: &Ctx,
    v: &[View],
    istio: bool,
    rng: &mut Rng,
    plan: &mut SourcePlan,
) -> (String, String) {
    let gw_ip = format!(
        "10.{}.{}.{}",
        rng.range(40, 44),
        rng.range(0, 9),
        rng.range(2, 250)
    );
    let port = ctx.w.instances.first().map(|i| i.port).unwrap_or(8080);
    let cluster = format!(
        "outbound|{port}||{}.{}.svc.cluster.local",
        ctx.w.service, ctx.w.namespace
    );
    plan.stamps = "start (START_TIME)".into();
    plan.zone = "UTC".into();
    if istio {
        plan.detail("upstream_cluster", &cluster);
    }
    let out: Lines = v
        .iter()
        .map(|x| {
            let r = x.r;
            let (code, flags, details) = outcome(r);
            let answered = flags == "-";
            let service_time = if answered { r.upstream_ms.map(|u| u.to_string()).unwrap_or_else(|| "-".into()) } else { "-".into() };
            let upstream = r.instance.map(|i| ctx.name(i, Scheme::IpPort)).unwrap_or_else(|| "-".into());
            let start = time::rfc3339(x.start, 0, 3, OffsetStyle::ZOrColon);
            let request = format!("\"{} {} {}\"", r.method, x.p.target(), proto(r));
            let sent = if code == 0 { 0 } else { r.bytes };
            if istio {
                let local = if upstream == "-" { "-".to_string() } else { format!("{gw_ip}:{}", 30_000 + x.idx % 30_000) };
                format!(
                    "[{start}] {request} {code} {flags} {details} - \"-\" {} {sent} {} {service_time} \"{}\" \"{}\" \"{}\" \"{}\" \"{upstream}\" {} {local} {gw_ip}:8443 {}:{} {} -",
                    r.request_bytes,
                    r.duration_ms,
                    r.client_ip,
                    r.user_agent,
                    uuid(x.idx),
                    ctx.w.host,
                    if upstream == "-" { "-" } else { cluster.as_str() },
                    r.client_ip,
                    r.client_port,
                    ctx.w.host
                )
            } else {
                format!(
                    "[{start}] {request} {code} {flags} {} {sent} {} {service_time} \"{}\" \"{}\" \"{}\" \"{}\" \"{upstream}\"",
                    r.request_bytes,
                    r.duration_ms,
                    r.client_ip,
                    r.user_agent,
                    uuid(x.idx),
                    ctx.w.host
                )
            }
        })
        .collect();
    (
        if istio {
            "istio-ingressgateway.log"
        } else {
            "envoy-access.log"
        }
        .into(),
        out.0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::emit::family::AccessFamily;
    use crate::gen::emit::fixture;

    /// Fields of an Envoy line: bracketed time, quoted strings and bare words.
    fn fields(line: &str) -> Vec<String> {
        let mut out = vec![];
        let mut cur = String::new();
        let mut quoted = false;
        for c in line.chars() {
            match c {
                '"' => quoted = !quoted,
                ' ' if !quoted => out.push(std::mem::take(&mut cur)),
                c => cur.push(c),
            }
        }
        out.push(cur);
        out
    }

    #[test]
    fn default_and_istio_field_counts_and_start_times() {
        let w = fixture::world();
        let ctx = fixture::ctx(&w);
        let clock = fixture::clock(0);
        for (istio, n) in [(false, 13), (true, 22)] {
            let fam = if istio {
                AccessFamily::Istio
            } else {
                AccessFamily::Envoy
            };
            let v = super::super::views(&ctx, fam, &clock);
            let (_, body) = write(
                &ctx,
                &v,
                istio,
                &mut Rng::new(2),
                &mut SourcePlan::default(),
            );
            for (line, x) in body.lines().zip(&v) {
                let f = fields(line);
                assert_eq!(f.len(), n, "{line}");
                assert_eq!(
                    f[0],
                    format!("[{}]", time::rfc3339(x.start, 0, 3, OffsetStyle::ZOrColon))
                );
                if x.r.instance.is_none() {
                    assert!(["UH", "RL", "DC"].contains(&f[3].as_str()), "{line}");
                }
            }
        }
    }
}
