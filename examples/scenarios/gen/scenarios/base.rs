//! What every scenario draws the same way: the span and where the fault sits in it, the
//! stack, tenants, routes, fleet, probes, traffic (sized to the request budget), and the
//! service's costs calibrated so its pools and CPUs run at a drawn utilisation. In: a seed and
//! the scenario's [`Spec`]. Out: a [`Base`] the scenario then bends into its incident.

use serde_json::{json, Map, Value};

use super::super::facts::Ms;
use super::super::people::People;
use super::super::rng::Rng;
use super::super::routes::Api;
use super::super::sim::*;
use super::super::stack::{Lang, Stack};
use super::super::time::epoch_ms;

pub const MIN: Ms = 60_000;
pub const HOUR: Ms = 3_600_000;

/// Requests per draw: the default and `--small`.
pub const BUDGET: f64 = 300_000.0;
pub const SMALL_BUDGET: f64 = 40_000.0;

pub struct Spec {
    /// Span in hours (default mode).
    pub span_h: (f64, f64),
    /// The longest the incident may last after the fault starts (for placing it), minutes.
    pub d_max_min: f64,
    /// Pool and CPU utilisation at the fault's moment under ordinary load.
    pub pool_util: (f64, f64),
    pub cpu_util: (f64, f64),
    /// Share of the request budget left to ordinary traffic.
    pub ordinary_share: f64,
    /// Fleet size range.
    pub fleet: (i64, i64),
    /// The incident needs the pools run at the drawn utilisation: calibration may shrink pools
    /// and the fleet and allow slow requests to get there.
    pub needs_util: bool,
}

impl Default for Spec {
    fn default() -> Spec {
        Spec {
            span_h: (1.0, 24.0),
            d_max_min: 45.0,
            pool_util: (0.05, 0.3),
            cpu_util: (0.1, 0.4),
            ordinary_share: 0.8,
            fleet: (2, 8),
            needs_util: false,
        }
    }
}

/// The drawn parameters, recorded in `truth.json`.
#[derive(Default)]
pub struct Params(pub Map<String, Value>);

impl Params {
    pub fn set(&mut self, k: &str, v: impl Into<Value>) {
        self.0.insert(k.to_string(), v.into());
    }
}

pub struct Base {
    pub rng: Rng,
    pub cfg: Config,
    pub fault: Ms,
    pub p: Params,
    pub small: bool,
    pub budget: f64,
    /// The pool and CPU utilisation the costs were calibrated to (at the fault's moment).
    pub u_pool: f64,
    pub u_cpu: f64,
    /// The scenario's smallest fleet (calibration never shrinks it below).
    pub min_fleet: usize,
    pub needs_util: bool,
    /// The service has so little headroom that losing an instance starts the incident: its
    /// blips leave capacity alone (no resets, no pod replacement).
    pub fragile: bool,
    share: f64,
}

/// Business time zones without daylight saving, so an offset is the zone all year.
const ZONES: [(&str, Ms); 8] = [
    ("UTC", 0),
    ("Asia/Kolkata", 19_800_000),
    ("Asia/Tokyo", 32_400_000),
    ("Asia/Singapore", 28_800_000),
    ("America/Sao_Paulo", -10_800_000),
    ("Asia/Dubai", 14_400_000),
    ("Africa/Johannesburg", 7_200_000),
    ("America/Bogota", -18_000_000),
];

