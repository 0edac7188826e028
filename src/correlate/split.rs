//! Where, inside a stretch of seconds, a mean steps up or down: the single
//! split that best separates the durations before from those after (the
//! split of least squares, as in binary segmentation). Used to place the
//! edges of a slowdown found on long windows, where a window reaching into
//! it would otherwise date it from the window's start.
//!
//! In: prefix sums of busy time and of timed requests per second, a range
//! of seconds. Out: the second at which the mean changes, if it does in the
//! asked direction.

use super::stats::range_sum;

/// Which way the mean moves at the split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Up,
    Down,
}

/// The second `p` in `(a, b)` holding a timed request that best splits
/// `[a, p)` from `[p, b)` with the mean moving `step`: the one maximising
/// `n1 n2 / (n1 + n2) (m2 - m1)^2`, the reduction of the squared error when
/// the two parts get a mean each. `busy` and `timed` are prefix sums (one
/// longer than the seconds). Ties go to the earlier second.
pub fn best_split(busy: &[f64], timed: &[f64], a: usize, b: usize, step: Step) -> Option<usize> {
    let b = b.min(timed.len().saturating_sub(1));
    let mut best: Option<(f64, usize)> = None;
    for p in (a + 1)..b {
        if range_sum(timed, p, p + 1) <= 0.0 {
            continue;
        }
        let (n1, n2) = (range_sum(timed, a, p), range_sum(timed, p, b));
        if n1 <= 0.0 || n2 <= 0.0 {
            continue;
        }
        let (m1, m2) = (range_sum(busy, a, p) / n1, range_sum(busy, p, b) / n2);
        let moved = match step {
            Step::Up => m2 > m1,
            Step::Down => m2 < m1,
        };
        if !moved {
            continue;
        }
        let score = n1 * n2 / (n1 + n2) * (m2 - m1).powi(2);
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, p));
        }
    }
    best.map(|(_, p)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefix(v: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0];
        for x in v {
            out.push(out[out.len() - 1] + x);
        }
        out
    }

    #[test]
    fn a_step_up_is_found_where_it_is() {
        // One request a second: 40 ms (with a 400 ms one every sixth) until
        // second 50, 400 ms from then on.
        let busy: Vec<f64> = (0..100)
            .map(|i| if i >= 50 || i % 6 == 0 { 400.0 } else { 40.0 })
            .collect();
        let (pb, pt) = (prefix(&busy), prefix(&[1.0; 100]));
        assert_eq!(best_split(&pb, &pt, 0, 100, Step::Up), Some(50));
        // A flat series has no step either way.
        let (fb, ft) = (prefix(&[40.0; 100]), prefix(&[1.0; 100]));
        assert_eq!(best_split(&fb, &ft, 0, 100, Step::Up), None);
        assert_eq!(best_split(&fb, &ft, 0, 100, Step::Down), None);
    }

    #[test]
    fn a_step_down_is_found_on_sparse_seconds() {
        let busy: Vec<f64> = (0..200)
            .map(|i| match (i % 4, i < 120) {
                (0, true) => 900.0,
                (0, false) => 50.0,
                _ => 0.0,
            })
            .collect();
        let timed: Vec<f64> = (0..200).map(|i| f64::from(i % 4 == 0)).collect();
        let (pb, pt) = (prefix(&busy), prefix(&timed));
        assert_eq!(best_split(&pb, &pt, 0, 200, Step::Down), Some(120));
    }
}
