//! `deploy_regression` and `red_herring_deploy`: the same change is evidence
//! for one and against the other, so one file weighs it.
//!
//! A change (a deploy, or a feature flag turned) caused the incident when
//! the data ties the symptoms to it: they sit on the instances running the
//! new version while the old ones stay healthy; they end when the change is
//! reverted (a rollback, the flag turned back); or they begin shortly after
//! it with nothing else to explain them. It is a red herring when the data
//! rules it out: the incident began before it, a client's own behaviour
//! explains the incident, the symptoms went on well after it was reverted,
//! or the new version fared no worse than the old.
//!
//! Examples: 2 new pods of 6 fail 31% of their requests while the old fail
//! 0.2%, and the rollback ends it: a regression. A deploy at 17:35, onset
//! 17:38 with one integration's requests holding the pool, rollback at
//! 17:50, symptoms until 18:20: a red herring (seed 003).

use super::finding::{confidence, percent, Evidence, Finding, Subject};
use super::Context;
use crate::aggregate::{Dim, Span};
use crate::event::{InfraEvent, InfraKind, Millis};
use crate::zone::clock;

pub const REGRESSION: &str = "deploy_regression";
pub const RED_HERRING: &str = "red_herring_deploy";

const REGRESSION_ACTIONS: &[&str] = &[
    "Roll back first, investigate second: revert the change, then fix it before it ships again",
    "Canary or staged rollouts with automatic rollback on error-rate or latency regressions, compared by version",
];
/// Where the responders already undid the change: "revert it" would be
/// advice for what was done (a review of flag-flip draw 1818100).
const REVERTED_ACTIONS: &[&str] = &[
    "Keep the change undone until it is fixed: find what in it caused this before it ships again",
    "Canary or staged rollouts with automatic rollback on error-rate or latency regressions, compared by version",
];
const RED_HERRING_ACTIONS: &[&str] = &[
    "During an incident, check per-tenant and per-integration load before rolling back",
    "Record deploys next to the leading indicators so responders can see whether a change lines up with the onset",
];

/// Changes this long before the onset are weighed (a connection leak takes
/// minutes to fill a pool); later ones up to recovery.
const LOOKBACK_MS: Millis = 60 * 60 * 1000;
/// An onset this soon after a change follows it.
const FOLLOWS_MS: Millis = 15 * 60 * 1000;
/// Recovery this soon after a revert is the revert's doing (it takes a
/// rollout to replace the pods, and queues to drain).
const FIX_MS: Millis = 5 * 60 * 1000;
/// New instances joined within this long after the change.
const ROLLOUT_MS: Millis = 15 * 60 * 1000;
/// The new version fails or slows this many times more than the old.
const VERSION_SPLIT: f64 = 3.0;

/// How the instances on the new version fared against the old ones.
struct Split {
    new: Vec<String>,
    new_failed: f64,
    old_failed: f64,
    new_ms: f64,
    old_ms: f64,
}

impl Split {
    fn worse(&self) -> bool {
        (self.new_failed >= 0.02 && self.new_failed >= VERSION_SPLIT * self.old_failed.max(0.001))
            || (self.new_ms >= 500.0 && self.new_ms >= VERSION_SPLIT * self.old_ms.max(1.0))
    }

    fn same(&self) -> bool {
        self.new_failed <= 1.5 * self.old_failed + 0.01 && self.new_ms <= 1.5 * self.old_ms + 50.0
    }
}

