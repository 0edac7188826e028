//! Writes `samples/bulk-export`, a recreation of a real public incident ("seed 000"): a tenant's
//! bulk-export API integration exhausted the DB connection pool of a SaaS region's three app
//! servers, health checks (which also need a connection) timed out, the orchestrator restarted
//! every server at once, the integration retried, and the region was down for ~4 minutes.
//!
//! A scripted timeline (UTC, 2026-10-01 07:25-08:15) fixes each phase; traffic, durations, sizes
//! and ids come from a seeded hand-written PRNG, so two runs give byte-identical files: the LB
//! access log, the app's ECS JSON logs, HikariCP pool metrics, Kubernetes events, `truth.json`.
//!
//! Usage: `cargo run --release --example gen_sample -- samples/bulk-export`

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::error::Error;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use flate2::{Compression, GzBuilder};
use serde_json::{json, Value};

type Res<T> = Result<T, Box<dyn Error>>;

// ---------------------------------------------------------------------------------------------
// Timeline. All instants are epoch milliseconds (UTC).

/// 2026-10-01T00:00:00Z.
const DAY0: i64 = 1_790_812_800_000;

const fn at(h: i64, m: i64, s: i64, ms: i64) -> i64 {
    DAY0 + ((h * 60 + m) * 60 + s) * 1000 + ms
}

const SPAN_START: i64 = at(7, 25, 0, 0);
const SPAN_END: i64 = at(8, 15, 0, 0);
const SURGE_START: i64 = at(7, 56, 55, 0);
/// From here every connection is taken; new requests queue for one.
const SATURATED: i64 = at(7, 56, 56, 500);
/// Requests arriving from here may wait the full connection timeout: first 500s at 07:58:06.
const STARVE_FROM: i64 = at(7, 57, 36, 0);
/// Health checks sent from here outlive the LB's 5 s timeout: first 504s at 07:57:54.
const HC_FAIL_FROM: i64 = at(7, 57, 49, 0);
/// The typical queueing delay stops growing here (timeouts drain the queue as fast as it fills).
const WAIT_PLATEAU: i64 = at(7, 58, 20, 0);
/// The exporter gives up on its first run once every upstream answers 502.
const SURGE_END: i64 = at(7, 58, 57, 0);
/// SIGTERM from the kubelet, per server (the three liveness kills land within ~2 s).
const KILL: [i64; 3] = [at(7, 58, 54, 180), at(7, 58, 55, 70), at(7, 58, 56, 240)];
/// The process exits this long after SIGTERM; requests still in flight are cut off then.
const EXIT_DELAY: i64 = 300;
/// Container restarted (kubelet `Started` event); the LB routes to it again from here.
const BACK: [i64; 3] = [at(7, 59, 0, 0), at(7, 59, 45, 0), at(8, 0, 30, 0)];
const RETRY_START: i64 = at(7, 59, 0, 0);
/// While fewer than three servers are up a few requests still time out; arrivals stop being at
/// risk here, so the last of those 500s lands by 08:00:30.
const RETRY_STARVE_UNTIL: i64 = at(8, 0, 0, 0);
const RETRY_END: i64 = at(8, 1, 30, 0);
const RECOVERED: i64 = at(8, 1, 35, 0);

const CONN_TIMEOUT: i64 = 30_000;
const POOL_MAX: i64 = 20;
const IST_OFFSET: i64 = 19_800_000;
const STEP: i64 = 5_000;

// ---------------------------------------------------------------------------------------------
// Cast.

struct Server {
    addr: &'static str,
    pod: &'static str,
    node: &'static str,
}

const SERVERS: [Server; 3] = [
    Server {
        addr: "10.42.1.11:8080",
        pod: "api-7c9d8b6f5-k2xqp",
        node: "ip-10-0-1-21.ec2.internal",
    },
    Server {
        addr: "10.42.2.12:8080",
        pod: "api-7c9d8b6f5-m8wzt",
        node: "ip-10-0-2-34.ec2.internal",
    },
    Server {
        addr: "10.42.3.13:8080",
        pod: "api-7c9d8b6f5-t4nvr",
        node: "ip-10-0-3-47.ec2.internal",
    },
];

const CULPRIT: &str = "acct-4411";
const EXPORTER_UA: &str = "acme-exporter/2.3.1";
const EXPORTER_IP: &str = "198.51.100.77";
const HC_IP: &str = "10.42.0.2";
const HC_UA: &str = "lb-healthcheck/1.0";
/// The LB probes each upstream every 5 s at these offsets, so the first probe sent after
/// `HC_FAIL_FROM` times out during 07:57:54 on every upstream.
const HC_PHASE: [i64; 3] = [4_100, 4_450, 4_800];

const BASE_RATE: f64 = 18.0;
const SURGE_RATE: f64 = 150.0;
const RETRY_RATE: f64 = 60.0;
const TENANTS: usize = 400;

const BROWSERS: [&str; 3] = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Safari/605.1.15",
    "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:143.0) Gecko/20100101 Firefox/143.0",
];
const JENKINS: usize = 0;
const CI_UAS: [&str; 3] = [
    "jenkins-testsigma-plugin/1.4.2",
    "github-actions-runner/2.311.0",
    "python-requests/2.31.0",
];
const DASHBOARD_REFERER: &str = "https://app.example.com/app/dashboard";

// ---------------------------------------------------------------------------------------------
// PRNG.

