//! Which raw paths each tenant requested, and when: what retry detection
//! needs to tell re-sent work (a path asked for again after a failure) from
//! new work.
//!
//! Raw paths have no useful bound (an id in every one), so the set is
//! bounded by design: while it holds at most [`CAP`] (sender, path) pairs it
//! keeps every one; past that it keeps only the paths whose hash falls in a
//! 1-in-2^level sample, raising the level until the sample fits again
//! (adaptive distinct sampling). Counts are then scaled back up, and the
//! report says the figures are estimates. Which paths are kept depends only
//! on their hash, so the sample is the same however the input was split
//! across threads.
//!
//! In: (sender, path hash, start and end second, failed) per request, the
//! sender being its tenant and its integration, each request kept once. Out:
//! per client (a tenant, or an integration across its tenants), the paths it sent in
//! a window and how many of those it had sent before; and the requests it
//! re-sent after they had failed (a retry is the same request again).
//! Every figure kept per path merges exactly (minima, maxima, sums), so it
//! is the same whatever the order of the lines and however they were split.

use rustc_hash::FxHashMap as HashMap;

/// Pairs kept before sampling starts: as many as fill a hash table of 2^18
/// slots (at its 7/8 load), about 18 MiB of the compact entries below. A
/// crash loop's hours of jobs, one path each, fit whole; a smaller table was
/// sampled 1 in 8 there and dated the retries' start from the sample.
pub const CAP: usize = (1 << 18) / 8 * 7;

/// A second since the Unix epoch, as 32 bits: an entry per path is what the
/// table holds most of, and seconds up to 2106 fit (earlier or later clamp).
type Sec = u32;

fn sec(t: i64) -> Sec {
    t.clamp(0, i64::from(NEVER - 1)) as Sec
}

/// Who sent a request: its tenant and its integration (0: none named).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sender {
    pub tenant: u32,
    pub integration: u32,
}

/// A tenant's own requests, with no integration named (tests, mostly).
impl From<u32> for Sender {
    fn from(tenant: u32) -> Sender {
        Sender {
            tenant,
            integration: 0,
        }
    }
}

impl From<u32> for Client {
    fn from(tenant: u32) -> Client {
        Client::Tenant(tenant)
    }
}

/// Whose requests a question is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Client {
    Tenant(u32),
    /// An integration across every tenant it works for: a retrying SDK is
    /// a client whatever tenant it works for.
    Integration(u32),
    /// Every request.
    All,
}

impl Client {
    fn sent(self, s: Sender) -> bool {
        match self {
            Client::Tenant(t) => s.tenant == t,
            Client::Integration(i) => s.integration == i,
            Client::All => true,
        }
    }
}

/// Where a path was requested: its earliest starts and last second, how often, how
/// often it failed and when it first did ([`NEVER`] when it never did): the
/// start of the first failed request, and the first second a failure ended
/// (when the client learnt of it: a timeout fails a minute after it began).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathSeen {
    pub last: Sec,
    pub requests: u32,
    pub failed: u32,
    pub first_fail: Sec,
    pub first_fail_end: Sec,
    /// The [`EARLY`] earliest starts, ascending ([`NEVER`] past the
    /// requests): a path retried a few times is known request by request,
    /// so its re-sends can be counted up to a window's end (a job re-queued
    /// until it ran, the last re-send after the recovery, is not one of the
    /// incident's). Minima merge exactly, like the rest.
    pub early: [Sec; EARLY],
}

// `first` and `second` read the two least starts.
const _: () = assert!(EARLY >= 2);

/// Starts kept per path: a job retried a handful of times fits; a path
/// requested more often (a login endpoint) is counted as a whole.
pub const EARLY: usize = 8;

impl PathSeen {
    fn first(&self) -> Sec {
        self.early[0]
    }

    /// The start of the path's second request ([`NEVER`] while it had one):
    /// where the first request failed, its retry.
    fn second(&self) -> Sec {
        self.early[1]
    }

