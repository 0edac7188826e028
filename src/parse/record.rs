//! One record's [`Fields`] -> one [`Event`], by what the format produces.
//! Conversion failures are skip reasons, never panics.

use std::borrow::Cow;

use crate::event::{
    Event, InfraEvent, Level, LogRecord, MetricSample, Origin, Request, RequestKind,
};
use crate::formats::{DurationUnit, Fields, Format, Produces, Record, Role, Rules, TimestampMarks};
use crate::redact::short_hash;

use super::route;
use super::timestamp::TimeParser;

/// Why a line was not turned into an event.
pub type SkipReason = &'static str;

/// A look at one record's raw fields.
pub type Inspect<'i> = &'i mut dyn FnMut(Origin, &Fields<'_>);

/// Builds events for one input: its timestamp cache, an optional look at
/// every record's raw fields (for `formats check --fields`), and why the
/// last record read gave no event.
pub struct Builder<'i> {
    pub times: TimeParser,
    pub inspect: Option<Inspect<'i>>,
    /// Set when a record was read but has no time to place it on the
    /// timeline: it counts as parsed, and gives no event.
    unplaced: Option<String>,
}

impl<'i> Builder<'i> {
    pub fn new(times: TimeParser, inspect: Option<Inspect<'i>>) -> Builder<'i> {
        Builder {
            times,
            inspect,
            unplaced: None,
        }
    }

    /// The event of one record; `Ok(None)` when it has no time (the reason
    /// is kept for [`Builder::take_unplaced`]).
    pub fn build<'f>(
        &mut self,
        format: &Format,
        rules: &Rules,
        fields: &'f Fields<'_>,
        record: Option<Record<'f>>,
        origin: Origin,
    ) -> Result<Option<Event<'f>>, SkipReason> {
        self.build_in(format, rules, fields, record, origin, None)
    }

    /// [`Builder::build`], folding the route into `route_buf` (a buffer the
    /// caller reuses line after line) rather than a new string.
    pub fn build_in<'f>(
        &mut self,
        format: &Format,
        rules: &Rules,
        fields: &'f Fields<'_>,
        record: Option<Record<'f>>,
        origin: Origin,
        route_buf: Option<&'f mut String>,
    ) -> Result<Option<Event<'f>>, SkipReason> {
        if let Some(f) = self.inspect.as_mut() {
            f(origin, fields);
        }
        if let Some(reason) = fields.untimed() {
            // A format whose records never carry a wall-clock time says why.
            self.unplaced = Some(format.def.untimed.as_deref().unwrap_or(reason).to_string());
            return Ok(None);
        }
        build(
            format,
            rules,
            &mut self.times,
            fields,
            record,
            origin,
            route_buf,
        )
        .map(Some)
    }

    /// Why the records built since the last call gave no event, if one had no time.
    pub fn take_unplaced(&mut self) -> Option<String> {
        self.unplaced.take()
    }
}

