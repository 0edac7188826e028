//! Prometheus text exposition (format 0.0.4) and OpenMetrics 1.0, as saved
//! from a `/metrics` endpoint or a federation scrape -> one metric record
//! per sample that carries a timestamp.
//!
//! `# HELP`, `# TYPE`, `# UNIT`, `# EOF`, other comments and blank lines
//! are understood and give no record. A sample is
//! `name{label="value",...} value [timestamp] [# exemplar]`; the series key
//! is the name and its sorted labels, and the instance comes from the labels
//! (`metric-roles.json` `instance_labels`).
//!
//! Timestamps: exposition writes integer milliseconds, OpenMetrics float
//! seconds (an input is taken for OpenMetrics once it shows `# EOF`,
//! `# UNIT`, an exemplar or a fractional timestamp). They are handed on as
//! RFC 3339. A sample without a timestamp (a plain scrape) has no time of its
//! own and cannot be put on a timeline: it is parsed, counted as unplaced
//! with that reason, and gives no record.
//!
//! ```text
//! # TYPE http_requests_total counter
//! http_requests_total{method="post",code="200"} 1027 1395066363000
//!   -> ts 2014-03-17T14:26:03Z, metric http_requests_total, value 1027,
//!      series http_requests_total{code="200",method="post"}
//! ```

use chrono::{DateTime, SecondsFormat};
use std::borrow::Cow;

use super::{metric_record, Extractor, Skip};
use crate::formats::compile::Fields;

/// A label: name and value, unescaped.
pub type Label<'a> = (Cow<'a, str>, Cow<'a, str>);

const TYPES: [&str; 9] = [
    "counter",
    "gauge",
    "histogram",
    "summary",
    "untyped",
    "unknown",
    "gaugehistogram",
    "stateset",
    "info",
];

#[derive(Debug, Default)]
pub struct Text {
    /// Timestamps are seconds, not milliseconds.
    openmetrics: bool,
    /// The last line was a sample without a timestamp.
    unplaced: bool,
    /// A `# HELP`/`# TYPE` line or a sample was read: free comments count
    /// as Prometheus only after one.
    seen: bool,
}

impl Extractor for Text {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        self.unplaced = false;
        let t = line.trim();
        // Families are separated by blank lines.
        if t.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(comment) = t.strip_prefix('#') {
            self.comment(comment)?;
            return Ok(Vec::new());
        }
        let sample = sample(t)?;
        self.seen = true;
        self.openmetrics |= sample.exemplar;
        let Some(ts) = sample.ts else {
            self.unplaced = true;
            return Ok(Vec::new());
        };
        let ts = self.time(ts)?;
        Ok(vec![metric_record(
            Cow::Owned(ts),
            sample.name,
            Cow::Borrowed(sample.value),
            &sample.labels,
        )])
    }

    fn unplaced(&mut self) -> Option<Skip> {
        std::mem::take(&mut self.unplaced)
            .then_some("Prometheus sample without a timestamp (a scrape has no time of its own)")
    }
}

impl Text {
    fn comment(&mut self, c: &str) -> Result<(), Skip> {
        let mut words = c.split_whitespace();
        match words.next() {
            Some("TYPE") => {
                let (Some(_name), Some(kind)) = (words.next(), words.next()) else {
                    return Err("`# TYPE` needs a name and a type");
                };
                if !TYPES.contains(&kind) {
                    return Err("unknown metric type in `# TYPE`");
                }
            }
            Some("HELP") => {
                if words.next().is_none() {
                    return Err("`# HELP` needs a metric name");
                }
            }
            Some("UNIT") | Some("EOF") => self.openmetrics = true,
            // Free comments are allowed by the exposition format, but not `#name#`.
            _ if self.seen && (c.is_empty() || c.starts_with([' ', '\t'])) => return Ok(()),
            _ => return Err("not a Prometheus comment"),
        }
        self.seen = true;
        Ok(())
    }

    /// Milliseconds (exposition) or seconds (OpenMetrics) -> RFC 3339.
    fn time(&mut self, ts: &str) -> Result<String, Skip> {
        let integer = ts
            .trim_start_matches('-')
            .bytes()
            .all(|b| b.is_ascii_digit());
        // Exposition timestamps are integers: a fraction means OpenMetrics.
        self.openmetrics |= !integer;
        let ms = if self.openmetrics {
            let s: f64 = ts.parse().map_err(|_| "timestamp is not a number")?;
            (s * 1000.0).round() as i64
        } else {
            ts.parse::<i64>().map_err(|_| "timestamp is not a number")?
        };
        DateTime::from_timestamp_millis(ms)
            .map(|d| d.to_rfc3339_opts(SecondsFormat::AutoSi, true))
            .ok_or("timestamp out of range")
    }
}

/// One sample line, taken apart.
#[derive(Debug)]
struct Sample<'a> {
    name: Cow<'a, str>,
    labels: Vec<Label<'a>>,
    value: &'a str,
    ts: Option<&'a str>,
    exemplar: bool,
}

