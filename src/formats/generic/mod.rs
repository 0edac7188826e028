//! The generic reader: the last resort below every specific definition (as
//! lnav keeps its `generic_log` below every format). It reads the structure
//! most logs share instead of one layout: a time of a common shape near the
//! start of the line, then an optional level, process id, thread and
//! logger, then the message; `key=value` pairs and a trailing JSON object
//! in the message become labels, and a level, a message or a host or pod
//! written there is taken from them. Its vocabulary (timestamp shapes,
//! level words, key names, the shapes of stack-trace lines) is data: the
//! `generic` object of a `generic` definition (`parsers/app/generic_log.json`).
//!
//! In: one line. Out: its [`Fields`] (`ts`, `level`, `message`, `instance`,
//! labels `pid`, `thread`, `logger` and the harvested pairs), or `None`
//! when no time stands near its start.
//!
//! ```text
//! 17/06/09 20:10:40 INFO spark.SecurityManager: Changing view acls to: yarn
//!   -> ts "17/06/09 20:10:40", level INFO, logger spark.SecurityManager, message "Changing view acls to: yarn"
//! ```
//!
//! What it cannot know: which words are a request (it never makes one),
//! what a field means beyond the keys it is told, or a time written in a
//! shape the table does not hold.

mod harvest;
mod header;
mod shapes;
#[cfg(test)]
mod tests;

use regex::{Regex, RegexSet};
use rustc_hash::FxHashSet;
use serde::Deserialize;
use std::borrow::Cow;

use super::compile::Fields;
use super::role::Role;
pub use shapes::{Found, ShapeSpec, Shapes};

/// The `generic` object of a definition: the reader's vocabulary.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenericSpec {
    /// Timestamp shapes, tried in order.
    pub timestamps: Vec<ShapeSpec>,
    /// Tokens that may stand before the time (a file name, a process tag).
    #[serde(default)]
    pub prefix_tokens: usize,
    /// Words that name a level (any case).
    pub levels: Vec<String>,
    /// Keys of a harvested pair that hold the level, the message, the instance.
    pub level_keys: Vec<String>,
    pub message_keys: Vec<String>,
    pub instance_keys: Vec<String>,
    /// Keys of a JSON object's error detail (an exception, a traceback),
    /// read for what the record signals beside its message; never the whole
    /// object, whose times and ids can look like a status code.
    #[serde(default)]
    pub detail_keys: Vec<String>,
    /// Regexes of lines that continue the record above them when nothing
    /// reads them on their own: stack frames, indented detail lines.
    pub continuations: Vec<String>,
    /// Regexes of decorations removed from every line of an input whose
    /// head holds them, before any format reads it (ANSI colour codes).
    #[serde(default)]
    pub strip: Vec<String>,
}

/// What [`Generic::read_object`] finds in a JSON object line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectFields {
    pub level: Option<String>,
    pub message: String,
    pub instance: Option<String>,
    /// The values under the detail keys, joined by newlines (empty if none).
    pub detail: String,
}

/// The compiled reader.
#[derive(Debug)]
pub struct Generic {
    shapes: Shapes,
    levels: FxHashSet<String>,
    level_keys: Vec<String>,
    message_keys: Vec<String>,
    instance_keys: Vec<String>,
    detail_keys: Vec<String>,
    continuations: RegexSet,
    strip: Option<Regex>,
    formats: Vec<String>,
}

impl Generic {
    pub fn compile(spec: &GenericSpec) -> Result<Generic, String> {
        let continuations =
            RegexSet::new(&spec.continuations).map_err(|e| format!("continuations: {e}"))?;
        let mut formats: Vec<String> = Vec::new();
        for f in spec.timestamps.iter().flat_map(|s| &s.formats) {
            if !formats.contains(f) {
                formats.push(f.clone());
            }
        }
        let strip = match spec.strip.as_slice() {
            [] => None,
            all => Some(Regex::new(&all.join("|")).map_err(|e| format!("strip: {e}"))?),
        };
        Ok(Generic {
            strip,
            shapes: Shapes::compile(&spec.timestamps, spec.prefix_tokens)?,
            levels: spec.levels.iter().map(|l| l.to_ascii_lowercase()).collect(),
            level_keys: spec.level_keys.clone(),
            message_keys: spec.message_keys.clone(),
            instance_keys: spec.instance_keys.clone(),
            detail_keys: spec.detail_keys.clone(),
            continuations,
            formats,
        })
    }

