//! What the stated cause of an instance's stop says: it died (killed for
//! its probe, out of memory, crashed), a health check or a watchdog killed
//! it, or the words say only that it stopped. Read by the rules under
//! `stop_causes` in `parsers/signals.json`.
//!
//! In: a restart's cause as its record gave it (a kubelet's reason and
//! message, an ECS stop, an app's shutdown line). Out: yes or no for each
//! question, which `correlate` uses to tell a death from a rollout.
//!
//! ```text
//! "Liveness probe failed: HTTP probe failed with statuscode: 503" -> died, killed by its check
//! "(service app) has stopped 1 running tasks: (task 5f1e...)" -> says no reason
//! ```

use serde::Deserialize;

/// `stop_causes` in `parsers/signals.json`; every word is matched
/// case-insensitively anywhere in the cause.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StopCauses {
    #[serde(rename = "$comment", default)]
    _comment: Option<String>,
    /// Words that say the instance died rather than was replaced.
    #[serde(default)]
    died: Vec<String>,
    /// Groups of words that, all present, say a stop happened but not why.
    #[serde(default)]
    no_reason: Vec<Vec<String>>,
    /// Words that say a failing health check killed it.
    #[serde(default)]
    health_check: Vec<String>,
    /// Words that say a watchdog killed it.
    #[serde(default)]
    watchdog: Vec<String>,
    /// Words that say it ran out of memory.
    #[serde(default)]
    out_of_memory: Vec<String>,
}

fn any_in(cause: &str, words: &[String]) -> bool {
    let c = cause.to_ascii_lowercase();
    words.iter().any(|w| c.contains(w.as_str()))
}

impl StopCauses {
    /// The same rules with every word in lower case, as they are matched.
    pub fn lowered(mut self) -> StopCauses {
        let low = |v: &mut Vec<String>| v.iter_mut().for_each(|w| *w = w.to_ascii_lowercase());
        low(&mut self.died);
        low(&mut self.health_check);
        low(&mut self.watchdog);
        low(&mut self.out_of_memory);
        self.no_reason.iter_mut().for_each(low);
        self
    }

    /// Whether a stop's stated cause says the instance died.
    pub fn died_of(&self, cause: &str) -> bool {
        any_in(cause, &self.died)
    }

    /// Whether the words say a stop happened but not why: ECS's "(service
    /// app) has stopped 1 running tasks: (task …)" follows a crash, a failed
    /// health check, a deploy and a scale-in alike.
    pub fn says_no_reason(&self, cause: &str) -> bool {
        let c = cause.to_ascii_lowercase();
        self.no_reason
            .iter()
            .any(|group| !group.is_empty() && group.iter().all(|w| c.contains(w.as_str())))
    }

    /// Whether a stop's cause says a failing health check killed it. A
    /// watchdog's kill is one: the keep-alive it waited for is the unit's
    /// liveness check, however the cause is worded.
    pub fn killed_by_check(&self, cause: &str) -> bool {
        any_in(cause, &self.health_check) || self.killed_by_watchdog(cause)
    }

    /// Whether a stop's cause (or an instance's crash line) says it ran
    /// out of memory.
    pub fn out_of_memory(&self, cause: &str) -> bool {
        any_in(cause, &self.out_of_memory)
    }

    /// Whether a stop's cause names a watchdog (systemd's).
    pub fn killed_by_watchdog(&self, cause: &str) -> bool {
        any_in(cause, &self.watchdog)
    }
}

#[cfg(test)]
mod tests {
    fn causes() -> super::StopCauses {
        crate::formats::Catalogue::builtin()
            .expect("catalogue")
            .rules
            .stop_causes
    }

    /// Stops as Kubernetes, ECS, systemd and an app's own log word them.
    #[test]
    fn the_shipped_rules_read_real_stop_causes() {
        let c = causes();
        let probe = "Container app failed liveness probe, will be restarted";
        assert!(c.died_of(probe) && c.killed_by_check(probe));
        assert!(c.died_of("OOMKilled") && !c.killed_by_check("OOMKilled"));
        assert!(c.killed_by_check(
            "killed by its watchdog: it sent no keep-alive in time (hung or too busy)"
        ));
        let watchdog = "app.service: Watchdog timeout (limit 30s)!";
        assert!(c.killed_by_watchdog(watchdog));
        let ecs = "(service app) has stopped 1 running tasks: (task 30b9dd92).";
        assert!(c.says_no_reason(ecs) && !c.died_of(ecs));
        assert!(c.out_of_memory("fatal error: runtime: out of memory"));
        assert!(c.out_of_memory("java.lang.OutOfMemoryError: Java heap space"));
        assert!(!c.out_of_memory("Back-off restarting failed container"));
        let rollout = "Stopping container app";
        assert!(!c.died_of(rollout) && !c.says_no_reason(rollout));
    }
}
