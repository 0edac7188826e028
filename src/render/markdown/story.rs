//! "What happened": the causal chain in prose, each step with why it led to
//! the next, in the seeds' manner. The trigger first, then what ran out,
//! then what made it worse. What ended it is the summary's and the
//! recovery section's to say (said three times, it was a tenth of the draft).
//!
//! In: the [`Draft`]'s supported findings in causal order. Out: one
//! paragraph. Every step is a finding's own title (its figures), joined by
//! the mechanism its pattern stands for (`patterns.md`); nothing is said
//! that no finding holds. Also [`phrase`], the short form the summary uses.
//!
//! ```text
//! [tenant_surge, pool_exhaustion, synchronized_restart]
//!   -> "It began at 07:56:56 UTC: `acct-4411` ... Because one client took most of
//!      the capacity, database connection pools exhausted ... Then 3 of 3 instances ..."
//! ```

use std::fmt::Write;

use super::cascade::{certainty, Role};
use super::{duration, hms, lower_first, secs_between, wording, Draft};
use crate::report::FindingJson;

/// How far from a restart's span a full interruption may begin or end and
/// still be told as its result.
const RESTART_OUTAGE_S: i64 = 120;

/// The mechanism a pattern stands for, as the summary says it.
pub(crate) fn phrase(pattern: &str) -> Option<&'static str> {
    Some(match pattern {
        "pool_exhaustion" => "the database connection pools ran out",
        "backlog_growth" => "queued work piled up faster than it drained",
        "health_check_coupling" => {
            "health checks, answered by the same struggling servers, failed along with user traffic"
        }
        "synchronized_restart" => "the instances were restarted all at once",
        "crash_loop" => "instances crashed and restarted repeatedly",
        // Not "into the recovering servers": nothing may have restarted.
        "retry_storm" => "failed requests were retried, adding load to the struggling service",
        "thundering_herd" => "many clients reconnected at the same moment",
        _ => return None,
    })
}

/// Whether a crash loop's evidence counts out-of-memory kills: what killed
/// the instances is the reader's first question, so the prose says it.
pub(crate) fn ran_out_of_memory(f: &FindingJson) -> bool {
    f.pattern == "crash_loop" && super::questions::kill_reason(f) == Some("memory")
}

/// A finding's title as the draft words it: near-zero ratios as counts.
pub(crate) fn title(d: &Draft<'_>, f: &FindingJson) -> String {
    let about_culprit = d.culprit.is_some_and(|c| {
        c.tenant.is_some() && f.subject.tenant == c.tenant
            || c.tenant.is_none()
                && c.integration.is_some()
                && f.subject.integration == c.integration
    });
    wording::reword(&f.title, d.culprit, about_culprit)
        .trim_end_matches('.')
        .to_string()
}

/// " (likely)" for a step the data does not show outright.
fn hedge(f: &FindingJson) -> String {
    if f.confidence >= 0.9 {
        String::new()
    } else {
        format!(" ({})", certainty(f.confidence))
    }
}

fn step(d: &Draft<'_>, f: &FindingJson, after_trigger: Option<&str>) -> String {
    let t = title(d, f);
    let at = hms(&f.start);
    let h = hedge(f);
    match f.pattern.as_str() {
        "tenant_surge" => format!(
            "It began at {at} UTC: {t}{h}."
        ),
        "slow_request_hogging" => format!(
            "It began at {at} UTC: {t}{h}. Long-running requests hold their connections, so fewer were left for everyone else."
        ),
        "deploy_regression" => format!(
            "It began with a change at {at} UTC: {}{h}.",
            lower_first(&t)
        ),
        "stuck_instance" => format!(
            "It began at {at} UTC: {}{h}. Requests routed to {} waited instead of failing fast.",
            lower_first(&t),
            if f.subject.instance.is_some() { "it" } else { "them" }
        ),
        "pool_exhaustion" => {
            let lead = match after_trigger {
                Some("tenant_surge" | "slow_request_hogging") => {
                    "Because one client took most of the capacity, "
                }
                Some(_) => "As a result, ",
                None => "",
            };
            let t = if lead.is_empty() { t } else { lower_first(&t) };
            format!(
                "{lead}{t}{h} from {at} UTC: requests queued for a connection, then failed."
            )
        }
        "backlog_growth" => format!("{t}{h} from {at} UTC: queued work grew faster than it drained."),
        "health_check_coupling" => format!(
            "The health checks are answered by the same struggling servers, so {}{h} from {at} UTC, and slow servers looked dead.",
            lower_first(&t)
        ),
        "synchronized_restart" => {
            // The interruption is the restart's doing only when it came with
            // it: a review found one blamed on a restart 16 minutes before.
            let with_it = d.r.impact.full_outages.iter().filter_map(|o| {
                let after_end = secs_between(&f.end, &o.start)?;
                let before_start = secs_between(&o.end, &f.start)?;
                (after_end <= RESTART_OUTAGE_S && before_start <= RESTART_OUTAGE_S)
                    .then(|| secs_between(&o.start, &o.end))
                    .flatten()
            });
            // The impact gives the longest interruption: where another was
            // longer, the story says so rather than seem to contradict it.
            let longest = super::longest_outage(d.r).map(|(l, _)| l);
            match with_it.max() {
                Some(s) => format!(
                    "Then {}{h} ({at} UTC), turning a degraded service into a full interruption of {}{}.",
                    lower_first(&t),
                    duration(s),
                    match longest.filter(|l| *l > s) {
                        Some(l) => format!(" (the longest of the incident, {}, came apart from it)", duration(l)),
                        None => String::new(),
                    }
                ),
                None => format!("Then {}{h} ({at} UTC).", lower_first(&t)),
            }
        }
        "crash_loop" => {
            // Queued work is said only where a finding shows a backlog.
            let into = if d.has("backlog_growth") {
                "the queued work plus live load"
            } else {
                "the same load"
            };
            let how = if ran_out_of_memory(f) {
                ", killed for running out of memory"
            } else {
                ""
            };
            format!("{t}{h} from {at} UTC{how}: each restart came back into {into} and went down again.")
        }
        "retry_storm" => format!(
            "Meanwhile, {}{h} (from {at} UTC), adding load at the worst moment.",
            lower_first(&t)
        ),
        "thundering_herd" => {
            // "After the interruption" only when one ended before it began.
            let after = d
                .r
                .impact
                .full_outages
                .iter()
                .any(|o| secs_between(&o.end, &f.start).is_some_and(|s| (0..=RESTART_OUTAGE_S).contains(&s)));
            format!(
                "{} {}{h} (from {at} UTC): many clients acted at once.",
                if after { "After the interruption," } else { "Meanwhile," },
                lower_first(&t)
            )
        }
        _ => format!("{t}{h} (from {at} UTC)."),
    }
}