/// splitmix64, hand-written instead of using the `rand` crate so the stream (and so every sample
/// byte) stays the same whatever crate versions the lock file resolves to.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in lo..=hi.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as i64
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Exponential gap (ms) of a Poisson process with `rate` events per second.
    fn gap_ms(&mut self, rate: f64) -> f64 {
        -(1.0 - self.unit()).ln() / rate * 1000.0
    }

    /// Standard normal (Box-Muller).
    fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.unit();
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    fn lognormal(&mut self, median: f64, sigma: f64) -> f64 {
        median * (sigma * self.normal()).exp()
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.range(0, xs.len() as i64 - 1) as usize]
    }

    fn hex(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b"0123456789abcdef"[self.range(0, 15) as usize]))
            .collect()
    }

    fn uuid(&mut self) -> String {
        let variant = self.pick(&['8', '9', 'a', 'b']);
        format!(
            "{}-{}-4{}-{variant}{}-{}",
            self.hex(8),
            self.hex(4),
            self.hex(3),
            self.hex(3),
            self.hex(12)
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Time formatting (no chrono: the example stays on std + flate2 + serde_json).

struct Civil {
    y: i64,
    mo: i64,
    d: i64,
    h: i64,
    mi: i64,
    s: i64,
    ms: i64,
}

fn civil(t: i64) -> Civil {
    // Howard Hinnant's days-to-civil algorithm.
    let z = t.div_euclid(86_400_000) + 719_468;
    let rem = t.rem_euclid(86_400_000);
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    Civil {
        y: yoe + era * 400 + i64::from(mo <= 2),
        mo,
        d: doy - (153 * mp + 2) / 5 + 1,
        h: rem / 3_600_000,
        mi: rem / 60_000 % 60,
        s: rem / 1000 % 60,
        ms: rem % 1000,
    }
}

fn iso_s(t: i64) -> String {
    let c = civil(t);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        c.y, c.mo, c.d, c.h, c.mi, c.s
    )
}

fn iso_ms(t: i64) -> String {
    let c = civil(t);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        c.y, c.mo, c.d, c.h, c.mi, c.s, c.ms
    )
}

/// nginx `$time_local` on a server whose clock is IST.
fn nginx_time(t: i64) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let c = civil(t + IST_OFFSET);
    format!(
        "{:02}/{}/{:04}:{:02}:{:02}:{:02} +0530",
        c.d,
        MONTHS[(c.mo - 1) as usize],
        c.y,
        c.h,
        c.mi,
        c.s
    )
}

