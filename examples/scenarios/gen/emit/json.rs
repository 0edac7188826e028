//! A JSON value that keeps its keys in the order a writer puts them, and the serialisers of
//! the programs whose output we imitate.
//!
//! In: a [`J`] tree built by a writer; out: its text exactly as Go's `encoding/json`, Python's
//! `json.dumps`, JavaScript's `JSON.stringify`, aws-cli or kubectl would print it (key order,
//! separators, indentation, which characters are escaped). `serde_json::Map` is not used for
//! output because whether it keeps insertion order depends on a feature another crate may turn on.

/// A JSON value with ordered object keys. Numbers are kept as the text the imitated program
/// would print (`1.0` in Python, `1` in Go), so each writer decides their form.
#[derive(Clone, Debug, PartialEq)]
pub enum J {
    Null,
    Bool(bool),
    /// A number, already formatted.
    Num(String),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl J {
    pub fn s(v: impl Into<String>) -> J {
        J::Str(v.into())
    }
    pub fn n(v: impl std::fmt::Display) -> J {
        J::Num(v.to_string())
    }
    /// An object from `(key, value)` pairs, in that order.
    pub fn obj<K: Into<String>>(pairs: Vec<(K, J)>) -> J {
        J::Obj(pairs.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }
    /// The same object with its keys sorted (Go marshalling a map, gcloud's JSON output).
    pub fn sorted(self) -> J {
        match self {
            J::Obj(mut kv) => {
                kv.sort_by(|a, b| a.0.cmp(&b.0));
                J::Obj(kv.into_iter().map(|(k, v)| (k, v.sorted())).collect())
            }
            J::Arr(xs) => J::Arr(xs.into_iter().map(J::sorted).collect()),
            other => other,
        }
    }
}

/// Which characters a serialiser escapes beyond `"`, `\` and control characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Esc {
    /// JavaScript, Rust, Java (Jackson), zap: nothing more.
    Plain,
    /// Go `encoding/json`: `<`, `>`, `&`, U+2028 and U+2029 as `\u003c` ... (HTML-safe).
    Go,
    /// Python `json.dumps` with `ensure_ascii=True`: every non-ASCII character as `\uXXXX`.
    Ascii,
}

/// How a program prints JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    pub esc: Esc,
    /// Separator after a key (`:` or `": "` in Python's default and in indented output).
    pub colon: &'static str,
    /// Separator between items on one line (`,` or Python's `", "`).
    pub comma: &'static str,
    /// Spaces per level when pretty-printing; `None` for one line.
    pub indent: Option<usize>,
}

/// JavaScript `JSON.stringify`, Jackson, serde: compact.
pub const COMPACT: Style = Style {
    esc: Esc::Plain,
    colon: ":",
    comma: ",",
    indent: None,
};
/// Go `json.Marshal`.
pub const GO: Style = Style {
    esc: Esc::Go,
    colon: ":",
    comma: ",",
    indent: None,
};
/// Python `json.dumps(obj)` defaults.
pub const PY: Style = Style {
    esc: Esc::Ascii,
    colon: ": ",
    comma: ", ",
    indent: None,
};
/// aws-cli `--output json` (Python, `indent=4`, `ensure_ascii=False`).
pub const AWS: Style = Style {
    esc: Esc::Plain,
    colon: ": ",
    comma: ",",
    indent: Some(4),
};
/// kubectl `-o json` (Go `MarshalIndent` with four spaces).
pub const KUBECTL: Style = Style {
    esc: Esc::Go,
    colon: ": ",
    comma: ",",
    indent: Some(4),
};
/// GitHub's REST API body and gcloud: two-space indent, no HTML escaping.
pub const PRETTY2: Style = Style {
    esc: Esc::Plain,
    colon: ": ",
    comma: ",",
    indent: Some(2),
};

/// `v` as `style` prints it.
pub fn to_string(v: &J, style: &Style) -> String {
    to_string_at(v, style, 0)
}

/// `v` printed as an element `depth` levels deep in a pretty-printed document (its own
/// first line not indented), so big arrays can be printed one element at a time.
pub fn to_string_at(v: &J, style: &Style, depth: usize) -> String {
    let mut out = String::new();
    write(&mut out, v, style, depth);
    out
}

