//! InfluxDB line protocol (what Telegraf writes, `influx query --raw`
//! exports, `influxd inspect export-lp`), one point per line -> one metric
//! record per numeric field.
//!
//! A line is `measurement[,tag=value...] field=value[,field=value...]
//! [timestamp]`. Commas, spaces and `=` in names and tag values are escaped
//! with a backslash; string field values are double-quoted (and may hold
//! spaces). Field values are floats, integers (`3i`), unsigned integers
//! (`3u`), strings or booleans: strings and booleans are not measurements
//! and give no record.
//!
//! The metric of field `value` is the measurement alone; any other field's
//! is `measurement_field`, as Telegraf's Prometheus output names them
//! (`cpu_usage_user`, `mem_used_percent`). Tags become labels, so a `host`
//! tag names the instance. The timestamp is epoch nanoseconds by default;
//! one written in seconds, milliseconds or microseconds (`-precision`) is
//! told by its magnitude when parsed. A line without one has no time of its
//! own: it is parsed, counted as unplaced, and gives no record. `#` lines
//! are comments (free ones once a point or an `influx_inspect export`
//! header was read), and the export's `CREATE DATABASE` lines hold no
//! point. A measurement must be named as writers name them (a letter
//! or `_` first): a log line's first word is a time or a `key=value` pair,
//! and is refused before its `name=number` words are taken for fields.
//!
//! ```text
//! cpu,host=web-1,cpu=cpu-total usage_user=71.5,usage_idle=20.25 1790841480000000000
//!   -> cpu_usage_user{cpu="cpu-total",host="web-1"} 71.5 at 1790841480000000000 (ns)
//!   -> cpu_usage_idle{cpu="cpu-total",host="web-1"} 20.25
//! ```

use std::borrow::Cow;

use super::{metric_record, Extractor, Skip, BLANK};
use crate::formats::compile::Fields;

#[derive(Debug, Default)]
pub struct LineProtocol {
    /// The last line was a point without a timestamp.
    unplaced: bool,
    /// A point or an export's header was read: free comments count as
    /// line protocol only after one (a file of `#` lines is not a metric
    /// export).
    seen: bool,
    /// Inside the `# DDL` section of an `influx_inspect export` file, whose
    /// `CREATE DATABASE` statements hold no point.
    ddl: bool,
}

/// The comments `influx_inspect export` writes around its points.
const EXPORT_HEADERS: [&str; 5] = [
    "INFLUXDB EXPORT:",
    "DDL",
    "DML",
    "CONTEXT-DATABASE:",
    "CONTEXT-RETENTION-POLICY:",
];

impl Extractor for LineProtocol {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        self.unplaced = false;
        let t = line.trim();
        if t.is_empty() {
            return Err(BLANK);
        }
        if let Some(comment) = t.strip_prefix('#') {
            return self.comment(comment.trim_start());
        }
        if self.ddl && t.starts_with("CREATE ") {
            return Ok(Vec::new());
        }
        let point = point(t)?;
        self.seen = true;
        let Some(ts) = point.ts else {
            self.unplaced = true;
            return Ok(Vec::new());
        };
        Ok(point
            .fields
            .into_iter()
            .map(|(field, value)| {
                let name = if field == "value" {
                    point.measurement.clone()
                } else {
                    Cow::Owned(format!("{}_{field}", point.measurement))
                };
                metric_record(Cow::Borrowed(ts), name, Cow::Borrowed(value), &point.tags)
            })
            .collect())
    }

    fn unplaced(&mut self) -> Option<Skip> {
        std::mem::take(&mut self.unplaced)
            .then_some("InfluxDB point without a timestamp (the server stamps it when written)")
    }
}

impl LineProtocol {
    fn comment<'a>(&mut self, c: &str) -> Result<Vec<Fields<'a>>, Skip> {
        if EXPORT_HEADERS.iter().any(|h| c.starts_with(h)) {
            self.seen = true;
            self.ddl = c.starts_with("DDL") || (self.ddl && !c.starts_with("DML"));
        } else if !self.seen {
            return Err("a comment before any point");
        }
        Ok(Vec::new())
    }
}

type Pair<'a> = (Cow<'a, str>, Cow<'a, str>);

/// One line, taken apart: numeric fields only, names unescaped.
#[derive(Debug)]
struct Point<'a> {
    measurement: Cow<'a, str>,
    tags: Vec<Pair<'a>>,
    fields: Vec<(Cow<'a, str>, &'a str)>,
    ts: Option<&'a str>,
}

