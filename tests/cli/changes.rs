//! Change sources end to end: a synthetic bundle (an access log with an
//! incident from 07:10 to 07:15, plus a Helm history, GitHub deployments, a
//! feature-flag export or version banners) through the real binary; the
//! change must land on the timeline at its time and be weighed by
//! `deploy_verdict`.

use serde_json::{json, Value};
use std::fmt::Write;
use std::fs;

use super::fixture::{run, scratch, Scratch};

fn dir(name: &str) -> Scratch {
    scratch(&format!("chg-{name}"))
}

/// 20 minutes from 07:00 at 10 requests a second over five upstreams; from
/// 07:10 to 07:15 two of them answer 504 after 30 s.
fn access_log() -> String {
    let mut out = String::new();
    for sec in 0..1200u64 {
        let (h, m, s) = (7 + sec / 3600, (sec / 60) % 60, sec % 60);
        for k in 0..10u64 {
            let up = (sec * 10 + k) % 5;
            let bad = (600..900).contains(&sec) && (up == 1 || up == 3) && k % 2 == 0;
            let (status, took) = if bad { (504, 30.001) } else { (200, 0.040) };
            let _ = writeln!(
                out,
                "192.0.2.{} - - [01/Oct/2026:{h:02}:{m:02}:{s:02} +0000] \"GET /api/v1/accounts/acct-{}/orders/{sec} HTTP/1.1\" {status} 512 \"-\" \"client/{}\" {took:.3} 10.0.0.{}:8080",
                k + 1,
                // Each tenant's requests spread over every upstream, as a
                // load balancer spreads them.
                (k + sec) % 7,
                k % 3,
                up + 1
            );
        }
    }
    out
}

fn report(d: &std::path::Path) -> Value {
    let (code, out, err) = run(&["analyze", "--json", d.to_str().unwrap_or("")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !out.contains("dana.ops@example.com"),
        "an e-mail reached the report"
    );
    let r: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(r["incident"]["found"], true, "{r}");
    r
}

/// The timeline entry of `kind` at `ts`.
fn timeline_entry<'r>(r: &'r Value, kind: &str, ts: &str) -> &'r Value {
    r["timeline"]
        .as_array()
        .and_then(|t| t.iter().find(|e| e["kind"] == kind && e["ts"] == ts))
        .unwrap_or_else(|| panic!("no {kind} entry at {ts} in {}", r["timeline"]))
}

fn finding<'r>(r: &'r Value, pattern: &str) -> Option<&'r Value> {
    r["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|x| x["pattern"] == pattern))
}

fn confidence(r: &Value, pattern: &str) -> f64 {
    finding(r, pattern)
        .and_then(|f| f["confidence"].as_f64())
        .unwrap_or(0.0)
}

fn format_of(r: &Value, file: &str) -> String {
    r["inputs"]
        .as_array()
        .and_then(|i| {
            i.iter()
                .find(|x| x["path"].as_str().is_some_and(|p| p.ends_with(file)))
        })
        .map(|x| x["format"].as_str().unwrap_or("").to_string())
        .unwrap_or_default()
}

