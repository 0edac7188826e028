//! What comes between a line's time and its message: an optional level,
//! process id, thread and logger, in the orders the common layouts write
//! them (log4j, logback and Spring Boot, Python logging, Go, Monolog, zap,
//! Spark, ZooKeeper, OpenStack), with the separators they use (` - `,
//! ` | `, ` --- `, ` : `, tabs, `:` glued to the time).
//!
//! In: the text after the time, and the level words. Out: a [`Header`]:
//! the parts found, each a slice of the line, and where the message starts.
//!
//! ```text
//!  INFO 4411 --- [main] o.s.b.Application : Started   -> level INFO, pid 4411, thread main, logger o.s.b.Application, "Started"
//! ,672:DEBUG:Hello, World!                             -> level DEBUG, "Hello, World!"
//! ```

/// Tokens looked at before the message must have started.
const MAX_TOKENS: usize = 8;
/// Bracketed tokens a header holds at most (`[app] [main]`).
const MAX_BRACKETS: usize = 2;

/// The parts of a line between its time and its message.
#[derive(Debug, Default, PartialEq)]
pub struct Header<'a> {
    pub level: Option<&'a str>,
    pub pid: Option<&'a str>,
    pub thread: Option<&'a str>,
    pub logger: Option<&'a str>,
    pub message: &'a str,
}

/// One token of the header.
#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    /// The token without its brackets or a trailing colon.
    text: &'a str,
    bracketed: bool,
    /// Written with a colon right after it (`spark.SecurityManager:`).
    colon: bool,
    /// The rest of the line after the token.
    after: &'a str,
}

/// Read the header of `rest` (the line after its time); `is_level` says
/// whether a word is a level name.
pub fn read<'a>(rest: &'a str, is_level: &dyn Fn(&str) -> bool) -> Header<'a> {
    let mut h = Header {
        message: rest.trim(),
        ..Header::default()
    };
    // A colon glued to the time (`,672:DEBUG:`) separates like a space.
    let mut s = rest.strip_prefix(':').unwrap_or(rest);
    let mut brackets = 0;
    // Parts seen before the level, kept only if a level follows them.
    let mut before: Header<'a> = Header::default();
    for _ in 0..MAX_TOKENS {
        s = skip_separators(s);
        let Some(tok) = next_token(s, is_level) else {
            break;
        };
        // Monolog's `channel.LEVEL:`.
        let channel_level = (!tok.bracketed && tok.colon)
            .then(|| tok.text.rsplit_once('.'))
            .flatten()
            .filter(|(_, l)| is_level(l));
        if h.level.is_none() && (is_level(tok.text) || channel_level.is_some()) {
            match channel_level {
                Some((channel, level)) => {
                    h.level = Some(level);
                    h.logger = Some(channel);
                }
                None => h.level = Some(tok.text),
            }
            h.pid = before.pid;
            h.thread = before.thread;
            h.logger = h.logger.or(before.logger);
            s = tok.after;
            h.message = skip_separators(s).trim_end();
            continue;
        }
        let leveled = h.level.is_some();
        let target = if leveled { &mut h } else { &mut before };
        if tok.bracketed && brackets < MAX_BRACKETS && target.logger.is_none() {
            brackets += 1;
            if is_pid(tok.text) && target.pid.is_none() {
                target.pid = Some(tok.text);
            } else if target.thread.is_none() {
                target.thread = Some(tok.text);
            }
        } else if !tok.bracketed
            && is_pid(tok.text)
            && target.pid.is_none()
            // After the level a number is a pid only before more header
            // (`INFO 4411 --- [main]`), not as the message's first word.
            && (!leveled || tok.after.trim_start().starts_with(['-', '[']))
        {
            target.pid = Some(tok.text);
        } else if !tok.bracketed && is_logger(tok.text) && (leveled || tok.colon) {
            // A logger after the level, or one that ends with a colon, opens the message.
            target.logger = Some(tok.text);
            let msg = skip_separators(tok.after).trim_end();
            if leveled {
                h.message = msg;
            } else {
                h.logger = Some(tok.text);
                h.message = msg;
            }
            break;
        } else if !tok.bracketed && is_logger(tok.text) && !leveled && target.logger.is_none() {
            // `myapp.db - ERROR - ...`: a logger before the level, if one follows.
            target.logger = Some(tok.text);
        } else {
            break;
        }
        s = tok.after;
        if leveled {
            h.message = skip_separators(s).trim_end();
        }
    }
    h
}

/// Separators between header parts: whitespace, and ` - `, ` | `, ` --- `,
/// ` : `, `,` standing alone.
fn skip_separators(mut s: &str) -> &str {
    loop {
        let t = s.trim_start();
        let stripped = ["---", "--", "-", "|", ":", ",", "\u{bb}"]
            .iter()
            .find_map(|sep| {
                t.strip_prefix(sep)
                    .filter(|r| r.is_empty() || r.starts_with(char::is_whitespace))
            });
        match stripped {
            Some(r) => s = r,
            None => return t,
        }
    }
}

