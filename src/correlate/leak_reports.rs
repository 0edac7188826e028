//! A pool's own reports of leaked connections (`parsers/signals.json`
//! `connection_leak`: HikariCP's leak detection, Agroal, Tomcat's and
//! DBCP's abandoned connections, c3p0's overdue resources, SQLAlchemy's
//! connections collected unreturned). In: the aggregates and the incident
//! window. Out: the lines from [`LOOKBACK_S`] before the window to its end,
//! where none came in the [`LOOKBACK_S`] before those: a threshold that
//! reports on an ordinary day says nothing new.
//!
//! A leak shipped in a release shows in these lines minutes before the pool
//! runs dry (deploy-leak draw 2501012: 2.5 minutes before the onset), the
//! one cause a pool names itself.
//!
//! ```text
//! window 18:20:57-18:32:49, leak lines 18:18:31.. (none 17:20-17:50)
//!   -> Some(SignalLines { first: 18:18:31, .. })
//! ```

use super::signal_lines::{signal_lines, SignalLines};
use crate::aggregate::{Aggregates, Span};
use crate::event::Signal;

/// How far before the window a leak report belongs to it: a leak fills a
/// pool over minutes to tens of minutes.
pub const LOOKBACK_S: i64 = 1800;

pub fn leak_reports(agg: &Aggregates, window: Span) -> Option<SignalLines> {
    let from = window.start - LOOKBACK_S;
    let routine = signal_lines(
        agg,
        Signal::ConnectionLeak,
        Span::new(from - LOOKBACK_S, from),
    );
    if routine.is_some() {
        return None;
    }
    signal_lines(agg, Signal::ConnectionLeak, Span::new(from, window.end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leak(agg: &mut Aggregates, s: i64, inst: &str) {
        let line = "Connection leak detection triggered for conn1 on thread exec-1";
        crate::correlate::signal_lines::signal_log(agg, s, inst, line, Signal::ConnectionLeak);
    }

    /// Reports minutes before the window and in it are the leak's; the
    /// same reports on an ordinary hour before make them routine.
    #[test]
    fn new_reports_before_the_window_belong_to_it_routine_ones_do_not() {
        let window = Span::new(10_000, 11_000);
        let mut agg = Aggregates::new();
        leak(&mut agg, 9_850, "api-1");
        leak(&mut agg, 9_900, "api-2");
        leak(&mut agg, 10_100, "api-1");
        agg.finish();
        let l = leak_reports(&agg, window).expect("reports");
        assert_eq!(
            (l.first, l.lines, l.instances, l.last),
            (9_850, 3, 2, 10_100)
        );
        let mut agg = agg;
        leak(&mut agg, 6_500, "api-1");
        agg.finish();
        assert_eq!(leak_reports(&agg, window), None);
        // Nothing at all: nothing said.
        let mut empty = Aggregates::new();
        empty.finish();
        assert_eq!(leak_reports(&empty, window), None);
    }
}
