//! A chart as a standalone SVG file, for Markdown renderers without
//! Mermaid: a [`Chart`] on its [`TimeAxis`] in, the bytes of the file out.
//! The same title, palette, axis and values as the Mermaid block, drawn by
//! hand: a white background, y from 0 with round ticks, bars, lines broken
//! where a value is missing (a lone point as a dot), x labels thinned so
//! they never touch. Same chart, same bytes.
//!
//! ```text
//! <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 860 360" ...>
//!   <title>Requests per 1 min: ...</title> ... <rect .../> <path d="M..."/>
//! </svg>
//! ```

use std::fmt::Write;

use super::chart_text::{label, title, y_title};
use super::mermaid::{HEIGHT, WIDTH};
use crate::report::charts::{colour, Chart, Mark, TimeAxis};

const TOP: f64 = 48.0;
const BOTTOM: f64 = 52.0;
const RIGHT: f64 = 20.0;
/// Average advance of a 12 px sans-serif digit, for fitting labels.
const CHAR_PX: f64 = 7.0;
const INK: &str = "#1F2328";
const GRID: &str = "#D0D7DE";

fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate: one decimal, so the bytes do not depend on float noise.
fn px(v: f64) -> String {
    format!("{v:.1}")
}

/// Tick values from 0 to `y_max`: 5, 4, 6, 3 or 2 steps (the first that
/// fits) of a round size (1, 2, 2.5 or 5 times a power of ten), whole
/// numbers when the maximum is (no "0.5 restarts").
pub fn ticks(y_max: f64) -> Vec<f64> {
    let counted = y_max >= 1.0 && y_max.fract() == 0.0;
    let fits = |steps: &u32| {
        let step = y_max / f64::from(*steps);
        let p = 10f64.powf(step.log10().floor());
        let round = [1.0, 2.0, 2.5, 5.0, 10.0]
            .iter()
            .any(|m| (step / p - m).abs() < 1e-9);
        round && (!counted || (step - step.round()).abs() < 1e-9)
    };
    let steps = [5, 4, 6, 3, 2].into_iter().find(fits).unwrap_or(1);
    (0..=steps)
        .map(|i| y_max * f64::from(i) / f64::from(steps))
        .collect()
}

/// A tick label: thousands grouped, at most 2 decimals.
fn tick_label(v: f64) -> String {
    let s = super::mermaid::num(v);
    let (int, frac) = s.split_once('.').map_or((s.as_str(), ""), |(i, f)| (i, f));
    let digits: Vec<char> = int.chars().collect();
    let mut grouped = String::new();
    for (i, c) in digits.iter().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(*c);
    }
    if frac.is_empty() {
        grouped
    } else {
        format!("{grouped}.{frac}")
    }
}

