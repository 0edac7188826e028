//! Correlation: the aggregates read as one story. Finds the onset and the
//! recovery, the baseline before them, who drove the load, what the pools,
//! health checks and instances did, and lays it out as a timeline.
//!
//! In: [`Aggregates`] and the input names. Out: an [`Analysis`] that the
//! pattern detectors and the report read.
//!
//! ```text
//! per-second series -> flags (errors, latency, surges, saturation) -> Incident { onset 07:56:55, recovered 08:01:35 }
//! tenant table (window vs baseline) -> Attribution { rows: [acct-4411 x9000, ...], organic: false }
//! ```

pub mod attribution;
mod change_text;
pub mod circuit;
pub mod coverage;
pub mod identity;
mod instances;
pub mod leak_reports;
mod onset;
mod pool;
pub mod scaling;
pub mod scan;
pub mod signal_lines;
mod split;
pub mod stats;
pub mod throughput;
pub mod timeline;
mod versions;

pub use crate::formats::stop_causes::StopCauses;
pub use attribution::{Attribution, AttributionRow};
pub use change_text::{told, version_in};
pub use instances::{InstanceHistory, ProbeFailures, Restart, RAN_OUT_OF_MEMORY};
pub use onset::{Incident, WINDOW};
pub use pool::{PoolInstance, PoolState};
pub use timeline::{TimelineEntry, TimelineKind};

use crate::aggregate::{AggregateError, Aggregates, Cell, Dim, Span};
use crate::event::{InfraEvent, InfraKind, Millis, Origin, Signal};

/// What correlation needs besides the aggregates.
#[derive(Clone, Debug, Default)]
pub struct CorrelateOptions {
    /// Input names by index, for sources such as `access.log:10233`.
    pub inputs: Vec<String>,
    /// `--baseline START..END`, seconds.
    pub baseline: Option<Span>,
    /// Route fragments of connect/login endpoints (from `parsers/signals.json`).
    pub reconnect_routes: Vec<String>,
    /// Which way scaling events moved a fleet (from `parsers/signals.json`).
    pub scaling: crate::formats::scaling::ScalingRules,
    /// What a stop's stated cause says (from `parsers/signals.json`).
    pub stop_causes: StopCauses,
    /// Series labels that name an instance (from `parsers/metric-roles.json`).
    pub identity_labels: Vec<String>,
    /// `--since`/`--until`, seconds.
    pub since: Option<i64>,
    pub until: Option<i64>,
}

/// A run of a tenant's (or the total's) requests above its baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct Surge {
    pub value: String,
    pub start: i64,
    pub end: i64,
    pub peak_rate: f64,
    pub baseline_rate: f64,
    pub first: Origin,
}

/// Health checks seen in access logs, per instance.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HealthState {
    pub instances: Vec<String>,
    /// Instances with a failing (5xx/timeout) or very slow check in the incident.
    pub failing: Vec<String>,
    pub first_failure: Option<(i64, Origin)>,
    pub checks_in_window: u64,
    pub failed_in_window: u64,
    pub baseline_median_ms: f64,
    pub window_max_ms: f64,
}

/// Everything correlation found.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub inputs: Vec<String>,
    /// One identity per instance across sources.
    pub ids: identity::Identities,
    /// The instances that were running around the incident (or over the
    /// span when there is none), by canonical name: the fleet that "3 of 3"
    /// counts against.
    pub fleet: std::collections::BTreeSet<String>,
    pub span: Option<Span>,
    /// The whole export and the bucket (seconds) it was scanned in, when
    /// only `span`, hours of it, was analysed second by second.
    pub scanned: Option<(Span, i64)>,
    pub baseline: Option<Span>,
    pub incident: Option<Incident>,
    /// API requests per second over the span.
    pub totals: Vec<Cell>,
    pub errors_start: Option<(i64, Origin)>,
    pub latency_start: Option<i64>,
    pub surges: Vec<Surge>,
    pub attribution: Attribution,
    pub pool: PoolState,
    /// A circuit breaker's first opening near the incident.
    pub circuit: Option<circuit::Circuit>,
    /// A pool's reports of leaked connections before and in the incident,
    /// where none came in the half-hour before those.
    pub leak_reports: Option<signal_lines::SignalLines>,
    pub health: HealthState,
    pub history: InstanceHistory,
    /// Runs (start, end) of seconds with requests expected and none served.
    pub outages: Vec<Span>,
    /// Outages in which the request log holds no request at all.
    pub silence: Option<Silence>,
    /// The total request rate rose over the incident, but only after the
    /// service had begun to fail: the rise did not set it off.
    pub demand_after: Option<DemandAfter>,
    pub timeline: Vec<TimelineEntry>,
    /// Instances (as access logs name them) with failed requests in the window.
    pub instances_with_failures: Vec<String>,
    /// Instances the incident touched: a few percent of their requests
    /// failed, or they were killed, failed probes, had requests waiting for
    /// a pool connection, or answered far slower than their peers.
    pub instances_affected: std::collections::BTreeSet<String>,
    /// Instances whose request-rate metrics fell far below their peers' in
    /// the incident (a stuck instance an access log without upstreams hides).
    pub stalls: Vec<throughput::Stall>,
    /// Instances of the fleet that first served after the incident began
    /// (a scale-out's or a rollback's new pods) and were not affected: not
    /// "stayed healthy" through an incident they arrived at the end of.
    pub instances_joined: std::collections::BTreeSet<String>,
    /// Route fragments of connect/login endpoints, passed through for the detectors.
    pub reconnect_routes: Vec<String>,
    /// What a stop's stated cause says, passed through for the detectors.
    pub stop_causes: StopCauses,
    /// Deploys, rollbacks and feature-flag changes anywhere in the data.
    pub changes: Vec<InfraEvent>,
    /// Operators' other actions from change logs (config, rate limits,
    /// manual restarts), anywhere in the data.
    pub operations: Vec<InfraEvent>,
    /// Fleets growing (a responder's action, or an autoscaler's).
    pub scale_outs: Vec<scaling::ScaleOut>,
    pub warnings: Vec<String>,
}

impl Analysis {
    /// `input:line` for an origin.
    pub fn source(&self, o: Origin) -> String {
        format!("{}:{}", self.input_name(o.input), o.line)
    }

    /// The input the requests came from (the first request's), cited for
    /// figures about requests as a whole; the first input when none was read.
    pub fn request_input(&self) -> String {
        self.totals
            .iter()
            .find(|c| c.requests > 0)
            .map(|c| self.input_name(c.first.input).to_string())
            .or_else(|| self.inputs.first().cloned())
            .unwrap_or_default()
    }

    pub fn input_name(&self, input: u32) -> &str {
        self.inputs.get(input as usize).map_or("?", String::as_str)
    }

    /// How many instances a sentence counts against ("1 of N"): `total`
    /// less the instances that joined during the incident (a scale-out's or
    /// a rollback's new pods), never fewer than `at_least`. Only for words:
    /// confidences keep the whole count, which their thresholds were set on.
    pub fn running(&self, total: usize, at_least: usize) -> usize {
        total
            .saturating_sub(self.instances_joined.len())
            .max(at_least)
    }

    /// The incident window as a span, or the whole span.
    pub fn window(&self) -> Option<Span> {
        match self.incident {
            Some(i) => Some(Span::new(i.onset, i.recovered)),
            None => self.span,
        }
    }
}

/// Candidate tenants examined second by second for surges.
const SURGE_CANDIDATES: usize = 25;

