//! Changes inferred from version banners: an instance that starts with a
//! version other than the one it ran before was deployed to (or rolled
//! back, when it returns to a version it ran earlier).
//!
//! In: the banners the aggregates kept, by time. Out: change events
//! ([`InfraEvent`]s of kind `Deploy` or `Rollback`) for the timeline and
//! the deploy detectors. The first version seen on an instance is where the
//! data starts, not a change. Instances that move from the same version to
//! the same version within [`ROLLOUT_GAP_MS`] of each other are one rollout,
//! dated at the first banner with the new version.
//!
//! ```text
//! 07:12 api-1 "Starting orders-api v4.18.2"   first seen: no change
//! 07:40 api-1 "Starting orders-api v4.18.3"   -> Deploy orders-api 4.18.2 -> 4.18.3 at 07:40
//! 07:41 api-2 "Starting orders-api v4.18.3"      (same rollout: "on 2 instances")
//! 07:52 api-1 "Starting orders-api v4.18.2"   -> Rollback orders-api 4.18.3 -> 4.18.2 at 07:52
//! ```

use std::collections::BTreeMap;

use crate::aggregate::BannerSeen;
use crate::event::{InfraEvent, InfraKind, Millis, Origin};

/// Instances moving to the same version further apart than this are
/// separate rollouts.
pub const ROLLOUT_GAP_MS: Millis = 30 * 60 * 1000;

/// One instance's move from one version to another.
struct Move<'b> {
    ts: Millis,
    origin: Origin,
    instance: String,
    service: Option<&'b str>,
    from: &'b str,
    to: &'b str,
    back: bool,
}

/// The changes the banners show. `inputs` names inputs by index: an
/// instance-less banner belongs to its input (one file, one service).
pub fn changes(banners: &[BannerSeen], inputs: &[String]) -> Vec<InfraEvent> {
    // Per instance: the versions it ran, in order, and the moves between them.
    let mut ran: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let mut moves: Vec<Move<'_>> = Vec::new();
    for b in banners {
        let instance = match &b.instance {
            Some(i) => i.clone(),
            None => inputs
                .get(b.origin.input as usize)
                .cloned()
                .unwrap_or_else(|| format!("input {}", b.origin.input)),
        };
        let versions = ran.entry(instance.clone()).or_default();
        let to = b.banner.version.as_str();
        match versions.last() {
            None => versions.push(to),
            Some(&from) if from == to => {}
            Some(&from) => {
                let back = versions.contains(&to);
                versions.push(to);
                moves.push(Move {
                    ts: b.ts,
                    origin: b.origin,
                    instance,
                    service: b.banner.service.as_deref(),
                    from,
                    to,
                    back,
                });
            }
        }
    }
    // Moves of several instances between the same versions close in time are one rollout.
    let mut rollouts: Vec<Vec<&Move<'_>>> = Vec::new();
    for m in &moves {
        let same = rollouts.iter_mut().rev().find(|r| {
            r.first().is_some_and(|first| {
                first.service == m.service && first.from == m.from && first.to == m.to
            }) && r.last().is_some_and(|l| m.ts - l.ts <= ROLLOUT_GAP_MS)
        });
        match same {
            Some(r) => r.push(m),
            None => rollouts.push(vec![m]),
        }
    }
    rollouts.iter().filter_map(|r| event(r)).collect()
}

/// A rollout's event; a rollout has a first move (`None` for none).
fn event(rollout: &[&Move<'_>]) -> Option<InfraEvent> {
    let first = *rollout.first()?;
    let mut instances: Vec<&str> = rollout.iter().map(|m| m.instance.as_str()).collect();
    instances.sort_unstable();
    instances.dedup();
    let on = match instances.as_slice() {
        [one] => format!("on {one}"),
        many => format!("on {} instances ({})", many.len(), many.join(", ")),
    };
    Some(InfraEvent {
        ts: first.ts,
        first_ts: first.ts,
        origin: first.origin,
        kind: if first.back {
            InfraKind::Rollback
        } else {
            InfraKind::Deploy
        },
        object: first
            .service
            .map_or_else(|| first.instance.clone(), str::to_string),
        reason: "version change".to_string(),
        message: format!(
            "started with {} instead of {} {on} (version banners)",
            first.to, first.from
        ),
        count: rollout.len() as u32,
        members: Vec::new(),
        host: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::VersionBanner;

    fn seen(min: i64, instance: Option<&str>, version: &str) -> BannerSeen {
        BannerSeen {
            ts: min * 60_000,
            origin: Origin {
                input: 0,
                line: min as u64,
            },
            instance: instance.map(str::to_string),
            banner: VersionBanner {
                service: Some("orders-api".to_string()),
                version: version.to_string(),
            },
        }
    }

    #[test]
    fn first_versions_are_no_change_and_a_rollout_is_one_event() {
        let banners = [
            seen(10, Some("api-1"), "4.18.2"),
            seen(11, Some("api-2"), "4.18.2"),
            seen(25, Some("api-1"), "4.18.2"),
            seen(40, Some("api-1"), "4.18.3"),
            seen(41, Some("api-2"), "4.18.3"),
            seen(52, Some("api-2"), "4.18.2"),
            seen(53, Some("api-3"), "4.18.3"),
        ];
        let got = changes(&banners, &["app.log".to_string()]);
        let summary: Vec<(i64, InfraKind, u32)> = got
            .iter()
            .map(|e| (e.ts / 60_000, e.kind, e.count))
            .collect();
        assert_eq!(
            summary,
            [(40, InfraKind::Deploy, 2), (52, InfraKind::Rollback, 1)]
        );
        assert_eq!(got[0].object, "orders-api");
        assert_eq!(
            got[0].message,
            "started with 4.18.3 instead of 4.18.2 on 2 instances (api-1, api-2) (version banners)"
        );
    }

    #[test]
    fn a_banner_without_an_instance_belongs_to_its_input() {
        let banners = [seen(10, None, "1.0.0"), seen(20, None, "1.1.0")];
        let got = changes(&banners, &["billing.log".to_string()]);
        assert_eq!(got.len(), 1);
        assert!(got[0].message.ends_with("on billing.log (version banners)"));
    }
}
