//! The streaming half of template mining: log records folded into counts
//! per message key (`mask.rs`), inside the aggregates, one miner per worker
//! thread.
//!
//! In: [`LogRecord`]s. Out: the keys with their [`KeyStats`], read by
//! `drain.rs` once every worker's miner has been merged.
//!
//! A key is a function of its record alone, and every figure kept per key
//! merges by sums, minima, maxima or bottom-k, so the miner of a whole input
//! equals the merge of the miners of its parts, whatever the split. Memory is
//! bounded the same way: past [`KEY_CAP`] keys or [`CELL_CAP`] bucket
//! cells the miner moves up a [`LEVELS`] step (wider buckets, then keys cut
//! to their first tokens), which is again a function of the record, so the
//! step reached depends only on the whole input; on the last step keys past
//! the cap are dropped by hash (the same ones whatever the split), and the
//! lines they held are counted.
//!
//! ```text
//! LogRecord { ts: 07:58:06.027, message: "HikariPool-1 - Connection is not available, ... 30000ms." }
//! -> keys["HikariPool-<num> - Connection is not available, ... <duration>."] { count: +1, buckets[07:58:00] +1, .. }
//! ```

use rustc_hash::FxHashMap as HashMap;

use super::mask::{mask_into, MAX_TOKENS};
use super::rules::Rules;
use super::sketch::{Buckets, Names};
use crate::event::{Level, LogRecord, Millis, Origin, Signal};
use crate::redact::fnv1a;

/// Distinct keys kept before the miner moves up a step.
pub const KEY_CAP: usize = 5_000;
/// (key, bucket) cells kept before the miner moves up a step (8 bytes each).
pub const CELL_CAP: usize = 1_000_000;

/// Examples kept per key (and per template).
pub(crate) const EXAMPLES: usize = 3;
/// Bytes of an example's text kept.
const EXAMPLE_BYTES: usize = 400;

/// One step of the memory ladder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// Tokens a key keeps.
    pub tokens: usize,
    /// Bucket width in seconds.
    pub bucket_s: i64,
}

/// The ladder: 10-second buckets like Loki's pattern volumes, then minutes,
/// then keys cut to their first 8 and 3 tokens. The last step drops keys.
pub const LEVELS: [Step; 4] = [
    Step {
        tokens: MAX_TOKENS,
        bucket_s: 10,
    },
    Step {
        tokens: MAX_TOKENS,
        bucket_s: 60,
    },
    Step {
        tokens: 8,
        bucket_s: 60,
    },
    Step {
        tokens: 3,
        bucket_s: 60,
    },
];

/// Step `level` of the ladder. A miner's level never passes the last step
/// (`relieve` stops there), which is also what a miss would mean.
fn step_at(level: usize) -> Step {
    let [.., last] = LEVELS;
    LEVELS.get(level).copied().unwrap_or(last)
}

/// A record quoted as an example of its key.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    pub ts: Millis,
    pub origin: Origin,
    /// The message's first line, cut at [`EXAMPLE_BYTES`]; not redacted yet.
    pub text: String,
}

/// Everything kept about one key.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeyStats {
    pub count: u64,
    /// Records per [`Level`], in its order.
    pub levels: [u64; 6],
    pub first: (Millis, Origin),
    pub last: (Millis, Origin),
    pub(crate) buckets: Buckets,
    /// The earliest records, by (time, origin).
    pub examples: Vec<Example>,
    pub(crate) tenants: Names,
    pub(crate) instances: Names,
    /// Records per signal they carried, by signal.
    pub signals: Vec<(Signal, u64)>,
}

fn example_text(message: &str) -> String {
    let line = message.lines().next().unwrap_or("");
    if line.len() <= EXAMPLE_BYTES {
        return line.to_string();
    }
    let mut end = EXAMPLE_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &line[..end])
}

