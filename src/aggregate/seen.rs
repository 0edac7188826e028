//! Requests seen in another input: an ingress log and the application's own
//! access log both record the request that failed, under the same request
//! id. The request counts once, where it was first read (input order).
//!
//! In: the id hashes of requests, with their input, and the end of each
//! input. Out: whether a request was already seen in an earlier input.
//!
//! The ids of finished inputs are kept as a Bloom filter of fixed size, so
//! memory does not grow with the input (16 MiB per bit array, made only
//! when a request carries an id): with four bits an id and six million ids
//! in earlier inputs, about one request in 1,400 is taken for a repeat when
//! it is none. The inputs being read add to a bit array of their own, which
//! joins the filter when the input ends: a repeat within one input is never
//! dropped, and the answer does not depend on how the input was cut into
//! chunks or threads.
//!
//! ```text
//! ingress.log  req_id 6f1c… -> counted        (input 0 ends: its ids join the filter)
//! app.json     req_id 6f1c… -> seen before: not counted again
//! ```

use std::sync::Arc;

/// Bits in each array: 2^27 (16 MiB).
const BITS: u64 = 1 << 27;
/// Bits set per id.
const HASHES: u64 = 4;

/// The ids of finished inputs, and those of the input being read.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    /// Finished inputs: shared with the workers of the input being read.
    before: Option<Arc<Vec<u64>>>,
    /// This aggregate's part of the input being read.
    current: Option<Vec<u64>>,
}

/// The bit positions of an id hash: mixed first (a fast hash of similar
/// ids leaves patterns), then double hashing from its two halves.
fn positions(id: u64) -> impl Iterator<Item = u64> {
    // splitmix64's finaliser.
    let mut z = id.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    let (a, b) = (z, z.rotate_left(32) | 1);
    (0..HASHES).map(move |i| a.wrapping_add(i.wrapping_mul(b)) % BITS)
}

fn empty() -> Vec<u64> {
    vec![0; (BITS / 64) as usize]
}

impl Seen {
    /// Whether a request with this id was in an earlier input; if not, it
    /// is noted for the inputs after this one.
    pub fn repeat(&mut self, id: u64) -> bool {
        if let Some(before) = &self.before {
            // Positions are below `BITS`, so their words are in the filter.
            let set = |p: u64| {
                before
                    .get((p / 64) as usize)
                    .is_some_and(|w| w & (1 << (p % 64)) != 0)
            };
            if positions(id).all(set) {
                return true;
            }
        }
        let current = self.current.get_or_insert_with(empty);
        for p in positions(id) {
            if let Some(w) = current.get_mut((p / 64) as usize) {
                *w |= 1 << (p % 64);
            }
        }
        false
    }

    /// For a worker of the same input: the finished inputs, nothing of its own.
    pub fn fork(&self) -> Seen {
        Seen {
            before: self.before.clone(),
            current: None,
        }
    }

    /// A worker's ids join this aggregate's.
    pub fn merge(&mut self, other: Seen) {
        if let Some(o) = other.current {
            match &mut self.current {
                Some(c) => c.iter_mut().zip(o).for_each(|(a, b)| *a |= b),
                None => self.current = Some(o),
            }
        }
        if self.before.is_none() {
            self.before = other.before;
        }
    }

    /// The input ends: its ids join the finished inputs'.
    pub fn end_input(&mut self) {
        let Some(current) = self.current.take() else {
            return;
        };
        match &mut self.before {
            Some(before) => Arc::make_mut(before)
                .iter_mut()
                .zip(current)
                .for_each(|(a, b)| *a |= b),
            None => self.before = Some(Arc::new(current)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_counts_once_across_inputs_but_not_within_one() {
        let mut s = Seen::default();
        // Input 0: the same id twice (a retry with the id kept) counts twice.
        assert!(!s.repeat(42));
        assert!(!s.repeat(42));
        s.end_input();
        // Input 1: seen before, whichever worker reads it.
        let mut worker = s.fork();
        assert!(worker.repeat(42));
        assert!(!worker.repeat(7));
        s.merge(worker);
        assert!(s.repeat(42));
        // 7 came from input 1 itself: no repeat until input 1 ends.
        assert!(!s.repeat(7));
        s.end_input();
        assert!(s.repeat(7));
    }

    /// Ids that were never seen are rarely taken for repeats.
    #[test]
    fn unseen_ids_are_not_repeats() {
        let mut s = Seen::default();
        for id in 0..10_000u64 {
            s.repeat(id.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        }
        s.end_input();
        let false_repeats = (10_000..20_000u64)
            .filter(|id| s.repeat(id.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
            .count();
        assert_eq!(false_repeats, 0);
    }
}