#[test]
fn a_helm_upgrade_before_the_onset_rolled_back_at_recovery_is_a_deploy_regression() {
    let d = dir("helm");
    fs::write(d.join("access.log"), access_log()).expect("write");
    let history = json!([
        {"revision": 11, "updated": "2026-10-01T06:30:02.118392004Z", "status": "superseded", "chart": "orders-api-3.2.0", "app_version": "4.18.2", "description": "Upgrade complete"},
        {"revision": 12, "updated": "2026-10-01T07:05:00.271829114Z", "status": "superseded", "chart": "orders-api-3.3.0", "app_version": "4.18.3", "description": "Upgrade complete"},
        {"revision": 13, "updated": "2026-10-01 07:14:40.009921 +0000 UTC", "status": "deployed", "chart": "orders-api-3.2.0", "app_version": "4.18.2", "description": "Rollback to 11"}
    ]);
    fs::write(d.join("helm-history.json"), history.to_string()).expect("write");
    // A flag flipped the same minute, by someone whose e-mail must not show.
    let unleash = json!({"version": 1, "events": [
        {"id": 901, "type": "feature-environment-enabled", "createdBy": "dana.ops@example.com", "createdAt": "2026-10-01T07:06:30.000Z",
         "data": null, "preData": null, "tags": [], "featureName": "bulk-order-export", "project": "default", "environment": "production"}
    ]});
    fs::write(
        d.join("unleash.json"),
        serde_json::to_string_pretty(&unleash).expect("json"),
    )
    .expect("write");

    let r = report(&d);
    assert_eq!(format_of(&r, "helm-history.json"), "helm_history");
    assert_eq!(format_of(&r, "unleash.json"), "unleash_events");
    let deploy = timeline_entry(&r, "deploy", "2026-10-01T07:05:00Z");
    assert!(
        deploy["text"]
            .as_str()
            .is_some_and(|t| t.contains("orders-api-3.3.0")),
        "{deploy}"
    );
    timeline_entry(&r, "rollback", "2026-10-01T07:14:40Z");
    let flag = timeline_entry(&r, "flag_change", "2026-10-01T07:06:30Z");
    assert!(
        flag["text"]
            .as_str()
            .is_some_and(|t| t.contains("bulk-order-export")
                && !t.contains("dana.ops")
                && !t.contains('@')),
        "{flag}"
    );

    assert!(
        confidence(&r, "deploy_regression") >= 0.5,
        "{}",
        r["findings"]
    );
    assert!(
        confidence(&r, "red_herring_deploy") < 0.5,
        "{}",
        r["findings"]
    );
    let evidence = finding(&r, "deploy_regression")
        .map(|f| f["evidence"].to_string())
        .unwrap_or_default();
    assert!(evidence.contains("helm-history.json"), "{evidence}");
}

#[test]
fn a_github_deployment_after_the_onset_is_a_red_herring() {
    let d = dir("gh");
    fs::write(d.join("access.log"), access_log()).expect("write");
    let deployments = json!([
        {"url": "https://api.github.com/repos/acme/orders-api/deployments/2001", "id": 2001, "node_id": "DE_x1",
         "task": "deploy", "original_environment": "production", "environment": "production", "description": null,
         "created_at": "2026-10-01T07:11:00Z", "updated_at": "2026-10-01T07:12:10Z",
         "statuses_url": "https://api.github.com/repos/acme/orders-api/deployments/2001/statuses",
         "repository_url": "https://api.github.com/repos/acme/orders-api",
         "creator": {"login": "release-bot", "id": 7, "type": "Bot"},
         "sha": "9c0ffee1234567890abcdef1234567890abcdef1", "ref": "v4.18.4", "payload": {},
         "transient_environment": false, "production_environment": true}
    ]);
    fs::write(
        d.join("deployments.json"),
        serde_json::to_string_pretty(&deployments).expect("json"),
    )
    .expect("write");
    // A LaunchDarkly flag change long before: on the data, not near the incident.
    let ld = json!({"items": [{"_id": "a1", "_accountId": "acc1", "date": 1_790_838_000_000_i64 - 7_200_000,
        "accesses": [{"action": "updateOn", "resource": "proj/default:env/production:flag/dark-mode"}],
        "kind": "flag", "name": "Dark mode", "titleVerb": "turned on the flag",
        "member": {"_id": "m1", "email": "dana.ops@example.com", "firstName": "Dana", "lastName": "Ops"}}], "totalCount": 1});
    fs::write(d.join("ld-audit.json"), ld.to_string()).expect("write");

    let r = report(&d);
    assert_eq!(format_of(&r, "deployments.json"), "github_deployments");
    assert_eq!(format_of(&r, "ld-audit.json"), "launchdarkly_audit_log");
    let deploy = timeline_entry(&r, "deploy", "2026-10-01T07:11:00Z");
    assert!(
        deploy["text"]
            .as_str()
            .is_some_and(|t| t.contains("v4.18.4")),
        "{deploy}"
    );
    assert!(
        confidence(&r, "red_herring_deploy") >= 0.5,
        "{}",
        r["findings"]
    );
    assert!(
        confidence(&r, "deploy_regression") < 0.5,
        "{}",
        r["findings"]
    );
}

