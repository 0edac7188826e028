//! Tables whose header names the columns: W3C extended logs (IIS,
//! Incapsula: `#Fields: date time c-ip ...` above space-separated rows,
//! `"quoted cells"`, `-` for no value) and command output tables (`helm
//! history`: a `REVISION  UPDATED  STATUS ...` header above tab-separated
//! or aligned rows). Each row becomes the object its header names, which
//! the definition's `require`, `fields`, `compose` and `constants` read as
//! they read a JSON record, so which column is which role is data.
//!
//! A header is the line after `columns.header` (`#Fields:`), or, without
//! one, the first line that names every `require` column. A new header
//! replaces the columns (IIS starts one per restart); `#Name: value`
//! directives are read without a record when `columns.directives` is set.
//!
//! ```text
//! #Fields: date time c-ip cs-method cs-uri-stem sc-status time-taken
//! 2026-10-01 07:58:06 192.0.2.5 GET /api/v1/runs 500 30004
//!   -> {"date": "2026-10-01", "time": "07:58:06", "c-ip": "192.0.2.5", ...}
//! ```

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Extractor, Skip, BLANK};
use crate::formats::compile::{map_json, Fields};
use crate::formats::definition::Definition;

/// How cells are separated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cells {
    /// Runs of spaces; a cell in double quotes may hold spaces (W3C).
    Spaces,
    /// Tabs, cells trimmed; a header without tabs gives fixed-width
    /// columns where its names start (names apart by two spaces or more).
    Tabs,
}

/// The `columns` object of a definition.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnsSpec {
    /// The text before the column names on the header line (`#Fields:`).
    #[serde(default)]
    pub header: Option<String>,
    pub cells: Cells,
    /// Lines starting with this and a `Name:` are directives, read without a record.
    #[serde(default)]
    pub directives: Option<String>,
    /// A cell with this text holds no value (`-`).
    #[serde(default)]
    pub empty: Option<String>,
}

/// Where the columns are cut.
#[derive(Debug)]
enum Layout {
    Split(Cells),
    /// Byte offsets where each column starts (aligned output without tabs).
    Fixed(Vec<usize>),
}

pub struct Columns {
    def: Definition,
    spec: Option<ColumnsSpec>,
    names: Vec<String>,
    layout: Option<Layout>,
}

impl Columns {
    pub fn new(def: &Definition) -> Columns {
        Columns {
            def: def.clone(),
            spec: def.columns.clone(),
            names: Vec::new(),
            layout: None,
        }
    }

    /// Take `line` as the header if it is one.
    fn header(&mut self, spec: &ColumnsSpec, line: &str) -> bool {
        let names_text = match &spec.header {
            Some(prefix) => match line.strip_prefix(prefix.as_str()) {
                Some(rest) => rest,
                None => return false,
            },
            None => line,
        };
        let (names, layout) = match spec.cells {
            Cells::Tabs if !names_text.contains('\t') => {
                let (names, starts) = aligned_names(names_text);
                (names, Layout::Fixed(starts))
            }
            cells => (
                split(names_text, cells)
                    .into_iter()
                    .map(str::to_string)
                    .collect(),
                Layout::Split(cells),
            ),
        };
        // Without a header prefix, a line is the header only if it names every required column.
        if spec.header.is_none() && !self.def.require.iter().all(|r| names.contains(r)) {
            return false;
        }
        if names.is_empty() {
            return false;
        }
        self.names = names;
        self.layout = Some(layout);
        true
    }
}

impl Extractor for Columns {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        let Some(spec) = self.spec.clone() else {
            return Err("the definition has no `columns`");
        };
        let text = line.trim_end_matches(['\r', '\n']);
        if text.trim().is_empty() {
            return Err(BLANK);
        }
        if self.header(&spec, text) {
            return Ok(Vec::new());
        }
        if let Some(d) = &spec.directives {
            if is_directive(text, d) {
                return Ok(Vec::new());
            }
        }
        let Some(layout) = &self.layout else {
            return Err("a row before the header that names the columns");
        };
        let cells: Vec<&str> = match layout {
            Layout::Split(cells) => split(text, *cells),
            Layout::Fixed(starts) => fixed(text, starts),
        };
        if cells.len() != self.names.len() {
            return Err("a row whose cells do not fit the header");
        }
        let empty = spec.empty.as_deref();
        let object: Map<String, Value> = self
            .names
            .iter()
            .zip(cells)
            .filter(|(_, c)| !c.is_empty() && Some(*c) != empty)
            .map(|(n, c)| (n.clone(), Value::String(c.to_string())))
            .collect();
        let record = Value::Object(object);
        let fields = map_json(&self.def, &record)
            .ok_or("a required field is missing")?
            .into_owned();
        Ok(vec![fields])
    }
}

