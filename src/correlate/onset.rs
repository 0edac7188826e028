//! Onset and recovery from the data. Symptoms (failed requests, slow
//! requests, error logs, failing health checks, kills) mark the incident;
//! causes that run into it (a tenant's or the total request rate surging, a
//! saturated pool) move the onset back to where they began. Baselines come
//! from the data before the onset, with medians so that the incident itself
//! does not shift them.

use crate::aggregate::{Cell, Span};

use super::split::{self, Step};
use super::stats::{forward_sums, mad, median, poisson_exceeds, prefix_sums, range_sum};

/// Seconds a window sums over: long enough to steady a rate, short enough
/// to place an onset to the second after refinement.
pub const WINDOW: usize = 5;
/// Symptoms less than this far apart are one incident.
pub const MERGE_GAP: i64 = 120;
/// An incident is a sustained degradation: symptoms over at least a minute
/// (the shortest window alerting on error budgets looks at), in at least
/// twenty of its seconds. A few seconds of 502s from one instance, a short
/// latency blip or one routine restart are not an incident.
pub const MIN_INCIDENT_SECS: i64 = 60;
pub const MIN_SYMPTOM_SECS: usize = 20;
/// A service failing again within this many seconds of a wave had not
/// recovered: one incident, however short its waves.
const RELAPSE_SECS: usize = 300;
/// An instance dying again within this many seconds of an earlier death has
/// not recovered in between: the kubelet resets a crashing container's
/// back-off only once it has run ten minutes.
const CRASH_LOOP_RESET_SECS: usize = 600;

/// The incident: absolute seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Incident {
    pub onset: i64,
    pub recovered: i64,
    /// Where symptoms (not causes) began.
    pub symptoms_start: i64,
}

/// Per-second symptom and cause flags over the span.
#[derive(Clone, Debug, Default)]
pub struct Flags {
    pub errors: Vec<bool>,
    pub latency: Vec<bool>,
    pub other: Vec<bool>,
    /// Each cause's flags (request surges, pool saturation).
    pub causes: Vec<Vec<bool>>,
    /// Periods [start, end) (seconds of the span) that a cause's flags fill
    /// from one coarse sample: the cause began somewhere in the period,
    /// not at its first second (see [`super::PoolState::heads`]).
    pub heads: Vec<(usize, usize)>,
    /// Seconds whose only symptom is a coarse period's (see `heads`).
    pub coarse: Vec<bool>,
    /// Timed requests per second (empty: not known, as in tests of
    /// flags alone).
    pub timed: Vec<u32>,
    /// Whole seconds the longest request arriving in each second ran, so
    /// the second it was answered in (empty: not known).
    pub longest: Vec<u32>,
    /// Seconds in which an instance died unplanned: killed, crashed, in a
    /// restart back-off (empty: not known).
    pub deaths: Vec<bool>,
    /// Each such death: its second and the instance (canonical), so that
    /// the same instance dying again is known as such.
    pub died: Vec<(usize, String)>,
}

impl Flags {
    pub fn symptom(&self, i: usize) -> bool {
        [&self.errors, &self.latency, &self.other]
            .iter()
            .any(|f| f.get(i) == Some(&true))
    }
}

/// Baseline of a count series: the robust rate per second.
pub fn base_rate(counts: &[f64], baseline: std::ops::Range<usize>) -> f64 {
    let sums = forward_sums(counts, WINDOW);
    let end = baseline
        .end
        .min(sums.len().saturating_sub(WINDOW - 1))
        .max(baseline.start);
    let b = sums.get(baseline.start..end).unwrap_or_default();
    if b.is_empty() {
        return 0.0;
    }
    // The mean is used when the median is zero (sparse traffic) so that a
    // tenant sending a request every few minutes has a rate, not zero.
    let med = median(b);
    let mean = b.iter().sum::<f64>() / b.len() as f64;
    (if med > 0.0 {
        med.min(mean.max(med))
    } else {
        mean
    }) / WINDOW as f64
}

/// Seconds where a count runs above its baseline rate (forward windows,
/// then refined so a run starts and ends on seconds that are high themselves).
pub fn count_flags(counts: &[f64], rate: f64) -> Vec<bool> {
    excess_flags(counts, &vec![rate; counts.len()])
}

/// Window lengths, seconds, over which a count is compared with what was
/// expected of it. Five seconds date a burst to the second; at a failure
/// every few seconds no five-second window holds the four a Poisson test
/// needs against an expectation near zero, so a sustained one in ten
/// failing at a few requests a second would go unseen: longer windows see
/// it. Each length is held to the same margin (four deviations and three).
pub const EXCESS_WINDOWS: [usize; 3] = [WINDOW, 6 * WINDOW, 24 * WINDOW];

/// Seconds where a count runs above what was expected of each second:
/// a forward window (of any of [`EXCESS_WINDOWS`]) whose sum exceeds its
/// expectation (Poisson), refined to the seconds in it that are high
/// themselves.
pub fn excess_flags(counts: &[f64], expected: &[f64]) -> Vec<bool> {
    let n = counts.len();
    let mut flags = vec![false; n];
    // Seconds flagged by the shortest windows, whose edges need no refining.
    let mut sharp = vec![false; n];
    for w in EXCESS_WINDOWS {
        let sums = forward_sums(counts, w);
        let wanted = forward_sums(expected, w);
        // Seconds already judged for this length: each is looked at once.
        let mut judged = 0;
        for (i, (sum, want)) in sums.iter().zip(&wanted).enumerate() {
            if !poisson_exceeds(*sum, *want) {
                continue;
            }
            let to = (i + w).min(n);
            let seconds = flags
                .iter_mut()
                .zip(&mut sharp)
                .zip(counts.iter().zip(expected))
                .take(to)
                .skip(judged.max(i));
            for ((flag, sharp), (count, e)) in seconds {
                // Within a high window only the seconds above their own expectation count.
                if *count > e + 2.0 * e.sqrt() {
                    *flag = true;
                    *sharp |= w == WINDOW;
                }
            }
            judged = judged.max(to);
        }
    }
    refine_count_edges(&mut flags, &sharp, counts, expected);
    flags
}