pub(crate) fn section(out: &mut String, d: &Draft<'_>) {
    let _ = writeln!(out, "## What happened\n");
    let r = d.r;
    if !r.incident.found {
        let _ = writeln!(out, "Nothing: no incident was found in the inputs.\n");
        return;
    }
    let mut text = Vec::new();
    let trigger = d
        .findings
        .iter()
        .find(|f| d.role(f) == Role::Trigger)
        .map(|f| f.pattern.as_str());
    if trigger.is_none() {
        if d.demand_grew() {
            text.push(format!(
                "Demand outgrew capacity. {}",
                super::summary::growth(d)
            ));
        } else if let Some(t) = super::summary::demand_followed(d) {
            text.push(t);
        } else {
            text.push(
                "What set it off cannot be determined from these inputs: no client, change or instance stands out."
                    .to_string(),
            );
        }
    }
    let mut told_trigger = false;
    for f in &d.findings {
        let is_trigger = d.role(f) == Role::Trigger;
        if is_trigger && told_trigger {
            // One beginning: a second trigger is told beside the first.
            text.push(format!(
                "With it, from {} UTC, {}{}.",
                hms(&f.start),
                lower_first(&title(d, f)),
                hedge(f)
            ));
            continue;
        }
        told_trigger |= is_trigger;
        text.push(step(d, f, trigger));
    }
    if d.findings.is_empty() {
        text.push(
            "The data shows the symptoms (see the timeline) but no pattern that explains them."
                .to_string(),
        );
    }
    let _ = writeln!(out, "{}\n", text.join(" "));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::markdown::fixture::bulk;

    #[test]
    fn the_chain_is_told_trigger_first() {
        let r = bulk();
        let d = Draft::new(&r);
        let mut out = String::new();
        section(&mut out, &d);
        let at = |s: &str| out.find(s).unwrap_or(usize::MAX);
        assert!(
            at("It began at 07:56:56") < at("Because one client"),
            "{out}"
        );
        assert!(
            at("Because one client") < at("health checks are answered"),
            "{out}"
        );
        assert!(
            at("health checks are answered") < at("Then 3 of 3"),
            "{out}"
        );
        assert!(at("Then 3 of 3") < at("Meanwhile, `acct-4411`"), "{out}");
        assert!(!out.contains("14950x"), "{out}");
        assert!(out.contains("full interruption of 3 s."), "{out}");
    }

    /// The restart's interruption is not the incident's longest one: the
    /// story says so instead of seeming to contradict the impact.
    #[test]
    fn a_longer_interruption_elsewhere_is_named_beside_the_restart_s() {
        let mut r = bulk();
        r.impact.full_outages.push(crate::report::SpanJson {
            start: "2026-10-01T08:20:00Z".to_string(),
            end: "2026-10-01T08:21:10Z".to_string(),
        });
        let mut out = String::new();
        section(&mut out, &Draft::new(&r));
        assert!(
            out.contains("full interruption of 3 s (the longest of the incident, 1 min 10 s, came apart from it)."),
            "{out}"
        );
    }

    /// The story says what killed the instances where the evidence does
    /// (a review found the OOM kills only in the timeline and summary).
    #[test]
    fn a_crash_loop_killed_for_memory_is_told_so() {
        let r = bulk();
        let d = Draft::new(&r);
        let mut f = crate::render::markdown::fixture::finding("crash_loop", 0.8, "07:59:00");
        f.title = "3 instances crashed and restarted repeatedly".to_string();
        let told = step(&d, &f, None);
        assert!(!told.contains("memory"), "{told}");
        f.evidence.push(crate::report::EvidenceJson {
            text: "53 out-of-memory kill(s): Container api was OOMKilled (exit code 137)"
                .to_string(),
            source: "k8s-events.jsonl:3".to_string(),
        });
        let told = step(&d, &f, None);
        assert!(
            told.contains("from 07:59:00 UTC, killed for running out of memory: each restart"),
            "{told}"
        );
    }
}
