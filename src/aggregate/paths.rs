//! Which raw paths each tenant requested, and when: what retry detection
//! needs to tell re-sent work (a path asked for again after a failure) from
//! new work.
//!
//! Raw paths have no useful bound (an id in every one), so the set is
//! bounded by design: while it holds at most [`CAP`] (tenant, path) pairs it
//! keeps every one; past that it keeps only the paths whose hash falls in a
//! 1-in-2^level sample, raising the level until the sample fits again
//! (adaptive distinct sampling). Counts are then scaled back up, and the
//! report says the figures are estimates. Which paths are kept depends only
//! on their hash, so the sample is the same however the input was split
//! across threads.
//!
//! In: (tenant id, path hash, second) per request. Out: per tenant, the
//! paths it sent in a window and how many of those it had sent before.

use rustc_hash::FxHashMap as HashMap;

/// Pairs kept before sampling starts: a table that stays in cache.
pub const CAP: usize = 1 << 16;

/// Where a path was requested: its first and last second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathSeen {
    pub first: i64,
    pub last: i64,
}

#[derive(Debug, Default)]
pub struct PathSample {
    /// Paths are kept when the top `level` bits of their mixed hash are 0.
    level: u32,
    seen: HashMap<(u32, u64), PathSeen>,
}

/// Spread the hash so its top bits are uniform whatever hash made it.
fn mixed(path_hash: u64) -> u64 {
    (path_hash ^ (path_hash >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9)
}

fn kept_at(level: u32, path_hash: u64) -> bool {
    level == 0 || mixed(path_hash) >> (64 - level.min(63)) == 0
}

impl PathSample {
    /// One in how many paths is kept (1 while everything fits).
    pub fn rate(&self) -> u64 {
        1 << self.level
    }

    /// Count a request for `path_hash` by `tenant` in second `sec`.
    pub fn add(&mut self, tenant: u32, path_hash: u64, sec: i64) {
        if !kept_at(self.level, path_hash) {
            return;
        }
        self.put(
            (tenant, path_hash),
            PathSeen {
                first: sec,
                last: sec,
            },
        );
    }

    fn put(&mut self, key: (u32, u64), p: PathSeen) {
        let e = self.seen.entry(key).or_insert(p);
        e.first = e.first.min(p.first);
        e.last = e.last.max(p.last);
        if self.seen.len() > CAP {
            self.raise();
        }
    }

    /// Halve the sample until it fits.
    fn raise(&mut self) {
        while self.seen.len() > CAP && self.level < 63 {
            self.level += 1;
            let level = self.level;
            self.seen.retain(|&(_, h), _| kept_at(level, h));
        }
    }

    /// Fold in another sample whose tenant ids `id` maps to this one's.
    pub fn merge(&mut self, other: PathSample, id: impl Fn(u32) -> u32) {
        if other.level > self.level {
            self.level = other.level;
            let level = self.level;
            self.seen.retain(|&(_, h), _| kept_at(level, h));
        }
        for ((t, h), p) in other.seen {
            if kept_at(self.level, h) {
                self.put((id(t), h), p);
            }
        }
    }

    /// A tenant's distinct paths requested in `[start, end)`, and how many
    /// of those it had requested before `start`; scaled by the sampling rate.
    pub fn resent(&self, tenant: u32, start: i64, end: i64) -> (u64, u64) {
        let mut in_window = 0u64;
        let mut resent = 0u64;
        for (&(t, _), p) in &self.seen {
            if t != tenant || p.last < start || p.first >= end {
                continue;
            }
            in_window += 1;
            if p.first < start {
                resent += 1;
            }
        }
        (in_window * self.rate(), resent * self.rate())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_sets_are_exact() {
        let mut s = PathSample::default();
        for (h, sec) in [(1, 10), (2, 10), (1, 20), (3, 20)] {
            s.add(7, h, sec);
        }
        assert_eq!(s.rate(), 1);
        // In [15, 30): paths 1 (seen at 10 too) and 3.
        assert_eq!(s.resent(7, 15, 30), (2, 1));
        assert_eq!(s.resent(8, 15, 30), (0, 0));
    }

    /// Past the cap the sample stays bounded, its estimate stays close, and
    /// two halves merged give the sample of the whole.
    #[test]
    fn large_sets_are_sampled_and_merge_to_the_whole() {
        let n: u64 = 4 * CAP as u64;
        let hash = |i: u64| i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut whole = PathSample::default();
        let (mut a, mut b) = (PathSample::default(), PathSample::default());
        for i in 0..n {
            // Every path before 100, the even ones again after.
            whole.add(1, hash(i), 50);
            let half = if i % 2 == 0 { &mut a } else { &mut b };
            half.add(1, hash(i), 50);
            if i % 2 == 0 {
                whole.add(1, hash(i), 150);
                a.add(1, hash(i), 150);
            }
        }
        assert!(whole.rate() > 1);
        assert!(whole.seen.len() <= CAP);
        let (paths, resent) = whole.resent(1, 100, 200);
        let want = n / 2;
        assert!(paths.abs_diff(want) * 10 < want, "{paths} vs {want}");
        assert_eq!(paths, resent);
        a.merge(b, |t| t);
        assert_eq!(a.rate(), whole.rate());
        assert_eq!(a.resent(1, 100, 200), whole.resent(1, 100, 200));
        assert_eq!(a.resent(1, 0, 100), whole.resent(1, 0, 100));
    }
}
