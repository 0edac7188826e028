//! The timeline: what happened when, each entry with the lines it rests on.
//! Pattern detectors add their own entries (retries, reconnects) later.

use serde::Serialize;

use crate::event::{InfraKind, Millis};

use super::{Analysis, Span};

/// The kinds of `report-json.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimelineKind {
    SurgeStart,
    PoolSaturated,
    HealthChecksFailing,
    ErrorsStart,
    Restart,
    AllInstancesRestarted,
    Retries,
    ReconnectSpike,
    Deploy,
    Rollback,
    /// A feature flag turned on or off (added to `report-json.md`'s list).
    FlagChange,
    /// The fleet grew (a responder's or an autoscaler's action).
    ScaleOut,
    /// Another action a change log records: a config change, a rate limit,
    /// a manual restart (added to `report-json.md`'s list, README.md).
    Change,
    Crash,
    BacklogPeak,
    InstanceStuck,
    UpstreamRateLimited,
    /// A circuit breaker opened (added to `report-json.md`'s list, README.md).
    CircuitOpened,
    /// It closed again.
    CircuitClosed,
    /// A pool reported leaked connections (added to `report-json.md`'s
    /// list, README.md).
    ConnectionLeak,
    Recovered,
    Other,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TimelineEntry {
    pub ts: Millis,
    pub kind: TimelineKind,
    pub text: String,
    pub sources: Vec<String>,
}

/// Rounds of restarts listed one by one before the rest become one entry.
const RESTART_GROUPS_LISTED: usize = 3;

/// How far after its first sign a slowdown is followed to where it
/// doubled the usual latency: a queue building under growing load.
const SLOW_RAMP_S: usize = 15 * 60;

/// Instances going down within this long of each other restarted "at once".
pub const SYNC_WINDOW_MS: Millis = 60_000;

