//! Who sends requests: ordinary tenants (Poisson arrivals shaped by the day and the week,
//! re-sent per each client's retry policy), and the scenario's actors: a bulk exporter paging
//! as fast as it can, a tenant's stream of slow requests, a job dispatcher pushing queued work,
//! and websocket clients that reconnect (and log in again through an OAuth provider) when
//! dropped. In: timers and the outcomes of their requests. Out: flights.

use std::collections::VecDeque;

use super::super::facts::*;
use super::super::people::public_ip;
use super::*;

const CHURN: u32 = u32::MAX;

#[derive(Default)]
pub(super) struct ActorState {
    st: Vec<A>,
    /// The callback route that needs the OAuth provider, and its token bucket.
    provider_route: Option<usize>,
    provider_tokens: f64,
    provider_last: Ms,
    provider_per_min: f64,
    provider: String,
}

enum A {
    Exporter(Exp),
    Stream,
    Dispatcher(Disp),
    Sockets(Socks),
}

struct Exp {
    cursor: u32,
    done: u32,
    max_sent: u32,
    run: u32,
    gen: u32,
    inflight: u32,
    finished: bool,
}

/// A dispatcher's job: the tenant it is for, and for a redelivered one the
/// request it failed with (a redelivered job calls the same path again).
type Job = (u32, Option<(String, String)>);

struct Disp {
    queue: VecDeque<Job>,
    invisible: VecDeque<(Ms, u32, String, String)>,
    processed: u64,
    processed_prev: u64,
    ua: u32,
    ip: u32,
    stopped: bool,
}

struct Socks {
    connected: Vec<bool>,
    failures: Vec<u32>,
    gen: Vec<u32>,
    step: Vec<u8>,
    need_login: Vec<bool>,
    ip: Vec<u32>,
    ua: Vec<u32>,
    tenant: Vec<u32>,
}

