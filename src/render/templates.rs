//! Log message templates for people: the report's "What the logs said"
//! section (the new and surging templates of the incident window) and the
//! `postmortem templates` table (every template).
//!
//! In: the [`Report`]'s `templates` array. Out: Markdown or a terminal table.
//!
//! ```text
//! templates[0] { template: "HikariPool-<num> - Connection is not available ...", window: { status: new, rank: 1 } }
//! -> "| 1 | `HikariPool-<num> - Connection is not available ...` | new | 1626 | 07:58:06 | 13:28:06 | 3 |"
//! ```

use std::fmt::Write;

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};

use super::time::{hms, local_hms, zone_label};
use crate::event::Level;
use crate::report::Report;
use crate::templates::json::TemplateJson;
use crate::templates::surge::Status;

/// Ranked templates shown in the report.
const SHOWN: usize = 8;
/// Templates shown when there is no incident to compare with.
const SHOWN_QUIET: usize = 5;
/// Characters of a template in the report's table.
const TEMPLATE_CHARS: usize = 100;

use crate::redact::clip;

/// Inline code that survives a Markdown table.
fn code(s: &str) -> String {
    format!(
        "`{}`",
        s.replace('`', "'").replace('|', "\\|").replace('\n', " ")
    )
}

fn change(t: &TemplateJson) -> String {
    match &t.window {
        Some(w) if w.status == Status::New => "new".to_string(),
        Some(w) if w.status == Status::Surging => match w.rate_ratio {
            Some(r) => format!(
                "×{r} from {} ({} in the baseline)",
                hms(&w.onset),
                w.baseline_count
            ),
            None => format!("from {}, none in the baseline", hms(&w.onset)),
        },
        _ => String::new(),
    }
}

fn level(l: Level) -> String {
    format!("{l:?}").to_lowercase()
}

/// A time as `hh:mm:ss` on the day of `day`, with its date on another day.
fn at(rfc: &str, day: &str, f: impl Fn(&str) -> String) -> String {
    if super::time::date(rfc) == super::time::date(day) {
        f(rfc)
    } else {
        format!("{} {}", super::time::date(rfc), f(rfc))
    }
}

fn instances(t: &TemplateJson) -> String {
    format!(
        "{}{}",
        t.instances.len(),
        if t.instances_more { "+" } else { "" }
    )
}

/// The Markdown section, a part of the appendix's evidence.
/// `root`: the inputs' folder, left out of each source (the header says it).
pub fn section(out: &mut String, r: &Report, root: &str) {
    let _ = writeln!(out, "### What the logs said\n");
    let tz = &r.extra.tz;
    if r.templates.is_empty() {
        let _ = writeln!(
            out,
            "No application or database log records among the inputs.\n"
        );
        return;
    }
    let records: u64 = r.templates.iter().map(|t| t.count).sum();
    let ranked: Vec<&TemplateJson> = r
        .templates
        .iter()
        .filter(|t| t.window.as_ref().is_some_and(|w| w.rank.is_some()))
        .collect();
    let Some((ws, we)) = &r.extra.templates.window else {
        quiet(out, r, records);
        return;
    };
    let new = ranked
        .iter()
        .filter(|t| t.window.as_ref().is_some_and(|w| w.status == Status::New))
        .count();
    let _ = write!(
        out,
        "{records} log records fall into {} templates (messages with ids, numbers and names masked). In the incident window ({}–{} UTC), {new} template(s) were new and {} rose above their baseline rate",
        r.templates.len(),
        hms(ws),
        hms(we),
        ranked.len() - new
    );
    if ranked.is_empty() {
        let _ = writeln!(out, ".\n");
        return;
    }
    let _ = writeln!(
        out,
        "; those whose onset is closest to the incident's come first.\n"
    );
    match r.extra.templates.short_history {
        // Logs that begin inside the window (a pod's log from its last
        // restart) have no before: "0 s before the window" read as if they did.
        Some(0) => {
            let first = r.templates.iter().map(|t| t.first_seen.as_str()).min();
            let _ = writeln!(
                out,
                "The logs begin inside the window{}, so every template is new there: \"new\" says nothing of the incident.\n",
                first.map_or_else(String::new, |f| format!(" ({} UTC)", at(f, ws, hms)))
            );
        }
        Some(secs) => {
            let _ = writeln!(
                out,
                "The logs begin only {secs} s before the window, so \"new\" means not seen in that time.\n"
            );
        }
        None => {}
    }
    let local = (!tz.is_utc()).then(|| zone_label(ws, tz));
    let shown: Vec<&&TemplateJson> = ranked.iter().take(SHOWN).collect();
    // Where no line named its instance, a column of zeros says nothing.
    let named = shown.iter().any(|t| !t.instances.is_empty());
    let _ = writeln!(
        out,
        "| # | Template | Change | Lines in window | First seen (UTC) |{}{}\n|---:|---|---|---:|---|{}{}",
        local.as_ref().map_or_else(String::new, |l| format!(" First seen ({l}) |")),
        if named { " Instances |" } else { "" },
        if local.is_some() { "---|" } else { "" },
        if named { "---:|" } else { "" }
    );
    for (i, t) in shown.iter().enumerate() {
        let first = &t.first_seen;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |{}{}",
            i + 1,
            code(&clip(&t.template, TEMPLATE_CHARS)),
            change(t),
            t.window.as_ref().map_or(0, |w| w.count),
            at(first, ws, hms),
            if local.is_some() {
                format!(" {} |", at(first, ws, |x| local_hms(x, tz)))
            } else {
                String::new()
            },
            if named {
                format!(" {} |", instances(t))
            } else {
                String::new()
            }
        );
    }
    if ranked.len() > SHOWN {
        let _ = writeln!(
            out,
            "\n{} more in `postmortem templates` (or the JSON report's `templates`).",
            ranked.len() - SHOWN
        );
    }
    let _ = writeln!(out, "\nOne line of each (redacted):\n");
    for (i, t) in shown.iter().enumerate() {
        if let Some(e) = t.examples.first() {
            let _ = writeln!(
                out,
                "{}. {} (`{}`)",
                i + 1,
                code(&clip(&e.text, 200)),
                super::markdown::below(root, &e.source)
            );
        }
    }
    out.push('\n');
}