/// A run whose edge only a long window saw is placed to within that
/// window: a scattered failure a minute before a trickle of them began sits
/// in the same window as the trickle. The edge goes where the count's rate
/// (per unit expected, so a traffic ramp is no step) changes most, within
/// the longest window's length of it.
fn refine_count_edges(flags: &mut [bool], sharp: &[bool], counts: &[f64], expected: &[f64]) {
    let n = flags.len();
    let [.., longest] = EXCESS_WINDOWS;
    let pc = prefix_sums(counts.iter().copied());
    // A floor on exposure, so that where nothing was expected the split is
    // on the count's own rate.
    let pe = prefix_sums(expected.iter().map(|e| e.max(1e-3)));
    let runs = super::runs(flags, MERGE_GAP as usize);
    for (s, e) in runs {
        if sharp.get(s) != Some(&true) {
            let (a, b) = (s.saturating_sub(longest), (s + longest).min(e));
            if let Some(p) = split::best_split(&pc, &pe, a, b, Step::Up) {
                if p < s {
                    set(flags, p..s, true);
                } else {
                    // Moved in, never past a burst the shortest window
                    // dated itself: 100 failures in one second are no
                    // scattered prelude to the ramp after them
                    // (organic-growth draw 2743107 began 100 s late).
                    let to = (s..p).find(|&i| sharp.get(i) == Some(&true)).unwrap_or(p);
                    set(flags, s..to, false);
                }
            }
        }
        let last = e - 1;
        if sharp.get(last) != Some(&true) {
            let (a, b) = (
                (last + 1).saturating_sub(longest).max(s),
                (last + 1 + longest).min(n),
            );
            if let Some(p) = split::best_split(&pc, &pe, a, b, Step::Down) {
                if p > e {
                    set(flags, e..p, true);
                } else {
                    let from = (p..e)
                        .rev()
                        .find(|&i| sharp.get(i) == Some(&true))
                        .map_or(p, |i| i + 1);
                    set(flags, from..e, false);
                }
            }
        }
    }
}

/// Set the flags of seconds `range` (runs and splits are inside the span).
fn set(flags: &mut [bool], range: std::ops::Range<usize>, value: bool) {
    if let Some(f) = flags.get_mut(range) {
        f.fill(value);
    }
}

/// The baseline's share of completed requests that failed, pooled over the
/// baseline: the expectation failures are measured against, whatever the
/// traffic does. A morning ramp that triples the requests triples the
/// failures expected with it; only a rising share is a symptom.
pub fn failure_share(failed: &[f64], done: &[f64], baseline: std::ops::Range<usize>) -> f64 {
    let b = baseline.start.min(failed.len())..baseline.end.min(failed.len());
    let f: f64 = failed.get(b.clone()).unwrap_or_default().iter().sum();
    let d: f64 = done.get(b).unwrap_or_default().iter().sum();
    if d > 0.0 {
        f / d
    } else {
        0.0
    }
}

/// Seconds whose failures run above the baseline's failure share of the
/// requests completed in them.
pub fn share_flags(failed: &[f64], done: &[f64], share: f64) -> Vec<bool> {
    let expected: Vec<f64> = done.iter().map(|d| share * d).collect();
    excess_flags(failed, &expected)
}

/// Timed requests a latency window holds at least (it grows past
/// [`WINDOW`] seconds until it does, up to [`LATENCY_WINDOW_MAX`]): the mean
/// of a handful of requests is one slow report endpoint away from double
/// the median, so at a request every few seconds five seconds say nothing.
/// Twenty requests bring a mean's noise to under a quarter of the spread of
/// single durations (1/sqrt(20)).
pub const LATENCY_MIN_TIMED: f64 = 20.0;
/// A slowdown is a symptom once requests take this much longer than usual
/// on average, whatever the ratio: about a tenth of a second is where a
/// response stops feeling immediate, and a service that goes from 26 to
/// 40 ms (half again as slow, and no one waits) has not failed anyone.
pub const LATENCY_NOTICEABLE_MS: f64 = 100.0;
/// The longest a latency window grows, seconds.
pub const LATENCY_WINDOW_MAX: usize = 300;

/// Each second's forward window for latency: `[i, end[i])`, at least
/// [`WINDOW`] seconds and [`LATENCY_MIN_TIMED`] timed requests where
/// [`LATENCY_WINDOW_MAX`] allows.
fn latency_windows(timed: &[f64]) -> Vec<usize> {
    let n = timed.len();
    let prefix = prefix_sums(timed.iter().copied());
    let mut end = 0;
    (0..n)
        .map(|i| {
            end = end.max((i + WINDOW).min(n));
            while end < n.min(i + LATENCY_WINDOW_MAX)
                && range_sum(&prefix, i, end) < LATENCY_MIN_TIMED
            {
                end += 1;
            }
            // The end never moves back: a later window starts later.
            end.min(n.min(i + LATENCY_WINDOW_MAX)).max(i + 1)
        })
        .collect()
}

/// Seconds whose mean latency (over a forward window holding enough
/// requests) is far above the baseline's: six robust standard deviations
/// and at least double.
pub fn latency_flags(cells: &[Cell], baseline: std::ops::Range<usize>) -> Vec<bool> {
    let n = cells.len();
    let timed: Vec<f64> = cells.iter().map(|c| f64::from(c.timed)).collect();
    let ends = latency_windows(&timed);
    let pb = prefix_sums(cells.iter().map(Cell::busy_ms));
    let pt = prefix_sums(timed.iter().copied());
    // Second i's window is [i, ends[i]).
    let means: Vec<f64> = ends
        .iter()
        .enumerate()
        .map(|(i, &end)| {
            let t = range_sum(&pt, i, end);
            if t > 0.0 {
                range_sum(&pb, i, end) / t
            } else {
                f64::NAN
            }
        })
        .collect();
    let base: Vec<f64> = means
        .get(baseline.start.min(n)..baseline.end.min(n))
        .unwrap_or_default()
        .to_vec();
    let med = median(&base);
    if med <= 0.0 {
        return vec![false; n];
    }
    let spread = mad(&base, med);
    let threshold = (med + 6.0 * spread)
        .max(2.0 * med)
        .max(med + LATENCY_NOTICEABLE_MS);
    let mut flags = vec![false; n];
    // Seconds already judged: windows only move forward, so each second is
    // looked at once.
    let mut judged = 0;
    for (i, (mean, &end)) in means.iter().zip(&ends).enumerate() {
        if *mean > threshold {
            let from = judged.max(i);
            for (f, c) in flags.iter_mut().zip(cells).take(end).skip(from) {
                if c.mean_ms().is_some_and(|m| m > threshold) {
                    *f = true;
                }
            }
            judged = judged.max(end);
        }
    }
    // Hysteresis: a slowdown that crossed the high threshold began, and
    // ended, where latency crossed a lower one (three robust deviations and
    // a fifth above the median), so a gradual rise is dated from its start.
    let weak = (med + 3.0 * spread).max(1.2 * med);
    // Judged on the same forward windows as the high threshold: one
    // second's mean at a request a second is one request's duration, above
    // a fifth over the median almost every other second, and a run would
    // grow through a whole quiet hour.
    // A slowdown ends where the added wait stops being noticeable, even if
    // latency stays above its usual range (a client held back by a rate
    // limit answered in 40 ms instead of 26): the start is dated from the
    // first rise, the end from the last noticeable one.
    let weak_end = weak.max(med + LATENCY_NOTICEABLE_MS);
    let above: Vec<Option<bool>> = means
        .iter()
        .map(|m| (!m.is_nan()).then_some(*m > weak_end))
        .collect();
    // The same windows, ending at each second instead of starting there:
    // second i's is [starts[i], i + 1).
    let rev: Vec<f64> = timed.iter().rev().copied().collect();
    let mut starts: Vec<usize> = latency_windows(&rev).into_iter().map(|e| n - e).collect();
    starts.reverse();
    let back: Vec<Option<bool>> = starts
        .iter()
        .enumerate()
        .map(|(i, &start)| {
            let t = range_sum(&pt, start, i + 1);
            (t > 0.0).then(|| range_sum(&pb, start, i + 1) / t > weak)
        })
        .collect();
    extend(&mut flags, &back, &above);
    refine_edges(&mut flags, &pb, &pt, &ends, &starts);
    flags
}

