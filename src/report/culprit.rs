//! One culprit per report: the attribution agrees with the findings.
//!
//! Attribution judges each client by how its rate and held time changed
//! against its own baseline; `slow_request_hogging` judges who held the
//! servers in the incident. When the first found no culprit but the second
//! names a client with support, the draft said "organic growth" under a
//! finding that one integration held 96% of the servers' time (slow
//! integrations whose onset the baseline already held, fresh seeds
//! 7770001, -005, -009). Where that client held most of the servers' time,
//! the finding is the stronger claim, backed by its evidence: the
//! attribution takes its client as the culprit.
//!
//! In: the analysis' [`Attribution`] and the findings. Out: the same
//! attribution, its culprit row first where a supported finding names one.
//!
//! ```text
//! organic: true, rows [b, a, c] + slow_request_hogging(tenant a, 0.95)
//!   -> organic: false, culprit: true, rows [a, b, c]
//! ```

use crate::correlate::attribution::{Attribution, MIN_CULPRIT_SHARE};
use crate::patterns::{Finding, SUPPORTED};

/// Patterns whose subject is the client that drove the incident.
const CULPRIT_PATTERNS: [&str; 1] = ["slow_request_hogging"];

/// Make `attr` name the client a supported culprit finding names, when it
/// named none; a culprit it already named is kept.
pub fn agree(attr: &mut Attribution, findings: &[Finding]) {
    if attr.culprit {
        return;
    }
    let named = findings
        .iter()
        .filter(|f| CULPRIT_PATTERNS.contains(&f.pattern) && f.confidence >= SUPPORTED)
        .max_by(|a, b| a.confidence.total_cmp(&b.confidence))
        .and_then(|f| match attr.dimension {
            "tenant" => f.subject.tenant.clone(),
            _ => f.subject.integration.clone(),
        });
    let Some(named) = named else {
        return;
    };
    // One client explains the incident only when it held most of what ran
    // out: a finding that a tenant held a third of the servers' time (fresh
    // seed 9990000, a thundering herd) names a heavy user, not the cause.
    let Some(at) = attr
        .rows
        .iter()
        .position(|r| r.value == named && r.share_of_held_time >= MIN_CULPRIT_SHARE)
    else {
        return;
    };
    let row = attr.rows.remove(at);
    attr.rows.insert(0, row);
    attr.culprit = true;
    attr.organic = false;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::correlate::attribution::AttributionRow;
    use crate::patterns::Subject;

    fn attribution(culprit: bool, values: &[&str]) -> Attribution {
        Attribution {
            dimension: "tenant",
            organic: !culprit,
            culprit,
            rows: values
                .iter()
                .map(|v| AttributionRow {
                    value: v.to_string(),
                    share_of_held_time: if *v == "a" { 0.96 } else { 0.01 },
                    ..AttributionRow::default()
                })
                .collect(),
            ..Attribution::default()
        }
    }

    fn hogging(tenant: Option<&str>, endpoint: Option<&str>, confidence: f64) -> Finding {
        Finding {
            figures: Vec::new(),
            pattern: "slow_request_hogging",
            title: String::new(),
            confidence,
            start: 0,
            end: 0,
            subject: Subject {
                tenant: tenant.map(str::to_string),
                endpoint: endpoint.map(str::to_string),
                ..Subject::default()
            },
            evidence: Vec::new(),
            timeline: Vec::new(),
            actions: &[],
        }
    }

    fn order(a: &Attribution) -> Vec<&str> {
        a.rows.iter().map(|r| r.value.as_str()).collect()
    }

    #[test]
    fn a_supported_hogging_finding_names_the_culprit_organic_growth_did_not() {
        let mut a = attribution(false, &["b", "a", "c"]);
        agree(&mut a, &[hogging(Some("a"), None, 0.95)]);
        assert!(a.culprit && !a.organic);
        assert_eq!(order(&a), ["a", "b", "c"]);
    }

    #[test]
    fn a_weak_finding_an_endpoint_or_a_client_not_ranked_changes_nothing() {
        for f in [
            hogging(Some("a"), None, 0.45),
            hogging(None, Some("/api/{id}/events"), 0.95),
            hogging(Some("z"), None, 0.95),
        ] {
            let mut a = attribution(false, &["b", "a"]);
            agree(&mut a, &[f]);
            assert!(!a.culprit && a.organic);
            assert_eq!(order(&a), ["b", "a"]);
        }
    }

    #[test]
    fn a_heavy_user_holding_a_third_of_the_servers_is_no_culprit() {
        let mut a = attribution(false, &["b", "a"]);
        a.rows[1].share_of_held_time = 0.34;
        agree(&mut a, &[hogging(Some("a"), None, 0.8)]);
        assert!(!a.culprit && a.organic);
        assert_eq!(order(&a), ["b", "a"]);
    }

    #[test]
    fn a_culprit_the_attribution_named_stays() {
        let mut a = attribution(true, &["b", "a"]);
        agree(&mut a, &[hogging(Some("a"), None, 0.95)]);
        assert_eq!(order(&a), ["b", "a"]);
    }
}
