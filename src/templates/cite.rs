//! Findings -> the templates they rest on: each finding whose pattern
//! `parsers/templates.json` maps to signals gets, as evidence, the templates
//! whose lines carried those signals during the finding, most lines first.
//! A pattern no signal speaks for (a slow route, a growing backlog, a bad
//! deploy) cites instead the warning and error templates that were new or
//! surging in the incident and began during the finding, best ranked first:
//! what the logs started to say when it happened.
//!
//! In: findings, the [`TemplateSet`], its [`SurgeAnalysis`], the rules.
//! Out: the same findings with up to [`MAX_CITED`] more evidence items each.
//!
//! ```text
//! pool_exhaustion 07:57:00..08:01:35 + signal pool_exhausted
//! -> "log template `HikariPool-<num> - Connection is not available, ...` (t-1a2b3c4d): 1626 lines during this finding, first seen 07:58:06 UTC" (app.jsonl.gz:212)
//! ```

use chrono::DateTime;

use super::surge::{Status, Surge, SurgeAnalysis, LEAD};
use super::{Rules, Template, TemplateSet};
use crate::aggregate::Span;
use crate::correlate::Analysis;
use crate::event::Level;
use crate::patterns::{Evidence, Finding};

/// Templates cited per finding.
pub const MAX_CITED: usize = 2;
/// Characters of a template quoted in evidence.
const QUOTED_CHARS: usize = 120;

fn clock(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms)
        .map_or_else(String::new, |d| d.format("%H:%M:%S").to_string())
}

fn quoted(t: &Template) -> String {
    if t.text.chars().count() <= QUOTED_CHARS {
        return t.text.clone();
    }
    let cut: String = t.text.chars().take(QUOTED_CHARS).collect();
    format!("{cut}…")
}

/// Whether most of a template's records are warnings or worse: a surge of
/// info lines (a request log, a heartbeat) says nothing about a fault.
fn mostly_warnings(t: &Template) -> bool {
    let bad: u64 = t.stats.levels.iter().skip(Level::Warn as usize).sum();
    bad * 2 > t.stats.count
}

/// Add template evidence to every finding that has signals or surges to cite.
pub fn cite(
    findings: &mut [Finding],
    set: &TemplateSet,
    surges: Option<&SurgeAnalysis>,
    a: &Analysis,
    rules: &Rules,
) {
    for f in findings {
        if rules.surging_evidence.iter().any(|p| p == f.pattern) {
            if let Some(s) = surges {
                cite_surges(f, set, s, a);
            }
            continue;
        }
        let Some(signals) = rules.evidence.get(f.pattern) else {
            continue;
        };
        // Whole buckets: a line in the finding's first second is in its bucket.
        let b = set.bucket_s.max(1);
        let span = Span::new(
            f.start.div_euclid(1000).div_euclid(b) * b,
            f.end.div_euclid(1000) + 1,
        );
        let mut hits: Vec<(&Template, u64)> = Vec::new();
        for s in signals {
            for (t, n) in set.with_signal(*s, span) {
                if !hits.iter().any(|(h, _)| h.id == t.id) {
                    hits.push((t, n));
                }
            }
        }
        hits.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.text.cmp(&y.0.text)));
        for (t, n) in hits.into_iter().take(MAX_CITED) {
            f.evidence.push(Evidence::new(
                format!(
                    "log template `{}` ({}): {n} line(s) during this finding, first seen {} UTC",
                    quoted(t),
                    t.id,
                    clock(t.stats.first.0)
                ),
                a.source(t.stats.first.1),
            ));
        }
    }
}