pub fn detect(cx: &Context<'_>, sink: &mut Vec<Finding>) {
    let a = cx.analysis;
    let (Some(inc), Some(window), Some(baseline)) = (a.incident, a.window(), a.baseline) else {
        return;
    };
    let (onset, recovered) = (inc.onset * 1000, inc.recovered * 1000);
    let candidates: Vec<&InfraEvent> = a
        .changes
        .iter()
        .filter(|c| {
            matches!(c.kind, InfraKind::Deploy | InfraKind::FlagChange)
                && c.ts >= onset - LOOKBACK_MS
                && c.ts < recovered
        })
        .collect();
    // Every change of the hour before is weighed; the one the evidence ties
    // best to the incident is reported (ties: the closest before the onset).
    // A client a detector before this one blamed (slow requests holding
    // the servers, a surge): its own behaviour explains the incident, as
    // the attribution's culprit does.
    let client = sink.iter().find(|f| {
        matches!(
            f.pattern,
            super::slow_request_hogging::ID | super::tenant_surge::ID
        ) && f.confidence >= super::SUPPORTED
            && (f.subject.tenant.is_some() || f.subject.integration.is_some())
    });
    let Some(w) = candidates
        .iter()
        .map(|c| weigh(cx, c, onset, recovered, (window, baseline), client))
        .max_by(|x, y| {
            (x.for_it - x.against)
                .total_cmp(&(y.for_it - y.against))
                .then_with(|| {
                    before_first(x.change.ts, onset).cmp(&before_first(y.change.ts, onset))
                })
        })
    else {
        return;
    };
    let Weighed {
        change,
        what,
        for_it,
        against,
        evidence,
        leaked,
        new_worse,
        reverted,
    } = w;
    let regression_actions = if reverted {
        REVERTED_ACTIONS
    } else {
        REGRESSION_ACTIONS
    };
    // A deploy is called by what it shipped where the record names a
    // version: the object may be only an environment (`production`).
    let name = match crate::correlate::version_in(&change.message).filter(|_| what == "deploy") {
        Some(v) => format!("{v} to `{}`", change.object),
        None => format!("`{}`", change.object),
    };
    // What the change did, where the evidence shows it: the reader's next
    // question after "which change".
    let mechanism = match (leaked, new_worse) {
        (true, _) => ": it took database connections and did not give them back".to_string(),
        (false, Some((n, new, old))) if new > old => format!(
            ": the {n} instance{} running it failed {} of requests, the others {}",
            if n == 1 { "" } else { "s" },
            percent(new),
            percent(old)
        ),
        _ => String::new(),
    };
    let (pattern, c, title, actions) = if for_it >= 0.3 && against < 0.3 {
        (
            REGRESSION,
            0.35 + for_it - against,
            format!("The {what} of {name} caused the incident{mechanism}"),
            regression_actions,
        )
    } else if against >= 0.3 {
        (
            RED_HERRING,
            0.3 + against - for_it / 2.0,
            format!("The {what} of {name} does not explain the incident"),
            RED_HERRING_ACTIONS,
        )
    } else {
        // Neither shown: weak either way, said as such.
        (
            REGRESSION,
            0.2 + for_it,
            format!(
                "The {what} of {name} may have contributed; the data neither ties the symptoms to it nor rules it out"
            ),
            regression_actions,
        )
    };
    sink.push(Finding {
        figures: Vec::new(),
        pattern,
        title,
        confidence: confidence(f64::min(c, 0.95)),
        start: change.ts,
        end: recovered,
        subject: Subject {
            endpoint: Some(change.object.clone()),
            ..Subject::default()
        },
        evidence,
        timeline: Vec::new(),
        actions,
    });
}

fn minutes(ms: Millis) -> String {
    let s = ms / 1000;
    if s < 120 {
        format!("{s} s")
    } else {
        format!("{} min", s / 60)
    }
}

/// Instances that joined within a rollout's time after a deploy (the new
/// version) against those serving from before it, over the window.
fn split(cx: &Context<'_>, at: Millis, window: Span, baseline: Span) -> Option<Split> {
    let a = cx.analysis;
    let seen = cx.agg.seen(Dim::Instance);
    let at_s = at.div_euclid(1000);
    let is_new = |name: &str| {
        seen.get(name)
            .is_some_and(|(first, _)| *first >= at_s - 60 && *first <= at_s + ROLLOUT_MS / 1000)
    };
    let stats = cx.agg.dim_stats(Dim::Instance, window, baseline).ok()?;
    let (mut nr, mut nf, mut nb, mut or, mut of, mut ob) = (0u64, 0u64, 0.0, 0u64, 0u64, 0.0);
    let mut new = Vec::new();
    for s in stats.iter().filter(|s| s.window_requests > 0) {
        if is_new(&s.value) {
            nr += s.window_requests;
            nf += s.window_failed;
            nb += s.window_busy_ms;
            new.push(a.ids.canonical(&s.value));
        } else if seen
            .get(&s.value)
            .is_some_and(|(first, _)| *first < at_s - 60)
        {
            or += s.window_requests;
            of += s.window_failed;
            ob += s.window_busy_ms;
        }
    }
    // Both sides need enough requests to compare.
    if nr < 50 || or < 50 {
        return None;
    }
    new.sort();
    new.dedup();
    Some(Split {
        new,
        new_failed: nf as f64 / nr as f64,
        old_failed: of as f64 / or as f64,
        new_ms: nb / nr as f64,
        old_ms: ob / or as f64,
    })
}

