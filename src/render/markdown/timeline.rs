//! The timeline: UTC and the `--tz` zone, one row per event, coalesced, the
//! responders' actions found in the data marked as such, and sources as
//! footnotes.
//!
//! In: the report's timeline (sorted by time), the [`Draft`], the footnote
//! registry. Out: the table. Coalescing: an instance's "went down" row is
//! dropped where a group row ("All 3 of 3 instances restarted within 2 s")
//! already holds it, and a run of "is back up" rows becomes one row.
//!
//! ```text
//! 07:59:07 api-1 is back up ..., 07:59:52 api-2 is back up ..., 08:00:37 api-3 is back up ...
//!   -> "| 07:59:07 | 3 instances back up, the last at 08:00:37 | [^7][^8][^9] |"
//! ```

use std::fmt::Write;

use super::sources::Sources;
use super::{cell, secs_between, wording, Draft};
use crate::correlate::TimelineKind;
use crate::render::time::{date, hms, local_hms, zone_label};
use crate::report::TimelineJson;

/// How long after a group restart its instances' own rows are held by it.
const GROUP_HOLDS_S: i64 = 60;

/// One row of the table.
struct Row {
    ts: String,
    text: String,
    sources: Vec<String>,
}

fn went_down(e: &TimelineJson) -> bool {
    matches!(e.kind, TimelineKind::Restart | TimelineKind::Crash) && e.text.contains("went down")
}

fn back_up(e: &TimelineJson) -> bool {
    e.kind == TimelineKind::Restart && e.text.contains("back up")
}

/// A group restart without its list of instance names ("All 3 of 3
/// instances restarted within 2 s (api-1 (10.0.0.1:80), ...): probe failed"
/// -> "... within 2 s: probe failed"): the impact names the instances, and
/// the list made the row three lines long.
fn without_names(text: &str) -> String {
    match text.find(" (") {
        Some(open) => match text[open..].find("): ") {
            Some(close) => format!("{}{}", &text[..open], &text[open + close + 1..]),
            None => text.to_string(),
        },
        None => text.to_string(),
    }
}

/// How long before an input begins other inputs must show restarts for it
/// to have been cut short.
const LATE_INPUT_S: i64 = 60;

/// Where a symptom's first record comes from an export that was cut short
/// (an ECS service keeps its last 100 events), the row says so: the export
/// begins after the onset, and other inputs show instances restarting
/// before it begins, which an orchestrator's full record would hold. An
/// event stream that simply has nothing before its first failure is no
/// news: events come only when something happens.
fn late_export(d: &Draft<'_>, e: &TimelineJson) -> Option<String> {
    if e.kind != TimelineKind::HealthChecksFailing {
        return None;
    }
    let onset = d.r.incident.onset.as_deref()?;
    let source = e.sources.first()?;
    let input =
        d.r.inputs
            .iter()
            .filter(|i| source.starts_with(&i.path))
            .max_by_key(|i| i.path.len())?;
    let first = input.first_ts.as_deref()?;
    let restarted_before = d.r.timeline.iter().any(|x| {
        matches!(
            x.kind,
            TimelineKind::Restart | TimelineKind::Crash | TimelineKind::AllInstancesRestarted
        ) && secs_between(&x.ts, first).is_some_and(|s| s > LATE_INPUT_S)
            && !x.sources.iter().any(|s| s.starts_with(&input.path))
    });
    (secs_between(onset, first)? > LATE_INPUT_S && restarted_before).then(|| {
        let name = input.path.rsplit('/').next().unwrap_or(&input.path);
        format!(
            "the first in `{name}`, which begins only at {}, after restarts other inputs show, so earlier failures would not show",
            hms(first)
        )
    })
}

