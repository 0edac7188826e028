//! Every file of the external corpus (`../shared/corpus/external/`, listed
//! in its MANIFEST.json: real files from other projects' test suites) is
//! read the way a person reads it. One expectation file per corpus file,
//! `tests/external/<file>.json`, and one for every file the manifest lists:
//!
//! ```text
//! {"format": NAME | null, "inner_format": NAME?, "min_parsed_share": 0.9,
//!  "skipped_by_reason": {REASON: N}?, "unplaced_by_reason": {REASON: N}?,
//!  "read_by": {FORMAT: N}?,
//!  "fields": [{"line": N, "record": I?, "field": ROLE, "value": TEXT}],
//!  "inner_fields": [{"line": N, "format": NAME, "field": ROLE, "value": TEXT}]?}
//! ```
//!
//! - `format` is what detection picks; `null`: the file is refused (no
//!   format reads it). A file the manifest puts `out_of_scope` is refused
//!   or read by the generic reader, never taken for a specific format.
//! - The parsed share counts the lines that hold something: blank lines
//!   are skipped as such and are no line of any format. An in-scope file
//!   needs 0.9 unless the manifest expects nothing parsed (`expect_parsed:
//!   0`, a Splunk export of statistics rows), which `skipped_by_reason`
//!   then accounts for.
//! - `fields` are raw values of `formats check --fields` (the `record`-th
//!   record of that line, 0 by default: a JSON document's records share
//!   the line it starts on). For an envelope they are the envelope's own
//!   fields; `inner_fields` read the inner line of that line's record (its
//!   `message`) with the inner format, as the envelope's reader does.
//!
//! Skipped, and said so, where the corpus is not present.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use super::fixture::{corpus, postmortem, root, run};

/// The least share of a file's lines an in-scope file must have parsed.
const MIN_SHARE: f64 = 0.9;

/// The generic reader: the one format an out-of-scope file may be read by.
const GENERIC: &str = "generic_log";

