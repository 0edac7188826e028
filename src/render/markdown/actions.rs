//! Action items: at most about eight, deduplicated, the direct fix first,
//! grouped by horizon (now / this quarter), each with why it helps and
//! placeholders for owner and priority.
//!
//! In: the remediations each supported finding carries (the seeds' choices
//! per pattern), in the findings' causal order. Out: the section. Items are
//! taken round-robin over the findings (every finding's first remediation
//! before any second one), so that the cap drops the least direct ones;
//! two remediations of one topic ("Separate capacity (pools, workers)" and
//! "Dedicated connection pools") are one item; the alerting items of all
//! patterns are one item naming the indicators seen here.
//!
//! ```text
//! tenant_surge [rate limits, page sizes, separate capacity], pool_exhaustion [dedicated pools, ...]
//!   -> Now: rate limits, ...; This quarter: dedicated pools (once), page sizes, ...
//! ```

use std::fmt::Write;

use super::Draft;
use crate::report::FindingJson;

/// The cap: the seeds chose four to eight.
pub(crate) const MAX_ITEMS: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Horizon {
    Now,
    Quarter,
}

/// What the draft knows of a remediation, by how its text begins: its
/// topic (items of one topic are one item), its horizon, why it helps.
const CATALOGUE: &[(&str, &str, Horizon, &str)] = &[
    (
        "Per-account (per-integration) rate limits",
        "rate-limit",
        Horizon::Now,
        "one client's burst took the capacity every other customer needed",
    ),
    (
        "Bounded page sizes",
        "page-size",
        Horizon::Quarter,
        "a bulk read then holds a connection for milliseconds, not seconds",
    ),
    (
        "Separate capacity (pools, workers)",
        "isolate",
        Horizon::Quarter,
        "bulk work can then no longer starve interactive requests",
    ),
    (
        "Dedicated connection pools",
        "isolate",
        Horizon::Quarter,
        "bulk work can then no longer starve interactive requests",
    ),
    (
        "Isolate the slow endpoint",
        "isolate",
        Horizon::Quarter,
        "its slow requests can then no longer starve everyone else",
    ),
    (
        "Fail fast on pool checkout",
        "fail-fast",
        Horizon::Now,
        "requests then fail in milliseconds instead of queueing and holding the servers",
    ),
    (
        "Find what held the connections",
        "find-holder",
        Horizon::Now,
        "the data shows the pool full, not which code held it",
    ),
    (
        "Liveness checks that do not touch",
        "liveness",
        Horizon::Quarter,
        "a slow database then makes servers slow, not dead",
    ),
    (
        "A watchdog keep-alive sent from a thread",
        "liveness",
        Horizon::Quarter,
        "a slow database then makes servers slow, not dead",
    ),
    (
        "A watchdog timeout (WatchdogSec) longer than the pool's",
        "liveness-threshold",
        Horizon::Now,
        "the watchdog then outlasts the pool's wait instead of killing servers that are only slow",
    ),
    (
        "A restart back-off and budget",
        "backoff",
        Horizon::Quarter,
        "instances killed for being busy then come back one at a time, not into the backlog together",
    ),
    (
        "Staggered restarts and a restart budget",
        "stagger",
        Horizon::Quarter,
        "a restart then takes out a fraction of the capacity, never all of it",
    ),
    (
        "Longer liveness thresholds",
        "liveness-threshold",
        Horizon::Now,
        "probes then outlast the pool's wait instead of killing servers that are only slow",
    ),
    (
        "Staggered restarts",
        "stagger",
        Horizon::Quarter,
        "a restart then takes out a fraction of the capacity, never all of it",
    ),
    (
        "Connection draining",
        "drain",
        Horizon::Quarter,
        "a restart then sheds load instead of dropping requests in flight",
    ),
    (
        "Retries with jittered exponential backoff",
        "backoff",
        Horizon::Quarter,
        "retries then spread out instead of arriving at the worst moment",
    ),
    (
        "Reconnect and re-login with jittered",
        "backoff",
        Horizon::Quarter,
        "clients then come back spread out instead of all at once",
    ),
    (
        "Shed or rate-limit with 429",
        "shed",
        Horizon::Quarter,
        "clients then wait for capacity instead of piling on",
    ),
    (
        "Resume bulk jobs",
        "resume",
        Horizon::Quarter,
        "a failed job then resumes instead of sending everything again",
    ),
    (
        "Right-size the service",
        "headroom",
        Horizon::Now,
        "each instance then has the headroom to work off the backlog",
    ),
    (
        "Headroom and a lower scale-out threshold",
        "headroom",
        Horizon::Now,
        "the queue then drains faster than it fills",
    ),
    (
        "Shorter queueing and request timeouts",
        "timeouts",
        Horizon::Now,
        "long requests then release their connections",
    ),
    (
        "Shorter timeouts on what the slow requests wait for",
        "timeouts",
        Horizon::Now,
        "slow calls then fail fast and free their workers for everyone else",
    ),
    (
        "Stricter timeouts and fail-fast",
        "timeouts",
        Horizon::Now,
        "a stuck instance then cannot hold the gateway's connections",
    ),
    (
        "Health checks that exercise the real request path",
        "probe-path",
        Horizon::Quarter,
        "an instance that stops answering is then taken out of rotation",
    ),
    (
        "Admission control on connect/login",
        "admission",
        Horizon::Quarter,
        "a reconnect wave then queues instead of overwhelming the service",
    ),
    (
        "Queue and back off calls to rate-limited",
        "upstream-backoff",
        Horizon::Quarter,
        "the dependency's limit is then respected instead of hit",
    ),
    (
        "Serve degraded paths",
        "degrade",
        Horizon::Quarter,
        "users then see less, not an error, while a dependency limits",
    ),
    (
        "Roll back first, investigate second",
        "fix-change",
        Horizon::Now,
        "the change caused it; it must not ship again unfixed",
    ),
    (
        "Keep the change undone until it is fixed",
        "fix-change",
        Horizon::Now,
        "the change caused it; it must not ship again unfixed",
    ),
    (
        "Canary or staged rollouts",
        "canary",
        Horizon::Quarter,
        "a bad change then reaches a few instances and rolls back by itself",
    ),
    (
        "During an incident, check per-tenant",
        "runbook",
        Horizon::Now,
        "the rollback here did not help; the load did",
    ),
    (
        "Record deploys next to the leading indicators",
        "deploy-markers",
        Horizon::Quarter,
        "responders then see at once whether a change lines up with the onset",
    ),
    ("Alert on", "alert", Horizon::Now, ""),
];