/// The rows, coalesced and worded.
fn rows(d: &Draft<'_>) -> Vec<Row> {
    let tl = &d.r.timeline;
    let groups: Vec<&str> = tl
        .iter()
        .filter(|e| e.kind == TimelineKind::AllInstancesRestarted)
        .map(|e| e.ts.as_str())
        .collect();
    let mut out: Vec<Row> = Vec::new();
    let mut i = 0;
    while let Some(e) = tl.get(i) {
        // Held by a group row, or by the same instance's "restarted" row of
        // the same second (an orchestrator event and the app's own line).
        let name = e.text.split(' ').next().unwrap_or("");
        let held = went_down(e)
            && (groups
                .iter()
                .any(|g| secs_between(g, &e.ts).is_some_and(|s| (0..=GROUP_HOLDS_S).contains(&s)))
                || tl.iter().any(|x| {
                    x.ts == e.ts
                        && !went_down(x)
                        && x.kind == TimelineKind::Restart
                        && x.text.split(' ').next() == Some(name)
                }));
        if held {
            i += 1;
            continue;
        }
        if back_up(e) {
            let run: Vec<&TimelineJson> = tl.iter().skip(i).take_while(|x| back_up(x)).collect();
            if run.len() > 1 {
                let last = run.last().map_or(e.ts.as_str(), |x| x.ts.as_str());
                let mut sources: Vec<String> = Vec::new();
                for x in &run {
                    for s in &x.sources {
                        if !sources.contains(s) {
                            sources.push(s.clone());
                        }
                    }
                }
                // An instance back up twice in the run is one instance: "7
                // back up" in a fleet of 5 read as a contradiction.
                let mut names: Vec<&str> = run
                    .iter()
                    .map(|x| x.text.split(' ').next().unwrap_or(""))
                    .collect();
                names.sort_unstable();
                names.dedup();
                let text = if names.len() < run.len() {
                    format!(
                        "{} instances back up ({} restarts), the last at {}",
                        names.len(),
                        run.len(),
                        hms(last)
                    )
                } else {
                    format!("{} instances back up, the last at {}", run.len(), hms(last))
                };
                out.push(Row {
                    ts: e.ts.clone(),
                    text,
                    sources,
                });
                i += run.len();
                continue;
            }
        }
        let text = wording::reword(&e.text, d.culprit, false);
        let text = if e.kind == TimelineKind::AllInstancesRestarted {
            without_names(&text)
        } else {
            text
        };
        // A flag flipped or a fleet scaled before the incident began is a
        // change that may have caused it, not a response to it (a review
        // read the flag that caused the incident labelled as a fix).
        let before_onset =
            d.r.incident
                .onset
                .as_deref()
                .and_then(|o| super::secs_between(o, &e.ts))
                .is_none_or(|s| s <= 0);
        // So is the change the draft names as the cause, however soon after
        // the first sign it was recorded (flag-flip draw 698240: the flag
        // turned on 3 s after the first slow second was read as a fix).
        let the_cause = || {
            d.findings.iter().any(|f| {
                f.pattern == "deploy_regression"
                    && d.role(f) == super::cascade::Role::Trigger
                    && super::secs_between(&f.start, &e.ts) == Some(0)
            })
        };
        let before_onset = before_onset || the_cause();
        let text = match late_export(d, e) {
            Some(note) => format!("{text}: {note}"),
            None => text,
        };
        let text = match e.kind {
            TimelineKind::Rollback => format!("**Responder action:** {text}"),
            TimelineKind::ScaleOut | TimelineKind::FlagChange if !before_onset => {
                format!("**Responder action:** {text}")
            }
            TimelineKind::Deploy | TimelineKind::ScaleOut | TimelineKind::FlagChange => {
                format!("**Change:** {text}")
            }
            _ => text,
        };
        out.push(Row {
            ts: e.ts.clone(),
            text,
            sources: e.sources.clone(),
        });
        i += 1;
    }
    out
}