/// Milliseconds as nginx prints `$request_time`.
fn secs(ms: i64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

fn lerp(t: i64, t0: i64, t1: i64, v0: f64, v1: f64) -> f64 {
    let f = ((t - t0) as f64 / (t1 - t0) as f64).clamp(0.0, 1.0);
    v0 + (v1 - v0) * f
}

fn is_up(s: usize, t: i64) -> bool {
    t < KILL[s] || t >= BACK[s]
}

// ---------------------------------------------------------------------------------------------
// Traffic.

#[derive(Clone, Copy, PartialEq, Eq)]
enum Route {
    Projects,
    Project,
    Run,
    CreateRun,
    Results,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Api(Route),
    Dashboard,
    Static,
    ExportPoll,
    Surge,
    Retry,
    Health(usize),
}

struct Req {
    at: i64,
    kind: Kind,
    method: &'static str,
    path: String,
    ip: String,
    ua: &'static str,
    referer: &'static str,
}

struct Tenant {
    id: String,
    ci: Option<usize>,
    ci_ip: String,
    office_ip: String,
    browser: &'static str,
    api_key: String,
    projects: i64,
    last_run: i64,
}

/// A public-looking client address from the documentation ranges (never the exporter's).
fn doc_ip(rng: &mut Rng) -> String {
    loop {
        let host = rng.range(1, 254);
        let ip = match rng.range(0, 2) {
            0 => format!("203.0.113.{host}"),
            1 => format!("198.51.100.{host}"),
            _ => format!("192.0.2.{host}"),
        };
        if ip != EXPORTER_IP {
            return ip;
        }
    }
}

/// ~400 tenants with Zipf-like weights (shuffled so the biggest is not simply acct-1000);
/// returns them with the cumulative weights used to draw one per request.
fn tenants(rng: &mut Rng) -> (Vec<Tenant>, Vec<f64>) {
    let mut ranks: Vec<usize> = (0..TENANTS).collect();
    for i in (1..TENANTS).rev() {
        let j = rng.range(0, i as i64) as usize;
        ranks.swap(i, j);
    }
    let mut cum = Vec::with_capacity(TENANTS);
    let mut acc = 0.0;
    let mut out = Vec::with_capacity(TENANTS);
    for (i, rank) in ranks.iter().enumerate() {
        acc += 1.0 / (*rank as f64 + 1.0);
        cum.push(acc);
        let roll = rng.unit();
        let ci = if roll < 0.4 {
            Some(0)
        } else if roll < 0.7 {
            Some(1)
        } else if roll < 0.9 {
            Some(2)
        } else {
            None
        };
        let office_ip = doc_ip(rng);
        // One or two stable addresses per tenant: CI often runs behind the office NAT.
        let ci_ip = if rng.chance(0.5) {
            office_ip.clone()
        } else {
            doc_ip(rng)
        };
        out.push(Tenant {
            id: format!("acct-{}", 1000 + i),
            ci,
            ci_ip,
            office_ip,
            browser: rng.pick(&BROWSERS),
            api_key: format!("tsk_live_{}", rng.hex(24)),
            projects: rng.range(2, 40),
            last_run: rng.range(20_000, 99_000),
        });
    }
    (out, cum)
}

fn export_path(page: i64) -> String {
    format!("/api/v1/accounts/{CULPRIT}/test-cases?page={page}&per_page=500")
}

fn ordinary(rng: &mut Rng, t: i64, tn: &Tenant) -> Req {
    if rng.chance(0.10) {
        // A browser page load: no tenant in the path.
        let (kind, path, referer) = if rng.chance(0.4) {
            (Kind::Dashboard, "/app/dashboard", "-")
        } else {
            (Kind::Static, "/static/app.3f9a1c.js", DASHBOARD_REFERER)
        };
        return Req {
            at: t,
            kind,
            method: "GET",
            path: path.to_string(),
            ip: tn.office_ip.clone(),
            ua: tn.browser,
            referer,
        };
    }
    let roll = rng.unit();
    let route = if roll < 0.15 {
        Route::Projects
    } else if roll < 0.35 {
        Route::Project
    } else if roll < 0.65 {
        Route::Run
    } else if roll < 0.75 {
        Route::CreateRun
    } else {
        Route::Results
    };
    let (ua, ip, referer) = match tn.ci {
        Some(c) if rng.chance(0.65) => (CI_UAS[c], tn.ci_ip.clone(), "-"),
        _ => (tn.browser, tn.office_ip.clone(), DASHBOARD_REFERER),
    };
    let base = format!("/api/v1/accounts/{}", tn.id);
    let (method, mut path) = match route {
        Route::Projects => ("GET", format!("{base}/projects")),
        Route::Project => (
            "GET",
            format!("{base}/projects/{}", rng.range(1, tn.projects)),
        ),
        Route::Run => (
            "GET",
            format!("{base}/runs/{}", tn.last_run - rng.range(0, 400)),
        ),
        Route::CreateRun => ("POST", format!("{base}/runs")),
        Route::Results => {
            let page = 1 + (rng.unit().powi(3) * 12.0) as i64;
            ("GET", format!("{base}/results?page={page}"))
        }
    };
    // Dirty but real: some Jenkins jobs put the API key in the query string.
    if ua == CI_UAS[JENKINS] && rng.chance(0.03) {
        let sep = if path.contains('?') { '&' } else { '?' };
        path = format!("{path}{sep}api_key={}", tn.api_key);
    }
    Req {
        at: t,
        kind: Kind::Api(route),
        method,
        path,
        ip,
        ua,
        referer,
    }
}

fn exporter(kind: Kind, t: i64, path: String) -> Req {
    Req {
        at: t,
        kind,
        method: "GET",
        path,
        ip: EXPORTER_IP.to_string(),
        ua: EXPORTER_UA,
        referer: "-",
    }
}

/// Every request that reaches the LB, sorted by arrival.
fn traffic(rng: &mut Rng) -> Vec<Req> {
    let (tenants, cum) = tenants(rng);
    let total = cum.last().copied().unwrap_or(1.0);
    let mut reqs = Vec::new();

    let mut t = SPAN_START as f64 + rng.gap_ms(BASE_RATE);
    while t < SPAN_END as f64 {
        let r = rng.unit() * total;
        let i = cum.partition_point(|&c| c <= r).min(TENANTS - 1);
        reqs.push(ordinary(rng, t as i64, &tenants[i]));
        t += rng.gap_ms(BASE_RATE);
    }

    // Before the incident the integration is an incremental sync: one small page every 2-4 min.
    let mut t = SPAN_START + rng.range(20_000, 110_000);
    let mut since = SPAN_START - rng.range(150_000, 200_000);
    while t < SURGE_START - 30_000 {
        let q = iso_s(since).replace(':', "%3A");
        let path =
            format!("/api/v1/accounts/{CULPRIT}/test-cases?page=1&per_page=50&updated_since={q}");
        reqs.push(exporter(Kind::ExportPoll, t, path));
        since = t;
        t += rng.range(120_000, 240_000);
    }

    // The bulk export: pages 1, 2, 3, ... at ~150/s after a 3 s ramp-up of its workers.
    let mut t = SURGE_START as f64 + 12.0;
    let mut page = 1;
    while t < SURGE_END as f64 {
        reqs.push(exporter(Kind::Surge, t as i64, export_path(page)));
        page += 1;
        let ramp = (0.25 + 0.75 * (t - SURGE_START as f64) / 3000.0).min(1.0);
        t += rng.gap_ms(SURGE_RATE * ramp);
    }

    // The retry restarts from page 1; pages are picked while simulating (failed ones are re-sent).
    let mut t = RETRY_START as f64 + 20.0;
    while t < RETRY_END as f64 {
        reqs.push(exporter(Kind::Retry, t as i64, String::new()));
        t += rng.gap_ms(RETRY_RATE);
    }

    for (s, phase) in HC_PHASE.iter().enumerate() {
        let mut t = SPAN_START + phase;
        while t < SPAN_END {
            reqs.push(Req {
                at: t,
                kind: Kind::Health(s),
                method: "GET",
                path: "/healthz".to_string(),
                ip: HC_IP.to_string(),
                ua: HC_UA,
                referer: "-",
            });
            t += 5_000;
        }
    }

    // Stable sort: ties keep generation order, so the output does not depend on anything else.
    reqs.sort_by_key(|r| r.at);
    reqs
}

// ---------------------------------------------------------------------------------------------
// Simulation: route each request, decide its fate from the phase it arrives in.

/// One request's use of a server's pool: queued from `arrive`, holding a connection from `got`
/// to `release` (`got == release` when it never got one).
#[derive(Clone, Copy)]
struct Hold {
    arrive: i64,
    got: i64,
    release: i64,
}

struct Outcome {
    status: u16,
    done: i64,
    upstream: Option<i64>,
    starved: bool,
}

struct AppLine {
    t: i64,
    server: usize,
    level: &'static str,
    logger: &'static str,
    thread: String,
    msg: String,
}

#[derive(Default)]
struct Counts {
    lines: u64,
    culprit: u64,
    culprit_surge: u64,
    culprit_retry: u64,
    healthchecks: u64,
    s5xx: u64,
    s500: u64,
    s502: u64,
    s504: u64,
    retried_pages: u64,
}

struct Sim {
    rng: Rng,
    rr: usize,
    access: Vec<(i64, String)>,
    holds: [Vec<Hold>; 3],
    app: Vec<AppLine>,
    first_timeout_logged: [bool; 3],
    failed: BinaryHeap<Reverse<(i64, i64)>>,
    retry_queue: VecDeque<i64>,
    next_page: i64,
    counts: Counts,
}

impl Sim {
    fn new(seed: u64) -> Self {
        Sim {
            rng: Rng(seed),
            rr: 0,
            access: Vec::new(),
            holds: [Vec::new(), Vec::new(), Vec::new()],
            app: Vec::new(),
            first_timeout_logged: [false; 3],
            failed: BinaryHeap::new(),
            retry_queue: VecDeque::new(),
            next_page: 1,
            counts: Counts::default(),
        }
    }

    /// nginx round robin over the upstreams that are up; with none up it still rotates (and
    /// fails fast).
    fn route(&mut self, t: i64) -> (usize, bool) {
        for i in 0..3 {
            let s = (self.rr + i) % 3;
            if is_up(s, t) {
                self.rr = (s + 1) % 3;
                return (s, true);
            }
        }
        let s = self.rr;
        self.rr = (s + 1) % 3;
        (s, false)
    }

    /// The retrying exporter re-sends pages that failed (once it has seen them fail) before
    /// moving on.
    fn retry_page(&mut self, t: i64) -> i64 {
        while let Some(&Reverse((done, page))) = self.failed.peek() {
            if done > t {
                break;
            }
            self.failed.pop();
            self.retry_queue.push_back(page);
        }
        if let Some(page) = self.retry_queue.pop_front() {
            self.counts.retried_pages += 1;
            return page;
        }
        let page = self.next_page;
        self.next_page += 1;
        page
    }

    /// How long a request arriving at `a` waits for a pooled connection, and whether it starves
    /// until the 30 s timeout instead. HikariCP hands connections out unfairly under contention, so
    /// typical waits stay at seconds while a growing share of waiters never gets one.
    fn conn_wait(&mut self, a: i64, kind: Kind) -> (i64, bool) {
        let health = matches!(kind, Kind::Health(_));
        let (typical, starve_p) = if (SATURATED..KILL[2]).contains(&a) {
            let typical = if a < HC_FAIL_FROM {
                lerp(a, SATURATED, HC_FAIL_FROM, 150.0, 4_800.0)
            } else {
                lerp(a, HC_FAIL_FROM, WAIT_PLATEAU, 4_800.0, 9_000.0)
            };
            let p = if a >= STARVE_FROM {
                (0.3 + 0.55 * (a - STARVE_FROM) as f64 / 40_000.0).min(0.85)
            } else {
                0.0
            };
            (typical, p)
        } else if (RETRY_START..BACK[2]).contains(&a) {
            // One (then two) servers take the retry plus everyone else's traffic.
            let up = (0..3).filter(|&s| is_up(s, a)).count();
            let typical = if up == 1 { 350.0 } else { 150.0 };
            (typical, if a < RETRY_STARVE_UNTIL { 0.004 } else { 0.0 })
        } else {
            return (0, false);
        };
        if !health && self.rng.chance(starve_p) {
            return (CONN_TIMEOUT, true);
        }
        // Probes that would exceed the LB timeout are handled by the caller; keep these under it.
        let cap = if health { 4_900.0 } else { 29_000.0 };
        (self.rng.lognormal(typical, 0.35).min(cap) as i64, false)
    }

    /// Time a request holds its connection (or, for static files, the whole handling time).
    fn work(&mut self, a: i64, kind: Kind) -> i64 {
        let mult = match kind {
            // Write amplification on a read path: every export page holds a connection for seconds.
            Kind::Surge => return self.rng.range(2_000, 5_000),
            // Re-read pages were already touched by the first run, so they finish sooner.
            Kind::Retry => return self.rng.range(220, 550),
            Kind::ExportPoll => return self.rng.range(40, 80),
            Kind::Static => return self.rng.range(1, 6),
            Kind::Health(_) if (BACK[0]..RECOVERED).contains(&a) => return self.rng.range(10, 50),
            Kind::Health(_) => return self.rng.range(2, 6),
            Kind::Dashboard => 0.8,
            Kind::Api(Route::Projects) => 1.2,
            Kind::Api(Route::CreateRun) => 1.8,
            Kind::Api(Route::Results) => 1.5,
            Kind::Api(_) => 1.0,
        };
        let (median, sigma) = if (RETRY_START..RETRY_END).contains(&a) {
            // The retry keeps the database busy: everyone's queries are slower.
            (450.0, 0.3)
        } else if (RETRY_END..RECOVERED).contains(&a) {
            (lerp(a, RETRY_END, RECOVERED, 450.0, 40.0 * mult), 0.4)
        } else if (SATURATED..KILL[2]).contains(&a) {
            (60.0 * mult, 0.55)
        } else {
            (40.0 * mult, 0.55)
        };
        self.rng.lognormal(median, sigma).clamp(6.0, 2_500.0) as i64
    }

    /// Ordinary outcome; the scattered app-bug 500s stay out of the incident window so every
    /// 500 there belongs to the incident.
    fn status_for(&mut self, a: i64, kind: Kind) -> u16 {
        match kind {
            Kind::Static if self.rng.chance(0.3) => 304,
            Kind::Api(route) => {
                let roll = self.rng.unit();
                if roll < 0.002 {
                    404
                } else if roll < 0.0025 && !(SURGE_START..RECOVERED).contains(&a) {
                    500
                } else if route == Route::CreateRun {
                    201
                } else {
                    200
                }
            }
            _ => 200,
        }
    }

    fn serve(&mut self, req: &Req, s: usize) -> Outcome {
        let a = req.at;
        let mut hold = None;
        let mut out = match req.kind {
            Kind::Static => {
                let done = a + self.work(a, req.kind);
                Outcome {
                    status: self.status_for(a, req.kind),
                    done,
                    upstream: Some(done - a),
                    starved: false,
                }
            }
            Kind::Health(_) if (HC_FAIL_FROM..KILL[s]).contains(&a) => {
                // The LB gives up after 5 s; the app thread keeps waiting for a connection.
                let done = a + 5_000 + self.rng.range(0, 9);
                hold = Some(Hold {
                    arrive: a,
                    got: a + CONN_TIMEOUT,
                    release: a + CONN_TIMEOUT,
                });
                Outcome {
                    status: 504,
                    done,
                    upstream: Some(done - a),
                    starved: false,
                }
            }
            _ => {
                let (wait, starved) = self.conn_wait(a, req.kind);
                if starved {
                    let done = a + CONN_TIMEOUT + self.rng.range(3, 60);
                    hold = Some(Hold {
                        arrive: a,
                        got: done,
                        release: done,
                    });
                    Outcome {
                        status: 500,
                        done,
                        upstream: Some(done - a - self.rng.range(0, 1)),
                        starved: true,
                    }
                } else {
                    let got = a + wait;
                    let release = got + self.work(a, req.kind);
                    hold = Some(Hold {
                        arrive: a,
                        got,
                        release,
                    });
                    Outcome {
                        status: self.status_for(a, req.kind),
                        done: release + self.rng.range(0, 1),
                        upstream: Some(release - a),
                        starved: false,
                    }
                }
            }
        };
        let exit = KILL[s] + EXIT_DELAY;
        if a < KILL[s] {
            if out.done > exit {
                // The container is killed under it: nginx sees the connection close.
                out.status = 502;
                out.done = exit + self.rng.range(0, 1);
                out.upstream = Some(out.done - a);
                out.starved = false;
            }
            if let Some(h) = hold.as_mut() {
                h.got = h.got.min(exit);
                h.release = h.release.min(exit);
            }
        }
        if let Some(h) = hold {
            self.holds[s].push(h);
        }
        out
    }

    fn bytes(&mut self, req: &Req, status: u16) -> i64 {
        let path_len = req
            .path
            .split_once('?')
            .map_or(req.path.len(), |(p, _)| p.len()) as i64;
        match (status, req.kind) {
            (502, _) => 157,
            (504, _) => 167,
            (500, _) => 110 + path_len,
            (404, _) => 107 + path_len,
            (304, _) => 0,
            (_, Kind::Health(_)) => 15,
            (_, Kind::Static) => 412_331,
            (_, Kind::Dashboard) => self.rng.range(4_800, 5_600),
            (_, Kind::ExportPoll) => self.rng.range(2_000, 6_500),
            (_, Kind::Surge | Kind::Retry) => self.rng.range(47_000, 56_000),
            (_, Kind::Api(Route::Projects)) => self.rng.range(2_000, 12_000),
            (_, Kind::Api(Route::Project)) => self.rng.range(800, 3_200),
            (_, Kind::Api(Route::Run)) => self.rng.range(1_500, 9_000),
            (_, Kind::Api(Route::CreateRun)) => self.rng.range(300, 700),
            (_, Kind::Api(Route::Results)) => self.rng.range(5_000, 40_000),
        }
    }

    fn handle(&mut self, mut req: Req) {
        let mut page = 0;
        if req.kind == Kind::Retry {
            page = self.retry_page(req.at);
            req.path = export_path(page);
        }
        let (s, up) = match req.kind {
            Kind::Health(s) => (s, is_up(s, req.at)),
            _ => self.route(req.at),
        };
        let out = if up {
            self.serve(&req, s)
        } else {
            // Nothing listens on the upstream: nginx fails fast with its own 502 page.
            Outcome {
                status: 502,
                done: req.at + self.rng.range(0, 2),
                upstream: None,
                starved: false,
            }
        };
        if req.kind == Kind::Retry && out.status >= 500 {
            self.failed.push(Reverse((out.done, page)));
        }
        if out.done >= SPAN_END {
            return;
        }
        let bytes = self.bytes(&req, out.status);
        let urt = out.upstream.map_or_else(|| "-".to_string(), secs);
        let line = format!(
            "{} - - [{}] \"{} {} HTTP/1.1\" {} {bytes} \"{}\" \"{}\" {} {urt} {}",
            req.ip,
            nginx_time(out.done),
            req.method,
            req.path,
            out.status,
            req.referer,
            req.ua,
            secs(out.done - req.at),
            SERVERS[s].addr
        );
        self.access.push((out.done, line));

        let c = &mut self.counts;
        c.lines += 1;
        match req.kind {
            Kind::ExportPoll => c.culprit += 1,
            Kind::Surge => {
                c.culprit += 1;
                c.culprit_surge += 1;
            }
            Kind::Retry => {
                c.culprit += 1;
                c.culprit_retry += 1;
            }
            Kind::Health(_) => c.healthchecks += 1,
            _ => {}
        }
        if out.status >= 500 {
            c.s5xx += 1;
        }
        match out.status {
            500 => c.s500 += 1,
            502 => c.s502 += 1,
            504 => c.s504 += 1,
            _ => {}
        }
        if up {
            self.app_side(&req, s, &out);
        }
    }

    /// What the app server itself logs about a request it handled.
    fn app_side(&mut self, req: &Req, s: usize, out: &Outcome) {
        let took = out.done - req.at;
        let thread = format!("http-nio-8080-exec-{}", self.rng.range(1, 200));
        let path = req
            .path
            .split_once('?')
            .map_or(req.path.as_str(), |(p, _)| p);
        let t = out.done - self.rng.range(1, 4);
        let line = match out.status {
            500 if out.starved => {
                // Not every failure is logged in the storm; the first one on each server is.
                let log = req.at >= BACK[0]
                    || !self.first_timeout_logged[s]
                    || self.rng.chance(0.3);
                if !log {
                    return;
                }
                self.first_timeout_logged[s] = true;
                AppLine {
                    t,
                    server: s,
                    level: "ERROR",
                    logger: "com.zaxxer.hikari.pool.HikariPool",
                    thread,
                    msg: "HikariPool-1 - Connection is not available, request timed out after 30000ms."
                        .to_string(),
                }
            }
            500 => AppLine {
                t,
                server: s,
                level: "ERROR",
                logger: "org.apache.catalina.core.ContainerBase.[Tomcat].[localhost].[/].[dispatcherServlet]",
                thread,
                msg: "Servlet.service() for servlet [dispatcherServlet] in context with path [] threw exception [Request processing failed: java.lang.NullPointerException: Cannot invoke \"com.acme.api.runs.Run.getSuite()\" because \"run\" is null] with root cause".to_string(),
            },
            200 | 201 if took >= 3_000 && self.rng.chance(0.12) => AppLine {
                t,
                server: s,
                level: "WARN",
                logger: "com.acme.api.web.RequestTimingFilter",
                thread,
                msg: format!("Slow request {} {path} took {} ms", req.method, took - 2),
            },
            _ => return,
        };
        self.app.push(line);
    }
}

// ---------------------------------------------------------------------------------------------
// Pool metrics, derived from the same simulated requests.

/// (active, pending) on one server at `t`; `bg` stands for connections held by scheduled jobs
/// and sessions that never show up in the access log.
fn pool_at(holds: &[Hold], bg: i64, t: i64) -> (i64, i64) {
    let mut pending = 0;
    let mut holding = 0;
    for h in holds {
        if h.arrive <= t && t < h.got {
            pending += 1;
        } else if h.got <= t && t < h.release {
            holding += 1;
        }
    }
    if pending > 0 {
        (POOL_MAX, pending)
    } else {
        (POOL_MAX.min(bg + holding), 0)
    }
}

/// Prometheus has no samples while the process is gone (killed until the first scrape after
/// the restart).
fn scraped(s: usize, t: i64) -> bool {
    t < KILL[s] + EXIT_DELAY || t > BACK[s]
}

fn db_pool_json(rng: &mut Rng, holds: &[Vec<Hold>; 3]) -> String {
    let steps: Vec<i64> = (0..)
        .map(|i| SPAN_START + i * STEP)
        .take_while(|&t| t <= SPAN_END)
        .collect();
    let mut active = vec![Vec::new(), Vec::new(), Vec::new()];
    let mut pending = vec![Vec::new(), Vec::new(), Vec::new()];
    for (s, server_holds) in holds.iter().enumerate() {
        for &t in &steps {
            let bg = rng.range(3, 5);
            if scraped(s, t) {
                let (a, p) = pool_at(server_holds, bg, t);
                active[s].push((t, a));
                pending[s].push((t, p));
            }
        }
    }
    let max: Vec<Vec<(i64, i64)>> = active
        .iter()
        .map(|v| v.iter().map(|&(t, _)| (t, POOL_MAX)).collect())
        .collect();

    // Hand-written so the keys keep Prometheus' order (serde_json's map would sort them).
    let mut series = Vec::new();
    for (name, data) in [
        ("hikaricp_connections_active", &active),
        ("hikaricp_connections_max", &max),
        ("hikaricp_connections_pending", &pending),
    ] {
        for (s, values) in data.iter().enumerate() {
            let values: Vec<String> = values
                .iter()
                .map(|(t, v)| {
                    format!(
                        "          [\n            {},\n            \"{v}\"\n          ]",
                        t / 1000
                    )
                })
                .collect();
            series.push(format!(
                "      {{\n        \"metric\": {{\n          \"__name__\": \"{name}\",\n          \"instance\": \"{}\",\n          \"job\": \"api\",\n          \"pool\": \"HikariPool-1\"\n        }},\n        \"values\": [\n{}\n        ]\n      }}",
                SERVERS[s].addr,
                values.join(",\n")
            ));
        }
    }
    format!(
        "{{\n  \"status\": \"success\",\n  \"data\": {{\n    \"resultType\": \"matrix\",\n    \"result\": [\n{}\n    ]\n  }}\n}}\n",
        series.join(",\n")
    )
}

// ---------------------------------------------------------------------------------------------
// Application log lines that are not about a single request.

fn app_background(rng: &mut Rng, holds: &[Vec<Hold>; 3], app: &mut Vec<AppLine>) {
    let line = |t: i64, server: usize, level, logger, thread: &str, msg: String| AppLine {
        t,
        server,
        level,
        logger,
        thread: thread.to_string(),
        msg,
    };
    for s in 0..3 {
        // The process is gone from SIGTERM+exit until it has started again.
        let running = |t: i64| t < KILL[s] || t >= BACK[s] + 7_100;
        let mut t = SPAN_START + 17_000 + s as i64 * 6_000 + rng.range(0, 900);
        let mut n = 0;
        while t < SPAN_END {
            if running(t) {
                let took = if (SATURATED..KILL[s]).contains(&t) {
                    rng.range(8_000, 29_000)
                } else {
                    rng.range(180, 650)
                };
                let msg = format!("Scheduled job usage-rollup completed in {took} ms");
                let job = "com.acme.api.jobs.UsageRollupJob";
                app.push(line(t, s, "INFO", job, "scheduling-1", msg));
                if n % 5 == 2 {
                    let msg = "Refreshed tenant plan cache (401 entries)".to_string();
                    let cache = "com.acme.api.cache.PlanCache";
                    app.push(line(t + 9, s, "INFO", cache, "scheduling-1", msg));
                }
            }
            n += 1;
            t += 60_000 + rng.range(-400, 400);
        }

        // Pool-exhaustion warnings, every 10 s while connections are being waited for.
        let first = at(7, 57, 10, 0) + s as i64 * 300;
        let mut t = first;
        while t < SPAN_END {
            let watched = t < KILL[s] || (BACK[s] + 10_000..BACK[2]).contains(&t);
            if watched {
                let (active, waiting) = pool_at(&holds[s], 4, t);
                if waiting > 0 {
                    let idle = POOL_MAX - active;
                    let msg = format!("HikariPool-1 - Pool stats (total={POOL_MAX}, active={active}, idle={idle}, waiting={waiting})");
                    let pool = "com.zaxxer.hikari.pool.HikariPool";
                    app.push(line(t, s, "WARN", pool, "HikariPool-1 housekeeper", msg));
                }
            }
            t += 10_000;
        }

        let k = KILL[s];
        let shutdown = [
            (
                4,
                "SpringApplicationShutdownHook",
                "org.springframework.boot.web.embedded.tomcat.GracefulShutdown",
                "Commencing graceful shutdown. Waiting for active requests to complete",
            ),
            (
                212,
                "tomcat-shutdown",
                "org.springframework.boot.web.embedded.tomcat.GracefulShutdown",
                "Graceful shutdown aborted with one or more requests still active",
            ),
            (
                231,
                "SpringApplicationShutdownHook",
                "com.zaxxer.hikari.HikariDataSource",
                "HikariPool-1 - Shutdown initiated...",
            ),
            (
                287,
                "SpringApplicationShutdownHook",
                "com.zaxxer.hikari.HikariDataSource",
                "HikariPool-1 - Shutdown completed.",
            ),
        ];
        for (dt, thread, logger, msg) in shutdown {
            app.push(line(k + dt, s, "INFO", logger, thread, msg.to_string()));
        }

        let b = BACK[s];
        let startup = [
            (
                352,
                "com.acme.api.ApiApplication",
                "Starting ApiApplication v4.18.2 using Java 17.0.9",
            ),
            (
                418,
                "com.acme.api.ApiApplication",
                "The following 1 profile is active: \"prod\"",
            ),
            (
                2_140,
                "org.springframework.boot.web.embedded.tomcat.TomcatWebServer",
                "Tomcat initialized with port 8080 (http)",
            ),
            (
                3_912,
                "com.zaxxer.hikari.HikariDataSource",
                "HikariPool-1 - Starting...",
            ),
            (
                4_327,
                "com.zaxxer.hikari.HikariDataSource",
                "HikariPool-1 - Start completed.",
            ),
            (
                6_618,
                "org.springframework.boot.web.embedded.tomcat.TomcatWebServer",
                "Tomcat started on port(s): 8080 (http) with context path ''",
            ),
            (
                7_100,
                "com.acme.api.ApiApplication",
                "Started ApiApplication in 6.412 seconds (process running for 7.1)",
            ),
        ];
        for (dt, logger, msg) in startup {
            app.push(line(b + dt, s, "INFO", logger, "main", msg.to_string()));
        }
    }
}

/// JSON string literal.
fn js(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

fn ecs_line(l: &AppLine) -> String {
    format!(
        "{{\"@timestamp\":\"{}\",\"log.level\":\"{}\",\"message\":{},\"ecs.version\":\"1.2.0\",\"service.name\":\"api\",\"event.dataset\":\"api\",\"process.thread.name\":{},\"log.logger\":{},\"host.hostname\":\"{}\"}}",
        iso_ms(l.t),
        l.level,
        js(&l.msg),
        js(&l.thread),
        js(l.logger),
        SERVERS[l.server].pod
    )
}

// ---------------------------------------------------------------------------------------------
// Kubernetes events.

struct Ev {
    first: i64,
    last: i64,
    count: i64,
    pod: Option<usize>,
    reason: &'static str,
    message: String,
    warning: bool,
    name: String,
    uid: String,
}

/// One event object; `every` > 0 emits it again with a growing count, as a watch would show.
struct EvSpec {
    pod: Option<usize>,
    first: i64,
    times: i64,
    every: i64,
    reason: &'static str,
    message: String,
    warning: bool,
}

fn events_json(rng: &mut Rng) -> Res<(String, usize)> {
    let pod_uids: Vec<String> = (0..3).map(|_| rng.uuid()).collect();
    let mut specs = vec![EvSpec {
        pod: None,
        first: at(7, 40, 12, 0),
        times: 1,
        every: 0,
        reason: "ScalingReplicaSet",
        message: "Scaled up replica set worker-5b6c7d8e9 to 3".to_string(),
        warning: false,
    }];
    for (s, srv) in SERVERS.iter().enumerate() {
        let fail = at(7, 57, 54, 0) + s as i64 * 1000;
        let probe = format!(
            "Get \"http://{}/healthz\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
            srv.addr
        );
        let kill = KILL[s] - KILL[s] % 1000;
        let back = BACK[s];
        let spec = |first, times, every, reason, message: String, warning| EvSpec {
            pod: Some(s),
            first,
            times,
            every,
            reason,
            message,
            warning,
        };
        // Liveness fails every 10 s until the kill; readiness likewise, offset by 3 s.
        let live = (kill - fail) / 10_000 + 1;
        let ready = (kill - fail - 3_000 - 1) / 10_000 + 1;
        specs.push(spec(
            fail,
            live,
            10_000,
            "Unhealthy",
            format!("Liveness probe failed: {probe}"),
            true,
        ));
        specs.push(spec(
            fail + 3_000,
            ready,
            10_000,
            "Unhealthy",
            format!("Readiness probe failed: {probe}"),
            true,
        ));
        let killing = "Container api failed liveness probe, will be restarted".to_string();
        specs.push(spec(kill, 1, 0, "Killing", killing, false));
        let pulled =
            "Container image \"registry.example.com/api:4.18.2\" already present on machine";
        specs.push(spec(
            back - 2_000,
            1,
            0,
            "Pulled",
            pulled.to_string(),
            false,
        ));
        specs.push(spec(
            back - 1_000,
            1,
            0,
            "Created",
            "Created container api".to_string(),
            false,
        ));
        specs.push(spec(
            back,
            1,
            0,
            "Started",
            "Started container api".to_string(),
            false,
        ));
    }

    let mut evs = Vec::new();
    for sp in specs {
        let obj = sp.pod.map_or("worker", |s| SERVERS[s].pod);
        // Event names are `<object>.<creation time in ns, hex>`, as client-go makes them.
        let nanos = sp.first * 1_000_000 + rng.range(0, 999_999);
        let name = format!("{obj}.{nanos:x}");
        let uid = rng.uuid();
        for i in 0..sp.times {
            evs.push(Ev {
                first: sp.first,
                last: sp.first + i * sp.every,
                count: i + 1,
                pod: sp.pod,
                reason: sp.reason,
                message: sp.message.clone(),
                warning: sp.warning,
                name: name.clone(),
                uid: uid.clone(),
            });
        }
    }
    evs.sort_by_key(|e| e.last);

    let mut rv: i64 = 48_211_904;
    let mut items = Vec::new();
    for e in &evs {
        rv += rng.range(3, 400);
        let (involved, source, reporter) = match e.pod {
            Some(s) => (
                json!({
                    "apiVersion": "v1",
                    "fieldPath": "spec.containers{api}",
                    "kind": "Pod",
                    "name": SERVERS[s].pod,
                    "namespace": "prod",
                    "resourceVersion": (48_102_117 + s * 3_311).to_string(),
                    "uid": pod_uids[s],
                }),
                json!({"component": "kubelet", "host": SERVERS[s].node}),
                ("kubelet", SERVERS[s].node),
            ),
            None => (
                json!({
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "name": "worker",
                    "namespace": "prod",
                    "resourceVersion": "48163220",
                    "uid": "5f0c2a8e-3b71-4d09-9e6a-0c4b7d2f81a3",
                }),
                json!({"component": "deployment-controller"}),
                ("deployment-controller", ""),
            ),
        };
        items.push(json!({
            "apiVersion": "v1",
            "count": e.count,
            "eventTime": null,
            "firstTimestamp": iso_s(e.first),
            "involvedObject": involved,
            "kind": "Event",
            "lastTimestamp": iso_s(e.last),
            "message": e.message,
            "metadata": {
                "creationTimestamp": iso_s(e.first),
                "name": e.name,
                "namespace": "prod",
                "resourceVersion": rv.to_string(),
                "uid": e.uid,
            },
            "reason": e.reason,
            "reportingComponent": reporter.0,
            "reportingInstance": reporter.1,
            "source": source,
            "type": if e.warning { "Warning" } else { "Normal" },
        }));
    }
    let n = items.len();
    let list = json!({
        "apiVersion": "v1",
        "items": items,
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    });
    // kubectl indents by 4; serde_json pretty-prints by 2, and no string here holds a newline,
    // so doubling the leading spaces gives kubectl's layout (keys are sorted in both).
    let pretty = serde_json::to_string_pretty(&list)?;
    let mut out = String::with_capacity(pretty.len() * 2);
    for l in pretty.lines() {
        let body = l.trim_start_matches(' ');
        let indent = l.len() - body.len();
        out.push_str(&" ".repeat(indent * 2));
        out.push_str(body);
        out.push('\n');
    }
    Ok((out, n))
}

// ---------------------------------------------------------------------------------------------
// Output.

fn write_gz(path: &Path, lines: &[String]) -> Res<u64> {
    let file = BufWriter::new(fs::File::create(path)?);
    // mtime 0 and no file name: the gzip header would otherwise differ between runs.
    let mut gz = GzBuilder::new()
        .mtime(0)
        .write(file, Compression::default());
    for l in lines {
        gz.write_all(l.as_bytes())?;
        gz.write_all(b"\n")?;
    }
    gz.finish()?.flush()?;
    Ok(fs::metadata(path)?.len())
}

fn write_text(path: &Path, text: &str) -> Res<u64> {
    fs::write(path, text)?;
    Ok(fs::metadata(path)?.len())
}

fn main() -> Res<()> {
    let dir = std::env::args_os()
        .nth(1)
        .map_or_else(|| PathBuf::from("samples/bulk-export"), PathBuf::from);
    fs::create_dir_all(&dir)?;

    // Separate streams, so tuning one output does not reshuffle the others.
    let mut traffic_rng = Rng(0x5eed_0000_0000_0001);
    let mut metrics_rng = Rng(0x5eed_0000_0000_0002);
    let mut app_rng = Rng(0x5eed_0000_0000_0003);
    let mut events_rng = Rng(0x5eed_0000_0000_0004);

    let mut sim = Sim::new(0x5eed_0000_0000_0005);
    for req in traffic(&mut traffic_rng) {
        sim.handle(req);
    }

    sim.access.sort_by_key(|(t, _)| *t);
    let access: Vec<String> = sim.access.into_iter().map(|(_, l)| l).collect();
    let bytes = write_gz(&dir.join("access.log.gz"), &access)?;
    eprintln!("access.log.gz: {} lines, {bytes} bytes", access.len());

    let mut app = sim.app;
    app_background(&mut app_rng, &sim.holds, &mut app);
    app.retain(|l| (SPAN_START..SPAN_END).contains(&l.t));
    app.sort_by_key(|l| l.t);
    let app: Vec<String> = app.iter().map(ecs_line).collect();
    let bytes = write_gz(&dir.join("app.jsonl.gz"), &app)?;
    eprintln!("app.jsonl.gz: {} lines, {bytes} bytes", app.len());

    let pool = db_pool_json(&mut metrics_rng, &sim.holds);
    let bytes = write_text(&dir.join("db-pool.json"), &pool)?;
    eprintln!(
        "db-pool.json: {} lines, {bytes} bytes",
        pool.lines().count()
    );

    let (events, n_events) = events_json(&mut events_rng)?;
    let bytes = write_text(&dir.join("events.json"), &events)?;
    eprintln!(
        "events.json: {n_events} events, {} lines, {bytes} bytes",
        events.lines().count()
    );

    let c = &sim.counts;
    let truth = json!({
        "scenario": "bulk-export",
        "onset": iso_s(SURGE_START),
        "recovered": iso_s(RECOVERED),
        "culprit": {"tenant": CULPRIT, "integration": "acme-exporter"},
        "patterns": [
            "tenant_surge",
            "pool_exhaustion",
            "health_check_coupling",
            "synchronized_restart",
            "retry_storm"
        ],
        "timeline": {
            "surge_start": iso_s(SURGE_START),
            "pool_saturated": iso_s(at(7, 57, 0, 0)),
            "health_checks_failing": iso_s(HC_FAIL_FROM + 5_000),
            "errors_start": iso_s(STARVE_FROM + CONN_TIMEOUT),
            "all_instances_restarted": iso_s(KILL[0]),
            "retries": iso_s(RETRY_START),
            "servers_back": BACK.iter().map(|&t| iso_s(t)).collect::<Vec<_>>(),
            "recovered": iso_s(RECOVERED),
        },
        "instances": SERVERS.iter().map(|s| s.addr).collect::<Vec<_>>(),
        "pods": SERVERS.iter().map(|s| s.pod).collect::<Vec<_>>(),
        "counts": {
            "access_log_lines": c.lines,
            "culprit_requests": c.culprit,
            "culprit_requests_surge": c.culprit_surge,
            "culprit_requests_retry": c.culprit_retry,
            "culprit_pages_resent_after_failure": c.retried_pages,
            "healthcheck_requests": c.healthchecks,
            "status_5xx": c.s5xx,
            "status_500": c.s500,
            "status_502": c.s502,
            "status_504": c.s504,
            "app_log_lines": app.len(),
            "event_items": n_events,
        },
    });
    let truth = serde_json::to_string_pretty(&truth)? + "\n";
    let bytes = write_text(&dir.join("truth.json"), &truth)?;
    eprintln!("truth.json: {} lines, {bytes} bytes", truth.lines().count());
    Ok(())
}
