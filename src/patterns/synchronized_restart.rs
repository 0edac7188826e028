//! `synchronized_restart`: most or all instances restart within a short
//! span, turning a degraded-but-serving state into a full outage.
//!
//! Why it matters: one instance restarting is routine; all of them at once
//! is an outage, with the backlog landing on cold servers (seed 000).
//!
//! Example: kubelet kills all three API pods within 2 s; nothing is served
//! until the first is back 6 s later.
//!
//! In: the analysis' restarts (by canonical instance) and the access log's
//! instances. Out: a finding when at least two, and at least half of the
//! instances running just before, died within a minute (rollout restarts
//! left out; the earliest such minute), counted against the fleet as it was
//! then, not after a later scale-out.

use std::collections::{BTreeMap, BTreeSet};

use super::finding::{confidence, Evidence, Finding, Subject};
use super::Context;
use crate::aggregate::Dim;
use crate::correlate::{timeline, Restart, StopCauses, TimelineEntry, TimelineKind};
use crate::event::Millis;
use crate::zone::clock;

pub const ID: &str = "synchronized_restart";

/// Said in the terms of what killed them: a kubelet's liveness probe, a
/// systemd watchdog, or neither named (a crash, memory).
const LIVENESS_ACTIONS: &[&str] = &[
    "Staggered restarts: a liveness failure threshold longer than a fleet-wide slow spell (a PodDisruptionBudget limits rollouts and evictions, not liveness kills), so no more than a fraction of instances restart at once",
    "Connection draining and fail-fast timeouts, so a restart sheds load instead of dropping it",
];
const WATCHDOG_ACTIONS: &[&str] = &[
    "Staggered restarts: a watchdog timeout (WatchdogSec) longer than a fleet-wide slow spell, so no more than a fraction of instances restart at once",
    "Connection draining and fail-fast timeouts, so a restart sheds load instead of dropping it",
];
const ACTIONS: &[&str] = &[
    "Staggered restarts and a restart budget, so no more than a fraction of instances restart at once",
    "Connection draining and fail-fast timeouts, so a restart sheds load instead of dropping it",
];

/// The actions for what the restarts' stated causes say killed them.
fn actions(group: &[&Restart], causes: &StopCauses) -> &'static [&'static str] {
    let said = |what: fn(&StopCauses, &str) -> bool| {
        group
            .iter()
            .filter_map(|r| r.cause.as_deref())
            .any(|c| what(causes, c))
    };
    if said(StopCauses::killed_by_watchdog) {
        WATCHDOG_ACTIONS
    } else if said(StopCauses::killed_by_check) {
        LIVENESS_ACTIONS
    } else {
        ACTIONS
    }
}

/// How long after the group was back an interruption may begin and still be
/// theirs (the first requests on cold servers).
const OUTAGE_AFTER_BACK_MS: i64 = 60_000;

