//! Message templates: what the logs said, as a few hundred templates
//! instead of millions of lines, and which of them were new or surged when
//! the incident began.
//!
//! In: [`LogRecord`](crate::event::LogRecord)s (through the aggregates'
//! [`Miner`]) and, after correlation, the incident window. Out: a
//! [`TemplateSet`] (every template with its counts per time bucket, first
//! and last seen, level, instances, tenants, signals and up to three
//! examples), its [`surge::SurgeAnalysis`] against the baseline, evidence
//! for the findings ([`cite`]), and the report's `templates` array
//! ([`json`]).
//!
//! ```text
//! "HikariPool-1 - Connection is not available, request timed out after 30000ms." x 1626
//! -> template "HikariPool-<num> - Connection is not available, request timed out after <duration>.", new, first seen 07:58:06
//! ```
//!
//! How, and what was taken from where:
//! - Masking first (`mask.rs`), as Drain3's masking instructions and Loki's
//!   tokenizer do: ids, numbers, UUIDs, hex, IPs, e-mails, durations, paths,
//!   URLs and quoted values become typed placeholders. Like Elastic's
//!   `categorize_text` (`ml_standard` tokenizer), a token holding digits is
//!   never evidence of what a message is, and only the first tokens count.
//!   Structured records (JSON, logfmt) are templated by their message field,
//!   which parsing already picked out, never by their set of keys.
//! - Masked keys are counted exactly, per worker, and merged (`mine.rs`):
//!   the streaming, mergeable part. Memory is bounded by a ladder of coarser
//!   keys and wider buckets, then by dropping keys by hash (counted, and the
//!   report says so).
//! - Keys are clustered once, after the merge (`drain.rs`): Drain's
//!   fixed-depth prefix tree (He et al., 2017; Drain3's depth 4 and 100
//!   children), similarity over words only with Elastic's 50% threshold, in
//!   a fixed order, so the templates do not depend on thread count or line
//!   order. Clusters one word apart in a routing position are joined: that
//!   is how `HikariPool-1` and a pool called `primary` meet.
//! - Counts per 10-second bucket, Loki's pattern volume resolution.
//!
//! Signals are still found per line by the catalogue (`parsers/signals.json`)
//! during parsing: several of its patterns read numbers (`\b429\b`,
//! `hikaripool-\d+ - added connection`) or continuation lines that a key
//! masks or leaves out, so a key cannot stand for its lines there. A
//! template records the signals its lines carried; detectors can ask for the
//! templates behind a signal with [`TemplateSet::with_signal`].

pub mod cite;
mod drain;
pub mod json;
mod mask;
mod mine;
mod rules;
mod sketch;
pub mod surge;

pub use mine::{Example, KeyStats, Miner, Step, CELL_CAP, KEY_CAP, LEVELS};
pub use rules::{Rules, TemplateError};

use crate::aggregate::Span;
use crate::event::Signal;
use crate::redact::fnv1a;

/// One template: its text and the figures of every key it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Template {
    /// `t-` and 8 hex digits of the text's hash: stable across runs.
    pub id: String,
    pub text: String,
    pub stats: KeyStats,
    /// Distinct message keys folded into it.
    pub keys: usize,
}

impl Template {
    /// Records in `span` (seconds), counted by bucket: a bucket counts when
    /// it starts inside the span.
    pub fn count_in(&self, span: Span, bucket_s: i64) -> u64 {
        self.stats
            .buckets(bucket_s)
            .filter(|(b, _)| span.contains(*b))
            .map(|(_, n)| u64::from(n))
            .sum()
    }

    /// Records that carried `signal`.
    pub fn signal_count(&self, signal: Signal) -> u64 {
        self.stats
            .signals
            .iter()
            .find(|(s, _)| *s == signal)
            .map_or(0, |(_, n)| *n)
    }
}

/// Every template of a run, most records first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TemplateSet {
    pub templates: Vec<Template>,
    /// Bucket width of the counts, seconds.
    pub bucket_s: i64,
    /// Set when the miner had to climb its memory ladder.
    pub coarsened: Option<Step>,
    /// Records whose key was dropped on the ladder's last step.
    pub dropped: u64,
}

