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

// Byte classes, one table lookup per byte.
const DIGIT: u8 = 1;
const AT: u8 = 2;
const COLON: u8 = 4;
const QUOTE: u8 = 8;
const SPACE: u8 = 16;

const fn class_of(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => DIGIT,
        b'@' => AT,
        b':' => COLON,
        b'"' | b'\'' | b'`' => QUOTE,
        b' ' | b'\t' | b'\r' => SPACE,
        _ => 0,
    }
}

static CLASS: [u8; 256] = table(false);

fn class(b: u8) -> u8 {
    // A `u8` always indexes a 256-entry table: the fallback never runs.
    CLASS.get(usize::from(b)).copied().unwrap_or(0)
}

// What a byte is to the word scan: part of a plain word, a separator, or
// something that may need masking (digits, `@`, `:`, quotes, brackets,
// path characters).
const WORD: u8 = 0;
const SEP: u8 = 1;
const OTHER: u8 = 2;

const fn kind_of(b: u8) -> u8 {
    match b {
        b' ' | b'\t' | b'\r' => SEP,
        b'a'..=b'z' | b'A'..=b'Z' | 0x80..=0xff => WORD,
        // Quiet punctuation: part of a word.
        b'-' | b'_' | b',' | b';' | b'!' | b'?' | b'.' | b')' | b']' | b'}' | b'>' | b'='
        | b'|' | b'+' | b'*' | b'&' | b'%' | b'#' | b'$' | b'^' => WORD,
        _ => OTHER,
    }
}

static KIND: [u8; 256] = table(true);

fn kind(b: u8) -> u8 {
    // As `class`: never misses.
    KIND.get(usize::from(b)).copied().unwrap_or(OTHER)
}

/// The table of `kind_of` (or `class_of`) for every byte, in byte order.
const fn table(kinds: bool) -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut rest: &mut [u8] = &mut t;
    let mut b = 0u8;
    while let [slot, tail @ ..] = rest {
        *slot = if kinds { kind_of(b) } else { class_of(b) };
        b = b.wrapping_add(1);
        rest = tail;
    }
    t
}

fn is_space(b: u8) -> bool {
    class(b) & SPACE != 0
}

fn is_quote(b: u8) -> bool {
    class(b) & QUOTE != 0
}

/// The classes of every byte of `t`, or'ed.
fn flags(t: &str) -> u8 {
    t.bytes().fold(0, |f, b| f | class(b))
}

/// Where a quote opens a value: at a token's start or after one of these.
fn opens_after(b: u8) -> bool {
    matches!(b, b'=' | b':' | b'(' | b'[' | b'{' | b',' | b'<')
}

/// Whether a token starting with `b` may be a path (or a bracketed one)
/// even without a digit, `@` or `:`.
fn may_mask(b: u8) -> bool {
    matches!(b, b'/' | b'~' | b'.' | b'(' | b'[' | b'{' | b'<')
}

/// Split a token into leading brackets, its core and trailing punctuation.
fn split_punct(t: &str) -> (&str, &str, &str) {
    let b = t.as_bytes();
    let l = b
        .iter()
        .take_while(|b| matches!(b, b'(' | b'[' | b'{' | b'<'))
        .count();
    let r = b
        .iter()
        .skip(l)
        .rev()
        .take_while(|b| {
            matches!(
                b,
                b')' | b']' | b'}' | b'>' | b',' | b';' | b':' | b'.' | b'!' | b'?'
            )
        })
        .count();
    // Cut at ASCII bytes: always on a character boundary.
    (&t[..l], &t[l..t.len() - r], &t[t.len() - r..])
}

