//! Scale-outs: the fleet grew. A scaling event is a scale-out when a set grew
//! and no other set of the same deployment shrank around it (that is a
//! rollout: a deploy or a rollback moving pods from one set to another).
//! Responders scale out to end an incident (seed 001), so a scale-out is a
//! responder's action on the timeline.
//!
//! In: orchestrator events and the scaling rules. Out: [`ScaleOut`]s, one
//! per run of steps up of one deployment.
//!
//! ```text
//! 14:50:00 "Scaled up replica set api-7c9d8b6f5 to 5" (nothing scaled down) -> ScaleOut { group: "api", to: Some(5) }
//! 10:30:00 "Scaled up replica set api-5d4c3b2a1 to 1" + "Scaled down replica set api-7c9d8b6f5 to 2" -> a rollout, no scale-out
//! ```

use std::collections::BTreeMap;

use crate::event::{InfraEvent, InfraKind, Millis, Origin};
use crate::formats::scaling::ScalingRules;

/// Steps of a rollout fall within this long of each other.
const ROLLOUT_MS: Millis = 600_000;

/// One scale-out of one deployment.
#[derive(Clone, Debug, PartialEq)]
pub struct ScaleOut {
    pub ts: Millis,
    /// The deployment or service (a replica set's name without its hash).
    pub group: String,
    pub from: Option<u32>,
    pub to: Option<u32>,
    pub origin: Origin,
    pub message: String,
}

struct Step<'e> {
    ts: Millis,
    up: bool,
    set: String,
    group: String,
    from: Option<u32>,
    to: Option<u32>,
    event: &'e InfraEvent,
}

/// The scale-outs among `events` (sorted by time).
pub fn scale_outs(events: &[InfraEvent], rules: &ScalingRules) -> Vec<ScaleOut> {
    let mut size: BTreeMap<String, u32> = BTreeMap::new();
    let mut steps: Vec<Step<'_>> = Vec::new();
    for e in events.iter().filter(|e| e.kind == InfraKind::Scaling) {
        let Some(step) = rules.step(&e.message) else {
            continue;
        };
        let set = step.set.clone().unwrap_or_else(|| e.object.clone());
        let known = match step.to {
            Some(t) => size.insert(set.clone(), t),
            None => size.get(&set).copied(),
        };
        let before = step.from.or(known);
        let up = match (step.up, before, step.to) {
            (Some(up), _, _) => up,
            (None, Some(b), Some(t)) => t > b,
            // Only a size, and none known before: which way is unknown.
            _ => continue,
        };
        steps.push(Step {
            ts: e.ts,
            up,
            group: group_of(&set, &e.object),
            set,
            from: before,
            to: step.to,
            event: e,
        });
    }
    let mut out: Vec<ScaleOut> = Vec::new();
    for s in steps.iter().filter(|s| s.up) {
        let rollout = steps.iter().any(|o| {
            !o.up && o.group == s.group && o.set != s.set && (o.ts - s.ts).abs() <= ROLLOUT_MS
        });
        if rollout {
            continue;
        }
        // Steps up of one deployment in a row are one scale-out.
        match out.last_mut() {
            Some(last) if last.group == s.group && s.ts - last.ts <= ROLLOUT_MS => {
                last.to = s.to.or(last.to);
            }
            _ => out.push(ScaleOut {
                ts: s.ts,
                group: s.group.clone(),
                from: s.from,
                to: s.to,
                origin: s.event.origin,
                message: s.event.message.clone(),
            }),
        }
    }
    out
}

/// A replica set's deployment: `api-7c9d8b6f5` -> `api` (Kubernetes appends
/// the pod-template hash); anything else is its own group, or the event's object.
fn group_of(set: &str, object: &str) -> String {
    match set.rsplit_once('-') {
        Some((name, hash))
            if !name.is_empty()
                && (6..=10).contains(&hash.len())
                && hash.bytes().all(|b| b.is_ascii_alphanumeric())
                && hash.bytes().any(|b| b.is_ascii_digit()) =>
        {
            name.to_string()
        }
        _ if !object.is_empty() => object.to_string(),
        _ => set.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Catalogue;

    fn ev(ts: Millis, object: &str, message: &str) -> InfraEvent {
        InfraEvent {
            ts,
            first_ts: ts,
            origin: Origin::default(),
            kind: InfraKind::Scaling,
            object: object.to_string(),
            reason: "ScalingReplicaSet".to_string(),
            message: message.to_string(),
            count: 1,
            members: Vec::new(),
            host: None,
        }
    }

    #[test]
    fn a_set_growing_alone_is_a_scale_out_and_a_rollout_is_not() {
        let rules = Catalogue::builtin().expect("catalogue").rules.scaling;
        let events = [
            // A rolling deploy: the new set up, the old one down.
            ev(1_000, "api", "Scaled up replica set api-5d4c3b2a1 to 1"),
            ev(2_000, "api", "Scaled down replica set api-7c9d8b6f5 to 2"),
            ev(60_000, "api", "Scaled up replica set api-5d4c3b2a1 to 2"),
            ev(61_000, "api", "Scaled down replica set api-7c9d8b6f5 to 1"),
            // An hour later, a scale-out in two steps.
            ev(3_600_000, "api", "Scaled up replica set api-5d4c3b2a1 to 4"),
            ev(3_630_000, "api", "Scaled up replica set api-5d4c3b2a1 to 6"),
            // Another deployment shrinking.
            ev(
                3_700_000,
                "worker",
                "Scaled down replica set worker-5b6c7d8e9 to 2",
            ),
        ];
        let outs = scale_outs(&events, &rules);
        assert_eq!(outs.len(), 1, "{outs:?}");
        assert_eq!(outs[0].ts, 3_600_000);
        assert_eq!(outs[0].group, "api");
        assert_eq!((outs[0].from, outs[0].to), (Some(2), Some(6)));
    }

    #[test]
    fn a_size_alone_needs_the_size_before() {
        let rules = Catalogue::builtin().expect("catalogue").rules.scaling;
        let events = [
            ev(1_000, "svc/api", "Successfully set desired count to 6."),
            ev(9_000_000, "svc/api", "Successfully set desired count to 9."),
            ev(
                19_000_000,
                "svc/api",
                "Successfully set desired count to 4.",
            ),
        ];
        let outs = scale_outs(&events, &rules);
        assert_eq!(outs.len(), 1, "{outs:?}");
        assert_eq!((outs[0].from, outs[0].to), (Some(6), Some(9)));
    }
}
