//! A message's first line -> its key: the tokens with every variable part
//! masked by a typed placeholder, joined by single spaces. Lines that differ
//! only in ids, numbers and the like get the same key, exactly, so keys are
//! counted and merged like any other aggregate; clustering keys into
//! templates comes later (`drain.rs`).
//!
//! One pass over the bytes, no regex, no allocation (the key is written into
//! a buffer the caller reuses): this runs on every log record.
//!
//! ```text
//! HikariPool-1 - Connection is not available, request timed out after 30000ms.
//! -> HikariPool-<num> - Connection is not available, request timed out after <duration>.
//! user "ann smith" from 10.1.2.3:5432 -> user <quoted> from <ip>
//! ```
//!
//! What is masked, token by token (a token is what lies between spaces, a
//! quoted value may hold spaces): quoted values (`"..."`, `'...'`,
//! `` `...` ``, also after `=` or `:`), URLs, paths, e-mail addresses, IPv4
//! and IPv6 addresses (with a port), UUIDs, hex ids (`0x1f`, `7c9d8b6f5`),
//! numbers and durations (`30000ms`, `1.5s`, `2m3s`); in any other token
//! that holds a digit, each digit-bearing piece between `-_.:=/#,@|+[]()`
//! (`acct-4411` -> `acct-<num>`, `blk_-162` -> `blk_-<num>`). Words without
//! digits stay as they are: they are what tells one message from another.

use super::rules::{Rules, MAX_UNIT_LEN};

/// Tokens kept at most: Elastic's `categorize_text` looks at the first 100
/// analysed tokens; messages longer than this are bulk data, not wording.
pub(crate) const MAX_TOKENS: usize = 64;

/// Bytes of the first line looked at.
const MAX_BYTES: usize = 2048;

/// How far a quoted value may run before the quote is taken for a stray one.
const MAX_QUOTED: usize = 512;

pub(crate) const NUM: &str = "<num>";
pub(crate) const DURATION: &str = "<duration>";
pub(crate) const ID: &str = "<id>";
pub(crate) const HEX: &str = "<hex>";
pub(crate) const UUID: &str = "<uuid>";
pub(crate) const IP: &str = "<ip>";
pub(crate) const EMAIL: &str = "<email>";
pub(crate) const PATH: &str = "<path>";
pub(crate) const URL: &str = "<url>";
pub(crate) const QUOTED: &str = "<quoted>";

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn is_quote(b: u8) -> bool {
    b == b'"' || b == b'\'' || b == b'`'
}

/// Where a quote opens a value: at a token's start or after one of these.
fn opens_after(b: u8) -> bool {
    matches!(b, b'=' | b':' | b'(' | b'[' | b'{' | b',' | b'<')
}

/// Split a token into leading brackets, its core and trailing punctuation.
fn split_punct(t: &[u8]) -> (&[u8], &[u8], &[u8]) {
    let l = t
        .iter()
        .take_while(|b| matches!(b, b'(' | b'[' | b'{' | b'<'))
        .count();
    let rest = &t[l..];
    let r = rest
        .iter()
        .rev()
        .take_while(|b| {
            matches!(
                b,
                b')' | b']' | b'}' | b'>' | b',' | b';' | b':' | b'.' | b'!' | b'?'
            )
        })
        .count();
    (&t[..l], &rest[..rest.len() - r], &rest[rest.len() - r..])
}

fn push(out: &mut String, b: &[u8]) {
    // Tokens are cut at ASCII bytes only, so each piece is whole UTF-8.
    out.push_str(std::str::from_utf8(b).unwrap_or(""));
}

/// The key of `message` into `out` (cleared first), at most `max_tokens`
/// tokens. Returns the number of tokens written.
pub(crate) fn mask_into(message: &str, rules: &Rules, max_tokens: usize, out: &mut String) -> usize {
    out.clear();
    let mut line = message.as_bytes();
    if let Some(nl) = memchr::memchr(b'\n', line) {
        line = &line[..nl];
    }
    if line.len() > MAX_BYTES {
        let mut end = MAX_BYTES;
        while end > 0 && !message.is_char_boundary(end) {
            end -= 1;
        }
        line = &line[..end];
    }
    let mut i = 0;
    let mut tokens = 0;
    let max = max_tokens.min(MAX_TOKENS);
    while i < line.len() && tokens < max {
        if is_space(line[i]) || line[i] == b'\r' {
            i += 1;
            continue;
        }
        if tokens > 0 {
            out.push(' ');
        }
        tokens += 1;
        i = token(line, i, rules, out);
    }
    tokens
}