/// The key of `message` into `out` (cleared first), at most `max_tokens`
/// tokens. Returns the number of tokens written.
pub(crate) fn mask_into(
    message: &str,
    rules: &Rules,
    max_tokens: usize,
    out: &mut String,
) -> usize {
    out.clear();
    let mut line = message;
    if let Some(nl) = memchr::memchr(b'\n', line.as_bytes()) {
        line = &line[..nl];
    }
    if line.len() > MAX_BYTES {
        let mut end = MAX_BYTES;
        while end > 0 && !line.is_char_boundary(end) {
            end -= 1;
        }
        line = &line[..end];
    }
    let b = line.as_bytes();
    let max = max_tokens.min(MAX_TOKENS);
    out.reserve(line.len() + 16);
    // Words are copied in runs (the text between masked tokens, when single
    // spaces separate its words), not one by one: most of a line is words.
    let mut i = b.iter().position(|&c| !is_space(c)).unwrap_or(b.len());
    let mut run = i;
    let mut last_end = i;
    let mut tokens = 0;
    while tokens < max {
        let Some(&first) = b.get(i) else {
            break;
        };
        tokens += 1;
        let start = i;
        // A word (letters and quiet punctuation only) stays in the run: one
        // table look a byte, nothing else.
        let mut j = i;
        if !may_mask(first) {
            while b.get(j).is_some_and(|&c| kind(c) == WORD) {
                j += 1;
            }
        }
        if j > i && b.get(j).is_none_or(|&c| kind(c) == SEP) {
            i = j;
        } else {
            out.push_str(&line[run..start]);
            i = token(line, start, rules, out);
            run = i;
        }
        last_end = i;
        let sep = i;
        while b.get(i).is_some_and(|&c| is_space(c)) {
            i += 1;
        }
        if i < b.len() && tokens < max && (i - sep != 1 || b.get(sep) != Some(&b' ')) {
            // Spaces other than one: the key has one.
            out.push_str(&line[run..sep]);
            out.push(' ');
            run = i;
        }
    }
    if last_end > run {
        out.push_str(&line[run..last_end]);
    }
    tokens
}

/// Mask the token at `start` (not a plain word); returns its end.
fn token(line: &str, start: usize, rules: &Rules, out: &mut String) -> usize {
    let b = line.as_bytes();
    if b.get(start) == Some(&b'/') {
        // A path runs to the next space, whatever it holds: no need to
        // look at each byte.
        let end = find_sep(b, start);
        plain(&line[start..end], 0, rules, out);
        return end;
    }
    let mut f = 0;
    let mut digits = true;
    let mut end = start;
    while let Some(&byte) = b.get(end) {
        let c = class(byte);
        if c & SPACE != 0 {
            break;
        }
        f |= c;
        digits &= c == DIGIT;
        end += 1;
    }
    if digits {
        // Only digits (`173`): a number, no need to ask what else it could be.
        out.push_str(NUM);
        return end;
    }
    if f & QUOTE != 0 {
        quoted_token(line, start, rules, out)
    } else {
        plain(&line[start..end], f, rules, out);
        end
    }
}

/// The first space, tab or carriage return in `b` from `from` (or its
/// end), eight bytes at a time: paths are long, and a vector search costs
/// more to set up than a path to scan.
fn find_sep(b: &[u8], from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    // `rest` is always `b` from `at` on (`from` is a token's start, inside `b`).
    let mut at = from;
    let mut rest = b.get(from..).unwrap_or_default();
    while let Some((w, tail)) = rest.split_first_chunk::<8>() {
        let x = u64::from_le_bytes(*w);
        let found = zero(x ^ (ONES * 0x20)) | zero(x ^ (ONES * 0x09)) | zero(x ^ (ONES * 0x0d));
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
        rest = tail;
    }
    rest.iter()
        .position(|&c| is_space(c))
        .map_or(b.len(), |e| at + e)
}

/// Mask a token holding a quote, which may open a value that runs past
/// spaces; returns where the next token may start.
fn quoted_token(line: &str, start: usize, rules: &Rules, out: &mut String) -> usize {
    let b = line.as_bytes();
    let mut s = start;
    loop {
        // `s` is a token's start or just past a closing quote: inside `b`
        // or at its end.
        let end = b
            .get(s..)
            .unwrap_or_default()
            .iter()
            .position(|&c| is_space(c))
            .map_or(b.len(), |e| s + e);
        let tok = b.get(s..end).unwrap_or_default();
        let quote = tok
            .iter()
            .enumerate()
            .position(|(k, &c)| {
                is_quote(c) && (k == 0 || tok.get(k - 1).is_some_and(|&p| opens_after(p)))
            })
            .map(|k| s + k);
        let Some(q) = quote else {
            plain(&line[s..end], flags(&line[s..end]), rules, out);
            return end;
        };
        match closing(b, q) {
            Some(c) => {
                plain(&line[s..q], flags(&line[s..q]), rules, out);
                out.push_str(QUOTED);
                s = c + 1;
                if b.get(s).is_none_or(|&c| is_space(c)) {
                    return s;
                }
            }
            None => {
                plain(&line[s..end], flags(&line[s..end]), rules, out);
                return end;
            }
        }
    }
}

