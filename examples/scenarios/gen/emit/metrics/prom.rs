//! Prometheus exports: `query_range` responses (matrix) and text exposition with timestamps.
//!
//! Followed field by field: corpus `prometheus_query_range.jsonl` L1 (`status`, `data`,
//! `resultType`, `result[].metric` with labels sorted, `values` as `[seconds, "value"]`; values
//! printed as Go's `FormatFloat(v, 'f', -1)`) and `prometheus_exposition.prom` (`# TYPE`,
//! `name{labels} value timestamp_ms`, values printed as Go's `'g'` format, as expfmt does).
//! A user saves one response per query (`curl .../query_range?query=...`); a counter is most
//! often queried through `rate()`, whose result has no `__name__` (the query is then only in
//! the file name). The text export is successive `/federate` scrapes concatenated.

use std::collections::BTreeMap;

use super::{Resolved, Spec};
use crate::gen::emit::ctx::{Clock, Ctx, Scheme};
use crate::gen::emit::json::{self, J};
use crate::gen::emit::plan::{lines, OutFile, SourcePlan};
use crate::gen::facts::Ms;
use crate::gen::rng::Rng;
use crate::gen::time;

/// A float as Go's `strconv.FormatFloat(x, 'g', -1, 64)`: `151`, `0.25`, `1.72822528e+08`.
pub fn go_g(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    let e = format!("{:e}", x);
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits = mant.trim_start_matches('-').replace('.', "").len() as i32;
    let dp = exp + 1;
    let eprec = if 6 > digits && digits >= dp {
        digits
    } else {
        6
    };
    if exp < -4 || exp >= eprec {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    } else {
        format!("{x}")
    }
}

fn escape_label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// The label set as a matrix result's `metric` object (sorted, `__name__` first).
fn metric_obj(name: Option<&str>, labels: &[(String, String)]) -> J {
    let mut kv: Vec<(String, J)> = labels.iter().map(|(k, v)| (k.clone(), J::s(v))).collect();
    if let Some(n) = name {
        kv.push(("__name__".into(), J::s(n)));
    }
    kv.sort_by(|a, b| a.0.cmp(&b.0));
    J::Obj(kv)
}

