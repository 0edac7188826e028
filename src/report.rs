//! The report as data: the JSON contract of `report-json.md` plus what the
//! Markdown needs (charts, the data section). Built from the analysis and the
//! findings, with every piece of text from the inputs passed through
//! `redact` on the way in. Render reads it and nothing else.
//!
//! In: [`Aggregates`], [`Analysis`], findings, input statistics. Out: [`Report`].

use chrono::{DateTime, SecondsFormat};
use serde::Serialize;
use std::collections::BTreeSet;

use crate::aggregate::{Aggregates, Dim, Span};
use crate::correlate::timeline::sort;
use crate::correlate::{Analysis, TimelineEntry, TimelineKind};
use crate::event::{MetricRole, Millis};
use crate::parse::InputStats;
use crate::patterns::Finding;
use crate::redact::redact_text;
use crate::zone::Zone;

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
    pub charts: Vec<Chart>,
    pub input_details: Vec<InputStats>,
    pub tenants_active: usize,
    pub tenants_total: usize,
    pub attribution_window_rate: f64,
    pub attribution_baseline_rate: f64,
    pub baseline: Option<SpanJson>,
    pub has_requests: bool,
    pub has_logs: bool,
    pub has_metrics: bool,
    pub has_infra: bool,
    pub templates: crate::templates::json::TemplatesExtra,
}

/// A chart: one x axis, series drawn as bars or lines.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub title: String,
    pub y_label: String,
    pub x_labels: Vec<String>,
    pub bars: Option<(String, Vec<f64>)>,
    pub lines: Vec<(String, Vec<f64>)>,
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
        for s in w.start.max(span.start)..w.end.min(span.end) {
            let c = a.totals[(s - span.start) as usize];
            total += u64::from(c.requests);
            failed += u64::from(c.failed);
        }
    }
    // One entry per server: an address the orchestrator's probes tie to a pod
    // is shown as that pod.
    let pods_by_addr = &a.history.aliases;
    let mut instances: BTreeSet<String> = a
        .instances_with_failures
        .iter()
        .map(|i| pods_by_addr.get(i).cloned().unwrap_or_else(|| i.clone()))
        .collect();
    if inc.is_some() {
        if let Some(w) = window {
            for r in &a.history.restarts {
                if r.down >= (w.start - 120) * 1000 && r.down < w.end * 1000 {
                    instances.insert(r.instance.clone());
                }
            }
        }
    } else {
        instances.clear();
    }

    let mut timeline = a.timeline.clone();
    for f in findings {
        timeline.extend(f.timeline.iter().cloned());
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
        if i.invalid_utf8 > 0 {
            warnings.push(format!(
                "{}: {} line(s) held invalid UTF-8 and were read lossily",
                i.path, i.invalid_utf8
            ));
        }
    }
    if agg.path_sample_rate() > 1 {
        warnings.push(format!(
            "more than {} distinct (tenant, path) pairs: retry detection kept 1 path in {} (chosen by hash), so its path counts are estimates",
            crate::aggregate::MAX_TRACKED_PATHS,
            agg.path_sample_rate()
        ));
    }

    let attr = &a.attribution;
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
        findings: findings
            .iter()
            .map(|f| FindingJson {
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
            .collect(),
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
            })
            .collect(),
        warnings,
        templates: Vec::new(),
        extra: Extra {
            tz,
            charts: charts(agg, a),
            input_details: inputs.to_vec(),
            tenants_active: attr.active,
            tenants_total: attr.distinct,
            attribution_window_rate: attr.window_rate_per_s,
            attribution_baseline_rate: attr.baseline_rate_per_s,
            baseline: a.baseline.map(|b| SpanJson {
                start: rfc3339(b.start * 1000),
                end: rfc3339(b.end * 1000),
            }),
            has_requests: agg.has_requests(),
            has_logs: agg.has_logs(),
            has_metrics: agg.metric_series().next().is_some(),
            has_infra: !agg.infra_events().is_empty(),
            templates: Default::default(),
        },
    }
}

/// Chart buckets: a readable width that keeps a chart under ~90 points.
fn bucket_secs(span: Span) -> i64 {
    const NICE: [i64; 9] = [30, 60, 120, 300, 600, 900, 1800, 3600, 7200];
    NICE.into_iter()
        .find(|w| span.len() as i64 / w <= 60)
        .unwrap_or(14_400)
}