pub fn correlate(agg: &Aggregates, opts: &CorrelateOptions) -> Result<Analysis, AggregateError> {
    let mut a = Analysis {
        inputs: opts.inputs.clone(),
        reconnect_routes: opts.reconnect_routes.clone(),
        stop_causes: opts.stop_causes.clone(),
        ..Analysis::default()
    };
    let Some(mut span) = agg.span() else {
        return Ok(a);
    };
    let cover = coverage::covered(&agg.activity_per_minute(), span);
    let bounded = opts.since.is_some() || opts.until.is_some();
    if let (false, true, Some((lo, hi))) = (bounded, cover.span != span, cover.outside_range) {
        a.warnings.push(format!(
            "{} records between {} and {} lie hours away from the rest of the data ({} to {}) and were left out of the analysis (start-up lines of long-running processes, or another export); give --since/--until to choose the span",
            cover.outside,
            crate::report::rfc3339(lo * 1000),
            crate::report::rfc3339(hi * 1000),
            crate::report::rfc3339(cover.span.start * 1000),
            crate::report::rfc3339(cover.span.end * 1000),
        ));
        span = cover.span;
    }
    if let Some(s) = opts.since {
        span.start = span.start.max(s);
    }
    if let Some(u) = opts.until {
        span.end = span.end.min(u);
    }
    if span.is_empty() {
        a.warnings
            .push("--since/--until leave no data to analyse".to_string());
        return Ok(a);
    }
    // A long export is looked at in coarse buckets first; the per-second
    // analysis reads the hours around the worst of it.
    let (focus, worst) = scan::focus(agg, span);
    if focus != span {
        a.scanned = Some((span, scan::bucket_for(span)));
        a.warnings.push(format!(
            "the data spans {}; it was scanned in {} s buckets, and {} to {} ({}) was analysed second by second",
            span_text(span.len() as i64),
            scan::bucket_for(span),
            crate::report::rfc3339(focus.start * 1000),
            crate::report::rfc3339(focus.end * 1000),
            if worst.is_some() {
                "the hours around the most severe symptoms"
            } else {
                "no symptom stood out; the last hours"
            }
        ));
    }
    span = focus;
    a.span = Some(span);
    a.totals = agg.total_series(span);
    a.ids = identity::build(agg, span, &opts.identity_labels);
    a.pool = pool::pool_state(agg, span, &a.ids);
    a.history = instances::history(agg, &a.ids, &opts.stop_causes);
    for (x, y, d) in instances::clock_skews(&a.history) {
        let (behind, ahead, d) = if d > 0 { (x, y, d) } else { (y, x, -d) };
        a.warnings.push(format!(
            "the clocks of {} and {} differ: restarts both recorded are stamped about {} s later in {}; events of the two may be out of order by that much",
            a.input_name(behind),
            a.input_name(ahead),
            (d + 500) / 1000,
            a.input_name(ahead),
        ));
    }
    let health = health_by_instance(agg, span, &a.ids);

    // Candidate surgers: the busiest tenants over the whole span.
    let whole = agg.dim_stats(Dim::Tenant, span, span)?;
    let mut ranked: Vec<&crate::aggregate::DimStats> = whole.iter().collect();
    ranked.sort_by(|x, y| {
        y.total_requests
            .cmp(&x.total_requests)
            .then(x.value.cmp(&y.value))
    });
    let names: Vec<&str> = ranked
        .iter()
        .take(SURGE_CANDIDATES)
        .map(|s| s.value.as_str())
        .collect();
    let candidates: Vec<(String, Vec<Cell>)> = names
        .iter()
        .map(|n| n.to_string())
        .zip(agg.dim_series_many(Dim::Tenant, &names, span))
        .collect();

    // Pass one finds the symptoms against a robust whole-span baseline;
    // pass two takes the baseline from before them, asks who drove the load
    // in the symptomatic window, and lets that client's surge date the onset.
    // Rates are per second of the access logs: the seconds before their
    // first request (a metric export that starts earlier, a pod's start-up
    // lines) hold no request because nothing was logged, not because no
    // one called, and counting them would dilute every baseline rate.
    let served = served_span(&a.totals, span);
    let mut baseline = opts.baseline.unwrap_or(served);
    let mut incident: Option<Incident> = None;
    let mut flags = onset::Flags::default();
    for pass in 0..2 {
        let range = rel(span, baseline);
        // Pass one's baseline holds the incident too: the most callers
        // that ever waited in it is the incident's own peak.
        let waiting_base = if pass == 0 && opts.baseline.is_none() {
            0..0
        } else {
            range.clone()
        };
        flags = symptom_flags(
            agg,
            span,
            (range.clone(), waiting_base.clone()),
            &a,
            &health,
        );
        let culprit = match (pass, incident) {
            (1, Some(inc)) => {
                let w = Span::new(inc.symptoms_start - onset::MERGE_GAP, inc.recovered);
                let prelim = attribution::attribute(agg, w, baseline)?;
                prelim
                    .rows
                    .first()
                    .filter(|_| prelim.culprit)
                    .and_then(|r| candidates.iter().find(|(v, _)| *v == r.value))
                    .map(|(_, cells)| cells.as_slice())
            }
            _ => None,
        };
        flags.causes = cause_flags(culprit, &a.pool, (range, waiting_base));
        incident = onset::find(span, &flags);
        if opts.baseline.is_none() {
            baseline = onset::baseline_for(served, incident);
        }
    }
    a.incident = incident;
    a.baseline = Some(baseline);
    if baseline.len() < 300 {
        a.warnings.push(format!(
            "the baseline is only {} s long; ratios against it are rough (give a longer export or --baseline START..END)",
            baseline.len()
        ));
    }
    let window = a.window().unwrap_or(span);
    let range = rel(span, baseline);

    // Surges of the candidates and of the total, relative to their baselines.
    for (value, cells) in candidates
        .iter()
        .map(|(v, c)| (v.as_str(), c))
        .chain(std::iter::once(("(all)", &a.totals)))
    {
        let counts: Vec<f64> = cells.iter().map(|c| f64::from(c.requests)).collect();
        let rate = onset::base_rate(&counts, range.clone());
        let f = onset::count_flags(&counts, rate);
        for (s, e) in runs(&f, WINDOW) {
            // Runs are inside the series.
            let run = counts.get(s..e).unwrap_or_default();
            let peak = run.iter().copied().fold(0.0, f64::max);
            if !Span::new(span.start + s as i64, span.start + e as i64)
                .overlaps(&widen(window, onset::MERGE_GAP))
            {
                continue;
            }
            a.surges.push(Surge {
                value: value.to_string(),
                start: span.start + s as i64,
                end: span.start + e as i64,
                peak_rate: peak,
                baseline_rate: rate,
                first: cells.get(s).map(|c| c.first).unwrap_or_default(),
            });
        }
    }
    a.surges
        .sort_by(|x, y| (x.start, &x.value).cmp(&(y.start, &y.value)));

    // Errors and latency onsets inside the window.
    // The window is inside the span, whose seconds the flags and totals hold.
    let idx = |s: i64| (s - span.start) as usize;
    let at = |f: &[bool], s: i64| f.get(idx(s)) == Some(&true);
    a.errors_start = (window.start..window.end)
        .find(|&s| at(&flags.errors, s))
        .map(|s| {
            let from = rel(span, window).start;
            span.start + run_start(&a.totals, range.clone(), from, idx(s)) as i64
        })
        .and_then(|s| {
            // A second flagged for want of successes may hold no record: the
            // nearest that does is the evidence (the last served before it).
            let cells = a.totals.get(..=idx(s))?;
            let c = cells.iter().rev().find(|c| c.requests > 0 || c.done > 0)?;
            Some((s, c.first))
        });
    a.latency_start = (window.start..window.end).find(|&s| at(&flags.latency, s));
    a.circuit = circuit::circuit(agg, Span::new(window.start - onset::MERGE_GAP, window.end));
    a.leak_reports = leak_reports::leak_reports(agg, window);
    a.health = health_state(&health, span, window, range);
    a.outages = outages(
        &a.totals,
        span,
        window,
        range_rate(&a.totals, rel(span, baseline), |c| c.ok),
    );
    a.silence = silence(&a.totals, span, &a.outages, baseline);
    a.attribution = attribution::attribute(agg, window, baseline)?;
    if let (Some(inc), true) = (a.incident, a.attribution.grew) {
        let fail = a.errors_start.map_or(window.end, |e| e.0);
        let lead = lead_demand(
            &a.totals,
            span,
            rel(span, baseline),
            (inc.onset, fail, window.end),
        );
        if lead.lead_rate < attribution::GREW_RATIO * lead.baseline_rate && !lead.rose() {
            a.demand_after = Some(DemandAfter {
                slowed_from: a.latency_start.filter(|&l| l < fail),
                ..lead
            });
        }
    }
    a.instances_with_failures = agg
        .dim_stats(Dim::Instance, window, baseline)?
        .into_iter()
        .filter(|s| s.window_failed > 0)
        .map(|s| a.ids.canonical(&s.value))
        .collect::<std::collections::BTreeSet<String>>()
        .into_iter()
        .collect();
    a.changes = agg
        .infra_events()
        .iter()
        .filter(|e| e.kind.is_change())
        .cloned()
        .chain(versions::changes(agg.banners(), &a.inputs))
        .collect();
    a.changes.sort_by_key(|c| (c.ts, c.origin));
    a.operations = agg
        .infra_events()
        .iter()
        .filter(|e| e.kind == InfraKind::Operation)
        .cloned()
        .collect();
    a.operations.sort_by_key(|c| (c.ts, c.origin));
    // Before the instances: a restart a rollout or scale-out made is not
    // an instance the incident touched.
    a.scale_outs = scaling::scale_outs(agg.infra_events(), &opts.scaling);
    // Counted as the access log names instances: names no record ties to
    // its names would count one server twice.
    a.fleet = a.ids.as_served(fleet(agg, &a, window, baseline)?);
    if a.incident.is_some() {
        a.stalls = throughput::stalls(agg, &a.ids, window, baseline);
        a.instances_affected = a.ids.as_served(affected(agg, &a, window, baseline)?);
        a.instances_joined = joined(agg, &a, window)?;
    }
    a.timeline = timeline::build(&a);
    Ok(a)
}

