//! A discrete-event simulation of a web service, one request at a time. In: a [`Config`] (the
//! service, its traffic and what happens to it). Out: the [`World`] (every request the load
//! balancer saw, every log line, metric point, orchestrator event and change) and the
//! [`Ground`] (what only the simulation knows: who waited for the pool, when responders were
//! alerted).
//!
//! The model: clients send requests to a load balancer that picks a ready instance round
//! robin (503 when none is ready or its own limit is reached; 504 after its upstream timeout).
//! On an instance a request takes CPU ([`cpu`]), then a database connection from the
//! instance's pool for its hold time ([`pool`]; 500 with the pool library's message after the
//! acquire timeout). Kubernetes probes run through the same CPU and, when configured, the same
//! pool; failed liveness probes kill the process (requests in flight: 502), which restarts in
//! place after a back-off and boots before it is routed again. Clients retry per their own
//! policy. Nothing is decided per second: symptoms emerge from the requests.
//!
//! ```ignore
//! let (world, ground) = sim::run(&config, seed);
//! ```

pub mod config;
pub mod cpu;
pub mod pool;

mod actors;
mod changes;
mod flow;
mod life;
mod observe;
#[cfg(test)]
mod tests;

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::facts::*;
use super::rng::Rng;
pub use config::*;
use cpu::Cpu;
use pool::Pool;

/// What only the simulation knows about one request (parallel to `World::requests`).
#[derive(Clone, Copy, Debug, Default)]
pub struct ReqTruth {
    /// Index into [`Ground::routes`]: the template its path was made from.
    pub route: u16,
    /// A failure drawn as background noise (a scattered application error), not caused by
    /// any condition of the service.
    pub noise: bool,
    /// Time spent waiting for a pool connection, and holding one.
    pub pool_wait_ms: u32,
    pub pool_hold_ms: u32,
}

/// What only the simulation knows, for the truth.
#[derive(Clone, Debug, Default)]
pub struct Ground {
    /// One per request of `World::requests`, in the same order.
    pub requests: Vec<ReqTruth>,
    /// The route templates (`/api/v1/accounts/{tenant}/exports`).
    pub routes: Vec<String>,
    /// Per instance (index of `World::instances`): spans with a request waiting for the pool.
    pub pool_waits: Vec<Vec<(Ms, Ms)>>,
    /// Probe failures: (time, instance, liveness?).
    pub probe_failures: Vec<(Ms, usize, bool)>,
    /// When the responders were alerted, and each action as it was carried out.
    pub alert_at: Option<Ms>,
    pub actions: Vec<(Ms, String)>,
    /// Spans during which the circuit breaker was open.
    pub breaker_open: Vec<(Ms, Ms)>,
    /// Queue depth each second, when there is a queue.
    pub queue: Vec<(Ms, f64)>,
    /// When each stuck instance stopped answering.
    pub stuck: Vec<(usize, Ms)>,
    /// Upstream rate-limit rejections (time).
    pub upstream_limited: Vec<Ms>,
    /// When each actor finished or gave up.
    pub actor_end: Vec<Option<Ms>>,
    /// Mean API latency the configuration implies with no contention (ms).
    pub expected_latency_ms: f64,
}

pub(crate) const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    New,
    /// Waiting for a worker thread.
    Queued,
    Cpu,
    PoolWait,
    Db,
    Dep,
    Hung,
    Done,
}

/// Who sent a request, so its outcome reaches the right client logic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    Ordinary,
    /// (actor, worker or client)
    Actor(u32, u32),
    /// A kubelet probe: liveness (true) or readiness.
    Probe(bool),
}

struct Flight {
    t0: Ms,
    route: u16,
    kind: ReqKind,
    tenant: u32,
    owner: Owner,
    attempt: u8,
    retry: bool,
    inst: u32,
    life: u32,
    slot: u32,
    stage: Stage,
    lb_done: bool,
    cpu_ms: f32,
    db_ms: f32,
    dep_ms: f32,
    wait_from: Ms,
    hold_from: Ms,
    pool_wait: u32,
    pool_hold: u32,
    status: u16,
    failure: Option<Failure>,
    noise: bool,
    leak: bool,
    path: String,
    query: String,
    ip: u32,
    ua: u32,
    /// Index into `World::requests` once the load balancer answered and it is recorded.
    out: u32,
    /// The client gives up after this long (0: waits for the load balancer).
    client_timeout: Ms,
    record: bool,
    /// Extra per actor: the export page, the job id.
    tag: u32,
    /// It holds one of the instance's worker threads.
    worker: bool,
}

