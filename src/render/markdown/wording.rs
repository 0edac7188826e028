//! Headline figures that compare like with like. A rate against a near-zero
//! baseline makes a ratio that says nothing ("14950x its own baseline" is 10
//! requests in half an hour against 27,190 in five minutes): the draft
//! writes the counts the ratio comes from instead.
//!
//! In: a text from a detector (a finding's title or evidence, a timeline
//! entry) and the culprit's figures. Out: the same text, its near-zero
//! ratio and rate replaced by counts where it speaks of the culprit.
//!
//! ```text
//! "drove the load: 14950x its own baseline", 10 in 1854 s, 27190 in 281 s
//!   -> "drove the load: from 10 requests in 31 min to 27,190 in 4 min 41 s"
//! ```

use std::sync::LazyLock;

use regex::Regex;

use super::count;
use crate::render::time::duration;
use crate::report::CulpritFigures;

/// A baseline below one request a minute is near zero: a ratio against it
/// is mostly the accident of how few requests fell in it.
pub(crate) fn near_zero(c: &CulpritFigures) -> bool {
    c.baseline_s > 0 && c.baseline_requests * 60 < c.baseline_s as u64
}

/// A length for people: whole minutes from ten minutes on.
fn span(secs: i64) -> String {
    if secs >= 600 {
        duration((secs + 30) / 60 * 60)
    } else {
        duration(secs)
    }
}

/// "from 10 requests in 31 min to 27,190 in 4 min 41 s".
pub(crate) fn counts(c: &CulpritFigures) -> String {
    format!(
        "from {} request{} in {} to {} in {}",
        count(c.baseline_requests),
        if c.baseline_requests == 1 { "" } else { "s" },
        span(c.baseline_s),
        count(c.requests),
        span(c.window_s)
    )
}

static RATIO_TITLE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"[0-9][0-9.,]*x its own baseline").ok());
static RATIO_PAREN: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r" \([0-9][0-9.,]*x\)").ok());
static AGAINST_BASELINE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"against (?:a baseline of ([0-9.]+) req/s|([0-9.]+) req/s in the baseline)").ok()
});

/// Whether `text` speaks of the culprit: it names its tenant (or, with no
/// tenant, its integration).
fn about(text: &str, c: &CulpritFigures) -> bool {
    match (&c.tenant, &c.integration) {
        (Some(t), _) => text.contains(&format!("`{t}`")),
        (None, Some(i)) => text.contains(&format!("`{i}`")),
        (None, None) => false,
    }
}

/// `text` with its near-zero ratios written as counts; unchanged when the
/// culprit's baseline is not near zero or the text is about someone else.
pub(crate) fn reword(text: &str, c: Option<&CulpritFigures>, subject_is_culprit: bool) -> String {
    let Some(c) = c.filter(|c| near_zero(c) && (subject_is_culprit || about(text, c))) else {
        return text.to_string();
    };
    let mut out = text.to_string();
    if let Some(re) = RATIO_TITLE.as_ref() {
        out = re.replace_all(&out, counts(c).as_str()).into_owned();
    }
    if let Some(re) = RATIO_PAREN.as_ref() {
        out = re.replace_all(&out, "").into_owned();
    }
    if let Some(re) = AGAINST_BASELINE.as_ref() {
        let said = format!(
            "against {} request{} in the {} before",
            count(c.baseline_requests),
            if c.baseline_requests == 1 { "" } else { "s" },
            span(c.baseline_s)
        );
        out = re.replace_all(&out, said.as_str()).into_owned();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::markdown::fixture::bulk;

    fn culprit() -> CulpritFigures {
        bulk().extra.culprit.unwrap_or_default()
    }

    #[test]
    fn a_near_zero_baseline_is_written_as_counts() {
        let c = culprit();
        assert!(near_zero(&c));
        assert_eq!(
            counts(&c),
            "from 10 requests in 31 min to 27,190 in 4 min 41 s"
        );
        for (text, want) in [
            (
                "`acct-4411` (integration `acme-exporter`) drove the load: 14950x its own baseline",
                "`acct-4411` (integration `acme-exporter`) drove the load: from 10 requests in 31 min to 27,190 in 4 min 41 s",
            ),
            (
                "`acct-4411` sent 96.8 req/s during the incident against 0.0059 req/s in the baseline (14950x)",
                "`acct-4411` sent 96.8 req/s during the incident against 10 requests in the 31 min before",
            ),
            (
                "Tenant `acct-4411` surges: up to 185 req/s against a baseline of 0.0059 req/s",
                "Tenant `acct-4411` surges: up to 185 req/s against 10 requests in the 31 min before",
            ),
        ] {
            assert_eq!(reword(text, Some(&c), false), want);
        }
    }

    #[test]
    fn a_real_baseline_keeps_its_ratio() {
        let mut c = culprit();
        c.baseline_requests = 5000;
        let text = "`acct-4411` drove the load: 4.2x its own baseline";
        assert_eq!(reword(text, Some(&c), false), text);
    }

    #[test]
    fn someone_elses_rates_are_left_alone() {
        let c = culprit();
        let text =
            "requests arrived at 5.1 req/s in the incident against 1.9 req/s in the baseline";
        assert_eq!(reword(text, Some(&c), false), text);
        assert_eq!(reword(text, None, true), text);
    }
}
