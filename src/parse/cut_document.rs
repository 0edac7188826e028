//! A JSON document cut short (a download that stopped, `kubectl get -o
//! json > file` killed): the records before the cut are read.
//!
//! A whole document is parsed at once, so a cut one fails whole. Its
//! records sit in an array, at the top or under the definition's envelope
//! key (`items`): this walks the text value by value up to that array and
//! then element by element, keeping each element that ends before the cut.
//!
//! In: the text of the cut document (from its first byte to the end of the
//! input) and the envelope key. Out: the whole records, borrowed from the
//! text, and the byte offset where the unfinished one starts.

use serde_json::value::RawValue;

/// The whole records of a cut document and where the first unfinished one
/// starts (the end of the text when no record was cut).
pub(crate) fn records<'t>(text: &'t str, envelope: Option<&str>) -> (Vec<&'t RawValue>, usize) {
    let mut at = skip_ws(text, 0);
    match (text.as_bytes().get(at), envelope) {
        (Some(b'['), _) => elements(text, at + 1),
        (Some(b'{'), Some(key)) => match array_under(text, at + 1, key) {
            Some(start) => elements(text, start),
            None => (Vec::new(), at),
        },
        _ => {
            at = text.len().min(at);
            (Vec::new(), at)
        }
    }
}

fn skip_ws(text: &str, mut at: usize) -> usize {
    while text
        .as_bytes()
        .get(at)
        .is_some_and(|b| b.is_ascii_whitespace())
    {
        at += 1;
    }
    at
}

/// One JSON value at `at`: the value and the offset after it.
fn value_at<'t, T: serde::Deserialize<'t>>(text: &'t str, at: usize) -> Option<(T, usize)> {
    let rest = text.get(at..)?;
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<T>();
    let v = stream.next()?.ok()?;
    Some((v, at + stream.byte_offset()))
}

/// Inside an object (after its `{`): the offset after the `[` that opens
/// the array under `key`, reading past the members before it.
fn array_under(text: &str, mut at: usize, key: &str) -> Option<usize> {
    loop {
        at = skip_ws(text, at);
        let (k, after) = value_at::<std::borrow::Cow<'_, str>>(text, at)?;
        at = skip_ws(text, after);
        if text.as_bytes().get(at) != Some(&b':') {
            return None;
        }
        at = skip_ws(text, at + 1);
        if k == key {
            return (text.as_bytes().get(at) == Some(&b'[')).then_some(at + 1);
        }
        let (_, after) = value_at::<&RawValue>(text, at)?;
        at = skip_ws(text, after);
        if text.as_bytes().get(at) != Some(&b',') {
            return None;
        }
        at += 1;
    }
}

/// The elements of an array from `at` (after its `[`) that end before the
/// cut, and where the first that does not starts.
fn elements(text: &str, mut at: usize) -> (Vec<&RawValue>, usize) {
    let mut out = Vec::new();
    loop {
        at = skip_ws(text, at);
        match text.as_bytes().get(at) {
            None | Some(b']') => return (out, at),
            _ => {}
        }
        let Some((v, after)) = value_at::<&RawValue>(text, at) else {
            return (out, at);
        };
        out.push(v);
        at = skip_ws(text, after);
        if text.as_bytes().get(at) == Some(&b',') {
            at += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_records_before_the_cut_are_kept() {
        // (name, text, envelope, records kept, where the cut record starts)
        let cases: [(&str, &str, Option<&str>, usize, &str); 6] = [
            (
                "items",
                r#"{"kind":"List","items":[{"a":1},{"a":2},{"a":"#,
                Some("items"),
                2,
                r#"{"a":"#,
            ),
            (
                "items after a nested member",
                r#"{"m":{"x":[1,2]},"items":[{"a":1}, {"#,
                Some("items"),
                1,
                "{",
            ),
            (
                "top array",
                "[\n {\"a\":1},\n {\"a\":2}\n, {\"b\":[1,",
                None,
                2,
                "{\"b\":[1,",
            ),
            (
                "cut before the array",
                r#"{"kind":"Li"#,
                Some("items"),
                0,
                "",
            ),
            ("a single object", r#"{"a":1,"b""#, None, 0, ""),
            (
                "an escaped quote at the cut",
                r#"[{"m":"say \"hi\""},{"m":"a \"q"#,
                None,
                1,
                r#"{"m":"a \"q"#,
            ),
        ];
        for (name, text, env, kept, rest) in cases {
            let (got, at) = records(text, env);
            assert_eq!(got.len(), kept, "{name}");
            if !rest.is_empty() {
                assert_eq!(&text[at..], rest, "{name}");
            }
        }
    }
}
