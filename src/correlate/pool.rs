//! Connection-pool saturation from metrics (in-use at the maximum, requests
//! waiting for a connection) and from pool-exhaustion log lines.

use std::collections::BTreeMap;

use crate::aggregate::{Aggregates, Span};
use crate::event::{MetricRole, Millis, Signal};

use super::identity::Identities;

/// One instance's pool as its metrics show it.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolInstance {
    pub instance: String,
    pub max: Option<f64>,
    pub peak_in_use: f64,
    pub peak_waiting: f64,
    /// Runs (start ms, end ms) during which the pool was saturated.
    pub saturated: Vec<(Millis, Millis)>,
    /// Runs (start ms, end ms) of consecutive samples with callers waiting,
    /// where a waiting count is known: a clear sample ends a run.
    pub waiting_runs: Option<Vec<(Millis, Millis)>>,
    /// Series key and input of the in-use series, for evidence.
    pub series: String,
    pub input: u32,
    /// The first and last sample of the in-use series: a pool counts among
    /// those of an incident only where it reported around it.
    pub seen: (Millis, Millis),
    /// The in-use series' sampling interval: a saturated run one step long
    /// is one sample.
    pub step: Millis,
    /// Its samples are a rollup's periods (an average over each, stamped
    /// at its start): one period at the maximum was there most of it.
    pub rollup: bool,
}

impl PoolInstance {
    /// Whether it was saturated between `from` and `to` (ms) for longer than
    /// one sample, or for a rollup's period: a single instant at the
    /// maximum is a pool working at its size, the moment it was sampled.
    pub fn held_saturated(&self, from: Millis, to: Millis) -> bool {
        self.saturated
            .iter()
            .any(|(s, e)| *s < to && *e > from && (self.rollup || e - s > self.step))
    }

    /// Whether the pool reported between `from` and `to` (ms) or was saturated then.
    pub fn reported(&self, from: Millis, to: Millis) -> bool {
        self.seen.0 < to && self.seen.1 >= from
            || self.saturated.iter().any(|r| r.0 < to && r.1 > from)
    }
}

impl PoolState {
    /// How many pools reported from a minute before `window` to its end.
    /// Pools that name their instance are counted by it (a service's
    /// pools); a series that names none (the database's own count of
    /// backends) is no instance of the service when others do.
    pub fn reporting(&self, window: crate::aggregate::Span) -> usize {
        let (from, to) = ((window.start - 60) * 1000, window.end * 1000);
        let reported: Vec<&PoolInstance> = self
            .instances
            .iter()
            .filter(|p| p.reported(from, to))
            .collect();
        let named: std::collections::BTreeSet<&str> = reported
            .iter()
            .map(|p| p.instance.as_str())
            .filter(|i| !i.is_empty())
            .collect();
        if named.is_empty() {
            reported.len()
        } else {
            named.len()
        }
    }
}

/// Everything known about pool saturation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PoolState {
    pub instances: Vec<PoolInstance>,
    /// Seconds (relative to the span) in which any pool was saturated by metrics.
    pub saturated_secs: Vec<bool>,
    /// Seconds in which requests were waiting for a connection on any instance.
    pub waiting_secs: Vec<bool>,
    /// Seconds in which a pool pressed on requests: callers waiting where
    /// the pool reports its waiting callers, at its maximum where it does
    /// not. A pool full of leaked connections that nobody waits on yet is
    /// a fact of the story, not yet the incident.
    pub pressing_secs: Vec<bool>,
    /// The most callers waiting on any instance in each second (0 where none
    /// did or no sample covers it).
    pub waiting_peak: Vec<f32>,
    /// Pool-exhaustion log lines per second of the span.
    pub log_lines: Vec<u32>,
    /// Instances that logged pool exhaustion.
    pub log_instances: Vec<String>,
    /// The first period [start, end) of each saturated run of a series
    /// whose points stand for the period after their time (a Datadog
    /// rollup): absolute seconds. The saturation began somewhere in it.
    pub heads: Vec<(i64, i64)>,
    /// The heads (their start) whose average was at the maximum: the pool
    /// was at it for half the period or more, so it filled in the first
    /// half. The others only had callers waiting somewhere in it.
    pub full_heads: Vec<i64>,
    /// The last period of each such run: the saturation ended somewhere in
    /// it, so it says nothing about when the service recovered.
    pub tails: Vec<(i64, i64)>,
    /// The keys of the series read as pools (in use, size, waiting).
    pub series: std::collections::BTreeSet<String>,
}