pub fn build(a: &Analysis) -> Vec<TimelineEntry> {
    let mut out = Vec::new();
    let Some(window) = a.window() else { return out };
    let Some(inc) = a.incident else {
        return out;
    };
    let near = Span::new(window.start - super::onset::MERGE_GAP, window.end);

    // The surge of the most blamed tenant, else of the total. A culprit
    // whose rate over the window did not even double held the servers by
    // other means (slow requests): a few busy seconds of it are no surge.
    let top = a
        .attribution
        .rows
        .first()
        .filter(|r| !a.attribution.organic && r.rate_ratio >= SURGE_RATIO)
        .map(|r| r.value.as_str());
    let surge = a
        .surges
        .iter()
        .filter(|s| Some(s.value.as_str()) == top && s.end > near.start && s.start < near.end)
        .min_by_key(|s| s.start)
        .or_else(|| {
            // Traffic that rose only once the service was failing is not
            // told as a rise before it (a blip of 11 req/s against 5 at
            // the head of the timeline read as the cause).
            // Nor a peak of seconds where traffic over the window did not
            // grow (stuck instances: "up to 16 req/s against 6.8" beside
            // 7.6 req/s in the window, read as a surge by two reviews).
            a.surges
                .iter()
                .filter(|s| s.value == "(all)" && s.start < near.end)
                .filter(|_| a.demand_after.is_none() && a.attribution.grew)
                .min_by_key(|s| s.start)
        });
    if let Some(s) = surge {
        let who = if s.value == "(all)" {
            "Request rate across all tenants".to_string()
        } else {
            let integ = a
                .attribution
                .rows
                .first()
                .and_then(|r| r.integration.as_deref())
                .map(|i| format!(" (integration `{i}`)"))
                .unwrap_or_default();
            format!("Tenant `{}`{integ}", s.value)
        };
        out.push(TimelineEntry {
            ts: s.start * 1000,
            kind: TimelineKind::SurgeStart,
            text: format!(
                "{who} {}: up to {:.0} req/s against a baseline of {} req/s",
                if s.value == "(all)" {
                    "rises above its baseline"
                } else {
                    "surges"
                },
                s.peak_rate,
                rate(s.baseline_rate)
            ),
            sources: vec![a.source(s.first)],
        });
    }

    if let Some(s) = a.pool.first_short(a.span.unwrap_or(window), near) {
        // A rollup's first saturated period is dated by the onset inside
        // it, else by its middle.
        let s = a.incident.map_or(s, |i| a.pool.dated(s, i.onset));
        // Counted among the pools that were there then: a rollback's or a
        // scale-out's fresh pods, saturated later, are not the fleet of
        // this moment.
        let then = |p: &&super::PoolInstance| p.seen.0 <= s * 1000 + p.step && p.seen.1 >= s * 1000;
        let present: Vec<&super::PoolInstance> = a.pool.instances.iter().filter(then).collect();
        let saturated: Vec<&super::PoolInstance> = present
            .iter()
            .copied()
            .filter(|p| {
                p.saturated
                    .iter()
                    .any(|r| r.1 > s * 1000 && r.0 < window.end * 1000)
            })
            .collect();
        let mut sources: Vec<String> = saturated
            .iter()
            .take(3)
            .map(|p| format!("{} ({})", a.input_name(p.input), p.series))
            .collect();
        // Metrics that never reached the maximum while the logs spoke of
        // exhaustion: the logs are the evidence, not "0 of N saturated".
        let text = if !saturated.is_empty() {
            let peak_wait = saturated.iter().map(|p| p.peak_waiting).fold(0.0, f64::max);
            let max = saturated.iter().filter_map(|p| p.max).fold(0.0, f64::max);
            // Without a max series the saturation was seen by requests waiting.
            let at = if max > 0.0 {
                format!("in use at the maximum of {max:.0}, ")
            } else {
                String::new()
            };
            // Counted against the pools reporting then; where the fleet is
            // larger (pods that came later, or were down), "4 of 4" beside
            // "8 of 8 affected" read as a contradiction.
            let of = present.len().max(saturated.len());
            let whose = if of < a.fleet.len() {
                format!("of the {of} instances reporting pool metrics at the time")
            } else {
                format!("of {of} instances")
            };
            format!(
                "Connection pool saturated on {} {whose} ({at}up to {peak_wait:.0} waiting)",
                saturated.len()
            )
        } else {
            "Pool-exhaustion errors in the application logs".to_string()
        };
        if sources.is_empty() {
            sources.push("application logs".to_string());
        }
        out.push(TimelineEntry {
            ts: s * 1000,
            kind: TimelineKind::PoolSaturated,
            text,
            sources,
        });
    }

    // Each instance's first failure in the run that reaches the incident: a
    // blip an hour before is not when its health checks started failing.
    let probe = a
        .history
        .probe_failures
        .values()
        .filter_map(|p| p.first_from(near.start * 1000))
        .filter(|(first, _)| *first < window.end * 1000)
        .min();
    let from_access = a.health.first_failure.filter(|(s, _)| near.contains(*s));
    let health_ts = match (from_access, probe) {
        (Some((s, _)), Some((p, _))) => Some((s * 1000).min(p)),
        (Some((s, _)), None) => Some(s * 1000),
        (None, Some((p, _))) => Some(p),
        (None, None) => None,
    };
    if let Some(ts) = health_ts {
        let mut sources = Vec::new();
        if let Some((_, o)) = from_access {
            sources.push(a.source(o));
        }
        if let Some((_, o)) = probe {
            sources.push(a.source(o));
        }
        let failing_probe = a
            .history
            .probe_failures
            .values()
            .filter(|p| p.first < window.end * 1000 && p.last >= near.start * 1000)
            .count();
        let n = a.health.failing.len().max(failing_probe);
        // Against the fleet that was running: a scale-out's new pods are not.
        let of = a.running(a.health.instances.len().max(a.fleet.len()), n);
        // Each instance's first failing probe: the row is the first's, and
        // says when the last began (three instances failing from one
        // second read as "on 3 of 3" where the others followed minutes
        // later).
        let firsts: Vec<(Millis, &String)> = a
            .history
            .probe_failures
            .iter()
            .filter_map(|(i, p)| p.first_from(near.start * 1000).map(|(f, _)| (f, i)))
            .filter(|(f, _)| *f < window.end * 1000)
            .collect();
        let first = firsts.iter().min().filter(|(f, _)| *f == ts);
        let last = firsts.iter().map(|(f, _)| *f).max();
        // A watchdog's timeout (systemd's `WatchdogSec`) is a missed
        // keep-alive, not a probe answered badly: told as such where every
        // failing instance's was one and no probe request failed.
        let watchdog = from_access.is_none()
            && !firsts.is_empty()
            && firsts.iter().all(|(_, i)| {
                a.history.restarts.iter().any(|r| {
                    &r.instance == *i
                        && r.cause.as_deref() == Some(super::instances::KILLED_BY_WATCHDOG)
                })
            });
        let (starts, fail) = if watchdog {
            ("Watchdog timeouts start", "time out")
        } else {
            ("Health checks start failing", "fail them")
        };
        let text = match (first, last) {
            (Some((_, who)), Some(l)) if n > 1 && l - ts >= 30_000 => format!(
                "{starts} on {}; {n} of {of} instances {fail} by {}",
                a.ids.display(who),
                crate::zone::clock(l)
            ),
            (Some((_, who)), _) if n == 1 => {
                format!("{starts} on {} (1 of {of} instances)", a.ids.display(who))
            }
            _ => format!("{starts} (on {n} of {of} instances)"),
        };
        out.push(TimelineEntry {
            ts,
            kind: TimelineKind::HealthChecksFailing,
            text,
            sources,
        });
    }

    if let Some((s, o)) = a.errors_start {
        let span = a.span.unwrap_or(window);
        // The onset is a second of the span, which `totals` covers.
        let from = a
            .totals
            .get((s - span.start) as usize..)
            .unwrap_or_default();
        // The failure rate is judged on windows, so its first second may
        // hold none: the minute from it says how many.
        let text = if let Some(cell) = from.first().filter(|c| c.failed > 0) {
            format!(
                "Requests start failing ({} failed in that second)",
                cell.failed
            )
        } else {
            let minute: u32 = from.iter().take(60).map(|c| c.failed).sum();
            if minute > 0 {
                format!("Requests start failing ({minute} failed in the minute from then)")
            } else {
                // Flagged for want of successes, not for failures: the
                // requests stopped arriving where the logs could see them.
                let none = from.iter().take_while(|c| c.ok == 0).count();
                format!(
                    "Nothing is served: no request succeeds for {none} s (none is logged as failed either)"
                )
            }
        };
        out.push(TimelineEntry {
            ts: s * 1000,
            kind: TimelineKind::ErrorsStart,
            text,
            sources: vec![a.source(o)],
        });
    }

    // Requests slowing before any fail: the first symptom of a queue
    // building (a pool at its maximum, workers all busy).
    if let Some(s) = a
        .latency_start
        .filter(|l| a.errors_start.is_none_or(|(e, _)| *l < e))
    {
        let span = a.span.unwrap_or(window);
        let mean = |cells: &[crate::aggregate::Cell]| {
            let (busy, timed) = cells.iter().fold((0.0, 0u64), |(b, n), c| {
                (b + c.busy_ms(), n + u64::from(c.timed))
            });
            (timed > 0).then(|| busy / timed as f64)
        };
        let at = (s - span.start).max(0) as usize;
        let minute = a.totals.get(at..).unwrap_or_default();
        let minute = minute.get(..60.min(minute.len())).unwrap_or_default();
        let before = a.baseline.and_then(|b| {
            let lo = (b.start - span.start).max(0) as usize;
            let hi = (b.end - span.start).max(0) as usize;
            a.totals.get(lo..hi.min(a.totals.len()))
        });
        // Said only where the average shows it: a tail that grew while the
        // average barely moved is a weaker claim than a line should make.
        let ms = |v: f64| {
            if v >= 1000.0 {
                format!("{:.1} s", v / 1000.0)
            } else {
                format!("{v:.0} ms")
            }
        };
        let usual = before.and_then(mean);
        let origin = minute.first().map(|c| c.first).unwrap_or_default();
        // A gradual slowdown (a queue building under growing load) reaches
        // double only minutes later: the row still marks where it began,
        // with the minute it had doubled by (organic-growth draw 1818114
        // had no row at its onset, six minutes before the first failure).
        let doubled = usual.and_then(|usual| {
            let until = a
                .errors_start
                .map_or(at + SLOW_RAMP_S, |(e, _)| {
                    ((e - span.start).max(0) as usize).max(at + 60)
                })
                .min(at + SLOW_RAMP_S);
            (at..until).step_by(60).find_map(|m| {
                let cells = a.totals.get(m..(m + 60).min(a.totals.len()))?;
                mean(cells).filter(|v| *v >= 2.0 * usual).map(|v| (m, v))
            })
        });
        if let (Some(now), Some(usual), Some((m, then))) = (mean(minute), usual, doubled) {
            let text = if m == at {
                format!(
                    "Requests slow down: {} on average in the minute from then, against {} before",
                    ms(now),
                    ms(usual)
                )
            } else {
                format!(
                    "Requests begin to slow down: {} on average in the minute from then, against {} before; {} in the minute from {} UTC",
                    ms(now),
                    ms(usual),
                    ms(then),
                    crate::zone::clock((span.start + m as i64) * 1000)
                )
            };
            out.push(TimelineEntry {
                ts: s * 1000,
                kind: TimelineKind::Other,
                text,
                sources: vec![a.source(origin)],
            });
        }
    }

    // Restarts in or near the window; several at once become one entry.
    let restarts: Vec<&super::Restart> = a
        .history
        .restarts
        .iter()
        .filter(|r| r.down >= near.start * 1000 && r.down < window.end * 1000)
        .collect();
    let total = a.fleet.len();
    let mut i = 0;
    let mut groups = 0;
    while let Some(rest @ [head, ..]) = restarts.get(i..) {
        let first = head.down;
        if groups >= RESTART_GROUPS_LISTED && rest.iter().any(|r| unplanned(a, r)) {
            // A crash loop restarts the same instances for an hour: the
            // first rounds tell how it went, the rest is one line. A
            // rollout after them (the rollback replacing the fleet) keeps
            // its own line: it is what the responders did.
            let mut names: Vec<String> = rest.iter().map(|r| a.ids.display(&r.instance)).collect();
            names.sort_unstable();
            names.dedup();
            let last = rest.last().map_or(first, |r| r.down);
            out.push(TimelineEntry {
                ts: first,
                kind: TimelineKind::Restart,
                text: format!(
                    "Restarts go on until {} UTC: {} more on {}",
                    crate::zone::clock(last),
                    rest.len(),
                    listed(&names)
                ),
                sources: rest.iter().take(1).map(|r| a.source(r.source)).collect(),
            });
            break;
        }
        groups += 1;
        let group: Vec<&&super::Restart> = rest
            .iter()
            .take_while(|r| r.down - first <= SYNC_WINDOW_MS)
            .collect();
        let mut names: Vec<String> = group.iter().map(|r| a.ids.display(&r.instance)).collect();
        names.sort_unstable();
        names.dedup();
        let cause_of = |r: &super::Restart| {
            r.cause
                .as_deref()
                .map(|c| format!(": {}", crate::redact::redact_text(c)))
                .unwrap_or_default()
        };
        let cause = group
            .iter()
            .find(|r| r.cause.is_some())
            .map(|r| cause_of(r))
            .unwrap_or_default();
        // Until the last of them first went down: an instance's second
        // restart inside the minute is the loop going on, not the spread
        // ("within 58 s" here beside the finding's "within 14 s").
        let mut firsts: std::collections::BTreeMap<String, Millis> = Default::default();
        for r in &group {
            firsts.entry(a.ids.display(&r.instance)).or_insert(r.down);
        }
        let spread = (firsts.values().copied().max().unwrap_or(first) - first) / 1000;
        // A rollout replacing the fleet is the change's doing, not instances dying.
        let rollout = group
            .iter()
            .all(|r| !unplanned(a, r))
            .then(|| nearest_change(a, first))
            .flatten();
        // Against the fleet running then: a scale-out's pods came later.
        let running = a.running(total, names.len());
        if names.len() >= 2 && names.len() * 2 >= running {
            let all = names.len() == running;
            if let Some(change) = rollout {
                out.push(TimelineEntry {
                    ts: first,
                    kind: TimelineKind::Restart,
                    text: format!(
                        "{} of {running} instances replaced within {spread} s by the {change} ({})",
                        names.len(),
                        names.join(", ")
                    ),
                    sources: group.iter().take(3).map(|r| a.source(r.source)).collect(),
                });
                i += group.len();
                continue;
            }
            out.push(TimelineEntry {
                ts: first,
                kind: if all {
                    TimelineKind::AllInstancesRestarted
                } else {
                    TimelineKind::Restart
                },
                text: format!(
                    "{} {} of {running} instances restarted within {spread} s ({}){cause}",
                    if all { "All" } else { "" },
                    names.len(),
                    names.join(", ")
                )
                .trim_start()
                .to_string(),
                sources: group.iter().take(3).map(|r| a.source(r.source)).collect(),
            });
        } else if let Some(change) = rollout {
            // A few instances a change stopped (a rollback removing the
            // canary's pods) were not restarted: the change took them out.
            out.push(TimelineEntry {
                ts: first,
                kind: TimelineKind::Restart,
                text: format!(
                    "{} of {running} instance{} stopped by the {change} ({})",
                    names.len(),
                    if running == 1 { "" } else { "s" },
                    names.join(", ")
                ),
                sources: group.iter().take(3).map(|r| a.source(r.source)).collect(),
            });
        } else {
            for r in &group {
                out.push(TimelineEntry {
                    ts: r.down,
                    kind: TimelineKind::Restart,
                    text: format!("{} restarted{}", a.ids.display(&r.instance), cause_of(r)),
                    sources: vec![a.source(r.source)],
                });
            }
        }
        for r in &group {
            if let Some(up) = r.up.filter(|u| *u > r.down) {
                out.push(TimelineEntry {
                    ts: up,
                    kind: TimelineKind::Restart,
                    text: format!(
                        "{} is back up ({} s after going down)",
                        a.ids.display(&r.instance),
                        (up - r.down) / 1000
                    ),
                    sources: vec![a.source(r.source)],
                });
            }
        }
        i += group.len();
    }

    if let Some(r) = a
        .history
        .restarts
        .iter()
        .filter(|r| r.down >= near.start * 1000 && r.down < window.end * 1000)
        .find(|r| unplanned(a, r))
    {
        out.push(TimelineEntry {
            ts: r.down,
            kind: TimelineKind::Crash,
            text: format!(
                "{} went down{}",
                a.ids.display(&r.instance),
                r.cause
                    .as_deref()
                    .map(|c| format!(": {}", crate::redact::redact_text(c)))
                    .unwrap_or_default()
            ),
            sources: vec![a.source(r.source)],
        });
    }

    out.extend(circuit(a));
    out.extend(leak_reports(a));
    out.extend(changes(a, near));
    out.extend(scale_outs(a, near));

    out.push(TimelineEntry {
        ts: inc.recovered * 1000,
        kind: TimelineKind::Recovered,
        text: "Error rate, latency and health back to their baseline, and they stay there"
            .to_string(),
        sources: Vec::new(),
    });
    sort(&mut out);
    out
}

