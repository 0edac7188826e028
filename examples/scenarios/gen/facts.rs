//! The simulated world: what happened, before any log format is chosen.
//!
//! The simulation (`sim`, `scenarios`) fills a [`World`]; the writers (`emit`) turn it into
//! files in the formats real software writes; `truth` measures the ground truth from it.
//! Nothing here knows about formats, and nothing here knows about `postmortem`'s detectors.
//!
//! All instants are epoch milliseconds, UTC ([`Ms`]). Every list is sorted by time.

/// Epoch milliseconds, UTC.
pub type Ms = i64;

/// Everything the simulated service did over the exported span.
#[derive(Clone, Debug, Default)]
pub struct World {
    /// The exported span: every source covers (about) this, give or take its own skew.
    pub start: Ms,
    pub end: Ms,
    /// The service's name (`api`, `jobs`, `search`), its deployment and namespace.
    pub service: String,
    pub deployment: String,
    pub namespace: String,
    /// The public host name clients call (`api.example.com`).
    pub host: String,
    /// Every instance (process slot) that existed during the span, old and new versions.
    pub instances: Vec<Instance>,
    pub tenants: Vec<Tenant>,
    /// Every HTTP request the load balancer saw, health checks included, sorted by `start`.
    pub requests: Vec<Request>,
    /// Application log lines, sorted by `ts`.
    pub logs: Vec<AppLog>,
    /// Metric series (one per role and instance or pool), each sorted by time.
    pub series: Vec<Series>,
    /// What the orchestrator recorded (probe failures, kills, starts, scaling), sorted by `ts`.
    pub events: Vec<InfraEvent>,
    /// Changes made by people or pipelines (deploys, rollbacks, flag flips, scale-outs,
    /// manual restarts, rate limits), sorted by `ts`. The orchestrator's own view of a rollout
    /// is in `events` too (ScalingReplicaSet ...).
    pub changes: Vec<Change>,
}

/// One instance of the service: a pod, an ECS task, a VM process. Restarts in place keep the
/// same instance (same pod name and address); a deploy or scale-out adds new instances.
#[derive(Clone, Debug, Default)]
pub struct Instance {
    /// `api-7c9d8b6f5-k2xqp`
    pub pod: String,
    /// The ReplicaSet / pod-template hash part (`api-7c9d8b6f5`), which changes with a deploy.
    pub replica_set: String,
    /// `10.42.1.11`
    pub ip: String,
    pub port: u16,
    /// The node or VM it runs on (`ip-10-0-1-21.ec2.internal`, `web-3`).
    pub host: String,
    /// ECS task id (32 hex), for writers that name tasks.
    pub task_id: String,
    /// The application version it runs (`4.18.2`).
    pub version: String,
    /// Container image (`registry.example.com/api:4.18.2`).
    pub image: String,
    /// Process lifetimes: (started, ended); `ended == None` when it runs to the end of the
    /// span. A restart in place is a new lifetime of the same instance.
    pub lives: Vec<Life>,
    /// Spans during which the load balancer routed traffic to it (ready).
    pub routed: Vec<(Ms, Ms)>,
}

/// One process lifetime.
#[derive(Clone, Debug, Default)]
pub struct Life {
    pub started: Ms,
    /// When the process ended (killed, crashed, stopped); `None`: alive at the end.
    pub ended: Option<Ms>,
    pub end_cause: Option<EndCause>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndCause {
    /// Killed by the orchestrator after failing its liveness probe.
    LivenessKill,
    /// Killed by the kernel / runtime for memory (OOMKilled).
    OomKill,
    /// Crashed on its own (panic, fatal error).
    Crash,
    /// Stopped on purpose: deploy, scale-in, manual restart.
    Stopped,
}

/// A customer account and the client it calls from.
#[derive(Clone, Debug, Default)]
pub struct Tenant {
    /// The id as it appears in the data: `acct-4411`, `58213`, a UUID, `acme-corp`.
    pub id: String,
    /// The client's product token (`acme-exporter`), the part before `/` in its user agent.
    pub integration: String,
    /// The whole user agent (`acme-exporter/2.3.1 (+https://acme.example)`, a browser UA, ...).
    pub user_agent: String,
    /// An API key it sends (a secret: it must never reach a report), when it uses one.
    pub api_key: Option<String>,
}

/// What a request was, beyond its route.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ReqKind {
    /// A user's or integration's API call.
    #[default]
    Api,
    /// A load balancer or orchestrator health check that shows in the access log.
    HealthCheck,
    /// A websocket upgrade (status 101 when accepted).
    Websocket,
    /// A login / OAuth step.
    Login,
}