/// Clear the slowdowns alone that, over their whole length, are neither
/// noticeable nor a doubling: the service's ordinary variation, not an
/// incident. A few slow calls of an expensive route, scattered through a
/// quiet day, lift a window's mean past the threshold now and then, and
/// hysteresis joins them into a minute and a half of "degraded service"
/// that no user felt (184 ms on average against a usual 120). A group of
/// latency runs (no more than [`MERGE_GAP`] apart) is a slowdown when its
/// mean is at least [`LATENCY_NOTICEABLE_MS`] above the usual mean of
/// stretches as long, or at least double it (a slow integration's last
/// requests kept a quarter of an hour at 55 ms against 14: each window a
/// few seconds slow, the whole no noise). Usual is the median of the
/// baseline's stretches, so an incident inside pass one's whole-span
/// baseline does not move it. A group is kept where another symptom falls
/// in it, where it is too short to be an incident on its own, or where the
/// baseline holds too few stretches as long to say what is usual.
pub fn drop_ordinary_slowdowns(
    latency: &mut [bool],
    others: &[&[bool]],
    cells: &[Cell],
    baseline: std::ops::Range<usize>,
) {
    let pb = prefix_sums(cells.iter().map(Cell::busy_ms));
    let pt = prefix_sums(cells.iter().map(|c| f64::from(c.timed)));
    let mean = |a: usize, b: usize| {
        let t = range_sum(&pt, a, b);
        (t >= LATENCY_MIN_TIMED).then(|| range_sum(&pb, a, b) / t)
    };
    let end = baseline.end.min(cells.len());
    for (s, e) in super::runs(latency, MERGE_GAP as usize) {
        let len = e - s;
        let beside = others
            .iter()
            .any(|f| f.get(s..e).unwrap_or_default().contains(&true));
        if beside || (len as i64) < MIN_INCIDENT_SECS {
            continue;
        }
        let Some(m) = mean(s, e) else { continue };
        // Stretches of the group's length, a quarter of it apart, away from
        // the group and its merge gap.
        let (lo, hi) = (s.saturating_sub(MERGE_GAP as usize), e + MERGE_GAP as usize);
        let stretches: Vec<f64> = (baseline.start..end.saturating_sub(len - 1))
            .step_by((len / 4).max(1))
            .filter(|&a| a + len <= lo || a >= hi)
            .filter_map(|a| mean(a, a + len))
            .collect();
        let usual = median(&stretches);
        let slower = m >= usual + LATENCY_NOTICEABLE_MS || m >= 2.0 * usual;
        if stretches.len() >= ORDINARY_MIN_STRETCHES && !slower {
            set(latency, s..e, false);
        }
    }
}

/// Stretches the baseline must hold to say what is ordinary: at a quarter
/// of a group's length apart, two groups' lengths of baseline.
const ORDINARY_MIN_STRETCHES: usize = 8;

/// Where windows had to grow past [`WINDOW`] seconds to hold enough
/// requests, a run found on them is only placed to within a window: each
/// edge is moved to where the mean steps (up at the start, down at the
/// end) within a window's length either side of it.
fn refine_edges(flags: &mut [bool], pb: &[f64], pt: &[f64], ends: &[usize], starts: &[usize]) {
    let n = flags.len();
    // `ends` and `starts` have an entry per second of `flags`.
    for (s, e) in super::runs(flags, 0) {
        let len = ends.get(s).map_or(0, |end| end - s);
        if len <= WINDOW {
            continue;
        }
        let (a, b) = (s.saturating_sub(len), (s + len).min(n));
        if let Some(p) = split::best_split(pb, pt, a, b, Step::Up) {
            let p = p.min(e);
            set(flags, s.min(p)..s.max(p), p < s);
        }
    }
    for (s, e) in super::runs(flags, 0) {
        let last = e - 1;
        let len = starts.get(last).map_or(0, |start| last + 1 - start);
        if len <= WINDOW {
            continue;
        }
        let (a, b) = ((last + 1).saturating_sub(len), (last + 1 + len).min(n));
        if let Some(p) = split::best_split(pb, pt, a, b, Step::Down) {
            let p = p.max(s);
            set(flags, e.min(p)..e.max(p), p > e);
        }
    }
}

/// Grow every run of flags backwards through seconds that are `Some(true)`
/// in `back`, and forwards through those in `above`; seconds with no data
/// (`None`) are crossed, `Some(false)` stops. (Backwards is judged on
/// windows that end at the second, so that a window reaching into the run
/// does not carry it back before its start.)
pub fn extend(flags: &mut [bool], back: &[Option<bool>], above: &[Option<bool>]) {
    let flagged = |i: usize| flags.get(i) == Some(&true);
    let starts: Vec<usize> = (0..flags.len())
        .filter(|&i| flagged(i) && (i == 0 || !flagged(i - 1)))
        .collect();
    let ends: Vec<usize> = (0..flags.len())
        .filter(|&i| flagged(i) && !flagged(i + 1))
        .collect();
    for s in starts {
        let mut first = s;
        for (i, b) in back.iter().enumerate().take(s).rev() {
            match b {
                Some(true) => first = i,
                Some(false) => break,
                None => {}
            }
        }
        set(flags, first..s, true);
    }
    for e in ends {
        let mut last = e;
        for (i, a) in above.iter().enumerate().skip(e + 1) {
            match a {
                Some(true) => last = i,
                Some(false) => break,
                None => {}
            }
        }
        set(flags, e..last + 1, true);
    }
}

/// Find the incident in the flags: the cluster of symptoms (merged across
/// short gaps) with the most symptomatic seconds, its onset moved back to
/// the start of any cause that runs into it.
/// A cluster whose only symptom is latency, carried by fewer timed
/// requests than two latency windows hold: one window's mean is what a
/// burst of a few slow requests moves (at a request every five seconds, a
/// night's hundreds of windows will hold one such burst), and a slowdown
/// worth the name shows in more than one window's worth of requests.
fn latency_of_one_window(flags: &Flags, range: std::ops::Range<usize>) -> bool {
    if flags.timed.is_empty() {
        return false;
    }
    let only_latency = range
        .clone()
        .all(|i| flags.errors.get(i) != Some(&true) && flags.other.get(i) != Some(&true));
    let timed: f64 = range
        .filter(|&i| flags.latency.get(i) == Some(&true))
        .map(|i| f64::from(flags.timed.get(i).copied().unwrap_or(0)))
        .sum();
    only_latency && timed < 2.0 * LATENCY_MIN_TIMED
}

