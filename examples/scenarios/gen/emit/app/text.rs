//! Plain-text loggers: Spring Boot's pattern, Python's `logging`, logrus' text formatter
//! (logfmt), Go's `log` with HashiCorp-style level tags, Ruby's `Logger` as Rails uses it.
//!
//! Followed, field by field:
//! - Spring Boot: corpus `db_pool_exhaustion.log` L5 (`%d{yyyy-MM-dd HH:mm:ss.SSS} %5p PID ---
//!   [%t] %-40.40logger{39} : %m`, the file pattern; containers use the console pattern's
//!   `[%15.15t]`), logger names abbreviated as logback's `TargetLengthBasedClassNameAbbreviator`;
//! - Python: `%(asctime)s %(levelname)s %(name)s: %(message)s`, traceback lines after;
//! - logrus text: corpus `logfmt.log` L1-L6 (`time=` RFC 3339, `level`, `msg`, then the other
//!   keys sorted; values quoted only when they hold characters outside `[A-Za-z0-9-._/@^+]`,
//!   empty values bare as in L13 `reason=`);
//! - Go `log`: `2006/01/02 15:04:05 [LEVEL] ...` as the HashiCorp line in the Loki corpus;
//! - Ruby `Logger::Formatter`: `E, [2026-10-01T07:40:12.123456 #1] ERROR -- : msg`, Rails'
//!   request-id tag, one logger call (so one prefix) per backtrace line.
//!
//! All of these stamp local time with no zone.

use super::{level_word, Rec};
use crate::gen::emit::family::AppFamily;
use crate::gen::time::{self, OffsetStyle};

/// logback's abbreviation: shorten package segments to their first letter, from the left,
/// until the name fits `target` (the class name is never shortened).
pub fn abbreviate(name: &str, target: usize) -> String {
    if name.len() <= target {
        return name.to_string();
    }
    let mut parts: Vec<String> = name.split('.').map(str::to_string).collect();
    let last = parts.len().saturating_sub(1);
    for i in 0..last {
        let len: usize = parts.iter().map(String::len).sum::<usize>() + last;
        if len <= target {
            break;
        }
        parts[i] = parts[i]
            .chars()
            .next()
            .map(String::from)
            .unwrap_or_default();
    }
    parts.join(".")
}

/// `%-W.Wx`: pad right to W, or keep the last W characters.
fn fit_left(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n > w {
        s.chars().skip(n - w).collect()
    } else {
        format!("{s:<w$}")
    }
}

/// `%W.Wx`: pad left to W, or keep the last W characters.
fn fit_right(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n > w {
        s.chars().skip(n - w).collect()
    } else {
        format!("{s:>w$}")
    }
}

