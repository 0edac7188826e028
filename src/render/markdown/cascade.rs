//! Where each finding sits in the cascade, and how sure the draft says it is.
//!
//! In: the report's findings (the JSON sorts them by confidence). Out: the
//! supported ones in causal order (what started it, then what ran out, then
//! what made it worse; ties by start time) and the weaker ones apart; and
//! for a confidence, the words a reader weighs it by.
//!
//! ```text
//! [retry_storm 1.00, tenant_surge 0.99, pool_exhaustion 0.95]
//!   -> [tenant_surge, pool_exhaustion, retry_storm]
//! 0.95 -> "the data shows", 0.75 -> "likely", 0.55 -> "possible"
//! ```

use crate::patterns::SUPPORTED;
use crate::report::FindingJson;

/// A finding's part in the story.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Role {
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
pub(crate) fn role(pattern: &str) -> (Role, usize) {
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
pub(crate) fn role_at(f: &FindingJson, onset: Option<&str>) -> (Role, usize) {
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

/// Supported findings in causal order, and the weaker ones (strongest
/// first). A red herring is in neither: it is what was ruled out.
pub(crate) fn ordered<'a>(
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
        let (ra, rb) = (role_at(a, onset), role_at(b, onset));
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

/// The certainty a confidence stands for, in the words the seeds use.
pub(crate) fn certainty(confidence: f64) -> &'static str {
    if confidence >= 0.9 {
        "the data shows"
    } else if confidence >= 0.7 {
        "likely"
    } else if confidence >= SUPPORTED {
        "possible"
    } else {
        "cannot be determined"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::markdown::fixture::finding;

    #[test]
    fn findings_are_told_in_causal_order_not_by_confidence() {
        let all = vec![
            finding("retry_storm", 1.0, "07:58:59"),
            finding("tenant_surge", 0.99, "07:56:56"),
            finding("health_check_coupling", 0.95, "07:57:54"),
            finding("pool_exhaustion", 0.95, "07:57:00"),
            finding("synchronized_restart", 0.95, "07:58:54"),
            finding("red_herring_deploy", 0.9, "07:50:00"),
            finding("crash_loop", 0.4, "07:59:00"),
        ];
        let (strong, weak) = ordered(&all, None);
        let ids: Vec<&str> = strong.iter().map(|f| f.pattern.as_str()).collect();
        assert_eq!(
            ids,
            [
                "tenant_surge",
                "pool_exhaustion",
                "health_check_coupling",
                "synchronized_restart",
                "retry_storm"
            ]
        );
        assert_eq!(weak.len(), 1);
        assert_eq!(weak[0].pattern, "crash_loop");
    }

    /// A dependency limiting the service 40 minutes into an outage made it
    /// worse; it did not start it, and is told after what did.
    #[test]
    fn a_trigger_that_began_long_after_the_onset_is_no_root_cause() {
        let all = vec![
            finding("upstream_rate_limit", 0.9, "08:19:10"),
            finding("pool_exhaustion", 0.95, "07:39:00"),
            finding("thundering_herd", 0.9, "07:39:33"),
        ];
        let onset = Some("2026-10-01T07:34:32Z");
        assert_eq!(role_at(&all[0], onset).0, Role::Amplifier);
        assert_eq!(role_at(&all[0], None).0, Role::Trigger);
        let (strong, _) = ordered(&all, onset);
        let ids: Vec<&str> = strong.iter().map(|f| f.pattern.as_str()).collect();
        assert_eq!(
            ids,
            ["pool_exhaustion", "thundering_herd", "upstream_rate_limit"]
        );
        // One that began with the incident still is.
        let early = finding("upstream_rate_limit", 0.9, "07:35:00");
        assert_eq!(role_at(&early, onset).0, Role::Trigger);
    }

    #[test]
    fn within_a_role_the_earlier_comes_first() {
        let all = vec![
            finding("retry_storm", 1.0, "08:00:00"),
            finding("synchronized_restart", 0.9, "07:59:00"),
            finding("health_check_coupling", 0.9, "07:59:00"),
        ];
        let (strong, _) = ordered(&all, None);
        let ids: Vec<&str> = strong.iter().map(|f| f.pattern.as_str()).collect();
        assert_eq!(
            ids,
            [
                "health_check_coupling",
                "synchronized_restart",
                "retry_storm"
            ]
        );
    }

    #[test]
    fn a_change_leads_the_triggers_it_explains() {
        let all = vec![
            finding("slow_request_hogging", 0.8, "15:37:44"),
            finding("deploy_regression", 0.8, "15:37:45"),
        ];
        let (strong, _) = ordered(&all, None);
        assert_eq!(strong[0].pattern, "deploy_regression");
    }

    #[test]
    fn certainty_in_words() {
        for (c, want) in [
            (1.0, "the data shows"),
            (0.9, "the data shows"),
            (0.89, "likely"),
            (0.7, "likely"),
            (0.55, "possible"),
            (0.4, "cannot be determined"),
        ] {
            assert_eq!(certainty(c), want, "{c}");
        }
    }
}
