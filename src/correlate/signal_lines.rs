//! The first log lines of one signal near the incident, quoted: what a
//! breaker or a pool said in its own words, how often, on how many
//! instances. In: the aggregates, a signal and the seconds to look in.
//! Out: [`SignalLines`], or None where no such line was logged there.
//!
//! ```text
//! 18:18:31 api-1 "Connection leak detection triggered for ..."
//! 18:19:02 api-2 "Connection leak detection triggered for ..."
//!   -> SignalLines { first: 18:18:31, lines: 2, instances: 2, last: 18:19:02 }
//! ```

use crate::aggregate::{Aggregates, Span};
use crate::event::{Origin, Signal};

#[derive(Clone, Debug, PartialEq)]
pub struct SignalLines {
    /// Absolute second of the first line.
    pub first: i64,
    pub origin: Origin,
    /// The first line's message, as logged.
    pub message: String,
    /// Lines in the span.
    pub lines: u32,
    /// Instances that logged them (0 when the lines name none).
    pub instances: usize,
    /// Absolute second of the last line.
    pub last: i64,
    /// Every second with such lines, and their count there.
    pub seconds: Vec<(i64, u32)>,
}

/// The lines of `signal` logged in `near`.
pub fn signal_lines(agg: &Aggregates, signal: Signal, near: Span) -> Option<SignalLines> {
    let found: Vec<_> = agg
        .signal_counts(signal)
        .into_iter()
        .filter(|(_, s, _)| near.contains(*s))
        .collect();
    let (_, first, c) = found.iter().min_by_key(|(_, s, c)| (*s, c.first))?;
    let (first, origin) = (*first, c.first);
    let mut instances: Vec<&str> = found
        .iter()
        .map(|(i, _, _)| i.as_str())
        .filter(|i| !i.is_empty())
        .collect();
    instances.sort_unstable();
    instances.dedup();
    // The line itself where it is the earliest the logs kept; else the
    // first second's origin speaks for it, quoted by the source.
    let message = agg
        .signal_quotes(signal)
        .into_iter()
        .map(|(_, q)| q)
        .filter(|q| q.ts.div_euclid(1000) == first)
        .min_by_key(|q| (q.ts, q.origin))
        .map(|q| q.message)
        .unwrap_or_default();
    let mut seconds: Vec<(i64, u32)> = Vec::new();
    for (_, s, c) in &found {
        match seconds.iter_mut().find(|(t, _)| t == s) {
            Some(e) => e.1 += c.count,
            None => seconds.push((*s, c.count)),
        }
    }
    seconds.sort_unstable();
    Some(SignalLines {
        first,
        origin,
        message,
        lines: found.iter().map(|(_, _, c)| c.count).sum(),
        instances: instances.len(),
        last: found.iter().map(|(_, s, _)| *s).max().unwrap_or(first),
        seconds,
    })
}

/// How many lines and where, in a few words: "" for one line, " (39 such
/// lines on 3 instances)" for more.
pub fn how_many(lines: u32, instances: usize) -> String {
    match (lines, instances) {
        (1, _) => String::new(),
        (n, 0 | 1) => format!(" ({n} such lines)"),
        (n, i) => format!(" ({n} such lines on {i} instances)"),
    }
}

/// A log line with a signal, for the tests of the stages that read them.
#[cfg(test)]
pub(crate) fn signal_log(agg: &mut Aggregates, s: i64, inst: &str, message: &str, signal: Signal) {
    use crate::event::{Event, Level, LogRecord};
    agg.add(Event::Log(LogRecord {
        ts: s * 1000,
        origin: Origin {
            input: 0,
            line: s as u64,
        },
        level: Level::Warn,
        message: message.into(),
        instance: Some(inst.into()),
        tenant: None,
        signal: Some(signal),
        version: None,
    }));
}
