//! One instance however many ways the sources name it, on small synthetic
//! exports written here: an access log naming upstreams by address beside a
//! journal naming them by host, and metrics whose exporter labels every pod
//! with its own address.

use serde_json::Value;
use std::fmt::Write;
use std::fs;

use super::fixture::{run, scratch, Scratch};

fn dir(name: &str) -> Scratch {
    scratch(&format!("inst-{name}"))
}

/// 2026-10-01 07:00:00 UTC plus `sec`, as a combined log writes it.
fn clf_time(sec: u64) -> String {
    let (h, m, s) = (7 + sec / 3600, (sec / 60) % 60, sec % 60);
    format!("01/Oct/2026:{h:02}:{m:02}:{s:02} +0000")
}

fn iso(sec: u64) -> String {
    let (h, m, s) = (7 + sec / 3600, (sec / 60) % 60, sec % 60);
    format!("2026-10-01T{h:02}:{m:02}:{s:02}+0000")
}

/// 20 minutes at 10 requests a second over three upstreams `10.0.0.N:8080`;
/// from minute 10 for `down` seconds every request fails fast (502).
fn access_log(down: u64) -> String {
    requests(|sec, _| (600..600 + down).contains(&sec), true)
}

/// 20 minutes at 10 requests a second, the `k`-th of second `sec` failing
/// fast (502) where `fails(sec, k)`; with the upstream `10.0.0.N:8080` that
/// served it at the end of each line, or none.
fn requests(fails: impl Fn(u64, u64) -> bool, upstream: bool) -> String {
    let mut out = String::new();
    for sec in 0..1200u64 {
        for k in 0..10u64 {
            let (status, took) = if fails(sec, k) {
                (502, 0.001)
            } else {
                (200, 0.040)
            };
            let to = if upstream {
                format!(" {took:.3} 10.0.0.{}:8080", (sec * 10 + k) % 3 + 1)
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "192.0.2.{} - - [{}] \"GET /api/v1/accounts/acct-{}/runs/{sec} HTTP/1.1\" {status} 512 \"-\" \"client/{}\"{to}",
                k + 1,
                clf_time(sec),
                (k + sec) % 7,
                k % 3,
            );
        }
    }
    out
}

fn report(d: &std::path::Path) -> Value {
    let (code, out, err) = run(&["analyze", "--json", d.to_str().unwrap_or("")]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("json")
}

fn finding<'r>(r: &'r Value, pattern: &str) -> Option<&'r Value> {
    r["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|f| f["pattern"] == pattern)
}

/// The restart is seen only in the hosts' journals (systemd and the app's
/// own start-up line, which says where it listens): three VMs, not six
/// instances, and all three restarted.
#[test]
fn restarts_seen_only_in_journals_are_of_the_upstreams_the_access_log_names() {
    let d = dir("journal");
    fs::write(d.join("access.log"), access_log(60)).expect("write");
    let mut j = Vec::new();
    for i in 1..=3u64 {
        j.push(format!(
            "{} vm-{i} api[311]: * Listening on http://10.0.0.{i}:8080",
            iso(4 + i)
        ));
        let t = 599 + i;
        j.push(format!(
            "{} vm-{i} systemd[1]: api.service: Main process exited, code=killed, status=9/KILL",
            iso(t)
        ));
        j.push(format!(
            "{} vm-{i} systemd[1]: Stopped API service.",
            iso(t + 1)
        ));
        j.push(format!(
            "{} vm-{i} systemd[1]: Started API service.",
            iso(t + 55)
        ));
        j.push(format!(
            "{} vm-{i} api[411]: * Listening on http://10.0.0.{i}:8080",
            iso(t + 56)
        ));
    }
    j.sort();
    fs::write(d.join("journal.log"), j.join("\n") + "\n").expect("write");
    let r = report(&d);
    assert_eq!(r["incident"]["found"], true, "{r}");
    assert_eq!(r["impact"]["instances_total"], 3, "{}", r["impact"]);
    assert_eq!(
        r["impact"]["instances_affected"],
        serde_json::json!(["10.0.0.1:8080", "10.0.0.2:8080", "10.0.0.3:8080"])
    );
    let sync = finding(&r, "synchronized_restart").expect("synchronized_restart found");
    assert!(sync["confidence"].as_f64() >= Some(0.5), "{sync}");
    assert!(
        sync["title"].as_str().unwrap_or("").starts_with("3 of 3 "),
        "{sync}"
    );
}

