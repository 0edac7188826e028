//! Application logs: the World's log lines in one logger's format, one file per service or
//! per instance, sometimes inside a log platform's envelope.
//!
//! In: `World::logs`, the family, the layout, the envelope and the app's clock; out: the
//! files and the plan entry. Instances are named where the format has a host field, by the
//! file name (one file per pod or host) or by the envelope's labels. When another source
//! names instances by address, a start-up line naming the address (`Listening at:
//! http://10.42.1.11:8080`, in the library's own words) is added per process start, so a
//! record links the two names as a real stack's logs would.

mod json_loggers;
mod text;

use super::ctx::{Clock, Ctx, Scheme};
use super::envelope::{self, Wrapped};
use super::family::{AppFamily, Envelope, Lang, Platform};
use super::plan::{lines, OutFile, SourceOut, SourcePlan};
use crate::gen::facts::{AppLog, Level, LogTopic, Ms, World};
use crate::gen::rng::Rng;

/// One log record ready to render: the World's line on this source's clock.
pub struct Rec<'a> {
    pub log: &'a AppLog,
    /// Time on the app's clock.
    pub t: Ms,
    /// Offset of the app's zone at `t`.
    pub off: Ms,
    /// How the process names itself (`$HOSTNAME`).
    pub me: &'a str,
    pub pid: u32,
    pub service: &'a str,
    /// Whether it runs in a container (console log patterns) rather than on a VM (file patterns).
    pub container: bool,
}

/// The application's language, guessed from its log lines' loggers and wording (see NEEDS.md).
pub fn infer_lang(w: &World) -> Lang {
    let mut score = [0usize; 5];
    for l in w.logs.iter().take(2000) {
        let s = format!("{} {}", l.logger, l.msg);
        let hit = |words: &[&str]| words.iter().any(|k| s.contains(k));
        score[0] += usize::from(hit(&[
            "com.", "org.", "Hikari", "java.", "Tomcat", "Spring",
        ]));
        score[1] += usize::from(hit(&[
            "sqlalchemy",
            "gunicorn",
            "uvicorn",
            "django",
            "celery",
            "Traceback",
            ".py",
        ]));
        score[2] += usize::from(hit(&[
            "pgx",
            "pg: ",
            ".go:",
            "database/sql",
            "goroutine",
            "net/http",
        ]));
        score[3] += usize::from(hit(&[
            "express",
            "fastify",
            "knex",
            "sequelize",
            "node:",
            "pg-pool",
            "Node.js",
        ]));
        score[4] += usize::from(hit(&[
            "ActiveRecord",
            "Rails",
            "puma",
            "Puma",
            "sidekiq",
            "ActionController",
        ]));
    }
    let langs = [Lang::Java, Lang::Python, Lang::Go, Lang::Node, Lang::Ruby];
    match score
        .iter()
        .enumerate()
        .max_by_key(|(i, s)| (**s, std::cmp::Reverse(*i)))
    {
        Some((i, s)) if *s > 0 => langs[i],
        _ => Lang::Unknown,
    }
}

/// The families a service in `lang` would log with.
pub fn families_for(lang: Lang) -> Vec<AppFamily> {
    AppFamily::ALL
        .iter()
        .copied()
        .filter(|f| lang == Lang::Unknown || f.lang() == lang)
        .collect()
}

/// Level names per logger family.
pub fn level_word(fam: AppFamily, l: Level) -> &'static str {
    use AppFamily::*;
    match (fam, l) {
        (PythonText | PythonJson, Level::Warn) => "WARNING",
        (PythonText | PythonJson, Level::Fatal) => "CRITICAL",
        (Structlog, Level::Warn) => "warning",
        (Structlog, Level::Fatal) => "critical",
        (Logrus | Logfmt, Level::Warn) => "warning",
        (EcsJson | LogstashJson | SpringText, Level::Fatal) => "ERROR",
        (Structlog | Logrus | Logfmt | Zap, l) => match l {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
            Level::Fatal => "fatal",
        },
        (_, l) => match l {
            Level::Debug => "DEBUG",
            Level::Info => "INFO",
            Level::Warn => "WARN",
            Level::Error => "ERROR",
            Level::Fatal => "FATAL",
        },
    }
}

/// pino and bunyan numeric levels.
pub fn level_num(l: Level) -> u32 {
    match l {
        Level::Debug => 20,
        Level::Info => 30,
        Level::Warn => 40,
        Level::Error => 50,
        Level::Fatal => 60,
    }
}

/// Whether a structured value is a number in the program that logged it.
pub fn numeric_key(k: &str) -> bool {
    matches!(
        k,
        "status"
            | "duration_ms"
            | "bytes"
            | "elapsed_ms"
            | "latency_ms"
            | "attempt"
            | "active"
            | "idle"
            | "waiting"
            | "total"
            | "pending"
            | "depth"
            | "count"
    )
}

