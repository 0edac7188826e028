//! Changes to the running service, made by pipelines, responders or the fault: rolling
//! deploys and rollbacks, canaries, scale-outs, pod restarts, rate limits, feature flags, a
//! stuck instance; the responders' alert that starts their moves; the application's circuit
//! breaker. In: [`Action`]s at their times. Out: `World::changes`, ScalingReplicaSet events,
//! and the state the request flow reads.

use super::super::facts::*;
use super::*;

pub(super) struct Rollout {
    version: usize,
    old: Vec<u32>,
    next: usize,
    waiting: Option<u32>,
    change: usize,
    cancelled: bool,
    since: Ms,
}

impl Sim<'_> {
    fn change(&mut self, kind: ChangeKind, actor: &str) -> usize {
        self.world.changes.push(Change {
            ts: self.now,
            kind,
            service: self.cfg.service.clone(),
            version: None,
            from_version: None,
            flag: None,
            actor: actor.to_string(),
            reason: None,
            instances: Vec::new(),
            from_replicas: None,
            to_replicas: None,
            tenant: None,
        });
        self.world.changes.len() - 1
    }

    fn replicas(&self, rs: &str) -> u32 {
        self.insts
            .iter()
            .enumerate()
            .filter(|(j, x)| !matches!(x.st, St::Gone | St::Draining) && self.world.instances[*j].replica_set == rs)
            .count() as u32
    }

    fn scaling_event(&mut self, rs: &str, from: u32, to: u32) {
        let dir = if to > from { "up" } else { "down" };
        let message = format!("Scaled {dir} replica set {rs} to {to} from {from}");
        self.world.events.push(InfraEvent {
            ts: self.now,
            first_ts: self.now,
            count: 1,
            instance: None,
            kind: InfraKind::ScalingReplicaSet,
            replica_set: Some(rs.to_string()),
            from_replicas: Some(from),
            to_replicas: Some(to),
            message,
        });
    }

    pub(super) fn act(&mut self, a: &Action, responder: bool) {
        let label = format!("{}{:?}", if responder { "responder: " } else { "" }, a);
        self.ground.actions.push((self.now, label.chars().take(120).collect()));
        match a {
            Action::Deploy { version, rollback, reason, actor } => {
                for r in self.rollouts.iter_mut() {
                    r.cancelled = true;
                }
                let from = self.version;
                self.version = *version;
                let kind = if *rollback { ChangeKind::Rollback } else { ChangeKind::Deploy };
                let c = self.change(kind, actor);
                let ch = &mut self.world.changes[c];
                ch.version = Some(self.cfg.versions[*version].name.clone());
                ch.from_version = Some(self.cfg.versions[from].name.clone());
                ch.reason.clone_from(reason);
                let old: Vec<u32> = self
                    .live_instances()
                    .into_iter()
                    .filter(|i| !self.insts[*i as usize].canary && self.insts[*i as usize].version != *version)
                    .collect();
                self.rollouts.push(Rollout {
                    version: *version,
                    old,
                    next: 0,
                    waiting: None,
                    change: c,
                    cancelled: false,
                    since: self.now,
                });
                self.at(self.now, Ev::RolloutStep(self.rollouts.len() as u32 - 1));
            }
            Action::Canary { version, count, actor } => {
                let c = self.change(ChangeKind::Deploy, actor);
                let rs = self.canary_rs.clone();
                self.scaling_event(&rs, 0, *count as u32);
                let mut new = Vec::new();
                for _ in 0..*count {
                    new.push(self.launch(*version, true) as usize);
                }
                let ch = &mut self.world.changes[c];
                ch.version = Some(self.cfg.versions[*version].name.clone());
                ch.from_version = Some(self.cfg.versions[self.version].name.clone());
                ch.instances = new;
                ch.reason = Some("canary".into());
            }
            Action::AbortCanary { reason, actor } => {
                let canaries: Vec<u32> = self.live_instances().into_iter().filter(|i| self.insts[*i as usize].canary).collect();
                let rs = self.canary_rs.clone();
                self.scaling_event(&rs, canaries.len() as u32, 0);
                let from = canaries.first().map(|i| self.world.instances[*i as usize].version.clone());
                for i in &canaries {
                    self.stop(*i);
                }
                let c = self.change(ChangeKind::Rollback, actor);
                let ch = &mut self.world.changes[c];
                ch.version = Some(self.cfg.versions[self.version].name.clone());
                ch.from_version = from;
                ch.reason = Some(reason.clone());
                ch.instances = canaries.iter().map(|i| *i as usize).collect();
            }
            Action::ScaleOut { to, reason, actor } => {
                let rs = self.rs_names[self.version].clone();
                let cur = self.replicas(&rs);
                let c = self.change(ChangeKind::ScaleOut, actor);
                self.scaling_event(&rs, cur, *to as u32);
                let mut new = Vec::new();
                for _ in cur as usize..*to {
                    new.push(self.launch(self.version, false) as usize);
                }
                let ch = &mut self.world.changes[c];
                ch.from_replicas = Some(cur);
                ch.to_replicas = Some(*to as u32);
                ch.reason = Some(reason.clone());
                ch.instances = new;
            }
            Action::Restart { which, reason, actor } => {
                let list: Vec<u32> = match which {
                    Which::Stuck => self.live_instances().into_iter().filter(|i| self.insts[*i as usize].stuck).collect(),
                    Which::Some(v) => v.iter().map(|i| *i as u32).collect(),
                };
                let c = self.change(ChangeKind::ManualRestart, actor);
                self.world.changes[c].reason = Some(reason.clone());
                self.world.changes[c].instances = list.iter().map(|i| *i as usize).collect();
                for i in list {
                    let v = self.insts[i as usize].version;
                    self.stop(i);
                    self.launch(v, false);
                }
            }
            Action::RateLimit { tenant, rps, reason, actor } => {
                self.limits[*tenant] = Some((*rps, rps.max(1.0), self.now));
                let c = self.change(ChangeKind::RateLimit, actor);
                self.world.changes[c].tenant = Some(*tenant);
                self.world.changes[c].reason = Some(reason.clone());
            }
            Action::FlagOn { actor } => {
                self.flag_on = true;
                let c = self.change(ChangeKind::FlagChange, actor);
                self.world.changes[c].flag = self.cfg.flag.as_ref().map(|f| f.key.clone());
                self.world.changes[c].version = Some("on".into());
                self.world.changes[c].from_version = Some("off".into());
            }
            Action::FlagOff { reason, actor } => {
                self.flag_on = false;
                let c = self.change(ChangeKind::FlagRevert, actor);
                self.world.changes[c].flag = self.cfg.flag.as_ref().map(|f| f.key.clone());
                self.world.changes[c].version = Some("off".into());
                self.world.changes[c].from_version = Some("on".into());
                self.world.changes[c].reason = Some(reason.clone());
            }
            Action::Stick { instance } => {
                let i = self.resolve(*instance);
                self.insts[i].stuck = true;
                self.ground.stuck.push((i, self.now));
            }
            Action::Refuse { instance, ms } => {
                let i = self.resolve(*instance);
                self.insts[i].refuse_until = self.now + ms;
            }
            Action::Evict { instance } => {
                let i = self.resolve(*instance);
                let v = self.insts[i].version;
                self.stop(i as u32);
                self.launch(v, false);
            }
            Action::DbFix { mult, reason, actor } => {
                self.db_fix *= mult;
                let c = self.change(ChangeKind::Config, actor);
                self.world.changes[c].reason = Some(reason.clone());
            }
            Action::StopActor { actor } => self.actor_stop(*actor),
        }
    }

    /// The instance a scenario meant by index `i` of the initial fleet: itself while it runs,
    /// else the live instance at that position (a pod replaced earlier).
    fn resolve(&self, i: usize) -> usize {
        let live = self.live_instances();
        if live.contains(&(i as u32)) || live.is_empty() {
            i
        } else {
            live[i % live.len()] as usize
        }
    }

    pub(super) fn rollout_step(&mut self, r: u32) {
        let ro = &self.rollouts[r as usize];
        if ro.cancelled {
            return;
        }
        if let Some(j) = ro.waiting {
            if !self.insts[j as usize].ready && self.now - ro.since < 900_000 {
                self.at(self.now + 1000, Ev::RolloutStep(r));
                return;
            }
            let next = ro.next;
            if let Some(&o) = ro.old.get(next) {
                let rs = self.world.instances[o as usize].replica_set.clone();
                let n = self.replicas(&rs);
                self.stop(o);
                self.scaling_event(&rs, n, n.saturating_sub(1));
            }
            let ro = &mut self.rollouts[r as usize];
            ro.next += 1;
            ro.waiting = None;
            ro.since = self.now;
        }
        let ro = &self.rollouts[r as usize];
        if ro.next < ro.old.len() {
            let (version, change) = (ro.version, ro.change);
            let rs = self.rs_names[version].clone();
            let n = self.replicas(&rs);
            self.scaling_event(&rs, n, n + 1);
            let j = self.launch(version, false);
            self.world.changes[change].instances.push(j as usize);
            self.rollouts[r as usize].waiting = Some(j);
            self.at(self.now + 1000, Ev::RolloutStep(r));
        } else {
            self.ground.actions.push((self.now, "rollout complete".into()));
        }
    }

    /// Every 10 s: the responders' view (the last minute's API failures and latency).
    pub(super) fn tick(&mut self) {
        self.at(self.now + 10_000, Ev::Tick);
        self.actors_tick();
        let r = &self.cfg.responders;
        if r.steps.is_empty() || self.ground.alert_at.is_some() || self.now < r.armed_at {
            return;
        }
        let s = ((self.now - self.cfg.start) / 1000) as usize;
        let sum = |from: usize, to: usize| {
            self.secs[from.min(self.secs.len())..to.min(self.secs.len())].iter().fold((0u32, 0u32, 0.0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2))
        };
        let (base_fail, base_lat) = *self.alert_base.get_or_insert_with(|| {
            let armed = ((r.armed_at - self.cfg.start).max(0) / 1000) as usize;
            let (n, f, l) = sum(0, armed);
            let n = n.max(1) as f64;
            (f as f64 / n, if l > 0.0 { l / n } else { self.ground.expected_latency_ms })
        });
        let (n, fail, lat) = sum(s.saturating_sub(60), s);
        let late = r.fallback_ms > 0 && self.now >= r.armed_at + r.fallback_ms;
        let slow = n >= 20 && lat / n as f64 >= (3.0 * base_lat).max(base_lat + 200.0);
        let failing = fail >= 5 && fail as f64 >= (0.02f64).max(3.0 * base_fail) * n as f64;
        if slow || failing {
            self.alert_streak += 1;
        } else {
            self.alert_streak = 0;
        }
        if self.alert_streak >= 2 || late {
            self.ground.alert_at = Some(self.now);
            let d = r.steps[0].0;
            self.at(self.now + d, Ev::Step(0));
        }
    }

    /// Opens the breaker when pool timeouts pile up.
    pub(super) fn breaker_check(&mut self) {
        let Some(b) = &self.cfg.breaker else { return };
        let now = self.now;
        while self.pool_timeouts.front().is_some_and(|t| *t < now - 10_000) {
            self.pool_timeouts.pop_front();
        }
        if self.breaker_until.is_some() || (self.pool_timeouts.len() as u32) < b.threshold {
            return;
        }
        let until = now + b.open_ms;
        self.breaker_until = Some(until);
        self.ground.breaker_open.push((now, until));
        self.breaker_lines("closed", "open");
        self.at(until, Ev::BreakerClose);
        self.sockets_disconnect();
    }

    pub(super) fn breaker_close(&mut self) {
        self.breaker_until = None;
        self.pool_timeouts.clear();
        self.breaker_lines("open", "half_open");
        self.breaker_lines("half_open", "closed");
    }

    fn breaker_lines(&mut self, from: &str, to: &str) {
        let Some(b) = &self.cfg.breaker else { return };
        let name = b.name.clone();
        for i in 0..self.insts.len() {
            if self.insts[i].st == St::Up {
                let line = self.cfg.stack.breaker(&name, from, to);
                self.log_line(i, line, LogTopic::CircuitBreaker, None);
            }
        }
    }
}