pub(crate) fn section(out: &mut String, d: &Draft<'_>, src: &mut Sources) {
    let _ = writeln!(out, "## Timeline\n");
    let r = d.r;
    let Some(first) = r.timeline.first().map(|e| e.ts.clone()) else {
        let _ = writeln!(
            out,
            "Nothing to put on a timeline: no incident was found.\n"
        );
        return;
    };
    let tz = &r.extra.tz;
    let local = (!tz.is_utc()).then(|| zone_label(&first, tz));
    let zone = local
        .as_ref()
        .map_or_else(String::new, |l| format!(" and {tz} ({l})"));
    let _ = writeln!(out, "All times on {} in UTC{zone}.\n", date(&first));
    match &local {
        Some(l) => {
            let _ = writeln!(
                out,
                "| UTC | {l} | What happened | Source |\n|---|---|---|---|"
            );
        }
        None => {
            let _ = writeln!(out, "| UTC | What happened | Source |\n|---|---|---|");
        }
    }
    for row in rows(d) {
        let refs = src.cite_all(&row.sources);
        match &local {
            Some(_) => {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {refs} |",
                    hms(&row.ts),
                    local_hms(&row.ts, tz),
                    cell(&row.text)
                );
            }
            None => {
                let _ = writeln!(out, "| {} | {} | {refs} |", hms(&row.ts), cell(&row.text));
            }
        }
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::markdown::fixture::bulk;

    fn table(r: &crate::report::Report) -> String {
        let mut out = String::new();
        section(&mut out, &Draft::new(r), &mut Sources::default());
        out
    }

    #[test]
    fn a_group_restart_row_leaves_its_names_to_the_impact() {
        assert_eq!(
            without_names("All 3 of 3 instances restarted within 2 s (api-1 (10.0.0.1:80), api-2 (10.0.0.2:80)): probe failed"),
            "All 3 of 3 instances restarted within 2 s: probe failed"
        );
        assert_eq!(
            without_names("All 3 restarted (at once)"),
            "All 3 restarted (at once)"
        );
    }

    #[test]
    fn restarts_are_coalesced() {
        let mut r = bulk();
        r.timeline.insert(
            3,
            TimelineJson {
                ts: "2026-10-01T07:58:55Z".to_string(),
                kind: TimelineKind::Restart,
                text: "api-1 went down: probe failed".to_string(),
                sources: vec!["app.jsonl:2809".to_string()],
            },
        );
        let t = table(&r);
        assert!(!t.contains("went down"), "held by the group row: {t}");
        assert!(
            t.contains("| 07:59:07 | 2 instances back up, the last at 08:00:37 |"),
            "{t}"
        );
    }

    /// An instance back up twice in one run of rows counts once.
    #[test]
    fn an_instance_back_up_twice_in_a_run_is_one_instance() {
        let mut r = bulk();
        let at = r
            .timeline
            .iter()
            .position(|e| e.text.starts_with("api-3 is back up"))
            .map_or(0, |i| i + 1);
        r.timeline.insert(
            at,
            TimelineJson {
                ts: "2026-10-01T08:00:50Z".to_string(),
                kind: TimelineKind::Restart,
                text: "api-1 is back up (9 s after going down)".to_string(),
                sources: vec!["app.jsonl:2900".to_string()],
            },
        );
        let t = table(&r);
        assert!(
            t.contains("| 07:59:07 | 2 instances back up (3 restarts), the last at 08:00:50 |"),
            "{t}"
        );
    }

    #[test]
    fn sources_are_footnotes_and_the_ratio_is_counts() {
        let t = table(&bulk());
        assert!(!t.contains("hikaricp_connections_active"), "{t}");
        assert!(t.contains("[^2]"), "{t}");
        assert!(!t.contains("0.0059"), "{t}");
        assert!(
            t.contains("against 10 requests in the 31 min before"),
            "{t}"
        );
    }

    /// An ECS service's events are its last 100: the first failed check in
    /// them came 46 min into a crash loop, and the row said "start failing".
    #[test]
    fn a_symptom_first_seen_in_an_export_that_begins_late_says_so() {
        let mut r = bulk();
        let input = |path: &str, first: &str| crate::report::InputJson {
            path: path.to_string(),
            format: "ecs_events".to_string(),
            lines: 100,
            parsed: 100,
            skipped: 0,
            first_ts: Some(first.to_string()),
            last_ts: None,
            skipped_by_reason: Default::default(),
            inner_format: None,
            first_skipped: Vec::new(),
        };
        r.inputs = vec![input("out/ecs.json", "2026-10-01T07:58:30Z")];
        r.timeline.push(TimelineJson {
            ts: "2026-10-01T07:58:40Z".to_string(),
            kind: TimelineKind::HealthChecksFailing,
            text: "Health checks start failing (on 3 of 3 instances)".to_string(),
            sources: vec!["out/ecs.json:12".to_string()],
        });
        // Nothing before it: an event stream begins with its first event.
        assert!(!table(&r).contains("begins only at"), "{}", table(&r));
        // Instances restarting before it began, in another input: cut short.
        r.timeline.push(TimelineJson {
            ts: "2026-10-01T07:57:10Z".to_string(),
            kind: TimelineKind::Restart,
            text: "api-2 restarted".to_string(),
            sources: vec!["app.jsonl:7".to_string()],
        });
        r.timeline.sort_by(|a, b| a.ts.cmp(&b.ts));
        assert!(
            table(&r).contains("(on 3 of 3 instances): the first in `ecs.json`, which begins only at 07:58:30, after restarts other inputs show"),
            "{}",
            table(&r)
        );
        // An export that reaches back before the onset says nothing more.
        r.inputs = vec![input("out/ecs.json", "2026-10-01T07:00:00Z")];
        assert!(!table(&r).contains("begins only at"));
    }

    #[test]
    fn responder_actions_are_marked() {
        let mut r = bulk();
        r.timeline.push(TimelineJson {
            ts: "2026-10-01T08:01:00Z".to_string(),
            kind: TimelineKind::ScaleOut,
            text: "`api` scaled out to 5 instances".to_string(),
            sources: vec!["events.json:35".to_string()],
        });
        assert!(table(&r).contains("**Responder action:** `api` scaled out to 5 instances"));
        // The flag flipped before the onset set it off: a change, not a fix.
        r.timeline.push(TimelineJson {
            ts: "2026-10-01T07:50:00Z".to_string(),
            kind: TimelineKind::FlagChange,
            text: "flag `search-v2`: turned on".to_string(),
            sources: vec!["audit.json:3".to_string()],
        });
        let t = table(&r);
        assert!(t.contains("**Change:** flag `search-v2`: turned on"), "{t}");
        // One flipped after the onset is a fix, unless the draft names it
        // as the cause.
        r.timeline.push(TimelineJson {
            ts: "2026-10-01T07:57:30Z".to_string(),
            kind: TimelineKind::FlagChange,
            text: "flag `pricing-v3`: turned on".to_string(),
            sources: vec!["audit.json:4".to_string()],
        });
        let t = table(&r);
        assert!(
            t.contains("**Responder action:** flag `pricing-v3`: turned on"),
            "{t}"
        );
        r.findings = vec![crate::render::markdown::fixture::finding(
            "deploy_regression",
            0.85,
            "07:57:30",
        )];
        let t = table(&r);
        assert!(
            t.contains("**Change:** flag `pricing-v3`: turned on"),
            "{t}"
        );
    }
}