impl KeyStats {
    fn add(&mut self, r: &LogRecord<'_>, bucket: i32) -> bool {
        let at = (r.ts, r.origin);
        if self.count == 0 {
            self.first = at;
            self.last = at;
        } else {
            self.first = self.first.min(at);
            self.last = self.last.max(at);
        }
        self.count += 1;
        // One count per `Level`, so this never misses.
        if let Some(n) = self.levels.get_mut(r.level as usize) {
            *n += 1;
        }
        if let Some(t) = r.tenant.as_deref() {
            self.tenants.add(t, 1);
        }
        if let Some(i) = r.instance.as_deref() {
            self.instances.add(i, 1);
        }
        if let Some(s) = r.signal {
            match self.signals.iter_mut().find(|(x, _)| *x == s) {
                Some(e) => e.1 += 1,
                None => {
                    self.signals.push((s, 1));
                    self.signals.sort();
                }
            }
        }
        // Lines come roughly in time order: after the first few of a key,
        // this comparison is all an example costs.
        if self.examples.len() < EXAMPLES
            || self.examples.last().is_some_and(|e| at < (e.ts, e.origin))
        {
            self.add_example(Example {
                ts: r.ts,
                origin: r.origin,
                text: example_text(&r.message),
            });
        }
        self.buckets.add(bucket)
    }

    fn add_example(&mut self, e: Example) {
        let at = self
            .examples
            .partition_point(|x| (x.ts, x.origin) < (e.ts, e.origin));
        if self
            .examples
            .get(at)
            .is_some_and(|x| (x.ts, x.origin) == (e.ts, e.origin))
        {
            return;
        }
        self.examples.insert(at, e);
        self.examples.truncate(EXAMPLES);
    }

    /// Fold another key's figures in.
    pub(crate) fn merge(&mut self, other: KeyStats) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = other;
            return;
        }
        self.count += other.count;
        for (a, b) in self.levels.iter_mut().zip(other.levels) {
            *a += b;
        }
        self.first = self.first.min(other.first);
        self.last = self.last.max(other.last);
        self.buckets.merge(other.buckets);
        for e in other.examples {
            self.add_example(e);
        }
        self.tenants.merge(other.tenants);
        self.instances.merge(other.instances);
        for (s, n) in other.signals {
            match self.signals.iter_mut().find(|(x, _)| *x == s) {
                Some(e) => e.1 += n,
                None => self.signals.push((s, n)),
            }
        }
        self.signals.sort();
    }

    /// The level most of its records had (the more severe on a tie).
    pub fn level(&self) -> Level {
        const ALL: [Level; 6] = [
            Level::Trace,
            Level::Debug,
            Level::Info,
            Level::Warn,
            Level::Error,
            Level::Fatal,
        ];
        let mut best = (0, Level::Info);
        for (l, n) in ALL.into_iter().zip(self.levels) {
            if n > 0 && n >= best.0 {
                best = (n, l);
            }
        }
        best.1
    }

    /// Records per bucket: `(bucket start in seconds, count)`, by time.
    pub fn buckets(&self, bucket_s: i64) -> impl Iterator<Item = (i64, u32)> + '_ {
        self.buckets
            .iter()
            .map(move |(b, n)| (i64::from(b) * bucket_s, n))
    }

    /// Tenants, most records first, and whether more were seen than listed.
    pub fn tenants(&self) -> (Vec<(&str, u64)>, bool) {
        self.tenants.ranked()
    }

    pub fn instances(&self) -> (Vec<(&str, u64)>, bool) {
        self.instances.ranked()
    }

    pub fn has_tenants(&self) -> bool {
        !self.tenants.is_empty()
    }
}

/// Log records folded into per-key figures; see the module doc.
#[derive(Debug)]
pub struct Miner {
    rules: &'static Rules,
    /// Index into [`LEVELS`].
    level: usize,
    keys: HashMap<Box<str>, u32>,
    stats: Vec<KeyStats>,
    /// Buckets summed over keys.
    cells: usize,
    /// Records whose key was dropped on the last step.
    dropped: u64,
    /// On the last step: the kept key with the largest hash, once known.
    max_hash: Option<(u64, u32)>,
    /// Slots of dropped keys, reused first.
    free: Vec<u32>,
    /// The key just masked, and the one before with its index (most records
    /// have the key of the record before them: no hash lookup then).
    buf: String,
    last_key: String,
    last: Option<u32>,
    /// The last bucket looked up: [start, end) in ms and its index, at the
    /// current step (emptied when the step changes).
    bucket: (Millis, Millis, i32),
}

