//! The external corpus files of the format families added for issue #9
//! (`../shared/corpus/external/`, listed in its MANIFEST.json): each is
//! recognised as its family with at least `min_parsed_share` of its lines
//! parsed, and spot-checked fields come out with the values a person reads
//! in the file. One expectation file per corpus file under
//! `tests/external/<file>.json`:
//! `{"format": NAME, "min_parsed_share": 0.9, "inner_format": NAME?,
//!   "skipped_by_reason": {REASON: N}?, "fields": [{"line": N, "field": ROLE, "value": TEXT}]}`
//! (a line's first record is checked). Skipped, and said so, where the
//! corpus is not present.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;

use super::fixture::{corpus, root, run};

#[test]
fn family_corpus_files_are_recognised_parsed_and_give_their_fields() {
    let Some(dir) = corpus() else {
        eprintln!("SKIPPED: ../shared/corpus is not present in this checkout");
        return;
    };
    let mut files: Vec<_> = fs::read_dir(root().join("tests/external"))
        .expect("tests/external")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 14, "expectation files: {files:?}");
    for exp_path in files {
        let exp: Value =
            serde_json::from_str(&fs::read_to_string(&exp_path).expect("read")).expect("JSON");
        let name = exp_path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("name")
            .to_string();
        let path = dir.join("external").join(&name).display().to_string();
        let (code, out, err) = run(&["formats", "check", "--json", &path]);
        assert_eq!(code, 0, "{name}: {err}");
        let v: Value = serde_json::from_str(out.trim()).expect("one JSON object");
        assert_eq!(v["format"], exp["format"], "{name}: {v}");
        if let Some(inner) = exp.get("inner_format") {
            assert_eq!(&v["inner_format"], inner, "{name}: {v}");
        }
        let lines = v["lines"].as_f64().unwrap_or(0.0);
        let parsed = v["parsed"].as_f64().unwrap_or(0.0);
        let share = exp["min_parsed_share"].as_f64().expect("min_parsed_share");
        assert!(lines > 0.0 && parsed / lines >= share, "{name}: {v}");
        if let Some(reasons) = exp.get("skipped_by_reason") {
            assert_eq!(&v["skipped_by_reason"], reasons, "{name}: {v}");
        }
        let (_, fields_out, _) = run(&["formats", "check", "--fields", &path]);
        let mut by_line: BTreeMap<u64, Value> = BTreeMap::new();
        for l in fields_out.lines() {
            let r: Value = serde_json::from_str(l).expect("fields line");
            by_line.entry(r["line"].as_u64().unwrap_or(0)).or_insert(r);
        }
        for f in exp["fields"].as_array().expect("fields") {
            let line = f["line"].as_u64().expect("line");
            let role = f["field"].as_str().expect("field");
            let got = by_line.get(&line).map(|r| &r["fields"][role]);
            assert_eq!(got, Some(&f["value"]), "{name}: line {line} {role}");
        }
    }
}
