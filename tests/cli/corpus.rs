//! The published sample lines in `../shared/corpus` for the formats this
//! release reads: detection picks the format and every line parses.
//! Skipped, and said so, where the corpus is not checked out.

use super::fixture::{corpus, rel, run};

/// (corpus file, the format it must be detected as)
const FILES: [(&str, &str); 5] = [
    ("http_access_combined.log", "nginx_combined"),
    ("json_bunyan.jsonl", "json_lines"),
    ("json_ecs.jsonl", "json_lines"),
    ("prometheus_query_range.jsonl", "prometheus_query_range"),
    ("k8s_events.jsonl", "k8s_events"),
];

#[test]
fn corpus_files_are_detected_and_parsed() {
    let Some(dir) = corpus() else {
        eprintln!("SKIPPED: ../shared/corpus is not present in this checkout");
        return;
    };
    for (file, format) in FILES {
        let path = dir.join(file);
        let (code, out, err) = run(&["formats", "check", "--json", &path.display().to_string()]);
        assert_eq!(code, 0, "{file}: {err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
        assert_eq!(v["format"], format, "{}: {v}", rel(&path));
        assert_eq!(v["skipped"], 0, "{file}: {v}");
        assert!(v["parsed"].as_u64() > Some(0));
    }
}