/// Turn fields into an event. `record` is the JSON record for JSON formats,
/// consulted for tenant and key fields the definition does not map.
pub fn build<'f>(
    format: &Format,
    rules: &Rules,
    times: &mut TimeParser,
    fields: &'f Fields<'_>,
    record: Option<Record<'f>>,
    origin: Origin,
    route_buf: Option<&'f mut String>,
) -> Result<Event<'f>, SkipReason> {
    let ts_text = fields.get(Role::Ts).ok_or("no timestamp field")?;
    let (ts, fraction) = times
        .parse_with_fraction(ts_text)
        .ok_or("unreadable timestamp")?;
    Ok(match format.def.produces {
        // A proxy's own messages between its request lines (HAProxy's
        // "Proxy started", Heroku's dyno lines) are log records.
        Produces::Request if !is_request(fields) && fields.has(Role::Message) => {
            Event::Log(log_record(rules, fields, record, ts, origin))
        }
        Produces::Request => Event::Request(request(
            format, rules, fields, record, ts, fraction, origin, route_buf,
        )?),
        Produces::Log => Event::Log(log_record(rules, fields, record, ts, origin)),
        Produces::Infra => {
            let reason = fields.get(Role::Reason).unwrap_or("").to_string();
            let raw_message = fields.get(Role::Message).unwrap_or("");
            // Change logs name who made the change, often by e-mail: never kept whole.
            let message = crate::redact::redact_text(raw_message).into_owned();
            let first_ts = fields
                .get(Role::FirstTs)
                .and_then(|t| times.parse(t))
                .unwrap_or(ts)
                .min(ts);
            Event::Infra(InfraEvent {
                ts,
                first_ts,
                origin,
                kind: rules.infra_kind(&reason, raw_message),
                object: fields.get(Role::Object).unwrap_or("").to_string(),
                count: fields
                    .get(Role::Count)
                    .and_then(|c| c.parse().ok())
                    .unwrap_or(1),
                reason,
                message,
            })
        }
        Produces::Metric => {
            let name = fields
                .get(Role::Metric)
                .ok_or("no metric name")?
                .to_string();
            let value: f64 = fields
                .get(Role::Value)
                .and_then(|v| v.trim().parse().ok())
                .ok_or("metric value is not a number")?;
            let instance = fields
                .get(Role::Instance)
                .or_else(|| rules.instance_labels.iter().find_map(|l| fields.label(l)))
                .map(str::to_string);
            let series = match (fields.get(Role::Series), &instance) {
                (Some(s), _) => s.to_string(),
                (None, Some(i)) => format!("{name}{{instance=\"{i}\"}}"),
                (None, None) => name.clone(),
            };
            Event::Metric(MetricSample {
                ts,
                origin,
                role: rules.metric_role(&name),
                series,
                name,
                value,
                instance,
            })
        }
    })
}

/// Whether a request format's record is a request: it names one, or its status.
fn is_request(fields: &Fields<'_>) -> bool {
    [Role::Request, Role::Method, Role::Path, Role::Status]
        .into_iter()
        .any(|r| fields.has(r))
}

fn log_record<'f>(
    rules: &Rules,
    fields: &'f Fields<'_>,
    record: Option<Record<'f>>,
    ts: i64,
    origin: Origin,
) -> LogRecord<'f> {
    LogRecord {
        ts,
        origin,
        level: fields.get(Role::Level).map_or(Level::Info, level),
        message: Cow::Borrowed(fields.get(Role::Message).unwrap_or("")),
        instance: fields
            .get(Role::Instance)
            .filter(|i| !i.is_empty() && *i != "-")
            .map(Cow::Borrowed),
        tenant: tenant(rules, fields, record, None, None),
        signal: fields.get(Role::Message).and_then(|m| rules.signal_of(m)),
        version: fields
            .get(Role::Message)
            .and_then(|m| rules.versions.banner_of(m)),
    }
}

