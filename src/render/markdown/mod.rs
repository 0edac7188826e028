//! The Markdown draft: the sections of the spec's "The report (Markdown)",
//! in its order, every figure from the [`Report`]. A section with nothing to
//! go on says what could not be determined instead of disappearing.
//!
//! In: a [`Report`] and [`Options`]. Out: the draft as one string. The work
//! is split one section per file; this file holds the order of the
//! sections and the [`Draft`] every section reads: the supported findings
//! in causal order, the culprit the consistency pass let through, the
//! warnings it raised, and the registry of source footnotes.
//!
//! ```text
//! Report { incident: { found: true, .. }, findings: [retry_storm, tenant_surge, ..] }
//!   -> "# Incident on 2026-10-01: ...\n\n## Summary\n...## What happened\n..."
//! ```

use std::fmt::Write;

use super::time::{date, duration, hms, local_hms, zone_label};
use crate::report::{CulpritFigures, FindingJson, Report, SpanJson};

mod actions;
mod appendix;
mod cascade;
mod checks;
mod findings;
mod impact;
mod questions;
mod recovery;
mod ruled_out;
mod sources;
mod story;
mod summary;
mod timeline;
mod wording;

#[cfg(test)]
mod fixture;

use sources::Sources;

/// How the draft is written beyond the report itself.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Where the chart SVGs are, as the Markdown links them (`--assets`):
    /// each chart is then an image instead of a Mermaid block.
    pub assets: Option<String>,
}

/// What every section reads: the report and what the consistency pass made
/// of it, computed once so that no two sections judge the same thing apart
/// (a summary that says "no known cascade pattern explains them" above two
/// findings that do was such a split).
pub(crate) struct Draft<'a> {
    pub r: &'a Report,
    /// Supported findings, trigger first, then what ran out, then what
    /// amplified it (ties by start time).
    pub findings: Vec<&'a FindingJson>,
    /// Findings below [`crate::patterns::SUPPORTED`].
    pub weak: Vec<&'a FindingJson>,
    /// The blamed client, only when a supported finding names it.
    pub culprit: Option<&'a CulpritFigures>,
    /// What the consistency pass found wrong, shown in the draft.
    pub warnings: Vec<String>,
    /// The folder every input is in (`samples/bulk-export/`), said once in
    /// the header; the draft names inputs below it (see [`input_root`]).
    pub root: String,
}

/// Below this a weaker finding is no signal worth a line of the draft (the
/// JSON keeps it).
const NO_SIGNAL: f64 = 0.1;

impl<'a> Draft<'a> {
    pub fn new(r: &'a Report) -> Draft<'a> {
        let (findings, weak) = cascade::ordered(&r.findings, r.incident.onset.as_deref());
        let checked = checks::check(r, &findings);
        Draft {
            r,
            findings,
            weak,
            culprit: checked.culprit,
            warnings: checked.warnings,
            root: input_root(r.inputs.iter().map(|i| i.path.as_str())),
        }
    }

    /// A path or source (`path:line`, `path (series)`) below the inputs'
    /// folder, as the draft names it.
    pub fn short<'s>(&self, source: &'s str) -> &'s str {
        below(&self.root, source)
    }

    /// The weaker findings the draft lists as signals: not those ruled out
    /// (said under Ruled out), nor those at next to no confidence ("clients
    /// retried ... (0.00)" read as a claim that they did).
    pub fn weak_signals(&self) -> Vec<&'a FindingJson> {
        self.weak
            .iter()
            .copied()
            .filter(|f| f.confidence >= NO_SIGNAL)
            .filter(|f| !ruled_out::coupling_ruled_out(self, f))
            .collect()
    }

    /// The first supported finding of `pattern`, in causal order.
    pub fn finding(&self, pattern: &str) -> Option<&'a FindingJson> {
        self.findings.iter().copied().find(|f| f.pattern == pattern)
    }

    /// A finding's role in this incident (see [`cascade::role_among`]).
    pub fn role(&self, f: &FindingJson) -> cascade::Role {
        cascade::role_among(f, &self.r.findings, self.r.incident.onset.as_deref()).0
    }

    pub fn has(&self, pattern: &str) -> bool {
        self.finding(pattern).is_some()
    }

    /// Demand across many clients set the incident off: traffic rose, no
    /// one client explains it, and it had risen before the first failure:
    /// in the requests, or in queued work that piled up first (jobs pushed
    /// at a capped rate grow the queue, not the request rate). Traffic that
    /// rose only after the failures is the clients' answer to them.
    pub fn demand_grew(&self) -> bool {
        let attr = &self.r.attribution;
        let queued_first = || {
            let first_failure = self
                .r
                .timeline
                .iter()
                .find(|e| e.kind == crate::correlate::TimelineKind::ErrorsStart)
                .map(|e| e.ts.as_str());
            self.finding("backlog_growth")
                .is_some_and(|f| first_failure.is_none_or(|e| f.start.as_str() < e))
        };
        let new_work = self.new_work().is_none_or(|(_, fresh)| {
            fresh
                >= crate::correlate::attribution::GREW_RATIO
                    * self.r.extra.attribution_baseline_rate
        });
        attr.organic
            && attr.grew
            && (self.r.extra.demand_after.is_none() || queued_first())
            && new_work
    }

    /// Where a supported retry storm says what share of the incident's
    /// requests were re-sent failures: that share, and the window's rate
    /// without them (req/s). Retries are the failure answered, not new
    /// demand: a rise made of them is no growth that outran capacity.
    pub fn new_work(&self) -> Option<(f64, f64)> {
        let share = self
            .finding(crate::patterns::retry_storm::ID)?
            .figures
            .iter()
            .find(|(k, _)| *k == crate::patterns::retry_storm::RESENT_SHARE)?
            .1;
        let win = self.r.extra.attribution_window_rate;
        Some((share, win * (1.0 - share.clamp(0.0, 1.0))))
    }
}

