//! Definition -> [`Format`]: regexes compiled, capture names resolved to
//! roles, and the record-level extraction every kind shares ([`Fields`]).

use miette::NamedSource;
use regex::Regex;
use serde_json::Value;
use std::borrow::Cow;

use super::definition::{Definition, DefinitionKind};
use super::error::{span_of, FormatError};
use super::lazy_json::LazyRecord;
use super::role::Role;
use super::template::Template;

/// A compiled regex variant: the regex and, per capture group, its role.
#[derive(Debug, Clone)]
pub struct Pattern {
    pub regex: Regex,
    roles: Vec<(usize, Role)>,
}

/// Why a pattern does not compile.
pub(crate) enum PatternError {
    Regex(String),
    /// A capture name that is no role.
    Role(String),
}

impl Pattern {
    /// Compile a regex whose capture names are roles (`role__2` for a
    /// second alternative of the same role).
    pub(crate) fn compile(raw: &str) -> Result<Pattern, PatternError> {
        let regex = Regex::new(raw).map_err(|e| PatternError::Regex(e.to_string()))?;
        let mut roles = Vec::new();
        for (i, name) in regex.capture_names().enumerate() {
            let Some(name) = name else { continue };
            let base = name.split("__").next().unwrap_or(name);
            let role = Role::from_name(base).ok_or_else(|| PatternError::Role(name.to_string()))?;
            roles.push((i, role));
        }
        Ok(Pattern { regex, roles })
    }

    /// The fields of a line this pattern matches.
    pub(crate) fn read<'a>(&self, line: &'a str) -> Option<Fields<'a>> {
        let caps = self.regex.captures(line)?;
        let mut fields = Fields::default();
        for &(i, role) in &self.roles {
            if let Some(m) = caps.get(i) {
                fields.set(role, Cow::Borrowed(m.as_str()));
            }
        }
        Some(fields)
    }
}

/// A compiled, ready-to-use format.
pub struct Format {
    pub def: Definition,
    /// Where the definition came from (`access/nginx_combined.json`).
    pub file: String,
    pub templates: Vec<Template>,
    /// Per template, the part it can go on from after the one before failed.
    template_resume: Vec<usize>,
    pub patterns: Vec<Pattern>,
    /// The generic reader, for a `generic` definition.
    pub generic: Option<Box<super::generic::Generic>>,
    /// How many of `patterns`, at the front, were compiled from `log_line_prefixes`.
    pub prefix_patterns: usize,
}

/// The raw text of each role in one record, before any conversion, and
/// labels (metric labels, envelope labels) that no role names.
#[derive(Debug, Default, Clone)]
pub struct Fields<'a> {
    values: [Option<Cow<'a, str>>; Role::ALL.len()],
    labels: Vec<(Cow<'a, str>, Cow<'a, str>)>,
}

impl<'a> Fields<'a> {
    // `values` has a slot per role, so the `get`s below never miss (and
    // the compiler drops their checks).
    pub fn get(&self, role: Role) -> Option<&str> {
        self.values.get(role.index())?.as_deref()
    }

    pub fn set(&mut self, role: Role, value: Cow<'a, str>) {
        if let Some(slot) = self.values.get_mut(role.index()) {
            *slot = Some(value);
        }
    }

    pub fn clear(&mut self, role: Role) {
        if let Some(slot) = self.values.get_mut(role.index()) {
            *slot = None;
        }
    }

