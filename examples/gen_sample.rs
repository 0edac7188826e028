//! Writes the sample inputs under `samples/`: an LB access log, the app's ECS JSON logs, HikariCP
//! pool metrics, Kubernetes events and `truth.json`, for one of three scenarios.
//!
//! - `bulk-export` (default): a recreation of a real public incident ("seed 000"): a tenant's
//!   bulk-export API integration exhausted the DB connection pool of a SaaS region's three app
//!   servers, health checks (which also need a connection) timed out, the orchestrator restarted
//!   every server at once, the integration retried, and the region was down for ~4 minutes.
//! - `quiet-day`: a negative control. A normal morning with diurnal traffic, scattered errors and
//!   one routine rolling deploy; there is no incident to find.
//! - `organic-growth`: a negative control for blame. Every tenant's load triples together, the
//!   pools saturate and requests fail until the operators scale out; a real incident, no culprit.
//!
//! A scripted timeline (UTC) fixes each phase; traffic, durations, sizes and ids come from a
//! seeded hand-written PRNG, so two runs give byte-identical files.
//!
//! Usage: `cargo run --release --example gen_sample -- [--scenario NAME] [OUT_DIR]`
//! (OUT_DIR defaults to `samples/NAME`).

// why: as in the scenario generator (`scenarios/gen`), its indices run over
// its own seeded tables and simulated series; an index out of range is a
// generator bug, and no user input reaches one.
#![allow(clippy::indexing_slicing)]

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
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

/// `day` days after 2026-10-01, at h:m:s.ms UTC.
const fn day_at(day: i64, h: i64, m: i64, s: i64, ms: i64) -> i64 {
    DAY0 + day * 86_400_000 + ((h * 60 + m) * 60 + s) * 1000 + ms
}

/// bulk-export's day, 2026-10-01.
const fn at(h: i64, m: i64, s: i64, ms: i64) -> i64 {
    day_at(0, h, m, s, ms)
}

// The bulk-export timeline.

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
const NEVER: i64 = i64::MAX;

/// quiet-day: 2026-10-03 09:00-12:00, a normal morning with one routine rolling deploy.
mod quiet {
    use super::{day_at, Server};

    pub const START: i64 = day_at(2, 9, 0, 0, 0);
    pub const END: i64 = day_at(2, 12, 0, 0, 0);
    /// Ordinary requests per second at the edges of the span and at its middle (10:30). The
    /// shape is the usual morning ramp; the level is lower than bulk-export's 18/s so three
    /// hours of access log stay under ~1.5 MB gzipped.
    pub const RATE_LOW: f64 = 5.2;
    pub const RATE_HIGH: f64 = 9.5;
    /// Deployment `api` rolls to 4.18.3 one pod at a time (maxSurge 0, maxUnavailable 1): the
    /// old pod gets SIGTERM and leaves the LB at once, its replacement starts on the same node.
    pub const DEPLOY: [i64; 3] = [
        day_at(2, 10, 30, 0, 0),
        day_at(2, 10, 31, 30, 0),
        day_at(2, 10, 33, 0, 0),
    ];
    pub const VERSION: &str = "4.18.3";
    pub const OLD_RS: &str = "api-7c9d8b6f5";
    pub const NEW_RS: &str = "api-5d4c3b2a1";
    /// After the deploy step: image pulled, container started (kubelet `Started`).
    pub const PULL_MS: [i64; 3] = [2_318, 2_904, 2_511];
    pub const STARTED: i64 = 4_500;
    pub const BOOT_MS: [i64; 3] = [7_300, 6_900, 7_150];
    /// After the deploy step: readiness passes and the LB routes to the new pod.
    pub const ROUTED: i64 = 15_000;
    /// The old process is gone this long after SIGTERM (graceful: nothing is in flight).
    pub const EXIT_DELAY: i64 = 400;
    /// Isolated upstream resets (nginx 502), each in a different minute, none near the deploy.
    pub const GLITCHES: [i64; 3] = [
        day_at(2, 9, 47, 13, 400),
        day_at(2, 11, 2, 41, 200),
        day_at(2, 11, 36, 5, 900),
    ];
    pub const NEW: [Server; 3] = [
        Server {
            addr: "10.42.1.26:8080",
            pod: "api-5d4c3b2a1-q7h2m",
            node: "ip-10-0-1-21.ec2.internal",
        },
        Server {
            addr: "10.42.2.19:8080",
            pod: "api-5d4c3b2a1-w5c9x",
            node: "ip-10-0-2-34.ec2.internal",
        },
        Server {
            addr: "10.42.3.31:8080",
            pod: "api-5d4c3b2a1-b6r4j",
            node: "ip-10-0-3-47.ec2.internal",
        },
    ];
    pub const NEW_HC_PHASE: [i64; 3] = [1_350, 2_200, 3_050];
}

/// organic-growth: 2026-10-05 14:00-15:10. Everyone's load triples, the three pools saturate,
/// the operators scale out to five pods.
mod growth {
    use super::{day_at, Server};

    pub const START: i64 = day_at(4, 14, 0, 0, 0);
    pub const END: i64 = day_at(4, 15, 10, 0, 0);
    /// Ordinary requests per second before the growth (kept below bulk-export's 18/s so the
    /// access log stays under ~1.5 MB gzipped at x3.2).
    pub const BASE_RATE: f64 = 8.0;
    /// Every tenant's rate follows the same multiplier: 1 until RAMP_FROM, a smooth ramp to
    /// PEAK at RAMP_TO, PEAK from then on.
    pub const RAMP_FROM: i64 = day_at(4, 14, 20, 0, 0);
    pub const RAMP_TO: i64 = day_at(4, 14, 40, 0, 0);
    pub const PEAK: f64 = 3.2;
    /// The first symptom: from here the per-pod load passes the knee and every request holds
    /// its connection longer (latency and pool usage start to climb).
    pub const ONSET: i64 = day_at(4, 14, 30, 0, 0);
    /// Hold-time multiplier: 1 + K * (per-pod rate over the knee)^2, at most H_MAX.
    pub const K: f64 = 5.0;
    pub const H_MAX: f64 = 50.0;
    /// Every connection of the three original pods is taken from here; requests queue.
    pub const SATURATED: i64 = day_at(4, 14, 36, 0, 0);
    /// Requests arriving from here may wait the full 30 s: first 500s at 14:38:00.
    pub const STARVE_FROM: i64 = day_at(4, 14, 37, 30, 0);
    /// The typical queueing delay reaches its plateau here.
    pub const WAIT_PLATEAU: i64 = day_at(4, 14, 42, 0, 0);
    /// `kubectl scale deployment api --replicas=5`.
    pub const SCALE_OUT: i64 = day_at(4, 14, 50, 0, 0);
    pub const RS: &str = "api-7c9d8b6f5";
    pub const VERSION: &str = "4.18.2";
    /// Per new pod: image pull start, pull duration, container `Started`, boot time, and when
    /// the LB starts routing to it.
    pub const PULLING: [i64; 2] = [day_at(4, 14, 50, 1, 0), day_at(4, 14, 50, 2, 0)];
    pub const PULL_MS: [i64; 2] = [70_884, 118_406];
    pub const STARTED: [i64; 2] = [day_at(4, 14, 51, 13, 0), day_at(4, 14, 52, 2, 0)];
    pub const BOOT_MS: [i64; 2] = [14_100, 13_600];
    pub const ROUTED: [i64; 2] = [day_at(4, 14, 51, 40, 0), day_at(4, 14, 52, 30, 0)];
    /// With a fourth pod taking traffic the old pools stop saturating: the queue drains within
    /// ~1.5 s and no request times out any more.
    pub const RELIEF: i64 = ROUTED[0];
    /// With the fifth pod every new request is served at baseline latency again.
    pub const RECOVERED: i64 = ROUTED[1];
    pub const NEW: [Server; 2] = [
        Server {
            addr: "10.42.4.14:8080",
            pod: "api-7c9d8b6f5-x9q2d",
            node: "ip-10-0-1-58.ec2.internal",
        },
        Server {
            addr: "10.42.5.15:8080",
            pod: "api-7c9d8b6f5-z3k8v",
            node: "ip-10-0-2-71.ec2.internal",
        },
    ];
    pub const NEW_HC_PHASE: [i64; 2] = [1_600, 2_900];
}