/// Moves the start of `whole` (first, last, symptomatic seconds) past
/// leading runs of fewer than half [`MIN_SYMPTOM_SECS`] symptomatic seconds
/// that a healthy [`MIN_INCIDENT_SECS`] or more separates from the rest,
/// unless an instance died in the run: a death is never background noise
/// but the fault's first blow (deploy-leak draw 698200: a pod killed for
/// its probes with 70 requests failed, two minutes before the rest, was
/// dropped and the onset came 163 s late).
fn trim_precursors(flags: &Flags, whole: &mut (usize, usize, usize)) {
    loop {
        let symptoms = || (whole.0..=whole.1).filter(|&i| flags.symptom(i));
        let mut run = (0usize, None::<usize>);
        let mut next = None;
        for i in symptoms() {
            match run.1 {
                Some(last) if (i - last) as i64 > MIN_INCIDENT_SECS => {
                    next = Some(i);
                    break;
                }
                _ => run = (run.0 + 1, Some(i)),
            }
        }
        let died = run
            .1
            .is_some_and(|last| (whole.0..=last).any(|i| flags.deaths.get(i) == Some(&true)));
        match next {
            Some(i) if run.0 < MIN_SYMPTOM_SECS / 2 && !died => {
                whole.0 = i;
                whole.2 = whole.2.saturating_sub(run.0);
            }
            _ => return,
        }
    }
}

pub fn find(span: Span, flags: &Flags) -> Option<Incident> {
    let n = span.len();
    let mut clusters: Vec<(usize, usize, usize)> = Vec::new(); // (first, last, symptomatic secs)
    for i in (0..n).filter(|&i| flags.symptom(i)) {
        match clusters.last_mut() {
            Some(c) if (i - c.1) as i64 <= MERGE_GAP => {
                c.1 = i;
                c.2 += 1;
            }
            _ => clusters.push((i, i, 1)),
        }
    }
    // Instances dying one after another, unplanned, within a relapse of
    // each other are one wave of the fleet failing, however healthy the
    // seconds between: deploy-leak draw 895307 had both pods killed for
    // their probes 140 s apart, 16 requests cut at each kill, and was "no
    // incident" for its two short clusters.
    let mut joined: Vec<(usize, usize, usize)> = Vec::with_capacity(clusters.len());
    for c in clusters {
        match joined.last_mut() {
            Some(p)
                if c.0 - p.1 <= RELAPSE_SECS && {
                    let before = dead_in(flags, p);
                    !before.is_empty() && dead_in(flags, &c).iter().any(|i| !before.contains(i))
                } =>
            {
                p.1 = c.1;
                p.2 += c.2;
            }
            _ => joined.push(c),
        }
    }
    let clusters = joined;
    // The worst cluster: the most symptomatic seconds, failures weighing
    // double (a failed request is worse than a slow one).
    let weight = |c: &(usize, usize, usize)| -> usize {
        (c.0..=c.1)
            .map(|i| {
                usize::from(flags.symptom(i)) + usize::from(flags.errors.get(i) == Some(&true))
            })
            .sum()
    };
    let died_in = |c: &(usize, usize, usize)| {
        let (a, b) = (c.0, c.1);
        flags
            .died
            .iter()
            .filter(move |(s, _)| (a..=b).contains(s))
            .map(|(_, i)| i)
    };
    // Instances dying one after another, unplanned, is the fleet failing
    // however few seconds its requests failed: deploy-leak draw 895307,
    // both pods killed for their probes 140 s apart, 16 requests cut at
    // each kill, was "no incident" for its 10 symptomatic seconds.
    let fleet_dying = |c: &(usize, usize, usize)| dead_in(flags, c).len() >= 2;
    let qualifies = |c: &(usize, usize, usize)| {
        (c.1 - c.0) as i64 + 1 >= MIN_INCIDENT_SECS
            && (c.2 >= MIN_SYMPTOM_SECS || fleet_dying(c))
            && !latency_of_one_window(flags, c.0..c.1 + 1)
    };
    // Clusters too short to be an incident of their own still extend one
    // they follow closely (a last pod failing its probes minutes before the
    // rollback: deploy-leak draw 2501004 was said to be over, "and they
    // stay there", three minutes before it), if they are more than a stray
    // second.
    // An instance's death is never a stray second (see `trim_precursors`).
    let died = |c: &(usize, usize, usize)| (c.0..=c.1).any(|i| flags.deaths.get(i) == Some(&true));
    let qualifying: Vec<(usize, usize, usize)> = clusters
        .into_iter()
        .filter(|c| qualifies(c) || c.2 >= MIN_SYMPTOM_SECS / 2 || died(c))
        .collect();
    let best = qualifying
        .iter()
        .enumerate()
        .filter(|(_, c)| qualifies(c))
        .max_by(|(_, a), (_, b)| weight(a).cmp(&weight(b)).then(b.0.cmp(&a.0)))
        .map(|(i, _)| i)?;
    // A relapse is the same incident: a service that is healthy for seven
    // minutes between seven minutes of failures and half an hour more (a
    // rollback that seemed to help, seed 003) has one incident, not two,
    // and the first wave must not become the baseline of the second.
    // Neighbouring clusters join when the healthy gap between them is no
    // longer than the shorter of the two: a service has not recovered until
    // it has stayed healthy for as long as it was failing. Nor has it in the
    // minutes before its next wave, however short the waves: a leak that
    // fills the pool again after each restart fails in waves of a minute
    // or two a few minutes apart (deploy-leak draw 2501012 was reported as
    // its last 90 s).
    // Nor has an instance that dies again before its crash loop's back-off
    // would reset, however healthy the minutes between looked: a leak that
    // fills each new pod's pool in six minutes killed both pods twice, then
    // failed its requests a third time six and a half minutes later
    // (deploy-leak draw 1319219 was reported as its first two waves).
    let died_again = |a: &(usize, usize, usize), b: &(usize, usize, usize)| {
        died_in(a).any(|x| died_in(b).any(|y| x == y))
    };
    let joins = |a: &(usize, usize, usize), b: &(usize, usize, usize)| {
        let gap = b.0.saturating_sub(a.1);
        if gap <= CRASH_LOOP_RESET_SECS && died_again(a, b) {
            return true;
        }
        if !qualifies(a) || !qualifies(b) {
            return gap <= RELAPSE_SECS;
        }
        let shorter = (a.1 - a.0 + 1).min(b.1 - b.0 + 1);
        gap <= shorter.max(RELAPSE_SECS)
    };
    // The incident grows from the worst cluster over its neighbours, nearest first.
    let (before, from_best) = qualifying.split_at_checked(best)?;
    let (mut whole, after) = match from_best {
        [worst, after @ ..] => (*worst, after),
        [] => return None,
    };
    let (mut before, mut after) = (before.iter().rev().peekable(), after.iter().peekable());
    // How far back the incident reaches across the short clusters passed
    // over before it: they are no onset, but as after it they bridge to an
    // earlier wave that failed or killed an instance, whichever way the
    // walk goes (crash-loop draw 702504: a crash with 14 requests cut, a
    // 22 s cluster 137 s later and the main wave 217 s after that joined
    // walking forward and not walking back; the onset came 12 min late).
    let failed =
        |c: &(usize, usize, usize)| (c.0..=c.1).any(|i| flags.errors.get(i) == Some(&true));
    let mut reach = whole.0;
    loop {
        let mut grew = false;
        // Before the incident only waves of their own count: a short
        // precursor is no onset, unless an instance died in it: the fault's
        // first blow (deploy-leak draw 698200: a pod killed for its probes,
        // 70 requests failed, and two healthy minutes while its connections
        // leaked again; the onset came 163 s late). After the incident a
        // short cluster counts too: the service is not back while symptoms
        // return.
        let bridged = (reach, whole.1, whole.2);
        // Walking back, a wave that was only slow joins across no more
        // than a relapse's gap: a slowdown that ended with the traffic that
        // caused it, seven healthy minutes before the fault, is another
        // episode (thundering-herd draw 895317 was dated 24 min early).
        let joins_back = |prev: &(usize, usize, usize), whole: &(usize, usize, usize)| {
            if failed(prev) || died(prev) {
                joins(prev, whole)
            } else {
                whole.0.saturating_sub(prev.1) <= RELAPSE_SECS
            }
        };
        let counts_before = |prev: &&(usize, usize, usize)| {
            (qualifies(prev) || died(prev))
                && (joins_back(prev, &whole)
                    || (reach < whole.0 && (failed(prev) || died(prev)) && joins(prev, &bridged)))
        };
        if let Some(prev) = before.next_if(counts_before) {
            whole.0 = prev.0;
            reach = whole.0;
            grew = true;
        } else if let Some(prev) = before.next_if(|prev| !qualifies(prev)) {
            // A short cluster hides none behind it, and bridges as far as
            // a relapse would join.
            if reach.saturating_sub(prev.1) <= RELAPSE_SECS {
                reach = prev.0;
            }
            grew = true;
        }
        if let Some(next) = after.next_if(|next| joins(&whole, next)) {
            whole.1 = next.1;
            grew = true;
        } else if after.next_if(|next| !qualifies(next)).is_some() {
            grew = true;
        }
        if !grew {
            break;
        }
    }
    // A few symptomatic seconds and then a healthy minute before the rest
    // are no onset: one traceback's error lines, one slow request that the
    // baseline holds a few of an hour (flag-flip draw 1818100 was dated
    // 78 s before the flag flip that caused it, which then could not be
    // the cause). The clusters were joined across shorter gaps than that.
    trim_precursors(flags, &mut whole);
    // The symptoms began with the first second a fine record marks; the
    // coarse periods before it are dated below, as causes are. They ended
    // with the last such second: a rollup's last period says only that the
    // queue drained somewhere in it.
    let fine = |i: &usize| flags.coarse.get(*i) != Some(&true);
    let first = (whole.0..=whole.1).find(fine).unwrap_or(whole.0);
    // The last fine second that is a symptom: the quiet seconds of a
    // rollup's period joined to the cluster are not.
    let last = (first..=whole.1)
        .rev()
        .find(|i| fine(i) && flags.symptom(*i))
        .unwrap_or(whole.1);
    // A slow request is over when it is answered: the requests of the last
    // slow seconds ran on past them (a request held 60 s until the load
    // balancer gave up on it), and service was not back until they ended.
    // Any slow second's, as far back as a latency window reaches: a 95 s
    // export sent 22 s before two shorter slow requests outlasted them
    // (slow-integration draws 1818117 and 1818118 recovered a minute early).
    let answered = (first.max(last.saturating_sub(LATENCY_WINDOW_MAX))..=last)
        .filter(|&i| flags.latency.get(i) == Some(&true))
        .filter_map(|i| Some(i + *flags.longest.get(i)? as usize))
        .fold(last, usize::max)
        .min(n.saturating_sub(1));
    let mut starts = Vec::new();
    for cause in &flags.causes {
        // The cause's latest second at or before the first symptom, no more
        // than a merge gap before it.
        let lo = first.saturating_sub(MERGE_GAP as usize);
        let caused = |i: usize| cause.get(i) == Some(&true);
        let Some(latest) = (lo..=first).rev().find(|&i| caused(i)) else {
            continue;
        };
        // Walk back through its run, bridging gaps no longer than a window.
        let mut start = latest;
        let mut i = latest;
        while i > 0 && start - (i - 1) <= WINDOW {
            i -= 1;
            if caused(i) {
                start = i;
            }
        }
        starts.push(start);
    }
    // A cause that begins with a coarse sample's period is dated by the
    // first finer record inside that period (a symptom, another cause), if
    // one is: the sample says only that it began somewhere in the period.
    let head = |s: usize| flags.heads.iter().find(|(a, _)| *a == s).map(|(_, b)| *b);
    let fine = starts
        .iter()
        .copied()
        .filter(|s| head(*s).is_none())
        .fold(first, usize::min);
    let mut onset = fine;
    for &s in &starts {
        let dated = match head(s) {
            Some(end) if (s..end).contains(&fine) => fine,
            _ => s,
        };
        onset = onset.min(dated);
    }
    Some(Incident {
        onset: span.start + onset as i64,
        recovered: span.start + answered as i64 + 1,
        symptoms_start: span.start + first as i64,
    })
}

