//! Streaming aggregates: events folded into per-second buckets per
//! dimension value, so memory follows buckets x distinct values, never the
//! number of lines. Aggregates of two halves of an input merge into the
//! aggregate of the whole.
//!
//! In: [`Event`]s. Out: [`Aggregates`], read by `correlate` through dense
//! series, per-dimension tables (built with polars in `table.rs`), signal
//! counts, metric series and orchestrator events.
//!
//! ```text
//! Request { ts: 07:56:55.2, tenant: acct-4411, status: 200, 2.4 s } -> by_dim[Tenant][(acct-4411, 07:56:55)].requests += 1
//! ```

mod cell;
mod connects;
mod file_metric;
mod held;
mod intern;
pub mod paths;
mod recent;
mod rows;
mod seen;
mod table;
pub mod ties;

pub use cell::Cell;
use cell::Hit;
pub use table::{AggregateError, DimStats, Span};

use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::event::{
    Event, InfraEvent, Level, LogRecord, MetricRole, MetricSample, Millis, Origin, Request,
    RequestKind, Signal, VersionBanner,
};
use intern::Interner;
use paths::PathSample;
use recent::Recent;
use rows::Rows;
use seen::Seen;

/// Distinct (tenant, path) pairs kept exactly for retry detection; past
/// this they are sampled, and the report says so.
pub use paths::CAP as MAX_TRACKED_PATHS;

/// A dimension requests are split by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    Tenant,
    Integration,
    Instance,
    Route,
}

impl Dim {
    pub const ALL: [Dim; 4] = [Dim::Tenant, Dim::Integration, Dim::Instance, Dim::Route];

    /// This dimension's entry of a per-dimension table (kept in `ALL`'s order).
    fn of<T>(self, table: &[T; 4]) -> &T {
        let [tenant, integration, instance, route] = table;
        match self {
            Dim::Tenant => tenant,
            Dim::Integration => integration,
            Dim::Instance => instance,
            Dim::Route => route,
        }
    }
}

/// Error and fatal records among one second's counts per level.
fn errors(levels: &[u32; 6]) -> u32 {
    [Level::Error, Level::Fatal]
        .iter()
        .filter_map(|l| levels.get(*l as usize))
        .sum()
}

/// One metric series.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub key: String,
    pub name: String,
    pub role: Option<MetricRole>,
    pub instance: Option<String>,
    pub input: u32,
    /// Each point's time is the start of the period it sums up.
    pub period_start: bool,
    /// (ms, value), sorted by time once finished.
    pub points: Vec<(Millis, f64)>,
}

impl Series {
    /// The usual time between points (their median gap; 15 s, a common
    /// scrape interval, when there are too few to tell).
    pub fn step(&self) -> Millis {
        let mut gaps: Vec<Millis> = self
            .points
            .windows(2)
            .filter_map(|w| match w {
                [a, b] if b.0 > a.0 => Some(b.0 - a.0),
                _ => None,
            })
            .collect();
        if gaps.is_empty() {
            return 15_000;
        }
        gaps.sort_unstable();
        // The median; of an even count, the mean of the middle two.
        let n = gaps.len();
        let at = |i: usize| gaps.get(i).copied().unwrap_or(15_000);
        if n % 2 == 1 {
            at(n / 2)
        } else {
            (at(n / 2 - 1) + at(n / 2) + 1) / 2
        }
    }

    /// The best single time for what a point at `t` saw: `t` for an instant
    /// reading; for a period's figure (a rollup stamped at its start), the
    /// middle of the period, which is at most half a period from any moment
    /// in it (a peak inside a minute-long period is anywhere in that minute).
    pub fn moment(&self, t: Millis) -> Millis {
        if self.period_start {
            t + self.step() / 2
        } else {
            t
        }
    }
}

/// A log signal seen in one second on one instance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SignalCount {
    pub count: u32,
    pub first: Origin,
}

/// A log record worth quoting: the first of each signal per instance.
#[derive(Clone, Debug, PartialEq)]
pub struct Quote {
    pub ts: Millis,
    pub origin: Origin,
    pub message: String,
}

/// A version banner as it was seen: when, where, on which instance. Kept
/// one by one: a service starts a handful of times, not once a line.
#[derive(Clone, Debug, PartialEq)]
pub struct BannerSeen {
    pub ts: Millis,
    pub origin: Origin,
    pub instance: Option<String>,
    pub banner: VersionBanner,
}

/// Held time per value id, by (dimension index, span start, span end).
type HeldCache = HashMap<(usize, i64, i64), Arc<HashMap<u32, f64>>>;

