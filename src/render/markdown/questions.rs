//! Open questions: what the data cannot answer and a responder must,
//! specific to the findings (why the limit was missing, why the stuck
//! instances hung), and the few every incident leaves (data loss, when
//! customers were told).
//!
//! In: the [`Draft`]. Out: the section's bullets, in the findings' causal
//! order, one per pattern.
//!
//! ```text
//! [tenant_surge(acct-4411), health_check_coupling]
//!   -> "- Why could `acct-4411` (integration `acme-exporter`) send at this rate: ..."
//! ```

use std::fmt::Write;

use super::Draft;
use crate::report::FindingJson;

/// Who a finding is about, as the question names it.
fn who(d: &Draft<'_>, f: &FindingJson) -> String {
    if let Some(c) = d
        .culprit
        .filter(|c| c.tenant.is_some() && f.subject.tenant == c.tenant)
    {
        return c.short();
    }
    let s = &f.subject;
    match (&s.tenant, &s.integration, &s.endpoint) {
        (Some(t), _, _) => format!("`{t}`"),
        (None, Some(i), _) => format!("integration `{i}`"),
        (None, None, Some(e)) => format!("`{e}`"),
        _ => "the client".to_string(),
    }
}

/// What took instances down, where a restart finding's own evidence says
/// (the orchestrator's reason, the process's last line): the question is
/// then why, not what.
pub(crate) fn kill_reason(f: &FindingJson) -> Option<&'static str> {
    let said = |words: &[&str]| {
        std::iter::once(f.title.as_str())
            .chain(f.evidence.iter().map(|e| e.text.as_str()))
            .any(|t| {
                let t = t.to_ascii_lowercase();
                words.iter().any(|w| t.contains(w))
            })
    };
    if said(&["oomkilled", "out of memory", "out-of-memory"]) {
        Some("memory")
    } else if said(&["watchdog"]) {
        Some("watchdog")
    } else if said(&["liveness"]) {
        Some("liveness")
    } else {
        None
    }
}

fn question(d: &Draft<'_>, f: &FindingJson) -> Option<String> {
    Some(match f.pattern.as_str() {
        "tenant_surge" => format!(
            "Why could {} send at this rate: is there no per-account limit, and did its owner plan this job?",
            who(d, f)
        ),
        // Where no request waited for a connection they held workers.
        "slow_request_hogging" => format!(
            "What made the requests of {} slow, and why did no timeout release their {} sooner?",
            who(d, f),
            if f.evidence.iter().any(|e| e.text.contains("no request waiting")) {
                "workers"
            } else {
                "connections"
            }
        ),
        "deploy_regression" => {
            "What in the change caused it, and why did testing and the rollout not catch it?".to_string()
        }
        "stuck_instance" => {
            // "1 of 7 instances stopped answering ...": one instance, or several.
            let (what, it, they) = if f.title.starts_with("1 of ") {
                ("instance", "it", "was")
            } else {
                ("instances", "they", "were")
            };
            format!("Why did the stuck {what} hang (a dependency, a lock, the host), and why {they} {it} not taken out of rotation?")
        }
        "upstream_rate_limit" => {
            "What limit did the dependency apply, and is it published?".to_string()
        }
        // Whether the database's own metrics were given is not known here:
        // only "no metrics at all" is said (a review found the claim false).
        "pool_exhaustion" => format!(
            "Is the pool sized for this traffic, and was the database itself healthy{}?",
            if d.r.extra.has_metrics {
                ""
            } else {
                " (no metrics among the inputs)"
            }
        ),
        "backlog_growth" => "Was queued work only delayed, or was some of it dropped?".to_string(),
        "health_check_coupling" => {
            "What does the liveness check wait on (the data cannot tell), and should a slow but working server fail it?".to_string()
        }
        // The same kills a crash loop's evidence names (its first restarts
        // are the synchronized ones): asked "what took them down" beside 53
        // OOM kills, a review called the question already answered.
        "synchronized_restart" => match kill_reason(f).or_else(|| {
            d.findings
                .iter()
                .filter(|g| g.pattern == "crash_loop")
                .find_map(|g| kill_reason(g))
        }) {
            Some(_) => "Why was there no slack to take the instances down and restart them in turn?".to_string(),
            None => "What took every instance down at the same moment (a liveness check, memory, a shared dependency), and why was there no slack to restart them in turn?".to_string(),
        },
        "crash_loop" => match kill_reason(f) {
            Some("memory") => "What filled each instance's memory under this load (work in flight, a cache, a leak), and is its limit sized for it?".to_string(),
            Some("watchdog") => "What kept the instances from answering their watchdog in time (work in flight, a dependency), and is its timeout right for this load?".to_string(),
            Some(_) => "What were the instances busy with when they failed their liveness check, and should a server too busy to answer it be killed?".to_string(),
            None => "What took the instances down each time (a watchdog or liveness kill, memory, a fault under load), as their own last log lines say?".to_string(),
        },
        "retry_storm" => format!(
            "What retry policy does {} use, and does it back off?",
            who(d, f)
        ),
        "thundering_herd" => "Why did the clients reconnect at the same moment, without jitter?".to_string(),
        _ => return None,
    })
}