/// A long span for a warning: `3 days 4 h`, `7 h 12 min`.
fn span_text(secs: i64) -> String {
    let (d, h, m) = (secs / 86_400, secs % 86_400 / 3600, secs % 3600 / 60);
    match (d, h) {
        (0, 0) => format!("{m} min"),
        (0, _) => format!("{h} h {m} min"),
        (1, _) => format!("1 day {h} h"),
        _ => format!("{d} days {h} h"),
    }
}

/// How long before the window an instance that restarted, failed its
/// probes or logged its start still counts as part of the fleet (one that
/// went down just before the symptoms is the incident's). By its traffic an
/// instance counts only when it served in the window: pods a deploy
/// replaced minutes before are no longer the fleet.
const FLEET_LOOKBACK_S: i64 = 60;

/// Instances seen doing something from a little before the window to its
/// end: serving requests, answering health checks, logging, reporting pool
/// metrics, restarting or failing probes. An instance replaced by a deploy
/// hours earlier is not part of the fleet that failed.
fn fleet(
    agg: &Aggregates,
    a: &Analysis,
    window: Span,
    baseline: Span,
) -> Result<std::collections::BTreeSet<String>, AggregateError> {
    let near = Span::new(window.start - FLEET_LOOKBACK_S, window.end);
    let (lo, hi) = (near.start * 1000, near.end * 1000);
    let mut out = std::collections::BTreeSet::new();
    for s in agg.dim_stats(Dim::Instance, window, baseline)? {
        if s.window_requests > 0 {
            out.insert(a.ids.canonical(&s.value));
        }
    }
    for (inst, cells) in health_by_instance(agg, window, &a.ids) {
        if inst != "(unknown)" && cells.iter().any(|c| c.requests > 0) {
            out.insert(inst);
        }
    }
    for p in &a.pool.instances {
        let series = agg.metric_series().find(|s| s.key == p.series);
        if !p.instance.is_empty()
            && series.is_some_and(|s| s.points.iter().any(|(t, _)| *t >= lo && *t < hi))
        {
            out.insert(p.instance.clone());
        }
    }
    // Down from before the window until after it (a pod a deploy stopped
    // and its rollback started again): not the fleet that failed, whatever
    // its records around the window say.
    let down_through = |inst: &str| {
        a.history
            .restarts
            .iter()
            .any(|r| r.instance == inst && r.down < lo && r.up.is_some_and(|u| u > hi))
    };
    for r in &a.history.restarts {
        // One never seen back left the fleet when it went down (replaced
        // in a rollout): before the lookback, it is not the fleet that failed.
        let back = r.up.unwrap_or(r.down);
        if r.down < hi && back >= lo && !down_through(&r.instance) {
            out.insert(r.instance.clone());
        }
    }
    for (inst, p) in &a.history.probe_failures {
        // A group's probe failures (an ECS service's target) name no instance.
        if p.first < hi && p.last >= lo && !a.history.groups.contains_key(inst) {
            out.insert(inst.clone());
        }
    }
    // Counting requests it completed inside the window (not in the
    // lookback: a pod a rollout stopped just before served none of it).
    let inside = (window.start * 1000, hi);
    for (s, inst) in throughput::per_instance(agg) {
        if throughput::served(s, inside) {
            out.insert(a.ids.canonical(inst));
        }
    }
    for signal in [Signal::Startup, Signal::Shutdown, Signal::PoolExhausted] {
        for (inst, s, _) in agg.signal_counts(signal) {
            if !inst.is_empty() && near.contains(s) {
                out.insert(a.ids.canonical(&inst));
            }
        }
    }
    if !agg.has_values(Dim::Instance) {
        // No instance in the access log: the ones logging in the window,
        // less those down all through it (a log's first and last lines
        // span its gaps).
        for (inst, (from, to)) in agg.logged() {
            let name = a.ids.canonical(&inst);
            if from < near.end && to >= near.start && !down_through(&name) {
                out.insert(name);
            }
        }
    }
    if out.is_empty() {
        out = a.history.instances.clone();
    }
    Ok(out)
}

/// How far around the window's start an instance must have served to count
/// as running when the incident began.
const JOINED_BEFORE_S: i64 = 300;
const JOINED_AFTER_S: i64 = 60;

/// Fleet instances that served in the window but not around its start (or,
/// where requests name no instance, began to log after it), and were not
/// affected (see [`Analysis::instances_joined`]).
fn joined(
    agg: &Aggregates,
    a: &Analysis,
    window: Span,
) -> Result<std::collections::BTreeSet<String>, AggregateError> {
    let start = Span::new(
        window.start - JOINED_BEFORE_S,
        (window.start + JOINED_AFTER_S).min(window.end),
    );
    let mut out = std::collections::BTreeSet::new();
    for s in agg.dim_stats(Dim::Instance, window, start)? {
        if s.window_requests == 0 || s.baseline_requests > 0 {
            continue;
        }
        let name = a.ids.canonical(&s.value);
        if a.fleet.contains(&name) && !a.instances_affected.contains(&name) {
            out.insert(name);
        }
    }
    // Counting requests only from after the start: a pod started in it.
    let mut first_counted: std::collections::BTreeMap<String, Millis> = Default::default();
    for (s, inst) in throughput::per_instance(agg) {
        if let Some(p) = s.points.first() {
            let t = first_counted.entry(a.ids.canonical(inst)).or_insert(p.0);
            *t = (*t).min(p.0);
        }
    }
    let reach_back = first_counted.values().any(|t| *t < start.start * 1000);
    for (name, t) in &first_counted {
        if reach_back
            && *t > start.end * 1000
            && a.fleet.contains(name)
            && !a.instances_affected.contains(name)
        {
            out.insert(name.clone());
        }
    }
    let logged = agg.logged();
    // Only where the logs reach back before the window: an export cut at
    // the incident's start would have every instance begin in it.
    let reach_back = logged.values().any(|(from, _)| *from < start.start);
    if !agg.has_values(Dim::Instance) && reach_back {
        // No instance in the access log: by when each began to log (a
        // pod's log begins with the pod).
        for (inst, (from, _)) in logged {
            let name = a.ids.canonical(&inst);
            // A log that begins late is a quiet logger when its request
            // counts show it serving before.
            let counted_before = first_counted
                .get(&name)
                .is_some_and(|t| *t < start.start * 1000);
            if from > start.end
                && !counted_before
                && a.fleet.contains(&name)
                && !a.instances_affected.contains(&name)
            {
                out.insert(name);
            }
        }
    }
    Ok(out)
}

/// An instance counts as affected with this many failed requests, and this
/// share of its requests: a stray failure is not the incident reaching it.
const AFFECTED_MIN_FAILED: u64 = 3;
const AFFECTED_MIN_SHARE: f64 = 0.01;

/// An instance's requests queued, not just slower: a mean of seconds, at
/// ten times its own usual. A route made slower (a slow dependency behind
/// a flag) raises every instance's mean a few times over, and no instance
/// was what failed; requests waiting in a queue for a pool take seconds.
/// A second, as for an instance slower than its peers: a bulk export's
/// queue kept every pod's users 1.7-2.7 s where they usually waited
/// 100 ms, and five pods were counted unaffected (bulk-export draw 895310).
const QUEUED_MS: f64 = 1000.0;
const QUEUED_RATIO: f64 = 10.0;