    /// The role's value, moved out (it keeps the line's lifetime).
    pub fn take(&mut self, role: Role) -> Option<Cow<'a, str>> {
        self.values.get_mut(role.index())?.take()
    }

    pub fn has(&self, role: Role) -> bool {
        self.values.get(role.index()).is_some_and(Option::is_some)
    }

    /// Why the record has no time, if it has none: no timestamp field (a
    /// continuation line, a logger configured without one), or a
    /// placeholder where the source had no value.
    pub fn untimed(&self) -> Option<&'static str> {
        match self.get(Role::Ts).map(str::trim_ascii) {
            None => Some("no timestamp"),
            Some("" | "-" | "<nil>" | "null") => Some("placeholder timestamp"),
            Some(_) => None,
        }
    }

    /// Every role that has a value, in role order.
    pub fn iter(&self) -> impl Iterator<Item = (Role, &str)> {
        // `Role::ALL` is in index order.
        Role::ALL
            .into_iter()
            .zip(&self.values)
            .filter_map(|(r, v)| v.as_deref().map(|v| (r, v)))
    }

    /// Every label, in the order they were set.
    pub fn labels(&self) -> impl Iterator<Item = (&str, &str)> {
        self.labels.iter().map(|(k, v)| (k.as_ref(), v.as_ref()))
    }

    pub fn set_label(&mut self, key: impl Into<Cow<'a, str>>, value: impl Into<Cow<'a, str>>) {
        self.labels.push((key.into(), value.into()));
    }

    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_ref())
    }

    /// The same fields, owning their text.
    pub fn into_owned(self) -> Fields<'static> {
        Fields {
            values: self.values.map(|v| v.map(|c| Cow::Owned(c.into_owned()))),
            labels: self
                .labels
                .into_iter()
                .map(|(k, v)| (Cow::Owned(k.into_owned()), Cow::Owned(v.into_owned())))
                .collect(),
        }
    }
}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Format")
            .field("name", &self.def.name)
            .finish()
    }
}

impl Format {
    /// A fresh reader for a code kind (`None` for `regex` and `json`).
    pub fn extractor(&self) -> Option<Box<dyn super::kinds::Extractor>> {
        super::kinds::extractor(self)
    }

    /// Compile a definition read from `file` whose text is `text`.
    pub fn compile(mut def: Definition, file: &str, text: &str) -> Result<Format, FormatError> {
        let src = || NamedSource::new(file, text.to_string());
        let mut patterns = Vec::new();
        // PostgreSQL prefixes first: each is one known configuration, more
        // specific than the variants written by hand after them.
        for raw in &def.log_line_prefixes {
            let invalid = |message: String| FormatError::Invalid {
                file: file.to_string(),
                message: format!("log_line_prefix `{raw}`: {message}"),
                src: src(),
                span: span_of(text, raw),
            };
            let source = super::pg_prefix::compile(raw).map_err(invalid)?;
            let p = Pattern::compile(&source).map_err(|e| match e {
                PatternError::Regex(m) | PatternError::Role(m) => invalid(m),
            })?;
            patterns.push(p);
        }
        let prefix_patterns = patterns.len();
        for (index, raw) in def.patterns.iter().enumerate() {
            // `_2` suffixes let one role appear in several alternatives.
            let p = Pattern::compile(raw).map_err(|e| match e {
                PatternError::Regex(message) => FormatError::BadRegex {
                    file: file.to_string(),
                    name: def.name.clone(),
                    index,
                    message,
                    src: src(),
                    span: span_of(text, raw),
                },
                PatternError::Role(name) => FormatError::UnknownRole {
                    file: file.to_string(),
                    span: span_of(text, &format!("<{name}>")),
                    role: name,
                    src: src(),
                },
            })?;
            patterns.push(p);
        }
        let mut templates = Vec::new();
        for raw in &def.templates {
            let t = Template::compile(raw).map_err(|message| FormatError::Invalid {
                file: file.to_string(),
                message: format!("template `{raw}`: {message}"),
                src: src(),
                span: span_of(text, raw),
            })?;
            templates.push(t);
        }
        for (role, raw) in &def.compose {
            super::compose::Compose::compile(raw).map_err(|message| FormatError::Invalid {
                file: file.to_string(),
                message: format!("compose `{}`: {message}", role.name()),
                src: src(),
                span: span_of(text, raw),
            })?;
        }
        let invalid = |message: String| FormatError::Invalid {
            file: file.to_string(),
            message,
            src: src(),
            span: (0, 0).into(),
        };
        match def.kind {
            DefinitionKind::Regex | DefinitionKind::PostgresLog
                if patterns.is_empty() && templates.is_empty() =>
            {
                return Err(invalid(
                    "a `regex` definition needs `patterns`, `templates` or `log_line_prefixes`"
                        .into(),
                ))
            }
            DefinitionKind::Json | DefinitionKind::Envelope
                if def.fields.is_empty() && patterns.is_empty() =>
            {
                return Err(invalid("a `json` definition needs `fields`".into()))
            }
            DefinitionKind::Columns if def.columns.is_none() => {
                return Err(invalid("a `columns` definition needs `columns`".into()))
            }
            DefinitionKind::Logfmt if def.fields.is_empty() => {
                return Err(invalid("a `logfmt` definition needs `fields`".into()))
            }
            _ => {}
        }
        let generic = match (def.kind, &def.generic) {
            (DefinitionKind::Generic, Some(spec)) => {
                let g = super::generic::Generic::compile(spec).map_err(invalid)?;
                // The shapes' own formats, after any the definition lists.
                for f in g.timestamp_formats() {
                    if !def.timestamp_formats.contains(f) {
                        def.timestamp_formats.push(f.clone());
                    }
                }
                Some(Box::new(g))
            }
            (DefinitionKind::Generic, None) => {
                return Err(invalid(
                    "a `generic` definition needs its `generic` vocabulary".into(),
                ))
            }
            _ => None,
        };
        Ok(Format {
            def,
            file: file.to_string(),
            template_resume: std::iter::once(0)
                .chain(
                    templates
                        .iter()
                        .zip(templates.iter().skip(1))
                        .map(|(a, b)| b.resume_after(a)),
                )
                .collect(),
            templates,
            patterns,
            generic,
            prefix_patterns,
        })
    }

