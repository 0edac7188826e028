//! The charts of every bundled sample's report, read back from the Markdown
//! the way a reader would get them: at most 20 distinct labels on one shared
//! axis, a title naming the real bucket size, y from 0 to a maximum above
//! every value, an explicit palette per block, no failed count above its
//! bucket's requests, no bucket reaching past the access log. And
//! `--assets`: SVG files written, linked, the same bytes every run.

use chrono::{DateTime, NaiveTime, Timelike};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;

use super::fixture::{root, run};

/// One Mermaid block, parsed.
#[derive(Debug)]
struct Block {
    palette: Vec<String>,
    title: String,
    labels: Vec<String>,
    y_max: f64,
    series: Vec<Vec<f64>>,
}

fn quoted(s: &str) -> Vec<String> {
    s.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

fn numbers(s: &str) -> Vec<f64> {
    let inner = s
        .split_once('[')
        .and_then(|(_, r)| r.rsplit_once(']'))
        .map_or("", |(l, _)| l);
    inner
        .split(',')
        .filter_map(|v| v.trim().parse().ok())
        .collect()
}

fn blocks(markdown: &str) -> Vec<Block> {
    markdown
        .split("```mermaid\n")
        .skip(1)
        .map(|rest| {
            let body = rest.split("```").next().unwrap_or("");
            let mut b = Block {
                palette: Vec::new(),
                title: String::new(),
                labels: Vec::new(),
                y_max: f64::NAN,
                series: Vec::new(),
            };
            for line in body.lines().map(str::trim) {
                if let Some(p) = line.split("\"plotColorPalette\": \"").nth(1) {
                    let list = p.split('"').next().unwrap_or("");
                    b.palette = list.split(", ").map(str::to_string).collect();
                } else if line.starts_with("title ") {
                    b.title = quoted(line).join("");
                } else if line.starts_with("x-axis ") {
                    b.labels = quoted(line).into_iter().skip(1).collect();
                } else if let Some(y) = line.strip_prefix("y-axis ") {
                    let range = y.rsplit_once('"').map_or("", |(_, r)| r).trim();
                    let (low, high) = range.split_once("-->").unwrap_or(("", ""));
                    assert_eq!(low.trim(), "0", "y-axis from 0: {line}");
                    b.y_max = high.trim().parse().unwrap_or(f64::NAN);
                } else if line.starts_with("bar [") || line.starts_with("line [") {
                    b.series.push(numbers(line));
                }
            }
            b
        })
        .collect()
}

/// The series names a title gives, in drawing order.
fn names(title: &str) -> Vec<String> {
    match title.split_once(": ") {
        Some((_, list)) => list
            .split(", ")
            .map(|p| p.rsplit_once(" (").map_or(p, |(n, _)| n).to_string())
            .collect(),
        None if title.starts_with("Failed requests") => vec!["failed".to_string()],
        None if title.starts_with("Requests per") => vec!["all".to_string()],
        None => vec![title.to_string()],
    }
}

fn clock(label: &str) -> Option<NaiveTime> {
    NaiveTime::parse_from_str(label, "%H:%M:%S")
        .or_else(|_| NaiveTime::parse_from_str(label, "%H:%M"))
        .ok()
}

/// `1 min` for 60 s, as titles write it.
fn bucket_words(secs: i64) -> String {
    match secs {
        s if s % 3600 == 0 => format!("{} h", s / 3600),
        s if s % 60 == 0 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

fn samples() -> Vec<String> {
    let mut out: Vec<String> = fs::read_dir(root().join("samples"))
        .expect("samples/")
        .flatten()
        .filter(|e| e.path().join("truth.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

fn secs(v: &Value) -> Option<i64> {
    DateTime::parse_from_rfc3339(v.as_str()?)
        .ok()
        .map(|d| d.timestamp())
}

#[test]
fn every_chart_of_every_sample_is_readable() {
    for name in samples() {
        let dir = format!("samples/{name}");
        let (code, md, err) = run(&["analyze", &dir]);
        assert_eq!(code, 0, "{name}: {err}");
        let (_, json, _) = run(&["analyze", "--json", &dir]);
        let report: Value = serde_json::from_str(&json).expect("JSON report");
        let charts = blocks(&md);
        assert!(!charts.is_empty(), "{name}: no chart");
        let axis = &charts[0].labels;
        let mut by_series: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
        for c in &charts {
            let at = format!("{name}: {}", c.title);
            assert!(
                (1..=20).contains(&c.labels.len()),
                "{at}: {} labels",
                c.labels.len()
            );
            let mut distinct = c.labels.clone();
            distinct.dedup();
            assert_eq!(distinct.len(), c.labels.len(), "{at}: repeated labels");
            assert!(
                c.labels.iter().all(|l| axis.contains(l)),
                "{at}: not on the report's one time axis"
            );
            assert!(c.labels.iter().all(|l| l.len() <= 8), "{at}: long labels");
            assert_eq!(
                c.palette.len(),
                c.series.len(),
                "{at}: palette {:?}",
                c.palette
            );
            assert!(
                c.palette.iter().all(|p| p.len() == 7 && p.starts_with('#')),
                "{at}: {:?}",
                c.palette
            );
            let names = names(&c.title);
            assert_eq!(
                names.len(),
                c.series.len(),
                "{at}: the title names every series"
            );
            for (n, values) in names.iter().zip(&c.series) {
                assert_eq!(values.len(), c.labels.len(), "{at}: {n}");
                assert!(
                    values.iter().all(|v| *v >= 0.0 && *v <= c.y_max),
                    "{at}: {n} beyond 0..{}",
                    c.y_max
                );
                let m = by_series.entry(n.clone()).or_default();
                for (l, v) in c.labels.iter().zip(values) {
                    m.insert(l.clone(), *v);
                }
            }
        }
        // The title's bucket is the labels' step.
        let times: Vec<NaiveTime> = axis.iter().filter_map(|l| clock(l)).collect();
        if let [a, b, ..] = times.as_slice() {
            let step = bucket_words((*b - *a).num_seconds());
            for c in &charts {
                assert!(
                    c.title.contains(&format!(" per {step}")),
                    "{name}: `{}` over {step} buckets",
                    c.title
                );
            }
        }
        // Failed never above all requests in the same bucket.
        if let (Some(all), Some(failed)) = (by_series.get("all"), by_series.get("failed")) {
            for (label, f) in failed {
                let a = all.get(label).copied().unwrap_or(f64::NAN);
                assert!(*f <= a, "{name} {label}: {f} failed of {a} requests");
            }
        }
        // No bucket reaches outside the access log.
        let access = report["inputs"].as_array().and_then(|i| {
            i.iter()
                .find(|i| i["path"].as_str().is_some_and(|p| p.contains("access")))
        });
        if let (Some(access), Some(first), Some(last)) = (access, times.first(), times.last()) {
            // Labels are clock times: compared within the day the samples lie in.
            let (from, to) = (secs(&access["first_ts"]), secs(&access["last_ts"]));
            let same_day = from.zip(to).is_some_and(|(f, t)| f / 86_400 == t / 86_400);
            assert!(same_day, "{name}: the access log spans midnight");
            let day = |s: i64| s.rem_euclid(86_400);
            let (from, to) = (from.map(day), to.map(day));
            let step = times.get(1).map_or(0, |b| (*b - *first).num_seconds());
            let first_s = i64::from(first.num_seconds_from_midnight());
            let end_s = i64::from(last.num_seconds_from_midnight()) + step;
            assert!(
                from.is_some_and(|f| first_s >= f),
                "{name}: first bucket {first} before the data"
            );
            assert!(
                to.is_some_and(|t| end_s <= t + 1),
                "{name}: last bucket ends after the data"
            );
        }
    }
}

#[test]
fn assets_are_written_as_svg_and_linked_instead_of_mermaid() {
    let tmp = super::fixture::scratch("assets");
    let report = tmp.join("report.md");
    let assets = tmp.join("charts");
    let args = [
        "analyze",
        "--assets",
        assets.to_str().unwrap_or(""),
        "-o",
        report.to_str().unwrap_or(""),
        "samples/bulk-export",
    ];
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let md = fs::read_to_string(&report).expect("report written");
    assert!(!md.contains("```mermaid"), "images instead of Mermaid");
    let links: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("!["))
        .filter_map(|l| l.rsplit_once("](").map(|(_, r)| r.trim_end_matches(')')))
        .collect();
    assert!(links.len() >= 3, "{md}");
    let mut first = Vec::new();
    for link in &links {
        assert!(
            link.starts_with("charts/chart-"),
            "relative to the report: {link}"
        );
        let svg = fs::read_to_string(tmp.join(link)).expect("linked file exists");
        assert!(
            svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            "{link}"
        );
        assert!(svg.contains("<title"), "{link}");
        first.push(svg);
    }
    // A second run writes the same bytes.
    let (code, _, _) = run(&args);
    assert_eq!(code, 0);
    for (link, before) in links.iter().zip(&first) {
        assert_eq!(
            &fs::read_to_string(tmp.join(link)).unwrap_or_default(),
            before,
            "{link}"
        );
    }
    let _ = fs::remove_dir_all(&tmp);
}

#[test]
fn assets_are_refused_where_the_folder_cannot_be_made() {
    let (code, _, err) = run(&[
        "analyze",
        "--assets",
        "samples/bulk-export/truth.json/charts",
        "samples/bulk-export",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot write"), "{err}");
}

/// A quiet 20 minutes with the pool metric silent for 4 of them.
fn gap_fixture(dir: &std::path::Path) {
    // 2026-10-01T09:00:00Z
    let t0 = 1_790_845_200i64;
    let mut log = String::new();
    for i in 0..600 {
        let t = DateTime::from_timestamp(t0 + i * 2, 0).unwrap_or_default();
        log.push_str(&format!(
            "192.0.2.{} - - [{}] \"GET /api/v1/accounts/acct-{}/runs HTTP/1.1\" 200 512 \"-\" \"curl/8.5.0\" 0.020 0.020 10.42.1.11:8080\n",
            1 + i % 200,
            t.format("%d/%b/%Y:%H:%M:%S +0000"),
            1000 + i % 7
        ));
    }
    let values: Vec<String> = (0..80)
        .map(|k| t0 + k * 15)
        .filter(|t| !(t0 + 480..t0 + 720).contains(t))
        .map(|t| format!("[{t}, \"{}\"]", 5 + (t / 15) % 3))
        .collect();
    let pool = format!(
        "{{\"status\": \"success\", \"data\": {{\"resultType\": \"matrix\", \"result\": [{{\"metric\": {{\"__name__\": \"hikaricp_connections_active\", \"instance\": \"10.42.1.11:8080\", \"pool\": \"HikariPool-1\"}}, \"values\": [{}]}}]}}}}\n",
        values.join(", ")
    );
    fs::write(dir.join("access.log"), log).expect("fixture");
    fs::write(dir.join("pool.json"), pool).expect("fixture");
}

#[test]
fn a_silent_metric_is_a_gap_not_zero() {
    let tmp = super::fixture::scratch("gap");
    gap_fixture(&tmp);
    let run_here = |args: &[&str]| {
        let out = super::fixture::postmortem()
            .current_dir(&tmp)
            .args(args)
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let md = run_here(&["analyze", "access.log", "pool.json"]);
    let pool = blocks(&md)
        .into_iter()
        .find(|b| b.title.contains("connections"))
        .expect("a pool chart");
    // 19 whole minutes (the last request is at 09:19:58, so 09:19 is partial
    // and dropped); 09:08 to 09:12 have no reading and are left out.
    assert_eq!(pool.labels.len(), 15, "{:?}", pool.labels);
    assert_eq!(pool.labels.last().map(String::as_str), Some("09:18"));
    assert!(!pool
        .labels
        .iter()
        .any(|l| ("09:08".."09:12").contains(&l.as_str())));
    assert!(
        pool.series[0].iter().all(|v| *v >= 5.0),
        "no zero for silence"
    );
    assert!(
        md.contains("No reading for 09:08–09:12 (UTC): left out of the chart above"),
        "{md}"
    );
    insta::assert_snapshot!("metric_gap_report", md);

    run_here(&[
        "analyze",
        "--assets",
        "charts",
        "-o",
        "report.md",
        "access.log",
        "pool.json",
    ]);
    let svg = fs::read_to_string(tmp.join("charts/chart-2-pool-in-use.svg")).expect("svg");
    assert_eq!(
        svg.matches("<path class=\"line\"").count(),
        2,
        "the line breaks: {svg}"
    );
    let md = fs::read_to_string(tmp.join("report.md")).expect("report");
    assert!(
        md.contains("No reading for 09:08–09:12 (UTC): the line breaks there."),
        "{md}"
    );
    let _ = fs::remove_dir_all(&tmp);
}
