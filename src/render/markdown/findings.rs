//! Root cause and contributing factors: one numbered item per supported
//! finding in causal order (not by confidence: the retries were listed
//! before the surge and the pool exhaustion they followed), each with its
//! role, its certainty in words (the pattern id and score go to the
//! appendix's evidence details), and its strongest
//! evidence with footnoted sources; the rest of the evidence is in the
//! appendix. Weaker signals follow, said to be undetermined.
//!
//! In: the [`Draft`] and the footnote registry. Out: the section; and
//! [`details`], every finding's whole evidence for the appendix.
//!
//! ```text
//! -> "1. Root cause: **`acct-4411` ... drove the load: from 10 requests in 31 min to 27,190 in 4 min 41 s**
//!       (the data shows; 07:56:56–08:01:31 UTC)"
//! ```

use std::fmt::Write;

use super::cascade::{certainty, Role};
use super::sources::Sources;
use super::story::title;
use super::{wording, Draft};
use crate::render::time::hms;
use crate::report::{EvidenceJson, FindingJson};

/// Evidence items shown in the main section for what set it off, and for
/// each step after it; the rest is in the appendix (the draft was three
/// times the length of the seeds, most of it evidence lines).
const MAIN_EVIDENCE: usize = 2;
const STEP_EVIDENCE: usize = 1;

fn role_label(role: Role, pattern: &str) -> &'static str {
    match role {
        Role::Trigger => "Root cause",
        // Queued work piles up because the service lost ground; a review
        // read "Mechanism" over a backlog as if the queue had done it.
        Role::Exhaustion if pattern == "backlog_growth" => "Result",
        Role::Exhaustion => "Mechanism",
        Role::Amplifier => "Amplifier",
        Role::RuledOut => "Ruled out",
    }
}

/// Figures first: the template citations are evidence of a kind the
/// appendix holds better (long masked messages).
fn is_template(e: &EvidenceJson) -> bool {
    e.text.starts_with("log template ")
}

fn about_culprit(d: &Draft<'_>, f: &FindingJson) -> bool {
    d.culprit
        .is_some_and(|c| c.tenant.is_some() && f.subject.tenant == c.tenant)
}

fn evidence_line(d: &Draft<'_>, f: &FindingJson, e: &EvidenceJson, src: &mut Sources) -> String {
    format!(
        "{}{}",
        wording::reword(&e.text, d.culprit, about_culprit(d, f)),
        src.cite(&e.source)
    )
}

pub(crate) fn section(out: &mut String, d: &Draft<'_>, src: &mut Sources) {
    let _ = writeln!(out, "## Root cause and contributing factors\n");
    let r = d.r;
    if d.findings.is_empty() {
        let _ = writeln!(
            out,
            "Not determined: no cascade pattern is supported by the data{}.\n",
            if r.incident.found {
                " (the symptoms are real; see the timeline)"
            } else {
                ""
            }
        );
    }
    for (i, f) in d.findings.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}. {}: **{}** ({}; {}–{} UTC)",
            i + 1,
            role_label(d.role(f), &f.pattern),
            title(d, f),
            certainty(f.confidence),
            hms(&f.start),
            hms(&f.end)
        );
        let shown: Vec<&EvidenceJson> = f
            .evidence
            .iter()
            .filter(|e| !is_template(e))
            .take(if d.role(f) == Role::Trigger {
                MAIN_EVIDENCE
            } else {
                STEP_EVIDENCE
            })
            .collect();
        for e in &shown {
            let _ = writeln!(out, "   - {}", evidence_line(d, f, e, src));
        }
        out.push('\n');
    }
    if !d.findings.is_empty() {
        let _ = writeln!(
            out,
            "Patterns, scores and all evidence: see the appendix.\n"
        );
    }
    let weak = d.weak_signals();
    if !weak.is_empty() {
        let _ = writeln!(
            out,
            "Weaker signals, not supported enough to call a cause:\n"
        );
        for f in weak {
            let _ = writeln!(
                out,
                "- {} ({}, {:.2}; `{}`)",
                title(d, f),
                certainty(f.confidence),
                f.confidence,
                f.pattern
            );
        }
        out.push('\n');
    }
}

/// Every supported finding's whole evidence, for the appendix.
/// The pattern id (see the catalogue) and the score the words stand for are
/// kept here: in the main sections they read as machine noise.
pub(crate) fn details(out: &mut String, d: &Draft<'_>, src: &mut Sources) {
    if d.findings.is_empty() {
        return;
    }
    let _ = writeln!(out, "### Evidence details\n");
    for (i, f) in d.findings.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}. `{}` ({}, {:.2})",
            i + 1,
            f.pattern,
            certainty(f.confidence),
            f.confidence
        );
        for e in &f.evidence {
            let _ = writeln!(out, "   - {}", evidence_line(d, f, e, src));
        }
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::markdown::fixture::bulk;

    #[test]
    fn numbered_in_causal_order_with_certainty_in_words() {
        let r = bulk();
        let d = Draft::new(&r);
        let mut out = String::new();
        section(&mut out, &d, &mut Sources::default());
        let items: Vec<&str> = out
            .lines()
            .filter(|l| l.contains(". ") && l.contains("**"))
            .collect();
        assert!(
            items[0].starts_with("1. Root cause: **`acct-4411`"),
            "{out}"
        );
        assert!(items[0].contains("(the data shows; 07:56:56"), "{out}");
        assert!(items[1].contains("pools exhausted"), "{out}");
        assert!(
            items[4].starts_with("5. Amplifier:") && items[4].contains("retried"),
            "{out}"
        );
        let mut appendix = String::new();
        details(&mut appendix, &d, &mut Sources::default());
        assert!(
            appendix.contains("1. `tenant_surge` (the data shows, 0.99)"),
            "{appendix}"
        );
        assert!(!out.contains("14950x"), "{out}");
    }

    /// A finding at next to no confidence is no signal: "clients retried
    /// failed requests (cannot be determined, 0.00)" read as a claim.
    #[test]
    fn weaker_signals_leave_out_those_at_next_to_no_confidence() {
        use crate::render::markdown::fixture::finding;
        let mut r = bulk();
        r.findings.push(finding("retry_storm", 0.0, "07:58:59"));
        r.findings.push(finding("backlog_growth", 0.3, "07:58:00"));
        let d = Draft::new(&r);
        let mut out = String::new();
        section(&mut out, &d, &mut Sources::default());
        let weak = out.split("Weaker signals").nth(1).unwrap_or_default();
        assert!(weak.contains("0.30; `backlog_growth`"), "{out}");
        assert!(!weak.contains("0.00"), "{out}");
    }

    /// What ran out is the mechanism; a queue that backed up is what the
    /// lost ground left behind.
    #[test]
    fn a_backlog_is_a_result_a_pool_a_mechanism() {
        assert_eq!(role_label(Role::Exhaustion, "backlog_growth"), "Result");
        assert_eq!(role_label(Role::Exhaustion, "pool_exhaustion"), "Mechanism");
    }
}
