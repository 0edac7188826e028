//! Time zones as the user names them (`Asia/Kolkata`, `+05:30`, `UTC`): used
//! to read zoneless timestamps (`--input-tz`) and to show times (`--tz`).

use chrono::{DateTime, FixedOffset, LocalResult, NaiveDateTime, Offset, TimeZone, Utc};
use chrono_tz::Tz;
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Zone {
    #[default]
    Utc,
    Fixed(FixedOffset),
    Named(Tz),
}

impl FromStr for Zone {
    type Err = String;

    fn from_str(s: &str) -> Result<Zone, String> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("utc") || t == "Z" || t.eq_ignore_ascii_case("gmt") {
            return Ok(Zone::Utc);
        }
        if let Some(off) = parse_offset(t) {
            return Ok(Zone::Fixed(off));
        }
        t.parse::<Tz>().map(Zone::Named).map_err(|_| {
            format!("`{s}` is neither an IANA zone (Asia/Kolkata) nor an offset (+05:30)")
        })
    }
}

fn parse_offset(t: &str) -> Option<FixedOffset> {
    let (sign, rest) = match t.as_bytes().first()? {
        b'+' => (1, &t[1..]),
        b'-' => (-1, &t[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let (h, m) = match digits.len() {
        1 | 2 => (digits.parse::<i32>().ok()?, 0),
        4 => (
            digits[..2].parse::<i32>().ok()?,
            digits[2..].parse::<i32>().ok()?,
        ),
        _ => return None,
    };
    FixedOffset::east_opt(sign * (h * 3600 + m * 60))
}

impl Zone {
    /// A local wall-clock time in this zone, as UTC. A time that a DST change
    /// skipped is `None`; an ambiguous one takes the earlier instant.
    pub fn to_utc(&self, naive: &NaiveDateTime) -> Option<DateTime<Utc>> {
        match self {
            Zone::Utc => Some(Utc.from_utc_datetime(naive)),
            Zone::Fixed(off) => match off.from_local_datetime(naive) {
                LocalResult::Single(d) | LocalResult::Ambiguous(d, _) => {
                    Some(d.with_timezone(&Utc))
                }
                LocalResult::None => None,
            },
            Zone::Named(tz) => match tz.from_local_datetime(naive) {
                LocalResult::Single(d) | LocalResult::Ambiguous(d, _) => {
                    Some(d.with_timezone(&Utc))
                }
                LocalResult::None => None,
            },
        }
    }

    /// A UTC instant as local time in this zone, with its offset.
    pub fn local(&self, utc: &DateTime<Utc>) -> DateTime<FixedOffset> {
        match self {
            Zone::Utc => utc.with_timezone(&FixedOffset::east_opt(0).unwrap_or(Utc.fix())),
            Zone::Fixed(off) => utc.with_timezone(off),
            Zone::Named(tz) => {
                let d = utc.with_timezone(tz);
                d.with_timezone(&d.offset().fix())
            }
        }
    }

    pub fn is_utc(&self) -> bool {
        matches!(self, Zone::Utc)
    }
}

impl fmt::Display for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Zone::Utc => f.write_str("UTC"),
            Zone::Fixed(off) => write!(f, "UTC{off}"),
            Zone::Named(tz) => f.write_str(tz.name()),
        }
    }
}

/// `HH:MM:SS` UTC of a millisecond instant, for evidence text.
pub fn clock(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms)
        .map_or_else(|| "?".to_string(), |d| d.format("%H:%M:%S").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_parse_from_names_and_offsets() {
        let cases = [
            ("UTC", true),
            ("Asia/Kolkata", true),
            ("+05:30", true),
            ("-0400", true),
            ("+5", true),
            ("Mars/Olympus", false),
            ("+5:3x", false),
        ];
        for (text, ok) in cases {
            assert_eq!(text.parse::<Zone>().is_ok(), ok, "{text}");
        }
        let ist: Zone = "Asia/Kolkata".parse().expect("zone");
        let naive = NaiveDateTime::parse_from_str("2026-10-01 13:26:55", "%Y-%m-%d %H:%M:%S")
            .expect("naive");
        assert_eq!(
            ist.to_utc(&naive).expect("utc").to_rfc3339(),
            "2026-10-01T07:56:55+00:00"
        );
    }
}
