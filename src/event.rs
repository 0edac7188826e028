//! Normalised events: the wire format between `parse` and `aggregate`.
//!
//! Whatever a source called its fields, after parsing everything is one of four
//! things: a [`Request`] served by the API tier, a [`LogRecord`] from an
//! application, a [`MetricSample`] of a named series, or an [`InfraEvent`] from
//! the orchestrator. Every event carries its [`Origin`] (input and line) so a
//! figure in the report can name where it came from.
//!
//! Times are UTC milliseconds since the Unix epoch ([`Millis`]).
//!
//! Requests and log records borrow their text from the line they were read
//! from (`Cow`): the sink that folds them into aggregates copies a value only
//! the first time it sees it, so the per-line path allocates nothing. A sink
//! that keeps events calls [`Event::into_owned`].

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// UTC milliseconds since the Unix epoch.
pub type Millis = i64;

/// Where an event was read: the input's index in the run and its 1-based line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Origin {
    pub input: u32,
    pub line: u64,
}

/// One normalised event.
#[derive(Clone, Debug, PartialEq)]
pub enum Event<'a> {
    Request(Request<'a>),
    Log(LogRecord<'a>),
    Metric(MetricSample),
    Infra(InfraEvent),
}

impl Event<'_> {
    /// Where the event was read.
    pub fn origin_mut(&mut self) -> &mut Origin {
        match self {
            Event::Request(r) => &mut r.origin,
            Event::Log(l) => &mut l.origin,
            Event::Metric(m) => &mut m.origin,
            Event::Infra(i) => &mut i.origin,
        }
    }

    pub fn ts(&self) -> Millis {
        match self {
            Event::Request(r) => r.ts,
            Event::Log(l) => l.ts,
            Event::Metric(m) => m.ts,
            Event::Infra(i) => i.ts,
        }
    }

    /// The event with its text copied out of the line it borrows from.
    pub fn into_owned(self) -> Event<'static> {
        match self {
            Event::Request(r) => Event::Request(r.into_owned()),
            Event::Log(l) => Event::Log(l.into_owned()),
            Event::Metric(m) => Event::Metric(m),
            Event::Infra(i) => Event::Infra(i),
        }
    }
}

fn owned(v: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(v.into_owned())
}

/// What a request was for, as far as load and health are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum RequestKind {
    /// Traffic from users and integrations.
    #[default]
    Api,
    /// A liveness/readiness/load-balancer health probe.
    HealthCheck,
}

/// One HTTP request as an access log saw it. `ts` is when it started: formats
/// that log the completion time have the duration subtracted at parse time.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Request<'a> {
    pub ts: Millis,
    /// When it completed (`ts` plus the duration, or `ts` when unknown):
    /// failures and successes count when they happened, arrivals when they arrived.
    pub end_ts: Millis,
    pub origin: Origin,
    pub duration_ms: Option<f64>,
    pub method: Option<Cow<'a, str>>,
    /// The path with ids folded into placeholders and the query dropped.
    pub route: Cow<'a, str>,
    /// A hash of the raw path and query: tells repeats apart without keeping
    /// (or ever showing) the raw text, which may hold secrets.
    pub path_hash: u64,
    pub status: Option<u16>,
    pub bytes: Option<u64>,
    pub tenant: Option<Cow<'a, str>>,
    /// Already redacted: a product token or a short hash of a key.
    pub integration: Option<Cow<'a, str>>,
    pub instance: Option<Cow<'a, str>>,
    pub kind: RequestKind,
    /// A hash of the request id the source wrote (`$request_id`, an
    /// `X-Request-ID`): a request that two inputs record counts once.
    pub request_id: Option<u64>,
    /// Read from an application log's request lines (a structlog or bunyan
    /// "GET /x 200 12ms" record), not from an access log: the application's
    /// second view of requests the access logs also hold, when they exist.
    pub from_log: bool,
}