/// The file.
pub fn chart(c: &Chart, axis: &TimeAxis) -> String {
    let (w, h) = (f64::from(WIDTH), f64::from(HEIGHT));
    let tick_values = ticks(c.y_max);
    let widest = tick_values
        .iter()
        .map(|v| tick_label(*v).len())
        .max()
        .unwrap_or(1);
    let left = 44.0 + widest as f64 * CHAR_PX;
    let (plot_w, plot_h) = (w - left - RIGHT, h - TOP - BOTTOM);
    let n = axis.count.max(1);
    let band = plot_w / n as f64;
    let x = |i: usize| left + band * (i as f64 + 0.5);
    let y = |v: f64| TOP + plot_h * (1.0 - (v / c.y_max).clamp(0.0, 1.0));
    let base = TOP + plot_h;
    let t = title(c, axis);

    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" role=\"img\" aria-labelledby=\"title\" font-family=\"-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif\">"
    );
    let _ = writeln!(o, "<title id=\"title\">{}</title>", esc(&t));
    let _ = writeln!(
        o,
        "<rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#FFFFFF\"/>"
    );
    let _ = writeln!(
        o,
        "<text class=\"title\" x=\"{}\" y=\"26\" font-size=\"15\" font-weight=\"600\" fill=\"{INK}\">{}</text>",
        px(left),
        esc(&t)
    );
    // Y grid, ticks and labels.
    for v in &tick_values {
        let yy = px(y(*v));
        let _ = writeln!(
            o,
            "<line x1=\"{}\" y1=\"{yy}\" x2=\"{}\" y2=\"{yy}\" stroke=\"{GRID}\" stroke-width=\"1\"/>",
            px(left),
            px(left + plot_w)
        );
        let _ = writeln!(
            o,
            "<text class=\"y-label\" x=\"{}\" y=\"{yy}\" dy=\"4\" font-size=\"12\" text-anchor=\"end\" fill=\"{INK}\">{}</text>",
            px(left - 6.0),
            tick_label(*v)
        );
    }
    let _ = writeln!(
        o,
        "<text transform=\"translate(16 {}) rotate(-90)\" font-size=\"12\" text-anchor=\"middle\" fill=\"{INK}\">{}</text>",
        px(TOP + plot_h / 2.0),
        esc(&y_title(c, axis))
    );
    // X ticks at every bucket, labels at every `step`-th so none touch.
    let label_w = label(axis, 0).len() as f64 * CHAR_PX + 8.0;
    let step = ((label_w / band).ceil() as usize).max(1);
    for i in 0..axis.count {
        let xx = px(x(i));
        let _ = writeln!(
            o,
            "<line x1=\"{xx}\" y1=\"{}\" x2=\"{xx}\" y2=\"{}\" stroke=\"{INK}\" stroke-width=\"1\"/>",
            px(base),
            px(base + 4.0)
        );
        if i % step == 0 {
            let _ = writeln!(
                o,
                "<text class=\"x-label\" x=\"{xx}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\" fill=\"{INK}\">{}</text>",
                px(base + 18.0),
                label(axis, i)
            );
        }
    }
    let _ = writeln!(
        o,
        "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\" fill=\"{INK}\">UTC</text>",
        px(left + plot_w / 2.0),
        px(h - 10.0)
    );
    // Series, in palette order.
    for (k, s) in c.series.iter().enumerate() {
        let colour = colour(k).hex;
        match s.mark {
            Mark::Bars => {
                let bw = band * 0.7;
                for (i, v) in s.values.iter().enumerate() {
                    let Some(v) = v else { continue };
                    let top = y(*v);
                    let _ = writeln!(
                        o,
                        "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{colour}\"/>",
                        px(x(i) - bw / 2.0),
                        px(top),
                        px(bw),
                        px(base - top)
                    );
                }
            }
            Mark::Line => {
                for run in runs(&s.values) {
                    if let [(i, v)] = run.as_slice() {
                        let _ = writeln!(
                            o,
                            "<circle class=\"line\" cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{colour}\"/>",
                            px(x(*i)),
                            px(y(*v))
                        );
                        continue;
                    }
                    let d: Vec<String> = run
                        .iter()
                        .enumerate()
                        .map(|(j, (i, v))| {
                            format!(
                                "{}{},{}",
                                if j == 0 { "M" } else { "L" },
                                px(x(*i)),
                                px(y(*v))
                            )
                        })
                        .collect();
                    let _ = writeln!(
                        o,
                        "<path class=\"line\" d=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2.5\" stroke-linejoin=\"round\"/>",
                        d.join(" ")
                    );
                }
            }
        }
    }
    // Axes last, over the bars.
    let _ = writeln!(
        o,
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{INK}\" stroke-width=\"1\"/>",
        px(left),
        px(base),
        px(left + plot_w),
        px(base)
    );
    let _ = writeln!(
        o,
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{INK}\" stroke-width=\"1\"/>",
        px(left),
        px(TOP),
        px(left),
        px(base)
    );
    let _ = writeln!(o, "</svg>");
    o
}

/// Runs of consecutive buckets that have a value.
fn runs(values: &[Option<f64>]) -> Vec<Vec<(usize, f64)>> {
    let mut out: Vec<Vec<(usize, f64)>> = Vec::new();
    let mut open = false;
    for (i, v) in values.iter().enumerate() {
        match (v, open) {
            (Some(v), true) => {
                if let Some(run) = out.last_mut() {
                    run.push((i, *v));
                }
            }
            (Some(v), false) => {
                out.push(vec![(i, *v)]);
                open = true;
            }
            (None, _) => open = false,
        }
    }
    out
}

/// The file name of chart `i` (0-based) of a report.
pub fn file_name(i: usize, c: &Chart) -> String {
    format!("chart-{}-{}.svg", i + 1, c.id())
}