    /// Whether it was requested in `[start, end)`: known where one of its
    /// earliest starts or its last falls there, or where every start is
    /// known; a path requested more often than that, before and after the
    /// span, is taken to have been (a path asked for that often is polled).
    fn requested_in(&self, start: i64, end: i64) -> bool {
        let within = |s: Sec| s != NEVER && i64::from(s) >= start && i64::from(s) < end;
        if self.early.iter().any(|s| within(*s)) || within(self.last) {
            return true;
        }
        let known = self.requests as usize <= EARLY;
        let latest_known = self.early.last().map_or(NEVER, |s| *s);
        !known && i64::from(latest_known) < end && i64::from(self.last) >= end
    }

    /// Requests re-sent after the path's first failure that started before
    /// `end`: each failure followed by another request is one.
    fn resent_before(&self, end: i64) -> u32 {
        let after = if self.requests as usize <= EARLY {
            let n = self
                .early
                .iter()
                .filter(|s| **s >= self.first_fail && i64::from(**s) < end)
                .count() as u32;
            // The first failed request itself is not a re-send.
            n.saturating_sub(1)
        } else {
            self.requests - 1
        };
        self.failed.min(after)
    }
}

/// The `EARLY` least of two ascending arrays.
fn least(a: &[Sec; EARLY], b: &[Sec; EARLY]) -> [Sec; EARLY] {
    // On the stack: this runs for every request of a path seen before.
    let mut both = [NEVER; 2 * EARLY];
    for (slot, v) in both.iter_mut().zip(a.iter().chain(b)) {
        *slot = *v;
    }
    both.sort_unstable();
    let mut out = [NEVER; EARLY];
    for (slot, v) in out.iter_mut().zip(both) {
        *slot = v;
    }
    out
}

/// `first_fail` of a path that never failed.
pub const NEVER: Sec = Sec::MAX;

/// Every path is kept in one of two tables: paths whose route has no id in
/// it (`/v1/jobs`, `/login`) in `fixed`, the others in `ids`. A fixed path
/// is few and heavy, one path carrying thousands of requests; paths with
/// ids are many and light. Sampling by hash suits the many light ones (the
/// estimate sums over thousands of independent paths) but would drop a
/// heavy one whole, and with it every retry on it; kept apart, the fixed
/// paths stay exact unless they alone overflow their own table.
#[derive(Debug, Default)]
pub struct PathSample {
    ids: Table,
    fixed: Table,
}

impl PathSample {
    /// One in how many paths is kept (1 while everything fits).
    pub fn rate(&self) -> u64 {
        self.ids.rate().max(self.fixed.rate())
    }

    /// Count a request for `path_hash` by `sender` that began in second
    /// `sec` and ended in `end`; `fixed`: its route has no id in it.
    pub fn add(
        &mut self,
        sender: impl Into<Sender>,
        path_hash: u64,
        (sec, end): (i64, i64),
        failed: bool,
        fixed: bool,
    ) {
        let t = if fixed {
            &mut self.fixed
        } else {
            &mut self.ids
        };
        t.add_ended(sender.into(), path_hash, sec, end, failed);
    }

    /// Fold in another sample whose ids `id` maps to this one's.
    pub fn merge(&mut self, other: PathSample, id: impl Fn(u32) -> u32) {
        self.ids.merge(other.ids, &id);
        self.fixed.merge(other.fixed, &id);
    }

    /// See [`Table::resent`]; both tables summed.
    pub fn resent(&self, tenant: impl Into<Client> + Copy, start: i64, end: i64) -> (u64, u64) {
        let (a, b) = self.ids.resent(tenant, start, end);
        let (c, d) = self.fixed.resent(tenant, start, end);
        (a + c, b + d)
    }

    /// See [`Table::retried_by`]; both tables summed, retrying dated by
    /// [`began`] over both. [`Client::All`]: the whole service's retries.
    pub fn retried(&self, client: impl Into<Client>, start: i64, end: i64) -> Retried {
        let client = client.into();
        self.both(|t| t.retried_by(client, start, end))
    }

    fn both(&self, f: impl Fn(&Table) -> (Retried, Vec<i64>)) -> Retried {
        let (a, mut times) = f(&self.ids);
        let (b, more) = f(&self.fixed);
        times.extend(more);
        Retried {
            requests: a.requests + b.requests,
            paths: a.paths + b.paths,
            began: began(times, self.rate()),
        }
    }
}