fn point(t: &str) -> Result<Point<'_>, Skip> {
    let mut sections = split_unescaped(t, b' ', false).into_iter();
    let key = sections.next().unwrap_or_default();
    let rest = sections.next().ok_or("no fields after the measurement")?;
    let mut rest = split_unescaped(rest, b' ', true).into_iter();
    let field_set = rest.next().unwrap_or_default();
    let ts = rest.next().map(str::trim).filter(|s| !s.is_empty());

    let mut parts = split_unescaped(key, b',', false).into_iter();
    let measurement = parts.next().unwrap_or_default();
    if !name_like(measurement) {
        return Err("not a line-protocol measurement");
    }
    if ts.is_some_and(|ts| {
        let digits = ts.strip_prefix('-').unwrap_or(ts);
        digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit())
    }) {
        return Err("timestamp is not an integer");
    }
    let tags = parts
        .map(|tag| {
            let (k, v) = split_pair(tag).ok_or("a tag needs `key=value`")?;
            Ok((unescape(k), unescape(v)))
        })
        .collect::<Result<Vec<_>, Skip>>()?;

    let mut fields = Vec::new();
    for field in split_unescaped(field_set, b',', true) {
        let (k, v) = split_pair(field).ok_or("a field needs `key=value`")?;
        if let Some(number) = field_number(v)? {
            fields.push((unescape(k), number));
        }
    }
    Ok(Point {
        measurement: unescape(measurement),
        tags,
        fields,
        ts,
    })
}

/// A field value's number text (`3i` -> `3`); `None` for a string or a
/// boolean, which are not measurements.
fn field_number(v: &str) -> Result<Option<&str>, Skip> {
    if let Some(s) = v.strip_prefix('"') {
        return if s.ends_with('"') {
            Ok(None)
        } else {
            Err("string field value without its closing quote")
        };
    }
    const BOOLS: [&str; 10] = [
        "t", "T", "true", "True", "TRUE", "f", "F", "false", "False", "FALSE",
    ];
    if BOOLS.contains(&v) {
        return Ok(None);
    }
    if let Some(int) = v.strip_suffix('i') {
        return int
            .parse::<i64>()
            .map(|_| Some(int))
            .map_err(|_| "integer field value is not an integer");
    }
    if let Some(uint) = v.strip_suffix('u') {
        return uint
            .parse::<u64>()
            .map(|_| Some(uint))
            .map_err(|_| "unsigned field value is not an unsigned integer");
    }
    match v.parse::<f64>() {
        Ok(f) if f.is_finite() => Ok(Some(v)),
        _ => Err("field value is not a number, a string or a boolean"),
    }
}

/// Whether a measurement is named as writers name them: a letter or `_`,
/// then letters, digits, `_ . - / :` and escaped characters (`cpu`,
/// `hikaricp_connections_active`, `servers.api-1.pool`, `disk\ io`). The
/// protocol allows any text, but a log line's first word is a time
/// (`20171223-22:15:29:606|Step_LSC|...`) or holds `key=value` (logfmt),
/// and its `name=number` words would read as fields of a point.
fn name_like(measurement: &str) -> bool {
    let mut bytes = measurement.bytes();
    if !bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
    {
        return false;
    }
    let mut escaped = false;
    bytes.all(|b| {
        let ok = escaped
            || b == b'\\'
            || b.is_ascii_alphanumeric()
            || matches!(b, b'_' | b'.' | b'-' | b'/' | b':');
        escaped = !escaped && b == b'\\';
        ok
    })
}

/// `key=value` at the first unescaped `=`.
fn split_pair(s: &str) -> Option<(&str, &str)> {
    let at = find_unescaped(s, b'=')?;
    let (k, v) = (s.get(..at)?, s.get(at + 1..)?);
    (!k.is_empty() && !v.is_empty()).then_some((k, v))
}

/// The first `sep` not escaped by a backslash.
fn find_unescaped(s: &str, sep: u8) -> Option<usize> {
    let mut escaped = false;
    for (i, b) in s.bytes().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            _ if b == sep => return Some(i),
            _ => {}
        }
    }
    None
}

/// `s` cut at each `sep` that is not escaped and, with `quotes`, not inside
/// a double-quoted string field value. `sep` is ASCII, so the cuts fall on
/// character boundaries.
fn split_unescaped(s: &str, sep: u8, quotes: bool) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut escaped, mut quoted) = (0, false, false);
    for (i, b) in s.bytes().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'"' if quotes => quoted = !quoted,
            _ if b == sep && !quoted => {
                out.push(s.get(start..i).unwrap_or_default());
                start = i + 1;
                // The timestamp is the rest: only fields are split further.
                if sep == b' ' {
                    break;
                }
            }
            _ => {}
        }
    }
    out.push(s.get(start..).unwrap_or_default());
    out
}

