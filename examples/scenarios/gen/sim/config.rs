//! What a scenario hands the simulation: the service (fleet, pools, load balancer, probes,
//! routes, tenants, traffic), the actors beyond ordinary traffic (an exporter, a slow
//! integration, a job dispatcher, websocket clients), the scripted changes and the responders'
//! moves. In: a scenario's draws. Out: a [`Config`] that `sim::run` plays.

use super::super::facts::Ms;
use super::super::people::{People, RetryPolicy};
use super::super::routes::Api;
use super::super::stack::Stack;

/// A piecewise-linear function of time (1.0 when empty; flat before the first point and after
/// the last).
#[derive(Clone, Debug, Default)]
pub struct Curve(pub Vec<(Ms, f64)>);

impl Curve {
    pub fn at(&self, t: Ms) -> f64 {
        let p = &self.0;
        match p.iter().position(|(x, _)| *x > t) {
            None => p.last().map_or(1.0, |x| x.1),
            Some(0) => p[0].1,
            Some(i) => {
                let (x0, y0) = p[i - 1];
                let (x1, y1) = p[i];
                y0 + (y1 - y0) * (t - x0) as f64 / (x1 - x0).max(1) as f64
            }
        }
    }

    /// The largest value over [from, to] (at the points or the ends).
    pub fn max_over(&self, from: Ms, to: Ms) -> f64 {
        let mut m = self.at(from).max(self.at(to));
        for (x, y) in &self.0 {
            if *x >= from && *x <= to {
                m = m.max(*y);
            }
        }
        m
    }
}

#[derive(Clone, Debug)]
pub struct Fleet {
    pub n: usize,
    /// CPU cores per instance (its limit).
    pub cores: f64,
    /// Pool connections per instance.
    pub pool: u32,
    pub acquire_timeout_ms: Ms,
    /// Memory (MB): the limit, the process's own, and what each request in flight adds.
    pub mem_limit_mb: f64,
    pub mem_base_mb: f64,
    pub mem_per_flight_mb: f64,
    /// Median time from container start to serving.
    pub boot_ms: f64,
    /// How long a graceful stop waits for requests in flight before the process is killed.
    pub grace_ms: Ms,
    /// Worker threads per instance (Tomcat's max threads, Puma's threads): a request waits
    /// for a free one, first come first served. 0: no limit (an event loop, goroutines).
    pub workers: u32,
}

#[derive(Clone, Debug)]
pub struct Lb {
    /// The upstream timeout: the load balancer answers 504 after this.
    pub timeout_ms: Ms,
    /// Its own limit on requests in flight (503 beyond), when it has one.
    pub max_conns: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct Probe {
    /// Index into the API's routes.
    pub route: usize,
    pub period_ms: Ms,
    pub timeout_ms: Ms,
    pub failure_threshold: u32,
    /// The health handler takes a pool connection (runs `SELECT 1`).
    pub db: bool,
}

#[derive(Clone, Debug)]
pub struct Probes {
    /// Kubernetes liveness probe (None: no liveness probe, nothing restarts a slow process).
    pub liveness: Option<Probe>,
    pub readiness: Probe,
    /// The kubelet's `User-Agent` (`kube-probe/1.29`).
    pub user_agent: String,
    /// The health endpoints listen on their own port with their own threads (Spring Boot's
    /// management port): probes never wait for a request worker.
    pub own_port: bool,
}

#[derive(Clone, Debug)]
pub struct Traffic {
    /// Ordinary API requests per second at the daily mean.
    pub rate: f64,
    /// Diurnal peak over trough (1: flat).
    pub peak_ratio: f64,
    /// Local hour of the peak.
    pub peak_hour: f64,
    pub tz_offset_ms: Ms,
    /// Weekend days' traffic relative to weekdays.
    pub weekend: f64,
    /// Multiplier on the ordinary rate over time (organic growth).
    pub mult: Curve,
    /// Multiplier on every database hold time over time (database pressure, a latency blip).
    pub db_mult: Curve,
    /// Share of ordinary requests that are client errors (404, 401, 422): not failures.
    pub client_errors: f64,
}

impl Traffic {
    /// The shape factor (mean 1 over a weekday) at `t`.
    pub fn shape(&self, t: Ms) -> f64 {
        let local = t + self.tz_offset_ms;
        let hour = local.rem_euclid(86_400_000) as f64 / 3_600_000.0;
        let amp = (self.peak_ratio - 1.0) / (self.peak_ratio + 1.0);
        let day = 1.0 + amp * (std::f64::consts::TAU * (hour - self.peak_hour) / 24.0).cos();
        let weekday = (local.div_euclid(86_400_000) + 3).rem_euclid(7);
        let week = if weekday >= 5 { self.weekend } else { 1.0 };
        day * week
    }