pub fn base(name: &str, seed: u64, small: bool, spec: &Spec) -> Base {
    let salt = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x1000_0000_01b3));
    let mut rng = Rng::new(seed ^ salt);
    let p = Params::default();
    let budget = if small { SMALL_BUDGET } else { BUDGET } * rng.uniform(0.6, 1.0);

    // The span, and where the fault sits: at least max(20 min, 10% of the span) before it,
    // the incident's longest run and 10 min after.
    let d_max = (spec.d_max_min * MIN as f64) as Ms;
    let (lo, hi) = if small { (spec.span_h.0.min(4.0), spec.span_h.1.min(4.0)) } else { spec.span_h };
    let mut span = (rng.log_uniform(lo.max(0.5), hi.max(lo.max(0.5) + 0.01)) * HOUR as f64) as Ms;
    let need = ((20 * MIN + d_max + 10 * MIN) as f64 / 0.88) as Ms;
    if span < need {
        span = (need as f64 * rng.uniform(1.05, 1.3)) as Ms;
    }
    span = span / MIN * MIN;
    let start = epoch_ms(rng.range(2025, 2026), rng.range(1, 12), rng.range(1, 28), rng.range(0, 23), rng.range(0, 59), 0);
    let end = start + span;
    let pre = (20 * MIN).max(span / 10);
    let fault = start + pre + rng.range(0, (span - pre - d_max - 10 * MIN).max(0));
    let fault = fault / 1000 * 1000 + rng.range(0, 999);

    let service = rng.pick(&["api", "core", "platform", "web", "gateway-api", "app"]).to_string();
    let company = rng.pick(&["example.com", "acme.io", "shopfront.example", "tracker.example.net"]);
    let stack = Stack::draw(&mut rng, &service);
    let lang = stack.lang;
    let tenants = if small { rng.log_uniform(50.0, 3000.0) } else { rng.log_uniform(50.0, 20_000.0) } as usize;
    let people = People::draw(&mut rng, tenants);
    let health = match stack.lang {
        Lang::Java => ("/actuator/health/liveness", "/actuator/health/readiness"),
        Lang::Ruby => ("/up", "/up"),
        Lang::Python => ("/healthz", "/readyz"),
        Lang::Node => ("/health", "/health"),
        Lang::Go => ("/healthz", "/readyz"),
    };
    let in_path = rng.chance(0.6);
    let api = Api::draw(&mut rng, in_path, health);
    let n = rng.range(spec.fleet.0, spec.fleet.1) as usize;
    let cores = if stack.cpu_fifo { 1.0 } else { rng.pick(&[1.0, 2.0, 2.0, 4.0]) };
    let acquire = if rng.chance(0.7) { stack.default_acquire_timeout_ms() } else { rng.pick(&[5_000, 10_000, 20_000, 30_000]) };
    let boot = match stack.lang {
        Lang::Java => rng.uniform(8_000.0, 30_000.0),
        Lang::Ruby => rng.uniform(5_000.0, 15_000.0),
        Lang::Python => rng.uniform(3_000.0, 8_000.0),
        Lang::Node => rng.uniform(1_000.0, 4_000.0),
        Lang::Go => rng.uniform(400.0, 2_000.0),
    };
    let (zone, offset) = rng.pick(&ZONES);
    let probe_db = rng.chance(0.5);
    let live_period = rng.pick(&[5_000, 10_000, 10_000, 15_000, 20_000]);
    let liveness = Probe {
        route: api.live,
        period_ms: live_period,
        timeout_ms: rng.pick(&[1_000, 1_000, 2_000, 3_000, 5_000]),
        failure_threshold: rng.pick(&[3, 3, 3, 2, 5]),
        db: probe_db,
    };
    let readiness = Probe {
        route: api.ready,
        period_ms: rng.pick(&[5_000, 10_000, 10_000, 15_000]),
        timeout_ms: rng.pick(&[1_000, 2_000, 3_000]),
        failure_threshold: 3,
        db: probe_db,
    };
    let traffic = Traffic {
        rate: 1.0,
        peak_ratio: rng.uniform(1.5, 4.0),
        peak_hour: rng.uniform(11.0, 16.0),
        tz_offset_ms: offset,
        weekend: rng.uniform(0.4, 0.75),
        mult: Curve::default(),
        db_mult: Curve::default(),
        client_errors: rng.uniform(0.005, 0.03),
    };
    let version = match rng.range(0, 2) {
        0 => format!("{}.{}.{}", rng.range(1, 6), rng.range(0, 40), rng.range(0, 12)),
        1 => format!("v{}.{}.{}", rng.range(1, 3), rng.range(10, 90), rng.range(0, 9)),
        _ => format!("2026.{:02}.{:02}-{}", rng.range(1, 12), rng.range(1, 28), rng.hex(7)),
    };
    let cfg = Config {
        start,
        end,
        service: service.clone(),
        namespace: rng.pick(&["default", "prod", "production", "apps"]).to_string(),
        host: format!("{}.{company}", if service == "api" { "api".to_string() } else { format!("{service}-api") }),
        stack,
        api,
        people,
        fleet: Fleet {
            n,
            cores,
            pool: rng.range(5, 50) as u32,
            acquire_timeout_ms: acquire,
            mem_limit_mb: 1024.0,
            mem_base_mb: 400.0,
            mem_per_flight_mb: 0.0,
            boot_ms: boot,
            grace_ms: 30_000,
            workers: match lang {
                Lang::Java => rng.pick(&[50, 100, 200, 200]),
                Lang::Ruby => rng.pick(&[5, 10, 16, 32]),
                Lang::Python => rng.pick(&[8, 16, 32, 64]),
                Lang::Node | Lang::Go => 0,
            },
        },
        lb: Lb {
            timeout_ms: rng.pick(&[30_000, 60_000, 60_000, 60_000, 90_000, 120_000]),
            max_conns: None,
        },
        probes: Probes {
            liveness: rng.chance(0.92).then_some(liveness),
            readiness,
            user_agent: format!("kube-probe/1.{}", rng.range(26, 31)),
            own_port: rng.chance(if lang == Lang::Java { 0.4 } else { 0.1 }),
        },
        traffic,
        versions: vec![Version { name: version, ..Version::default() }],
        scrape_ms: rng.pick(&[5_000, 10_000, 15_000, 15_000, 30_000, 30_000, 60_000]),
        pool_stats_ms: rng.chance(0.5).then_some(30_000),
        noise_errors: rng.log_uniform(0.0002, 0.002),
        noise_warns_per_hour: rng.uniform(0.5, 8.0),
        actors: Vec::new(),
        script: Vec::new(),
        responders: Responders::default(),
        breaker: None,
        flag: None,
        tz_name: zone.to_string(),
    };
    let mut b = Base { rng, cfg, fault, p, small, budget, u_pool: 0.0, u_cpu: 0.0, min_fleet: spec.fleet.0 as usize, needs_util: spec.needs_util, fragile: false, share: spec.ordinary_share };
    b.size_traffic(spec);
    b.p.set("span_s", span / 1000);
    b.p.set("fault_start", super::super::time::iso_ms(fault));
    b.p.set("stack", json!({"lang": format!("{:?}", b.cfg.stack.lang), "pool_lib": format!("{:?}", b.cfg.stack.pool_lib), "cpu_fifo": b.cfg.stack.cpu_fifo}));
    b.p.set("tenants", b.cfg.people.tenants.len());
    b.p.set("tenant_id_style", format!("{:?}", b.cfg.people.style));
    b.p.set("routes", b.cfg.api.routes.len());
    b.p.set("tz", zone);
    b.p.set("probe_db", probe_db);
    b.p.set("liveness", b.cfg.probes.liveness.is_some());
    b.p
        .set("lb_timeout_ms", b.cfg.lb.timeout_ms);
    b.p.set("acquire_timeout_ms", acquire);
    b.p.set("scrape_ms", b.cfg.scrape_ms);
    b
}