fn sample(t: &str) -> Result<Sample<'_>, Skip> {
    let name_len = metric_name_len(t);
    let (name, labels, rest) = match t[name_len..].strip_prefix('{') {
        Some(body) => {
            let (quoted_name, labels, rest) = label_set(body)?;
            let name = match (name_len, quoted_name) {
                (0, Some(q)) => q,
                (n, None) if n > 0 => Cow::Borrowed(&t[..n]),
                _ => return Err("a sample needs exactly one metric name"),
            };
            (name, labels, rest)
        }
        None if name_len > 0 => (Cow::Borrowed(&t[..name_len]), Vec::new(), &t[name_len..]),
        None => return Err("not a Prometheus sample"),
    };
    if !rest.starts_with([' ', '\t']) {
        return Err("no value after the metric name");
    }
    let (body, exemplar) = match rest.split_once(" # ") {
        Some((b, _)) => (b, true),
        None => (rest, false),
    };
    let mut words = body.split_whitespace();
    let value = words.next().ok_or("no value after the metric name")?;
    if value.parse::<f64>().is_err() {
        return Err("sample value is not a number");
    }
    let ts = words.next();
    if words.next().is_some() {
        return Err("unexpected text after the timestamp");
    }
    Ok(Sample {
        name,
        labels,
        value,
        ts,
        exemplar,
    })
}

/// Length of a leading `[a-zA-Z_:][a-zA-Z0-9_:]*`. A name ending in `:` is
/// refused: recording rules never end so, and `label: value` text would.
fn metric_name_len(t: &str) -> usize {
    let mut n = 0;
    for (i, b) in t.bytes().enumerate() {
        let ok = b.is_ascii_alphabetic() || b == b'_' || b == b':' || (i > 0 && b.is_ascii_digit());
        if !ok {
            break;
        }
        n = i + 1;
    }
    if t[..n].ends_with(':') {
        0
    } else {
        n
    }
}

type LabelSet<'a> = (Option<Cow<'a, str>>, Vec<Label<'a>>, &'a str);

/// The inside of `{...}` (after the brace): a quoted metric name if the
/// UTF-8 syntax gives one, the labels, and the text after `}`.
fn label_set(body: &str) -> Result<LabelSet<'_>, Skip> {
    let mut rest = body;
    let mut name = None;
    let mut labels = Vec::new();
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix('}') {
            return Ok((name, labels, after));
        }
        let (key, quoted, after) = match rest.strip_prefix('"') {
            Some(q) => {
                let (k, a) = quoted_string(q)?;
                (k, true, a)
            }
            None => {
                let n = label_name_len(rest);
                if n == 0 {
                    return Err("bad label name");
                }
                (Cow::Borrowed(&rest[..n]), false, &rest[n..])
            }
        };
        rest = after.trim_start();
        if let Some(after) = rest.strip_prefix('=') {
            let v = after
                .trim_start()
                .strip_prefix('"')
                .ok_or("label value is not quoted")?;
            let (value, after) = quoted_string(v)?;
            labels.push((key, value));
            rest = after;
        } else if quoted && name.is_none() && labels.is_empty() {
            name = Some(key);
        } else {
            return Err("label without a value");
        }
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix(',') {
            rest = after;
        } else if !rest.starts_with('}') {
            return Err("labels are not separated by commas");
        }
    }
}

fn label_name_len(t: &str) -> usize {
    let mut n = 0;
    for (i, b) in t.bytes().enumerate() {
        if !(b.is_ascii_alphabetic() || b == b'_' || (i > 0 && b.is_ascii_digit())) {
            break;
        }
        n = i + 1;
    }
    n
}

/// A double-quoted string after its opening quote: the unescaped text
/// (`\\`, `\"`, `\n`) and what follows the closing quote.
fn quoted_string(s: &str) -> Result<(Cow<'_, str>, &str), Skip> {
    let mut out: Option<String> = None;
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                let text = match out {
                    Some(o) => Cow::Owned(o),
                    None => Cow::Borrowed(&s[..i]),
                };
                return Ok((text, &s[i + 1..]));
            }
            '\\' => {
                let o = out.get_or_insert_with(|| s[..i].to_string());
                match chars.next() {
                    Some((_, 'n')) => o.push('\n'),
                    Some((_, e)) => o.push(e),
                    None => return Err("unterminated label value"),
                }
            }
            c => {
                if let Some(o) = out.as_mut() {
                    o.push(c);
                }
            }
        }
    }
    Err("unterminated label value")
}

