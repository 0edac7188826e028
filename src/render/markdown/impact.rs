//! Impact, in the customer's terms: the failure rate of everyone other than
//! the culprit (the culprit's own failures stated apart: "32% of requests
//! failed" counted its own thousands of failed retries as harm done to
//! others), the tenants and instances affected, the longest full
//! interruption, queued work, what was not affected, and a placeholder for
//! data integrity, which logs cannot prove.
//!
//! In: the [`Draft`]. Out: the section's bullets.
//!
//! ```text
//! culprit 9,200 of 27,190 failed, others 1,020 of 4,426
//!   -> "- **Other customers:** 1,020 of 4,426 requests failed (23%, about 1 in 4) ..."
//! ```

use std::fmt::Write;

use super::{count, duration, longest_outage, one_in, pct, story, window_text, Draft};
use crate::render::time::hms;

pub(crate) fn section(out: &mut String, d: &Draft<'_>) {
    let _ = writeln!(out, "## Impact\n");
    let r = d.r;
    let Some(window) = window_text(r) else {
        let _ = writeln!(
            out,
            "None found: no window of elevated errors, latency or restarts.\n"
        );
        return;
    };
    let imp = &r.impact;
    let _ = writeln!(
        out,
        "- **Window:** {window}, {}.",
        duration(r.incident.duration_s.unwrap_or(0))
    );
    let rate = |failed: u64, total: u64| {
        let share = pct(if total > 0 {
            failed as f64 / total as f64
        } else {
            0.0
        });
        match one_in(failed, total) {
            Some(o) => format!("{share}, {o}"),
            None => share,
        }
    };
    match d.culprit {
        Some(c) if r.extra.has_requests => {
            let _ = writeln!(
                out,
                "- **Other customers:** {} of {} requests failed with a 5xx or timeout ({}).",
                count(c.others_failed),
                count(c.others_requests),
                rate(c.others_failed, c.others_requests)
            );
            let _ = writeln!(
                out,
                "- **{} itself:** {} of its {} requests failed, counted apart as its own doing.",
                c.short(),
                count(c.failed),
                count(c.requests)
            );
            let _ = writeln!(
                out,
                "- **All requests**, the culprit's and untagged ones included: {} of {} failed ({}).",
                count(imp.requests_failed),
                count(imp.requests_total),
                pct(imp.failed_share)
            );
        }
        _ if r.extra.has_requests => {
            let _ = writeln!(
                out,
                "- **Requests:** {} of {} failed with a 5xx or timeout ({}).",
                count(imp.requests_failed),
                count(imp.requests_total),
                rate(imp.requests_failed, imp.requests_total)
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "- **Requests:** not determinable: no access log among the inputs."
            );
        }
    }
    // Retries counted among the failures: the same work failing again,
    // not more customers' work (review: a crash loop's 96% "included the
    // retries").
    if let (Some((share, _)), true) = (d.new_work(), imp.requests_total > 0) {
        if share >= 0.1 {
            let _ = writeln!(
                out,
                "- **Retries:** about {:.0}% of these requests were failed ones sent again, so the same work is counted as failed more than once; fewer distinct operations failed than the count says.",
                share * 100.0
            );
        }
    }
    if let Some(n) = super::unarrived(r) {
        let _ = writeln!(
            out,
            "- **Requests that did not arrive:** the logs hold {:.1} req/s in the window against {:.1} before: about {} fewer requests than usual reached the service. Requests refused in front of it (a balancer's 502 or 503, clients that gave up) are not in these inputs, so the failures above count only what reached it.",
            r.extra.attribution_window_rate,
            r.extra.attribution_baseline_rate,
            count(n)
        );
    }
    if let (None, Some((secs, longest, expected))) = (super::unarrived(r), &r.extra.silence) {
        let _ = writeln!(
            out,
            "- **Requests not in the log:** for {} of the incident the request log holds no request at all (the longest stretch {}–{} UTC), where about {} were expected at the usual rate. Requests refused in front of the service that logs them (a balancer's 502 or 503 while no instance was up) are not in these inputs, so the failures above are a lower bound.",
            crate::render::time::duration(*secs),
            crate::render::time::hms(&longest.start),
            crate::render::time::hms(&longest.end),
            count(expected.round() as u64)
        );
    }
    if let Some(slow) = super::summary::slowdown(r) {
        let _ = writeln!(out, "- **Latency:** {slow}.");
    }
    if r.extra.has_requests && r.attribution.dimension == "tenant" {
        let active = r.extra.tenants_active;
        let spared = active.saturating_sub(imp.tenants_affected);
        let _ = writeln!(
            out,
            "- **Tenants:** {} of the {} active in the window saw at least one failed request{}.",
            imp.tenants_affected,
            active,
            // Where requests never reached the logs, "saw none" is not known.
            if spared > 0 && super::unarrived(r).is_none() {
                format!("; {spared} saw none")
            } else {
                String::new()
            }
        );
    }
    if imp.instances_affected.is_empty() {
        let _ = writeln!(out, "- **Instances:** none identified as affected.");
    } else {
        let names: Vec<String> = imp
            .instances_affected
            .iter()
            .map(|i| format!("`{i}`"))
            .collect();
        // New instances that arrived during the incident did not "stay
        // healthy" through it, and were not the fleet it hit: told apart,
        // with what brought them.
        let joined = r
            .extra
            .instances_joined
            .iter()
            .filter(|j| !imp.instances_affected.contains(j))
            .count()
            .min(imp.instances_total.saturating_sub(names.len()));
        let running = imp.instances_total.saturating_sub(joined);
        let of = if running >= names.len() && running > 0 {
            format!(" of {running}")
        } else {
            String::new()
        };
        let healthy = running.saturating_sub(names.len());
        let mut rest = Vec::new();
        if healthy > 0 {
            rest.push(match healthy {
                1 => "the other one stayed healthy".to_string(),
                n => format!("the other {n} stayed healthy"),
            });
        }
        if joined > 0 {
            rest.push(format!(
                "{joined} more started during the incident{} and {} not affected",
                arrivals(d),
                if joined == 1 { "was" } else { "were" }
            ));
        }
        let _ = writeln!(
            out,
            "- **Instances:** {}{of} affected ({}){}.",
            names.len(),
            names.join(", "),
            if rest.is_empty() {
                String::new()
            } else {
                format!("; {}", rest.join("; "))
            }
        );
    }
    match longest_outage(r) {
        // The range shown is the longest one's, so that the two agree.
        Some((l, o)) => {
            let _ = writeln!(
                out,
                "- **Longest full interruption:** {} ({}–{} UTC): no request succeeded.",
                duration(l),
                hms(&o.start),
                hms(&o.end)
            );
        }
        None if r.extra.has_requests => {
            let _ = writeln!(
                out,
                "- **Longest full interruption:** none; some requests succeeded throughout."
            );
        }
        None => {}
    }
    if let Some(f) = d.finding("backlog_growth") {
        // How long the queued work waited is what its users felt.
        let drain = f
            .evidence
            .iter()
            .find(|e| e.text.starts_with("drained at") || e.text.starts_with("not drained"))
            .map(|e| format!("; {}", e.text))
            .unwrap_or_default();
        let _ = writeln!(out, "- **Queued work:** {}{drain}.", story::title(d, f));
    }
    let _ = writeln!(
        out,
        "- **Data integrity:** TBD; logs cannot show whether a write was lost or applied twice.\n"
    );
}