impl Base {
    /// The ordinary rate that spends the budget's share over the span (probes included).
    fn size_traffic(&mut self, spec: &Spec) {
        self.share = spec.ordinary_share;
        let wanted = self.rng.log_uniform(3.0, 120.0);
        self.cfg.traffic.rate = wanted;
        self.fit_budget();
        let (lo, hi) = spec.pool_util;
        let u = self.rng.uniform(lo, hi);
        let (lo, hi) = spec.cpu_util;
        let v = self.rng.uniform(lo, hi);
        self.calibrate(u, v, self.fault);
    }

    /// Sets the ordinary routes' costs so the pools run at `u` and the CPUs at `v` under the
    /// ordinary load at `t`. Costs stay plausible for an API (a mean database hold of at most
    /// `DB_MAX` ms, CPU at most `CPU_MAX` ms): smaller pools first, then a smaller fleet, then
    /// a lower utilisation, which is what [`Base::u_pool`] and [`Base::u_cpu`] then hold.
    pub fn calibrate(&mut self, u: f64, v: f64, t: Ms) {
        let db_max = if self.needs_util { 250.0 } else { 80.0 };
        let cpu_max = if self.needs_util { 120.0 } else { 40.0 };
        let c = &mut self.cfg;
        let r = c.traffic.rate_at(t).max(0.01);
        let need = |n: f64, p: f64| u * n * p * 1000.0 / r;
        if self.needs_util {
            if need(c.fleet.n as f64, c.fleet.pool as f64) > db_max {
                c.fleet.pool = ((db_max * r / (u * c.fleet.n as f64 * 1000.0)).ceil() as u32).clamp(5, c.fleet.pool);
            }
            while c.fleet.n > self.min_fleet.max(2) && need(c.fleet.n as f64, c.fleet.pool as f64) > db_max {
                c.fleet.n -= 1;
            }
        }
        let db_max: f64 = db_max;
        let (n, p) = (c.fleet.n as f64, c.fleet.pool as f64);
        let db = need(n, p).clamp(2.0, db_max);
        let u = db * r / (n * p * 1000.0);
        let cores = if c.stack.cpu_fifo { 1.0 } else { c.fleet.cores };
        let cpu = (v * n * cores * 1000.0 / r).clamp(0.5, cpu_max);
        let v = cpu * r / (n * cores * 1000.0);
        self.u_pool = u;
        self.u_cpu = v;
        c.api.calibrate(db, cpu);
        // Threads outnumber connections (Tomcat's 200 for Hikari's 10; Puma threads above the
        // pool): it is the pool a request waits for, as in the seeds.
        if c.fleet.workers > 0 {
            c.fleet.workers = c.fleet.workers.max(4 * c.fleet.pool);
        }
        self.p.set("pool_size", c.fleet.pool);
        self.p.set("fleet", c.fleet.n);
        self.p.set("pool_util", (u * 1000.0).round() / 1000.0);
        self.p.set("cpu_util", (v * 1000.0).round() / 1000.0);
        self.p.set("mean_db_ms", (db * 10.0).round() / 10.0);
        self.p.set("mean_cpu_ms", (cpu * 10.0).round() / 10.0);
        self.p.set("cores", cores);
    }