#[derive(Debug, Default)]
pub struct Aggregates {
    names: Interner,
    /// API requests per second (health checks excluded).
    /// All requests per second, as the one value 0 of a dimension.
    total: Rows,
    /// Health-check requests per (instance, second); instance id 0 is unknown.
    health: BTreeMap<(u32, i64), Cell>,
    /// Per dimension (in [`Dim`] order), cells by second and value id.
    by_dim: [Rows; 4],
    /// Per dimension, its cells as a polars table, made on the first
    /// `dim_stats` after reading and kept for the next ones (correlation asks
    /// for several windows); `merge` and `finish` drop them.
    frames: [std::sync::OnceLock<polars::prelude::DataFrame>; 4],
    /// Held time per value by (dimension, span), worked out on the first
    /// `dim_stats` that asks and kept: detectors ask for the same spans
    /// again and again, and each costs a pass over every cell of the
    /// dimension. Cleared with `frames`.
    held: std::sync::Mutex<HeldCache>,
    /// The second being filled; merged into `total` and `by_dim` when a
    /// later second starts, and by `merge` and `finish`.
    recent: Recent,
    tenant_integration: HashMap<(u32, u32), u64>,
    /// Per (route, tenant): requests and the milliseconds they took. Tells
    /// whose requests an endpoint's busy time was when the endpoint is what
    /// held the servers and a tenant mixes it with quick requests.
    route_tenant: HashMap<(u32, u32), (u64, u64)>,
    paths: PathSample,
    /// Connect routes, whose repeats are a herd's and not retries.
    connects: connects::Connects,
    signals: BTreeMap<(Signal, u32, i64), SignalCount>,
    quotes: BTreeMap<(Signal, u32), Quote>,
    levels: BTreeMap<i64, [u32; 6]>,
    metrics: BTreeMap<String, Series>,
    infra: Vec<InfraEvent>,
    banners: Vec<BannerSeen>,
    /// First and last second each instance (by id) wrote a log record:
    /// who was running when, where the access log names no instance.
    logged: HashMap<u32, (i64, i64)>,
    /// The seconds in which each instance (by id; `None`: a record naming
    /// none) logged an error or fatal record: which instances failed,
    /// where the access log names none, and how many failures the logs
    /// tell of. Seconds, not records: one failed request's traceback is
    /// several error lines written together (Rails logs three for one 500:
    /// canary draw 698211 called a healthy old pod affected for one).
    log_errors: std::collections::HashSet<(Option<u32>, i64)>,
    /// Start-up lines naming the address an instance listens on.
    ties: ties::Ties,
    /// Log messages by template key (`crate::templates`).
    templates: crate::templates::Miner,
    first_ms: Option<Millis>,
    last_ms: Option<Millis>,
    /// `--since`/`--until`: events outside are left out.
    bounds: (Option<Millis>, Option<Millis>),
    /// Request ids of the inputs read: a request an earlier input holds is
    /// not counted again.
    seen: Seen,
    /// Requests left out as repeats of an earlier input's.
    repeats: u64,
    /// The input being read and the instance its path names: its records
    /// that name no instance are that instance's.
    named: Option<(u32, std::sync::Arc<str>)>,
    /// The input being read and the metric its file is named for, with
    /// that metric's role.
    file_metric: Option<(u32, std::sync::Arc<str>, MetricRole)>,
    /// Requests read from access logs.
    edge_requests: u64,
    /// Requests read from application logs' request lines, held back until
    /// every input is read: counted only when no access log was given.
    log_requests: Vec<Request<'static>>,
    /// Those left out because access logs were given.
    log_requests_left: u64,
}

impl crate::event::EventSink for Aggregates {
    fn push(&mut self, event: Event<'_>) {
        self.add(event);
    }

    fn fork(&self) -> Self {
        Aggregates::fork(self)
    }

    fn join(&mut self, other: Self) {
        self.merge(other);
    }

    fn begin_input(&mut self, input: u32, instance: Option<&str>, host: Option<&str>) {
        if let (Some(i), Some(h)) = (instance, host) {
            self.ties.add_host(h, i);
        }
        self.named = instance.map(|i| (input, std::sync::Arc::from(i)));
    }

    fn input_metric(&mut self, input: u32, metric: &str, role: MetricRole) {
        self.file_metric = Some((input, std::sync::Arc::from(metric), role));
    }

    fn one_writer(&mut self, envelope: &str, line: &str) {
        self.ties.add_writer(envelope, line);
    }

    fn end_input(&mut self) {
        self.seen.end_input();
    }
}

fn sec(ms: Millis) -> i64 {
    ms.div_euclid(1000)
}

/// Add a request to a map of cells: its arrival at `start`, its outcome at `end`.
fn bump<K: Ord + std::hash::Hash + Eq, M: CellMap<K>>(
    map: &mut M,
    key: impl Fn(i64) -> K,
    start: i64,
    end: i64,
    r: &Request,
) {
    if start == end {
        map.cell(key(start)).add(r, true, true);
    } else {
        map.cell(key(start)).add(r, true, false);
        map.cell(key(end)).add(r, false, true);
    }
}

/// The two map kinds cells live in.
trait CellMap<K> {
    fn cell(&mut self, key: K) -> &mut Cell;
}

impl<K: Ord> CellMap<K> for BTreeMap<K, Cell> {
    fn cell(&mut self, key: K) -> &mut Cell {
        self.entry(key).or_default()
    }
}