impl PoolState {
    pub fn has_metrics(&self) -> bool {
        !self.instances.is_empty()
    }

    /// Metrics that could show a queue: a waiting series, or connections in
    /// use against a known maximum. A database's count of its connections
    /// (RDS `DatabaseConnections`) shows neither.
    pub fn can_show_queue(&self) -> bool {
        self.instances
            .iter()
            .any(|p| p.max.is_some() || p.waiting_runs.is_some())
    }

    pub fn any_saturation(&self) -> bool {
        self.saturated_secs.iter().any(|s| *s) || self.log_lines.iter().any(|c| *c > 0)
    }

    /// `s`, or, when `s` only opens the period of a sample that sums up the
    /// period after its time, a moment in that period: the saturation
    /// began somewhere in it. `fine` (a finer record: the first failing
    /// request, a client's surge) dates it where it falls in the period: no
    /// earlier than the record that dates it more closely. Else the middle
    /// of where it can have begun: the period's first half where its
    /// average was at the maximum (at it for half the period or more), the
    /// whole period where only waiters were seen (a five-minute rollup
    /// dated by its start was minutes early).
    ///
    /// `s` may fall inside the period rather than open it (the search for
    /// the first saturated second began in it): the period is still the
    /// one that dates it, and the result is never before `s`.
    pub fn dated(&self, s: i64, fine: i64) -> i64 {
        match self.heads.iter().find(|(a, b)| (*a..*b).contains(&s)) {
            Some((_, b)) if (s..*b).contains(&fine) => fine,
            Some((a, b)) if self.full_heads.contains(a) => (a + (b - a) / 4).max(s),
            Some((a, b)) => (a + (b - a) / 2).max(s),
            None => s,
        }
    }

    /// The first second (absolute) at which the pool was saturated by either
    /// signal: all in use (or the logs say requests timed out waiting). A
    /// probe that needs a connection fails from then.
    pub fn first_saturated(&self, span: Span, within: Span) -> Option<i64> {
        self.first_of(&self.saturated_secs, span, within)
    }

    /// The first second the pool was short: where requests waited for it (or
    /// the logs say they did), else where it was first all in use. Where the
    /// waiters are counted, every connection in use with nobody waiting is
    /// a full pool, not yet a short one: a pool of 5 is often all in use for
    /// an instant on an ordinary minute (herd draw 1601010 was dated 4
    /// minutes early by one). A rollup's period at its maximum on average
    /// was at it for half the period or more: short, whatever its waiters
    /// average.
    pub fn first_short(&self, span: Span, within: Span) -> Option<i64> {
        let full = self.first_saturated(span, within);
        if full.is_some_and(|s| self.heads.iter().any(|(a, _)| *a == s)) {
            return full;
        }
        self.first_of(&self.pressing_secs, span, within).or(full)
    }

    fn first_of(&self, secs: &[bool], span: Span, within: Span) -> Option<i64> {
        (within.start.max(span.start)..within.end.min(span.end)).find(|s| {
            let i = (s - span.start) as usize;
            secs.get(i) == Some(&true) || self.log_lines.get(i).is_some_and(|c| *c > 0)
        })
    }
}

