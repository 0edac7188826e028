//! AWS Application Load Balancer access log entries.
//!
//! Followed field by field: corpus `aws_alb.log` L2 (the AWS doc's HTTPS example) and L12
//! (a real Elastic Beanstalk entry with the `TID_` traceability field): `time` is when the
//! balancer sent the response (UTC, microseconds), `request_creation_time` when it received
//! the request; timings `-1` when no target answered; `target` `-` when none was chosen.
//! ALB writes no health checks to this log, and answers 460 when the client closed early.

use super::{hex_id, protocol, secs3, View};
use crate::gen::emit::ctx::{Ctx, Scheme};
use crate::gen::emit::plan::{Lines, SourcePlan};
use crate::gen::facts::Failure;
use crate::gen::rng::Rng;
use crate::gen::time::{self, OffsetStyle};

fn stamp(t_ms: i64, sub_us: u64) -> String {
    time::rfc3339_ns(
        t_ms * 1_000_000 + (sub_us % 1000) as i64 * 1000,
        0,
        6,
        false,
        OffsetStyle::ZOrColon,
    )
}

pub fn write(ctx: &Ctx, v: &[View], rng: &mut Rng, plan: &mut SourcePlan) -> (String, String) {
    let lb_id = rng.hex(16);
    let lb = format!(
        "app/{}-{}-alb/{lb_id}",
        ctx.w.service,
        rng.pick(&["prod", "public", "external"])
    );
    let tg = format!(
        "arn:aws:elasticloadbalancing:{}:{}:targetgroup/{}-tg/{}",
        ctx.region,
        ctx.account,
        ctx.w.service,
        rng.hex(16)
    );
    let cert = format!(
        "arn:aws:acm:{}:{}:certificate/{}",
        ctx.region,
        ctx.account,
        rng.uuid()
    );
    let priority = rng.range(1, 20);
    plan.stamps = "end (time); start in request_creation_time".into();
    plan.zone = "UTC".into();
    plan.detail("elb", &lb);
    plan.detail("client_closed_status", "460 (ALB's code for nginx's 499)");
    let out: Lines = v
        .iter()
        .map(|x| {
            let r = x.r;
            let target = r.instance.map(|i| ctx.name(i, Scheme::IpPort));
            let answered = target.is_some()
                && !matches!(r.failure, Some(Failure::UpstreamTimeout | Failure::UpstreamReset | Failure::ClientClosed));
            let status = if r.failure == Some(Failure::ClientClosed) { 460 } else { r.status };
            let (rq, tp, rs) = match (&target, answered) {
                (None, _) => ("-1".to_string(), "-1".to_string(), "-1".to_string()),
                (Some(_), false) => ("0.000".into(), "-1".into(), "-1".into()),
                (Some(_), true) => (
                    "0.000".into(),
                    secs3(i64::from(r.upstream_ms.unwrap_or(r.duration_ms))),
                    "0.000".into(),
                ),
            };
            let tstatus = if answered { r.status.to_string() } else { "-".into() };
            let tname = target.clone().unwrap_or_else(|| "-".into());
            let proto = protocol(r);
            let kind = if proto == "HTTP/2.0" { "h2" } else { "https" };
            let trace = format!("Root=1-{:08x}-{}", x.start.div_euclid(1000), hex_id(x.idx, 0xa1b, 24));
            format!(
                "{kind} {} {lb} {}:{} {tname} {rq} {tp} {rs} {status} {tstatus} {} {} \"{} https://{}:443{} {proto}\" \"{}\" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 {tg} \"{trace}\" \"{}\" \"{cert}\" {priority} {} \"forward\" \"-\" \"-\" \"{tname}\" \"{tstatus}\" \"-\" \"-\" TID_{}",
                stamp(x.end, super::mix(x.idx, 1)),
                r.client_ip,
                r.client_port,
                r.request_bytes,
                r.bytes + 200,
                r.method,
                ctx.w.host,
                x.p.target(),
                r.user_agent,
                ctx.w.host,
                stamp(x.start, super::mix(x.idx, 2)),
                hex_id(x.idx, 0x71d, 32),
            )
        })
        .collect();
    let c = time::civil(ctx.w.end, 0);
    let name = format!(
        "{}_elasticloadbalancing_{}_app.{}-alb.{}_{:04}{:02}{:02}T{:02}{:02}Z_10.0.1.{}_{}.log",
        ctx.account,
        ctx.region,
        ctx.w.service,
        &lb_id[..16],
        c.y,
        c.mo,
        c.d,
        c.h,
        c.mi - c.mi % 5,
        rng.range(10, 250),
        rng.hex(8)
    );
    (name, out.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::emit::family::AccessFamily;
    use crate::gen::emit::fixture;

    /// Splits an ALB entry into fields, keeping quoted fields whole.
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
    fn entries_have_the_documented_fields_and_no_health_checks() {
        let w = fixture::world();
        let ctx = fixture::ctx(&w);
        let clock = fixture::clock(0);
        let v = super::super::views(&ctx, AccessFamily::Alb, &clock);
        let (_, body) = write(&ctx, &v, &mut Rng::new(1), &mut SourcePlan::default());
        assert!(!body.contains("/health"));
        for (line, x) in body.lines().zip(&v) {
            let f = fields(line);
            assert_eq!(f.len(), 30, "{line}");
            assert!(f[1] >= f[21], "end {} before creation {}", f[1], f[21]);
            if x.r.instance.is_none() {
                assert_eq!((f[4].as_str(), f[5].as_str()), ("-", "-1"), "{line}");
            }
        }
    }
}
