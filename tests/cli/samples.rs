//! Every bundled scenario against its `truth.json`: the incident, the
//! culprit, the patterns, the timeline. Plus the report snapshot and
//! determinism.

use chrono::DateTime;
use serde_json::Value;
use std::fs;

use super::fixture::{root, run};

/// `timeline[].kind` values of `report-json.md` (`recovered` is checked as the
/// incident's end), and `flag_change`, which this release adds.
const TIMELINE_KINDS: [&str; 16] = [
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
];

fn ts(v: &Value) -> i64 {
    DateTime::parse_from_rfc3339(v.as_str().unwrap_or("")).map_or(i64::MIN, |d| d.timestamp())
}

fn scenarios() -> Vec<String> {
    let mut out: Vec<String> = fs::read_dir(root().join("samples"))
        .expect("samples/")
        .flatten()
        .filter(|e| e.path().join("truth.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

fn report(scenario: &str) -> Value {
    let (code, out, err) = run(&["analyze", "--json", &format!("samples/{scenario}")]);
    assert_eq!(code, 0, "{scenario}: {err}");
    serde_json::from_str(&out).expect("JSON report")
}

#[test]
fn every_scenario_matches_its_truth() {
    let names = scenarios();
    assert!(names.contains(&"bulk-export".to_string()));
    for name in names {
        let truth: Value = serde_json::from_str(
            &fs::read_to_string(root().join("samples").join(&name).join("truth.json"))
                .expect("truth"),
        )
        .expect("truth is JSON");
        let r = report(&name);
        assert_eq!(r["schema"], "postmortem.report/v1");
        let found = truth
            .get("incident")
            .and_then(Value::as_bool)
            .unwrap_or(true);
        assert_eq!(r["incident"]["found"], found, "{name}: incident.found");
        let findings = r["findings"].as_array().expect("findings");
        if !found {
            assert!(r["incident"]["onset"].is_null());
            assert!(
                findings
                    .iter()
                    .all(|f| f["confidence"].as_f64().unwrap_or(1.0) <= 0.5),
                "{name}: a quiet input must name no cause: {findings:?}"
            );
            continue;
        }
        let onset = ts(&r["incident"]["onset"]);
        let recovered = ts(&r["incident"]["recovered"]);
        // 10 s unless the scenario says its onset is gradual.
        let tolerance = truth["onset_tolerance_s"].as_i64().unwrap_or(10);
        assert!(
            (onset - ts(&truth["onset"])).abs() <= tolerance,
            "{name}: onset {}",
            r["incident"]["onset"]
        );
        assert!(
            (recovered - ts(&truth["recovered"])).abs() <= 60,
            "{name}: recovered {}",
            r["incident"]["recovered"]
        );
        let rows = r["attribution"]["rows"].as_array().expect("rows");
        match truth.get("culprit").filter(|c| !c.is_null()) {
            Some(c) => {
                assert_eq!(
                    rows[0]["tenant"], c["tenant"],
                    "{name}: top attribution row"
                );
                assert_eq!(
                    rows[0]["integration"], c["integration"],
                    "{name}: integration"
                );
                assert_eq!(r["attribution"]["organic"], false);
            }
            None => {
                assert_eq!(r["attribution"]["organic"], true, "{name}: organic growth");
                assert!(
                    !findings
                        .iter()
                        .any(|f| f["pattern"] == "tenant_surge"
                            && f["confidence"].as_f64() > Some(0.5)),
                    "{name}: organic growth must not blame a tenant"
                );
            }
        }
        for p in truth["patterns"].as_array().expect("patterns") {
            let hit = findings.iter().find(|f| &f["pattern"] == p);
            let conf = hit.and_then(|f| f["confidence"].as_f64()).unwrap_or(0.0);
            assert!(conf >= 0.5, "{name}: pattern {p} confidence {conf}");
            assert!(
                !hit.is_none_or(|f| f["evidence"].as_array().is_none_or(Vec::is_empty)),
                "{name}: {p} has no evidence"
            );
        }
        if let Some(tl) = truth.get("timeline").and_then(Value::as_object) {
            let entries = r["timeline"].as_array().expect("timeline");
            let tolerance = truth["timeline_tolerance_s"].as_i64().unwrap_or(15);
            for (kind, when) in tl {
                // Only the kinds of the JSON contract; truth files also note other moments.
                if !when.is_string() || !TIMELINE_KINDS.contains(&kind.as_str()) {
                    continue;
                }
                let closest = entries
                    .iter()
                    .filter(|e| e["kind"] == kind.as_str())
                    .map(|e| (ts(&e["ts"]) - ts(when)).abs())
                    .min();
                assert!(
                    closest.is_some_and(|d| d <= tolerance),
                    "{name}: timeline {kind} at {when}: off by {closest:?}"
                );
            }
        }
    }
}

#[test]
fn every_line_of_every_input_is_accounted_for() {
    for name in scenarios() {
        let r = report(&name);
        for i in r["inputs"].as_array().expect("inputs") {
            let (l, p, s) = (
                i["lines"].as_u64(),
                i["parsed"].as_u64(),
                i["skipped"].as_u64(),
            );
            assert_eq!(l, Some(p.unwrap_or(0) + s.unwrap_or(0)), "{name}: {i}");
            assert!(p > Some(0), "{name}: {i}");
        }
    }
}

#[test]
fn the_bulk_export_report_reads_as_reviewed() {
    let (code, out, err) = run(&["analyze", "--tz", "Asia/Kolkata", "samples/bulk-export"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("bulk_export_report", out);
}

/// Every bundled sample's whole draft is held and reviewed like code, not
/// only the one the README quotes.
#[test]
fn every_bundled_sample_reads_as_reviewed() {
    for name in ["organic-growth", "quiet-day"] {
        let (code, out, err) = run(&[
            "analyze",
            "--tz",
            "Asia/Kolkata",
            &format!("samples/{name}"),
        ]);
        assert_eq!(code, 0, "{err}");
        insta::assert_snapshot!(format!("{}_report", name.replace('-', "_")), out);
    }
}

/// The human reports run 2 to 5.5 KB; the draft's main sections (Summary
/// to Action items) stay under 8 KiB on the bundled sample, with the
/// second time zone's column too.
#[test]
fn the_main_sections_of_the_sample_stay_under_8_kib() {
    let (code, out, err) = run(&["analyze", "--tz", "Asia/Kolkata", "samples/bulk-export"]);
    assert_eq!(code, 0, "{err}");
    let from = out.find("## Summary").unwrap_or(0);
    let to = out.find("## Appendix").unwrap_or(out.len());
    let main = out.get(from..to).unwrap_or_default();
    assert!(main.len() < 8 * 1024, "{} bytes:\n{main}", main.len());
}

#[test]
fn same_inputs_give_the_same_bytes_whatever_the_thread_count() {
    let a = run(&["analyze", "--json", "--threads", "1", "samples/bulk-export"]);
    let b = run(&["analyze", "--json", "--threads", "3", "samples/bulk-export"]);
    let c = run(&["analyze", "--json", "--threads", "3", "samples/bulk-export"]);
    assert_eq!(a.0, 0, "{}", a.2);
    assert_eq!(a.1, b.1);
    assert_eq!(b.1, c.1);
}

#[test]
fn secrets_and_client_ips_never_reach_the_report() {
    for args in [
        vec!["analyze", "samples/bulk-export"],
        vec!["analyze", "--json", "samples/bulk-export"],
    ] {
        let (code, out, _) = run(&args);
        assert_eq!(code, 0);
        assert!(!out.contains("tsk_live_"), "an API key leaked");
        assert!(!out.contains("198.51.100.77"), "a client IP leaked");
        assert!(!out.contains("203.0.113."), "a client IP leaked");
    }
}

#[test]
fn stdin_and_output_file_work() {
    let dir = super::fixture::scratch("stdin");
    let out = dir.join("report.md");
    let gz = fs::read(root().join("samples/bulk-export/access.log.gz")).expect("sample");
    let assert = super::fixture::postmortem()
        .args(["analyze", "-o", out.to_str().unwrap_or(""), "-"])
        .write_stdin(gz)
        .assert();
    assert.success();
    let text = fs::read_to_string(&out).expect("written");
    assert!(text.contains("## Summary"));
    assert!(text.contains("acct-4411"));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn tables_show_the_timeline_and_the_tenants() {
    let (code, out, _) = run(&["timeline", "--tz", "+05:30", "samples/bulk-export"]);
    assert_eq!(code, 0);
    assert!(out.contains("all_instances_restarted"));
    assert!(out.contains("13:28:5"), "local time column: {out}");
    let (code, out, _) = run(&["tenants", "samples/bulk-export/access.log.gz"]);
    assert_eq!(code, 0);
    let first_row = out.lines().find(|l| l.contains("acct-")).unwrap_or("");
    assert!(first_row.contains("acct-4411"), "{out}");
}

#[test]
fn stderr_stays_silent_when_it_is_not_a_terminal() {
    let (code, _, err) = run(&["analyze", "samples/bulk-export"]);
    assert_eq!(code, 0);
    assert!(
        err.is_empty(),
        "no progress bar or chatter on a pipe: {err}"
    );
}