/// A circuit breaker's opening, in its own words, and its closing.
fn circuit(a: &Analysis) -> Vec<TimelineEntry> {
    let Some(c) = &a.circuit else {
        return Vec::new();
    };
    let said = if c.message.is_empty() {
        String::new()
    } else {
        format!(": \"{}\"", crate::redact::quote(&c.message, 120))
    };
    let many = super::signal_lines::how_many(c.lines, c.instances);
    let mut out = vec![TimelineEntry {
        ts: c.opened * 1000,
        kind: TimelineKind::CircuitOpened,
        text: format!("A circuit breaker opens{said}{many}"),
        sources: vec![a.source(c.origin)],
    }];
    if let Some((s, o)) = c.closed {
        // A breaker that reopens was not over when it first closed.
        let again = match c.reopened {
            0 => String::new(),
            1 => format!(
                "; it opens again at {}",
                crate::zone::clock(c.last_opened * 1000)
            ),
            n => format!(
                "; it opens again later: {n} more opening lines, the last at {}",
                crate::zone::clock(c.last_opened * 1000)
            ),
        };
        out.push(TimelineEntry {
            ts: s * 1000,
            kind: TimelineKind::CircuitClosed,
            text: format!(
                "The circuit breaker closes ({} s after it opened){again}",
                s - c.opened
            ),
            sources: vec![a.source(o)],
        });
    }
    out
}

