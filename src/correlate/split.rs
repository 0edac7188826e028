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

/// The second `p` in `(a, b)` that best splits a count into two Poisson
/// rates per unit expected, the rate moving `step`: the one maximising the
/// log-likelihood ratio `c1 ln(c1/e1) + c2 ln(c2/e2) - c ln(c/e)` of two
/// rates against one. A step up begins at a second with a count, a step
/// down right after one. `counts` and `expected` are prefix sums.
///
/// Least squares ([`best_split`]) suits durations; on counts of a few
/// failures against almost none expected, it weighs one failure alone in
/// its second above a trickle of a dozen over two minutes, and a canary's
/// failures were dated from the last of them (canary draw 895314, 2 min
/// late). The likelihood ratio weighs a rate by how many events carry it.
pub fn best_count_split(
    counts: &[f64],
    expected: &[f64],
    a: usize,
    b: usize,
    step: Step,
) -> Option<usize> {
    let b = b.min(expected.len().saturating_sub(1));
    let ll = |c: f64, e: f64| {
        if c > 0.0 && e > 0.0 {
            c * (c / e).ln()
        } else {
            0.0
        }
    };
    let (c, e) = (range_sum(counts, a, b), range_sum(expected, a, b));
    let whole = ll(c, e);
    let mut best: Option<(f64, usize)> = None;
    for p in (a + 1)..b {
        let edge = match step {
            Step::Up => range_sum(counts, p, p + 1),
            Step::Down => range_sum(counts, p - 1, p),
        };
        if edge <= 0.0 {
            continue;
        }
        let (c1, e1) = (range_sum(counts, a, p), range_sum(expected, a, p));
        let (c2, e2) = (range_sum(counts, p, b), range_sum(expected, p, b));
        if e1 <= 0.0 || e2 <= 0.0 {
            continue;
        }
        let moved = match step {
            Step::Up => c2 / e2 > c1 / e1,
            Step::Down => c2 / e2 < c1 / e1,
        };
        if !moved {
            continue;
        }
        let score = ll(c1, e1) + ll(c2, e2) - whole;
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

    /// A trickle of failures, one every ten seconds from second 120, and
    /// nearly none expected: the rate steps up at the first of them, not
    /// at a last one alone in its second at the window's edge. And it steps
    /// down after the last.
    #[test]
    fn a_trickle_of_counts_steps_up_at_its_first() {
        let counts: Vec<f64> = (0..240)
            .map(|i| if i >= 120 && i % 10 == 0 { 1.0 } else { 0.0 })
            .collect();
        let (pc, pe) = (prefix(&counts), prefix(&[0.002; 240]));
        assert_eq!(best_count_split(&pc, &pe, 0, 240, Step::Up), Some(120));
        let tail: Vec<f64> = (0..240)
            .map(|i| if i < 120 && i % 10 == 0 { 1.0 } else { 0.0 })
            .collect();
        let pt = prefix(&tail);
        assert_eq!(best_count_split(&pt, &pe, 0, 240, Step::Down), Some(111));
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