    /// Whether records are cut from text (templates or patterns) rather
    /// than read from JSON.
    pub fn is_text(&self) -> bool {
        !self.templates.is_empty() || !self.patterns.is_empty()
    }

    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// Fields of one line for a `regex` format; `None` when no variant matches.
    pub fn match_line<'a>(&self, line: &'a str) -> Option<Fields<'a>> {
        let mut fields = Fields::default();
        self.match_line_into(line, &mut fields).then_some(fields)
    }

    /// [`Format::match_line`] into `fields` (empty on entry, cleared on a
    /// miss): the fast path fills one `Fields` in place instead of moving it.
    pub fn match_line_into<'a>(&self, line: &'a str, fields: &mut Fields<'a>) -> bool {
        if let Some(g) = &self.generic {
            return match g.read(line) {
                Some(f) => {
                    *fields = f;
                    apply_constants(&self.def, fields);
                    true
                }
                None => false,
            };
        }
        // Templates are tried in order; one that shares its first parts
        // with the one before goes on from where that one got to.
        let mut carry: Option<usize> = None;
        // `template_resume` has one entry per template.
        for (i, (t, &resume)) in self.templates.iter().zip(&self.template_resume).enumerate() {
            let (from, pos) = match carry.take() {
                Some(pos) => (resume, pos),
                None if i == 0 => (0, 0),
                None => {
                    *fields = Fields::default();
                    (0, 0)
                }
            };
            let mark = self
                .template_resume
                .get(i + 1)
                .copied()
                .filter(|&r| r > 0 && r >= from);
            match t.match_into(line, from, pos, fields, mark) {
                Ok(()) => {
                    apply_constants(&self.def, fields);
                    return true;
                }
                Err(Some(pos)) => {
                    if let Some(r) = mark {
                        for role in t.roles_from(r) {
                            fields.clear(role);
                        }
                    }
                    carry = Some(pos);
                }
                Err(None) => {}
            }
        }
        if !self.templates.is_empty() {
            *fields = Fields::default();
        }
        if let Some(f) = self.match_patterns(line) {
            *fields = f;
            return true;
        }
        false
    }

    fn match_patterns<'a>(&self, line: &'a str) -> Option<Fields<'a>> {
        let mut fields = self.patterns.iter().find_map(|p| p.read(line))?;
        apply_constants(&self.def, &mut fields);
        Some(fields)
    }

    /// The reason a matching record is skipped by one of the definition's
    /// `skip` rules (it holds no line), if one applies.
    pub fn skip_reason(&self, record: &Value) -> Option<&str> {
        self.def
            .skip
            .iter()
            .find(|r| lookup(record, &r.missing).is_none())
            .map(|r| r.reason.as_str())
    }

    /// Fields of one JSON record for a `json` format; `None` when a required
    /// key is missing or an excluded one is present.
    /// [`Format::match_json`] on a lazily read record (see [`map_lazy`]).
    pub fn match_lazy<'a>(&self, record: &'a LazyRecord<'a>) -> Option<Option<Fields<'a>>> {
        map_lazy(&self.def, record)
    }

    pub fn match_json<'a>(&self, record: &'a Value) -> Option<Fields<'a>> {
        map_json(&self.def, record)
    }

    /// Check every sample line of the definition: it must match and give its
    /// expected values. `text` is the definition file, for the diagnostic.
    pub fn check_samples(&self, text: &str) -> Result<(), FormatError> {
        // Code kinds may keep state across lines (a CSV header): samples are
        // fed to one reader in order, and a sample without `expect` may be a
        // line that holds no record.
        let mut reader = self.extractor();
        // A kind whose syntax is read whole (YAML): the samples are one text,
        // and a sample's records are those placed on its line.
        let samples: Vec<&str> = self.def.samples.iter().map(|s| s.line.as_str()).collect();
        let mut whole = reader
            .as_mut()
            .filter(|x| x.whole_text())
            .map(|x| x.text(&samples.join("\n")).into_iter());
        // CSV and XML envelopes: the samples are one text (a header, then rows).
        let table = self
            .def
            .syntax
            .map(|syntax| super::tabular::read(syntax, &samples.join("\n")));
        for (index, sample) in self.def.samples.iter().enumerate() {
            let fail = |problem: String| FormatError::Sample {
                file: self.file.clone(),
                name: self.def.name.clone(),
                index,
                problem,
                src: NamedSource::new(&self.file, text.to_string()),
                span: span_of(text, &sample.line),
            };
            let json;
            let row;
            let fields = match self.def.kind {
                DefinitionKind::Envelope if table.is_some() => {
                    // A sample's row is the one that starts on its line.
                    row = table
                        .as_ref()
                        .and_then(|t| t.rows.iter().find(|r| r.line == index as u64 + 1));
                    match row {
                        Some(r) => self.match_json(&r.value).map(Fields::into_owned),
                        None if sample.expect.is_empty() => continue,
                        None => None,
                    }
                }
                DefinitionKind::Regex | DefinitionKind::Generic => self.match_line(&sample.line),
                DefinitionKind::Envelope if self.is_text() => self.match_line(&sample.line),
                DefinitionKind::Json | DefinitionKind::Envelope => {
                    json = serde_json::from_str::<Value>(&sample.line)
                        .map_err(|e| fail(format!("is not JSON: {e}")))?;
                    // A sample of an enveloped document, or of an array of
                    // records, is checked on its first record.
                    let record = match self.def.envelope.as_deref().and_then(|e| lookup(&json, e)) {
                        Some(Value::Array(items)) => items.first().unwrap_or(&json),
                        _ => array_records(&json)
                            .and_then(|items| items.first())
                            .unwrap_or(&json),
                    };
                    envelope_records(record)
                        .first()
                        .and_then(|r| self.match_json(r).map(Fields::into_owned))
                }
                _ => {
                    let x = reader
                        .as_mut()
                        .ok_or_else(|| fail("has no reader".to_string()))?;
                    let read = match whole.as_mut() {
                        Some(lines) => lines.next().unwrap_or(Ok(Vec::new())),
                        None => x
                            .line(&sample.line)
                            .map(|recs| recs.into_iter().map(Fields::into_owned).collect()),
                    };
                    let recs = read.map_err(|e| fail(e.to_string()))?;
                    match recs.into_iter().next() {
                        Some(f) => Some(f.into_owned()),
                        None if sample.expect.is_empty() => continue,
                        None => None,
                    }
                }
            };
            let Some(fields) = fields else {
                return Err(fail("does not match".to_string()));
            };
            for (role_name, want) in &sample.expect {
                let role = Role::from_name(role_name)
                    .ok_or_else(|| fail(format!("expects unknown role `{role_name}`")))?;
                let got = fields.get(role);
                if got != Some(want.as_str()) {
                    return Err(fail(format!(
                        "gives {role_name} = {got:?}, expected {want:?}"
                    )));
                }
            }
        }
        Ok(())
    }
}

