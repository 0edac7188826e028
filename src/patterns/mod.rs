//! Cascade patterns: one detector per file, named after its id in
//! `patterns.md`. Each reads the analysis and pushes [`Finding`]s with
//! evidence; none formats the report.
//!
//! In: [`Aggregates`] and the [`Analysis`]. Out: findings sorted by
//! confidence, highest first.
//!
//! ```text
//! Analysis { attribution: acct-4411 x9000, pool saturated 3/3, ... } -> [tenant_surge 0.95, pool_exhaustion 0.95, ...]
//! ```

mod backlog_growth;
mod crash_loop;
mod deploy_verdict;
mod finding;
mod health_check_coupling;
mod leak;
mod pool_exhaustion;
pub(crate) mod retry_storm;
mod slow_request_hogging;
mod stuck_instance;
mod synchronized_restart;
mod tenant_surge;
mod thundering_herd;
mod upstream_rate_limit;

pub use finding::{Evidence, Finding, Subject, SUPPORTED};

use crate::aggregate::Aggregates;
use crate::correlate::Analysis;

/// What every detector reads.
pub struct Context<'a> {
    pub agg: &'a Aggregates,
    pub analysis: &'a Analysis,
}

impl Context<'_> {
    /// Instances (canonical) whose own logs said, in `window`, that their
    /// pool ran out (HikariCP's "Connection is not available", ...).
    pub fn pool_exhaustion_logged(
        &self,
        window: crate::aggregate::Span,
    ) -> std::collections::BTreeSet<String> {
        self.agg
            .signal_counts(crate::event::Signal::PoolExhausted)
            .into_iter()
            .filter(|(inst, s, _)| !inst.is_empty() && window.contains(*s))
            .map(|(inst, _, _)| self.analysis.ids.canonical(&inst))
            .collect()
    }
}

type Detector = fn(&Context<'_>, &mut Vec<Finding>);

/// Every detector, by pattern id.
pub const DETECTORS: [(&str, Detector); 12] = [
    (tenant_surge::ID, tenant_surge::detect),
    (pool_exhaustion::ID, pool_exhaustion::detect),
    (health_check_coupling::ID, health_check_coupling::detect),
    (synchronized_restart::ID, synchronized_restart::detect),
    (retry_storm::ID, retry_storm::detect),
    (stuck_instance::ID, stuck_instance::detect),
    (crash_loop::ID, crash_loop::detect),
    (slow_request_hogging::ID, slow_request_hogging::detect),
    (upstream_rate_limit::ID, upstream_rate_limit::detect),
    (backlog_growth::ID, backlog_growth::detect),
    (thundering_herd::ID, thundering_herd::detect),
    // One detector weighs a deploy both ways and emits one of the two ids.
    (deploy_verdict::REGRESSION, deploy_verdict::detect),
];

/// Run every detector.
pub fn detect(agg: &Aggregates, analysis: &Analysis) -> Vec<Finding> {
    let cx = Context { agg, analysis };
    let mut findings = Vec::new();
    for (_, d) in DETECTORS {
        d(&cx, &mut findings);
    }
    findings.sort_by(|a, b| {
        b.confidence
            .total_cmp(&a.confidence)
            .then(a.pattern.cmp(b.pattern))
    });
    findings
}
