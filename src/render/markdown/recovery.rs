//! Detection and recovery, and what ended the incident.
//!
//! In: the [`Draft`] (incident times, timeline, findings, culprit). Out: the
//! section's bullets, and [`ended`], the sentence the summary also uses, so
//! that the two say the same thing. What ended it is read from the data in
//! this order: a responder's action in the window (a rollback with its
//! stated reason, a scale-out, a flag change), the culprit's surge ending,
//! the last restarted instance coming back. Alert and declaration times are
//! not in any input: said once, here.
//!
//! ```text
//! timeline [.. rollback 00:26:10 "rollback `platform` ..", recovered 00:27:00]
//!   -> "the rollback at 00:26:10 UTC (rollback `platform` ...), 50 s before recovery"
//! ```

use std::fmt::Write;

use super::{lower_first, secs_between, Draft};
use crate::correlate::TimelineKind;
use crate::render::time::{duration, hms};
use crate::report::TimelineJson;

/// How close before recovery the culprit's surge must end to have ended it.
const STOPPED_WITHIN_S: i64 = 120;

fn in_window(d: &Draft<'_>, ts: &str) -> bool {
    match (&d.r.incident.onset, &d.r.incident.recovered) {
        (Some(o), Some(rec)) => {
            secs_between(o, ts).is_some_and(|s| s >= 0)
                && secs_between(ts, rec).is_some_and(|s| s >= 0)
        }
        _ => false,
    }
}

/// How long after the measured recovery a responder's action still counts
/// as in the window: recovery is dated by the requests, the action by
/// another source's clock, and the two may disagree by seconds (a
/// scale-out logged 3 s after the requests recovered is what ended it, not
/// an afterthought).
const ACTION_SKEW_S: i64 = 30;

/// The last responder action in the window (or within [`ACTION_SKEW_S`]
/// after it): what a person (or an autoscaler) did that the data shows.
pub(crate) fn action<'a>(d: &Draft<'a>) -> Option<&'a TimelineJson> {
    let just_after = |ts: &str| {
        d.r.incident
            .recovered
            .as_ref()
            .and_then(|rec| secs_between(rec, ts))
            .is_some_and(|s| s > 0 && s <= ACTION_SKEW_S)
    };
    d.r.timeline
        .iter()
        .rev()
        .find(|e| responders(e) && (in_window(d, &e.ts) || just_after(&e.ts)))
}

/// A timeline row that is a person's (or an autoscaler's) action.
fn responders(e: &TimelineJson) -> bool {
    matches!(
        e.kind,
        TimelineKind::Rollback
            | TimelineKind::ScaleOut
            | TimelineKind::FlagChange
            | TimelineKind::Change
    )
}

/// When the last instance that went down was back, if no restart came
/// after it: in a crash loop whose later restarts the timeline sums up
/// ("Restarts go on until 19:34:43 UTC: 22 more ..."), the last row "back
/// up" is not the end of the restarts (a draft said the incident "ended
/// with the restarted instances back, the last at 19:04:54" half an hour
/// before the last crash). A synchronized restart's end is its last
/// instance back: a leak's waves cleared by every pod restarting at the
/// end (deploy-leak draw 2501012) ended with it, whatever the loop before.
fn last_back(d: &Draft<'_>) -> Option<String> {
    if !(d.has("synchronized_restart") || d.has("crash_loop")) {
        return None;
    }
    let tl = &d.r.timeline;
    let back = tl
        .iter()
        .filter(|e| e.kind == TimelineKind::Restart && e.text.contains("back up"))
        .map(|e| e.ts.clone())
        // Its end is the window's where no instance was seen back: no end
        // of the restarts then.
        .chain(
            d.finding("synchronized_restart")
                .map(|f| f.end.clone())
                .filter(|e| d.r.incident.recovered.as_ref().is_some_and(|r| e < r)),
        )
        .max()?;
    let later_restart = tl.iter().any(|e| {
        matches!(
            e.kind,
            TimelineKind::Restart | TimelineKind::Crash | TimelineKind::AllInstancesRestarted
        ) && !e.text.contains("back up")
            && (e.ts > back
                || restarts_until(e)
                    .is_some_and(|u| secs_between(&back, &u).is_some_and(|s| s > 0)))
    });
    (!later_restart).then_some(back)
}

