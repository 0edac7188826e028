//! Hosted monitoring exports: CloudWatch `get-metric-data` and the Datadog query API.
//!
//! Followed field by field:
//! - CloudWatch: corpus `cloudwatch_get_metric_data.jsonl` L1 (`MetricDataResults[]` with
//!   `Id`, `Label`, `Timestamps` as `2024-09-29T22:10:00+00:00`, `Values`, `StatusCode`;
//!   `Messages`) printed as aws-cli prints JSON (four-space indent). Points are one-minute
//!   period statistics (Average; Sum for counts), newest first: `ScanBy` defaults to
//!   `TimestampDescending`. `Label` is what the user's query set: metric and dimension value.
//! - Datadog: corpus `datadog_query.jsonl` L1 (`/api/v1/query`: `series[]` with `metric`,
//!   `interval`, `tag_set`, `scope`, `pointlist` of `[ms, value]` floats, `expression`,
//!   `display_name`; `query`, `from_date`, `to_date`, `group_by`), one response per query,
//!   points rolled up to the interval Datadog picks for the span (20 s for an hour ...).

use std::collections::BTreeMap;

use super::names::cw_namespace;
use super::Resolved;
use crate::gen::emit::ctx::Ctx;
use crate::gen::emit::json::{self, py_float, J};
use crate::gen::emit::plan::{OutFile, SourcePlan};
use crate::gen::facts::Ms;
use crate::gen::time::{self, OffsetStyle};

/// Average (or sum of per-second rates over each point's step) per period, by period start.
fn periods(x: &Resolved, period: Ms) -> BTreeMap<Ms, f64> {
    let mut acc: BTreeMap<Ms, (f64, u32)> = BTreeMap::new();
    let step_s = x.s.step_ms as f64 / 1000.0;
    for &(t, v) in &x.points {
        let e = acc.entry(t.div_euclid(period) * period).or_insert((0.0, 0));
        e.0 += if x.spec.sum_per_period { v * step_s } else { v };
        e.1 += 1;
    }
    acc.into_iter()
        .map(|(t, (s, n))| {
            (
                t,
                if x.spec.sum_per_period {
                    s
                } else {
                    s / f64::from(n)
                },
            )
        })
        .collect()
}

