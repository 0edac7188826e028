//! Orchestrator events and change records.
//!
//! In: `World::events` (what the orchestrator recorded), `World::changes` (deploys, rollbacks,
//! flag flips, scale-outs, rate limits), the instances' lives, the families chosen and one clock
//! per family (the kubelet's, the CI runner's, the flag service's); out: one source per family,
//! and where each change was written. Every change lands in at least one family that carries
//! its kind: [`carriers`] says which, and the driver adds the deploy log when none was chosen.

mod changes;
pub mod ecs;
mod journal;
mod k8s;

use super::ctx::{Clock, Ctx, Scheme};
use super::family::EventsFamily;
use super::plan::{ChangePlan, OutFile, SourceOut, SourcePlan};
use crate::gen::facts::{Change, ChangeKind};
use crate::gen::rng::Rng;
use crate::gen::time;

/// The families that record a change of this kind.
pub fn carriers(kind: ChangeKind) -> &'static [EventsFamily] {
    use EventsFamily::*;
    match kind {
        ChangeKind::Deploy | ChangeKind::Rollback => &[DeployLog, HelmHistory, GithubDeployments],
        ChangeKind::FlagChange | ChangeKind::FlagRevert => &[LaunchDarkly, Unleash, DeployLog],
        _ => &[DeployLog],
    }
}

/// Whether `fams` leave some change of the World unrecorded.
pub fn needs_deploy_log(changes: &[Change], fams: &[EventsFamily]) -> bool {
    changes
        .iter()
        .any(|c| !carriers(c.kind).iter().any(|f| fams.contains(f)))
}

pub fn write(
    ctx: &Ctx,
    fams: &[EventsFamily],
    clocks: &[Clock],
    rng: &mut Rng,
) -> (Vec<SourceOut>, Vec<ChangePlan>) {
    let mut outs = vec![];
    for (fam, clock) in fams.iter().zip(clocks) {
        let mut plan = SourcePlan {
            kind: "events",
            family: fam.name().into(),
            zone: clock.zone.name.into(),
            skew_ms: clock.skew_ms,
            ..SourcePlan::default()
        };
        let mut r = rng.fork(*fam as u64 + 1);
        let changes: Vec<&Change> = ctx
            .w
            .changes
            .iter()
            .filter(|c| carriers(c.kind).contains(fam))
            .collect();
        let files: Vec<OutFile> = match fam {
            EventsFamily::K8sList => k8s::write(ctx, false, clock, &mut r, &mut plan),
            EventsFamily::K8sLines => k8s::write(ctx, true, clock, &mut r, &mut plan),
            EventsFamily::EcsServices => ecs::write(ctx, clock, &mut r, &mut plan),
            EventsFamily::Journal => journal::write(ctx, clock, &mut r, &mut plan),
            EventsFamily::DeployLog => changes::deploy_log(ctx, &changes, clock, &mut r, &mut plan),
            EventsFamily::HelmHistory => changes::helm(ctx, &changes, clock, &mut r, &mut plan),
            EventsFamily::GithubDeployments => {
                changes::github(ctx, &changes, clock, &mut r, &mut plan)
            }
            EventsFamily::LaunchDarkly => {
                changes::launchdarkly(ctx, &changes, clock, &mut r, &mut plan)
            }
            EventsFamily::Unleash => changes::unleash(ctx, &changes, clock, &mut r, &mut plan),
        };
        plan.naming = match fam {
            EventsFamily::K8sList | EventsFamily::K8sLines => vec![Scheme::Pod.name()],
            EventsFamily::EcsServices => vec![Scheme::TaskId.name()],
            EventsFamily::Journal => vec![Scheme::Host.name()],
            _ => vec![],
        };
        outs.push(SourceOut {
            files,
            plan,
            links: vec![],
        });
    }
    let plans = ctx
        .w
        .changes
        .iter()
        .map(|c| ChangePlan {
            ts: time::iso_ms(c.ts),
            kind: format!("{:?}", c.kind),
            written_to: fams
                .iter()
                .filter(|f| carriers(c.kind).contains(f))
                .map(|f| f.name().to_string())
                .collect(),
        })
        .collect();
    (outs, plans)
}

/// A person's or bot's login from an actor string (`alice@example.com` -> `alice`).
pub fn login(actor: &str) -> String {
    actor.split('@').next().unwrap_or(actor).to_string()
}

#[cfg(test)]
mod tests;
