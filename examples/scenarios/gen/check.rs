//! A report checked against a truth: the code the accuracy runner and the integration tests
//! share. In: `truth.json` and the `postmortem analyze --json` report (`report-json.md`), both
//! as JSON values. Out: one [`Check`] per claim, in classes that the runner tabulates.
//!
//! Classes: `incident` (found or not), `onset` (within the truth's onset tolerance),
//! `recovery` (within 60 s), `culprit` (the tenant the report blames, or none), `organic`,
//! `required` (each required pattern at confidence >= 0.5), `forbidden` (no forbidden
//! pattern at >= 0.5), `instances` (how many instances were affected, and that each one named
//! is one of them by any of its names: pod, IP:port, IP, host, task, or a name the writers
//! gave it, such as an ECS host name or EC2 id), `timeline` (each truth
//! point matched by an entry of its kind within the tolerance), `quiet` (a quiet day: no
//! finding at >= 0.5). A culprit the truth marks ambiguous is not checked.

use serde_json::Value;

use super::time::epoch_ms;

pub const CLASSES: [&str; 10] = [
    "incident",
    "onset",
    "recovery",
    "culprit",
    "organic",
    "required",
    "forbidden",
    "instances",
    "timeline",
    "quiet",
];

/// The report's kinds (`report-json.md`); anything else reads as `other`.
const KINDS: [&str; 18] = [
    "surge_start",
    "pool_saturated",
    "health_checks_failing",
    "errors_start",
    "restart",
    "all_instances_restarted",
    "retries",
    "reconnect_spike",
    "deploy",
    "rollback",
    "flag_change",
    "scale_out",
    "crash",
    "backlog_peak",
    "instance_stuck",
    "upstream_rate_limited",
    "recovered",
    "other",
];

#[derive(Clone, Debug)]
pub struct Check {
    pub class: &'static str,
    pub name: String,
    pub passed: bool,
    pub expected: String,
    pub got: String,
}

/// Seconds since the epoch of an RFC 3339 time (`2026-10-01T07:56:55Z`, fractions and
/// offsets allowed).
pub fn parse_time(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') {
        return None;
    }
    let num = |a: usize, z: usize| s.get(a..z)?.parse::<i64>().ok();
    let ms = epoch_ms(
        num(0, 4)?,
        num(5, 7)?,
        num(8, 10)?,
        num(11, 13)?,
        num(14, 16)?,
        num(17, 19)?,
    );
    let mut rest = &s[19..];
    if let Some(r) = rest.strip_prefix('.') {
        rest = r.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    let off = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && (rest.starts_with('+') || rest.starts_with('-')) => {
            let h: i64 = rest.get(1..3)?.parse().ok()?;
            let m: i64 = rest.get(4..6)?.parse().ok()?;
            let o = (h * 60 + m) * 60;
            if rest.starts_with('-') {
                -o
            } else {
                o
            }
        }
        _ => return None,
    };
    Some(ms / 1000 - off)
}

fn t(v: &Value) -> Option<i64> {
    v.as_str().and_then(parse_time)
}

fn check(
    out: &mut Vec<Check>,
    class: &'static str,
    name: impl Into<String>,
    passed: bool,
    expected: impl Into<String>,
    got: impl Into<String>,
) {
    out.push(Check {
        class,
        name: name.into(),
        passed,
        expected: expected.into(),
        got: got.into(),
    });
}

/// The tenant the report blames: its first attribution row when the load is not organic.
fn blamed(report: &Value) -> Option<String> {
    let a = &report["attribution"];
    if a["organic"].as_bool() == Some(true) {
        return None;
    }
    a["rows"].as_array()?.first()?["tenant"]
        .as_str()
        .map(str::to_string)
}

fn best_confidence(report: &Value, pattern: &str) -> f64 {
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["pattern"] == pattern)
        .filter_map(|f| f["confidence"].as_f64())
        .fold(0.0, f64::max)
}