/// The instances the incident touched (see [`Analysis::instances_affected`]).
fn affected(
    agg: &Aggregates,
    a: &Analysis,
    window: Span,
    baseline: Span,
) -> Result<std::collections::BTreeSet<String>, AggregateError> {
    let mut out = std::collections::BTreeSet::new();
    let (lo, hi) = ((window.start - 60) * 1000, window.end * 1000);
    let stats = agg.dim_stats(Dim::Instance, window, baseline)?;
    let means: Vec<f64> = stats
        .iter()
        .filter(|s| s.window_requests >= 20)
        .map(|s| s.window_busy_ms / s.window_requests as f64)
        .collect();
    let usual = stats::median(&means);
    for s in &stats {
        let failing = s.window_failed >= AFFECTED_MIN_FAILED
            && s.window_failed as f64 >= AFFECTED_MIN_SHARE * s.window_requests as f64;
        let mean = s.window_busy_ms / (s.window_requests.max(1) as f64);
        // Slow without failing counts only for an instance that served
        // before: one started in the window is slow while it takes the
        // backlog and warms up, and was not what failed.
        let slow = s.window_requests >= 20
            && s.baseline_requests > 0
            && usual > 0.0
            && mean >= 1000.0
            && mean >= 5.0 * usual;
        // Slow against its own past: when every instance queues alike (a
        // pool or a worker pool exhausted fleet-wide) none is slower than
        // its peers, yet each kept its users waiting seconds where they
        // usually wait milliseconds.
        let usual_own = s.baseline_busy_ms / s.baseline_requests.max(1) as f64;
        let slow_for_itself = s.window_requests >= 20
            && s.baseline_requests >= 20
            && usual_own > 0.0
            && mean >= QUEUED_MS
            && mean >= QUEUED_RATIO * usual_own;
        if failing || slow || slow_for_itself {
            out.insert(a.ids.canonical(&s.value));
        }
    }
    for r in &a.history.restarts {
        // A rollout replacing an instance is not the incident reaching it.
        if r.down >= lo && r.down < hi && timeline::unplanned(a, r) {
            out.insert(r.instance.clone());
        }
    }
    for (inst, p) in &a.history.probe_failures {
        // A group's probe failures (an ECS service's target) name no instance.
        if p.first < hi && p.last >= lo && !a.history.groups.contains_key(inst) {
            out.insert(inst.clone());
        }
    }
    // The instances the access log shows serving in the window: their
    // requests say whether they were affected, and one sample of a pool
    // at its maximum (a fresh pod taking the backlog for a moment) does
    // not outweigh them.
    let serving: std::collections::BTreeSet<String> = stats
        .iter()
        .filter(|s| s.window_requests >= 20)
        .map(|s| a.ids.canonical(&s.value))
        .collect();
    for p in &a.pool.instances {
        // Where the pool counts its waiting callers, only callers waiting
        // in the window, in two samples running, say it held its requests
        // up: a pool in full use with nobody waiting works at its size
        // (organic-growth draws 1818101, 1818107, 1818118 named a server
        // at 5 of 5 with no one waiting, its requests all answered as
        // usual). Without a waiting count, a run at the maximum is all
        // there is.
        let runs: Vec<&(Millis, Millis)> = p
            .waiting_runs
            .as_ref()
            .unwrap_or(&p.saturated)
            .iter()
            .filter(|(s, e)| *s < hi && *e > lo)
            .collect();
        let waited = p.peak_waiting > 0.0 && !runs.is_empty();
        let sustained = runs.iter().any(|(s, e)| e - s > p.step);
        if waited && !p.instance.is_empty() && (sustained || !serving.contains(&p.instance)) {
            out.insert(p.instance.clone());
        }
    }
    // Stalled by their own request counts: stuck, where the access log
    // cannot say which instance served a request.
    out.extend(a.stalls.iter().map(|s| s.instance.clone()));
    if !agg.has_values(Dim::Instance) {
        out.extend(
            erring(agg, window, baseline)
                .into_iter()
                .map(|i| a.ids.canonical(&i)),
        );
    }
    Ok(out)
}

/// How many times its usual error rate an instance must log errors at in
/// the window to count as affected by its logs.
const AFFECTED_ERROR_RATIO: f64 = 3.0;

/// Where requests name no instance, the instances whose logs show the
/// incident: errors in at least [`AFFECTED_MIN_FAILED`] seconds of the
/// window (a failure's traceback is several lines in one second), and
/// [`AFFECTED_ERROR_RATIO`] times what the fleet's usual rate of such
/// seconds per instance would give over the time the instance logged in it
/// (a canary started at the onset has no baseline of its own).
fn erring(agg: &Aggregates, window: Span, baseline: Span) -> Vec<String> {
    let logged = agg.logged();
    let overlap = |name: &str, span: Span| -> i64 {
        logged.get(name).map_or(0, |(from, to)| {
            ((*to + 1).min(span.end) - (*from).max(span.start)).max(0)
        })
    };
    let before = agg.log_errors(baseline);
    let base_secs: i64 = logged.keys().map(|n| overlap(n, baseline)).sum();
    let usual = if base_secs > 0 {
        before.values().sum::<u64>() as f64 / base_secs as f64
    } else {
        0.0
    };
    agg.log_errors(window)
        .into_iter()
        .filter(|(name, n)| {
            let expected = usual * overlap(name, window).max(60) as f64;
            *n >= AFFECTED_MIN_FAILED && *n as f64 >= AFFECTED_ERROR_RATIO * expected.max(1.0)
        })
        .map(|(name, _)| name)
        .collect()
}

/// Health-check cells per instance, one entry per instance however many
/// names its checks were logged under.
fn health_by_instance(
    agg: &Aggregates,
    span: Span,
    ids: &identity::Identities,
) -> Vec<(String, Vec<Cell>)> {
    let mut by: std::collections::BTreeMap<String, Vec<Cell>> = std::collections::BTreeMap::new();
    for (inst, cells) in agg.health_by_instance(span) {
        let name = if inst == "(unknown)" {
            inst
        } else {
            ids.canonical(&inst)
        };
        match by.entry(name) {
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(cells);
            }
            std::collections::btree_map::Entry::Occupied(mut o) => {
                for (a, b) in o.get_mut().iter_mut().zip(&cells) {
                    a.merge(b);
                }
            }
        }
    }
    by.into_iter().collect()
}

impl Span {
    fn overlaps(&self, o: &Span) -> bool {
        self.start < o.end && o.start < self.end
    }
}

fn widen(s: Span, by: i64) -> Span {
    Span::new(s.start - by, s.end + by)
}

/// `inner` as an index range into `outer`'s seconds.
/// The seconds the access logs cover: from their first request to their
/// last (the whole span when there is none).
fn served_span(totals: &[Cell], span: Span) -> Span {
    let first = totals.iter().position(|c| c.requests > 0 || c.done > 0);
    let last = totals.iter().rposition(|c| c.requests > 0 || c.done > 0);
    match (first, last) {
        (Some(f), Some(l)) => Span::new(span.start + f as i64, span.start + l as i64 + 1),
        _ => span,
    }
}

/// Demand set the incident off only where it had risen before the service
/// failed: a rise that follows the first failures is the clients' answer to
/// them (retries, reconnects), and one that follows a slowdown at the old
/// rate did not cause it (thundering-herd draws: the database slowed at an
/// unchanged rate, clients stormed back minutes later, and the draft said
/// "demand outgrew capacity"). The lead is the two minutes before the
/// first failure (at least the onset's first minute); its rate is the
/// median of its ten-second blocks, so a burst in its last seconds (the
/// herd arriving just before the failures) does not make a phase of old
/// demand look grown.
fn lead_demand(
    totals: &[Cell],
    span: Span,
    baseline: std::ops::Range<usize>,
    (onset, fail, end): (i64, i64, i64),
) -> DemandAfter {
    let lead_end = fail.max(onset + LEAD_MIN_S).min(end).max(onset + 1);
    let lead_start = onset.max(lead_end - LEAD_MAX_S);
    let blocks: Vec<f64> = totals
        .get(rel(span, Span::new(lead_start, lead_end)))
        .unwrap_or_default()
        .chunks(LEAD_BLOCK_S)
        .map(|b| b.iter().map(|c| f64::from(c.requests)).sum::<f64>() / b.len() as f64)
        .collect();
    let base = totals.get(baseline).unwrap_or_default();
    DemandAfter {
        lead_secs: (lead_end - lead_start) as f64,
        lead_rate: stats::median(&blocks),
        baseline_rate: base.iter().map(|c| f64::from(c.requests)).sum::<f64>()
            / base.len().max(1) as f64,
        slowed_from: None,
    }
}

/// The request rate before the first failure, against the baseline's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DemandAfter {
    /// Requests per second in the lead to the first failure.
    pub lead_rate: f64,
    pub baseline_rate: f64,
    /// Where requests began to slow, when that came before the failures.
    pub slowed_from: Option<i64>,
    /// How long the lead was, seconds.
    pub lead_secs: f64,
}

