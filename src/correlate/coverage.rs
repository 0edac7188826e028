//! Where the data is: the stretch of time the inputs actually cover, as
//! opposed to the first and last timestamp anywhere in them.
//!
//! A `kubectl logs` dump or a Loki export of a long-running pod holds its
//! start-up lines from days or weeks before the export's hours; a journal
//! keeps a unit's last restart from last month. Taken at face value those
//! few lines stretch a two-hour export into a month, and the hours between
//! hold no data at all: no request, no sample, no log. Nothing there is an
//! outage; it is simply not covered.
//!
//! In: events per minute over the whole data. Out: the covered span, the
//! contiguous run of activity (split where no event of any kind arrived for
//! longer than [`gap_for`]) that holds the most events, and how many events
//! lie outside it.
//!
//! ```text
//! 3 start-up lines on 2025-11-26, 200,000 requests 2025-12-10 16:04-18:09
//!   -> covered 16:04-18:09, 3 events outside
//! ```

use std::collections::BTreeMap;

use crate::aggregate::Span;

/// What [`covered`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coverage {
    pub span: Span,
    /// Events outside `span`, and the earliest and latest of them (seconds).
    pub outside: u64,
    pub outside_range: Option<(i64, i64)>,
}

/// The silence that separates two runs of activity: no event of any kind
/// (request, log record, metric sample, orchestrator event) for this long.
/// An export that monitors a service has metric samples every minute or so
/// and requests or logs far more often; a silence of six hours, or of a
/// quarter of the run it would split off, is not a quiet period of the same
/// recording but data from another time.
pub fn gap_for(run_len_s: i64) -> i64 {
    (run_len_s / 4).max(6 * 3600)
}

/// The covered span (see the module doc). `minutes` is events per minute
/// (minute index = seconds / 60); `data` is the first and last event time.
pub fn covered(minutes: &BTreeMap<i64, u64>, data: Span) -> Coverage {
    // Runs of minutes separated by silences; each run (first minute, last
    // minute, events).
    let mut runs: Vec<(i64, i64, u64)> = Vec::new();
    for (&m, &n) in minutes {
        if n == 0 {
            continue;
        }
        match runs.last_mut() {
            Some(r) if (m - r.1) * 60 <= gap_for((r.1 - r.0) * 60) => {
                r.1 = m;
                r.2 += n;
            }
            _ => runs.push((m, m, n)),
        }
    }
    let Some(&(first, last, events)) = runs.iter().max_by(|a, b| a.2.cmp(&b.2).then(a.0.cmp(&b.0)))
    else {
        return Coverage {
            span: data,
            outside: 0,
            outside_range: None,
        };
    };
    if runs.len() == 1 {
        return Coverage {
            span: data,
            outside: 0,
            outside_range: None,
        };
    }
    let span = Span::new(
        (first * 60).max(data.start),
        ((last + 1) * 60).min(data.end),
    );
    let total: u64 = runs.iter().map(|r| r.2).sum();
    let others = runs.iter().filter(|r| (r.0, r.1) != (first, last));
    let lo = others.clone().map(|r| r.0 * 60).min();
    let hi = others.map(|r| (r.1 + 1) * 60).max();
    Coverage {
        span,
        outside: total - events,
        outside_range: lo.zip(hi),
    }
}

/// The seconds of `span` between the first and the last second that saw a
/// request: outside it the access logs say nothing, so no request missing
/// there is a failure.
pub fn request_coverage(requests: &[u32]) -> std::ops::Range<usize> {
    let first = requests.iter().position(|r| *r > 0);
    let last = requests.iter().rposition(|r| *r > 0);
    match (first, last) {
        (Some(a), Some(b)) => a..b + 1,
        _ => 0..0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minutes(spec: &[(i64, i64, u64)]) -> BTreeMap<i64, u64> {
        let mut m = BTreeMap::new();
        for &(from, to, n) in spec {
            for i in from..to {
                m.insert(i, n);
            }
        }
        m
    }

    #[test]
    fn start_up_lines_from_weeks_before_are_outside_the_covered_span() {
        // Three lines two weeks before, two hours of traffic.
        let day = 24 * 60;
        let m = minutes(&[
            (0, 1, 1),
            (3 * day, 3 * day + 1, 2),
            (14 * day, 14 * day + 120, 500),
        ]);
        let data = Span::new(0, (14 * day + 120) * 60);
        let c = covered(&m, data);
        assert_eq!(c.span, Span::new(14 * day * 60, (14 * day + 120) * 60));
        assert_eq!(c.outside, 3);
        assert_eq!(c.outside_range, Some((0, (3 * day + 1) * 60)));
    }

    #[test]
    fn a_quiet_night_within_a_recording_does_not_split_it() {
        // Three days with four silent hours each night.
        let mut spec = Vec::new();
        for d in 0..3 {
            spec.push((d * 1440 + 5 * 60, d * 1440 + 25 * 60, 100));
        }
        let m = minutes(&spec);
        let data = Span::new(5 * 3600, (2 * 1440 + 25 * 60) * 60);
        let c = covered(&m, data);
        assert_eq!(c.span, data);
        assert_eq!(c.outside, 0);
    }

    #[test]
    fn the_run_with_most_events_wins() {
        let m = minutes(&[(0, 60, 10), (2000, 2060, 1000)]);
        let c = covered(&m, Span::new(0, 2060 * 60));
        assert_eq!(c.span, Span::new(2000 * 60, 2060 * 60));
        assert_eq!(c.outside, 600);
    }

    #[test]
    fn request_coverage_runs_from_the_first_to_the_last_request() {
        assert_eq!(request_coverage(&[0, 0, 3, 0, 5, 0]), 2..5);
        assert_eq!(request_coverage(&[0, 0]), 0..0);
    }
}