    /// Lowers the ordinary rate, if need be, so ordinary traffic (growth curve included) and
    /// the recorded probes stay within the budget's share.
    pub fn fit_budget(&mut self) {
        let c = &self.cfg;
        let span_s = (c.end - c.start) as f64 / 1000.0;
        let probes = span_s * c.fleet.n as f64 / (c.probes.readiness.period_ms as f64 / 1000.0);
        let mut shape_sum = 0.0;
        let mut t = c.start;
        while t < c.end {
            shape_sum += c.traffic.shape(t) * c.traffic.mult.at(t) * 300.0;
            t += 300_000;
        }
        let by_budget = ((self.budget * self.share - probes).max(self.budget * 0.2)) / shape_sum;
        let rate = by_budget.min(self.cfg.traffic.rate);
        self.cfg.traffic.rate = rate;
        self.p.set("ordinary_rate_per_s", (rate * 1000.0).round() / 1000.0);
    }

    /// Calibrates again after the scenario changed the fleet or the pools.
    pub fn recalibrate(&mut self) {
        let (u, v, t) = (self.u_pool, self.u_cpu, self.fault);
        self.calibrate(u, v, t);
    }

    /// Caps the fleet's pool capacity (connections in all) at `cap`.
    pub fn cap_pool(&mut self, cap: u32) {
        let n = self.cfg.fleet.n as u32;
        if n * self.cfg.fleet.pool > cap {
            self.cfg.fleet.pool = (cap / n).max(5);
            self.recalibrate();
        }
    }

    /// An actor that is a person (for changes): an e-mail address or a bot.
    pub fn person(&mut self) -> String {
        let who = self.rng.pick(&["jane.doe", "sam.lee", "priya.n", "tomasz.k", "ops-oncall", "m.garcia"]);
        format!("{who}@{}", self.cfg.host.split_once('.').map_or("example.com", |x| x.1))
    }

    pub fn bot(&mut self) -> String {
        self.rng.pick(&["github-actions[bot]", "argocd", "spinnaker", "deploy-bot"]).to_string()
    }

    /// A new version name after the running one.
    pub fn next_version(&mut self) -> String {
        let v = &self.cfg.versions[0].name;
        if let Some(rest) = v.strip_prefix("2026.") {
            format!("2026.{}-{}", &rest[..5.min(rest.len())], self.rng.hex(7))
        } else {
            let pre = if v.starts_with('v') { "v" } else { "" };
            let nums: Vec<i64> = v.trim_start_matches('v').split('.').filter_map(|x| x.parse().ok()).collect();
            let (a, b) = (nums.first().copied().unwrap_or(1), nums.get(1).copied().unwrap_or(0));
            format!("{pre}{a}.{}.0", b + 1)
        }
    }

    /// A mid-sized tenant (rank drawn in the given range), for a culprit or a harmless burst.
    pub fn tenant_ranked(&mut self, lo: usize, hi: usize) -> usize {
        let n = self.cfg.people.tenants.len();
        let r = self.rng.range(lo.min(n - 1) as i64, hi.min(n - 1) as i64) as usize;
        self.cfg.people.by_rank(r)
    }

    /// The ordinary request rate of tenant `t` at time `at` (requests per second).
    pub fn tenant_rate(&self, t: usize, at: Ms) -> f64 {
        let w = &self.cfg.people.weights;
        self.cfg.traffic.rate_at(at) * w[t] / w.iter().sum::<f64>()
    }

    /// The fleet's pool capacity in connections.
    pub fn pool_capacity(&self) -> f64 {
        (self.cfg.fleet.n as u32 * self.cfg.fleet.pool) as f64
    }
}