/// A JSON record's fields by a definition's `fields` mapping (shared by the
/// `json` kind and kinds that build a JSON-like record, such as `logfmt`);
/// `None` when a required key is missing or an excluded one is present.
/// The top-level keys of a record as a 64-bit set of hashes: a key whose
/// bit is clear is not there, found without searching the object. A JSON
/// definition tries dozens of candidate keys on records that hold a handful;
/// most tries end here.
#[derive(Clone, Copy, Debug)]
pub struct KeySet(u64);

impl KeySet {
    pub fn of(record: &Value) -> KeySet {
        match record {
            Value::Object(m) => KeySet(m.keys().fold(0, |acc, k| acc | key_bit(k))),
            // Arrays are walked by index: no filter.
            _ => KeySet(u64::MAX),
        }
    }

    /// Whether [`lookup`] of `key` may find something: the key itself, or
    /// the first segment of its path, is there.
    pub fn may_hold(self, key: &str) -> bool {
        if self.0 & key_bit(key) != 0 {
            return true;
        }
        // A byte search: `split_once`'s searcher costs more on these short keys.
        match key.bytes().position(|b| b == b'.') {
            Some(i) => self.0 & key_bit(&key[..i]) != 0,
            None => false,
        }
    }
}

impl KeySet {
    pub(crate) fn bit_of(key: &str) -> u64 {
        key_bit(key)
    }