/// Mask the token starting at `start`; returns where the next one may start.
fn token(line: &[u8], start: usize, rules: &Rules, out: &mut String) -> usize {
    let mut s = start;
    loop {
        let end = s + line[s..]
            .iter()
            .position(|&b| is_space(b) || b == b'\r')
            .unwrap_or(line.len() - s);
        let quote = (s..end).find(|&q| is_quote(line[q]) && (q == s || opens_after(line[q - 1])));
        let Some(q) = quote else {
            plain(&line[s..end], rules, out);
            return end;
        };
        match closing(line, q) {
            Some(c) => {
                plain(&line[s..q], rules, out);
                out.push_str(QUOTED);
                s = c + 1;
                if s >= line.len() || is_space(line[s]) {
                    return s;
                }
            }
            None => {
                plain(&line[s..end], rules, out);
                return end;
            }
        }
    }
}

/// The closing quote of the one opening at `q`, if there is one near.
fn closing(line: &[u8], q: usize) -> Option<usize> {
    let quote = line[q];
    let limit = line.len().min(q + 1 + MAX_QUOTED);
    let mut j = q + 1;
    while j < limit {
        let b = line[j];
        if b == b'\\' {
            j += 2;
            continue;
        }
        if b == quote {
            // An apostrophe closes only where a word ends (`can't` does not).
            let next = line.get(j + 1).copied();
            if quote != b'\''
                || next.is_none_or(|n| is_space(n) || n.is_ascii_punctuation())
            {
                return Some(j);
            }
        }
        j += 1;
    }
    None
}

/// What a token holds, from one look at each byte.
#[derive(Default)]
struct Scan {
    digit: bool,
    at: bool,
}

fn scan(t: &[u8]) -> Scan {
    let mut s = Scan::default();
    for &b in t {
        s.digit |= b.is_ascii_digit();
        s.at |= b == b'@';
    }
    s
}

/// Mask a token without quotes.
fn plain(t: &[u8], rules: &Rules, out: &mut String) {
    if t.is_empty() {
        return;
    }
    let (l, core, r) = split_punct(t);
    if core.is_empty() {
        push(out, t);
        return;
    }
    let sc = scan(core);
    let whole = if is_url(core) {
        Some(URL)
    } else if is_path(core) {
        Some(PATH)
    } else if sc.at && is_email(core) {
        Some(EMAIL)
    } else if !sc.digit {
        None
    } else if is_ip(core) {
        Some(IP)
    } else if is_uuid(core) {
        Some(UUID)
    } else if is_hex(core) {
        Some(HEX)
    } else {
        number(core, rules)
    };
    push(out, l);
    match whole {
        Some(p) => out.push_str(p),
        None if !sc.digit => push(out, core),
        None => pieces(core, rules, out),
    }
    push(out, r);
}

/// Each digit-bearing piece between delimiters masked, the rest kept.
fn pieces(core: &[u8], rules: &Rules, out: &mut String) {
    let delim = |b: u8| {
        matches!(
            b,
            b'-' | b'_' | b'.' | b':' | b'=' | b'/' | b'#' | b',' | b'@' | b'|' | b'+' | b'[' | b']' | b'(' | b')'
        )
    };
    let mut i = 0;
    while i < core.len() {
        if delim(core[i]) {
            push(out, &core[i..=i]);
            i += 1;
            continue;
        }
        let end = i + core[i..].iter().position(|&b| delim(b)).unwrap_or(core.len() - i);
        let piece = &core[i..end];
        if piece.iter().any(u8::is_ascii_digit) {
            let p = number(piece, rules)
                .or_else(|| is_hex(piece).then_some(HEX))
                .unwrap_or(ID);
            out.push_str(p);
        } else {
            push(out, piece);
        }
        i = end;
    }
}

