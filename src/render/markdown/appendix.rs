//! The appendix: the evidence behind the main sections. Load attribution
//! (only the rows whose rate changed, with the integration beside each id),
//! what the logs said, every finding's whole evidence, the charts, the data
//! section (each input, its format, lines read, parsed and skipped with the
//! reasons, time covered, warnings), and the sources the footnotes cite.
//!
//! In: the [`Draft`], the [`Options`] (where chart SVGs are), the footnote
//! registry the main sections filled. Out: the `## Appendix` section.
//!
//! ```text
//! -> "## Appendix\n\n### Load attribution\n...### Sources\n\n[^1]: `samples/...:36108`\n"
//! ```

use std::fmt::Write;

use super::sources::Sources;
use super::{cell, findings, pct, Draft, Options};
use crate::render::time::hms;
use crate::render::{chart_text, mermaid, svg};
use crate::report::{Report, RowJson};

/// A row worth showing (a table of fifteen tenants where nothing changed
/// told a reader nothing): its rate doubled or halved against its own
/// baseline by more than chance gives (three Poisson deviations and three
/// requests: one request in two minutes from a tenant that sends one an
/// hour is "11.9x" and nothing), and it carried enough of the window's
/// requests, busy time or errors to have mattered. A bulk-export draft
/// (draw 1319213) listed ten tenants with 1 to 19 requests each under
/// "ranked by blame".
fn changed(row: &RowJson) -> bool {
    let doubled_or_halved = row.rate_ratio >= 2.0 || row.rate_ratio <= 0.5;
    let n = row.requests as f64;
    let expected = if row.window_rate_per_s > 0.0 {
        n * row.baseline_rate_per_s / row.window_rate_per_s
    } else {
        0.0
    };
    let beyond_chance = (n - expected).abs() > 3.0 * expected.sqrt() + 3.0;
    let mattered = [
        row.share_of_requests,
        row.share_of_busy_time,
        row.share_of_errors,
    ]
    .iter()
    .any(|s| *s >= crate::correlate::attribution::MIN_CULPRIT_REQUESTS);
    doubled_or_halved && beyond_chance && mattered
}

/// Rows shown when none changed: the biggest, to show that none stood out.
const UNCHANGED_SHOWN: usize = 3;

pub(crate) fn section(out: &mut String, d: &Draft<'_>, opts: &Options, src: &mut Sources) {
    let r = d.r;
    let _ = writeln!(out, "## Appendix\n");
    attribution(out, r);
    super::super::templates::section(out, r, &d.root);
    findings::details(out, d, src);
    charts(out, r, opts);
    data(out, d);
    if !src.is_empty() {
        let _ = writeln!(out, "### Sources\n\n{}", src.definitions(&d.root));
    }
}