/// The next token: a bracketed group (nested brackets kept whole), or a
/// bare word up to whitespace, or up to a colon after a level word
/// (`DEBUG:Hello`).
fn next_token<'a>(s: &'a str, is_level: &dyn Fn(&str) -> bool) -> Option<Token<'a>> {
    let first = *s.as_bytes().first()?;
    let close = match first {
        b'[' => Some(b']'),
        b'(' => Some(b')'),
        b'<' => Some(b'>'),
        _ => None,
    };
    if let Some(close) = close {
        if let Some(end) = balanced_end(s, first, close) {
            let after = &s[end + 1..];
            let colon = after.starts_with(':');
            return Some(Token {
                text: s[1..end].trim(),
                bracketed: true,
                colon,
                after: if colon { &after[1..] } else { after },
            });
        }
    }
    let end = s.find(char::is_whitespace).unwrap_or(s.len());
    let word = &s[..end];
    // `DEBUG:Hello` is a level, then the message.
    if let Some((head, _)) = word.split_once(':') {
        if is_level(head) {
            return Some(Token {
                text: head,
                bracketed: false,
                colon: true,
                after: &s[head.len() + 1..],
            });
        }
    }
    let (text, colon) = match word.strip_suffix(':') {
        Some(w) if !w.is_empty() => (w, true),
        _ => (word, false),
    };
    Some(Token {
        text,
        bracketed: false,
        colon,
        after: &s[end..],
    })
}

/// The index of the bracket that closes the one at the start of `s`.
fn balanced_end(s: &str, open: u8, close: u8) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &c) in s.as_bytes().iter().enumerate() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// A process id: digits (`4411`), nginx's `pid#tid`, or `pid 7` as Apache
/// writes it inside brackets.
fn is_pid(t: &str) -> bool {
    let t = t.strip_prefix("pid ").unwrap_or(t);
    let digits = |p: &str| !p.is_empty() && p.len() <= 10 && p.bytes().all(|b| b.is_ascii_digit());
    match t.split_once('#') {
        Some((a, b)) => digits(a) && digits(b),
        None => digits(t),
    }
}

/// A logger, a component or a caller: one word of identifier characters
/// that holds a `.`, `/` or `::` (`o.s.b.Application`, `internal/queue.go:128`,
/// `app::db`), never a number or a URL.
fn is_logger(t: &str) -> bool {
    let first = t.chars().next();
    first.is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && t.len() <= 120
        && !t.contains("://")
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/$:@#<>".contains(c))
        && (t.contains('.') || t.contains('/') || t.contains("::"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_level(w: &str) -> bool {
        [
            "info", "warn", "warning", "error", "debug", "trace", "fatal", "notice",
        ]
        .contains(&w.to_ascii_lowercase().as_str())
    }

    /// One case per layout: (name, text after the time, level, pid, thread, logger, message).
    #[test]
    fn headers_of_the_common_layouts() {
        type Case = (
            &'static str,
            &'static str,
            Option<&'static str>,
            Option<&'static str>,
            Option<&'static str>,
            Option<&'static str>,
            &'static str,
        );
        let cases: [Case; 14] = [
            ("bare message", " pool exhausted", None, None, None, None, "pool exhausted"),
            ("level", " ERROR pool exhausted", Some("ERROR"), None, None, None, "pool exhausted"),
            ("python colons", ":DEBUG:Hello, World!", Some("DEBUG"), None, None, None, "Hello, World!"),
            (
                "spring boot",
                "  INFO 4411 --- [           main] o.s.b.Application  : Started in 2 s",
                Some("INFO"), Some("4411"), Some("main"), Some("o.s.b.Application"), "Started in 2 s",
            ),
            (
                "spark",
                " INFO executor.CoarseGrainedExecutorBackend: Registered signal handlers",
                Some("INFO"), None, None, Some("executor.CoarseGrainedExecutorBackend"), "Registered signal handlers",
            ),
            (
                "zookeeper",
                " - WARN  [SendWorker:1889:QuorumCnxManager$SendWorker@688] - Send worker leaving thread",
                Some("WARN"), None, Some("SendWorker:1889:QuorumCnxManager$SendWorker@688"), None, "Send worker leaving thread",
            ),
            (
                "openstack",
                " 25746 INFO nova.osapi_compute.wsgi.server [req-38] 10.11.10.1 \"GET /v2\" status: 200",
                Some("INFO"), Some("25746"), None, Some("nova.osapi_compute.wsgi.server"), "[req-38] 10.11.10.1 \"GET /v2\" status: 200",
            ),
            ("python name first", " - myapp.db - ERROR - pool exhausted", Some("ERROR"), None, None, Some("myapp.db"), "pool exhausted"),
            ("monolog", "] app.ERROR: Undefined index {\"a\":1} []", None, None, None, None, "] app.ERROR: Undefined index {\"a\":1} []"),
            ("zap console", "\terror\tinternal/queue_sender.go:128\tExporting failed.", Some("error"), None, None, Some("internal/queue_sender.go:128"), "Exporting failed."),
            ("bracketed level", " [warn] [pid 7] disk almost full", Some("warn"), Some("pid 7"), None, None, "disk almost full"),
            ("go log prefix", " http: TLS handshake error from 10.0.0.1", None, None, None, None, "http: TLS handshake error from 10.0.0.1"),
            ("a number after the level is the message", " ERROR 404 not found", Some("ERROR"), None, None, None, "404 not found"),
            ("a url is no logger", " https://example.com/x is down", None, None, None, None, "https://example.com/x is down"),
        ];
        for (name, rest, level, pid, thread, logger, message) in cases {
            let h = read(rest, &is_level);
            assert_eq!(
                (h.level, h.pid, h.thread, h.logger, h.message),
                (level, pid, thread, logger, message),
                "{name}"
            );
        }
    }

    /// Monolog's channel and level, once the closing bracket is behind.
    #[test]
    fn a_channel_dot_level_is_a_logger_and_a_level() {
        let h = read(" app.ERROR: Undefined index: x", &is_level);
        assert_eq!(
            (h.level, h.logger, h.message),
            (Some("ERROR"), Some("app"), "Undefined index: x")
        );
    }
}