/// The closing quote of the one opening at `q`, if there is one near.
fn closing(line: &[u8], q: usize) -> Option<usize> {
    let quote = *line.get(q)?;
    let near = line
        .get(..line.len().min(q + 1 + MAX_QUOTED))
        .unwrap_or(line);
    let mut j = q + 1;
    while let Some(&b) = near.get(j) {
        if b == b'\\' {
            j += 2;
            continue;
        }
        if b == quote {
            // An apostrophe closes only where a word ends (`can't` does not).
            let next = line.get(j + 1).copied();
            if quote != b'\'' || next.is_none_or(|n| is_space(n) || n.is_ascii_punctuation()) {
                return Some(j);
            }
        }
        j += 1;
    }
    None
}

/// Mask a token without quotes; `f` has the classes of its bytes (for a
/// token starting with `/`, none: it is a path or nothing).
fn plain(t: &str, f: u8, rules: &Rules, out: &mut String) {
    let Some(&first) = t.as_bytes().first() else {
        return;
    };
    // Most tokens are words: no digit, no `@`, no `:`, nothing path-like in front.
    if f & (DIGIT | AT | COLON) == 0 && !may_mask(first) {
        out.push_str(t);
        return;
    }
    let (l, core, r) = split_punct(t);
    if core.is_empty() {
        out.push_str(t);
        return;
    }
    let c = core.as_bytes();
    if is_path(c) {
        push_masked(out, l, PATH, r);
        return;
    }
    // `f` covers the whole token unless it starts with `/` (then look);
    // the punctuation cut off holds no digit.
    let digit = if first == b'/' {
        c.iter().any(u8::is_ascii_digit)
    } else {
        f & DIGIT != 0
    };
    let whole = if f & COLON != 0 && is_url(c) {
        Some(URL)
    } else if f & AT != 0 && is_email(c) {
        Some(EMAIL)
    } else if !digit {
        None
    } else if is_ip(c) {
        Some(IP)
    } else if is_uuid(c) {
        Some(UUID)
    } else if is_hex(c) {
        Some(HEX)
    } else {
        number(c, rules)
    };
    match whole {
        Some(p) => push_masked(out, l, p, r),
        None if !digit => out.push_str(t),
        None => {
            out.push_str(l);
            pieces(core, rules, out);
            out.push_str(r);
        }
    }
}

/// A placeholder between the punctuation around it; most tokens have none,
/// and an empty copy still costs a call.
fn push_masked(out: &mut String, l: &str, placeholder: &str, r: &str) {
    if !l.is_empty() {
        out.push_str(l);
    }
    out.push_str(placeholder);
    if !r.is_empty() {
        out.push_str(r);
    }
}

/// Each digit-bearing piece between delimiters masked, the rest kept.
fn pieces(core: &str, rules: &Rules, out: &mut String) {
    let delim = |b: u8| {
        matches!(
            b,
            b'-' | b'_'
                | b'.'
                | b':'
                | b'='
                | b'/'
                | b'#'
                | b','
                | b'@'
                | b'|'
                | b'+'
                | b'['
                | b']'
                | b'('
                | b')'
        )
    };
    let b = core.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if delim(c) {
            out.push_str(&core[i..=i]);
            i += 1;
            continue;
        }
        let rest = b.get(i..).unwrap_or_default();
        let piece = rest.split(|&c| delim(c)).next().unwrap_or_default();
        let end = i + piece.len();
        if piece.iter().any(u8::is_ascii_digit) {
            let p = number(piece, rules)
                .or_else(|| is_hex(piece).then_some(HEX))
                .unwrap_or(ID);
            out.push_str(p);
        } else {
            out.push_str(&core[i..end]);
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
        while t
            .get(i)
            .is_some_and(|&c| c.is_ascii_digit() || (matches!(c, b'.' | b',') && i > start))
        {
            i += 1;
        }
        if i == start || !t.get(i - 1).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        let u = i;
        while t
            .get(i)
            .is_some_and(|&c| c.is_ascii_alphabetic() || c >= 0x80)
        {
            i += 1;
        }
        let unit = t.get(u..i).unwrap_or_default();
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
    let Some((scheme, rest)) = t
        .iter()
        .position(|&b| b == b':')
        .and_then(|p| t.split_at_checked(p))
    else {
        return false;
    };
    !scheme.is_empty() && rest.starts_with(b"://") && scheme.iter().all(u8::is_ascii_alphanumeric)
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
    let mut halves = t.splitn(2, |&b| b == b'@');
    let (Some(user), Some(host)) = (halves.next(), halves.next()) else {
        return false;
    };
    !user.is_empty()
        && user
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'%' | b'+' | b'-'))
        && host.contains(&b'.')
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
    parts == 4
        && match tail {
            [] => true,
            [_, port @ ..] => !port.is_empty() && port.iter().all(u8::is_ascii_digit),
        }
}