/// The instances (canonical, each once) that died in cluster `c`'s seconds.
fn dead_in<'a>(flags: &'a Flags, c: &(usize, usize, usize)) -> Vec<&'a String> {
    let mut who: Vec<&String> = flags
        .died
        .iter()
        .filter(|(s, _)| (c.0..=c.1).contains(s))
        .map(|(_, i)| i)
        .collect();
    who.sort();
    who.dedup();
    who
}

/// The baseline for an incident: the data before it, less a minute of
/// margin; when there is too little, everything outside the incident.
pub fn baseline_for(span: Span, incident: Option<Incident>) -> Span {
    match incident {
        Some(inc) => {
            let before = Span::new(span.start, inc.onset - 60);
            if before.len() >= 300 {
                before
            } else {
                let after = Span::new(inc.recovered + 60, span.end);
                if after.len() > before.len() {
                    after
                } else {
                    before
                }
            }
        }
        None => span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(n: usize) -> Flags {
        Flags {
            errors: vec![false; n],
            latency: vec![false; n],
            other: vec![false; n],
            causes: vec![vec![false; n]],
            heads: Vec::new(),
            coarse: Vec::new(),
            timed: Vec::new(),
            longest: Vec::new(),
            deaths: Vec::new(),
            died: Vec::new(),
        }
    }

    /// A night's slow burst: 82 s of latency flags over 19 timed requests
    /// (a request every four seconds) is one window's mean, no incident;
    /// the same run over a busier minute, or with failures in it, is one.
    /// A run's start that only a long window saw is moved to where the
    /// rate steps up, but never past a burst the shortest window dated
    /// itself: 100 failures in one second, then a ramp a minute later
    /// (organic-growth draw 2743107, all its instances killed at once before
    /// the failures grew) begin at the burst.
    #[test]
    fn refining_a_runs_start_keeps_a_burst_the_short_window_saw() {
        let n = 600;
        let expected = vec![0.05; n];
        let mut counts = vec![0.0; n];
        counts[100] = 1.0;
        counts[130] = 100.0;
        for c in counts.iter_mut().take(500).skip(200) {
            *c = 4.0;
        }
        let flags = excess_flags(&counts, &expected);
        assert!(flags[130], "the burst is a symptom");
        assert!(flags[250], "the ramp is");
        assert!(!flags[50], "nothing before");
    }

    #[test]
    fn latency_of_one_window_of_requests_is_no_incident() {
        let n = 600;
        let mut f = flags(n);
        f.timed = (0..n).map(|i| u32::from(i % 4 == 0)).collect();
        for i in 100..182 {
            f.latency[i] = true;
        }
        assert_eq!(find(Span::new(0, n as i64), &f), None);
        f.timed = vec![1; n];
        assert!(find(Span::new(0, n as i64), &f).is_some());
        f.timed = (0..n).map(|i| u32::from(i % 4 == 0)).collect();
        for i in 150..175 {
            f.errors[i] = true;
        }
        assert!(find(Span::new(0, n as i64), &f).is_some());
    }

    /// The last slow second's requests ran 60 s (until the load balancer
    /// gave up): the service recovered when they were answered, not when
    /// they arrived; failures are dated by their answers already.
    #[test]
    fn recovery_waits_for_the_last_slow_requests_to_be_answered() {
        let n = 900;
        let mut f = flags(n);
        f.timed = vec![1; n];
        for i in 300..500 {
            f.latency[i] = true;
        }
        let inc = find(Span::new(0, n as i64), &f).expect("an incident");
        assert_eq!(inc.recovered, 500);
        f.longest = vec![0; n];
        f.longest[497] = 60;
        let inc = find(Span::new(0, n as i64), &f).expect("an incident");
        assert_eq!(inc.recovered, 558);
        // One sent 22 s before the last slow second, running 95 s, is
        // answered after it too.
        f.longest[497] = 0;
        f.longest[477] = 95;
        let inc = find(Span::new(0, n as i64), &f).expect("an incident");
        assert_eq!(inc.recovered, 573);
        // A long request in a second that was not slow is no symptom.
        f.longest[477] = 0;
        f.longest[600] = 60;
        let inc = find(Span::new(0, n as i64), &f).expect("an incident");
        assert_eq!(inc.recovered, 500);
    }

    fn timed(ms: u64) -> Cell {
        Cell {
            requests: 1,
            done: 1,
            ok: 1,
            timed: 1,
            busy_us: ms * 1000,
            max_us: ms * 1000,
            ..Cell::default()
        }
    }

    /// Three requests a second at 100 ms, one in forty a 1.5 s report:
    /// a minute and a half where four reports fall close together is, on
    /// the whole, neither 100 ms slower than the usual stretch nor double
    /// it, and no slowdown; requests at 400 ms for as long are one, and so
    /// is the ordinary stretch beside failures. At 10 ms a request, 25 ms
    /// for as long is a doubling and kept; 15 ms is not.
    #[test]
    fn a_slowdown_neither_noticeable_nor_doubled_over_its_length_is_ordinary() {
        let n = 7200;
        let mut x: u64 = 42;
        let mut cells: Vec<Cell> = (0..n)
            .map(|_| {
                let mut c = Cell::default();
                for _ in 0..3 {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let ms = if (x >> 33) % 40 == 0 { 1500 } else { 100 };
                    c.merge(&timed(ms));
                }
                c
            })
            .collect();
        let group = 6000..6090;
        for i in (6005..6085).step_by(20) {
            cells[i].merge(&timed(1500));
        }
        let none = vec![false; n];
        let slow = |range: std::ops::Range<usize>| {
            let mut f = vec![false; n];
            set(&mut f, range, true);
            f
        };
        let mut latency = slow(group.clone());
        drop_ordinary_slowdowns(&mut latency, &[&none], &cells, 0..5900);
        assert!(!latency.contains(&true), "scattered reports are ordinary");
        let mut errors = none.clone();
        errors[6040] = true;
        let mut latency = slow(group.clone());
        drop_ordinary_slowdowns(&mut latency, &[&errors], &cells, 0..5900);
        assert_eq!(latency, slow(group.clone()), "kept beside failures");
        for c in &mut cells[group.clone()] {
            c.busy_us = u64::from(c.timed) * 400_000;
        }
        let mut latency = slow(group.clone());
        drop_ordinary_slowdowns(&mut latency, &[&none], &cells, 0..5900);
        assert_eq!(latency, slow(group.clone()), "a real slowdown is kept");
        let quick = |group_ms: u64| -> Vec<bool> {
            let cells: Vec<Cell> = (0..n)
                .map(|i| {
                    let ms = if group.contains(&i) { group_ms } else { 10 };
                    let mut c = timed(ms);
                    c.merge(&timed(ms));
                    c
                })
                .collect();
            let mut latency = slow(group.clone());
            drop_ordinary_slowdowns(&mut latency, &[&none], &cells, 0..5900);
            latency
        };
        assert_eq!(quick(25), slow(group.clone()), "a doubling is kept");
        assert!(!quick(15).contains(&true), "half again as slow is not");
    }

    /// A deterministic mix of fast reads and slow reports (1 in 6 takes
    /// 400 ms, the rest 40 ms), at one request every `every` seconds.
    fn traffic(n: usize, every: usize, slow: impl Fn(usize) -> bool) -> Vec<Cell> {
        (0..n)
            .map(|i| {
                if i % every != 0 {
                    Cell::default()
                } else if slow(i) || (i / every) % 6 == 0 {
                    timed(400)
                } else {
                    timed(40)
                }
            })
            .collect()
    }

    /// Requests at 26 ms, then 5 s for ten minutes, then 40 to 55 ms for
    /// twenty (a rate-limited client's quick refusals mixed in): the
    /// slowdown ends when the 5 s requests do; a wait no one notices is no
    /// symptom, before or after.
    #[test]
    fn a_slowdown_ends_where_the_added_wait_stops_being_noticeable() {
        let mut cells: Vec<Cell> = (0..3600).map(|_| timed(26)).collect();
        cells.extend((0..600).map(|_| timed(5000)));
        cells.extend((0..1200).map(|i| timed(if i % 2 == 0 { 40 } else { 55 })));
        cells.extend((0..600).map(|_| timed(26)));
        let f = latency_flags(&cells, 0..3600);
        let flagged: Vec<usize> = (0..f.len()).filter(|&i| f[i]).collect();
        assert_eq!(flagged.first(), Some(&3600));
        assert!(
            flagged.last().is_some_and(|&l| l < 4200 + WINDOW),
            "{:?}",
            flagged.last()
        );
        // The same tail alone, with no slowdown before it, flags nothing.
        let mut quiet: Vec<Cell> = (0..3600).map(|_| timed(26)).collect();
        quiet.extend((0..1200).map(|i| timed(if i % 2 == 0 { 40 } else { 55 })));
        assert!(latency_flags(&quiet, 0..3600).iter().all(|x| !x));
    }

    #[test]
    fn a_slow_report_in_a_quiet_hour_is_no_slowdown() {
        // Busy baseline (a request a second), then a quiet hour (one every
        // four seconds) of the same mix: a window of a few seconds there
        // holds one request, a slow one half the time.
        let mut cells = traffic(3600, 1, |_| false);
        cells.extend(traffic(3600, 4, |_| false));
        let f = latency_flags(&cells, 0..3600);
        assert_eq!(f.iter().filter(|x| **x).count(), 0);
    }

    #[test]
    fn a_real_slowdown_in_a_quiet_hour_is_found_to_the_second() {
        let mut cells = traffic(3600, 1, |_| false);
        cells.extend(traffic(3600, 4, |i| (2000..2600).contains(&i)));
        let f = latency_flags(&cells, 0..3600);
        // Windows here span 80 s; the edges are still placed to the second.
        assert_eq!(f.iter().position(|x| *x), Some(3600 + 2000));
        assert_eq!(f.iter().rposition(|x| *x), Some(3600 + 2599));
    }

    #[test]
    fn a_cause_running_into_symptoms_moves_the_onset_back() {
        let span = Span::new(1000, 1600);
        let mut f = flags(600);
        for i in 300..400 {
            f.errors[i] = true;
        }
        for i in 250..420 {
            f.causes[0][i] = true;
        }
        let inc = find(span, &f).expect("incident");
        assert_eq!(inc.onset, 1250);
        assert_eq!(inc.symptoms_start, 1300);
        assert_eq!(inc.recovered, 1400);
    }

    #[test]
    fn a_cause_known_only_by_a_rollup_period_is_dated_by_the_first_record_in_it() {
        let span = Span::new(1000, 1600);
        let mut f = flags(600);
        for i in 300..400 {
            f.errors[i] = true;
        }
        // A 5-minute rollup stamped at 240 showed the pool saturated.
        for i in 240..420 {
            f.causes[0][i] = true;
        }
        f.heads = vec![(240, 540)];
        // Its waiting clients mark the period's seconds too, coarsely.
        f.coarse = vec![false; 600];
        for i in 240..300 {
            f.other[i] = true;
            f.coarse[i] = true;
        }
        let inc = find(span, &f).expect("incident");
        assert_eq!(
            inc.onset, 1300,
            "the first failure inside the period dates it"
        );
        assert_eq!(inc.symptoms_start, 1300);
        assert_eq!(inc.recovered, 1400);
        // A surge (a cause known to the second) inside the period dates it
        // earlier still.
        f.causes.push(vec![false; 600]);
        for i in 270..400 {
            f.causes[1][i] = true;
        }
        assert_eq!(find(span, &f).map(|i| i.onset), Some(1270));
        // A one-minute rollup that ends before the first failure: the
        // saturation was there before it, from the period's start.
        f.causes.pop();
        f.heads = vec![(240, 300)];
        assert_eq!(find(span, &f).map(|i| i.onset), Some(1240));
    }

    #[test]
    fn a_rollup_period_after_the_last_failure_does_not_delay_the_recovery() {
        let span = Span::new(1000, 1600);
        let mut f = flags(600);
        for i in 300..400 {
            f.errors[i] = true;
        }
        // The last 5-minute period with clients waiting (360-660, cut at
        // the span's end) is known only coarsely after the failures end.
        f.coarse = vec![false; 600];
        for i in 360..600 {
            f.other[i] = true;
            f.coarse[i] = i >= 400;
        }
        let inc = find(span, &f).expect("incident");
        assert_eq!(inc.recovered, 1400);
        // A minute's rollup 80 s after the failures, joined to them: the
        // quiet seconds between are no symptom, and do not date the end.
        let mut f = flags(600);
        for i in 300..400 {
            f.errors[i] = true;
        }
        f.coarse = vec![false; 600];
        for i in 480..540 {
            f.other[i] = true;
            f.coarse[i] = true;
        }
        let inc = find(span, &f).expect("incident");
        assert_eq!(inc.recovered, 1400);
    }

    /// One second of failures 78 s before the incident is no onset; ten
    /// seconds of them in the minute before it are its first wave.
    #[test]
    fn a_lone_second_a_healthy_minute_before_is_no_onset() {
        let span = Span::new(1000, 1600);
        let mut f = flags(600);
        f.other[100] = true;
        for i in 178..300 {
            f.errors[i] = true;
        }
        assert_eq!(find(span, &f).map(|i| i.onset), Some(1178));
        for i in 100..110 {
            f.errors[i] = true;
        }
        assert_eq!(find(span, &f).map(|i| i.onset), Some(1100));
    }

    #[test]
    fn a_death_a_healthy_minute_before_is_the_onset() {
        let span = Span::new(1000, 1600);
        let mut f = flags(600);
        for i in 100..104 {
            f.other[i] = true;
        }
        for i in 178..300 {
            f.errors[i] = true;
        }
        assert_eq!(find(span, &f).map(|i| i.onset), Some(1178));
        f.deaths = vec![false; 600];
        f.deaths[103] = true;
        assert_eq!(find(span, &f).map(|i| i.onset), Some(1100));
    }

    #[test]
    fn a_cause_alone_is_no_incident_and_stray_symptoms_are_too_few() {
        let span = Span::new(0, 600);
        let mut f = flags(600);
        for i in 100..500 {
            f.causes[0][i] = true;
        }
        f.errors[200] = true;
        f.errors[450] = true;
        assert_eq!(find(span, &f), None);
    }

    #[test]
    fn a_blip_is_no_incident_and_the_worst_cluster_is_the_incident() {
        let span = Span::new(0, 3600);
        let mut f = flags(3600);
        // Fifteen seconds of failures early on: a blip.
        for i in 300..315 {
            f.errors[i] = true;
        }
        assert_eq!(find(span, &f), None);
        // Two minutes of latency later, and four minutes of failures later still.
        for i in 1000..1120 {
            f.latency[i] = true;
        }
        for i in 2000..2240 {
            f.errors[i] = true;
        }
        let inc = find(span, &f).expect("incident");
        assert_eq!((inc.onset, inc.recovered), (2000, 2240));
    }

    /// Ten minutes of failures, three healthy minutes, half an hour more:
    /// one incident from the first failure. A two-minute blip ten minutes
    /// before it stays out.
    #[test]
    fn a_relapse_after_a_short_respite_is_the_same_incident() {
        let inc = incident_of_failures(&[1000..1120, 1720..2320, 2530..4330]);
        assert_eq!((inc.onset, inc.recovered), (1720, 4330));
    }

    /// The incident two hours of seconds give when `waves` fail.
    fn incident_of_failures(waves: &[std::ops::Range<usize>]) -> Incident {
        let mut f = flags(7200);
        for i in waves.iter().cloned().flatten() {
            f.errors[i] = true;
        }
        find(Span::new(0, 7200), &f).expect("incident")
    }

    /// A first wave of seven and a half minutes, a rollback that seemed to
    /// help for seven, and the relapse: one incident from the first wave.
    /// Five minutes of failures fifteen minutes before stay apart.
    #[test]
    fn a_relapse_after_a_respite_shorter_than_the_first_wave_is_the_same_incident() {
        let inc = incident_of_failures(&[600..900, 1800..2250, 2670..5100]);
        assert_eq!((inc.onset, inc.recovered), (1800, 5100));
    }

    /// A leak refilling the pool after each restart: waves of a minute and a
    /// half, two and a half minutes apart, are one incident from the first.
    /// A wave six minutes before another stays apart.
    #[test]
    fn waves_a_few_minutes_apart_are_one_incident_however_short() {
        let inc = incident_of_failures(&[1000..1090, 1250..1340, 1500..1800]);
        assert_eq!((inc.onset, inc.recovered), (1000, 1800));
        let inc = incident_of_failures(&[1000..1090, 1450..1800]);
        assert_eq!((inc.onset, inc.recovered), (1450, 1800));
        // Forty seconds of failures three minutes after: not over yet. A
        // stray few seconds are no wave; twelve far off hide no relapse.
        let inc = incident_of_failures(&[1000..1300, 1480..1520]);
        assert_eq!((inc.onset, inc.recovered), (1000, 1520));
        let inc = incident_of_failures(&[1000..1300, 1480..1485]);
        assert_eq!((inc.onset, inc.recovered), (1000, 1300));
        let inc = incident_of_failures(&[1000..1800, 2150..2162, 2500..3300]);
        assert_eq!((inc.onset, inc.recovered), (1000, 3300));
        // Forty seconds three minutes before are a precursor, not the onset.
        let inc = incident_of_failures(&[1000..1040, 1220..1800]);
        assert_eq!((inc.onset, inc.recovered), (1220, 1800));
    }

    /// A first wave that failed, a short cluster two minutes later and the
    /// main wave three and a half minutes after that: one incident from the
    /// first wave, as it is when the first wave is the worst (the walk back
    /// bridges as the walk forward does). A first wave of latency alone
    /// that far back stays apart, and the short cluster is no onset.
    #[test]
    fn a_short_cluster_bridges_back_to_a_wave_that_failed() {
        let inc = incident_of_failures(&[1000..1250, 1387..1409, 1626..2400]);
        assert_eq!((inc.onset, inc.recovered), (1000, 2400));
        let inc = incident_of_failures(&[1000..1250, 1626..2400]);
        assert_eq!((inc.onset, inc.recovered), (1626, 2400));
        let mut f = flags(7200);
        for i in 1000..1250 {
            f.latency[i] = true;
        }
        for i in (1387..1409).chain(1626..2400) {
            f.errors[i] = true;
        }
        let inc = find(Span::new(0, 7200), &f).expect("incident");
        assert_eq!((inc.onset, inc.recovered), (1626, 2400));
    }

    /// Two waves that each killed both pods, and a third six and a half
    /// minutes after in which one of them died again: one incident. When
    /// another instance died in the third, the respite still ends it.
    #[test]
    fn an_instance_dying_again_before_its_back_off_resets_is_one_incident() {
        let mut f = flags(7200);
        let waves = [1000..1060, 1300..1380, 1780..1870];
        for i in waves.iter().cloned().flatten() {
            f.errors[i] = true;
        }
        let dies = |f: &mut Flags, s: usize, pod: &str| {
            f.died.push((s, pod.to_string()));
        };
        dies(&mut f, 1020, "api-a");
        dies(&mut f, 1050, "api-b");
        dies(&mut f, 1320, "api-a");
        dies(&mut f, 1360, "api-b");
        let other = f.clone();
        dies(&mut f, 1800, "api-b");
        let inc = find(Span::new(0, 7200), &f).expect("incident");
        assert_eq!((inc.onset, inc.recovered), (1000, 1870));
        let mut f = other;
        dies(&mut f, 1800, "api-c");
        let inc = find(Span::new(0, 7200), &f).expect("incident");
        assert_eq!((inc.onset, inc.recovered), (1780, 1870));
    }

    /// Thirteen minutes of slowness, seven and a half healthy, then the
    /// fault's failures: walking back, the slow episode is another one.
    /// Had it failed requests, the service would not have recovered in
    /// between (the gap is shorter than either wave).
    #[test]
    fn a_slow_episode_minutes_before_the_failures_is_apart() {
        let mut f = flags(7200);
        for i in 1000..1800 {
            f.latency[i] = true;
        }
        for i in 2254..3000 {
            f.errors[i] = true;
        }
        let inc = find(Span::new(0, 7200), &f).expect("incident");
        assert_eq!((inc.onset, inc.recovered), (2254, 3000));
        for i in 1000..1800 {
            f.errors[i] = true;
        }
        let inc = find(Span::new(0, 7200), &f).expect("incident");
        assert_eq!((inc.onset, inc.recovered), (1000, 3000));
    }

    /// Each pod killed for its probes with a few seconds of requests cut,
    /// 140 s apart: the fleet failing, one incident. One pod killed so is
    /// no incident, nor are two killed further apart than a relapse.
    #[test]
    fn pods_dying_one_after_another_are_an_incident() {
        let kills = |at: &[(usize, &str)]| {
            let mut f = flags(7200);
            for &(s, pod) in at {
                for i in s - 10..s + 6 {
                    f.other[i] = true;
                }
                for i in s..s + 3 {
                    f.errors[i] = true;
                }
                f.died.push((s, pod.to_string()));
            }
            find(Span::new(0, 7200), &f)
        };
        let inc = kills(&[(3000, "api-a"), (3140, "api-b")]).expect("incident");
        assert_eq!((inc.onset, inc.recovered), (2990, 3146));
        assert_eq!(kills(&[(3000, "api-a")]), None);
        assert_eq!(kills(&[(3000, "api-a"), (3400, "api-b")]), None);
    }

    #[test]
    fn runs_extend_through_weakly_abnormal_seconds() {
        let mut flags = vec![false, false, false, true, true, false, false, false];
        let above = [
            Some(false),
            Some(true),
            None,
            Some(true),
            Some(true),
            Some(true),
            Some(false),
            Some(true),
        ];
        extend(&mut flags, &above, &above);
        assert_eq!(
            flags,
            vec![false, true, true, true, true, true, false, false]
        );
    }

    #[test]
    fn surges_are_flagged_from_their_first_second() {
        let mut counts = vec![2.0; 300];
        for c in counts.iter_mut().skip(200).take(50) {
            *c = 150.0;
        }
        let rate = base_rate(&counts, 0..180);
        assert!((rate - 2.0).abs() < 1e-9);
        let f = count_flags(&counts, rate);
        assert!(!f[199]);
        assert!(f[200]);
        assert!(f[249]);
        assert!(!f[250]);
    }
}
