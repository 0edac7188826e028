//! Times for people: UTC clock times, the same in the `--tz` zone, and
//! durations in words.

use chrono::DateTime;

use crate::zone::Zone;

/// `07:56:55` from an RFC 3339 string.
pub fn hms(rfc: &str) -> String {
    DateTime::parse_from_rfc3339(rfc)
        .map_or_else(|_| rfc.to_string(), |d| d.format("%H:%M:%S").to_string())
}

/// `2026-10-01` from an RFC 3339 string.
pub fn date(rfc: &str) -> String {
    DateTime::parse_from_rfc3339(rfc)
        .map_or_else(|_| rfc.to_string(), |d| d.format("%Y-%m-%d").to_string())
}

/// The clock time of an RFC 3339 instant in `zone`.
pub fn local_hms(rfc: &str, zone: &Zone) -> String {
    match DateTime::parse_from_rfc3339(rfc) {
        Ok(d) => zone.local(&d.to_utc()).format("%H:%M:%S").to_string(),
        Err(_) => rfc.to_string(),
    }
}

/// The zone's label at an instant (`IST`, `UTC+05:30`).
pub fn zone_label(rfc: &str, zone: &Zone) -> String {
    match (zone, DateTime::parse_from_rfc3339(rfc)) {
        (Zone::Named(tz), Ok(d)) => d.with_timezone(tz).format("%Z").to_string(),
        _ => zone.to_string(),
    }
}

/// `4 min 40 s`.
pub fn duration(secs: i64) -> String {
    let (h, m, s) = (secs / 3600, (secs % 3600) / 60, secs % 60);
    match (h, m, s) {
        (0, 0, s) => format!("{s} s"),
        (0, m, 0) => format!("{m} min"),
        (0, m, s) => format!("{m} min {s} s"),
        (h, m, _) => format!("{h} h {m} min"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_for_people() {
        let ist: Zone = "Asia/Kolkata".parse().expect("zone");
        assert_eq!(hms("2026-10-01T07:56:55Z"), "07:56:55");
        assert_eq!(local_hms("2026-10-01T07:56:55Z", &ist), "13:26:55");
        assert_eq!(zone_label("2026-10-01T07:56:55Z", &ist), "IST");
        assert_eq!(duration(280), "4 min 40 s");
        assert_eq!(duration(6), "6 s");
        assert_eq!(duration(7260), "2 h 1 min");
    }
}
