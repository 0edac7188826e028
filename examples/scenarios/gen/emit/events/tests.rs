//! Events families on the fixture: structure, order and where each change lands.

use super::*;
use crate::gen::emit::family::Platform;
use crate::gen::emit::fixture;

fn run(
    fam: EventsFamily,
    platform: Platform,
) -> (Vec<SourceOut>, Vec<ChangePlan>, crate::gen::facts::World) {
    let w = fixture::world();
    let (outs, plans) = {
        let ctx = fixture::ctx_with(&w, platform, time::UTC);
        write(&ctx, &[fam], &[fixture::clock(0)], &mut Rng::new(8))
    };
    (outs, plans, w)
}

fn text(o: &SourceOut) -> String {
    String::from_utf8(o.files[0].body.clone()).expect("utf-8")
}

#[test]
fn kubectl_list_is_sorted_by_name_and_keeps_probe_messages() {
    let (outs, _, w) = run(EventsFamily::K8sList, Platform::Kubernetes);
    let j: serde_json::Value = serde_json::from_str(&text(&outs[0])).expect("json");
    assert_eq!(j["kind"], "List");
    let items = j["items"].as_array().expect("items");
    assert_eq!(items.len(), w.events.len());
    let names: Vec<&str> = items
        .iter()
        .filter_map(|i| i["metadata"]["name"].as_str())
        .collect();
    assert!(names.windows(2).all(|p| p[0] <= p[1]));
    let probe = items
        .iter()
        .find(|i| i["reason"] == "Unhealthy")
        .expect("probe event");
    assert!(probe["message"]
        .as_str()
        .is_some_and(|m| m.contains("10.42.2.12:8080")));
    assert_eq!(probe["involvedObject"]["name"], "api-7c9d8b6f5-m8vzt");
    assert_eq!(probe["count"], 3);
    let sched = items
        .iter()
        .find(|i| i["reason"] == "Scheduled")
        .expect("scheduled");
    assert!(sched["firstTimestamp"].is_null() && sched["eventTime"].is_string());
}

#[test]
fn event_lines_are_one_object_each() {
    let (outs, _, w) = run(EventsFamily::K8sLines, Platform::Kubernetes);
    let rows: Vec<serde_json::Value> = text(&outs[0])
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(rows.len(), w.events.len());
    assert!(rows.iter().all(|r| r["kind"] == "Event"));
}

#[test]
fn ecs_events_are_newest_first() {
    let (outs, _, _) = run(EventsFamily::EcsServices, Platform::Ecs);
    let j: serde_json::Value = serde_json::from_str(&text(&outs[0])).expect("json");
    let ev = j["services"][0]["events"].as_array().expect("events");
    assert!(!ev.is_empty() && ev.len() <= 100);
    let at: Vec<String> = ev.iter().map(|e| e["createdAt"].to_string()).collect();
    assert!(at.windows(2).all(|p| p[0] >= p[1]), "{at:?}");
    assert!(ev.iter().any(|e| e["message"]
        .as_str()
        .is_some_and(|m| m.contains("has stopped 1 running tasks"))));
}

#[test]
fn journal_shows_the_watchdog_kill_and_restart() {
    let (outs, _, _) = run(EventsFamily::Journal, Platform::Vm);
    let t = text(&outs[0]);
    assert!(
        t.contains("api.service: Watchdog timeout (limit 30s)!"),
        "{t}"
    );
    assert!(
        t.contains("api.service: Scheduled restart job, restart counter is at 1."),
        "{t}"
    );
    assert!(t
        .lines()
        .all(|l| l.contains(" systemd[1]: ") || l.contains(" kernel: ")));
}

#[test]
fn changes_land_where_their_kind_is_recorded() {
    let w = fixture::world();
    let ctx = fixture::ctx(&w);
    let fams = [
        EventsFamily::HelmHistory,
        EventsFamily::LaunchDarkly,
        EventsFamily::DeployLog,
        EventsFamily::GithubDeployments,
        EventsFamily::Unleash,
    ];
    let clocks = vec![fixture::clock(0); fams.len()];
    let (outs, plans) = write(&ctx, &fams, &clocks, &mut Rng::new(2));
    assert!(plans.iter().all(|p| !p.written_to.is_empty()));
    let by = |name: &str| {
        outs.iter()
            .find(|o| o.plan.family == name)
            .map(text)
            .unwrap_or_default()
    };
    let helm: serde_json::Value = serde_json::from_str(&by("helm-history")).expect("helm json");
    let revs = helm.as_array().expect("array");
    let rb = revs
        .iter()
        .find(|r| r.get("rollback_revision").is_some())
        .expect("rollback revision");
    let target = rb["rollback_revision"].as_i64().unwrap_or(0);
    assert_eq!(rb["description"], format!("Rollback to {target}"));
    let target_rev = revs
        .iter()
        .find(|r| r["revision"] == target)
        .expect("target revision");
    assert_eq!(target_rev["app_version"], rb["app_version"]);
    assert_eq!(
        target_rev["chart"], rb["chart"],
        "a rollback re-deploys the earlier chart"
    );
    assert_eq!(
        revs.last().map(|r| r["status"].clone()),
        Some(serde_json::json!("deployed"))
    );
    let log = by("deploy-log");
    assert!(
        log.lines()
            .any(|l| l.ends_with("deploy api 4.19.0 by ci-bot")),
        "{log}"
    );
    assert!(
        log.lines().any(|l| l.contains("rollback api 4.18.2")
            && l.ends_with("reason=\"error rate up after 4.19.0\"")),
        "{log}"
    );
    assert!(log.contains("scale api 4->6 by bob@example.com"));
    let ld: serde_json::Value = serde_json::from_str(&by("launchdarkly-audit")).expect("ld json");
    assert_eq!(ld["items"][0]["accesses"][0]["action"], "updateOn");
    let gh: serde_json::Value = serde_json::from_str(&by("github-deployments")).expect("gh json");
    assert!(gh[0]["description"]
        .as_str()
        .is_some_and(|d| d.starts_with("Rollback to 4.18.2")));
    let un: serde_json::Value = serde_json::from_str(&by("unleash-events")).expect("unleash json");
    assert_eq!(un["events"][0]["type"], "feature-environment-enabled");
}

#[test]
fn a_deploy_log_is_needed_only_when_a_change_has_no_carrier() {
    let w = fixture::world();
    assert!(needs_deploy_log(
        &w.changes,
        &[EventsFamily::HelmHistory, EventsFamily::LaunchDarkly]
    ));
    assert!(!needs_deploy_log(&w.changes, &[EventsFamily::DeployLog]));
    assert!(!needs_deploy_log(&[], &[]));
}
