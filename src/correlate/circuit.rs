//! Circuit breakers around the incident, from the application's log lines
//! that `parsers/signals.json` marks `circuit_opened` and `circuit_closed`.
//! In: the aggregates and the seconds near the incident. Out: the first
//! opening there (with the line that says so, how many such lines and on
//! how many instances), and the first closing after it.
//!
//! A breaker that opens cuts every caller off at once: the clients it drops
//! come back together (seed 004: "when circuit breakers triggered,
//! aggressive websocket reconnect logic initiated on every connected client
//! at once"), so the opening belongs on the timeline beside the herd.
//!
//! ```text
//! 10:23:29 "CircuitBreaker 'db' changed state from CLOSED to OPEN" (2 instances)
//! 10:26:31 "CircuitBreaker 'db' changed state from HALF_OPEN to CLOSED"
//!   -> Circuit { opened: 10:23:29, lines: 2, instances: 2, closed: Some(10:26:31) }
//! ```

use super::signal_lines::signal_lines;
use crate::aggregate::{Aggregates, Span};
use crate::event::{Origin, Signal};

/// A breaker's first opening near the incident.
#[derive(Clone, Debug, PartialEq)]
pub struct Circuit {
    /// Absolute second of the first opening line.
    pub opened: i64,
    pub origin: Origin,
    /// The first opening line's message, as logged.
    pub message: String,
    /// Lines saying a breaker opened (or refused a call while open) near the incident.
    pub lines: u32,
    /// Instances that logged them (0 when the lines name none).
    pub instances: usize,
    /// The first closing after the opening: second and line.
    pub closed: Option<(i64, Origin)>,
    /// Opening lines after that closing (the breaker opened again), and the
    /// second of the last.
    pub reopened: u32,
    pub last_opened: i64,
}

/// The first opening in `near`, if a breaker opened there.
pub fn circuit(agg: &Aggregates, near: Span) -> Option<Circuit> {
    let opened = signal_lines(agg, Signal::CircuitOpened, near)?;
    let closed = agg
        .signal_counts(Signal::CircuitClosed)
        .into_iter()
        .filter(|(_, s, _)| *s >= opened.first && *s < near.end)
        .map(|(_, s, c)| (s, c.first))
        .min();
    let again: u32 = opened
        .seconds
        .iter()
        .filter(|(s, _)| closed.is_some_and(|(c, _)| *s > c))
        .map(|(_, n)| n)
        .sum();
    Some(Circuit {
        opened: opened.first,
        origin: opened.origin,
        message: opened.message,
        lines: opened.lines,
        instances: opened.instances,
        closed,
        reopened: again,
        last_opened: opened.last,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(agg: &mut Aggregates, s: i64, inst: &str, message: &str, signal: Signal) {
        crate::correlate::signal_lines::signal_log(agg, s, inst, message, signal);
    }

    /// One opening on two instances, a close after it; an opening long
    /// before the incident is not its breaker.
    #[test]
    fn the_first_opening_near_the_incident_and_the_close_after_it() {
        let mut agg = Aggregates::new();
        let open = "CircuitBreaker 'db' changed state from CLOSED to OPEN";
        let close = "CircuitBreaker 'db' changed state from HALF_OPEN to CLOSED";
        log(&mut agg, 100, "api-1", open, Signal::CircuitOpened);
        log(&mut agg, 100, "api-1", close, Signal::CircuitClosed);
        log(&mut agg, 1_000, "api-2", open, Signal::CircuitOpened);
        log(&mut agg, 1_001, "api-1", open, Signal::CircuitOpened);
        log(&mut agg, 1_200, "api-1", close, Signal::CircuitClosed);
        agg.finish();
        let c = circuit(&agg, Span::new(900, 2_000)).expect("an opening");
        assert_eq!((c.opened, c.lines, c.instances), (1_000, 2, 2));
        assert_eq!(c.message, open);
        assert_eq!(c.closed.map(|x| x.0), Some(1_200));
        assert_eq!((c.reopened, c.last_opened), (0, 1_001));
        assert_eq!(circuit(&agg, Span::new(1_500, 2_000)), None);
        // Three opening lines after it closed, two of them in one second.
        let mut agg = agg;
        log(&mut agg, 1_300, "api-1", open, Signal::CircuitOpened);
        log(&mut agg, 1_300, "api-2", open, Signal::CircuitOpened);
        log(&mut agg, 1_450, "api-2", open, Signal::CircuitOpened);
        agg.finish();
        let c = circuit(&agg, Span::new(900, 2_000)).expect("an opening");
        assert_eq!((c.reopened, c.last_opened, c.lines), (3, 1_450, 5));
    }
}