impl Default for Miner {
    fn default() -> Miner {
        Miner::new(Rules::builtin_or_empty())
    }
}

impl Miner {
    pub fn new(rules: &'static Rules) -> Miner {
        Miner {
            rules,
            level: 0,
            keys: HashMap::default(),
            stats: Vec::new(),
            cells: 0,
            dropped: 0,
            max_hash: None,
            free: Vec::new(),
            buf: String::new(),
            last_key: String::new(),
            last: None,
            bucket: (0, 0, 0),
        }
    }

    /// The memory step reached.
    pub fn step(&self) -> Step {
        step_at(self.level)
    }

    /// Whether the ladder was climbed (the report says so).
    pub fn coarsened(&self) -> bool {
        self.level > 0
    }

    /// Records whose key was dropped on the last step.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Fold one record in.
    pub fn add(&mut self, r: &LogRecord<'_>) {
        let step = self.step();
        mask_into(&r.message, self.rules, step.tokens, &mut self.buf);
        let idx = match self.last {
            Some(i) if self.buf == self.last_key => i,
            _ => match self.keys.get(self.buf.as_str()) {
                Some(&i) => i,
                None => match self.insert_key() {
                    Some(i) => i,
                    None => {
                        self.dropped += 1;
                        self.last = None;
                        return;
                    }
                },
            },
        };
        std::mem::swap(&mut self.buf, &mut self.last_key);
        self.last = Some(idx);
        let bucket = self.bucket_of(r.ts);
        // Slots in `keys` index `stats`.
        let Some(stats) = self.stats.get_mut(idx as usize) else {
            return;
        };
        if stats.add(r, bucket) {
            self.cells += 1;
            if self.cells > CELL_CAP {
                self.relieve();
            }
        }
    }

    /// The bucket of `ts` at the current step. Records come in time order
    /// mostly: the last bucket's bounds answer without a division.
    fn bucket_of(&mut self, ts: Millis) -> i32 {
        let (lo, hi, b) = self.bucket;
        if ts >= lo && ts < hi {
            return b;
        }
        let w = self.step().bucket_s * 1000;
        let b = ts.div_euclid(w);
        self.bucket = (b * w, b * w + w, b as i32);
        b as i32
    }

    /// A slot for the key in `buf`, or none when the last step turns it away.
    fn insert_key(&mut self) -> Option<u32> {
        let last_step = self.level == LEVELS.len() - 1;
        if last_step && self.keys.len() >= KEY_CAP {
            let h = fnv1a(self.buf.as_bytes());
            let (top, slot) = self.max_hash()?;
            if h >= top {
                return None;
            }
            self.evict(slot);
            self.free.retain(|&f| f != slot);
            self.keys.insert(self.buf.as_str().into(), slot);
            return Some(slot);
        }
        let i = self.stats.len() as u32;
        self.keys.insert(self.buf.as_str().into(), i);
        self.stats.push(KeyStats::default());
        if self.keys.len() > KEY_CAP {
            self.relieve();
            // The keys were rebuilt: look the record's key up again.
            return self.lookup_coarsened();
        }
        Some(i)
    }

    /// After a step up, the slot of the record's key (masked again at the new step).
    fn lookup_coarsened(&mut self) -> Option<u32> {
        let cut = cut_tokens(&self.buf, self.step().tokens).to_string();
        self.buf = cut;
        self.last = None;
        match self.keys.get(self.buf.as_str()) {
            Some(&i) => Some(i),
            None => self.insert_key(),
        }
    }

    /// The kept key with the largest (hash, text), on the last step.
    fn max_hash(&mut self) -> Option<(u64, u32)> {
        if self.max_hash.is_none() {
            self.max_hash = self
                .keys
                .iter()
                .map(|(k, &i)| (fnv1a(k.as_bytes()), i))
                .max();
        }
        self.max_hash
    }

