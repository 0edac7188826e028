//! Bad input never panics: a diagnostic and an exit code.

use std::fs;

use super::fixture::{postmortem, run, scratch_file, ScratchFile};

fn tmp(name: &str, content: &[u8]) -> ScratchFile {
    scratch_file(name, content)
}

fn no_panic(err: &str) {
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains("RUST_BACKTRACE"), "{err}");
}

#[test]
fn a_missing_path_is_exit_1_with_a_diagnostic() {
    let (code, _, err) = run(&["analyze", "/no/such/export.log"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot open /no/such/export.log"), "{err}");
    no_panic(&err);
}

#[test]
fn an_unknown_format_is_exit_1_naming_the_file() {
    let p = tmp(
        "mystery.log",
        b"@@@ this is no log format anyone writes\n### nor this\n",
    );
    let (code, _, err) = run(&["analyze", p.to_str().unwrap_or("")]);
    assert_eq!(code, 1);
    assert!(err.contains("mystery.log"), "{err}");
    assert!(err.contains("no known format"), "{err}");
    no_panic(&err);
}

#[test]
fn an_empty_input_is_exit_1() {
    let p = tmp("empty.log", b"");
    let (code, _, err) = run(&["analyze", p.to_str().unwrap_or("")]);
    assert_eq!(code, 1);
    assert!(err.contains("empty"), "{err}");
    no_panic(&err);
    let assert = postmortem().args(["analyze", "-"]).write_stdin("").assert();
    assert.code(1);
}

#[test]
fn bad_lines_are_counted_and_strict_makes_them_exit_2() {
    let good = "203.0.113.7 - - [01/Oct/2026:13:26:55 +0530] \"GET /api/v1/accounts/a1/x HTTP/1.1\" 200 5 \"-\" \"curl/8.5.0\"\n";
    let mut text = good.repeat(5);
    text.push_str("this line is garbage\n");
    text.push_str(&good.repeat(2));
    let p = tmp("mixed.log", text.as_bytes());
    let (code, out, err) = run(&["analyze", "--json", p.to_str().unwrap_or("")]);
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(r["inputs"][0]["skipped"], 1);
    assert_eq!(r["inputs"][0]["lines"], 8);
    assert_eq!(
        r["inputs"][0]["skipped_by_reason"]["does not match the format"],
        1
    );
    let (code, _, err) = run(&["analyze", "--strict", p.to_str().unwrap_or("")]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(":6"), "names the line: {err}");
    no_panic(&err);
}

#[test]
fn bad_flags_are_exit_1_or_clap_usage() {
    let (code, _, err) = run(&["analyze", "--tz", "Mars/Olympus", "samples/bulk-export"]);
    assert_eq!(code, 1);
    assert!(err.contains("IANA"), "{err}");
    let (code, _, err) = run(&[
        "analyze",
        "--tenant-from",
        "path:/x/(\\d+)",
        "samples/bulk-export",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("tenant"), "{err}");
    no_panic(&err);
}

#[test]
fn years_between_lines_do_not_exhaust_memory() {
    let text = "192.0.2.1 - - [20/Jul/2009:22:59:29 +0000] \"GET /a HTTP/1.1\" 200 5 \"-\" \"curl/8\"\n\
                192.0.2.1 - - [01/Oct/2026:07:00:00 +0000] \"GET /b HTTP/1.1\" 200 5 \"-\" \"curl/8\"\n";
    let p = tmp("years.log", text.as_bytes());
    let (code, out, err) = run(&["analyze", "--json", p.to_str().unwrap_or("")]);
    assert_eq!(code, 0, "{err}");
    // The two lines are years apart: the later is analysed, the other is
    // named as lying outside the covered span.
    assert!(out.contains("lie hours away from the rest"), "{out}");
    assert!(out.contains("2009-07-20T22:59:00Z"), "{out}");
}

#[test]
fn a_directory_passes_over_files_that_are_not_logs_with_a_note() {
    let dir = super::fixture::scratch("dir");
    fs::write(dir.join("notes.txt"), "what we saw: it was slow\n").expect("write");
    fs::write(
        dir.join("access.log"),
        "192.0.2.1 - - [01/Oct/2026:07:00:00 +0000] \"GET /a HTTP/1.1\" 200 5 \"-\" \"curl/8\"\n",
    )
    .expect("write");
    let (code, out, err) = run(&["analyze", "--json", dir.to_str().unwrap_or("")]);
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).expect("json");
    let formats: Vec<&str> = r["inputs"]
        .as_array()
        .expect("inputs")
        .iter()
        .filter_map(|i| i["format"].as_str())
        .collect();
    assert_eq!(formats, vec!["nginx_combined", "not a log (passed over)"]);
    // Named on the command line, the same file is an error.
    let (code, _, _) = run(&["analyze", dir.join("notes.txt").to_str().unwrap_or("")]);
    assert_eq!(code, 1);
}

/// `formats check` and `--strict` point at the column where a line stops
/// matching its format: here the `O`s typed for zeros in the status.
#[test]
fn a_broken_line_is_shown_at_the_column_where_the_format_stops_matching() {
    let good = "203.0.113.7 - - [01/Oct/2026:13:26:55 +0530] \"GET /api/v1/accounts/a1/x HTTP/1.1\" 200 5 \"-\" \"curl/8.5.0\"\n";
    let bad = "203.0.113.7 - - [01/Oct/2026:13:26:55 +0530] \"GET /api/v1/accounts/a1/x HTTP/1.1\" 2OO 5 \"-\" \"curl/8.5.0\"\n";
    // The first `O`: the `2` before it could still begin a status.
    let column = bad.find("2OO").unwrap_or(0) + 2;
    assert_eq!(column, 84);
    let mut text = good.repeat(5);
    text.push_str(bad);
    text.push_str(&good.repeat(2));
    let p = tmp("broken-column.log", text.as_bytes());
    let path = p.to_str().unwrap_or("");

    let (code, out, err) = run(&["formats", "check", path]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("broken-column.log:6:84"), "{out}");
    assert!(
        out.contains("`nginx_combined` expects a digit here"),
        "{out}"
    );
    // The caret sits under the column: the label line has it at the same offset as the `O`.
    let source = out.lines().find(|l| l.contains("2OO")).unwrap_or("");
    let caret = out
        .lines()
        .find(|l| l.trim_start().starts_with('·') && l.contains('┬'))
        .unwrap_or("");
    assert_eq!(
        caret.find('┬').map(|c| caret[..c].chars().count()),
        source.find("2OO").map(|s| source[..s].chars().count() + 1),
        "{out}"
    );

    let (code, out, err) = run(&["formats", "check", "--json", path]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("json");
    assert_eq!(v["skipped"], 1);
    assert_eq!(v["first_failures"][0]["line"], 6);
    assert_eq!(v["first_failures"][0]["column"], 84);
    assert_eq!(
        v["first_failures"][0]["reason"],
        "does not match the format"
    );

    let (code, _, err) = run(&["analyze", "--strict", path]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("broken-column.log:6:84"), "{err}");
    assert!(err.contains("expects a digit here"), "{err}");
    no_panic(&err);
}