/// No incident: the most frequent warnings and errors, for the record.
fn quiet(out: &mut String, r: &Report, records: u64) {
    let loud: Vec<&TemplateJson> = r
        .templates
        .iter()
        .filter(|t| t.level >= Level::Warn)
        .take(SHOWN_QUIET)
        .collect();
    let _ = writeln!(
        out,
        "{records} log records fall into {} templates. No incident window to compare them with{}\n",
        r.templates.len(),
        if loud.is_empty() {
            "; none is a warning or an error.".to_string()
        } else {
            "; the most frequent warnings and errors:".to_string()
        }
    );
    if loud.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "| Template | Level | Lines | First seen (UTC) | Instances |\n|---|---|---:|---|---:|"
    );
    for t in loud {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} {} | {} |",
            code(&clip(&t.template, TEMPLATE_CHARS)),
            level(t.level),
            t.count,
            super::time::date(&t.first_seen),
            hms(&t.first_seen),
            instances(t)
        );
    }
    out.push('\n');
}

/// `postmortem templates`: every template, the ranked ones first.
pub fn table(r: &Report) -> String {
    if r.templates.is_empty() {
        return "No application or database log records among the inputs.\n".to_string();
    }
    let tz = &r.extra.tz;
    let mut header: Vec<String> = [
        "#",
        "change",
        "lines",
        "in window",
        "level",
        "first seen (UTC)",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if !tz.is_utc() {
        header.push(format!("first seen ({tz})"));
    }
    header.extend(["inst.".to_string(), "template".to_string()]);
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(160)
        .set_header(header);
    for tp in &r.templates {
        let w = tp.window.as_ref();
        let first = &tp.first_seen;
        let mut row = vec![
            w.and_then(|w| w.rank)
                .map_or_else(String::new, |n| n.to_string()),
            change(tp),
            tp.count.to_string(),
            w.map_or_else(String::new, |w| w.count.to_string()),
            level(tp.level),
            format!("{} {}", super::time::date(first), hms(first)),
        ];
        if !tz.is_utc() {
            row.push(local_hms(first, tz));
        }
        row.push(instances(tp));
        row.push(tp.template.clone());
        t.add_row(row);
    }
    let mut s = format!("{t}\n");
    match &r.extra.templates.window {
        Some((a, b)) => {
            let _ = writeln!(
                s,
                "incident window {a} .. {b}; # ranks the new and surging templates by how close their onset is to the incident's"
            );
        }
        None => s.push_str("no incident found: templates by number of lines\n"),
    }
    for w in r.warnings.iter().filter(|w| w.contains("template")) {
        let _ = writeln!(s, "note: {w}");
    }
    s
}