#[test]
fn every_external_corpus_file_is_recognised_parsed_and_gives_its_fields() {
    let Some(dir) = corpus().map(|c| c.join("external")) else {
        eprintln!("SKIPPED: ../shared/corpus is not present in this checkout");
        return;
    };
    if !dir.is_dir() {
        eprintln!("SKIPPED: ../shared/corpus/external is not present in this checkout");
        return;
    }
    let manifest: Value = serde_json::from_str(
        &fs::read_to_string(dir.join("MANIFEST.json")).expect("MANIFEST.json"),
    )
    .expect("manifest JSON");
    let entries = manifest.as_array().expect("manifest is an array");
    assert!(entries.len() >= 80, "manifest lists {}", entries.len());
    let exp_dir = root().join("tests/external");
    let missing: Vec<&str> = entries
        .iter()
        .filter_map(|e| e["file"].as_str())
        .filter(|f| !exp_dir.join(format!("{f}.json")).is_file())
        .collect();
    assert!(missing.is_empty(), "no expectation file for: {missing:?}");
    let mut failures = Vec::new();
    for entry in entries {
        let file = entry["file"].as_str().expect("file");
        let exp: Value = serde_json::from_str(
            &fs::read_to_string(exp_dir.join(format!("{file}.json"))).expect("read"),
        )
        .expect("expectation JSON");
        if let Err(why) = check_file(&dir.join(file), entry, &exp) {
            failures.push(format!("{file}: {why}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// One corpus file against its manifest entry and expectation file.
fn check_file(path: &Path, entry: &Value, exp: &Value) -> Result<(), String> {
    let path = path.display().to_string();
    let (code, out, err) = run(&["formats", "check", "--json", &path]);
    let v: Value = serde_json::from_str(out.trim())
        .map_err(|e| format!("not one JSON object ({e}): {out} {err}"))?;
    let out_of_scope = entry["category"] == "out_of_scope";
    if out_of_scope && !(v["format"].is_null() || v["format"] == GENERIC) {
        return Err(format!("out of scope, taken for {}", v["format"]));
    }
    if v["format"] != exp["format"] {
        return Err(format!(
            "format {} (expected {}): {v}",
            v["format"], exp["format"]
        ));
    }
    if exp["format"].is_null() {
        // Refused: said so in the JSON and on stderr, with a failing exit code.
        if code == 0 || !err.contains("unknown_format") {
            return Err(format!(
                "refused without the diagnostic: exit {code}, {err}"
            ));
        }
        return Ok(());
    }
    if code != 0 {
        return Err(format!("exit {code}: {err}"));
    }
    for key in [
        "inner_format",
        "skipped_by_reason",
        "unplaced_by_reason",
        "read_by",
    ] {
        if let Some(want) = exp.get(key) {
            if &v[key] != want {
                return Err(format!("{key} {} (expected {want})", v[key]));
            }
        }
    }
    let share = parsed_share(&v);
    let nothing_expected = entry["expect_parsed"].as_u64() == Some(0);
    let min = exp["min_parsed_share"].as_f64().unwrap_or(MIN_SHARE);
    if !out_of_scope && !nothing_expected && min < MIN_SHARE {
        return Err(format!("min_parsed_share {min} is below {MIN_SHARE}"));
    }
    if nothing_expected && exp.get("skipped_by_reason").is_none() {
        return Err("nothing parsed is expected: say why in skipped_by_reason".into());
    }
    if share < min {
        return Err(format!("parsed share {share:.3} < {min}: {v}"));
    }
    let records = fields_by_line(&path);
    for f in exp["fields"].as_array().into_iter().flatten() {
        let line = f["line"].as_u64().expect("line");
        let i = f["record"].as_u64().unwrap_or(0) as usize;
        let role = f["field"].as_str().expect("field");
        let got = records
            .get(&line)
            .and_then(|rs| rs.get(i))
            .map(|r| &r["fields"][role]);
        if got != Some(&f["value"]) {
            return Err(format!(
                "line {line} record {i} {role}: {got:?}, expected {}",
                f["value"]
            ));
        }
    }
    for f in exp["inner_fields"].as_array().into_iter().flatten() {
        let line = f["line"].as_u64().expect("line");
        let format = f["format"].as_str().expect("format");
        let role = f["field"].as_str().expect("field");
        let inner = records
            .get(&line)
            .and_then(|rs| rs.first())
            .and_then(|r| r["fields"]["message"].as_str())
            .ok_or(format!("line {line}: no envelope record with a message"))?;
        let got = inner_fields(inner, format);
        if got.get(role) != Some(&f["value"]) {
            return Err(format!(
                "line {line} inner {format} {role}: {:?}, expected {}",
                got.get(role),
                f["value"]
            ));
        }
    }
    Ok(())
}

/// Parsed records over the lines that hold something (blank lines are
/// skipped as blank, and are no line of the format).
fn parsed_share(v: &Value) -> f64 {
    let lines = v["lines"].as_f64().unwrap_or(0.0);
    let blank = v["skipped_by_reason"]["blank line"].as_f64().unwrap_or(0.0);
    let parsed = v["parsed"].as_f64().unwrap_or(0.0);
    if lines - blank <= 0.0 {
        0.0
    } else {
        parsed / (lines - blank)
    }
}

/// `formats check --fields`: every record, by the line it starts on.
fn fields_by_line(path: &str) -> BTreeMap<u64, Vec<Value>> {
    let (_, out, _) = run(&["formats", "check", "--fields", path]);
    let mut by_line: BTreeMap<u64, Vec<Value>> = BTreeMap::new();
    for l in out.lines() {
        let r: Value = serde_json::from_str(l).expect("fields line");
        by_line
            .entry(r["line"].as_u64().unwrap_or(0))
            .or_default()
            .push(r);
    }
    by_line
}

/// The fields `format` reads from one inner line (given on stdin).
fn inner_fields(line: &str, format: &str) -> serde_json::Map<String, Value> {
    let out = postmortem()
        .args(["formats", "check", "--fields", "--format", format, "-"])
        .write_stdin(format!("{line}\n"))
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .next()
        .and_then(|l| serde_json::from_str::<Value>(l).ok())
        .and_then(|r| r["fields"].as_object().cloned())
        .unwrap_or_default()
}
