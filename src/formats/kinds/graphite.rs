//! Graphite render API responses (`/render?format=json`, also what
//! Grafana's Graphite datasource returns), one per line or pretty-printed ->
//! one metric record per datapoint of each series.
//!
//! A response is an array of series, each `{"target", "datapoints"}` and,
//! from Graphite 1.1 on, `tags`. A datapoint is `[value, epoch seconds]`:
//! the value first; a `null` value is a gap and gives no record. The metric
//! is the target; its tags but `name` (which repeats the target) become
//! labels. Grafana's SimpleJSON-style datasources answer in the same shape
//! with epoch milliseconds, told apart by magnitude when parsed.
//!
//! Graphite's dotted names carry the host or the environment as path
//! segments (`servers.api-1.hikaricp.connections.active`): the role lookup
//! tries the name's dotted suffixes (`Rules::metric_role`), and the host
//! under the `servers.<host>.` / `hosts.<host>.` convention becomes a `host`
//! label, which names the instance. No other segment is taken for one: a
//! segment's meaning is not known.
//!
//! ```text
//! [{"target":"servers.api-1.hikaricp.connections.active","datapoints":[[20.0,1790841480],[null,1790841490]]}]
//!   -> servers.api-1.hikaricp.connections.active{host="api-1"} 20.0 at 1790841480 (s)
//! ```

use serde_json::Value;
use std::borrow::Cow;

use super::{metric_record, number_text, Extractor, Skip};
use crate::formats::compile::Fields;

/// `host_parents`: see [`crate::formats::definition::Definition::host_parents`].
pub struct Render {
    host_parents: Vec<String>,
}

impl Render {
    pub fn new(def: &crate::formats::definition::Definition) -> Render {
        Render {
            host_parents: def.host_parents.clone(),
        }
    }
}

impl Extractor for Render {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        let parents = &self.host_parents;
        super::json_document_line(line, |doc| records(doc, parents))
    }

    fn document<'a>(&mut self, doc: &'a Value) -> Result<Vec<Fields<'a>>, Skip> {
        records(doc, &self.host_parents)
    }

    fn sniff(&self, head: &str) -> f64 {
        // `target` is not asked for: a tool that sorts keys (`jq -S`,
        // Python's `sort_keys`) writes it after more datapoints than the
        // head holds.
        let array = head.trim_start().starts_with('[');
        if array && head.contains("\"datapoints\"") {
            1.0
        } else {
            0.0
        }
    }
}

fn records<'a>(doc: &'a Value, host_parents: &[String]) -> Result<Vec<Fields<'a>>, Skip> {
    const NOT: Skip = "not a Graphite render response: no `[{target, datapoints}]`";
    let series = doc
        .as_array()
        .filter(|s| !s.is_empty())
        .filter(|s| {
            s.iter().all(|e| {
                e.get("target").is_some_and(Value::is_string) && e.get("datapoints").is_some()
            })
        })
        .ok_or(NOT)?;
    let mut out = Vec::new();
    for s in series {
        let (Some(target), Some(points)) = (
            s.get("target").and_then(Value::as_str),
            s.get("datapoints").and_then(Value::as_array),
        ) else {
            continue;
        };
        let mut labels: Vec<(Cow<str>, Cow<str>)> = s
            .get("tags")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter(|(k, _)| k.as_str() != "name")
            .filter_map(|(k, v)| Some((Cow::Borrowed(k.as_str()), Cow::Borrowed(v.as_str()?))))
            .collect();
        if let Some(host) = host_segment(target, host_parents) {
            if !labels.iter().any(|(k, _)| k == "host") {
                labels.push((Cow::Borrowed("host"), Cow::Borrowed(host)));
            }
        }
        for p in points {
            // Value first, time second.
            let (Some(v), Some(ts)) = (
                p.get(0).filter(|v| v.is_number()).and_then(number_text),
                p.get(1).and_then(number_text),
            ) else {
                continue;
            };
            out.push(metric_record(ts, Cow::Borrowed(target), v, &labels));
        }
    }
    Ok(out)
}