impl<K: std::hash::Hash + Eq> CellMap<K> for HashMap<K, Cell> {
    fn cell(&mut self, key: K) -> &mut Cell {
        self.entry(key).or_default()
    }
}

impl Aggregates {
    pub fn new() -> Aggregates {
        let mut a = Aggregates::default();
        // Id 0 stands for "unknown" in every dimension.
        a.names.id("");
        a
    }

    /// Aggregates that keep only events in `[since, until)` (ms).
    pub fn bounded(since: Option<Millis>, until: Option<Millis>) -> Aggregates {
        let mut a = Aggregates::new();
        a.bounds = (since, until);
        a
    }

    /// Routes holding one of `fragments` are connects (see [`connects`]).
    pub fn set_connect_routes(&mut self, fragments: Vec<String>) {
        self.connects = connects::Connects::new(fragments);
    }

    /// An empty aggregate with the same bounds, for a worker thread.
    pub fn fork(&self) -> Aggregates {
        let mut a = Aggregates::bounded(self.bounds.0, self.bounds.1);
        a.seen = self.seen.fork();
        a.connects = self.connects.fork();
        a.named.clone_from(&self.named);
        a.file_metric.clone_from(&self.file_metric);
        a
    }

    /// Fold one event in.
    pub fn add(&mut self, event: Event<'_>) {
        let ts = event.ts();
        if self.bounds.0.is_some_and(|s| ts < s) || self.bounds.1.is_some_and(|u| ts >= u) {
            return;
        }
        // A change history (`helm history`, a flag audit log) reaches back
        // months: its records are kept, but only what the system did
        // decides the span analysed second by second.
        let history = matches!(&event, Event::Infra(i) if i.kind.is_change());
        if !history {
            self.first_ms = Some(self.first_ms.map_or(ts, |f| f.min(ts)));
            self.last_ms = Some(self.last_ms.map_or(ts, |l| l.max(ts)));
        }
        match event {
            Event::Request(r) => self.add_request(&r),
            // Only log records: an ingress's access log collected per pod
            // names the proxy's pod, not the instance that served.
            Event::Log(l) => {
                // The path's instance, borrowed for the call: no string per record.
                let named = self
                    .named
                    .as_ref()
                    .filter(|(i, _)| *i == l.origin.input && l.instance.is_none())
                    .map(|(_, n)| std::sync::Arc::clone(n));
                let mut l = l;
                if let Some(n) = &named {
                    l.instance = Some(std::borrow::Cow::Borrowed(&**n));
                }
                self.add_log(l)
            }
            Event::Metric(m) => self.add_metric(m),
            Event::Infra(i) => self.infra.push(i),
        }
    }

    fn id(&mut self, v: &Option<std::borrow::Cow<'_, str>>) -> u32 {
        v.as_deref().map_or(0, |s| self.names.id(s))
    }

    fn add_request(&mut self, r: &Request) {
        // An application that logs its own requests logs the requests the
        // access logs in front of it hold: both counted, every request
        // counts twice, and the application's durations (its pool waits)
        // sit beside the proxy's. No request id ties the two (an ALB's
        // trace id is not the application's), so the access logs win.
        if r.from_log {
            // Once an access log has been read the line can only be left
            // out: count it rather than hold it.
            if self.edge_requests > 0 {
                self.log_requests_left += 1;
            } else {
                self.log_requests.push(r.clone().into_owned());
            }
            return;
        }
        self.edge_requests += 1;
        if r.request_id.is_some_and(|id| self.seen.repeat(id)) {
            self.repeats += 1;
            return;
        }
        let s = sec(r.ts);
        let e = sec(r.end_ts);
        let instance = self.id(&r.instance);
        if r.kind == RequestKind::HealthCheck {
            bump(&mut self.health, |t| (instance, t), s, e, r);
            return;
        }
        let tenant = self.id(&r.tenant);
        let integration = self.id(&r.integration);
        let route = self.names.id(&r.route);
        // In `Dim` order.
        let ids = [tenant, integration, instance, route];
        let hit = Hit::of(r);
        if s == e {
            self.add_cells(s, ids, &hit, true, true);
        } else {
            self.add_cells(s, ids, &hit, true, false);
            self.add_cells(e, ids, &hit, false, true);
        }
        *self
            .tenant_integration
            .entry((tenant, integration))
            .or_insert(0) += 1;
        if let Some(d) = r.duration_ms {
            let e = self.route_tenant.entry((route, tenant)).or_insert((0, 0));
            e.0 += 1;
            e.1 += d.max(0.0).round() as u64;
        }
        // A connect again after a failed one is a herd's, not a retry.
        if self.connects.is(route, &r.route) {
            return;
        }
        // Paths by who sent them, tenant and integration: a retrying SDK is
        // a client whatever tenant it works for.
        let failed = hit.failed;
        let fixed = memchr::memchr(b'{', r.route.as_bytes()).is_none();
        let sender = paths::Sender {
            tenant,
            integration,
        };
        self.paths.add(sender, r.path_hash, (s, e), failed, fixed);
    }