fn attribution(out: &mut String, r: &Report) {
    let _ = writeln!(out, "### Load attribution\n");
    let a = &r.attribution;
    if a.rows.is_empty() {
        let _ = writeln!(
            out,
            "Not determinable: no requests with a tenant or an integration in the window.\n"
        );
        return;
    }
    // Without an incident there is nothing to weigh clients against: a
    // table "ranked by blame" on a quiet day names people for nothing.
    let window = match (&r.incident.onset, &r.incident.recovered) {
        (Some(o), Some(rec)) => format!("the incident window ({}–{} UTC)", hms(o), hms(rec)),
        _ => {
            let _ = writeln!(
                out,
                "Not shown: no incident was found, so no {} is weighed against a baseline. The JSON report's `attribution` holds every one's figures.\n",
                a.dimension
            );
            return;
        }
    };
    // Where no client is the cause, the rows are the largest changes, not
    // culprits; where the cause held the servers with slow requests rather
    // than sending more, the ranking by volume is no ranking by blame.
    let is_culprit = |row: &RowJson| {
        r.extra
            .culprit
            .as_ref()
            .is_some_and(|c| match (&c.tenant, &row.tenant) {
                (Some(t), Some(rt)) => t == rt,
                (None, None) => c.integration.is_some() && c.integration == row.integration,
                _ => false,
            })
    };
    let ranked = if a.rows.first().is_some_and(is_culprit) {
        "Ranked by blame (share of the requests above baseline, of busy time, of requests)."
            .to_string()
    } else if let Some(c) = r.extra.culprit.as_ref() {
        let who = c
            .tenant
            .as_deref()
            .or(c.integration.as_deref())
            .unwrap_or("");
        format!(
            "Ranked by volume (share of the requests above baseline, of busy time, of requests), not by blame: the cause, `{}`, held the servers with slow requests rather than sending more.",
            cell(who)
        )
    } else {
        format!(
            "No single {} explains the incident: these are the largest changes, not causes (ranked by share of the requests above baseline, of busy time, of requests).",
            a.dimension
        )
    };
    let baseline = r.extra.baseline.as_ref().map_or_else(String::new, |b| {
        format!("; baseline {}–{} UTC", hms(&b.start), hms(&b.end))
    });
    let mut rows: Vec<&RowJson> = a
        .rows
        .iter()
        .filter(|row| changed(row) || is_culprit(row))
        .collect();
    let left = if rows.is_empty() {
        rows = a.rows.iter().take(UNCHANGED_SHOWN).collect();
        format!(
            "No {}'s rate doubled or halved beyond chance with 1% or more of the requests, busy time or errors; the {} busiest are shown.",
            a.dimension,
            rows.len()
        )
    } else if rows.len() < a.rows.len() {
        format!(
            "Only the rows whose rate doubled or halved beyond chance, with 1% or more of the requests, busy time or errors, are shown; {} more are in the JSON report.",
            a.rows.len() - rows.len()
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "Requests in {window}{baseline}. All traffic: {:.1} req/s in the window, {:.1} req/s in the baseline. {ranked} {left}\n",
        r.extra.attribution_window_rate, r.extra.attribution_baseline_rate
    );
    let dim = if a.dimension == "tenant" {
        "Tenant"
    } else {
        "Integration"
    };
    let _ = writeln!(
        out,
        "| {dim} | Integration | Requests | Baseline req/s | Window req/s | Ratio | Requests % | Busy time % | Errors % |\n|---|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    for row in rows {
        let name = row
            .tenant
            .clone()
            .or_else(|| row.integration.clone())
            .unwrap_or_default();
        let integ = match (&row.tenant, &row.integration) {
            (Some(_), Some(i)) => format!("`{}`", cell(i)),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "| `{}` | {integ} | {} | {} | {} | {} | {} | {} | {} |",
            cell(&name),
            row.requests,
            row.baseline_rate_per_s,
            row.window_rate_per_s,
            row.rate_ratio,
            pct(row.share_of_requests),
            pct(row.share_of_busy_time),
            pct(row.share_of_errors)
        );
    }
    out.push('\n');
}

fn charts(out: &mut String, r: &Report, opts: &Options) {
    let _ = writeln!(out, "### Charts\n");
    let charts = &r.extra.charts;
    let Some(axis) = charts.axis.filter(|_| !charts.charts.is_empty()) else {
        let _ = writeln!(out, "No series to chart.\n");
        return;
    };
    for (i, c) in charts.charts.iter().enumerate() {
        let _ = writeln!(out, "{}\n", chart_text::sentence(c, &axis));
        let note = match &opts.assets {
            Some(dir) => {
                let _ = writeln!(
                    out,
                    "![{}]({})\n",
                    chart_text::title(c, &axis).replace(['[', ']'], ""),
                    link(dir, &svg::file_name(i, c))
                );
                svg::gap_note(c, &axis)
            }
            None => {
                let _ = writeln!(out, "{}", mermaid::block(c, &axis));
                mermaid::gap_note(c, &axis)
            }
        };
        if let Some(n) = note {
            let _ = writeln!(out, "{n}\n");
        }
    }
}

/// A Markdown link target: `dir/file`, in angle brackets when it holds
/// characters a bare target cannot.
fn link(dir: &str, file: &str) -> String {
    let path = if dir.is_empty() || dir == "." {
        file.to_string()
    } else {
        format!("{}/{file}", dir.trim_end_matches('/'))
    };
    if path.contains([' ', '(', ')', '<', '>']) {
        format!("<{}>", path.replace(['<', '>'], ""))
    } else {
        path
    }
}

fn data(out: &mut String, d: &Draft<'_>) {
    let r = d.r;
    let _ = writeln!(out, "### Data\n");
    let _ = writeln!(
        out,
        "| Input | Format | Lines | Parsed | Skipped | First | Last |\n|---|---|---:|---:|---:|---|---|"
    );
    for i in &r.inputs {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} | {} |",
            cell(d.short(&i.path)),
            match &i.inner_format {
                Some(inner) => format!("{} ({inner} inside)", i.format),
                None => i.format.clone(),
            },
            i.lines,
            i.parsed,
            i.skipped,
            i.first_ts.as_deref().unwrap_or("-"),
            i.last_ts.as_deref().unwrap_or("-")
        );
    }
    out.push('\n');
    let docs: Vec<&str> = r
        .extra
        .input_details
        .iter()
        .filter(|d| d.documents)
        .map(|x| d.short(&x.path))
        .collect();
    if !docs.is_empty() {
        let _ = writeln!(
            out,
            "For JSON documents ({}), a line in this table is a record inside the document.\n",
            docs.join(", ")
        );
    }
    let skipped: Vec<String> = r
        .inputs
        .iter()
        .filter(|i| i.skipped > 0)
        .map(|i| {
            let reasons: Vec<String> = i
                .skipped_by_reason
                .iter()
                .map(|(k, v)| format!("{v} {k}"))
                .collect();
            let mut item = format!("- `{}`: {}", d.short(&i.path), reasons.join(", "));
            // The first of them, redacted: what a reader checks by eye.
            for b in &i.first_skipped {
                let _ = write!(
                    item,
                    "\n  - line {} ({}): `{}`",
                    b.line,
                    b.reason,
                    b.text.replace('`', "'")
                );
            }
            item
        })
        .collect();
    if skipped.is_empty() {
        let _ = writeln!(out, "Every line was parsed.\n");
    } else {
        let _ = writeln!(out, "Skipped lines, by reason:\n\n{}\n", skipped.join("\n"));
    }
    if !r.warnings.is_empty() {
        let _ = writeln!(out, "Warnings:\n");
        for w in &r.warnings {
            let _ = writeln!(out, "- {w}");
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(requests: u64, base: f64, window: f64, share: f64) -> RowJson {
        RowJson {
            requests,
            baseline_rate_per_s: base,
            window_rate_per_s: window,
            rate_ratio: window / base,
            share_of_requests: share,
            tenant: None,
            integration: None,
            share_of_busy_time: 0.0,
            share_of_errors: 0.0,
        }
    }

    #[test]
    fn a_row_changed_beyond_chance_and_mattered() {
        // The culprit's surge.
        assert!(changed(&row(5557, 0.0012, 49.2, 0.95)));
        // One request where 0.08 were expected: "11.9x" and chance.
        assert!(!changed(&row(1, 0.0007, 0.009, 0.0001)));
        // Nineteen where 2.5 were expected is a change, but 0.3% of the
        // requests explain nothing.
        assert!(!changed(&row(19, 0.022, 0.168, 0.003)));
        assert!(changed(&row(19, 0.022, 0.168, 0.05)));
        // A client that halved its traffic, and one that did not change.
        assert!(changed(&row(300, 5.0, 2.5, 0.2)));
        assert!(!changed(&row(600, 5.0, 5.2, 0.4)));
    }
}