/// The host of a `servers.<host>.<metric...>` path: the segment after the
/// first of `parents` (the definition's `host_parents`), when a metric
/// follows it.
fn host_segment<'t>(target: &'t str, parents: &[String]) -> Option<&'t str> {
    let segments: Vec<&str> = target.split('.').collect();
    let at = segments
        .iter()
        .position(|s| parents.iter().any(|p| p == s))?;
    let host = segments.get(at + 1).filter(|h| !h.is_empty())?;
    // A host with nothing after it is the metric's own name, not a host.
    segments.get(at + 2)?;
    Some(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The extractor of `parsers/metrics/graphite_render.json`.
    fn render() -> Render {
        let cat = crate::formats::Catalogue::builtin().expect("catalogue");
        let def = cat
            .formats
            .iter()
            .find(|f| f.def.name == "graphite_render")
            .map(|f| &f.def)
            .expect("the graphite_render definition");
        Render::new(def)
    }

    fn summary(line: &str) -> Result<Vec<String>, Skip> {
        render()
            .line(line)
            .map(|recs| super::super::point_summary(&recs))
    }

    #[test]
    fn responses() {
        type Case = (&'static str, &'static str, Result<Vec<&'static str>, Skip>);
        let cases: [Case; 6] = [
            (
                "value first, null a gap, host from servers.<host>.",
                r#"[{"target": "servers.api-1.hikaricp.connections.active", "datapoints": [[20.0, 1790841480], [null, 1790841490], [14, 1790841500]]}]"#,
                Ok(vec![
                    "1790841480 servers.api-1.hikaricp.connections.active{host=\"api-1\"} 20.0",
                    "1790841500 servers.api-1.hikaricp.connections.active{host=\"api-1\"} 14",
                ]),
            ),
            (
                "tags without name are labels; no host convention",
                r#"[{"target": "db.pool.active", "tags": {"name": "db.pool.active", "dc": "eu-1"}, "datapoints": [[3.0, 1790841480]]}]"#,
                Ok(vec!["1790841480 db.pool.active{dc=\"eu-1\"} 3.0"]),
            ),
            (
                "a host segment that is the last is no host",
                r#"[{"target": "stats.servers.count", "datapoints": [[2, 1790841480]]}]"#,
                Ok(vec!["1790841480 stats.servers.count 2"]),
            ),
            (
                "an array of log records",
                r#"[{"time": "2026-10-01T07:58:00Z", "msg": "x"}]"#,
                Err("not a Graphite render response: no `[{target, datapoints}]`"),
            ),
            (
                "a Fluent Bit event",
                r#"[1790841486.1, {"log": "x"}]"#,
                Err("not a Graphite render response: no `[{target, datapoints}]`"),
            ),
            (
                "not json",
                "servers.a.b 1 1790841480",
                Err("not valid JSON"),
            ),
        ];
        for (name, line, want) in cases {
            let want = want.map(|w| w.into_iter().map(str::to_string).collect::<Vec<_>>());
            assert_eq!(summary(line), want, "{name}");
        }
    }

    #[test]
    fn host_segments() {
        for (target, want) in [
            ("servers.web-1.cpu.user", Some("web-1")),
            ("prod.hosts.db-2.postgresql.numbackends", Some("db-2")),
            ("servers.web-1", None),
            ("app.api-1.pool.active", None),
        ] {
            assert_eq!(
                host_segment(target, &render().host_parents),
                want,
                "{target}"
            );
        }
    }

    #[test]
    fn malformed_points_are_passed_over() {
        let recs = render()
            .line(r#"[{"target": "a.b", "datapoints": [[1.0], "x", [null, null], [2.0, 1790841480]]}]"#)
            .expect("records");
        assert_eq!(recs.len(), 1);
    }
}