impl Request<'_> {
    pub fn into_owned(self) -> Request<'static> {
        Request {
            method: self.method.map(owned),
            route: owned(self.route),
            tenant: self.tenant.map(owned),
            integration: self.integration.map(owned),
            instance: self.instance.map(owned),
            ts: self.ts,
            end_ts: self.end_ts,
            origin: self.origin,
            duration_ms: self.duration_ms,
            path_hash: self.path_hash,
            status: self.status,
            bytes: self.bytes,
            kind: self.kind,
            from_log: self.from_log,
            request_id: self.request_id,
        }
    }

    /// A failure the user saw: a 5xx, a 408 the server timed out on, or a
    /// 499 whose client waited [`GAVE_UP_MS`] or more and gave up (its
    /// timeout: in a queue, as many requests end so as in a 5xx). A 499
    /// within a second is someone leaving the page, which happens on any
    /// day; one without a duration is counted.
    pub fn failed(&self) -> bool {
        match self.status {
            Some(499) => self.duration_ms.is_none_or(|d| d >= GAVE_UP_MS),
            Some(s) => s >= 500 || s == 408,
            None => false,
        }
    }
}

/// How long a client must have waited before closing for its 499 to be a
/// failure (see [`Request::failed`]).
pub const GAVE_UP_MS: f64 = 1000.0;

/// Severity of a log record, normalised across loggers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Trace,
    Debug,
    #[default]
    Info,
    Warn,
    Error,
    Fatal,
}

/// What a log line says about the system, recognised from the message text by
/// the signal catalogue in `parsers/signals.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Signal {
    PoolExhausted,
    Startup,
    Shutdown,
    HealthCheckFailed,
    RateLimited,
    Crash,
    /// A proxy got no answer from a backend: timed out, refused, none alive.
    UpstreamFailed,
    /// A circuit breaker opened (or refused a call while open).
    CircuitOpened,
    /// A circuit breaker closed again.
    CircuitClosed,
    /// A pool reports a connection held past its leak threshold (or
    /// abandoned, or collected without being returned).
    ConnectionLeak,
}

/// The version a start-up line names (`Starting orders-api v4.18.3`), by
/// the banner rules in `parsers/versions.json`. A banner is a start-up, not
/// a change: `correlate` infers a change when an instance starts with a
/// version other than the one it ran before.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct VersionBanner {
    /// The service the banner names, when it names one.
    pub service: Option<String>,
    /// Without a leading `v`.
    pub version: String,
}

/// One application log record.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct LogRecord<'a> {
    pub ts: Millis,
    pub origin: Origin,
    pub level: Level,
    pub message: Cow<'a, str>,
    pub instance: Option<Cow<'a, str>>,
    pub tenant: Option<Cow<'a, str>>,
    pub signal: Option<Signal>,
    /// Set on a version banner.
    pub version: Option<VersionBanner>,
}

impl LogRecord<'_> {
    pub fn into_owned(self) -> LogRecord<'static> {
        LogRecord {
            message: owned(self.message),
            instance: self.instance.map(owned),
            tenant: self.tenant.map(owned),
            ts: self.ts,
            origin: self.origin,
            level: self.level,
            signal: self.signal,
            version: self.version,
        }
    }
}

/// What a metric measures, whatever the exporter named it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricRole {
    DbConnectionsInUse,
    DbConnectionsMax,
    DbConnectionsWaiting,
    CpuUtilization,
    MemoryUtilization,
    QueueDepth,
    Restarts,
    RequestsRate,
    DbWritesRate,
    /// An info series (its value is 1) whose labels name one instance in
    /// several ways (`node_uname_info`: its `nodename` and the exporter's
    /// `instance`): read only to tie names into instances.
    InstanceInfo,
}

/// One sample of one series.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricSample {
    pub ts: Millis,
    pub origin: Origin,
    pub name: String,
    pub role: Option<MetricRole>,
    pub value: f64,
    pub instance: Option<String>,
    /// The series identity: name plus its labels, sorted.
    pub series: String,
    /// The time is the start of the period the value sums up, not the
    /// instant it was read.
    pub period_start: bool,
}

/// What an orchestrator event means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InfraKind {
    ProbeFailed,
    Killing,
    Started,
    BackOff,
    OomKilled,
    Deploy,
    Rollback,
    /// A feature flag turned on or off, or its targeting changed: a change
    /// like a deploy, without one.
    FlagChange,
    Scaling,
    /// What an operator did that a change log records besides deploys,
    /// rollbacks, flags and scaling: a configuration change, a rate limit,
    /// a manual restart. A responder's action, not a candidate cause for
    /// the detectors (a restart or a rate limit is how an incident is
    /// handled); the timeline and the report's "what ended it" show it.
    Operation,
    Other,
}

