//! Small mergeable summaries kept per message key: counts per time bucket,
//! and the names (tenants, instances) a key's records carried.
//!
//! Both merge to the same state however the records were split between
//! workers: buckets by sums, names by keeping the `K` with the smallest
//! stable hash (a bottom-k sketch), whose counts are then exact, because a
//! name among the `K` smallest of all is among the `K` smallest of every
//! part it appears in.
//!
//! In: bucket indices and names, one record at a time. Out: sorted
//! `(bucket, count)` pairs; names with counts and whether more were seen.

/// A stable 64-bit hash (the same on every platform and release: which
/// names a sketch keeps must not change), eight bytes a multiply like
/// FxHash, the high bits folded down so every bit depends on every byte.
/// Names are short: one multiply for most.
pub(crate) fn stable_hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = (bytes.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        for (d, s) in w.iter_mut().zip(rest) {
            *d = *s;
        }
        h = (h.rotate_left(23) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    h ^ (h >> 29)
}

/// Names kept per key.
pub(crate) const K: usize = 16;

/// Counts per time bucket, sorted by bucket; empty buckets are absent.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Buckets(Vec<(i32, u32)>);

impl Buckets {
    /// Count one record in bucket `b`; true when the bucket is new.
    pub(crate) fn add(&mut self, b: i32) -> bool {
        match self.0.last_mut() {
            Some(last) if last.0 == b => {
                last.1 += 1;
                false
            }
            Some(last) if last.0 > b => match self.0.binary_search_by_key(&b, |c| c.0) {
                Ok(i) => {
                    if let Some(c) = self.0.get_mut(i) {
                        c.1 += 1;
                    }
                    false
                }
                Err(i) => {
                    self.0.insert(i, (b, 1));
                    true
                }
            },
            _ => {
                self.0.push((b, 1));
                true
            }
        }
    }

    /// Fold another key's buckets in.
    pub(crate) fn merge(&mut self, other: Buckets) {
        if other.0.is_empty() {
            return;
        }
        if self.0.is_empty() {
            *self = other;
            return;
        }
        let (mut a, mut b) = (self.0.as_slice(), other.0.as_slice());
        let mut out = Vec::with_capacity(a.len() + b.len());
        while let ([x, a_rest @ ..], [y, b_rest @ ..]) = (a, b) {
            match x.0.cmp(&y.0) {
                std::cmp::Ordering::Equal => {
                    out.push((x.0, x.1 + y.1));
                    (a, b) = (a_rest, b_rest);
                }
                std::cmp::Ordering::Less => {
                    out.push(*x);
                    a = a_rest;
                }
                std::cmp::Ordering::Greater => {
                    out.push(*y);
                    b = b_rest;
                }
            }
        }
        out.extend_from_slice(a);
        out.extend_from_slice(b);
        self.0 = out;
    }

    /// Buckets `factor` times wider (a bucket index divided by `factor`).
    pub(crate) fn widen(&mut self, factor: i32) {
        let mut out: Vec<(i32, u32)> = Vec::with_capacity(self.0.len());
        for &(b, n) in &self.0 {
            let w = b.div_euclid(factor);
            match out.last_mut() {
                Some(last) if last.0 == w => last.1 += n,
                _ => out.push((w, n)),
            }
        }
        self.0 = out;
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (i32, u32)> + '_ {
        self.0.iter().copied()
    }
}

/// Slots of a [`Names`] table: twice `K`, so a probe mostly hits at once.
const SLOTS: usize = 2 * K;

/// The `K` names with the smallest hash, each with its exact count. A
/// small open-addressed table by hash: every record of a key looks up its
/// tenant and its instance, and a sorted search mispredicts its branches.
#[derive(Clone, Debug, Default)]
pub(crate) struct Names {
    /// `SLOTS` entries once the first name arrives; a count of 0 is empty.
    slots: Vec<(u64, Box<str>, u64)>,
    len: usize,
    /// The largest hash kept, once `K` names are.
    max_hash: u64,
    /// More than `K` distinct names were seen.
    more: bool,
}

impl PartialEq for Names {
    /// The same names, counts and `more`, wherever they sit in the table.
    fn eq(&self, other: &Names) -> bool {
        self.more == other.more && self.sorted() == other.sorted()
    }
}

impl Names {
    pub(crate) fn add(&mut self, name: &str, n: u64) {
        self.add_hashed(stable_hash(name.as_bytes()), name, n);
    }

    fn add_hashed(&mut self, h: u64, name: &str, n: u64) {
        // Full, and above every name kept: the common case with many names.
        if self.len == K && h > self.max_hash {
            self.more = true;
            return;
        }
        if self.slots.is_empty() {
            self.slots = vec![(0, Box::default(), 0); SLOTS];
        }
        // `slots` has `SLOTS` entries and `i` is taken modulo that: the
        // `get`s always find one.
        let mut i = (h as usize) % SLOTS;
        while let Some(slot) = self.slots.get_mut(i) {
            if slot.2 == 0 {
                break;
            }
            if slot.0 == h && &*slot.1 == name {
                slot.2 += n;
                return;
            }
            i = (i + 1) % SLOTS;
        }
        // A new name.
        if self.len < K {
            if let Some(slot) = self.slots.get_mut(i) {
                *slot = (h, name.into(), n);
                self.len += 1;
            }
            if self.len == K {
                self.max_hash = self
                    .slots
                    .iter()
                    .filter(|s| s.2 > 0)
                    .map(|s| s.0)
                    .max()
                    .unwrap_or(0);
            }
            return;
        }
        self.more = true;
        // Full: `K` names, sorted, the largest last.
        let mut items = self.sorted_owned();
        if let Some(largest) = items.last_mut() {
            if (h, name) < (largest.0, &*largest.1) {
                *largest = (h, name.into(), n);
                items.sort();
            }
        }
        self.rebuild(items);
    }

    /// The kept names by (hash, name).
    fn sorted(&self) -> Vec<(u64, &str, u64)> {
        let mut v: Vec<(u64, &str, u64)> = self
            .slots
            .iter()
            .filter(|s| s.2 > 0)
            .map(|s| (s.0, &*s.1, s.2))
            .collect();
        v.sort();
        v
    }

    fn sorted_owned(&mut self) -> Vec<(u64, Box<str>, u64)> {
        let mut v: Vec<(u64, Box<str>, u64)> = std::mem::take(&mut self.slots)
            .into_iter()
            .filter(|s| s.2 > 0)
            .collect();
        v.sort();
        v
    }

    /// Put `items` (at most `K`, sorted by hash: the last is the largest)
    /// back into a fresh table.
    fn rebuild(&mut self, items: Vec<(u64, Box<str>, u64)>) {
        self.slots = vec![(0, Box::default(), 0); SLOTS];
        self.len = 0;
        self.max_hash = items.last().map_or(0, |it| it.0);
        for (h, name, n) in items {
            // As in `add_hashed`: `i` is always a slot.
            let mut i = (h as usize) % SLOTS;
            while self.slots.get(i).is_some_and(|s| s.2 != 0) {
                i = (i + 1) % SLOTS;
            }
            if let Some(slot) = self.slots.get_mut(i) {
                *slot = (h, name, n);
                self.len += 1;
            }
        }
    }

    pub(crate) fn merge(&mut self, other: Names) {
        self.more |= other.more;
        for (h, name, n) in other.slots {
            if n > 0 {
                self.add_hashed(h, &name, n);
            }
        }
    }

    /// The names kept, most records first (then by name), and whether more
    /// were seen than are listed.
    pub(crate) fn ranked(&self) -> (Vec<(&str, u64)>, bool) {
        let mut v: Vec<(&str, u64)> = self
            .slots
            .iter()
            .filter(|s| s.2 > 0)
            .map(|s| (&*s.1, s.2))
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        (v, self.more)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_merge_and_widen_by_sums() {
        let mut a = Buckets::default();
        for b in [5, 5, 7, 3] {
            a.add(b);
        }
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![(3, 1), (5, 2), (7, 1)]);
        let mut b = Buckets::default();
        for x in [4, 5, 9] {
            b.add(x);
        }
        a.merge(b);
        assert_eq!(
            a.iter().collect::<Vec<_>>(),
            vec![(3, 1), (4, 1), (5, 3), (7, 1), (9, 1)]
        );
        a.widen(6);
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![(0, 5), (1, 2)]);
        let mut neg = Buckets::default();
        neg.add(-1);
        neg.widen(6);
        assert_eq!(neg.iter().collect::<Vec<_>>(), vec![(-1, 1)]);
    }

    #[test]
    fn names_keep_the_same_k_with_exact_counts_however_split() {
        let names: Vec<String> = (0..200).map(|i| format!("acct-{}", i % 40)).collect();
        let mut whole = Names::default();
        for n in &names {
            whole.add(n, 1);
        }
        for cut in [0, 1, 77, 150, 200] {
            let (mut a, mut b) = (Names::default(), Names::default());
            for n in &names[..cut] {
                a.add(n, 1);
            }
            for n in &names[cut..] {
                b.add(n, 1);
            }
            b.merge(a);
            assert_eq!(b.ranked(), whole.ranked(), "cut at {cut}");
        }
        let (kept, more) = whole.ranked();
        assert_eq!(kept.len(), K);
        assert!(more);
        assert!(kept.iter().all(|(_, n)| *n == 5), "exact counts: {kept:?}");
    }

    #[test]
    fn the_hash_is_stable() {
        // Equal names, equal hashes; a change of one byte or of length changes it.
        assert_eq!(stable_hash(b""), 0);
        assert_eq!(stable_hash(b"acct-4411"), stable_hash(b"acct-4411"));
        assert_ne!(stable_hash(b"acct-4411"), stable_hash(b"acct-4412"));
        assert_ne!(stable_hash(b"a"), stable_hash(b"a\0"));
    }

    #[test]
    fn few_names_are_all_kept() {
        let mut n = Names::default();
        for s in ["b", "a", "b"] {
            n.add(s, 1);
        }
        assert_eq!(n.ranked(), (vec![("b", 2), ("a", 1)], false));
    }
}