/// The new or surging warning templates whose onset falls in the finding
/// (from [`LEAD`] seconds before its start), best ranked first.
fn cite_surges(f: &mut Finding, set: &TemplateSet, surges: &SurgeAnalysis, a: &Analysis) {
    let b = set.bucket_s.max(1);
    let span = Span::new(
        f.start.div_euclid(1000).div_euclid(b) * b,
        f.end.div_euclid(1000) + 1,
    );
    let from = f.start - LEAD * 1000;
    let picked: Vec<(&Surge, &Template)> = surges
        .ranked()
        .filter_map(|s| Some((s, set.templates.get(s.template)?)))
        .filter(|(s, t)| s.onset_ms >= from && s.onset_ms <= f.end && mostly_warnings(t))
        .take(MAX_CITED)
        .collect();
    for (s, t) in picked {
        let n = t.count_in(span, b);
        let how = match (s.status, s.ratio) {
            (Status::New, _) => "new in the incident".to_string(),
            (_, Some(r)) => format!("{r:.1}x its baseline rate"),
            _ => "none in the baseline".to_string(),
        };
        f.evidence.push(Evidence::new(
            format!(
                "log template `{}` ({}): {how}, {n} line(s) during this finding, from {} UTC",
                quoted(t),
                t.id,
                clock(s.onset_ms)
            ),
            a.source(t.stats.first.1),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Level, LogRecord, Origin, Signal};
    use crate::patterns::Subject;
    use crate::templates::Miner;
    use std::borrow::Cow;

    fn finding(pattern: &'static str) -> Finding {
        Finding {
            figures: Vec::new(),
            pattern,
            title: String::new(),
            confidence: 0.9,
            start: 10_000,
            end: 60_000,
            subject: Subject::default(),
            evidence: Vec::new(),
            timeline: Vec::new(),
            actions: &[],
        }
    }

    #[test]
    fn a_finding_cites_the_templates_of_its_signals_in_its_span() {
        let mut m = Miner::default();
        let lines = [
            (
                "HikariPool-1 - Connection is not available, request timed out after 30000ms.",
                20,
                true,
            ),
            (
                "HikariPool-1 - Connection is not available, request timed out after 30001ms.",
                30,
                true,
            ),
            (
                "HikariPool-1 - Connection is not available, request timed out after 30002ms.",
                90,
                true,
            ),
            ("too many connections for role app", 95, true),
            ("all good", 25, false),
        ];
        for (i, (msg, s, pool)) in lines.iter().enumerate() {
            m.add(&LogRecord {
                ts: s * 1000,
                origin: Origin {
                    input: 0,
                    line: i as u64 + 1,
                },
                level: Level::Error,
                message: Cow::Borrowed(msg),
                signal: pool.then_some(Signal::PoolExhausted),
                ..LogRecord::default()
            });
        }
        let set = TemplateSet::build(&m);
        let a = Analysis {
            inputs: vec!["app.log".to_string()],
            ..Analysis::default()
        };
        let mut f = vec![finding("pool_exhaustion"), finding("tenant_surge")];
        cite(&mut f, &set, None, &a, Rules::builtin_or_empty());
        assert_eq!(f[0].evidence.len(), 1, "{:?}", f[0].evidence);
        let e = &f[0].evidence[0];
        assert!(e.text.contains("Connection is not available"), "{}", e.text);
        assert!(e.text.contains(": 2 line(s)"), "{}", e.text);
        assert!(e.text.contains("first seen 00:00:20 UTC"), "{}", e.text);
        assert_eq!(e.source, "app.log:1");
        assert!(
            f[1].evidence.is_empty(),
            "no signal to cite for this pattern"
        );
    }

    #[test]
    fn a_deploy_regression_cites_the_error_templates_new_since_it_began() {
        let mut m = Miner::default();
        let mut lines: Vec<(String, i64, Level)> = Vec::new();
        for t in (0..1300).step_by(5) {
            lines.push((format!("GET /api/orders/{t} 200"), t, Level::Info));
        }
        for t in 1000..1100 {
            // An info surge: many more requests, which no fault report cites.
            lines.push((format!("GET /api/orders/{t} 200"), t, Level::Info));
            lines.push((format!("GET /api/orders/{t} 200"), t, Level::Info));
        }
        for t in 1010..1200 {
            lines.push((
                format!("NullPointerException in OrderMapper.map at line {t}"),
                t,
                Level::Error,
            ));
        }
        for t in 200..220 {
            // An error long before the finding: in the baseline, not new.
            lines.push((format!("disk {t} nearly full"), t, Level::Warn));
        }
        for (i, (msg, t, level)) in lines.iter().enumerate() {
            m.add(&LogRecord {
                ts: t * 1000,
                origin: Origin {
                    input: 0,
                    line: i as u64 + 1,
                },
                level: *level,
                message: Cow::Borrowed(msg),
                ..LogRecord::default()
            });
        }
        let set = TemplateSet::build(&m);
        let a = Analysis {
            inputs: vec!["app.log".to_string()],
            incident: Some(crate::correlate::Incident {
                onset: 1000,
                recovered: 1300,
                symptoms_start: 1000,
            }),
            baseline: Some(Span::new(0, 940)),
            ..Analysis::default()
        };
        let surges = crate::templates::surge::analyze(&set, &a).expect("an incident");
        let mut f = vec![finding("deploy_regression"), finding("tenant_surge")];
        f[0].start = 990_000;
        f[0].end = 1_300_000;
        cite(&mut f, &set, Some(&surges), &a, Rules::builtin_or_empty());
        assert_eq!(f[0].evidence.len(), 1, "{:?}", f[0].evidence);
        let e = &f[0].evidence[0].text;
        assert!(e.contains("NullPointerException"), "{e}");
        assert!(e.contains("new in the incident, 190 line(s)"), "{e}");
        assert!(e.contains("from 00:16:50 UTC"), "{e}");
        assert!(f[1].evidence.is_empty(), "tenant_surge cites no templates");
        // A finding that began after the template did cites nothing.
        let mut late = vec![finding("deploy_regression")];
        late[0].start = 1_150_000;
        late[0].end = 1_300_000;
        cite(
            &mut late,
            &set,
            Some(&surges),
            &a,
            Rules::builtin_or_empty(),
        );
        assert!(late[0].evidence.is_empty(), "{:?}", late[0].evidence);
    }
}
