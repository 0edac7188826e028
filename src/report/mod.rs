//! The report as data: the JSON contract of `report-json.md` plus what the
//! Markdown needs (charts, the data section). Built from the analysis and the
//! findings, with every piece of text from the inputs passed through
//! `redact` on the way in. Render reads it and nothing else.
//!
//! In: [`Aggregates`], [`Analysis`], findings, input statistics. Out: [`Report`].

use chrono::{DateTime, SecondsFormat};
use serde::Serialize;
use std::collections::BTreeSet;

use crate::aggregate::{Aggregates, Span};
use crate::correlate::timeline::sort;
use crate::correlate::{Analysis, TimelineEntry, TimelineKind};
use crate::event::Millis;
use crate::parse::InputStats;

/// The generic reader's definition, named in a caveat when it read records.
const GENERIC: &str = "generic_log";
use crate::patterns::Finding;
use crate::redact::redact_text;
use crate::zone::Zone;

pub mod cascade;
pub mod charts;
pub mod culprit;

pub use charts::Charts;

pub const SCHEMA: &str = "postmortem.report/v1";

/// RFC 3339 UTC with a `Z`, seconds precision.
pub fn rfc3339(ms: Millis) -> String {
    DateTime::from_timestamp_millis(ms).map_or_else(
        || "invalid".to_string(),
        |d| d.to_rfc3339_opts(SecondsFormat::Secs, true),
    )
}

