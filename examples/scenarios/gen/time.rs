//! Civil time from epoch milliseconds without chrono (the generator stays on std, flate2 and
//! serde_json, so its bytes never depend on a date library's version).

use super::facts::Ms;

pub struct Civil {
    pub y: i64,
    pub mo: i64,
    pub d: i64,
    pub h: i64,
    pub mi: i64,
    pub s: i64,
    pub ms: i64,
    /// 0 = Monday.
    pub weekday: i64,
}

pub const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
pub const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// The civil date and time of `t` shifted by `offset_ms` (a zone's offset from UTC).
pub fn civil(t: Ms, offset_ms: Ms) -> Civil {
    let t = t + offset_ms;
    // Howard Hinnant's days-to-civil algorithm.
    let days = t.div_euclid(86_400_000);
    let z = days + 719_468;
    let rem = t.rem_euclid(86_400_000);
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    Civil {
        y: yoe + era * 400 + i64::from(mo <= 2),
        mo,
        d: doy - (153 * mp + 2) / 5 + 1,
        h: rem / 3_600_000,
        mi: rem / 60_000 % 60,
        s: rem / 1000 % 60,
        ms: rem % 1000,
        // 1970-01-01 was a Thursday (3).
        weekday: (days + 3).rem_euclid(7),
    }
}

/// Epoch milliseconds of a civil UTC date and time.
pub fn epoch_ms(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64) -> Ms {
    // Howard Hinnant's days-from-civil.
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    ((days * 24 + h) * 60 + mi) * 60_000 + s * 1000
}

/// `2026-10-01T07:56:55Z`
pub fn iso_s(t: Ms) -> String {
    let c = civil(t, 0);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        c.y, c.mo, c.d, c.h, c.mi, c.s
    )
}

/// `2026-10-01T07:56:55.123Z`
pub fn iso_ms(t: Ms) -> String {
    let c = civil(t, 0);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        c.y, c.mo, c.d, c.h, c.mi, c.s, c.ms
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trips() {
        let t = epoch_ms(2026, 10, 1, 7, 56, 55) + 123;
        assert_eq!(iso_ms(t), "2026-10-01T07:56:55.123Z");
        assert_eq!(WEEKDAYS[civil(t, 0).weekday as usize], "Thu");
    }
}