// ---------------------------------------------------------------------------------------------
// Cast.

#[derive(Clone, Copy)]
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
// Scenarios.

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scenario {
    BulkExport,
    QuietDay,
    OrganicGrowth,
}

impl Scenario {
    const ALL: [Scenario; 3] = [
        Scenario::BulkExport,
        Scenario::QuietDay,
        Scenario::OrganicGrowth,
    ];

    fn name(self) -> &'static str {
        match self {
            Scenario::BulkExport => "bulk-export",
            Scenario::QuietDay => "quiet-day",
            Scenario::OrganicGrowth => "organic-growth",
        }
    }
}

/// The app's start-up: from the container's `Started` to "Started ApiApplication".
struct Boot {
    at: i64,
    ms: i64,
    version: &'static str,
}

/// One upstream (pod) over the span.
struct Instance {
    srv: Server,
    /// Offset of its LB health checks within each 5 s period.
    hc_phase: i64,
    /// The LB routes to it (and probes it) from here.
    routed_from: i64,
    /// The process serves metrics and runs scheduled jobs from here.
    proc_from: i64,
    /// SIGTERM (`NEVER`: not in this span); the LB stops routing to it then.
    kill: i64,
    /// The process is gone from here.
    exit: i64,
    /// Killed under load: requests still in flight at `exit` are cut off (nginx 502), and
    /// Tomcat's graceful shutdown is aborted. Otherwise the shutdown is graceful.
    abrupt: bool,
    /// Restarted in place: routed again from here (`NEVER`: not restarted).
    back: i64,
    boot: Option<Boot>,
}

impl Instance {
    fn initial(srv: Server, hc_phase: i64) -> Self {
        Instance {
            srv,
            hc_phase,
            routed_from: i64::MIN,
            proc_from: i64::MIN,
            kill: NEVER,
            exit: NEVER,
            abrupt: false,
            back: NEVER,
            boot: None,
        }
    }

    /// A pod created during the span.
    fn started(srv: Server, hc_phase: i64, boot: Boot, routed_from: i64) -> Self {
        Instance {
            routed_from,
            proc_from: boot.at + boot.ms,
            boot: Some(boot),
            ..Instance::initial(srv, hc_phase)
        }
    }

    fn is_up(&self, t: i64) -> bool {
        t >= self.routed_from && (t < self.kill || t >= self.back)
    }

    /// Prometheus has no samples while the process is gone (killed until the first scrape after
    /// the restart).
    fn scraped(&self, t: i64) -> bool {
        t >= self.proc_from && (t < self.exit || t > self.back)
    }

    /// The process is up and has finished starting (scheduled jobs run).
    fn running(&self, t: i64) -> bool {
        let boot_ms = self.boot.as_ref().map_or(0, |b| b.ms);
        t >= self.proc_from && (t < self.kill || t >= self.back.saturating_add(boot_ms))
    }

    /// The LB probes it until it leaves the upstream list for good.
    fn hc_until(&self, end: i64) -> i64 {
        if self.back == NEVER {
            self.kill.min(end)
        } else {
            end
        }
    }
}

struct Plan {
    scenario: Scenario,
    start: i64,
    end: i64,
    instances: Vec<Instance>,
    /// Tenant weights are 1 / (rank + offset): 1 gives bulk-export's steep Zipf curve.
    zipf_offset: f64,
    /// Instants after which the next API request gets an isolated upstream reset (502).
    glitches: Vec<i64>,
    /// Prometheus `query_range` step.
    step: i64,
    seed: u64,
}

impl Plan {
    fn new(scenario: Scenario) -> Self {
        match scenario {
            Scenario::BulkExport => Plan {
                scenario,
                start: SPAN_START,
                end: SPAN_END,
                instances: (0..3)
                    .map(|s| Instance {
                        kill: KILL[s],
                        exit: KILL[s] + EXIT_DELAY,
                        abrupt: true,
                        back: BACK[s],
                        boot: Some(Boot {
                            at: BACK[s],
                            ms: 7_100,
                            version: "4.18.2",
                        }),
                        ..Instance::initial(SERVERS[s], HC_PHASE[s])
                    })
                    .collect(),
                zipf_offset: 1.0,
                glitches: Vec::new(),
                step: STEP,
                seed: 0x5eed_0000_0000_0000,
            },
            Scenario::QuietDay => {
                let mut instances: Vec<Instance> = (0..3)
                    .map(|s| Instance {
                        kill: quiet::DEPLOY[s],
                        exit: quiet::DEPLOY[s] + quiet::EXIT_DELAY,
                        ..Instance::initial(SERVERS[s], HC_PHASE[s])
                    })
                    .collect();
                for s in 0..3 {
                    let boot = Boot {
                        at: quiet::DEPLOY[s] + quiet::STARTED,
                        ms: quiet::BOOT_MS[s],
                        version: quiet::VERSION,
                    };
                    let routed = quiet::DEPLOY[s] + quiet::ROUTED;
                    let hc = quiet::NEW_HC_PHASE[s];
                    instances.push(Instance::started(quiet::NEW[s], hc, boot, routed));
                }
                Plan {
                    scenario,
                    start: quiet::START,
                    end: quiet::END,
                    instances,
                    zipf_offset: 1.0,
                    glitches: quiet::GLITCHES.to_vec(),
                    // What Grafana picks for a 3 h range; keeps db-pool.json small.
                    step: 15_000,
                    seed: 0x5eed_0001_0000_0000,
                }
            }
            Scenario::OrganicGrowth => {
                let mut instances: Vec<Instance> = (0..3)
                    .map(|s| Instance::initial(SERVERS[s], HC_PHASE[s]))
                    .collect();
                for s in 0..2 {
                    let boot = Boot {
                        at: growth::STARTED[s],
                        ms: growth::BOOT_MS[s],
                        version: growth::VERSION,
                    };
                    let hc = growth::NEW_HC_PHASE[s];
                    let routed = growth::ROUTED[s];
                    instances.push(Instance::started(growth::NEW[s], hc, boot, routed));
                }
                Plan {
                    scenario,
                    start: growth::START,
                    end: growth::END,
                    instances,
                    // Flatter than bulk-export's curve: the largest tenant has ~8% of requests.
                    zipf_offset: 2.0,
                    glitches: Vec::new(),
                    step: STEP,
                    seed: 0x5eed_0002_0000_0000,
                }
            }
        }
    }

