//! A chart as a Mermaid `xychart-beta` block, the chart GitHub and GitLab
//! draw from Markdown. A [`Chart`] on its [`TimeAxis`] in, the fenced block
//! out: the palette and sizes in an `%%{init}%%` directive (Mermaid's own
//! first colour is 1.2:1 on white), the y-axis from 0 to the chart's round
//! maximum, every value.
//!
//! Mermaid's xychart cannot break a line (a missing value becomes `NaN` in
//! the SVG path), so buckets where a series has no value are left out of
//! the x-axis, and [`gap_note`] says which.
//!
//! ```text
//! %%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "#0072B2, #D55E00"}}, ...}}%%
//! xychart-beta
//!     title "Requests per 1 min: all (blue bars), acct-4411 (orange line)"
//!     x-axis "UTC" ["07:52", "07:53", ...]
//!     y-axis "requests per 1 min" 0 --> 20000
//!     bar [1130, 1104, ...]
//!     line [0, 2, ...]
//! ```

use std::fmt::Write;

use super::chart_text::{label, ranges, title, y_title};
use crate::report::charts::{colour, Chart, Mark, TimeAxis};

/// The drawing's size in pixels. GitHub scales a diagram down to its
/// 860 px content width; drawn at that width, labels keep their size.
pub const WIDTH: u32 = 860;
pub const HEIGHT: u32 = 360;

/// A value as Mermaid reads it: integers bare, others to 2 decimals.
pub fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Text inside a Mermaid string: no double quotes, no line breaks.
fn quoted(s: &str) -> String {
    let clean: String = s
        .chars()
        .map(|c| match c {
            '"' => '\'',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    format!("\"{clean}\"")
}

/// The buckets Mermaid draws: those where every series has a value.
pub fn drawn(c: &Chart, axis: &TimeAxis) -> Vec<usize> {
    let gaps = c.gaps();
    (0..axis.count).filter(|i| !gaps.contains(i)).collect()
}

/// The fenced block.
pub fn block(c: &Chart, axis: &TimeAxis) -> String {
    let mut out = String::new();
    let palette: Vec<&str> = (0..c.series.len()).map(|i| colour(i).hex).collect();
    let _ = writeln!(out, "```mermaid");
    let _ = writeln!(
        out,
        "%%{{init: {{\"themeVariables\": {{\"xyChart\": {{\"plotColorPalette\": \"{}\"}}}}, \"xyChart\": {{\"width\": {WIDTH}, \"height\": {HEIGHT}, \"titleFontSize\": 16, \"xAxis\": {{\"labelFontSize\": 12, \"titleFontSize\": 14}}, \"yAxis\": {{\"labelFontSize\": 12, \"titleFontSize\": 14}}}}}}}}%%",
        palette.join(", ")
    );
    let _ = writeln!(out, "xychart-beta");
    let _ = writeln!(out, "    title {}", quoted(&title(c, axis)));
    let buckets = drawn(c, axis);
    let labels: Vec<String> = buckets.iter().map(|&i| quoted(&label(axis, i))).collect();
    let _ = writeln!(out, "    x-axis \"UTC\" [{}]", labels.join(", "));
    let _ = writeln!(
        out,
        "    y-axis {} 0 --> {}",
        quoted(&y_title(c, axis)),
        num(c.y_max)
    );
    for s in &c.series {
        let values: Vec<String> = buckets
            .iter()
            .map(|&i| num(s.values.get(i).copied().flatten().unwrap_or(0.0)))
            .collect();
        let kind = match s.mark {
            Mark::Bars => "bar",
            Mark::Line => "line",
        };
        let _ = writeln!(out, "    {kind} [{}]", values.join(", "));
    }
    let _ = writeln!(out, "```");
    out
}

/// The note under a block that left buckets out, if it did.
pub fn gap_note(c: &Chart, axis: &TimeAxis) -> Option<String> {
    let gaps = c.gaps();
    (!gaps.is_empty()).then(|| {
        format!(
            "No reading for {} (UTC): left out of the chart above, which joins the points on either side.",
            ranges(axis, &gaps).join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::charts::{Measure, Series, Unit};

    const T0: i64 = 1_790_841_120; // 2026-10-01T07:52:00Z

    fn axis(count: usize) -> TimeAxis {
        TimeAxis {
            start: T0,
            bucket_s: 60,
            count,
        }
    }

    fn chart(series: Vec<(Measure, Mark, Vec<Option<f64>>)>) -> Chart {
        Chart {
            unit: series.first().map_or(Unit::Requests, |s| s.0.unit()),
            y_max: 20.0,
            series: series
                .into_iter()
                .map(|(measure, mark, values)| Series {
                    measure,
                    mark,
                    values,
                })
                .collect(),
        }
    }

    #[test]
    fn a_block_sets_the_palette_the_range_and_every_value() {
        let c = chart(vec![
            (Measure::Completed, Mark::Bars, vec![Some(12.0), Some(15.0)]),
            (Measure::Failed, Mark::Line, vec![Some(0.0), Some(2.5)]),
        ]);
        let b = block(&c, &axis(2));
        let want = [
            "```mermaid",
            "%%{init: {\"themeVariables\": {\"xyChart\": {\"plotColorPalette\": \"#0072B2, #D55E00\"}}, \"xyChart\": {\"width\": 860, \"height\": 360, \"titleFontSize\": 16, \"xAxis\": {\"labelFontSize\": 12, \"titleFontSize\": 14}, \"yAxis\": {\"labelFontSize\": 12, \"titleFontSize\": 14}}}}%%",
            "xychart-beta",
            "    title \"Requests per 1 min: all (blue bars), failed (orange line)\"",
            "    x-axis \"UTC\" [\"07:52\", \"07:53\"]",
            "    y-axis \"requests per 1 min\" 0 --> 20",
            "    bar [12, 15]",
            "    line [0, 2.5]",
            "```",
            "",
        ];
        assert_eq!(b, want.join("\n"));
        assert_eq!(gap_note(&c, &axis(2)), None);
    }

    #[test]
    fn missing_buckets_are_left_out_and_named() {
        let c = chart(vec![(
            Measure::PoolInUse,
            Mark::Line,
            vec![Some(5.0), None, None, Some(6.0)],
        )]);
        let b = block(&c, &axis(4));
        assert!(b.contains("x-axis \"UTC\" [\"07:52\", \"07:55\"]"), "{b}");
        assert!(b.contains("line [5, 6]"), "{b}");
        assert_eq!(
            gap_note(&c, &axis(4)).as_deref(),
            Some("No reading for 07:53–07:55 (UTC): left out of the chart above, which joins the points on either side.")
        );
    }

    #[test]
    fn names_from_the_input_cannot_break_the_block() {
        let c = chart(vec![
            (Measure::Completed, Mark::Bars, vec![Some(1.0)]),
            (
                Measure::Client("acme \"bulk\"\nexport".to_string()),
                Mark::Line,
                vec![Some(1.0)],
            ),
        ]);
        let b = block(&c, &axis(1));
        let title = b
            .lines()
            .find(|l| l.trim_start().starts_with("title "))
            .unwrap_or("");
        assert_eq!(title.matches('"').count(), 2, "{title}");
        assert!(title.contains("acme 'bulk' export"), "{title}");
    }

    #[test]
    fn numbers_are_plain() {
        assert_eq!(num(1550.0), "1550");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(2.0 / 3.0), "0.67");
    }
}
