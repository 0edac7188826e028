//! Ground truth measured from the simulated world, never typed in. In: a [`Draw`], the
//! [`World`] it produced and the simulation's [`Ground`]. Out: `truth.json` (the schema of
//! `samples/*/truth.json`, extended) and whether the draw is usable.
//!
//! The definitions are the contract and live beside their code: symptoms, baseline, onset,
//! recovery and tolerance in [`symptoms`]; the culprit in [`shares`]; patterns in
//! [`patterns`]; timeline points and affected instances in [`timeline`].

pub mod patterns;
pub mod shares;
pub mod symptoms;
pub mod timeline;

use serde_json::{json, Value};

use super::facts::*;
use super::scenarios::{CausalChange, Draw};
use super::sim::Ground;
use super::time::iso_s;
use patterns::{Ctx, Verdict, IDS};

pub struct Truth {
    pub json: Value,
    /// The draw meets its scenario's promises (an incident where one was meant, placed with
    /// room before and after; none on a quiet day). Unusable draws are drawn again.
    pub usable: bool,
    pub problems: Vec<String>,
}

pub fn measure(d: &Draw, w: &World, g: &Ground) -> Truth {
    let s = symptoms::measure(d, w, g);
    let mut problems = Vec::new();
    let span = w.end - w.start;
    let mut base = json!({
        "scenario": d.name,
        "seed": d.seed,
        "small": d.small,
        "span": {"start": iso_s(w.start), "end": iso_s(w.end)},
        "params": Value::Object(d.params.clone()),
        "blips": d.intent.blips.iter().map(|b| b.json()).collect::<Vec<_>>(),
        "counts": counts(d, w, g),
        "timeline_tolerance_s": 30,
        "recovery_tolerance_s": 60,
        "intent": {
            "fault": iso_s(d.intent.fault.min(w.end)),
            "client_change": d.intent.client_change,
            "culprit": d.intent.culprit.map(|t| w.tenants[t].id.clone()),
            "causal_change": match &d.intent.causal_change {
                Some(CausalChange::Version(v)) => json!({"version": v}),
                Some(CausalChange::Flag(k)) => json!({"flag": k}),
                None => Value::Null,
            },
            "gradual": d.intent.gradual,
        },
        "clusters": s.clusters.iter().map(|c| json!({
            "start": iso_s(s.start + c.0 as Ms * symptoms::W),
            "end": iso_s(s.start + (c.1 as Ms + 1) * symptoms::W),
            "significant": c.2,
        })).collect::<Vec<_>>(),
    });
    let obj = base.as_object_mut().expect("object");
    let (Some(onset), Some(recovered)) = (s.onset, s.recovered) else {
        if d.intent.incident {
            problems.push("the fault produced no significant symptom cluster".into());
        }
        obj.insert("incident".into(), json!(false));
        obj.insert("onset".into(), Value::Null);
        obj.insert("recovered".into(), Value::Null);
        obj.insert("culprit".into(), Value::Null);
        obj.insert("organic".into(), Value::Null);
        obj.insert("patterns".into(), json!([]));
        obj.insert("forbidden_patterns".into(), json!(IDS));
        obj.insert("timeline".into(), json!({}));
        let inst: Vec<Value> = w.instances.iter().map(|i| json!({"pod": i.pod, "addr": format!("{}:{}", i.ip, i.port), "ip": i.ip, "host": i.host, "task_id": i.task_id, "affected": false})).collect();
        obj.insert("instances".into(), json!(inst));
        obj.insert("instances_affected".into(), json!(0));
        return Truth {
            usable: problems.is_empty(),
            json: base,
            problems,
        };
    };
    if !d.intent.incident {
        problems.push(format!(
            "a quiet day shows an incident from {} to {}",
            iso_s(onset),
            iso_s(recovered)
        ));
    }
    if onset - w.start < (20 * 60_000).max(span / 10) {
        problems.push("the onset leaves too little before it".into());
    }
    if w.end - recovered < 10 * 60_000 {
        problems.push("the recovery leaves less than 10 min after it".into());
    }
    // A baseline that fails requests as a matter of course is a service
    // the draw's load broke before its fault (a ramp past capacity): an
    // onset put at the fault would contradict what the data shows.
    if s.fail_rate > 0.05 {
        problems.push(format!(
            "the baseline before the fault fails {:.0}% of requests",
            s.fail_rate * 100.0
        ));
    }
    let sh = shares::measure(w, g, &s).expect("an incident has shares");
    let blame = shares::blame(d, w, Some(&sh));
    let c = Ctx {
        d,
        w,
        g,
        s: &s,
        sh: &sh,
        onset,
        recovered,
    };
    let mut verdicts = patterns::measure(&c);
    if !d.intent.incident {
        for v in verdicts.iter_mut() {
            v.1 = Verdict::Forbidden;
        }
    }
    let required: Vec<&str> = verdicts
        .iter()
        .filter(|v| v.1 == Verdict::Required)
        .map(|v| v.0)
        .collect();
    let forbidden: Vec<&str> = verdicts
        .iter()
        .filter(|v| v.1 == Verdict::Forbidden)
        .map(|v| v.0)
        .collect();
    let figures: serde_json::Map<String, Value> = verdicts
        .iter()
        .map(|v| (v.0.to_string(), v.2.clone()))
        .collect();
    let times = timeline::timeline(&c, &verdicts);
    let (instances, fleet, affected) = timeline::instances(&c);
    let culprit = blame
        .culprit
        .map(|t| json!({"tenant": w.tenants[t].id, "integration": w.tenants[t].integration}));
    obj.insert("incident".into(), json!(d.intent.incident));
    obj.insert("onset".into(), json!(iso_s(onset)));
    obj.insert("recovered".into(), json!(iso_s(recovered)));
    obj.insert("duration_s".into(), json!((recovered - onset) / 1000));
    obj.insert("onset_tolerance_s".into(), json!(s.tolerance_s));
    obj.insert("organic".into(), json!(culprit.is_none()));
    obj.insert("culprit".into(), culprit.unwrap_or(Value::Null));
    obj.insert("culprit_ambiguous".into(), json!(blame.ambiguous));
    obj.insert("culprit_figures".into(), blame.figures);
    obj.insert("patterns".into(), json!(required));
    obj.insert("forbidden_patterns".into(), json!(forbidden));
    obj.insert("pattern_figures".into(), Value::Object(figures));
    obj.insert("timeline".into(), timeline::json_times(&times));
    obj.insert("instances".into(), json!(instances));
    obj.insert("fleet_size".into(), json!(fleet.0));
    obj.insert("fleet_size_range".into(), json!([fleet.1, fleet.2]));
    obj.insert("instances_affected".into(), json!(affected.0));
    obj.insert(
        "instances_affected_range".into(),
        json!([affected.1, affected.0]),
    );
    obj.insert(
        "baseline".into(),
        json!({
            "fault_failures_per_request": shares::round3(s.fail_rate * 1000.0) / 1000.0,
            "latency_median_ms": s.lat_med.round(),
            "latency_threshold_ms": s.lat_thr.round(),
        }),
    );
    Truth {
        usable: problems.is_empty(),
        json: base,
        problems,
    }
}