fn stack_lines(r: &Rec) -> Vec<String> {
    r.log
        .stack
        .as_deref()
        .map(|s| s.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Spring Boot; `console` selects the container pattern (`[%15.15t]`).
pub fn spring_with(r: &Rec, console: bool) -> Vec<String> {
    let l = r.log;
    let thread = if console {
        format!("[{}]", fit_right(&l.thread, 15))
    } else {
        format!("[{}]", l.thread)
    };
    let mut out = vec![format!(
        "{} {:>5} {} --- {thread} {} : {}",
        time::local_plain(r.t, r.off, '-', ' ', '.', 3),
        level_word(AppFamily::SpringText, l.level),
        r.pid,
        fit_left(&abbreviate(&l.logger, 39), 40),
        l.msg
    )];
    out.extend(stack_lines(r));
    out
}

pub fn spring(r: &Rec) -> Vec<String> {
    // Containers log to the console; processes on VMs log to a file, with the file pattern.
    spring_with(r, r.container)
}

pub fn python(r: &Rec) -> Vec<String> {
    let l = r.log;
    let mut out = vec![format!(
        "{} {} {}: {}",
        time::local_plain(r.t, r.off, '-', ' ', ',', 3),
        level_word(AppFamily::PythonText, l.level),
        if l.logger.is_empty() {
            "root"
        } else {
            &l.logger
        },
        l.msg
    )];
    out.extend(stack_lines(r));
    out
}

/// Go's `strconv.Quote` for the characters log messages hold.
fn go_quote(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\t' => o.push_str("\\t"),
            '\r' => o.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                o.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// logrus' `needsQuoting`.
fn logfmt_value(v: &str) -> String {
    let bare = v
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-._/@^+".contains(c));
    if bare {
        v.to_string()
    } else {
        go_quote(v)
    }
}

pub fn logfmt(r: &Rec) -> Vec<String> {
    let l = r.log;
    let mut kv: Vec<&(String, String)> = l.kv.iter().collect();
    kv.sort_by(|a, b| a.0.cmp(&b.0));
    let mut s = format!(
        "time={} level={} msg={}",
        logfmt_value(&time::rfc3339(r.t, r.off, 0, OffsetStyle::ZOrColon)),
        level_word(AppFamily::Logfmt, l.level),
        logfmt_value(&l.msg)
    );
    for (k, v) in kv {
        s.push_str(&format!(" {k}={}", logfmt_value(v)));
    }
    let mut out = vec![s];
    out.extend(stack_lines(r));
    out
}

pub fn golog(r: &Rec) -> Vec<String> {
    let l = r.log;
    let mut s = format!(
        "{} [{}] ",
        time::local_plain(r.t, r.off, '/', ' ', '.', 0),
        level_word(AppFamily::GoLog, l.level)
    );
    if !l.logger.is_empty() {
        s.push_str(&l.logger);
        s.push_str(": ");
    }
    s.push_str(&l.msg);
    for (k, v) in &l.kv {
        s.push_str(&format!(" {k}={v}"));
    }
    let mut out = vec![s];
    out.extend(stack_lines(r));
    out
}

pub fn rails(r: &Rec) -> Vec<String> {
    let l = r.log;
    let word = level_word(AppFamily::Rails, l.level);
    let prefix = format!(
        "{}, [{} #{}] {:>5} -- : ",
        &word[..1],
        time::local_plain(r.t, r.off, '-', 'T', '.', 6),
        r.pid,
        word
    );
    let tag =
        l.kv.iter()
            .find(|(k, _)| k == "request_id")
            .map(|(_, v)| format!("[{v}] "))
            .unwrap_or_default();
    let mut out = vec![format!("{prefix}{tag}{}", l.msg)];
    out.extend(
        stack_lines(r)
            .into_iter()
            .map(|s| format!("{prefix}{tag}{s}")),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logback_abbreviation() {
        let cases = [
            (
                "com.zaxxer.hikari.pool.HikariPool",
                "com.zaxxer.hikari.pool.HikariPool",
            ),
            (
                "org.springframework.boot.web.embedded.tomcat.TomcatWebServer",
                "o.s.b.w.embedded.tomcat.TomcatWebServer",
            ),
            (
                "org.springframework.samples.petclinic.PetClinicApplication",
                "o.s.s.petclinic.PetClinicApplication",
            ),
        ];
        for (name, want) in cases {
            assert_eq!(abbreviate(name, 39), want);
            assert!(want.len() <= 39 || !want.contains('.'));
        }
    }

    #[test]
    fn logfmt_quotes_like_logrus() {
        let cases = [
            ("walrus", "walrus"),
            ("", ""),
            ("a b", "\"a b\""),
            ("it's \"x\"", "\"it's \\\"x\\\"\""),
            ("10.0.0.1:80", "\"10.0.0.1:80\""),
        ];
        for (v, want) in cases {
            assert_eq!(logfmt_value(v), want);
        }
    }

    #[test]
    fn padding_keeps_the_tail() {
        assert_eq!(fit_right("http-nio-8080-exec-7", 15), "nio-8080-exec-7");
        assert_eq!(fit_right("main", 15), "           main");
        assert_eq!(fit_left("a.B", 5), "a.B  ");
    }
}