impl TemplateSet {
    /// Cluster the merged miner's keys into templates.
    pub fn build(miner: &Miner) -> TemplateSet {
        let keys = miner.keys();
        let counts: Vec<(&str, u64)> = keys.iter().map(|(k, s)| (*k, s.count)).collect();
        let mut templates: Vec<Template> = drain::cluster(&counts)
            .into_iter()
            .map(|c| {
                let mut stats = KeyStats::default();
                for &i in &c.keys {
                    if let Some((_, s)) = keys.get(i) {
                        stats.merge((*s).clone());
                    }
                }
                let text = c.template();
                Template {
                    id: format!("t-{:08x}", (fnv1a(text.as_bytes()) >> 32) as u32),
                    text,
                    stats,
                    keys: c.keys.len(),
                }
            })
            .collect();
        templates.sort_by(|a, b| b.stats.count.cmp(&a.stats.count).then(a.text.cmp(&b.text)));
        TemplateSet {
            templates,
            bucket_s: miner.step().bucket_s,
            coarsened: miner.coarsened().then(|| miner.step()),
            dropped: miner.dropped(),
        }
    }

    /// The hook for detectors and evidence: templates whose records carried
    /// `signal`, with how many of their records fall in `window` (seconds),
    /// most first; templates with none in the window are left out.
    pub fn with_signal(&self, signal: Signal, window: Span) -> Vec<(&Template, u64)> {
        let mut v: Vec<(&Template, u64)> = self
            .templates
            .iter()
            .filter(|t| t.signal_count(signal) > 0)
            .map(|t| (t, t.count_in(window, self.bucket_s)))
            .filter(|(_, n)| *n > 0)
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.text.cmp(&b.0.text)));
        v
    }

    /// What the report must say about the mining itself.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if let Some(step) = self.coarsened {
            let keys = if step.tokens < mask::MAX_TOKENS {
                format!(
                    ", templates made from each message's first {} words",
                    step.tokens
                )
            } else {
                String::new()
            };
            w.push(format!(
                "more than {KEY_CAP} distinct log messages or {CELL_CAP} (message, bucket) counts: template counts are per {} s{keys}",
                step.bucket_s
            ));
        }
        if self.dropped > 0 {
            w.push(format!(
                "{} log record(s) of rarer messages were left out of the templates (over {KEY_CAP} distinct even when cut short; kept by hash, the same whatever the split)",
                self.dropped
            ));
        }
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Level, LogRecord, Origin};
    use std::borrow::Cow;

    fn miner(lines: &[(&str, i64)]) -> Miner {
        let mut m = Miner::default();
        for (i, (msg, ts)) in lines.iter().enumerate() {
            m.add(&LogRecord {
                ts: *ts,
                origin: Origin {
                    input: 0,
                    line: i as u64 + 1,
                },
                level: Level::Error,
                message: Cow::Borrowed(msg),
                signal: msg
                    .contains("not available")
                    .then_some(Signal::PoolExhausted),
                ..LogRecord::default()
            });
        }
        m
    }

    #[test]
    fn pool_messages_of_any_pool_and_wait_are_one_template_with_exact_count() {
        let mut lines = Vec::new();
        for i in 0..37 {
            lines.push((
                format!(
                    "HikariPool-{} - Connection is not available, request timed out after {}ms.",
                    i % 3,
                    1000 + i * 7
                ),
                i as i64 * 1000,
            ));
        }
        for i in 0..5 {
            lines.push((
                format!("primary - Connection is not available, request timed out after {i}ms."),
                40_000 + i as i64,
            ));
        }
        lines.push(("Tomcat started on port(s): 8080 (http)".to_string(), 0));
        let refs: Vec<(&str, i64)> = lines.iter().map(|(m, t)| (m.as_str(), *t)).collect();
        let set = TemplateSet::build(&miner(&refs));
        assert_eq!(set.templates.len(), 2, "{:?}", set.templates);
        let t = &set.templates[0];
        assert_eq!(
            t.text,
            "<*> - Connection is not available, request timed out after <duration>."
        );
        assert_eq!(t.stats.count, 42);
        assert_eq!(t.keys, 2);
        assert_eq!(t.count_in(Span::new(0, 30), set.bucket_s), 30);
        let hits = set.with_signal(Signal::PoolExhausted, Span::new(0, 100));
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].1, 42);
        assert!(set
            .with_signal(Signal::PoolExhausted, Span::new(100, 200))
            .is_empty());
        assert!(t.id.starts_with("t-") && t.id.len() == 10);
        assert!(set.warnings().is_empty());
    }
}
