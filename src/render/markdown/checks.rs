//! The consistency pass: the report's figures checked against each other
//! before a word is written, so that the draft never contradicts itself.
//!
//! In: the [`Report`] and its supported findings. Out: the culprit the
//! draft may name (only one a supported finding names: a draft that blames
//! a client no finding names is the worst mistake it can make) and a
//! warning per contradiction, which the draft shows under its status line.
//! A contradiction is fixed at its source where the draft can (the culprit
//! is left out), and said either way: never dropped silently.
//!
//! ```text
//! impact { requests_total: 10, requests_failed: 12 }
//!   -> warning "12 failed requests are more than the 10 requests counted ..."
//! ```

use super::{longest_outage, secs_between};
use crate::report::{CulpritFigures, FindingJson, Report};

pub(crate) struct Checked<'a> {
    pub culprit: Option<&'a CulpritFigures>,
    pub warnings: Vec<String>,
}

/// Whether a supported finding names the culprit (by tenant where it has
/// one, else by integration).
fn named(c: &CulpritFigures, findings: &[&FindingJson]) -> bool {
    findings.iter().any(|f| match (&c.tenant, &c.integration) {
        (Some(t), _) => f.subject.tenant.as_ref() == Some(t),
        (None, Some(i)) => f.subject.integration.as_ref() == Some(i),
        (None, None) => false,
    })
}

pub(crate) fn check<'a>(r: &'a Report, findings: &[&FindingJson]) -> Checked<'a> {
    let mut warnings = Vec::new();
    let imp = &r.impact;
    if imp.requests_failed > imp.requests_total {
        warnings.push(format!(
            "{} failed requests are more than the {} requests counted in the window; the impact figures below cannot both be right.",
            imp.requests_failed, imp.requests_total
        ));
    }
    if let (Some(o), Some(rec), Some(d)) = (
        &r.incident.onset,
        &r.incident.recovered,
        r.incident.duration_s,
    ) {
        if secs_between(o, rec).is_some_and(|s| s != d) {
            warnings.push(format!(
                "the incident's duration ({d} s) does not match its range ({o} to {rec})."
            ));
        }
        if let Some((longest, span)) = longest_outage(r) {
            let inside = secs_between(o, &span.start).is_some_and(|s| s >= 0)
                && secs_between(&span.end, rec).is_some_and(|s| s >= 0);
            if longest > d || !inside {
                warnings.push(format!(
                    "a full interruption ({} to {}) reaches outside the incident window ({o} to {rec}).",
                    span.start, span.end
                ));
            }
        }
    }
    if imp.instances_total > 0 && imp.instances_affected.len() > imp.instances_total {
        warnings.push(format!(
            "{} instances are counted as affected out of a fleet of {}: an instance may be counted under two names.",
            imp.instances_affected.len(),
            imp.instances_total
        ));
    }
    for f in findings {
        if f.end < f.start {
            warnings.push(format!(
                "the `{}` finding ends ({}) before it starts ({}).",
                f.pattern, f.end, f.start
            ));
        }
    }
    let mut culprit = r.extra.culprit.as_ref();
    if let Some(c) = culprit {
        if !named(c, findings) {
            warnings.push(format!(
                "the load attribution ranks {} first, but no supported finding names it; this draft names no culprit.",
                c.label()
            ));
            culprit = None;
        } else if c.failed > c.requests || c.others_failed > c.others_requests {
            warnings.push(format!(
                "the failed requests of {} or of everyone else exceed their requests; their failure rates are left out.",
                c.label()
            ));
            culprit = None;
        }
    }
    Checked { culprit, warnings }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::markdown::fixture::bulk;
    use crate::render::markdown::{render, Draft};

    fn warnings(r: &Report) -> Vec<String> {
        Draft::new(r).warnings
    }

    #[test]
    fn the_sample_is_consistent() {
        assert_eq!(warnings(&bulk()), Vec::<String>::new());
    }

    #[test]
    fn more_failed_than_requests_is_caught() {
        let mut r = bulk();
        r.impact.requests_failed = r.impact.requests_total + 1;
        let w = warnings(&r);
        assert!(w.iter().any(|w| w.contains("more than the")), "{w:?}");
        assert!(render(&r).contains("> **Check:**"), "shown in the draft");
    }

    #[test]
    fn a_duration_that_does_not_match_its_range_is_caught() {
        let mut r = bulk();
        r.incident.duration_s = Some(12180);
        let w = warnings(&r);
        assert!(w.iter().any(|w| w.contains("does not match")), "{w:?}");
    }

    #[test]
    fn an_interruption_outside_the_window_is_caught() {
        let mut r = bulk();
        r.impact.full_outages[0].end = "2026-10-01T11:20:00Z".to_string();
        let w = warnings(&r);
        assert!(w.iter().any(|w| w.contains("reaches outside")), "{w:?}");
    }

    #[test]
    fn instances_counted_twice_are_caught() {
        let mut r = bulk();
        r.impact.instances_affected.extend([
            "api-1".to_string(),
            "api-2".to_string(),
            "api-3".to_string(),
        ]);
        let w = warnings(&r);
        assert!(w.iter().any(|w| w.contains("under two names")), "{w:?}");
    }

    #[test]
    fn a_finding_that_ends_before_it_starts_is_caught() {
        let mut r = bulk();
        r.findings[0].end = "2026-10-01T07:00:00Z".to_string();
        let w = warnings(&r);
        assert!(w.iter().any(|w| w.contains("before it starts")), "{w:?}");
    }

    /// A client the attribution ranks first but no finding names is not
    /// blamed anywhere in the draft.
    #[test]
    fn a_culprit_no_finding_names_is_not_blamed() {
        let mut r = bulk();
        for f in &mut r.findings {
            f.subject = Default::default();
            f.title = f
                .title
                .replace("`acct-4411` (integration `acme-exporter`)", "a client");
            f.evidence.clear();
        }
        r.timeline.retain(|e| !e.text.contains("acct-4411"));
        let d = Draft::new(&r);
        assert!(d.culprit.is_none());
        assert!(d
            .warnings
            .iter()
            .any(|w| w.contains("no supported finding names it")));
        let md = render(&r);
        let main = md.split("## Appendix").next().unwrap_or("");
        let blamed: Vec<&str> = main
            .lines()
            .filter(|l| l.contains("acct-4411") && !l.starts_with("> **Check:**"))
            .collect();
        assert!(blamed.is_empty(), "{blamed:?}");
    }

    #[test]
    fn culprit_failures_beyond_its_requests_are_caught() {
        let mut r = bulk();
        if let Some(c) = r.extra.culprit.as_mut() {
            c.failed = c.requests + 1;
        }
        let d = Draft::new(&r);
        assert!(d.culprit.is_none());
        assert!(d
            .warnings
            .iter()
            .any(|w| w.contains("exceed their requests")));
    }
}
