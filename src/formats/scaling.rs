//! What a scaling event says: which way a fleet moved and to how many, read
//! from the orchestrator's message by the rules under `scaling` in
//! `parsers/signals.json` (Kubernetes `ScalingReplicaSet`, the HPA's
//! `SuccessfulRescale`, ECS and Application Auto Scaling activities).
//!
//! In: an event message. Out: a [`ScaleStep`], which `correlate` turns into a
//! scale-out (the fleet grew) or leaves as part of a rollout (one set grew
//! while another of the same deployment shrank).
//!
//! ```text
//! "Scaled up replica set api-7c9d8b6f5 to 5" -> ScaleStep { up: Some(true), set: Some("api-7c9d8b6f5"), to: Some(5) }
//! ```

use regex::Regex;
use serde::Deserialize;

/// One step of a fleet's size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScaleStep {
    /// Which way, when the message says (`None`: only the new size is given,
    /// as ECS's "set desired count to 6": the direction comes from the size
    /// before).
    pub up: Option<bool>,
    /// The replica set (or service) that moved, when the message names it.
    pub set: Option<String>,
    /// Its new size, when the message gives it.
    pub to: Option<u32>,
    /// Its size before, when the message gives it.
    pub from: Option<u32>,
}

/// `scaling` in `parsers/signals.json`: message regexes, each with optional
/// `set` and `to` groups; `size` lists messages that give the new size, and
/// the size before when they have a `from` group.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScalingFile {
    #[serde(rename = "$comment", default)]
    _comment: Option<String>,
    #[serde(default)]
    pub up: Vec<String>,
    #[serde(default)]
    pub down: Vec<String>,
    #[serde(default)]
    pub size: Vec<String>,
}

#[derive(Clone, Debug, Default)]
pub struct ScalingRules {
    rules: Vec<(Option<bool>, Regex)>,
}

impl ScalingRules {
    pub fn compile(file: &ScalingFile) -> Result<ScalingRules, String> {
        let mut rules = Vec::new();
        for (up, list) in [
            (Some(true), &file.up),
            (Some(false), &file.down),
            (None, &file.size),
        ] {
            for p in list {
                let re = regex::RegexBuilder::new(p)
                    .case_insensitive(true)
                    .build()
                    .map_err(|e| format!("scaling: {e}"))?;
                rules.push((up, re));
            }
        }
        Ok(ScalingRules { rules })
    }

    /// The step a message describes, if it describes one (first rule wins).
    pub fn step(&self, message: &str) -> Option<ScaleStep> {
        self.rules.iter().find_map(|(up, re)| {
            let c = re.captures(message)?;
            let num = |g: &str| c.name(g).and_then(|m| m.as_str().parse::<u32>().ok());
            // A size rule that also gives the size before says which way.
            let up = up.or_else(|| Some(num("to")? > num("from")?));
            Some(ScaleStep {
                up,
                set: c.name("set").map(|m| m.as_str().to_string()),
                to: num("to"),
                from: num("from"),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::formats::Catalogue;

    use super::ScaleStep;

    #[test]
    fn scaling_messages_say_which_way_and_how_far() {
        let rules = Catalogue::builtin().expect("catalogue").rules.scaling;
        let step = |up, set: Option<&str>, to| {
            Some(ScaleStep {
                up,
                set: set.map(str::to_string),
                to,
                from: None,
            })
        };
        let sized = |up, to, from| {
            Some(ScaleStep {
                up: Some(up),
                set: None,
                to: Some(to),
                from: Some(from),
            })
        };
        let cases = [
            (
                "Scaled up replica set api-7c9d8b6f5 to 5",
                step(Some(true), Some("api-7c9d8b6f5"), Some(5)),
            ),
            (
                "Scaled down replica set worker-5b6c7d8e9 to 2 from 3",
                step(Some(false), Some("worker-5b6c7d8e9"), Some(2)),
            ),
            (
                "New size: 8; reason: cpu resource utilization (percentage of request) above target",
                step(Some(true), None, Some(8)),
            ),
            (
                "New size: 2; reason: All metrics below target",
                step(Some(false), None, Some(2)),
            ),
            (
                "Successfully set desired count to 6. Change successfully fulfilled by ecs.",
                step(None, None, Some(6)),
            ),
            // A change log's scale line, after its service.
            (" 3->6 by oncall reason=\"p99 above SLO\"", sized(true, 6, 3)),
            (" 6 -> 4 by autoscaler", sized(false, 4, 6)),
            ("Created pod: api-7c9d8b6f5-x9q2d", None),
        ];
        for (message, want) in cases {
            assert_eq!(rules.step(message), want, "{message}");
        }
    }
}