struct Item {
    topic: String,
    horizon: Horizon,
    text: String,
    why: String,
}

/// The pool's "find what held the connections" where requests had been
/// slowing since `t` at an unchanged rate.
fn slower_holds(t: &str) -> Item {
    Item {
        topic: "find-holder".to_string(),
        horizon: Horizon::Now,
        text: format!(
            "Find what slowed the work that holds the connections from {} UTC: query time per endpoint and the database's own slow-query log and load for that time",
            crate::render::time::hms(t)
        ),
        why: "requests slowed while traffic was unchanged: each connection was held longer, and the data does not show why".to_string(),
    }
}

/// Where the pool reported leaked connections: read what it logged.
fn read_leak_reports(t: &str) -> Item {
    Item {
        topic: "find-holder".to_string(),
        horizon: Horizon::Now,
        text: format!(
            "Find the code that kept the connections: the pool's leak reports from {} UTC log the stack that took each one",
            crate::render::time::hms(t)
        ),
        why: "the pool reported connections held past its leak threshold before it ran dry".to_string(),
    }
}

fn item(action: &str, f: &FindingJson) -> Item {
    let action = action.trim_end_matches('.');
    // A remediation that says its purpose ("..., so one cannot starve the
    // other") keeps it as its why rather than saying it twice.
    let (text, own_why) = match action
        .split_once(", so ")
        .or_else(|| action.split_once(" so no "))
    {
        Some((t, w)) if action.contains(", so ") => (t, Some(format!("so {w}"))),
        Some((t, w)) => (t, Some(format!("so no {w}"))),
        None => (action, None),
    };
    match CATALOGUE.iter().find(|(p, ..)| action.starts_with(p)) {
        Some((_, topic, horizon, why)) => Item {
            topic: (*topic).to_string(),
            horizon: *horizon,
            text: text.to_string(),
            why: own_why.unwrap_or_else(|| (*why).to_string()),
        },
        None => Item {
            topic: action.to_string(),
            horizon: Horizon::Quarter,
            text: text.to_string(),
            why: own_why.unwrap_or_else(|| format!("it addresses `{}`", f.pattern)),
        },
    }
}