#[allow(clippy::too_many_arguments)]
fn request<'f>(
    format: &Format,
    rules: &Rules,
    fields: &'f Fields<'_>,
    record: Option<Record<'f>>,
    ts: i64,
    // The time was written with a fraction of a second.
    fraction: bool,
    origin: Origin,
    route_buf: Option<&'f mut String>,
) -> Result<Request<'f>, SkipReason> {
    let (mut method, mut path) = (fields.get(Role::Method), fields.get(Role::Path));
    if let Some(line) = fields.get(Role::Request) {
        // `split(' ')`'s first two parts, by memchr: this runs on every line.
        let (m, rest) = match memchr::memchr(b' ', line.as_bytes()) {
            Some(i) => (&line[..i], Some(&line[i + 1..])),
            None => (line, None),
        };
        let m = Some(m).filter(|m| !m.is_empty());
        let p = rest.map(|r| match memchr::memchr(b' ', r.as_bytes()) {
            Some(j) => &r[..j],
            None => r,
        });
        if method.is_none() {
            method = m;
        }
        if path.is_none() {
            path = p.or(if m.is_some() { Some("") } else { None });
        }
    }
    let raw_path = path.unwrap_or("");
    // `-`: the client went away before a status was sent.
    let status = match fields
        .get(Role::Status)
        .map(str::trim_ascii)
        .filter(|s| *s != "-" && !s.is_empty())
    {
        Some(s) => Some(s.parse::<u16>().map_err(|_| "status is not a number")?),
        None => None,
    };
    let duration_ms = fields
        .get(Role::Duration)
        .and_then(|d| duration_ms(last_of_list(d), format.def.duration_unit));
    let (start, end) = match (format.def.timestamp_marks, duration_ms) {
        (TimestampMarks::End, Some(d)) => {
            // A whole-second end time was truncated: the request ended half a
            // second later on average.
            let end = if fraction { ts } else { ts + 500 };
            (end - d.round() as i64, end)
        }
        (TimestampMarks::Start, Some(d)) => (ts, ts + d.round() as i64),
        (_, None) => (ts, ts),
    };
    let (route, tenant_segment) = match route_buf {
        Some(buf) => route::fold_in(raw_path, &rules.tenant_segments, buf),
        None => (route::fold(raw_path, &rules.tenant_segments), None),
    };
    let user_agent = fields
        .get(Role::UserAgent)
        .filter(|u| !u.is_empty() && *u != "-");
    let kind = if rules.is_health_check(&route, user_agent) {
        RequestKind::HealthCheck
    } else {
        RequestKind::Api
    };
    Ok(Request {
        ts: start,
        end_ts: end,
        origin,
        duration_ms,
        method: method.map(Cow::Borrowed),
        path_hash: path_hash(raw_path),
        status,
        bytes: fields.get(Role::Bytes).and_then(|b| b.parse().ok()),
        tenant: tenant(rules, fields, record, Some(raw_path), tenant_segment),
        integration: integration(rules, fields, record, raw_path, user_agent),
        instance: fields
            .get(Role::Instance)
            .map(last_of_list)
            .filter(|i| !i.is_empty() && *i != "-")
            .map(Cow::Borrowed),
        route,
        kind,
    })
}

/// A hash of the raw path that tells repeats apart: FxHash reads eight
/// bytes a step where FNV reads one, and this runs on every request. Only
/// compared, never shown.
fn path_hash(raw: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(raw.as_bytes());
    h.finish()
}

/// A duration in milliseconds: a bare number is in the definition's unit;
/// one written with its unit (GCP's `"0.123s"`, Heroku's `18ms`) says its own.
fn duration_ms(text: &str, unit: DurationUnit) -> Option<f64> {
    let t = text.trim_ascii();
    if let Some(v) = plain_decimal(t) {
        return Some(unit.to_ms(v));
    }
    if let Ok(v) = t.parse::<f64>() {
        // Negative: a timer that never ran (`-1`), not a duration.
        return (v >= 0.0).then(|| unit.to_ms(v));
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, suffix) = t.split_at(split);
    let unit = match suffix {
        "" => unit,
        "s" => DurationUnit::S,
        "ms" => DurationUnit::Ms,
        "us" | "\u{b5}s" => DurationUnit::Us,
        "ns" => DurationUnit::Ns,
        _ => return None,
    };
    number.parse::<f64>().ok().map(|v| unit.to_ms(v))
}

/// `123`, `0.173`: digits with at most one point and at most 15 of them,
/// read as an integer divided by a power of ten. Both are exact doubles and
/// the division rounds correctly, so the result is the one `parse` gives,
/// without its general machinery (this runs on every request).
fn plain_decimal(t: &str) -> Option<f64> {
    let mut mantissa: u64 = 0;
    let mut digits = 0;
    let mut scale: Option<i32> = None;
    for b in t.bytes() {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + u64::from(b - b'0');
                digits += 1;
                if let Some(s) = scale.as_mut() {
                    *s += 1;
                }
            }
            b'.' if scale.is_none() => scale = Some(0),
            _ => return None,
        }
    }
    if digits == 0 || digits > 15 {
        return None;
    }
    let scale = scale.unwrap_or(0);
    Some(mantissa as f64 / 10f64.powi(scale))
}