impl Flight {
    fn new(t0: Ms, route: usize, kind: ReqKind, owner: Owner) -> Flight {
        Flight {
            t0,
            route: route as u16,
            kind,
            tenant: NONE,
            owner,
            attempt: 1,
            retry: false,
            inst: NONE,
            life: 0,
            slot: NONE,
            stage: Stage::New,
            lb_done: false,
            cpu_ms: 1.0,
            db_ms: 0.0,
            dep_ms: 0.0,
            wait_from: 0,
            hold_from: 0,
            pool_wait: 0,
            pool_hold: 0,
            status: 200,
            failure: None,
            noise: false,
            leak: false,
            path: String::new(),
            query: String::new(),
            ip: 0,
            ua: 0,
            out: NONE,
            client_timeout: 0,
            record: true,
            tag: 0,
            worker: false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    Pending,
    Booting,
    Up,
    Draining,
    Down,
    Gone,
}

struct Inst {
    st: St,
    life: u32,
    version: usize,
    cpu: Cpu,
    pool: Pool,
    flights: Vec<u32>,
    /// Worker threads in use, and the requests waiting for one.
    busy: u32,
    line: std::collections::VecDeque<u32>,
    ready: bool,
    live_fails: u32,
    ready_fails: u32,
    stuck: bool,
    refuse_until: Ms,
    /// Restarts in place (for the back-off) and the container restart counter.
    restart_times: Vec<Ms>,
    restarts: u32,
    up_since: Ms,
    pid: u32,
    served: u64,
    served_prev: u64,
    busy_prev: f64,
    canary: bool,
    node_ip: String,
    stop_deadline: Ms,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Arrive(u32),
    Deadline(u32),
    CpuCheck(u32, u32),
    DbDone(u32),
    DepDone(u32),
    AcquireTimeout(u32),
    Probe(u32, bool, u32),
    Start(u32, u32),
    Boot(u32, u32),
    StopCheck(u32, u32),
    Scrape,
    Tick,
    Script(u32),
    Step(u32),
    RolloutStep(u32),
    Ordinary,
    /// An actor's timer: (actor, worker or client, a generation so stale timers are ignored).
    Actor(u32, u32, u32),
    /// A client re-sends a failed request: the flight to copy.
    Retry(u32),
    BreakerClose,
}

struct Entry {
    t: Ms,
    seq: u64,
    ev: Ev,
}
impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.t == o.t && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        // A max-heap: the earliest time (then the first scheduled) on top.
        o.t.cmp(&self.t).then(o.seq.cmp(&self.seq))
    }
}

pub struct Sim<'c> {
    cfg: &'c Config,
    rng: Rng,
    now: Ms,
    seq: u64,
    heap: BinaryHeap<Entry>,
    flights: Vec<Flight>,
    insts: Vec<Inst>,
    world: World,
    ground: Ground,
    /// Instances the load balancer routes to, and its round-robin position.
    ready: Vec<u32>,
    rr: usize,
    lb_inflight: u32,
    /// Interned client addresses and user agents.
    strs: Vec<String>,
    tenant_ips: Vec<(u32, u32)>,
    tenant_ua: Vec<u32>,
    tenant_cum: Vec<f64>,
    route_cum: Vec<f64>,
    ordinary_max: f64,
    /// Per-tenant edge rate limits: (rps, tokens, last refill).
    limits: Vec<Option<(f64, f64, Ms)>>,
    flag_on: bool,
    db_fix: f64,
    breaker_until: Option<Ms>,
    /// The breaker's window: the last database calls, true when failed or slow.
    calls: std::collections::VecDeque<bool>,
    /// The fleet's current version and replica set per version.
    version: usize,
    rs_names: Vec<String>,
    canary_rs: String,
    rollouts: Vec<changes::Rollout>,
    /// Alert state: per-second (requests, failures, latency sum) of API requests answered.
    secs: Vec<(u32, u32, f64)>,
    alert_streak: u32,
    /// The responders' idea of normal: API failures per request and mean latency before
    /// they were armed.
    alert_base: Option<(f64, f64)>,
    next_step: usize,
    actors: actors::ActorState,
    series_idx: std::collections::HashMap<(MetricRole, u32), usize>,
    next_ip: u32,
    nodes: Vec<String>,
    node_ips: Vec<String>,
}

/// Plays the configuration and returns what happened.
pub fn run(cfg: &Config, seed: u64) -> (World, Ground) {
    let mut sim = Sim::new(cfg, seed);
    sim.init();
    sim.play();
    sim.finish()
}