fn round(v: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    let r = (v * f).round() / f;
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SpanJson {
    pub start: String,
    pub end: String,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct IncidentJson {
    pub found: bool,
    pub onset: Option<String>,
    pub recovered: Option<String>,
    pub duration_s: Option<i64>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ImpactJson {
    pub requests_total: u64,
    pub requests_failed: u64,
    pub failed_share: f64,
    pub tenants_affected: usize,
    pub instances_affected: Vec<String>,
    /// Added to the contract: the instances running around the incident
    /// (the fleet `instances_affected` is a part of).
    pub instances_total: usize,
    pub full_outages: Vec<SpanJson>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TimelineJson {
    pub ts: String,
    pub kind: TimelineKind,
    pub text: String,
    pub sources: Vec<String>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RowJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    pub integration: Option<String>,
    pub requests: u64,
    pub baseline_rate_per_s: f64,
    pub window_rate_per_s: f64,
    pub rate_ratio: f64,
    pub share_of_requests: f64,
    pub share_of_busy_time: f64,
    pub share_of_errors: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AttributionJson {
    pub dimension: String,
    pub organic: bool,
    /// Added to the contract: whether the total request rate rose in the window.
    pub grew: bool,
    pub rows: Vec<RowJson>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct SubjectJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integration: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EvidenceJson {
    pub text: String,
    pub source: String,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FindingJson {
    pub pattern: String,
    pub title: String,
    pub confidence: f64,
    pub start: String,
    pub end: String,
    pub subject: SubjectJson,
    pub evidence: Vec<EvidenceJson>,
    /// Added to the contract: the remediations for this pattern.
    pub actions: Vec<String>,
    /// The detector's figures for the renderer (see
    /// [`crate::patterns::Finding::figures`]); not part of the JSON contract.
    #[serde(skip)]
    pub figures: Vec<(&'static str, f64)>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct InputJson {
    pub path: String,
    pub format: String,
    pub lines: u64,
    pub parsed: u64,
    pub skipped: u64,
    pub first_ts: Option<String>,
    pub last_ts: Option<String>,
    /// Added to the contract: why lines were skipped.
    pub skipped_by_reason: std::collections::BTreeMap<String, u64>,
    /// Added to the contract: for an envelope, the format of the lines inside.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inner_format: Option<String>,
    /// Added to the contract: the first skipped lines (blank ones aside),
    /// redacted, each with its line and reason.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub first_skipped: Vec<SkippedJson>,
}

/// A skipped line as the report shows it: redacted, cut to a short window.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SkippedJson {
    pub line: u64,
    pub reason: String,
    pub text: String,
}

/// Characters of a skipped line the report shows.
const SKIPPED_SHOWN: usize = 160;

fn first_skipped(i: &InputStats) -> Vec<SkippedJson> {
    i.bad_lines
        .iter()
        .filter(|b| b.reason != "blank line")
        .map(|b| {
            // Redacted whole, then cut: a cut first could leave half an
            // address that no pattern knows any more.
            let redacted = redact_text(&b.text);
            let mut text: String = redacted.chars().take(SKIPPED_SHOWN).collect();
            if b.text_from > 0 {
                text.insert(0, '…');
            }
            if redacted.chars().nth(SKIPPED_SHOWN).is_some() {
                text.push('…');
            }
            SkippedJson {
                line: b.line,
                reason: b.reason.clone(),
                text,
            }
        })
        .collect()
}

/// The JSON report, field for field as `report-json.md`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Report {
    pub schema: &'static str,
    pub generator: String,
    pub span: Option<SpanJson>,
    pub incident: IncidentJson,
    pub impact: ImpactJson,
    pub timeline: Vec<TimelineJson>,
    pub attribution: AttributionJson,
    pub findings: Vec<FindingJson>,
    pub inputs: Vec<InputJson>,
    pub warnings: Vec<String>,
    /// Added to the contract: log message templates, new and surging first
    /// (README.md, "The `templates` array").
    pub templates: Vec<crate::templates::json::TemplateJson>,
    #[serde(skip)]
    pub extra: Extra,
}

/// What the Markdown shows beyond the JSON contract.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extra {
    pub tz: Zone,
    pub charts: Charts,
    pub input_details: Vec<InputStats>,
    pub tenants_active: usize,
    pub tenants_total: usize,
    pub attribution_window_rate: f64,
    pub attribution_baseline_rate: f64,
    /// The window's requests that name a value of the attribution's
    /// dimension (its rates are theirs, not every request's).
    pub attribution_window_requests: u64,
    pub baseline: Option<SpanJson>,
    pub has_requests: bool,
    pub has_logs: bool,
    pub has_metrics: bool,
    pub has_infra: bool,
    pub templates: crate::templates::json::TemplatesExtra,
    /// The client the attribution blames, with its own figures and
    /// everyone else's, so that the impact states the others' failure rate
    /// and the culprit's apart, and a rise from a near-zero baseline is
    /// written as the counts it comes from. None when no client is blamed.
    pub culprit: Option<CulpritFigures>,
    /// Instances that first served after the incident began and were not
    /// affected (a scale-out's or rollback's new pods), by canonical name.
    pub instances_joined: Vec<String>,
    /// The first and last second with requests, when the other records
    /// reach far wider (a start-up line weeks before the export): the span
    /// a reader recognises as the export's.
    pub requests_span: Option<SpanJson>,
    /// The whole export and the bucket (seconds) it was scanned in, when
    /// only hours of it were analysed second by second.
    pub scanned: Option<(SpanJson, i64)>,
    /// Mean duration (ms) of the timed requests in the incident window and
    /// in the baseline, when both have some: a slowdown that failed nothing
    /// is told by it.
    pub latency_ms: Option<(f64, f64)>,
    /// Seconds of the incident the request log holds nothing of, though
    /// the baseline's rate expected requests: (seconds, longest stretch,
    /// requests expected in all).
    pub silence: Option<(i64, SpanJson, f64)>,
    /// Traffic rose in the incident only after the service began to fail
    /// (so it did not set it off): the rate in the lead to the first
    /// failure and the baseline's (req/s), and where requests began to slow
    /// when that came first.
    pub demand_after: Option<(f64, f64, Option<String>)>,
}

/// The blamed client's figures in the incident window and its baseline,
/// and everyone else's in the same window. Counts over requests that name a
/// client (the attribution's), so the two sides add up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CulpritFigures {
    pub tenant: Option<String>,
    pub integration: Option<String>,
    pub requests: u64,
    pub failed: u64,
    pub baseline_requests: u64,
    /// Lengths of the baseline and of the window the counts are from.
    pub baseline_s: i64,
    pub window_s: i64,
    pub others_requests: u64,
    pub others_failed: u64,
}

impl CulpritFigures {
    /// How the findings name it: `` `acct-4411` (integration `acme-exporter`) ``.
    pub fn label(&self) -> String {
        match (&self.tenant, &self.integration) {
            (Some(t), Some(i)) => format!("`{t}` (integration `{i}`)"),
            (Some(t), None) => format!("`{t}`"),
            (None, Some(i)) => format!("integration `{i}`"),
            (None, None) => "one client".to_string(),
        }
    }

    /// Its id alone, for mentions after the first: `` `acct-4411` ``.
    pub fn short(&self) -> String {
        match (&self.tenant, &self.integration) {
            (Some(t), _) => format!("`{t}`"),
            (None, Some(i)) => format!("`{i}`"),
            (None, None) => "one client".to_string(),
        }
    }
}

/// Seconds between two RFC 3339 instants.
pub(crate) fn secs_between(a: &str, b: &str) -> Option<i64> {
    let a = chrono::DateTime::parse_from_rfc3339(a).ok()?;
    let b = chrono::DateTime::parse_from_rfc3339(b).ok()?;
    Some((b - a).num_seconds())
}

/// The attribution with the tenant a trigger finding blames first and
/// called the culprit, when it is among the rows.
fn with_blame(
    attr: &crate::correlate::attribution::Attribution,
    blamed: Option<&str>,
) -> crate::correlate::attribution::Attribution {
    let mut out = attr.clone();
    let at = blamed
        .filter(|_| out.dimension == "tenant")
        .and_then(|t| out.rows.iter().position(|r| r.value == t));
    if let Some(i) = at {
        let row = out.rows.remove(i);
        out.rows.insert(0, row);
        out.culprit = true;
        out.organic = false;
    }
    out
}

/// The culprit's figures, when the attribution names one.
fn culprit_figures(
    attr: &crate::correlate::attribution::Attribution,
    a: &Analysis,
) -> Option<CulpritFigures> {
    let row = attr.rows.first().filter(|_| attr.culprit)?;
    let (window, baseline) = (attr.window?, a.baseline?);
    let tenant_dim = attr.dimension == "tenant";
    Some(CulpritFigures {
        tenant: tenant_dim.then(|| row.value.clone()),
        integration: if tenant_dim {
            row.integration.clone()
        } else {
            Some(row.value.clone())
        },
        requests: row.requests,
        failed: row.failed,
        baseline_requests: row.baseline_requests,
        baseline_s: baseline.end - baseline.start,
        window_s: window.end - window.start,
        others_requests: attr.window_requests.saturating_sub(row.requests),
        others_failed: attr.window_failed.saturating_sub(row.failed),
    })
}

/// Build the report.
pub fn build(
    agg: &Aggregates,
    a: &Analysis,
    findings: &[Finding],
    inputs: &[InputStats],
    tz: Zone,
    mut warnings: Vec<String>,
) -> Report {
    let window = a.window();
    let inc = a.incident;
    let (mut total, mut failed) = (0u64, 0u64);
    if let (Some(span), Some(w)) = (a.span, window) {
        // Seconds of the span index its totals.
        let seconds = w.start.max(span.start)..w.end.min(span.end);
        for c in seconds.filter_map(|s| a.totals.get((s - span.start) as usize)) {
            total += u64::from(c.requests);
            failed += u64::from(c.failed);
        }
    }
    // One entry per server, by its canonical name (how the access log
    // names it), however many names the sources gave it.
    let instances: BTreeSet<String> = if inc.is_some() {
        a.instances_affected.clone()
    } else {
        BTreeSet::new()
    };

    let mut timeline = a.timeline.clone();
    for f in findings
        .iter()
        .filter(|f| f.confidence >= crate::patterns::SUPPORTED)
    {
        for e in &f.timeline {
            fold_entry(&mut timeline, e);
        }
    }
    sort(&mut timeline);
    warnings.extend(a.warnings.iter().cloned());
    for i in inputs {
        if i.zoneless {
            warnings.push(format!(
                "{}: timestamps carry no zone and were read as UTC (set --input-tz ZONE if they are local time)",
                i.path
            ));
        }
        for (reason, n) in &i.unplaced_by_reason {
            warnings.push(format!(
                "{}: {n} record(s) were read but are not on the timeline: {reason}",
                i.path
            ));
        }
        // A file read in part: its other lines are counted, and said so.
        let unread: u64 = i
            .skipped_by_reason
            .iter()
            .filter(|(k, _)| k.as_str() != "blank line")
            .map(|(_, n)| n)
            .sum();
        if unread > 0 {
            let reasons: Vec<String> = i
                .skipped_by_reason
                .iter()
                .filter(|(k, _)| k.as_str() != "blank line")
                .map(|(k, n)| format!("{n} {k}"))
                .collect();
            warnings.push(format!(
                "{}: {unread} of {} line(s) were read by no format and skipped ({}); `postmortem formats check` shows them",
                i.path,
                i.lines,
                reasons.join(", ")
            ));
        }
        if i.format == GENERIC || i.read_by.contains_key(GENERIC) {
            warnings.push(format!(
                "{}: {} read by the generic reader (no definition reads {}): a time, a level and a message each, never a request; --formats-dir adds a definition",
                i.path,
                if i.format == GENERIC { "every record was" } else { "some records were" },
                if i.format == GENERIC { "the file" } else { "those lines" },
            ));
        }
        if i.invalid_utf8 > 0 {
            warnings.push(format!(
                "{}: {} line(s) held invalid UTF-8 and were read lossily",
                i.path, i.invalid_utf8
            ));
        }
    }
    if agg.repeated_requests() > 0 {
        warnings.push(format!(
            "{} request(s) carried the request id of a request an earlier input already held and were counted once",
            agg.repeated_requests()
        ));
    }
    if agg.log_requests_left_out() > 0 {
        warnings.push(format!(
            "{} request line(s) of application logs were not counted as requests: the access logs given hold the same requests, as the proxy saw them",
            agg.log_requests_left_out()
        ));
    }
    if agg.path_sample_rate() > 1 {
        warnings.push(format!(
            "more than {} distinct (tenant, path) pairs: retry detection kept 1 path in {} (chosen by hash), so its path counts are estimates",
            crate::aggregate::MAX_TRACKED_PATHS,
            agg.path_sample_rate()
        ));
    }

    let findings: Vec<FindingJson> = findings
        .iter()
        .map(|f| FindingJson {
            figures: f.figures.clone(),
            pattern: f.pattern.to_string(),
            title: redact_text(&f.title).into_owned(),
            confidence: f.confidence,
            start: rfc3339(f.start),
            end: rfc3339(f.end),
            subject: SubjectJson {
                tenant: f.subject.tenant.clone(),
                integration: f.subject.integration.clone(),
                instance: f.subject.instance.clone(),
                endpoint: f.subject.endpoint.clone(),
            },
            evidence: f
                .evidence
                .iter()
                .map(|e| EvidenceJson {
                    text: redact_text(&e.text).into_owned(),
                    source: e.source.clone(),
                })
                .collect(),
            actions: f.actions.iter().map(|s| s.to_string()).collect(),
        })
        .collect();
    // The attribution blames whom the draft blames: a tenant a trigger
    // finding names (a slow integration through one endpoint, which the
    // request-count attribution can miss) leads it and is no organic growth.
    let onset = inc.map(|i| rfc3339(i.onset * 1000));
    let blamed =
        cascade::trigger(&findings, onset.as_deref()).and_then(|f| f.subject.tenant.clone());
    let attr = &with_blame(&a.attribution, blamed.as_deref());
    let tenant_dim = attr.dimension == "tenant";
    Report {
        schema: SCHEMA,
        generator: format!("postmortem {}", env!("CARGO_PKG_VERSION")),
        span: match (agg.first_ms(), agg.last_ms()) {
            (Some(f), Some(l)) => Some(SpanJson {
                start: rfc3339(f),
                end: rfc3339(l),
            }),
            _ => None,
        },
        incident: IncidentJson {
            found: inc.is_some(),
            onset: inc.map(|i| rfc3339(i.onset * 1000)),
            recovered: inc.map(|i| rfc3339(i.recovered * 1000)),
            duration_s: inc.map(|i| i.recovered - i.onset),
        },
        impact: ImpactJson {
            requests_total: total,
            requests_failed: failed,
            failed_share: if total > 0 {
                round(failed as f64 / total as f64, 4)
            } else {
                0.0
            },
            tenants_affected: if inc.is_some() && tenant_dim {
                attr.with_failures
            } else {
                0
            },
            instances_affected: instances.into_iter().collect(),
            instances_total: if inc.is_some() { a.fleet.len() } else { 0 },
            full_outages: if inc.is_some() {
                a.outages
                    .iter()
                    .map(|o| SpanJson {
                        start: rfc3339(o.start * 1000),
                        end: rfc3339(o.end * 1000),
                    })
                    .collect()
            } else {
                Vec::new()
            },
        },
        timeline: timeline
            .iter()
            .map(|e: &TimelineEntry| TimelineJson {
                ts: rfc3339(e.ts),
                kind: e.kind,
                text: redact_text(&e.text).into_owned(),
                sources: e.sources.clone(),
            })
            .collect(),
        attribution: AttributionJson {
            dimension: attr.dimension.to_string(),
            organic: attr.organic,
            grew: attr.grew,
            rows: attr
                .rows
                .iter()
                .map(|r| RowJson {
                    tenant: tenant_dim.then(|| r.value.clone()),
                    integration: if tenant_dim {
                        r.integration.clone()
                    } else {
                        Some(r.value.clone())
                    },
                    requests: r.requests,
                    baseline_rate_per_s: round(r.baseline_rate_per_s, 4),
                    window_rate_per_s: round(r.window_rate_per_s, 3),
                    rate_ratio: round(r.rate_ratio, 1),
                    share_of_requests: round(r.share_of_requests, 3),
                    share_of_busy_time: round(r.share_of_busy_time, 3),
                    share_of_errors: round(r.share_of_errors, 3),
                })
                .collect(),
        },
        findings,
        inputs: inputs
            .iter()
            .map(|i| InputJson {
                path: i.path.clone(),
                format: i.format.clone(),
                lines: i.lines,
                parsed: i.parsed,
                skipped: i.skipped,
                first_ts: i.first_ts.map(rfc3339),
                last_ts: i.last_ts.map(rfc3339),
                skipped_by_reason: i.skipped_by_reason.clone(),
                inner_format: i.inner_format.clone(),
                first_skipped: first_skipped(i),
            })
            .collect(),
        warnings,
        templates: Vec::new(),
        extra: Extra {
            tz,
            charts: charts::build(agg, a),
            input_details: inputs.to_vec(),
            tenants_active: attr.active,
            tenants_total: attr.distinct,
            attribution_window_rate: attr.window_rate_per_s,
            attribution_baseline_rate: attr.baseline_rate_per_s,
            attribution_window_requests: attr.window_requests,
            baseline: a.baseline.map(|b| SpanJson {
                start: rfc3339(b.start * 1000),
                end: rfc3339(b.end * 1000),
            }),
            has_requests: agg.has_requests(),
            has_logs: agg.has_logs(),
            has_metrics: agg.metric_series().next().is_some(),
            has_infra: !agg.infra_events().is_empty(),
            templates: Default::default(),
            culprit: culprit_figures(attr, a),
            requests_span: requests_span(a),
            scanned: a.scanned.map(|(s, bucket)| {
                (
                    SpanJson {
                        start: rfc3339(s.start * 1000),
                        end: rfc3339(s.end * 1000),
                    },
                    bucket,
                )
            }),
            latency_ms: inc.and(latency_ms(a)),
            silence: inc.and(a.silence).map(|q| {
                (
                    q.secs,
                    SpanJson {
                        start: rfc3339(q.longest.start * 1000),
                        end: rfc3339(q.longest.end * 1000),
                    },
                    q.expected,
                )
            }),
            demand_after: inc.and(a.demand_after).map(|d| {
                (
                    d.lead_rate,
                    d.baseline_rate,
                    d.slowed_from.map(|t| rfc3339(t * 1000)),
                )
            }),
            instances_joined: if inc.is_some() {
                a.instances_joined.iter().cloned().collect()
            } else {
                Vec::new()
            },
        },
    }
}

/// Timed requests below this many in either span give no mean worth saying.
const LATENCY_MIN_TIMED: u64 = 20;

/// See [`Extra::latency_ms`].
fn latency_ms(a: &Analysis) -> Option<(f64, f64)> {
    let (span, window, baseline) = (a.span?, a.window()?, a.baseline?);
    let mean = |w: Span| {
        let (mut busy, mut timed) = (0.0, 0u64);
        for c in (w.start.max(span.start)..w.end.min(span.end))
            .filter_map(|s| a.totals.get((s - span.start) as usize))
        {
            busy += c.busy_ms();
            timed += u64::from(c.timed);
        }
        (timed >= LATENCY_MIN_TIMED).then(|| busy / timed as f64)
    };
    Some((mean(window)?, mean(baseline)?))
}

/// The seconds with requests, first to last (see [`Extra::requests_span`]).
fn requests_span(a: &Analysis) -> Option<SpanJson> {
    let span = a.span?;
    let first = a.totals.iter().position(|c| c.requests > 0)?;
    let last = a.totals.iter().rposition(|c| c.requests > 0)?;
    let at = |i: usize| (span.start + i as i64) * 1000;
    Some(SpanJson {
        start: rfc3339(at(first)),
        end: rfc3339(at(last) + 1000),
    })
}

/// A finding's timeline entry, unless the timeline already tells it: the
/// restart detector's "2 of 4 running instances restarted within 10 s"
/// beside the timeline's own row for the same group, a minute wide, read as
/// two events. The row stays (it carries the stated cause) and takes the
/// finding's kind and sources.
fn fold_entry(
    timeline: &mut Vec<crate::correlate::timeline::TimelineEntry>,
    e: &crate::correlate::timeline::TimelineEntry,
) {
    use crate::correlate::timeline::{TimelineKind as K, SYNC_WINDOW_MS};
    if e.kind == K::AllInstancesRestarted {
        let told = timeline.iter_mut().find(|t| {
            t.kind == K::Restart
                && (t.ts - e.ts).abs() <= SYNC_WINDOW_MS
                && t.text.contains(" instances restarted within ")
        });
        if let Some(t) = told {
            t.kind = K::AllInstancesRestarted;
            for s in &e.sources {
                if !t.sources.contains(s) {
                    t.sources.push(s.clone());
                }
            }
            return;
        }
    }
    timeline.push(e.clone());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report shows the first skipped lines, redacted and cut short;
    /// blank lines are counted but not shown.
    #[test]
    fn skipped_examples_are_redacted_and_short() {
        let mut stats = InputStats::default();
        stats.skip(3, "blank line", "");
        stats.skip(
            7,
            "does not match the format",
            &format!("login failed for ana@example.com {}", "x".repeat(300)),
        );
        let shown = first_skipped(&stats);
        assert_eq!(shown.len(), 1);
        assert_eq!(shown[0].line, 7);
        assert!(!shown[0].text.contains("ana@example.com"), "{:?}", shown[0]);
        assert!(shown[0].text.ends_with('…'));
        assert!(shown[0].text.chars().count() <= SKIPPED_SHOWN + 1);
    }
}