/// A pool's first report of a leaked connection, in its own words.
fn leak_reports(a: &Analysis) -> Option<TimelineEntry> {
    let l = a.leak_reports.as_ref()?;
    let said = if l.message.is_empty() {
        String::new()
    } else {
        format!(": \"{}\"", crate::redact::quote(&l.message, 120))
    };
    Some(TimelineEntry {
        ts: l.first * 1000,
        kind: TimelineKind::ConnectionLeak,
        text: format!(
            "The connection pool reports a leaked connection{said}{}",
            super::signal_lines::how_many(l.lines, l.instances)
        ),
        sources: vec![a.source(l.origin)],
    })
}

/// A restart this close to a deploy, rollback or scale change is part of it.
pub const ROLLOUT_MS: Millis = 300_000;

/// Whether a restart was the instance dying rather than a rollout replacing
/// it: a stated cause says so, and a restart without one counts unless a
/// deploy, rollback, flag change or scale-out came within minutes of it.
pub fn unplanned(a: &Analysis, r: &super::Restart) -> bool {
    !super::instances::planned(r.cause.as_deref(), &a.stop_causes, || {
        near_a_change(a, r.down)
    })
}

/// The change or scale-out nearest `t` within a rollout's reach, named for
/// a sentence: `rollback of \`api\` at 12:19:58 UTC`.
fn nearest_change(a: &Analysis, t: Millis) -> Option<String> {
    let changes = a.changes.iter().chain(&a.operations).map(|c| {
        let what = match c.kind {
            InfraKind::Rollback => "rollback",
            InfraKind::FlagChange => "flag change",
            InfraKind::Operation => "operator's action",
            _ => "deploy",
        };
        (c.ts, format!("{what} of `{}`", c.object))
    });
    let scales = a
        .scale_outs
        .iter()
        .map(|s| (s.ts, format!("scale-out of `{}`", s.group)));
    changes
        .chain(scales)
        .filter(|(ts, _)| (ts - t).abs() <= ROLLOUT_MS)
        .min_by_key(|(ts, what)| ((ts - t).abs(), what.clone()))
        .map(|(ts, what)| format!("{what} at {} UTC", crate::zone::clock(ts)))
}