/// Read the pool metrics and log signals over `span`.
pub fn pool_state(agg: &Aggregates, span: Span, ids: &Identities) -> PoolState {
    // Keyed by instance; series that name none by their labels, so that a
    // task's in-use, maximum and waiting series (tagged alike) pair up
    // instead of one task's standing for all.
    //
    // Series with no labels at all pair within their metric family
    // (`sqlalchemy_pool_checkedout` with `sqlalchemy_pool_size`): the
    // database's own count of backends is no pool that an application's
    // pool size bounds (117 "in use" of 20).
    type Key = (String, String);
    let mut by_instance: BTreeMap<Key, [Option<&crate::aggregate::Series>; 3]> = BTreeMap::new();
    for s in agg.metric_series() {
        let slot = match s.role {
            Some(MetricRole::DbConnectionsInUse) => 0,
            Some(MetricRole::DbConnectionsMax) => 1,
            Some(MetricRole::DbConnectionsWaiting) => 2,
            _ => continue,
        };
        let key = match s.instance.as_deref() {
            Some(i) => (ids.canonical(i), String::new()),
            None => match s.key.find('{') {
                Some(b) => (String::new(), s.key[b..].to_string()),
                None => (String::new(), family(&s.name)),
            },
        };
        let e = by_instance.entry(key).or_insert([None, None, None]);
        // Several series of one role on one instance (pools): keep the first by key.
        if let Some(kept) = e.get_mut(slot).filter(|kept| kept.is_none()) {
            *kept = Some(s);
        }
    }
    // A series that names no instance beside pools that do is the
    // database's own count (`pg_stat_database_numbackends`: every
    // instance's connections together), not a pool of its own: taken for
    // one, it reads 28 in use against pools of 5.
    if by_instance.keys().any(|(i, _)| !i.is_empty()) {
        by_instance.retain(|(i, _), _| !i.is_empty());
    }
    // Likewise, beside pools that report a size or waiting callers, a
    // count of connections alone (`postgresql.connections` by host) is the
    // database's, not a pool.
    if by_instance
        .values()
        .any(|[_, max, waiting]| max.is_some() || waiting.is_some())
    {
        by_instance.retain(|_, [_, max, waiting]| max.is_some() || waiting.is_some());
    }
    let mut state = PoolState {
        saturated_secs: vec![false; span.len()],
        pressing_secs: vec![false; span.len()],
        waiting_secs: vec![false; span.len()],
        waiting_peak: vec![0.0; span.len()],
        log_lines: vec![0; span.len()],
        ..PoolState::default()
    };
    state.series = by_instance
        .values()
        .flatten()
        .flatten()
        .map(|s| s.key.clone())
        .collect();
    for ((instance, _), [in_use, max, waiting]) in by_instance {
        let Some(in_use) = in_use.or(waiting) else {
            continue;
        };
        let step = in_use.step();
        let max_v = max.and_then(|m| {
            m.points
                .iter()
                .map(|p| p.1)
                .fold(None, |a: Option<f64>, v| Some(a.map_or(v, |a| a.max(v))))
        });
        let value_at = |series: Option<&crate::aggregate::Series>, t: Millis| -> Option<f64> {
            let pts = &series?.points;
            // The last point at or before `t`.
            let &(at, v) = pts.get(pts.partition_point(|p| p.0 <= t).checked_sub(1)?)?;
            (t - at <= step).then_some(v)
        };
        let mut runs: Vec<(Millis, Millis)> = Vec::new();
        let mut waiting_runs: Vec<(Millis, Millis)> = Vec::new();
        let mut waiting_open = false;
        let mut peak_in_use: f64 = 0.0;
        let mut peak_waiting: f64 = 0.0;
        let is_waiting_series = in_use.role == Some(MetricRole::DbConnectionsWaiting);
        let knows_waiting = is_waiting_series || waiting.is_some();
        for &(t, v) in &in_use.points {
            let used = if is_waiting_series { None } else { Some(v) };
            let wait = if is_waiting_series {
                Some(v)
            } else {
                value_at(waiting, t)
            };
            let cap = value_at(max, t).or(max_v);
            peak_in_use = peak_in_use.max(used.unwrap_or(0.0));
            peak_waiting = peak_waiting.max(wait.unwrap_or(0.0));
            // A period's figure (a rollup's average) within half a
            // connection of the maximum: connections in use are whole, so
            // the pool was at its maximum for at least half the period (an
            // average of 14.5 of 15 cannot be made of 14s and fewer).
            let near = if in_use.period_start { 0.5 } else { 0.0 };
            let at_max = matches!((used, cap), (Some(u), Some(c)) if c > 0.0 && u >= c - near);
            let waits = wait.is_some_and(|w| w > 0.0);
            if waits {
                for s in t.div_euclid(1000)..(t + step).div_euclid(1000) {
                    if let Some(i) = second(span, s) {
                        if let Some(w) = state.waiting_secs.get_mut(i) {
                            *w = true;
                        }
                        if let Some(p) = state.waiting_peak.get_mut(i) {
                            *p = p.max(wait.unwrap_or(0.0) as f32);
                        }
                    }
                }
            }
            match waiting_runs.last_mut() {
                Some(last) if waits && waiting_open => last.1 = t + step,
                _ if waits => waiting_runs.push((t, t + step)),
                _ => {}
            }
            waiting_open = waits;
            if waits || (at_max && !knows_waiting) {
                for s in t.div_euclid(1000)..(t + step).div_euclid(1000) {
                    if let Some(p) = second(span, s).and_then(|i| state.pressing_secs.get_mut(i)) {
                        *p = true;
                    }
                }
            }
            if at_max || waits {
                match runs.last_mut() {
                    Some(last) if t - last.1 <= step => last.1 = t + step,
                    _ => {
                        runs.push((t, t + step));
                        if at_max && in_use.period_start {
                            state.full_heads.push(t.div_euclid(1000));
                        }
                    }
                }
            }
        }
        if in_use.period_start {
            state.heads.extend(
                runs.iter()
                    .map(|&(a, _)| (a.div_euclid(1000), (a + step).div_euclid(1000))),
            );
            state.tails.extend(
                runs.iter()
                    .map(|&(_, b)| ((b - step).div_euclid(1000), b.div_euclid(1000))),
            );
        }
        for &(a, b) in &runs {
            for s in (a.div_euclid(1000))..(b.div_euclid(1000)) {
                if let Some(w) = second(span, s).and_then(|i| state.saturated_secs.get_mut(i)) {
                    *w = true;
                }
            }
        }
        state.instances.push(PoolInstance {
            instance,
            max: max_v,
            peak_in_use,
            peak_waiting,
            saturated: runs,
            waiting_runs: knows_waiting.then_some(waiting_runs),
            series: in_use.key.clone(),
            input: in_use.input,
            seen: (
                in_use.points.first().map_or(0, |p| p.0),
                in_use.points.last().map_or(0, |p| p.0),
            ),
            step,
            rollup: in_use.period_start,
        });
    }
    let mut log_instances = Vec::new();
    for (inst, s, c) in agg.signal_counts(Signal::PoolExhausted) {
        if let Some(n) = second(span, s).and_then(|i| state.log_lines.get_mut(i)) {
            *n += c.count;
        }
        let inst = if inst.is_empty() {
            inst
        } else {
            ids.canonical(&inst)
        };
        if !inst.is_empty() && !log_instances.contains(&inst) {
            log_instances.push(inst);
        }
    }
    log_instances.sort();
    state.log_instances = log_instances;
    state
}

