//! Change records: a plain deploy log, `helm history -o json`, GitHub deployments, the
//! LaunchDarkly audit log and Unleash events.
//!
//! Followed field by field:
//! - deploy log: the spec's `2026-10-01T07:40:12Z deploy api 4.19.0 by ci-bot` and
//!   `... rollback api 4.18.2 reason="error rate up after 4.19.0"`;
//! - helm: corpus `external/helm_history_with_rollback.json` (helm's golden output: compact,
//!   `revision`, `updated`, `status`, `chart`, `app_version`, `rollback_revision`,
//!   `description` "Install complete" / "Upgrade complete" / "Rollback to N", oldest first);
//! - GitHub: the REST API's deployment object (`url`, `id`, `node_id`, `sha`, `ref`, `task`,
//!   `payload`, `original_environment`, `environment`, `description`, `creator`, `created_at`,
//!   `updated_at`, `statuses_url`, `repository_url`, ...), newest first;
//! - LaunchDarkly: `GET /api/v2/auditlog` items (`_id`, `date` in epoch ms, `accesses[].action`
//!   `updateOn`/`updateFallthrough`, `kind`, `name`, `description`, `member`, `titleVerb`,
//!   `title`, `target.resources`), newest first;
//! - Unleash: `GET /api/admin/events` (`feature-environment-enabled`/`-disabled`,
//!   `feature-strategy-update`, `createdBy`, `createdAt`, `featureName`, `environment`).

use super::login;
use crate::gen::emit::ctx::{Clock, Ctx};
use crate::gen::emit::json::{self, J};
use crate::gen::emit::plan::{lines, OutFile, SourcePlan};
use crate::gen::facts::{Change, ChangeKind};
use crate::gen::rng::Rng;
use crate::gen::time::{self, OffsetStyle};

fn state(c: &Change) -> String {
    match (c.kind, c.version.as_deref()) {
        (ChangeKind::FlagRevert, _) => "off".into(),
        (_, Some(v)) => v.to_string(),
        _ => "on".into(),
    }
}

fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "'"))
}

pub fn deploy_log(
    ctx: &Ctx,
    changes: &[&Change],
    clock: &Clock,
    rng: &mut Rng,
    plan: &mut SourcePlan,
) -> Vec<OutFile> {
    plan.stamps = "when the pipeline or person acted".into();
    plan.zone = "UTC".into();
    let svc = &ctx.w.service;
    let mut rows: Vec<(i64, String)> = vec![];
    for c in changes {
        let by = format!(" by {}", c.actor);
        let reason = c
            .reason
            .as_deref()
            .map(|r| format!(" reason={}", quoted(r)))
            .unwrap_or_default();
        let body = match c.kind {
            ChangeKind::Deploy => format!(
                "deploy {svc} {}{by}{reason}",
                c.version.as_deref().unwrap_or("-")
            ),
            ChangeKind::Rollback => {
                let who = if reason.is_empty() || rng.chance(0.5) {
                    by.clone()
                } else {
                    String::new()
                };
                format!(
                    "rollback {svc} {}{who}{reason}",
                    c.version.as_deref().unwrap_or("-")
                )
            }
            ChangeKind::FlagChange | ChangeKind::FlagRevert => format!(
                "flag {} {}{by}{reason}",
                c.flag.as_deref().unwrap_or("-"),
                state(c)
            ),
            ChangeKind::ScaleOut | ChangeKind::ScaleIn => format!(
                "scale {svc} {}->{}{by}{reason}",
                c.from_replicas.unwrap_or(0),
                c.to_replicas.unwrap_or(0)
            ),
            ChangeKind::ManualRestart => format!("restart {svc}{by}{reason}"),
            ChangeKind::RateLimit => {
                let t = c
                    .tenant
                    .and_then(|t| ctx.w.tenants.get(t))
                    .map(|t| format!(" tenant={}", t.id))
                    .unwrap_or_default();
                format!("ratelimit {svc}{t}{by}{reason}")
            }
            ChangeKind::Config => format!(
                "config {svc} {}{by}{reason}",
                c.version.as_deref().unwrap_or("-")
            ),
        };
        let t = clock.at(c.ts);
        rows.push((
            t,
            format!("{} {body}", time::rfc3339(t, 0, 0, OffsetStyle::ZOrColon)),
        ));
    }
    rows.sort_by_key(|r| r.0);
    let n = rows.len();
    vec![OutFile::new(
        "deploys.log",
        "deploy-log",
        "events",
        lines(&rows.into_iter().map(|r| r.1).collect::<Vec<_>>()),
        n,
    )]
}