/// How bad the incident was for the customers, in words: from the share of
/// their requests that failed (everyone else's where a client is blamed,
/// its own failures being its doing). "Degraded" over 96% failed undersold
/// a near-total outage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Severity {
    Degraded,
    /// Most requests failed.
    Severe,
    /// Next to nothing was served.
    Down,
}

/// At least this share failed: most requests.
const MOST_FAILED: f64 = 0.5;
/// At least this share failed: next to nothing was served.
const NEARLY_ALL_FAILED: f64 = 0.9;

impl Severity {
    fn of_share(failed: f64) -> Severity {
        if failed >= NEARLY_ALL_FAILED {
            Severity::Down
        } else if failed >= MOST_FAILED {
            Severity::Severe
        } else {
            Severity::Degraded
        }
    }

    /// "the service was {state} for 12 min".
    pub fn state(self) -> &'static str {
        match self {
            Severity::Degraded => "degraded",
            Severity::Severe => "severely degraded",
            Severity::Down => "mostly down",
        }
    }

    /// "Incident on 2026-03-12: 12 min of {kind}".
    pub fn kind(self) -> &'static str {
        match self {
            Severity::Degraded => "degraded service",
            Severity::Severe => "severely degraded service",
            Severity::Down => "near-total outage",
        }
    }
}

impl Draft<'_> {
    pub fn severity(&self) -> Severity {
        let failed = match self.culprit {
            Some(c) if c.others_requests > 0 => c.others_failed as f64 / c.others_requests as f64,
            _ if self.r.extra.has_requests => self.r.impact.failed_share,
            _ => 0.0,
        };
        Severity::of_share(failed)
    }
}

pub fn render(r: &Report) -> String {
    render_with(r, &Options::default())
}

pub fn render_with(r: &Report, opts: &Options) -> String {
    let d = Draft::new(r);
    let mut src = Sources::default();
    let mut out = String::new();
    header(&mut out, &d);
    summary::section(&mut out, &d);
    impact::section(&mut out, &d);
    timeline::section(&mut out, &d, &mut src);
    story::section(&mut out, &d);
    findings::section(&mut out, &d, &mut src);
    ruled_out::section(&mut out, &d);
    recovery::section(&mut out, &d);
    questions::section(&mut out, &d);
    actions::section(&mut out, &d);
    appendix::section(&mut out, &d, opts, &mut src);
    out
}

fn header(out: &mut String, d: &Draft<'_>) {
    let r = d.r;
    let title = match (&r.incident.onset, r.incident.found) {
        (Some(o), true) => format!(
            "Incident on {}: {} of {}",
            date(o),
            duration(r.incident.duration_s.unwrap_or(0)),
            d.severity().kind()
        ),
        _ => "No incident found".to_string(),
    };
    let _ = writeln!(out, "# {title}\n");
    let names: Vec<String> = r
        .inputs
        .iter()
        .map(|i| format!("`{}`", d.short(&i.path)))
        .collect();
    let root = if d.root.is_empty() {
        String::new()
    } else {
        format!(" in `{}`", d.root)
    };
    let _ = writeln!(
        out,
        "> **Status: draft**, generated by {} from {} input(s){root}: {}. Every figure below comes from these inputs; check them before publishing.\n",
        r.generator,
        r.inputs.len(),
        names.join(", ")
    );
    // A contradiction the pass could not fix at its source is said where a
    // reader cannot miss it, never dropped silently.
    for w in &d.warnings {
        let _ = writeln!(out, "> **Check:** {w}\n");
    }
}