    /// Drop the key in `slot`, counting its records; the slot is reused.
    fn evict(&mut self, slot: u32) {
        self.keys.retain(|_, i| *i != slot);
        let old = self
            .stats
            .get_mut(slot as usize)
            .map(std::mem::take)
            .unwrap_or_default();
        self.dropped += old.count;
        self.cells -= old.buckets.len();
        self.free.push(slot);
        self.max_hash = None;
        self.last = None;
    }

    /// Climb the ladder until the caps hold; on the last step, drop keys.
    fn relieve(&mut self) {
        while (self.keys.len() > KEY_CAP || self.cells > CELL_CAP) && self.level + 1 < LEVELS.len()
        {
            self.raise_to(self.level + 1);
        }
        if self.level + 1 == LEVELS.len() {
            while self.keys.len() > KEY_CAP {
                match self.max_hash() {
                    Some((_, slot)) => self.evict(slot),
                    None => break,
                }
            }
        }
    }

    /// Re-key everything at step `level`.
    fn raise_to(&mut self, level: usize) {
        if level <= self.level {
            return;
        }
        let (from, to) = (self.step(), step_at(level));
        let factor = (to.bucket_s / from.bucket_s) as i32;
        let keys = std::mem::take(&mut self.keys);
        let mut stats = std::mem::take(&mut self.stats);
        self.level = level;
        self.bucket = (0, 0, 0);
        self.cells = 0;
        self.free.clear();
        self.last = None;
        self.max_hash = None;
        // By key, so slots come out the same whatever order the map had.
        let mut keys: Vec<(Box<str>, u32)> = keys.into_iter().collect();
        keys.sort();
        for (key, i) in keys {
            let Some(mut s) = stats.get_mut(i as usize).map(std::mem::take) else {
                continue;
            };
            if factor > 1 {
                s.buckets.widen(factor);
            }
            self.absorb(cut_tokens(&key, to.tokens), s);
        }
    }

    /// Add a key's figures under `key` (at the current step).
    fn absorb(&mut self, key: &str, s: KeyStats) {
        match self.keys.get(key) {
            Some(&i) => {
                if let Some(st) = self.stats.get_mut(i as usize) {
                    self.cells -= st.buckets.len();
                    st.merge(s);
                    self.cells += st.buckets.len();
                }
            }
            None => {
                self.cells += s.buckets.len();
                // A free slot is one of `stats`.
                let i = match self
                    .free
                    .pop()
                    .and_then(|i| Some((i, self.stats.get_mut(i as usize)?)))
                {
                    Some((i, slot)) => {
                        *slot = s;
                        i
                    }
                    None => {
                        self.stats.push(s);
                        (self.stats.len() - 1) as u32
                    }
                };
                self.keys.insert(key.into(), i);
                self.max_hash = None;
            }
        }
    }

    /// Fold another miner (of other records) into this one.
    pub fn merge(&mut self, mut other: Miner) {
        let level = self.level.max(other.level);
        self.raise_to(level);
        other.raise_to(level);
        self.dropped += other.dropped;
        let mut keys: Vec<(Box<str>, u32)> = other.keys.into_iter().collect();
        keys.sort();
        for (key, i) in keys {
            let Some(s) = other.stats.get_mut(i as usize).map(std::mem::take) else {
                continue;
            };
            self.absorb(&key, s);
        }
        self.last = None;
        self.relieve();
    }

    /// Every key with its figures, by key.
    pub fn keys(&self) -> Vec<(&str, &KeyStats)> {
        let mut v: Vec<(&str, &KeyStats)> = self
            .keys
            .iter()
            .filter_map(|(k, &i)| Some((&**k, self.stats.get(i as usize)?)))
            .filter(|(_, s)| s.count > 0)
            .collect();
        v.sort_by(|a, b| a.0.cmp(b.0));
        v
    }
}