fn charts(agg: &Aggregates, a: &Analysis) -> Vec<Chart> {
    let Some(span) = a.span else {
        return Vec::new();
    };
    // Charts show the incident with some context, not a whole day.
    let view = match a.incident {
        Some(i) => {
            let pad = ((i.recovered - i.onset) / 2).max(300);
            Span::new(
                (i.onset - pad).max(span.start),
                (i.recovered + pad).min(span.end),
            )
        }
        None => span,
    };
    let w = bucket_secs(view);
    let start = view.start - view.start.rem_euclid(w);
    let n = ((view.end - start + w - 1) / w) as usize;
    let labels: Vec<String> = (0..n)
        .map(|i| {
            DateTime::from_timestamp(start + i as i64 * w, 0).map_or_else(String::new, |d| {
                d.format(if w < 60 { "%H:%M:%S" } else { "%H:%M" })
                    .to_string()
            })
        })
        .collect();
    let bucket = |s: i64| ((s - start) / w) as usize;
    let per_min = 60.0 / w as f64;
    let mut out = Vec::new();
    if agg.has_requests() {
        let mut all = vec![0.0; n];
        let mut failed = vec![0.0; n];
        for s in view.start..view.end {
            let c = a.totals[(s - span.start) as usize];
            all[bucket(s)] += f64::from(c.requests);
            failed[bucket(s)] += f64::from(c.failed);
        }
        let mut lines = Vec::new();
        for r in a
            .attribution
            .rows
            .iter()
            .take(if a.attribution.organic { 0 } else { 1 })
        {
            let dim = if a.attribution.dimension == "tenant" {
                Dim::Tenant
            } else {
                Dim::Integration
            };
            let mut v = vec![0.0; n];
            for (i, c) in agg.dim_series(dim, &r.value, view).iter().enumerate() {
                v[bucket(view.start + i as i64)] += f64::from(c.requests);
            }
            lines.push((
                r.value.clone(),
                v.iter().map(|x| round(x * per_min, 1)).collect(),
            ));
        }
        out.push(Chart {
            title: "Requests per minute".to_string(),
            y_label: "req/min".to_string(),
            x_labels: labels.clone(),
            bars: Some((
                "all tenants".to_string(),
                all.iter().map(|x| round(x * per_min, 1)).collect(),
            )),
            lines,
        });
        out.push(Chart {
            title: "Failed requests per minute (5xx)".to_string(),
            y_label: "failed/min".to_string(),
            x_labels: labels.clone(),
            bars: Some((
                "failed".to_string(),
                failed.iter().map(|x| round(x * per_min, 1)).collect(),
            )),
            lines: Vec::new(),
        });
    }
    // Pool usage: the highest in-use and waiting across instances per bucket.
    let mut in_use = vec![f64::NAN; n];
    let mut waiting = vec![f64::NAN; n];
    for s in agg.metric_series() {
        let target = match s.role {
            Some(MetricRole::DbConnectionsInUse) => &mut in_use,
            Some(MetricRole::DbConnectionsWaiting) => &mut waiting,
            _ => continue,
        };
        for &(t, v) in &s.points {
            let sec = t.div_euclid(1000);
            if view.contains(sec) {
                let b = &mut target[bucket(sec)];
                *b = if b.is_nan() { v } else { b.max(v) };
            }
        }
    }
    if in_use.iter().any(|v| !v.is_nan()) {
        let fill = |v: Vec<f64>| {
            v.into_iter()
                .map(|x| if x.is_nan() { 0.0 } else { x })
                .collect::<Vec<_>>()
        };
        let mut lines = vec![("in use (max over instances)".to_string(), fill(in_use))];
        if waiting.iter().any(|v| !v.is_nan()) {
            lines.push(("waiting (max over instances)".to_string(), fill(waiting)));
        }
        out.push(Chart {
            title: "Database connection pool".to_string(),
            y_label: "connections".to_string(),
            x_labels: labels.clone(),
            bars: None,
            lines,
        });
    }
    if !a.history.restarts.is_empty() {
        let mut restarts = vec![0.0; n];
        for r in &a.history.restarts {
            let s = r.down.div_euclid(1000);
            if view.contains(s) {
                restarts[bucket(s)] += 1.0;
            }
        }
        if restarts.iter().any(|v| *v > 0.0) {
            out.push(Chart {
                title: "Instance restarts".to_string(),
                y_label: "restarts".to_string(),
                x_labels: labels,
                bars: Some(("restarts".to_string(), restarts)),
                lines: Vec::new(),
            });
        }
    }
    out
}