/// The start-up line that names the address a process listens on, in `lang`'s words.
fn listen_line(lang: Lang, ctx: &Ctx, i: usize, t: Ms) -> AppLog {
    let inst = &ctx.w.instances[i];
    let addr = format!("{}:{}", inst.ip, inst.port);
    let (logger, thread, msg, kv): (&str, &str, String, Vec<(String, String)>) = match lang {
        Lang::Java | Lang::Unknown => (
            "com.netflix.discovery.DiscoveryClient",
            "DiscoveryClient-InstanceInfoReplicator-0",
            format!(
                "DiscoveryClient_{}/{addr} - registration status: 204",
                ctx.w.service.to_uppercase()
            ),
            vec![],
        ),
        Lang::Python => (
            "gunicorn.error",
            "MainThread",
            format!("Listening at: http://{addr} (1)"),
            vec![],
        ),
        Lang::Go => (
            "server",
            "",
            "listening".into(),
            vec![("addr".into(), addr.clone())],
        ),
        Lang::Node => ("", "", format!("Server listening at http://{addr}"), vec![]),
        Lang::Ruby => ("puma", "", format!("* Listening on http://{addr}"), vec![]),
    };
    AppLog {
        ts: t,
        instance: i,
        level: Level::Info,
        logger: logger.into(),
        thread: thread.into(),
        pid: 0,
        msg,
        kv,
        stack: None,
        topic: LogTopic::Startup,
    }
}

/// How app logs are laid out on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One file, every instance.
    Merged,
    /// One file per instance (all its processes).
    PerInstance,
    /// `kubectl logs POD` and `kubectl logs POD --previous`: the current process and the one
    /// before; older processes' lines are gone.
    Kubectl,
}

pub struct AppChoice {
    pub fam: AppFamily,
    pub envelope: Option<Envelope>,
    pub layout: Layout,
    /// Add listen lines (a link between addresses and the app's own names).
    pub listen: bool,
}