impl DemandAfter {
    /// Demand had risen in the lead, if less than the rise called growth:
    /// a tenth or more above the baseline's rate, by more requests than
    /// chance gives (three Poisson deviations). A service that began to
    /// slow and fail at 1.3x its usual traffic, a rise of 60 requests in
    /// two minutes over 240, did not fail "while traffic was unchanged"
    /// (crash-loop draw 1319207, whose demand grew from 17:01 on, was told
    /// "Demand did not set it off" and sent to its database).
    pub fn rose(&self) -> bool {
        let expected = self.baseline_rate * self.lead_secs;
        let excess = (self.lead_rate - self.baseline_rate) * self.lead_secs;
        self.lead_rate >= LEAD_ROSE * self.baseline_rate && excess > 3.0 * expected.sqrt()
    }
}

/// The rise in the lead that is a rise at all: a tenth above the usual.
const LEAD_ROSE: f64 = 1.1;

/// The shortest lead looked at: an abrupt incident fails within seconds of
/// its onset, and a minute of its demand is what set it off.
const LEAD_MIN_S: i64 = 60;
const LEAD_MAX_S: i64 = 120;
const LEAD_BLOCK_S: usize = 10;

fn rel(outer: Span, inner: Span) -> std::ops::Range<usize> {
    let a = (inner.start.max(outer.start) - outer.start) as usize;
    let b = (inner.end.min(outer.end) - outer.start).max(0) as usize;
    a..b.max(a)
}

/// Runs of true flags, bridging gaps shorter than `gap`: (first, end) indices.
fn runs(flags: &[bool], gap: usize) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, _) in flags.iter().enumerate().filter(|(_, f)| **f) {
        match out.last_mut() {
            Some(r) if i - r.1 <= gap => r.1 = i + 1,
            _ => out.push((i, i + 1)),
        }
    }
    out
}

fn range_rate(cells: &[Cell], range: std::ops::Range<usize>, f: impl Fn(&Cell) -> u32) -> f64 {
    let counts: Vec<f64> = cells.iter().map(|c| f64::from(f(c))).collect();
    onset::base_rate(&counts, range)
}

/// `ranges`: the baseline, and the part of it that says how many callers
/// may wait for a connection as a matter of course (empty: none may).
fn symptom_flags(
    agg: &Aggregates,
    span: Span,
    ranges: (std::ops::Range<usize>, std::ops::Range<usize>),
    a: &Analysis,
    health: &[(String, Vec<Cell>)],
) -> onset::Flags {
    let (range, waiting_base) = ranges;
    let n = span.len();
    let failed: Vec<f64> = a.totals.iter().map(|c| f64::from(c.failed)).collect();
    let done: Vec<f64> = a.totals.iter().map(|c| f64::from(c.done)).collect();
    let share = onset::failure_share(&failed, &done, range.clone());
    let mut errors = onset::share_flags(&failed, &done, share);
    // Nothing served while requests were expected is the worst error of all.
    let ok_rate = range_rate(&a.totals, range.clone(), |c| c.ok);
    for (e, f) in errors.iter_mut().zip(no_success_flags(&a.totals, ok_rate)) {
        *e |= f;
    }
    let mut latency = onset::latency_flags(&a.totals, range.clone());
    let mut other = vec![false; n];
    let logs: Vec<f64> = agg.error_logs(span).into_iter().map(f64::from).collect();
    let mut log_flags = onset::excess_flags(&logs, &with_traffic(&logs, &a.totals, range.clone()));
    // Error lines are judged against the baseline's: logs that begin after
    // it (a pod's `kubectl logs` from its last restart) cannot say what is
    // usual, and every error they hold would read as new.
    let (base_from, base_to) = (
        span.start + range.start as i64,
        span.start + range.end as i64,
    );
    let logs_cover_baseline = agg
        .logged()
        .values()
        .any(|(from, to)| *from < base_to && *to >= base_from);
    if !logs_cover_baseline {
        log_flags.iter_mut().for_each(|f| *f = false);
    }
    // Requests queueing for a connection hurt users, unless the baseline
    // queues as a matter of course (most of the time, the same robustness as a
    // median: an incident shorter than the baseline does not make it usual).
    let base_waiting = range.len().max(1) as f64;
    let waiting_usual = a
        .pool
        .waiting_secs
        .get(range.clone())
        .unwrap_or_default()
        .iter()
        .filter(|w| **w)
        .count() as f64
        / base_waiting
        > 0.5;
    // Pool lines count when they come far more often than in the baseline:
    // a pool also logs its state as a matter of course (HikariCP's stats).
    let pool_logs: Vec<f64> = a.pool.log_lines.iter().map(|c| f64::from(*c)).collect();
    let pool_flags = onset::excess_flags(
        &pool_logs,
        &with_traffic(&pool_logs, &a.totals, range.clone()),
    );
    // A rollup's first waiting period says only that the queue began
    // somewhere in it: its seconds are set apart (`coarse`), and the onset
    // dates them by what the finer records show (`onset::find`).
    // Callers waiting for a connection are what users feel only where the
    // requests cannot say: beside timed requests whose errors and latency
    // are at baseline, a sampled waiter or two is the pool working at its
    // size (a grown service after its scale-out), not the incident going on.
    // So too in a rollup's period: one unfelt waiter in a minute's sample
    // after recovery kept organic-growth draw 1818119 going 97 s longer.
    let mut waiting = felt_waiting(
        &waiting_beyond_baseline(&a.pool, waiting_base),
        &errors,
        &latency,
        &a.totals,
    );
    let mut coarse = vec![false; n];
    for &(s, e) in a.pool.heads.iter().chain(&a.pool.tails) {
        for i in s.max(span.start)..e.min(span.end) {
            let i = (i - span.start) as usize;
            if let (Some(w), Some(c)) = (waiting.get_mut(i), coarse.get_mut(i)) {
                *c |= *w && !waiting_usual;
                *w = false;
            }
        }
    }
    // Every per-second series here covers the span: the zips lose nothing.
    let flagged = log_flags.iter().zip(&pool_flags).zip(&waiting);
    for (o, ((log, pool), waiting)) in other.iter_mut().zip(flagged) {
        *o = *log || *pool || (*waiting && !waiting_usual);
    }
    for (_, cells) in health {
        for (o, c) in other.iter_mut().zip(cells) {
            if c.failed > 0 {
                *o = true;
            }
        }
    }
    // A rollout stopping the instances it replaces is no symptom; a stop is
    // judged as `timeline::unplanned` judges restarts (which are not known
    // yet here), against the changes made.
    let changes: Vec<Millis> = agg
        .infra_events()
        .iter()
        .filter(|e| e.kind.is_change() || e.kind == InfraKind::Scaling)
        .map(|e| e.ts)
        .collect();
    let planned = |e: &crate::event::InfraEvent| {
        let words = Some(e.message.trim()).filter(|m| !m.is_empty());
        e.kind == InfraKind::Killing
            && instances::planned(words, &a.stop_causes, || {
                changes
                    .iter()
                    .any(|c| (c - e.ts).abs() <= timeline::ROLLOUT_MS)
            })
    };
    let mut deaths = instance_flags(&a.history, span);
    let mut died = instance_deaths(&a.history, span);
    for e in agg.infra_events() {
        let marks = matches!(
            e.kind,
            InfraKind::ProbeFailed | InfraKind::Killing | InfraKind::OomKilled | InfraKind::BackOff
        );
        if !marks || planned(e) {
            continue;
        }
        let dying = e.kind != InfraKind::ProbeFailed;
        for s in (e.first_ts.div_euclid(1000))..=(e.ts.div_euclid(1000)) {
            if span.contains(s) {
                let i = (s - span.start) as usize;
                if let Some(o) = other.get_mut(i) {
                    *o = true;
                }
                if let (true, Some(d)) = (dying, deaths.get_mut(i)) {
                    *d = true;
                }
            }
        }
        if dying {
            let who = std::iter::once(&e.object).chain(&e.members);
            for s in [e.first_ts, e.ts].map(|t| t.div_euclid(1000)) {
                if span.contains(s) {
                    let i = (s - span.start) as usize;
                    died.extend(who.clone().map(|n| (i, a.ids.canonical(n))));
                }
            }
        }
    }
    died.sort();
    died.dedup();
    for (o, f) in other.iter_mut().zip(&deaths) {
        *o |= f;
    }
    onset::drop_ordinary_slowdowns(&mut latency, &[&errors, &other], &a.totals, range.clone());
    // Seconds that only the coarse periods mark stay symptoms (the
    // incident's extent is unchanged) but are known as such.
    for (i, c) in coarse.iter_mut().enumerate() {
        let fine = [&errors, &latency, &other]
            .iter()
            .any(|f| f.get(i) == Some(&true));
        if let (true, Some(o)) = (*c && !fine, other.get_mut(i)) {
            *o = true;
        } else {
            *c = false;
        }
    }
    let heads = a
        .pool
        .heads
        .iter()
        .filter_map(|&(s, e)| {
            let rel = |t: i64| usize::try_from(t - span.start).ok();
            Some((rel(s)?, rel(e)?))
        })
        .collect();
    onset::Flags {
        errors,
        latency,
        other,
        causes: Vec::new(),
        heads,
        coarse,
        timed: a.totals.iter().map(|c| c.timed).collect(),
        longest: a
            .totals
            .iter()
            .map(|c| u32::try_from(c.max_us / 1_000_000).unwrap_or(u32::MAX))
            .collect(),
        deaths,
        died,
    }
}