/// Names for a sentence: all of up to three, else three and how many more.
fn listed(names: &[String]) -> String {
    match names.len() {
        0..=3 => names.join(", "),
        n => {
            let first: Vec<&str> = names.iter().take(3).map(String::as_str).collect();
            format!("{} and {} more", first.join(", "), n - 3)
        }
    }
}

fn near_a_change(a: &Analysis, t: Millis) -> bool {
    a.changes
        .iter()
        .chain(&a.operations)
        .any(|c| (c.ts - t).abs() <= ROLLOUT_MS)
        || a.scale_outs.iter().any(|s| (s.ts - t).abs() <= ROLLOUT_MS)
}

/// How long before the onset a change is still worth a timeline entry.
const CHANGE_LOOKBACK_S: i64 = 1800;

/// How long after the recovery a rollback still belongs to the incident's
/// story: responders often roll back once the errors have eased, and the
/// reader wants to see it. (Flag changes are many and mostly unrelated;
/// they keep the short margin.)
pub const ACTION_LOOKAHEAD_S: i64 = 1800;

/// Deploys, rollbacks, flag changes and operators' other actions (config,
/// rate limits, manual restarts) near the incident. Rollbacks and other
/// actions reach the action look-ahead past the recovery: a rate limit or a
/// restart is how an incident was handled, often logged as it eased.
fn changes(a: &Analysis, near: Span) -> Vec<TimelineEntry> {
    a.changes
        .iter()
        .chain(&a.operations)
        .filter(|c| {
            let after = match c.kind {
                InfraKind::Rollback | InfraKind::Operation => ACTION_LOOKAHEAD_S,
                _ => super::onset::MERGE_GAP,
            };
            c.ts >= (near.start - CHANGE_LOOKBACK_S) * 1000 && c.ts < (near.end + after) * 1000
        })
        .map(|c| TimelineEntry {
            ts: c.ts,
            kind: match c.kind {
                InfraKind::Rollback => TimelineKind::Rollback,
                InfraKind::FlagChange => TimelineKind::FlagChange,
                InfraKind::Operation => TimelineKind::Change,
                _ => TimelineKind::Deploy,
            },
            text: super::change_text::change_text(&c.reason, &c.object, &c.message),
            sources: vec![a.source(c.origin)],
        })
        .fold(Vec::new(), same_change_once)
}