/// One change with the evidence for and against it.
struct Weighed<'a> {
    change: &'a InfraEvent,
    what: &'static str,
    for_it: f64,
    against: f64,
    evidence: Vec<Evidence>,
    /// Connections in use climbed from the change at the same load.
    leaked: bool,
    /// The new version's instances failed far more than the others (a
    /// canary): how many, and each side's failure rate.
    new_worse: Option<(usize, f64, f64)>,
    /// The change was undone (rolled back, the flag set back) by the time
    /// the service recovered.
    reverted: bool,
}

/// Orders changes for a tie: before the onset beats after, and among those
/// before, the later one; after it, the earlier one.
fn before_first(ts: Millis, onset: Millis) -> (bool, Millis) {
    if ts <= onset {
        (true, ts)
    } else {
        (false, -ts)
    }
}

fn weigh<'a>(
    cx: &Context<'_>,
    change: &'a InfraEvent,
    onset: Millis,
    recovered: Millis,
    (window, baseline): (Span, Span),
    client: Option<&Finding>,
) -> Weighed<'a> {
    let a = cx.analysis;
    // A client's doing, by the attribution or by a detector's finding.
    let blamed = a.attribution.culprit || client.is_some();
    let flag = change.kind == InfraKind::FlagChange;
    let what = if flag { "flag change" } else { "deploy" };
    let revert = a.changes.iter().find(|r| {
        let reverts = if flag {
            r.kind == InfraKind::FlagChange && r.object == change.object
        } else {
            r.kind == InfraKind::Rollback
        };
        reverts && r.ts > change.ts && r.ts < recovered + FIX_MS
    });
    let split = if flag {
        None
    } else {
        split(cx, change.ts, window, baseline)
    };

    let mut evidence = vec![Evidence::new(
        format!(
            "{} `{}` at {}: {}",
            change.reason,
            change.object,
            clock(change.ts),
            crate::redact::redact_text(&change.message)
        ),
        a.source(change.origin),
    )];
    let mut for_it: f64 = 0.0;
    let mut against: f64 = 0.0;
    // Against: the incident began before the change.
    if change.ts > onset + 30_000 {
        against += 0.35;
        evidence.push(Evidence::new(
            format!("the incident began at {}, before the {what}", clock(onset)),
            "timeline",
        ));
    } else if onset - change.ts <= FOLLOWS_MS {
        for_it += 0.15;
        evidence.push(Evidence::new(
            format!("the incident began {} after it", minutes(onset - change.ts)),
            "timeline",
        ));
    }
    // Against: a client's own behaviour explains the incident.
    if let Some(r) = a.attribution.rows.first().filter(|_| a.attribution.culprit) {
        against += 0.3;
        evidence.push(Evidence::new(
            format!(
                "{} changed its own behaviour ({:.1}x its request rate, {:.1}x its cost per request) and holds {:.0}% of the busy time",
                r.label(),
                r.rate_ratio,
                r.cost_ratio,
                r.share_of_busy_time * 100.0
            ),
            a.request_input(),
        ));
    } else if let Some(f) = client {
        against += 0.3;
        evidence.push(Evidence::new(
            format!(
                "{}: its own behaviour explains the incident",
                f.title.trim_end_matches('.')
            ),
            f.evidence
                .first()
                .map(|e| e.source.clone())
                .unwrap_or_default(),
        ));
    } else {
        for_it += 0.05;
    }
    // The revert: recovery right after it, or symptoms going on.
    if let Some(r) = revert {
        let verb = if flag {
            "flag changed back"
        } else {
            "rollback"
        };
        if recovered >= r.ts - 60_000 && recovered - r.ts <= FIX_MS {
            for_it += 0.3;
            evidence.push(Evidence::new(
                format!(
                    "{verb} at {}; the service recovered at {}",
                    clock(r.ts),
                    clock(recovered)
                ),
                a.source(r.origin),
            ));
        } else if recovered - r.ts > FIX_MS {
            against += 0.3;
            evidence.push(Evidence::new(
                format!(
                    "{verb} at {}, yet the symptoms went on until {}",
                    clock(r.ts),
                    clock(recovered)
                ),
                a.source(r.origin),
            ));
        }
    }
    // For: connections in use climbing from the change to the onset at
    // the same load (a leak shipped in the release). When a client's own
    // behaviour explains the incident, what it held is its doing.
    let leak = a
        .span
        .filter(|_| !blamed && change.ts <= onset)
        .and_then(|span| super::leak::since(cx.agg, &a.totals, span, change.ts, onset));
    // For: the pool itself reporting connections held past its leak
    // threshold, first after the change and before the onset, none in the
    // half-hour before (`correlate::leak_reports`). A slow database makes
    // every connection overdue too, but at the onset, not before it.
    let reported = a.leak_reports.as_ref().filter(|l| {
        !a.attribution.culprit && l.first * 1000 >= change.ts && l.first * 1000 <= onset
    });
    if let Some(l) = reported {
        for_it += if leak.is_some() { 0.1 } else { 0.3 };
        evidence.push(Evidence::new(
            format!(
                "the connection pool reported a leaked connection from {}, {} after the {what} and {} before the onset ({} such line{}, none in the half-hour before)",
                clock(l.first * 1000),
                minutes(l.first * 1000 - change.ts),
                minutes(onset - l.first * 1000),
                l.lines,
                if l.lines == 1 { "" } else { "s" }
            ),
            a.source(l.origin),
        ));
    }
    let leaked = leak.is_some() || reported.is_some();
    if let Some(l) = leak {
        for_it += 0.3;
        evidence.push(Evidence::new(
            format!(
                "`{}` (summed over {} series): at most {:.0} in use in the 30 min before the {what}, climbing from {} to {:.0} at the onset, while requests went from {:.1} to {:.1} req/s: connections taken and not given back",
                l.metric,
                l.series,
                l.before,
                clock(l.rising_from),
                l.at_onset,
                l.rate_before,
                l.rate_after
            ),
            a.input_name(l.input).to_string(),
        ));
    }
    // The new version against the old.
    if let Some(s) = &split {
        let text = format!(
            "instances on the new version ({}): {:.1}% failed, {:.0} ms per request; the others: {:.1}% failed, {:.0} ms",
            s.new
                .iter()
                .map(|n| a.ids.display(n))
                .collect::<Vec<_>>()
                .join(", "),
            s.new_failed * 100.0,
            s.new_ms,
            s.old_failed * 100.0,
            s.old_ms
        );
        let input = a.request_input();
        if s.worse() {
            for_it += 0.3;
            evidence.push(Evidence::new(text, input));
        } else if s.same() {
            against += 0.15;
            evidence.push(Evidence::new(text, input));
        }
    }
    let new_worse = split
        .as_ref()
        .filter(|s| s.worse() && s.new_failed >= 0.02)
        .map(|s| (s.new.len(), s.new_failed, s.old_failed));
    Weighed {
        change,
        what,
        for_it,
        against,
        evidence,
        leaked,
        new_worse,
        reverted: revert.is_some(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn shares_read_as_a_person_says_them() {
        assert_eq!(super::percent(0.4213), "42%");
        assert_eq!(super::percent(0.0012), "0.1%");
        assert_eq!(super::percent(0.0), "0%");
    }
}
