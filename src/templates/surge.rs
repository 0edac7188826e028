//! Templates against the incident: which were new in its window and which
//! rose most above their baseline, ranked by how well their onset matches
//! the incident's.
//!
//! In: a [`TemplateSet`] and the [`Analysis`] (incident, baseline). Out: a
//! [`SurgeAnalysis`], one [`Surge`] per template with records in the
//! window, the new and surging ones ranked.
//!
//! ```text
//! incident 07:56:55..08:01:35, "HikariPool-<num> - Connection is not available ..."
//! none before, 1626 in the window from 07:58:06 -> New, onset +71 s, match 0.36, rank 1
//! ```
//!
//! - The window opens [`LEAD`] seconds before the onset (a precursor logged
//!   just before the first symptom belongs to the incident) and is counted
//!   in whole buckets.
//! - New: no record before the window at all, none in the baseline.
//! - Surging: the window's rate at least [`RATIO`] times the baseline's,
//!   [`MIN_EXCESS`] records or more above what the baseline rate expects,
//!   and that excess at least [`Z`] Poisson standard deviations.
//! - Onset: a new template's first record; a surging one's first bucket
//!   above its baseline by [`Z`] deviations (else its first in the window).
//! - Onset match: `exp(-|onset - incident onset| / tau)`, tau a quarter of
//!   the incident (30 s to 5 min). Rank: match times `ln(1 + excess)`, so a
//!   burst that starts with the incident comes before a bigger one that
//!   started long after, and a single line does not outrank a flood.

use crate::aggregate::Span;
use crate::correlate::Analysis;

use super::{Template, TemplateSet};

/// Seconds before the onset that count as the incident's.
pub const LEAD: i64 = 60;
/// Window rate over baseline rate for a surge.
pub const RATIO: f64 = 2.0;
/// Records above the baseline's expectation for a surge.
pub const MIN_EXCESS: f64 = 3.0;
/// Poisson standard deviations for a surge, and for a surging bucket.
pub const Z: f64 = 3.0;
/// Logs that begin less than this before the window cannot show what is new.
pub const MIN_LOG_HISTORY: i64 = 300;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    New,
    Surging,
    /// In the window, at about its baseline rate (or too few to tell).
    Steady,
}

/// One template in the window.
#[derive(Clone, Debug, PartialEq)]
pub struct Surge {
    /// Index into the set's templates.
    pub template: usize,
    pub status: Status,
    pub window_count: u64,
    pub baseline_count: u64,
    pub window_rate: f64,
    pub baseline_rate: f64,
    /// Window rate over baseline rate; none when the baseline had none.
    pub ratio: Option<f64>,
    /// Records above what the baseline rate expects in the window.
    pub excess: f64,
    /// When it began, ms.
    pub onset_ms: i64,
    /// Seconds from the incident's onset to the template's (negative: before).
    pub onset_offset_s: i64,
    pub onset_match: f64,
    /// 1 for the best new or surging template; none for steady ones.
    pub rank: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SurgeAnalysis {
    /// The window as counted (whole buckets), seconds.
    pub window: Span,
    pub baseline: Span,
    /// Seconds of logs before the window, when fewer than [`MIN_LOG_HISTORY`].
    pub short_history: Option<i64>,
    /// New and surging first, by rank; then steady ones, most records first.
    pub surges: Vec<Surge>,
}

impl SurgeAnalysis {
    pub fn of(&self, template: usize) -> Option<&Surge> {
        self.surges.iter().find(|s| s.template == template)
    }