impl InfraKind {
    /// Whether the event is a change someone made (deploy, rollback, flag).
    pub fn is_change(self) -> bool {
        matches!(
            self,
            InfraKind::Deploy | InfraKind::Rollback | InfraKind::FlagChange
        )
    }
}

/// One orchestrator event (a Kubernetes Event, a deploy line, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct InfraEvent {
    /// When it was (last) seen.
    pub ts: Millis,
    /// When it was first seen: a repeated event (a probe failing every 10 s)
    /// is one object with a count.
    pub first_ts: Millis,
    pub origin: Origin,
    pub kind: InfraKind,
    /// The object it is about: a pod, a deployment, a host.
    pub object: String,
    pub reason: String,
    pub message: String,
    pub count: u32,
    /// The instances an event about a group names (the tasks of an ECS
    /// service event): the event is about each of them, not about the
    /// group. Empty when the object is itself the instance.
    pub members: Vec<String>,
    /// The machine the event's reporter ran on (a kubelet's node, the
    /// definition's `instance` field): a pod's event names both.
    pub host: Option<String>,
}

/// Where parsed events go. Parsing may run on several threads: `fork`
/// makes an empty sink for a worker and `join` folds a worker's sink back
/// in, so a sink must merge by sums, minima and maxima for the result not to
/// depend on how the input was split.
pub trait EventSink: Send + Sized {
    fn push(&mut self, event: Event<'_>);
    fn fork(&self) -> Self;
    fn join(&mut self, other: Self);
    /// Input `input` is about to be read; `instance` is the one its path
    /// names (a kubelet log file per pod), for records that name none.
    /// `instance` and `host`: what the input's path names (see
    /// `formats::input_names`).
    fn begin_input(&mut self, _input: u32, _instance: Option<&str>, _host: Option<&str>) {}
    /// The metric the input's file is named for, with its role: a wide
    /// table's columns that name no metric are that metric's instances.
    fn input_metric(&mut self, _input: u32, _metric: &str, _role: MetricRole) {}
    /// An input has been read whole (its workers joined).
    fn end_input(&mut self) {}
    /// A record's envelope names its writer `envelope` (a CloudWatch log
    /// stream, a container) and its own line names it `line` (a host
    /// field): two names of the one process that wrote it.
    fn one_writer(&mut self, _envelope: &str, _line: &str) {}
}

/// A sink that keeps nothing (`formats check`).
#[derive(Debug, Default, Clone, Copy)]
pub struct Discard;

impl EventSink for Discard {
    fn push(&mut self, _event: Event<'_>) {}
    fn fork(&self) -> Self {
        Discard
    }
    fn join(&mut self, _other: Self) {}
}

/// Keeps every event: for tests and small inputs. With several threads the
/// order of events from different chunks is not the input's order.
impl EventSink for Vec<Event<'static>> {
    fn push(&mut self, event: Event<'_>) {
        Vec::push(self, event.into_owned());
    }
    fn fork(&self) -> Self {
        Vec::new()
    }
    fn join(&mut self, other: Self) {
        self.extend(other);
    }
}

/// How an integration keyed by an API key is named: `python-requests (key
/// hash 4e0914d0)`, or `key hash 4e0914d0` when no program is known.
pub const KEY_HASH: &str = "key hash ";

/// The program an integration's name is of (`python-requests` for
/// `python-requests (key hash 4e0914d0)` and for `python-requests`); none
/// for a key with no program.
pub fn integration_program(name: &str) -> Option<&str> {
    let program = name.split(" (").next().unwrap_or(name);
    (!program.is_empty() && !program.starts_with(KEY_HASH)).then_some(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client that waited and gave up saw the request fail; one that left
    /// within a second did not wait for it.
    #[test]
    fn a_499_is_a_failure_when_the_client_waited() {
        let r = |status, duration_ms| Request {
            status: Some(status),
            duration_ms,
            ..Request::default()
        };
        assert!(r(499, Some(30_000.0)).failed());
        assert!(r(499, None).failed());
        assert!(!r(499, Some(120.0)).failed());
        assert!(r(503, Some(1.0)).failed());
        assert!(r(408, None).failed());
        assert!(!r(404, Some(5_000.0)).failed());
    }
}
