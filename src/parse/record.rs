//! The record builder: one record's [`Fields`] -> one [`Event`], by what
//! the format produces (a request, a log record, an infrastructure event, a
//! metric sample). Conversion failures are skip reasons, never panics.
//!
//! In: the fields a reader cut from one record (and the JSON record, for
//! keys the definition does not map). Out: an [`Event`] borrowing from the
//! fields, `Ok(None)` for a record without a time, or a [`SkipReason`].
//!
//! ```text
//! {ts: "01/Oct/2026:13:26:55 +0530", request: "GET /a HTTP/1.1", status: "200"} -> Event::Request { ts: 07:56:55Z, .. }
//! ```

use std::borrow::Cow;

use crate::event::{Event, InfraEvent, Level, LogRecord, MetricSample, Origin};
use crate::formats::{Fields, Format, Produces, Record, Role, Rules};

use super::request::{request, tenant};
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
        Produces::Request => {
            // A proxy that logs when it received the request as well as when
            // it answered (ALB's `request_creation_time`) gives the client's
            // whole wait where no processing time was logged (`-1` on a 504),
            // and where a WebSocket began: its line is written when the
            // upgraded connection closes (status 101), minutes later.
            let upgraded = fields.get(Role::Status).map(str::trim_ascii) == Some("101");
            let received = match fields.get(Role::Duration) {
                Some(_) if !upgraded => None,
                _ => fields.get(Role::FirstTs).and_then(|t| times.parse(t)),
            };
            Event::Request(request(
                format, rules, fields, record, ts, fraction, received, origin, route_buf,
            )?)
        }
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
                members: rules.infra_members(raw_message),
                host: fields
                    .get(Role::Instance)
                    .map(str::trim)
                    .filter(|h| !h.is_empty())
                    .map(str::to_string),
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
                period_start: format.def.stamped == crate::formats::Stamped::PeriodStart,
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
        // A logger's error detail (Python's `exc_info`, mapped as the
        // reason) says what failed where the message only says that
        // something did ("request failed").
        signal: fields
            .get(Role::Message)
            .and_then(|m| rules.signal_of(m))
            .or_else(|| fields.get(Role::Reason).and_then(|d| rules.signal_of(d))),
        version: fields
            .get(Role::Message)
            .and_then(|m| rules.versions.banner_of(m)),
    }
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
}