/// `source` without the inputs' folder `root` (see [`input_root`]); whole
/// when it is not below it.
pub(crate) fn below<'s>(root: &str, source: &'s str) -> &'s str {
    source
        .strip_prefix(root)
        .filter(|rest| !root.is_empty() && !rest.is_empty())
        .unwrap_or(source)
}

/// The deepest folder that holds every input, with its trailing slash
/// (empty when they share none, or an input is standard input): inputs
/// are mostly one export's folder, and its path written out in every
/// footnote, table row and header made a third of a draft.
///
/// ```text
/// ["/tmp/x/in/access.log", "/tmp/x/in/logs/a.json"] -> "/tmp/x/in/"
/// ["access.log"] -> ""
/// ```
pub(crate) fn input_root<'p>(paths: impl Iterator<Item = &'p str>) -> String {
    let mut root: Option<&str> = None;
    for p in paths {
        let Some(dir) = p.rfind('/').and_then(|i| p.get(..=i)) else {
            return String::new();
        };
        root = Some(match root {
            None => dir,
            Some(r) => {
                // The longest common prefix that ends at a slash.
                let common = r
                    .char_indices()
                    .zip(dir.chars())
                    .take_while(|((_, a), b)| a == b)
                    .filter(|((_, a), _)| *a == '/')
                    .last()
                    .map_or(0, |((i, _), _)| i + 1);
                r.get(..common).unwrap_or_default()
            }
        });
    }
    root.unwrap_or_default().to_string()
}

/// `The deploy of ...` -> `the deploy of ...`, leaving a leading name
/// (`acct-4411 ...`, `` `web` ``) as it is.
pub(crate) fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f)
            if f.is_ascii_uppercase()
                && c.clone().next().is_some_and(|n| n.is_ascii_lowercase()) =>
        {
            f.to_ascii_lowercase().to_string() + c.as_str()
        }
        _ => s.to_string(),
    }
}

/// A table cell: no pipe or line break may end it early.
pub(crate) fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

pub(crate) fn pct(v: f64) -> String {
    let p = v * 100.0;
    if p == 0.0 {
        "0%".to_string()
    } else if p < 0.1 {
        "<0.1%".to_string()
    } else if p < 10.0 {
        format!("{p:.1}%")
    } else {
        format!("{p:.0}%")
    }
}

/// `27190` -> `27,190`: headline counts are read, not parsed.
pub(crate) fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// "about 1 in 5" for a share: how a customer reads a failure rate.
/// How far (relative) 1/N may be from the share it rounds: 45% is about 1
/// in 2 and 30% about 1 in 3, 42% is neither.
const ONE_IN_NEAR: f64 = 0.12;

pub(crate) fn one_in(failed: u64, total: u64) -> Option<String> {
    if failed == 0 || total == 0 {
        return None;
    }
    // The N whose 1/N is nearest the share, not the nearest N to its
    // inverse: 22% is about 1 in 5 (20%), not 1 in 4 (25%).
    let p = failed as f64 / total as f64;
    // Most failed: a share reads better than "1 in 2" for 75%.
    if p > 0.5 {
        return None;
    }
    let inv = 1.0 / p;
    let (lo, hi) = (inv.floor().max(1.0), inv.ceil().max(1.0));
    let n = if (1.0 / lo - p).abs() <= (1.0 / hi - p).abs() {
        lo
    } else {
        hi
    } as u64;
    // Only where 1/N is near the share: "42%, about 1 in 2" read as a
    // contradiction (review of a thundering-herd draft).
    let near = (1.0 / n as f64 - p).abs() <= ONE_IN_NEAR * p;
    (n >= 2 && near).then(|| format!("about 1 in {n}"))
}

