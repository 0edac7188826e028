//! Ruled out: what the data shows did not cause it, each with its figure. A
//! deploy that lands near the onset but does not explain it (a red
//! herring), organic growth when one client explains the load, one client
//! when the growth is spread, one bad instance when every instance suffered
//! alike, a change when none is in the inputs.
//!
//! In: the [`Draft`]. Out: the section's bullets, or a line saying the data
//! rules nothing out.
//!
//! ```text
//! culprit acct-4411, others 4,426 requests in 281 s, 16.3 req/s in the baseline
//!   -> "- **Organic growth:** everyone else together sent 15.8 req/s in the window against 16.3 req/s before."
//! ```

use std::fmt::Write;

use super::cascade::certainty;
use super::{lower_first, Draft};
use crate::correlate::TimelineKind;
use crate::patterns::SUPPORTED;

/// A rate as the draft writes it: whole above 10 per second, else to a tenth.
pub(crate) fn rate(v: f64) -> String {
    if v >= 10.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

pub(crate) fn section(out: &mut String, d: &Draft<'_>) {
    let r = d.r;
    let _ = writeln!(out, "## Ruled out\n");
    if !r.incident.found {
        let _ = writeln!(out, "Nothing to rule out: no incident was found.\n");
        return;
    }
    let mut items: Vec<String> = Vec::new();
    for f in r
        .findings
        .iter()
        .filter(|f| f.pattern == "red_herring_deploy" && f.confidence >= SUPPORTED)
    {
        let why = f
            .evidence
            .iter()
            .map(|e| e.text.trim_end_matches('.'))
            .take(2)
            .collect::<Vec<_>>()
            .join("; ");
        items.push(format!(
            "**The change:** {} ({}, {:.2}): {why}.",
            lower_first(f.title.trim_end_matches('.')),
            certainty(f.confidence),
            f.confidence
        ));
    }
    if let Some(c) = d.culprit.filter(|c| c.window_s > 0 && c.baseline_s > 0) {
        // Everyone else's rate against everyone else's baseline: a ratio of
        // like with like, the culprit taken out of both.
        let others_now = c.others_requests as f64 / c.window_s as f64;
        let culprit_before = c.baseline_requests as f64 / c.baseline_s as f64;
        let others_before = (r.extra.attribution_baseline_rate - culprit_before).max(0.0);
        if others_before > 0.0 && others_now < 1.5 * others_before {
            items.push(format!(
                "**Organic growth:** everyone but {} together sent {} req/s in the window against {} req/s before.",
                c.short(),
                rate(others_now),
                rate(others_before)
            ));
        }
    } else if r.attribution.organic && r.attribution.grew && !d.findings.is_empty() {
        let dim = &r.attribution.dimension;
        items.push(format!(
            "**A single {dim}:** the growth was spread across many {dim}s; no one {dim} explains it."
        ));
    } else if r.attribution.organic && !r.attribution.rows.is_empty() {
        // The attribution weighed every client and none stood out: that is
        // a finding too, and the one a reader asks first ("who did this?").
        let dim = &r.attribution.dimension;
        items.push(format!(
            "**A single {dim}:** no {dim}'s requests or busy time rose against its own baseline enough to explain the incident."
        ));
    }
    let n = r.impact.instances_affected.len();
    if n > 1 && n == r.impact.instances_total && !d.has("stuck_instance") {
        let all = if n == 2 {
            "both".to_string()
        } else {
            format!("all {n}")
        };
        items.push(format!(
            "**One bad instance:** {all} instances were affected alike."
        ));
    }
    for f in d.weak.iter().filter(|f| coupling_ruled_out(d, f)) {
        items.push(format!(
            "**Health checks tied to a shared resource:** {} (confidence {:.2}), but no connection pool was saturated before they failed, so nothing shows the checks waiting on what the users' requests waited on.",
            lower_first(f.title.trim_end_matches('.')),
            f.confidence
        ));
    }
    let changed = r.timeline.iter().any(|e| {
        matches!(
            e.kind,
            TimelineKind::Deploy
                | TimelineKind::Rollback
                | TimelineKind::FlagChange
                | TimelineKind::Change
        )
    });
    if !changed && !d.has("deploy_regression") {
        items.push(
            "**A change:** no deploy, rollback or flag change appears in the inputs.".to_string(),
        );
    }
    if items.is_empty() {
        let _ = writeln!(out, "Nothing the data can rule out.\n");
        return;
    }
    for i in items {
        let _ = writeln!(out, "- {i}");
    }
    out.push('\n');
}

/// A weak `health_check_coupling` where no pool ran out: failing checks
/// alone are how an overloaded or crashing server looks, not a check
/// coupled to a resource, and the draft says so under Ruled out instead of
/// listing it as a weaker cause.
pub(crate) fn coupling_ruled_out(d: &Draft<'_>, f: &crate::report::FindingJson) -> bool {
    f.pattern == "health_check_coupling"
        && f.confidence < SUPPORTED
        && !d.has("pool_exhaustion")
        && !f.evidence.iter().any(|e| e.text.contains("pool saturated"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::markdown::fixture::bulk;

    fn ruled_out(r: &crate::report::Report) -> String {
        let mut out = String::new();
        section(&mut out, &Draft::new(r));
        out
    }

    #[test]
    fn the_sample_rules_out_growth_one_instance_and_a_change() {
        let mut r = bulk();
        r.extra.attribution_baseline_rate = 16.3;
        let s = ruled_out(&r);
        assert!(s.contains("**Organic growth:** everyone but `acct-4411` together sent 16 req/s in the window against 16 req/s before."), "{s}");
        assert!(s.contains("all 3 instances were affected alike"), "{s}");
        assert!(s.contains("no deploy, rollback or flag change"), "{s}");
    }

    #[test]
    fn a_red_herring_deploy_is_ruled_out_with_its_figure() {
        let mut r = bulk();
        let mut f =
            crate::render::markdown::fixture::finding("red_herring_deploy", 0.9, "07:50:00");
        f.title = "The deploy of `api` at 07:50 did not cause it".to_string();
        f.evidence[0].text = "the problem began 2 min before it".to_string();
        r.findings.push(f);
        let s = ruled_out(&r);
        assert!(s.contains("**The change:** the deploy of `api` at 07:50 did not cause it (the data shows, 0.90): the problem began 2 min before it."), "{s}");
    }

    #[test]
    fn weak_coupling_without_a_saturated_pool_is_ruled_out_not_listed_as_a_cause() {
        let mut r = bulk();
        r.findings.retain(|f| f.pattern != "health_check_coupling");
        let mut f =
            crate::render::markdown::fixture::finding("health_check_coupling", 0.45, "07:58:00");
        f.title = "Health checks failed together with user traffic on 3 of 3 instances".to_string();
        f.evidence[0].text = "probe failures on api-1: 4 failures from 07:58:00 on".to_string();
        r.findings.push(f);
        // With the pool exhausted the weak coupling stays a weaker signal.
        assert!(Draft::new(&r).has("pool_exhaustion"));
        assert!(!ruled_out(&r).contains("Health checks tied"));
        r.findings.retain(|f| f.pattern != "pool_exhaustion");
        let s = ruled_out(&r);
        assert!(s.contains("**Health checks tied to a shared resource:** health checks failed together with user traffic on 3 of 3 instances (confidence 0.45), but no connection pool was saturated"), "{s}");
        let mut out = String::new();
        crate::render::markdown::findings::section(
            &mut out,
            &Draft::new(&r),
            &mut crate::render::markdown::sources::Sources::default(),
        );
        assert!(!out.contains("health_check_coupling"), "{out}");
    }

    /// No client stood out and the load did not grow: saying so answers
    /// the reader's first question instead of "nothing the data can rule
    /// out".
    #[test]
    fn no_single_tenant_is_ruled_out_where_the_attribution_found_none() {
        let mut r = bulk();
        r.attribution.organic = true;
        r.attribution.grew = false;
        r.extra.culprit = None;
        let s = ruled_out(&r);
        assert!(
            s.contains("**A single tenant:** no tenant's requests or busy time rose"),
            "{s}"
        );
    }
}
