//! `deploy_regression` and `red_herring_deploy`: the same deploy event is
//! evidence for one and against the other, so one file weighs it.
//!
//! - `red_herring_deploy`: a deploy or rollback lands near the onset but does
//!   not explain it: the problem began before the deploy, or another cause
//!   (one client's surge) explains the load (seed 003, where responders
//!   rolled back a deploy and the problem came back).
//! - `deploy_regression`: a change shortly before the onset, no other
//!   explanation in the data, and recovery soon after a rollback.
//!
//! A feature-flag change is weighed like a deploy; the same flag changed
//! again later is its rollback.
//!
//! Example: deploy at 17:35, onset 17:38 with one integration at 40x its
//! baseline; rollback at 17:50, errors again at 17:55: a red herring.

use super::finding::{confidence, Evidence, Finding, Subject};
use super::Context;
use crate::event::InfraKind;
use crate::zone::clock;

pub const REGRESSION: &str = "deploy_regression";
pub const RED_HERRING: &str = "red_herring_deploy";

const REGRESSION_ACTIONS: &[&str] = &[
    "Canary or staged rollouts with automatic rollback on error-rate or latency regressions",
    "Compare errors and latency by version (pod template hash, image tag) during every rollout",
];
const RED_HERRING_ACTIONS: &[&str] = &[
    "During an incident, check per-tenant and per-integration load before rolling back",
    "Record deploys next to the leading indicators so responders can see whether a change lines up with the onset",
];

/// How long before the onset a change can still be its cause.
const LEAD_MS: i64 = 15 * 60 * 1000;
/// How soon after a rollback recovery must come for the rollback to be the fix.
const FIX_MS: i64 = 10 * 60 * 1000;

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let Some(inc) = a.incident else { return };
    let (onset, recovered) = (inc.onset * 1000, inc.recovered * 1000);
    let deploys: Vec<&crate::event::InfraEvent> = a
        .changes
        .iter()
        .filter(|c| {
            matches!(c.kind, InfraKind::Deploy | InfraKind::FlagChange)
                && c.ts >= onset - LEAD_MS
                && c.ts < recovered
        })
        .collect();
    let Some(deploy) = deploys.first() else {
        return;
    };
    let flag = deploy.kind == InfraKind::FlagChange;
    let what = if flag { "flag change" } else { "deploy" };
    let rollback = a.changes.iter().find(|c| {
        let reverts = c.kind == InfraKind::Rollback
            || (flag && c.kind == InfraKind::FlagChange && c.object == deploy.object);
        reverts && c.ts > deploy.ts && c.ts < recovered + FIX_MS
    });
    // Another explanation: a client whose own behaviour changed.
    let surge = a.attribution.rows.first().filter(|_| a.attribution.culprit);
    let mut evidence = vec![Evidence::new(
        format!(
            "{} `{}` at {}: {}",
            deploy.reason,
            deploy.object,
            clock(deploy.ts),
            crate::redact::redact_text(&deploy.message)
        ),
        a.source(deploy.origin),
    )];
    let after_onset = deploy.ts > onset;
    let rollback_fixed = rollback.is_some_and(|r| recovered - r.ts <= FIX_MS && recovered >= r.ts);
    let recurred = rollback.is_some_and(|r| recovered - r.ts > FIX_MS);
    if let Some(r) = rollback {
        evidence.push(Evidence::new(
            format!(
                "{} at {}; the service recovered at {}",
                if r.kind == InfraKind::Rollback {
                    "rollback"
                } else {
                    "flag changed back"
                },
                clock(r.ts),
                clock(recovered)
            ),
            a.source(r.origin),
        ));
    }
    let (pattern, c, title, actions) = if after_onset || surge.is_some() || recurred {
        if after_onset {
            evidence.push(Evidence::new(
                format!("the incident began at {}, before the {what}", clock(onset)),
                "timeline",
            ));
        }
        if let Some(s) = surge {
            evidence.push(Evidence::new(
                format!(
                    "`{}` explains {:.0}% of the extra load at {:.0}x its baseline",
                    s.value,
                    s.share_of_excess * 100.0,
                    s.rate_ratio
                ),
                a.inputs.first().cloned().unwrap_or_default(),
            ));
        }
        if recurred {
            evidence.push(Evidence::new(
                "symptoms went on well after the rollback".to_string(),
                "timeline",
            ));
        }
        let c = 0.45
            + if after_onset { 0.25 } else { 0.0 }
            + if surge.is_some() { 0.2 } else { 0.0 }
            + if recurred { 0.15 } else { 0.0 };
        (
            RED_HERRING,
            c,
            format!(
                "The {what} of `{}` does not explain the incident",
                deploy.object
            ),
            RED_HERRING_ACTIONS,
        )
    } else {
        evidence.push(Evidence::new(
            format!("it landed {} min before the onset, and nothing else in the data explains the onset", (onset - deploy.ts) / 60_000),
            "timeline",
        ));
        let c = 0.5 + if rollback_fixed { 0.25 } else { 0.0 };
        (
            REGRESSION,
            c,
            format!(
                "The {what} of `{}` likely caused the incident",
                deploy.object
            ),
            REGRESSION_ACTIONS,
        )
    };
    sink.push(Finding {
        pattern,
        title,
        confidence: confidence(c),
        start: deploy.ts,
        end: recovered,
        subject: Subject {
            endpoint: Some(deploy.object.clone()),
            ..Subject::default()
        },
        evidence,
        timeline: Vec::new(),
        actions,
    });
}
