//! Rule files beside the formats: what log messages signal
//! (`parsers/signals.json`), which metric names fill which role
//! (`parsers/metric-roles.json`) and how tenants and integrations are found
//! (`parsers/tenants.json`). Data in, compiled matchers out.

use regex::{Regex, RegexSet};
use serde::Deserialize;
use std::collections::BTreeMap;

use crate::event::{InfraKind, MetricRole, Signal};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SignalFile {
    #[serde(rename = "$comment", default)]
    _comment: Option<String>,
    /// Signal -> message regexes (case-insensitive).
    messages: BTreeMap<String, Vec<String>>,
    /// Routes of health/liveness endpoints.
    health_routes: Vec<String>,
    /// User-agent product tokens of health checkers and probes.
    probe_agents: Vec<String>,
    /// Route fragments of connect, reconnect and login endpoints (websocket
    /// upgrades, OAuth callbacks): where a thundering herd lands.
    #[serde(default)]
    reconnect_routes: Vec<String>,
    /// Orchestrator reasons -> what they mean.
    infra_reasons: BTreeMap<String, Vec<String>>,
    /// For events whose reason says nothing: words in the message, tried in order.
    #[serde(default)]
    infra_messages: Vec<InfraMessage>,
    /// Instances named inside an event about their group.
    #[serde(default)]
    infra_members: InfraMembers,
    /// What scaling events say about a fleet's size.
    #[serde(default)]
    scaling: super::scaling::ScalingFile,
    /// What an instance's stated cause of a stop says.
    #[serde(default)]
    stop_causes: super::stop_causes::StopCauses,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct InfraMembers {
    #[serde(rename = "$comment", default)]
    _comment: Option<String>,
    patterns: Vec<String>,
    /// Messages and the members the patterns must find in them (tests).
    #[serde(default)]
    #[cfg_attr(not(test), allow(dead_code))]
    samples: Vec<MemberSample>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(not(test), allow(dead_code))]
struct MemberSample {
    message: String,
    members: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InfraMessage {
    kind: String,
    contains: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MetricRoleFile {
    #[serde(rename = "$comment", default)]
    _comment: Option<String>,
    /// Role -> metric names (exact) from real exporters.
    roles: BTreeMap<String, Vec<String>>,
    /// Labels that name the instance a series is about, most specific first.
    instance_labels: Vec<String>,
    /// Labels whose values are names of one application instance (a pod, an
    /// address, a host): two of them on one series tie those names together.
    #[serde(default)]
    identity_labels: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TenantFile {
    #[serde(rename = "$comment", default)]
    _comment: Option<String>,
    fields: Vec<String>,
    path_segments: Vec<String>,
    api_key_fields: Vec<String>,
    api_key_query_params: Vec<String>,
    /// Fields of a structured access record that hold the query string
    /// apart from the path (`"query": "org=acme"`).
    #[serde(default)]
    query_fields: Vec<String>,
    /// Product tokens that mean "a browser", not an integration.
    browser_tokens: Vec<String>,
}

/// Compiled rules.
#[derive(Debug)]
pub struct Rules {
    /// Every message pattern of every signal in one set, so a message is
    /// scanned once, not once per signal; `signal_of_pattern[i]` is pattern
    /// `i`'s signal and its rank (first listed wins).
    signals: RegexSet,
    signal_of_pattern: Vec<(usize, Signal)>,
    health_routes: rustc_hash::FxHashSet<String>,
    /// The health routes' lengths, one bit each (63: that long or longer).
    health_route_lens: u64,
    probe_agents: Vec<String>,
    pub reconnect_routes: Vec<String>,
    infra_reasons: Vec<(String, InfraKind)>,
    infra_messages: Vec<(InfraKind, Vec<String>)>,
    infra_members: Vec<Regex>,
    metric_roles: BTreeMap<String, MetricRole>,
    /// The same names by [`loose_metric_name`]: one metric is spelt
    /// `rabbitmq_queue_messages_ready` by Prometheus, `rabbitmq.queue.messages_ready`
    /// by Datadog and OpenTelemetry, `DatabaseConnections` by CloudWatch. A loose
    /// name two roles share is left out (ambiguous).
    metric_roles_loose: BTreeMap<String, Option<MetricRole>>,
    pub instance_labels: Vec<String>,
    pub identity_labels: Vec<String>,
    pub tenant_fields: Vec<String>,
    pub tenant_segments: Vec<String>,
    pub api_key_fields: Vec<String>,
    pub api_key_params: Vec<String>,
    /// Fields that hold a request's query string apart from its path.
    pub query_fields: Vec<String>,
    browser_tokens: Vec<String>,
    /// Extra `--tenant-from path:REGEX` rules.
    pub tenant_path_rules: Vec<Regex>,
    pub tenant_field_rules: Vec<String>,
    pub tenant_query_rules: Vec<String>,
    /// Version banners (`parsers/versions.json`).
    pub versions: super::versions::VersionRules,
    /// Instances named by input paths (`parsers/input-names.json`).
    pub input_names: super::input_names::InputNames,
    /// Which way scaling events moved a fleet.
    pub scaling: super::scaling::ScalingRules,
    /// What an instance's stated cause of a stop says.
    pub stop_causes: super::stop_causes::StopCauses,
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("built-in rule file {file} is broken: {message}")]
#[diagnostic(code(postmortem::rules::invalid))]
pub struct RuleError {
    pub file: String,
    pub message: String,
}

fn signal_named(name: &str) -> Option<Signal> {
    Some(match name {
        "pool_exhausted" => Signal::PoolExhausted,
        "startup" => Signal::Startup,
        "shutdown" => Signal::Shutdown,
        "health_check_failed" => Signal::HealthCheckFailed,
        "rate_limited" => Signal::RateLimited,
        "crash" => Signal::Crash,
        "upstream_failed" => Signal::UpstreamFailed,
        "circuit_opened" => Signal::CircuitOpened,
        "circuit_closed" => Signal::CircuitClosed,
        "connection_leak" => Signal::ConnectionLeak,
        _ => return None,
    })
}

fn infra_named(name: &str) -> Option<InfraKind> {
    Some(match name {
        "probe_failed" => InfraKind::ProbeFailed,
        "killing" => InfraKind::Killing,
        "started" => InfraKind::Started,
        "back_off" => InfraKind::BackOff,
        "oom_killed" => InfraKind::OomKilled,
        "deploy" => InfraKind::Deploy,
        "rollback" => InfraKind::Rollback,
        "flag_change" => InfraKind::FlagChange,
        "scaling" => InfraKind::Scaling,
        "operation" => InfraKind::Operation,
        _ => return None,
    })
}

pub fn metric_role_named(name: &str) -> Option<MetricRole> {
    Some(match name {
        "db_connections_in_use" => MetricRole::DbConnectionsInUse,
        "db_connections_max" => MetricRole::DbConnectionsMax,
        "db_connections_waiting" => MetricRole::DbConnectionsWaiting,
        "cpu_utilization" => MetricRole::CpuUtilization,
        "memory_utilization" => MetricRole::MemoryUtilization,
        "queue_depth" => MetricRole::QueueDepth,
        "restarts" => MetricRole::Restarts,
        "requests_rate" => MetricRole::RequestsRate,
        "db_writes_rate" => MetricRole::DbWritesRate,
        "instance_info" => MetricRole::InstanceInfo,
        _ => return None,
    })
}

impl Rules {
    /// Compile the rule files from their text.
    pub fn from_texts(
        signals: &str,
        metric_roles: &str,
        tenants: &str,
        versions: &str,
        input_names: &str,
    ) -> Result<Rules, RuleError> {
        let err = |file: &str, message: String| RuleError {
            file: file.to_string(),
            message,
        };
        let s: SignalFile =
            serde_json::from_str(signals).map_err(|e| err("signals.json", e.to_string()))?;
        let m: MetricRoleFile = serde_json::from_str(metric_roles)
            .map_err(|e| err("metric-roles.json", e.to_string()))?;
        let t: TenantFile =
            serde_json::from_str(tenants).map_err(|e| err("tenants.json", e.to_string()))?;

        let mut all_patterns = Vec::new();
        let mut signal_of_pattern = Vec::new();
        for (rank, (name, patterns)) in s.messages.iter().enumerate() {
            let signal = signal_named(name)
                .ok_or_else(|| err("signals.json", format!("unknown signal `{name}`")))?;
            // Each on its own first, so an error names the bad pattern's signal.
            regex::RegexSetBuilder::new(patterns)
                .case_insensitive(true)
                .build()
                .map_err(|e| err("signals.json", format!("{name}: {e}")))?;
            for p in patterns {
                all_patterns.push(p.clone());
                signal_of_pattern.push((rank, signal));
            }
        }
        let signals = regex::RegexSetBuilder::new(&all_patterns)
            .case_insensitive(true)
            .build()
            .map_err(|e| err("signals.json", e.to_string()))?;
        let mut infra_reasons = Vec::new();
        for (name, reasons) in &s.infra_reasons {
            let kind = infra_named(name)
                .ok_or_else(|| err("signals.json", format!("unknown infra kind `{name}`")))?;
            for r in reasons {
                infra_reasons.push((r.to_ascii_lowercase(), kind));
            }
        }
        let mut infra_messages = Vec::new();
        for m in &s.infra_messages {
            let kind = infra_named(&m.kind)
                .ok_or_else(|| err("signals.json", format!("unknown infra kind `{}`", m.kind)))?;
            infra_messages.push((
                kind,
                m.contains.iter().map(|w| w.to_ascii_lowercase()).collect(),
            ));
        }
        let infra_members = s
            .infra_members
            .patterns
            .iter()
            .map(|p| {
                let r = Regex::new(p).map_err(|e| {
                    err("signals.json", format!("infra_members pattern `{p}`: {e}"))
                })?;
                if r.capture_names().flatten().any(|n| n == "member") {
                    Ok(r)
                } else {
                    Err(err(
                        "signals.json",
                        format!("infra_members pattern `{p}` has no `member` group"),
                    ))
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut metric_roles = BTreeMap::new();
        for (role, names) in &m.roles {
            let role = metric_role_named(role)
                .ok_or_else(|| err("metric-roles.json", format!("unknown metric role `{role}`")))?;
            for n in names {
                metric_roles.insert(n.clone(), role);
            }
        }
        Ok(Rules {
            signals,
            signal_of_pattern,
            health_route_lens: s
                .health_routes
                .iter()
                .fold(0, |m, r| m | (1u64 << r.len().min(63))),
            health_routes: s.health_routes.into_iter().collect(),
            reconnect_routes: s.reconnect_routes,
            probe_agents: s
                .probe_agents
                .iter()
                .map(|a| a.to_ascii_lowercase())
                .collect(),
            infra_reasons,
            infra_messages,
            infra_members,
            metric_roles_loose: loose_roles(&metric_roles),
            metric_roles,
            instance_labels: m.instance_labels,
            identity_labels: m.identity_labels,
            tenant_fields: t.fields,
            tenant_segments: t.path_segments,
            api_key_fields: t.api_key_fields,
            api_key_params: t.api_key_query_params,
            query_fields: t.query_fields,
            browser_tokens: t.browser_tokens,
            tenant_path_rules: Vec::new(),
            tenant_field_rules: Vec::new(),
            tenant_query_rules: Vec::new(),
            versions: super::versions::VersionRules::from_text(versions)?,
            input_names: super::input_names::InputNames::from_text(input_names)?,
            stop_causes: s.stop_causes.lowered(),
            scaling: super::scaling::ScalingRules::compile(&s.scaling)
                .map_err(|e| err("signals.json", e))?,
        })
    }

    /// The signal a log message carries, if any (first listed wins).
    pub fn signal_of(&self, message: &str) -> Option<Signal> {
        // Most messages carry no signal: one scan says so.
        if !self.signals.is_match(message) {
            return None;
        }
        self.signals
            .matches(message)
            .iter()
            .filter_map(|i| self.signal_of_pattern.get(i))
            .min_by_key(|(rank, _)| *rank)
            .map(|(_, s)| *s)
    }

    /// Whether a request is a health probe, by its route or its user agent.
    pub fn is_health_check(&self, route: &str, user_agent: Option<&str>) -> bool {
        // Most routes have no health route's length: no hashing then.
        if self.health_route_lens & (1u64 << route.len().min(63)) != 0
            && self.health_routes.contains(route)
        {
            return true;
        }
        // Case-insensitive prefix compare without lowercasing a copy per request.
        user_agent.is_some_and(|ua| {
            self.probe_agents.iter().any(|p| {
                ua.as_bytes()
                    .get(..p.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(p.as_bytes()))
            })
        })
    }

    pub fn infra_kind(&self, reason: &str, message: &str) -> InfraKind {
        let reason = reason.to_ascii_lowercase();
        // Changes that only the message names (plain deploy logs, exporters).
        let said = || {
            let message = message.to_ascii_lowercase();
            self.infra_messages
                .iter()
                .find(|(_, words)| words.iter().any(|w| message.contains(w.as_str())))
                .map(|(kind, _)| *kind)
        };
        match self.infra_reasons.iter().find(|(r, _)| *r == reason) {
            // A rollback is a deploy of an earlier version: where the
            // reason only says "deployment" (GitHub, CI), the message
            // ("Rollback to 2.4.0: ...") tells which.
            Some((_, InfraKind::Deploy)) if said() == Some(InfraKind::Rollback) => {
                InfraKind::Rollback
            }
            Some((_, kind)) => *kind,
            None => said().unwrap_or(InfraKind::Other),
        }
    }

    /// The instances an event about a group names (`(task ID)` in an ECS
    /// service event), in order; empty when it names none.
    pub fn infra_members(&self, message: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in &self.infra_members {
            for c in r.captures_iter(message) {
                if let Some(m) = c.name("member") {
                    if !out.iter().any(|o| o == m.as_str()) {
                        out.push(m.as_str().to_string());
                    }
                }
            }
        }
        out
    }

    /// A metric's role by its exact name, else by its name with separators
    /// and case made alike (see [`loose_metric_name`]), else by the name's
    /// dotted suffixes (see [`dotted_suffixes`]).
    pub fn metric_role(&self, name: &str) -> Option<MetricRole> {
        self.role_of(name)
            .or_else(|| dotted_suffixes(name).find_map(|s| self.role_of(s)))
    }

    fn role_of(&self, name: &str) -> Option<MetricRole> {
        if let Some(r) = self.metric_roles.get(name) {
            return Some(*r);
        }
        let loose = loose_metric_name(name)?;
        self.metric_roles_loose
            .get(loose.as_str())
            .copied()
            .flatten()
    }

    pub fn add_metric_role(&mut self, name: &str, role: MetricRole) {
        self.metric_roles.insert(name.to_string(), role);
        // The user's word settles its loose form too, ambiguous or not.
        let key = loose_metric_name(name).unwrap_or_else(|| name.to_string());
        self.metric_roles_loose.insert(key, Some(role));
    }

    /// Whether a user-agent product token is a browser rather than an integration.
    pub fn is_browser_token(&self, token: &str) -> bool {
        self.browser_tokens
            .iter()
            .any(|b| b.eq_ignore_ascii_case(token))
    }
}

/// A metric name with its separators and case made alike: lowercase, words
/// joined by `_` (`.`, `-`, `/`, spaces and camel-case humps are word breaks).
/// `None` when the name is already in that form, so an exact lookup has said
/// all there is (most names of an unknown exporter cost no allocation).
pub fn loose_metric_name(name: &str) -> Option<String> {
    let plain = name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if plain {
        return None;
    }
    let mut out = String::with_capacity(name.len() + 4);
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if matches!(c, '.' | '-' | '/' | ' ' | ':') {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
        } else if c.is_ascii_uppercase() {
            if prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
                && !out.ends_with('_')
            {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
        prev = Some(c);
    }
    Some(out)
}

/// The suffixes of a dotted metric path, longest first, each of at least
/// two segments: Graphite and StatsD put the host or the environment in
/// front of the metric (`servers.api-1.hikaricp.connections.active` ->
/// `api-1.hikaricp.connections.active`, `hikaricp.connections.active`,
/// `connections.active`). A single last segment (`active`, `count`) says
/// too little to stand for a metric.
pub fn dotted_suffixes(name: &str) -> impl Iterator<Item = &str> {
    name.match_indices('.')
        .filter_map(move |(i, _)| name.get(i + 1..))
        .filter(|s| s.contains('.'))
}

/// The loose-name map of [`Rules::metric_role`]: each listed name under its
/// loose form (and its own, when already loose); a form two roles share maps to
/// `None`.
fn loose_roles(exact: &BTreeMap<String, MetricRole>) -> BTreeMap<String, Option<MetricRole>> {
    let mut out: BTreeMap<String, Option<MetricRole>> = BTreeMap::new();
    for (name, role) in exact {
        let key = loose_metric_name(name).unwrap_or_else(|| name.clone());
        out.entry(key)
            .and_modify(|r| {
                if *r != Some(*role) {
                    *r = None;
                }
            })
            .or_insert(Some(*role));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Catalogue;

    /// Graphite paths carry a host or an environment before the metric:
    /// the role is found on the path's dotted suffixes, never on its last
    /// segment alone.
    #[test]
    fn a_dotted_path_has_the_role_of_its_metric_suffix() {
        let rules = Catalogue::builtin().expect("catalogue").rules;
        let cases = [
            (
                "servers.api-1.hikaricp.connections.active",
                Some(MetricRole::DbConnectionsInUse),
            ),
            (
                "prod.eu-1.servers.api-1.hikaricp.connections.pending",
                Some(MetricRole::DbConnectionsWaiting),
            ),
            (
                "stats.gauges.rabbitmq.queue.messages_ready",
                Some(MetricRole::QueueDepth),
            ),
            // Influx `measurement_field` of a dotted measurement.
            (
                "servers.api-1.hikaricp.connections_max",
                Some(MetricRole::DbConnectionsMax),
            ),
            ("servers.api-1.cpu.idle", None),
            // `sv_active` is a role's name, but one segment says too little.
            ("servers.db-1.sv_active", None),
            ("active_connections", Some(MetricRole::DbConnectionsInUse)),
            (
                "cloudsql.googleapis.com/database/postgresql/num_backends",
                Some(MetricRole::DbConnectionsInUse),
            ),
            (
                "pubsub.googleapis.com/subscription/num_undelivered_messages",
                Some(MetricRole::QueueDepth),
            ),
        ];
        for (name, want) in cases {
            assert_eq!(rules.metric_role(name), want, "{name}");
        }
        assert_eq!(
            dotted_suffixes("a.b.c.d").collect::<Vec<_>>(),
            vec!["b.c.d", "c.d"]
        );
        assert_eq!(dotted_suffixes("plain_name").count(), 0);
    }

    /// Every `infra_members` sample in signals.json names the members it says.
    #[test]
    fn infra_member_samples_name_their_members() {
        let rules = Catalogue::builtin().expect("catalogue").rules;
        let file: SignalFile =
            serde_json::from_str(include_str!("../../parsers/signals.json")).expect("signals.json");
        assert!(!file.infra_members.samples.is_empty());
        for s in &file.infra_members.samples {
            assert_eq!(rules.infra_members(&s.message), s.members, "{}", s.message);
        }
    }

    /// One metric spelt by Prometheus, Datadog/OpenTelemetry and CloudWatch
    /// has one role; an unknown name has none, whatever its spelling.
    #[test]
    fn a_metric_has_its_role_whatever_its_separators_and_case() {
        let rules = Catalogue::builtin().expect("catalogue").rules;
        let queue = rules.metric_role("rabbitmq_queue_messages_ready");
        assert_eq!(queue, Some(MetricRole::QueueDepth));
        for n in [
            "rabbitmq.queue.messages_ready",
            "rabbitmq-queue-messages-ready",
        ] {
            assert_eq!(rules.metric_role(n), queue, "{n}");
        }
        assert_eq!(
            rules.metric_role("aws.rds.database_connections"),
            rules.metric_role("DatabaseConnections")
        );
        assert_eq!(
            rules.metric_role("hikaricp.connections.active"),
            Some(MetricRole::DbConnectionsInUse)
        );
        // Rails' pool as the prometheus_exporter gem names it.
        for (n, role) in [
            (
                "ruby_active_record_connection_pool_busy",
                MetricRole::DbConnectionsInUse,
            ),
            (
                "ruby_active_record_connection_pool_size",
                MetricRole::DbConnectionsMax,
            ),
            (
                "ruby_active_record_connection_pool_waiting",
                MetricRole::DbConnectionsWaiting,
            ),
        ] {
            assert_eq!(rules.metric_role(n), Some(role), "{n}");
        }
        assert_eq!(rules.metric_role("my.app.widgets_sold"), None);
        assert_eq!(loose_metric_name("already_plain_1"), None);
        assert_eq!(
            loose_metric_name("ApproximateNumberOfMessagesVisible").as_deref(),
            Some("approximate_number_of_messages_visible")
        );
    }

    /// What the messages of the log formats signal (messages written for
    /// this test, in the shapes each source uses).
    #[test]
    fn log_messages_signal() {
        let rules = Catalogue::builtin().expect("catalogue").rules;
        let cases = [
            (
                "hikari stack frame",
                "    at com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:696)",
                Some(Signal::PoolExhausted),
            ),
            (
                "mysql error code only",
                "pymysql.err.OperationalError: (1040, 'conn')",
                Some(Signal::PoolExhausted),
            ),
            (
                "php mysqli",
                "mysqli_connect(): (HY000/1040): Too many connections",
                Some(Signal::PoolExhausted),
            ),
            (
                "pgbouncer wait timeout",
                "pooler error: query_wait_timeout",
                Some(Signal::PoolExhausted),
            ),
            (
                "pgbouncer pool full",
                "launch_new_connection: pool full (20 >= 20)",
                Some(Signal::PoolExhausted),
            ),
            (
                "postgres role limit",
                "too many connections for role \"api\"",
                Some(Signal::PoolExhausted),
            ),
            // A pool's stats line says it is exhausted only when threads
            // wait for a connection; with none waiting it says all is well.
            (
                "hikari stats, nobody waiting",
                "HikariPool-1 - Pool stats (total=10, active=2, idle=8, waiting=0)",
                None,
            ),
            (
                "hikari stats, threads waiting",
                "HikariPool-1 - Pool stats (total=10, active=10, idle=0, waiting=37)",
                Some(Signal::PoolExhausted),
            ),
            // Connections added are in the pool's family: the correlator
            // counts them against their usual rate, not one by one.
            (
                "hikari connection added",
                "HikariPool-1 - Added connection org.postgresql.jdbc.PgConnection@1b2c3d",
                Some(Signal::PoolExhausted),
            ),
            ("a pool mentioned in passing", "connection pool warmed up", None),
            (
                "nginx upstream timeout",
                "upstream timed out (110: Connection timed out) while reading response header from upstream",
                Some(Signal::UpstreamFailed),
            ),
            (
                "nginx no live upstreams",
                "no live upstreams while connecting to upstream",
                Some(Signal::UpstreamFailed),
            ),
            (
                "heroku request timeout",
                "at=error code=H12 desc=\"Request timeout\" method=GET path=\"/\"",
                Some(Signal::UpstreamFailed),
            ),
            (
                "nginx rate limit",
                "limiting requests, excess: 20.500 by zone \"per_key\"",
                Some(Signal::RateLimited),
            ),
            (
                "an upstream's 429",
                "call to api.hubspot.com returned HTTP 429, backing off",
                Some(Signal::RateLimited),
            ),
            (
                "an SDK's status code",
                "Request failed with status code 429",
                Some(Signal::RateLimited),
            ),
            (
                "a JSON status",
                "{\"msg\":\"crm call failed\",\"status\": 429}",
                Some(Signal::RateLimited),
            ),
            // A bare 429 is no status: a tenant's slug in a failed
            // request's path made slow-integration draw 895301 an upstream
            // rate limit; so would an id or a timestamp's milliseconds.
            (
                "a slug ending in 429",
                "GET /api/workspaces/soylent-group-429/alerts 500 15032ms",
                None,
            ),
            (
                "milliseconds 429",
                "2015-08-25 04:21:15,429 - WARN cannot open channel",
                None,
            ),
            (
                "heroku memory",
                "Error R15 (Memory quota vastly exceeded)",
                Some(Signal::Crash),
            ),
            (
                "heroku crashed",
                "State changed from up to crashed",
                Some(Signal::Crash),
            ),
            (
                "heroku up",
                "State changed from starting to up",
                Some(Signal::Startup),
            ),
            (
                "systemd killed",
                "api.service: Main process exited, code=killed, status=9/KILL",
                Some(Signal::Crash),
            ),
            (
                "systemd clean exit",
                "api.service: Main process exited, code=exited, status=0/SUCCESS",
                None,
            ),
            (
                "postgres backend killed",
                "server process (PID 4411) was terminated by signal 9: Killed",
                Some(Signal::Crash),
            ),
            (
                "postgres shutdown",
                "received smart shutdown request",
                Some(Signal::Shutdown),
            ),
            (
                "readiness probe failing",
                "Readiness probe failing",
                Some(Signal::HealthCheckFailed),
            ),
            (
                "pgx acquire timeout",
                "failed to acquire connection from pool: context deadline exceeded",
                Some(Signal::PoolExhausted),
            ),
            (
                "sqlx pool timeout",
                "pool timed out while waiting for an open connection",
                Some(Signal::PoolExhausted),
            ),
            (
                "deadpool timeout",
                "Timeout occurred while waiting for a slot to become available",
                Some(Signal::PoolExhausted),
            ),
            (
                "c3p0 checkout timeout",
                "An attempt by a client to checkout a Connection has timed out.",
                Some(Signal::PoolExhausted),
            ),
            (
                "sequelize acquire timeout",
                "SequelizeConnectionAcquireTimeoutError: Operation timeout",
                Some(Signal::PoolExhausted),
            ),
            (
                "resilience4j opens",
                "CircuitBreaker 'db' changed state from CLOSED to OPEN",
                Some(Signal::CircuitOpened),
            ),
            (
                "resilience4j refuses a call",
                "io.github.resilience4j.circuitbreaker.CallNotPermittedException: CircuitBreaker 'inventory' is OPEN and does not permit further calls",
                Some(Signal::CircuitOpened),
            ),
            (
                "resilience4j half-opens",
                "CircuitBreaker 'db' changed state from OPEN to HALF_OPEN",
                None,
            ),
            (
                "resilience4j closes",
                "CircuitBreaker 'db' changed state from HALF_OPEN to CLOSED",
                Some(Signal::CircuitClosed),
            ),
            (
                "pybreaker opens",
                "Circuit breaker 'payments' state changed from closed to open",
                Some(Signal::CircuitOpened),
            ),
            (
                "semian opens",
                "[Semian::CircuitBreaker] State transition from closed to open. resource=mysql_primary",
                Some(Signal::CircuitOpened),
            ),
            (
                "gobreaker half-opens",
                "circuit breaker orders-db: state changed from open to half-open",
                None,
            ),
            (
                "opossum opened, half-opened",
                "circuit breaker 'db' opened",
                Some(Signal::CircuitOpened),
            ),
            (
                "opossum half-opened",
                "circuit breaker 'db' half-opened",
                None,
            ),
            (
                "opossum closed",
                "circuit breaker 'db' closed",
                Some(Signal::CircuitClosed),
            ),
            (
                "gobreaker closes",
                "circuit breaker orders-db: state changed from half-open to closed",
                Some(Signal::CircuitClosed),
            ),
            (
                "polly",
                "The circuit is now open and is not allowing calls.",
                Some(Signal::CircuitOpened),
            ),
            (
                "hystrix",
                "com.netflix.hystrix.exception.HystrixRuntimeException: getUser short-circuited and is open",
                Some(Signal::CircuitOpened),
            ),
            (
                "hikaricp's leak detection",
                "Connection leak detection triggered for org.postgresql.jdbc.PgConnection@5c1b2f41 on thread http-nio-8080-exec-7, stack trace follows",
                Some(Signal::ConnectionLeak),
            ),
            (
                "hikaricp's leaked connection returned is no leak",
                "Previously reported leaked connection org.postgresql.jdbc.PgConnection@5c1b2f41 on thread http-nio-8080-exec-7 was returned to the pool (unleaked)",
                None,
            ),
            (
                "agroal (quarkus)",
                "Datasource '<default>': Connection leak of io.agroal.pool.wrapper.ConnectionWrapper@6f1b8a2c",
                Some(Signal::ConnectionLeak),
            ),
            (
                "tomcat jdbc pool",
                "Connection has been abandoned PooledConnection[org.postgresql.jdbc.PgConnection@1b2c3d4e]:java.lang.Exception",
                Some(Signal::ConnectionLeak),
            ),
            (
                "commons dbcp2",
                "Pooled object created 2026-03-14 18:17:02 +0000 by the following code has not been returned to the pool:",
                Some(Signal::ConnectionLeak),
            ),
            (
                "c3p0",
                "A checked-out resource is overdue, and will be destroyed: com.mchange.v2.c3p0.impl.NewPooledConnection@3f2a1b0c",
                Some(Signal::ConnectionLeak),
            ),
            (
                "sqlalchemy",
                "The garbage collector is trying to clean up non-checked-in connection <AdaptedConnection <asyncpg.connection.Connection object at 0x7f3a>>, which will be dropped, as it cannot be safely terminated. Please ensure that SQLAlchemy pooled connections are returned to the pool explicitly",
                Some(Signal::ConnectionLeak),
            ),
            (
                "ironjacamar",
                "IJ000100: Closing a connection for you. Please close them yourself: org.jboss.jca.adapters.jdbc.jdk8.WrappedConnectionJDK8@2a3b4c5d",
                Some(Signal::ConnectionLeak),
            ),
            (
                "a websocket opening is no breaker",
                "WebSocket state changed from CONNECTING to OPEN",
                None,
            ),
        ];
        for (name, message, want) in cases {
            assert_eq!(rules.signal_of(message), want, "{name}");
        }
    }
}

#[cfg(test)]
mod infra_message_tests {
    use crate::event::InfraKind;
    use crate::formats::Catalogue;

    #[test]
    fn a_change_named_only_in_the_message_is_read_from_the_data_words() {
        let cat = Catalogue::builtin().expect("catalogue");
        let r = &cat.rules;
        assert_eq!(
            r.infra_kind("", "Rolled back api to v2.4.0 after deploy"),
            InfraKind::Rollback
        );
        assert_eq!(
            r.infra_kind("Notice", "deploying api v2.4.1"),
            InfraKind::Deploy
        );
        assert_eq!(r.infra_kind("", "node pressure relieved"), InfraKind::Other);
        // A deploy whose message says it rolls back is a rollback; one that
        // does not stays a deploy, whatever else it says.
        assert_eq!(
            r.infra_kind(
                "github deployment",
                "deploy of v1.2 (83fe036) by priya.n: Rollback to 1.2: pool exhaustion after 1.3"
            ),
            InfraKind::Rollback
        );
        assert_eq!(
            r.infra_kind("github deployment", "deploy of v1.3 by ci: Deploy 1.3"),
            InfraKind::Deploy
        );
        assert_eq!(
            r.infra_kind("ScalingReplicaSet", "Scaled up replica set api-7f to 4"),
            r.infra_kind(
                "ScalingReplicaSet",
                "Scaled up replica set api-7f to 4 after rollback"
            )
        );
    }
}