    /// A request's arrival and/or outcome in second `s`: staged when `s` is
    /// the second being filled or a later one, else straight into the maps.
    fn add_cells(&mut self, s: i64, ids: [u32; 4], h: &Hit, arrival: bool, outcome: bool) {
        match self.recent.sec() {
            Some(cur) if cur == s => {}
            Some(cur) if s < cur => {
                self.total.cell(0, s).add_hit(h, arrival, outcome);
                for (rows, id) in self.by_dim.iter_mut().zip(ids) {
                    rows.cell(id, s).add_hit(h, arrival, outcome);
                }
                return;
            }
            _ => {
                self.flush_recent();
                self.recent.start(s);
            }
        }
        self.recent.add(ids, h, arrival, outcome);
    }

    /// Merge the staged second into the maps.
    fn flush_recent(&mut self) {
        let (total, by_dim) = (&mut self.total, &mut self.by_dim);
        self.recent.drain(
            |s, c| total.cell(0, s).merge(c),
            |d, s, row| {
                if let Some(rows) = by_dim.get_mut(d) {
                    rows.put_row(s, row);
                }
            },
        );
    }

    fn add_log(&mut self, mut l: LogRecord<'_>) {
        self.templates.add(&l);
        let s = sec(l.ts);
        if let Some(banner) = l.version.take() {
            self.banners.push(BannerSeen {
                ts: l.ts,
                origin: l.origin,
                instance: l.instance.as_deref().map(str::to_string),
                banner,
            });
        }
        if let Some(n) = self.levels.entry(s).or_default().get_mut(l.level as usize) {
            *n += 1;
        }
        // The instance is interned once per line, for both uses below.
        let instance = l.instance.is_some().then(|| self.id(&l.instance));
        if let Some(id) = instance {
            let e = self.logged.entry(id).or_insert((s, s));
            e.0 = e.0.min(s);
            e.1 = e.1.max(s);
        }
        if l.level >= crate::event::Level::Error {
            self.log_errors.insert((instance, s));
        }
        if l.signal == Some(Signal::Startup) {
            if let Some(inst) = l.instance.as_deref() {
                self.ties.add(inst, &l.message);
            }
        }
        if let Some(signal) = l.signal {
            let instance = self.id(&l.instance);
            let c = self
                .signals
                .entry((signal, instance, s))
                .or_insert(SignalCount {
                    count: 0,
                    first: l.origin,
                });
            c.count += 1;
            c.first = c.first.min(l.origin);
            let q = self
                .quotes
                .entry((signal, instance))
                .or_insert_with(|| Quote {
                    ts: l.ts,
                    origin: l.origin,
                    message: l.message.to_string(),
                });
            if l.ts < q.ts {
                *q = Quote {
                    ts: l.ts,
                    origin: l.origin,
                    message: l.message.into_owned(),
                };
            }
        }
    }

    fn add_metric(&mut self, mut m: MetricSample) {
        if let Some(file) = &self.file_metric {
            file_metric::name_by_file(&mut m, file);
        }
        let series = self
            .metrics
            .entry(m.series.clone())
            .or_insert_with(|| Series {
                key: m.series.clone(),
                name: m.name.clone(),
                role: m.role,
                instance: m.instance.clone(),
                input: m.origin.input,
                period_start: m.period_start,
                points: Vec::new(),
            });
        series.points.push((m.ts, m.value));
    }

    /// Application-log request lines left out because access logs were given.
    pub fn log_requests_left_out(&self) -> u64 {
        self.log_requests_left
    }

    /// Requests left out because an earlier input held the same request id.
    pub fn repeated_requests(&self) -> u64 {
        self.repeats
    }