/// One request as the load balancer saw it.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// When the load balancer received it.
    pub start: Ms,
    /// Total time at the load balancer until the response was sent (or the client gave up).
    pub duration_ms: u32,
    /// The upstream's share of it (connect + wait for response) when an upstream was tried.
    pub upstream_ms: Option<u32>,
    /// The instance that served it; `None` when the load balancer answered by itself
    /// (no healthy upstream, its own queue full, a rate limit at the edge).
    pub instance: Option<usize>,
    pub method: String,
    /// The raw path, ids and all, without the query string.
    pub path: String,
    /// The query string without `?`, or empty.
    pub query: String,
    pub status: u16,
    /// Response body bytes.
    pub bytes: u64,
    pub request_bytes: u64,
    /// The tenant (index into `World::tenants`), when the request belongs to one.
    pub tenant: Option<usize>,
    pub client_ip: String,
    /// Client source port.
    pub client_port: u16,
    pub user_agent: String,
    pub referer: Option<String>,
    pub request_id: String,
    pub kind: ReqKind,
    /// The reason the request failed, when it did (for writers with a reason field, e.g.
    /// Envoy response flags, HAProxy termination state, Heroku error codes).
    pub failure: Option<Failure>,
    /// True when this request is a client's re-send of one that failed (ground truth only).
    pub retry: bool,
}

/// Why a request failed, as the simulation knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The app answered 500/503 after waiting for a pool connection for its acquire timeout.
    PoolTimeout,
    /// The load balancer gave up waiting for the upstream (504).
    UpstreamTimeout,
    /// The upstream closed or refused the connection (502): killed, crashing, restarting.
    UpstreamReset,
    /// No healthy upstream / the load balancer's own queue or connection limit (503).
    NoUpstream,
    /// The application threw (500) for a reason of its own (a bug, a bad version).
    AppError,
    /// A dependency of the application timed out (500/504 from the app).
    DependencyTimeout,
    /// Rejected by a rate limit (429).
    RateLimited,
    /// The client gave up before an answer (nginx 499).
    ClientClosed,
    /// The application's circuit breaker is open: answered 503 at once.
    CircuitOpen,
    /// A third party the request needed rejected the call (its rate limit): the app answered
    /// 502/500.
    UpstreamRejected,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Level {
    Debug,
    #[default]
    Info,
    Warn,
    Error,
    Fatal,
}

/// What an application log line is about (ground truth for tests; writers only print `msg`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LogTopic {
    #[default]
    Routine,
    /// The pool's own complaint: a connection-acquire timeout, a "pool full" warning.
    PoolTimeout,
    /// The pool's periodic state line (HikariCP `Pool stats (...)`, etc.).
    PoolStats,
    Startup,
    /// Start-up line that names the version (`Starting api v4.18.3`).
    VersionBanner,
    Shutdown,
    Crash,
    /// An exception from the app's own code (a bug).
    AppError,
    /// A request the app logs about (an error line naming method/path/status).
    RequestError,
    /// A dependency timed out or failed.
    DependencyError,
    /// An upstream (a third party) rate-limited us.
    UpstreamRateLimited,
    /// Queue / backlog messages (jobs enqueued, lag).
    Backlog,
    /// Health endpoint complaints.
    HealthCheck,
    /// A pool's leak detector (a connection not returned).
    ConnectionLeak,
    /// A circuit breaker opening, half-opening or closing.
    CircuitBreaker,
    /// Out of memory, GC overhead.
    Memory,
}

/// One application log line, before formatting.
#[derive(Clone, Debug, Default)]
pub struct AppLog {
    pub ts: Ms,
    pub instance: usize,
    pub level: Level,
    /// Logger or component (`com.zaxxer.hikari.pool.HikariPool`, `sqlalchemy.pool`, `app.web`).
    pub logger: String,
    /// Thread or task name (`http-nio-8080-exec-7`), when the runtime has one.
    pub thread: String,
    pub pid: u32,
    /// The message as the library prints it (realistic wording: HikariCP, SQLAlchemy, ...).
    pub msg: String,
    /// Structured context (`request_id`, `tenant_id`, `method`, `path`, `status`, `duration_ms`,
    /// `pool`, ...), in the order a structured logger would print them.
    pub kv: Vec<(String, String)>,
    /// A stack trace (several lines) for exceptions.
    pub stack: Option<String>,
    pub topic: LogTopic,
}