#[test]
fn instances_starting_with_a_new_version_are_a_deploy_inferred_from_banners() {
    let d = dir("banners");
    fs::write(d.join("access.log"), access_log()).expect("write");
    let mut app = String::new();
    // (minute:second, instance, message)
    let lines = [
        ("00:05", "api-1", "Starting orders-api v4.18.2"),
        ("00:06", "api-2", "Starting orders-api v4.18.2"),
        ("03:00", "api-1", "listening on port 8080"),
        // api-1 restarts on the same version: no change.
        ("04:10", "api-1", "Starting orders-api v4.18.2"),
        ("05:00", "api-1", "Starting orders-api v4.18.3"),
        ("05:40", "api-2", "Starting orders-api v4.18.3"),
        ("14:40", "api-1", "Starting orders-api v4.18.2"),
        ("14:50", "api-2", "Starting orders-api v4.18.2"),
    ];
    for (at, instance, message) in lines {
        let _ = writeln!(
            app,
            "{}",
            json!({"ts": format!("2026-10-01T07:{at}.000Z"), "level": "info", "msg": message, "hostname": instance})
        );
    }
    fs::write(d.join("app.jsonl"), app).expect("write");

    let r = report(&d);
    let deploy = timeline_entry(&r, "deploy", "2026-10-01T07:05:00Z");
    let text = deploy["text"].as_str().unwrap_or("");
    assert!(
        text.contains("4.18.3 instead of 4.18.2") && text.contains("2 instances"),
        "{text}"
    );
    assert_eq!(
        r["timeline"]
            .as_array()
            .map(|t| t.iter().filter(|e| e["kind"] == "deploy").count()),
        Some(1),
        "the first versions and a same-version restart are no change: {}",
        r["timeline"]
    );
    timeline_entry(&r, "rollback", "2026-10-01T07:14:40Z");
    assert!(
        confidence(&r, "deploy_regression") >= 0.5,
        "{}",
        r["findings"]
    );
}

/// A change log read before the access log (its name sorts first), by the
/// first of two workers: its changes must survive the merge, and each kind
/// of line (deploy, flag, scale, rollback) lands on the timeline as what
/// it is.
#[test]
fn a_change_log_read_first_keeps_its_changes_whatever_the_threads() {
    let d = dir("changelog");
    fs::write(d.join("zz-access.log"), access_log()).expect("write");
    fs::write(
        d.join("a-changes.log"),
        "2026-10-01T07:05:00Z deploy orders-api v4.18.3 by ci\n\
         2026-10-01T07:06:30Z flag bulk-order-export on by dana.ops@example.com\n\
         2026-10-01T07:12:00Z scale orders-api 5->8 by oncall reason=\"504s\"\n\
         2026-10-01T07:14:40Z rollback orders-api v4.18.2 by oncall\n",
    )
    .expect("write");
    for threads in ["1", "2"] {
        let (code, out, err) = run(&[
            "analyze",
            "--json",
            "--threads",
            threads,
            d.to_str().unwrap_or(""),
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(
            !out.contains("dana.ops@example.com"),
            "an e-mail reached the report"
        );
        let r: Value = serde_json::from_str(&out).expect("json");
        assert_eq!(format_of(&r, "a-changes.log"), "deploy_log");
        timeline_entry(&r, "deploy", "2026-10-01T07:05:00Z");
        timeline_entry(&r, "flag_change", "2026-10-01T07:06:30Z");
        timeline_entry(&r, "scale_out", "2026-10-01T07:12:00Z");
        timeline_entry(&r, "rollback", "2026-10-01T07:14:40Z");
    }
    let _ = fs::remove_dir_all(&d);
}
