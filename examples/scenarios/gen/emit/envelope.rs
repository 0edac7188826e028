//! Envelopes: what a container runtime or a log platform wraps around each app log line.
//!
//! In: the physical lines of one app log file (already formatted, with the time each was
//! written and the instance that wrote it); out: the file name and body as the runtime or the
//! export tool writes it. Followed field by field:
//! - Docker `json-file`: corpus `exports/docker_json_file.log` L1 (`log` with its newline,
//!   `stream`, `time` RFC 3339 nanoseconds in UTC with trailing zeros dropped);
//! - CRI (containerd): `exports/cri_containerd.log` L1 (`<time> <stream> F <line>`);
//! - `kubectl logs --timestamps`: `exports/docker_logs_timestamps.log` L1 (`<time> <line>`,
//!   the kubelet's fixed nine fraction digits);
//! - Loki `logcli --output=jsonl`: `exports/loki_logcli_jsonl.jsonl` L3 (keys sorted, labels
//!   a sorted map, time in the user's `--timezone`, newest first unless `--forward`);
//! - CloudWatch Logs `filter-log-events`: `exports/cloudwatch_filter_log_events.json` (aws-cli
//!   four-space JSON; epoch-ms `timestamp`/`ingestionTime`; 56-digit `eventId`; awslogs stream
//!   names `prefix/container/task-id`).

use super::ctx::{Ctx, Scheme};
use super::family::{Envelope, Platform};
use super::json::{self, J};
use super::plan::{lines, SourcePlan};
use crate::gen::facts::Ms;
use crate::gen::rng::Rng;
use crate::gen::time::{self, OffsetStyle};

/// One physical app log line with the moment it was written (app clock) and its writer.
pub struct Wrapped {
    pub t: Ms,
    pub instance: usize,
    pub line: String,
}

/// Nanoseconds for a line written at `t`: runtimes stamp with nanosecond clocks.
fn ns(w: &Wrapped, k: usize) -> i64 {
    let jitter =
        ((k as i64).wrapping_mul(7_919) + w.t.rem_euclid(1_000) * 104_729).rem_euclid(1_000_000);
    w.t * 1_000_000 + 150_000 + jitter
}

/// Go's `RFC3339Nano` (trailing zeros of the fraction dropped), as containerd, Docker's
/// json-file and logcli print times.
fn stamp(w: &Wrapped, k: usize, off: Ms) -> String {
    time::rfc3339_ns(ns(w, k), off, 9, true, OffsetStyle::ZOrColon)
}

/// The kubelet's `RFC3339NanoFixed` (always nine fraction digits), as `kubectl logs
/// --timestamps` prints them.
fn stamp_fixed(w: &Wrapped, k: usize) -> String {
    time::rfc3339_ns(ns(w, k), 0, 9, false, OffsetStyle::ZOrColon)
}

/// `/var/log/containers/<pod>_<namespace>_<container>-<id>.log`, flattened to its file name.
fn node_log_name(ctx: &Ctx, i: usize) -> String {
    format!(
        "{}_{}_{}-{}.log",
        ctx.name(i, Scheme::Pod),
        ctx.w.namespace,
        ctx.container(),
        ctx.ids[i].container_id
    )
}

/// Which file the lines go to: its stem (`api-...` or `api-....previous`), the instance of a
/// per-instance file, and the stream the library writes to.
pub struct Dest<'a> {
    pub stem: &'a str,
    pub instance: Option<usize>,
    pub stderr: bool,
}