    /// Ordinary arrivals per second at `t`.
    pub fn rate_at(&self, t: Ms) -> f64 {
        self.rate * self.shape(t) * self.mult.at(t)
    }
}

/// A software version the fleet may run.
#[derive(Clone, Debug, Default)]
pub struct Version {
    pub name: String,
    /// Share of its API requests that fail fast with its own exception (a regression).
    pub error_rate: f64,
    /// A route that does not return its connection, and how often.
    pub leak: Option<(usize, f64)>,
}

/// A bulk export: a client paging through a list route at a high rate, up to a number of
/// requests in flight (an async client's concurrency cap).
#[derive(Clone, Debug)]
pub struct Exporter {
    pub tenant: usize,
    pub route: usize,
    pub start: Ms,
    pub pages: u32,
    pub per_page: u32,
    /// Pages requested per second, and the most in flight at once.
    pub rate: f64,
    pub max_inflight: u32,
    /// Connection hold per page (write amplification makes it long), median and spread.
    pub db_ms: f64,
    pub db_sigma: f64,
    pub cpu_ms: f64,
    /// Attempts per page before the export run is abandoned.
    pub attempts: u32,
    /// Delay before re-sending a failed page (0: at once).
    pub retry_delay_ms: f64,
    /// Runs after the first: the export restarts from its last checkpoint after a failure.
    pub restarts: u32,
    pub checkpoint_every: u32,
    pub restart_after_ms: Ms,
    /// The client's own timeout per page (0: none).
    pub timeout_ms: Ms,
}

/// A tenant's extra stream of requests on one route with its own cost: a slow integration's
/// webhooks, a harmless burst.
#[derive(Clone, Debug)]
pub struct Stream {
    pub tenant: usize,
    pub route: usize,
    pub start: Ms,
    pub end: Ms,
    /// Requests per second.
    pub rate: f64,
    pub db_ms: f64,
    pub db_sigma: f64,
    pub cpu_ms: f64,
    /// Spans during which it sends nothing.
    pub pauses: Vec<(Ms, Ms)>,
    pub policy: RetryPolicy,
}

/// Jobs enqueued by tenants and pushed to the service as HTTP requests by a dispatcher.
#[derive(Clone, Debug)]
pub struct Dispatcher {
    pub route: usize,
    /// Jobs enqueued per second (times `mult`).
    pub rate: f64,
    pub mult: Curve,
    /// Extra jobs enqueued at once: (time, count).
    pub batches: Vec<(Ms, u32)>,
    /// The most jobs per second it pushes.
    pub max_rate: f64,
    /// A failed job is visible again after this long.
    pub visibility_ms: Ms,
    pub cpu_ms: f64,
    pub cpu_sigma: f64,
    pub db_ms: f64,
    pub user_agent: String,
    pub ip: String,
}

/// Long-lived websocket clients of a dashboard, each its own address.
#[derive(Clone, Debug)]
pub struct Sockets {
    pub clients: u32,
    pub ws_route: usize,
    pub login_route: usize,
    pub callback_route: usize,
    /// Reconnects per client per hour in ordinary times.
    pub churn_per_hour: f64,
    /// Delay between reconnect attempts while failing (aggressive), and its cap once backing off.
    pub retry_ms: f64,
    pub max_retry_ms: f64,
    /// Share of reconnecting clients whose session is gone: they log in again.
    pub relogin: f64,
    /// The OAuth provider's limit on token exchanges per minute.
    pub provider_per_min: f64,
    /// The provider's name as the app logs it (`GitHub`).
    pub provider: String,
}

#[derive(Clone, Debug)]
pub enum Actor {
    Exporter(Exporter),
    Stream(Stream),
    Dispatcher(Dispatcher),
    Sockets(Sockets),
}

/// The application's circuit breaker around the database.
#[derive(Clone, Debug)]
pub struct Breaker {
    /// Pool timeouts within 10 s (fleet-wide) that open it.
    pub threshold: u32,
    /// How long it stays open.
    pub open_ms: Ms,
    pub name: String,
}

/// A feature flag that sends a route to a slow dependency.
#[derive(Clone, Debug)]
pub struct Flag {
    pub key: String,
    pub route: usize,
    /// The dependency's median latency while the flag is on, its spread, and the app's
    /// timeout for it.
    pub dep_ms: f64,
    pub dep_sigma: f64,
    pub dep_timeout_ms: Ms,
    /// The call is made while a database connection is held (inside a transaction).
    pub holds_db: bool,
    pub dependency: String,
}

#[derive(Clone, Debug)]
pub enum Which {
    Stuck,
    Some(Vec<usize>),
}

/// A change to the world at a moment: by a pipeline, a responder, or the fault itself.
#[derive(Clone, Debug)]
pub enum Action {
    /// A rolling deploy of the whole fleet to `version` (a rollback when `rollback`).
    Deploy {
        version: usize,
        rollback: bool,
        reason: Option<String>,
        actor: String,
    },
    /// New-version pods join the fleet beside the old ones.
    Canary { version: usize, count: usize, actor: String },
    AbortCanary { reason: String, actor: String },
    ScaleOut { to: usize, reason: String, actor: String },
    /// Responders delete pods; replacements start.
    Restart { which: Which, reason: String, actor: String },
    RateLimit { tenant: usize, rps: f64, reason: String, actor: String },
    FlagOn { actor: String },
    FlagOff { reason: String, actor: String },
    /// The instance keeps accepting requests and stops answering them.
    Stick { instance: usize },
    /// The instance resets connections for a while (a blip of 502s).
    Refuse { instance: usize, ms: Ms },
    /// The orchestrator replaces a pod (node maintenance): a routine restart.
    Evict { instance: usize },
    /// A configuration change that relieves the database (a read replica, an index).
    DbFix { mult: f64, reason: String, actor: String },
    StopActor { actor: usize },
}

/// Responders: once the service is visibly unwell after `armed_at`, they act, each step after
/// the previous one (the first after the alert).
#[derive(Clone, Debug, Default)]
pub struct Responders {
    pub armed_at: Ms,
    pub steps: Vec<(Ms, Action)>,
    /// Someone notices anyway this long after `armed_at`, alert or not.
    pub fallback_ms: Ms,
}

pub struct Config {
    pub start: Ms,
    pub end: Ms,
    pub service: String,
    pub namespace: String,
    pub host: String,
    pub stack: Stack,
    pub api: Api,
    pub people: People,
    pub fleet: Fleet,
    pub lb: Lb,
    pub probes: Probes,
    pub traffic: Traffic,
    /// `versions[0]` runs at the start.
    pub versions: Vec<Version>,
    pub scrape_ms: Ms,
    /// Period of the pool's own state lines, when they are logged.
    pub pool_stats_ms: Option<Ms>,
    /// Share of API requests that fail with an unrelated application error.
    pub noise_errors: f64,
    /// Unrelated warnings per instance per hour.
    pub noise_warns_per_hour: f64,
    pub actors: Vec<Actor>,
    pub script: Vec<(Ms, Action)>,
    pub responders: Responders,
    pub breaker: Option<Breaker>,
    pub flag: Option<Flag>,
    pub tz_name: String,
}