/// The indicators this incident showed, for the one alerting item.
fn indicators(d: &Draft<'_>) -> Vec<&'static str> {
    let mut out = Vec::new();
    for (pattern, what) in [
        ("tenant_surge", "per-tenant request rate"),
        ("slow_request_hogging", "per-client busy time"),
        (
            "pool_exhaustion",
            "pool usage and requests waiting for a connection",
        ),
        ("backlog_growth", "queue depth and age"),
        ("health_check_coupling", "failing probes"),
        ("synchronized_restart", "restarts"),
        ("crash_loop", "restarts"),
        ("stuck_instance", "per-instance latency"),
        ("retry_storm", "retried requests"),
    ] {
        if d.has(pattern) && !out.contains(&what) {
            out.push(what);
        }
    }
    out
}

/// The items, capped and deduplicated, in the order they are shown.
fn items(d: &Draft<'_>) -> Vec<Item> {
    let mut sources: Vec<&FindingJson> = d.findings.clone();
    // A red herring's remediation is about how responders looked.
    sources.extend(d.r.findings.iter().filter(|f| {
        f.pattern == "red_herring_deploy" && f.confidence >= crate::patterns::SUPPORTED
    }));
    let mut chosen: Vec<Item> = Vec::new();
    // Demand outgrew the service with no trigger: capacity is the direct
    // fix, and a pool's "find what held the connections" would send the
    // reader hunting for a leak that every client's ordinary work explains.
    let outgrown = d.demand_grew()
        && !d
            .findings
            .iter()
            .any(|f| d.role(f) == super::cascade::Role::Trigger);
    if outgrown {
        chosen.push(Item {
            topic: "capacity".to_string(),
            horizon: Horizon::Now,
            text: "Capacity for the demand: scale out on leading indicators (request rate, CPU, pool usage) before the fleet runs out, with a floor of instances that covers the peak".to_string(),
            why: "demand grew across many customers beyond what the fleet could serve".to_string(),
        });
    }
    // A finding that names who held the servers (a tenant's slow requests,
    // an endpoint) answers "what held the connections" already.
    let holder_named = d.findings.iter().any(|f| {
        f.pattern == "slow_request_hogging"
            && f.confidence >= crate::patterns::SUPPORTED
            && (f.subject.tenant.is_some()
                || f.subject.integration.is_some()
                || f.subject.endpoint.is_some())
    });
    // Requests slowed while traffic was unchanged and nothing found set it
    // off: connections were held longer, not by more callers, and the hunt
    // is for what slowed (the lead the draft gives). A change that did set
    // it off (a deploy shipping a leak) keeps the leak hunt.
    let triggered = d
        .findings
        .iter()
        .any(|f| d.role(f) == super::cascade::Role::Trigger);
    let slowed_first = match &d.r.extra.demand_after {
        Some((_, _, Some(t))) if !d.demand_grew() && !triggered => Some(t.as_str()),
        _ => None,
    };
    // The pool's leak detection was on and reported: its stack traces name
    // the code, and "turn it on" would read as not having looked.
    let leak_reported =
        d.r.timeline
            .iter()
            .find(|e| e.kind == crate::correlate::TimelineKind::ConnectionLeak)
            .map(|e| e.ts.as_str());
    let deepest = sources.iter().map(|f| f.actions.len()).max().unwrap_or(0);
    let found_alert = sources
        .iter()
        .any(|f| f.actions.iter().any(|a| a.starts_with("Alert on")));
    // One slot is the alerting item's.
    let room = MAX_ITEMS - 1;
    'fill: for k in 0..deepest {
        for f in &sources {
            let Some(a) = f.actions.get(k) else { continue };
            let mut it = item(a, f);
            if it.topic == "find-holder" {
                if let Some(t) = slowed_first {
                    it = slower_holds(t);
                } else if let Some(l) = leak_reported {
                    it = read_leak_reports(l);
                }
            }
            if it.topic == "alert"
                || ((outgrown || holder_named) && it.topic == "find-holder")
                || chosen.iter().any(|c| c.topic == it.topic)
            {
                continue;
            }
            // The direct fix of what set it off comes first, now.
            if chosen.is_empty() && k == 0 {
                it.horizon = Horizon::Now;
            }
            chosen.push(it);
            if chosen.len() == room {
                break 'fill;
            }
        }
    }
    if !chosen.is_empty() || found_alert {
        let seen = indicators(d);
        chosen.push(Item {
            topic: "alert".to_string(),
            horizon: Horizon::Now,
            text: if seen.is_empty() {
                "Alert on the leading indicators of this incident, before users notice".to_string()
            } else {
                format!(
                    "Alert on the leading indicators seen here: {}",
                    seen.join(", ")
                )
            },
            why: "they show the next incident building before requests fail".to_string(),
        });
    }
    // Now before this quarter; within each, the order chosen.
    let (mut now, quarter): (Vec<Item>, Vec<Item>) =
        chosen.into_iter().partition(|i| i.horizon == Horizon::Now);
    now.extend(quarter);
    now
}