pub fn wrap(
    ctx: &Ctx,
    env: Envelope,
    dest: &Dest,
    v: &[Wrapped],
    rng: &mut Rng,
    plan: &mut SourcePlan,
) -> (String, String) {
    let (stem, inst) = (dest.stem, dest.instance);
    let stream = if dest.stderr { "stderr" } else { "stdout" };
    let i = inst.or(v.first().map(|w| w.instance)).unwrap_or(0);
    match env {
        Envelope::DockerJson => {
            let out: Vec<String> = v
                .iter()
                .enumerate()
                .map(|(k, w)| {
                    let o = J::obj(vec![
                        ("log", J::s(format!("{}\n", w.line))),
                        ("stream", J::s(stream)),
                        ("time", J::s(stamp(w, k, 0))),
                    ]);
                    json::to_string(&o, &json::GO)
                })
                .collect();
            let cid = &ctx.ids[i].container_id;
            let name = match ctx.platform {
                Platform::Kubernetes => node_log_name(ctx, i),
                Platform::Vm => format!("{}/{cid}-json.log", ctx.name(i, Scheme::Host)),
                Platform::Ecs => format!("{cid}-json.log"),
            };
            (name, lines(&out))
        }
        Envelope::Cri => {
            let out: Vec<String> = v
                .iter()
                .enumerate()
                .map(|(k, w)| format!("{} {stream} F {}", stamp(w, k, 0), w.line))
                .collect();
            (node_log_name(ctx, i), lines(&out))
        }
        Envelope::KubectlTs => {
            let out: Vec<String> = v
                .iter()
                .enumerate()
                .map(|(k, w)| format!("{} {}", stamp_fixed(w, k), w.line))
                .collect();
            (format!("{stem}.log"), lines(&out))
        }
        Envelope::Loki => {
            let local = rng.chance(0.4);
            let forward = rng.chance(0.3);
            plan.detail("loki_timezone", if local { ctx.zone.name } else { "UTC" });
            plan.detail(
                "loki_order",
                if forward {
                    "oldest first (--forward)"
                } else {
                    "newest first (default)"
                },
            );
            let job = rng.pick(&["", "kubernetes-pods/"]);
            let mut out: Vec<String> = v
                .iter()
                .enumerate()
                .map(|(k, w)| {
                    let labels = loki_labels(ctx, w.instance, stream, job);
                    let off = if local { ctx.zone.offset_ms(w.t) } else { 0 };
                    let o = J::obj(vec![
                        ("labels", J::Obj(labels)),
                        ("line", J::s(&w.line)),
                        ("timestamp", J::s(stamp(w, k, off))),
                    ]);
                    json::to_string(&o, &json::GO)
                })
                .collect();
            if !forward {
                out.reverse();
            }
            (format!("loki-{}.jsonl", ctx.w.service), lines(&out))
        }
        Envelope::CloudWatchLogs => {
            let prefix = rng.pick(&["ecs", ctx.w.service.as_str(), "app"]);
            plan.detail("log_stream_prefix", prefix);
            let group = format!("/ecs/{}", ctx.w.service);
            plan.detail("log_group", &group);
            let events: Vec<J> = v
                .iter()
                .enumerate()
                .map(|(k, w)| {
                    let stream_name = format!(
                        "{prefix}/{}/{}",
                        ctx.container(),
                        ctx.name(w.instance, Scheme::TaskId)
                    );
                    let ts = w.t;
                    let ingest = ts + 200 + (k as i64 * 37) % 1800;
                    J::obj(vec![
                        ("logStreamName", J::s(stream_name)),
                        ("timestamp", J::n(ts)),
                        ("message", J::s(&w.line)),
                        ("ingestionTime", J::n(ingest)),
                        (
                            "eventId",
                            J::s(format!(
                                "{:0>38}{:018}",
                                ts as u128 * 1_000_003 + k as u128,
                                (k as u64).wrapping_mul(2_654_435_761) % 1_000_000_000_000_000_000
                            )),
                        ),
                    ])
                })
                .collect();
            let mut body = json::to_string(&J::obj(vec![("events", J::Arr(events))]), &json::AWS);
            body.push('\n');
            (format!("cloudwatch-{}.json", ctx.w.service), body)
        }
    }
}