/// What a metric series measures. Writers choose the real metric name (hikaricp_..., pgbouncer_...,
/// CloudWatch ..., Datadog ...) for the role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MetricRole {
    /// Pool connections in use (per instance).
    PoolActive,
    PoolIdle,
    /// The pool's configured maximum.
    PoolMax,
    /// Threads/requests waiting for a pool connection.
    PoolPending,
    /// CPU utilisation, 0..1 of the instance's limit.
    Cpu,
    /// Memory utilisation, 0..1 of the limit.
    Memory,
    /// Jobs waiting in a queue (a service-wide series, `instance: None`).
    QueueDepth,
    /// Container restarts, a counter (kube-state-metrics style).
    Restarts,
    /// Requests per second served.
    RequestsRate,
    /// Server-side database connections (all clients), a service-wide series.
    DbConnections,
    /// Jobs processed per second (a service-wide series).
    JobsProcessed,
}

/// One metric series as a monitoring system scraped it.
#[derive(Clone, Debug)]
pub struct Series {
    pub role: MetricRole,
    /// The instance it was scraped from; `None` for service-wide series.
    pub instance: Option<usize>,
    /// The pool's name where the role is a pool's (`HikariPool-1`, `main`).
    pub pool: Option<String>,
    /// Scrape interval.
    pub step_ms: Ms,
    /// (time, value); no point while the instance was down (missing, not zero).
    pub points: Vec<(Ms, f64)>,
}

/// What the orchestrator recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InfraKind {
    LivenessFailed,
    ReadinessFailed,
    /// The kubelet kills a container (after liveness failures, or for a deploy/scale-in).
    Killing,
    OomKilled,
    /// Back-off restarting a failed container (CrashLoopBackOff).
    BackOff,
    Scheduled,
    Pulling,
    Pulled,
    Created,
    Started,
    /// A ReplicaSet scaled (a deploy step, a scale-out or scale-in): `from` -> `to` replicas.
    ScalingReplicaSet,
    /// The service's autoscaler hit its ceiling, or changed its target.
    Autoscaled,
    /// The load balancer marked a target unhealthy / healthy.
    TargetUnhealthy,
    TargetHealthy,
}

/// One orchestrator event, possibly the aggregate of several (`count` over `first_ts..ts`).
#[derive(Clone, Debug)]
pub struct InfraEvent {
    pub ts: Ms,
    /// First occurrence when `count > 1` (Kubernetes aggregates repeats).
    pub first_ts: Ms,
    pub count: u32,
    /// The instance it is about; `None` for the deployment / ReplicaSet / service.
    pub instance: Option<usize>,
    pub kind: InfraKind,
    /// For ScalingReplicaSet: the ReplicaSet and the replica counts.
    pub replica_set: Option<String>,
    pub from_replicas: Option<u32>,
    pub to_replicas: Option<u32>,
    /// The message as the orchestrator words it (`Liveness probe failed: Get "http://10.42.1.11:8080/health": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`).
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    Deploy,
    Rollback,
    /// A feature flag turned on / changed (targeting, rollout %).
    FlagChange,
    /// The same flag turned back.
    FlagRevert,
    ScaleOut,
    ScaleIn,
    /// A responder restarted instances by hand.
    ManualRestart,
    /// A responder rate-limited / blocked a client.
    RateLimit,
    /// A configuration change (not a deploy).
    Config,
}

/// A change made by a person or a pipeline.
#[derive(Clone, Debug)]
pub struct Change {
    pub ts: Ms,
    pub kind: ChangeKind,
    pub service: String,
    /// The version deployed (Deploy, Rollback), or the flag's new state.
    pub version: Option<String>,
    pub from_version: Option<String>,
    /// The feature flag's key for flag changes.
    pub flag: Option<String>,
    /// Who did it (an e-mail address or a bot name: personal data, hashed by the tool).
    pub actor: String,
    /// The stated reason, when the tool recording it has one ("error rate up after 4.19.0").
    pub reason: Option<String>,
    /// The instances it touched (new pods of a deploy, restarted ones), when it is per-instance.
    pub instances: Vec<usize>,
    /// The replica count before/after for scaling.
    pub from_replicas: Option<u32>,
    pub to_replicas: Option<u32>,
    /// A tenant it targets (a rate limit on one client).
    pub tenant: Option<usize>,
}
