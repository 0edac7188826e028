//! What a detector emits: a [`Finding`] with its evidence, each figure tied
//! to the input it came from.

use crate::correlate::TimelineEntry;
use crate::event::Millis;

/// The confidence from which a finding is called a cause; below it, it is a
/// weaker signal, listed as such, and its timeline entries stay out of the
/// timeline (a weak retry finding must not state as fact that a customer
/// retried).
pub const SUPPORTED: f64 = 0.5;

/// Who or what a finding is about.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Subject {
    pub tenant: Option<String>,
    pub integration: Option<String>,
    pub instance: Option<String>,
    pub endpoint: Option<String>,
}

/// One figure and where it came from (`access.log:10233`, or a file and series).
#[derive(Clone, Debug, PartialEq)]
pub struct Evidence {
    pub text: String,
    pub source: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// The pattern id from `patterns.md`.
    pub pattern: &'static str,
    pub title: String,
    pub confidence: f64,
    pub start: Millis,
    pub end: Millis,
    pub subject: Subject,
    pub evidence: Vec<Evidence>,
    /// Timeline entries this finding adds (retries, reconnects).
    pub timeline: Vec<TimelineEntry>,
    /// Remediations the seed postmortems chose for this pattern.
    pub actions: &'static [&'static str],
    /// Figures a later stage reads as numbers, not out of the evidence's
    /// text (the share of requests that were retries): named by the
    /// detector's constants.
    pub figures: Vec<(&'static str, f64)>,
}

impl Evidence {
    pub fn new(text: impl Into<String>, source: impl Into<String>) -> Evidence {
        Evidence {
            text: text.into(),
            source: source.into(),
        }
    }
}

/// Confidence is a probability-like score: kept in [0, 1] and rounded so
/// that float noise never changes the report's bytes.
pub fn confidence(v: f64) -> f64 {
    (v.clamp(0.0, 1.0) * 100.0).round() / 100.0
}

/// A share as a reader says it: "42%", "0.1%".
pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p >= 10.0 || p == 0.0 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
}