/// The first `n` space-separated tokens of a key.
fn cut_tokens(key: &str, n: usize) -> &str {
    match key.match_indices(' ').nth(n.saturating_sub(1)) {
        Some((i, _)) if n > 0 => &key[..i],
        _ if n == 0 => "",
        _ => key,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn rec(ts: Millis, line: u64, msg: &str, tenant: Option<&str>) -> LogRecord<'static> {
        LogRecord {
            ts,
            origin: Origin { input: 0, line },
            level: if msg.contains("timed out") {
                Level::Error
            } else {
                Level::Info
            },
            message: Cow::Owned(msg.to_string()),
            instance: Some(Cow::Owned(format!("api-{}", line % 3))),
            tenant: tenant.map(|t| Cow::Owned(t.to_string())),
            signal: msg.contains("timed out").then_some(Signal::PoolExhausted),
            version: None,
        }
    }

    fn records() -> Vec<LogRecord<'static>> {
        (0..600u64)
            .map(|i| {
                let msg = match i % 4 {
                    0 => format!(
                        "HikariPool-{} - Connection is not available, request timed out after {}ms.",
                        i % 2,
                        30000 + i
                    ),
                    1 => format!("Refreshed tenant plan cache ({} entries)", i),
                    2 => format!("user u{} logged in from 10.0.{}.{}", i % 7, i % 5, i % 9),
                    _ => "Scheduled job usage-rollup started".to_string(),
                };
                // Out of order here and there, as merged inputs are.
                let ts = 1_000_000 + (i as i64 * 997) % 400_000;
                let tenant = format!("acct-{}", i % 23);
                rec(ts, i + 1, &msg, (i % 3 == 0).then_some(tenant.as_str()))
            })
            .collect()
    }

    fn mine(recs: &[LogRecord<'static>]) -> Miner {
        let mut m = Miner::default();
        for r in recs {
            m.add(r);
        }
        m
    }

    fn summary(m: &Miner) -> Vec<(String, KeyStats)> {
        m.keys()
            .into_iter()
            .map(|(k, s)| (k.to_string(), s.clone()))
            .collect()
    }

    #[test]
    fn split_and_merged_equals_whole() {
        let recs = records();
        let whole = summary(&mine(&recs));
        assert_eq!(whole.len(), 4);
        for cuts in [vec![0], vec![1], vec![299], vec![100, 350, 599], vec![600]] {
            let mut parts = Vec::new();
            let mut from = 0;
            for c in cuts.iter().copied().chain(std::iter::once(recs.len())) {
                parts.push(mine(&recs[from..c]));
                from = c;
            }
            // Merged in reverse, as workers may finish in any order.
            let mut m = Miner::default();
            for p in parts.into_iter().rev() {
                m.merge(p);
            }
            assert_eq!(summary(&m), whole, "cuts {cuts:?}");
        }
    }

    #[test]
    fn the_pool_message_is_one_key_with_every_figure() {
        let m = mine(&records());
        let (key, s) = m
            .keys()
            .into_iter()
            .find(|(k, _)| k.contains("Connection is not available"))
            .expect("key");
        assert_eq!(
            key,
            "HikariPool-<num> - Connection is not available, request timed out after <duration>."
        );
        assert_eq!(s.count, 150);
        assert_eq!(s.level(), Level::Error);
        assert_eq!(s.signals, vec![(Signal::PoolExhausted, 150)]);
        assert_eq!(s.examples.len(), EXAMPLES);
        assert!(s.examples.windows(2).all(|w| w[0].ts <= w[1].ts));
        assert_eq!(s.first.0, s.examples[0].ts);
        assert_eq!(s.buckets(10).map(|(_, n)| u64::from(n)).sum::<u64>(), 150);
        let (instances, more) = s.instances();
        assert_eq!((instances.len(), more), (3, false));
        // 23 tenants: the 16 of smallest hash are kept, with exact counts.
        let (tenants, more) = s.tenants();
        assert_eq!((tenants.len(), more), (16, true));
        assert!(tenants.iter().all(|t| t.1 >= 2), "{tenants:?}");
    }

    #[test]
    fn too_many_keys_climb_the_ladder_the_same_way_however_split() {
        // Every record a key of its own at the first steps: words, no digits.
        let word = |i: u64| -> String {
            (0..4)
                .map(|d| char::from(b'a' + ((i >> (d * 4)) % 16) as u8))
                .collect()
        };
        let recs: Vec<LogRecord<'static>> = (0..(KEY_CAP as u64 + 3000))
            .map(|i| {
                rec(
                    i as i64 * 1000,
                    i + 1,
                    &format!(
                        "{} {} said {} to {}",
                        word(i),
                        word(i / 7),
                        word(i / 3),
                        word(i)
                    ),
                    None,
                )
            })
            .collect();
        let whole = mine(&recs);
        assert!(whole.coarsened());
        assert!(whole.keys().len() <= KEY_CAP);
        let kept: u64 = whole.keys().iter().map(|(_, s)| s.count).sum();
        assert_eq!(
            kept + whole.dropped(),
            recs.len() as u64,
            "every record counted"
        );
        let mut a = mine(&recs[..4000]);
        a.merge(mine(&recs[4000..]));
        assert_eq!(a.step(), whole.step());
        assert_eq!(a.dropped(), whole.dropped());
        let (sa, sw) = (summary(&a), summary(&whole));
        // Key by key first: the whole summary is too long to read when it fails.
        for (x, y) in sa.iter().zip(&sw) {
            assert_eq!(x, y);
        }
        assert_eq!(sa.len(), sw.len());
    }

    #[test]
    fn cut_tokens_cases() {
        assert_eq!(cut_tokens("a b c", 2), "a b");
        assert_eq!(cut_tokens("a b c", 3), "a b c");
        assert_eq!(cut_tokens("a b c", 9), "a b c");
        assert_eq!(cut_tokens("a b c", 0), "");
    }
}

