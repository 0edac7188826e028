//! The scenario generator as a library, shared by `examples/scenarios` (writes one draw),
//! `examples/accuracy` (draws many and checks `postmortem` against each truth) and the
//! integration tests (a fixed set of draws).
//!
//! One way: scenario parameters (drawn from a seed) -> `sim` (a [`facts::World`]) -> `emit`
//! (files in real formats) and `truth` (measured from the world, never typed in).

// The generator's own simulated data: an `expect` states an invariant of
// the simulation, never something a user's input reaches.
#![allow(clippy::expect_used, clippy::unwrap_used)]
// why: the same for its indices, which run over its own seeded tables and
// simulated series (hundreds of them); an index out of range is a
// generator bug, and no user input reaches one.
#![allow(clippy::indexing_slicing)]
#![allow(dead_code)]

pub mod check;
pub mod emit;
pub mod facts;
pub mod people;
pub mod rng;
pub mod routes;
pub mod scenarios;
pub mod sim;
pub mod stack;
pub mod time;
pub mod truth;

use std::path::Path;

use serde_json::{json, Value};

/// One draw, simulated and measured.
pub struct Generated {
    pub draw: scenarios::Draw,
    pub world: facts::World,
    pub ground: sim::Ground,
    pub truth: truth::Truth,
    /// How many draws it took to meet the scenario's promises (1: the first).
    pub attempts: u32,
    /// Why the earlier draws were set aside.
    pub rejected: Vec<String>,
}

/// Draws scenario `name` from `seed`, simulates it and measures its truth. A draw that breaks
/// its scenario's promises (no incident where one was meant, no room before or after it, an
/// incident on a quiet day) is drawn again from a derived seed, up to eight times: the same
/// arguments always give the same result.
pub fn generate(name: &str, seed: u64, small: bool) -> Option<Generated> {
    let mut last: Option<Generated> = None;
    let mut rejected = Vec::new();
    for attempt in 0..8u64 {
        if let Some(g) = &last {
            rejected.extend(g.truth.problems.iter().cloned());
        }
        let sub = seed ^ attempt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut draw = scenarios::draw(name, sub, small)?;
        draw.seed = seed;
        let (world, ground) = sim::run(&draw.cfg, sub);
        let truth = truth::measure(&draw, &world, &ground);
        let usable = truth.usable;
        last = Some(Generated {
            draw,
            world,
            ground,
            truth,
            attempts: attempt as u32 + 1,
            rejected: rejected.clone(),
        });
        if usable {
            break;
        }
    }
    last
}

/// Writes a generated draw's inputs (in the formats `emit` draws, `force` pinning some) and
/// its `truth.json` into `out`; returns the truth with the files and `analyze` arguments.
/// Whether a written file shows failed health checks: orchestrator events
/// that carry them, or access logs written beside each instance, which log
/// its probes, where the simulation recorded probe requests at all (it
/// records none: kubelet probes reach the pod, not the request log, so a
/// thundering-herd draw asked for a first failed probe that only the
/// journal, which shows none, could have held). A load balancer's own log
/// and a host's journal do not: there a probe fails unseen.
fn probes_exported(files: &[(String, String)], probes_recorded: bool) -> bool {
    files
        .iter()
        .any(|(_, fam)| shows_probes(fam, probes_recorded))
}

/// Whether a file of family `fam` shows failed probes: orchestrator events
/// that say so, or a request log of the probes where probes were recorded.
fn shows_probes(fam: &str, probes_recorded: bool) -> bool {
    use emit::family::{AccessFamily, EventsFamily};
    EventsFamily::ALL
        .iter()
        .any(|f| f.shows_probes() && f.name() == fam)
        || probes_recorded
            && AccessFamily::ALL
                .iter()
                .any(|f| f.logs_health_checks() && f.name() == fam)
}

