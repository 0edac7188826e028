//! Heroku runtime metrics (`log-runtime-metrics` for dynos, Heroku Postgres
//! and Redis add-on metrics): lines whose message is `source=web.1
//! dyno=heroku.<app>.<uuid> sample#memory_total=381.24MB ...` -> one metric
//! record per `sample#` (also `measure#`, `count#`) pair.
//!
//! The time comes from the line's frame: a logplex/RFC 5424 drain frame
//! (`345 <45>1 2026-10-01T07:58:00.1+00:00 heroku web.1 - - ...`), `heroku
//! logs` (`2026-10-01T07:58:00+00:00 heroku[web.1]: ...` or
//! `app[heroku-postgres]:`), or Papertrail's yearless `Oct 01 07:58:00 host
//! heroku/web.1:` (the year of the last dated line, else this year; read in
//! `--input-tz`). The metric name is the key as Heroku writes it; a unit
//! suffix on the value (`MB`, `pages`, `bytes`, `kB`) is cut off into a
//! `unit` label. `source` is the instance; `dyno` and `addon` are labels
//! outside the series key, since a restarted dyno keeps its `source`.
//!
//! ```text
//! ... source=web.1 dyno=heroku.1.ab sample#memory_total=381.24MB sample#load_avg_1m=0.00
//!   -> memory_total 381.24 {source="web.1",unit="MB"}, load_avg_1m 0.00 {source="web.1"}
//! ```

use chrono::{Datelike, NaiveDateTime};
use std::borrow::Cow;

use super::{metric_record, Extractor, Skip, BLANK};
use crate::formats::compile::Fields;
use crate::formats::role::Role;

#[derive(Debug, Default)]
pub struct Heroku {
    /// The year of the last dated frame, for yearless Papertrail lines.
    year: Option<i32>,
    unplaced: bool,
}

impl Extractor for Heroku {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        self.unplaced = false;
        if line.trim().is_empty() {
            return Err(BLANK);
        }
        let start = line
            .find("source=")
            .filter(|&i| i == 0 || line[..i].ends_with(char::is_whitespace))
            .ok_or("no `source=` in the line")?;
        let (frame, body) = line.split_at(start);
        let ts = match frame.trim() {
            "" => None,
            f => Some(self.frame_time(f)?),
        };
        let mut source = None;
        let mut extra: Vec<(&str, &str)> = Vec::new();
        let mut samples: Vec<(&str, &str)> = Vec::new();
        for token in body.split_whitespace() {
            let (k, v) = token
                .split_once('=')
                .ok_or("a word that is not key=value in a Heroku metrics line")?;
            match k.split_once('#') {
                Some(("sample" | "measure" | "count", name)) if !name.is_empty() => {
                    samples.push((name, v))
                }
                _ if k == "source" => source = Some(v),
                _ => extra.push((k, v)),
            }
        }
        if samples.is_empty() {
            return Err("no `sample#` metrics in the line");
        }
        let Some(ts) = ts else {
            self.unplaced = true;
            return Ok(Vec::new());
        };
        let mut out = Vec::with_capacity(samples.len());
        for (name, raw) in samples {
            let (value, unit) = split_unit(raw).ok_or("a Heroku sample value is not a number")?;
            let mut labels: Vec<(Cow<str>, Cow<str>)> = Vec::new();
            if let Some(s) = source {
                labels.push((Cow::Borrowed("source"), Cow::Borrowed(s)));
            }
            if !unit.is_empty() {
                labels.push((Cow::Borrowed("unit"), Cow::Borrowed(unit)));
            }
            let mut f = metric_record(
                Cow::Owned(ts.clone()),
                Cow::Borrowed(name),
                Cow::Borrowed(value),
                &labels,
            );
            if let Some(s) = source {
                f.set(Role::Instance, Cow::Borrowed(s));
            }
            for &(k, v) in &extra {
                f.set_label(k, v);
            }
            out.push(f);
        }
        Ok(out)
    }

    fn unplaced(&mut self) -> Option<Skip> {
        std::mem::take(&mut self.unplaced).then_some("Heroku metrics line without a timestamp")
    }
}

