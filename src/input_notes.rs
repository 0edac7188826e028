//! What the report and `formats check` say about the inputs themselves,
//! beyond their counts: one cut short, one that could not be read, a file
//! given twice, and a file whose skipped lines are another format's (two
//! exports concatenated).
//!
//! In: the per-input statistics of a run (and, for the second format, the
//! catalogue). Out: warnings, one line each, naming the input and what to
//! do about it.
//!
//! ```text
//! access.log.gz: the input is cut at byte 650000 (8232259 bytes of text, after line 38188, inside line 38189): incomplete deflate stream; the lines before the cut are analysed
//! ```

use crate::formats::{detect, Catalogue, RecordMode};
use crate::parse::InputStats;

/// Share of the kept skipped lines another format must read to be named.
const SECOND_FORMAT_SHARE: f64 = 1.0;

/// The warnings about `inputs`, in input order.
pub fn input_warnings(inputs: &[InputStats]) -> Vec<String> {
    let mut out = Vec::new();
    for s in inputs {
        if let Some(why) = &s.unreadable {
            out.push(format!(
                "{}: could not be read ({why}); the other inputs are analysed without it",
                s.path
            ));
        }
        if let Some(first) = &s.same_as {
            out.push(format!(
                "{}: the same file as {first}, given twice; it is read once",
                s.path
            ));
        }
        if let Some(cut) = &s.cut {
            out.push(cut.warning(&s.path));
        }
        if let Some(other) = &s.second_format {
            out.push(format!(
                "{}: {} line(s) do not match {}, and the first of them read as {other}: two formats in one file? split it and give both parts",
                s.path, s.skipped, s.format
            ));
        }
    }
    out
}

/// The format that reads the input's kept skipped lines, when it is not
/// the input's own: the sign of a second export appended to the first.
pub fn second_format(cat: &Catalogue, stats: &InputStats) -> Option<String> {
    let lines: Vec<String> = stats
        .bad_lines
        .iter()
        .filter(|b| b.reason != "blank line" && b.text_from == 0 && !b.text.is_empty())
        .map(|b| b.text.clone())
        .collect();
    if lines.is_empty() || stats.documents {
        return None;
    }
    let (found, _) = detect(cat, &lines);
    let found = found.filter(|d| d.score >= SECOND_FORMAT_SHARE && d.mode == RecordMode::Lines)?;
    let name = cat.formats.get(found.format)?.name();
    (name != stats.format).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skipped(format: &str, lines: &[&str]) -> InputStats {
        let mut s = InputStats {
            format: format.to_string(),
            ..InputStats::default()
        };
        for (i, l) in lines.iter().enumerate() {
            s.skip(i as u64 + 1, "does not match the format", l);
        }
        s
    }

    #[test]
    fn json_lines_after_an_access_log_are_named() {
        let cat = Catalogue::builtin().expect("catalogue");
        let s = skipped(
            "nginx_combined",
            &[
                r#"{"level":"error","msg":"pool exhausted","time":"2026-10-01T07:58:06Z"}"#,
                r#"{"level":"info","msg":"tick","time":"2026-10-01T07:58:07Z"}"#,
            ],
        );
        assert_eq!(second_format(&cat, &s).as_deref(), Some("json_lines"));
    }

    #[test]
    fn garbage_names_no_format() {
        let cat = Catalogue::builtin().expect("catalogue");
        let s = skipped("nginx_combined", &["%%% garbage", "@@@ more"]);
        assert_eq!(second_format(&cat, &s), None);
    }
}
