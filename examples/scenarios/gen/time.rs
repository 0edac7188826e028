//! Civil time from epoch milliseconds without chrono (the generator stays on std, flate2 and
//! serde_json, so its bytes never depend on a date library's version).
//!
//! In: epoch milliseconds (or nanoseconds) and a zone; out: the civil fields and the text
//! forms the writers need (CLF, syslog, RFC 3339 with any precision and offset style).
//! Zones carry their own daylight-saving rule (US or EU) so an offset is right for its date.

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

/// A daylight-saving rule; the generator only needs the two that cover most servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dst {
    None,
    /// Second Sunday of March 02:00 local to first Sunday of November 02:00 local.
    Us,
    /// Last Sunday of March 01:00 UTC to last Sunday of October 01:00 UTC.
    Eu,
}

/// A named zone: its standard offset and its daylight-saving rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zone {
    pub name: &'static str,
    pub std_min: i64,
    pub dst: Dst,
}

/// Zones servers are commonly set to; odd offsets (+05:30, +05:45) on purpose.
pub const ZONES: [Zone; 15] = [
    Zone {
        name: "UTC",
        std_min: 0,
        dst: Dst::None,
    },
    Zone {
        name: "Asia/Kolkata",
        std_min: 330,
        dst: Dst::None,
    },
    Zone {
        name: "Asia/Kathmandu",
        std_min: 345,
        dst: Dst::None,
    },
    Zone {
        name: "Asia/Tokyo",
        std_min: 540,
        dst: Dst::None,
    },
    Zone {
        name: "Asia/Singapore",
        std_min: 480,
        dst: Dst::None,
    },
    Zone {
        name: "Australia/Brisbane",
        std_min: 600,
        dst: Dst::None,
    },
    Zone {
        name: "America/Sao_Paulo",
        std_min: -180,
        dst: Dst::None,
    },
    Zone {
        name: "America/Phoenix",
        std_min: -420,
        dst: Dst::None,
    },
    Zone {
        name: "America/New_York",
        std_min: -300,
        dst: Dst::Us,
    },
    Zone {
        name: "America/Los_Angeles",
        std_min: -480,
        dst: Dst::Us,
    },
    Zone {
        name: "Europe/Berlin",
        std_min: 60,
        dst: Dst::Eu,
    },
    Zone {
        name: "Asia/Dubai",
        std_min: 240,
        dst: Dst::None,
    },
    Zone {
        name: "Africa/Johannesburg",
        std_min: 120,
        dst: Dst::None,
    },
    Zone {
        name: "America/Bogota",
        std_min: -300,
        dst: Dst::None,
    },
    Zone {
        name: "Europe/London",
        std_min: 0,
        dst: Dst::Eu,
    },
];

pub const UTC: Zone = ZONES[0];

/// Day of month of the n-th (1-based) Sunday of a month, or the last one with `n == 0`.
fn sunday(y: i64, mo: i64, n: i64) -> i64 {
    if n == 0 {
        let next = if mo == 12 {
            epoch_ms(y + 1, 1, 1, 0, 0, 0)
        } else {
            epoch_ms(y, mo + 1, 1, 0, 0, 0)
        };
        let last = civil(next - 86_400_000, 0);
        return last.d - (last.weekday + 1) % 7;
    }
    let first = civil(epoch_ms(y, mo, 1, 0, 0, 0), 0);
    // weekday 6 = Sunday.
    1 + (6 - first.weekday).rem_euclid(7) + 7 * (n - 1)
}

impl Zone {
    /// Offset from UTC in milliseconds at the UTC instant `t`.
    pub fn offset_ms(&self, t: Ms) -> Ms {
        let std = self.std_min * 60_000;
        let y = civil(t, std).y;
        let summer = match self.dst {
            Dst::None => false,
            Dst::Us => {
                // 02:00 local standard time in March, 02:00 local daylight time in November.
                let on = epoch_ms(y, 3, sunday(y, 3, 2), 2, 0, 0) - std;
                let off = epoch_ms(y, 11, sunday(y, 11, 1), 2, 0, 0) - std - 3_600_000;
                t >= on && t < off
            }
            Dst::Eu => {
                let on = epoch_ms(y, 3, sunday(y, 3, 0), 1, 0, 0);
                let off = epoch_ms(y, 10, sunday(y, 10, 0), 1, 0, 0);
                t >= on && t < off
            }
        };
        std + if summer { 3_600_000 } else { 0 }
    }