/// nginx writes `a, b` (and `a : b`) when a request was retried across
/// upstreams; the last one answered.
fn last_of_list(v: &str) -> &str {
    let v = v.trim_ascii();
    // The common case, one value: no searcher to set up.
    if memchr::memchr(b' ', v.as_bytes()).is_none() {
        return v;
    }
    let after_comma = v.rsplit(", ").next().unwrap_or(v);
    after_comma
        .rsplit(" : ")
        .next()
        .unwrap_or(after_comma)
        .trim()
}

/// The tenant: `--tenant-from` rules first, then the mapped role, then the
/// default field names, then a path segment after `accounts`/`orgs`/...
fn tenant<'f>(
    rules: &Rules,
    fields: &'f Fields<'_>,
    record: Option<Record<'f>>,
    path: Option<&'f str>,
    // The segment after a key, when folding the route already read it.
    segment: Option<Option<&'f str>>,
) -> Option<Cow<'f, str>> {
    let from_record = |keys: &[String]| -> Option<Cow<'f, str>> {
        record?.first_text(keys, false).filter(|s| !s.is_empty())
    };
    if let Some(t) = from_record(&rules.tenant_field_rules) {
        return Some(t);
    }
    if let Some(p) = path {
        for re in &rules.tenant_path_rules {
            if let Some(m) = re.captures(p).and_then(|c| c.name("tenant")) {
                return Some(Cow::Borrowed(m.as_str()));
            }
        }
        for q in &rules.tenant_query_rules {
            if let Some(v) = route::query_param(p, q) {
                return Some(Cow::Borrowed(v));
            }
        }
    }
    if let Some(t) = fields
        .get(Role::Tenant)
        .filter(|t| !t.is_empty() && *t != "-")
    {
        return Some(Cow::Borrowed(t));
    }
    if let Some(t) = from_record(&rules.tenant_fields) {
        return Some(t);
    }
    match segment {
        Some(seg) => seg,
        None => path.and_then(|p| route::segment_after(p, &rules.tenant_segments)),
    }
    .map(Cow::Borrowed)
}

/// An API key or client id (shown only as a short hash), else the user
/// agent's product token.
fn integration<'f>(
    rules: &Rules,
    fields: &'f Fields<'_>,
    record: Option<Record<'f>>,
    path: &str,
    user_agent: Option<&'f str>,
) -> Option<Cow<'f, str>> {
    let key = fields
        .get(Role::ApiKey)
        .map(Cow::Borrowed)
        .or_else(|| record?.first_text(&rules.api_key_fields, false))
        .or_else(|| {
            // Most paths have no query: skip the parameter search then.
            memchr::memchr(b'?', path.as_bytes())?;
            rules
                .api_key_params
                .iter()
                .find_map(|p| route::query_param(path, p).map(Cow::Borrowed))
        })
        .filter(|k| !k.is_empty() && k != "-");
    if let Some(k) = key {
        return Some(Cow::Owned(format!("key:{}", short_hash(&k))));
    }
    let ua = user_agent?;
    let token = ua
        .split([' ', '/', ';', '('])
        .next()
        .filter(|t| !t.is_empty())?;
    if rules.is_browser_token(token) {
        return Some(Cow::Borrowed("browser"));
    }
    Some(Cow::Borrowed(token))
}