/// The note under a linked SVG whose series break, if any does.
pub fn gap_note(c: &Chart, axis: &TimeAxis) -> Option<String> {
    let gaps = c.gaps();
    (!gaps.is_empty()).then(|| {
        format!(
            "No reading for {} (UTC): the line breaks there.",
            super::chart_text::ranges(axis, &gaps).join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::charts::{Measure, Series, Unit};

    fn axis(count: usize) -> TimeAxis {
        TimeAxis {
            start: 1_790_841_120,
            bucket_s: 60,
            count,
        }
    }

    fn chart(values: Vec<Option<f64>>, mark: Mark) -> Chart {
        Chart {
            unit: Unit::Connections,
            y_max: 20.0,
            series: vec![Series {
                measure: Measure::PoolInUse,
                mark,
                values,
            }],
        }
    }

    #[test]
    fn ticks_divide_round_maxima_evenly() {
        assert_eq!(ticks(20.0), vec![0.0, 5.0, 10.0, 15.0, 20.0]);
        assert_eq!(ticks(2000.0), vec![0.0, 500.0, 1000.0, 1500.0, 2000.0]);
        assert_eq!(ticks(25.0), vec![0.0, 5.0, 10.0, 15.0, 20.0, 25.0]);
        assert_eq!(ticks(3.0), vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(ticks(15_000.0).len(), 7, "6 steps of 2500");
        for m in crate::report::charts::ROUND_MAXIMA {
            for p in [0.1, 1.0, 1000.0] {
                let t = ticks(m * p);
                // One whole step for a count of 1; otherwise 2 to 6 steps.
                let least = if m * p == 1.0 { 2 } else { 3 };
                assert!((least..=7).contains(&t.len()), "{}: {t:?}", m * p);
            }
        }
        assert_eq!(ticks(1.0), vec![0.0, 1.0]);
        let labels: Vec<String> = ticks(0.5).into_iter().map(tick_label).collect();
        assert_eq!(labels, ["0", "0.1", "0.2", "0.3", "0.4", "0.5"]);
        assert_eq!(tick_label(20_000.0), "20,000");
        assert_eq!(tick_label(1000.0), "1,000");
        assert_eq!(tick_label(100.0), "100");
    }

    #[test]
    fn a_line_breaks_where_values_are_missing() {
        let s = chart(
            vec![
                Some(1.0),
                Some(2.0),
                None,
                Some(3.0),
                None,
                Some(4.0),
                Some(5.0),
            ],
            Mark::Line,
        );
        let svg = super::chart(&s, &axis(7));
        assert_eq!(
            svg.matches("<path class=\"line\" d=\"M").count(),
            2,
            "{svg}"
        );
        assert_eq!(svg.matches("<circle").count(), 1, "a lone point is a dot");
        assert_eq!(svg.matches(" L").count(), 2);
    }

    #[test]
    fn bars_stand_on_the_axis_and_never_rise_past_it() {
        let svg = super::chart(
            &chart(vec![Some(20.0), Some(0.0), None], Mark::Bars),
            &axis(3),
        );
        assert_eq!(
            svg.matches("<rect class=\"bar\"").count(),
            2,
            "no bar for a missing value"
        );
        // The plot runs from y=48 to y=308; a bar at the maximum fills it.
        assert!(svg.contains("y=\"48.0\""), "{svg}");
        assert!(svg.contains("height=\"260.0\""), "{svg}");
    }

    #[test]
    fn labels_are_thinned_so_they_never_touch() {
        let svg = super::chart(&chart(vec![Some(1.0); 20], Mark::Line), &axis(20));
        let shown = svg
            .matches("text-anchor=\"middle\" fill=\"#1F2328\">0")
            .count();
        assert!((10..=20).contains(&shown), "{shown} labels");
        let seconds = TimeAxis {
            bucket_s: 10,
            ..axis(14)
        };
        let svg = super::chart(&chart(vec![Some(1.0); 14], Mark::Line), &seconds);
        assert!(svg.contains(">07:52:00<"), "{svg}");
    }

    #[test]
    fn text_from_the_input_is_escaped() {
        let mut c = chart(vec![Some(1.0)], Mark::Bars);
        c.series[0].measure = Measure::Client("<script>&".to_string());
        c.unit = Unit::Requests;
        let svg = super::chart(&c, &axis(1));
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("&lt;script&gt;&amp;"));
    }

    #[test]
    fn the_same_chart_gives_the_same_bytes() {
        let c = chart(vec![Some(1.0 / 3.0), Some(7.0)], Mark::Line);
        assert_eq!(
            super::chart(&c, &axis(2)),
            super::chart(&c.clone(), &axis(2))
        );
    }
}
