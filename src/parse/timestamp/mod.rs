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
//! no timestamp before it, the year of the last time an earlier input held
//! (a journal exported beside a dated access log is of the access log's
//! year), and with no earlier input either, the current year, or the one
//! before when that would put the time in a later month than now.

use chrono::format::{parse, Parsed, StrftimeItems};
use chrono::{DateTime, Datelike, NaiveDateTime, Utc};

use crate::event::Millis;
use crate::zone::Zone;

mod forms;

use forms::{
    comma_fraction, epoch, split_zone_word, year_near, NAIVE_FORMATS, YEARLESS_FORMATS,
    ZONED_FORMATS,
};

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
    /// Whether any timestamp had no zone and was read as UTC for want of
    /// one (no `--input-tz`): the report warns of it. Read in a zone the
    /// user gave, it was read as asked.
    pub saw_zoneless: bool,
    /// The definition format that read the last new text: tried first, as
    /// the lines of one input share their layout.
    hit: usize,
}

impl TimeParser {
    pub fn new(formats: &[String], zone: Zone) -> TimeParser {
        TimeParser {
            formats: formats.to_vec(),
            zone,
            last: None,
            context: None,
            saw_zoneless: false,
            hit: 0,
        }
    }

    /// Place times without a year near `hint` (UTC ms; the last time an
    /// earlier input held) until this input gives context of its own.
    pub fn near(mut self, hint: Option<Millis>) -> TimeParser {
        if self.context.is_none() {
            self.context = hint
                .and_then(DateTime::from_timestamp_millis)
                .map(|d| (d.year(), d.month()));
        }
        self
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
            hit: self.hit,
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
                self.saw_zoneless |= *zoneless && self.zone.is_utc();
                return Some((*ms, *fraction));
            }
        }
        let (ms, zoneless) = self.parse_uncached(text.trim())?;
        let fraction = text.bytes().any(|b| b == b'.' || b == b',');
        self.saw_zoneless |= zoneless && self.zone.is_utc();
        self.last = Some((text.to_string(), ms, zoneless, fraction));
        if let Some(d) = DateTime::from_timestamp_millis(ms) {
            self.context = Some((d.year(), d.month()));
        }
        Some((ms, fraction))
    }

    fn parse_uncached(&mut self, t: &str) -> Option<(Millis, bool)> {
        // Java's and Python's default layouts write the fraction after a comma.
        let dotted = comma_fraction(t);
        for text in std::iter::once(t).chain(dotted.as_deref()) {
            let order =
                std::iter::once(self.hit).chain((0..self.formats.len()).filter(|&i| i != self.hit));
            for i in order {
                let Some(f) = self.formats.get(i) else {
                    continue;
                };
                if let Some(r) = self.parse_format(text, f) {
                    self.hit = i;
                    return Some(r);
                }
            }
        }
        let t = dotted.as_deref().unwrap_or(t);
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
                "comma fraction",
                "2015-07-29 17:41:44,747",
                "2015-07-29T17:41:44.747Z",
                true,
            ),
            (
                "comma fraction with offset",
                "2026-10-01T07:58:06,113+02:00",
                "2026-10-01T05:58:06.113Z",
                false,
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

    #[test]
    fn a_yearless_input_takes_the_year_of_the_input_before_it() {
        let hint = |t: &str| TimeParser::new(&[], Zone::Utc).parse(t);
        let cases = [
            // (an earlier input's last time, the yearless text, read as)
            (
                "2025-10-06T03:39:00Z",
                "Oct 06 01:07:10",
                "2025-10-06T01:07:10Z",
            ),
            // Across New Year, either way: the nearer year.
            (
                "2025-12-31T23:59:00Z",
                "Jan  1 00:01:00",
                "2026-01-01T00:01:00Z",
            ),
            (
                "2019-01-01T00:02:00Z",
                "Dec 31 23:58:00",
                "2018-12-31T23:58:00Z",
            ),
        ];
        for (before, text, want) in cases {
            let mut p = TimeParser::new(&[], Zone::Utc).near(hint(before));
            let ms = p.parse(text).unwrap_or_else(|| panic!("{text}: no parse"));
            assert_eq!(utc(ms), want, "{text} after {before}");
        }
        // The input's own context, once it has one, outweighs the hint.
        let mut p = TimeParser::new(&[], Zone::Utc).near(hint("2019-06-01T00:00:00Z"));
        p.parse("2024-06-01T00:00:00Z").expect("dated");
        let ms = p.parse("Jun  2 00:00:00").expect("yearless");
        assert_eq!(utc(ms), "2024-06-02T00:00:00Z");
    }
}