/// How recently an instance must have served to count as running when the
/// group went down.
const RUNNING_LOOKBACK_S: i64 = 300;

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let (Some(_), Some(window)) = (a.incident, a.window()) else {
        return;
    };
    // A rollout replacing instances is not them dying together. Only the
    // incident's restarts are grouped: an earlier pair killed in a blip
    // hid the incident's group behind it (organic-growth draw 895310).
    let (from, to) = ((window.start - 120) * 1000, window.end * 1000);
    let group = a.history.densest(timeline::SYNC_WINDOW_MS, |r| {
        r.down >= from && r.down < to && timeline::unplanned(a, r)
    });
    let down = group.len();
    let Some(first) = group.first().map(|r| r.down) else {
        return;
    };
    let total = running_at(cx, first, &group).max(down);
    if down < 2 || down * 2 < total {
        return;
    }
    let back = group.iter().filter_map(|r| r.up).max();
    let mut evidence: Vec<Evidence> = group
        .iter()
        .map(|r| {
            let up = r.up.map_or_else(
                || "not seen back".to_string(),
                |u| format!("back at {}", clock(u)),
            );
            Evidence::new(
                format!(
                    "{} down at {}, {up}",
                    a.ids.display(&r.instance),
                    clock(r.down)
                ),
                a.source(r.source),
            )
        })
        .collect();
    let mut c = 0.5 + 0.35 * (down as f64 / total.max(1) as f64);
    // The interruption these restarts made: one that began before the last
    // of them was back (and a little after, while they warmed up), not a
    // later one of a crash loop's.
    let until = back.unwrap_or(window.end * 1000) + OUTAGE_AFTER_BACK_MS;
    let outage = a
        .outages
        .iter()
        .filter(|o| o.end * 1000 > first && o.start * 1000 <= until)
        .max_by_key(|o| o.len());
    if let Some(o) = outage {
        c += 0.1;
        evidence.push(Evidence::new(
            format!(
                "no request succeeded from {} to {} ({} s): a gap in traffic from every instance",
                clock(o.start * 1000),
                clock(o.end * 1000),
                o.len()
            ),
            a.request_input(),
        ));
    }
    let spread = (group.iter().map(|r| r.down).max().unwrap_or(first) - first) / 1000;
    // The correlated timeline groups restarts against the whole incident's
    // fleet; counted against the fleet running then, this group is the
    // moment they all went down, and the timeline says so once.
    let mut timeline = Vec::new();
    let told = a
        .timeline
        .iter()
        .any(|e| e.kind == TimelineKind::AllInstancesRestarted && (e.ts - first).abs() <= 60_000);
    if !told {
        let mut names: Vec<String> = group.iter().map(|r| a.ids.display(&r.instance)).collect();
        names.sort_unstable();
        names.dedup();
        timeline.push(TimelineEntry {
            ts: first,
            kind: TimelineKind::AllInstancesRestarted,
            text: format!(
                "{down} of {total} running instances restarted within {spread} s ({})",
                names.join(", ")
            ),
            sources: group.iter().take(3).map(|r| a.source(r.source)).collect(),
        });
    }
    sink.push(Finding {
        figures: Vec::new(),
        pattern: ID,
        // Against the instances running then: "5 of 5" beside a fleet of 8
        // (3 already down) read as a contradiction.
        title: if total < a.fleet.len() {
            format!("{down} of the {total} instances running at the time restarted together within {spread} s")
        } else {
            format!("{down} of {total} instances restarted together within {spread} s")
        },
        confidence: confidence(c),
        start: first,
        end: back.unwrap_or(window.end * 1000),
        subject: Subject::default(),
        evidence,
        timeline,
        actions: actions(&group, &a.stop_causes),
    });
}

/// How many instances were running when the group went down at `first`:
/// those the access log saw serving in the minutes before (as it names them),
/// or else those logging then, and the group itself; the incident's fleet
/// when neither names any.
fn running_at(cx: &Context<'_>, first: Millis, group: &[&Restart]) -> usize {
    let a = cx.analysis;
    let t = first.div_euclid(1000);
    let around = |seen: BTreeMap<String, (i64, i64)>| -> BTreeSet<String> {
        seen.into_iter()
            .filter(|(_, (from, to))| *from <= t && *to >= t - RUNNING_LOOKBACK_S)
            .map(|(name, _)| a.ids.canonical(&name))
            .collect()
    };
    let mut running = around(cx.agg.seen(Dim::Instance));
    if running.is_empty() {
        // No instance in the access log: the ones logging then (a pod's
        // log starts when the pod does, so a later scale-out's are not
        // counted).
        running = around(cx.agg.logged());
    }
    if running.is_empty() {
        return a.fleet.len();
    }
    running.extend(group.iter().map(|r| r.instance.clone()));
    a.ids.as_served(running).len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Origin;

    fn restart(cause: Option<&str>) -> Restart {
        Restart {
            instance: "app-1".to_string(),
            down: 0,
            up: None,
            source: Origin::default(),
            cause: cause.map(str::to_string),
        }
    }

    fn causes() -> StopCauses {
        crate::formats::Catalogue::builtin()
            .expect("catalogue")
            .rules
            .stop_causes
    }

    /// A systemd host gets no Kubernetes advice, and a pod killed for its
    /// probe no systemd advice.
    #[test]
    fn the_advice_is_in_the_terms_of_what_killed_them() {
        let watchdog = restart(Some("app.service: Watchdog timeout (limit 30s)!"));
        let probe = restart(Some(
            "Container app failed liveness probe, will be restarted",
        ));
        let crash = restart(Some("the process exited abnormally"));
        let c = causes();
        assert!(actions(&[&watchdog, &crash], &c)[0].contains("WatchdogSec"));
        assert!(actions(&[&probe], &c)[0].contains("PodDisruptionBudget"));
        let plain = actions(&[&crash, &restart(None)], &c);
        assert!(plain
            .iter()
            .all(|a| !a.contains("liveness") && !a.contains("Watchdog")));
    }
}
