//! Paths -> routes: the query dropped and ids folded into placeholders, so
//! `/api/v1/accounts/acct-4411/runs/88121?page=3` and every other account's
//! runs become one route, `/api/v1/accounts/{id}/runs/{id}`. Folding keeps
//! route cardinality bounded whatever the traffic.

use std::borrow::Cow;

/// Fold a raw path. `id_after` names the segments whose next segment is an
/// id whatever it looks like (`accounts`, `orgs`, ...). A path that needs no
/// folding is returned as it is, without a copy.
pub fn fold<'p>(path: &'p str, id_after: &[String]) -> Cow<'p, str> {
    let mut out = String::new();
    match fold_to(path, id_after, &mut out, &mut None) {
        Folded::Kept(p) => Cow::Borrowed(p),
        Folded::Written => Cow::Owned(out),
    }
}

/// [`fold`], writing a folded route into `buf` (a buffer reused line after
/// line) instead of a new string; also what [`segment_after`] would give,
/// read in the same pass, when the pass could tell (`None`: ask it).
pub fn fold_in<'p>(
    path: &'p str,
    id_after: &[String],
    buf: &'p mut String,
) -> (Cow<'p, str>, Option<Option<&'p str>>) {
    let mut after_key = None;
    let route = match fold_to(path, id_after, buf, &mut after_key) {
        Folded::Kept(p) => Cow::Borrowed(p),
        Folded::Written => {
            let b: &'p String = buf;
            Cow::Borrowed(b.as_str())
        }
    };
    (route, after_key)
}

/// What folding did: kept (part of) the path as it was, or wrote the route.
enum Folded<'p> {
    Kept(&'p str),
    Written,
}

/// `after_key` is set to [`segment_after`]'s answer once the pass knows it.
fn fold_to<'p>(
    path: &'p str,
    id_after: &[String],
    out: &mut String,
    after_key: &mut Option<Option<&'p str>>,
) -> Folded<'p> {
    let path = strip_query(path);
    if path.is_empty() {
        return Folded::Kept("/");
    }
    if !path.starts_with('/') {
        // `*` (OPTIONS), absolute-form proxies and garbage: keep a bounded label.
        return if path.starts_with("http://") || path.starts_with("https://") {
            let rest = path.split_once("://").map_or("", |(_, r)| r);
            let p = rest.find('/').map_or("/", |i| &rest[i..]);
            // The host is a segment to `segment_after`: leave it to that.
            fold_to(p, id_after, out, &mut None)
        } else {
            Folded::Kept("{other}")
        };
    }
    // The keys' lengths as bits: most segments have no key's length, and
    // skip the compares.
    let key_lens = id_after
        .iter()
        .fold(0u64, |m, k| m | (1u64 << k.len().min(63)));
    let is_key = |seg: &str| {
        key_lens & (1u64 << seg.len().min(63)) != 0
            && id_after.iter().any(|k| k.eq_ignore_ascii_case(seg))
    };
    // Nothing is written while every segment so far is kept as it is.
    let mut writing = false;
    let mut prev_is_key = false;
    // The first key segment was the one before: this one is `segment_after`'s.
    let mut after_first_key = false;
    let mut at = 0;
    for seg in segments(path).skip(1) {
        let seg_start = at + 1;
        at = seg_start + seg.len();
        if after_first_key {
            *after_key = Some(Some(seg).filter(|s| !s.is_empty()));
            after_first_key = false;
        }
        let folded = if prev_is_key && !seg.is_empty() {
            prev_is_key = false;
            "{id}"
        } else {
            prev_is_key = is_key(seg);
            if prev_is_key && after_key.is_none() {
                after_first_key = true;
            }
            fold_segment(seg)
        };
        // `fold_segment` gives back `seg` itself when it keeps it.
        if !writing && (folded.as_ptr() != seg.as_ptr() || at > MAX_ROUTE) {
            out.clear();
            out.push_str(&path[..seg_start - 1]);
            writing = true;
        }
        if writing {
            out.push('/');
            out.push_str(folded);
            if out.len() > MAX_ROUTE {
                out.push_str("/{more}");
                break;
            }
        }
    }
    // Every segment seen: no key, or a key as the last segment.
    if after_key.is_none() && at == path.len() {
        *after_key = Some(None);
    }
    if writing {
        Folded::Written
    } else {
        Folded::Kept(path)
    }
}

/// `path.split('/')` by [`crate::scan::find_byte`]: segments are a few bytes
/// long, where `split`'s searcher costs more than the search.
fn segments(path: &str) -> impl Iterator<Item = &str> {
    let bytes = path.as_bytes();
    let mut start = 0;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let end = crate::scan::find_byte(b'/', bytes.get(start..).unwrap_or_default())
            .map_or(bytes.len(), |i| start + i);
        // Cut at ASCII '/' only, so both ends are char boundaries.
        let seg = path.get(start..end).unwrap_or("");
        done = end >= bytes.len();
        start = end + 1;
        Some(seg)
    })
}

/// Routes longer than this are cut (with `/{more}`): a bounded label.
const MAX_ROUTE: usize = 200;

