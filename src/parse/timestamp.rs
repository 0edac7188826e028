//! Timestamps in every form the inputs use, to UTC milliseconds: the
//! definition's strftime formats first, then RFC 3339 with any offset,
//! `10/Oct/2026:13:55:36 +0530`, epoch seconds/millis/micros/nanos,
//! PostgreSQL's `2026-10-01 07:57:00.123 UTC` (and the other zone
//! abbreviations PostgreSQL writes, `PDT`, `CEST`, `MSK`, ...), and syslog's
//! `Oct  1 07:57:00`, which has no year. Zoneless times are read in
//! `--input-tz` and flagged so the report can warn.
//!
//! A time without a year takes it from context: the year of the input's
//! previous timestamp, rolled forward when the month falls far before that
//! one's (the log crossed New Year) and back when it falls far after; with
//! no timestamp before it, the current year, or the one before when that
//! would put the time in a later month than now.

use chrono::format::{parse, Parsed, StrftimeItems};
use chrono::{DateTime, Datelike, NaiveDateTime, Utc};

use crate::event::Millis;
use crate::zone::Zone;

/// Forms tried for zoneless date-times.
const NAIVE_FORMATS: [&str; 4] = [
    "%Y-%m-%dT%H:%M:%S%.f",
    "%Y-%m-%d %H:%M:%S%.f",
    "%Y/%m/%d %H:%M:%S%.f",
    "%d/%b/%Y:%H:%M:%S%.f",
];

/// Forms with an offset (`%#z` also reads PostgreSQL's `+03`).
const ZONED_FORMATS: [&str; 4] = [
    "%d/%b/%Y:%H:%M:%S %z",
    "%Y-%m-%d %H:%M:%S%.f %#z",
    "%Y-%m-%d %H:%M:%S%.f%#z",
    "%Y-%m-%dT%H:%M:%S%.f%#z",
];

/// Forms without a year (syslog, RFC 3164): the year comes from context.
const YEARLESS_FORMATS: [&str; 1] = ["%b %d %H:%M:%S%.f"];

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

/// Reads timestamps for one input. Consecutive lines usually repeat the same
/// second, so the last text and its value are kept.
#[derive(Debug)]
pub struct TimeParser {
    formats: Vec<String>,
    zone: Zone,
    /// The last text read: its time, whether it had no zone, whether it had
    /// a fraction of a second. Lines of one second share their text.
    last: Option<(String, Millis, bool, bool)>,
    /// Year and month of the last timestamp read: the context a time
    /// without a year is placed in.
    context: Option<(i32, u32)>,
    /// Whether any timestamp had no zone and was read in `zone`.
    pub saw_zoneless: bool,
}

impl TimeParser {
    pub fn new(formats: &[String], zone: Zone) -> TimeParser {
        TimeParser {
            formats: formats.to_vec(),
            zone,
            last: None,
            context: None,
            saw_zoneless: false,
        }
    }

    /// A parser for another part of the same input (a worker's chunk): same
    /// formats and zone, and the year context reached so far.
    pub fn for_chunk(&self) -> TimeParser {
        TimeParser {
            formats: self.formats.clone(),
            zone: self.zone,
            last: None,
            context: self.context,
            saw_zoneless: false,
        }
    }

    /// A parser for another format's records in the same input (a line
    /// another format reads): its formats, this one's zone and year context.
    pub fn with_formats(&self, formats: &[String]) -> TimeParser {
        TimeParser {
            formats: formats.to_vec(),
            ..self.for_chunk()
        }
    }

    /// UTC milliseconds, or `None` when the text is no timestamp we know.
    pub fn parse(&mut self, text: &str) -> Option<Millis> {
        self.parse_with_fraction(text).map(|(ms, _)| ms)
    }

    /// [`TimeParser::parse`], and whether the text had a fraction of a
    /// second (worked out once per distinct text, like the time).
    pub fn parse_with_fraction(&mut self, text: &str) -> Option<(Millis, bool)> {
        if let Some((t, ms, zoneless, fraction)) = &self.last {
            if t == text {
                self.saw_zoneless |= *zoneless;
                return Some((*ms, *fraction));
            }
        }
        let (ms, zoneless) = self.parse_uncached(text.trim())?;
        let fraction = text.bytes().any(|b| b == b'.' || b == b',');
        self.saw_zoneless |= zoneless;
        self.last = Some((text.to_string(), ms, zoneless, fraction));
        if let Some(d) = DateTime::from_timestamp_millis(ms) {
            self.context = Some((d.year(), d.month()));
        }
        Some((ms, fraction))
    }