/// `<num>` for a number (signs, decimals, thousands separators, versions
/// such as `v4.18.2`, a word such as `MB` or `st` on it), `<duration>` for one or more number-unit pairs
/// with time units (`30000ms`, `2m3.5s`).
fn number(t: &[u8], rules: &Rules) -> Option<&'static str> {
    // A sign, or the `v` of a version (`v4.18.2`).
    let mut i = match t {
        [b'-' | b'+', ..] => 1,
        [b'v' | b'V', d, ..] if d.is_ascii_digit() => 1,
        _ => 0,
    };
    let mut pairs = 0;
    let mut all_time = true;
    let mut unitless = false;
    while i < t.len() {
        let start = i;
        while i < t.len() && (t[i].is_ascii_digit() || (matches!(t[i], b'.' | b',') && i > start)) {
            i += 1;
        }
        if i == start || !t[i - 1].is_ascii_digit() {
            return None;
        }
        let u = i;
        while i < t.len() && (t[i].is_ascii_alphabetic() || t[i] >= 0x80) {
            i += 1;
        }
        let unit = &t[u..i];
        pairs += 1;
        if unit.is_empty() {
            unitless = true;
            if i < t.len() {
                return None;
            }
        } else if unit.len() > MAX_UNIT_LEN || !rules.is_duration_unit(unit) {
            all_time = false;
            // `4G`, `500MB`, `1st`: a number with a word, once.
            if pairs > 1 || i < t.len() {
                return None;
            }
        }
    }
    if pairs == 0 {
        None
    } else if all_time && !unitless {
        Some(DURATION)
    } else if pairs == 1 {
        Some(NUM)
    } else {
        None
    }
}

fn is_url(t: &[u8]) -> bool {
    memchr::memmem::find(t, b"://").is_some_and(|p| p > 0 && t[..p].iter().all(u8::is_ascii_alphanumeric))
}

fn is_path(t: &[u8]) -> bool {
    match t {
        [b'/', rest @ ..] => rest.first().is_some_and(|b| *b != b'/' && !is_space(*b)),
        [b'~' | b'.', b'/', ..] | [b'.', b'.', b'/', ..] => true,
        [d, b':', b'\\', ..] => d.is_ascii_alphabetic(),
        _ => false,
    }
}

fn is_email(t: &[u8]) -> bool {
    let Some(at) = t.iter().position(|&b| b == b'@') else {
        return false;
    };
    let (user, host) = (&t[..at], &t[at + 1..]);
    !user.is_empty()
        && user
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'%' | b'+' | b'-'))
        && host.iter().any(|&b| b == b'.')
        && host
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-'))
        && host.last().is_some_and(u8::is_ascii_alphabetic)
}

/// IPv4 (`10.1.2.3`, with `:port` or `/prefix`) or IPv6 (`fe80::1`, with `::` or 7 colons).
fn is_ip(t: &[u8]) -> bool {
    is_ipv4(t) || is_ipv6(t)
}

fn is_ipv4(t: &[u8]) -> bool {
    let addr_end = t
        .iter()
        .position(|&b| b == b':' || b == b'/')
        .unwrap_or(t.len());
    let (addr, tail) = t.split_at(addr_end);
    let mut parts = 0;
    for part in addr.split(|&b| b == b'.') {
        if part.is_empty() || part.len() > 3 || !part.iter().all(u8::is_ascii_digit) {
            return false;
        }
        parts += 1;
    }
    parts == 4 && (tail.is_empty() || (tail.len() > 1 && tail[1..].iter().all(u8::is_ascii_digit)))
}

fn is_ipv6(t: &[u8]) -> bool {
    let colons = t.iter().filter(|&&b| b == b':').count();
    (colons >= 7 || (colons >= 2 && memchr::memmem::find(t, b"::").is_some()))
        && t.iter().all(|&b| b.is_ascii_hexdigit() || b == b':' || b == b'.')
}

