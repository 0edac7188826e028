//! Envelopes that are not JSON: a CSV export with a header (Splunk
//! `output_mode=csv`, Kibana Discover "Generate CSV") or Splunk's XML
//! results. Each row becomes the JSON object it stands for, so that
//! `require`, `fields` and `skip` read it as they read a JSON record.
//!
//! In: the whole text of an input. Out: one [`Row`] per record, with the
//! line it starts on and the physical lines it takes, and the lines that
//! hold no record (a header, blank lines).
//!
//! ```text
//! _time,host,_raw                          -> header
//! 2026-10-01T07:58:06Z,api-2,"ERROR x"     -> {"_time": "2026-10-01T07:58:06Z", "host": "api-2", "_raw": "ERROR x"}
//! ```

use serde::Deserialize;
use serde_json::{Map, Value};

use super::kinds::csv_rows::{split, Rows};

/// How an envelope's records are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Syntax {
    /// Comma-separated values under a header row; a quoted cell may span lines.
    Csv,
    /// Splunk's XML results: `<result>` elements of `<field k='name'>`
    /// values (several `<results>` blocks back to back in an export).
    SplunkXml,
}

/// One record of a tabular input.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub line: u64,
    /// Physical lines the record takes (a CSV cell holding a newline).
    pub lines: u64,
    pub value: Value,
}

