//! A small hand-built World for the writers' tests, while the simulation is written elsewhere.
//!
//! In: nothing (a fixed seed); out: a twenty-minute World with three instances of 4.18.2, a
//! fourth of 4.19.0 added by a deploy and one instance killed by its liveness probe and
//! restarted, four tenants (slug, number, UUID, name), requests including every failure kind
//! and health checks, Java app log lines with stack traces, metric series per role, orchestrator
//! events and changes (deploy, rollback, flag, scale-out, rate limit).

use super::ctx::{Clock, Ctx};
use super::family::{Lang, Platform};
use super::tenant::{TenantPlace, TenantPlan};
use crate::gen::facts::*;
use crate::gen::rng::Rng;
use crate::gen::time::{self, Zone};

pub const START: Ms = 1_790_838_000_000; // 2026-10-01T07:00:00Z
pub const MIN: Ms = 60_000;

fn inst(n: usize, rs: &str, suffix: &str, version: &str, lives: Vec<Life>) -> Instance {
    Instance {
        pod: format!("{rs}-{suffix}"),
        replica_set: rs.into(),
        ip: format!("10.42.{}.{}", n % 3 + 1, 11 + n),
        port: 8080,
        host: format!("ip-10-0-1-{}.ec2.internal", 21 + n % 2),
        task_id: format!("{:032x}", 0x1a2b_3c4d_u128 * (n as u128 + 7)),
        version: version.into(),
        image: format!("registry.example.com/api:{version}"),
        routed: lives
            .iter()
            .map(|l| (l.started + 15_000, l.ended.unwrap_or(START + 20 * MIN)))
            .collect(),
        lives,
    }
}

fn life(started: Ms, ended: Option<Ms>, cause: Option<EndCause>) -> Life {
    Life {
        started,
        ended,
        end_cause: cause,
    }
}

fn log(ts: Ms, instance: usize, level: Level, logger: &str, msg: &str, topic: LogTopic) -> AppLog {
    AppLog {
        ts,
        instance,
        level,
        logger: logger.into(),
        thread: "main".into(),
        pid: 0,
        msg: msg.into(),
        kv: vec![],
        stack: None,
        topic,
    }
}

const HIKARI: &str = "com.zaxxer.hikari.pool.HikariPool";
const STACK: &str = "java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30000ms.\n\tat com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:696)\n\tat com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:197)\n\tat com.example.api.ReportService.export(ReportService.java:88)";