/// Second `s`'s place in the per-second series of `span`, if it is in it.
/// A metric's family: its name up to the first `_` or `.` (`sqlalchemy`,
/// `hikaricp`, `pgbouncer`, `pg`), lower-cased.
fn family(name: &str) -> String {
    name.split(['_', '.'])
        .next()
        .unwrap_or(name)
        .to_ascii_lowercase()
}

fn second(span: Span, s: i64) -> Option<usize> {
    span.contains(s).then(|| (s - span.start) as usize)
}

/// The usual interval between samples (ms), 15 s when unknown.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Event, MetricSample};

    /// Waiting clients of one instance, a point a minute from 0 s, waiting
    /// from the third point on.
    fn pool(period_start: bool) -> PoolState {
        let mut agg = Aggregates::new();
        for (k, v) in [0.0, 0.0, 4.0, 6.0, 0.0].into_iter().enumerate() {
            agg.add(Event::Metric(MetricSample {
                ts: k as i64 * 60_000,
                origin: Default::default(),
                name: "pgbouncer.pools.cl_waiting".into(),
                role: Some(MetricRole::DbConnectionsWaiting),
                value: v,
                instance: Some("db-1".into()),
                series: "pgbouncer.pools.cl_waiting{host=db-1}".into(),
                period_start,
            }));
        }
        agg.finish();
        let span = Span::new(0, 300);
        let ids = super::super::identity::build(&agg, span, &[]);
        pool_state(&agg, span, &ids)
    }

    /// The `k`th minute's sample of `name` on `instance`.
    fn minute_sample(
        k: usize,
        name: &str,
        role: MetricRole,
        value: f64,
        instance: &str,
        period_start: bool,
    ) -> Event<'static> {
        Event::Metric(MetricSample {
            ts: k as i64 * 60_000,
            origin: Default::default(),
            name: name.into(),
            role: Some(role),
            value,
            instance: Some(instance.into()),
            series: format!("{name}{{host={instance}}}"),
            period_start,
        })
    }

    /// Connections in use of a pool of 15, a point a minute: a rollup's
    /// average of 14.5 was at the maximum for at least half its minute; an
    /// average of 14 need not have been, and neither need an instant
    /// reading of 14.5 (a sum over pools, say).
    fn in_use(period_start: bool, peak: f64) -> PoolState {
        let mut agg = Aggregates::new();
        for (k, v) in [10.0, 11.0, peak, 9.0].into_iter().enumerate() {
            for (name, role, value) in [
                ("sv_active", MetricRole::DbConnectionsInUse, v),
                ("pool_size", MetricRole::DbConnectionsMax, 15.0),
            ] {
                agg.add(minute_sample(k, name, role, value, "db-1", period_start));
            }
        }
        agg.finish();
        let span = Span::new(0, 300);
        let ids = super::super::identity::build(&agg, span, &[]);
        pool_state(&agg, span, &ids)
    }

    #[test]
    fn a_rollup_averaging_within_half_a_connection_of_the_maximum_was_saturated() {
        let first = |p: PoolState| p.first_saturated(Span::new(0, 300), Span::new(0, 300));
        assert_eq!(first(in_use(true, 14.5)), Some(120));
        assert_eq!(first(in_use(true, 14.0)), None);
        assert_eq!(first(in_use(false, 14.5)), None);
        assert_eq!(first(in_use(false, 15.0)), Some(120));
    }

    #[test]
    fn one_instant_at_the_maximum_is_not_held_a_rollups_period_is() {
        let held = |p: PoolState| p.instances.iter().any(|i| i.held_saturated(0, 300_000));
        // One sample of 15 of 15 between 11 and 9.
        assert!(!held(in_use(false, 15.0)));
        assert!(held(in_use(true, 14.5)));
        // Two samples running with callers waiting.
        assert!(held(pool(false)));
    }

    #[test]
    fn a_rollup_s_first_saturated_period_is_a_head_an_instant_reading_is_not() {
        let rollup = pool(true);
        assert_eq!(rollup.heads, vec![(120, 180)]);
        assert_eq!(
            rollup.first_saturated(Span::new(0, 300), Span::new(0, 300)),
            Some(120)
        );
        // Dated by a finer record inside the period, not by one after it.
        assert_eq!(rollup.dated(120, 150), 150);
        // Nothing finer inside it: the period's middle.
        assert_eq!(rollup.dated(120, 200), 150);
        assert_eq!(rollup.dated(120, 100), 150);
        // A period at the maximum on average filled in its first half.
        let full = in_use(true, 14.5);
        assert_eq!(full.full_heads, vec![120]);
        assert_eq!(full.dated(120, 500), 135);
        let instant = pool(false);
        assert!(instant.heads.is_empty());
        assert_eq!(instant.dated(120, 150), 120);
    }

    /// Two tasks' pools tagged alike per task (no instance), and the
    /// database's own connection count: two pools, each paired with its
    /// own size, and the database's count is none of them.
    #[test]
    fn pools_pair_by_their_tags_and_the_database_total_is_no_pool() {
        let mut agg = Aggregates::new();
        let mut push = |name: &str, role: MetricRole, tags: &str, v: f64| {
            for k in 0..5i64 {
                agg.add(Event::Metric(MetricSample {
                    ts: k * 60_000,
                    origin: Default::default(),
                    name: name.into(),
                    role: Some(role),
                    value: if k >= 2 { v } else { 0.0 },
                    instance: None,
                    series: format!("{name}{{{tags}}}"),
                    period_start: false,
                }));
            }
        };
        use MetricRole::{DbConnectionsInUse as InUse, DbConnectionsMax as Max};
        push("sv_active", InUse, "task_arn=a", 5.0);
        push("pool_size", Max, "task_arn=a", 5.0);
        push("sv_active", InUse, "task_arn=b", 1.0);
        push("pool_size", Max, "task_arn=b", 5.0);
        push("postgresql.connections", InUse, "host=db-1", 28.0);
        agg.finish();
        let span = Span::new(0, 300);
        let ids = super::super::identity::build(&agg, span, &[]);
        let p = pool_state(&agg, span, &ids);
        let saturated: Vec<&str> = p
            .instances
            .iter()
            .filter(|i| !i.saturated.is_empty())
            .map(|i| i.series.as_str())
            .collect();
        assert_eq!(p.instances.len(), 2);
        assert_eq!(saturated, ["sv_active{task_arn=a}"]);
        assert!(!p.series.contains("postgresql.connections{host=db-1}"));
    }

    /// A sample a minute of one series, `v` throughout, for five minutes.
    fn five_minutes(
        agg: &mut Aggregates,
        name: &str,
        role: MetricRole,
        instance: Option<&str>,
        key: &str,
        v: f64,
    ) {
        for k in 0..5i64 {
            agg.add(Event::Metric(MetricSample {
                ts: k * 60_000,
                origin: Default::default(),
                name: name.into(),
                role: Some(role),
                value: v,
                instance: instance.map(str::to_string),
                series: key.into(),
                period_start: false,
            }));
        }
    }

    /// A database's count of its connections can show no queue; a pool's
    /// size or its waiting callers can.
    #[test]
    fn only_a_size_or_a_waiting_series_can_show_a_queue() {
        let count = PoolInstance {
            instance: String::new(),
            max: None,
            peak_in_use: 90.0,
            peak_waiting: 0.0,
            saturated: Vec::new(),
            waiting_runs: None,
            series: "DatabaseConnections".into(),
            input: 0,
            seen: (0, 1000),
            step: 60_000,
            rollup: true,
        };
        let mut state = PoolState {
            instances: vec![count.clone()],
            ..PoolState::default()
        };
        assert!(state.has_metrics() && !state.can_show_queue());
        state.instances.push(PoolInstance {
            max: Some(20.0),
            ..count
        });
        assert!(state.can_show_queue());
    }

    /// The saturation is dated where requests first waited, not where the
    /// pool was first all in use with nobody waiting; a pool never waited
    /// on (a leak whose callers read zero) is dated where it filled.
    #[test]
    fn saturation_is_dated_by_the_first_wait_before_the_first_full_pool() {
        let secs = |from: usize| (0..100).map(|s| s >= from).collect::<Vec<bool>>();
        let mut state = PoolState {
            saturated_secs: secs(10),
            pressing_secs: secs(50),
            log_lines: vec![0; 100],
            ..PoolState::default()
        };
        let all = Span::new(0, 100);
        assert_eq!(state.first_short(all, all), Some(50));
        // Full, for what needs a connection (a probe), from the first.
        assert_eq!(state.first_saturated(all, all), Some(10));
        // The logs saying requests timed out waiting date it too.
        if let Some(c) = state.log_lines.get_mut(30) {
            *c = 1;
        }
        assert_eq!(state.first_short(all, all), Some(30));
        state.log_lines = vec![0; 100];
        state.pressing_secs = vec![false; 100];
        assert_eq!(state.first_short(all, all), Some(10));
        assert_eq!(state.first_short(all, Span::new(0, 5)), None);
        // A rollup's first full period is dated as such.
        state.pressing_secs = secs(50);
        state.heads = vec![(10, 70)];
        assert_eq!(state.first_short(all, all), Some(10));
    }

    /// A five-minute rollup whose period began before the search did (two
    /// minutes before the onset) still dates the saturation: by the onset
    /// inside it, else by its middle, never before where the search began
    /// (deploy-leak draw 1665301 was dated by the search's start, 2 min
    /// early).
    #[test]
    fn a_period_the_search_began_inside_still_dates_it() {
        let state = PoolState {
            heads: vec![(600, 900)],
            ..PoolState::default()
        };
        assert_eq!(state.dated(743, 863), 863);
        assert_eq!(state.dated(743, 950), 750);
        assert_eq!(state.dated(800, 950), 800);
        assert_eq!(state.dated(950, 990), 950);
    }

    /// A pool at its maximum presses on requests only where it does not
    /// say that nobody waits: the onset is not dated by a pool full of
    /// leaked connections whose waiting callers read zero.
    #[test]
    fn a_full_pool_nobody_waits_on_does_not_press() {
        let state = |with_waiting: bool| {
            let mut agg = Aggregates::new();
            let mut push = |name: &str, role: MetricRole, v: f64| {
                let key = format!("{name}{{pod=web-1}}");
                five_minutes(&mut agg, name, role, Some("web-1"), &key, v);
            };
            push(
                "hikaricp_connections_active",
                MetricRole::DbConnectionsInUse,
                10.0,
            );
            push(
                "hikaricp_connections_max",
                MetricRole::DbConnectionsMax,
                10.0,
            );
            if with_waiting {
                push(
                    "hikaricp_connections_pending",
                    MetricRole::DbConnectionsWaiting,
                    0.0,
                );
            }
            agg.finish();
            let span = Span::new(0, 300);
            let ids = super::super::identity::build(&agg, span, &[]);
            pool_state(&agg, span, &ids)
        };
        let told = state(true);
        assert!(told.any_saturation());
        assert!(!told.pressing_secs.iter().any(|p| *p));
        let untold = state(false);
        assert!(untold.pressing_secs.iter().any(|p| *p));
    }

    /// Waiting callers in runs of samples: a clear sample between two
    /// waiting ones ends a run, though the pool stayed at its maximum; a
    /// pool with no waiting count has none.
    #[test]
    fn waiting_runs_end_at_a_clear_sample() {
        let mut agg = Aggregates::new();
        for (k, (active, waiting)) in [(5.0, 0.0), (5.0, 2.0), (5.0, 0.0), (5.0, 3.0), (5.0, 4.0)]
            .into_iter()
            .enumerate()
        {
            for (name, role, value) in [
                (
                    "hikaricp_connections_active",
                    MetricRole::DbConnectionsInUse,
                    active,
                ),
                (
                    "hikaricp_connections_max",
                    MetricRole::DbConnectionsMax,
                    5.0,
                ),
                (
                    "hikaricp_connections_pending",
                    MetricRole::DbConnectionsWaiting,
                    waiting,
                ),
            ] {
                agg.add(minute_sample(k, name, role, value, "web-1", false));
            }
        }
        agg.finish();
        let span = Span::new(0, 300);
        let ids = super::super::identity::build(&agg, span, &[]);
        let state = pool_state(&agg, span, &ids);
        let p = state.instances.first().expect("a pool");
        assert_eq!(p.saturated, vec![(0, 300_000)]);
        assert_eq!(
            p.waiting_runs,
            Some(vec![(60_000, 120_000), (180_000, 300_000)])
        );
        assert_eq!(in_use(false, 15.0).instances[0].waiting_runs, None);
    }

    /// Series with no labels at all (one column each in a panel export):
    /// the database's count of backends does not pair with the
    /// application pool's size; the pool's own in-use count does.
    #[test]
    fn unlabelled_series_pair_within_their_family() {
        let mut agg = Aggregates::new();
        let mut push = |name: &str, role: MetricRole, v: f64| {
            five_minutes(&mut agg, name, role, None, name, v);
        };
        push(
            "pg_stat_database_numbackends",
            MetricRole::DbConnectionsInUse,
            117.0,
        );
        push(
            "sqlalchemy_pool_checkedout",
            MetricRole::DbConnectionsInUse,
            12.0,
        );
        push("sqlalchemy_pool_size", MetricRole::DbConnectionsMax, 20.0);
        agg.finish();
        let span = Span::new(0, 300);
        let ids = super::super::identity::build(&agg, span, &[]);
        let p = pool_state(&agg, span, &ids);
        let pools: Vec<(&str, Option<f64>)> = p
            .instances
            .iter()
            .map(|i| (i.series.as_str(), i.max))
            .collect();
        assert_eq!(pools, [("sqlalchemy_pool_checkedout", Some(20.0))]);
        assert!(!p.any_saturation());
    }
}
