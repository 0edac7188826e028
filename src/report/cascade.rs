//! Where each finding sits in the cascade: what set the incident off, what
//! ran out because of it, what made it worse, what was ruled out. The report
//! decides it once, so the JSON's attribution blames whom the draft blames.
//!
//! In: the report's findings (the JSON sorts them by confidence) and the
//! onset. Out: the supported ones in causal order (ties by start time) and
//! the weaker ones apart; the trigger, if one stands out.
//!
//! ```text
//! [retry_storm 1.00, tenant_surge 0.99, pool_exhaustion 0.95]
//!   -> [tenant_surge, pool_exhaustion, retry_storm]
//! ```

use crate::patterns::SUPPORTED;
use crate::report::FindingJson;

/// A finding's part in the story.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// What set it off: a client, a change, an instance, a dependency.
    Trigger,
    /// What ran out because of it.
    Exhaustion,
    /// What turned a degraded service into a worse one.
    Amplifier,
    /// What the data shows did not cause it.
    RuledOut,
}

/// The role of a pattern id (`patterns.md`). An unknown id is told after the
/// known ones: the draft cannot say where it belongs.
pub fn role(pattern: &str) -> (Role, usize) {
    const TRIGGERS: [&str; 7] = [
        "tenant_surge",
        "slow_request_hogging",
        "deploy_regression",
        "read_path_writes",
        "stuck_instance",
        "upstream_rate_limit",
        "leak",
    ];
    const EXHAUSTION: [&str; 2] = ["pool_exhaustion", "backlog_growth"];
    const AMPLIFIERS: [&str; 5] = [
        "health_check_coupling",
        "synchronized_restart",
        "crash_loop",
        "retry_storm",
        "thundering_herd",
    ];
    if pattern == "red_herring_deploy" {
        return (Role::RuledOut, 0);
    }
    for (r, list) in [
        (Role::Trigger, &TRIGGERS[..]),
        (Role::Exhaustion, &EXHAUSTION[..]),
        (Role::Amplifier, &AMPLIFIERS[..]),
    ] {
        if let Some(i) = list.iter().position(|p| *p == pattern) {
            return (r, i);
        }
    }
    (Role::Amplifier, usize::MAX)
}

/// A trigger that began this long after the incident's onset came too late
/// to have set it off: it joined the cascade (an OAuth provider limiting the
/// service's re-logins 40 minutes into an outage was called its root
/// cause). Five minutes is far past the time a trigger takes to show in
/// per-second data, and past the two-minute gap that joins runs of symptoms.
const LATE_TRIGGER_S: i64 = 300;

/// A finding's role in this incident: its pattern's, except that a trigger
/// which began [`LATE_TRIGGER_S`] after the onset made things worse rather
/// than starting them.
pub fn role_at(f: &FindingJson, onset: Option<&str>) -> (Role, usize) {
    let r = role(&f.pattern);
    let late = onset
        .and_then(|o| super::secs_between(o, &f.start))
        .is_some_and(|s| s > LATE_TRIGGER_S);
    if r.0 == Role::Trigger && late {
        (Role::Amplifier, usize::MAX - 1)
    } else {
        r
    }
}

/// Triggers a change can itself cause: an endpoint made slow, writes on a
/// read path, an instance hung, a leak.
const CHANGE_EFFECTS: [&str; 4] = [
    "slow_request_hogging",
    "read_path_writes",
    "stuck_instance",
    "leak",
];

/// How long before a change's finding a trigger it caused may show: the
/// change's finding starts where the symptoms do, and the effect's own
/// first second may come a little before (a flag flip's slow endpoint was
/// dated a second before the flag's finding).
const EFFECT_LEAD_S: i64 = 60;

/// A finding's role among `all`: [`role_at`], except that a trigger a
/// change can cause is the mechanism of a supported change that came with
/// it (flag-flip draw 1818100 had two "Root cause" items: the flag flip,
/// and the endpoint it made slow).
pub fn role_among(f: &FindingJson, all: &[FindingJson], onset: Option<&str>) -> (Role, usize) {
    let r = role_at(f, onset);
    let caused_by_change = || {
        all.iter().any(|c| {
            c.pattern == "deploy_regression"
                && c.confidence >= SUPPORTED
                && role_at(c, onset).0 == Role::Trigger
                && super::secs_between(&f.start, &c.start).is_some_and(|s| s <= EFFECT_LEAD_S)
        })
    };
    if r.0 == Role::Trigger && CHANGE_EFFECTS.contains(&f.pattern.as_str()) && caused_by_change() {
        (Role::Exhaustion, 0)
    } else {
        r
    }
}

/// Supported findings in causal order, and the weaker ones (strongest
/// first). A red herring is in neither: it is what was ruled out.
pub fn ordered<'a>(
    all: &'a [FindingJson],
    onset: Option<&str>,
) -> (Vec<&'a FindingJson>, Vec<&'a FindingJson>) {
    let mut strong: Vec<&FindingJson> = all
        .iter()
        .filter(|f| f.confidence >= SUPPORTED && role(&f.pattern).0 != Role::RuledOut)
        .collect();
    // The role decides; among triggers a change comes first, since a
    // change explains the others (a flag flip made an endpoint slow, and
    // the slow requests showed a second before the flag's finding starts);
    // then the start time (RFC 3339 in UTC sorts as text), then the
    // catalogue's order.
    let not_change = |f: &FindingJson| f.pattern != "deploy_regression";
    strong.sort_by(|a, b| {
        let (ra, rb) = (role_among(a, all, onset), role_among(b, all, onset));
        ra.0.cmp(&rb.0)
            .then(not_change(a).cmp(&not_change(b)))
            .then(a.start.cmp(&b.start))
            .then(ra.1.cmp(&rb.1))
    });
    let weak = all
        .iter()
        .filter(|f| f.confidence < SUPPORTED && role(&f.pattern).0 != Role::RuledOut)
        .collect();
    (strong, weak)
}

/// The finding that set the incident off: the first supported trigger in
/// causal order (a trigger that came late is an amplifier).
pub fn trigger<'a>(all: &'a [FindingJson], onset: Option<&str>) -> Option<&'a FindingJson> {
    ordered(all, onset)
        .0
        .into_iter()
        .find(|f| role_among(f, all, onset).0 == Role::Trigger)
}