impl<'c> Sim<'c> {
    fn new(cfg: &'c Config, seed: u64) -> Sim<'c> {
        let mut rng = Rng::new(seed);
        let world = World {
            start: cfg.start,
            end: cfg.end,
            service: cfg.service.clone(),
            deployment: cfg.service.clone(),
            namespace: cfg.namespace.clone(),
            host: cfg.host.clone(),
            tenants: cfg.people.tenants.clone(),
            ..World::default()
        };
        let rs_names = cfg
            .versions
            .iter()
            .map(|_| format!("{}-{}", cfg.service, rng.k8s_suffix(10)))
            .collect();
        let canary_rs = format!("{}-canary-{}", cfg.service, rng.k8s_suffix(10));
        let (db, cpu) = cfg.api.mix_means();
        let ground = Ground {
            routes: cfg.api.routes.iter().map(|r| r.template.clone()).collect(),
            expected_latency_ms: db + cpu + 2.0,
            actor_end: vec![None; cfg.actors.len()],
            ..Ground::default()
        };
        let n_nodes = cfg.fleet.n * 3 + 8;
        let node_style = rng.range(0, 3);
        let mut nodes = Vec::new();
        let mut node_ips = Vec::new();
        let cluster = rng.hex(8);
        for i in 0..n_nodes {
            let (a, b) = (rng.range(0, 3), rng.range(2, 250));
            node_ips.push(format!("10.0.{a}.{b}"));
            nodes.push(match node_style {
                0 => format!("ip-10-0-{a}-{b}.ec2.internal"),
                1 => format!("gke-prod-pool-1-{cluster}-{}", rng.k8s_suffix(4)),
                2 => format!("aks-nodepool1-{}-vmss{:06}", &cluster[..8], i),
                _ => format!("worker-{}", i + 1),
            });
        }
        Sim {
            cfg,
            rng,
            now: cfg.start,
            seq: 0,
            heap: BinaryHeap::new(),
            flights: Vec::new(),
            insts: Vec::new(),
            world,
            ground,
            ready: Vec::new(),
            rr: 0,
            lb_inflight: 0,
            strs: Vec::new(),
            tenant_ips: Vec::new(),
            tenant_ua: Vec::new(),
            tenant_cum: Vec::new(),
            route_cum: Vec::new(),
            ordinary_max: 0.0,
            limits: vec![None; cfg.people.tenants.len()],
            flag_on: false,
            db_fix: 1.0,
            breaker_until: None,
            calls: Default::default(),
            version: 0,
            rs_names,
            canary_rs,
            rollouts: Vec::new(),
            secs: vec![(0, 0, 0.0); ((cfg.end - cfg.start) / 1000 + 600) as usize],
            alert_streak: 0,
            alert_base: None,
            next_step: 0,
            actors: actors::ActorState::default(),
            series_idx: Default::default(),
            next_ip: 0,
            nodes,
            node_ips,
        }
    }

    fn at(&mut self, t: Ms, ev: Ev) {
        self.seq += 1;
        self.heap.push(Entry {
            t: t.max(self.now),
            seq: self.seq,
            ev,
        });
    }

    fn intern(&mut self, s: &str) -> u32 {
        self.strs.push(s.to_string());
        (self.strs.len() - 1) as u32
    }

    fn init(&mut self) {
        let cfg = self.cfg;
        for (t, tenant) in cfg.people.tenants.iter().enumerate() {
            let first = self.strs.len() as u32;
            for ip in &cfg.people.ips[t] {
                self.intern(ip);
            }
            self.tenant_ips
                .push((first, cfg.people.ips[t].len() as u32));
            let ua = self.intern(&tenant.user_agent);
            self.tenant_ua.push(ua);
        }
        let mut acc = 0.0;
        self.tenant_cum = cfg
            .people
            .weights
            .iter()
            .map(|w| {
                acc += w;
                acc
            })
            .collect();
        let mut acc = 0.0;
        self.route_cum = cfg
            .api
            .weights()
            .iter()
            .map(|w| {
                acc += w;
                acc
            })
            .collect();
        for i in 0..cfg.fleet.n {
            let inst = self.create_instance(0, false);
            // The initial fleet has been up for a while: no start-up lines in the span.
            let since = cfg.start - self.rng.range(3_600_000, 30 * 86_400_000);
            self.begin_life(inst, since, false);
            let up = &mut self.insts[inst as usize];
            up.st = St::Up;
            up.up_since = cfg.start - 3_600_000;
            self.set_ready(inst, true);
            self.schedule_probes(inst, i as Ms * 997);
        }
        self.actors_init();
        let peak = 1.0 + (cfg.traffic.peak_ratio - 1.0) / (cfg.traffic.peak_ratio + 1.0);
        self.ordinary_max =
            cfg.traffic.rate * peak * cfg.traffic.mult.max_over(cfg.start, cfg.end) * 1.02;
        self.next_ordinary();
        let first = cfg.start + self.rng.range(0, cfg.scrape_ms - 1);
        self.at(first, Ev::Scrape);
        self.at(cfg.start + 10_000, Ev::Tick);
        for (i, (t, _)) in cfg.script.iter().enumerate() {
            self.at(*t, Ev::Script(i as u32));
        }
    }

    fn play(&mut self) {
        let stop = self.cfg.end + self.cfg.lb.timeout_ms + 1000;
        let mut done = Vec::new();
        while let Some(e) = self.heap.pop() {
            if e.t > stop {
                break;
            }
            self.now = e.t;
            match e.ev {
                Ev::Arrive(f) => self.arrive(f),
                Ev::Deadline(f) => self.deadline(f),
                Ev::CpuCheck(i, ver) => {
                    if self.insts[i as usize].cpu.ver == ver {
                        done.clear();
                        self.insts[i as usize].cpu.pop_done(self.now, &mut done);
                        for f in done.drain(..) {
                            self.cpu_done(f);
                        }
                        self.cpu_schedule(i);
                    }
                }
                Ev::DbDone(f) => self.db_done(f),
                Ev::DepDone(f) => self.dep_done(f),
                Ev::AcquireTimeout(f) => self.acquire_timeout(f),
                Ev::Probe(i, live, life) => self.probe(i, live, life),
                Ev::Start(i, life) => self.start(i, life),
                Ev::Boot(i, life) => self.boot(i, life),
                Ev::StopCheck(i, life) => self.stop_check(i, life),
                Ev::Scrape => self.scrape(),
                Ev::Tick => self.tick(),
                Ev::Script(k) => {
                    let a = self.cfg.script[k as usize].1.clone();
                    self.act(&a, false);
                }
                Ev::Step(k) => {
                    let a = self.cfg.responders.steps[k as usize].1.clone();
                    self.act(&a, true);
                    if let Some((delay, _)) = self.cfg.responders.steps.get(k as usize + 1) {
                        self.at(self.now + delay, Ev::Step(k + 1));
                    }
                }
                Ev::RolloutStep(r) => self.rollout_step(r),
                Ev::Ordinary => self.ordinary(),
                Ev::Actor(a, w, g) => self.actor_timer(a, w, g),
                Ev::Retry(f) => self.retry(f),
                Ev::BreakerClose => self.breaker_close(),
            }
        }
    }

    fn finish(mut self) -> (World, Ground) {
        let end = self.cfg.end;
        // A kill already sized the table (`life.rs`): each instance's last
        // life joins its own entry (pushed, it landed after them all and no
        // wait of a killed instance's last life was ever read).
        let n = self.insts.len().max(self.ground.pool_waits.len());
        self.ground.pool_waits.resize(n, Vec::new());
        for (i, inst) in self.insts.iter_mut().enumerate() {
            inst.pool.finish(end);
            if let Some(w) = self.ground.pool_waits.get_mut(i) {
                w.append(&mut inst.pool.wait_spans);
            }
            let w = &mut self.world.instances[i];
            for r in w.routed.iter_mut() {
                r.1 = r.1.min(end);
            }
        }
        let w = &mut self.world;
        // Requests and their ground truth, kept and sorted together.
        let mut idx: Vec<usize> = (0..w.requests.len())
            .filter(|&i| {
                w.requests[i].start + w.requests[i].duration_ms as Ms <= end
                    && w.requests[i].start >= w.start
            })
            .collect();
        idx.sort_by_key(|&i| w.requests[i].start);
        let mut reqs = std::mem::take(&mut w.requests);
        w.requests = idx.iter().map(|&i| std::mem::take(&mut reqs[i])).collect();
        self.ground.requests = idx.iter().map(|&i| self.ground.requests[i]).collect();
        w.logs.retain(|l| l.ts <= end);
        w.logs.sort_by_key(|l| l.ts);
        w.events.retain(|e| e.ts <= end);
        w.events.sort_by_key(|e| e.ts);
        w.changes.retain(|c| c.ts <= end);
        w.changes.sort_by_key(|c| c.ts);
        for s in w.series.iter_mut() {
            s.points.retain(|p| p.0 >= w.start && p.0 <= end);
        }
        w.series.retain(|s| !s.points.is_empty());
        self.ground.queue.retain(|q| q.0 <= end);
        (self.world, self.ground)
    }
}