/// One helm release revision.
struct Rev {
    n: i64,
    t: i64,
    chart: String,
    version: String,
    description: String,
    rollback: Option<i64>,
}

pub fn helm(
    ctx: &Ctx,
    changes: &[&Change],
    clock: &Clock,
    rng: &mut Rng,
    plan: &mut SourcePlan,
) -> Vec<OutFile> {
    plan.stamps = "updated (helm client's clock, nanoseconds)".into();
    let svc = &ctx.w.service;
    let first_version = changes
        .iter()
        .find_map(|c| c.from_version.clone())
        .or_else(|| ctx.w.instances.first().map(|i| i.version.clone()))
        .unwrap_or_else(|| "1.0.0".into());
    let (major, minor) = (rng.range(0, 2), rng.range(1, 20));
    let mut patch = rng.range(0, 5);
    let mut next_chart = move || {
        patch += 1;
        format!("{svc}-{major}.{minor}.{patch}")
    };
    let earlier = rng.range(1, 4);
    let mut revs: Vec<Rev> = vec![];
    for k in 0..earlier {
        let t = ctx.w.start - (earlier - k) * rng.range(86_400_000, 10 * 86_400_000);
        let description = if k == 0 {
            "Install complete"
        } else {
            "Upgrade complete"
        };
        revs.push(Rev {
            n: k + 1,
            t,
            chart: next_chart(),
            version: first_version.clone(),
            description: description.into(),
            rollback: None,
        });
    }
    for c in changes {
        let n = revs.len() as i64 + 1;
        let version = c.version.clone().unwrap_or_else(|| first_version.clone());
        match c.kind {
            // A rollback re-deploys an earlier revision: its chart and its app version.
            ChangeKind::Rollback => {
                let target = revs
                    .iter()
                    .rev()
                    .find(|r| r.version == version)
                    .or(revs.first());
                let (tn, chart) = target
                    .map(|r| (r.n, r.chart.clone()))
                    .unwrap_or((1, next_chart()));
                revs.push(Rev {
                    n,
                    t: c.ts,
                    chart,
                    version,
                    description: format!("Rollback to {tn}"),
                    rollback: Some(tn),
                });
            }
            _ => revs.push(Rev {
                n,
                t: c.ts,
                chart: next_chart(),
                version,
                description: "Upgrade complete".into(),
                rollback: None,
            }),
        }
    }
    let last = revs.len();
    let items: Vec<J> = revs
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let t = clock.at(r.t);
            let updated = time::rfc3339_ns(
                t * 1_000_000 + rng.range(0, 999_999),
                clock.zone.offset_ms(t),
                9,
                true,
                OffsetStyle::ZOrColon,
            );
            let mut o = vec![
                ("revision", J::n(r.n)),
                ("updated", J::s(updated)),
                (
                    "status",
                    J::s(if k + 1 == last {
                        "deployed"
                    } else {
                        "superseded"
                    }),
                ),
                ("chart", J::s(&r.chart)),
                ("app_version", J::s(&r.version)),
            ];
            if let Some(rb) = r.rollback {
                o.push(("rollback_revision", J::n(rb)));
            }
            o.push(("description", J::s(&r.description)));
            J::obj(o)
        })
        .collect();
    let n = items.len();
    vec![OutFile::new(
        "helm-history.json",
        "helm-history",
        "events",
        json::to_string(&J::Arr(items), &json::GO) + "\n",
        n,
    )]
}

