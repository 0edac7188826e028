//! Capture times of snapshots (psql tables, `SHOW POOLS`): the line a
//! `\watch` prints above each result, a `-- captured at ...` comment, or a
//! line that is only a date (`date -u`, `date -Is`). Out: the time as text
//! the timestamp parser reads; zoneless when the line names no UTC zone, so
//! `--input-tz` applies and the report warns.
//!
//! ```text
//! Thu 01 Oct 2026 07:58:00 AM UTC (every 2s)  -> 2026-10-01T07:58:00Z
//! Watch every 2s<TAB>Thu Oct  1 07:58:00 2026 -> 2026-10-01T07:58:00
//! -- captured at 2026-10-01 07:58:00+00       -> 2026-10-01 07:58:00+00
//! ```

use chrono::NaiveDateTime;

/// `strftime` forms of `\watch` titles and `date` in the C and en_US
/// locales, after the zone word is taken out and spaces are collapsed.
const FORMS: [&str; 3] = [
    "%a %b %e %H:%M:%S %Y",
    "%a %d %b %Y %I:%M:%S %p",
    "%a %d %b %Y %H:%M:%S",
];

/// The capture time a line gives, or `None` when it is not such a line.
pub fn capture_time(line: &str) -> Option<String> {
    let mut t = line.trim();
    if let Some(rest) = t.strip_prefix("--").or_else(|| t.strip_prefix('#')) {
        t = rest.trim_start();
        for word in ["captured at", "captured", "capture time", "at"] {
            if let Some(rest) = strip_prefix_ci(t, word) {
                t = rest.trim_start_matches([':', ' ']);
                break;
            }
        }
    }
    // `\watch` before psql 9.3 wrote `Watch every 2s<TAB>date`; later `date (every 2s)`.
    if let Some(rest) = strip_prefix_ci(t, "watch every ") {
        t = rest.split_once('\t').map_or("", |(_, d)| d).trim();
    }
    if let Some(open) = t.rfind(" (every ") {
        t = t[..open].trim_end();
    }
    if iso_like(t) {
        return Some(t.to_string());
    }
    let mut utc = false;
    let words: Vec<&str> = t
        .split_whitespace()
        .filter(|w| {
            let zone = w.len() >= 2
                && w.len() <= 5
                && w.chars().all(|c| c.is_ascii_uppercase())
                && !matches!(*w, "AM" | "PM");
            if zone && matches!(*w, "UTC" | "GMT") {
                utc = true;
            }
            !zone
        })
        .collect();
    let text = words.join(" ");
    let naive = FORMS
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(&text, f).ok())?;
    let mut out = naive.format("%Y-%m-%dT%H:%M:%S").to_string();
    if utc {
        out.push('Z');
    }
    Some(out)
}

fn strip_prefix_ci<'a>(t: &'a str, prefix: &str) -> Option<&'a str> {
    let head = t.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &t[prefix.len()..])
}

/// A line that is only `2026-10-01T07:58:00Z` or `2026-10-01 07:58:00.123+00`
/// (a zone word may follow): left to the timestamp parser. A log line that
/// starts with a time is not one.
fn iso_like(t: &str) -> bool {
    let b = t.as_bytes();
    let dated = b.len() >= 19
        && matches!(b, [y0, y1, y2, y3, b'-', _, _, b'-', _, _, b'T' | b' ', _, _, b':', ..]
            if [y0, y1, y2, y3].iter().all(|c| c.is_ascii_digit()));
    let core = match t.rsplit_once(' ') {
        Some((head, zone)) if zone.bytes().all(|c| c.is_ascii_uppercase()) => head,
        _ => t,
    };
    dated
        && core.bytes().filter(|c| *c == b' ').count() <= 1
        && core
            .bytes()
            .all(|c| c.is_ascii_digit() || b"-:.+TZ ".contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_lines() {
        let cases = [
            (
                "watch, en_US",
                "Thu 01 Oct 2026 07:58:00 AM UTC (every 2s)",
                Some("2026-10-01T07:58:00Z"),
            ),
            (
                "watch, C locale",
                "Thu Oct  1 07:58:00 2026 (every 5s)",
                Some("2026-10-01T07:58:00"),
            ),
            (
                "old watch",
                "Watch every 2s\tThu Oct  1 19:58:00 2026",
                Some("2026-10-01T19:58:00"),
            ),
            (
                "date -u",
                "Thu Oct  1 07:58:00 UTC 2026",
                Some("2026-10-01T07:58:00Z"),
            ),
            (
                "comment",
                "-- captured at 2026-10-01 07:58:00+00",
                Some("2026-10-01 07:58:00+00"),
            ),
            (
                "iso",
                "2026-10-01T07:58:00+00:00",
                Some("2026-10-01T07:58:00+00:00"),
            ),
            (
                "pm",
                "Thu 01 Oct 2026 07:58:00 PM",
                Some("2026-10-01T19:58:00"),
            ),
            ("prompt", "pgbouncer=# show pools;", None),
            ("table row", " xxdb | dba | 0", None),
            ("log line", "2026-10-01T07:58:00Z INFO started", None),
            (
                "utc word",
                "2026-10-01 07:58:00 UTC",
                Some("2026-10-01 07:58:00 UTC"),
            ),
        ];
        for (name, line, want) in cases {
            assert_eq!(capture_time(line).as_deref(), want, "{name}");
        }
    }
}