pub(crate) fn section(out: &mut String, d: &Draft<'_>) {
    let _ = writeln!(out, "## Open questions\n");
    if !d.r.incident.found {
        let _ = writeln!(out, "None: no incident was found.\n");
        return;
    }
    let mut qs: Vec<String> = Vec::new();
    let attr = &d.r.attribution;
    // A change that caused the incident explains a rise that followed it
    // (clients retrying its failures): no question about a launch then.
    let caused = d
        .findings
        .iter()
        .any(|f| d.role(f) == super::cascade::Role::Trigger);
    if let (Some((_, _, Some(t))), false) = (&d.r.extra.demand_after, caused || d.demand_grew()) {
        // Requests slowed at the old rate: what they wait on is the lead.
        qs.push(format!(
            "What slowed requests from {} UTC while traffic was unchanged? The database's own metrics and slow-query log, or the dependency they wait on, for that minute.",
            crate::render::time::hms(t)
        ));
    } else if d.demand_grew() && !caused {
        qs.push(if d.has("retry_storm") {
            format!(
                "Was the rise across many {}s only clients retrying, or did something make them send more (a launch, a season, a client release)?",
                attr.dimension
            )
        } else {
            format!(
                "What made many {}s send more at once (a launch, a season, a client release)?",
                attr.dimension
            )
        });
    }
    for f in &d.findings {
        if let Some(q) = question(d, f) {
            if !qs.contains(&q) {
                qs.push(q);
            }
        }
    }
    // Whether data was lost is asked by the Impact's data-integrity line.
    qs.push("When did monitoring alert, when was the incident declared, and when were customers told (status page)?".to_string());
    for q in qs {
        let _ = writeln!(out, "- {q}");
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::markdown::fixture::bulk;

    #[test]
    fn questions_follow_the_findings() {
        let r = bulk();
        let mut out = String::new();
        section(&mut out, &Draft::new(&r));
        assert!(
            out.contains("Why could `acct-4411` send at this rate"),
            "{out}"
        );
        assert!(
            out.contains("What does the liveness check wait on"),
            "{out}"
        );
        assert!(!out.contains("stuck instances"), "{out}");
    }

    /// Where the evidence says what took the instances down, the question
    /// is why (a review found "what took them down: memory?" beside 80
    /// OOM kills); where it does not, what.
    #[test]
    fn a_known_kill_reason_is_asked_why_not_what() {
        let r = bulk();
        let d = Draft::new(&r);
        let mut f = crate::render::markdown::fixture::finding("crash_loop", 0.8, "07:57:00");
        f.title = "4 instances crashed and restarted repeatedly".to_string();
        f.evidence.clear();
        let unknown = question(&d, &f).unwrap_or_default();
        assert!(
            unknown.starts_with("What took the instances down"),
            "{unknown}"
        );
        f.evidence.push(crate::report::EvidenceJson {
            text: "80 out-of-memory kill(s): Container core was OOMKilled (exit code 137)"
                .to_string(),
            source: "k8s-events.jsonl:3".to_string(),
        });
        let memory = question(&d, &f).unwrap_or_default();
        assert!(
            memory.starts_with("What filled each instance's memory"),
            "{memory}"
        );
        f.pattern = "synchronized_restart".to_string();
        let sync = question(&d, &f).unwrap_or_default();
        assert!(sync.starts_with("Why was there no slack"), "{sync}");
        // A restart finding that does not say why, beside a crash loop
        // whose evidence does: the question is why too.
        let mut r = bulk();
        let mut oom = crate::render::markdown::fixture::finding("crash_loop", 0.8, "07:59:00");
        oom.evidence = f.evidence.clone();
        r.findings.push(oom);
        let d = Draft::new(&r);
        let mut bare =
            crate::render::markdown::fixture::finding("synchronized_restart", 0.9, "07:58:54");
        bare.evidence.clear();
        let sync = question(&d, &bare).unwrap_or_default();
        assert!(sync.starts_with("Why was there no slack"), "{sync}");
    }

    /// Slow requests that held workers, not connections, are asked about
    /// as what they held.
    #[test]
    fn slow_requests_are_asked_about_what_they_held() {
        let r = bulk();
        let d = Draft::new(&r);
        let mut f =
            crate::render::markdown::fixture::finding("slow_request_hogging", 0.8, "07:57:00");
        f.subject.endpoint = Some("/api/tickets".to_string());
        let q = question(&d, &f).unwrap_or_default();
        assert!(q.ends_with("release their connections sooner?"), "{q}");
        f.evidence[0].text = "`/api/tickets`: 97% of the servers' busy time in the window (the sum of request durations; the pool metrics show no request waiting for a connection)".to_string();
        let q = question(&d, &f).unwrap_or_default();
        assert!(q.ends_with("release their workers sooner?"), "{q}");
    }
}
