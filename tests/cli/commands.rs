//! The small commands: completions, the man page, the format list.

use super::fixture::run;

#[test]
fn completions_and_man_page_come_from_the_same_definitions() {
    for shell in ["bash", "zsh", "fish"] {
        let (code, out, err) = run(&["completions", shell]);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains("analyze") && out.contains("tenant-from"),
            "{shell}"
        );
    }
    let (code, out, _) = run(&["man"]);
    assert_eq!(code, 0);
    assert!(out.starts_with(".ie") || out.contains(".TH postmortem"));
    assert!(out.contains("analyze"));
}

#[test]
fn formats_lists_every_builtin_definition() {
    let (code, out, _) = run(&["formats"]);
    assert_eq!(code, 0);
    for name in [
        "nginx_combined",
        "nginx_timed",
        "json_lines",
        "prometheus_query_range",
        "k8s_events",
    ] {
        assert!(out.contains(name), "{name} missing");
    }
}

/// `--tenant-from header:NAME` finds the header where Traefik's JSON access
/// log keeps it (`request_X-Account-Id`), as a user who read Traefik's docs
/// would expect.
#[test]
fn a_tenant_header_is_found_in_traefiks_json_log() {
    let d = super::fixture::scratch("traefik-header");
    let mut log = String::new();
    for i in 0..40 {
        let acct = if i % 4 == 0 { "97506" } else { "11" };
        log.push_str(&format!(
            "{{\"ClientHost\":\"198.51.100.7\",\"DownstreamStatus\":200,\"Duration\":12000000,\"RequestMethod\":\"GET\",\"RequestPath\":\"/api/webhooks/{i}/deliveries\",\"RequestProtocol\":\"HTTP/1.1\",\"ServiceAddr\":\"10.42.6.22:8080\",\"StartUTC\":\"2026-10-01T07:00:{:02}.000Z\",\"request_User-Agent\":\"reportly/3.9.5\",\"request_X-Account-Id\":\"{acct}\",\"time\":\"2026-10-01T07:00:{:02}Z\"}}\n",
            i, i
        ));
    }
    let path = d.join("traefik.json");
    std::fs::write(&path, log).expect("write");
    let (code, out, err) = run(&[
        "analyze",
        "--json",
        "--tenant-from",
        "header:X-Account-Id",
        path.to_str().unwrap_or(""),
    ]);
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).expect("json");
    let tenants: Vec<&str> = r["attribution"]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|x| x["tenant"].as_str())
        .collect();
    assert!(
        tenants.contains(&"97506") && tenants.contains(&"11"),
        "{tenants:?}"
    );
}