/// The dimension value that tells series apart (the instance's, else the constant one).
fn distinguishing(x: &Resolved) -> String {
    for k in [
        "FullPodName",
        "TaskId",
        "host",
        "InstanceId",
        "QueueName",
        "DBInstanceIdentifier",
        "pool",
    ] {
        if let Some((_, v)) = x.labels.iter().find(|(d, _)| d == k) {
            return v.clone();
        }
    }
    String::new()
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

pub fn cloudwatch(ctx: &Ctx, r: &[Resolved], plan: &mut SourcePlan) -> Vec<OutFile> {
    let mut results = vec![];
    let mut n = 0;
    for (k, x) in r.iter().enumerate() {
        let mut p: Vec<(Ms, f64)> = periods(x, 60_000).into_iter().collect();
        p.reverse();
        n += p.len();
        let label = format!("{} {}", x.spec.name, distinguishing(x))
            .trim()
            .to_string();
        plan.detail(
            &format!("query m{}", k + 1),
            format!(
                "{} {} {} {}",
                cw_namespace(&x.spec.name, ctx.platform),
                x.spec.name,
                x.labels
                    .iter()
                    .map(|(a, b)| format!("{a}={b}"))
                    .collect::<Vec<_>>()
                    .join(","),
                if x.spec.sum_per_period {
                    "Sum"
                } else {
                    "Average"
                }
            ),
        );
        results.push(J::obj(vec![
            ("Id", J::s(format!("m{}", k + 1))),
            ("Label", J::s(label)),
            (
                "Timestamps",
                J::Arr(
                    p.iter()
                        .map(|(t, _)| J::s(time::rfc3339(*t, 0, 0, OffsetStyle::Colon)))
                        .collect(),
                ),
            ),
            (
                "Values",
                J::Arr(
                    p.iter()
                        .map(|(_, v)| J::Num(py_float(round3(*v))))
                        .collect(),
                ),
            ),
            ("StatusCode", J::s("Complete")),
        ]));
    }
    plan.detail("period_s", 60);
    let doc = J::obj(vec![
        ("MetricDataResults", J::Arr(results)),
        ("Messages", J::Arr(vec![])),
    ]);
    vec![OutFile::new(
        "cloudwatch-metrics.json",
        "cloudwatch",
        "metrics",
        json::to_string(&doc, &json::AWS) + "\n",
        n,
    )]
}

/// Datadog's default rollup interval for a query span.
fn dd_interval(span: Ms) -> Ms {
    match span {
        s if s <= 3_600_000 => 20_000,
        s if s <= 4 * 3_600_000 => 60_000,
        s if s <= 86_400_000 => 300_000,
        s if s <= 2 * 86_400_000 => 600_000,
        _ => 3_600_000,
    }
}

pub fn datadog(ctx: &Ctx, r: &[Resolved], plan: &mut SourcePlan) -> Vec<OutFile> {
    let span = ctx.w.end - ctx.w.start;
    let interval = dd_interval(span);
    plan.detail("rollup_interval_s", interval / 1000);
    let group_key = |x: &Resolved| -> Option<String> {
        ["pod_name", "task_arn", "host"]
            .iter()
            .find(|k| x.labels.iter().any(|(a, _)| a == *k))
            .map(|k| k.to_string())
    };
    let mut by_metric: BTreeMap<&str, Vec<&Resolved>> = BTreeMap::new();
    for x in r {
        by_metric.entry(&x.spec.name).or_default().push(x);
    }
    let from = ctx.w.start;
    let to = ctx.w.end;
    let mut files = vec![];
    for (metric, xs) in by_metric {
        let group = xs.iter().find_map(|x| group_key(x));
        let filter: Vec<String> = xs[0]
            .spec
            .labels
            .iter()
            .map(|(k, v)| format!("{k}:{v}"))
            .chain(
                xs[0]
                    .labels
                    .iter()
                    .filter(|(k, _)| k == "kube_namespace" || k == "ecs_service")
                    .map(|(k, v)| format!("{k}:{v}")),
            )
            .collect();
        let filter = if filter.is_empty() {
            "*".to_string()
        } else {
            filter.join(",")
        };
        let query = match &group {
            Some(g) => format!("avg:{metric}{{{filter}}} by {{{g}}}"),
            None => format!("avg:{metric}{{{filter}}}"),
        };
        let mut n = 0;
        let series: Vec<J> = xs
            .iter()
            .map(|x| {
                let pts = periods(
                    &Resolved {
                        s: x.s,
                        spec: super::Spec {
                            sum_per_period: false,
                            ..x.spec.clone()
                        },
                        labels: vec![],
                        points: x.points.clone(),
                        from_app: false,
                    },
                    interval,
                );
                n += pts.len();
                let tag_set: Vec<String> = group
                    .as_ref()
                    .and_then(|g| x.labels.iter().find(|(k, _)| k == g))
                    .map(|(k, v)| vec![format!("{k}:{v}")])
                    .unwrap_or_default();
                let scope = if tag_set.is_empty() {
                    filter.clone()
                } else {
                    format!("{},{filter}", tag_set.join(","))
                        .trim_end_matches(",*")
                        .to_string()
                };
                let first = pts.keys().next().copied().unwrap_or(from);
                let last = pts.keys().next_back().copied().unwrap_or(to);
                J::obj(vec![
                    ("end", J::n(last + interval - 1_000)),
                    ("attributes", J::Obj(vec![])),
                    ("metric", J::s(metric)),
                    ("interval", J::n(interval / 1000)),
                    ("tag_set", J::Arr(tag_set.iter().map(J::s).collect())),
                    ("start", J::n(first)),
                    ("length", J::n(pts.len())),
                    ("query_index", J::n(0)),
                    ("aggr", J::s("avg")),
                    ("scope", J::s(&scope)),
                    (
                        "pointlist",
                        J::Arr(
                            pts.iter()
                                .map(|(t, v)| {
                                    J::Arr(vec![J::Num(py_float(*t as f64)), J::Num(py_float(*v))])
                                })
                                .collect(),
                        ),
                    ),
                    ("expression", J::s(format!("avg:{metric}{{{scope}}}"))),
                    ("unit", J::Null),
                    ("display_name", J::s(metric)),
                ])
            })
            .collect();
        let doc = J::obj(vec![
            ("status", J::s("ok")),
            ("resp_version", J::n(1)),
            ("series", J::Arr(series)),
            ("to_date", J::n(to)),
            ("query", J::s(&query)),
            ("message", J::s("")),
            ("res_type", J::s("time_series")),
            ("times", J::Arr(vec![])),
            ("from_date", J::n(from)),
            ("group_by", J::Arr(group.iter().map(J::s).collect())),
            ("values", J::Arr(vec![])),
        ]);
        files.push(OutFile::new(
            format!("datadog/{metric}.json"),
            "datadog",
            "metrics",
            json::to_string(&doc, &json::COMPACT) + "\n",
            n,
        ));
    }
    files
}
