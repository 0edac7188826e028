//! `crash_loop`: instances crash under load, restart into the queued
//! backlog plus live load, and crash again.
//!
//! Why it matters: each restart starts from a worse place than the last;
//! only more capacity breaks the loop (seed 001).
//!
//! Example: a pod restarts four times in twenty minutes (OOMKilled, then
//! BackOff), each time staying up for less time than before.

use std::collections::BTreeMap;

use super::finding::{confidence, Evidence, Finding, Subject};
use super::Context;
use crate::correlate::timeline::unplanned;
use crate::event::InfraKind;
use crate::zone::clock;

pub const ID: &str = "crash_loop";

const ACTIONS: &[&str] = &[
    "Right-size the service: more CPU/memory per instance and a lower scale-out threshold, so it runs with headroom",
    "Alert on leading indicators: restarts, unavailable instances, and scaling at its maximum",
];
/// When a failing health check did the killing: the instances were not
/// short of CPU or memory, they were killed for being busy.
const CHECK_ACTIONS: &[&str] = &[
    "A restart back-off and budget, so instances killed for failing a check do not restart straight into the same backlog and get killed again",
    "Alert on leading indicators: restarts and failing health checks",
];

/// Restarts of one instance in the window and the ten minutes before it
/// that make a loop; two make one when both fell in the incident.
const LOOP_RESTARTS: usize = 3;

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let (Some(_), Some(window)) = (a.incident, a.window()) else {
        return;
    };
    let (w0, w1) = ((window.start - 600) * 1000, window.end * 1000);
    // Deaths from a minute before the onset on are the incident's own.
    let in_incident = (window.start - 60) * 1000;
    let mut by_instance: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for r in a
        .history
        .restarts
        .iter()
        .filter(|r| r.down >= w0 && r.down < w1)
        // A rollout replacing instances is planned, not a crash: only
        // restarts that died or came without a change count.
        .filter(|r| unplanned(a, r))
    {
        by_instance
            .entry(r.instance.as_str())
            .or_default()
            .push(r.down);
    }
    let backoffs: Vec<&crate::event::InfraEvent> = cx
        .agg
        .infra_events()
        .iter()
        .filter(|e| {
            e.ts >= w0 && e.ts < w1 && matches!(e.kind, InfraKind::BackOff | InfraKind::OomKilled)
        })
        .collect();
    let looping: Vec<(&str, &Vec<i64>)> = by_instance
        .iter()
        .filter(|(inst, downs)| {
            downs.len() >= LOOP_RESTARTS
                // Died, came back into the incident, and died again.
                || downs.iter().filter(|d| **d >= in_incident).count() >= 2
                || (downs.len() >= 2
                    && backoffs.iter().any(|b| {
                        let object = a.ids.canonical(&b.object);
                        b.object == **inst
                                || object == **inst
                                // A group backing off (an ECS service that
                                // cannot keep its tasks running) is about its tasks.
                                || a.history
                                    .groups
                                    .get(&object)
                                    .is_some_and(|m| m.contains(**inst))
                    }))
        })
        .map(|(i, d)| (*i, d))
        .collect();
    if looping.is_empty() {
        return;
    }
    // How many of the looping instances' deaths a failing check caused.
    let (counted, by_check) = a
        .history
        .restarts
        .iter()
        .filter(|r| r.down >= w0 && r.down < w1 && looping.iter().any(|(i, _)| *i == r.instance))
        .fold((0usize, 0usize), |(n, k), r| {
            let check = r
                .cause
                .as_deref()
                .is_some_and(|c| a.stop_causes.killed_by_check(c));
            (n + 1, k + usize::from(check))
        });
    let mut evidence = Vec::new();
    let mut shrinking = 0;
    for (inst, downs) in &looping {
        let gaps: Vec<i64> = downs
            .windows(2)
            .filter_map(|w| match w {
                [a, b] => Some((b - a) / 1000),
                _ => None,
            })
            .collect();
        let narrowing = gaps.windows(2).all(|g| match g {
            [a, b] => b <= a,
            _ => true,
        });
        if narrowing && gaps.len() >= 2 {
            shrinking += 1;
        }
        let times: Vec<String> = downs.iter().map(|d| clock(*d)).collect();
        evidence.push(Evidence::new(
            format!(
                "{} restarted {} times: {}",
                a.ids.display(inst),
                downs.len(),
                times.join(", ")
            ),
            a.history
                .restarts
                .iter()
                .find(|r| r.instance == *inst)
                .map(|r| a.source(r.source))
                .unwrap_or_default(),
        ));
    }
    if let Some(b) = backoffs.first() {
        // Each kind counted as what it is: "back-off / OOM" read as OOM
        // kills that never happened.
        let ooms = backoffs
            .iter()
            .filter(|e| e.kind == crate::event::InfraKind::OomKilled)
            .count();
        let kinds = match (backoffs.len() - ooms, ooms) {
            (n, 0) => format!("{n} back-off event(s)"),
            (0, m) => format!("{m} out-of-memory kill(s)"),
            (n, m) => format!("{n} back-off event(s) and {m} out-of-memory kill(s)"),
        };
        evidence.push(Evidence::new(
            format!(
                "{kinds}, the first on {}: {}",
                a.ids.display(&b.object),
                crate::redact::redact_text(&b.message)
            ),
            a.source(b.origin),
        ));
    }
    // Deaths the instances' own crash lines put down to memory: where no
    // orchestrator reported an out-of-memory kill, the reader's first
    // question (what killed them?) is answered by the app's last words.
    let own_oom: Vec<&crate::correlate::Restart> = a
        .history
        .restarts
        .iter()
        .filter(|r| {
            r.down >= w0
                && r.down < w1
                && r.cause.as_deref() == Some(crate::correlate::RAN_OUT_OF_MEMORY)
                && looping.iter().any(|(i, _)| *i == r.instance)
        })
        .collect();
    if let Some(first) = own_oom.first() {
        evidence.push(Evidence::new(
            format!(
                "{} of these restarts came after the instance's own out-of-memory error, the first on {} at {}",
                own_oom.len(),
                a.ids.display(&first.instance),
                clock(first.down)
            ),
            a.source(first.source),
        ));
    }
    let c = 0.55
        + 0.2
            * (looping.len() as f64 / a.running(a.fleet.len(), looping.len()).max(1) as f64)
                .min(1.0)
        + if shrinking > 0 { 0.1 } else { 0.0 }
        + if backoffs.is_empty() { 0.0 } else { 0.1 };
    sink.push(Finding {
        figures: Vec::new(),
        pattern: ID,
        title: format!(
            "{} crashed and restarted repeatedly",
            match looping.len() {
                1 => "1 instance".to_string(),
                n => format!("{n} instances"),
            }
        ),
        confidence: confidence(c),
        start: looping
            .iter()
            .flat_map(|(_, d)| d.iter())
            .copied()
            .min()
            .unwrap_or(w0),
        end: w1,
        subject: Subject {
            instance: looping
                .first()
                .filter(|_| looping.len() == 1)
                .map(|l| l.0.to_string()),
            ..Subject::default()
        },
        evidence,
        timeline: Vec::new(),
        actions: if by_check * 2 > counted {
            CHECK_ACTIONS
        } else {
            ACTIONS
        },
    });
}
