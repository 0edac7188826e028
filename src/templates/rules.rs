//! The template rules kept as data (`parsers/templates.json`): which unit
//! words make a number a duration, and which signals' templates each pattern
//! cites. Embedded at build time, read once.
//!
//! In: the JSON file. Out: [`Rules`], or a [`TemplateError`] naming what is
//! wrong with it.

use miette::Diagnostic;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;
use thiserror::Error;

use crate::event::Signal;

const FILE: &str = "parsers/templates.json";

/// Longest unit word looked up, in bytes (`minutes`, `seconds`).
pub(crate) const MAX_UNIT_LEN: usize = 8;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    #[serde(rename = "$comment", default)]
    _comment: Option<String>,
    duration_units: Vec<String>,
    evidence: BTreeMap<String, Vec<Signal>>,
    #[serde(default)]
    surging_evidence: Vec<String>,
}

/// Errors of the template stage: only its rule file can be wrong.
#[derive(Debug, Error, Diagnostic)]
pub enum TemplateError {
    #[error("built-in rule file {file} is broken: {message}")]
    #[diagnostic(
        code(postmortem::templates::rules),
        help("the file is embedded at build time: fix it and rebuild")
    )]
    Rules { file: &'static str, message: String },
}

/// The compiled rules.
#[derive(Debug, Default)]
pub struct Rules {
    /// Lowercase unit words, each at most [`MAX_UNIT_LEN`] bytes.
    duration_units: Vec<String>,
    /// Pattern id -> the signals its findings cite templates of.
    pub evidence: BTreeMap<String, Vec<Signal>>,
    /// Pattern ids whose findings cite the new or surging warning and error
    /// templates that began during them (patterns no signal speaks for).
    pub surging_evidence: Vec<String>,
}

impl Rules {
    /// Read a rule file's text.
    pub fn parse(text: &str) -> Result<Rules, TemplateError> {
        let bad = |message: String| TemplateError::Rules {
            file: FILE,
            message,
        };
        let f: RuleFile = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        let mut duration_units = Vec::new();
        for u in f.duration_units {
            let lower = u.to_lowercase();
            if lower.is_empty() || lower.len() > MAX_UNIT_LEN {
                return Err(bad(format!(
                    "duration unit `{u}`: 1 to {MAX_UNIT_LEN} bytes"
                )));
            }
            duration_units.push(lower);
        }
        Ok(Rules {
            duration_units,
            evidence: f.evidence,
            surging_evidence: f.surging_evidence,
        })
    }

    /// The built-in rules, read once.
    pub fn builtin() -> Result<&'static Rules, TemplateError> {
        static RULES: OnceLock<Result<Rules, TemplateError>> = OnceLock::new();
        match RULES.get_or_init(|| Rules::parse(include_str!("../../parsers/templates.json"))) {
            Ok(r) => Ok(r),
            Err(TemplateError::Rules { file, message }) => Err(TemplateError::Rules {
                file,
                message: message.clone(),
            }),
        }
    }

    /// The built-in rules, or none if the file is broken: the miner inside
    /// the aggregates has no way to fail, and `run` checks
    /// [`Rules::builtin`] before reading anything.
    pub(crate) fn builtin_or_empty() -> &'static Rules {
        static EMPTY: Rules = Rules {
            duration_units: Vec::new(),
            evidence: BTreeMap::new(),
            surging_evidence: Vec::new(),
        };
        Rules::builtin().unwrap_or(&EMPTY)
    }

    /// Whether `word` (ASCII letters or `µ`, any case) is a duration unit.
    pub(crate) fn is_duration_unit(&self, word: &[u8]) -> bool {
        if word.is_empty() || word.len() > MAX_UNIT_LEN {
            return false;
        }
        let mut low = [0u8; MAX_UNIT_LEN];
        for (d, s) in low.iter_mut().zip(word) {
            *d = s.to_ascii_lowercase();
        }
        let low = low.get(..word.len()).unwrap_or_default();
        self.duration_units.iter().any(|u| u.as_bytes() == low)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_file_reads() {
        let r = Rules::builtin().expect("parsers/templates.json");
        for (word, unit) in [
            ("ms", true),
            ("MS", true),
            ("seconds", true),
            ("µs", true),
            ("mb", false),
            ("st", false),
            ("", false),
        ] {
            assert_eq!(r.is_duration_unit(word.as_bytes()), unit, "{word}");
        }
        assert_eq!(
            r.evidence.get("pool_exhaustion").map(Vec::as_slice),
            Some(&[Signal::PoolExhausted][..])
        );
    }

    #[test]
    fn a_broken_file_is_an_error_that_names_it() {
        for (name, text) in [
            ("not json", "{"),
            (
                "unknown key",
                r#"{"duration_units": [], "evidence": {}, "x": 1}"#,
            ),
            (
                "unknown signal",
                r#"{"duration_units": [], "evidence": {"p": ["nope"]}}"#,
            ),
            (
                "unit too long",
                r#"{"duration_units": ["fortnights"], "evidence": {}}"#,
            ),
        ] {
            let e = Rules::parse(text).expect_err(name);
            assert!(e.to_string().contains("templates.json"), "{name}: {e}");
        }
    }
}