/// Where every exported source that shows probes was cut to its newest
/// records (ECS keeps a service's last 100 events), the time (ISO, UTC)
/// from which they hold any; `None` where one holds the whole span.
fn probes_shown_from(plan: &emit::plan::Plan, probes_recorded: bool) -> Option<String> {
    let mut from: Option<String> = None;
    for s in plan
        .sources
        .iter()
        .filter(|s| shows_probes(&s.family, probes_recorded))
    {
        let kept = s.details.get(emit::events::ecs::KEPT_FROM)?;
        if from.as_ref().is_none_or(|f| kept < f) {
            from = Some(kept.clone());
        }
    }
    from
}

/// What no exported file can show is not asked of a report: the first
/// failed probe leaves the timeline, and `health_check_coupling` is no
/// longer required (still forbidden where it did not happen).
fn unseen_probes(o: &mut serde_json::Map<String, Value>) {
    if let Some(t) = o.get_mut("timeline").and_then(Value::as_object_mut) {
        t.remove("health_checks_failing");
    }
    if let Some(p) = o.get_mut("patterns").and_then(Value::as_array_mut) {
        p.retain(|x| x.as_str() != Some("health_check_coupling"));
    }
    // Unseen, and of those, unseen ones the core of the incident counted.
    let (mut unseen, mut unseen_core) = (0u64, 0u64);
    if let Some(insts) = o.get_mut("instances").and_then(Value::as_array_mut) {
        for i in insts.iter_mut().filter_map(Value::as_object_mut) {
            if i.get("affected_by_probes_only") == Some(&json!(true)) {
                i.insert("affected".into(), json!(false));
                unseen += 1;
                unseen_core += u64::from(i.get("affected_at_an_edge_only") != Some(&json!(true)));
                i.insert("affected_at_an_edge_only".into(), json!(false));
            }
        }
    }
    if let Some(n) = o.get("instances_affected").and_then(Value::as_u64) {
        o.insert("instances_affected".into(), json!(n.saturating_sub(unseen)));
    }
    let lo = o
        .get("instances_affected_range")
        .and_then(|r| r.get(0))
        .and_then(Value::as_u64);
    if let (Some(lo), Some(hi)) = (lo, o.get("instances_affected").and_then(Value::as_u64)) {
        o.insert(
            "instances_affected_range".into(),
            json!([lo.saturating_sub(unseen_core).min(hi), hi]),
        );
    }
    o.insert("probes_exported".into(), json!(false));
}

/// Whether a written file is a load balancer's request log, which has every
/// request; the service's own log (`json-access`) has only those that reached
/// an instance and did not kill it.
fn balancer_log_exported(files: &[(String, String)]) -> bool {
    use emit::family::AccessFamily;
    files.iter().any(|(_, fam)| {
        AccessFamily::ALL
            .iter()
            .any(|f| *f != AccessFamily::JsonAccess && f.name() == fam)
    })
}

/// Where only the service's own log shows requests, the retry storm is asked
/// as that log shows it (`truth::patterns::retries_seen`): a re-send of what
/// the load balancer answered alone (no instance up) looks like a first try.
fn retries_in_own_log(o: &mut serde_json::Map<String, Value>) {
    let own = o
        .get("pattern_figures")
        .and_then(|f| f.get("retry_storm"))
        .and_then(|f| f.get("own_log"))
        .cloned()
        .unwrap_or(Value::Null);
    let required = own.get("required") == Some(&json!(true));
    let first = own.get("first_resent").cloned().unwrap_or(Value::Null);
    let was = o
        .get("patterns")
        .and_then(Value::as_array)
        .is_some_and(|p| p.iter().any(|x| x.as_str() == Some("retry_storm")));
    if !was {
        return;
    }
    if let Some(t) = o.get_mut("timeline").and_then(Value::as_object_mut) {
        match (required, first) {
            (true, Value::String(x)) => {
                t.insert("retries".into(), json!(x));
            }
            _ => {
                t.remove("retries");
            }
        }
    }
    if !required {
        if let Some(p) = o.get_mut("patterns").and_then(Value::as_array_mut) {
            p.retain(|x| x.as_str() != Some("retry_storm"));
        }
    }
    o.insert("retries_seen_by".into(), json!("own_log"));
}