    /// The strftime formats the shapes need, for the time parser.
    pub fn timestamp_formats(&self) -> &[String] {
        &self.formats
    }

    pub fn shapes(&self) -> &Shapes {
        &self.shapes
    }

    /// Whether `word` names a level.
    pub fn is_level(&self, word: &str) -> bool {
        word.len() <= 12 && self.levels.contains(&word.to_ascii_lowercase())
    }

    /// Whether a line continues the record above it (a stack frame, an
    /// indented detail line).
    pub fn continues(&self, line: &str) -> bool {
        self.continuations.is_match(line)
    }

    /// Whether `line` holds a decoration to strip (an escape character).
    pub fn decorated(&self, line: &str) -> bool {
        self.strip.is_some() && memchr::memchr(0x1b, line.as_bytes()).is_some()
    }

    /// `line` without its decorations.
    pub fn strip<'l>(&self, line: &'l str) -> Cow<'l, str> {
        match &self.strip {
            Some(re) if self.decorated(line) => re.replace_all(line, ""),
            _ => Cow::Borrowed(line),
        }
    }

    /// A line that is one JSON object and nothing else (a JSON logger's
    /// record inside an envelope that gave its time): its level, message and
    /// instance from the keys the reader knows, or `None` when it is not
    /// such an object or names no message. Lets a record be grouped by what
    /// it says rather than by its whole text.
    pub fn read_object(&self, line: &str) -> Option<ObjectFields> {
        let t = line.trim();
        if !t.starts_with('{') {
            return None;
        }
        let (before, pairs) = harvest::trailing_json(t)?;
        if !before.is_empty() {
            return None;
        }
        let pair = |keys: &[String]| {
            keys.iter().find_map(|k| {
                pairs
                    .iter()
                    .find(|(pk, _)| pk == k)
                    .map(|(_, v)| v.to_string())
            })
        };
        let message = pair(&self.message_keys)?;
        Some(ObjectFields {
            level: pair(&self.level_keys).filter(|v| self.is_level(v) || v.parse::<u8>().is_ok()),
            message,
            instance: pair(&self.instance_keys).filter(|i| !i.is_empty()),
            detail: pairs
                .iter()
                .filter(|(k, _)| self.detail_keys.iter().any(|d| d == k))
                .map(|(_, v)| v.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        })
    }

    /// The fields of one line, or `None` when no time stands near its start.
    pub fn read<'a>(&self, line: &'a str) -> Option<Fields<'a>> {
        let found = self.shapes.find(line)?;
        let mut rest = &line[found.end..];
        if let Some(close) = found.close {
            // A time in brackets: the bracket closes right after it, or
            // after a zone or fraction the shape did not take.
            match rest.find(close as char) {
                Some(i) if i <= 8 => rest = &rest[i + 1..],
                _ => {}
            }
        }
        let h = header::read(rest, &|w| self.is_level(w));
        let mut fields = Fields::default();
        fields.set(Role::Ts, Cow::Borrowed(&line[found.start..found.end]));
        // Monolog ends a record with its context and an `extra` array.
        let mut message = h.message;
        for tail in [" []", " [] []"] {
            if let Some(m) = message.strip_suffix(tail) {
                message = m;
            }
        }
        let mut pairs = Vec::new();
        if let Some((before, json)) = harvest::trailing_json(message) {
            message = before;
            pairs.extend(json);
        }
        let mut words = Vec::new();
        harvest::key_values(message, &mut words);
        pairs.extend(words);
        let pair = |keys: &[String]| {
            keys.iter()
                .find_map(|k| pairs.iter().find(|(pk, _)| pk == k).map(|(_, v)| v.clone()))
        };
        let level = h.level.map(Cow::Borrowed).or_else(|| {
            pair(&self.level_keys).filter(|v| self.is_level(v) || v.parse::<u8>().is_ok())
        });
        if let Some(l) = level {
            fields.set(Role::Level, l);
        }
        let text = pair(&self.message_keys).unwrap_or(Cow::Borrowed(message));
        fields.set(Role::Message, text);
        if let Some(i) = pair(&self.instance_keys).filter(|i| !i.is_empty()) {
            fields.set(Role::Instance, i);
        }
        for (k, v) in [("pid", h.pid), ("thread", h.thread), ("logger", h.logger)] {
            if let Some(v) = v {
                fields.set_label(k, v);
            }
        }
        for (k, v) in pairs {
            fields.set_label(k, v);
        }
        Some(fields)
    }
}
