//! How sure the draft says each finding is, in words; the causal order
//! itself is the report's ([`crate::report::cascade`]).
//!
//! ```text
//! 0.95 -> "the data shows", 0.75 -> "likely", 0.55 -> "possible"
//! ```

use crate::patterns::SUPPORTED;
pub(crate) use crate::report::cascade::{ordered, role_among, Role};

/// Where "likely" begins: below it a finding is only possible.
pub(crate) const LIKELY: f64 = 0.7;

/// The certainty a confidence stands for, in the words the seeds use.
pub(crate) fn certainty(confidence: f64) -> &'static str {
    if confidence >= 0.9 {
        "the data shows"
    } else if confidence >= LIKELY {
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
    use crate::report::cascade::role_at;

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

    /// An endpoint a flag flip made slow is the flip's mechanism, not a
    /// second root cause; one slow long before the change is its own.
    #[test]
    fn what_a_change_made_slow_is_its_mechanism() {
        let all = vec![
            finding("slow_request_hogging", 0.87, "19:14:11"),
            finding("deploy_regression", 0.85, "19:14:12"),
        ];
        assert_eq!(role_among(&all[0], &all, None).0, Role::Exhaustion);
        let (strong, _) = ordered(&all, None);
        let ids: Vec<&str> = strong.iter().map(|f| f.pattern.as_str()).collect();
        assert_eq!(ids, ["deploy_regression", "slow_request_hogging"]);
        let before = vec![
            finding("slow_request_hogging", 0.87, "18:14:11"),
            finding("deploy_regression", 0.85, "19:14:12"),
        ];
        assert_eq!(role_among(&before[0], &before, None).0, Role::Trigger);
        let weak_change = vec![
            finding("slow_request_hogging", 0.87, "19:14:11"),
            finding("deploy_regression", 0.3, "19:14:12"),
        ];
        assert_eq!(
            role_among(&weak_change[0], &weak_change, None).0,
            Role::Trigger
        );
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
