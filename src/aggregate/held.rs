//! Held time per dimension value: how long its served requests held a
//! connection or worker for their own work, with the queueing left out.
//! In: the value's cells of a window. Out: served requests times the
//! duration its luckiest tenth of them took.
//!
//! While a pool is exhausted every request's duration grows by its wait, so
//! busy time (the sum of durations) spreads the blame over everyone queued
//! behind the one client holding the connections. The shortest durations a
//! client's served requests had are work, not waiting: some requests always
//! get a connection at once (on a fresh instance, the moment one frees), and
//! a request cannot take less than its own work. The lower tenth rather than
//! the minimum, so that one lucky cache hit does not speak for the rest.

use std::collections::HashMap;

use super::cell::Cell;
use super::table::Span;

/// The quantile of served durations taken as a request's own work.
const OWN_WORK_QUANTILE: f64 = 0.1;

/// Held time (milliseconds) per value id of the cells inside `span`.
pub fn held_ms<'a>(
    cells: impl Iterator<Item = (u32, i64, &'a Cell)>,
    span: Span,
) -> HashMap<u32, f64> {
    // Per value: (shortest served duration of a second, served requests).
    let mut floors: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
    for (id, s, c) in cells {
        if c.ok_timed > 0 && span.contains(s) {
            floors
                .entry(id)
                .or_default()
                .push((c.ok_floor_us, c.ok_timed));
        }
    }
    // The service's own-work floor over everyone's served requests: what
    // a value with too few requests to speak for itself is taken at.
    let mut all: Vec<(u32, u32)> = floors.values().flatten().copied().collect();
    let n_all: u64 = all.iter().map(|e| u64::from(e.1)).sum();
    let service = lower_quantile(&mut all, n_all);
    floors
        .into_iter()
        .map(|(id, mut f)| {
            let n: u64 = f.iter().map(|e| u64::from(e.1)).sum();
            let own = lower_quantile(&mut f, n);
            // A handful of requests that all waited in a queue has a high
            // "lowest tenth" that is waiting, not work.
            let floor = if n < MIN_OWN_SAMPLE {
                own.min(service)
            } else {
                own
            };
            (id, n as f64 * floor / 1000.0)
        })
        .collect()
}

/// Served requests a value needs for its own lowest tenth to stand for
/// its work: below it, its tenth is one or two requests.
const MIN_OWN_SAMPLE: u64 = 30;

/// The duration (microseconds) below which [`OWN_WORK_QUANTILE`] of the
/// requests fall, each second's shortest standing for all its requests
/// (so the figure errs short: held time is never overstated).
fn lower_quantile(f: &mut [(u32, u32)], n: u64) -> f64 {
    f.sort_unstable();
    let want = ((n as f64 * OWN_WORK_QUANTILE).ceil() as u64).max(1);
    let mut seen = 0u64;
    for (us, k) in f.iter() {
        seen += u64::from(*k);
        if seen >= want {
            return f64::from(*us);
        }
    }
    f.last().map_or(0.0, |e| f64::from(e.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served(floor_ms: u32, n: u32) -> Cell {
        Cell {
            ok_timed: n,
            ok_floor_us: floor_ms * 1000,
            ..Cell::default()
        }
    }

    #[test]
    fn queueing_is_left_out_and_own_work_kept() {
        // `fast` is served in 10 ms at best, waits up to 20 s at worst;
        // `slow` never takes less than 5 s of its own.
        let mut cells = Vec::new();
        for s in 0..100 {
            let wait = if s % 3 == 0 { 10 } else { 20_000 };
            cells.push((1, s, served(wait, 10)));
            cells.push((2, s, served(5_000 + (s as u32 % 7) * 100, 1)));
        }
        let held = held_ms(cells.iter().map(|(i, s, c)| (*i, *s, c)), Span::new(0, 100));
        assert_eq!(held[&1], 1000.0 * 10.0);
        assert_eq!(held[&2], 100.0 * 5_000.0);
    }

    /// Twelve requests that each waited 14 s in a queue and were served do
    /// not speak for their own work: they are taken at the service's floor.
    #[test]
    fn a_handful_of_queued_requests_is_taken_at_the_services_floor() {
        let mut cells = Vec::new();
        for s in 0..100 {
            cells.push((1, s, served(20, 10)));
            if s % 8 == 0 {
                cells.push((2, s, served(14_000, 1)));
            }
        }
        let held = held_ms(cells.iter().map(|(i, s, c)| (*i, *s, c)), Span::new(0, 100));
        assert_eq!(held[&2], 13.0 * 20.0);
    }

    #[test]
    fn only_the_span_counts() {
        let cells = [(1, 5, served(30, 2)), (1, 50, served(1, 2))];
        let held = held_ms(cells.iter().map(|(i, s, c)| (*i, *s, c)), Span::new(0, 10));
        assert_eq!(held[&1], 60.0);
    }
}