    /// Fold another aggregate (of other lines) into this one. Every part
    /// merges by sums, minima and maxima, so the result does not depend on
    /// how the lines were split or in which order the parts arrive.
    pub fn merge(&mut self, mut other: Aggregates) {
        self.frames = Default::default();
        self.held = Default::default();
        self.flush_recent();
        other.flush_recent();
        self.seen.merge(std::mem::take(&mut other.seen));
        self.repeats += other.repeats;
        other.repeats = 0;
        let edge = std::mem::take(&mut other.edge_requests);
        let mut logs = std::mem::take(&mut other.log_requests);
        let left = std::mem::take(&mut other.log_requests_left);
        // Nothing here yet (the first worker's part): take the other whole
        // rather than rebuild it entry by entry. Change records do not date
        // the span (`add`), so an aggregate of a deploy log alone has no
        // first time and is not empty.
        if self.first_ms.is_none() && self.names.len() <= 1 && self.infra.is_empty() {
            let (bounds, seen, repeats) =
                (self.bounds, std::mem::take(&mut self.seen), self.repeats);
            *self = other;
            self.bounds = bounds;
            self.seen = seen;
            self.repeats = repeats;
            (
                self.edge_requests,
                self.log_requests,
                self.log_requests_left,
            ) = (edge, logs, left);
            return;
        }
        self.edge_requests += edge;
        self.log_requests.append(&mut logs);
        self.log_requests_left += left;
        let remap: Vec<u32> = (0..other.names.len() as u32)
            .map(|i| self.names.id(other.names.name(i)))
            .collect();
        let id = |i: u32| remap.get(i as usize).copied().unwrap_or(0);
        self.total.merge(other.total, |v| v);
        for ((inst, s), c) in other.health {
            self.health.entry((id(inst), s)).or_default().merge(&c);
        }
        for (mine, rows) in self.by_dim.iter_mut().zip(other.by_dim) {
            mine.merge(rows, id);
        }
        for ((t, i), n) in other.tenant_integration {
            *self.tenant_integration.entry((id(t), id(i))).or_insert(0) += n;
        }
        for ((r, t), (n, ms)) in other.route_tenant {
            let e = self.route_tenant.entry((id(r), id(t))).or_insert((0, 0));
            e.0 += n;
            e.1 += ms;
        }
        self.paths.merge(other.paths, id);
        for ((sig, inst, s), c) in other.signals {
            let e = self
                .signals
                .entry((sig, id(inst), s))
                .or_insert(SignalCount {
                    count: 0,
                    first: c.first,
                });
            e.count += c.count;
            e.first = e.first.min(c.first);
        }
        for ((sig, inst), q) in other.quotes {
            match self.quotes.entry((sig, id(inst))) {
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert(q);
                }
                std::collections::btree_map::Entry::Occupied(mut o) => {
                    if (q.ts, q.origin) < (o.get().ts, o.get().origin) {
                        o.insert(q);
                    }
                }
            }
        }
        for (s, l) in other.levels {
            let e = self.levels.entry(s).or_default();
            for (a, b) in e.iter_mut().zip(l) {
                *a += b;
            }
        }
        for (k, series) in other.metrics {
            match self.metrics.entry(k) {
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert(series);
                }
                std::collections::btree_map::Entry::Occupied(mut o) => {
                    o.get_mut().points.extend(series.points);
                }
            }
        }
        self.infra.extend(other.infra);
        self.banners.extend(other.banners);
        for (inst, s) in other.log_errors {
            self.log_errors.insert((inst.map(id), s));
        }
        for (inst, (from, to)) in other.logged {
            let e = self.logged.entry(id(inst)).or_insert((from, to));
            e.0 = e.0.min(from);
            e.1 = e.1.max(to);
        }
        self.ties.merge(other.ties);
        self.templates.merge(other.templates);
        self.first_ms = [self.first_ms, other.first_ms].into_iter().flatten().min();
        self.last_ms = [self.last_ms, other.last_ms].into_iter().flatten().max();
    }

    /// Sort what arrived out of order; call once after the last event.
    pub fn finish(&mut self) {
        self.frames = Default::default();
        self.held = Default::default();
        self.flush_recent();
        let logs = std::mem::take(&mut self.log_requests);
        if self.edge_requests > 0 {
            self.log_requests_left += logs.len() as u64;
        } else if !logs.is_empty() {
            // In the order they were read, whatever the threads did.
            let mut logs = logs;
            logs.sort_by_key(|r| r.origin);
            for mut r in logs {
                r.from_log = false;
                self.add_request(&r);
            }
            self.flush_recent();
        }
        self.total.settle();
        for rows in &mut self.by_dim {
            rows.settle();
        }
        for s in self.metrics.values_mut() {
            s.points
                .sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            s.points.dedup_by(|a, b| a.0 == b.0);
        }
        self.infra.sort_by(|a, b| {
            (a.ts, a.first_ts, &a.object, &a.reason, a.origin)
                .cmp(&(b.ts, b.first_ts, &b.object, &b.reason, b.origin))
        });
        self.banners.sort_by_key(|b| (b.ts, b.origin));
    }

    // ---- reading ----

    /// First and last event time, in seconds.
    pub fn span(&self) -> Option<Span> {
        Some(Span {
            start: sec(self.first_ms?),
            end: sec(self.last_ms?) + 1,
        })
    }

    /// Events per minute (requests, log records, metric samples,
    /// orchestrator events), for choosing what to analyse in a long export.
    pub fn activity_per_minute(&self) -> BTreeMap<i64, u64> {
        let mut out: BTreeMap<i64, u64> = BTreeMap::new();
        for (_, s, c) in self.total.iter() {
            *out.entry(s.div_euclid(60)).or_insert(0) += u64::from(c.requests);
        }
        for (s, l) in &self.levels {
            *out.entry(s.div_euclid(60)).or_insert(0) +=
                l.iter().map(|n| u64::from(*n)).sum::<u64>();
        }
        for series in self.metrics.values() {
            for (t, _) in &series.points {
                *out.entry(t.div_euclid(60_000)).or_insert(0) += 1;
            }
        }
        for e in &self.infra {
            *out.entry(e.ts.div_euclid(60_000)).or_insert(0) += 1;
        }
        out
    }

    pub fn first_ms(&self) -> Option<Millis> {
        self.first_ms
    }

    pub fn last_ms(&self) -> Option<Millis> {
        self.last_ms
    }

    pub fn has_requests(&self) -> bool {
        self.total.len() > 0
    }

    /// API request cells for every second of `span` (empty seconds are zero).
    pub fn total_series(&self, span: Span) -> Vec<Cell> {
        let mut cells = Vec::new();
        self.total.for_each_row(span.start, span.end, |s, row| {
            if let Some(c) = Rows::find(row, 0) {
                cells.push((s, *c));
            }
        });
        dense(span, cells.into_iter())
    }

    /// API request cells summed into buckets of `bucket` seconds from
    /// `span.start` (the last bucket may be partial): one pass over the
    /// seconds that saw requests, however long the span.
    pub fn total_buckets(&self, span: Span, bucket: i64) -> Vec<Cell> {
        let n = (span.len() as i64 + bucket - 1) / bucket.max(1);
        let mut out = vec![Cell::default(); n.max(0) as usize];
        // Seconds in the span fall in one of its `n` buckets.
        self.total.for_each_row(span.start, span.end, |s, row| {
            let c = Rows::find(row, 0);
            if let (Some(o), Some(c)) = (out.get_mut(((s - span.start) / bucket) as usize), c) {
                o.merge(c);
            }
        });
        out
    }

    /// Error and fatal log records per bucket, as [`Aggregates::total_buckets`].
    pub fn error_log_buckets(&self, span: Span, bucket: i64) -> Vec<u32> {
        let n = (span.len() as i64 + bucket - 1) / bucket.max(1);
        let mut out = vec![0u32; n.max(0) as usize];
        for (s, levels) in self.levels.range(span.start..span.end) {
            if let Some(o) = out.get_mut(((s - span.start) / bucket) as usize) {
                *o += errors(levels);
            }
        }
        out
    }

    /// Request cells of one dimension value over `span`.
    pub fn dim_series(&self, dim: Dim, value: &str, span: Span) -> Vec<Cell> {
        self.dim_series_many(dim, &[value], span)
            .pop()
            .unwrap_or_else(|| vec![Cell::default(); span.len()])
    }

    /// [`Aggregates::dim_series`] of several values in one pass over the
    /// seconds (each second's row is read once, not once per value).
    pub fn dim_series_many(&self, dim: Dim, values: &[&str], span: Span) -> Vec<Vec<Cell>> {
        let ids: Vec<Option<u32>> = values.iter().map(|v| self.names.get(v)).collect();
        let mut out = vec![vec![Cell::default(); span.len()]; values.len()];
        dim.of(&self.by_dim)
            .for_each_row(span.start, span.end, |s, row| {
                for (series, id) in out.iter_mut().zip(&ids) {
                    let slot = series.get_mut((s - span.start) as usize);
                    if let (Some(slot), Some(c)) = (slot, id.and_then(|id| Rows::find(row, id))) {
                        *slot = *c;
                    }
                }
            });
        out
    }

    /// The first and last second each value of `dim` saw a request, by name
    /// (unknown left out): when an instance joined and left the fleet.
    pub fn seen(&self, dim: Dim) -> BTreeMap<String, (i64, i64)> {
        let mut by_id: BTreeMap<u32, (i64, i64)> = BTreeMap::new();
        for (id, s, c) in dim.of(&self.by_dim).iter() {
            if id == 0 || c.requests == 0 {
                continue;
            }
            let e = by_id.entry(id).or_insert((s, s));
            e.0 = e.0.min(s);
            e.1 = e.1.max(s);
        }
        by_id
            .into_iter()
            .map(|(id, v)| (self.names.name(id).to_string(), v))
            .collect()
    }

    /// The distinct values of one dimension, sorted, unknown left out.
    pub fn dim_values(&self, dim: Dim) -> Vec<String> {
        // Marks by id: every cell is looked at once, nothing is sorted but
        // the names.
        let mut seen = vec![false; self.names.len()];
        for (id, _, _) in dim.of(&self.by_dim).iter() {
            if let Some(s) = seen.get_mut(id as usize) {
                *s = true;
            }
        }
        let mut names: Vec<String> = seen
            .iter()
            .enumerate()
            .skip(1)
            .filter(|&(_, &s)| s)
            .map(|(i, _)| self.names.name(i as u32).to_string())
            .collect();
        names.sort();
        names
    }

    /// Whether any request named a value of `dim`.
    pub fn has_values(&self, dim: Dim) -> bool {
        dim.of(&self.by_dim).iter().any(|(id, _, _)| id != 0)
    }

    /// The tenants whose requests took an endpoint's time over the whole
    /// span: (tenant, requests, milliseconds), most time first (ties by
    /// name). Requests without a tenant are left out.
    pub fn route_tenants(&self, route: &str) -> Vec<(String, u64, u64)> {
        let Some(r) = self.names.get(route) else {
            return Vec::new();
        };
        let mut v: Vec<(String, u64, u64)> = self
            .route_tenant
            .iter()
            .filter(|((rr, t), _)| *rr == r && *t != 0)
            .map(|((_, t), (n, ms))| (self.names.name(*t).to_string(), *n, *ms))
            .collect();
        v.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
        v
    }

    /// The integration that sent most of a tenant's requests.
    pub fn main_integration(&self, tenant: &str) -> Option<String> {
        let t = self.names.get(tenant)?;
        self.tenant_integration
            .iter()
            .filter(|((tt, i), _)| *tt == t && *i != 0)
            .max_by(|a, b| {
                a.1.cmp(b.1)
                    .then_with(|| self.names.name(b.0 .1).cmp(self.names.name(a.0 .1)))
            })
            .map(|((_, i), _)| self.names.name(*i).to_string())
    }

    /// First and last second of each instance's log records, by name.
    pub fn logged(&self) -> BTreeMap<String, (i64, i64)> {
        self.logged
            .iter()
            .map(|(id, v)| (self.names.name(*id).to_string(), *v))
            .collect()
    }

    /// Per instance, by name: the seconds in `span` in which it logged an
    /// error or fatal record.
    pub fn log_errors(&self, span: Span) -> BTreeMap<String, u64> {
        let mut out: BTreeMap<String, u64> = BTreeMap::new();
        for (id, s) in &self.log_errors {
            if let (Some(id), true) = (id, span.contains(*s)) {
                *out.entry(self.names.name(*id).to_string()).or_insert(0) += 1;
            }
        }
        out
    }

    /// Health-check cells per instance over `span`, instances sorted.
    pub fn health_by_instance(&self, span: Span) -> Vec<(String, Vec<Cell>)> {
        let mut by: BTreeMap<String, Vec<Cell>> = BTreeMap::new();
        for (&(inst, s), c) in self.health.range((0, span.start)..) {
            if s < span.start || s >= span.end {
                continue;
            }
            let name = match self.names.name(inst) {
                "" => "(unknown)".to_string(),
                n => n.to_string(),
            };
            let series = by
                .entry(name)
                .or_insert_with(|| vec![Cell::default(); span.len()]);
            // `s` is inside the span (checked above).
            if let Some(cell) = series.get_mut((s - span.start) as usize) {
                cell.merge(c);
            }
        }
        by.into_iter().collect()
    }

    /// Counts of one log signal per instance and second.
    pub fn signal_counts(&self, signal: Signal) -> Vec<(String, i64, SignalCount)> {
        self.signals
            .iter()
            .filter(|((s, _, _), _)| *s == signal)
            .map(|((_, inst, sec), c)| (self.names.name(*inst).to_string(), *sec, *c))
            .collect()
    }

    /// The first record of a signal on each instance.
    pub fn signal_quotes(&self, signal: Signal) -> Vec<(String, Quote)> {
        self.quotes
            .iter()
            .filter(|((s, _), _)| *s == signal)
            .map(|((_, inst), q)| (self.names.name(*inst).to_string(), q.clone()))
            .collect()
    }

    /// Per second over `span`, the failures the logs tell of: each
    /// instance's error and fatal records in one second count once (a
    /// traceback's lines are one failure: slow-integration draw 1818109
    /// ran on 112 s for two background 500s logged as six lines).
    pub fn error_logs(&self, span: Span) -> Vec<u32> {
        let mut out = vec![0; span.len()];
        for (_, s) in &self.log_errors {
            if let (true, Some(o)) = (span.contains(*s), out.get_mut((s - span.start) as usize)) {
                *o += 1;
            }
        }
        out
    }

    pub fn has_logs(&self) -> bool {
        !self.levels.is_empty()
    }

    pub fn metric_series(&self) -> impl Iterator<Item = &Series> {
        self.metrics.values()
    }

    pub fn infra_events(&self) -> &[InfraEvent] {
        &self.infra
    }

    /// (instance, address) pairs from start-up lines.
    pub fn ties(&self) -> &ties::Ties {
        &self.ties
    }

    /// Log messages by template key, for `crate::templates` to cluster.
    pub fn templates(&self) -> &crate::templates::Miner {
        &self.templates
    }

    /// Version banners, by time.
    pub fn banners(&self) -> &[BannerSeen] {
        &self.banners
    }

    /// A tenant's paths: how many it sent in `after`, and how many of those
    /// it had already sent before `after.start` (re-sent work).
    pub fn resent_paths(&self, tenant: &str, after: Span) -> (u64, u64) {
        match self.names.get(tenant) {
            Some(t) => self
                .paths
                .resent(paths::Client::Tenant(t), after.start, after.end),
            None => (0, 0),
        }
    }

    /// Requests a client (a tenant, or an integration across its tenants)
    /// re-sent after they had failed, in `window`, and on how many paths (see
    /// [`paths::Table::retried`]); `None` as the client: the whole service.
    pub fn retried(&self, client: Option<(Dim, &str)>, window: Span) -> paths::Retried {
        let (start, end) = (window.start, window.end);
        match client {
            None => self.paths.retried(paths::Client::All, start, end),
            Some((dim, name)) => match self.names.get(name) {
                Some(c) if dim == Dim::Integration => {
                    self.paths
                        .retried(paths::Client::Integration(c), start, end)
                }
                Some(c) => self.paths.retried(paths::Client::Tenant(c), start, end),
                None => paths::Retried::default(),
            },
        }
    }

    /// One in how many paths retry detection kept (1: all of them).
    pub fn path_sample_rate(&self) -> u64 {
        self.paths.rate()
    }

    /// Held time per value id of `dim` in `span`, from the cache when an
    /// earlier call worked it out.
    fn held_ms(&self, dim: Dim, span: Span) -> Arc<HashMap<u32, f64>> {
        let key = (dim as usize, span.start, span.end);
        // A poisoned lock only means another reader panicked; the map
        // itself is whole (entries are inserted complete).
        let cached = match self.held.lock() {
            Ok(m) => m.get(&key).cloned(),
            Err(p) => p.into_inner().get(&key).cloned(),
        };
        if let Some(h) = cached {
            return h;
        }
        let h = Arc::new(held::held_ms(dim.of(&self.by_dim).iter(), span));
        match self.held.lock() {
            Ok(mut m) => m.insert(key, Arc::clone(&h)),
            Err(p) => p.into_inner().insert(key, Arc::clone(&h)),
        };
        h
    }

    /// Per-value statistics of one dimension in a window and a baseline.
    pub fn dim_stats(
        &self,
        dim: Dim,
        window: Span,
        baseline: Span,
    ) -> Result<Vec<DimStats>, AggregateError> {
        let slot = dim.of(&self.frames);
        if slot.get().is_none() {
            let rows = dim.of(&self.by_dim);
            let cells = rows.iter().filter(|(id, _, _)| *id != 0);
            // Another reader may have set it meanwhile: the same table.
            let _ = slot.set(table::dim_frame(cells, rows.len())?);
        }
        match slot.get() {
            Some(df) => {
                let w = self.held_ms(dim, window);
                let b = self.held_ms(dim, baseline);
                let get = |id: u32| {
                    (
                        w.get(&id).copied().unwrap_or(0.0),
                        b.get(&id).copied().unwrap_or(0.0),
                    )
                };
                table::dim_stats(df, window, baseline, |id| self.names.name(id), get)
            }
            None => Ok(Vec::new()),
        }
    }
}