/// The last restart of a row that sums up the rest ("Restarts go on until
/// 18:32:19 UTC: ..."), as a timestamp on the row's day (the next day
/// where the clock went past midnight).
fn restarts_until(e: &TimelineJson) -> Option<String> {
    let rest = e.text.strip_prefix("Restarts go on")?;
    let (_, after) = rest.split_once("until ")?;
    let clock = chrono::NaiveTime::parse_from_str(after.get(..8)?, "%H:%M:%S").ok()?;
    let row = chrono::DateTime::parse_from_rfc3339(&e.ts)
        .ok()?
        .naive_utc();
    let mut at = row.date().and_time(clock);
    if at < row {
        at += chrono::Duration::days(1);
    }
    Some(at.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// When the culprit's surge (or slow requests) ended, if shortly before
/// recovery.
fn client_stopped(d: &Draft<'_>) -> Option<(String, String)> {
    let c = d.culprit?;
    let rec = d.r.incident.recovered.as_ref()?;
    let f = d
        .findings
        .iter()
        // A surge's end is measured; a hogging finding spans the window
        // whatever the slow requests did, so it dates no end.
        .find(|f| f.pattern == "tenant_surge")?;
    let gap = secs_between(&f.end, rec)?;
    (-STOPPED_WITHIN_S..=STOPPED_WITHIN_S)
        .contains(&gap)
        .then(|| (f.end.clone(), c.short()))
}

/// An operator's action named by its change-log verb (the timeline text
/// starts with it): "the rate limit", not "the operator's action".
fn operation(text: &str) -> &'static str {
    let verb = text
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    match verb.as_str() {
        "config" | "configure" => "the config change",
        "ratelimit" | "rate-limit" | "throttle" => "the rate limit",
        "restart" => "the manual restart",
        "failover" => "the failover",
        _ => "the operator's action",
    }
}

/// How soon after a responder's action the service must be back for the
/// action to have ended it: a rollout or a scale-out takes minutes, a
/// drained queue a few more; an hour later, something else did.
const RECOVERED_WITHIN_S: i64 = 1800;
/// How long a full interruption may go on after the action that ended it
/// (the instances it brought in starting up).
const SERVED_AGAIN_WITHIN_S: i64 = 120;

/// Whether recovery followed the action: soon enough, and without the
/// service serving nothing long after it, whether the outage was under way
/// (a rate limit at 14:20 inside an outage that lasted to 15:38 ended
/// nothing) or began after it (a rate limit at 10:58:39, then nothing
/// served from 10:59:19 to 11:02:28 and recovery 19 min later).
fn settled(d: &Draft<'_>, a: &TimelineJson) -> bool {
    let Some(rec) = &d.r.incident.recovered else {
        return false;
    };
    let soon = secs_between(&a.ts, rec).is_some_and(|s| s <= RECOVERED_WITHIN_S);
    soon && dark_after(d, a).is_none()
}

/// The longest time nothing was served that ended more than
/// [`SERVED_AGAIN_WITHIN_S`] after the action.
fn dark_after<'r>(d: &Draft<'r>, a: &TimelineJson) -> Option<&'r crate::report::SpanJson> {
    d.r.impact
        .full_outages
        .iter()
        .filter(|o| secs_between(&a.ts, &o.end).is_some_and(|s| s > SERVED_AGAIN_WITHIN_S))
        .max_by_key(|o| secs_between(&o.start, &o.end).unwrap_or(0))
}