    pub fn is_utc(&self) -> bool {
        self.std_min == 0 && self.dst == Dst::None
    }
}

/// `+0530` (`colon == false`) or `+05:30`.
pub fn offset_text(off_ms: Ms, colon: bool) -> String {
    let sign = if off_ms < 0 { '-' } else { '+' };
    let m = off_ms.abs() / 60_000;
    if colon {
        format!("{sign}{:02}:{:02}", m / 60, m % 60)
    } else {
        format!("{sign}{:02}{:02}", m / 60, m % 60)
    }
}

/// nginx `$time_local`, Apache `%t`: `01/Oct/2026:13:10:12 +0530`.
pub fn clf(t: Ms, off_ms: Ms) -> String {
    let c = civil(t, off_ms);
    format!(
        "{:02}/{}/{:04}:{:02}:{:02}:{:02} {}",
        c.d,
        MONTHS[(c.mo - 1) as usize],
        c.y,
        c.h,
        c.mi,
        c.s,
        offset_text(off_ms, false)
    )
}

/// HAProxy accept date: `01/Oct/2026:13:10:12.345` (local, no offset).
pub fn haproxy_date(t: Ms, off_ms: Ms) -> String {
    let c = civil(t, off_ms);
    format!(
        "{:02}/{}/{:04}:{:02}:{:02}:{:02}.{:03}",
        c.d,
        MONTHS[(c.mo - 1) as usize],
        c.y,
        c.h,
        c.mi,
        c.s,
        c.ms
    )
}

/// RFC 3164 syslog: `Oct  1 13:10:12` (day space-padded, no year, no zone).
pub fn syslog(t: Ms, off_ms: Ms) -> String {
    let c = civil(t, off_ms);
    format!(
        "{} {:>2} {:02}:{:02}:{:02}",
        MONTHS[(c.mo - 1) as usize],
        c.d,
        c.h,
        c.mi,
        c.s
    )
}

/// `journalctl` short: `Oct 01 13:10:12` (day zero-padded).
pub fn journal(t: Ms, off_ms: Ms) -> String {
    let c = civil(t, off_ms);
    format!(
        "{} {:02} {:02}:{:02}:{:02}",
        MONTHS[(c.mo - 1) as usize],
        c.d,
        c.h,
        c.mi,
        c.s
    )
}

/// `2026-10-01{sep}13:10:12` followed by `frac_sep` and `digits` fraction digits (0: none),
/// local time without offset (Python `asctime`, Spring Boot, Go `log`).
pub fn local_plain(
    t: Ms,
    off_ms: Ms,
    date_sep: char,
    sep: char,
    frac_sep: char,
    digits: u32,
) -> String {
    let c = civil(t, off_ms);
    let mut s = format!(
        "{:04}{date_sep}{:02}{date_sep}{:02}{sep}{:02}:{:02}:{:02}",
        c.y, c.mo, c.d, c.h, c.mi, c.s
    );
    if digits > 0 {
        s.push(frac_sep);
        s.push_str(&frac(c.ms * 1_000_000, digits));
    }
    s
}

/// The first `digits` digits of a nanosecond fraction.
fn frac(ns: i64, digits: u32) -> String {
    let full = format!("{:09}", ns.rem_euclid(1_000_000_000));
    full[..digits.min(9) as usize].to_string()
}

/// How an RFC 3339 writer renders the zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OffsetStyle {
    /// `Z` for UTC, else `+05:30` (Go `time.RFC3339`, most JSON loggers).
    ZOrColon,
    /// Always `+00:00` style (Python `isoformat`, aws-cli v2).
    Colon,
    /// `+0000` style (journalctl short-iso, some Java patterns).
    NoColon,
}

