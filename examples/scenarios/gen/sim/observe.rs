//! What monitoring and logging see: metric scrapes at the configured interval (no point while
//! an instance is down), the pool's periodic state lines, unrelated warnings, and the context a
//! structured logger puts beside a request's line. In: the simulation's state. Out:
//! `World::series` and `World::logs`.

use super::super::facts::*;
use super::super::stack::Line;
use super::*;

impl Sim<'_> {
    /// A log line on instance `i` now; `flight` adds the request's context.
    pub(super) fn log_line(&mut self, i: usize, line: Line, topic: LogTopic, flight: Option<u32>) {
        let mut kv = Vec::new();
        let mut thread = String::new();
        if let Some(id) = flight {
            let rid = self.request_id(id);
            let f = &self.flights[id as usize];
            let route = &self.cfg.api.routes[f.route as usize];
            kv.push(("request_id".to_string(), rid));
            kv.push(("method".to_string(), route.method.to_string()));
            kv.push(("path".to_string(), f.path.clone()));
            if f.tenant != NONE {
                let t = self.cfg.people.tenants[f.tenant as usize].id.clone();
                kv.push(("tenant_id".to_string(), t));
            }
            if topic == LogTopic::RequestError {
                kv.push(("status".to_string(), f.status.to_string()));
                kv.push(("duration_ms".to_string(), (self.now - f.t0).to_string()));
            }
            thread = self.cfg.stack.thread(&mut self.rng);
        }
        if matches!(topic, LogTopic::PoolTimeout | LogTopic::PoolStats | LogTopic::ConnectionLeak) {
            kv.push(("pool".to_string(), self.cfg.stack.pool_name().to_string()));
        }
        let pid = self.insts[i].pid;
        self.world.logs.push(AppLog {
            ts: self.now,
            instance: i,
            level: line.level,
            logger: line.logger,
            thread,
            pid,
            msg: line.msg,
            kv,
            stack: line.stack,
            topic,
        });
    }

    pub(super) fn log_at(&mut self, t: Ms, i: usize, line: Line, topic: LogTopic) {
        let now = self.now;
        self.now = t;
        self.log_line(i, line, topic, None);
        self.now = now;
    }

    fn point(&mut self, role: MetricRole, inst: Option<u32>, v: f64) {
        let key = (role, inst.unwrap_or(NONE));
        let idx = match self.series_idx.get(&key) {
            Some(k) => *k,
            None => {
                let pool = matches!(role, MetricRole::PoolActive | MetricRole::PoolIdle | MetricRole::PoolMax | MetricRole::PoolPending)
                    .then(|| self.cfg.stack.pool_name().to_string());
                self.world.series.push(Series {
                    role,
                    instance: inst.map(|i| i as usize),
                    pool,
                    step_ms: self.cfg.scrape_ms,
                    points: Vec::new(),
                });
                self.series_idx.insert(key, self.world.series.len() - 1);
                self.world.series.len() - 1
            }
        };
        self.world.series[idx].points.push((self.now, v));
    }

    pub(super) fn scrape(&mut self) {
        let cfg = self.cfg;
        let step = cfg.scrape_ms;
        self.at(self.now + step, Ev::Scrape);
        let pool_stats = cfg.pool_stats_ms.is_some_and(|p| {
            let k = (self.now - cfg.start) / p;
            (self.now - step - cfg.start) / p != k
        });
        let mut in_use = 0u32;
        for i in 0..self.insts.len() {
            let st = self.insts[i].st;
            if st == St::Gone || st == St::Pending {
                continue;
            }
            let restarts = self.insts[i].restarts as f64;
            self.point(MetricRole::Restarts, Some(i as u32), restarts);
            if !matches!(st, St::Up | St::Draining) {
                continue;
            }
            let now = self.now;
            let inst = &mut self.insts[i];
            inst.cpu.sync(now);
            let busy = inst.cpu.busy;
            let cpu = ((busy - inst.busy_prev) / (step as f64 * inst.cpu.cores())).clamp(0.0, 1.0);
            inst.busy_prev = busy;
            let rate = (inst.served - inst.served_prev) as f64 * 1000.0 / step as f64;
            inst.served_prev = inst.served;
            let (active, waiting, size) = (inst.pool.in_use + inst.pool.leaked, inst.pool.waiting, inst.pool.size);
            let mem = (cfg.fleet.mem_base_mb + cfg.fleet.mem_per_flight_mb * inst.flights.len() as f64) / cfg.fleet.mem_limit_mb;
            in_use += active;
            let jitter = self.rng.uniform(-0.01, 0.01);
            let cpu_v = (cpu + jitter.abs() * 0.5).min(1.0);
            let id = Some(i as u32);
            self.point(MetricRole::PoolActive, id, active as f64);
            self.point(MetricRole::PoolIdle, id, size.saturating_sub(active) as f64);
            self.point(MetricRole::PoolMax, id, size as f64);
            self.point(MetricRole::PoolPending, id, waiting as f64);
            self.point(MetricRole::Cpu, id, (cpu_v * 1000.0).round() / 1000.0);
            self.point(MetricRole::Memory, id, ((mem + jitter).clamp(0.0, 1.0) * 1000.0).round() / 1000.0);
            self.point(MetricRole::RequestsRate, id, (rate * 100.0).round() / 100.0);
            if pool_stats && st == St::Up {
                if let Some(line) = cfg.stack.pool_stats(size, active, waiting) {
                    self.log_line(i, line, LogTopic::PoolStats, None);
                }
            }
            let warns = self.rng.poisson(cfg.noise_warns_per_hour * step as f64 / 3_600_000.0);
            for _ in 0..warns {
                let line = if self.rng.chance(0.15) {
                    cfg.stack.app_error(&mut self.rng)
                } else {
                    cfg.stack.routine_warning(&mut self.rng)
                };
                let topic = if line.level == Level::Error { LogTopic::AppError } else { LogTopic::Routine };
                self.log_line(i, line, topic, None);
            }
        }
        self.point(MetricRole::DbConnections, None, in_use as f64);
        self.actors_scrape();
    }

    pub(super) fn service_point(&mut self, role: MetricRole, v: f64) {
        self.point(role, None, v);
    }
}