/// Retried failures that must fall within [`DENSE_S`] seconds for retrying
/// to have begun: one timeout a client retried on an ordinary minute (a
/// slow report during a gradual ramp) is what clients always do, not the
/// start of a storm. Three within half a minute is the least that is not a
/// lone event against an expectation near zero (the margin the failure
/// flags use).
const DENSE_N: usize = 3;
const DENSE_S: i64 = 30;

/// When retrying began: the first retried failure (the second it reached
/// its client) that opens a half-minute holding [`DENSE_N`] of them; the
/// first of all when none does. Where 1 path in `rate` was kept, the
/// half-minute is `rate` times longer: the same density of retries, of
/// which a `rate`-th was seen.
fn began(mut times: Vec<i64>, rate: u64) -> Option<i64> {
    let dense_s = DENSE_S.saturating_mul(i64::try_from(rate.max(1)).unwrap_or(i64::MAX));
    times.sort_unstable();
    let first = *times.first()?;
    let dense = times
        .iter()
        .enumerate()
        .find(|(i, t)| {
            times
                .get(i + DENSE_N - 1)
                .is_some_and(|last| *last < **t + dense_s)
        })
        .map(|(_, t)| *t);
    Some(dense.unwrap_or(first))
}

#[derive(Debug, Default)]
pub struct Table {
    /// Paths are kept when the top `level` bits of their mixed hash are 0.
    level: u32,
    seen: HashMap<(Sender, u64), PathSeen>,
}