pub fn world() -> World {
    let mut rng = Rng::new(20_261_001);
    let kill = START + 9 * MIN;
    let deploy = START + 12 * MIN;
    let instances = vec![
        inst(
            0,
            "api-7c9d8b6f5",
            "k2xqp",
            "4.18.2",
            vec![life(START - 3 * 3_600_000, None, None)],
        ),
        inst(
            1,
            "api-7c9d8b6f5",
            "m8vzt",
            "4.18.2",
            vec![
                life(
                    START - 3 * 3_600_000,
                    Some(kill),
                    Some(EndCause::LivenessKill),
                ),
                life(kill + 2_000, None, None),
            ],
        ),
        inst(
            2,
            "api-7c9d8b6f5",
            "w4rjn",
            "4.18.2",
            vec![life(START - 3 * 3_600_000, None, None)],
        ),
        inst(
            3,
            "api-5f6d7c8b9",
            "tq7xd",
            "4.19.0",
            vec![life(deploy + 5_000, None, None)],
        ),
    ];
    let tenants = vec![
        Tenant {
            id: "acct-4411".into(),
            integration: "acme-exporter".into(),
            user_agent: "acme-exporter/2.3.1 (+https://acme.example)".into(),
            api_key: Some("sk_live_9f8e7d6c5b4a39281706".into()),
        },
        Tenant {
            id: "58213".into(),
            integration: "Mozilla".into(),
            user_agent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36".into(),
            api_key: None,
        },
        Tenant {
            id: "0b6c2f1e-7a44-4c1d-9e35-2d8f6a1b7c90".into(),
            integration: "python-requests".into(),
            user_agent: "python-requests/2.32.3".into(),
            api_key: Some("k_3c1f0a9e7d".into()),
        },
        Tenant { id: "globex".into(), integration: "globex-sync".into(), user_agent: "globex-sync/1.0".into(), api_key: None },
    ];
    let mut requests = vec![];
    let mut t = START;
    let mut n = 0usize;
    while t < START + 20 * MIN {
        n += 1;
        let tenant = rng.range(0, 3) as usize;
        let alive: Vec<usize> = instances
            .iter()
            .enumerate()
            .filter(|(_, i)| i.routed.iter().any(|(a, b)| t >= *a && t < *b))
            .map(|(k, _)| k)
            .collect();
        let instance = (!alive.is_empty()).then(|| alive[n % alive.len()]);
        let mut r = Request {
            start: t,
            duration_ms: rng.range(8, 120) as u32,
            upstream_ms: None,
            instance,
            method: if n % 5 == 0 {
                "POST".into()
            } else {
                "GET".into()
            },
            path: format!("/api/v1/reports/{}", rng.range(100, 999)),
            query: if n % 4 == 0 {
                "page=2".into()
            } else {
                String::new()
            },
            status: 200,
            bytes: rng.range(200, 9000) as u64,
            request_bytes: rng.range(80, 900) as u64,
            tenant: Some(tenant),
            client_ip: format!("203.0.113.{}", 10 + tenant * 7),
            client_port: rng.range(1024, 65_000) as u16,
            user_agent: tenants[tenant].user_agent.clone(),
            referer: (tenant == 1).then(|| "https://app.example.com/dashboard".to_string()),
            request_id: rng.hex(32),
            kind: ReqKind::Api,
            // No failure, not a retry; fields the simulation adds keep their defaults.
            ..Request::default()
        };
        match n % 23 {
            3 => (r.status, r.failure, r.duration_ms) = (500, Some(Failure::PoolTimeout), 30_012),
            7 => {
                (r.status, r.failure, r.duration_ms) = (504, Some(Failure::UpstreamTimeout), 60_001)
            }
            11 => (r.status, r.failure) = (502, Some(Failure::UpstreamReset)),
            13 => (r.status, r.failure) = (499, Some(Failure::ClientClosed)),
            17 => (r.status, r.failure, r.instance) = (429, Some(Failure::RateLimited), None),
            19 => (r.status, r.failure, r.instance) = (503, Some(Failure::NoUpstream), None),
            _ => {}
        }
        if n % 31 == 0 {
            (r.path, r.status, r.kind, r.tenant) = ("/login".into(), 302, ReqKind::Login, None);
        }
        if n % 37 == 0 {
            (r.method, r.path, r.status, r.kind) =
                ("GET".into(), "/ws".into(), 101, ReqKind::Websocket);
        }
        if r.instance.is_some() {
            r.upstream_ms = Some(r.duration_ms.saturating_sub(2).max(1));
        }
        requests.push(r);
        if n % 3 == 0 {
            if let Some(i) = instance {
                requests.push(Request {
                    start: t + 1,
                    duration_ms: 2,
                    upstream_ms: Some(1),
                    instance: Some(i),
                    method: "GET".into(),
                    path: "/health".into(),
                    status: 200,
                    bytes: 15,
                    request_bytes: 0,
                    client_ip: instances[i].ip.replace(".11", ".1"),
                    client_port: 40_000,
                    user_agent: "kube-probe/1.29".into(),
                    request_id: rng.hex(32),
                    kind: ReqKind::HealthCheck,
                    ..Request::default()
                });
            }
        }
        t += rng.range(1500, 5000);
    }
    requests.sort_by_key(|r| r.start);

    let mut logs = vec![];
    for (i, inst) in instances.iter().enumerate() {
        for l in &inst.lives {
            if l.started >= START {
                logs.push(log(
                    l.started + 400,
                    i,
                    Level::Info,
                    "com.example.api.ApiApplication",
                    &format!(
                        "Starting ApiApplication v{} using Java 21.0.4 with PID 1",
                        inst.version
                    ),
                    LogTopic::VersionBanner,
                ));
                let mut up = log(
                    l.started + 9_000,
                    i,
                    Level::Info,
                    "org.springframework.boot.web.embedded.tomcat.TomcatWebServer",
                    "Tomcat started on port 8080 (http) with context path '/'",
                    LogTopic::Startup,
                );
                up.thread = "main".into();
                logs.push(up);
            }
            if let (Some(e), Some(EndCause::LivenessKill)) = (l.ended, l.end_cause) {
                logs.push(log(
                    e - 50,
                    i,
                    Level::Info,
                    "org.springframework.boot.web.embedded.tomcat.GracefulShutdown",
                    "Commencing graceful shutdown. Waiting for active requests to complete",
                    LogTopic::Shutdown,
                ));
            }
        }
        let mut tt = START + (i as Ms) * 7_000;
        while tt < START + 20 * MIN {
            let mut stats = log(
                tt,
                i,
                Level::Debug,
                HIKARI,
                "HikariPool-1 - Pool stats (total=10, active=4, idle=6, waiting=0)",
                LogTopic::PoolStats,
            );
            stats.thread = "HikariPool-1 housekeeper".into();
            logs.push(stats);
            tt += 30_000;
        }
    }
    for r in requests
        .iter()
        .filter(|r| r.failure == Some(Failure::PoolTimeout))
    {
        let mut e = log(r.start + i64::from(r.duration_ms) - 5, r.instance.unwrap_or(0), Level::Error, "com.example.api.ReportController", "Request failed: HikariPool-1 - Connection is not available, request timed out after 30000ms.", LogTopic::PoolTimeout);
        e.thread = "http-nio-8080-exec-7".into();
        e.kv = vec![
            ("request_id".into(), r.request_id.clone()),
            ("tenant_id".into(), "acct-4411".into()),
        ];
        e.stack = Some(STACK.into());
        logs.push(e);
    }
    let mut crash = log(
        kill - 1_000,
        1,
        Level::Error,
        HIKARI,
        "HikariPool-1 - Connection is not available, request timed out after 30000ms.",
        LogTopic::PoolTimeout,
    );
    crash.stack = Some(STACK.into());
    logs.push(crash);
    logs.sort_by_key(|l| (l.ts, l.instance));

    let mut series = vec![];
    for (i, inst) in instances.iter().enumerate() {
        for (role, pool) in [
            (MetricRole::PoolActive, true),
            (MetricRole::PoolMax, true),
            (MetricRole::PoolPending, true),
            (MetricRole::Cpu, false),
            (MetricRole::Memory, false),
        ] {
            let mut points = vec![];
            let mut tt = START;
            while tt < START + 20 * MIN {
                let up = inst
                    .lives
                    .iter()
                    .any(|l| tt >= l.started && l.ended.is_none_or(|e| tt < e));
                if up {
                    let v = match role {
                        MetricRole::PoolActive => ((tt - START) / MIN % 11) as f64,
                        MetricRole::PoolMax => 10.0,
                        MetricRole::PoolPending => ((tt - START) / MIN % 5) as f64,
                        MetricRole::Cpu => 0.2 + ((tt / 15_000) % 7) as f64 / 20.0,
                        _ => 0.55,
                    };
                    points.push((tt, v));
                }
                tt += 15_000;
            }
            series.push(Series {
                role,
                instance: Some(i),
                pool: pool.then(|| "HikariPool-1".to_string()),
                step_ms: 15_000,
                points,
            });
        }
        let restarts: Vec<(Ms, f64)> = (0..80)
            .map(|k| START + k * 15_000)
            .map(|tt| (tt, if i == 1 && tt >= kill { 1.0 } else { 0.0 }))
            .collect();
        series.push(Series {
            role: MetricRole::Restarts,
            instance: Some(i),
            pool: None,
            step_ms: 15_000,
            points: restarts,
        });
    }
    let q: Vec<(Ms, f64)> = (0..40)
        .map(|k| (START + k * 30_000, (k * 3 % 17) as f64))
        .collect();
    series.push(Series {
        role: MetricRole::QueueDepth,
        instance: None,
        pool: None,
        step_ms: 30_000,
        points: q.clone(),
    });
    series.push(Series {
        role: MetricRole::DbConnections,
        instance: None,
        pool: None,
        step_ms: 30_000,
        points: q,
    });

    let probe = |ts: Ms, first: Ms, count: u32, kind: InfraKind, msg: String| InfraEvent {
        ts,
        first_ts: first,
        count,
        instance: Some(1),
        kind,
        replica_set: None,
        from_replicas: None,
        to_replicas: None,
        message: msg,
    };
    let mut events = vec![
        probe(kill - 10_000, kill - 30_000, 3, InfraKind::LivenessFailed, "Liveness probe failed: Get \"http://10.42.2.12:8080/actuator/health\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)".into()),
        probe(kill, kill, 1, InfraKind::Killing, "Container api failed liveness probe, will be restarted".into()),
        probe(kill + 1_500, kill + 1_500, 1, InfraKind::Pulled, "Container image \"registry.example.com/api:4.18.2\" already present on machine".into()),
        probe(kill + 1_800, kill + 1_800, 1, InfraKind::Created, "Created container api".into()),
        probe(kill + 2_000, kill + 2_000, 1, InfraKind::Started, "Started container api".into()),
    ];
    events.push(InfraEvent {
        ts: deploy,
        first_ts: deploy,
        count: 1,
        instance: None,
        kind: InfraKind::ScalingReplicaSet,
        replica_set: Some("api-5f6d7c8b9".into()),
        from_replicas: Some(0),
        to_replicas: Some(1),
        message: "Scaled up replica set api-5f6d7c8b9 to 1".into(),
    });
    events.push(InfraEvent {
        instance: Some(3),
        kind: InfraKind::Scheduled,
        message: "Successfully assigned prod/api-5f6d7c8b9-tq7xd to ip-10-0-1-22.ec2.internal"
            .into(),
        ..probe(
            deploy + 100,
            deploy + 100,
            1,
            InfraKind::Scheduled,
            String::new(),
        )
    });
    events.push(InfraEvent {
        instance: Some(3),
        kind: InfraKind::Started,
        message: "Started container api".into(),
        ..probe(
            deploy + 5_000,
            deploy + 5_000,
            1,
            InfraKind::Started,
            String::new(),
        )
    });
    events.sort_by_key(|e| e.ts);

    let change = |ts: Ms, kind: ChangeKind| Change {
        ts,
        kind,
        service: "api".into(),
        version: None,
        from_version: None,
        flag: None,
        actor: "ci-bot".into(),
        reason: None,
        instances: vec![],
        from_replicas: None,
        to_replicas: None,
        tenant: None,
    };
    let changes = vec![
        Change {
            version: Some("4.19.0".into()),
            from_version: Some("4.18.2".into()),
            instances: vec![3],
            ..change(deploy, ChangeKind::Deploy)
        },
        Change {
            flag: Some("bulk-export-v2".into()),
            version: Some("on".into()),
            actor: "alice@example.com".into(),
            ..change(START + 5 * MIN, ChangeKind::FlagChange)
        },
        Change {
            tenant: Some(0),
            actor: "bob@example.com".into(),
            reason: Some("acme-exporter hammering /reports".into()),
            ..change(START + 14 * MIN, ChangeKind::RateLimit)
        },
        Change {
            from_replicas: Some(4),
            to_replicas: Some(6),
            actor: "bob@example.com".into(),
            ..change(START + 15 * MIN, ChangeKind::ScaleOut)
        },
        Change {
            version: Some("4.18.2".into()),
            from_version: Some("4.19.0".into()),
            reason: Some("error rate up after 4.19.0".into()),
            actor: "alice@example.com".into(),
            ..change(START + 16 * MIN, ChangeKind::Rollback)
        },
    ];

    World {
        start: START,
        end: START + 20 * MIN,
        service: "api".into(),
        deployment: "api".into(),
        namespace: "prod".into(),
        host: "api.example.com".into(),
        instances,
        tenants,
        requests,
        logs,
        series,
        events,
        changes,
    }
}

pub fn tenant_plan(w: &World, place: TenantPlace) -> TenantPlan {
    TenantPlan::draw(w, &mut Rng::new(9), true, true, Some(place))
}

/// A Kubernetes/Java context in UTC with the tenant in the path.
pub fn ctx(w: &World) -> Ctx<'_> {
    ctx_with(w, Platform::Kubernetes, time::UTC)
}

pub fn ctx_with(w: &World, platform: Platform, zone: Zone) -> Ctx<'_> {
    let plan = tenant_plan(w, TenantPlace::Path("accounts".into()));
    Ctx::new(w, platform, Lang::Java, zone, plan, &mut Rng::new(77))
}

pub fn clock(skew_ms: Ms) -> Clock {
    Clock {
        zone: time::UTC,
        skew_ms,
    }
}