    fn parse_uncached(&self, t: &str) -> Option<(Millis, bool)> {
        for f in &self.formats {
            if let Some(r) = self.parse_format(t, f) {
                return Some(r);
            }
        }
        if let Some(ms) = epoch(t) {
            return Some((ms, false));
        }
        if let Ok(d) = DateTime::parse_from_rfc3339(t) {
            return Some((d.timestamp_millis(), false));
        }
        // A trailing zone name after an offset (`-0400 EDT`) adds nothing; a
        // known abbreviation after a bare time (`UTC`, `CEST`) is its offset.
        let (core, word_offset) = split_zone_word(t);
        if let Some(offset) = word_offset {
            for f in NAIVE_FORMATS {
                if let Ok(n) = NaiveDateTime::parse_from_str(core, f) {
                    let ms = n.and_utc().timestamp_millis() - i64::from(offset) * 1000;
                    return Some((ms, false));
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
        YEARLESS_FORMATS
            .iter()
            .find_map(|f| self.parse_format(core, f))
    }

    /// One strftime format, with or without an offset, and with the year
    /// taken from context when the format has none.
    fn parse_format(&self, t: &str, format: &str) -> Option<(Millis, bool)> {
        let mut p = Parsed::new();
        parse(&mut p, t, StrftimeItems::new(format)).ok()?;
        let yearless = p.year().is_none()
            && p.year_mod_100().is_none()
            && p.isoyear().is_none()
            && p.timestamp().is_none();
        if yearless {
            let month = p.month()?;
            p.set_year(i64::from(self.year_for(month))).ok()?;
        }
        if let Ok(d) = p.to_datetime() {
            return Some((d.timestamp_millis(), false));
        }
        let n = p.to_naive_datetime_with_offset(0).ok()?;
        Some((self.zone.to_utc(&n)?.timestamp_millis(), true))
    }

    /// The year of a time in `month` that was written without one.
    fn year_for(&self, month: u32) -> i32 {
        match self.context {
            Some((year, last)) => year_near(year, last, month),
            None => {
                let now = Utc::now();
                // Logs are read after they were written: never in a later month than now.
                if month > now.month() {
                    now.year() - 1
                } else {
                    now.year()
                }
            }
        }
    }
}

/// The year of `month` next to a timestamp in `last` of `year`: more than
/// six months before it means the log crossed into the next year, more than
/// six months after it means the line is from the year before.
fn year_near(year: i32, last: u32, month: u32) -> i32 {
    if month + 6 < last {
        year + 1
    } else if month > last + 6 {
        year - 1
    } else {
        year
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

/// A trailing zone abbreviation (`UTC`, `CEST`) or `Z` after a time without
/// an offset: the text before it, and its offset when it is a known one.
fn split_zone_word(t: &str) -> (&str, Option<i32>) {
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
            (
                "postgres abbreviation",
                "2026-10-01 00:57:00.123 PDT",
                "2026-10-01T07:57:00.123Z",
                false,
            ),
            (
                "postgres summer time",
                "2026-06-16 13:02:58 CEST",
                "2026-06-16T11:02:58Z",
                false,
            ),
            (
                "postgres numeric zone",
                "2026-10-01 10:57:00 +03",
                "2026-10-01T07:57:00Z",
                false,
            ),
            (
                "unknown abbreviation is zoneless",
                "2026-10-01 07:57:00 XYZT",
                "2026-10-01T07:57:00Z",
                true,
            ),
            (
                "iso basic offset",
                "2026-10-01T07:57:00+0000",
                "2026-10-01T07:57:00Z",
                false,
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

    #[test]
    fn definition_formats_may_leave_the_year_out() {
        // klog writes `MMDD hh:mm:ss.uuuuuu`, glog the same with a year.
        let formats = [
            "%Y%m%d %H:%M:%S%.f".to_string(),
            "%m%d %H:%M:%S%.f".to_string(),
        ];
        let mut p = TimeParser::new(&formats, Zone::Utc);
        let ms = p.parse("20210131 14:48:54.411655").expect("glog");
        assert_eq!(utc(ms), "2021-01-31T14:48:54.411Z");
        let ms = p.parse("0201 09:00:00.000001").expect("klog");
        assert_eq!(utc(ms), "2021-02-01T09:00:00Z");
        // Month 00 is no date: unreadable, never guessed.
        assert!(p.parse("0000 17:59:40.692994").is_none());
    }
}