    /// The new and surging templates, best first.
    pub fn ranked(&self) -> impl Iterator<Item = &Surge> {
        self.surges.iter().filter(|s| s.rank.is_some())
    }
}

fn floor_to(s: i64, w: i64) -> i64 {
    s.div_euclid(w) * w
}

fn ceil_to(s: i64, w: i64) -> i64 {
    -floor_to(-s, w)
}

/// Compare every template with records in the incident window to its
/// baseline; none when no incident was found.
pub fn analyze(set: &TemplateSet, a: &Analysis) -> Option<SurgeAnalysis> {
    let inc = a.incident?;
    let w = set.bucket_s.max(1);
    let window = Span::new(floor_to(inc.onset - LEAD, w), ceil_to(inc.recovered, w));
    let baseline = a
        .baseline
        .map(|b| Span::new(ceil_to(b.start, w), floor_to(b.end, w)))
        .filter(|b| !b.is_empty() && (b.end <= window.start || b.start >= window.end))
        .unwrap_or_else(|| Span::new(window.start, window.start));
    let first_log = set
        .templates
        .iter()
        .map(|t| t.stats.first.0.div_euclid(1000))
        .min()?;
    let history = window.start - first_log;
    let tau = ((inc.recovered - inc.onset) as f64 / 4.0).clamp(30.0, 300.0);
    let mut surges: Vec<Surge> = set
        .templates
        .iter()
        .enumerate()
        .filter_map(|(i, t)| surge(i, t, set.bucket_s, window, baseline, inc.onset, tau))
        .collect();
    let score = |s: &Surge| s.onset_match * (1.0 + s.excess.max(0.0)).ln();
    surges.sort_by(|x, y| {
        let ranked = |s: &Surge| s.status != Status::Steady;
        ranked(y)
            .cmp(&ranked(x))
            .then_with(|| {
                if ranked(x) {
                    score(y).total_cmp(&score(x))
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .then(y.excess.total_cmp(&x.excess))
            .then(y.window_count.cmp(&x.window_count))
            .then_with(|| {
                let text = |i: usize| set.templates.get(i).map(|t| &t.text);
                text(x.template).cmp(&text(y.template))
            })
    });
    let mut rank = 0;
    for s in &mut surges {
        if s.status != Status::Steady {
            rank += 1;
            s.rank = Some(rank);
        }
    }
    Some(SurgeAnalysis {
        window,
        baseline,
        short_history: (history < MIN_LOG_HISTORY).then_some(history.max(0)),
        surges,
    })
}

fn surge(
    i: usize,
    t: &Template,
    bucket_s: i64,
    window: Span,
    baseline: Span,
    incident_onset: i64,
    tau: f64,
) -> Option<Surge> {
    let window_count = t.count_in(window, bucket_s);
    if window_count == 0 {
        return None;
    }
    let baseline_count = t.count_in(baseline, bucket_s);
    let window_rate = window_count as f64 / window.secs().max(1.0);
    let baseline_rate = if baseline.is_empty() {
        0.0
    } else {
        baseline_count as f64 / baseline.secs()
    };
    let expected = baseline_rate * window.secs();
    let excess = window_count as f64 - expected;
    let first_s = t.stats.first.0.div_euclid(1000);
    let status = if first_s >= window.start && baseline_count == 0 {
        Status::New
    } else if excess >= MIN_EXCESS
        && excess >= Z * expected.max(1.0).sqrt()
        && (baseline_rate == 0.0 || window_rate >= RATIO * baseline_rate)
    {
        Status::Surging
    } else {
        Status::Steady
    };
    let onset_ms = match status {
        Status::New => t.stats.first.0,
        _ => {
            let lambda = baseline_rate * bucket_s as f64;
            let threshold = lambda + Z * lambda.sqrt();
            let in_window = || {
                t.stats
                    .buckets(bucket_s)
                    .filter(|(b, _)| window.contains(*b))
            };
            in_window()
                .find(|(_, n)| f64::from(*n) > threshold.max(1.0))
                .or_else(|| in_window().next())
                .map_or(window.start, |(b, _)| b)
                * 1000
        }
    };
    let offset = onset_ms.div_euclid(1000) - incident_onset;
    Some(Surge {
        template: i,
        status,
        window_count,
        baseline_count,
        window_rate,
        baseline_rate,
        ratio: (baseline_rate > 0.0).then(|| window_rate / baseline_rate),
        excess,
        onset_ms,
        onset_offset_s: offset,
        onset_match: (-(offset.abs() as f64) / tau).exp(),
        rank: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::correlate::Incident;
    use crate::event::{Level, LogRecord, Origin};
    use crate::templates::Miner;
    use std::borrow::Cow;

    /// (message, seconds) records -> the analysis of an incident 1000..1300 s
    /// with a baseline 0..940 s.
    fn analyse(lines: &[(String, i64)]) -> (TemplateSet, SurgeAnalysis) {
        let mut m = Miner::default();
        for (i, (msg, s)) in lines.iter().enumerate() {
            m.add(&LogRecord {
                ts: s * 1000,
                origin: Origin {
                    input: 0,
                    line: i as u64 + 1,
                },
                level: Level::Info,
                message: Cow::Borrowed(msg),
                ..LogRecord::default()
            });
        }
        let set = TemplateSet::build(&m);
        let a = Analysis {
            incident: Some(Incident {
                onset: 1000,
                recovered: 1300,
                symptoms_start: 1000,
            }),
            baseline: Some(Span::new(0, 940)),
            ..Analysis::default()
        };
        let s = analyze(&set, &a).expect("an incident");
        (set, s)
    }

    fn status_of(
        set: &TemplateSet,
        s: &SurgeAnalysis,
        prefix: &str,
    ) -> Option<(Status, Option<usize>)> {
        let i = set
            .templates
            .iter()
            .position(|t| t.text.starts_with(prefix))?;
        s.of(i).map(|x| (x.status, x.rank))
    }

    #[test]
    fn new_surging_and_steady_cases() {
        let mut lines = Vec::new();
        for s in (0..1300).step_by(10) {
            // Steady: one every 10 s throughout.
            lines.push((format!("heartbeat {s}"), s));
        }
        for s in (0..1300).step_by(100) {
            // Surging: one per 100 s, then ten a second from the onset.
            lines.push((format!("retrying request {s}"), s));
        }
        for s in 1000..1100 {
            lines.push((format!("retrying request {s}"), s));
            lines.push((format!("retrying request {s}"), s));
        }
        for s in 1030..1200 {
            // New: never before the incident, from 30 s after its onset.
            lines.push((format!("pool timed out after {s}ms"), s));
        }
        // New but one line, late: ranks below the flood.
        lines.push(("cache evicted".to_string(), 1250));
        // Seen long before the window, absent from the window: not listed.
        lines.push(("started".to_string(), 5));
        let (set, s) = analyse(&lines);
        assert_eq!(
            status_of(&set, &s, "heartbeat"),
            Some((Status::Steady, None))
        );
        // The surge starts with the incident, the new message 30 s later:
        // both big, the closer onset first.
        assert_eq!(
            status_of(&set, &s, "retrying"),
            Some((Status::Surging, Some(1)))
        );
        assert_eq!(
            status_of(&set, &s, "pool timed out"),
            Some((Status::New, Some(2)))
        );
        assert_eq!(
            status_of(&set, &s, "cache evicted"),
            Some((Status::New, Some(3)))
        );
        assert_eq!(status_of(&set, &s, "started"), None);
        let retry = s.ranked().next().expect("ranked");
        assert_eq!(retry.onset_offset_s, 0, "first bucket above baseline");
        assert!(retry.ratio.is_some_and(|r| r > 10.0));
        let pool = s.ranked().nth(1).expect("second");
        assert_eq!(pool.onset_offset_s, 30);
        assert_eq!(pool.window_count, 170);
        assert_eq!(pool.ratio, None);
        assert!(s.short_history.is_none());
    }

    #[test]
    fn logs_that_begin_at_the_window_cannot_tell_new() {
        let lines: Vec<(String, i64)> = (990..1100).map(|s| (format!("x {s}"), s)).collect();
        let (_, s) = analyse(&lines);
        assert!(s.short_history.is_some());
    }

    #[test]
    fn no_incident_no_analysis() {
        let set = TemplateSet::default();
        assert!(analyze(&set, &Analysis::default()).is_none());
    }
}
