//! The published sample lines in `../shared/corpus` (see its SOURCES.md):
//! for each file listed in `tests/corpus/*.json`, detection picks the right
//! format, every entry parses except the negative ones (which are skipped
//! and counted, never half-parsed), and the fields SOURCES.md gives come out
//! with those values. Skipped, and said so, where the corpus is not present.
//!
//! An expectation file:
//! `{"files": [{"file": "x.log", "format": "name", "negative": [3],
//!   "expect": {"1": {"status": "200"}}}]}` — `negative` lists the first
//! lines of entries that must be skipped, `expect` maps an entry's first
//! line to raw field values (roles, or `label.NAME` for labels).
//! `"format": null` says the file is no format at all (negative vectors):
//! detection must refuse it with the unknown-format diagnostic.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;

use super::fixture::{corpus, root, run};

fn expectation_files() -> Vec<(String, Value)> {
    let mut files: Vec<_> = fs::read_dir(root().join("tests/corpus"))
        .expect("tests/corpus")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let v = serde_json::from_str(&fs::read_to_string(&p).expect("read"))
                .expect("expectation JSON");
            (p.display().to_string(), v)
        })
        .collect()
}

#[test]
fn corpus_files_are_detected_parsed_and_give_their_fields() {
    let Some(dir) = corpus() else {
        eprintln!("SKIPPED: ../shared/corpus is not present in this checkout");
        return;
    };
    let mut checked = 0;
    for (exp_file, exp) in expectation_files() {
        for case in exp["files"].as_array().expect("files") {
            let file = case["file"].as_str().expect("file");
            let path = dir.join(file).display().to_string();
            let (code, out, err) = run(&["formats", "check", "--json", &path]);
            if case["format"].is_null() {
                assert_ne!(code, 0, "{exp_file}: {file}: detected: {out}");
                assert!(err.contains("unknown_format"), "{exp_file}: {file}: {err}");
                checked += 1;
                continue;
            }
            assert_eq!(code, 0, "{exp_file}: {file}: {err}");
            let v: Value = serde_json::from_str(out.trim()).expect("one JSON object");
            assert_eq!(v["format"], case["format"], "{exp_file}: {file}: {v}");
            let negative: Vec<u64> = case["negative"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default();
            assert_eq!(
                v["skipped"].as_u64(),
                Some(negative.len() as u64),
                "{exp_file}: {file}: {v}"
            );
            assert_eq!(
                v["lines"].as_u64(),
                v["parsed"].as_u64().map(|p| p + negative.len() as u64),
                "{file}"
            );

            let (_, fields_out, _) = run(&["formats", "check", "--fields", &path]);
            let mut by_line: BTreeMap<u64, Value> = BTreeMap::new();
            for l in fields_out.lines() {
                let r: Value = serde_json::from_str(l).expect("fields line");
                by_line.entry(r["line"].as_u64().unwrap_or(0)).or_insert(r);
            }
            if let Some(expect) = case["expect"].as_object() {
                for (line, want) in expect {
                    let n: u64 = line.parse().expect("line number");
                    let got = by_line
                        .get(&n)
                        .unwrap_or_else(|| panic!("{file}:{n}: no record"));
                    for (k, w) in want.as_object().expect("fields") {
                        let g = match k.strip_prefix("label.") {
                            Some(label) => &got["labels"][label],
                            None => &got["fields"][k],
                        };
                        assert_eq!(g, w, "{exp_file}: {file}:{n}: {k}: {got}");
                    }
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "no corpus expectations");
}

/// `db_pool_exhaustion.log` gathers how pool exhaustion reads in many
/// ecosystems (HikariCP, SQLAlchemy, ActiveRecord, go-pg, and HikariCP's
/// pool-stats lines): every entry's message must carry the pool-exhaustion
/// signal, whether or not the entry has a time of its own, except a stats
/// line with no thread waiting, which is the pool being fine.
#[test]
fn every_pool_exhaustion_entry_signals_pool_exhaustion() {
    use postmortem::event::{Discard, Signal};
    use postmortem::formats::{Catalogue, Role};
    let Some(dir) = corpus() else {
        eprintln!("SKIPPED: ../shared/corpus is not present in this checkout");
        return;
    };
    let cat = Catalogue::builtin().expect("catalogue");
    let path = dir.join("db_pool_exhaustion.log");
    let input = postmortem::read::open_all(&[path])
        .expect("open")
        .pop()
        .expect("one input");
    let mut messages: Vec<(u64, String)> = Vec::new();
    let mut look = |o: postmortem::event::Origin, f: &postmortem::formats::Fields<'_>| {
        messages.push((o.line, f.get(Role::Message).unwrap_or("").to_string()));
    };
    let stats = postmortem::parse::parse_input_inspect(
        input,
        0,
        &cat,
        &postmortem::parse::ParseOptions::default(),
        &mut Discard,
        Some(&mut look),
    )
    .expect("parse");
    assert_eq!(stats.skipped, 0, "{stats:?}");
    // Entries are lines; a stack frame belongs to the entry above it.
    let entries: Vec<&(u64, String)> = messages
        .iter()
        .filter(|(_, m)| !m.trim().is_empty())
        .collect();
    assert!(entries.len() >= 10, "{messages:?}");
    for (line, message) in entries {
        // A pool's routine stats line with no thread waiting (L5) says the
        // pool is fine: it is in the file as the family's state line, and
        // signals nothing; every other entry is exhaustion.
        let routine = message.contains("Pool stats (") && message.contains("waiting=0)");
        assert_eq!(
            cat.rules.signal_of(message),
            (!routine).then_some(Signal::PoolExhausted),
            "line {line}: {message}"
        );
    }
}
