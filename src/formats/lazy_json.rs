//! JSON records read lazily: the fast path for JSON-lines logs.
//!
//! A log line is an object of a handful of keys, of which a definition reads
//! a few. Building a `serde_json::Value` allocates every key and every string
//! of the line; a [`LazyRecord`] keeps the top-level keys and their raw value
//! text borrowed from the line, and turns into text only what a definition
//! asks for. Nested paths (`host.hostname`) read the nested object the same
//! way when asked. The answers are those of [`super::lookup`] on the parsed
//! `Value`: a key written literally wins over a path, numbers read as
//! serde_json writes them.
//!
//! In: one line holding a JSON object. Out: a [`LazyRecord`], or `None` when
//! the line is not one (the caller then parses it the full way).

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

use super::compile::KeySet;

/// A JSON object's top-level keys and raw values, borrowed from its text.
#[derive(Debug)]
pub struct LazyRecord<'a> {
    entries: Vec<(&'a str, &'a RawValue)>,
    keys: KeySet,
}

struct EntriesVisitor;

impl<'de> Visitor<'de> for EntriesVisitor {
    type Value = Vec<(&'de str, &'de RawValue)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(12));
        // A key with escapes cannot be borrowed: the whole record is then
        // read the full way.
        while let Some(k) = map.next_key::<&'de str>()? {
            let v = map.next_value::<&'de RawValue>()?;
            entries.push((k, v));
        }
        Ok(entries)
    }
}

impl<'a> LazyRecord<'a> {
    /// Read a line holding one JSON object; `None` if it is not one, or
    /// holds what only the full parse reads (escaped keys, duplicate keys).
    pub fn parse(text: &'a str) -> Option<LazyRecord<'a>> {
        let mut de = serde_json::Deserializer::from_str(text);
        let entries = (&mut de).deserialize_map(EntriesVisitor).ok()?;
        de.end().ok()?;
        // Duplicate keys: `Value` keeps the last one; keep it simple and
        // leave such records to the full parse.
        let mut keys = 0u64;
        let mut possible_dup = false;
        for (k, _) in &entries {
            let bit = KeySet::bit_of(k);
            possible_dup |= keys & bit != 0;
            keys |= bit;
        }
        if possible_dup && has_duplicate(&entries) {
            return None;
        }
        Some(LazyRecord {
            entries,
            keys: KeySet::from_bits(keys),
        })
    }

    fn top(&self, key: &str) -> Option<&'a RawValue> {
        self.entries
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }

    /// The raw value at `key`: the key itself, else a dotted path through
    /// nested objects (arrays are walked by index), as [`super::lookup`].
    pub fn raw(&self, key: &str) -> Option<Cow<'a, RawValue>> {
        if !self.keys.may_hold(key) {
            return None;
        }
        if let Some(v) = self.top(key) {
            return Some(Cow::Borrowed(v));
        }
        let dot = key.bytes().position(|b| b == b'.')?;
        let (first, rest) = (&key[..dot], &key[dot + 1..]);
        let v = self.top(first)?;
        // The rest of the path, through the nested values (rarely asked:
        // parsed into a `Value` then), part by part as `lookup` walks it.
        let nested: Value = serde_json::from_str(v.get()).ok()?;
        let mut cur = &nested;
        for part in rest.split('.') {
            cur = match cur {
                Value::Array(items) => items.get(part.parse::<usize>().ok()?)?,
                _ => cur.get(part)?,
            };
        }
        serde_json::value::to_raw_value(cur).ok().map(Cow::Owned)
    }

    /// The text of a scalar at `key` (strings, numbers, and booleans when
    /// `bools`), as `scalar_text` gives it for a parsed `Value`.
    pub fn text(&self, key: &str, bools: bool) -> Option<Cow<'a, str>> {
        match self.raw(key)? {
            Cow::Borrowed(v) => scalar(v, bools),
            Cow::Owned(v) => scalar(&v, bools).map(|t| Cow::Owned(t.into_owned())),
        }
    }

    /// Whether `key` is there (with any value, `null` too).
    pub fn has(&self, key: &str) -> bool {
        self.raw(key).is_some()
    }
}

fn has_duplicate(entries: &[(&str, &RawValue)]) -> bool {
    let mut keys: Vec<&str> = entries.iter().map(|(k, _)| *k).collect();
    keys.sort_unstable();
    keys.windows(2).any(|w| matches!(w, [a, b] if a == b))
}

/// A raw scalar's text: a string unescaped (borrowed when it has no escapes),
/// a number as serde_json writes it, a boolean when asked for.
fn scalar<'v>(v: &'v RawValue, bools: bool) -> Option<Cow<'v, str>> {
    let text = v.get();
    match text.as_bytes().first()? {
        b'"' => match serde_json::from_str::<&'v str>(text) {
            Ok(s) => Some(Cow::Borrowed(s)),
            Err(_) => serde_json::from_str::<String>(text).ok().map(Cow::Owned),
        },
        b'-' | b'0'..=b'9' => serde_json::from_str::<serde_json::Number>(text)
            .ok()
            .map(|n| Cow::Owned(n.to_string())),
        b't' | b'f' if bools => Some(Cow::Borrowed(if text == "true" { "true" } else { "false" })),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::compile::lookup;

    fn value_text(v: &Value, bools: bool) -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) if bools => Some(b.to_string()),
            _ => None,
        }
    }

    /// Whatever is asked, the lazy record answers as the parsed `Value` does.
    #[test]
    fn answers_as_the_parsed_value_does() {
        let line = r#"{"@timestamp":"2026-10-01T07:00:00.705Z","log.level":"INFO","msg":"a \"quoted\" \u00e9 word","n":1.50,"neg":-3,"ok":true,"nil":null,"host":{"name":"api-5","ids":[7,{"x":"y"}]},"log":{"level":"warn"}}"#;
        let lazy = LazyRecord::parse(line).expect("an object");
        let full: Value = serde_json::from_str(line).expect("json");
        let keys = [
            "@timestamp",
            "log.level",
            "msg",
            "n",
            "neg",
            "ok",
            "nil",
            "host",
            "host.name",
            "host.ids.1.x",
            "host.ids.0",
            "absent",
            "host.absent",
            "log",
        ];
        for key in keys {
            for bools in [false, true] {
                let want = lookup(&full, key).and_then(|v| value_text(v, bools));
                assert_eq!(
                    lazy.text(key, bools).map(Cow::into_owned),
                    want,
                    "{key} (bools: {bools})"
                );
            }
            assert_eq!(
                lazy.has(key),
                lookup(&full, key).is_some(),
                "{key} is there"
            );
        }
    }

    #[test]
    fn what_it_does_not_read_is_left_to_the_full_parse() {
        for line in [
            r#"{"a\u0062":1}"#,
            r#"{"a":1,"a":2}"#,
            r#"[1,2]"#,
            r#"{"a":1} trailing"#,
            r#"{"a":"#,
        ] {
            assert!(LazyRecord::parse(line).is_none(), "{line}");
        }
    }
}