pub fn range(_ctx: &Ctx, r: &[Resolved], rng: &mut Rng, plan: &mut SourcePlan) -> Vec<OutFile> {
    let rate = rng.chance(0.7);
    let bundle = rng.chance(0.4);
    plan.detail(
        "counters",
        if rate {
            "queried as rate(name[1m]) (no __name__ in the result)"
        } else {
            "queried raw (cumulative)"
        },
    );
    plan.detail(
        "files",
        if bundle {
            "one response per line"
        } else {
            "one file per query"
        },
    );
    let mut queries: BTreeMap<String, Vec<&Resolved>> = BTreeMap::new();
    for x in r {
        let q = if x.spec.counter && rate {
            format!("rate({}[1m])", x.spec.name)
        } else {
            x.spec.name.clone()
        };
        queries.entry(q).or_default().push(x);
    }
    let mut docs = vec![];
    for (q, xs) in &queries {
        let result: Vec<J> = xs
            .iter()
            .map(|x| {
                let as_rate = x.spec.counter && rate;
                let name = (!as_rate).then_some(x.spec.name.as_str());
                let values: Vec<J> = if as_rate {
                    // rate() over the cumulative counter: the role's own value again.
                    x.s.points
                        .iter()
                        .zip(&x.points)
                        .map(|(&(_, v), &(t, _))| pair(t, v * x.spec.scale))
                        .collect()
                } else {
                    x.points.iter().map(|&(t, v)| pair(t, v)).collect()
                };
                J::obj(vec![
                    ("metric", metric_obj(name, &x.labels)),
                    ("values", J::Arr(values)),
                ])
            })
            .collect();
        let doc = J::obj(vec![
            ("status", J::s("success")),
            (
                "data",
                J::obj(vec![
                    ("resultType", J::s("matrix")),
                    ("result", J::Arr(result)),
                ]),
            ),
        ]);
        docs.push((
            q.clone(),
            json::to_string(&doc, &json::COMPACT),
            xs.iter().map(|x| x.points.len()).sum::<usize>(),
        ));
    }
    if bundle {
        let n = docs.iter().map(|d| d.2).sum();
        let body = lines(&docs.into_iter().map(|d| d.1).collect::<Vec<_>>());
        vec![OutFile::new(
            "prometheus-query-range.jsonl",
            "prom-range",
            "metrics",
            body,
            n,
        )]
    } else {
        docs.into_iter()
            .map(|(q, body, n)| {
                let stem: String = q
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || c == '_' {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect();
                OutFile::new(
                    format!("metrics/{}.json", stem.trim_matches('_')),
                    "prom-range",
                    "metrics",
                    body + "\n",
                    n,
                )
            })
            .collect()
    }
}

fn pair(t: Ms, v: f64) -> J {
    J::Arr(vec![J::Num(time::epoch_s_trim(t)), J::s(json::go_float(v))])
}

pub fn text(r: &[Resolved], plan: &mut SourcePlan) -> Vec<OutFile> {
    plan.detail(
        "export",
        "/federate scrapes concatenated (timestamps in ms)",
    );
    // Scrape time -> metric name -> lines.
    let mut blocks: BTreeMap<Ms, BTreeMap<&str, Vec<String>>> = BTreeMap::new();
    let mut kinds: BTreeMap<&str, &str> = BTreeMap::new();
    for x in r {
        kinds.insert(
            &x.spec.name,
            if x.spec.counter || x.spec.name.ends_with("_total") {
                "counter"
            } else {
                "gauge"
            },
        );
        let labels: Vec<String> = x
            .labels
            .iter()
            .map(|(k, v)| format!("{k}=\"{}\"", escape_label(v)))
            .collect();
        for &(t, v) in &x.points {
            blocks
                .entry(t)
                .or_default()
                .entry(&x.spec.name)
                .or_default()
                .push(format!(
                    "{}{{{}}} {} {t}",
                    x.spec.name,
                    labels.join(","),
                    go_g(v)
                ));
        }
    }
    let mut out = vec![];
    let mut n = 0;
    for fams in blocks.values() {
        for (name, samples) in fams {
            out.push(format!(
                "# TYPE {name} {}",
                kinds.get(name).copied().unwrap_or("gauge")
            ));
            n += samples.len();
            out.extend(samples.iter().cloned());
        }
    }
    vec![OutFile::new(
        "metrics.prom",
        "prom-text",
        "metrics",
        lines(&out),
        n,
    )]
}

/// `node_uname_info{instance="10.0.1.21:9100", nodename="web-3"} 1`, which node_exporter
/// exports on every VM: the record that ties an address to a host name.
pub fn uname_series<'a>(ctx: &'a Ctx, clock: &Clock) -> Vec<Resolved<'a>> {
    // A constant series has no World counterpart; it borrows the first series of each
    // instance only for its instance index and step.
    let mut out = vec![];
    for (i, _) in ctx.w.instances.iter().enumerate() {
        let Some(s) = ctx.w.series.iter().find(|s| s.instance == Some(i)) else {
            continue;
        };
        let labels = vec![
            ("domainname".to_string(), "(none)".to_string()),
            (
                "instance".to_string(),
                format!("{}:9100", ctx.name(i, Scheme::Ip)),
            ),
            ("job".to_string(), "node".to_string()),
            ("machine".to_string(), "x86_64".to_string()),
            ("nodename".to_string(), ctx.name(i, Scheme::Host)),
            ("release".to_string(), "6.8.0-1015-aws".to_string()),
            ("sysname".to_string(), "Linux".to_string()),
        ];
        let points = s.points.iter().map(|&(t, _)| (clock.at(t), 1.0)).collect();
        out.push(Resolved {
            s,
            spec: Spec {
                name: "node_uname_info".into(),
                labels: vec![],
                scale: 1.0,
                counter: false,
                sum_per_period: false,
            },
            labels,
            points,
            from_app: false,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_g_format() {
        let cases = [
            (151.0, "151"),
            (0.25, "0.25"),
            (1.72822528e8, "1.72822528e+08"),
            (1e6, "1e+06"),
            (123456.0, "123456"),
            (0.0000135, "1.35e-05"),
            (1027.0, "1027"),
        ];
        for (x, want) in cases {
            assert_eq!(go_g(x), want, "{x}");
        }
    }
}