/// A series written as PromQL prints it (`name{a="b"}`, or `{a="b"}`) ->
/// name and labels; `None` when the text is not one (a legend like `web-0`).
pub fn series_name(text: &str) -> Option<(Cow<'_, str>, Vec<Label<'_>>)> {
    let t = text.trim();
    let n = metric_name_len(t);
    let body = t[n..].strip_prefix('{')?;
    let (quoted, labels, rest) = label_set(body).ok()?;
    if !rest.trim().is_empty() {
        return None;
    }
    let name = match quoted {
        Some(q) if n == 0 => q,
        None => Cow::Borrowed(&t[..n]),
        Some(_) => return None,
    };
    Some((name, labels))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::role::Role;

    /// (name, line, record's (ts, metric, value, series) or None for no
    /// record, or the skip reason)
    type Case = (
        &'static str,
        &'static str,
        Result<Option<[&'static str; 4]>, Skip>,
    );

    #[test]
    fn lines() {
        let cases: Vec<Case> = vec![
            ("help", "# HELP http_requests_total The total.", Ok(None)),
            ("type", "# TYPE http_requests_total counter", Ok(None)),
            (
                "free comment first",
                "# Escaping in label values:",
                Err("not a Prometheus comment"),
            ),
            ("blank", "", Ok(None)),
            (
                "sample with ms timestamp",
                "http_requests_total{method=\"post\",code=\"200\"} 1027 1395066363000",
                Ok(Some([
                    "2014-03-17T14:26:03Z",
                    "http_requests_total",
                    "1027",
                    "http_requests_total{code=\"200\",method=\"post\"}",
                ])),
            ),
            (
                "negative timestamp, +Inf",
                "something_weird{problem=\"division by zero\"} +Inf -3982045",
                Ok(Some([
                    "1969-12-31T22:53:37.955Z",
                    "something_weird",
                    "+Inf",
                    "something_weird{problem=\"division by zero\"}",
                ])),
            ),
            ("no timestamp", "go_goroutines 151", Ok(None)),
            (
                "utf-8 name",
                "{\"my.dotted.metric\", \"error.message\"=\"Not Found\"} 1 1790841480000",
                Ok(Some([
                    "2026-10-01T07:58:00Z",
                    "my.dotted.metric",
                    "1",
                    "my.dotted.metric{error.message=\"Not Found\"}",
                ])),
            ),
            (
                "no value",
                "{\"my.dotted.metric\", \"error.message\"=\"Not Found\"}",
                Err("no value after the metric name"),
            ),
            (
                "bad type",
                "# TYPE x widget",
                Err("unknown metric type in `# TYPE`"),
            ),
            (
                "grafana header",
                "#name#a,b",
                Err("not a Prometheus comment"),
            ),
            (
                "logfmt",
                "level=info msg=hi",
                Err("no value after the metric name"),
            ),
            (
                "words",
                "hello world again",
                Err("sample value is not a number"),
            ),
            (
                "label: value text",
                "testLabel: 1",
                Err("not a Prometheus sample"),
            ),
            (
                "recording rule",
                "job:http_requests:rate5m 12.5 1790841480000",
                Ok(Some([
                    "2026-10-01T07:58:00Z",
                    "job:http_requests:rate5m",
                    "12.5",
                    "job:http_requests:rate5m",
                ])),
            ),
        ];
        for (name, line, want) in cases {
            let mut x = Text::default();
            let got = x.line(line).map(|recs| {
                recs.first().map(|r| {
                    [Role::Ts, Role::Metric, Role::Value, Role::Series]
                        .map(|role| r.get(role).unwrap_or("").to_string())
                })
            });
            let want = want.map(|o| o.map(|a| a.map(str::to_string)));
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn escaped_labels_and_openmetrics_seconds() {
        let mut x = Text::default();
        let line = r#"msdos_file_access_time_seconds{path="C:\\DIR\\FILE.TXT",error="Cannot find file:\n\"FILE.TXT\""} 1.458255915e9 1395066363000"#;
        let recs = x.line(line).expect("sample");
        assert_eq!(recs[0].label("path"), Some("C:\\DIR\\FILE.TXT"));
        assert_eq!(
            recs[0].label("error"),
            Some("Cannot find file:\n\"FILE.TXT\"")
        );
        assert!(x
            .line("# Free comments are fine once samples were read")
            .is_ok());

        let mut om = Text::default();
        om.line("# EOF").expect("eof");
        let recs = om
            .line("rpc_requests_total{service=\"a\"} 22.0 1790841480.5 # {id=\"1\"} 1 1790841480")
            .expect("sample");
        assert_eq!(recs[0].get(Role::Ts), Some("2026-10-01T07:58:00.500Z"));
        assert!(om.line("rpc_requests_total 1.0").expect("no ts").is_empty());
        assert!(om.unplaced().is_some());
        assert!(om.unplaced().is_none());
    }

    #[test]
    fn promql_series_names() {
        let (name, labels) =
            series_name("hikaricp_connections_active{instance=\"web-0\", pool=\"p\"}")
                .expect("series");
        assert_eq!(name, "hikaricp_connections_active");
        assert_eq!(labels.len(), 2);
        assert!(series_name("web-0").is_none());
        assert!(series_name("up{a=\"b\"} trailing").is_none());
    }
}
