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
