//! Load attribution: which tenant (or integration) drove the load in the
//! incident window, against its own baseline, and whether the growth was
//! one client's or everyone's (organic).

use crate::aggregate::{AggregateError, Aggregates, Dim, DimStats, Span};

use super::stats::poisson_exceeds;

/// One row of the attribution table.
#[derive(Clone, Debug, PartialEq)]
pub struct AttributionRow {
    pub value: String,
    /// For tenant rows: the integration that sent most of its requests.
    pub integration: Option<String>,
    pub requests: u64,
    pub baseline_rate_per_s: f64,
    pub window_rate_per_s: f64,
    pub rate_ratio: f64,
    pub share_of_requests: f64,
    pub share_of_busy_time: f64,
    pub share_of_errors: f64,
    /// Requests above what its baseline rate explains.
    pub excess_requests: f64,
    pub share_of_excess: f64,
    pub blame: f64,
}

impl AttributionRow {
    /// How findings name the row: `` `acct-4411` (integration `acme-exporter`) ``.
    pub fn label(&self) -> String {
        match &self.integration {
            Some(i) => format!("`{}` (integration `{i}`)", self.value),
            None => format!("`{}`", self.value),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attribution {
    pub dimension: &'static str,
    pub organic: bool,
    /// The window's total request rate is significantly above the baseline's.
    pub grew: bool,
    pub rows: Vec<AttributionRow>,
    pub window: Option<Span>,
    pub window_requests: u64,
    pub baseline_rate_per_s: f64,
    pub window_rate_per_s: f64,
    /// Values in the dimension (all of them, not only the rows kept).
    pub distinct: usize,
    /// Values with at least one failed request in the window.
    pub with_failures: usize,
    /// Values with at least one request in the window.
    pub active: usize,
}

/// Rows kept in the report.
pub const MAX_ROWS: usize = 15;
/// The top contributor must explain at least this share of the excess for
/// the growth to be pinned on it; below it the growth is spread (organic).
pub const SINGLE_CULPRIT_SHARE: f64 = 0.5;

pub fn attribute(
    agg: &Aggregates,
    window: Span,
    baseline: Span,
) -> Result<Attribution, AggregateError> {
    let (dim, name) = if agg.has_values(Dim::Tenant) {
        (Dim::Tenant, "tenant")
    } else {
        (Dim::Integration, "integration")
    };
    let stats = agg.dim_stats(dim, window, baseline)?;
    let mut a = build(&stats, window, baseline, name);
    if dim == Dim::Tenant {
        for r in &mut a.rows {
            r.integration = agg.main_integration(&r.value);
        }
    }
    Ok(a)
}

/// The attribution from per-value statistics.
pub fn build(
    stats: &[DimStats],
    window: Span,
    baseline: Span,
    dimension: &'static str,
) -> Attribution {
    let wsecs = window.secs().max(1.0);
    let bsecs = baseline.secs().max(1.0);
    let total_w: u64 = stats.iter().map(|s| s.window_requests).sum();
    let total_b: u64 = stats.iter().map(|s| s.baseline_requests).sum();
    let busy_w: f64 = stats.iter().map(|s| s.window_busy_ms).sum();
    let failed_w: u64 = stats.iter().map(|s| s.window_failed).sum();
    let mut rows: Vec<AttributionRow> = stats
        .iter()
        .filter(|s| s.window_requests > 0)
        .map(|s| {
            let baseline_rate = s.baseline_requests as f64 / bsecs;
            let window_rate = s.window_requests as f64 / wsecs;
            // One request added to the baseline keeps the ratio finite for
            // values that were silent before, without inflating busy ones.
            let ratio = window_rate / ((s.baseline_requests as f64 + 1.0) / bsecs);
            let expected = baseline_rate * wsecs;
            let excess = (s.window_requests as f64 - expected).max(0.0);
            AttributionRow {
                value: s.value.clone(),
                integration: None,
                requests: s.window_requests,
                baseline_rate_per_s: baseline_rate,
                window_rate_per_s: window_rate,
                rate_ratio: ratio,
                share_of_requests: frac(s.window_requests as f64, total_w as f64),
                share_of_busy_time: frac(s.window_busy_ms, busy_w),
                share_of_errors: frac(s.window_failed as f64, failed_w as f64),
                excess_requests: if poisson_exceeds(s.window_requests as f64, expected) {
                    excess
                } else {
                    0.0
                },
                share_of_excess: 0.0,
                blame: 0.0,
            }
        })
        .collect();
    let total_excess: f64 = rows.iter().map(|r| r.excess_requests).sum();
    for r in &mut rows {
        r.share_of_excess = frac(r.excess_requests, total_excess);
        // Blame: who explains the extra load, who held the servers busy, and
        // (a little) who the failures fell on.
        r.blame =
            0.5 * r.share_of_excess + 0.35 * r.share_of_busy_time + 0.15 * r.share_of_requests;
    }
    rows.sort_by(|a, b| {
        b.blame
            .total_cmp(&a.blame)
            .then(b.requests.cmp(&a.requests))
            .then(a.value.cmp(&b.value))
    });
    let baseline_rate = total_b as f64 / bsecs;
    let window_rate = total_w as f64 / wsecs;
    let grew = poisson_exceeds(total_w as f64, baseline_rate * wsecs);
    let top_excess = rows.iter().map(|r| r.share_of_excess).fold(0.0, f64::max);
    let distinct = stats.len();
    let with_failures = stats.iter().filter(|s| s.window_failed > 0).count();
    let active = stats.iter().filter(|s| s.window_requests > 0).count();
    rows.truncate(MAX_ROWS);
    Attribution {
        dimension,
        organic: grew && top_excess < SINGLE_CULPRIT_SHARE,
        grew,
        rows,
        window: Some(window),
        window_requests: total_w,
        baseline_rate_per_s: baseline_rate,
        window_rate_per_s: window_rate,
        distinct,
        with_failures,
        active,
    }
}

fn frac(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(value: &str, w: u64, b: u64, busy: f64) -> DimStats {
        DimStats {
            value: value.into(),
            window_requests: w,
            window_failed: 0,
            window_busy_ms: busy,
            baseline_requests: b,
            baseline_busy_ms: 0.0,
            total_requests: w + b,
        }
    }

    #[test]
    fn one_surging_tenant_is_blamed() {
        // 100 s window, 1000 s baseline.
        let stats = vec![
            stat("big-but-steady", 1000, 10_000, 1000.0),
            stat("surger", 5000, 10, 50_000.0),
            stat("small", 10, 100, 10.0),
        ];
        let a = build(&stats, Span::new(1000, 1100), Span::new(0, 1000), "tenant");
        assert_eq!(a.rows[0].value, "surger");
        assert!(!a.organic);
        assert!(a.grew);
        assert!(a.rows[0].rate_ratio > 100.0);
        assert!(a.rows[0].share_of_excess > 0.99);
    }

    #[test]
    fn growth_spread_over_everyone_is_organic() {
        let stats: Vec<DimStats> = (0..20)
            .map(|i| stat(&format!("t{i:02}"), 300, 1000, 100.0))
            .collect();
        let a = build(&stats, Span::new(1000, 1100), Span::new(0, 1000), "tenant");
        assert!(a.grew);
        assert!(a.organic);
    }
}
