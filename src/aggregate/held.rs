//! Held time per dimension value: how long its requests held a connection
//! or worker for their own work, with the queueing left out.
//! In: the cells of every value of a window, second by second. Out: per
//! value, its served requests times the duration its luckiest tenth of
//! them took, plus what its requests that ended unanswered (the client
//! gave up: 499; the upstream dropped them: 502; the proxy stopped waiting:
//! 504) held beyond an ordinary request.
//!
//! While a pool is exhausted every request's duration grows by its wait, so
//! busy time (the sum of durations) spreads the blame over everyone queued
//! behind the one client holding the connections. The shortest durations a
//! client's served requests had are work, not waiting: some requests always
//! get a connection at once (on a fresh instance, the moment one frees), and
//! a request cannot take less than its own work. The lower tenth rather than
//! the minimum, so that one lucky cache hit does not speak for the rest.
//!
//! A 499 either held a connection (its slow query runs on after the client
//! left, so its duration says when the client gave up, not when the
//! connection was freed) or only waited for one; so did a 502 or 504 (work
//! cut off by a dying worker or the proxy's timeout, or a wait cut off).
//! What tells them apart is the client's served requests: with the wait of their moment taken off
//! (the lower tenth of everyone's served durations then), a slow client's
//! still take seconds where everyone else's take what an ordinary request
//! takes plus the unevenness of the queue. Each 499 is credited that
//! difference: nothing for a client whose requests are ordinary, whatever
//! its timeout (in a leak's queue, a client with a 20-s timeout gives up
//! on thousands of requests that held nothing).

use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;

use super::cell::Cell;
use super::table::Span;

/// The quantile of served durations taken as a request's own work, and of
/// a moment's served durations taken as its wait.
const LOW_QUANTILE: f64 = 0.1;

/// Served requests a value needs for its own figures to stand for its
/// work: below it, its tenth is one or two requests.
const MIN_OWN_SAMPLE: u64 = 30;

/// How many times an ordinary request's held time a client's served
/// requests must hold before its abandoned ones are credited anything.
const OWN_OVER_CROWD: f64 = 2.0;

/// Served requests a moment needs for its lower tenth to mean something:
/// below it, neighbouring seconds are pooled (waits change over seconds).
const MIN_MOMENT_SAMPLE: u64 = 20;

/// How far (seconds each side) a moment is widened to reach
/// [`MIN_MOMENT_SAMPLE`]; beyond it, what there is is used.
const MAX_MOMENT_RADIUS: i64 = 30;

/// One second's cells: (value id, cell).
type Moments<'a> = BTreeMap<i64, Vec<(u32, &'a Cell)>>;

/// Held time (milliseconds) per value id of the cells inside `span`.
pub fn held_ms<'a>(
    cells: impl Iterator<Item = (u32, i64, &'a Cell)>,
    span: Span,
) -> HashMap<u32, f64> {
    let mut by_sec: Moments = BTreeMap::new();
    for (id, s, c) in cells {
        if span.contains(s) && (c.ok_timed > 0 || c.cut_timed > 0) {
            by_sec.entry(s).or_default().push((id, c));
        }
    }
    // The service's lower tenth over everyone's served requests: its
    // quickest work, which is no wait.
    let mut all: Vec<(u32, u32)> = by_sec
        .values()
        .flatten()
        .filter(|(_, c)| c.ok_timed > 0)
        .map(|(_, c)| (c.ok_floor_us, c.ok_timed))
        .collect();
    let service = lower_quantile(&mut all);
    let mut held = served_ms(&by_sec, service);
    for (id, ms) in abandoned_ms(&by_sec, service) {
        *held.entry(id).or_default() += ms;
    }
    held
}