pub(crate) fn section(out: &mut String, d: &Draft<'_>) {
    let _ = writeln!(out, "## Action items\n");
    let all = items(d);
    if all.is_empty() {
        let _ = writeln!(
            out,
            "None proposed: no cascade pattern is supported by the data.\n"
        );
        return;
    }
    for (horizon, head) in [(Horizon::Now, "Now"), (Horizon::Quarter, "This quarter")] {
        let group: Vec<&Item> = all.iter().filter(|i| i.horizon == horizon).collect();
        if group.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{head}:\n");
        for i in group {
            let _ = writeln!(
                out,
                "- [ ] {}. Why: {}. (owner: TBD, priority: TBD)",
                i.text, i.why
            );
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::markdown::fixture::bulk;

    #[test]
    fn at_most_eight_items_without_duplicates_direct_fix_first() {
        let r = bulk();
        let d = Draft::new(&r);
        let all = items(&d);
        assert!(all.len() <= MAX_ITEMS, "{}", all.len());
        let mut topics: Vec<&str> = all.iter().map(|i| i.topic.as_str()).collect();
        assert_eq!(topics[0], "rate-limit", "the direct fix first");
        topics.sort_unstable();
        let n = topics.len();
        topics.dedup();
        assert_eq!(topics.len(), n, "no topic twice");
        let alerts = all
            .iter()
            .filter(|i| i.text.starts_with("Alert on"))
            .count();
        assert_eq!(alerts, 1, "one alerting item");
        let mut out = String::new();
        section(&mut out, &d);
        assert!(
            out.contains("Now:") && out.contains("This quarter:"),
            "{out}"
        );
        assert_eq!(
            out.matches("(owner: TBD, priority: TBD)").count(),
            all.len(),
            "{out}"
        );
        // Both pool-isolation remediations are one item.
        assert_eq!(
            out.matches("Separate capacity").count()
                + out.matches("Dedicated connection pools").count(),
            1,
            "{out}"
        );
    }

    /// The pool finding's advice to hunt for what held its connections.
    fn with_leak_hunt(r: &mut crate::report::Report) {
        for f in r
            .findings
            .iter_mut()
            .filter(|f| f.pattern == "pool_exhaustion")
        {
            f.actions.insert(
                0,
                "Find what held the connections: turn on the pool's leak detection".to_string(),
            );
        }
    }

    /// Traffic grew across every customer and the pools ran out, with the
    /// pool's leak-hunting advice among its actions and no trigger.
    fn grown_without_a_trigger() -> crate::report::Report {
        let mut r = bulk();
        r.findings
            .retain(|f| f.pattern != "tenant_surge" && f.pattern != "retry_storm");
        with_leak_hunt(&mut r);
        r.extra.culprit = None;
        r.attribution.organic = true;
        r.attribution.grew = true;
        r
    }

    /// The one find-the-holder item's text, and every item's topic and text.
    fn holder_and_all(r: &crate::report::Report) -> (String, Vec<(String, String)>) {
        let d = Draft::new(r);
        let all = items(&d);
        let hunt: Vec<&Item> = all.iter().filter(|i| i.topic == "find-holder").collect();
        assert_eq!(hunt.len(), 1);
        let text = hunt[0].text.clone();
        (text, all.into_iter().map(|i| (i.topic, i.text)).collect())
    }

    /// Requests slowed at an unchanged rate: the pool's advice hunts for
    /// what slowed, not for a leak.
    #[test]
    fn a_slowdown_at_an_unchanged_rate_asks_what_slowed_not_for_a_leak() {
        let mut r = grown_without_a_trigger();
        r.extra.demand_after = Some((3.2, 3.1, Some("2026-10-01T07:51:13Z".to_string())));
        let (hunt, all) = holder_and_all(&r);
        assert!(hunt
            .starts_with("Find what slowed the work that holds the connections from 07:51:13 UTC"));
        assert!(all.iter().all(|(_, t)| !t.contains("leak detection")));
        assert!(all.iter().all(|(topic, _)| topic != "capacity"));
    }

    /// The pool reported its leaked connections: the item asks to read
    /// those reports, not to turn leak detection on.
    #[test]
    fn a_pool_that_reported_its_leaks_is_read_not_switched_on() {
        let mut r = bulk();
        r.findings
            .retain(|f| f.pattern != "tenant_surge" && f.pattern != "retry_storm");
        with_leak_hunt(&mut r);
        r.extra.culprit = None;
        r.timeline.push(crate::render::markdown::fixture::entry(
            "07:55:10",
            crate::correlate::TimelineKind::ConnectionLeak,
            "The connection pool reports a leaked connection",
            "app.log:9",
        ));
        let (hunt, all) = holder_and_all(&r);
        assert!(hunt.contains("the pool's leak reports from 07:55:10 UTC"));
        assert!(all
            .iter()
            .all(|(_, t)| !t.contains("turn on the pool's leak detection")));
    }

    /// No customer caused it: capacity comes first, and the pool's
    /// leak-hunting advice is left out.
    #[test]
    fn outgrown_capacity_leads_and_no_leak_hunt() {
        let r = grown_without_a_trigger();
        let d = Draft::new(&r);
        let all = items(&d);
        assert_eq!(all[0].topic, "capacity");
        assert!(all.iter().all(|i| i.topic != "find-holder"));
    }

    #[test]
    fn a_named_holder_leaves_no_leak_hunt() {
        let mut r = bulk();
        with_leak_hunt(&mut r);
        let mut hog =
            crate::render::markdown::fixture::finding("slow_request_hogging", 0.9, "07:58:00");
        hog.subject.tenant = Some("acct-4411".to_string());
        r.findings.push(hog);
        let d = Draft::new(&r);
        assert!(items(&d).iter().all(|i| i.topic != "find-holder"));
    }

    #[test]
    fn no_findings_no_items() {
        let mut r = bulk();
        r.findings.clear();
        let d = Draft::new(&r);
        let mut out = String::new();
        section(&mut out, &d);
        assert!(out.contains("None proposed"), "{out}");
    }
}