pub fn write(ctx: &Ctx, ch: &AppChoice, clock: Clock, rng: &mut Rng) -> SourceOut {
    let mut plan = SourcePlan {
        kind: "app",
        family: ch.fam.name().into(),
        zone: clock.zone.name.into(),
        zoneless: ch.fam.zoneless(),
        skew_ms: clock.skew_ms,
        stamps: "log time".into(),
        ..SourcePlan::default()
    };
    plan.detail("layout", format!("{:?}", ch.layout));
    plan.detail("envelope", ch.envelope.map(|e| e.name()).unwrap_or("none"));
    plan.detail("language", ctx.lang.name());
    let me: Vec<String> = (0..ctx.w.instances.len())
        .map(|i| ctx.name(i, ctx.self_scheme()))
        .collect();
    if ch.fam.has_host() {
        plan.naming.push(ctx.self_scheme().name());
    }

    // The World's lines plus the listen lines, each with the process life it belongs to.
    let mut extra = vec![];
    if ch.listen {
        let lang = if ctx.lang == Lang::Unknown {
            ch.fam.lang()
        } else {
            ctx.lang
        };
        for (i, inst) in ctx.w.instances.iter().enumerate() {
            for l in &inst.lives {
                let after = ctx
                    .w
                    .logs
                    .iter()
                    .filter(|g| {
                        g.instance == i
                            && g.topic == LogTopic::Startup
                            && g.ts >= l.started
                            && l.ended.is_none_or(|e| g.ts < e)
                    })
                    .map(|g| g.ts + 1)
                    .next();
                extra.push(listen_line(
                    lang,
                    ctx,
                    i,
                    after.unwrap_or(l.started + 8_000),
                ));
            }
        }
        plan.detail("listen_lines", extra.len());
    }
    let mut all: Vec<&AppLog> = ctx.w.logs.iter().chain(extra.iter()).collect();
    all.sort_by_key(|l| (l.ts, l.instance));

    let life_of = |l: &AppLog| -> usize {
        let lives = &ctx.w.instances[l.instance].lives;
        lives.iter().rposition(|lf| lf.started <= l.ts).unwrap_or(0)
    };
    let mut dropped = 0usize;
    // Group records into files.
    let mut groups: Vec<(String, Option<usize>, Vec<&AppLog>)> = vec![];
    match ch.layout {
        Layout::Merged => groups.push((String::new(), None, all.clone())),
        Layout::PerInstance => {
            // Runtime envelopes keep one file per container; otherwise a host's log file holds
            // every process that ran on it (a VM's old and new version after a deploy).
            let per_container = matches!(ch.envelope, Some(Envelope::DockerJson | Envelope::Cri));
            for (i, my_name) in me.iter().enumerate() {
                // ECS log streams downloaded one by one are named by task.
                let stem = if ctx.platform == Platform::Ecs && ch.envelope.is_none() {
                    ctx.name(i, Scheme::TaskId)
                } else {
                    my_name.clone()
                };
                let mine: Vec<&AppLog> = all.iter().copied().filter(|l| l.instance == i).collect();
                match groups.iter_mut().find(|g| g.0 == stem && !per_container) {
                    Some(g) => {
                        g.2.extend(mine);
                        g.2.sort_by_key(|l| (l.ts, l.instance));
                    }
                    None => groups.push((stem, Some(i), mine)),
                }
            }
        }
        Layout::Kubectl => {
            for (i, my_name) in me.iter().enumerate() {
                let n = ctx.w.instances[i].lives.len();
                let mine: Vec<&AppLog> = all.iter().copied().filter(|l| l.instance == i).collect();
                for (suffix, life) in [("", n.saturating_sub(1)), (".previous", n.wrapping_sub(2))]
                {
                    if life >= n {
                        continue;
                    }
                    let part: Vec<&AppLog> = mine
                        .iter()
                        .copied()
                        .filter(|l| life_of(l) == life)
                        .collect();
                    if !part.is_empty() {
                        groups.push((format!("{my_name}{suffix}"), Some(i), part));
                    }
                }
                dropped += mine.iter().filter(|l| life_of(l) + 2 < n).count();
            }
        }
    }
    if dropped > 0 {
        plan.detail("lines_of_older_processes_not_exported", dropped);
    }

    let mut files = vec![];
    for (stem, inst, recs) in groups {
        let mut physical: Vec<Wrapped> = vec![];
        for l in recs {
            let t = clock.at(l.ts);
            let rec = Rec {
                log: l,
                t,
                off: clock.zone.offset_ms(t),
                me: &me[l.instance],
                pid: ctx.pid(l.instance, l.pid),
                service: &ctx.w.service,
                container: ctx.platform != Platform::Vm,
            };
            for (k, line) in render(ch.fam, &rec).into_iter().enumerate() {
                physical.push(Wrapped {
                    t: t + k as Ms,
                    instance: l.instance,
                    line,
                });
            }
        }
        let n = physical.len();
        let ext = if matches!(
            ch.fam,
            AppFamily::SpringText
                | AppFamily::PythonText
                | AppFamily::GoLog
                | AppFamily::Rails
                | AppFamily::Logfmt
        ) {
            "log"
        } else {
            "json"
        };
        let (name, body) = match ch.envelope {
            Some(env) => {
                let dest = envelope::Dest {
                    stem: &stem,
                    instance: inst,
                    stderr: writes_stderr(ch.fam),
                };
                envelope::wrap(ctx, env, &dest, &physical, rng, &mut plan)
            }
            None => {
                let name = if stem.is_empty() {
                    format!("{}.{ext}", ctx.w.service)
                } else {
                    format!("{stem}.{ext}")
                };
                (
                    name,
                    lines(&physical.into_iter().map(|w| w.line).collect::<Vec<_>>()),
                )
            }
        };
        let prefix = if ch.layout == Layout::Merged {
            ""
        } else {
            "logs/"
        };
        files.push(OutFile::new(
            format!("{prefix}{name}"),
            ch.fam.name(),
            "app",
            body,
            n,
        ));
    }
    if ch.envelope.is_some_and(|e| e.merged()) || ch.layout != Layout::Merged {
        plan.naming.push(ctx.self_scheme().name());
    }
    plan.naming.dedup();
    SourceOut {
        files,
        plan,
        links: vec![],
    }
}

/// Whether the library writes to stderr by default (Python's `StreamHandler`, Go's `log`,
/// logrus and zap's production logger); the runtime envelope records the stream.
pub fn writes_stderr(fam: AppFamily) -> bool {
    use AppFamily::*;
    matches!(fam, PythonText | PythonJson | GoLog | Logfmt | Logrus | Zap)
}

/// Physical lines of one record in `fam`'s format (stack traces on lines of their own for
/// plain text, escaped inside JSON).
pub fn render(fam: AppFamily, r: &Rec) -> Vec<String> {
    use AppFamily::*;
    match fam {
        EcsJson => json_loggers::ecs(r),
        LogstashJson => json_loggers::logstash(r),
        PythonJson => json_loggers::python_json(r),
        Structlog => json_loggers::structlog(r),
        Logrus => json_loggers::logrus(r),
        Zap => json_loggers::zap(r),
        Pino => json_loggers::pino(r),
        Bunyan => json_loggers::bunyan(r),
        SpringText => text::spring(r),
        PythonText => text::python(r),
        Logfmt => text::logfmt(r),
        GoLog => text::golog(r),
        Rails => text::rails(r),
    }
}

/// Whether the platform would realistically run this layout with this envelope.
pub fn layout_for(
    platform: Platform,
    fam: AppFamily,
    env: Option<Envelope>,
    rng: &mut Rng,
) -> Layout {
    match env {
        Some(e) if e.merged() => Layout::Merged,
        Some(_) => Layout::PerInstance,
        None if platform == Platform::Kubernetes && rng.chance(0.6) => Layout::Kubectl,
        None if fam.has_host() && rng.chance(0.5) => Layout::Merged,
        None => Layout::PerInstance,
    }
}

#[cfg(test)]
mod tests;