/// `#Software: Microsoft HTTP Server API 2.0`: the mark, a name, a colon.
fn is_directive(line: &str, mark: &str) -> bool {
    line.strip_prefix(mark).is_some_and(|rest| {
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(rest.len());
        name_len > 0 && rest[name_len..].starts_with(':')
    })
}

/// Cells of a row.
fn split(text: &str, cells: Cells) -> Vec<&str> {
    match cells {
        Cells::Tabs => text.split('\t').map(str::trim).collect(),
        Cells::Spaces => {
            let mut out = Vec::new();
            let mut rest = text.trim_start();
            while !rest.is_empty() {
                if let Some(q) = rest.strip_prefix('"') {
                    // W3C doubles a quote inside a quoted cell; the cell ends at a lone one.
                    let mut end = None;
                    let b = q.as_bytes();
                    let mut i = 0;
                    while let Some(&c) = b.get(i) {
                        if c == b'"' {
                            if b.get(i + 1) == Some(&b'"') {
                                i += 2;
                                continue;
                            }
                            end = Some(i);
                            break;
                        }
                        i += 1;
                    }
                    let end = end.unwrap_or(q.len());
                    out.push(&q[..end]);
                    rest = q.get(end + 1..).unwrap_or("").trim_start();
                } else {
                    let end = rest.find(' ').unwrap_or(rest.len());
                    out.push(&rest[..end]);
                    rest = rest[end..].trim_start();
                }
            }
            out
        }
    }
}

/// Names of an aligned header and where each starts: names are apart by
/// two spaces or more (one space is inside a name: `APP VERSION`).
fn aligned_names(text: &str) -> (Vec<String>, Vec<usize>) {
    let mut names = Vec::new();
    let mut starts = Vec::new();
    let mut i = 0;
    let b = text.as_bytes();
    while let Some(&c) = b.get(i) {
        if c == b' ' {
            i += 1;
            continue;
        }
        let start = i;
        while b
            .get(i)
            .is_some_and(|&c| !(c == b' ' && b.get(i + 1).is_none_or(|c| *c == b' ')))
        {
            i += 1;
        }
        names.push(text[start..i].trim().to_string());
        starts.push(start);
    }
    (names, starts)
}

/// Cells of an aligned row, cut where the header's names start.
fn fixed<'a>(text: &'a str, starts: &[usize]) -> Vec<&'a str> {
    starts
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let e = starts
                .get(k + 1)
                .copied()
                .unwrap_or(text.len())
                .min(text.len());
            let s = s.min(e);
            text.get(s..e).unwrap_or("").trim()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn w3c_cells_split_on_spaces_with_quotes() {
        let cases: [(&str, &[&str]); 4] = [
            ("a b  c", &["a", "b", "c"]),
            (
                "\"2017-06-28\" \"07:26:35\" \"\" \"x y\"",
                &["2017-06-28", "07:26:35", "", "x y"],
            ),
            ("\"say \"\"hi\"\"\" b", &["say \"\"hi\"\"", "b"]),
            ("\"open", &["open"]),
        ];
        for (text, want) in cases {
            assert_eq!(split(text, Cells::Spaces), want, "{text}");
        }
    }

    #[test]
    fn aligned_tables_are_cut_where_the_header_names_start() {
        let header = "REVISION  UPDATED                   STATUS      APP VERSION  DESCRIPTION";
        let (names, starts) = aligned_names(header);
        assert_eq!(
            names,
            [
                "REVISION",
                "UPDATED",
                "STATUS",
                "APP VERSION",
                "DESCRIPTION"
            ]
        );
        let row = "7         Thu Oct  1 07:52:40 2026  deployed    4.18.2       Rollback to 6";
        assert_eq!(
            fixed(row, &starts),
            [
                "7",
                "Thu Oct  1 07:52:40 2026",
                "deployed",
                "4.18.2",
                "Rollback to 6"
            ]
        );
        assert!(is_directive("#Software: IIS", "#"));
        assert!(!is_directive("# a comment", "#"));
        assert!(!is_directive("#!/bin/sh", "#"));
    }
}