/// The labels promtail's Kubernetes discovery (or its static config on a VM) attaches.
fn loki_labels(ctx: &Ctx, i: usize, stream: &str, job_prefix: &str) -> Vec<(String, J)> {
    let svc = &ctx.w.service;
    let mut l: Vec<(String, J)> = match ctx.platform {
        Platform::Kubernetes => vec![
            ("app".into(), J::s(svc)),
            ("container".into(), J::s(ctx.container())),
            (
                "job".into(),
                J::s(format!("{job_prefix}{}/{svc}", ctx.w.namespace)),
            ),
            ("namespace".into(), J::s(&ctx.w.namespace)),
            ("node_name".into(), J::s(ctx.name(i, Scheme::Host))),
            ("pod".into(), J::s(ctx.name(i, Scheme::Pod))),
            ("stream".into(), J::s(stream)),
        ],
        Platform::Vm => vec![
            ("filename".into(), J::s(format!("/var/log/{svc}/{svc}.log"))),
            ("host".into(), J::s(ctx.name(i, Scheme::Host))),
            ("job".into(), J::s(svc)),
        ],
        Platform::Ecs => vec![
            ("container_name".into(), J::s(ctx.container())),
            ("ecs_task_id".into(), J::s(ctx.name(i, Scheme::TaskId))),
            ("job".into(), J::s(svc)),
        ],
    };
    l.sort_by(|a, b| a.0.cmp(&b.0));
    l
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::emit::fixture;

    fn sample() -> Vec<Wrapped> {
        vec![
            Wrapped {
                t: fixture::START,
                instance: 1,
                line: "{\"msg\":\"a <b> & c\"}".into(),
            },
            Wrapped {
                t: fixture::START + 5,
                instance: 1,
                line: "\tat x.y(Z.java:1)".into(),
            },
        ]
    }

    #[test]
    fn every_envelope_keeps_each_line_once() {
        let w = fixture::world();
        let ctx = fixture::ctx(&w);
        for env in Envelope::ALL {
            let (name, body) = wrap(
                &ctx,
                *env,
                &Dest {
                    stem: "api-x",
                    instance: Some(1),
                    stderr: false,
                },
                &sample(),
                &mut Rng::new(1),
                &mut SourcePlan::default(),
            );
            assert!(!name.is_empty());
            let inner: Vec<String> = match env {
                Envelope::DockerJson | Envelope::Loki => body
                    .lines()
                    .map(|l| {
                        let j: serde_json::Value = serde_json::from_str(l).expect("json");
                        j.get("log")
                            .or(j.get("line"))
                            .and_then(|x| x.as_str())
                            .unwrap_or("")
                            .trim_end_matches('\n')
                            .to_string()
                    })
                    .collect(),
                Envelope::Cri => body
                    .lines()
                    .map(|l| l.splitn(4, ' ').nth(3).unwrap_or("").to_string())
                    .collect(),
                Envelope::KubectlTs => body
                    .lines()
                    .map(|l| l.split_once(' ').map(|x| x.1).unwrap_or("").to_string())
                    .collect(),
                Envelope::CloudWatchLogs => {
                    let j: serde_json::Value = serde_json::from_str(&body).expect("json");
                    j["events"]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .map(|e| e["message"].as_str().unwrap_or("").to_string())
                                .collect()
                        })
                        .unwrap_or_default()
                }
            };
            let mut inner = inner;
            inner.sort();
            let mut want: Vec<String> = sample().into_iter().map(|w| w.line).collect();
            want.sort();
            assert_eq!(inner, want, "{env:?}");
        }
    }

    #[test]
    fn docker_escapes_like_go() {
        let w = fixture::world();
        let ctx = fixture::ctx(&w);
        let (_, body) = wrap(
            &ctx,
            Envelope::DockerJson,
            &Dest {
                stem: "",
                instance: Some(1),
                stderr: false,
            },
            &sample(),
            &mut Rng::new(1),
            &mut SourcePlan::default(),
        );
        assert!(body.contains("\\u003cb\\u003e \\u0026 c"), "{body}");
        assert!(
            body.contains("\\n\",\"stream\":\"stdout\",\"time\":\"2026-10-01T07:00:00.00015"),
            "{body}"
        );
    }

    #[test]
    fn kubectl_keeps_nine_digits_and_cri_trims() {
        let w = fixture::world();
        let ctx = fixture::ctx(&w);
        let line = vec![Wrapped {
            t: fixture::START,
            instance: 0,
            line: "x".into(),
        }];
        let dest = Dest {
            stem: "p",
            instance: Some(0),
            stderr: false,
        };
        let (_, kubectl) = wrap(
            &ctx,
            Envelope::KubectlTs,
            &dest,
            &line,
            &mut Rng::new(1),
            &mut SourcePlan::default(),
        );
        let (_, cri) = wrap(
            &ctx,
            Envelope::Cri,
            &dest,
            &line,
            &mut Rng::new(1),
            &mut SourcePlan::default(),
        );
        let frac = |s: &str| {
            s.split(' ')
                .next()
                .and_then(|t| t.split_once('.'))
                .map(|(_, f)| f.trim_end_matches('Z').len())
                .unwrap_or(0)
        };
        assert_eq!(frac(&kubectl), 9, "{kubectl}");
        assert!(
            frac(&cri) <= 9 && !cri.split(' ').next().unwrap_or("").contains("0Z"),
            "{cri}"
        );
    }
}
