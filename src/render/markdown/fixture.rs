//! Reports for the section tests: the bundled sample's figures, small enough
//! to read, and findings made to order.
//!
//! In: nothing (or a pattern, a confidence and a start). Out: a [`Report`]
//! or a [`FindingJson`] that a test then bends into the case it checks.

use crate::correlate::TimelineKind;
use crate::report::{
    AttributionJson, CulpritFigures, EvidenceJson, Extra, FindingJson, ImpactJson, IncidentJson,
    Report, RowJson, SpanJson, SubjectJson, TimelineJson, SCHEMA,
};

fn at(hms: &str) -> String {
    format!("2026-10-01T{hms}Z")
}

pub(crate) fn finding(pattern: &str, confidence: f64, start: &str) -> FindingJson {
    FindingJson {
        figures: Vec::new(),
        pattern: pattern.to_string(),
        title: format!("{pattern} title"),
        confidence,
        start: at(start),
        end: at("08:01:35"),
        subject: SubjectJson::default(),
        evidence: vec![EvidenceJson {
            text: format!("{pattern} figure"),
            source: "access.log:1".to_string(),
        }],
        actions: Vec::new(),
    }
}

fn culprit_subject() -> SubjectJson {
    SubjectJson {
        tenant: Some("acct-4411".to_string()),
        integration: Some("acme-exporter".to_string()),
        ..SubjectJson::default()
    }
}

/// A timeline entry at `ts` (hh:mm:ss on the fixture's day).
pub(crate) fn entry(ts: &str, kind: TimelineKind, text: &str, source: &str) -> TimelineJson {
    TimelineJson {
        ts: at(ts),
        kind,
        text: text.to_string(),
        sources: vec![source.to_string()],
    }
}

/// The bulk-export incident in miniature.
pub(crate) fn bulk() -> Report {
    let mut surge = finding("tenant_surge", 0.99, "07:56:56");
    surge.title =
        "`acct-4411` (integration `acme-exporter`) drove the load: 14950x its own baseline"
            .to_string();
    surge.subject = culprit_subject();
    surge.evidence[0].text = "`acct-4411` (integration `acme-exporter`) sent 96.8 req/s during the incident against 0.0059 req/s in the baseline (14950x)".to_string();
    surge.actions = vec![
        "Per-account (per-integration) rate limits on the public API, with published quotas and advance notice to high-volume integrations".to_string(),
        "Bounded page sizes on list endpoints, so one bulk reader cannot hold connections for seconds".to_string(),
        "Separate capacity (pools, workers) for bulk/background and interactive traffic".to_string(),
    ];
    let mut pool = finding("pool_exhaustion", 0.95, "07:57:00");
    pool.title = "Database connection pools exhausted on all 3 instances".to_string();
    pool.actions = vec![
        "Dedicated connection pools for interactive and bulk work, so one cannot starve the other".to_string(),
        "Fail fast on pool checkout (short acquire timeout) instead of queueing for tens of seconds".to_string(),
        "Alert on the leading indicators: pool usage near its maximum and requests waiting for a connection".to_string(),
    ];
    let mut health = finding("health_check_coupling", 0.95, "07:57:54");
    health.title =
        "Health checks failed together with user traffic on 3 of 3 instances".to_string();
    health.actions = vec![
        "Liveness checks that do not touch the database or other shared dependencies (keep those in readiness)".to_string(),
        "Longer liveness thresholds than the pool's acquire timeout, so slowness is not mistaken for death".to_string(),
    ];
    let mut restart = finding("synchronized_restart", 0.95, "07:58:54");
    restart.title = "3 of 3 instances restarted together within 2 s".to_string();
    restart.actions = vec![
        "Staggered restarts: a liveness failure threshold longer than a fleet-wide slow spell (a PodDisruptionBudget limits rollouts and evictions, not liveness kills), so no more than a fraction of instances restart at once".to_string(),
        "Connection draining and fail-fast timeouts, so a restart sheds load instead of dropping it".to_string(),
    ];
    let mut retry = finding("retry_storm", 1.0, "07:58:59");
    retry.title = "`acct-4411` (integration `acme-exporter`) retried failed requests into the struggling service".to_string();
    retry.subject = culprit_subject();
    retry.actions = vec![
        "Retries with jittered exponential backoff and a retry budget in the client SDKs and integrations".to_string(),
        "Resume bulk jobs where they stopped (a cursor or checkpoint) instead of starting over".to_string(),
    ];
    Report {
        schema: SCHEMA,
        generator: "postmortem 0.1.0".to_string(),
        span: Some(SpanJson {
            start: at("07:25:00"),
            end: at("08:14:59"),
        }),
        incident: IncidentJson {
            found: true,
            onset: Some(at("07:56:54")),
            recovered: Some(at("08:01:35")),
            duration_s: Some(281),
        },
        impact: ImpactJson {
            requests_total: 32212,
            requests_failed: 10231,
            failed_share: 0.3176,
            tenants_affected: 231,
            instances_affected: vec![
                "10.42.1.11:8080".to_string(),
                "10.42.2.12:8080".to_string(),
                "10.42.3.13:8080".to_string(),
            ],
            instances_total: 3,
            full_outages: vec![SpanJson {
                start: at("07:58:57"),
                end: at("07:59:00"),
            }],
        },
        timeline: vec![
            entry(
                "07:56:56",
                TimelineKind::SurgeStart,
                "Tenant `acct-4411` (integration `acme-exporter`) surges: up to 185 req/s against a baseline of 0.0059 req/s",
                "access.log:36108",
            ),
            entry(
                "07:57:00",
                TimelineKind::PoolSaturated,
                "Connection pool saturated on 3 of 3 instances",
                "db-pool.json (hikaricp_connections_active{instance=\"10.42.1.11:8080\"})",
            ),
            entry(
                "07:58:54",
                TimelineKind::AllInstancesRestarted,
                "All 3 of 3 instances restarted within 2 s",
                "app.jsonl:2809",
            ),
            entry(
                "07:59:07",
                TimelineKind::Restart,
                "api-1 is back up (13 s after going down)",
                "app.jsonl:2809",
            ),
            entry(
                "08:00:37",
                TimelineKind::Restart,
                "api-3 is back up (101 s after going down)",
                "app.jsonl:2882",
            ),
            entry(
                "08:01:35",
                TimelineKind::Recovered,
                "Error rate, latency and health back to their baseline",
                "",
            ),
        ],
        attribution: AttributionJson {
            dimension: "tenant".to_string(),
            organic: false,
            grew: true,
            rows: vec![RowJson {
                tenant: Some("acct-4411".to_string()),
                integration: Some("acme-exporter".to_string()),
                requests: 27190,
                baseline_rate_per_s: 0.0059,
                window_rate_per_s: 96.762,
                rate_ratio: 14949.7,
                share_of_requests: 0.86,
                share_of_busy_time: 0.91,
                share_of_errors: 0.9,
            }],
        },
        findings: vec![retry, surge, health, pool, restart],
        inputs: Vec::new(),
        warnings: Vec::new(),
        templates: Vec::new(),
        extra: Extra {
            has_requests: true,
            tenants_active: 370,
            attribution_window_requests: 32212,
            culprit: Some(CulpritFigures {
                tenant: Some("acct-4411".to_string()),
                integration: Some("acme-exporter".to_string()),
                requests: 27190,
                failed: 9200,
                baseline_requests: 10,
                baseline_s: 1854,
                window_s: 281,
                others_requests: 4426,
                others_failed: 1020,
            }),
            ..Extra::default()
        },
    }
}