/// A name or tag value with its escapes (`\,` `\ ` `\=` `\\`) removed.
fn unescape(s: &str) -> Cow<'_, str> {
    if !s.contains('\\') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some(&next)) if matches!(next, ',' | ' ' | '=' | '\\' | '"') => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::role::Role;

    fn summary(line: &str) -> Result<Vec<String>, Skip> {
        LineProtocol::default()
            .line(line)
            .map(|recs| super::super::point_summary(&recs))
    }

    #[test]
    fn points() {
        type Case = (&'static str, &'static str, Result<Vec<&'static str>, Skip>);
        let cases: [Case; 13] = [
            (
                "Telegraf cpu: measurement_field, tags as labels",
                "cpu,cpu=cpu-total,host=web-1 usage_user=71.5,usage_idle=20.25 1790841480000000000",
                Ok(vec![
                    "1790841480000000000 cpu_usage_user{cpu=\"cpu-total\",host=\"web-1\"} 71.5",
                    "1790841480000000000 cpu_usage_idle{cpu=\"cpu-total\",host=\"web-1\"} 20.25",
                ]),
            ),
            (
                "field `value` is the measurement; integer suffix",
                "hikaricp_connections_active,pool=HikariPool-1 value=20i 1790841480000",
                Ok(vec![
                    "1790841480000 hikaricp_connections_active{pool=\"HikariPool-1\"} 20",
                ]),
            ),
            (
                "escapes in the measurement, tags and field keys",
                r"disk\ io,path=C:\\data,mount=/var\,x rd\=ops=3u 1790841480",
                Ok(vec![
                    "1790841480 disk io_rd=ops{mount=\"/var,x\",path=\"C:\\\\data\"} 3",
                ]),
            ),
            (
                "strings (with spaces) and booleans give no record",
                r#"procstat,host=api-1 cmdline="java -jar app.jar",running=true,memory_rss=5.12e8 1790841480000000000"#,
                Ok(vec![
                    "1790841480000000000 procstat_memory_rss{host=\"api-1\"} 5.12e8",
                ]),
            ),
            ("a comment", "# DML", Ok(vec![])),
            (
                "no timestamp: parsed, unplaced",
                "mem,host=web-1 used_percent=63.2",
                Ok(vec![]),
            ),
            (
                "a logfmt line",
                "time=2026-10-01T07:58:00Z level=info msg=ready",
                Err("not a line-protocol measurement"),
            ),
            (
                "an app log line whose words read as fields",
                "20171223-22:15:29:645|Step_ExtSDM|30002312|calculateCaloriesWithCache totalCalories=126775",
                Err("not a line-protocol measurement"),
            ),
            (
                "a plain log line",
                "2026-10-01T07:58:00Z pool timeout after 30000ms",
                Err("not a line-protocol measurement"),
            ),
            (
                "a time that is no integer",
                "mem,host=a used=1 2026-10-01T07:58:00Z",
                Err("timestamp is not an integer"),
            ),
            (
                "a bare word value",
                "app level=info 1790841480",
                Err("field value is not a number, a string or a boolean"),
            ),
            (
                "an unterminated string",
                r#"app msg="cut 1790841480"#,
                Err("string field value without its closing quote"),
            ),
            (
                "no fields",
                "cpu,host=a",
                Err("no fields after the measurement"),
            ),
        ];
        for (name, line, want) in cases {
            let want = want.map(|w| w.into_iter().map(str::to_string).collect::<Vec<_>>());
            assert_eq!(summary(line), want, "{name}");
        }
    }

    #[test]
    fn unplaced_only_after_a_point_without_time() {
        let mut lp = LineProtocol::default();
        assert_eq!(lp.line("mem,host=a used=1").map(|r| r.len()), Ok(0));
        assert!(lp.unplaced().is_some());
        assert_eq!(lp.line("# a free comment").map(|r| r.len()), Ok(0));
        assert!(lp.unplaced().is_none());
        assert_eq!(
            lp.line("mem,host=a used=1 1790841480").map(|r| r.len()),
            Ok(1)
        );
        assert!(lp.unplaced().is_none());
    }

    /// An export's header and DDL are read without a record; a free
    /// comment only counts after a point (a file of `#` lines is no export).
    #[test]
    fn comments_and_an_export_header() {
        let mut lp = LineProtocol::default();
        assert_eq!(
            lp.line("# just a note").map(|r| r.len()),
            Err("a comment before any point")
        );
        let export = [
            "# INFLUXDB EXPORT: 1677-09-21T00:12:43Z - 2262-04-11T23:47:16Z",
            "# DDL",
            "CREATE DATABASE telegraf WITH NAME autogen",
            "# DML",
            "# CONTEXT-DATABASE:telegraf",
            "# CONTEXT-RETENTION-POLICY:autogen",
            "# writing tsm data",
        ];
        for line in export {
            assert_eq!(lp.line(line).map(|r| r.len()), Ok(0), "{line}");
        }
        assert!(
            lp.line("CREATE DATABASE x").is_err(),
            "DDL ended at `# DML`"
        );
        assert_eq!(
            lp.line("mem,host=a used=1 1790841480").map(|r| r.len()),
            Ok(1)
        );
    }

    #[test]
    fn instance_from_the_host_tag() {
        let recs = LineProtocol::default()
            .line("mem,host=web-1 used_percent=63.2 1790841480000000000")
            .expect("records");
        assert_eq!(recs.first().and_then(|r| r.label("host")), Some("web-1"));
        assert_eq!(
            recs.first().and_then(|r| r.get(Role::Metric)),
            Some("mem_used_percent")
        );
    }
}