    pub(crate) fn from_bits(bits: u64) -> KeySet {
        KeySet(bits)
    }
}

/// A JSON record as definitions read it: parsed into a `Value`, or read
/// lazily from its line (the JSON-lines fast path).
#[derive(Clone, Copy, Debug)]
pub enum Record<'r> {
    Value(&'r Value),
    Lazy(&'r LazyRecord<'r>),
}

impl<'r> Record<'r> {
    /// The text of the scalar at `key` (booleans too when `bools`).
    pub fn text(self, key: &str, bools: bool) -> Option<Cow<'r, str>> {
        self.first_text(std::slice::from_ref(&key), bools)
    }

    /// The text of the first of `keys` that holds a scalar.
    pub fn first_text<K: AsRef<str>>(self, keys: &[K], bools: bool) -> Option<Cow<'r, str>> {
        match self {
            Record::Value(v) => {
                let present = KeySet::of(v);
                keys.iter().find_map(|k| {
                    lookup_in(v, present, k.as_ref()).and_then(|v| match v {
                        Value::Bool(_) if !bools => None,
                        v => scalar_text(v),
                    })
                })
            }
            Record::Lazy(l) => keys.iter().find_map(|k| l.text(k.as_ref(), bools)),
        }
    }
}

/// The keys of an `exclude` entry (`a+b`: both), split without a searcher.
fn plus_parts(k: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(k);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.bytes().position(|b| b == b'+') {
            Some(i) => {
                rest = Some(&r[i + 1..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// The keys a `require` entry accepts: `a|b` is either.
pub(crate) fn alternatives(k: &str) -> impl Iterator<Item = &str> {
    k.split('|')
}

fn key_bit(k: &str) -> u64 {
    let b = k.as_bytes();
    let h = (b.len() as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(u64::from(b.first().copied().unwrap_or(0)) << 8)
        .wrapping_add(u64::from(b.last().copied().unwrap_or(0)))
        .wrapping_add(u64::from(b.get(1).copied().unwrap_or(0)) << 16)
        .wrapping_mul(0xBF58_476D_1CE4_E5B9);
    1 << (h >> 58)
}

/// [`lookup`], skipping the search when `keys` says the key is absent.
pub fn lookup_in<'a>(record: &'a Value, keys: KeySet, key: &str) -> Option<&'a Value> {
    if !keys.may_hold(key) {
        return None;
    }
    lookup(record, key)
}

/// [`map_json`] on a lazily read record: `None` when only the parsed
/// `Value` can say (a definition that composes fields from several keys),
/// `Some(None)` when the record is not this format's.
pub fn map_lazy<'a>(def: &Definition, record: &'a LazyRecord<'a>) -> Option<Option<Fields<'a>>> {
    if !def.compose.is_empty() {
        return None;
    }
    if !def
        .require
        .iter()
        .all(|k| alternatives(k).any(|a| record.has(a)))
    {
        return Some(None);
    }
    if def
        .exclude
        .iter()
        .any(|k| plus_parts(k).all(|part| record.has(part)))
    {
        return Some(None);
    }
    let mut fields = Fields::default();
    for (role, keys) in &def.fields {
        if let Some(text) = keys.iter().find_map(|k| record.text(k, true)) {
            fields.set(*role, text);
        }
    }
    apply_constants(def, &mut fields);
    Some(Some(fields))
}

pub fn map_json<'a>(def: &Definition, record: &'a Value) -> Option<Fields<'a>> {
    // CloudWatch Logs Insights writes a row as `[{"field": k, "value": v}, ..]`:
    // read it as the object `{k: v, ..}` it describes.
    if let Some(object) = pairs_object(record) {
        return map_json(def, &object).map(Fields::into_owned);
    }
    // Arrays are records too when the definition's keys index them (`0`, `1.log`).
    if !record.is_object() && !record.is_array() {
        return None;
    }
    let present = KeySet::of(record);
    for key in &def.require {
        alternatives(key).find_map(|a| lookup_in(record, present, a))?;
    }
    if def
        .exclude
        .iter()
        .any(|k| plus_parts(k).all(|part| lookup_in(record, present, part).is_some()))
    {
        return None;
    }
    let mut fields = Fields::default();
    for (role, keys) in &def.fields {
        for key in keys {
            if let Some(v) = lookup_in(record, present, key) {
                if let Some(text) = scalar_text(v) {
                    fields.set(*role, text);
                    break;
                }
                // An envelope's structured payload (GCP `jsonPayload`) is
                // handed on as a JSON line for the inner detection.
                if *role == Role::Message && def.kind == DefinitionKind::Envelope && v.is_object() {
                    fields.set(*role, Cow::Owned(v.to_string()));
                    break;
                }
            }
        }
    }
    for (role, template) in &def.compose {
        if fields.has(*role) {
            continue;
        }
        // Checked when the definition was compiled.
        if let Some(text) = super::compose::Compose::compile(template)
            .ok()
            .and_then(|c| c.render(record))
        {
            fields.set(*role, Cow::Owned(text));
        }
    }
    apply_constants(def, &mut fields);
    Some(fields)
}

/// A document that is an array of objects (`helm history -o json`, `gh api
/// .../deployments`) holds its records; `None` for anything else (a Fluent
/// Bit event `[time, {record}]` is one record).
pub fn array_records(doc: &Value) -> Option<&Vec<Value>> {
    doc.as_array()
        .filter(|items| !items.is_empty() && items.iter().all(Value::is_object))
}

/// Rows of a table with named columns -> one object per row; `None` when
/// the item is not such a table (a row longer than the names is not one).
fn table_rows(item: &Value) -> Option<Vec<Value>> {
    let names: Vec<&str> = match (item.get("fields"), item.get("columns")) {
        (Some(Value::Array(f)), _) => f.iter().map(Value::as_str).collect::<Option<_>>()?,
        (_, Some(Value::Array(c))) => c
            .iter()
            .map(|c| c.get("name").and_then(Value::as_str))
            .collect::<Option<_>>()?,
        _ => return None,
    };
    let rows = item.get("rows")?.as_array()?;
    rows.iter()
        .map(|row| {
            let cells = row.as_array().filter(|r| r.len() <= names.len())?;
            let object = names
                .iter()
                .zip(cells)
                .map(|(n, v)| (n.to_string(), v.clone()))
                .collect();
            Some(Value::Object(object))
        })
        .collect()
}

/// A non-empty array whose elements are all `{"field": name, "value": v}`
/// -> the object `{name: v, ..}`; anything else -> `None`.
fn pairs_object(record: &Value) -> Option<Value> {
    let items = record.as_array().filter(|a| !a.is_empty())?;
    let mut object = serde_json::Map::new();
    for item in items {
        let name = item.get("field")?.as_str()?;
        let value = item.get("value")?;
        object.insert(name.to_string(), value.clone());
    }
    Some(Value::Object(object))
}

/// Constants for roles the record left empty, then the definition's
/// `levels` and `duration_units` rewrites.
fn apply_constants(def: &Definition, fields: &mut Fields<'_>) {
    for (role, value) in &def.constants {
        if !fields.has(*role) {
            fields.set(*role, Cow::Owned(value.clone()));
        }
    }
    if !def.levels.is_empty() || !def.duration_units.is_empty() {
        rewrite(def, fields);
    }
}

/// The `levels` and `duration_units` rewrites, out of line: most
/// definitions have neither, and the per-line path stays small.
#[cold]
#[inline(never)]
fn rewrite(def: &Definition, fields: &mut Fields<'_>) {
    if !def.levels.is_empty() {
        if let Some(name) = fields
            .get(Role::Level)
            .and_then(|l| def.levels.get(l.trim()))
        {
            fields.set(Role::Level, Cow::Owned(name.clone()));
        }
    }
    if !def.duration_units.is_empty() {
        let rewritten = fields.get(Role::Duration).and_then(|d| {
            let (number, word) = d.trim().split_once(' ')?;
            let unit = def.duration_units.get(word.trim())?;
            Some(format!("{number}{}", unit.suffix()))
        });
        if let Some(d) = rewritten {
            fields.set(Role::Duration, Cow::Owned(d));
        }
    }
}

/// A key as a literal (ECS writes `"log.level"`), else as a dotted path;
/// `.` is the whole record.
pub fn lookup<'a>(record: &'a Value, key: &str) -> Option<&'a Value> {
    // `.` is the record itself (a CSV row without a message column).
    if key == "." {
        return Some(record);
    }
    if let Some(v) = record.get(key) {
        return Some(v);
    }
    // An array record (a Fluent Bit event `[time, {record}]`) is walked by index.
    if !key.contains('.') && !record.is_array() {
        return None;
    }
    let mut cur = record;
    for part in key.split('.') {
        cur = match cur {
            // A number indexes an array (`values.0`: a Loki value's time).
            Value::Array(items) => items.get(part.parse::<usize>().ok()?)?,
            _ => cur.get(part)?,
        };
    }
    Some(cur)
}