fn counts(d: &Draw, w: &World, g: &Ground) -> Value {
    let mut by_status = std::collections::BTreeMap::new();
    let mut by_failure = std::collections::BTreeMap::new();
    let (mut health, mut retries, mut noise, mut fault) = (0, 0, 0, 0);
    let mut culprit = 0;
    for (r, x) in w.requests.iter().zip(&g.requests) {
        *by_status.entry(r.status.to_string()).or_insert(0) += 1;
        if let Some(f) = r.failure {
            *by_failure.entry(format!("{f:?}")).or_insert(0) += 1;
        }
        health += (r.kind == ReqKind::HealthCheck) as usize;
        retries += r.retry as usize;
        noise += (x.noise && r.status >= 500) as usize;
        fault += symptoms::fault_failure(r, x) as usize;
        culprit += (r.tenant.is_some() && r.tenant == d.intent.culprit) as usize;
    }
    json!({
        "requests": w.requests.len(),
        "healthcheck_requests": health,
        "by_status": by_status,
        "by_failure": by_failure,
        "fault_failures": fault,
        "noise_failures": noise,
        "retries": retries,
        "culprit_requests": culprit,
        "app_log_lines": w.logs.len(),
        "events": w.events.len(),
        "changes": w.changes.len(),
        "series": w.series.len(),
        "series_points": w.series.iter().map(|s| s.points.len()).sum::<usize>(),
        "instances": w.instances.len(),
        "tenants": w.tenants.len(),
    })
}
