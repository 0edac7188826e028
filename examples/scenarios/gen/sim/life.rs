//! Instances' lives as Kubernetes runs them: a pod is scheduled, its image pulled, its
//! container started; the app boots (start-up lines) and serves once a readiness probe passes.
//! Liveness probe failures past the threshold kill the container (requests in flight: 502) and
//! the kubelet restarts it in place after a back-off (0 s, 10 s, 20 s, 40 s ... 300 s, reset
//! after ten minutes up). A graceful stop drains requests first. In: probe results, kills,
//! stops. Out: `World::instances` (lives, routed spans), orchestrator events, start-up and
//! shutdown lines.

use super::super::facts::*;
use super::*;

/// Kubernetes' CrashLoopBackOff delays between restarts in place (ms).
const BACKOFF: [Ms; 7] = [0, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000];

impl Sim<'_> {
    /// A new pod of `version` (not started yet). Returns its index.
    pub(super) fn create_instance(&mut self, version: usize, canary: bool) -> u32 {
        let cfg = self.cfg;
        let rs = if canary {
            self.canary_rs.clone()
        } else {
            self.rs_names[version].clone()
        };
        let node = self.rng.range(0, self.nodes.len() as i64 - 1) as usize;
        // Pods of one deployment spread over nodes (anti-affinity): a node is reused only
        // after its earlier pod is gone.
        let node = (0..self.nodes.len())
            .map(|k| (node + k) % self.nodes.len())
            .find(|n| {
                !self.insts.iter().enumerate().any(|(j, x)| {
                    x.st != St::Gone && self.world.instances[j].host == self.nodes[*n]
                })
            })
            .unwrap_or(node);
        self.next_ip += 1;
        let ip = format!(
            "10.42.{}.{}",
            1 + (node % 200),
            10 + (self.next_ip * 7 + node as u32) % 240
        );
        let name = cfg.versions[version].name.clone();
        self.world.instances.push(Instance {
            pod: format!("{rs}-{}", self.rng.k8s_suffix(5)),
            replica_set: rs,
            ip,
            port: cfg.stack.port,
            host: self.nodes[node].clone(),
            task_id: self.rng.hex(32),
            version: name.clone(),
            image: format!("registry.example.com/{}:{name}", cfg.service),
            lives: Vec::new(),
            routed: Vec::new(),
        });
        self.insts.push(Inst {
            st: St::Pending,
            life: 0,
            version,
            cpu: Cpu::new(cfg.fleet.cores, cfg.stack.cpu_fifo, self.now),
            pool: Pool::new(cfg.fleet.pool),
            flights: Vec::new(),
            busy: 0,
            line: Default::default(),
            ready: false,
            live_fails: 0,
            ready_fails: 0,
            stuck: false,
            refuse_until: 0,
            restart_times: Vec::new(),
            restarts: 0,
            up_since: 0,
            pid: 1,
            served: 0,
            served_prev: 0,
            busy_prev: 0.0,
            canary,
            node_ip: self.node_ips[node].clone(),
            stop_deadline: 0,
        });
        (self.insts.len() - 1) as u32
    }

    /// A new process lifetime starts at `t` (`logs`: print its start-up lines).
    pub(super) fn begin_life(&mut self, i: u32, t: Ms, logs: bool) -> Ms {
        let cfg = self.cfg;
        let inst = &mut self.insts[i as usize];
        inst.life += 1;
        inst.st = St::Booting;
        inst.cpu = Cpu::new(cfg.fleet.cores, cfg.stack.cpu_fifo, t);
        inst.pool = Pool::new(cfg.fleet.pool);
        inst.live_fails = 0;
        inst.ready_fails = 0;
        inst.pid = if cfg.stack.lang == super::super::stack::Lang::Python {
            self.rng.range(7, 60) as u32
        } else {
            1
        };
        self.world.instances[i as usize].lives.push(Life {
            started: t,
            ended: None,
            end_cause: None,
        });
        let boot = self.rng.lognormal(cfg.fleet.boot_ms, 0.2).round() as Ms;
        if logs {
            let version = self.world.instances[i as usize].version.clone();
            let pid = self.insts[i as usize].pid;
            for (k, (off, line)) in cfg
                .stack
                .startup(&version, boot, pid)
                .into_iter()
                .enumerate()
            {
                let topic = if k == 0 {
                    LogTopic::VersionBanner
                } else {
                    LogTopic::Startup
                };
                self.log_at(t + off, i as usize, line, topic);
            }
        }
        boot
    }

    pub(super) fn schedule_probes(&mut self, i: u32, offset: Ms) {
        let life = self.insts[i as usize].life;
        let p = &self.cfg.probes;
        self.at(
            self.now + offset % p.readiness.period_ms + 1,
            Ev::Probe(i, false, life),
        );
        if let Some(l) = &p.liveness {
            self.at(
                self.now + l.period_ms + offset % l.period_ms,
                Ev::Probe(i, true, life),
            );
        }
    }

    pub(super) fn set_ready(&mut self, i: u32, ready: bool) {
        let now = self.now;
        let inst = &mut self.insts[i as usize];
        if inst.ready == ready {
            return;
        }
        inst.ready = ready;
        let w = &mut self.world.instances[i as usize];
        if ready {
            self.ready.push(i);
            w.routed.push((now, Ms::MAX));
        } else {
            self.ready.retain(|x| *x != i);
            if let Some(r) = w.routed.last_mut() {
                r.1 = now;
            }
        }
    }

    /// A kubelet probe goes out (and the next one is scheduled).
    pub(super) fn probe(&mut self, i: u32, live: bool, life: u32) {
        let inst = &self.insts[i as usize];
        if inst.life != life || !matches!(inst.st, St::Up | St::Draining) {
            return;
        }
        let p = if live {
            match &self.cfg.probes.liveness {
                Some(p) => p.clone(),
                None => return,
            }
        } else {
            self.cfg.probes.readiness.clone()
        };
        self.at(self.now + p.period_ms, Ev::Probe(i, live, life));
        let route = &self.cfg.api.routes[p.route];
        let mut f = Flight::new(self.now, p.route, ReqKind::HealthCheck, Owner::Probe(live));
        f.inst = i;
        f.cpu_ms = route.cpu_ms as f32;
        f.db_ms = if p.db { route.db_ms as f32 } else { 0.0 };
        f.path = route.template.clone();
        f.record = !live;
        let ua = self.cfg.probes.user_agent.clone();
        f.ua = self.intern(&ua);
        let node_ip = self.insts[i as usize].node_ip.clone();
        f.ip = self.intern(&node_ip);
        let id = self.flight(f);
        self.at(self.now + p.timeout_ms, Ev::Deadline(id));
        self.arrive(id);
    }

    /// A probe's verdict: `ok`, or failed by its timeout (`timed_out`) or its status.
    pub(super) fn probe_result(&mut self, i: u32, live: bool, ok: bool, timed_out: bool) {
        let now = self.now;
        let inst = &mut self.insts[i as usize];
        if !matches!(inst.st, St::Up | St::Draining) {
            return;
        }
        if ok {
            if live {
                inst.live_fails = 0;
            } else {
                inst.ready_fails = 0;
                if inst.st == St::Up && !inst.ready {
                    self.set_ready(i, true);
                }
            }
            return;
        }
        let (threshold, path, kind) = if live {
            inst.live_fails += 1;
            let p = self
                .cfg
                .probes
                .liveness
                .as_ref()
                .map_or((3, 0), |p| (p.failure_threshold, p.route));
            (p.0, p.1, InfraKind::LivenessFailed)
        } else {
            inst.ready_fails += 1;
            let p = &self.cfg.probes.readiness;
            (p.failure_threshold, p.route, InfraKind::ReadinessFailed)
        };
        let fails = if live {
            inst.live_fails
        } else {
            inst.ready_fails
        };
        self.ground.probe_failures.push((now, i as usize, live));
        let w = &self.world.instances[i as usize];
        let url = format!(
            "http://{}:{}{}",
            w.ip, w.port, self.cfg.api.routes[path].template
        );
        let what = if live { "Liveness" } else { "Readiness" };
        let message = if timed_out {
            format!("{what} probe failed: Get \"{url}\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)")
        } else {
            format!("{what} probe failed: HTTP probe failed with statuscode: 503")
        };
        self.event(Some(i as usize), kind, message);
        if fails >= threshold {
            if live {
                let c = self.cfg.service.clone();
                self.event(
                    Some(i as usize),
                    InfraKind::Killing,
                    format!("Container {c} failed liveness probe, will be restarted"),
                );
                self.kill(i, EndCause::LivenessKill);
            } else if self.insts[i as usize].ready {
                self.set_ready(i, false);
            }
        }
    }

    /// The process dies at once: requests in flight get 502, the container restarts in place
    /// after the back-off.
    pub(super) fn kill(&mut self, i: u32, cause: EndCause) {
        let now = self.now;
        if cause == EndCause::OomKill {
            if let Some(line) = self.cfg.stack.out_of_memory() {
                self.log_line(i as usize, line, LogTopic::Memory, None);
            }
            let c = self.cfg.service.clone();
            self.event(
                Some(i as usize),
                InfraKind::OomKilled,
                format!(
                    "Container {c} was OOMKilled (exit code 137): memory limit {} MiB exceeded",
                    self.cfg.fleet.mem_limit_mb as i64
                ),
            );
        } else if cause == EndCause::LivenessKill {
            if let Some((_, line)) = self
                .cfg
                .stack
                .shutdown(self.insts[i as usize].pid)
                .into_iter()
                .next()
            {
                self.log_line(i as usize, line, LogTopic::Shutdown, None);
            }
        }
        // A pod being stopped (a rollout replacing it) is not restarted: the
        // kubelet restarts no container of a terminating pod (deploy-leak draw
        // 1818110: a pod of the version rolled back was killed by its probe
        // while it drained, came back and failed for two more hours).
        let terminating = self.insts[i as usize].st == St::Draining;
        self.end_life(i, cause);
        // The websockets it held are dropped with it.
        let share = 1.0 / (self.ready.len() + 1) as f64;
        self.sockets_drop(share);
        let inst = &mut self.insts[i as usize];
        if terminating {
            inst.st = St::Gone;
            return;
        }
        inst.st = St::Down;
        inst.restarts += 1;
        if now - inst.up_since > 600_000 {
            inst.restart_times.clear();
        }
        inst.restart_times.push(now);
        let k = (inst.restart_times.len() - 1).min(BACKOFF.len() - 1);
        let delay = BACKOFF[k];
        let life = inst.life;
        if delay > 0 {
            let pod = self.world.instances[i as usize].pod.clone();
            let c = self.cfg.service.clone();
            let ns = self.cfg.namespace.clone();
            self.event(
                Some(i as usize),
                InfraKind::BackOff,
                format!(
                    "Back-off restarting failed container {c} in pod {pod}_{ns}({})",
                    uid(&pod)
                ),
            );
        }
        let start = now + delay + self.rng.range(300, 1500);
        self.at(start, Ev::Start(i, life));
    }

    /// Ends the current life: flights in flight fail, CPU and pool are gone.
    fn end_life(&mut self, i: u32, cause: EndCause) {
        let now = self.now;
        self.set_ready(i, false);
        let flights = std::mem::take(&mut self.insts[i as usize].flights);
        for id in flights {
            let f = &mut self.flights[id as usize];
            f.slot = NONE;
            if f.stage == Stage::Db {
                f.pool_hold = (now - f.hold_from) as u32;
            }
            f.stage = Stage::Done;
            if f.out != NONE {
                let hold = f.pool_hold;
                self.ground.requests[f.out as usize].pool_hold_ms = hold;
            }
            if !self.flights[id as usize].lb_done {
                if let Owner::Probe(_) = self.flights[id as usize].owner {
                    self.flights[id as usize].lb_done = true;
                } else {
                    self.finish_lb(id, now, 502, Some(Failure::UpstreamReset));
                }
            }
        }
        let inst = &mut self.insts[i as usize];
        inst.cpu.clear(now);
        inst.pool.reset(now);
        inst.busy = 0;
        inst.line.clear();
        let spans = std::mem::take(&mut inst.pool.wait_spans);
        self.ground.pool_waits.resize(self.insts.len(), Vec::new());
        self.ground.pool_waits[i as usize].extend(spans);
        if let Some(l) = self.world.instances[i as usize].lives.last_mut() {
            l.ended = Some(now);
            l.end_cause = Some(cause);
        }
    }

    /// The container starts (after a restart's back-off, or a new pod's start).
    pub(super) fn start(&mut self, i: u32, life: u32) {
        if self.insts[i as usize].life != life || self.insts[i as usize].st == St::Gone {
            return;
        }
        let c = self.cfg.service.clone();
        let image = self.world.instances[i as usize].image.clone();
        if self.insts[i as usize].restarts > 0 && self.insts[i as usize].st == St::Down {
            self.event(
                Some(i as usize),
                InfraKind::Pulled,
                format!("Container image \"{image}\" already present on machine"),
            );
        }
        self.event(
            Some(i as usize),
            InfraKind::Created,
            format!("Created container {c}"),
        );
        self.event(
            Some(i as usize),
            InfraKind::Started,
            format!("Started container {c}"),
        );
        let boot = self.begin_life(i, self.now, true);
        let life = self.insts[i as usize].life;
        self.at(self.now + boot, Ev::Boot(i, life));
    }

    pub(super) fn boot(&mut self, i: u32, life: u32) {
        let inst = &mut self.insts[i as usize];
        if inst.life != life || inst.st != St::Booting {
            return;
        }
        inst.st = St::Up;
        inst.up_since = self.now;
        let off = self.rng.range(0, 5000);
        self.schedule_probes(i, off);
    }

    /// A graceful stop: out of rotation now, the process ends once its requests are done
    /// (or after the grace period, when the rest fail).
    pub(super) fn stop(&mut self, i: u32) {
        let inst = &self.insts[i as usize];
        if matches!(inst.st, St::Gone | St::Draining | St::Pending) {
            return;
        }
        let c = self.cfg.service.clone();
        self.event(
            Some(i as usize),
            InfraKind::Killing,
            format!("Stopping container {c}"),
        );
        self.set_ready(i, false);
        let inst = &mut self.insts[i as usize];
        if inst.st != St::Up {
            // Down or booting: nothing to drain.
            let booting = inst.st == St::Booting;
            inst.st = St::Gone;
            if booting {
                self.end_life(i, EndCause::Stopped);
            }
            return;
        }
        inst.st = St::Draining;
        inst.stop_deadline = self.now + self.cfg.fleet.grace_ms;
        let pid = inst.pid;
        for (off, line) in self.cfg.stack.shutdown(pid) {
            self.log_at(self.now + off, i as usize, line, LogTopic::Shutdown);
        }
        let life = self.insts[i as usize].life;
        self.at(self.now + 500, Ev::StopCheck(i, life));
    }

    pub(super) fn stop_check(&mut self, i: u32, life: u32) {
        let inst = &self.insts[i as usize];
        if inst.life != life || inst.st != St::Draining {
            return;
        }
        if inst.flights.is_empty() || self.now >= inst.stop_deadline {
            self.end_life(i, EndCause::Stopped);
            self.insts[i as usize].st = St::Gone;
        } else {
            self.at(self.now + 500, Ev::StopCheck(i, life));
        }
    }

    /// A new pod joins: scheduled on a node, image pulled, container started.
    pub(super) fn launch(&mut self, version: usize, canary: bool) -> u32 {
        let i = self.create_instance(version, canary);
        let w = &self.world.instances[i as usize];
        let (pod, host, image) = (w.pod.clone(), w.host.clone(), w.image.clone());
        let ns = self.cfg.namespace.clone();
        self.event(
            Some(i as usize),
            InfraKind::Scheduled,
            format!("Successfully assigned {ns}/{pod} to {host}"),
        );
        let pull = self.rng.range(800, 6000);
        if self.rng.chance(0.5) {
            self.event(
                Some(i as usize),
                InfraKind::Pulling,
                format!("Pulling image \"{image}\""),
            );
            let s = pull as f64 / 1000.0;
            let t = self.now;
            self.now += pull;
            let size = 90_000_000 + self.rng.range(0, 80_000_000);
            self.event(Some(i as usize), InfraKind::Pulled, format!("Successfully pulled image \"{image}\" in {s:.3}s ({s:.3}s including waiting). Image size: {size} bytes."));
            self.now = t;
        } else {
            self.event(
                Some(i as usize),
                InfraKind::Pulled,
                format!("Container image \"{image}\" already present on machine"),
            );
        }
        let inst = &mut self.insts[i as usize];
        inst.st = St::Down;
        let life = inst.life;
        let d = self.rng.range(200, 800);
        self.at(self.now + pull + d, Ev::Start(i, life));
        i
    }

    /// An orchestrator event about instance `i` (or the deployment), now.
    pub(super) fn event(&mut self, i: Option<usize>, kind: InfraKind, message: String) {
        self.world.events.push(InfraEvent {
            ts: self.now,
            first_ts: self.now,
            count: 1,
            instance: i,
            kind,
            replica_set: None,
            from_replicas: None,
            to_replicas: None,
            message,
        });
    }

    /// Instances that are running or about to (not stopped for good).
    pub(super) fn live_instances(&self) -> Vec<u32> {
        (0..self.insts.len() as u32)
            .filter(|i| !matches!(self.insts[*i as usize].st, St::Gone | St::Draining))
            .collect()
    }
}

/// A stable pod uid, as Kubernetes prints it in BackOff messages.
fn uid(pod: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in pod.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x1000_0000_01b3);
    }
    let h2 = h.rotate_left(29).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        h >> 32,
        (h >> 16) & 0xffff,
        h & 0xffff,
        h2 >> 48,
        h2 & 0xffff_ffff_ffff
    )
}