/// Each unplanned death the logs tell of (see [`instance_flags`]): its
/// second in `span` and the instance, canonical.
fn instance_deaths(h: &instances::InstanceHistory, span: Span) -> Vec<(usize, String)> {
    h.restarts
        .iter()
        .filter(|r| r.cause.as_deref().is_some_and(logged_death))
        .filter(|r| span.contains(r.down.div_euclid(1000)))
        .map(|r| {
            (
                (r.down.div_euclid(1000) - span.start) as usize,
                r.instance.clone(),
            )
        })
        .collect()
}

/// A death the logs tell of: a crash, a watchdog's or a check's kill. The
/// orchestrator's own kills and back-offs are events, flagged as such.
fn logged_death(c: &str) -> bool {
    [
        instances::CRASHED,
        instances::KILLED_BY_WATCHDOG,
        instances::KILLED_FOR_CHECK,
    ]
    .contains(&c)
}

/// The seconds of `span` that deaths the logs tell of mark as trouble: a
/// crash, a watchdog's kill in the journal, a kill after failed checks. An
/// orderly stop is none (a scale-in, a host replaced: it hurts no one), and
/// the orchestrator's kills and failed probes are flagged as its events.
fn instance_flags(h: &instances::InstanceHistory, span: Span) -> Vec<bool> {
    let mut flags = vec![false; span.len()];
    let rel = |t: Millis| (t.div_euclid(1000) - span.start).clamp(0, span.len() as i64) as usize;
    for r in &h.restarts {
        if r.cause.as_deref().is_some_and(logged_death) {
            // Down until seen back, within bounds; never seen back (replaced,
            // or the data ends), only the death itself is known.
            let back = r.up.unwrap_or(r.down).min(r.down + UNPLANNED_DOWN_MAX_MS);
            if let Some(run) = flags.get_mut(rel(r.down)..rel(back + 1000).max(rel(r.down))) {
                run.fill(true);
            }
        }
    }
    flags
}

/// How long after its death an instance counts as trouble at most: a pod in
/// a crash loop's back-off is down for minutes while the rest of the fleet
/// serves, so its absence is no symptom of its own; its dying is.
const UNPLANNED_DOWN_MAX_MS: Millis = 30_000;

/// What each second of a log count is expected to hold: the baseline's
/// rate, or its rate per request times the second's requests when that is
/// more. Error lines that come with requests rise with the traffic; a
/// morning ramp is no symptom.
fn with_traffic(counts: &[f64], totals: &[Cell], range: std::ops::Range<usize>) -> Vec<f64> {
    let rate = onset::base_rate(counts, range.clone());
    let r = range.start.min(counts.len())..range.end.min(counts.len());
    let base_logs: f64 = counts.get(r.clone()).unwrap_or_default().iter().sum();
    let base_requests: f64 = totals
        .get(r)
        .unwrap_or_default()
        .iter()
        .map(|c| f64::from(c.requests))
        .sum();
    let per_request = if base_requests > 0.0 {
        base_logs / base_requests
    } else {
        0.0
    };
    totals
        .iter()
        .map(|c| rate.max(per_request * f64::from(c.requests)))
        .collect()
}

/// Seconds in which more callers waited for a connection than ever in the
/// baseline: a busy pool's few waiting callers, as before the incident, are
/// no symptom once the service has recovered.
/// How far around a second requests are looked at to judge whether
/// callers waiting for a pool then were felt.
const FELT_WITHIN_S: usize = 60;

/// `waiting`, less the seconds where requests were timed within
/// [`FELT_WITHIN_S`] and none of them failed or slowed beyond baseline.
fn felt_waiting(waiting: &[bool], errors: &[bool], latency: &[bool], totals: &[Cell]) -> Vec<bool> {
    let n = waiting.len();
    let at = |v: &[bool], i: usize| v.get(i) == Some(&true);
    let hurt =
        stats::prefix_sums((0..n).map(|i| f64::from(u8::from(at(errors, i) || at(latency, i)))));
    let timed = stats::prefix_sums(
        (0..n).map(|i| f64::from(u8::from(totals.get(i).is_some_and(|c| c.timed > 0)))),
    );
    let near = |p: &[f64], i: usize| {
        stats::range_sum(
            p,
            i.saturating_sub(FELT_WITHIN_S),
            (i + FELT_WITHIN_S + 1).min(n),
        )
    };
    (0..n)
        .map(|i| at(waiting, i) && (near(&hurt, i) > 0.0 || near(&timed, i) == 0.0))
        .collect()
}

fn waiting_beyond_baseline(pool: &PoolState, baseline: std::ops::Range<usize>) -> Vec<bool> {
    let base_peak = pool
        .waiting_peak
        .get(baseline)
        .unwrap_or_default()
        .iter()
        .fold(0.0f32, |m, v| m.max(*v));
    pool.waiting_secs
        .iter()
        .zip(&pool.waiting_peak)
        .map(|(w, p)| *w && *p > base_peak)
        .collect()
}

/// Longest gap (seconds) between failures of one run.
const MAX_RUN_GAP: f64 = 30.0;

/// Where the failures that the first failing second `flagged` belongs to
/// began, no earlier than `from`: the failure rate is judged on windows, so
/// a run's first failures come before the first second judged failing. A
/// failure nearer the run than half the usual interval between failures
/// (before the incident, at most [`MAX_RUN_GAP`]) belongs to it.
fn run_start(
    totals: &[Cell],
    baseline: std::ops::Range<usize>,
    from: usize,
    flagged: usize,
) -> usize {
    let base = totals.get(baseline).unwrap_or_default();
    let failed: f64 = base.iter().map(|c| f64::from(c.failed)).sum();
    let usual = if failed > 0.0 {
        base.len() as f64 / failed
    } else {
        f64::INFINITY
    };
    let gap = (usual / 2.0).min(MAX_RUN_GAP) as usize;
    let mut start = flagged;
    let mut i = flagged;
    while i > from && start - (i - 1) <= gap {
        i -= 1;
        if totals.get(i).is_some_and(|c| c.failed > 0) {
            start = i;
        }
    }
    start
}

/// Causes that may date the onset before the first symptom: the surge of
/// the one client that explains the extra load (if one does), and pool
/// saturation. Growth spread over everyone is business, not a cause: such
/// an incident is dated by its symptoms.
/// `ranges`: the baseline, and the part of it that says how many callers
/// may wait for a connection as a matter of course (as for the symptoms).
fn cause_flags(
    culprit: Option<&[Cell]>,
    pool: &PoolState,
    ranges: (std::ops::Range<usize>, std::ops::Range<usize>),
) -> Vec<Vec<bool>> {
    let (range, waiting_base) = ranges;
    let mut causes = Vec::new();
    if let Some(cells) = culprit {
        let counts: Vec<f64> = cells.iter().map(|c| f64::from(c.requests)).collect();
        let rate = onset::base_rate(&counts, range);
        causes.push(onset::count_flags(&counts, rate));
    }
    // A pool dates the onset only where callers waited beyond what the
    // baseline's did: pods whose pools had a caller or two waiting in
    // most minutes before the fault dated organic-growth draw 895307
    // eleven minutes early, from the first unbroken run of such minutes.
    // A pool pressing by being at its maximum (no waiting series) stays.
    let beyond = waiting_beyond_baseline(pool, waiting_base);
    causes.push(
        pool.pressing_secs
            .iter()
            .zip(&pool.waiting_peak)
            .zip(&beyond)
            .map(|((p, w), b)| *p && (*b || *w == 0.0))
            .collect(),
    );
    causes
}

