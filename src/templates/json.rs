//! The report's `templates` array (added to `postmortem.report/v1`, see
//! README.md), which `postmortem templates --json` prints alone: every
//! template with its figures, the new and surging ones first. Text from the
//! inputs (templates, examples) is redacted on the way in.
//!
//! In: the [`TemplateSet`], its [`SurgeAnalysis`] and the [`Analysis`] (for
//! input names). Out: [`TemplateJson`]s and the [`TemplatesExtra`] the
//! Markdown needs.

use serde::Serialize;

use super::surge::{Status, SurgeAnalysis};
use super::TemplateSet;
use crate::correlate::Analysis;
use crate::event::{Level, Signal};
use crate::redact::redact_text;
use crate::report::rfc3339;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct NameCount {
    pub name: String,
    pub count: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BucketJson {
    pub start: String,
    pub count: u32,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ExampleJson {
    pub ts: String,
    pub source: String,
    pub text: String,
}

/// A template against the incident window (present when an incident was
/// found and the template has records in it).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct WindowJson {
    pub status: Status,
    /// 1 for the new or surging template whose onset best matches the incident's.
    pub rank: Option<usize>,
    pub count: u64,
    pub baseline_count: u64,
    pub window_rate_per_s: f64,
    pub baseline_rate_per_s: f64,
    /// Null when the baseline had none.
    pub rate_ratio: Option<f64>,
    pub onset: String,
    pub onset_offset_s: i64,
    pub onset_match: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TemplateJson {
    pub id: String,
    pub template: String,
    pub count: u64,
    pub level: Level,
    pub first_seen: String,
    pub last_seen: String,
    /// Most records first; at most 16, `instances_more` when there were more.
    pub instances: Vec<NameCount>,
    pub instances_more: bool,
    pub tenants: Vec<NameCount>,
    pub tenants_more: bool,
    pub signals: Vec<Signal>,
    pub window: Option<WindowJson>,
    pub bucket_s: i64,
    /// Records per bucket, buckets without records left out.
    pub buckets: Vec<BucketJson>,
    pub examples: Vec<ExampleJson>,
}

/// What the Markdown says around the templates.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TemplatesExtra {
    /// The window templates were compared in (whole buckets), RFC 3339.
    pub window: Option<(String, String)>,
    /// Seconds of logs before the window, when too few to tell what is new.
    pub short_history: Option<i64>,
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

fn names(v: (Vec<(&str, u64)>, bool)) -> (Vec<NameCount>, bool) {
    let list =
        v.0.into_iter()
            .map(|(n, c)| NameCount {
                name: n.to_string(),
                count: c,
            })
            .collect();
    (list, v.1)
}

/// The `templates` array: ranked new and surging first, then the others in
/// the window, then the rest, each group by records.
pub fn to_json(
    set: &TemplateSet,
    surge: Option<&SurgeAnalysis>,
    a: &Analysis,
) -> (Vec<TemplateJson>, TemplatesExtra) {
    let mut order: Vec<usize> = Vec::with_capacity(set.templates.len());
    if let Some(s) = surge {
        order.extend(s.surges.iter().map(|x| x.template));
    }
    let listed: std::collections::BTreeSet<usize> = order.iter().copied().collect();
    order.extend((0..set.templates.len()).filter(|i| !listed.contains(i)));
    let out = order
        .into_iter()
        .filter_map(|i| {
            let t = set.templates.get(i)?;
            let st = &t.stats;
            let (instances, instances_more) = names(st.instances());
            let (tenants, tenants_more) = names(st.tenants());
            let window = surge.and_then(|s| s.of(i)).map(|x| WindowJson {
                status: x.status,
                rank: x.rank,
                count: x.window_count,
                baseline_count: x.baseline_count,
                window_rate_per_s: round(x.window_rate, 4),
                baseline_rate_per_s: round(x.baseline_rate, 4),
                rate_ratio: x.ratio.map(|r| round(r, 1)),
                onset: rfc3339(x.onset_ms),
                onset_offset_s: x.onset_offset_s,
                onset_match: round(x.onset_match, 2),
            });
            Some(TemplateJson {
                id: t.id.clone(),
                template: redact_text(&t.text).into_owned(),
                count: st.count,
                level: st.level(),
                first_seen: rfc3339(st.first.0),
                last_seen: rfc3339(st.last.0),
                instances,
                instances_more,
                tenants,
                tenants_more,
                signals: st.signals.iter().map(|(s, _)| *s).collect(),
                window,
                bucket_s: set.bucket_s,
                buckets: st
                    .buckets(set.bucket_s)
                    .map(|(b, n)| BucketJson {
                        start: rfc3339(b * 1000),
                        count: n,
                    })
                    .collect(),
                examples: st
                    .examples
                    .iter()
                    .map(|e| ExampleJson {
                        ts: rfc3339(e.ts),
                        source: a.source(e.origin),
                        text: redact_text(&e.text).into_owned(),
                    })
                    .collect(),
            })
        })
        .collect();
    let extra = TemplatesExtra {
        window: surge.map(|s| (rfc3339(s.window.start * 1000), rfc3339(s.window.end * 1000))),
        short_history: surge.and_then(|s| s.short_history),
    };
    (out, extra)
}
