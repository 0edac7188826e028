//! A request record's fields -> a [`Request`]: method and path from the
//! request line, status, duration in milliseconds and the span it covers,
//! the folded route, the tenant and the integration (an API key, shown only
//! as a hash, or the user agent's product token).
//!
//! In: the fields of one record of a request format. Out: a [`Request`]
//! borrowing from them, or the reason the record was skipped.
//!
//! ```text
//! request: "GET /api/v1/accounts/acct-4411/export?page=3 HTTP/1.1", duration: "0.310"
//!   -> Request { route: "/api/v1/accounts/{id}/export", tenant: "acct-4411", duration_ms: 310.0, .. }
//! ```

use std::borrow::Cow;

use crate::event::{Origin, Request, RequestKind, KEY_HASH};
use crate::formats::{DurationUnit, Fields, Format, Record, Role, Rules, TimestampMarks};
use crate::redact::short_hash;

use super::record::SkipReason;
use super::route;

#[allow(clippy::too_many_arguments)]
pub(super) fn request<'f>(
    format: &Format,
    rules: &Rules,
    fields: &'f Fields<'_>,
    record: Option<Record<'f>>,
    ts: i64,
    // The time was written with a fraction of a second.
    fraction: bool,
    // When the request was received (`first_ts`), if its format logs it.
    received: Option<i64>,
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
        Some(s) => match format.def.statuses.get(s) {
            Some(meant) => Some(*meant),
            None => Some(s.parse::<u16>().map_err(|_| "status is not a number")?),
        },
        None => None,
    };
    let logged_ms = fields
        .get(Role::Duration)
        .and_then(|d| duration_ms(last_of_list(d), format.def.duration_unit));
    // A WebSocket's line is stamped when the upgraded connection closed
    // (ALB: "for WebSockets, the time when the connection is closed"): the
    // upgrade was answered when it came in, plus its processing time. Dated
    // by the close, a reconnect storm showed a minute late.
    let upgrade = received.filter(|r| status == Some(101) && *r <= ts);
    let (duration_ms, span) = match upgrade {
        Some(r) => (
            logged_ms,
            (r, r + logged_ms.map_or(0, |d| d.round() as i64)),
        ),
        None => {
            let duration_ms =
                logged_ms.or_else(|| waited_ms(format.def.timestamp_marks, received, ts));
            let span = match (format.def.timestamp_marks, duration_ms) {
                (TimestampMarks::End, Some(d)) => {
                    // A whole-second end time was truncated: the request ended half a
                    // second later on average.
                    let end = if fraction { ts } else { ts + 500 };
                    (end - d.round() as i64, end)
                }
                (TimestampMarks::Start, Some(d)) => (ts, ts + d.round() as i64),
                (_, None) => (ts, ts),
            };
            (duration_ms, span)
        }
    };
    finish(
        rules,
        fields,
        record,
        origin,
        route_buf,
        (method, raw_path, status),
        duration_ms,
        span,
    )
}

/// The request from its fields, once its start and end are known.
#[allow(clippy::too_many_arguments)]
fn finish<'f>(
    rules: &Rules,
    fields: &'f Fields<'_>,
    record: Option<Record<'f>>,
    origin: Origin,
    route_buf: Option<&'f mut String>,
    (method, raw_path, status): (Option<&'f str>, &'f str, Option<u16>),
    duration_ms: Option<f64>,
    (start, end): (i64, i64),
) -> Result<Request<'f>, SkipReason> {
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
        from_log: false,
        request_id: fields
            .get(Role::RequestId)
            .map(str::trim_ascii)
            .filter(|i| !i.is_empty() && *i != "-")
            .map(path_hash),
    })
}

/// A hash of the raw path (or a request id) that tells repeats apart:
/// FxHash reads eight bytes a step where FNV reads one, and this runs on
/// every request. Only compared, never shown.
fn path_hash(raw: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(raw.as_bytes());
    h.finish()
}

/// The time from receiving a request to answering it, where the format
/// stamps the answer and also logs the arrival.
fn waited_ms(marks: TimestampMarks, received: Option<i64>, ts: i64) -> Option<f64> {
    match (marks, received) {
        (TimestampMarks::End, Some(r)) if r <= ts => Some((ts - r) as f64),
        _ => None,
    }
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
pub(super) fn tenant<'f>(
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
    // A structured access record may keep the query apart from the path.
    if !rules.tenant_query_rules.is_empty() {
        if let Some(query) = from_record(&rules.query_fields) {
            let query = format!("?{}", query.trim_start_matches('?'));
            for q in &rules.tenant_query_rules {
                if let Some(v) = route::query_param(&query, q) {
                    return Some(Cow::Owned(v.to_string()));
                }
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

/// An API key or client id (shown only as a short hash, after the user
/// agent's product token when a program sent it: `crm-sync (key hash 95c7029c)`,
/// so that a reader knows the key's integration by name), else the user
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
    let token = user_agent.and_then(|ua| {
        ua.split([' ', '/', ';', '('])
            .next()
            .filter(|t| !t.is_empty() && *t != "-")
    });
    let program = token.filter(|t| !rules.is_browser_token(t));
    if let Some(k) = key {
        return Some(Cow::Owned(match program {
            Some(p) => format!("{p} ({KEY_HASH}{})", short_hash(&k)),
            None => format!("{KEY_HASH}{}", short_hash(&k)),
        }));
    }
    match (token, program) {
        (Some(_), None) => Some(Cow::Borrowed("browser")),
        (_, p) => p.map(Cow::Borrowed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_request_stamped_at_its_answer_waited_since_it_was_received() {
        // (marks, received, answered, wait)
        let cases = [
            (TimestampMarks::End, Some(1_000), 31_002, Some(30_002.0)),
            (TimestampMarks::End, Some(5_000), 5_000, Some(0.0)),
            // Received after it was answered: two clocks, no duration.
            (TimestampMarks::End, Some(9_000), 5_000, None),
            // A start stamp is the arrival itself.
            (TimestampMarks::Start, Some(1_000), 31_002, None),
            (TimestampMarks::End, None, 31_002, None),
        ];
        for (marks, received, ts, want) in cases {
            assert_eq!(waited_ms(marks, received, ts), want, "{received:?} {ts}");
        }
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
