//! Timestamps in every form the inputs use, to UTC milliseconds: the
//! definition's strftime formats first, then RFC 3339 with any offset,
//! `10/Oct/2026:13:55:36 +0530`, epoch seconds/millis/micros/nanos, and
//! PostgreSQL's `2026-10-01 07:57:00.123 UTC`. Zoneless times are read in
//! `--input-tz` and flagged so the report can warn.

use chrono::{DateTime, NaiveDateTime};

use crate::event::Millis;
use crate::zone::Zone;

/// Forms tried for zoneless date-times.
const NAIVE_FORMATS: [&str; 4] = [
    "%Y-%m-%dT%H:%M:%S%.f",
    "%Y-%m-%d %H:%M:%S%.f",
    "%Y/%m/%d %H:%M:%S%.f",
    "%d/%b/%Y:%H:%M:%S%.f",
];

/// Forms with an offset.
const ZONED_FORMATS: [&str; 3] = [
    "%d/%b/%Y:%H:%M:%S %z",
    "%Y-%m-%d %H:%M:%S%.f %z",
    "%Y-%m-%d %H:%M:%S%.f%z",
];

/// Reads timestamps for one input. Consecutive lines usually repeat the same
/// second, so the last text and its value are kept.
#[derive(Debug)]
pub struct TimeParser {
    formats: Vec<String>,
    zone: Zone,
    last: Option<(String, Millis, bool)>,
    /// Whether any timestamp had no zone and was read in `zone`.
    pub saw_zoneless: bool,
}

impl TimeParser {
    pub fn new(formats: &[String], zone: Zone) -> TimeParser {
        TimeParser {
            formats: formats.to_vec(),
            zone,
            last: None,
            saw_zoneless: false,
        }
    }

    /// UTC milliseconds, or `None` when the text is no timestamp we know.
    pub fn parse(&mut self, text: &str) -> Option<Millis> {
        if let Some((t, ms, zoneless)) = &self.last {
            if t == text {
                self.saw_zoneless |= *zoneless;
                return Some(*ms);
            }
        }
        let (ms, zoneless) = self.parse_uncached(text.trim())?;
        self.saw_zoneless |= zoneless;
        self.last = Some((text.to_string(), ms, zoneless));
        Some(ms)
    }

    fn parse_uncached(&self, t: &str) -> Option<(Millis, bool)> {
        for f in &self.formats {
            if let Ok(d) = DateTime::parse_from_str(t, f) {
                return Some((d.timestamp_millis(), false));
            }
            if let Ok(n) = NaiveDateTime::parse_from_str(t, f) {
                return Some((self.zone.to_utc(&n)?.timestamp_millis(), true));
            }
        }
        if let Some(ms) = epoch(t) {
            return Some((ms, false));
        }
        if let Ok(d) = DateTime::parse_from_rfc3339(t) {
            return Some((d.timestamp_millis(), false));
        }
        // A trailing zone name after an offset (`-0400 EDT`) adds nothing; a
        // bare `UTC`/`GMT`/`Z` is an offset of zero.
        let (core, utc_word) = strip_zone_word(t);
        if utc_word {
            for f in NAIVE_FORMATS {
                if let Ok(n) = NaiveDateTime::parse_from_str(core, f) {
                    return Some((n.and_utc().timestamp_millis(), false));
                }
            }
        }
        for f in ZONED_FORMATS {
            if let Ok(d) = DateTime::parse_from_str(core, f) {
                return Some((d.timestamp_millis(), false));
            }
        }
        if let Ok(d) = DateTime::parse_from_rfc3339(&core.replacen(' ', "T", 1)) {
            return Some((d.timestamp_millis(), false));
        }
        for f in NAIVE_FORMATS {
            if let Ok(n) = NaiveDateTime::parse_from_str(core, f) {
                return Some((self.zone.to_utc(&n)?.timestamp_millis(), true));
            }
        }
        None
    }
}

/// Epoch seconds, millis, micros or nanos, told apart by magnitude.
fn epoch(t: &str) -> Option<Millis> {
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let v: f64 = t.parse().ok()?;
    let ms = if v < 1e11 {
        v * 1e3
    } else if v < 1e14 {
        v
    } else if v < 1e17 {
        v / 1e3
    } else {
        v / 1e6
    };
    Some(ms.round() as Millis)
}

fn strip_zone_word(t: &str) -> (&str, bool) {
    if let Some((head, word)) = t.rsplit_once(' ') {
        if word.chars().all(|c| c.is_ascii_uppercase()) && (2..=5).contains(&word.len()) {
            let utc = matches!(word, "UTC" | "GMT");
            return (head, utc);
        }
    }
    if let Some(head) = t.strip_suffix('Z') {
        if !head.contains('T') {
            return (head, true);
        }
    }
    (t, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamp_forms() {
        // (name, text, expected RFC 3339 UTC, zoneless)
        let cases = [
            (
                "rfc3339 z",
                "2026-10-01T07:56:55.123Z",
                "2026-10-01T07:56:55.123Z",
                false,
            ),
            (
                "rfc3339 offset",
                "2026-10-01T13:26:55+05:30",
                "2026-10-01T07:56:55Z",
                false,
            ),
            (
                "clf",
                "01/Oct/2026:13:26:55 +0530",
                "2026-10-01T07:56:55Z",
                false,
            ),
            ("epoch s", "1790841415", "2026-10-01T07:56:55Z", false),
            (
                "epoch ms",
                "1790841415123",
                "2026-10-01T07:56:55.123Z",
                false,
            ),
            (
                "epoch ns",
                "1790841415123456789",
                "2026-10-01T07:56:55.123Z",
                false,
            ),
            (
                "epoch fractional",
                "1790841415.5",
                "2026-10-01T07:56:55.500Z",
                false,
            ),
            (
                "postgres",
                "2026-10-01 07:57:00.123 UTC",
                "2026-10-01T07:57:00.123Z",
                false,
            ),
            (
                "logrus",
                "2014-03-10 19:57:38.562264131 -0400 EDT",
                "2014-03-10T23:57:38.562Z",
                false,
            ),
            (
                "zoneless",
                "2026-10-01 07:57:00",
                "2026-10-01T07:57:00Z",
                true,
            ),
        ];
        for (name, text, want, zoneless) in cases {
            let mut p = TimeParser::new(&[], Zone::Utc);
            let ms = p.parse(text).unwrap_or_else(|| panic!("{name}: no parse"));
            let got = DateTime::from_timestamp_millis(ms)
                .expect("in range")
                .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true);
            assert_eq!(got, want, "{name}");
            assert_eq!(p.saw_zoneless, zoneless, "{name}");
        }
    }

    #[test]
    fn zoneless_times_use_the_input_zone() {
        let mut p = TimeParser::new(&[], "+05:30".parse().expect("zone"));
        assert_eq!(p.parse("2026-10-01 13:26:55"), Some(1790841415000));
        assert!(p.parse("not a time").is_none());
    }
}