fn dense(span: Span, cells: impl Iterator<Item = (i64, Cell)>) -> Vec<Cell> {
    let mut out = vec![Cell::default(); span.len()];
    for (s, c) in cells {
        if s >= span.start && s < span.end {
            if let Some(o) = out.get_mut((s - span.start) as usize) {
                *o = c;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A traceback's three error lines in one second are one failure; two
    /// instances erring in that second are two; a line naming no instance
    /// counts for itself.
    #[test]
    fn error_lines_count_once_per_instance_and_second() {
        let line = |ts: Millis, inst: Option<&str>| {
            Event::Log(crate::event::LogRecord {
                ts,
                origin: Default::default(),
                level: Level::Error,
                message: "boom".into(),
                instance: inst.map(|i| i.to_string().into()),
                tenant: None,
                signal: None,
                version: None,
            })
        };
        let mut agg = Aggregates::new();
        for ms in [10_000, 10_100, 10_900] {
            agg.add(line(ms, Some("web-1")));
        }
        agg.add(line(10_500, Some("web-2")));
        agg.add(line(10_600, None));
        agg.add(line(12_000, Some("web-1")));
        agg.finish();
        assert_eq!(agg.error_logs(Span::new(10, 13)), vec![3, 0, 1]);
        let by = agg.log_errors(Span::new(10, 13));
        assert_eq!(by.get("web-1"), Some(&2));
        assert_eq!(by.get("web-2"), Some(&1));
        assert_eq!(by.len(), 2);
    }

    fn series(period_start: bool, times: &[Millis]) -> Series {
        Series {
            key: "q".into(),
            name: "q".into(),
            role: None,
            instance: None,
            input: 0,
            period_start,
            points: times.iter().map(|&t| (t, 1.0)).collect(),
        }
    }

    #[test]
    fn a_periods_figure_is_placed_in_the_middle_of_its_period() {
        // A rollup a minute apart, one point missing: the usual step is still a minute.
        let rollup = series(true, &[0, 60_000, 120_000, 240_000, 300_000]);
        assert_eq!(rollup.step(), 60_000);
        assert_eq!(rollup.moment(120_000), 150_000);
        // An instant reading is when it was read.
        let scrape = series(false, &[0, 15_000, 30_000]);
        assert_eq!(scrape.step(), 15_000);
        assert_eq!(scrape.moment(15_000), 15_000);
        // Too few points to tell: the common scrape interval.
        assert_eq!(series(true, &[5_000]).step(), 15_000);
    }
}