#[cfg(test)]
mod speed {
    use super::*;
    use std::borrow::Cow;

    /// `cargo test --release --lib templates::mine::speed -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn mining_cost_per_record() {
        let msgs: Vec<String> = (0..1000u64)
            .map(|i| {
                format!(
                    "GET /api/v1/accounts/t-{:03}/test-cases/{} completed in {} ms",
                    i % 200,
                    i * 7919 % 100000,
                    5 + i % 200
                )
            })
            .collect();
        let tenants: Vec<String> = (0..200).map(|i| format!("t-{i:03}")).collect();
        let insts: Vec<String> = (0..6).map(|i| format!("api-{i}")).collect();
        let recs: Vec<LogRecord<'_>> = (0..1000usize)
            .map(|i| LogRecord {
                ts: 1_000_000 + i as i64,
                origin: Origin {
                    input: 0,
                    line: i as u64,
                },
                level: Level::Info,
                message: Cow::Borrowed(&msgs[i]),
                instance: Some(Cow::Borrowed(&insts[i % 6])),
                tenant: Some(Cow::Borrowed(&tenants[(i * 37) % 200])),
                signal: None,
                version: None,
            })
            .collect();
        let n = 2000;
        // Calibration: one simple pass over each message's bytes.
        let t = std::time::Instant::now();
        let mut sink = 0u64;
        for _ in 0..n {
            for r in &recs {
                sink = sink.wrapping_add(fnv1a(r.message.as_bytes()));
            }
        }
        let calib = t.elapsed().as_nanos() as f64 / (n * recs.len()) as f64;
        eprintln!("calibration: fnv1a of a message {calib:.1} ns ({sink})");
        let rules = Rules::builtin_or_empty();
        let mut out = String::new();
        let t = std::time::Instant::now();
        for _ in 0..n {
            for r in &recs {
                mask_into(&r.message, rules, MAX_TOKENS, &mut out);
            }
        }
        let mask = t.elapsed().as_nanos() as f64 / (n * recs.len()) as f64;
        let mut names = Names::default();
        let t = std::time::Instant::now();
        for _ in 0..n {
            for r in &recs {
                names.add(r.tenant.as_deref().unwrap_or(""), 1);
            }
        }
        let name = t.elapsed().as_nanos() as f64 / (n * recs.len()) as f64;
        let mut m = Miner::default();
        let t = std::time::Instant::now();
        for k in 0..n {
            for r in &recs {
                let mut r = r.clone();
                r.ts += k as i64 * 1000;
                m.add(&r);
            }
        }
        let all = t.elapsed().as_nanos() as f64 / (n * recs.len()) as f64;
        eprintln!("mask {mask:.1} ns, one name sketch {name:.1} ns, whole add {all:.1} ns (incl. a record clone)");
    }
}
