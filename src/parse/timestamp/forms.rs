//! The forms timestamps are written in, beyond a definition's own: the
//! built-in strftime forms (zoneless, with an offset, without a year), the
//! zone abbreviations PostgreSQL writes, epochs told apart by magnitude,
//! comma fractions, and where a year-less time's year comes from.
//!
//! In: a timestamp's text. Out: the pieces `TimeParser` puts together.
//!
//! ```text
//! "2026-10-01 07:57:00.123 PDT" -> ("2026-10-01 07:57:00.123", Some(-25200))
//! "1790841415123"              -> 2026-10-01T07:56:55.123Z
//! ```

use crate::event::Millis;

/// Forms tried for zoneless date-times.
pub(super) const NAIVE_FORMATS: [&str; 4] = [
    "%Y-%m-%dT%H:%M:%S%.f",
    "%Y-%m-%d %H:%M:%S%.f",
    "%Y/%m/%d %H:%M:%S%.f",
    "%d/%b/%Y:%H:%M:%S%.f",
];

/// Forms with an offset (`%#z` also reads PostgreSQL's `+03`).
pub(super) const ZONED_FORMATS: [&str; 4] = [
    "%d/%b/%Y:%H:%M:%S %z",
    "%Y-%m-%d %H:%M:%S%.f %#z",
    "%Y-%m-%d %H:%M:%S%.f%#z",
    "%Y-%m-%dT%H:%M:%S%.f%#z",
];

/// Forms without a year (syslog, RFC 3164): the year comes from context.
pub(super) const YEARLESS_FORMATS: [&str; 1] = ["%b %d %H:%M:%S%.f"];

/// Zone abbreviations with one meaning, as PostgreSQL's default
/// `timezone_abbreviations` set reads them (so `CST` is US Central, not
/// China), in seconds east of UTC. Abbreviations not listed are ignored and
/// the time is read as zoneless.
const ZONE_ABBREVIATIONS: [(&str, i32); 37] = [
    ("UTC", 0),
    ("GMT", 0),
    ("UT", 0),
    ("WET", 0),
    ("WEST", 3600),
    ("BST", 3600),
    ("CET", 3600),
    ("CEST", 7200),
    ("MET", 3600),
    ("MEST", 7200),
    ("EET", 7200),
    ("EEST", 10800),
    ("MSK", 10800),
    ("PKT", 18000),
    ("ICT", 25200),
    ("SGT", 28800),
    ("HKT", 28800),
    ("AWST", 28800),
    ("JST", 32400),
    ("KST", 32400),
    ("ACST", 34200),
    ("ACDT", 37800),
    ("AEST", 36000),
    ("AEDT", 39600),
    ("NZST", 43200),
    ("NZDT", 46800),
    ("NST", -12600),
    ("ADT", -10800),
    ("EST", -18000),
    ("EDT", -14400),
    ("CST", -21600),
    ("CDT", -18000),
    ("MST", -25200),
    ("MDT", -21600),
    ("PST", -28800),
    ("PDT", -25200),
    ("HST", -36000),
];

/// The year of `month` next to a timestamp in `last` of `year`: more than
/// six months before it means the log crossed into the next year, more than
/// six months after it means the line is from the year before.
pub(super) fn year_near(year: i32, last: u32, month: u32) -> i32 {
    if month + 6 < last {
        year + 1
    } else if month > last + 6 {
        year - 1
    } else {
        year
    }
}

/// `07:58:06,113` -> `07:58:06.113`: the comma that follows the seconds
/// (two digits after a colon) and comes before a digit; `None` when there is none.
pub(super) fn comma_fraction(t: &str) -> Option<String> {
    let b = t.as_bytes();
    let at = 3 + b.windows(5).position(|w| {
        matches!(w, [b':', s1, s2, b',', f]
            if s1.is_ascii_digit() && s2.is_ascii_digit() && f.is_ascii_digit())
    })?;
    let mut out = t.to_string();
    out.replace_range(at..=at, ".");
    Some(out)
}

