//! `synchronized_restart`: most or all instances restart within a short
//! span, turning a degraded-but-serving state into a full outage.
//!
//! Why it matters: one instance restarting is routine; all of them at once
//! is an outage, with the backlog landing on cold servers (seed 000).
//!
//! Example: kubelet kills all three API pods within 2 s; nothing is served
//! until the first is back 6 s later.

use super::finding::{confidence, Evidence, Finding, Subject};
use super::Context;
use crate::zone::clock;

pub const ID: &str = "synchronized_restart";

const ACTIONS: &[&str] = &[
    "Staggered restarts and a restart budget (e.g. a PodDisruptionBudget, maxUnavailable) so no more than a fraction of instances restart at once",
    "Connection draining and fail-fast timeouts, so a restart sheds load instead of dropping it",
];

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let (Some(_), Some(window)) = (a.incident, a.window()) else {
        return;
    };
    let total = a.fleet.len();
    let (down, at) = a.history.most_down_at_once();
    let Some(at) = at else { return };
    if down < 2 || down * 2 < total || at < (window.start - 120) * 1000 || at >= window.end * 1000 {
        return;
    }
    let group: Vec<&crate::correlate::Restart> = a
        .history
        .restarts
        .iter()
        .filter(|r| r.down <= at && r.back_by() > at)
        .collect();
    let first = group.iter().map(|r| r.down).min().unwrap_or(at);
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
    let outage = a
        .outages
        .iter()
        .filter(|o| o.end * 1000 > first)
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
            a.inputs.first().cloned().unwrap_or_default(),
        ));
    }
    sink.push(Finding {
        pattern: ID,
        title: format!(
            "{down} of {total} instances restarted together within {} s",
            (group.iter().map(|r| r.down).max().unwrap_or(first) - first) / 1000
        ),
        confidence: confidence(c),
        start: first,
        end: back.unwrap_or(window.end * 1000),
        subject: Subject::default(),
        evidence,
        timeline: Vec::new(),
        actions: ACTIONS,
    });
}