/// The records of a text, and the numbers of the lines that are read
/// without a record (`header`) or are blank.
#[derive(Debug, Default)]
pub struct Table {
    pub rows: Vec<Row>,
    pub header: Vec<u64>,
    pub blank: Vec<u64>,
    /// A row that could not be read: its line and why.
    pub bad: Vec<(u64, &'static str)>,
}

/// Read a text in a syntax.
pub fn read(syntax: Syntax, text: &str) -> Table {
    match syntax {
        Syntax::Csv => csv(text),
        Syntax::SplunkXml => splunk_xml(text),
    }
}

fn csv(text: &str) -> Table {
    let mut t = Table::default();
    let mut names: Option<Vec<String>> = None;
    let mut rows = Rows::default();
    let mut start = 0u64;
    let mut taken = 0u64;
    for (i, line) in text.lines().enumerate() {
        let n = i as u64 + 1;
        if !rows.is_open() {
            if line.trim().is_empty() {
                t.blank.push(n);
                continue;
            }
            start = n;
            taken = 0;
        }
        taken += 1;
        let row = match rows.push(line) {
            Ok(Some(row)) => row,
            Ok(None) => continue,
            Err(reason) => {
                t.bad.push((start, reason));
                continue;
            }
        };
        let cells = split(&row);
        match &names {
            None => {
                names = Some(cells.iter().map(|c| c.trim().to_string()).collect());
                t.header.push(start);
            }
            Some(names) => {
                let object: Map<String, Value> = names
                    .iter()
                    .zip(&cells)
                    .filter(|(_, c)| !c.is_empty())
                    .map(|(k, c)| (k.clone(), Value::String(c.to_string())))
                    .collect();
                t.rows.push(Row {
                    line: start,
                    lines: taken,
                    value: Value::Object(object),
                });
            }
        }
    }
    if rows.is_open() {
        t.bad.push((start, "unterminated quoted CSV field"));
    }
    t
}

fn splunk_xml(text: &str) -> Table {
    let mut t = Table::default();
    // Lines are counted as the scan moves on, not from the start each time.
    let (mut counted_to, mut line) = (0usize, 1u64);
    let mut line_of = |offset: usize| {
        line += memchr::memchr_iter(b'\n', &text.as_bytes()[counted_to..offset]).count() as u64;
        counted_to = offset;
        line
    };
    let mut pos = 0;
    while let Some(k) = find_tag(&text[pos..], "result") {
        let open = pos + k;
        let Some(close) = text[open..].find("</result>").map(|c| open + c) else {
            t.bad.push((line_of(open), "a <result> without its end"));
            break;
        };
        let body = &text[open..close];
        let mut object = Map::new();
        let mut rest = body;
        while let Some(f) = find_tag(rest, "field") {
            let field = &rest[f..];
            let end = field.find("</field>").unwrap_or(field.len());
            let (tag, inner) = field[..end].split_once('>').unwrap_or((&field[..end], ""));
            if let Some(name) = attribute(tag, "k") {
                let values = values_of(inner);
                if !values.is_empty() {
                    object.insert(name, Value::String(values.join("\n")));
                }
            }
            rest = &field[end..];
        }
        t.rows.push(Row {
            line: line_of(open),
            lines: 1,
            value: Value::Object(object),
        });
        pos = close + "</result>".len();
    }
    t
}

/// Where `<name` opens a tag (`<result>`, `<result offset='0'>`), not a
/// longer name (`<results>`).
fn find_tag(text: &str, name: &str) -> Option<usize> {
    let open = format!("<{name}");
    let mut from = 0;
    while let Some(k) = text[from..].find(&open) {
        let at = from + k;
        match text[at + open.len()..].chars().next() {
            Some('>' | ' ' | '\t' | '\n' | '\r' | '/') => return Some(at),
            _ => from = at + open.len(),
        }
    }
    None
}

/// An attribute of a start tag, quoted with `'` or `"`.
fn attribute(tag: &str, name: &str) -> Option<String> {
    for quote in ['\'', '"'] {
        let key = format!(" {name}={quote}");
        if let Some(k) = tag.find(&key) {
            let value = &tag[k + key.len()..];
            let end = value.find(quote)?;
            return Some(unescape(&value[..end]));
        }
    }
    None
}

/// The values of a field: `<value><text>..</text></value>` (several for a
/// multivalue field) or `_raw`'s `<v xml:space='preserve'>..</v>`, whose
/// highlight tags (`<sg>`) are dropped.
fn values_of(inner: &str) -> Vec<String> {
    let mut out = Vec::new();
    for tag in ["text", "v"] {
        let mut rest = inner;
        while let Some(k) = find_tag(rest, tag) {
            let after = &rest[k..];
            let Some(gt) = after.find('>') else { break };
            let body = &after[gt + 1..];
            let close = format!("</{tag}>");
            let end = body.find(&close).unwrap_or(body.len());
            out.push(unescape(&strip_tags(&body[..end])));
            rest = &body[end..];
        }
        if !out.is_empty() {
            break;
        }
    }
    out
}

fn strip_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// XML's five entities and numeric references.
fn unescape(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(k) = rest.find('&') {
        out.push_str(&rest[..k]);
        let after = &rest[k..];
        let end = after.find(';').filter(|e| *e <= 10);
        let decoded = end.and_then(|e| match &after[1..e] {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            n => n
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| n.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        });
        match (decoded, end) {
            (Some(c), Some(e)) => {
                out.push(c);
                rest = &after[e + 1..];
            }
            _ => {
                out.push('&');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_rows_are_objects_by_the_header() {
        let text = "\n_time,host,_raw\n2026-10-01T07:58:06Z,api-2,\"ERROR \"\"x\"\"\nat y\"\n";
        let t = read(Syntax::Csv, text);
        assert_eq!(t.blank, vec![1]);
        assert_eq!(t.header, vec![2]);
        assert_eq!(t.rows.len(), 1);
        assert_eq!((t.rows[0].line, t.rows[0].lines), (3, 2));
        assert_eq!(t.rows[0].value["_raw"], "ERROR \"x\"\nat y");
        assert_eq!(t.rows[0].value["host"], "api-2");
    }

    #[test]
    fn splunk_xml_results_are_objects_by_field_name() {
        let text = "<?xml version='1.0'?>\n<results preview='0'>\n<result offset='0'>\n\
            <field k='_raw'><v xml:space='preserve' trunc='0'>ERROR <sg h='1'>pool</sg> &lt;x&gt;</v></field>\n\
            <field k='_si'><value><text>a</text></value><value h='1'><text>b</text></value></field>\n\
            </result>\n</results>\n<results preview='0'>\n<result offset='0'><field k=\"host\"><value><text>api-2</text></value></field></result>\n</results>";
        let t = read(Syntax::SplunkXml, text);
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[0].line, 3);
        assert_eq!(t.rows[0].value["_raw"], "ERROR pool <x>");
        assert_eq!(t.rows[0].value["_si"], "a\nb");
        assert_eq!(t.rows[1].line, 9);
        assert_eq!(t.rows[1].value["host"], "api-2");
    }

    #[test]
    fn broken_xml_is_reported_not_a_panic() {
        for text in [
            "<result offset='0'><field k='a'><value><text>x",
            "<result",
            "&#xZZ;",
        ] {
            let t = read(Syntax::SplunkXml, text);
            assert!(t.rows.len() <= 1, "{text}");
        }
        assert_eq!(
            unescape("a &amp; &#65; &#x42; &bogus b"),
            "a & A B &bogus b"
        );
    }
}