impl Sim<'_> {
    pub(super) fn actors_init(&mut self) {
        let cfg = self.cfg;
        for (a, actor) in cfg.actors.iter().enumerate() {
            let a32 = a as u32;
            let st = match actor {
                Actor::Exporter(e) => {
                    self.at(e.start, Ev::Actor(a32, 0, 0));
                    A::Exporter(Exp {
                        cursor: 0,
                        done: 0,
                        max_sent: 0,
                        run: 0,
                        gen: 0,
                        inflight: 0,
                        finished: false,
                    })
                }
                Actor::Stream(s) => {
                    self.at(s.start, Ev::Actor(a32, 0, 0));
                    A::Stream
                }
                Actor::Dispatcher(d) => {
                    self.at(cfg.start, Ev::Actor(a32, 0, 0));
                    let (ua, ip) = (self.intern(&d.user_agent), self.intern(&d.ip));
                    // The queue holds what the service normally has in hand.
                    let mut queue = VecDeque::new();
                    for _ in 0..(d.rate * 2.0) as u32 {
                        queue.push_back((self.pick_tenant(), None));
                    }
                    A::Dispatcher(Disp {
                        queue,
                        invisible: VecDeque::new(),
                        processed: 0,
                        processed_prev: 0,
                        ua,
                        ip,
                        stopped: false,
                    })
                }
                Actor::Sockets(s) => {
                    let n = s.clients as usize;
                    let mut socks = Socks {
                        connected: vec![true; n],
                        failures: vec![0; n],
                        gen: vec![0; n],
                        step: vec![0; n],
                        need_login: vec![false; n],
                        ip: Vec::with_capacity(n),
                        ua: Vec::with_capacity(n),
                        tenant: Vec::with_capacity(n),
                    };
                    for _ in 0..n {
                        let ip = public_ip(&mut self.rng);
                        socks.ip.push(self.intern(&ip));
                        let t = self.pick_tenant();
                        socks.tenant.push(t);
                        let ua = cfg.people.tenants[t as usize].user_agent.clone();
                        let ua = if ua.starts_with("Mozilla") {
                            ua
                        } else {
                            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36".to_string()
                        };
                        socks.ua.push(self.intern(&ua));
                    }
                    self.actors.provider_route = Some(s.callback_route);
                    self.actors.provider_tokens = s.provider_per_min;
                    self.actors.provider_last = cfg.start;
                    self.actors.provider_per_min = s.provider_per_min;
                    self.actors.provider.clone_from(&s.provider);
                    let gap = self
                        .rng
                        .gap_ms(s.clients as f64 * s.churn_per_hour / 3600.0)
                        as Ms;
                    self.at(cfg.start + gap, Ev::Actor(a32, CHURN, 0));
                    A::Sockets(socks)
                }
            };
            self.actors.st.push(st);
        }
    }

    pub(super) fn pick_tenant(&mut self) -> u32 {
        let total = *self.tenant_cum.last().unwrap_or(&1.0);
        let x = self.rng.unit() * total;
        self.tenant_cum
            .partition_point(|c| *c <= x)
            .min(self.tenant_cum.len() - 1) as u32
    }

    /// A request of tenant `t` on route `r` with the route's own costs.
    fn tenant_flight(&mut self, t: u32, r: usize, owner: Owner) -> Flight {
        let cfg = self.cfg;
        let route = &cfg.api.routes[r];
        let mut f = Flight::new(self.now, r, route.kind, owner);
        f.tenant = t;
        let (path, query) = cfg
            .api
            .path(&mut self.rng, r, &cfg.people.tenants[t as usize].id);
        f.path = path;
        f.query = query;
        f.cpu_ms = self.rng.lognormal(route.cpu_ms, route.cpu_sigma) as f32;
        if route.db_ms > 0.0 {
            f.db_ms = self.rng.lognormal(route.db_ms, route.db_sigma) as f32;
        }
        f.status = match route.method {
            "POST" => 201,
            "DELETE" => 204,
            _ => 200,
        };
        let (first, n) = self.tenant_ips[t as usize];
        f.ip = first + self.rng.range(0, n as i64 - 1) as u32;
        f.ua = self.tenant_ua[t as usize];
        f.client_timeout = cfg.people.policies[t as usize].timeout_ms;
        f
    }

    /// An ordinary request now, then the next one scheduled.
    pub(super) fn ordinary(&mut self) {
        let cfg = self.cfg;
        let t = self.pick_tenant();
        let total = *self.route_cum.last().unwrap_or(&1.0);
        let x = self.rng.unit() * total;
        let r = self
            .route_cum
            .partition_point(|c| *c <= x)
            .min(self.route_cum.len() - 1);
        let mut f = self.tenant_flight(t, r, Owner::Ordinary);
        if self.rng.chance(cfg.traffic.client_errors) {
            f.status = self.rng.pick(&[400, 401, 403, 404, 404, 404, 422]);
        }
        let id = self.flight(f);
        self.arrive(id);
        self.next_ordinary();
    }

    /// Schedules the next ordinary arrival: a Poisson process at the peak rate, thinned by the
    /// day's and week's shape and the growth curve.
    pub(super) fn next_ordinary(&mut self) {
        let cfg = self.cfg;
        let mut t = self.now as f64;
        loop {
            t += self.rng.gap_ms(self.ordinary_max);
            if t as Ms > cfg.end {
                return;
            }
            if self.rng.unit() * self.ordinary_max <= cfg.traffic.rate_at(t as Ms) {
                self.at(t as Ms, Ev::Ordinary);
                return;
            }
        }
    }

    pub(super) fn ordinary_outcome(&mut self, id: u32, t: Ms) {
        let f = &self.flights[id as usize];
        let p = self.cfg.people.policies[f.tenant as usize];
        let failed = f.status >= 500 || f.status == 499 || (f.status == 429 && p.on_429);
        if !failed || f.attempt as u32 >= p.attempts {
            return;
        }
        let browser =
            self.cfg.people.kinds[f.tenant as usize] == super::super::people::ClientKind::Browser;
        if browser && !self.rng.chance(0.3) {
            return;
        }
        let d = p.delay(&mut self.rng, f.attempt as u32);
        self.at(t + d.max(1), Ev::Retry(id));
    }

    /// A client re-sends a failed request: the same path, a new attempt.
    pub(super) fn retry(&mut self, id: u32) {
        let o = &self.flights[id as usize];
        let route = &self.cfg.api.routes[o.route as usize];
        let mut f = Flight::new(self.now, o.route as usize, o.kind, o.owner);
        f.tenant = o.tenant;
        f.attempt = o.attempt.saturating_add(1);
        f.retry = true;
        f.path = o.path.clone();
        f.query = o.query.clone();
        f.ip = o.ip;
        f.ua = o.ua;
        f.client_timeout = o.client_timeout;
        f.tag = o.tag;
        f.status = if o.kind == ReqKind::Websocket {
            101
        } else if route.method == "POST" {
            201
        } else {
            200
        };
        f.cpu_ms = o.cpu_ms;
        f.db_ms = o.db_ms;
        let id = self.flight(f);
        self.arrive(id);
    }

    pub(super) fn actor_timer(&mut self, a: u32, w: u32, g: u32) {
        match &self.cfg.actors[a as usize] {
            Actor::Exporter(e) => self.exporter_next(a, g, e.clone()),
            Actor::Stream(s) => {
                let s = s.clone();
                if self.now >= s.end
                    || matches!(self.actors.st[a as usize], A::Stream)
                        && self.ground.actor_end[a as usize].is_some()
                {
                    self.ground.actor_end[a as usize].get_or_insert(self.now.min(s.end));
                    return;
                }
                let mut next = self.now + self.rng.gap_ms(s.rate).round() as Ms;
                if let Some(p) = s.pauses.iter().find(|p| self.now >= p.0 && self.now < p.1) {
                    next = p.1;
                } else {
                    let mut f = self.tenant_flight(s.tenant as u32, s.route, Owner::Actor(a, 0));
                    f.db_ms = self.rng.lognormal(s.db_ms, s.db_sigma) as f32;
                    f.cpu_ms = self.rng.lognormal(s.cpu_ms, 0.4) as f32;
                    f.client_timeout = s.policy.timeout_ms;
                    let id = self.flight(f);
                    self.arrive(id);
                }
                self.at(next, Ev::Actor(a, 0, 0));
            }
            Actor::Dispatcher(d) => self.dispatch(a, d.clone()),
            Actor::Sockets(s) => {
                let s = s.clone();
                self.socket_timer(a, w, g, &s);
            }
        }
    }

    fn exporter_next(&mut self, a: u32, g: u32, e: Exporter) {
        let A::Exporter(st) = &mut self.actors.st[a as usize] else {
            return;
        };
        if g != st.gen || st.finished {
            return;
        }
        if st.cursor >= e.pages {
            if st.inflight == 0 {
                st.finished = true;
                self.ground.actor_end[a as usize] = Some(self.now);
            } else {
                self.at(self.now + 1000, Ev::Actor(a, 0, g));
            }
            return;
        }
        let gap = (1000.0 / e.rate * self.rng.uniform(0.5, 1.5)).max(1.0) as Ms;
        self.at(self.now + gap, Ev::Actor(a, 0, g));
        let A::Exporter(st) = &mut self.actors.st[a as usize] else {
            return;
        };
        if st.inflight >= e.max_inflight {
            return;
        }
        let page = st.cursor;
        st.cursor += 1;
        st.inflight += 1;
        let resend = page < st.max_sent;
        st.max_sent = st.max_sent.max(page + 1);
        let run = st.run;
        let mut f = self.tenant_flight(e.tenant as u32, e.route, Owner::Actor(a, 0));
        f.query = format!("page={}&per_page={}", page + 1, e.per_page);
        f.db_ms = self.rng.lognormal(e.db_ms, e.db_sigma) as f32;
        f.cpu_ms = self.rng.lognormal(e.cpu_ms, 0.3) as f32;
        f.client_timeout = e.timeout_ms;
        f.retry = resend;
        f.tag = page | (run << 24);
        let id = self.flight(f);
        self.arrive(id);
    }

    pub(super) fn actor_outcome(&mut self, a: u32, w: u32, id: u32, t: Ms) {
        let f = &self.flights[id as usize];
        let (status, attempt, tag) = (f.status, f.attempt as u32, f.tag);
        let ok = status < 400;
        match &self.cfg.actors[a as usize] {
            Actor::Exporter(e) => {
                let A::Exporter(st) = &mut self.actors.st[a as usize] else {
                    return;
                };
                if tag >> 24 != st.run || st.finished {
                    return;
                }
                if ok {
                    st.done += 1;
                    st.inflight = st.inflight.saturating_sub(1);
                } else if attempt < e.attempts {
                    // Still in the client's hands: it re-sends the page after a delay.
                    let d = e.retry_delay_ms * self.rng.uniform(0.5, 1.5);
                    self.at(t + d as Ms + 1, Ev::Retry(id));
                } else if st.run < e.restarts {
                    // The run is abandoned; the next starts from the last checkpoint it saved.
                    st.run += 1;
                    st.gen += 1;
                    st.inflight = 0;
                    st.cursor = st.done / e.checkpoint_every * e.checkpoint_every;
                    st.done = st.cursor;
                    let gen = st.gen;
                    self.at(t + e.restart_after_ms, Ev::Actor(a, 0, gen));
                } else {
                    st.finished = true;
                    self.ground.actor_end[a as usize] = Some(t);
                }
            }
            Actor::Stream(s) => {
                let p = s.policy;
                let failed = status >= 500 || status == 499 || (status == 429 && p.on_429);
                if failed && attempt < p.attempts && t < s.end {
                    let d = p.delay(&mut self.rng, attempt);
                    self.at(t + d.max(1), Ev::Retry(id));
                }
            }
            Actor::Dispatcher(d) => {
                let vis = d.visibility_ms;
                let A::Dispatcher(st) = &mut self.actors.st[a as usize] else {
                    return;
                };
                if ok {
                    st.processed += 1;
                } else {
                    let f = &self.flights[id as usize];
                    st.invisible
                        .push_back((t + vis, f.tenant, f.path.clone(), f.query.clone()));
                }
            }
            Actor::Sockets(s) => {
                let s = s.clone();
                self.socket_outcome(a, w, id, t, ok, &s);
            }
        }
    }

    /// The dispatcher's second: enqueue new jobs, make failed ones visible again, push work.
    fn dispatch(&mut self, a: u32, d: Dispatcher) {
        let now = self.now;
        self.at(now + 1000, Ev::Actor(a, 0, 0));
        let arrivals = self.rng.poisson(d.rate * d.mult.at(now));
        let batch: u32 = d
            .batches
            .iter()
            .filter(|b| b.0 > now - 1000 && b.0 <= now)
            .map(|b| b.1)
            .sum();
        let mut new = Vec::new();
        for _ in 0..arrivals as u32 + batch {
            new.push(self.pick_tenant());
        }
        let A::Dispatcher(st) = &mut self.actors.st[a as usize] else {
            return;
        };
        st.queue.extend(new.into_iter().map(|t| (t, None)));
        while st.invisible.front().is_some_and(|x| x.0 <= now) {
            if let Some((_, t, path, query)) = st.invisible.pop_front() {
                st.queue.push_back((t, Some((path, query))));
            }
        }
        self.ground.queue.push((now, st.queue.len() as f64));
        if st.stopped {
            return;
        }
        let n = (st.queue.len() as f64).min(d.max_rate) as usize;
        let jobs: Vec<Job> = st.queue.drain(..n).collect();
        let (ua, ip) = (st.ua, st.ip);
        for (k, (tenant, again)) in jobs.into_iter().enumerate() {
            let mut f = self.tenant_flight(tenant, d.route, Owner::Actor(a, 0));
            let retry = again.is_some();
            if let Some((path, query)) = again {
                f.path = path;
                f.query = query;
            }
            f.t0 = now + (k as f64 * 1000.0 / n as f64) as Ms;
            f.cpu_ms = self.rng.lognormal(d.cpu_ms, d.cpu_sigma) as f32;
            f.db_ms = if d.db_ms > 0.0 {
                self.rng.lognormal(d.db_ms, 0.5) as f32
            } else {
                0.0
            };
            f.ua = ua;
            f.ip = ip;
            f.retry = retry;
            f.client_timeout = 0;
            let t0 = f.t0;
            let id = self.flight(f);
            self.at(t0, Ev::Arrive(id));
        }
    }

    fn socket_timer(&mut self, a: u32, c: u32, g: u32, s: &Sockets) {
        if c == CHURN {
            let gap = self
                .rng
                .gap_ms(s.clients as f64 * s.churn_per_hour / 3600.0) as Ms;
            self.at(self.now + gap.max(1), Ev::Actor(a, CHURN, 0));
            let k = self.rng.range(0, s.clients as i64 - 1) as usize;
            let A::Sockets(st) = &mut self.actors.st[a as usize] else {
                return;
            };
            if st.connected[k] {
                st.connected[k] = false;
                st.gen[k] += 1;
                st.step[k] = 0;
                let g = st.gen[k];
                let d = self.rng.range(100, 3000);
                self.at(self.now + d, Ev::Actor(a, k as u32, g));
            }
            return;
        }
        let A::Sockets(st) = &self.actors.st[a as usize] else {
            return;
        };
        let k = c as usize;
        if st.gen[k] != g || st.connected[k] {
            return;
        }
        let (step, tenant, ip, ua) = (st.step[k], st.tenant[k], st.ip[k], st.ua[k]);
        let route = match step {
            0 => s.ws_route,
            1 => s.login_route,
            _ => s.callback_route,
        };
        let mut f = self.tenant_flight(tenant, route, Owner::Actor(a, c));
        f.ip = ip;
        f.ua = ua;
        f.client_timeout = 0;
        f.tag = step as u32 | (g << 8);
        f.status = match step {
            0 => 101,
            1 => 200,
            _ => 302,
        };
        if step == 2 {
            f.query = format!("code={}&state={}", self.rng.hex(20), self.rng.hex(16));
        } else if step == 0 && f.path.contains("socket.io") {
            f.query = "EIO=4&transport=websocket".into();
        }
        let id = self.flight(f);
        self.arrive(id);
    }

    fn socket_outcome(&mut self, a: u32, c: u32, id: u32, t: Ms, ok: bool, s: &Sockets) {
        let tag = self.flights[id as usize].tag;
        let A::Sockets(st) = &mut self.actors.st[a as usize] else {
            return;
        };
        let k = c as usize;
        if tag >> 8 != st.gen[k] {
            return;
        }
        let step = (tag & 0xff) as u8;
        let delay;
        if ok {
            st.failures[k] = 0;
            match step {
                0 if st.need_login[k] => {
                    st.step[k] = 1;
                    delay = self.rng.range(200, 1500);
                }
                1 => {
                    st.step[k] = 2;
                    delay = self.rng.range(500, 4000);
                }
                _ => {
                    st.connected[k] = true;
                    st.need_login[k] = false;
                    return;
                }
            }
        } else {
            st.failures[k] += 1;
            let n = st.failures[k];
            // A failed login starts over from the login page.
            if step == 2 {
                st.step[k] = 1;
            }
            let base = if step == 0 {
                s.retry_ms
            } else {
                s.retry_ms * 3.0
            };
            let d = (base * 1.5f64.powi(n as i32 - 1)).min(s.max_retry_ms);
            delay = (d * self.rng.uniform(0.8, 1.2)) as Ms;
        }
        let g = st.gen[k];
        self.at(t + delay.max(1), Ev::Actor(a, c, g));
    }

    /// The breaker opened: every websocket is dropped; clients reconnect at once.
    pub(super) fn sockets_disconnect(&mut self) {
        self.sockets_drop(1.0);
    }

    /// A share of the connected websockets is dropped (their instance died, or the breaker
    /// opened); those clients reconnect at once.
    pub(super) fn sockets_drop(&mut self, share: f64) {
        for a in 0..self.actors.st.len() {
            let Actor::Sockets(s) = &self.cfg.actors[a] else {
                continue;
            };
            let relogin = s.relogin;
            let A::Sockets(st) = &mut self.actors.st[a] else {
                continue;
            };
            let mut timers = Vec::new();
            for k in 0..st.connected.len() {
                if st.connected[k] && self.rng.chance(share) {
                    st.connected[k] = false;
                    st.gen[k] += 1;
                    st.step[k] = 0;
                    st.failures[k] = 0;
                    st.need_login[k] = self.rng.chance(relogin);
                    timers.push((k as u32, st.gen[k]));
                }
            }
            for (k, g) in timers {
                let d = self.rng.range(50, 2000);
                self.at(self.now + d, Ev::Actor(a as u32, k, g));
            }
        }
    }

    /// The OAuth callback needs the provider: false when the provider rate-limits us.
    pub(super) fn provider_take(&mut self, route: usize) -> Option<bool> {
        if self.actors.provider_route != Some(route) {
            return None;
        }
        let per_min = self.actors.provider_per_min;
        let ac = &mut self.actors;
        ac.provider_tokens = (ac.provider_tokens
            + (self.now - ac.provider_last) as f64 / 60_000.0 * per_min)
            .min(per_min);
        ac.provider_last = self.now;
        if ac.provider_tokens >= 1.0 {
            ac.provider_tokens -= 1.0;
            return Some(true);
        }
        self.ground.upstream_limited.push(self.now);
        Some(false)
    }

    pub(super) fn provider_name(&self) -> String {
        self.actors.provider.clone()
    }

    pub(super) fn actor_stop(&mut self, a: usize) {
        match &mut self.actors.st[a] {
            A::Exporter(e) => e.finished = true,
            A::Dispatcher(d) => d.stopped = true,
            A::Stream | A::Sockets(_) => {}
        }
        self.ground.actor_end[a].get_or_insert(self.now);
    }

    pub(super) fn actors_tick(&mut self) {}

    pub(super) fn actors_scrape(&mut self) {
        let step = self.cfg.scrape_ms as f64 / 1000.0;
        let mut points = Vec::new();
        for st in self.actors.st.iter_mut() {
            if let A::Dispatcher(d) = st {
                points.push((MetricRole::QueueDepth, d.queue.len() as f64));
                let rate = (d.processed - d.processed_prev) as f64 / step;
                d.processed_prev = d.processed;
                points.push((MetricRole::JobsProcessed, (rate * 100.0).round() / 100.0));
            }
        }
        for (role, v) in points {
            self.service_point(role, v);
        }
    }
}