/// Two records of one change (the deploy log's line and the CI's
/// deployment for the same version, within minutes) are one entry citing
/// both, not two rows a reader takes for two deploys.
fn same_change_once(mut out: Vec<TimelineEntry>, e: TimelineEntry) -> Vec<TimelineEntry> {
    let versions = |t: &str| -> Vec<String> {
        t.split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ':' | ',' | '"'))
            .map(|w| w.trim_start_matches(['v', 'V']))
            .filter(|w| w.contains('.') && w.starts_with(|c: char| c.is_ascii_digit()))
            .map(str::to_string)
            .collect()
    };
    let mine = versions(&e.text);
    let twin = out.iter_mut().find(|o| {
        o.kind == e.kind
            && (o.ts - e.ts).abs() <= SAME_CHANGE_MS
            && versions(&o.text)
                .first()
                .is_some_and(|v| mine.first() == Some(v))
    });
    match twin {
        Some(o) => {
            for s in e.sources {
                if !o.sources.contains(&s) {
                    o.sources.push(s);
                }
            }
            // The shorter text is the change log's own line, without a CI's decorations.
            if e.text.len() < o.text.len() {
                o.text = e.text;
                o.ts = o.ts.min(e.ts);
            }
        }
        None => out.push(e),
    }
    out
}

/// A tenant's rate over the window against its baseline that makes its
/// busiest seconds a surge on the timeline.
const SURGE_RATIO: f64 = 2.0;

/// Records of one change by two systems come this close together.
const SAME_CHANGE_MS: Millis = 300_000;

/// Scale-outs from the onset (less a merge gap) to a little after recovery:
/// the action that ended an incident may be logged just after it.
fn scale_outs(a: &Analysis, near: Span) -> Vec<TimelineEntry> {
    a.scale_outs
        .iter()
        .filter(|s| s.ts >= near.start * 1000 && s.ts < (near.end + super::onset::MERGE_GAP) * 1000)
        .map(|s| {
            let size = match (s.from, s.to) {
                (Some(f), Some(t)) => format!(" from {f} to {t} instances"),
                (None, Some(t)) => format!(" to {t} instances"),
                _ => String::new(),
            };
            let (rest, why) = super::change_text::told(&s.message);
            // "3->8" says again what the sizes say.
            let rest: Vec<&str> = rest
                .split_whitespace()
                .filter(|w| !(s.from.is_some() && s.to.is_some() && w.contains("->")))
                .collect();
            let mut text = format!("`{}` scaled out{size}", s.group);
            if !rest.is_empty() {
                text.push_str(&format!(": {}", rest.join(" ")));
            }
            if let Some(why) = why {
                text.push_str(&format!(" (reason given: \"{why}\")"));
            }
            TimelineEntry {
                ts: s.ts,
                kind: TimelineKind::ScaleOut,
                text,
                sources: vec![a.source(s.origin)],
            }
        })
        .collect()
}

