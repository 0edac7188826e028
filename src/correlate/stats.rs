//! Robust statistics for baselines: medians and MADs (one outage in the
//! baseline does not move them), Poisson tests for counts, forward window sums.

/// The median of `v` (NaNs ignored); 0 for an empty slice.
pub fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return 0.0;
    }
    s.sort_by(f64::total_cmp);
    // `s` is not empty, so `mid` is in it, and so is `mid - 1` when the length is even.
    let mid = s.len() / 2;
    let at = |i: usize| s.get(i).copied().unwrap_or(0.0);
    if s.len() % 2 == 1 {
        at(mid)
    } else {
        (at(mid - 1) + at(mid)) / 2.0
    }
}

/// Median absolute deviation, scaled to estimate a standard deviation.
pub fn mad(v: &[f64], med: f64) -> f64 {
    let dev: Vec<f64> = v
        .iter()
        .filter(|x| x.is_finite())
        .map(|x| (x - med).abs())
        .collect();
    1.4826 * median(&dev)
}

/// Whether a count is too high to be chance for a Poisson process with this
/// expected value: above the mean by four standard deviations plus a small
/// absolute margin, so that a handful of events where none were expected
/// (a few scattered errors) is not called an anomaly.
pub fn poisson_exceeds(observed: f64, expected: f64) -> bool {
    observed > expected + 4.0 * expected.max(0.0).sqrt() + 3.0
}

/// Sums over the forward window `[i, i + w)` for each `i`.
pub fn forward_sums(v: &[f64], w: usize) -> Vec<f64> {
    let mut out = vec![0.0; v.len()];
    let mut acc = 0.0;
    for (i, (o, x)) in out.iter_mut().zip(v).enumerate().rev() {
        acc += x;
        if let Some(gone) = v.get(i + w) {
            acc -= gone;
        }
        *o = acc;
    }
    out
}

/// Prefix sums of `v`: `out[k]` is the sum of the first `k` values (one
/// longer than `v`, starting at zero).
pub fn prefix_sums(v: impl IntoIterator<Item = f64>) -> Vec<f64> {
    std::iter::once(0.0)
        .chain(v.into_iter().scan(0.0, |acc, x| {
            *acc += x;
            Some(*acc)
        }))
        .collect()
}

/// The sum of values `[a, b)` from their [`prefix_sums`]; zero for a range
/// that is not inside them.
pub fn range_sum(prefix: &[f64], a: usize, b: usize) -> f64 {
    match (prefix.get(a), prefix.get(b)) {
        (Some(lo), Some(hi)) => hi - lo,
        _ => 0.0,
    }
}

/// The value at quantile `q` (0..=1) by nearest rank.
pub fn quantile(v: &[f64], q: f64) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return 0.0;
    }
    s.sort_by(f64::total_cmp);
    // With `q` clamped, the rank is inside `s`.
    let idx = ((s.len() as f64 - 1.0) * q.clamp(0.0, 1.0)).round() as usize;
    s.get(idx).copied().unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn robust_stats() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[1.0, 2.0, 3.0, 100.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
        // One huge outlier moves neither.
        let v = [10.0, 11.0, 9.0, 10.0, 1000.0];
        assert_eq!(median(&v), 10.0);
        assert!((mad(&v, 10.0) - 1.4826).abs() < 1e-9);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.5), 3.0);
    }

    #[test]
    fn poisson_thresholds() {
        assert!(
            !poisson_exceeds(3.0, 0.0),
            "three stray events are not an anomaly"
        );
        assert!(poisson_exceeds(4.0, 0.0));
        assert!(!poisson_exceeds(110.0, 100.0));
        assert!(poisson_exceeds(150.0, 100.0));
    }

    #[test]
    fn forward_window_sums() {
        assert_eq!(
            forward_sums(&[1.0, 2.0, 3.0, 4.0], 2),
            vec![3.0, 5.0, 7.0, 4.0]
        );
    }
}
