//! Envelopes that are not JSON: a CSV export with a header (Splunk
//! `output_mode=csv`, Kibana Discover "Generate CSV"; rows by `csv_rows.rs`)
//! or Splunk's XML results (by `quick-xml`). Each row becomes the JSON object it stands for, so that
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

/// Splunk's XML results, read by `quick-xml`: a `<result>` is a row, each
/// `<field k='name'>` a key, its `<value><text>` (several for a multivalue
/// field) or `_raw`'s `<v xml:space='preserve'>` the value; tags inside a
/// value (`<sg>` highlights) are dropped and their text kept.
fn splunk_xml(text: &str) -> Table {
    use quick_xml::events::Event;
    let mut t = Table::default();
    // Lines are counted as the reader moves on, not from the start each time.
    let (mut counted_to, mut line) = (0usize, 1u64);
    let mut line_of = |offset: usize| {
        let offset = offset.min(text.len()).max(counted_to);
        // The clamps above keep `counted_to..offset` inside `text`.
        let between = text.as_bytes().get(counted_to..offset).unwrap_or_default();
        line += memchr::memchr_iter(b'\n', between).count() as u64;
        counted_to = offset;
        line
    };
    let mut reader = quick_xml::Reader::from_str(text);
    let mut row: Option<(u64, Map<String, Value>)> = None;
    let mut field: Option<(String, Vec<String>)> = None;
    let mut value: Option<String> = None;
    loop {
        let at = reader.buffer_position() as usize;
        let event = match reader.read_event() {
            Ok(e) => e,
            Err(_) => {
                t.bad.push((line_of(at), "not well-formed XML"));
                break;
            }
        };
        match event {
            Event::Start(e) => match e.name().as_ref() {
                b"result" => row = Some((line_of(at), Map::new())),
                b"field" if row.is_some() => {
                    field = e
                        .try_get_attribute("k")
                        .ok()
                        .flatten()
                        .and_then(|a| a.unescape_value().ok())
                        .map(|k| (k.into_owned(), Vec::new()));
                }
                b"text" | b"v" if field.is_some() => value = Some(String::new()),
                _ => {}
            },
            Event::Text(e) => {
                if let (Some(v), Ok(s)) = (value.as_mut(), e.decode()) {
                    v.push_str(&s);
                }
            }
            Event::CData(e) => {
                if let (Some(v), Ok(s)) = (value.as_mut(), e.decode()) {
                    v.push_str(&s);
                }
            }
            Event::GeneralRef(r) => {
                if let Some(v) = value.as_mut() {
                    match (r.resolve_char_ref(), r.decode()) {
                        (Ok(Some(c)), _) => v.push(c),
                        (_, Ok(name)) => match &*name {
                            "lt" => v.push('<'),
                            "gt" => v.push('>'),
                            "amp" => v.push('&'),
                            "quot" => v.push('"'),
                            "apos" => v.push('\''),
                            other => {
                                v.push('&');
                                v.push_str(other);
                                v.push(';');
                            }
                        },
                        _ => {}
                    }
                }
            }
            Event::End(e) => match e.name().as_ref() {
                b"text" | b"v" => {
                    if let (Some(v), Some((_, values))) = (value.take(), field.as_mut()) {
                        values.push(v);
                    }
                }
                b"field" => {
                    if let (Some((k, values)), Some((_, object))) = (field.take(), row.as_mut()) {
                        if !values.is_empty() {
                            object.insert(k, Value::String(values.join("\n")));
                        }
                    }
                }
                b"result" => {
                    if let Some((line, object)) = row.take() {
                        t.rows.push(Row {
                            line,
                            lines: 1,
                            value: Value::Object(object),
                        });
                    }
                }
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    if let Some((line, _)) = row {
        t.bad.push((line, "a <result> without its end"));
    }
    t
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
        let t = read(
            Syntax::SplunkXml,
            "<result><field k='a'><value><text>a &amp; &#65; &#x42; b</text></value></field></result>",
        );
        assert_eq!(t.rows[0].value["a"], "a & A B b");
    }
}