/// Epoch seconds, millis, micros or nanos, told apart by magnitude.
pub(super) fn epoch(t: &str) -> Option<Millis> {
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

/// A trailing zone abbreviation (`UTC`, `CEST`) or `Z` after a time without
/// an offset: the text before it, and its offset when it is a known one.
pub(super) fn split_zone_word(t: &str) -> (&str, Option<i32>) {
    if let Some((head, word)) = t.rsplit_once(' ') {
        if word.chars().all(|c| c.is_ascii_uppercase()) && (2..=5).contains(&word.len()) {
            let offset = ZONE_ABBREVIATIONS
                .iter()
                .find(|(name, _)| *name == word)
                .map(|(_, o)| *o);
            return (head, offset);
        }
    }
    if let Some(head) = t.strip_suffix('Z') {
        if !head.contains('T') {
            return (head, Some(0));
        }
    }
    (t, None)
}

#[cfg(test)]
mod tests {
    use super::super::TimeParser;
    use super::*;
    use crate::zone::Zone;
    use chrono::{DateTime, Datelike, Utc};

    fn utc(ms: Millis) -> String {
        DateTime::from_timestamp_millis(ms)
            .expect("in range")
            .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
    }

    #[test]
    fn a_time_without_a_year_takes_the_year_of_the_line_before() {
        let mut p = TimeParser::new(&[], Zone::Utc);
        assert!(p.parse("2019-02-26T10:00:00Z").is_some());
        let ms = p.parse("Feb 26 10:07:24").expect("syslog time");
        assert_eq!(utc(ms), "2019-02-26T10:07:24Z");
        assert!(p.saw_zoneless);
        // Day padded with a space, as syslog writes it.
        let ms = p.parse("Mar  6 12:14:14").expect("padded day");
        assert_eq!(utc(ms), "2019-03-06T12:14:14Z");
    }

    #[test]
    fn a_time_without_a_year_rolls_over_new_year_and_back() {
        // (name, previous line, line, expected)
        let cases = [
            (
                "crossed new year",
                "2025-12-31T23:59:58Z",
                "Jan  1 00:00:01",
                "2026-01-01T00:00:01Z",
            ),
            (
                "a line from the year before",
                "2026-01-02T00:00:00Z",
                "Dec 30 12:00:00",
                "2025-12-30T12:00:00Z",
            ),
            (
                "months apart in the same year",
                "2026-03-01T00:00:00Z",
                "Aug  1 12:00:00",
                "2026-08-01T12:00:00Z",
            ),
        ];
        for (name, before, line, want) in cases {
            let mut p = TimeParser::new(&[], Zone::Utc);
            assert!(p.parse(before).is_some(), "{name}");
            let ms = p.parse(line).unwrap_or_else(|| panic!("{name}: no parse"));
            assert_eq!(utc(ms), want, "{name}");
        }
        // The guess is context for the next line: a year-long syslog file
        // moves forward through New Year.
        let mut p = TimeParser::new(&[], Zone::Utc);
        let seq = [
            "2025-11-30T00:00:00Z",
            "Dec 31 23:00:00",
            "Jan  1 01:00:00",
            "Feb  1 01:00:00",
        ];
        let got: Vec<String> = seq.iter().filter_map(|t| p.parse(t)).map(utc).collect();
        assert_eq!(
            got[1..],
            [
                "2025-12-31T23:00:00Z",
                "2026-01-01T01:00:00Z",
                "2026-02-01T01:00:00Z"
            ]
        );
    }

    #[test]
    fn without_context_a_time_without_a_year_is_never_in_a_later_month_than_now() {
        let now = Utc::now();
        let mut p = TimeParser::new(&[], Zone::Utc);
        let ms = p.parse("Jan  1 00:00:00").expect("parses");
        let d = DateTime::from_timestamp_millis(ms).expect("in range");
        assert_eq!(d.year(), now.year(), "January is never later than now");
        let mut p = TimeParser::new(&[], Zone::Utc);
        let ms = p.parse("Dec 31 00:00:00").expect("parses");
        let d = DateTime::from_timestamp_millis(ms).expect("in range");
        let want = if now.month() == 12 {
            now.year()
        } else {
            now.year() - 1
        };
        assert_eq!(d.year(), want);
    }
}