    fn is_up(&self, s: usize, t: i64) -> bool {
        self.instances[s].is_up(t)
    }

    /// Ordinary requests per second at `t` (every tenant scaled alike).
    fn rate(&self, t: i64) -> f64 {
        match self.scenario {
            Scenario::BulkExport => BASE_RATE,
            Scenario::QuietDay => {
                let x = (t - self.start) as f64 / (self.end - self.start) as f64;
                let bump = (std::f64::consts::PI * x).sin().powi(2);
                quiet::RATE_LOW + (quiet::RATE_HIGH - quiet::RATE_LOW) * bump
            }
            Scenario::OrganicGrowth => growth::BASE_RATE * growth_multiplier(t),
        }
    }

    /// The acme-exporter's incremental sync polls until here.
    fn poll_until(&self) -> i64 {
        match self.scenario {
            Scenario::BulkExport => SURGE_START - 30_000,
            _ => self.end,
        }
    }

    /// Scattered app-bug 500s stay out of this window, so every 500 there belongs to the
    /// incident.
    fn in_incident(&self, t: i64) -> bool {
        match self.scenario {
            Scenario::BulkExport => (SURGE_START..RECOVERED).contains(&t),
            Scenario::QuietDay => false,
            Scenario::OrganicGrowth => (growth::ONSET..growth::RECOVERED).contains(&t),
        }
    }

    /// organic-growth: how much longer each request holds its connection when its pod is
    /// loaded past the knee (the per-pod load at the onset).
    fn slowdown(&self, t: i64) -> f64 {
        let up = self.instances.iter().filter(|i| i.is_up(t)).count().max(1);
        let per_pod = self.rate(t) / up as f64;
        let knee = self.rate(growth::ONSET) / 3.0;
        let over = (per_pod - knee).max(0.0);
        (1.0 + growth::K * over * over).min(growth::H_MAX)
    }

    /// The scheduled job on server `s` crawls because it waits for a connection.
    fn job_slow(&self, s: usize, t: i64) -> bool {
        match self.scenario {
            Scenario::BulkExport => (SATURATED..KILL[s]).contains(&t),
            Scenario::QuietDay => false,
            Scenario::OrganicGrowth => s < 3 && (growth::SATURATED..growth::RELIEF).contains(&t),
        }
    }

    /// When HikariCP's housekeeper starts reporting waiting threads, if it ever can.
    fn pool_log_from(&self) -> Option<i64> {
        match self.scenario {
            Scenario::BulkExport => Some(at(7, 57, 10, 0)),
            Scenario::QuietDay => None,
            Scenario::OrganicGrowth => Some(self.start + 7_000),
        }
    }

    fn pool_watched(&self, s: usize, t: i64) -> bool {
        match self.scenario {
            Scenario::BulkExport => t < KILL[s] || (BACK[s] + 10_000..BACK[2]).contains(&t),
            _ => self.instances[s].running(t),
        }
    }
}

/// organic-growth's load multiplier: 1, a smoothstep ramp, then `PEAK`.
fn growth_multiplier(t: i64) -> f64 {
    let x = ((t - growth::RAMP_FROM) as f64 / (growth::RAMP_TO - growth::RAMP_FROM) as f64)
        .clamp(0.0, 1.0);
    1.0 + (growth::PEAK - 1.0) * x * x * (3.0 - 2.0 * x)
}

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

/// A duration as client-go prints it (`2.318s`, `1m10.884s`).
fn go_duration(ms: i64) -> String {
    if ms >= 60_000 {
        format!("{}m{}", ms / 60_000, secs(ms % 60_000)) + "s"
    } else {
        secs(ms) + "s"
    }
}

