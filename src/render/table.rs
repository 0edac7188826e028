//! Terminal tables (comfy-table) for `postmortem timeline` and
//! `postmortem tenants`.

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};

use super::time::{hms, local_hms};
use crate::report::Report;

fn table(header: Vec<String>) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(140)
        .set_header(header);
    t
}

pub fn timeline(report: &Report) -> String {
    let tz = &report.extra.tz;
    let mut header = vec!["time (UTC)".to_string()];
    if !tz.is_utc() {
        header.push(format!("time ({tz})"));
    }
    header.extend([
        "kind".to_string(),
        "what happened".to_string(),
        "source".to_string(),
    ]);
    let mut t = table(header);
    for e in &report.timeline {
        let mut row = vec![format!("{} {}", super::time::date(&e.ts), hms(&e.ts))];
        if !tz.is_utc() {
            row.push(local_hms(&e.ts, tz));
        }
        row.push(
            serde_json::to_value(e.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
        );
        row.push(e.text.clone());
        row.push(e.sources.join("\n"));
        t.add_row(row);
    }
    let mut s = if report.timeline.is_empty() {
        "No incident found: nothing to put on a timeline.\n".to_string()
    } else {
        format!("{t}\n")
    };
    if let (Some(o), Some(r)) = (&report.incident.onset, &report.incident.recovered) {
        s.push_str(&format!("onset {o}, recovered {r}\n"));
    }
    s
}

pub fn tenants(report: &Report) -> String {
    let a = &report.attribution;
    let mut t = table(
        [
            a.dimension.as_str(),
            "integration",
            "requests",
            "baseline req/s",
            "window req/s",
            "ratio",
            "% requests",
            "% busy time",
            "% errors",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    );
    for r in &a.rows {
        t.add_row(vec![
            r.tenant
                .clone()
                .or_else(|| r.integration.clone())
                .unwrap_or_default(),
            if r.tenant.is_some() {
                r.integration.clone().unwrap_or_default()
            } else {
                String::new()
            },
            r.requests.to_string(),
            format!("{}", r.baseline_rate_per_s),
            format!("{}", r.window_rate_per_s),
            format!("{}", r.rate_ratio),
            format!("{:.1}", r.share_of_requests * 100.0),
            format!("{:.1}", r.share_of_busy_time * 100.0),
            format!("{:.1}", r.share_of_errors * 100.0),
        ]);
    }
    let window = match (&report.incident.onset, &report.incident.recovered) {
        (Some(o), Some(r)) => format!("incident window {o} .. {r}"),
        _ => "whole span (no incident found)".to_string(),
    };
    let verdict = if a.organic && a.grew {
        "growth is organic: spread across many, no single one explains it"
    } else if a.organic {
        "no single one changed its behaviour enough to explain it"
    } else {
        "ranked by blame: share of extra load, busy time and requests"
    };
    if a.rows.is_empty() {
        return format!("No requests with a {} in the window.\n", a.dimension);
    }
    format!("{t}\n{window}; {verdict}\n")
}

/// `postmortem formats`: name, kind, description.
pub fn formats(cat: &crate::formats::Catalogue) -> String {
    let mut t = table(vec![
        "name".into(),
        "kind".into(),
        "produces".into(),
        "description".into(),
    ]);
    for f in &cat.formats {
        t.add_row(vec![
            f.name().to_string(),
            f.def.kind.name().to_string(),
            format!("{:?}", f.def.produces).to_lowercase(),
            f.def.description.clone(),
        ]);
    }
    format!("{t}\n")
}

/// `postmortem formats check`: one row per input.
pub fn check(stats: &[crate::parse::InputStats]) -> String {
    let mut t = table(
        [
            "input",
            "format",
            "score",
            "lines",
            "parsed",
            "skipped",
            "why skipped",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    );
    for s in stats {
        let why: Vec<String> = s
            .skipped_by_reason
            .iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect();
        if let Some(reason) = &s.refused {
            t.add_row(vec![
                s.path.clone(),
                "(none)".to_string(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                reason.clone(),
            ]);
            continue;
        }
        t.add_row(vec![
            s.path.clone(),
            s.format.clone(),
            format!("{:.2}", s.score),
            s.lines.to_string(),
            s.parsed.to_string(),
            s.skipped.to_string(),
            why.join(", "),
        ]);
    }
    let mut out = format!("{t}\n");
    for w in crate::input_warnings(stats) {
        out.push_str(&format!("warning: {w}\n"));
    }
    for s in stats {
        for (format, n) in &s.read_by {
            out.push_str(&format!(
                "{}: {n} record(s) `{}` leaves read as {format}\n",
                s.path, s.format
            ));
        }
        for (reason, n) in &s.unplaced_by_reason {
            out.push_str(&format!(
                "{}: {n} parsed but not on the timeline: {reason}\n",
                s.path
            ));
        }
    }
    // The first failing lines of each input, each a diagnostic pointing at
    // the column where the format stops matching.
    let handler =
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_width(120);
    for s in stats {
        for b in s.bad_lines.iter().filter(|b| b.reason != "blank line") {
            let mut text = String::new();
            if handler
                .render_report(&mut text, &b.diagnostic(&s.path))
                .is_err()
            {
                text = format!("{}:{}:{}: {}\n", s.path, b.line, b.column(), b.reason);
            }
            out.push('\n');
            out.push_str(&text);
        }
    }
    out
}

/// `postmortem formats check --json`: one object per input, one per line.
pub fn check_json(stats: &[crate::parse::InputStats]) -> String {
    let mut out = String::new();
    for s in stats {
        let v = serde_json::json!({
            "path": s.path,
            // An input no format reads is answered too, its format null.
            "format": if s.refused.is_some() { serde_json::Value::Null } else { s.format.clone().into() },
            "score": s.score,
            "lines": s.lines,
            "parsed": s.parsed,
            "skipped": s.skipped,
            "skipped_by_reason": s.skipped_by_reason,
            "unplaced_by_reason": s.unplaced_by_reason,
        });
        let mut v = v;
        let mut added = serde_json::Map::new();
        // Added to the contract: the first failing lines, with the column
        // where the format stops matching and what it expected there.
        let failures: Vec<serde_json::Value> = s
            .bad_lines
            .iter()
            .filter(|b| b.reason != "blank line")
            .map(|b| {
                serde_json::json!({
                    "line": b.line,
                    "column": b.column(),
                    "reason": b.reason,
                    "expected": b.expected(),
                })
            })
            .collect();
        if !failures.is_empty() {
            added.insert("first_failures".into(), serde_json::Value::Array(failures));
        }
        // Added: records read by other formats than `format` (a mixed file's
        // fallbacks, the generic reader, the lines a wrapping format carries).
        if !s.read_by.is_empty() {
            added.insert("read_by".into(), serde_json::json!(s.read_by));
        }
        if let Some(why) = &s.refused {
            added.insert("refused".into(), serde_json::Value::String(why.clone()));
        }
        if let Some(inner) = &s.inner_format {
            added.insert(
                "inner_format".into(),
                serde_json::Value::String(inner.clone()),
            );
        }
        if let Some(cut) = &s.cut {
            added.insert(
                "cut".into(),
                serde_json::json!({
                    "file_byte": cut.file_byte,
                    "text_byte": cut.text_byte,
                    "line": cut.line,
                    "reason": cut.reason,
                }),
            );
        }
        if let Some(why) = &s.unreadable {
            added.insert("unreadable".into(), serde_json::Value::String(why.clone()));
        }
        // `v` is the object written above.
        if let Some(fields) = v.as_object_mut() {
            fields.extend(added);
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    out
}

/// One record's fields as a JSON line, for `formats check --fields`.
pub fn fields_json(path: &str, line: u64, f: &crate::formats::Fields<'_>) -> String {
    let fields: serde_json::Map<String, serde_json::Value> = f
        .iter()
        .map(|(r, v)| {
            (
                r.name().to_string(),
                serde_json::Value::String(v.to_string()),
            )
        })
        .collect();
    let labels: serde_json::Map<String, serde_json::Value> = f
        .labels()
        .map(|(k, v)| (k.to_string(), serde_json::Value::String(v.to_string())))
        .collect();
    let mut s = serde_json::json!({"path": path, "line": line, "fields": fields, "labels": labels})
        .to_string();
    s.push('\n');
    s
}