/// Spread the hash so its top bits are uniform whatever hash made it.
fn mixed(path_hash: u64) -> u64 {
    (path_hash ^ (path_hash >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9)
}

fn kept_at(level: u32, path_hash: u64) -> bool {
    level == 0 || mixed(path_hash) >> (64 - level.min(63)) == 0
}

impl Table {
    /// One in how many paths is kept (1 while everything fits).
    pub fn rate(&self) -> u64 {
        1 << self.level
    }

    /// Count a request for `path_hash` by `client` in second `sec` that
    /// ended in the same second.
    #[cfg(test)]
    pub fn add(&mut self, tenant: u32, path_hash: u64, sec: i64, failed: bool) {
        self.add_ended(tenant, path_hash, sec, sec, failed);
    }

    /// Count a request for `path_hash` by `sender` that began in second
    /// `start` and ended in `end`.
    pub fn add_ended(
        &mut self,
        sender: impl Into<Sender>,
        path_hash: u64,
        start: i64,
        end: i64,
        failed: bool,
    ) {
        if !kept_at(self.level, path_hash) {
            return;
        }
        let (end, sec) = (sec(end.max(start)), sec(start));
        self.put(
            (sender.into(), path_hash),
            PathSeen {
                last: sec,
                requests: 1,
                failed: u32::from(failed),
                first_fail: if failed { sec } else { NEVER },
                first_fail_end: if failed { end } else { NEVER },
                early: {
                    let mut e = [NEVER; EARLY];
                    if let Some(f) = e.first_mut() {
                        *f = sec;
                    }
                    e
                },
            },
        );
    }

    fn put(&mut self, key: (Sender, u64), p: PathSeen) {
        if let Some(e) = self.seen.get_mut(&key) {
            e.last = e.last.max(p.last);
            e.requests = e.requests.saturating_add(p.requests);
            e.failed = e.failed.saturating_add(p.failed);
            e.first_fail = e.first_fail.min(p.first_fail);
            e.first_fail_end = e.first_fail_end.min(p.first_fail_end);
            e.early = least(&e.early, &p.early);
            return;
        }
        // Room is made before a new pair goes in, not after: a table past
        // its slots' load would double them first, and keep them.
        while self.seen.len() + usize::from(kept_at(self.level, key.1)) > CAP && self.level < 63 {
            self.level += 1;
            let level = self.level;
            self.seen.retain(|&(_, h), _| kept_at(level, h));
        }
        if kept_at(self.level, key.1) {
            self.seen.insert(key, p);
        }
    }

    /// Fold in another table whose ids `id` maps to this one's.
    pub fn merge(&mut self, other: Table, id: impl Fn(u32) -> u32) {
        if other.level > self.level {
            self.level = other.level;
            let level = self.level;
            self.seen.retain(|&(_, h), _| kept_at(level, h));
        }
        for ((s, h), p) in other.seen {
            if kept_at(self.level, h) {
                let sender = Sender {
                    tenant: id(s.tenant),
                    integration: id(s.integration),
                };
                self.put((sender, h), p);
            }
        }
    }

    /// A client's distinct paths requested in `[start, end)`, and how many
    /// of those it had requested before `start`; scaled by the sampling rate.
    /// (A path one tenant sent through two integrations counts twice.)
    pub fn resent(&self, client: impl Into<Client>, start: i64, end: i64) -> (u64, u64) {
        let client = client.into();
        let mut in_window = 0u64;
        let mut resent = 0u64;
        for (&(s, _), p) in &self.seen {
            // Asked for before and after the span is not asked for in it: a
            // client's paths polled now and then would count as re-sent work
            // in any span between two polls (flag-flip draw 702517: 21 paths
            // "re-sent" by a client that sent 15 requests).
            if !client.sent(s) || !p.requested_in(start, end) {
                continue;
            }
            in_window += 1;
            if i64::from(p.first()) < start {
                resent += 1;
            }
        }
        (in_window * self.rate(), resent * self.rate())
    }

    /// [`Table::retried_by`] for one client, dated by [`began`].
    #[cfg(test)]
    pub fn retried(&self, tenant: u32, start: i64, end: i64) -> Retried {
        let (r, times) = self.retried_by(Client::Tenant(tenant), start, end);
        Retried {
            began: began(times, self.rate()),
            ..r
        }
    }

    /// Requests the clients `which` accepts re-sent after they had failed,
    /// on paths that first failed in `[start, end)` and were asked for again
    /// after that: each failure followed by another request for the same
    /// path is one retry (a path that failed twice and then succeeded was
    /// retried twice), counted while it was sent before `end`. Scaled by
    /// the sampling rate, with the number of such paths; and per path
    /// retried, when its retrying began.
    fn retried_by(&self, client: Client, start: i64, end: i64) -> (Retried, Vec<i64>) {
        let mut r = Retried::default();
        let mut times = Vec::new();
        for (&(s, _), p) in &self.seen {
            // Failed in the window and asked for again after: a path that
            // failed long before and is still polled is not retried now.
            let first_fail = i64::from(p.first_fail);
            if !client.sent(s) || first_fail < start || first_fail >= end || p.last <= p.first_fail
            {
                continue;
            }
            r.paths += 1;
            r.requests += u64::from(p.resent_before(end));
            // Retrying began with the path's second request where its first
            // failed (a job re-queued behind a backlog is re-sent minutes
            // later); else after the failure reached its client (its end,
            // not its start: a timeout fails a minute after it began).
            times.push(i64::from(
                if p.first_fail == p.first() && p.second() != NEVER {
                    p.second()
                } else {
                    p.first_fail_end
                },
            ));
        }
        r.paths *= self.rate();
        r.requests *= self.rate();
        (r, times)
    }
}

/// What [`Table::retried_by`] found.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Retried {
    pub requests: u64,
    pub paths: u64,
    /// When retrying began: see [`began`].
    pub began: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path asked for before a span and again after it was not asked for
    /// in it; one asked for in it, before and after, was; one polled more
    /// often than its starts are kept is taken to have been.
    #[test]
    fn a_path_polled_around_a_span_is_not_re_sent_in_it() {
        let mut s = Table::default();
        for (h, sec) in [(1, 10), (1, 40), (2, 10), (2, 20), (2, 40)] {
            s.add(7, h, sec, false);
        }
        for sec in 0..(EARLY as i64 + 2) {
            s.add(7, 3, sec, false);
        }
        s.add(7, 3, 50, false);
        assert_eq!(s.resent(7, 15, 30), (2, 2));
        assert_eq!(s.resent(7, 51, 60), (0, 0));
    }

    #[test]
    fn small_sets_are_exact() {
        let mut s = Table::default();
        for (h, sec) in [(1, 10), (2, 10), (1, 20), (3, 20)] {
            s.add(7, h, sec, false);
        }
        assert_eq!(s.rate(), 1);
        // In [15, 30): paths 1 (seen at 10 too) and 3.
        assert_eq!(s.resent(7, 15, 30), (2, 1));
        assert_eq!(s.resent(8, 15, 30), (0, 0));
    }

    #[test]
    fn a_retry_is_a_failed_request_asked_for_again() {
        let mut s = Table::default();
        // Path 1 fails twice, then succeeds: two retries. Path 2 fails and is
        // never asked for again: none. Path 3 is polled and never fails: none.
        for (h, sec, failed) in [
            (1, 10, true),
            (1, 12, true),
            (1, 16, false),
            (2, 11, true),
            (3, 10, false),
            (3, 20, false),
        ] {
            s.add(7, h, sec, failed);
        }
        assert_eq!(
            (s.retried(7, 0, 100).requests, s.retried(7, 0, 100).paths),
            (2, 1)
        );
        // Retrying began with path 1's second request.
        assert_eq!(s.retried(7, 0, 100).began, Some(12));
        // Split anyhow and merged, the same.
        let (mut a, mut b) = (Table::default(), Table::default());
        a.add(7, 1, 16, false);
        a.add(7, 2, 11, true);
        b.add(7, 1, 12, true);
        b.add(7, 1, 10, true);
        a.merge(b, |t| t);
        assert_eq!(a.retried(7, 0, 100), s.retried(7, 0, 100));
        // Retries that all came before the window are not in it.
        assert_eq!(s.retried(7, 17, 100), Retried::default());
    }

    /// A job re-queued until it ran: its re-sends after the window's end
    /// (the service had recovered) are not the incident's, whichever part
    /// of the input held which request.
    #[test]
    fn re_sends_after_the_window_are_left_out() {
        let sends = [(10, true), (40, true), (70, true), (130, false)];
        let mut s = Table::default();
        for (sec, failed) in sends {
            s.add(7, 1, sec, failed);
        }
        // Window [0, 100): the re-sends at 40 and 70, not the one at 130.
        assert_eq!(s.retried(7, 0, 100).requests, 2);
        assert_eq!(s.retried(7, 0, 200).requests, 3);
        for split in 1..sends.len() {
            let (mut a, mut b) = (Table::default(), Table::default());
            for (k, (sec, failed)) in sends.iter().enumerate() {
                if k < split { &mut b } else { &mut a }.add(7, 1, *sec, *failed);
            }
            a.merge(b, |t| t);
            assert_eq!(
                a.retried(7, 0, 100),
                s.retried(7, 0, 100),
                "split at {split}"
            );
        }
        // A path sent more often than is kept request by request counts whole.
        let mut busy = Table::default();
        for k in 0..(EARLY as i64 + 2) {
            busy.add(7, 2, 10 + k, true);
        }
        assert_eq!(busy.retried(7, 0, 15).requests, EARLY as u64 + 1);
    }

    /// Each request is kept once, under its tenant and its integration
    /// together, and asked for by either or by every client.
    #[test]
    fn a_request_is_kept_once_and_asked_for_by_tenant_or_integration() {
        let mut s = PathSample::default();
        let sdk = |tenant| Sender {
            tenant,
            integration: 9,
        };
        // Tenants 1 and 2 through integration 9 each fail a job and re-send
        // it; tenant 3, with no integration, does the same.
        for (who, path) in [(sdk(1), 10), (sdk(2), 20), (Sender::from(3), 30)] {
            s.add(who, path, (100, 100), true, false);
            s.add(who, path, (101, 101), false, false);
        }
        assert_eq!(s.retried(Client::Tenant(1), 0, 200).requests, 1);
        assert_eq!(s.retried(Client::Integration(9), 0, 200).requests, 2);
        assert_eq!(s.retried(Client::All, 0, 200).requests, 3);
        assert_eq!(s.resent(Client::Integration(9), 101, 200), (2, 2));
        // The entry stays small: the table holds one per (sender, path).
        assert!(std::mem::size_of::<PathSeen>() <= 56);
    }

    /// The table never holds more than its cap, and so never outgrows the
    /// slots the cap was chosen to fill.
    #[test]
    fn the_table_never_holds_more_than_its_cap() {
        let mut t = Table::default();
        let hash = |i: u64| i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for i in 0..(CAP as u64 + 10) {
            t.add(1, hash(i), 50, false);
            assert!(t.seen.len() <= CAP);
        }
        assert!(t.rate() > 1);
        assert!(t.seen.capacity() < 2 * CAP);
    }

    #[test]
    fn least_keeps_the_smallest_in_order() {
        let mut a = [NEVER; EARLY];
        let mut b = [NEVER; EARLY];
        for (k, v) in [1, 5, 9].iter().enumerate() {
            if let Some(x) = a.get_mut(k) {
                *x = *v;
            }
        }
        for (k, v) in [2, 3, 10].iter().enumerate() {
            if let Some(x) = b.get_mut(k) {
                *x = *v;
            }
        }
        let l = least(&a, &b);
        assert_eq!(l.get(..6), Some(&[1, 2, 3, 5, 9, 10][..]));
        assert_eq!(l.get(6), Some(&NEVER));
    }

    /// A timeout that began at 10 s and failed at 70 s was retried at 71 s,
    /// not after 10 s: retrying is dated by the re-sent request (or, where
    /// the path had succeeded before, by when the failure reached its
    /// client), whichever part of the input held which request.
    #[test]
    fn retrying_begins_when_a_failure_ended_not_when_it_began() {
        let mut whole = Table::default();
        whole.add_ended(7, 1, 10, 70, true);
        whole.add_ended(7, 1, 71, 71, false);
        whole.add_ended(7, 2, 40, 45, true);
        whole.add_ended(7, 2, 46, 46, false);
        let r = whole.retried(7, 0, 100);
        assert_eq!((r.requests, r.began), (2, Some(46)));
        // A path polled before it failed: dated by the failure's end.
        let mut polled = Table::default();
        polled.add_ended(7, 3, 5, 5, false);
        polled.add_ended(7, 3, 50, 58, true);
        polled.add_ended(7, 3, 59, 59, false);
        assert_eq!(polled.retried(7, 0, 100).began, Some(58));
        let (mut a, mut b) = (Table::default(), Table::default());
        a.add_ended(7, 1, 71, 71, false);
        a.add_ended(7, 2, 40, 45, true);
        b.add_ended(7, 2, 46, 46, false);
        b.add_ended(7, 1, 10, 70, true);
        a.merge(b, |i| i);
        assert_eq!(a.retried(7, 0, 100), r);
    }

    /// A lone timeout retried thirteen minutes before the failures began in
    /// earnest does not date the storm; the first half-minute of three does.
    #[test]
    fn one_retried_timeout_on_an_ordinary_minute_does_not_start_a_storm() {
        let mut s = PathSample::default();
        let mut add = |path: u64, start: i64, end: i64, failed: bool| {
            s.add(7, path, (start, end), failed, false);
        };
        add(1, 100, 160, true);
        add(1, 170, 170, false);
        for (k, t) in [900i64, 910, 925, 926, 940].iter().enumerate() {
            add(10 + k as u64, *t - 2, *t, true);
            add(10 + k as u64, *t + 1, *t + 1, false);
        }
        let r = s.retried(7, 0, 2000);
        assert_eq!((r.requests, r.began), (6, Some(901)));
        assert_eq!(
            began(vec![160, 500], 1),
            Some(160),
            "no dense run: the first"
        );
        assert_eq!(began(Vec::new(), 1), None);
        // One path in 4 kept: three seen within two minutes stand for
        // twelve, as dense as three in half a minute.
        assert_eq!(began(vec![10, 400, 460, 500], 4), Some(400));
        assert_eq!(began(vec![10, 400, 460, 500], 1), Some(10));
    }

    /// Past the cap the sample stays bounded, its estimate stays close, and
    /// two halves merged give the sample of the whole.
    #[test]
    fn large_sets_are_sampled_and_merge_to_the_whole() {
        let n: u64 = 4 * CAP as u64;
        let hash = |i: u64| i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut whole = Table::default();
        let (mut a, mut b) = (Table::default(), Table::default());
        for i in 0..n {
            // Every path before 100, the even ones again after.
            whole.add(1, hash(i), 50, false);
            let half = if i % 2 == 0 { &mut a } else { &mut b };
            half.add(1, hash(i), 50, false);
            if i % 2 == 0 {
                whole.add(1, hash(i), 150, false);
                a.add(1, hash(i), 150, false);
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