/// Sort by time, then kind, then text: deterministic.
pub fn sort(entries: &mut [TimelineEntry]) {
    entries.sort_by(|a, b| (a.ts, a.kind, &a.text).cmp(&(b.ts, b.kind, &b.text)));
}

/// A rate for text: two significant figures below 10.
pub fn rate(r: f64) -> String {
    if r >= 10.0 {
        format!("{r:.0}")
    } else if r >= 1.0 {
        format!("{r:.1}")
    } else if r > 0.0 {
        let digits = (-r.log10().floor()) as usize + 1;
        format!("{r:.digits$}")
    } else {
        "0".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(ts: Millis, kind: TimelineKind, text: &str, source: &str) -> TimelineEntry {
        TimelineEntry {
            ts,
            kind,
            text: text.to_string(),
            sources: vec![source.to_string()],
        }
    }

    /// The deploy log's line and the CI's deployment of the same version are
    /// one row citing both; another version, or a deploy an hour later, is not.
    #[test]
    fn one_change_recorded_twice_is_one_row() {
        let rows = vec![
            entry(1_000, TimelineKind::Deploy, "deploy of `app` v2.79.0 by ci", "deploys.log:1"),
            entry(
                1_000,
                TimelineKind::Deploy,
                "github deployment `production`: deploy of vv2.79.0 (d4deb02a) by ci: Deploy v2.79.0",
                "github.json:2",
            ),
            entry(2_000, TimelineKind::Deploy, "deploy of `app` v2.80.0 by ci", "deploys.log:2"),
            entry(3_600_000, TimelineKind::Deploy, "deploy of `app` v2.79.0 by ci", "deploys.log:3"),
            entry(5_000, TimelineKind::Rollback, "rollback of `app` to v2.79.0", "deploys.log:4"),
        ];
        let out = rows.into_iter().fold(Vec::new(), same_change_once);
        assert_eq!(out.len(), 4, "{out:#?}");
        assert_eq!(out[0].text, "deploy of `app` v2.79.0 by ci");
        assert_eq!(out[0].sources, vec!["deploys.log:1", "github.json:2"]);
    }

    /// An analysis whose incident ran from second 1000 to 2000.
    fn incident_1000_to_2000() -> Analysis {
        Analysis {
            incident: Some(crate::correlate::onset::Incident {
                onset: 1000,
                recovered: 2000,
                symptoms_start: 1000,
            }),
            ..Analysis::default()
        }
    }

    /// A group's spread runs to the last instance's first restart: one
    /// restarted again inside the minute (a crash loop) does not widen it.
    #[test]
    fn a_groups_spread_ends_at_its_last_instances_first_restart() {
        let mut a = incident_1000_to_2000();
        let restart = |instance: &str, down_s: i64| super::super::Restart {
            instance: instance.to_string(),
            down: down_s * 1000,
            up: None,
            source: Default::default(),
            cause: None,
        };
        a.history.restarts = vec![
            restart("web-1", 1010),
            restart("web-2", 1015),
            restart("web-3", 1024),
            restart("web-1", 1068),
        ];
        a.fleet = ["web-1", "web-2", "web-3"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let texts: Vec<String> = build(&a).into_iter().map(|e| e.text).collect();
        assert!(
            texts
                .iter()
                .any(|t| t.starts_with("All 3 of 3 instances restarted within 14 s")),
            "{texts:?}"
        );
    }

    /// Failed keep-alives that a watchdog killed the instances for are
    /// told as watchdog timeouts; a failed probe is a failing health check.
    #[test]
    fn a_watchdog_timeout_is_no_failing_health_check() {
        let mut a = incident_1000_to_2000();
        a.fleet = ["vm-1", "vm-2"].iter().map(|s| s.to_string()).collect();
        for (i, inst) in ["vm-1", "vm-2"].iter().enumerate() {
            let t = 1_010_000 + i as Millis * 5_000;
            a.history.probe_failures.insert(
                inst.to_string(),
                super::super::ProbeFailures {
                    first: t,
                    last: t,
                    count: 1,
                    origin: Default::default(),
                    runs: vec![(t, t, Default::default())],
                },
            );
            a.history.restarts.push(super::super::Restart {
                instance: inst.to_string(),
                down: t,
                up: None,
                source: Default::default(),
                cause: Some(super::super::instances::KILLED_BY_WATCHDOG.to_string()),
            });
        }
        let row = |a: &Analysis| {
            build(a)
                .into_iter()
                .find(|e| e.kind == TimelineKind::HealthChecksFailing)
                .map(|e| e.text)
        };
        assert_eq!(
            row(&a).as_deref(),
            Some("Watchdog timeouts start (on 2 of 2 instances)")
        );
        a.history.restarts[1].cause = Some("Container api failed liveness probe".to_string());
        assert_eq!(
            row(&a).as_deref(),
            Some("Health checks start failing (on 2 of 2 instances)")
        );
    }

    /// A rollback of `object` recorded at `ts`.
    fn rollback_of(object: &str, ts: Millis) -> crate::event::InfraEvent {
        crate::event::InfraEvent {
            ts,
            first_ts: ts,
            origin: Default::default(),
            kind: InfraKind::Rollback,
            object: object.to_string(),
            reason: String::new(),
            message: String::new(),
            count: 1,
            members: Vec::new(),
            host: None,
        }
    }

    /// Restarts past the listed rounds are summed up in one row, but a
    /// rollback replacing the fleet after them keeps its own.
    #[test]
    fn a_rollout_after_the_listed_restarts_keeps_its_row() {
        let mut a = incident_1000_to_2000();
        let restart = |instance: &str, down_s: i64, cause: &str| super::super::Restart {
            instance: instance.to_string(),
            down: down_s * 1000,
            up: None,
            source: Default::default(),
            cause: Some(cause.to_string()),
        };
        let killed = "Container app failed liveness probe, will be restarted";
        a.history.restarts = vec![
            restart("web-1", 1010, killed),
            restart("web-2", 1200, killed),
            restart("web-1", 1400, killed),
            restart("web-1", 1900, "Stopping container app"),
            restart("web-2", 1905, "Stopping container app"),
        ];
        a.fleet = ["web-1", "web-2"].iter().map(|s| s.to_string()).collect();
        a.changes = vec![rollback_of("app", 1_890_000)];
        let texts: Vec<String> = build(&a)
            .into_iter()
            .filter(|e| e.kind == TimelineKind::Restart)
            .map(|e| e.text)
            .collect();
        assert!(
            texts.iter().any(|t| t.contains("by the rollback of `app`")),
            "{texts:?}"
        );
        assert!(
            !texts.iter().any(|t| t.starts_with("Restarts go on")),
            "{texts:?}"
        );
    }

    /// A slowdown that doubles the usual latency only minutes after its
    /// first sign still has its row at that sign, saying when it doubled;
    /// one that never doubles has none.
    #[test]
    fn a_gradual_slowdown_is_marked_where_it_began() {
        let mut a = incident_1000_to_2000();
        a.span = Some(crate::aggregate::Span::new(0, 3000));
        a.baseline = Some(crate::aggregate::Span::new(0, 900));
        a.latency_start = Some(1000);
        // 100 ms before the onset, then 150 ms, 190 ms, 250 ms a minute.
        let ms = |t: usize| match t {
            0..1000 => 100,
            1000..1060 => 150,
            1060..1120 => 190,
            _ => 250,
        };
        a.totals = (0..3000)
            .map(|t| crate::aggregate::Cell {
                requests: 1,
                done: 1,
                ok: 1,
                timed: 1,
                busy_us: ms(t) * 1000,
                ..Default::default()
            })
            .collect();
        let slow = |a: &Analysis| {
            build(a)
                .into_iter()
                .find(|e| e.text.contains("slow down"))
                .map(|e| (e.ts, e.text))
        };
        assert_eq!(
            slow(&a),
            Some((
                1_000_000,
                "Requests begin to slow down: 150 ms on average in the minute from then, against 100 ms before; 250 ms in the minute from 00:18:40 UTC".to_string()
            ))
        );
        for c in a.totals.iter_mut().skip(1120) {
            c.busy_us = 190_000;
        }
        assert_eq!(slow(&a), None);
    }

    /// A rollback removing the canary's pods stopped them; it did not
    /// restart them.
    #[test]
    fn pods_a_rollback_removed_are_stopped_not_restarted() {
        let mut a = incident_1000_to_2000();
        a.history.restarts = vec![super::super::Restart {
            instance: "canary-1".to_string(),
            down: 1_900_000,
            up: None,
            source: Default::default(),
            cause: Some("Stopping container api".to_string()),
        }];
        a.fleet = ["web-1", "web-2", "canary-1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let texts = |a: &Analysis| -> Vec<String> {
            build(a)
                .into_iter()
                .filter(|e| e.kind == TimelineKind::Restart)
                .map(|e| e.text)
                .collect()
        };
        assert_eq!(texts(&a), ["canary-1 restarted: Stopping container api"]);
        a.changes = vec![rollback_of("api", 1_904_000)];
        let t = texts(&a);
        assert_eq!(t.len(), 1, "{t:?}");
        assert!(
            t[0].starts_with("1 of 3 instances stopped by the rollback of `api`"),
            "{t:?}"
        );
    }

    #[test]
    fn long_lists_of_names_are_cut_to_three() {
        let names: Vec<String> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(listed(&names), "a, b, c and 2 more");
        assert_eq!(listed(&names[..2]), "a, b");
    }
}
