//! Format kinds that a regex or a JSON field mapping cannot express (CSV
//! with a header, Prometheus API documents, ...): one small module each,
//! registered in [`extractor`]. Each turns a line or a JSON document into
//! the same [`Fields`] the data-driven kinds give, so parsing downstream is
//! one path for every format.
//!
//! Adding a kind: a variant in `DefinitionKind` (definition.rs), a module
//! here implementing [`Extractor`], one arm in [`extractor`], and a data file
//! under `parsers/` that uses it, with samples.

mod prometheus;

use serde_json::Value;

use super::compile::Fields;
use super::definition::{Definition, DefinitionKind};

/// Why a line or document gave no record.
pub type Skip = &'static str;

/// Reads one input of a code kind. A fresh extractor is made per input, so
/// it may keep state (a CSV header, the current metric family).
pub trait Extractor: Send {
    /// Records in one physical line. `Ok(vec![])` means the line was
    /// understood but holds no record (a header, a comment).
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip>;

    /// Records in one whole JSON document (pretty-printed inputs).
    fn document<'a>(&mut self, doc: &'a Value) -> Result<Vec<Fields<'a>>, Skip> {
        let _ = doc;
        Err("this format does not read JSON documents")
    }

    /// For inputs whose records span lines: how well the head's text looks
    /// like this kind (0..=1). Line-oriented kinds are scored by [`Extractor::line`].
    fn sniff(&self, head: &str) -> f64 {
        let _ = head;
        0.0
    }
}

/// The extractor of a code kind, or `None` for the data-driven kinds
/// (`regex`, `json`), which the format reads itself.
pub fn extractor(def: &Definition) -> Option<Box<dyn Extractor>> {
    match def.kind {
        DefinitionKind::Regex | DefinitionKind::Json | DefinitionKind::Envelope => None,
        DefinitionKind::PrometheusMatrix => Some(Box::new(prometheus::Matrix)),
    }
}