/// An unsettled action that came soon enough before recovery to have ended
/// it, with the dark spell that leaves it uncertain: "perhaps the config
/// change at 10:48:42 UTC (...), the last responder action, 10 min 23 s
/// before recovery; ...". Relief for a database under a herd takes
/// minutes to show while clients back off (herd draw 2501003 went dark for
/// 4 min after the fix that ended it): said as a lead, never as the cause.
fn perhaps(d: &Draft<'_>) -> Option<String> {
    let a = action(d).filter(|a| !settled(d, a))?;
    let rec = d.r.incident.recovered.as_ref()?;
    let gap = secs_between(&a.ts, rec).filter(|s| *s <= RECOVERED_WITHIN_S)?;
    let dark = dark_after(d, a)?;
    let long = secs_between(&dark.start, &dark.end)?;
    // The responders' reason where they gave one: the action's name says
    // the rest ("the config change (config `web` (reason ...))" nested).
    let what = match super::summary::stated_reason(&a.text) {
        Some(why) => format!("reason given: \"{why}\""),
        None => lower_first(a.text.trim_end_matches('.')),
    };
    Some(format!(
        "perhaps {} at {} UTC ({what}), the last responder action, {} before recovery; the data cannot confirm it: nothing was served for {} after it ({}–{} UTC)",
        action_name(a),
        hms(&a.ts),
        duration(gap),
        duration(long),
        hms(&dark.start),
        hms(&dark.end)
    ))
}

/// A responder's action by its kind: "the rollback", "the rate limit".
fn action_name(a: &TimelineJson) -> &'static str {
    match a.kind {
        TimelineKind::Rollback => "the rollback",
        TimelineKind::ScaleOut => "the scale-out",
        TimelineKind::Change => operation(&a.text),
        _ => "the flag change",
    }
}

/// The last responder action in the window when recovery did not follow
/// it ([`settled`]), with how long before recovery it came: "the rate
/// limit at 14:20:28 UTC came 1 h 18 min before recovery".
pub(crate) fn unsettled(d: &Draft<'_>) -> Option<String> {
    let a = action(d).filter(|a| !settled(d, a))?;
    let rec = d.r.incident.recovered.as_ref()?;
    let gap = secs_between(&a.ts, rec)?;
    Some(format!(
        "{} at {} UTC came {} before recovery",
        action_name(a),
        hms(&a.ts),
        duration(gap)
    ))
}

/// A responder action within [`LATER_ACTION_S`] after recovery, with how
/// long after it came: "the rollback at 08:55:10 UTC came 4 min 6 s after
/// recovery".
fn later_action(d: &Draft<'_>) -> Option<String> {
    let rec = d.r.incident.recovered.as_ref()?;
    let a = d.r.timeline.iter().find(|e| {
        responders(e)
            && secs_between(rec, &e.ts).is_some_and(|s| s > ACTION_SKEW_S && s <= LATER_ACTION_S)
    })?;
    let gap = secs_between(rec, &a.ts)?;
    Some(format!(
        "{} at {} UTC came {} after recovery",
        action_name(a),
        hms(&a.ts),
        duration(gap)
    ))
}

/// How long after recovery a responder's action is still told beside it.
const LATER_ACTION_S: i64 = 1800;

/// What ended the incident, as a noun phrase ("the rollback at 00:26:10
/// UTC (...)"), or None when the data does not show it.
pub(crate) fn ended(d: &Draft<'_>) -> Option<String> {
    if let Some(a) = action(d).filter(|a| settled(d, a)) {
        return Some(format!(
            "{} at {} UTC ({})",
            action_name(a),
            hms(&a.ts),
            lower_first(a.text.trim_end_matches('.'))
        ));
    }
    let stopped = client_stopped(d);
    let back = last_back(d);
    match (stopped, back) {
        (Some((ts, who)), Some(b)) => Some(format!(
            "every restarted instance back by {} UTC and the surge from {who} over at {} UTC",
            hms(&b),
            hms(&ts)
        )),
        (Some((ts, who)), None) => Some(format!("the surge from {who} over at {} UTC", hms(&ts))),
        (None, Some(b)) => Some(format!(
            "the restarted instances back, the last at {} UTC",
            hms(&b)
        )),
        (None, None) => None,
    }
}

