//! An application that logs its own requests (pino-http, bunyan, structlog
//! request lines) beside the access log of the proxy in front of it: each
//! request is then in both, and counting both doubles every request. The
//! access log's are counted, the application's are left out and said so;
//! with no access log the application's request lines are the requests.

use serde_json::Value;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use super::fixture::{run, scratch, Scratch};

const START: i64 = 1_790_841_600; // 2026-09-01T08:00:00Z

fn dir(name: &str) -> Scratch {
    scratch(&format!("logreq-{name}"))
}

/// The same `n` requests, one every 2 s, as the proxy logged them and as
/// the application did, with ordinary application lines between.
fn write_both(d: &Path, n: i64) -> (PathBuf, PathBuf) {
    let (mut access, mut app) = (String::new(), String::new());
    for i in 0..n {
        let t = START + 2 * i;
        let clock = chrono::DateTime::from_timestamp(t, 0)
            .expect("time")
            .format("%d/%b/%Y:%H:%M:%S +0000");
        writeln!(
            access,
            "203.0.113.{} - - [{clock}] \"GET /v1/carts/{i} HTTP/1.1\" 200 512 \"-\" \"okhttp/4.12.0\"",
            i % 7 + 1
        )
        .expect("write");
        writeln!(
            app,
            "{{\"level\":30,\"time\":{},\"pid\":7,\"hostname\":\"web-1\",\"msg\":\"cart loaded\"}}",
            t * 1000 + 5
        )
        .expect("write");
        writeln!(
            app,
            "{{\"level\":30,\"time\":{},\"pid\":7,\"hostname\":\"web-1\",\"req\":{{\"id\":{i},\"method\":\"GET\",\"url\":\"/v1/carts/{i}\"}},\"res\":{{\"statusCode\":200}},\"responseTime\":12,\"msg\":\"request completed\"}}",
            t * 1000 + 12
        )
        .expect("write");
    }
    let (a, b) = (d.join("access.log"), d.join("app.jsonl"));
    fs::write(&a, access).expect("access log");
    fs::write(&b, app).expect("app log");
    (a, b)
}

fn report(args: &[&str]) -> Value {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("JSON report")
}

#[test]
fn request_lines_of_an_application_log_are_not_counted_twice_beside_an_access_log() {
    let d = dir("both");
    let (a, b) = write_both(&d, 120);
    let (a, b) = (a.to_str().expect("path"), b.to_str().expect("path"));
    // Either order of the inputs: the access log's requests are counted.
    for args in [[a, b], [b, a]] {
        let j = report(&["analyze", "--json", args[0], args[1]]);
        assert_eq!(j["impact"]["requests_total"], 120, "{}", j["impact"]);
        let warnings = j["warnings"].to_string();
        assert!(
            warnings.contains("120 request line(s) of application logs were not counted"),
            "{warnings}"
        );
    }
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn request_lines_of_an_application_log_alone_are_the_requests() {
    let d = dir("alone");
    let (_, b) = write_both(&d, 120);
    let j = report(&["analyze", "--json", b.to_str().expect("path")]);
    assert_eq!(j["impact"]["requests_total"], 120, "{}", j["impact"]);
    assert!(!j["warnings"]
        .to_string()
        .contains("not counted as requests"));
    let _ = fs::remove_dir_all(&d);
}