/// kube-state-metrics is scraped at one address and labels every pod's
/// restart counter with it; the pods' own series pair each pod with its
/// address. The exporter's address is no pod's: three instances, not one.
#[test]
fn an_exporter_address_on_every_pod_series_does_not_merge_the_fleet() {
    let d = dir("exporter");
    fs::write(d.join("access.log"), access_log(60)).expect("write");
    let mut m = String::new();
    for i in 1..=3u64 {
        for step in 0..=40u64 {
            // 2026-10-01T07:00:00Z in ms, every 30 s.
            let ms = 1_790_838_000_000u64 + step * 30_000;
            let _ = writeln!(
                m,
                "kube_pod_container_status_restarts_total{{container=\"api\",instance=\"10.42.0.24:8080\",job=\"kube-state-metrics\",pod=\"api-{i}\"}} {} {ms}",
                u64::from(step >= 20)
            );
            let _ = writeln!(
                m,
                "http_requests_total{{instance=\"10.0.0.{i}:8080\",job=\"api\",pod=\"api-{i}\"}} {} {ms}",
                step * 100
            );
        }
    }
    fs::write(d.join("metrics.prom"), m).expect("write");
    let r = report(&d);
    assert_eq!(r["incident"]["found"], true, "{r}");
    assert_eq!(r["impact"]["instances_total"], 3, "{}", r["impact"]);
}

/// An access log that names no upstream, beside each pod's own log file
/// (kubelet's `<pod>_<namespace>_<container>-<id>.log`): the pod whose log
/// fills with errors when requests fail is the affected one, its peers that
/// logged as usual are not, and the fleet is the three pods.
#[test]
fn where_the_access_log_names_no_instance_the_pods_logging_errors_are_the_affected_ones() {
    let d = dir("podlogs");
    // From minute 10, for five minutes, a third of the requests fail.
    let access = requests(
        |sec, k| (600..900).contains(&sec) && (sec * 10 + k) % 3 == 0,
        false,
    );
    fs::write(d.join("access.log"), access).expect("write");
    let id = "4c1f0e5b9a7d3c2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e";
    for pod in ["web-5f7b9c-aaaaa", "web-5f7b9c-bbbbb", "web-5f7b9c-ccccc"] {
        let mut log = String::new();
        for sec in (0..1200u64).step_by(10) {
            let _ = writeln!(log, "{} INFO worker heartbeat ok", iso_ms(sec));
            if pod.ends_with('c') && (600..900).contains(&sec) {
                for n in 0..3 {
                    let _ = writeln!(
                        log,
                        "{} ERROR upstream call failed: connection reset by peer (attempt {n})",
                        iso_ms(sec + n)
                    );
                }
            }
        }
        fs::write(d.join(format!("{pod}_production_web-{id}.log")), log).expect("write");
    }
    let r = report(&d);
    assert_eq!(r["incident"]["found"], true, "{r}");
    assert_eq!(
        r["impact"]["instances_affected"],
        serde_json::json!(["web-5f7b9c-ccccc"]),
        "{}",
        r["impact"]
    );
    assert_eq!(r["impact"]["instances_total"], 3, "{}", r["impact"]);
    let _ = fs::remove_dir_all(&d);
}

/// As [`iso`], with milliseconds and `Z`, as an application logs it.
fn iso_ms(sec: u64) -> String {
    let (h, m, s) = (7 + sec / 3600, (sec / 60) % 60, sec % 60);
    format!("2026-10-01T{h:02}:{m:02}:{s:02}.000Z")
}