fn is_uuid(t: &[u8]) -> bool {
    t.len() == 36
        && t.iter().enumerate().all(|(i, &b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// `0x1f`, or 8 or more hex digits with at least one letter among them
/// (all digits is a number).
fn is_hex(t: &[u8]) -> bool {
    match t {
        [b'0', b'x' | b'X', rest @ ..] => !rest.is_empty() && rest.iter().all(u8::is_ascii_hexdigit),
        _ => {
            t.len() >= 8
                && t.iter().all(u8::is_ascii_hexdigit)
                && t.iter().any(|b| b.is_ascii_alphabetic())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(message: &str) -> String {
        let mut out = String::new();
        mask_into(message, Rules::builtin_or_empty(), MAX_TOKENS, &mut out);
        out
    }

    #[test]
    fn masking_cases() {
        let cases = [
            (
                "hikari, any pool and wait",
                "HikariPool-1 - Connection is not available, request timed out after 30000ms.",
                "HikariPool-<num> - Connection is not available, request timed out after <duration>.",
            ),
            ("number", "Refreshed tenant plan cache (401 entries)", "Refreshed tenant plan cache (<num> entries)"),
            ("negative and decimal", "keyId: -127633188 took 1.5", "keyId: <num> took <num>"),
            ("seconds word", "Started ApiApplication in 6.412 seconds", "Started ApiApplication in <num> seconds"),
            ("go duration", "slept 2m3.5s", "slept <duration>"),
            ("size", "heap 500MB of 4G/4G", "heap <num> of <num>/<num>"),
            ("path", "Slow request GET /api/v1/accounts/acct-4411/test-cases took 5520 ms", "Slow request GET <path> took <num> ms"),
            ("url", "fetch https://example.com/x?y=1 failed", "fetch <url> failed"),
            ("email", "login failed for ann.lee@example.com", "login failed for <email>"),
            ("ipv4 with port", "upstream 10.42.1.11:8080 timed out", "upstream <ip> timed out"),
            ("ipv4 bracketed", "for ns.example.com [173.234.31.186] failed", "for ns.example.com [<ip>] failed"),
            ("ipv6", "from fe80::1ff:fe23:4567:890a", "from <ip>"),
            ("uuid", "run 3f2b8c1e-9a4d-4b7e-8f00-1c2d3e4f5a6b done", "run <uuid> done"),
            ("hex", "commit 4f758e5a1 at 0xdeadbeef", "commit <hex> at <hex>"),
            ("pieces", "thread http-nio-8080-exec-150 on api-7c9d8b6f5-k2xqp", "thread http-nio-<num>-exec-<num> on api-<hex>-<id>"),
            ("pid in brackets", "sshd[24200]: started", "sshd[<num>]: started"),
            ("key value", "pool stats (total=10, active=10, idle=0, waiting=31)", "pool stats (total=<num>, active=<num>, idle=<num>, waiting=<num>)"),
            ("quoted with spaces", "user \"ann smith\" not found", "user <quoted> not found"),
            ("quoted after equals", "msg=\"Removing target\" key=x", "msg=<quoted> key=x"),
            ("json-ish", "{\"user\":\"alice\",\"id\":42}", "{<quoted>:<quoted>,<quoted>:<num>}"),
            ("apostrophe in a word", "can't find child 6725 in 'scoreboard'", "can't find child <num> in <quoted>"),
            ("stray quote", "a \" b", "a \" b"),
            ("spaces collapse", "  a \t b  ", "a b"),
            ("first line only", "boom 1\n\tat com.x.Y(Y.java:12)", "boom <num>"),
            ("words stay", "Commencing graceful shutdown. Waiting for active requests to complete", "Commencing graceful shutdown. Waiting for active requests to complete"),
            ("version", "Starting ApiApplication v4.18.2 using Java 17.0.9", "Starting ApiApplication <num> using Java <num>"),
            ("empty", "", ""),
        ];
        for (name, input, want) in cases {
            assert_eq!(key(input), want, "{name}");
        }
    }

    #[test]
    fn pool_name_and_wait_vary_the_same_key() {
        let a = key("HikariPool-1 - Connection is not available, request timed out after 30000ms.");
        let b = key("HikariPool-7 - Connection is not available, request timed out after 250ms.");
        assert_eq!(a, b);
    }

    #[test]
    fn token_cap_and_count() {
        let long: String = (0..100).map(|i| format!("w{} ", i % 3)).collect();
        let mut out = String::new();
        assert_eq!(mask_into(&long, Rules::builtin_or_empty(), 8, &mut out), 8);
        assert_eq!(out.split(' ').count(), 8);
        assert_eq!(mask_into(&long, Rules::builtin_or_empty(), usize::MAX, &mut out), MAX_TOKENS);
    }

    #[test]
    fn fewer_tokens_are_a_prefix_of_more() {
        // Coarsening a key (keeping its first tokens) must equal masking with
        // fewer tokens, or keys would depend on when the miner coarsened.
        let msg = "user \"a b c\" from 10.0.0.1 at /x/y took 5ms of 7 tries";
        let full = key(msg);
        for n in 1..=10 {
            let mut out = String::new();
            mask_into(msg, Rules::builtin_or_empty(), n, &mut out);
            let want: Vec<&str> = full.split(' ').take(n).collect();
            assert_eq!(out, want.join(" "), "{n}");
        }
    }

    #[test]
    fn multibyte_text_is_cut_whole() {
        let msg = format!("{} é", "é".repeat(1500));
        let k = key(&msg);
        assert!(k.len() <= MAX_BYTES);
    }
}
