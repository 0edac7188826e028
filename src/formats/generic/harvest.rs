//! Structure inside a free-text message: `key=value` pairs (quoted values
//! too) and a JSON object that ends the message (zap's and Monolog's
//! context), read into labels so that a level, a host or a pod written
//! there is found.
//!
//! In: a message. Out: its pairs, each a slice of the message where it can
//! be, and the message without a trailing JSON object.
//!
//! ```text
//! request failed host=api-2 status=503 msg="upstream timed out"   -> host=api-2, status=503, msg=upstream timed out
//! Exporting failed.  {"error": "not retryable", "pod": "otel-0"}  -> "Exporting failed.", error=not retryable, pod=otel-0
//! ```

use serde_json::Value;
use std::borrow::Cow;

/// Pairs read from one message at most: a line is not a database.
const MAX_PAIRS: usize = 32;

/// One harvested pair.
pub type Pair<'a> = (Cow<'a, str>, Cow<'a, str>);

/// `key=value` pairs in `text`, in order: a key is a word of letters,
/// digits, `_`, `.` and `-` that starts a token; a value runs to the next
/// space, comma or closing bracket, or is quoted with `"` (backslash
/// escapes kept as written).
pub fn key_values<'a>(text: &'a str, out: &mut Vec<Pair<'a>>) {
    let b = text.as_bytes();
    let mut i = 0;
    while out.len() < MAX_PAIRS {
        let Some(&c) = b.get(i) else {
            break;
        };
        // The start of a token.
        let starts =
            i == 0 || matches!(b.get(i - 1), Some(b' ' | b'\t' | b'[' | b'(' | b',' | b'{'));
        if !(starts && (c.is_ascii_alphabetic() || c == b'_')) {
            i += 1;
            continue;
        }
        let key_start = i;
        while b
            .get(i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
        {
            i += 1;
        }
        if b.get(i) != Some(&b'=') || b.get(i + 1) == Some(&b'=') {
            continue;
        }
        let key = &text[key_start..i];
        i += 1;
        let (value, next) = if b.get(i) == Some(&b'"') {
            let start = i + 1;
            let mut j = start;
            while let Some(&c) = b.get(j) {
                if c == b'"' {
                    break;
                }
                j += if c == b'\\' { 2 } else { 1 };
            }
            (&text[start..j.min(b.len())], j + 1)
        } else {
            let start = i;
            let mut j = start;
            while b
                .get(j)
                .is_some_and(|c| !matches!(c, b' ' | b'\t' | b',' | b']' | b')' | b'}'))
            {
                j += 1;
            }
            (&text[start..j], j)
        };
        if value.is_empty() {
            i = next;
            continue;
        }
        out.push((Cow::Borrowed(key), Cow::Borrowed(value)));
        i = next;
    }
}

/// A JSON object that ends `text`: the text before it, and the object's
/// scalar members (nested objects and arrays are left out). Tried from the
/// first `{` on, so a message that is all JSON is found too.
pub fn trailing_json(text: &str) -> Option<(&str, Vec<Pair<'static>>)> {
    let trimmed = text.trim_end();
    if !trimmed.ends_with('}') {
        return None;
    }
    // Monolog ends its context with `[]` (the extra): it is stripped first by the caller.
    let mut from = 0;
    // A few tries: braces in the words before the object are rare.
    for _ in 0..4 {
        let Some(rel) = trimmed[from..].find('{') else {
            break;
        };
        let at = from + rel;
        if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&trimmed[at..]) {
            let pairs = map
                .into_iter()
                .filter_map(|(k, v)| scalar(v).map(|v| (Cow::Owned(k), Cow::Owned(v))))
                .take(MAX_PAIRS)
                .collect();
            return Some((trimmed[..at].trim_end(), pairs));
        }
        from = at + 1;
    }
    None
}

fn scalar(v: Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(text: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        key_values(text, &mut out);
        out.into_iter()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect()
    }

    #[test]
    fn key_value_pairs() {
        // (name, text, pairs)
        type Case<'c> = (&'c str, &'c str, &'c [(&'c str, &'c str)]);
        let cases: [Case; 6] = [
            (
                "bare",
                "done host=api-2 took=3ms",
                &[("host", "api-2"), ("took", "3ms")],
            ),
            (
                "quoted",
                r#"msg="pool \"a\" exhausted" level=error"#,
                &[("msg", r#"pool \"a\" exhausted"#), ("level", "error")],
            ),
            (
                "in brackets",
                "[pod=api-7f, ns=prod] x",
                &[("pod", "api-7f"), ("ns", "prod")],
            ),
            ("not a pair", "a == b, x= y", &[]),
            (
                "inside a word",
                "url=http://h/?a=1",
                &[("url", "http://h/?a=1")],
            ),
            ("none", "plain words only", &[]),
        ];
        for (name, text, want) in cases {
            let want: Vec<(String, String)> = want
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            assert_eq!(pairs(text), want, "{name}");
        }
    }

    #[test]
    fn a_trailing_json_object_is_context() {
        let (msg, pairs) =
            trailing_json(r#"Exporting failed.	{"error": "x", "n": 3, "nested": {"a": 1}}"#)
                .expect("json");
        assert_eq!(msg, "Exporting failed.");
        let got: Vec<(String, String)> = pairs
            .into_iter()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        assert_eq!(
            got,
            [
                ("error".to_string(), "x".to_string()),
                ("n".to_string(), "3".to_string())
            ]
        );
        // All JSON: nothing before it.
        assert_eq!(trailing_json(r#"{"msg": "hi"}"#).map(|(m, _)| m), Some(""));
        // Braces that are not JSON.
        assert!(trailing_json("template {name} failed {x}").is_none());
        assert!(trailing_json("no braces").is_none());
    }
}