pub fn write(
    g: &Generated,
    out: &Path,
    force: &emit::Force,
) -> Result<Value, Box<dyn std::error::Error>> {
    std::fs::create_dir_all(out)?;
    let mut rng = rng::Rng::new(g.draw.seed ^ 0x00E1_1717);
    let written = emit::write(&g.world, &mut rng, out, force)?;
    let mut t = g.truth.json.clone();
    if let Some(o) = t.as_object_mut() {
        let files: serde_json::Map<String, Value> = written
            .files
            .iter()
            .map(|(f, fam)| (f.clone(), json!(fam)))
            .collect();
        o.insert("files".into(), Value::Object(files));
        o.insert("analyze_args".into(), json!(written.analyze_args));
        // The writers name instances in ways the world does not (an ECS
        // task's host name, an EC2 id): an instance named so is that one.
        if let Some(insts) = o.get_mut("instances").and_then(Value::as_array_mut) {
            for (inst, names) in insts.iter_mut().zip(&written.aliases) {
                if let Some(i) = inst.as_object_mut() {
                    i.insert("aliases".into(), json!(names));
                }
            }
        }
        let probes_recorded = g
            .world
            .requests
            .iter()
            .any(|r| r.kind == facts::ReqKind::HealthCheck);
        if !probes_exported(&written.files, probes_recorded) {
            unseen_probes(o);
        } else if let Some(from) = probes_shown_from(&written.plan, probes_recorded) {
            // Every file that shows probes begins after the first failed:
            // the first failure is in none of them.
            if let Some(t) = o.get_mut("timeline").and_then(Value::as_object_mut) {
                if t.get("health_checks_failing")
                    .and_then(Value::as_str)
                    .is_some_and(|first| first < from.as_str())
                {
                    t.remove("health_checks_failing");
                }
            }
        }
        if !balancer_log_exported(&written.files) {
            retries_in_own_log(o);
        }
        o.insert("draw_attempts".into(), json!(g.attempts));
        if !g.truth.problems.is_empty() {
            o.insert("problems".into(), json!(g.truth.problems));
        }
    }
    std::fs::write(
        out.join("truth.json"),
        serde_json::to_string_pretty(&t)? + "\n",
    )?;
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn truth(own_required: bool) -> serde_json::Map<String, Value> {
        let t = json!({
            "patterns": ["crash_loop", "retry_storm"],
            "timeline": {"retries": "2025-10-01T10:47:48Z", "crash": "2025-10-01T10:49:42Z"},
            "pattern_figures": {"retry_storm": {
                "resent": 2724,
                "own_log": {"required": own_required, "resent": 131, "first_resent": "2025-10-01T10:52:10Z"}
            }}
        });
        t.as_object().cloned().unwrap_or_default()
    }

    /// Only the service's own log exported: a storm of re-sends of what the
    /// load balancer answered alone is not asked for; one the own log shows
    /// is, dated by the first re-send it has.
    #[test]
    fn retries_are_asked_as_the_exported_request_logs_show_them() {
        let own = vec![("requests.json".to_string(), "json-access".to_string())];
        let both = vec![
            ("requests.json".to_string(), "json-access".to_string()),
            ("access.log".to_string(), "nginx-timed".to_string()),
        ];
        assert!(!balancer_log_exported(&own));
        assert!(balancer_log_exported(&both));
        let mut unseen = truth(false);
        retries_in_own_log(&mut unseen);
        assert_eq!(unseen["patterns"], json!(["crash_loop"]));
        assert_eq!(unseen["timeline"].get("retries"), None);
        assert!(unseen["timeline"].get("crash").is_some());
        let mut seen = truth(true);
        retries_in_own_log(&mut seen);
        assert_eq!(seen["patterns"], json!(["crash_loop", "retry_storm"]));
        assert_eq!(seen["timeline"]["retries"], json!("2025-10-01T10:52:10Z"));
    }
}