fn fold_segment(seg: &str) -> &str {
    if seg.is_empty() {
        return seg;
    }
    let digits = seg.bytes().filter(u8::is_ascii_digit).count();
    if digits == 0 {
        return seg;
    }
    // API versions stay: v1, v2.3.
    if seg.len() <= 5
        && seg.starts_with('v')
        && seg[1..].bytes().all(|b| b.is_ascii_digit() || b == b'.')
    {
        return seg;
    }
    if digits == seg.len() {
        return "{id}";
    }
    if is_uuid(seg) {
        return "{uuid}";
    }
    let hex = seg.bytes().all(|b| b.is_ascii_hexdigit());
    if hex && seg.len() >= 8 {
        return "{hex}";
    }
    // Mostly digits (`INV-2026-0042`) or long mixed tokens are ids.
    if digits * 2 >= seg.len() || (seg.len() >= 16 && !seg.contains('.')) {
        return "{id}";
    }
    seg
}

fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// The path without its query string or fragment.
fn strip_query(path: &str) -> &str {
    match memchr::memchr2(b'?', b'#', path.as_bytes()) {
        Some(i) => &path[..i],
        None => path,
    }
}

/// The segment right after one of `keys` (`accounts/<tenant>`), raw.
pub fn segment_after<'a>(path: &'a str, keys: &[String]) -> Option<&'a str> {
    let path = strip_query(path);
    let mut segs = segments(path);
    while let Some(s) = segs.next() {
        if keys.iter().any(|k| k.eq_ignore_ascii_case(s)) {
            return segs.next().filter(|t| !t.is_empty());
        }
    }
    None
}

/// The value of one query parameter, raw.
pub fn query_param<'a>(path: &'a str, name: &str) -> Option<&'a str> {
    // Byte searches: `split`'s searchers cost more than these short queries.
    let q = crate::scan::find_byte(b'?', path.as_bytes())?;
    let mut rest = &path[q + 1..];
    loop {
        let end = crate::scan::find_byte(b'&', rest.as_bytes()).unwrap_or(rest.len());
        let pair = &rest[..end];
        if let Some(eq) = crate::scan::find_byte(b'=', pair.as_bytes()) {
            if pair[..eq].eq_ignore_ascii_case(name) {
                return Some(&pair[eq + 1..]).filter(|v| !v.is_empty());
            }
        }
        if end == rest.len() {
            return None;
        }
        rest = &rest[end + 1..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> Vec<String> {
        vec!["accounts".into(), "orgs".into()]
    }

    #[test]
    fn routes_fold() {
        let cases = [
            (
                "tenant and id",
                "/api/v1/accounts/acct-4411/runs/88121?page=3",
                "/api/v1/accounts/{id}/runs/{id}",
            ),
            (
                "uuid",
                "/o/3f2c9a1e-1b2c-4d5e-8f90-0a1b2c3d4e5f/x",
                "/o/{uuid}/x",
            ),
            ("hex", "/blobs/9f86d081884c", "/blobs/{hex}"),
            ("version kept", "/v2/users", "/v2/users"),
            ("empty", "", "/"),
            ("root", "/", "/"),
            (
                "static asset",
                "/static/app.3f9a1c.js",
                "/static/app.3f9a1c.js",
            ),
            ("garbage", "\\x16\\x03", "{other}"),
            ("absolute", "http://example.com/a/1", "/a/{id}"),
        ];
        let mut buf = String::from("left over");
        for (name, path, want) in cases {
            assert_eq!(fold(path, &keys()), want, "{name}");
            let (route, after) = fold_in(path, &keys(), &mut buf);
            assert_eq!(route, want, "{name} in a buffer");
            if let Some(after) = after {
                assert_eq!(
                    after,
                    segment_after(path, &keys()),
                    "{name}: the tenant segment"
                );
            }
        }
    }

    /// The tenant segment read while folding is `segment_after`'s.
    #[test]
    fn the_segment_after_a_key_is_read_while_folding() {
        let paths = [
            "/api/v1/accounts/acct-4411/runs/88121?page=3",
            "/accounts/",
            "/accounts//x",
            "/accounts",
            "/orgs/o1/accounts/a2",
            "/x/y",
            "/ACCOUNTS/Big",
        ];
        let mut buf = String::new();
        for p in paths {
            let (_, after) = fold_in(p, &keys(), &mut buf);
            assert_eq!(after, Some(segment_after(p, &keys())), "{p}");
        }
    }

    #[test]
    fn segments_split_like_split() {
        for p in ["", "/", "/a", "a/b", "/a//b/", "//", "http://h/accounts/t"] {
            let want: Vec<&str> = p.split('/').collect();
            assert_eq!(segments(p).collect::<Vec<_>>(), want, "{p:?}");
        }
    }

    #[test]
    fn tenant_segment_and_query() {
        assert_eq!(
            segment_after("/api/v1/accounts/acct-4411/runs", &keys()),
            Some("acct-4411")
        );
        assert_eq!(segment_after("/api/v1/runs", &keys()), None);
        assert_eq!(query_param("/x?a=1&api_key=k9", "API_KEY"), Some("k9"));
        assert_eq!(query_param("/x?a=", "a"), None);
        assert_eq!(query_param("/x?a&b=2&b=3", "b"), Some("2"));
        assert_eq!(query_param("/x?a=1=2", "a"), Some("1=2"));
        assert_eq!(query_param("/x", "a"), None);
        assert_eq!(query_param("/x?", "a"), None);
    }
}