/// The incident window in UTC and the `--tz` zone.
pub(crate) fn window_text(r: &Report) -> Option<String> {
    let (o, rec) = (r.incident.onset.as_ref()?, r.incident.recovered.as_ref()?);
    let tz = &r.extra.tz;
    let local = if tz.is_utc() {
        String::new()
    } else {
        format!(
            " ({}–{} {})",
            local_hms(o, tz),
            local_hms(rec, tz),
            zone_label(o, tz)
        )
    };
    Some(format!("{} {}–{} UTC{local}", date(o), hms(o), hms(rec)))
}

pub(crate) use crate::report::secs_between;

/// Requests the baseline's rate expected in the window that the logs do
/// not hold, when fewer than half arrived over at least five minutes: a
/// service down behind a balancer logs neither the failures the balancer
/// returned nor the requests it turned away, so its own failure count says
/// little of what users saw. None when the window kept its traffic.
pub(crate) fn unarrived(r: &Report) -> Option<u64> {
    let secs = r.incident.duration_s.filter(|s| *s >= 300)? as f64;
    let (base, now) = (
        r.extra.attribution_baseline_rate,
        r.extra.attribution_window_rate,
    );
    (r.extra.has_requests && base > 0.0 && now < 0.5 * base)
        .then(|| ((base - now) * secs).round() as u64)
}

/// The longest full interruption: its length in seconds and its range (the
/// first of equal ones).
pub(crate) fn longest_outage(r: &Report) -> Option<(i64, &SpanJson)> {
    r.impact
        .full_outages
        .iter()
        .filter_map(|o| Some((secs_between(&o.start, &o.end)?, o)))
        .rev()
        .max_by_key(|(secs, _)| *secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_named_below_the_folder_they_share() {
        let root = |p: &[&str]| input_root(p.iter().copied());
        assert_eq!(
            root(&["/tmp/x/in/access.log", "/tmp/x/in/logs/a.json"]),
            "/tmp/x/in/"
        );
        assert_eq!(
            root(&["/tmp/x/in/logs/a.json", "/tmp/x/in/access.log"]),
            "/tmp/x/in/"
        );
        assert_eq!(root(&["samples/a/access.log"]), "samples/a/");
        assert_eq!(root(&["/tmp/ab/x.log", "/tmp/ac/y.log"]), "/tmp/");
        assert_eq!(root(&["access.log", "/tmp/y.log"]), "");
        assert_eq!(root(&["-"]), "");
    }

    #[test]
    fn counts_read_with_separators() {
        for (n, want) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (27190, "27,190"),
            (1234567, "1,234,567"),
        ] {
            assert_eq!(count(n), want, "{n}");
        }
    }

    #[test]
    fn a_failure_rate_reads_as_one_in_n() {
        assert_eq!(one_in(1000, 5022).as_deref(), Some("about 1 in 5"));
        // 22%: 1 in 5 is 2 points off, 1 in 4 three.
        assert_eq!(one_in(1007, 4525).as_deref(), Some("about 1 in 5"));
        assert_eq!(one_in(1020, 4426).as_deref(), Some("about 1 in 4"));
        // Over half: a share, not "1 in 2" for 55% or 75%.
        assert_eq!(one_in(2712, 4922), None);
        assert_eq!(one_in(45486, 60955), None);
        assert_eq!(one_in(1, 2).as_deref(), Some("about 1 in 2"));
        // 42% is neither 1 in 2 nor 1 in 3; 45% is about 1 in 2.
        assert_eq!(one_in(77315, 184124), None);
        assert_eq!(one_in(45, 100).as_deref(), Some("about 1 in 2"));
        assert_eq!(one_in(0, 10), None);
        // Most failed: a share reads better than "1 in 1".
        assert_eq!(one_in(9, 10), None);
    }

    /// Every section is there, in the spec's order, on an incident and on a
    /// quiet day alike: one with nothing to go on says so.
    #[test]
    fn sections_come_in_the_spec_order() {
        let mut quiet = fixture::bulk();
        quiet.incident = crate::report::IncidentJson {
            found: false,
            onset: None,
            recovered: None,
            duration_s: None,
        };
        quiet.findings.clear();
        quiet.timeline.clear();
        quiet.extra.culprit = None;
        for r in [fixture::bulk(), quiet] {
            let md = render(&r);
            let heads: Vec<&str> = md.lines().filter(|l| l.starts_with("## ")).collect();
            assert_eq!(
                heads,
                [
                    "## Summary",
                    "## Impact",
                    "## Timeline",
                    "## What happened",
                    "## Root cause and contributing factors",
                    "## Ruled out",
                    "## Detection and recovery",
                    "## Open questions",
                    "## Action items",
                    "## Appendix",
                ]
            );
        }
    }
}