/// What brought new instances during the incident, from the timeline: ` (the
/// scale-out at 05:32:57 UTC)`, or nothing when the data does not say.
fn arrivals(d: &Draft<'_>) -> String {
    use crate::correlate::timeline::TimelineKind as K;
    let r = d.r;
    let (Some(start), Some(end)) = (r.incident.onset.as_deref(), r.incident.recovered.as_deref())
    else {
        return String::new();
    };
    r.timeline
        .iter()
        .filter(|t| matches!(t.kind, K::ScaleOut | K::Rollback | K::Deploy))
        .rfind(|t| t.ts.as_str() >= start && t.ts.as_str() <= end)
        .map(|t| {
            let what = match t.kind {
                K::ScaleOut => "the scale-out",
                K::Rollback => "the rollback",
                _ => "the deploy",
            };
            format!(" ({what} at {} UTC)", hms(&t.ts))
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::markdown::fixture::bulk;

    fn impact(r: &crate::report::Report) -> String {
        let mut out = String::new();
        section(&mut out, &Draft::new(r));
        out
    }

    #[test]
    fn the_rate_excludes_the_culprit() {
        let s = impact(&bulk());
        assert!(
            s.contains("**Other customers:** 1,020 of 4,426 requests failed with a 5xx or timeout (23%, about 1 in 4)"),
            "{s}"
        );
        assert!(s.contains("9,200 of its 27,190 requests failed"), "{s}");
    }

    #[test]
    fn without_a_culprit_the_rate_is_everyones() {
        let mut r = bulk();
        r.extra.culprit = None;
        let s = impact(&r);
        assert!(s.contains("**Requests:** 10,231 of 32,212 failed"), "{s}");
        assert!(!s.contains("Other customers"), "{s}");
    }

    #[test]
    fn healthy_instances_are_said() {
        let mut r = bulk();
        r.impact.instances_total = 5;
        assert!(impact(&r).contains("3 of 5 affected"));
        assert!(impact(&r).contains("the other 2 stayed healthy"));
        r.impact.instances_total = 4;
        assert!(impact(&r).contains("the other one stayed healthy"));
    }

    #[test]
    fn requests_the_log_never_saw_make_the_count_a_lower_bound() {
        let mut r = bulk();
        assert!(!impact(&r).contains("Requests not in the log"));
        r.extra.silence = Some((
            225,
            crate::report::SpanJson {
                start: "2026-10-01T07:58:00Z".to_string(),
                end: "2026-10-01T08:01:29Z".to_string(),
            },
            1980.4,
        ));
        let s = impact(&r);
        assert!(
            s.contains("for 3 min 45 s of the incident the request log holds no request at all (the longest stretch 07:58:00–08:01:29 UTC), where about 1,980 were expected"),
            "{s}"
        );
        assert!(s.contains("the failures above are a lower bound"), "{s}");
    }
}