/// A symptom in a few words: the timeline row beside it holds the figures.
fn symptom(e: &TimelineJson) -> String {
    match e.kind {
        TimelineKind::PoolSaturated => "the connection pool saturated".to_string(),
        TimelineKind::HealthChecksFailing => "health checks failing".to_string(),
        TimelineKind::ErrorsStart => "requests failing".to_string(),
        TimelineKind::Restart | TimelineKind::Crash => "an instance went down".to_string(),
        TimelineKind::AllInstancesRestarted => "every instance restarted".to_string(),
        TimelineKind::ReconnectSpike => "a spike of reconnects".to_string(),
        TimelineKind::BacklogPeak => "the backlog at its peak".to_string(),
        TimelineKind::InstanceStuck => "an instance stuck".to_string(),
        TimelineKind::UpstreamRateLimited => "a dependency rate-limiting".to_string(),
        TimelineKind::CircuitOpened => "a circuit breaker opening".to_string(),
        _ => lower_first(&e.text),
    }
}

/// A queue that drained this long (s) after the requests recovered is said:
/// a scrape or two later is the same moment.
const DRAINED_LATE_S: i64 = 120;

pub(crate) fn section(out: &mut String, d: &Draft<'_>) {
    let _ = writeln!(out, "## Detection and recovery\n");
    let r = d.r;
    let (Some(o), Some(rec)) = (&r.incident.onset, &r.incident.recovered) else {
        let _ = writeln!(out, "Nothing to detect or recover from in these inputs.\n");
        return;
    };
    // A rollout replacing instances, or one coming back, is no symptom.
    let routine = |e: &TimelineJson| {
        e.kind == TimelineKind::Restart
            && (e.text.contains("replaced") || e.text.contains("back up"))
    };
    // Symptoms of the incident are at or after its onset: a pool at its
    // maximum minutes before, with nothing failing yet, is a precursor the
    // timeline shows, not the first symptom.
    let first_symptom = r.timeline.iter().find(|e| {
        secs_between(o, &e.ts).is_some_and(|s| s >= 0)
            && !matches!(
                e.kind,
                TimelineKind::SurgeStart
                    | TimelineKind::Deploy
                    | TimelineKind::Rollback
                    | TimelineKind::FlagChange
                    | TimelineKind::ScaleOut
                    | TimelineKind::Retries
            )
            && !routine(e)
    });
    let first_symptom = first_symptom.filter(|e| e.kind != TimelineKind::Recovered);
    // The onset was the first symptom: one line says both.
    let _ = match first_symptom.filter(|e| hms(&e.ts) == hms(o)) {
        Some(e) => writeln!(
            out,
            "- **Onset (first sign in the data):** {} UTC, {}.",
            hms(o),
            symptom(e)
        ),
        None => writeln!(out, "- **Onset (first sign in the data):** {} UTC.", hms(o)),
    };
    if let Some(e) = first_symptom.filter(|e| hms(&e.ts) != hms(o)) {
        let _ = writeln!(
            out,
            "- **First symptom:** {} UTC, {}.",
            hms(&e.ts),
            symptom(e)
        );
    }
    if let Some(e) = r
        .timeline
        .iter()
        .find(|e| e.kind == TimelineKind::ErrorsStart)
    {
        let _ = writeln!(out, "- **First failing requests:** {} UTC.", hms(&e.ts));
    }
    match ended(d) {
        Some(e) => {
            // Restarts that ended it, and a rollback after them: the
            // rollback is told, and why it mattered where the change leaked.
            let later = action(d)
                .filter(|a| settled(d, a))
                .is_none()
                .then(|| later_action(d))
                .flatten();
            let leak = d
                .finding("deploy_regression")
                .is_some_and(|f| f.title.contains("did not give them back"));
            match later {
                Some(l) if leak => {
                    let _ = writeln!(
                        out,
                        "- **What ended it:** {e}. A restart empties a leaking pool without stopping the leak: {l}."
                    );
                }
                Some(l) => {
                    let _ = writeln!(out, "- **What ended it:** {e}; {l}.");
                }
                None => {
                    let _ = writeln!(out, "- **What ended it:** {e}.");
                }
            }
        }
        None => match perhaps(d) {
            Some(p) => {
                let _ = writeln!(out, "- **What ended it:** {p}.");
            }
            None => match unsettled(d) {
                Some(u) => {
                    let _ = writeln!(
                    out,
                    "- **What ended it:** not in the data: {u}, and no client's traffic stopped near recovery."
                );
                }
                None => match later_action(d) {
                    // The responders acted after the symptoms stopped: said, so
                    // that the timeline's rollback does not read as contradicted.
                    Some(l) => {
                        let _ = writeln!(
                        out,
                        "- **What ended it:** not in the data: no rollback, scale-out or flag change in the window, and no client whose traffic stopped; {l}."
                    );
                    }
                    None => {
                        let _ = writeln!(
                        out,
                        "- **What ended it:** not in the data (no rollback, scale-out or flag change in the window, and no client whose traffic stopped)."
                    );
                    }
                },
            },
        },
    }
    // Requests recovered; a queue still deep at the end of the data did
    // not, and "normal for the rest of the data" beside it contradicted it.
    // A queue that drained well after the requests recovered held work
    // that waited until then: "recovered" alone undersold it.
    let backlog = d.finding("backlog_growth");
    let backlog_left =
        backlog.is_some_and(|f| f.evidence.iter().any(|e| e.text.starts_with("not drained")));
    let drained_later = backlog
        .filter(|_| !backlog_left)
        .and_then(|f| Some((secs_between(rec, &f.end)?, &f.end)))
        .filter(|(late, _)| *late >= DRAINED_LATE_S);
    let after = match drained_later {
        _ if backlog_left => "requests were served normally for the rest of the data, but the queue had not drained by its end".to_string(),
        Some((late, at)) => format!(
            "requests were served normally from then, but the queue drained only at {} UTC, {} later: queued work waited until then",
            hms(at),
            duration(late)
        ),
        None => "normal for the rest of the data".to_string(),
    };
    let _ = writeln!(
        out,
        "- **Recovered:** {} UTC, {} after the onset; {after}.",
        hms(rec),
        duration(r.incident.duration_s.unwrap_or(0)),
    );
    let _ = writeln!(out, "- **Alerted, declared:** not in the inputs.\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::markdown::fixture::bulk;
    use crate::report::SpanJson;

    #[test]
    fn restarts_and_the_client_stopping_end_the_sample() {
        let mut r = bulk();
        for f in &mut r.findings {
            if f.pattern == "tenant_surge" {
                f.end = "2026-10-01T08:01:31Z".to_string();
            }
        }
        let d = Draft::new(&r);
        assert_eq!(
            ended(&d).as_deref(),
            Some("every restarted instance back by 08:00:37 UTC and the surge from `acct-4411` over at 08:01:31 UTC")
        );
    }

    #[test]
    fn a_rollback_in_the_window_is_what_ended_it() {
        let mut r = bulk();
        r.timeline.push(TimelineJson {
            ts: "2026-10-01T08:01:00Z".to_string(),
            kind: TimelineKind::Rollback,
            text: "rollback `api`: v1 reason=\"pool exhaustion\"".to_string(),
            sources: vec!["deploys.log:2".to_string()],
        });
        let d = Draft::new(&r);
        let e = ended(&d).unwrap_or_default();
        assert!(e.starts_with("the rollback at 08:01:00 UTC"), "{e}");
        assert!(e.contains("pool exhaustion"), "{e}");
    }

    /// A rollback that did not help, then a rate limit on the client: the
    /// last action in the window ended it (a draft said "it ended with the
    /// rollback" 22 minutes before the rate limit that did).
    #[test]
    fn the_last_operators_action_in_the_window_is_what_ended_it() {
        let mut r = bulk();
        for (ts, kind, text) in [
            (
                "2026-10-01T07:58:00Z",
                TimelineKind::Rollback,
                "rollback `api`: v1",
            ),
            (
                "2026-10-01T08:01:00Z",
                TimelineKind::Change,
                "ratelimit `api`: tenant=acct-4411 reason=\"holding connections\"",
            ),
        ] {
            r.timeline.push(TimelineJson {
                ts: ts.to_string(),
                kind,
                text: text.to_string(),
                sources: vec!["deploys.log:2".to_string()],
            });
        }
        let d = Draft::new(&r);
        let e = ended(&d).unwrap_or_default();
        assert!(e.starts_with("the rate limit at 08:01:00 UTC"), "{e}");
    }

    /// A rate limit, then three minutes with nothing served from 40 s after
    /// it: the outage that followed says the action did not end it, as one
    /// under way when it came would (slow-integration draw 250007).
    #[test]
    fn an_outage_after_the_action_says_it_did_not_end_it() {
        let mut r = bulk();
        r.timeline.push(crate::render::markdown::fixture::entry(
            "07:57:30",
            TimelineKind::Change,
            "ratelimit `api`: tenant=acct-4411",
            "deploys.log:2",
        ));
        r.impact.full_outages = vec![SpanJson {
            start: "2026-10-01T07:58:10Z".to_string(),
            end: "2026-10-01T08:01:19Z".to_string(),
        }];
        let d = Draft::new(&r);
        let e = ended(&d).unwrap_or_default();
        assert!(!e.starts_with("the rate limit"), "{e}");
        assert!(
            unsettled(&d).is_some_and(|u| u.starts_with("the rate limit at 07:57:30 UTC came")),
            "{:?}",
            unsettled(&d)
        );
        // Where nothing else ended it, said as a lead the data cannot
        // confirm, not as "not in the data".
        let mut lone = r.clone();
        lone.findings.retain(|f| f.pattern == "pool_exhaustion");
        let mut out = String::new();
        section(&mut out, &Draft::new(&lone));
        assert!(
            out.contains("- **What ended it:** perhaps the rate limit at 07:57:30 UTC (ratelimit `api`: tenant=acct-4411), the last responder action, 4 min 5 s before recovery; the data cannot confirm it: nothing was served for 3 min 9 s after it (07:58:10–08:01:19 UTC)."),
            "{out}"
        );
        // A short dark spell after it (new pods starting) does not.
        r.impact.full_outages = vec![SpanJson {
            start: "2026-10-01T07:58:10Z".to_string(),
            end: "2026-10-01T07:58:40Z".to_string(),
        }];
        let d = Draft::new(&r);
        assert!(ended(&d).unwrap_or_default().starts_with("the rate limit"));
    }

    #[test]
    fn restarts_that_go_on_did_not_end_it() {
        let mut r = bulk();
        r.findings.retain(|f| f.pattern == "synchronized_restart");
        r.extra.culprit = None;
        let d = Draft::new(&r);
        assert_eq!(
            ended(&d).as_deref(),
            Some("the restarted instances back, the last at 08:00:37 UTC")
        );
        r.timeline.push(TimelineJson {
            ts: "2026-10-01T07:59:30Z".to_string(),
            kind: TimelineKind::Restart,
            text: "Restarts go on until 08:01:20 UTC: 22 more on api-1, api-2".to_string(),
            sources: Vec::new(),
        });
        r.timeline.sort_by(|a, b| a.ts.cmp(&b.ts));
        assert_eq!(ended(&Draft::new(&r)), None);
        // Every instance restarted together after the loop, the last back
        // after its last restart: that ended it (deploy-leak draw 2501012).
        for f in &mut r.findings {
            f.end = "2026-10-01T08:01:25Z".to_string();
        }
        assert_eq!(
            ended(&Draft::new(&r)).as_deref(),
            Some("the restarted instances back, the last at 08:01:25 UTC")
        );
    }

    #[test]
    fn an_operators_action_is_named_by_its_verb() {
        assert_eq!(
            operation("ratelimit `api`: tenant=acct-1"),
            "the rate limit"
        );
        assert_eq!(
            operation("config `gateway-api`: - by x"),
            "the config change"
        );
        assert_eq!(operation("restart `web`: by x"), "the manual restart");
        assert_eq!(operation("drain `web`"), "the operator's action");
    }

    #[test]
    fn nothing_in_the_data_is_said_so() {
        let mut r = bulk();
        r.findings.retain(|f| f.pattern == "pool_exhaustion");
        let d = Draft::new(&r);
        assert_eq!(ended(&d), None);
        let mut out = String::new();
        section(&mut out, &d);
        assert!(out.contains("What ended it:** not in the data"), "{out}");
    }

    /// Requests served again at 08:01:35 while the queue drained at
    /// 08:41:35: the work queued meanwhile waited 40 min more, said beside
    /// "recovered". A queue drained a scrape after recovery is not.
    #[test]
    fn a_queue_that_drained_long_after_recovery_is_said() {
        let mut r = bulk();
        let mut backlog =
            crate::render::markdown::fixture::finding("backlog_growth", 0.8, "07:57:00");
        backlog.end = "2026-10-01T08:41:35Z".to_string();
        r.findings.push(backlog);
        let mut out = String::new();
        section(&mut out, &Draft::new(&r));
        assert!(
            out.contains("but the queue drained only at 08:41:35 UTC, 40 min later: queued work waited until then."),
            "{out}"
        );
        for f in &mut r.findings {
            if f.pattern == "backlog_growth" {
                f.end = "2026-10-01T08:02:05Z".to_string();
            }
        }
        let mut out = String::new();
        section(&mut out, &Draft::new(&r));
        assert!(
            out.contains("after the onset; normal for the rest of the data."),
            "{out}"
        );
    }

    /// A rollback four minutes after the symptoms stopped did not end them,
    /// and "no rollback" beside it on the timeline would read as a
    /// contradiction: it is named with when it came.
    #[test]
    fn a_rollback_after_recovery_is_named_not_denied() {
        let mut r = bulk();
        r.findings.retain(|f| f.pattern == "pool_exhaustion");
        r.timeline.push(TimelineJson {
            ts: "2026-10-01T08:05:41Z".to_string(),
            kind: TimelineKind::Rollback,
            text: "rollback of `api` to v1".to_string(),
            sources: vec!["deploys.log:2".to_string()],
        });
        let d = Draft::new(&r);
        assert_eq!(ended(&d), None);
        let mut out = String::new();
        section(&mut out, &d);
        assert!(
            out.contains("; the rollback at 08:05:41 UTC came 4 min 6 s after recovery."),
            "{out}"
        );
    }

    /// Restarts emptied a leaking pool; the rollback after recovery removed
    /// the leak: both told, and why the second mattered.
    #[test]
    fn restarts_that_empty_a_leaking_pool_and_the_rollback_after() {
        let mut r = bulk();
        r.findings.retain(|f| f.pattern == "synchronized_restart");
        r.extra.culprit = None;
        let mut deploy =
            crate::render::markdown::fixture::finding("deploy_regression", 0.85, "07:50:00");
        deploy.title = "The deploy of v2 to `api` caused the incident: it took database connections and did not give them back".to_string();
        r.findings.push(deploy);
        r.timeline.push(crate::render::markdown::fixture::entry(
            "08:05:41",
            TimelineKind::Rollback,
            "rollback of `api` to v1",
            "deploys.log:2",
        ));
        let mut out = String::new();
        section(&mut out, &Draft::new(&r));
        assert!(
            out.contains("- **What ended it:** the restarted instances back, the last at 08:00:37 UTC. A restart empties a leaking pool without stopping the leak: the rollback at 08:05:41 UTC came 4 min 6 s after recovery."),
            "{out}"
        );
    }

    /// A scale-out logged seconds after the requests recovered is what
    /// ended it: the two clocks are different sources'.
    #[test]
    fn a_scale_out_seconds_after_recovery_ended_it() {
        let mut r = bulk();
        r.findings.retain(|f| f.pattern == "pool_exhaustion");
        r.timeline.push(TimelineJson {
            ts: "2026-10-01T08:01:38Z".to_string(),
            kind: TimelineKind::ScaleOut,
            text: "`api` scaled out from 3 to 6 instances".to_string(),
            sources: vec!["events.json:9".to_string()],
        });
        let d = Draft::new(&r);
        let ended = ended(&d).unwrap_or_default();
        assert!(
            ended.starts_with("the scale-out at 08:01:38 UTC"),
            "{ended}"
        );
    }
}
