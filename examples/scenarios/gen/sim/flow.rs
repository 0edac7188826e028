//! One request's way through the service: the edge (rate limits, the load balancer's own
//! limit, routing), the instance (CPU, then a pool connection, then the database or a
//! dependency), and the answer (the app's, or the load balancer's 504 when the upstream
//! timeout passes first). In: flights scheduled by clients. Out: `World::requests`, the app's
//! failure lines, and each outcome handed back to the client that sent it.

use super::super::facts::*;
use super::*;

impl Sim<'_> {
    /// Registers a flight; the caller schedules its arrival.
    pub(super) fn flight(&mut self, f: Flight) -> u32 {
        self.flights.push(f);
        (self.flights.len() - 1) as u32
    }

    pub(super) fn arrive(&mut self, id: u32) {
        let now = self.now;
        let f = &self.flights[id as usize];
        let (tenant, owner) = (f.tenant, f.owner);
        if let Owner::Probe(_) = owner {
            let i = f.inst;
            self.accept(i, id);
            return;
        }
        if tenant != NONE {
            if let Some((rps, tokens, last)) = self.limits[tenant as usize].as_mut() {
                *tokens = (*tokens + (now - *last) as f64 / 1000.0 * *rps).min(rps.max(1.0));
                *last = now;
                if *tokens < 1.0 {
                    self.finish_lb(id, now + 1, 429, Some(Failure::RateLimited));
                    return;
                }
                *tokens -= 1.0;
            }
        }
        if let Some(max) = self.cfg.lb.max_conns {
            if self.lb_inflight >= max {
                self.finish_lb(id, now + 1, 503, Some(Failure::NoUpstream));
                return;
            }
        }
        if self.ready.is_empty() {
            self.finish_lb(id, now + 1, 503, Some(Failure::NoUpstream));
            return;
        }
        let i = self.ready[self.rr % self.ready.len()];
        self.rr = self.rr.wrapping_add(1);
        self.lb_inflight += 1;
        let f = &mut self.flights[id as usize];
        f.inst = i;
        let mut wait = self.cfg.lb.timeout_ms;
        if f.client_timeout > 0 {
            wait = wait.min(f.client_timeout);
        }
        self.at(now + wait, Ev::Deadline(id));
        self.accept(i, id);
    }

    fn accept(&mut self, i: u32, id: u32) {
        let now = self.now;
        let cfg = self.cfg;
        let inst = &mut self.insts[i as usize];
        let f = &mut self.flights[id as usize];
        f.inst = i;
        f.life = inst.life;
        let probe = matches!(f.owner, Owner::Probe(_));
        if !matches!(inst.st, St::Up | St::Draining) {
            // Connection refused: the process is not listening.
            self.finish_lb(id, now + 1, 502, Some(Failure::UpstreamReset));
            return;
        }
        if !probe && inst.refuse_until > now {
            self.finish_lb(id, now + 2, 502, Some(Failure::UpstreamReset));
            return;
        }
        f.slot = inst.flights.len() as u32;
        inst.flights.push(id);
        if cfg.fleet.mem_per_flight_mb > 0.0 {
            let mem = cfg.fleet.mem_base_mb + cfg.fleet.mem_per_flight_mb * inst.flights.len() as f64;
            if mem > cfg.fleet.mem_limit_mb {
                self.kill(i, EndCause::OomKill);
                return;
            }
        }
        let needs_worker = cfg.fleet.workers > 0 && !(probe && cfg.probes.own_port);
        if needs_worker {
            if inst.busy >= cfg.fleet.workers {
                f.stage = Stage::Queued;
                inst.line.push_back(id);
                return;
            }
            inst.busy += 1;
            f.worker = true;
        }
        self.work(i, id);
    }

    /// A worker (or the event loop) takes the request: it hangs on a stuck instance, else it
    /// runs on the CPU.
    fn work(&mut self, i: u32, id: u32) {
        let now = self.now;
        let inst = &mut self.insts[i as usize];
        let f = &mut self.flights[id as usize];
        if inst.stuck && !matches!(f.owner, Owner::Probe(_)) {
            f.stage = Stage::Hung;
            return;
        }
        f.stage = Stage::Cpu;
        let work = f.cpu_ms as f64;
        inst.cpu.add(now, id, work);
        self.cpu_schedule(i);
    }

    /// A worker is free: the first request still waiting for one takes it.
    fn release_worker(&mut self, i: u32) {
        let inst = &mut self.insts[i as usize];
        inst.busy = inst.busy.saturating_sub(1);
        while let Some(id) = self.insts[i as usize].line.pop_front() {
            let f = &mut self.flights[id as usize];
            if f.stage == Stage::Queued && f.inst == i && f.life == self.insts[i as usize].life {
                f.worker = true;
                self.insts[i as usize].busy += 1;
                self.work(i, id);
                break;
            }
        }
    }

    pub(super) fn cpu_schedule(&mut self, i: u32) {
        let cpu = &self.insts[i as usize].cpu;
        if let Some(t) = cpu.next_done() {
            let ver = cpu.ver;
            self.at(t, Ev::CpuCheck(i, ver));
        }
    }

    pub(super) fn cpu_done(&mut self, id: u32) {
        let now = self.now;
        let cfg = self.cfg;
        let f = &self.flights[id as usize];
        if f.stage != Stage::Cpu {
            return;
        }
        let i = f.inst as usize;
        let probe = matches!(f.owner, Owner::Probe(_));
        if !probe {
            if f.db_ms > 0.0 && self.breaker_until.is_some_and(|u| u > now) {
                self.app_answer(id, 503, Some(Failure::CircuitOpen));
                return;
            }
            let v = &cfg.versions[self.insts[i].version];
            if f.kind == ReqKind::Api && v.error_rate > 0.0 && self.rng.chance(v.error_rate) {
                let route = cfg.api.routes[f.route as usize].template.clone();
                let line = cfg.stack.regression_error(&route);
                self.log_line(i, line, LogTopic::AppError, Some(id));
                self.app_answer(id, 500, Some(Failure::AppError));
                return;
            }
            if f.kind == ReqKind::Api && f.owner == Owner::Ordinary && self.rng.chance(cfg.noise_errors) {
                let line = cfg.stack.app_error(&mut self.rng);
                self.flights[id as usize].noise = true;
                self.log_line(i, line, LogTopic::AppError, Some(id));
                self.app_answer(id, 500, Some(Failure::AppError));
                return;
            }
            if let Some(ok) = self.provider_take(f.route as usize) {
                if !ok {
                    let line = cfg.stack.upstream_limited(&self.provider_name());
                    self.log_line(i, line, LogTopic::UpstreamRateLimited, Some(id));
                    self.app_answer(id, 502, Some(Failure::UpstreamRejected));
                    return;
                }
            }
            if let Some((r, p)) = cfg.versions[self.insts[i].version].leak {
                if self.flights[id as usize].route as usize == r && self.rng.chance(p) {
                    self.flights[id as usize].leak = true;
                }
            }
            let f = &self.flights[id as usize];
            if let Some(flag) = &cfg.flag {
                if self.flag_on && f.route as usize == flag.route {
                    let d = self.rng.lognormal(flag.dep_ms, flag.dep_sigma);
                    self.flights[id as usize].dep_ms = d.min(flag.dep_timeout_ms as f64 + 1.0) as f32;
                }
            }
        }
        let f = &mut self.flights[id as usize];
        if f.db_ms > 0.0 {
            if self.insts[i].pool.acquire(now, id) {
                self.start_db(id);
            } else {
                f.stage = Stage::PoolWait;
                f.wait_from = now;
                self.at(now + cfg.fleet.acquire_timeout_ms, Ev::AcquireTimeout(id));
            }
        } else if f.dep_ms > 0.0 {
            f.stage = Stage::Dep;
            let d = f.dep_ms as Ms;
            self.at(now + d, Ev::DepDone(id));
        } else {
            let s = f.status;
            self.app_answer(id, s, None);
        }
    }

    fn start_db(&mut self, id: u32) {
        let now = self.now;
        let holds_dep = self.cfg.flag.as_ref().is_some_and(|fl| fl.holds_db);
        let mult = self.cfg.traffic.db_mult.at(now) * self.db_fix;
        let f = &mut self.flights[id as usize];
        f.stage = Stage::Db;
        if f.wait_from > 0 {
            f.pool_wait = (now - f.wait_from) as u32;
        }
        f.hold_from = now;
        let mut hold = f.db_ms as f64 * mult;
        if holds_dep && f.dep_ms > 0.0 {
            hold += f.dep_ms as f64;
            f.dep_ms = -f.dep_ms;
        }
        self.at(now + hold.round().max(1.0) as Ms, Ev::DbDone(id));
    }

    pub(super) fn db_done(&mut self, id: u32) {
        let now = self.now;
        let f = &mut self.flights[id as usize];
        if f.stage != Stage::Db || self.insts[f.inst as usize].life != f.life {
            return;
        }
        f.pool_hold = (now - f.hold_from) as u32;
        let (i, leak, dep) = (f.inst, f.leak, f.dep_ms);
        self.release(i, leak);
        if leak {
            let route = self.cfg.api.routes[self.flights[id as usize].route as usize].template.clone();
            if self.rng.chance(0.2) {
                if let Some(line) = self.cfg.stack.leak(&mut self.rng, &route) {
                    self.log_line(i as usize, line, LogTopic::ConnectionLeak, None);
                }
            }
        }
        if dep > 0.0 {
            self.flights[id as usize].stage = Stage::Dep;
            self.at(now + dep as Ms, Ev::DepDone(id));
        } else {
            self.dep_finish(id, -dep);
        }
    }

    pub(super) fn dep_done(&mut self, id: u32) {
        let f = &self.flights[id as usize];
        if f.stage != Stage::Dep || self.insts[f.inst as usize].life != f.life {
            return;
        }
        let d = f.dep_ms;
        self.dep_finish(id, d);
    }

    /// The request's work is done; a dependency call that reached the app's timeout fails it.
    fn dep_finish(&mut self, id: u32, dep_ms: f32) {
        let f = &self.flights[id as usize];
        if let Some(flag) = &self.cfg.flag {
            if dep_ms > flag.dep_timeout_ms as f32 {
                let i = f.inst as usize;
                let (method, path) = (self.cfg.api.routes[f.route as usize].method, f.path.clone());
                let line = super::super::stack::Line {
                    level: Level::Error,
                    logger: self.cfg.stack.web_logger().to_string(),
                    msg: format!(
                        "{} call timed out after {}ms ({method} {path})",
                        flag.dependency, flag.dep_timeout_ms
                    ),
                    stack: None,
                };
                self.log_line(i, line, LogTopic::DependencyError, Some(id));
                let status = if self.cfg.lb.timeout_ms % 2 == 0 { 504 } else { 500 };
                self.app_answer(id, status, Some(Failure::DependencyTimeout));
                return;
            }
        }
        let s = f.status;
        self.app_answer(id, s, None);
    }

    /// A connection returns (or leaks); the first live waiter gets it.
    pub(super) fn release(&mut self, i: u32, leak: bool) {
        let now = self.now;
        self.insts[i as usize].pool.release(leak);
        while let Some(w) = self.insts[i as usize].pool.next_in_line() {
            let f = &self.flights[w as usize];
            if f.stage == Stage::PoolWait && f.inst == i && f.life == self.insts[i as usize].life {
                self.insts[i as usize].pool.hand_over(now);
                self.start_db(w);
                break;
            }
        }
    }

    pub(super) fn acquire_timeout(&mut self, id: u32) {
        let now = self.now;
        let f = &mut self.flights[id as usize];
        if f.stage != Stage::PoolWait {
            return;
        }
        let i = f.inst as usize;
        f.pool_wait = (now - f.wait_from) as u32;
        self.insts[i].pool.give_up(now);
        let line = self.cfg.stack.pool_timeout(self.cfg.fleet.acquire_timeout_ms, self.cfg.fleet.pool);
        self.log_line(i, line, LogTopic::PoolTimeout, Some(id));
        self.pool_timeouts.push_back(now);
        self.breaker_check();
        self.app_answer(id, 500, Some(Failure::PoolTimeout));
    }

    /// The application answers (or a probe gets its answer).
    pub(super) fn app_answer(&mut self, id: u32, status: u16, failure: Option<Failure>) {
        let now = self.now;
        let f = &mut self.flights[id as usize];
        let i = f.inst;
        f.stage = Stage::Done;
        if f.worker {
            f.worker = false;
            self.release_worker(i);
        }
        let f = &mut self.flights[id as usize];
        let inst = &mut self.insts[i as usize];
        inst.served += 1;
        if f.slot != NONE {
            let slot = f.slot as usize;
            f.slot = NONE;
            inst.flights.swap_remove(slot);
            if let Some(&moved) = inst.flights.get(slot) {
                self.flights[moved as usize].slot = slot as u32;
            }
        }
        let f = &self.flights[id as usize];
        if f.out != NONE {
            // The load balancer gave up earlier; the ground truth still learns the hold time.
            let x = &mut self.ground.requests[f.out as usize];
            x.pool_hold_ms = f.pool_hold;
            x.pool_wait_ms = f.pool_wait;
        }
        if let Owner::Probe(live) = f.owner {
            if !f.lb_done {
                self.flights[id as usize].lb_done = true;
                self.probe_result(i, live, status < 400, false);
            }
            return;
        }
        // Most stacks log a failed request's line; some only now and then.
        if status >= 500 && f.kind != ReqKind::HealthCheck && self.rng.chance(0.8) {
            let route = &self.cfg.api.routes[f.route as usize];
            let line = self.cfg.stack.request_failed(route.method, &f.path, status, now - f.t0);
            self.log_line(i as usize, line, LogTopic::RequestError, Some(id));
        }
        if !self.flights[id as usize].lb_done {
            self.finish_lb(id, now + 1, status, failure);
        }
    }

    pub(super) fn deadline(&mut self, id: u32) {
        let f = &self.flights[id as usize];
        if f.lb_done {
            return;
        }
        if let Owner::Probe(live) = f.owner {
            let i = f.inst;
            self.flights[id as usize].lb_done = true;
            self.probe_result(i, live, false, true);
            return;
        }
        let lb = self.cfg.lb.timeout_ms;
        let client_first = f.client_timeout > 0 && f.client_timeout < lb;
        if client_first {
            self.finish_lb(id, self.now, 499, Some(Failure::ClientClosed));
        } else {
            self.finish_lb(id, self.now, 504, Some(Failure::UpstreamTimeout));
        }
    }

    /// The client has its answer (from the app through the load balancer, or from the load
    /// balancer alone): record it and tell the client.
    pub(super) fn finish_lb(&mut self, id: u32, t: Ms, status: u16, failure: Option<Failure>) {
        let start = self.cfg.start;
        let f = &mut self.flights[id as usize];
        f.lb_done = true;
        f.status = status;
        f.failure = failure;
        if let Owner::Probe(_) = f.owner {
            return;
        }
        if f.inst != NONE {
            self.lb_inflight = self.lb_inflight.saturating_sub(1);
        }
        if f.kind == ReqKind::Api {
            let s = ((t - start) / 1000).max(0) as usize;
            if let Some(b) = self.secs.get_mut(s) {
                b.0 += 1;
                if status >= 500 && !f.noise {
                    b.1 += 1;
                }
                b.2 += (t - f.t0) as f64;
            }
        }
        if f.record {
            self.record(id, t);
        }
        match self.flights[id as usize].owner {
            Owner::Ordinary => self.ordinary_outcome(id, t),
            Owner::Actor(a, w) => self.actor_outcome(a, w, id, t),
            Owner::Probe(_) => {}
        }
    }

    fn record(&mut self, id: u32, t: Ms) {
        let cfg = self.cfg;
        let f = &mut self.flights[id as usize];
        let route = &cfg.api.routes[f.route as usize];
        let bytes = match f.status {
            200..=299 if route.bytes > 0.0 => self.rng.lognormal(route.bytes, 0.5) as u64,
            101 | 204 => 0,
            300..=399 => self.rng.range(0, 200) as u64,
            _ => self.rng.range(100, 600) as u64,
        };
        let request_bytes = match route.method {
            "POST" | "PUT" | "PATCH" => self.rng.range(150, 6000) as u64,
            _ => 0,
        };
        let instance = (f.inst != NONE).then_some(f.inst as usize);
        let referer = (route.kind != ReqKind::HealthCheck && self.strs[f.ua as usize].starts_with("Mozilla") && self.rng.chance(0.6))
            .then(|| format!("https://app.{}/", cfg.host.trim_start_matches("api.")));
        let request_id = self.request_id(id);
        let f = &mut self.flights[id as usize];
        let r = Request {
            start: f.t0,
            duration_ms: (t - f.t0).max(0) as u32,
            upstream_ms: instance.map(|_| (t - f.t0 - 1).max(0) as u32),
            instance,
            method: route.method.to_string(),
            path: f.path.clone(),
            query: f.query.clone(),
            status: f.status,
            bytes,
            request_bytes,
            tenant: (f.tenant != NONE).then_some(f.tenant as usize),
            client_ip: self.strs[f.ip as usize].clone(),
            client_port: self.rng.range(1024, 65_535) as u16,
            user_agent: self.strs[f.ua as usize].clone(),
            referer,
            request_id,
            kind: f.kind,
            failure: f.failure,
            retry: f.retry,
        };
        self.ground.requests.push(ReqTruth { route: f.route, noise: f.noise, pool_wait_ms: f.pool_wait, pool_hold_ms: f.pool_hold });
        // Only a failed request may be re-sent with the same path: others drop theirs.
        if f.status < 400 {
            f.path = String::new();
            f.query = String::new();
        }
        f.out = self.world.requests.len() as u32;
        self.world.requests.push(r);
    }

    /// The request id a flight carries (the same in the access log and the app's lines).
    pub(super) fn request_id(&self, id: u32) -> String {
        let h = splitmix(self.cfg.start as u64 ^ (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let h2 = splitmix(h);
        format!("{h:016x}{h2:016x}")
    }
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