pub fn check_report(truth: &Value, report: &Value) -> Vec<Check> {
    let mut out = Vec::new();
    let found = report["incident"]["found"].as_bool().unwrap_or(false);
    let expected = truth["incident"].as_bool().unwrap_or(false);
    check(
        &mut out,
        "incident",
        "incident found",
        found == expected,
        expected.to_string(),
        found.to_string(),
    );
    if !expected {
        let strong: Vec<String> = report["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["confidence"].as_f64().unwrap_or(0.0) >= 0.5)
            .map(|f| {
                format!(
                    "{} {}",
                    f["pattern"].as_str().unwrap_or("?"),
                    f["confidence"]
                )
            })
            .collect();
        check(
            &mut out,
            "quiet",
            "no finding >= 0.5",
            strong.is_empty(),
            "none",
            strong.join(", "),
        );
        let b = blamed(report);
        check(
            &mut out,
            "culprit",
            "culprit",
            b.is_none(),
            "none",
            b.unwrap_or_else(|| "none".into()),
        );
        return out;
    }
    if !found {
        return out;
    }
    let tol = truth["onset_tolerance_s"].as_i64().unwrap_or(30);
    let (to, ro) = (t(&truth["onset"]), t(&report["incident"]["onset"]));
    check(
        &mut out,
        "onset",
        format!("onset within {tol} s"),
        matches!((to, ro), (Some(a), Some(b)) if (a - b).abs() <= tol),
        truth["onset"].as_str().unwrap_or("?"),
        report["incident"]["onset"].as_str().unwrap_or("null"),
    );
    let rtol = truth["recovery_tolerance_s"].as_i64().unwrap_or(60);
    let (tr, rr) = (t(&truth["recovered"]), t(&report["incident"]["recovered"]));
    check(
        &mut out,
        "recovery",
        format!("recovery within {rtol} s"),
        matches!((tr, rr), (Some(a), Some(b)) if (a - b).abs() <= rtol),
        truth["recovered"].as_str().unwrap_or("?"),
        report["incident"]["recovered"].as_str().unwrap_or("null"),
    );
    if truth["culprit_ambiguous"].as_bool() != Some(true) {
        let want = truth["culprit"]["tenant"].as_str().map(str::to_string);
        let got = blamed(report);
        check(
            &mut out,
            "culprit",
            "culprit",
            want == got,
            want.unwrap_or_else(|| "none".into()),
            got.unwrap_or_else(|| "none".into()),
        );
    }
    let organic = truth["organic"].as_bool().unwrap_or(true);
    let got = report["attribution"]["organic"].as_bool();
    check(
        &mut out,
        "organic",
        "organic",
        got == Some(organic),
        organic.to_string(),
        got.map_or("null".into(), |x| x.to_string()),
    );
    for p in truth["patterns"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let c = best_confidence(report, p);
        check(&mut out, "required", p, c >= 0.5, ">= 0.5", format!("{c}"));
    }
    for p in truth["forbidden_patterns"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let c = best_confidence(report, p);
        check(&mut out, "forbidden", p, c < 0.5, "< 0.5", format!("{c}"));
    }
    instances(&mut out, truth, report);
    timeline(&mut out, truth, report);
    out
}

fn instances(out: &mut Vec<Check>, truth: &Value, report: &Value) {
    let affected: Vec<&Value> = truth["instances"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["affected"] == true)
        .collect();
    let named: Vec<&str> = report["impact"]["instances_affected"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let want = truth["instances_affected"].as_u64().unwrap_or(0) as usize;
    // Instances affected only within the recovery tolerance of an edge may
    // count or not (`instances_affected_range`); a truth without the range
    // asks for the count itself.
    let range = &truth["instances_affected_range"];
    let lo = range[0].as_u64().map_or(want, |x| x as usize);
    check(
        out,
        "instances",
        "instances affected",
        (lo.min(want)..=want).contains(&named.len()),
        if lo < want {
            format!("{want} ({lo}-{want})")
        } else {
            want.to_string()
        },
        named.len().to_string(),
    );
    let is = |i: &Value, n: &str| {
        ["pod", "addr", "ip", "host", "task_id"]
            .iter()
            .any(|k| i[*k].as_str() == Some(n))
            || i["aliases"]
                .as_array()
                .is_some_and(|a| a.iter().any(|x| x.as_str() == Some(n)))
    };
    let strangers: Vec<&str> = named
        .iter()
        .copied()
        .filter(|n| !affected.iter().any(|i| is(i, n)))
        .collect();
    check(
        out,
        "instances",
        "instances named are affected ones",
        strangers.is_empty(),
        "affected instances",
        strangers.join(", "),
    );
    if let Some(total) = report["impact"]["instances_total"].as_u64() {
        let fleet = truth["fleet_size"].as_u64().unwrap_or(0);
        // Instances first or last routed to within the recovery tolerance of
        // an edge may count or not: the edges may move that far.
        let range = &truth["fleet_size_range"];
        let (lo, hi) = (
            range[0].as_u64().unwrap_or(fleet),
            range[1].as_u64().unwrap_or(fleet),
        );
        check(
            out,
            "instances",
            "fleet size",
            (lo..=hi).contains(&total),
            if lo == hi {
                fleet.to_string()
            } else {
                format!("{fleet} ({lo}-{hi})")
            },
            total.to_string(),
        );
    }
}

fn timeline(out: &mut Vec<Check>, truth: &Value, report: &Value) {
    let tol = truth["timeline_tolerance_s"].as_i64().unwrap_or(30);
    let entries: Vec<(&str, i64)> = report["timeline"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let kind = e["kind"].as_str().unwrap_or("other");
            let kind = if KINDS.contains(&kind) { kind } else { "other" };
            Some((kind, t(&e["ts"])?))
        })
        .collect();
    let Some(points) = truth["timeline"].as_object() else {
        return;
    };
    for (kind, v) in points {
        if kind == "recovered" {
            continue;
        }
        let times: Vec<&Value> = match v {
            Value::Array(a) => a.iter().collect(),
            x => vec![x],
        };
        for x in times {
            let Some(want) = t(x) else { continue };
            let near = entries
                .iter()
                .filter(|e| e.0 == kind)
                .map(|e| e.1 - want)
                .min_by_key(|d| d.abs());
            check(
                out,
                "timeline",
                format!("{kind} at {}", x.as_str().unwrap_or("?")),
                near.is_some_and(|d| d.abs() <= tol),
                format!("within {tol} s"),
                // The sign tells a systematic lag from a systematic lead.
                near.map_or("no entry".into(), |d| {
                    format!("{} s {}", d.abs(), if d < 0 { "early" } else { "late" })
                }),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn times_parse_with_fractions_and_offsets() {
        assert_eq!(
            parse_time("2026-10-01T07:56:55Z"),
            parse_time("2026-10-01T13:26:55.250+05:30")
        );
        assert_eq!(parse_time("1970-01-01T00:01:00Z"), Some(60));
        assert_eq!(parse_time("garbage"), None);
    }

    #[test]
    fn an_instance_named_by_a_name_the_writers_gave_it_is_that_instance() {
        let truth = json!({
            "incident": true,
            "instances": [{"pod": "api-1", "addr": "10.0.0.1:8080", "ip": "10.0.0.1", "host": "n1",
                           "aliases": ["ip-10-0-0-1.eu-west-1.compute.internal"], "affected": true}],
            "instances_affected": 1, "fleet_size": 1,
        });
        let report = json!({"incident": {"found": true},
            "impact": {"instances_affected": ["ip-10-0-0-1.eu-west-1.compute.internal"], "instances_total": 1}});
        let c = check_report(&truth, &report);
        assert!(
            c.iter()
                .filter(|x| x.class == "instances")
                .all(|x| x.passed),
            "{c:?}"
        );
    }

    #[test]
    fn a_matching_report_passes_and_a_wrong_one_fails_each_class() {
        let truth = json!({
            "incident": true, "onset": "2026-10-01T07:56:55Z", "recovered": "2026-10-01T08:01:35Z",
            "onset_tolerance_s": 30, "culprit": {"tenant": "acct-4411", "integration": "acme-exporter"},
            "organic": false, "patterns": ["tenant_surge"], "forbidden_patterns": ["crash_loop"],
            "timeline": {"surge_start": "2026-10-01T07:56:55Z", "recovered": "2026-10-01T08:01:35Z"},
            "instances": [{"pod": "api-1", "addr": "10.0.0.1:8080", "ip": "10.0.0.1", "host": "n1", "affected": true},
                          {"pod": "api-2", "addr": "10.0.0.2:8080", "ip": "10.0.0.2", "host": "n2", "affected": false}],
            "instances_affected": 1, "fleet_size": 2,
        });
        let good = json!({
            "incident": {"found": true, "onset": "2026-10-01T07:57:10Z", "recovered": "2026-10-01T08:02:00Z"},
            "impact": {"instances_affected": ["10.0.0.1:8080"], "instances_total": 2},
            "attribution": {"organic": false, "rows": [{"tenant": "acct-4411"}]},
            "findings": [{"pattern": "tenant_surge", "confidence": 0.9}, {"pattern": "crash_loop", "confidence": 0.2}],
            "timeline": [{"ts": "2026-10-01T07:56:50Z", "kind": "surge_start"}],
        });
        let c = check_report(&truth, &good);
        assert!(c.iter().all(|x| x.passed), "{c:?}");
        let bad = json!({
            "incident": {"found": true, "onset": "2026-10-01T07:50:00Z", "recovered": "2026-10-01T08:09:00Z"},
            "impact": {"instances_affected": ["n2", "n1"], "instances_total": 3},
            "attribution": {"organic": true, "rows": [{"tenant": "acct-1"}]},
            "findings": [{"pattern": "crash_loop", "confidence": 0.7}],
            "timeline": [{"ts": "2026-10-01T07:58:00Z", "kind": "surge_start"}],
        });
        let c = check_report(&truth, &bad);
        for class in [
            "onset",
            "recovery",
            "culprit",
            "organic",
            "required",
            "forbidden",
            "instances",
            "timeline",
        ] {
            assert!(
                c.iter().any(|x| x.class == class && !x.passed),
                "{class} should fail: {c:?}"
            );
        }
    }
}
