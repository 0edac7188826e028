//! Exports wrapped in a platform's envelope: the envelope is unwrapped, the
//! inner lines are detected and parsed like any input, labels fill in the
//! instance, and lines no format reads stay plain log records.

use flate2::read::GzDecoder;
use serde_json::Value;
use std::fs;
use std::io::Read;

use super::fixture::{root, run, scratch_file, ScratchFile};

fn access_lines(n: usize) -> Vec<String> {
    let mut text = String::new();
    GzDecoder::new(
        fs::File::open(root().join("samples/bulk-export/access.log.gz")).expect("sample"),
    )
    .read_to_string(&mut text)
    .expect("gunzip");
    text.lines().take(n).map(str::to_string).collect()
}

fn write(name: &str, lines: &[String]) -> ScratchFile {
    scratch_file(name, lines.join("\n") + "\n")
}

fn report(path: &str) -> Value {
    let (code, out, err) = run(&["analyze", "--json", path]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("json")
}

#[test]
fn docker_json_file_lines_are_unwrapped_and_parsed_as_access_logs() {
    let wrapped: Vec<String> = access_lines(300)
        .iter()
        .map(|l| serde_json::json!({"log": format!("{l}\n"), "stream": "stdout", "time": "2026-10-01T07:25:01.000000000Z"}).to_string())
        .collect();
    let r = report(write("docker.log", &wrapped).arg());
    assert_eq!(r["inputs"][0]["format"], "docker_json_file");
    assert_eq!(r["inputs"][0]["parsed"], 300);
    assert!(
        r["attribution"]["rows"]
            .as_array()
            .is_some_and(|a| !a.is_empty()),
        "requests with tenants: {r}"
    );
}

#[test]
fn cri_partial_lines_are_joined_before_parsing() {
    let mut lines = Vec::new();
    for l in access_lines(100) {
        let (a, b) = l.split_at(40);
        lines.push(format!("2026-10-01T07:25:01.000000001Z stdout P {a}"));
        lines.push(format!("2026-10-01T07:25:01.000000002Z stdout F {b}"));
    }
    let path = write("cri.log", &lines);
    let r = report(path.arg());
    assert_eq!(r["inputs"][0]["format"], "cri");
    assert_eq!(r["inputs"][0]["lines"], 200);
    assert_eq!(r["inputs"][0]["skipped"], 0);
    let (_, table, _) = run(&["tenants", path.arg()]);
    assert!(table.contains("acct-"), "{table}");
}

#[test]
fn inner_lines_no_format_reads_stay_log_records_with_the_envelope_time() {
    let lines: Vec<String> = (0..20)
        .map(|i| format!("{{\"labels\":{{\"pod\":\"web-{i}\"}},\"line\":\"ERROR something odd #{i}\",\"timestamp\":\"2026-10-01T08:00:{i:02}Z\"}}"))
        .collect();
    let r = report(write("loki.jsonl", &lines).arg());
    assert_eq!(r["inputs"][0]["format"], "loki_jsonl");
    assert_eq!(r["inputs"][0]["parsed"], 20);
    assert_eq!(r["inputs"][0]["first_ts"], "2026-10-01T08:00:00Z");
}

/// `formats check --fields` shows what the envelope definition reads from
/// each record (time, inner line, labels), as it does for other formats.
#[test]
fn fields_of_envelope_records_are_shown() {
    let lines = vec![
        serde_json::json!({"log": "pool timeout\n", "stream": "stderr", "time": "2026-10-01T07:58:06.113Z"}).to_string(),
        serde_json::json!({"log": "recovered\n", "stream": "stdout", "time": "2026-10-01T07:59:00.000Z"}).to_string(),
    ];
    let path = write("fields-docker.log", &lines);
    let (code, out, err) = run(&["formats", "check", "--fields", path.arg()]);
    assert_eq!(code, 0, "{err}");
    let recs: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("fields line"))
        .collect();
    assert_eq!(recs.len(), 2, "{out}");
    assert_eq!(recs[0]["line"], 1);
    assert_eq!(recs[0]["fields"]["ts"], "2026-10-01T07:58:06.113Z");
    assert_eq!(recs[1]["fields"]["message"], "recovered\n");
}

/// Caddy writes its own log and its access log as zap JSON to one stream:
/// behind `docker compose logs` the inner format is the JSON log, and the
/// access lines among them go to the access format that reads them, as
/// they would in a file of their own, instead of becoming time-less text.
#[test]
fn inner_lines_the_inner_format_leaves_go_to_the_format_that_reads_them() {
    let app = |ts: f64, msg: &str| {
        format!(
            "web  | {}",
            serde_json::json!({"level": "info", "ts": ts, "logger": "tls", "msg": msg})
        )
    };
    let access = format!(
        "web  | {}",
        serde_json::json!({"level": "info", "ts": 1790841490.25, "logger": "http.log.access", "msg": "handled request",
            "request": {"remote_ip": "192.0.2.7", "client_ip": "192.0.2.7", "proto": "HTTP/1.1", "method": "GET", "host": "shop.example", "uri": "/cart", "headers": {}},
            "bytes_read": 0, "user_id": "", "duration": 0.0042, "size": 512, "status": 502, "resp_headers": {}})
    );
    let mut lines: Vec<String> = (0..8)
        .map(|i| app(1790841486.0 + f64::from(i), "certificate maintenance"))
        .collect();
    lines.insert(4, access);
    let path = write("compose-caddy.log", &lines);
    let (code, out, err) = run(&["formats", "check", "--json", path.arg()]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(out.trim()).expect("json");
    assert_eq!(v["format"], "docker_compose_logs", "{v}");
    assert_eq!(v["inner_format"], "json_lines", "{v}");
    assert_eq!(v["read_by"]["caddy_access"], 1, "{v}");
    assert_eq!(v["parsed"], 9, "{v}");
    assert_eq!(v["unplaced_by_reason"], serde_json::json!({}), "{v}");
}