pub fn github(
    ctx: &Ctx,
    changes: &[&Change],
    clock: &Clock,
    rng: &mut Rng,
    plan: &mut SourcePlan,
) -> Vec<OutFile> {
    plan.stamps = "created_at (GitHub's clock)".into();
    plan.zone = "UTC".into();
    let owner = rng.pick(&["acme", "example-org", "platform-team"]);
    let repo = format!("{}-service", ctx.w.service);
    let base = format!("https://api.github.com/repos/{owner}/{repo}");
    let mut id = rng.range(1_000_000_000, 2_000_000_000);
    let mut items: Vec<(i64, J)> = vec![];
    for c in changes {
        id += rng.range(3, 400);
        let v = c.version.clone().unwrap_or_default();
        let desc = match (c.kind, &c.reason) {
            (ChangeKind::Rollback, Some(r)) => format!("Rollback to {v}: {r}"),
            (ChangeKind::Rollback, None) => format!("Rollback to {v}"),
            _ => format!("Deploy {v}"),
        };
        let who = if c.actor.contains("bot") {
            "github-actions[bot]".to_string()
        } else {
            login(&c.actor)
        };
        let t = time::rfc3339(clock.at(c.ts), 0, 0, OffsetStyle::ZOrColon);
        items.push((
            c.ts,
            J::obj(vec![
                ("url", J::s(format!("{base}/deployments/{id}"))),
                ("id", J::n(id)),
                ("node_id", J::s(format!("DE_kwDO{}", rng.hex(12)))),
                ("sha", J::s(rng.hex(40))),
                // A tag is `v` and the version, once: versions may carry their own `v`.
                ("ref", J::s(format!("v{}", v.trim_start_matches('v')))),
                ("task", J::s("deploy")),
                ("payload", J::Obj(vec![])),
                ("original_environment", J::s("production")),
                ("environment", J::s("production")),
                ("description", J::s(desc)),
                (
                    "creator",
                    J::obj(vec![
                        ("login", J::s(&who)),
                        ("id", J::n(rng.range(1_000, 90_000_000))),
                        (
                            "type",
                            J::s(if who.ends_with("[bot]") {
                                "Bot"
                            } else {
                                "User"
                            }),
                        ),
                        ("site_admin", J::Bool(false)),
                    ]),
                ),
                ("created_at", J::s(&t)),
                ("updated_at", J::s(&t)),
                (
                    "statuses_url",
                    J::s(format!("{base}/deployments/{id}/statuses")),
                ),
                ("repository_url", J::s(&base)),
                ("transient_environment", J::Bool(false)),
                ("production_environment", J::Bool(true)),
                ("performed_via_github_app", J::Null),
            ]),
        ));
    }
    items.sort_by_key(|x| std::cmp::Reverse(x.0));
    let n = items.len();
    let body = json::to_string(
        &J::Arr(items.into_iter().map(|i| i.1).collect()),
        &json::PRETTY2,
    ) + "\n";
    vec![OutFile::new(
        "github-deployments.json",
        "github-deployments",
        "events",
        body,
        n,
    )]
}

fn flag_title(key: &str) -> String {
    let mut s: String = key.replace(['-', '_'], " ");
    if let Some(f) = s.get(..1) {
        s = f.to_uppercase() + &s[1..];
    }
    s
}

