//! CSV exports: a generic `timestamp,metric,value,label=value...` file (what a script pulling
//! from an API writes) and Grafana's panel "Download CSV".
//!
//! Followed: the spec's generic CSV shape; for Grafana, corpus `exports/grafana_explore_download
//! .csv` (quoted header, CRLF, no final newline, time as epoch ms; with "Formatted data" the
//! time is the browser's local time without zone) and Grafana's default Prometheus series
//! names (`name{label="value", ...}`) or a legend such as `{{pod}}`. One CSV per panel, series
//! joined by time, empty cells where a series has no point.

use std::collections::BTreeMap;

use super::Resolved;
use crate::gen::emit::ctx::Ctx;
use crate::gen::emit::json::py_float;
use crate::gen::emit::plan::{lines, OutFile, SourcePlan};
use crate::gen::facts::Ms;
use crate::gen::rng::Rng;
use crate::gen::time::{self, OffsetStyle};

/// The value a panel or script shows: counters as their per-second rate.
fn shown(x: &Resolved) -> Vec<(Ms, f64)> {
    if x.spec.counter {
        x.s.points
            .iter()
            .zip(&x.points)
            .map(|(&(_, v), &(t, _))| (t, v * x.spec.scale))
            .collect()
    } else {
        x.points.clone()
    }
}

fn round4(v: f64) -> f64 {
    (v * 10_000.0).round() / 10_000.0
}

pub fn generic(ctx: &Ctx, r: &[Resolved], rng: &mut Rng, plan: &mut SourcePlan) -> Vec<OutFile> {
    let style = rng.range(0, 2);
    let header = rng.chance(0.6);
    plan.detail(
        "time_format",
        ["RFC 3339 UTC", "epoch seconds", "local time without zone"][style as usize],
    );
    if style == 2 {
        plan.zone = ctx.zoneless.name.into();
        plan.zoneless = true;
    }
    let mut rows: Vec<(Ms, String)> = vec![];
    for x in r {
        let labels: Vec<String> = x
            .labels
            .iter()
            .filter(|(k, _)| k != "uid")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        for (t, v) in shown(x) {
            let ts = match style {
                0 => time::rfc3339(t, 0, 0, OffsetStyle::ZOrColon),
                1 => (t / 1000).to_string(),
                _ => time::local_plain(t, ctx.zoneless.offset_ms(t), '-', ' ', '.', 0),
            };
            let mut row = format!("{ts},{},{}", x.spec.name, py_float(round4(v)));
            for l in &labels {
                row.push(',');
                row.push_str(l);
            }
            rows.push((t, row));
        }
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    let n = rows.len();
    let mut out: Vec<String> = vec![];
    if header {
        out.push("timestamp,metric,value".into());
    }
    out.extend(rows.into_iter().map(|r| r.1));
    vec![OutFile::new(
        "metrics.csv",
        "csv",
        "metrics",
        lines(&out),
        n,
    )]
}

fn csv_quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

pub fn grafana(ctx: &Ctx, r: &[Resolved], rng: &mut Rng, plan: &mut SourcePlan) -> Vec<OutFile> {
    let legend = rng.range(0, 2);
    let formatted = rng.chance(0.3);
    plan.detail(
        "legend",
        [
            "{{pod}} / {{host}}",
            "{{instance}}",
            "default (name{instance, pod, ...})",
        ][legend as usize],
    );
    plan.detail(
        "time",
        if formatted {
            "formatted local time without zone"
        } else {
            "epoch ms"
        },
    );
    if formatted {
        plan.zone = ctx.zoneless.name.into();
        plan.zoneless = true;
    }
    let mut panels: BTreeMap<&str, Vec<&Resolved>> = BTreeMap::new();
    for x in r {
        panels.entry(&x.spec.name).or_default().push(x);
    }
    let mut files = vec![];
    for (name, xs) in panels {
        let mut header = vec![csv_quote("Time")];
        let mut grid: BTreeMap<Ms, Vec<Option<f64>>> = BTreeMap::new();
        for (k, x) in xs.iter().enumerate() {
            let get = |key: &str| {
                x.labels
                    .iter()
                    .find(|(a, _)| a == key)
                    .map(|(_, v)| v.clone())
            };
            let title = match legend {
                0 => get("pod")
                    .or_else(|| get("host"))
                    .or_else(|| get("nodename"))
                    .unwrap_or_else(|| name.to_string()),
                1 => get("instance").unwrap_or_else(|| name.to_string()),
                _ => format!(
                    "{name}{{{}}}",
                    x.labels
                        .iter()
                        .map(|(a, b)| format!("{a}=\"{b}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            header.push(csv_quote(&title));
            for (t, v) in shown(x) {
                grid.entry(t).or_insert_with(|| vec![None; xs.len()])[k] = Some(v);
            }
        }
        let mut out = vec![header.join(",")];
        for (t, vals) in &grid {
            let ts = if formatted {
                time::local_plain(*t, ctx.zoneless.offset_ms(*t), '-', ' ', '.', 0)
            } else {
                t.to_string()
            };
            let cells: Vec<String> = vals
                .iter()
                .map(|v| {
                    v.map(|x| py_float(round4(x)).trim_end_matches(".0").to_string())
                        .unwrap_or_default()
                })
                .collect();
            out.push(format!("{ts},{}", cells.join(",")));
        }
        let n = grid.len();
        files.push(OutFile::new(
            format!("grafana/{name}.csv"),
            "grafana-csv",
            "metrics",
            out.join("\r\n"),
            n,
        ));
    }
    files
}
