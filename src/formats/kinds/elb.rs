//! Load balancer target health snapshots: `aws elbv2 describe-target-health`
//! (`TargetHealthDescriptions[]` with `TargetHealth.State`/`Reason`), Classic
//! ELB `aws elb describe-instance-health` (`InstanceStates[]`), one response
//! per line or pretty-printed, and the tab-separated reason-code table
//! (`Target.FailedHealthChecks<TAB>Health checks failed`).
//!
//! None of these carries a time: a snapshot says what was true when it was
//! taken, and the CLI does not say when that was. So they give no record;
//! each is parsed and counted as unplaced with that reason, and the report
//! says so. A target's state is still checked (`healthy`, `unhealthy`,
//! `InService`, ...) so that other JSON is refused.
//!
//! ```text
//! {"TargetHealthDescriptions":[{"Target":{"Id":"i-0ab12","Port":8080},"TargetHealth":{"State":"unhealthy","Reason":"Target.Timeout"}}]}
//!   -> parsed, unplaced: "target health snapshot without a timestamp"
//! ```

use serde_json::Value;

use super::{Extractor, Skip, BLANK};
use crate::formats::compile::Fields;

const STATES: [&str; 9] = [
    "initial",
    "healthy",
    "unhealthy",
    "unhealthy.draining",
    "unused",
    "draining",
    "unavailable",
    "InService",
    "OutOfService",
];

#[derive(Debug, Default)]
pub struct TargetHealth {
    unplaced: Option<Skip>,
}

impl Extractor for TargetHealth {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        self.unplaced = None;
        let t = line.trim();
        if t.is_empty() {
            return Err(BLANK);
        }
        if t.starts_with('{') {
            let doc: Value = serde_json::from_str(t).map_err(|_| "not valid JSON")?;
            return self.document(&doc).map(|_| Vec::new());
        }
        let (code, text) = line
            .split_once('\t')
            .ok_or("not a target health reason code")?;
        let known = ["Elb.", "Target."]
            .iter()
            .any(|p| code.strip_prefix(p).is_some_and(is_word));
        if !known || text.trim().is_empty() {
            return Err("not a target health reason code");
        }
        self.unplaced = Some("target health reason code: reference text, no timestamp");
        Ok(Vec::new())
    }

    fn document<'a>(&mut self, doc: &'a Value) -> Result<Vec<Fields<'a>>, Skip> {
        let items = doc
            .get("TargetHealthDescriptions")
            .or_else(|| doc.get("InstanceStates"))
            .and_then(Value::as_array)
            .ok_or("not describe-target-health or describe-instance-health output")?;
        let state = |i: &Value| {
            i.get("TargetHealth")
                .and_then(|h| h.get("State"))
                .or_else(|| i.get("State"))
                .and_then(Value::as_str)
                .is_some_and(|s| STATES.contains(&s))
        };
        if !items.iter().all(state) {
            return Err("a target without a known health state");
        }
        self.unplaced = Some("target health snapshot without a timestamp");
        Ok(Vec::new())
    }

    fn sniff(&self, head: &str) -> f64 {
        let v2 = head.contains("\"TargetHealthDescriptions\"");
        let classic = head.contains("\"InstanceStates\"") && head.contains("\"ReasonCode\"");
        if v2 || classic {
            1.0
        } else {
            0.0
        }
    }

    fn unplaced(&mut self) -> Option<Skip> {
        self.unplaced.take()
    }
}

/// `FailedHealthChecks`.
fn is_word(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_are_parsed_and_unplaced() {
        let cases: [(&str, &str, Result<bool, Skip>); 6] = [
            (
                "elbv2",
                r#"{"TargetHealthDescriptions":[{"Target":{"Id":"i-0ab12","Port":8080},"HealthCheckPort":"8080","TargetHealth":{"State":"unhealthy","Reason":"Target.Timeout","Description":"Request timed out"}}]}"#,
                Ok(true),
            ),
            (
                "classic",
                r#"{"InstanceStates":[{"InstanceId":"i-0cd34","State":"OutOfService","ReasonCode":"Instance","Description":"Instance has failed at least the UnhealthyThreshold number of health checks consecutively."}]}"#,
                Ok(true),
            ),
            ("reason code", "Target.Timeout\tRequest timed out", Ok(true)),
            (
                "other json",
                r#"{"State":"healthy"}"#,
                Err("not describe-target-health or describe-instance-health output"),
            ),
            (
                "bad state",
                r#"{"InstanceStates":[{"State":"Sleepy"}]}"#,
                Err("a target without a known health state"),
            ),
            (
                "other tsv",
                "1790841480\tGET /",
                Err("not a target health reason code"),
            ),
        ];
        for (name, line, want) in cases {
            let mut x = TargetHealth::default();
            let got = x
                .line(line)
                .map(|recs| recs.is_empty() && x.unplaced().is_some());
            assert_eq!(got, want, "{name}");
        }
    }
}