/// Severity names and numbers (pino/bunyan 10..60, syslog 0..7 are told
/// apart by range) to a level.
pub fn level(text: &str) -> Level {
    let t = text.trim_ascii();
    if let Ok(n) = t.parse::<u32>() {
        return match n {
            0..=7 => match n {
                0..=2 => Level::Fatal,
                3 => Level::Error,
                4 => Level::Warn,
                5 | 6 => Level::Info,
                _ => Level::Debug,
            },
            8..=10 => Level::Trace,
            11..=20 => Level::Debug,
            21..=30 => Level::Info,
            31..=40 => Level::Warn,
            41..=50 => Level::Error,
            _ => Level::Fatal,
        };
    }
    match t.to_ascii_lowercase().as_str() {
        "trace" | "t" | "finest" | "finer" => Level::Trace,
        "debug" | "d" | "dbug" | "fine" | "debug1" | "debug2" | "debug3" | "debug4" | "debug5" => {
            Level::Debug
        }
        "warn" | "warning" | "w" | "wrn" => Level::Warn,
        "error" | "err" | "e" | "eror" | "severe" => Level::Error,
        "fatal" | "critical" | "crit" | "panic" | "emerg" | "emergency" | "alert" | "dpanic"
        | "f" | "c" => Level::Fatal,
        _ => Level::Info,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels() {
        let cases = [
            ("30", Level::Info),
            ("50", Level::Error),
            ("60", Level::Fatal),
            ("WARNING", Level::Warn),
            ("err", Level::Error),
            ("3", Level::Error),
            ("notice", Level::Info),
        ];
        for (text, want) in cases {
            assert_eq!(level(text), want, "{text}");
        }
    }

    #[test]
    fn durations_in_the_definitions_unit_or_their_own() {
        // (text, definition unit, milliseconds)
        let cases = [
            ("0.310", DurationUnit::S, Some(310.0)),
            ("226", DurationUnit::Ms, Some(226.0)),
            ("0.123s", DurationUnit::Ms, Some(123.0)),
            ("18ms", DurationUnit::S, Some(18.0)),
            ("46382173", DurationUnit::Ns, Some(46.382173)),
            ("2e-3", DurationUnit::S, Some(2.0)),
            ("-1", DurationUnit::S, None),
            ("soon", DurationUnit::S, None),
        ];
        for (text, unit, want) in cases {
            assert_eq!(duration_ms(text, unit), want, "{text}");
        }
    }

    #[test]
    fn a_request_formats_own_messages_are_log_records() {
        let cat = crate::formats::Catalogue::builtin().expect("catalogue");
        let f = &cat.formats[cat.find("nginx_timed").expect("nginx_timed")];
        let mut times = TimeParser::new(&[], crate::zone::Zone::Utc);
        let mut fields = Fields::default();
        fields.set(Role::Ts, "2026-10-01T07:58:06Z".into());
        fields.set(Role::Message, "Proxy web started.".into());
        let mut event_of = |fields: &Fields<'_>| {
            build(
                f,
                &cat.rules,
                &mut times,
                fields,
                None,
                Origin::default(),
                None,
            )
            .map(Event::into_owned)
        };
        let ev = event_of(&fields);
        assert!(matches!(ev, Ok(Event::Log(l)) if l.message == "Proxy web started."));
        fields.set(Role::Status, "200".into());
        assert!(matches!(event_of(&fields), Ok(Event::Request(_))));
    }

    /// The short path reads what `parse` reads, to the bit.
    #[test]
    fn plain_decimals_read_as_parse_reads_them() {
        for t in [
            "0",
            "7",
            "0.173",
            "0.001",
            "12.5",
            "1.000",
            "0.1",
            "0.3",
            "123456.789012345",
            "999999999999999",
            "3.",
            ".5",
            "0.0000000000001",
        ] {
            assert_eq!(plain_decimal(t), t.parse::<f64>().ok(), "{t}");
        }
        for t in ["", ".", "1.2.3", "-1", "1e3", "12a", "1234567890123456"] {
            assert_eq!(plain_decimal(t), None, "{t}");
        }
    }

    #[test]
    fn retried_upstreams_take_the_last() {
        assert_eq!(last_of_list("10.0.0.1:80, 10.0.0.2:80"), "10.0.0.2:80");
        assert_eq!(last_of_list("10.0.0.1:80"), "10.0.0.1:80");
        assert_eq!(last_of_list("0.050, 0.049"), "0.049");
    }
}