fn is_ipv6(t: &[u8]) -> bool {
    let colons = t.iter().filter(|&&b| b == b':').count();
    (colons >= 7 || (colons >= 2 && t.windows(2).any(|w| w == b"::")))
        && t.iter()
            .all(|&b| b.is_ascii_hexdigit() || b == b':' || b == b'.')
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
        [b'0', b'x' | b'X', rest @ ..] => {
            !rest.is_empty() && rest.iter().all(u8::is_ascii_hexdigit)
        }
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
        assert_eq!(
            mask_into(&long, Rules::builtin_or_empty(), usize::MAX, &mut out),
            MAX_TOKENS
        );
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

    /// Token by token through the general path: what the word runs of
    /// `mask_into` must reproduce.
    fn reference(message: &str, max: usize) -> String {
        let line = message.split('\n').next().unwrap_or("");
        let b = line.as_bytes();
        let (mut out, mut i, mut tokens) = (String::new(), 0, 0);
        loop {
            while i < b.len() && is_space(b[i]) {
                i += 1;
            }
            if i >= b.len() || tokens == max {
                return out;
            }
            if tokens > 0 {
                out.push(' ');
            }
            tokens += 1;
            i = token(line, i, Rules::builtin_or_empty(), &mut out);
        }
    }

    #[test]
    fn word_runs_give_what_token_by_token_gives() {
        let parts = [
            "word",
            "Word.",
            "a-b_c",
            "x,",
            "12",
            "30000ms.",
            "/a/b",
            "(x)",
            "[1]",
            "a  b",
            "\t",
            "\"q q\"",
            "'s'",
            "can't",
            "k=v",
            "k=\"v w\"",
            "u@x.io",
            "10.0.0.1:80",
            "é",
            "::",
            " ",
            "  ",
            "~/x",
            "./y",
            "<z>",
            "0xff",
            "{\"a\":1}",
            "v1.2",
            "end.",
            "a1",
            "1a",
            "(",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..5000 {
            let n = (next() % 12) as usize;
            let mut msg = String::new();
            for _ in 0..n {
                msg.push_str(parts[(next() % parts.len() as u64) as usize]);
                if next() % 3 > 0 {
                    msg.push(' ');
                }
            }
            let max = if case % 5 == 0 { 3 } else { MAX_TOKENS };
            let mut out = String::new();
            mask_into(&msg, Rules::builtin_or_empty(), max, &mut out);
            assert_eq!(out, reference(&msg, max), "{msg:?}");
        }
    }

    #[test]
    fn separators_are_found_at_every_offset() {
        for len in 0..40 {
            for at in 0..=len {
                for sep in [b' ', b'\t', b'\r'] {
                    let mut hay = vec![b'x'; len];
                    if at < len {
                        hay[at] = sep;
                    }
                    // Bytes above 0x80 do not confuse the word trick.
                    if at > 0 {
                        hay[at - 1] = 0xa0;
                    }
                    assert_eq!(find_sep(&hay, 0), at.min(len), "len {len} at {at}");
                }
            }
        }
        assert_eq!(find_sep(b"ab cd", 3), 5);
    }

    #[test]
    fn multibyte_text_is_cut_whole() {
        let msg = format!("{} é", "é".repeat(1500));
        let k = key(&msg);
        assert!(k.len() <= MAX_BYTES);
    }
}