fn write(out: &mut String, v: &J, st: &Style, depth: usize) {
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Num(n) => out.push_str(n),
        J::Str(s) => quote_into(out, s, st.esc),
        J::Arr(xs) => seq(out, st, depth, '[', ']', xs.iter().map(|x| (None, x))),
        J::Obj(kv) => seq(
            out,
            st,
            depth,
            '{',
            '}',
            kv.iter().map(|(k, x)| (Some(k.as_str()), x)),
        ),
    }
}

fn seq<'a>(
    out: &mut String,
    st: &Style,
    depth: usize,
    open: char,
    close: char,
    items: impl ExactSizeIterator<Item = (Option<&'a str>, &'a J)>,
) {
    out.push(open);
    if items.len() == 0 {
        out.push(close);
        return;
    }
    let n = items.len();
    for (i, (k, x)) in items.enumerate() {
        if let Some(w) = st.indent {
            out.push('\n');
            out.push_str(&" ".repeat(w * (depth + 1)));
        }
        if let Some(k) = k {
            quote_into(out, k, st.esc);
            out.push_str(st.colon);
        }
        write(out, x, st, depth + 1);
        if i + 1 < n {
            out.push_str(if st.indent.is_some() { "," } else { st.comma });
        }
    }
    if let Some(w) = st.indent {
        out.push('\n');
        out.push_str(&" ".repeat(w * depth));
    }
    out.push(close);
}

/// `s` as a JSON string literal under the escaping rules `esc`.
pub fn quote(s: &str, esc: Esc) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    quote_into(&mut out, s, esc);
    out
}

fn quote_into(out: &mut String, s: &str, esc: Esc) {
    // Most strings need no escape at all: copy them whole.
    let plain = s.bytes().all(|b| {
        b >= 0x20
            && b != b'"'
            && b != b'\\'
            && match esc {
                Esc::Plain => true,
                Esc::Go => b != b'<' && b != b'>' && b != b'&' && b != 0xE2,
                Esc::Ascii => b < 0x80,
            }
    });
    if plain {
        out.push('"');
        out.push_str(s);
        out.push('"');
        return;
    }
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' if esc == Esc::Go => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c if esc == Esc::Ascii && !c.is_ascii() => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{:04x}", unit));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A float as Python's `repr` prints it (`94.3`, `1.0`, `1e-05`): Rust's shortest
/// round-trip digits, with `.0` on integral values and Python's exponent thresholds.
pub fn py_float(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let a = x.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        // Python: 1e-05, 1.5e+16.
        let s = format!("{x:e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let e: i32 = e.parse().unwrap_or(0);
        let sign = if e < 0 { '-' } else { '+' };
        return format!("{m}e{sign}{:02}", e.abs());
    }
    let s = format!("{x}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

/// A float as Go's `strconv.FormatFloat(x, 'f', -1, 64)` prints it (no exponent, no `.0`).
pub fn go_float(x: f64) -> String {
    format!("{x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_print_like_their_programs() {
        let v = J::obj(vec![
            ("b", J::s("x<y & \"z\"\n")),
            ("a", J::Arr(vec![J::n(1), J::Null])),
            ("é", J::Obj(vec![])),
        ]);
        let cases = [
            (COMPACT, r#"{"b":"x<y & \"z\"\n","a":[1,null],"é":{}}"#),
            (GO, r#"{"b":"x\u003cy \u0026 \"z\"\n","a":[1,null],"é":{}}"#),
            (
                PY,
                r#"{"b": "x<y & \"z\"\n", "a": [1, null], "\u00e9": {}}"#,
            ),
        ];
        for (st, want) in cases {
            assert_eq!(to_string(&v, &st), want);
        }
        let pretty = to_string(&v, &KUBECTL);
        assert_eq!(
            pretty,
            "{\n    \"b\": \"x\\u003cy \\u0026 \\\"z\\\"\\n\",\n    \"a\": [\n        1,\n        null\n    ],\n    \"é\": {}\n}"
        );
        assert_eq!(to_string(&v.sorted(), &COMPACT).find("\"a\""), Some(1));
    }

    #[test]
    fn floats_print_like_python_and_go() {
        let cases = [
            (1.0, "1.0", "1"),
            (94.3, "94.3", "94.3"),
            (0.00001, "1e-05", "0.00001"),
            (1623846300000.0, "1623846300000.0", "1623846300000"),
        ];
        for (x, py, go) in cases {
            assert_eq!(py_float(x), py, "{x}");
            assert_eq!(go_float(x), go, "{x}");
        }
    }
}