pub fn launchdarkly(
    _ctx: &Ctx,
    changes: &[&Change],
    clock: &Clock,
    rng: &mut Rng,
    plan: &mut SourcePlan,
) -> Vec<OutFile> {
    plan.stamps = "date (epoch ms)".into();
    plan.zone = "UTC".into();
    let account = rng.hex(24);
    let mut items: Vec<(i64, J)> = vec![];
    for c in changes {
        let key = c.flag.clone().unwrap_or_else(|| "flag".into());
        let name = flag_title(&key);
        let st = state(c);
        let (action, verb, desc) = if st.ends_with('%') {
            (
                "updateFallthrough",
                "changed the default rule".to_string(),
                format!("- Changed the default rule to roll out {st} true"),
            )
        } else if st == "off" || st == "false" {
            (
                "updateOn",
                "turned off the flag".into(),
                "- Turned off the flag".into(),
            )
        } else {
            (
                "updateOn",
                "turned on the flag".into(),
                "- Turned on the flag".into(),
            )
        };
        let email = if c.actor.contains('@') {
            c.actor.clone()
        } else {
            format!("{}@example.com", c.actor)
        };
        let first = flag_title(&login(&email));
        let resource = format!("proj/default:env/production:flag/{key}");
        let site = format!("/default/production/features/{key}");
        let t = clock.at(c.ts);
        items.push((
            t,
            J::obj(vec![
                ("_links", J::obj(vec![("canonical", J::obj(vec![("href", J::s(format!("/api/v2/flags/default/{key}"))), ("type", J::s("application/json"))])), ("site", J::obj(vec![("href", J::s(&site)), ("type", J::s("text/html"))]))])),
                ("_id", J::s(rng.hex(24))),
                ("_accountId", J::s(&account)),
                ("date", J::n(t)),
                ("accesses", J::Arr(vec![J::obj(vec![("action", J::s(action)), ("resource", J::s(&resource))])])),
                ("kind", J::s("flag")),
                ("name", J::s(&name)),
                ("description", J::s(desc)),
                ("shortDescription", J::s("")),
                ("member", J::obj(vec![("_id", J::s(rng.hex(24))), ("email", J::s(&email)), ("firstName", J::s(&first)), ("lastName", J::s(""))])),
                ("titleVerb", J::s(&verb)),
                ("title", J::s(format!("{first} {verb} [{name}](https://app.launchdarkly.com{site}) in `Production`"))),
                ("target", J::obj(vec![("name", J::s(&name)), ("resources", J::Arr(vec![J::s(&resource)]))])),
            ]),
        ));
    }
    items.sort_by_key(|x| std::cmp::Reverse(x.0));
    let n = items.len();
    let doc = J::obj(vec![
        ("items", J::Arr(items.into_iter().map(|i| i.1).collect())),
        (
            "_links",
            J::obj(vec![(
                "self",
                J::obj(vec![
                    ("href", J::s("/api/v2/auditlog")),
                    ("type", J::s("application/json")),
                ]),
            )]),
        ),
        ("totalCount", J::n(n)),
    ]);
    vec![OutFile::new(
        "launchdarkly-auditlog.json",
        "launchdarkly-audit",
        "events",
        json::to_string(&doc, &json::COMPACT) + "\n",
        n,
    )]
}

pub fn unleash(
    _ctx: &Ctx,
    changes: &[&Change],
    clock: &Clock,
    rng: &mut Rng,
    plan: &mut SourcePlan,
) -> Vec<OutFile> {
    plan.stamps = "createdAt".into();
    plan.zone = "UTC".into();
    let mut id = rng.range(1_000, 90_000);
    let mut items: Vec<(i64, J)> = vec![];
    for c in changes {
        id += rng.range(1, 30);
        let key = c.flag.clone().unwrap_or_else(|| "flag".into());
        let st = state(c);
        let (kind, data) = if let Some(pct) = st.strip_suffix('%') {
            (
                "feature-strategy-update",
                J::obj(vec![
                    ("name", J::s("flexibleRollout")),
                    (
                        "parameters",
                        J::obj(vec![
                            ("rollout", J::s(pct)),
                            ("stickiness", J::s("default")),
                            ("groupId", J::s(&key)),
                        ]),
                    ),
                ]),
            )
        } else if st == "off" || st == "false" {
            ("feature-environment-disabled", J::Null)
        } else {
            ("feature-environment-enabled", J::Null)
        };
        let t = clock.at(c.ts);
        items.push((
            t,
            J::obj(vec![
                ("id", J::n(id)),
                ("type", J::s(kind)),
                ("createdBy", J::s(&c.actor)),
                (
                    "createdAt",
                    J::s(time::rfc3339(t, 0, 3, OffsetStyle::ZOrColon)),
                ),
                ("data", data),
                ("preData", J::Null),
                ("tags", J::Arr(vec![])),
                ("featureName", J::s(&key)),
                ("project", J::s("default")),
                ("environment", J::s("production")),
            ]),
        ));
    }
    items.sort_by_key(|x| std::cmp::Reverse(x.0));
    let n = items.len();
    let doc = J::obj(vec![
        ("version", J::n(1)),
        ("events", J::Arr(items.into_iter().map(|i| i.1).collect())),
        ("totalEvents", J::n(n)),
    ]);
    vec![OutFile::new(
        "unleash-events.json",
        "unleash-events",
        "events",
        json::to_string(&doc, &json::COMPACT) + "\n",
        n,
    )]
}