/// The records an envelope item stands for. A Loki `query_range` stream
/// (`{"stream": {labels}, "values": [[ns, line], ..]}`) holds many: one
/// per value, each the stream with `values` replaced by that one value.
/// A table of positional rows (Splunk `json_rows`: `fields` + `rows`; Azure
/// Log Analytics: `columns[].name` + `rows`) holds one object per row.
/// Any other item is its own record.
pub fn envelope_records(item: &Value) -> Vec<Cow<'_, Value>> {
    if let Some(rows) = table_rows(item) {
        return rows.into_iter().map(Cow::Owned).collect();
    }
    let stream = item.get("stream").filter(|s| s.is_object());
    let values = item.get("values").and_then(Value::as_array);
    match (stream, values) {
        (Some(_), Some(values)) if values.iter().all(Value::is_array) => values
            .iter()
            .map(|v| {
                // `item` has a `stream`, so is an object.
                let mut one = item.clone();
                if let Some(fields) = one.as_object_mut() {
                    fields.insert("values".to_string(), v.clone());
                }
                Cow::Owned(one)
            })
            .collect(),
        _ => vec![Cow::Borrowed(item)],
    }
}

fn scalar_text(v: &Value) -> Option<Cow<'_, str>> {
    match v {
        Value::String(s) => Some(Cow::Borrowed(s.as_str())),
        Value::Number(n) => Some(Cow::Owned(n.to_string())),
        Value::Bool(b) => Some(Cow::Owned(b.to_string())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Catalogue;

    #[test]
    fn exclude_entries_split_at_plus() {
        let parts = |k| plus_parts(k).collect::<Vec<_>>();
        assert_eq!(parts("method+status"), vec!["method", "status"]);
        assert_eq!(parts("stream"), vec!["stream"]);
        assert_eq!(parts("a+"), vec!["a", ""]);
    }

    #[test]
    fn key_sets_never_hide_a_key_that_is_there() {
        let rec = serde_json::json!({"ts": 1, "log.level": "x", "host": {"name": "a"}, "m": 2});
        let keys = KeySet::of(&rec);
        for k in ["ts", "log.level", "host.name", "host", "m"] {
            assert!(keys.may_hold(k), "{k}");
            assert!(lookup_in(&rec, keys, k).is_some(), "{k}");
        }
        assert!(lookup_in(&rec, keys, "absent.key").is_none());
        let arr = serde_json::json!([1, {"log": "x"}]);
        assert!(lookup_in(&arr, KeySet::of(&arr), "1.log").is_some());
    }

    #[test]
    fn a_row_of_field_value_pairs_is_read_as_an_object() {
        let row = serde_json::json!([
            {"field": "@timestamp", "value": "2026-10-01 07:58:06.113"},
            {"field": "@message", "value": "ERROR pool timeout"}
        ]);
        let obj = pairs_object(&row).expect("pairs");
        assert_eq!(obj["@message"], "ERROR pool timeout");
        assert!(pairs_object(&serde_json::json!([])).is_none());
        assert!(pairs_object(&serde_json::json!([{"field": "a"}])).is_none());
        assert!(pairs_object(&serde_json::json!([1, 2])).is_none());

        let cat = Catalogue::builtin().expect("catalogue");
        let f = cat
            .formats
            .iter()
            .find(|f| f.name() == "cloudwatch_insights")
            .expect("cloudwatch_insights");
        let fields = f.match_json(&row).expect("fields");
        assert_eq!(fields.get(Role::Ts), Some("2026-10-01 07:58:06.113"));
        assert_eq!(fields.get(Role::Message), Some("ERROR pool timeout"));
    }

    #[test]
    fn a_loki_stream_is_one_record_per_value_and_paths_index_arrays() {
        let stream = serde_json::json!({"stream": {"pod": "api-1"}, "values": [["1790841486113000000", "a"], ["1790841487000000000", "b"]]});
        let recs = envelope_records(&stream);
        assert_eq!(recs.len(), 2);
        assert_eq!(lookup(&recs[1], "values.1"), Some(&Value::from("b")));
        assert_eq!(lookup(&recs[0], "stream.pod"), Some(&Value::from("api-1")));
        let other = serde_json::json!({"metric": {}, "values": [[1, "2"]]});
        assert_eq!(envelope_records(&other).len(), 1);
        assert_eq!(lookup(&other, "values.0.1"), Some(&Value::from("2")));
        assert_eq!(lookup(&other, "values.x"), None);
        let splunk =
            serde_json::json!({"fields": ["_raw", "_time"], "rows": [["a", "t1"], ["b", "t2"]]});
        let rows = envelope_records(&splunk);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1]["_raw"], "b");
        let azure = serde_json::json!({"name": "PrimaryResult", "columns": [{"name": "TimeGenerated", "type": "datetime"}], "rows": [["2026-10-01T07:58:06Z"]]});
        assert_eq!(
            envelope_records(&azure)[0]["TimeGenerated"],
            "2026-10-01T07:58:06Z"
        );
        let ragged = serde_json::json!({"fields": ["a"], "rows": [["x", "y"]]});
        assert_eq!(envelope_records(&ragged).len(), 1);
        assert!(envelope_records(&ragged)[0].get("rows").is_some());
        let event = serde_json::json!([1790841486.113456, {"log": "a"}]);
        assert_eq!(lookup(&event, "0"), Some(&Value::from(1790841486.113456)));
        assert_eq!(lookup(&event, "1.log"), Some(&Value::from("a")));
        assert_eq!(lookup(&event, "2"), None);
    }
}