fn lerp(t: i64, t0: i64, t1: i64, v0: f64, v1: f64) -> f64 {
    let f = ((t - t0) as f64 / (t1 - t0) as f64).clamp(0.0, 1.0);
    v0 + (v1 - v0) * f
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

/// ~400 tenants with Zipf-like weights 1 / (rank + `offset`) (shuffled so the biggest is not
/// simply acct-1000); returns them with the cumulative weights used to draw one per request.
fn tenants(rng: &mut Rng, offset: f64) -> (Vec<Tenant>, Vec<f64>) {
    let mut ranks: Vec<usize> = (0..TENANTS).collect();
    for i in (1..TENANTS).rev() {
        let j = rng.range(0, i as i64) as usize;
        ranks.swap(i, j);
    }
    let mut cum = Vec::with_capacity(TENANTS);
    let mut acc = 0.0;
    let mut out = Vec::with_capacity(TENANTS);
    for (i, rank) in ranks.iter().enumerate() {
        acc += 1.0 / (*rank as f64 + offset);
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
fn traffic(rng: &mut Rng, plan: &Plan) -> Vec<Req> {
    let (tenants, cum) = tenants(rng, plan.zipf_offset);
    let total = cum.last().copied().unwrap_or(1.0);
    let mut reqs = Vec::new();

    // A Poisson process whose rate follows the plan (slowly enough to take it at each arrival).
    let mut t = plan.start as f64 + rng.gap_ms(plan.rate(plan.start));
    while t < plan.end as f64 {
        let r = rng.unit() * total;
        let i = cum.partition_point(|&c| c <= r).min(TENANTS - 1);
        reqs.push(ordinary(rng, t as i64, &tenants[i]));
        t += rng.gap_ms(plan.rate(t as i64));
    }

    // Normally the integration is an incremental sync: one small page every 2-4 min.
    let mut t = plan.start + rng.range(20_000, 110_000);
    let mut since = plan.start - rng.range(150_000, 200_000);
    while t < plan.poll_until() {
        let q = iso_s(since).replace(':', "%3A");
        let path =
            format!("/api/v1/accounts/{CULPRIT}/test-cases?page=1&per_page=50&updated_since={q}");
        reqs.push(exporter(Kind::ExportPoll, t, path));
        since = t;
        t += rng.range(120_000, 240_000);
    }

    if plan.scenario == Scenario::BulkExport {
        // The bulk export: pages 1, 2, 3, ... at ~150/s after a 3 s ramp-up of its workers.
        let mut t = SURGE_START as f64 + 12.0;
        let mut page = 1;
        while t < SURGE_END as f64 {
            reqs.push(exporter(Kind::Surge, t as i64, export_path(page)));
            page += 1;
            let ramp = (0.25 + 0.75 * (t - SURGE_START as f64) / 3000.0).min(1.0);
            t += rng.gap_ms(SURGE_RATE * ramp);
        }

        // The retry restarts from page 1; pages are picked while simulating (failed ones are
        // re-sent).
        let mut t = RETRY_START as f64 + 20.0;
        while t < RETRY_END as f64 {
            reqs.push(exporter(Kind::Retry, t as i64, String::new()));
            t += rng.gap_ms(RETRY_RATE);
        }
    }

    for (s, inst) in plan.instances.iter().enumerate() {
        let mut t = plan.start + inst.hc_phase;
        while t < inst.routed_from {
            t += 5_000;
        }
        while t < inst.hc_until(plan.end) {
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
    /// 500s after waiting the full connection timeout, with the first and last completion.
    pool_timeouts: u64,
    pool_timeout_span: Option<(i64, i64)>,
    /// When each isolated upstream reset (502) completed.
    glitches: Vec<i64>,
}

struct Sim<'a> {
    plan: &'a Plan,
    rng: Rng,
    rr: usize,
    access: Vec<(i64, String)>,
    holds: Vec<Vec<Hold>>,
    app: Vec<AppLine>,
    first_timeout_logged: Vec<bool>,
    failed: BinaryHeap<Reverse<(i64, i64)>>,
    retry_queue: VecDeque<i64>,
    next_page: i64,
    glitches_done: usize,
    counts: Counts,
}

impl<'a> Sim<'a> {
    fn new(plan: &'a Plan, seed: u64) -> Self {
        let n = plan.instances.len();
        Sim {
            plan,
            rng: Rng(seed),
            rr: 0,
            access: Vec::new(),
            holds: vec![Vec::new(); n],
            app: Vec::new(),
            first_timeout_logged: vec![false; n],
            failed: BinaryHeap::new(),
            retry_queue: VecDeque::new(),
            next_page: 1,
            glitches_done: 0,
            counts: Counts::default(),
        }
    }

    /// nginx round robin over the upstreams that are up; with none up it still rotates (and
    /// fails fast).
    fn route(&mut self, t: i64) -> (usize, bool) {
        let n = self.plan.instances.len();
        for i in 0..n {
            let s = (self.rr + i) % n;
            if self.plan.is_up(s, t) {
                self.rr = (s + 1) % n;
                return (s, true);
            }
        }
        let s = self.rr;
        self.rr = (s + 1) % n;
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

    /// How long a request arriving at `a` on server `s` waits for a pooled connection, and
    /// whether it starves until the 30 s timeout instead.
    fn conn_wait(&mut self, s: usize, a: i64, kind: Kind) -> (i64, bool) {
        match self.plan.scenario {
            Scenario::BulkExport => self.bulk_conn_wait(a, kind),
            Scenario::QuietDay => (0, false),
            Scenario::OrganicGrowth => self.growth_conn_wait(s, a, kind),
        }
    }

    /// HikariCP hands connections out unfairly under contention, so typical waits stay at
    /// seconds while a growing share of waiters never gets one.
    fn bulk_conn_wait(&mut self, a: i64, kind: Kind) -> (i64, bool) {
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
            let up = (0..3).filter(|&s| self.plan.is_up(s, a)).count();
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

    /// The three original pools stay full from `SATURATED` until a fourth pod takes traffic;
    /// then the queue drains within ~1.5 s. Health checks wait too, but less than the LB's 5 s
    /// timeout (no probe fails, nothing restarts).
    fn growth_conn_wait(&mut self, s: usize, a: i64, kind: Kind) -> (i64, bool) {
        use growth::{RELIEF, SATURATED, STARVE_FROM, WAIT_PLATEAU};
        if s >= 3 || !(SATURATED..RELIEF).contains(&a) {
            return (0, false);
        }
        let health = matches!(kind, Kind::Health(_));
        let typical = if a < WAIT_PLATEAU {
            lerp(a, SATURATED, WAIT_PLATEAU, 200.0, 3_000.0)
        } else {
            lerp(a, WAIT_PLATEAU, RELIEF, 3_000.0, 4_000.0)
        };
        let starve_p = if a >= STARVE_FROM {
            (0.02 + 0.12 * (a - STARVE_FROM) as f64 / 360_000.0).min(0.14)
        } else {
            0.0
        };
        let (mut wait, mut starved) = if !health && self.rng.chance(starve_p) {
            (CONN_TIMEOUT, true)
        } else if health {
            (
                self.rng.lognormal(typical * 0.6, 0.35).min(3_000.0) as i64,
                false,
            )
        } else {
            (
                self.rng.lognormal(typical, 0.35).min(29_000.0) as i64,
                false,
            )
        };
        if a + wait > RELIEF {
            wait = RELIEF + self.rng.range(0, 1_500) - a;
            starved = false;
        }
        (wait, starved)
    }

    /// Time a request holds its connection (or, for static files, the whole handling time);
    /// `t` is when it got the connection.
    fn work(&mut self, t: i64, kind: Kind) -> i64 {
        let bulk = self.plan.scenario == Scenario::BulkExport;
        let mult = match kind {
            // Write amplification on a read path: every export page holds a connection for seconds.
            Kind::Surge => return self.rng.range(2_000, 5_000),
            // Re-read pages were already touched by the first run, so they finish sooner.
            Kind::Retry => return self.rng.range(220, 550),
            Kind::ExportPoll => return self.rng.range(40, 80),
            Kind::Static => return self.rng.range(1, 6),
            Kind::Health(_) if bulk && (BACK[0]..RECOVERED).contains(&t) => {
                return self.rng.range(10, 50)
            }
            Kind::Health(_) => return self.rng.range(2, 6),
            Kind::Dashboard => 0.8,
            Kind::Api(Route::Projects) => 1.2,
            Kind::Api(Route::CreateRun) => 1.8,
            Kind::Api(Route::Results) => 1.5,
            Kind::Api(_) => 1.0,
        };
        let (median, sigma, max) = match self.plan.scenario {
            Scenario::BulkExport if (RETRY_START..RETRY_END).contains(&t) => {
                // The retry keeps the database busy: everyone's queries are slower.
                (450.0, 0.3, 2_500.0)
            }
            Scenario::BulkExport if (RETRY_END..RECOVERED).contains(&t) => (
                lerp(t, RETRY_END, RECOVERED, 450.0, 40.0 * mult),
                0.4,
                2_500.0,
            ),
            Scenario::BulkExport if (SATURATED..KILL[2]).contains(&t) => {
                (60.0 * mult, 0.55, 2_500.0)
            }
            Scenario::OrganicGrowth => (40.0 * mult * self.plan.slowdown(t), 0.55, 15_000.0),
            _ => (40.0 * mult, 0.55, 2_500.0),
        };
        self.rng.lognormal(median, sigma).clamp(6.0, max) as i64
    }

    /// Ordinary outcome, with a few scattered app-bug 500s outside the incident.
    fn status_for(&mut self, a: i64, kind: Kind) -> u16 {
        match kind {
            Kind::Static if self.rng.chance(0.3) => 304,
            Kind::Api(route) => {
                let roll = self.rng.unit();
                if roll < 0.002 {
                    404
                } else if roll < 0.0025 && !self.plan.in_incident(a) {
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
        let bulk = self.plan.scenario == Scenario::BulkExport;
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
            Kind::Health(_) if bulk && (HC_FAIL_FROM..KILL[s]).contains(&a) => {
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
                let (wait, starved) = self.conn_wait(s, a, req.kind);
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
                    // bulk-export's phases go by arrival; organic-growth's slowdown by the time
                    // the connection is in hand.
                    let clock = if bulk { a } else { got };
                    let release = got + self.work(clock, req.kind);
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
        let inst = &self.plan.instances[s];
        if inst.abrupt && a < inst.kill {
            let exit = inst.exit;
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

    /// An isolated upstream reset is due and this API request gets it.
    fn glitch(&mut self, req: &Req) -> bool {
        match self.plan.glitches.get(self.glitches_done) {
            Some(&g) if req.at >= g && matches!(req.kind, Kind::Api(_)) => {
                self.glitches_done += 1;
                true
            }
            _ => false,
        }
    }

    fn handle(&mut self, mut req: Req) {
        let mut page = 0;
        if req.kind == Kind::Retry {
            page = self.retry_page(req.at);
            req.path = export_path(page);
        }
        let (s, up) = match req.kind {
            Kind::Health(s) => (s, self.plan.is_up(s, req.at)),
            _ => self.route(req.at),
        };
        let glitch = up && self.glitch(&req);
        let out = if glitch {
            // The upstream resets a keep-alive connection: nginx answers 502, the app logs nothing.
            let done = req.at + self.rng.range(2, 40);
            Outcome {
                status: 502,
                done,
                upstream: Some(done - req.at),
                starved: false,
            }
        } else if up {
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
        if out.done >= self.plan.end {
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
            self.plan.instances[s].srv.addr
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
        if glitch {
            c.glitches.push(out.done);
        }
        if out.starved {
            c.pool_timeouts += 1;
            let (first, last) = c.pool_timeout_span.unwrap_or((out.done, out.done));
            c.pool_timeout_span = Some((first.min(out.done), last.max(out.done)));
        }
        if up && !glitch {
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
                // In bulk-export's storm not every failure is logged; the first one on each
                // server is. Elsewhere each one is.
                let log = self.plan.scenario != Scenario::BulkExport
                    || req.at >= BACK[0]
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

fn db_pool_json(rng: &mut Rng, plan: &Plan, holds: &[Vec<Hold>]) -> String {
    let steps: Vec<i64> = (0..)
        .map(|i| plan.start + i * plan.step)
        .take_while(|&t| t <= plan.end)
        .collect();
    let n = holds.len();
    let mut active = vec![Vec::new(); n];
    let mut pending = vec![Vec::new(); n];
    for (s, server_holds) in holds.iter().enumerate() {
        for &t in &steps {
            let bg = rng.range(3, 5);
            if plan.instances[s].scraped(t) {
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
                plan.instances[s].srv.addr,
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

fn app_background(rng: &mut Rng, plan: &Plan, holds: &[Vec<Hold>], app: &mut Vec<AppLine>) {
    let line = |t: i64, server: usize, level, logger, thread: &str, msg: String| AppLine {
        t,
        server,
        level,
        logger,
        thread: thread.to_string(),
        msg,
    };
    for (s, inst) in plan.instances.iter().enumerate() {
        let mut t = plan.start + 17_000 + s as i64 * 6_000 + rng.range(0, 900);
        let mut n = 0;
        while t < plan.end {
            if inst.running(t) {
                let took = if plan.job_slow(s, t) {
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
        if let Some(first) = plan.pool_log_from() {
            let mut t = first + s as i64 * 300;
            while t < plan.end {
                if plan.pool_watched(s, t) {
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
        }

        if inst.kill != NEVER {
            let k = inst.kill;
            let tomcat = "org.springframework.boot.web.embedded.tomcat.GracefulShutdown";
            let (dt, thread, msg) = if inst.abrupt {
                (
                    212,
                    "tomcat-shutdown",
                    "Graceful shutdown aborted with one or more requests still active",
                )
            } else {
                (108, "tomcat-shutdown", "Graceful shutdown complete")
            };
            let shutdown = [
                (
                    4,
                    "SpringApplicationShutdownHook",
                    tomcat,
                    "Commencing graceful shutdown. Waiting for active requests to complete",
                ),
                (dt, thread, tomcat, msg),
                (
                    dt + 19,
                    "SpringApplicationShutdownHook",
                    "com.zaxxer.hikari.HikariDataSource",
                    "HikariPool-1 - Shutdown initiated...",
                ),
                (
                    dt + 75,
                    "SpringApplicationShutdownHook",
                    "com.zaxxer.hikari.HikariDataSource",
                    "HikariPool-1 - Shutdown completed.",
                ),
            ];
            for (dt, thread, logger, msg) in shutdown {
                app.push(line(k + dt, s, "INFO", logger, thread, msg.to_string()));
            }
        }

        if let Some(boot) = &inst.boot {
            // bulk-export's restart takes 7.1 s; other boots stretch the same sequence.
            let d = |dt: i64| dt * boot.ms / 7_100;
            let startup = [
                (
                    d(352),
                    "com.acme.api.ApiApplication",
                    format!(
                        "Starting ApiApplication v{} using Java 17.0.9",
                        boot.version
                    ),
                ),
                (
                    d(418),
                    "com.acme.api.ApiApplication",
                    "The following 1 profile is active: \"prod\"".to_string(),
                ),
                (
                    d(2_140),
                    "org.springframework.boot.web.embedded.tomcat.TomcatWebServer",
                    "Tomcat initialized with port 8080 (http)".to_string(),
                ),
                (
                    d(3_912),
                    "com.zaxxer.hikari.HikariDataSource",
                    "HikariPool-1 - Starting...".to_string(),
                ),
                (
                    d(4_327),
                    "com.zaxxer.hikari.HikariDataSource",
                    "HikariPool-1 - Start completed.".to_string(),
                ),
                (
                    d(6_618),
                    "org.springframework.boot.web.embedded.tomcat.TomcatWebServer",
                    "Tomcat started on port(s): 8080 (http) with context path ''".to_string(),
                ),
                (
                    boot.ms,
                    "com.acme.api.ApiApplication",
                    format!(
                        "Started ApiApplication in {} seconds (process running for {}.{})",
                        secs(boot.ms - 688),
                        boot.ms / 1000,
                        boot.ms % 1000 / 100
                    ),
                ),
            ];
            for (dt, logger, msg) in startup {
                app.push(line(boot.at + dt, s, "INFO", logger, "main", msg));
            }
        }
    }
}

/// JSON string literal.
fn js(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

fn ecs_line(plan: &Plan, l: &AppLine) -> String {
    format!(
        "{{\"@timestamp\":\"{}\",\"log.level\":\"{}\",\"message\":{},\"ecs.version\":\"1.2.0\",\"service.name\":\"api\",\"event.dataset\":\"api\",\"process.thread.name\":{},\"log.logger\":{},\"host.hostname\":\"{}\"}}",
        iso_ms(l.t),
        l.level,
        js(&l.msg),
        js(&l.thread),
        js(l.logger),
        plan.instances[l.server].srv.pod
    )
}

// ---------------------------------------------------------------------------------------------
// Kubernetes events.

/// What an event is about: a pod (index into the plan's instances), or a Deployment.
#[derive(Clone, Copy)]
enum Obj {
    Pod(usize),
    Deployment(&'static str),
}

struct Ev {
    first: i64,
    last: i64,
    count: i64,
    obj: Obj,
    reason: &'static str,
    message: String,
    warning: bool,
    name: String,
    uid: String,
}

/// One event object; `every` > 0 emits it again with a growing count, as a watch would show.
struct EvSpec {
    obj: Obj,
    first: i64,
    times: i64,
    every: i64,
    reason: &'static str,
    message: String,
    warning: bool,
}

impl EvSpec {
    fn once(obj: Obj, first: i64, reason: &'static str, message: String) -> Self {
        EvSpec {
            obj,
            first,
            times: 1,
            every: 0,
            reason,
            message,
            warning: false,
        }
    }
}

fn bulk_events() -> Vec<EvSpec> {
    let mut specs = vec![EvSpec::once(
        Obj::Deployment("worker"),
        at(7, 40, 12, 0),
        "ScalingReplicaSet",
        "Scaled up replica set worker-5b6c7d8e9 to 3".to_string(),
    )];
    for (s, srv) in SERVERS.iter().enumerate() {
        let fail = at(7, 57, 54, 0) + s as i64 * 1000;
        let probe = format!(
            "Get \"http://{}/healthz\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
            srv.addr
        );
        let kill = KILL[s] - KILL[s] % 1000;
        let back = BACK[s];
        let spec = |first, times, every, reason, message: String, warning| EvSpec {
            obj: Obj::Pod(s),
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
    specs
}

/// A new pod's kubelet events: the image is pulled (it is not on the node yet), the container
/// created and started.
fn pod_start_events(
    pod: usize,
    pulling: i64,
    pull_ms: i64,
    started: i64,
    version: &str,
) -> [EvSpec; 4] {
    let image = format!("registry.example.com/api:{version}");
    let pulled = format!(
        "Successfully pulled image \"{image}\" in {} ({} including waiting)",
        go_duration(pull_ms),
        go_duration(pull_ms)
    );
    [
        EvSpec::once(
            Obj::Pod(pod),
            pulling,
            "Pulling",
            format!("Pulling image \"{image}\""),
        ),
        EvSpec::once(Obj::Pod(pod), pulling + pull_ms, "Pulled", pulled),
        EvSpec::once(
            Obj::Pod(pod),
            started - 300,
            "Created",
            "Created container api".to_string(),
        ),
        EvSpec::once(
            Obj::Pod(pod),
            started,
            "Started",
            "Started container api".to_string(),
        ),
    ]
}

fn quiet_events() -> Vec<EvSpec> {
    let worker = |t, msg: &str| {
        EvSpec::once(
            Obj::Deployment("worker"),
            t,
            "ScalingReplicaSet",
            msg.to_string(),
        )
    };
    let mut specs = vec![
        worker(
            day_at(2, 9, 12, 40, 0),
            "Scaled up replica set worker-5b6c7d8e9 to 3",
        ),
        worker(
            day_at(2, 11, 41, 5, 0),
            "Scaled down replica set worker-5b6c7d8e9 to 2",
        ),
    ];
    for (s, &d) in quiet::DEPLOY.iter().enumerate() {
        let api = Obj::Deployment("api");
        let down = format!("Scaled down replica set {} to {}", quiet::OLD_RS, 2 - s);
        let up = format!("Scaled up replica set {} to {}", quiet::NEW_RS, s + 1);
        specs.push(EvSpec::once(api, d, "ScalingReplicaSet", down));
        specs.push(EvSpec::once(api, d, "ScalingReplicaSet", up));
        let stop = "Stopping container api".to_string();
        specs.push(EvSpec::once(Obj::Pod(s), d, "Killing", stop));
        specs.extend(pod_start_events(
            3 + s,
            d + 1_000,
            quiet::PULL_MS[s],
            d + quiet::STARTED,
            quiet::VERSION,
        ));
    }
    specs
}

fn growth_events() -> Vec<EvSpec> {
    let mut specs = vec![
        EvSpec::once(
            Obj::Deployment("worker"),
            day_at(4, 14, 5, 10, 0),
            "ScalingReplicaSet",
            "Scaled down replica set worker-5b6c7d8e9 to 2".to_string(),
        ),
        EvSpec::once(
            Obj::Deployment("api"),
            growth::SCALE_OUT,
            "ScalingReplicaSet",
            format!("Scaled up replica set {} to 5", growth::RS),
        ),
    ];
    for s in 0..2 {
        specs.extend(pod_start_events(
            3 + s,
            growth::PULLING[s],
            growth::PULL_MS[s],
            growth::STARTED[s],
            growth::VERSION,
        ));
    }
    specs
}

/// (uid, resourceVersion) of a Deployment.
fn deployment_ids(name: &str) -> (&'static str, &'static str) {
    match name {
        "worker" => ("5f0c2a8e-3b71-4d09-9e6a-0c4b7d2f81a3", "48163220"),
        _ => ("c3e1b7a4-6d2f-4e88-a1b9-7f05d2c64e10", "48163187"),
    }
}

fn events_json(rng: &mut Rng, plan: &Plan) -> Res<(String, usize)> {
    let pod_uids: Vec<String> = plan.instances.iter().map(|_| rng.uuid()).collect();
    let specs = match plan.scenario {
        Scenario::BulkExport => bulk_events(),
        Scenario::QuietDay => quiet_events(),
        Scenario::OrganicGrowth => growth_events(),
    };

    let mut evs = Vec::new();
    for sp in specs {
        let obj = match sp.obj {
            Obj::Pod(s) => plan.instances[s].srv.pod,
            Obj::Deployment(name) => name,
        };
        // Event names are `<object>.<creation time in ns, hex>`, as client-go makes them.
        let nanos = sp.first * 1_000_000 + rng.range(0, 999_999);
        let name = format!("{obj}.{nanos:x}");
        let uid = rng.uuid();
        for i in 0..sp.times {
            evs.push(Ev {
                first: sp.first,
                last: sp.first + i * sp.every,
                count: i + 1,
                obj: sp.obj,
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
        let (involved, source, reporter) = match e.obj {
            Obj::Pod(s) => {
                let srv = plan.instances[s].srv;
                (
                    json!({
                        "apiVersion": "v1",
                        "fieldPath": "spec.containers{api}",
                        "kind": "Pod",
                        "name": srv.pod,
                        "namespace": "prod",
                        "resourceVersion": (48_102_117 + s * 3_311).to_string(),
                        "uid": pod_uids[s],
                    }),
                    json!({"component": "kubelet", "host": srv.node}),
                    ("kubelet", srv.node),
                )
            }
            Obj::Deployment(name) => {
                let (uid, version) = deployment_ids(name);
                (
                    json!({
                        "apiVersion": "apps/v1",
                        "kind": "Deployment",
                        "name": name,
                        "namespace": "prod",
                        "resourceVersion": version,
                        "uid": uid,
                    }),
                    json!({"component": "deployment-controller"}),
                    ("deployment-controller", ""),
                )
            }
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
// Ground truth.

fn bulk_truth(c: &Counts, app_lines: usize, n_events: usize) -> Value {
    json!({
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
            "app_log_lines": app_lines,
            "event_items": n_events,
        },
    })
}

/// Counts shared by the negative controls.
fn control_counts(c: &Counts, app_lines: usize, n_events: usize) -> Value {
    json!({
        "access_log_lines": c.lines,
        "exporter_requests": c.culprit,
        "healthcheck_requests": c.healthchecks,
        "status_5xx": c.s5xx,
        "status_500": c.s500,
        "status_500_pool_timeout": c.pool_timeouts,
        "status_502": c.s502,
        "status_504": c.s504,
        "app_log_lines": app_lines,
        "event_items": n_events,
    })
}

fn quiet_truth(plan: &Plan, c: &Counts, app_lines: usize, n_events: usize) -> Value {
    let steps: Vec<Value> = (0..3)
        .map(|s| {
            let d = quiet::DEPLOY[s];
            json!({
                "old_pod": SERVERS[s].pod,
                "old_instance": SERVERS[s].addr,
                "stopped": iso_s(d),
                "new_pod": quiet::NEW[s].pod,
                "new_instance": quiet::NEW[s].addr,
                "started": iso_s(d + quiet::STARTED),
                "routed": iso_s(d + quiet::ROUTED),
            })
        })
        .collect();
    json!({
        "scenario": "quiet-day",
        "incident": false,
        "onset": null,
        "recovered": null,
        "culprit": null,
        "patterns": [],
        "span": {"start": iso_s(plan.start), "end": iso_s(plan.end)},
        "routine": {
            "deploy": {
                "deployment": "api",
                "version": quiet::VERSION,
                "from_replica_set": quiet::OLD_RS,
                "to_replica_set": quiet::NEW_RS,
                "start": iso_s(quiet::DEPLOY[0]),
                "end": iso_s(quiet::DEPLOY[2] + quiet::ROUTED),
                "steps": steps,
            },
            "isolated_502": c.glitches.iter().map(|&t| iso_ms(t)).collect::<Vec<_>>(),
            "request_rate_per_s": {
                "at_start": quiet::RATE_LOW,
                "peak": quiet::RATE_HIGH,
                "peak_at": iso_s((plan.start + plan.end) / 2),
                "at_end": quiet::RATE_LOW,
            },
        },
        "instances": plan.instances.iter().map(|i| i.srv.addr).collect::<Vec<_>>(),
        "pods": plan.instances.iter().map(|i| i.srv.pod).collect::<Vec<_>>(),
        "counts": control_counts(c, app_lines, n_events),
    })
}

/// The tenant with the most requests in [from, to), and its share of all non-health-check
/// requests there.
fn top_tenant(access: &[(i64, String)], from: i64, to: i64) -> Value {
    let mut per: HashMap<&str, u64> = HashMap::new();
    let mut total = 0u64;
    for (t, l) in access {
        if !(from..to).contains(t) || l.contains(HC_UA) {
            continue;
        }
        total += 1;
        if let Some((_, rest)) = l.split_once("/api/v1/accounts/") {
            let id = rest.split(['/', '?', ' ']).next().unwrap_or("");
            *per.entry(id).or_default() += 1;
        }
    }
    let (id, n) = per
        .into_iter()
        .max_by_key(|&(id, n)| (n, Reverse(id)))
        .unwrap_or(("", 0));
    let share = if total > 0 {
        (n as f64 / total as f64 * 10_000.0).round() / 10_000.0
    } else {
        0.0
    };
    json!({"tenant": id, "share": share, "tenant_requests": n, "all_requests": total})
}

fn growth_truth(
    plan: &Plan,
    access: &[(i64, String)],
    c: &Counts,
    app_lines: usize,
    n_events: usize,
) -> Value {
    let (first_500, last_500) = c.pool_timeout_span.unwrap_or((0, 0));
    json!({
        "scenario": "organic-growth",
        "incident": true,
        "onset": iso_s(growth::ONSET),
        // The slowdown creeps in (mean latency +30% over its first minute): no
        // tool can date it to ten seconds, so the tests allow a minute.
        "onset_tolerance_s": 60,
        // The pools fill gradually: single samples touch the maximum before
        // the scripted saturation, so timeline entries get a minute too.
        "timeline_tolerance_s": 60,
        "recovered": iso_s(growth::RECOVERED),
        "culprit": null,
        "organic": true,
        "patterns": ["pool_exhaustion"],
        "span": {"start": iso_s(plan.start), "end": iso_s(plan.end)},
        "load": {
            "base_rate_per_s": growth::BASE_RATE,
            "multiplier": growth::PEAK,
            "ramp_start": iso_s(growth::RAMP_FROM),
            "ramp_end": iso_s(growth::RAMP_TO),
            "largest_tenant_before": top_tenant(access, plan.start, growth::RAMP_FROM),
            "largest_tenant_after": top_tenant(access, growth::RAMP_TO, plan.end),
        },
        "timeline": {
            "load_ramp_start": iso_s(growth::RAMP_FROM),
            "latency_rising": iso_s(growth::ONSET),
            "pool_saturated": iso_s(growth::SATURATED),
            "errors_start": iso_s(growth::STARVE_FROM + CONN_TIMEOUT),
            "load_ramp_end": iso_s(growth::RAMP_TO),
            "scale_out": iso_s(growth::SCALE_OUT),
            "new_pods_started": growth::STARTED.iter().map(|&t| iso_s(t)).collect::<Vec<_>>(),
            "new_pods_routed": growth::ROUTED.iter().map(|&t| iso_s(t)).collect::<Vec<_>>(),
            "errors_end": iso_s(growth::RELIEF),
            "recovered": iso_s(growth::RECOVERED),
        },
        "observed": {
            "first_pool_timeout_500": iso_ms(first_500),
            "last_pool_timeout_500": iso_ms(last_500),
        },
        "no_restarts": true,
        "instances": plan.instances.iter().map(|i| i.srv.addr).collect::<Vec<_>>(),
        "pods": plan.instances.iter().map(|i| i.srv.pod).collect::<Vec<_>>(),
        "new_instances": growth::NEW.iter().map(|s| s.addr).collect::<Vec<_>>(),
        "counts": control_counts(c, app_lines, n_events),
    })
}

// ---------------------------------------------------------------------------------------------
// Output.

fn write_gz(path: &Path, lines: &[String], level: Compression) -> Res<u64> {
    let file = BufWriter::new(fs::File::create(path)?);
    // mtime 0 and no file name: the gzip header would otherwise differ between runs.
    let mut gz = GzBuilder::new().mtime(0).write(file, level);
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

const USAGE: &str = "usage: gen_sample [--scenario bulk-export|quiet-day|organic-growth] [OUT_DIR]";

fn parse_scenario(name: &str) -> Res<Scenario> {
    Scenario::ALL
        .into_iter()
        .find(|s| s.name() == name)
        .ok_or_else(|| format!("unknown scenario {name:?}\n{USAGE}").into())
}

fn parse_args() -> Res<(Scenario, PathBuf)> {
    let mut scenario = Scenario::BulkExport;
    let mut dir: Option<PathBuf> = None;
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        let text = arg.to_str().unwrap_or("");
        if text == "--scenario" {
            let value = args.next().unwrap_or_default();
            scenario = parse_scenario(value.to_str().unwrap_or(""))?;
        } else if let Some(value) = text.strip_prefix("--scenario=") {
            scenario = parse_scenario(value)?;
        } else if text == "-h" || text == "--help" {
            println!("{USAGE}");
            std::process::exit(0);
        } else if text.starts_with('-') || dir.is_some() {
            return Err(format!("unexpected argument {arg:?}\n{USAGE}").into());
        } else {
            dir = Some(PathBuf::from(arg));
        }
    }
    let dir = dir.unwrap_or_else(|| Path::new("samples").join(scenario.name()));
    Ok((scenario, dir))
}

fn main() -> Res<()> {
    let (scenario, dir) = parse_args().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let plan = Plan::new(scenario);
    fs::create_dir_all(&dir)?;
    // bulk-export's files were first written at the default level; the longer controls use the
    // best one to stay small.
    let level = match scenario {
        Scenario::BulkExport => Compression::default(),
        _ => Compression::best(),
    };

    // Separate streams, so tuning one output does not reshuffle the others.
    let mut traffic_rng = Rng(plan.seed + 1);
    let mut metrics_rng = Rng(plan.seed + 2);
    let mut app_rng = Rng(plan.seed + 3);
    let mut events_rng = Rng(plan.seed + 4);

    let mut sim = Sim::new(&plan, plan.seed + 5);
    for req in traffic(&mut traffic_rng, &plan) {
        sim.handle(req);
    }

    let mut access_timed = std::mem::take(&mut sim.access);
    access_timed.sort_by_key(|(t, _)| *t);
    let tops = match scenario {
        Scenario::OrganicGrowth => access_timed.clone(),
        _ => Vec::new(),
    };
    let access: Vec<String> = access_timed.into_iter().map(|(_, l)| l).collect();
    let bytes = write_gz(&dir.join("access.log.gz"), &access, level)?;
    eprintln!("access.log.gz: {} lines, {bytes} bytes", access.len());

    let mut app = std::mem::take(&mut sim.app);
    app_background(&mut app_rng, &plan, &sim.holds, &mut app);
    app.retain(|l| (plan.start..plan.end).contains(&l.t));
    app.sort_by_key(|l| l.t);
    let app: Vec<String> = app.iter().map(|l| ecs_line(&plan, l)).collect();
    let bytes = write_gz(&dir.join("app.jsonl.gz"), &app, level)?;
    eprintln!("app.jsonl.gz: {} lines, {bytes} bytes", app.len());

    let pool = db_pool_json(&mut metrics_rng, &plan, &sim.holds);
    let bytes = write_text(&dir.join("db-pool.json"), &pool)?;
    eprintln!(
        "db-pool.json: {} lines, {bytes} bytes",
        pool.lines().count()
    );

    let (events, n_events) = events_json(&mut events_rng, &plan)?;
    let bytes = write_text(&dir.join("events.json"), &events)?;
    eprintln!(
        "events.json: {n_events} events, {} lines, {bytes} bytes",
        events.lines().count()
    );

    let c = &sim.counts;
    let truth = match scenario {
        Scenario::BulkExport => bulk_truth(c, app.len(), n_events),
        Scenario::QuietDay => quiet_truth(&plan, c, app.len(), n_events),
        Scenario::OrganicGrowth => growth_truth(&plan, &tops, c, app.len(), n_events),
    };
    let truth = serde_json::to_string_pretty(&truth)? + "\n";
    let bytes = write_text(&dir.join("truth.json"), &truth)?;
    eprintln!("truth.json: {} lines, {bytes} bytes", truth.lines().count());
    Ok(())
}