fn health_state(
    health: &[(String, Vec<Cell>)],
    span: Span,
    window: Span,
    range: std::ops::Range<usize>,
) -> HealthState {
    let mut h = HealthState::default();
    let mut base_means = Vec::new();
    for (_, cells) in health {
        let base = cells.get(range.clone()).unwrap_or_default();
        base_means.extend(base.iter().filter_map(Cell::mean_ms));
    }
    h.baseline_median_ms = stats::median(&base_means);
    let w = rel(span, window);
    for (inst, cells) in health {
        h.instances.push(inst.clone());
        let mut failing = false;
        for (i, c) in cells.iter().enumerate().take(w.end).skip(w.start) {
            h.checks_in_window += u64::from(c.requests);
            h.failed_in_window += u64::from(c.failed);
            h.window_max_ms = h.window_max_ms.max(c.max_ms());
            // Failing means failed: a slow check that passes is not a failed one.
            if c.failed > 0 {
                failing = true;
                let s = span.start + i as i64;
                if h.first_failure.is_none_or(|(f, _)| s < f) {
                    h.first_failure = Some((s, c.first));
                }
            }
        }
        if failing {
            h.failing.push(inst.clone());
        }
    }
    h
}

/// Seconds in runs in which nothing succeeded although traffic around the
/// run expects so many successes over it that no run of all those in the
/// span should be that empty by chance (at least ten: e^-10, about 1 in
/// 22,000, for a single run). The expectation is the lower of
/// the success rates of the ten minutes before and after the run, so a
/// night-time lull, whose neighbours are as quiet as it is, is no outage;
/// and only seconds between the first and the last request count, since
/// outside them the access logs say nothing at all. No baseline success
/// (`ok_rate` zero) means nothing is expected.
fn no_success_flags(totals: &[Cell], ok_rate: f64) -> Vec<bool> {
    let mut flags = vec![false; totals.len()];
    if ok_rate <= 0.0 {
        return flags;
    }
    let covered =
        coverage::request_coverage(&totals.iter().map(|c| c.requests).collect::<Vec<_>>());
    let prefix = stats::prefix_sums(totals.iter().map(|c| f64::from(c.ok)));
    let rate = |a: usize, b: usize| -> Option<f64> {
        (b > a).then(|| stats::range_sum(&prefix, a, b) / (b - a) as f64)
    };
    let zero: Vec<bool> = totals
        .iter()
        .enumerate()
        .map(|(i, c)| c.ok == 0 && covered.contains(&i))
        .collect();
    // Strict runs: one served request ends a gap (merging across it would
    // call a trickle of successes "nothing served").
    let gaps = runs(&zero, 0);
    // Every gap between two successes is a chance for a long one by luck:
    // at one success a second, some 14 s gap turns up in a day. The bar is
    // set so that all the gaps together expect less than 1% of one such
    // run by chance (e^-bar per run, times the runs), and at least ten.
    let bar = (gaps.len() as f64 * 100.0).ln().max(10.0);
    for (s, e) in gaps {
        let before = rate(s.saturating_sub(NEIGHBOURS_S).max(covered.start), s);
        let after = rate(e, (e + NEIGHBOURS_S).min(covered.end));
        let local = match (before, after) {
            (Some(b), Some(a)) => b.min(a),
            (Some(x), None) | (None, Some(x)) => x,
            (None, None) => 0.0,
        };
        if local * (e - s) as f64 >= bar {
            if let Some(gap) = flags.get_mut(s..e) {
                gap.fill(true);
            }
        }
    }
    flags
}

/// The traffic around a run of seconds with no success that says how many
/// were expected in it.
const NEIGHBOURS_S: usize = 600;

/// Runs of seconds in the window in which nothing was served.
fn outages(totals: &[Cell], span: Span, window: Span, ok_rate: f64) -> Vec<Span> {
    let w = rel(span, window);
    let flags: Vec<bool> = no_success_flags(totals, ok_rate)
        .into_iter()
        .enumerate()
        .map(|(i, f)| f && w.contains(&i))
        .collect();
    runs(&flags, 0)
        .into_iter()
        .map(|(s, e)| Span::new(span.start + s as i64, span.start + e as i64))
        .collect()
}

/// Stretches of the incident in which the request log holds no request
/// at all where many were expected (see [`silence`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Silence {
    /// Seconds in all.
    pub secs: i64,
    pub longest: Span,
    /// Requests the baseline's rate expected in them.
    pub expected: f64,
}

/// Requests a silent stretch must have been expected to hold (at the
/// baseline's rate) to be told: a quiet service's 10 s without a request
/// is its usual.
const SILENT_EXPECTED: f64 = 20.0;

/// Full interruptions in which the request log holds no request at all,
/// where the baseline's rate expected many: what happened to those
/// requests is not in it (a load balancer's 502/503 while no instance was
/// up are logged in front of the service), so the failures counted are a
/// lower bound.
fn silence(totals: &[Cell], span: Span, outages: &[Span], baseline: Span) -> Option<Silence> {
    let rate = range_rate(totals, rel(span, baseline), |c| c.requests);
    let silent: Vec<&Span> = outages
        .iter()
        .filter(|o| {
            let r = rel(span, **o);
            totals
                .get(r)
                .is_some_and(|cells| cells.iter().all(|c| c.requests == 0 && c.done == 0))
                && rate * o.len() as f64 >= SILENT_EXPECTED
        })
        .collect();
    let longest = **silent.iter().max_by_key(|o| (o.len(), -o.start))?;
    let secs = silent.iter().map(|o| o.len() as i64).sum();
    Some(Silence {
        secs,
        longest,
        expected: rate * secs as f64,
    })
}