/// Served requests times the value's own lower tenth of served durations;
/// `service` (the service's, microseconds) for a value with too few
/// requests to speak for itself.
fn served_ms(by_sec: &Moments, service: f64) -> HashMap<u32, f64> {
    // Per value: (shortest served duration of a second, served requests).
    let mut floors: HashMap<u32, Vec<(u32, u32)>> = HashMap::default();
    for (id, c) in by_sec.values().flatten() {
        if c.ok_timed > 0 {
            floors
                .entry(*id)
                .or_default()
                .push((c.ok_floor_us, c.ok_timed));
        }
    }
    floors
        .into_iter()
        .map(|(id, mut f)| {
            let n: u64 = f.iter().map(|e| u64::from(e.1)).sum();
            let own = lower_quantile(&mut f);
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

/// What each value's abandoned requests held beyond an ordinary request.
fn abandoned_ms(by_sec: &Moments, service: f64) -> HashMap<u32, f64> {
    if !by_sec.values().flatten().any(|(_, c)| c.cut_timed > 0) {
        return HashMap::default();
    }
    let waits = waits_us(by_sec, service);
    // Per second: everyone's served time beyond the wait, and requests.
    let mut moment: HashMap<i64, (f64, u64)> = HashMap::default();
    for (s, row) in by_sec {
        let wait = waits.get(s).copied().unwrap_or(0.0);
        let e = moment.entry(*s).or_default();
        for (_, c) in row.iter().filter(|(_, c)| c.ok_timed > 0) {
            e.0 += beyond_wait(c, wait);
            e.1 += u64::from(c.ok_timed);
        }
    }
    // Per value: its served time beyond the wait, what the rest of the
    // same seconds' requests held beyond it for as many requests, and its
    // requests. The same seconds: a client whose requests fall mostly where
    // the wait estimate lags (the queue building up) must not look slow
    // against a crowd served mostly where it does not.
    let mut beyond: HashMap<u32, (f64, f64, u64)> = HashMap::default();
    for (s, row) in by_sec {
        let wait = waits.get(s).copied().unwrap_or(0.0);
        let (all_us, all_n) = moment.get(s).copied().unwrap_or_default();
        for (id, c) in row.iter().filter(|(_, c)| c.ok_timed > 0) {
            let own_us = beyond_wait(c, wait);
            let crowd_n = all_n - u64::from(c.ok_timed);
            if crowd_n == 0 {
                continue;
            }
            let crowd = (all_us - own_us).max(0.0) / crowd_n as f64;
            let e = beyond.entry(*id).or_default();
            e.0 += own_us;
            e.1 += f64::from(c.ok_timed) * crowd;
            e.2 += u64::from(c.ok_timed);
        }
    }
    let mut out: HashMap<u32, f64> = HashMap::default();
    for (id, c) in by_sec.values().flatten() {
        if c.cut_timed == 0 {
            continue;
        }
        // Too few served requests of its own: nothing shows what it held.
        let Some(&(us, crowd_us, n)) = beyond.get(id).filter(|e| e.2 >= MIN_OWN_SAMPLE) else {
            continue;
        };
        let own = us / n as f64;
        let crowd = crowd_us / n as f64;
        let n_cut = f64::from(c.cut_timed);
        // Never more than the request lasted from the client's side.
        let lasted = c.cut_busy_us as f64 / n_cut;
        // Only a client whose served requests hold far longer than the
        // crowd's: a few tens of ms more is the unevenness of the queue.
        let extra = if own >= OWN_OVER_CROWD * crowd {
            (own - crowd).min(lasted)
        } else {
            0.0
        };
        *out.entry(*id).or_default() += n_cut * extra / 1000.0;
    }
    out
}

/// A cell's served time (microseconds) beyond `wait` per request.
fn beyond_wait(c: &Cell, wait: f64) -> f64 {
    (c.ok_busy_us as f64 - f64::from(c.ok_timed) * wait).max(0.0)
}

/// The wait (microseconds) of each second: its pooled lower tenth of
/// served durations less `quickest`, the lower tenth over the whole span
/// (the work of the quickest requests, which is no wait).
fn waits_us(by_sec: &Moments, quickest: f64) -> HashMap<i64, f64> {
    // Per second, its cells' (shortest served duration, served requests):
    // each cell's shortest stands for all its requests, so the quantile
    // errs short and the wait is never overstated.
    let floors: Vec<(i64, Vec<(u32, u32)>)> = by_sec
        .iter()
        .map(|(s, row)| {
            let f = row
                .iter()
                .filter(|(_, c)| c.ok_timed > 0)
                .map(|(_, c)| (c.ok_floor_us, c.ok_timed))
                .collect();
            (*s, f)
        })
        .collect();
    let mut waits = HashMap::with_capacity_and_hasher(floors.len(), Default::default());
    let mut pool: Vec<(u32, u32)> = Vec::new();
    for (i, (s, own)) in floors.iter().enumerate() {
        pool.clear();
        pool.extend_from_slice(own);
        let mut n: u64 = own.iter().map(|e| u64::from(e.1)).sum();
        // Widen to the neighbouring seconds, nearest first, until the
        // moment has enough served requests.
        let (mut lo, mut hi) = (i, i);
        while n < MIN_MOMENT_SAMPLE {
            let near = |j: usize| floors.get(j).map(|f| (j, f));
            let before = lo
                .checked_sub(1)
                .and_then(near)
                .filter(|(_, f)| s - f.0 <= MAX_MOMENT_RADIUS);
            let after = near(hi + 1).filter(|(_, f)| f.0 - s <= MAX_MOMENT_RADIUS);
            let (next, floor) = match (before, after) {
                (Some(b), Some(a)) if s - b.1 .0 <= a.1 .0 - s => b,
                (Some(b), None) => b,
                (_, Some(a)) => a,
                (None, None) => break,
            };
            if next < lo {
                lo = next;
            } else {
                hi = next;
            }
            pool.extend_from_slice(&floor.1);
            n += floor.1.iter().map(|e| u64::from(e.1)).sum::<u64>();
        }
        waits.insert(*s, (lower_quantile(&mut pool) - quickest).max(0.0));
    }
    waits
}

/// The duration (microseconds) below which [`LOW_QUANTILE`] of the
/// requests fall, each entry's duration standing for all its requests
/// (so the figure errs short: held time is never overstated).
fn lower_quantile(f: &mut [(u32, u32)]) -> f64 {
    let n: u64 = f.iter().map(|e| u64::from(e.1)).sum();
    if n == 0 {
        return 0.0;
    }
    f.sort_unstable();
    let want = ((n as f64 * LOW_QUANTILE).ceil() as u64).max(1);
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

    /// `n` served requests of `ms` each (the same duration: one cell).
    fn served(ms: u64, n: u32) -> Cell {
        Cell {
            ok_timed: n,
            ok_floor_us: (ms * 1000) as u32,
            ok_busy_us: ms * 1000 * u64::from(n),
            ..Cell::default()
        }
    }

    /// ... and `n` the client gave up on after `ms`.
    fn with_cut(mut c: Cell, ms: u64, n: u32) -> Cell {
        c.cut_timed = n;
        c.cut_busy_us = ms * 1000 * u64::from(n);
        c
    }

    fn held(cells: &[(u32, i64, Cell)], span: Span) -> HashMap<u32, f64> {
        held_ms(cells.iter().map(|(i, s, c)| (*i, *s, c)), span)
    }

    #[test]
    fn queueing_is_left_out_and_own_work_kept() {
        // `fast` is served in 10 ms at best, waits up to 20 s at worst;
        // `slow` never takes less than 5 s of its own.
        let mut cells = Vec::new();
        for s in 0..100 {
            let wait = if s % 3 == 0 { 10 } else { 20_000 };
            cells.push((1, s, served(wait, 10)));
            cells.push((2, s, served(5_000 + (s as u64 % 7) * 100, 1)));
        }
        let h = held(&cells, Span::new(0, 100));
        assert_eq!(h[&1], 1000.0 * 10.0);
        assert_eq!(h[&2], 100.0 * 5_000.0);
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
        let h = held(&cells, Span::new(0, 100));
        assert_eq!(h[&2], 13.0 * 20.0);
    }

    /// In a queue nobody's work explains (a leak), a client whose 20-s
    /// timeout cut its waits short held nothing more with the requests it
    /// gave up on: its served ones are as quick as anyone's once the wait
    /// of their moment is taken off.
    #[test]
    fn a_client_that_gave_up_while_waiting_is_credited_nothing_more() {
        let mut cells = Vec::new();
        for s in 0..100 {
            cells.push((1, s, served(18_010, 30)));
            cells.push((2, s, with_cut(served(18_010, 2), 20_000, 8)));
        }
        for s in 100..200 {
            cells.push((1, s, served(10, 30)));
            cells.push((2, s, served(10, 2)));
        }
        let h = held(&cells, Span::new(0, 200));
        assert_eq!(h[&2], 400.0 * 10.0);
    }

    /// A client whose slow queries hold connections for 6 s beyond the
    /// queue, and which gives up on most of them at 10 s: each abandoned
    /// one is credited what its served ones held beyond everyone else's.
    #[test]
    fn slow_queries_the_client_gave_up_on_are_credited() {
        let mut cells = Vec::new();
        for s in 0..100 {
            cells.push((1, s, served(2_010, 40)));
            cells.push((2, s, with_cut(served(8_000, 1), 10_000, 4)));
        }
        for s in 100..200 {
            cells.push((1, s, served(10, 40)));
        }
        let h = held(&cells, Span::new(0, 200));
        // A 2-s wait: its served ones held 6 s of their own where the
        // crowd's held 10 ms; each abandoned one 5.99 s more than ordinary.
        assert_eq!(h[&2], 100.0 * 8_000.0 + 400.0 * 5_990.0);
        assert_eq!(h[&1], 8_000.0 * 10.0);
    }

    /// A queue building up: each second's requests waited anywhere from
    /// 1 to 11 s, so the lower tenth leaves most of the wait in what they
    /// held. A client served mostly then, and giving up later once the
    /// queue is full, held no more than anyone served beside it.
    #[test]
    fn a_client_served_while_the_queue_built_is_compared_with_its_own_seconds() {
        let spread = |floor_ms: u64, mean_ms: u64, n: u32| Cell {
            ok_timed: n,
            ok_floor_us: (floor_ms * 1000) as u32,
            ok_busy_us: mean_ms * 1000 * u64::from(n),
            ..Cell::default()
        };
        let mut cells = Vec::new();
        for s in 0..50 {
            cells.push((1, s, spread(1_000, 6_000, 30)));
            cells.push((2, s, spread(1_000, 6_000, 2)));
        }
        for s in 50..200 {
            cells.push((1, s, served(60_000, 30)));
            cells.push((2, s, with_cut(Cell::default(), 60_000, 3)));
        }
        let h = held(&cells, Span::new(0, 200));
        // Its served ones at the service's floor; its 499s nothing.
        assert_eq!(h[&2], 100.0 * 1_000.0);
    }

    /// At one request a second, a slow request alone in its second is not
    /// its own wait: the moment is widened until it holds enough requests.
    #[test]
    fn sparse_traffic_pools_neighbouring_seconds() {
        let mut cells = Vec::new();
        for s in 0..200 {
            if s % 10 == 0 {
                cells.push((2, s, served(5_000, 1)));
            } else {
                cells.push((1, s, served(10, 1)));
            }
        }
        let by_sec: Moments = cells.iter().map(|(i, s, c)| (*s, vec![(*i, c)])).collect();
        let waits = waits_us(&by_sec, 10_000.0);
        assert!(waits.values().all(|w| *w == 0.0), "{waits:?}");
    }

    #[test]
    fn a_client_with_too_few_served_is_credited_nothing_for_its_499s() {
        let mut cells = Vec::new();
        for s in 0..50 {
            cells.push((1, s, served(10, 30)));
            let c = if s == 0 {
                served(9_000, 1)
            } else {
                Cell::default()
            };
            cells.push((2, s, with_cut(c, 10_000, 3)));
        }
        let h = held(&cells, Span::new(0, 50));
        assert_eq!(h[&2], 10.0);
    }

    #[test]
    fn only_the_span_counts() {
        let cells = [(1, 5, served(30, 2)), (1, 50, served(1, 2))];
        let h = held(&cells, Span::new(0, 10));
        assert_eq!(h[&1], 60.0);
    }
}
