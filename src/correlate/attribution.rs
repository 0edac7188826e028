//! Load attribution: which tenant (or integration) drove the load in the
//! incident window, against its own baseline, and whether one of them is
//! the culprit or the change was everyone's (organic).
//!
//! A culprit is a client whose behaviour changed and whose change explains
//! what ran out. Its behaviour changed: it sent far more requests than its
//! own baseline, or its requests became far more expensive (longer) than its
//! own baseline. It explains what ran out: its share of the servers' busy
//! time (the sum of request durations: connections and workers held), or of
//! the requests where no durations are logged, rose sharply between the
//! baseline and the window, and it holds a large part of it now. A big
//! tenant whose share stayed what it was is not a culprit however large it
//! is, and a small one whose rate doubled is not either: everyone slowing
//! down together, or everyone growing together, is organic.

use crate::aggregate::{AggregateError, Aggregates, Dim, DimStats, Span};

use super::stats::poisson_exceeds;

/// One row of the attribution table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AttributionRow {
    pub value: String,
    /// For tenant rows: the integration that sent most of its requests.
    pub integration: Option<String>,
    pub requests: u64,
    /// Its failed requests in the window (the report's impact states the
    /// culprit's own failures apart from everyone else's).
    pub failed: u64,
    pub baseline_requests: u64,
    pub baseline_rate_per_s: f64,
    pub window_rate_per_s: f64,
    pub rate_ratio: f64,
    pub share_of_requests: f64,
    pub share_of_busy_time: f64,
    /// Its share of the time served requests held the servers, queueing
    /// shared by all left out (busy time when that is not known).
    pub share_of_held_time: f64,
    pub share_of_errors: f64,
    /// Its share of requests and of busy time in the baseline.
    pub baseline_share_of_requests: f64,
    pub baseline_share_of_busy_time: f64,
    /// Mean duration of its requests in the window over that in its baseline
    /// (1 when either has none).
    pub cost_ratio: f64,
    /// The same two ratios for everyone else: what the crowd did.
    pub crowd_rate_ratio: f64,
    pub crowd_cost_ratio: f64,
    /// Mean duration of its requests in the window over that of everyone
    /// else's there (1 when either has none).
    pub cost_over_crowd: f64,
    /// Requests above what its baseline rate explains.
    pub excess_requests: f64,
    pub share_of_excess: f64,
    /// How far its share of the scarce resource rose (busy time where
    /// durations are logged, else requests), window less baseline.
    pub share_shift: f64,
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

    /// Its behaviour changed: far more requests, or far costlier ones, than
    /// its own baseline, and not by chance, and far more so than everyone
    /// else's. When retries, a backlog or a queue double every client's
    /// rate or cost, a client that doubled with them changed nothing of its
    /// own (seed 1521006: a tenant with 3% of the requests, at 2.4x like
    /// all the others, was named the culprit of a crash loop).
    pub fn changed(&self) -> bool {
        let more = self.rate_ratio >= CHANGE_RATIO
            && self.rate_ratio >= CHANGE_RATIO * self.crowd_rate_ratio
            && self.excess_requests > 0.0;
        // Costlier than everyone's got, or, where a queue made everyone's
        // requests costlier together, costing far more than everyone
        // else's now: a slow integration waits in the same queue as the
        // rest and then holds its connection for seconds of its own work.
        let costlier = self.cost_ratio >= CHANGE_RATIO
            && (self.cost_ratio >= CHANGE_RATIO * self.crowd_cost_ratio
                || self.cost_over_crowd >= CHANGE_RATIO)
            && self.requests >= MIN_COSTLY_REQUESTS;
        more || costlier
    }

    /// It ran the service out by sheer numbers: most of the window's
    /// requests and most of the requests above baseline are its own, at a
    /// rate far beyond its own and everyone else's change. Held time cannot
    /// say so where every request waited in one queue: its work is then
    /// hidden in waits the crowd shares (bulk-export draw 895307, a tenant
    /// with 61% of the requests at 1530x its rate, held 13% of the pool
    /// by that estimate and was no culprit).
    pub fn by_volume(&self) -> bool {
        self.share_of_requests >= MIN_CULPRIT_SHARE
            && self.share_of_excess >= SINGLE_CULPRIT_SHARE
            && self.share_of_requests - self.baseline_share_of_requests >= MIN_SHARE_SHIFT
            && self.rate_ratio >= CHANGE_RATIO * self.crowd_rate_ratio.max(1.0)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attribution {
    pub dimension: &'static str,
    /// No single client explains the incident (`rows[0]` is no culprit).
    pub organic: bool,
    /// `rows[0]` is the culprit.
    pub culprit: bool,
    /// The window's total request rate is significantly above the baseline's.
    pub grew: bool,
    /// Whether durations were logged (shares are of busy time, else of requests).
    pub timed: bool,
    pub rows: Vec<AttributionRow>,
    pub window: Option<Span>,
    pub window_requests: u64,
    /// Failed requests in the window, over every value.
    pub window_failed: u64,
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
/// A client's rate or per-request cost must at least double against its own
/// baseline for its behaviour to count as changed: a doubling is what "far
/// above" means at the smallest, and the Poisson test keeps chance out.
pub const CHANGE_RATIO: f64 = 2.0;
/// Costlier requests count once there are enough of them to weigh: a
/// handful of slow requests is noise, not a client holding the servers.
const MIN_COSTLY_REQUESTS: u64 = 20;
/// A culprit's share of the scarce resource rises by at least a quarter of
/// the whole: less than that, and most of what ran out is someone else's.
pub const MIN_SHARE_SHIFT: f64 = 0.25;
/// And it sent at least this share of the window's requests. Held time is
/// estimated from a client's fastest served requests; a client with a few
/// dozen requests, every one of which waited in the pool's queue, has no
/// fast ones, and its waiting reads as work: a tenant with 0.1% of the
/// requests was blamed for a pool its neighbour held. Hogs that matter
/// send a few percent of the requests or more (seed 003: 4%).
pub const MIN_CULPRIT_REQUESTS: f64 = 0.01;
/// And it holds most of the resource in the window: one client explains
/// a pool running out only where it held more of it than everyone else
/// together. At a third, a tenant whose held time the queue inflated (34%
/// estimated, 3% in the simulation; thundering-herd seed 9990000) was
/// named beside a herd that no tenant caused.
pub const MIN_CULPRIT_SHARE: f64 = 0.5;

/// The total request rate grew when the window's is at least this many
/// times the baseline's.
pub const GREW_RATIO: f64 = 1.5;

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
    let busy_b: f64 = stats.iter().map(|s| s.baseline_busy_ms).sum();
    // What ran out is judged on held time: durations of served requests
    // less the queueing every request of their second shared. While a pool
    // is exhausted, every request's duration grows by the wait, so busy
    // time spreads the blame over everyone waiting behind the one client
    // that holds the connections.
    let held_w: f64 = stats.iter().map(|s| s.window_held_ms).sum();
    let held_b: f64 = stats.iter().map(|s| s.baseline_held_ms).sum();
    let held_known = held_w > 0.0 && held_b > 0.0;
    let failed_w: u64 = stats.iter().map(|s| s.window_failed).sum();
    let timed = busy_w > 0.0 && busy_b > 0.0;
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
            let cost_w = frac(s.window_busy_ms, s.window_requests as f64);
            let cost_b = frac(s.baseline_busy_ms, s.baseline_requests as f64);
            let share_req = frac(s.window_requests as f64, total_w as f64);
            let share_busy = frac(s.window_busy_ms, busy_w);
            let base_req = frac(s.baseline_requests as f64, total_b as f64);
            let base_busy = frac(s.baseline_busy_ms, busy_b);
            // Everyone else, as one client.
            let crowd_w = total_w.saturating_sub(s.window_requests) as f64;
            let crowd_b = total_b.saturating_sub(s.baseline_requests) as f64;
            let crowd_rate = frac(crowd_w / wsecs, (crowd_b + 1.0) / bsecs);
            let crowd_cost_w = frac((busy_w - s.window_busy_ms).max(0.0), crowd_w);
            let crowd_cost_b = frac((busy_b - s.baseline_busy_ms).max(0.0), crowd_b);
            AttributionRow {
                value: s.value.clone(),
                integration: None,
                requests: s.window_requests,
                failed: s.window_failed,
                baseline_requests: s.baseline_requests,
                baseline_rate_per_s: baseline_rate,
                window_rate_per_s: window_rate,
                rate_ratio: ratio,
                share_of_requests: share_req,
                share_of_busy_time: share_busy,
                share_of_held_time: if held_known {
                    frac(s.window_held_ms, held_w)
                } else {
                    share_busy
                },
                share_of_errors: frac(s.window_failed as f64, failed_w as f64),
                baseline_share_of_requests: base_req,
                baseline_share_of_busy_time: base_busy,
                cost_ratio: if cost_w > 0.0 && cost_b > 0.0 {
                    cost_w / cost_b
                } else {
                    1.0
                },
                crowd_rate_ratio: crowd_rate,
                cost_over_crowd: if cost_w > 0.0 && crowd_cost_w > 0.0 {
                    cost_w / crowd_cost_w
                } else {
                    1.0
                },
                crowd_cost_ratio: if crowd_cost_w > 0.0 && crowd_cost_b > 0.0 {
                    crowd_cost_w / crowd_cost_b
                } else {
                    1.0
                },
                excess_requests: if poisson_exceeds(s.window_requests as f64, expected) {
                    excess
                } else {
                    0.0
                },
                share_of_excess: 0.0,
                share_shift: if timed && held_known {
                    frac(s.window_held_ms, held_w) - frac(s.baseline_held_ms, held_b)
                } else if timed {
                    share_busy - base_busy
                } else {
                    share_req - base_req
                },
                blame: 0.0,
            }
        })
        .collect();
    let total_excess: f64 = rows.iter().map(|r| r.excess_requests).sum();
    for r in &mut rows {
        r.share_of_excess = frac(r.excess_requests, total_excess);
        // Blame orders the table: how far its share of what ran out rose,
        // then who explains the extra requests, then who holds most now.
        let held = if timed {
            r.share_of_held_time
        } else {
            r.share_of_requests
        };
        r.blame = r.share_shift.max(0.0) + 0.25 * r.share_of_excess + 0.1 * held;
    }
    rows.sort_by(|a, b| {
        b.blame
            .total_cmp(&a.blame)
            .then(b.requests.cmp(&a.requests))
            .then(a.value.cmp(&b.value))
    });
    let culprit = rows.first().is_some_and(|r| {
        let held = if timed {
            r.share_of_held_time
        } else {
            r.share_of_requests
        };
        let by_held = r.share_shift >= MIN_SHARE_SHIFT && held >= MIN_CULPRIT_SHARE;
        r.changed() && r.share_of_requests >= MIN_CULPRIT_REQUESTS && (by_held || r.by_volume())
    });
    let baseline_rate = total_b as f64 / bsecs;
    let window_rate = total_w as f64 / wsecs;
    // Grew means by a good part, not by chance: a tenth more traffic in a
    // busy hour passes the Poisson test but is no "organic growth".
    let grew = poisson_exceeds(total_w as f64, baseline_rate * wsecs)
        && window_rate >= GREW_RATIO * baseline_rate;
    let distinct = stats.len();
    let with_failures = stats.iter().filter(|s| s.window_failed > 0).count();
    let active = stats.iter().filter(|s| s.window_requests > 0).count();
    rows.truncate(MAX_ROWS);
    Attribution {
        dimension,
        organic: !culprit,
        culprit,
        grew,
        timed,
        rows,
        window: Some(window),
        window_requests: total_w,
        window_failed: failed_w,
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

    /// A value with `w` requests in the window and `b` in the baseline, each
    /// taking `ms_w` and `ms_b` milliseconds.
    fn stat(value: &str, w: u64, b: u64, ms_w: f64, ms_b: f64) -> DimStats {
        DimStats {
            value: value.into(),
            window_requests: w,
            window_failed: 0,
            window_busy_ms: w as f64 * ms_w,
            baseline_requests: b,
            baseline_busy_ms: b as f64 * ms_b,
            // No queueing: all of a duration is work.
            window_held_ms: w as f64 * ms_w,
            baseline_held_ms: b as f64 * ms_b,
            total_requests: w + b,
        }
    }

    #[test]
    fn the_client_holding_the_pool_is_blamed_though_everyone_waited() {
        // Everyone's requests waited about 8 s for a connection in the
        // window; only `hog`'s then held one, for 20 s each. By busy time
        // it has a third of the whole; by what it held, nearly all of it.
        let a = pool_held_by_hog(50.0);
        assert!(a.rows[0].share_of_busy_time < 0.45);
        assert_eq!(a.rows[0].value, "hog");
        assert!(a.culprit, "{:?}", a.rows[0]);
    }

    /// A slow integration at 1.3x its rate, its requests always ten times
    /// the others' and now holding connections for 20 s each: the queue
    /// behind it made everyone else's requests 160x slower, more than its
    /// own rose. It is still the one whose requests cost far more than the
    /// rest's, and it holds the pool.
    #[test]
    fn a_slow_integration_is_blamed_though_the_queue_slowed_everyone_more() {
        let a = pool_held_by_hog(500.0);
        let r = &a.rows[0];
        assert_eq!(r.value, "hog");
        assert!(r.cost_ratio < CHANGE_RATIO * r.crowd_cost_ratio, "{r:?}");
        assert!(r.rate_ratio < CHANGE_RATIO, "{r:?}");
        assert!(a.culprit, "{r:?}");
    }

    /// Retries into a crash loop: every tenant sends 2.4x its rate and
    /// waits 10x its usual, and one small tenant's few served requests all
    /// came out of the queue, so its held time looks like most of it. It
    /// did what everyone did: no culprit.
    #[test]
    fn a_client_that_changed_as_everyone_did_is_no_culprit() {
        let mut small = stat("small", 240, 1000, 500.0, 50.0);
        small.window_held_ms = 60.0 * 4_000.0;
        let mut rest = stat("everyone-else", 7200, 30_000, 500.0, 50.0);
        rest.window_held_ms = 2000.0 * 50.0;
        let a = attribute(&[small, rest]);
        assert_eq!(a.rows[0].value, "small");
        assert!(a.rows[0].share_of_held_time > 0.5);
        assert!(!a.rows[0].changed(), "{:?}", a.rows[0]);
        assert!(!a.culprit && a.organic);
    }

    /// Everyone's requests waited about 8 s for a connection in the window;
    /// `hog`'s (200 against 1500 in the baseline, `hog_baseline_ms` each
    /// there) then held one for 20 s each.
    fn pool_held_by_hog(hog_baseline_ms: f64) -> Attribution {
        let mut hog = stat("hog", 200, 1500, 28_000.0, hog_baseline_ms);
        hog.window_held_ms = 200.0 * 20_000.0;
        let mut rest = stat("everyone-else", 1000, 10_000, 8_000.0, 50.0);
        rest.window_held_ms = 1000.0 * 10.0;
        attribute(&[hog, rest])
    }

    /// 100 s window, 1000 s baseline.
    fn attribute(stats: &[DimStats]) -> Attribution {
        build(stats, Span::new(1000, 1100), Span::new(0, 1000), "tenant")
    }

    /// Everyone's served requests waited ~30 s in one queue, so the held
    /// estimate gives the surging client a small share; 60% of the
    /// requests at 500x its rate are its own, and it is named for them.
    /// The same share of requests at the crowd's own growth names no one.
    #[test]
    fn a_surge_whose_work_the_queue_hides_is_blamed_by_volume() {
        let mut surger = stat("surger", 6000, 10, 30_000.0, 1_500.0);
        surger.window_held_ms = 600.0 * 30_000.0;
        let mut rest = stat("everyone-else", 4000, 30_000, 33_000.0, 80.0);
        rest.window_held_ms = 4000.0 * 30_000.0;
        let a = attribute(&[surger, rest]);
        assert_eq!(a.rows[0].value, "surger");
        assert!(a.rows[0].share_of_held_time < 0.5);
        assert!(a.culprit && !a.organic, "{:?}", a.rows[0]);

        let mut big = stat("big", 6000, 20_000, 30_000.0, 80.0);
        big.window_held_ms = 600.0 * 30_000.0;
        let mut rest = stat("everyone-else", 4000, 14_000, 33_000.0, 80.0);
        rest.window_held_ms = 4000.0 * 30_000.0;
        let a = attribute(&[big, rest]);
        assert!(!a.culprit && a.organic, "{:?}", a.rows);
    }

    #[test]
    fn one_surging_tenant_is_blamed() {
        let a = attribute(&[
            stat("big-but-steady", 1000, 10_000, 80.0, 40.0),
            stat("surger", 5000, 10, 90.0, 40.0),
            stat("small", 10, 100, 80.0, 40.0),
        ]);
        assert_eq!(a.rows[0].value, "surger");
        assert!(a.culprit && !a.organic);
        assert!(a.grew);
        assert!(a.rows[0].rate_ratio > 100.0);
        assert!(a.rows[0].share_of_excess > 0.99);
    }

    #[test]
    fn growth_spread_over_everyone_is_organic() {
        let stats: Vec<DimStats> = (0..20)
            .map(|i| stat(&format!("t{i:02}"), 300, 1000, 200.0, 40.0))
            .collect();
        let a = attribute(&stats);
        assert!(a.grew);
        assert!(a.organic && !a.culprit);
    }

    #[test]
    fn a_big_tenant_slowing_down_with_everyone_is_no_culprit() {
        // Everyone's requests take 25x longer (a stuck dependency); the
        // biggest tenant keeps its 60% share.
        let a = attribute(&[
            stat("big", 600, 6000, 1000.0, 40.0),
            stat("mid", 300, 3000, 1000.0, 40.0),
            stat("small", 100, 1000, 1000.0, 40.0),
        ]);
        assert!(a.organic && !a.culprit, "{:?}", a.rows[0]);
    }

    #[test]
    fn a_client_whose_requests_became_costly_is_the_culprit() {
        // A few more requests than usual, each 50x its usual duration: most
        // of the busy time.
        let a = attribute(&[
            stat("steady", 900, 9000, 300.0, 40.0),
            stat("slow-integration", 120, 1000, 4000.0, 80.0),
        ]);
        assert_eq!(a.rows[0].value, "slow-integration");
        assert!(a.culprit, "{:?}", a.rows[0]);
        assert!(a.rows[0].cost_ratio > 40.0);
    }

    #[test]
    fn a_small_client_doubling_is_no_culprit() {
        let a = attribute(&[
            stat("steady", 1000, 10_000, 40.0, 40.0),
            stat("doubled", 40, 200, 40.0, 40.0),
        ]);
        assert!(!a.culprit, "{:?}", a.rows[0]);
    }
}