/// Milliseconds to whole seconds.
pub fn secs(ms: Millis) -> i64 {
    ms.div_euclid(1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One failed request's traceback is three error lines in one second:
    /// no more than one failure. Three failures in three seconds are the
    /// incident reaching the instance.
    #[test]
    fn a_traceback_is_one_failure_not_three() {
        use crate::event::{Event, Level, LogRecord};
        let logged = |ts: Millis, inst: &str, level: Level| {
            Event::Log(LogRecord {
                ts,
                origin: Default::default(),
                level,
                message: "NoMethodError".into(),
                instance: Some(inst.to_string().into()),
                tenant: None,
                signal: None,
                version: None,
            })
        };
        let line = |ts: Millis, inst: &str| logged(ts, inst, Level::Error);
        let mut agg = Aggregates::new();
        for inst in ["old-1", "new-1"] {
            // Both log from the start; neither erred in the baseline.
            agg.add(logged(0, inst, Level::Info));
        }
        for ms in [1_000_100, 1_000_200, 1_000_300] {
            agg.add(line(ms, "old-1"));
        }
        for s in [1_000, 1_100, 1_200] {
            agg.add(line(s * 1000, "new-1"));
        }
        agg.add(line(2_000_000, "old-1"));
        agg.add(line(2_000_000, "new-1"));
        agg.finish();
        let got = erring(&agg, Span::new(900, 1900), Span::new(0, 900));
        assert_eq!(got, vec!["new-1".to_string()]);
    }

    /// "1 of N" counts the fleet running when it began: the pods a
    /// scale-out added at the end are not the peers it was compared with.
    #[test]
    fn sentences_count_the_fleet_that_was_running() {
        let a = Analysis {
            instances_joined: ["new-1", "new-2"].iter().map(|s| s.to_string()).collect(),
            ..Analysis::default()
        };
        assert_eq!(a.running(8, 1), 6);
        assert_eq!(a.running(3, 3), 3, "never fewer than those named");
        assert_eq!(Analysis::default().running(8, 1), 8);
    }

    fn served(per_s: &[u32]) -> Vec<Cell> {
        per_s
            .iter()
            .map(|&n| Cell {
                requests: n,
                done: n,
                ok: n,
                ..Cell::default()
            })
            .collect()
    }

    /// Demand led only when it had risen before the first failure: a herd
    /// in the seconds before it, or the storm after it, does not count.
    #[test]
    fn demand_leads_only_when_it_rose_before_the_first_failure() {
        let span = Span::new(0, 1000);
        // 3 req/s throughout; the onset (a slowdown) at 500, the first
        // failure at 800, a herd of 200 req/s from 795 and after.
        let mut per_s = vec![3u32; 1000];
        for n in per_s.iter_mut().skip(795) {
            *n = 200;
        }
        let lead = lead_demand(&served(&per_s), span, 0..500, (500, 800, 1000));
        assert_eq!(lead.baseline_rate, 3.0);
        assert_eq!(lead.lead_rate, 3.0);
        assert!(lead.lead_rate < attribution::GREW_RATIO * lead.baseline_rate);
        // Traffic that doubled from the onset on led.
        for n in per_s.iter_mut().take(795).skip(500) {
            *n = 6;
        }
        let lead = lead_demand(&served(&per_s), span, 0..500, (500, 800, 1000));
        assert_eq!(lead.lead_rate, 6.0);
        // A failure at the onset: its first minute is the lead.
        let lead = lead_demand(&served(&per_s), span, 0..500, (500, 500, 1000));
        assert_eq!(lead.lead_rate, 6.0);
        assert!(lead.rose());
    }

    /// A rise short of growth is a rise where chance does not explain it:
    /// 1.3x over two minutes at 2 req/s is, 1.05x at 200 req/s is too
    /// small to count, 1.3x over a minute at 0.1 req/s is chance.
    #[test]
    fn a_rise_before_the_failures_is_one_beyond_chance() {
        let lead = |base: f64, rate: f64, secs: f64| DemandAfter {
            lead_rate: rate,
            baseline_rate: base,
            slowed_from: None,
            lead_secs: secs,
        };
        assert!(lead(2.0, 2.5, 120.0).rose());
        assert!(!lead(2.0, 2.05, 120.0).rose());
        assert!(!lead(200.0, 210.0, 120.0).rose());
        assert!(!lead(0.1, 0.13, 60.0).rose());
    }

    /// The first second judged failing comes after the run's first
    /// failures; those nearer each other than half the usual interval
    /// between failures are the run's, an old stray one is not.
    #[test]
    fn errors_start_with_the_first_failure_of_their_run() {
        let mut cells = served(&[10; 1000]);
        // Before: one failure every 100 s.
        for i in (0..600).step_by(100) {
            cells[i].failed = 1;
        }
        // A stray one at 620, then the run: one every 10 s from 700, judged
        // failing from 760.
        cells[620].failed = 1;
        for i in (700..1000).step_by(10) {
            cells[i].failed = 1;
        }
        assert_eq!(run_start(&cells, 0..600, 650, 760), 700);
        assert_eq!(
            run_start(&cells, 0..600, 710, 760),
            710,
            "not before the window"
        );
        // Where failures come every 4 s as a matter of course, a run is
        // not walked back through them.
        let mut busy = served(&[10; 1000]);
        for i in (0..1000).step_by(4) {
            busy[i].failed = 1;
        }
        assert_eq!(run_start(&busy, 0..600, 650, 760), 760);
    }

    #[test]
    fn callers_waiting_as_many_as_in_the_baseline_are_no_symptom() {
        let peaks = [0.0, 3.0, 0.0, 0.0, 95.0, 40.0, 2.0, 0.0];
        let pool = PoolState {
            waiting_secs: peaks.iter().map(|p| *p > 0.0).collect(),
            waiting_peak: peaks.to_vec(),
            ..PoolState::default()
        };
        assert_eq!(
            waiting_beyond_baseline(&pool, 0..4),
            [false, false, false, false, true, true, false, false]
        );
        // A baseline where nobody waited: any waiting caller counts.
        assert!(waiting_beyond_baseline(&pool, 2..4)[6]);
    }

    /// A pool dates an onset only where callers waited beyond the
    /// baseline's own; one at its maximum with no waiting series does
    /// wherever it pressed.
    #[test]
    fn a_pool_causes_only_beyond_its_usual_waiting() {
        let peaks = [0.4, 0.0, 0.4, 0.3, 0.4, 3.0, 9.0, 0.0];
        let mut pool = PoolState {
            waiting_secs: peaks.iter().map(|p| *p > 0.0).collect(),
            pressing_secs: peaks.iter().map(|p| *p > 0.0).collect(),
            waiting_peak: peaks.to_vec(),
            ..PoolState::default()
        };
        let causes = cause_flags(None, &pool, (0..3, 0..3));
        assert_eq!(
            causes[0],
            [false, false, false, false, false, true, true, false]
        );
        pool.pressing_secs[7] = true;
        assert!(cause_flags(None, &pool, (0..3, 0..3))[0][7]);
    }

    #[test]
    fn deaths_the_logs_tell_of_are_symptoms_and_an_orderly_stop_is_not() {
        let at = |s: i64| s * 1000;
        let restart = |down: i64, up: Option<i64>, cause: Option<&str>| instances::Restart {
            instance: "worker-6".into(),
            down: at(down),
            up: up.map(at),
            source: Origin::default(),
            cause: cause.map(str::to_string),
        };
        let h = instances::InstanceHistory {
            restarts: vec![
                restart(100, Some(111), Some(instances::KILLED_BY_WATCHDOG)),
                // "Stopping WEB service... Deactivated successfully."
                restart(300, None, None),
                // Never seen back: only its death is known.
                restart(500, None, Some(instances::CRASHED)),
                // Back an hour later: counted for 30 s at most.
                restart(600, Some(4200), Some(instances::CRASHED)),
                // The orchestrator's kill is an event of its own.
                restart(800, Some(820), Some("OOMKilled")),
            ],
            ..Default::default()
        };
        let f = instance_flags(&h, Span::new(0, 1000));
        let marked = |a: usize, b: usize| f[a..b].iter().all(|x| *x);
        assert!(marked(100, 112) && !f[99] && !f[112]);
        assert!(!f[300..320].iter().any(|x| *x));
        assert!(f[500] && !f[501] && !f[499]);
        assert!(marked(600, 631) && !f[631]);
        assert!(!f[800..830].iter().any(|x| *x));
    }

    #[test]
    fn a_trickle_of_successes_is_no_outage() {
        // One success every four seconds for an hour: every gap is 3 s long,
        // which at 0.25/s is what a quiet hour looks like.
        let per_s: Vec<u32> = (0..3600).map(|i| u32::from(i % 4 == 0)).collect();
        let flags = no_success_flags(&served(&per_s), 0.25);
        assert!(flags.iter().all(|f| !f));
    }

    #[test]
    fn a_hole_in_steady_traffic_is_one() {
        // Two a second, then two minutes with none, then two a second again.
        let per_s: Vec<u32> = (0..3600)
            .map(|i| if (1800..1920).contains(&i) { 0 } else { 2 })
            .collect();
        let flags = no_success_flags(&served(&per_s), 2.0);
        let hit: Vec<usize> = (0..3600).filter(|&i| flags[i]).collect();
        assert_eq!(hit.first(), Some(&1800));
        assert_eq!(hit.last(), Some(&1919));
        assert_eq!(hit.len(), 120);
    }

    /// A caller or two waiting for a connection beside timed requests at
    /// baseline is the pool at work, not the incident; where the requests
    /// slowed, or where none were timed to say, it is felt.
    #[test]
    fn waiting_is_felt_only_where_the_requests_show_it_or_cannot() {
        let n = 400;
        let mut waiting = vec![false; n];
        for i in [100, 300] {
            waiting[i] = true;
        }
        let errors = vec![false; n];
        let mut latency = vec![false; n];
        latency[320] = true;
        let timed: Vec<Cell> = (0..n)
            .map(|_| Cell {
                requests: 1,
                timed: 1,
                ..Cell::default()
            })
            .collect();
        let felt = felt_waiting(&waiting, &errors, &latency, &timed);
        let at: Vec<usize> = (0..n).filter(|i| felt[*i]).collect();
        assert_eq!(at, [300], "beside slow requests only");
        let untimed = vec![Cell::default(); n];
        let felt = felt_waiting(&waiting, &errors, &latency, &untimed);
        assert_eq!(
            (0..n).filter(|i| felt[*i]).count(),
            2,
            "nothing timed to say"
        );
    }

    /// An outage whose seconds hold no request at all, where the baseline
    /// expected dozens, is told; one whose requests were logged failing is
    /// counted in full and is not.
    #[test]
    fn an_outage_the_request_log_holds_nothing_of_is_silence() {
        let mut totals = served(&[2; 400]);
        for c in totals.iter_mut().skip(300).take(30) {
            *c = Cell::default();
        }
        for c in totals.iter_mut().skip(350).take(20) {
            c.failed = c.requests;
        }
        let span = Span::new(1000, 1400);
        let baseline = Span::new(1000, 1250);
        let outages = [Span::new(1300, 1330), Span::new(1350, 1370)];
        let s = silence(&totals, span, &outages, baseline);
        assert_eq!(
            s.map(|s| (s.secs, s.longest, s.expected.round() as i64)),
            Some((30, Span::new(1300, 1330), 60))
        );
        assert_eq!(silence(&totals, span, &outages[1..], baseline), None);
    }
}
