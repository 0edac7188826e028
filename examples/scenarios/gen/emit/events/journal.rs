//! systemd journal lines from the VMs, `journalctl -u SERVICE` in its short (or short-iso)
//! output, every host's lines merged by time.
//!
//! Followed: corpus `systemd.log` L1-L4 and L9-L10 (`Main process exited, code=exited,
//! status=1/FAILURE`, `Failed with result 'exit-code'.`, `Scheduled restart job, restart counter
//! is at N.`, `Stopped ...`, `Started ...`), and `exports/journalctl_short_iso.log` for
//! short-iso. Kills map to what systemd shows: the OOM killer (`kernel: Out of memory: Killed
//! process ...`, `Failed with result 'oom-kill'.`), the watchdog that stands in for a liveness
//! probe on a VM (`Watchdog timeout`, SIGABRT), a stop for a deploy or a manual restart.
//! short: local time without zone or year; short-iso: with the offset.

use crate::gen::emit::ctx::{Clock, Ctx, Scheme};
use crate::gen::emit::plan::{lines, OutFile, SourcePlan};
use crate::gen::facts::{EndCause, Ms};
use crate::gen::rng::Rng;
use crate::gen::time::{self, OffsetStyle};

fn comm(lang: crate::gen::emit::family::Lang) -> &'static str {
    use crate::gen::emit::family::Lang::*;
    match lang {
        Java => "java",
        Python => "python3",
        Node => "node",
        Ruby => "ruby",
        Go | Unknown => "api",
    }
}

pub fn write(ctx: &Ctx, clock: &Clock, rng: &mut Rng, plan: &mut SourcePlan) -> Vec<OutFile> {
    let iso = rng.chance(0.3);
    let svc = &ctx.w.service;
    let unit = format!("{svc}.service");
    // The unit's Description=, as a person writes it: "API service", "Jobs service".
    let desc = if svc.len() <= 3 {
        format!("{} service", svc.to_uppercase())
    } else {
        let mut c = svc.chars();
        format!(
            "{} service",
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        )
    };
    plan.stamps = "log time".into();
    plan.zone = ctx.zoneless.name.into();
    plan.zoneless = !iso;
    plan.detail("output", if iso { "short-iso" } else { "short" });
    let mut rows: Vec<(Ms, usize, String, String)> = vec![];
    let mut push =
        |t: Ms, i: usize, ident: &str, msg: String| rows.push((t, i, ident.to_string(), msg));
    for (i, inst) in ctx.w.instances.iter().enumerate() {
        let pid = ctx.ids[i].pid;
        let mut restarts = 0;
        for (k, life) in inst.lives.iter().enumerate() {
            if life.started >= ctx.w.start {
                let failed_before =
                    k > 0 && !matches!(inst.lives[k - 1].end_cause, Some(EndCause::Stopped) | None);
                if failed_before {
                    restarts += 1;
                    push(
                        life.started - 5,
                        i,
                        "systemd[1]",
                        format!("{unit}: Scheduled restart job, restart counter is at {restarts}."),
                    );
                    push(
                        life.started - 3,
                        i,
                        "systemd[1]",
                        format!("Stopped {desc}."),
                    );
                }
                push(life.started, i, "systemd[1]", format!("Started {desc}."));
            }
            let (Some(end), Some(cause)) = (life.ended, life.end_cause) else {
                continue;
            };
            let p = pid + k as u32 * 17;
            match cause {
                EndCause::OomKill => {
                    push(end - 2, i, "kernel", format!("Out of memory: Killed process {p} ({}) total-vm:{}kB, anon-rss:{}kB, file-rss:0kB, shmem-rss:0kB, UID:998 pgtables:{}kB oom_score_adj:0", comm(ctx.lang), rng.range(3_000_000, 9_000_000), rng.range(900_000, 2_000_000), rng.range(2_000, 6_000)));
                    push(
                        end,
                        i,
                        "systemd[1]",
                        format!(
                            "{unit}: A process of this unit has been killed by the OOM killer."
                        ),
                    );
                    push(
                        end + 1,
                        i,
                        "systemd[1]",
                        format!("{unit}: Main process exited, code=killed, status=9/KILL"),
                    );
                    push(
                        end + 2,
                        i,
                        "systemd[1]",
                        format!("{unit}: Failed with result 'oom-kill'."),
                    );
                }
                EndCause::Crash => {
                    push(
                        end,
                        i,
                        "systemd[1]",
                        format!("{unit}: Main process exited, code=exited, status=1/FAILURE"),
                    );
                    push(
                        end + 1,
                        i,
                        "systemd[1]",
                        format!("{unit}: Failed with result 'exit-code'."),
                    );
                }
                EndCause::LivenessKill => {
                    push(
                        end - 1,
                        i,
                        "systemd[1]",
                        format!("{unit}: Watchdog timeout (limit 30s)!"),
                    );
                    push(
                        end,
                        i,
                        "systemd[1]",
                        format!(
                            "{unit}: Killing process {p} ({}) with signal SIGABRT.",
                            comm(ctx.lang)
                        ),
                    );
                    push(
                        end + 400,
                        i,
                        "systemd[1]",
                        format!("{unit}: Main process exited, code=dumped, status=6/ABRT"),
                    );
                    push(
                        end + 401,
                        i,
                        "systemd[1]",
                        format!("{unit}: Failed with result 'watchdog'."),
                    );
                }
                EndCause::Stopped => {
                    push(end - 300, i, "systemd[1]", format!("Stopping {desc}..."));
                    push(
                        end,
                        i,
                        "systemd[1]",
                        format!("{unit}: Deactivated successfully."),
                    );
                    push(end + 1, i, "systemd[1]", format!("Stopped {desc}."));
                }
            }
        }
    }
    rows.retain(|r| r.0 >= ctx.w.start - 60_000 && r.0 <= ctx.w.end + 60_000);
    rows.sort_by_key(|r| (r.0, r.1));
    let out: Vec<String> = rows
        .iter()
        .map(|(t, i, ident, msg)| {
            let t = clock.at(*t);
            let off = ctx.zoneless.offset_ms(t);
            let stamp = if iso {
                time::rfc3339(t, off, 0, OffsetStyle::NoColon)
            } else {
                time::journal(t, off)
            };
            format!("{stamp} {} {ident}: {msg}", ctx.name(*i, Scheme::Host))
        })
        .collect();
    let n = out.len();
    // journalctl says so when nothing matched.
    let body = if out.is_empty() {
        "-- No entries --\n".to_string()
    } else {
        lines(&out)
    };
    vec![OutFile::new("journal.log", "journal", "events", body, n)]
}