/// RFC 3339 from epoch nanoseconds: `digits` fraction digits (0: none); `trim`: drop
/// trailing zeros as Go's `RFC3339Nano` does (and the dot when nothing is left).
pub fn rfc3339_ns(t_ns: i64, off_ms: Ms, digits: u32, trim: bool, style: OffsetStyle) -> String {
    let t = t_ns.div_euclid(1_000_000);
    let c = civil(t, off_ms);
    let mut s = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        c.y, c.mo, c.d, c.h, c.mi, c.s
    );
    if digits > 0 {
        let mut f = frac(t_ns.rem_euclid(1_000_000_000), digits);
        if trim {
            while f.ends_with('0') {
                f.pop();
            }
        }
        if !f.is_empty() {
            s.push('.');
            s.push_str(&f);
        }
    }
    match style {
        OffsetStyle::ZOrColon if off_ms == 0 => s.push('Z'),
        OffsetStyle::ZOrColon | OffsetStyle::Colon => s.push_str(&offset_text(off_ms, true)),
        OffsetStyle::NoColon => s.push_str(&offset_text(off_ms, false)),
    }
    s
}

/// RFC 3339 from epoch milliseconds with a fixed number of fraction digits.
pub fn rfc3339(t: Ms, off_ms: Ms, digits: u32, style: OffsetStyle) -> String {
    rfc3339_ns(t * 1_000_000, off_ms, digits, false, style)
}

/// Epoch seconds with milliseconds, trailing zeros trimmed (`1727767212.5`, `1727767212`).
pub fn epoch_s_trim(t: Ms) -> String {
    let s = t.div_euclid(1000);
    let ms = t.rem_euclid(1000);
    if ms == 0 {
        return s.to_string();
    }
    let mut f = format!("{ms:03}");
    while f.ends_with('0') {
        f.pop();
    }
    format!("{s}.{f}")
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

    #[test]
    fn offsets_follow_daylight_saving() {
        let ny = ZONES[8];
        let berlin = ZONES[10];
        // 2026: US DST from 8 March to 1 November, EU from 29 March to 25 October.
        let cases = [
            (ny, epoch_ms(2026, 3, 8, 6, 59, 59), -5),
            (ny, epoch_ms(2026, 3, 8, 7, 0, 0), -4),
            (ny, epoch_ms(2026, 11, 1, 5, 59, 59), -4),
            (ny, epoch_ms(2026, 11, 1, 6, 0, 0), -5),
            (berlin, epoch_ms(2026, 3, 29, 0, 59, 59), 1),
            (berlin, epoch_ms(2026, 3, 29, 1, 0, 0), 2),
            (berlin, epoch_ms(2026, 10, 25, 1, 0, 0), 1),
            (ZONES[1], epoch_ms(2026, 6, 1, 0, 0, 0), 0),
        ];
        for (zone, t, hours) in cases {
            let want = if zone.name == "Asia/Kolkata" {
                330 * 60_000
            } else {
                hours * 3_600_000
            };
            assert_eq!(zone.offset_ms(t), want, "{} at {}", zone.name, iso_s(t));
        }
    }

    #[test]
    fn text_forms() {
        let t = epoch_ms(2026, 10, 1, 7, 40, 12) + 45;
        let off = 330 * 60_000;
        assert_eq!(clf(t, off), "01/Oct/2026:13:10:12 +0530");
        assert_eq!(clf(t, -7 * 3_600_000), "01/Oct/2026:00:40:12 -0700");
        assert_eq!(syslog(t, 0), "Oct  1 07:40:12");
        assert_eq!(journal(t, 0), "Oct 01 07:40:12");
        assert_eq!(haproxy_date(t, 0), "01/Oct/2026:07:40:12.045");
        assert_eq!(
            local_plain(t, off, '-', ' ', ',', 3),
            "2026-10-01 13:10:12,045"
        );
        assert_eq!(
            rfc3339(t, 0, 3, OffsetStyle::ZOrColon),
            "2026-10-01T07:40:12.045Z"
        );
        assert_eq!(
            rfc3339(t, off, 0, OffsetStyle::ZOrColon),
            "2026-10-01T13:10:12+05:30"
        );
        assert_eq!(
            rfc3339(t, 0, 6, OffsetStyle::Colon),
            "2026-10-01T07:40:12.045000+00:00"
        );
        let ns = t * 1_000_000 + 120_300;
        assert_eq!(
            rfc3339_ns(ns, 0, 9, true, OffsetStyle::ZOrColon),
            "2026-10-01T07:40:12.0451203Z"
        );
        assert_eq!(epoch_s_trim(t), "1790840412.045");
        assert_eq!(epoch_s_trim(t - 45), "1790840412");
    }
}