impl Heroku {
    /// The time in a line's frame, as text the timestamp parser reads.
    fn frame_time(&mut self, frame: &str) -> Result<String, Skip> {
        let words: Vec<&str> = frame.split_whitespace().collect();
        // Drain frame: optional octet count, `<PRI>1`, then the timestamp.
        let pri = words
            .iter()
            .position(|w| w.starts_with('<') && w.contains(">1"));
        let dated = match pri {
            Some(i) => words.get(i + 1).copied(),
            None => words.first().copied().filter(|w| is_dated(w)),
        };
        if let Some(ts) = dated {
            if let Ok(d) = chrono::DateTime::parse_from_rfc3339(ts) {
                self.year = Some(d.year());
            }
            return Ok(ts.to_string());
        }
        // Papertrail: `Oct 01 07:58:00 host prog:` without a year.
        if let [month, day, time, ..] = words.as_slice() {
            let year = self.year.unwrap_or_else(|| chrono::Utc::now().year());
            let text = format!("{year} {month} {day} {time}");
            if let Ok(n) = NaiveDateTime::parse_from_str(&text, "%Y %b %d %H:%M:%S") {
                return Ok(n.format("%Y-%m-%dT%H:%M:%S").to_string());
            }
        }
        Err("no timestamp in the frame of a Heroku metrics line")
    }
}

/// `2026-10-01T07:58:00+00:00`.
fn is_dated(w: &str) -> bool {
    let b = w.as_bytes();
    b.len() >= 19
        && matches!(b, [y0, y1, y2, y3, b'-', _, _, _, _, _, b'T', ..]
            if [y0, y1, y2, y3].iter().all(|c| c.is_ascii_digit()))
}

/// `381.24MB` -> (`381.24`, `MB`); `0.3005` -> (`0.3005`, ``).
fn split_unit(raw: &str) -> Option<(&str, &str)> {
    let end = raw
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')))
        .unwrap_or(raw.len());
    // An exponent letter right before a unit (`5e`) is part of the unit.
    let (mut value, mut unit) = raw.split_at(end);
    while value.ends_with(['e', 'E']) {
        let cut = value.len() - 1;
        unit = &raw[cut..];
        value = &raw[..cut];
    }
    value.parse::<f64>().ok().map(|_| (value, unit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_and_samples() {
        // (name, line, (ts, first metric, value, unit label, count))
        /// (ts, first metric, value, unit label, records)
        type Want = (
            &'static str,
            &'static str,
            &'static str,
            Option<&'static str>,
            usize,
        );
        type Case = (&'static str, &'static str, Result<Option<Want>, Skip>);
        let cases: [Case; 6] = [
            (
                "drain frame",
                "301 <45>1 2026-10-01T07:58:00.112233+00:00 host heroku web.2 - source=web.2 dyno=heroku.1.ab sample#memory_total=512.10MB sample#memory_swap=0.00MB",
                Ok(Some(("2026-10-01T07:58:00.112233+00:00", "memory_total", "512.10", Some("MB"), 2))),
            ),
            (
                "heroku logs",
                "2026-10-01T07:58:01+00:00 app[heroku-postgres]: source=DATABASE addon=postgresql-x sample#active-connections=97 sample#db_size=4736005607bytes",
                Ok(Some(("2026-10-01T07:58:01+00:00", "active-connections", "97", None, 2))),
            ),
            (
                "papertrail",
                "Oct 01 07:58:02 my-app heroku/web.1:  source=web.1 dyno=heroku.1.cd sample#load_avg_1m=2.31 ",
                Ok(Some(("2026-10-01T07:58:02", "load_avg_1m", "2.31", None, 1))),
            ),
            ("no frame", "source=web.1 sample#load_avg_1m=0.5", Ok(None)),
            ("router line", "2026-10-01T07:58:01+00:00 heroku[router]: at=info method=GET path=/", Err("no `source=` in the line")),
            ("logfmt without samples", "source=web.1 level=info", Err("no `sample#` metrics in the line")),
        ];
        for (name, line, want) in cases {
            let mut x = Heroku {
                year: Some(2026),
                unplaced: false,
            };
            let got = x.line(line).map(|recs| {
                recs.first().map(|r| {
                    (
                        r.get(Role::Ts).unwrap_or("").to_string(),
                        r.get(Role::Metric).unwrap_or("").to_string(),
                        r.get(Role::Value).unwrap_or("").to_string(),
                        r.label("unit").map(str::to_string),
                        recs.len(),
                    )
                })
            });
            let want = want.map(|o| {
                o.map(|(a, b, c, d, n)| {
                    (
                        a.to_string(),
                        b.to_string(),
                        c.to_string(),
                        d.map(str::to_string),
                        n,
                    )
                })
            });
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn units_are_cut_off() {
        let cases = [
            ("381.24MB", Some(("381.24", "MB"))),
            ("9361957pages", Some(("9361957", "pages"))),
            ("0.3005", Some(("0.3005", ""))),
            ("12kB", Some(("12", "kB"))),
            ("MB", None),
        ];
        for (raw, want) in cases {
            assert_eq!(split_unit(raw), want, "{raw}");
        }
    }
}
