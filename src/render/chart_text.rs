//! The words of a chart, shared by the Mermaid and SVG renderers so both
//! say the same: a [`Chart`] and the [`TimeAxis`] in; titles that name the
//! bucket size and each series with its colour, axis labels, the sentence
//! above a chart and the note on its gaps out.
//!
//! ```text
//! "Requests per 1 min: all (blue bars), acct-4411 (orange line), failed (green line)"
//! ```

use chrono::DateTime;

use crate::report::charts::{colour, Chart, LabelForm, Mark, Measure, TimeAxis, Unit};

/// `10 s`, `1 min`, `2 h`, `1 day`.
pub fn bucket(secs: i64) -> String {
    match secs {
        s if s % 86_400 == 0 && s >= 86_400 => plural(s / 86_400, "day"),
        s if s % 3600 == 0 => format!("{} h", s / 3600),
        s if s % 60 == 0 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

fn plural(n: i64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The UTC label of bucket `i` in the axis' [`LabelForm`].
pub fn label(axis: &TimeAxis, i: usize) -> String {
    clock(axis.label_form(), axis.bucket_start(i))
}

fn clock(form: LabelForm, secs: i64) -> String {
    let fmt = match form {
        LabelForm::Minutes => "%H:%M",
        LabelForm::Seconds => "%H:%M:%S",
        LabelForm::DayMinutes => "%m-%d %H:%M",
        LabelForm::Days => "%m-%d",
    };
    DateTime::from_timestamp(secs, 0).map_or_else(String::new, |d| d.format(fmt).to_string())
}

/// A series' short name for a title.
pub fn name(m: &Measure) -> String {
    match m {
        Measure::Completed => "all".to_string(),
        Measure::Failed => "failed".to_string(),
        Measure::Client(c) => c.clone(),
        Measure::PoolInUse => "in use".to_string(),
        Measure::PoolSize => "pool size".to_string(),
        Measure::PoolWaiting => "waiting".to_string(),
        Measure::Restarts => "restarts".to_string(),
    }
}

/// What a chart of one series shows, or of several (the first series decides).
fn subject(c: &Chart, per: &str) -> String {
    let first = c.series.first().map(|s| &s.measure);
    match (c.unit, first) {
        (Unit::Requests, Some(Measure::Failed)) => format!("Failed requests per {per}"),
        (Unit::Requests, Some(Measure::Client(name))) if c.series.len() == 1 => {
            format!("Requests of {name} per {per}")
        }
        (Unit::Requests, _) => format!("Requests per {per}"),
        (Unit::Connections, Some(Measure::PoolWaiting)) if c.series.len() == 1 => {
            format!("Callers waiting for a database connection, highest per {per}")
        }
        (Unit::Connections, Some(Measure::PoolInUse)) if c.series.len() == 1 => {
            format!("Database pool connections in use, highest per {per}")
        }
        (Unit::Connections, _) => format!("Database pool connections, highest per {per}"),
        (Unit::Restarts, _) => format!("Instance restarts per {per}"),
    }
}

fn mark(m: Mark) -> &'static str {
    match m {
        Mark::Bars => "bars",
        Mark::Line => "line",
    }
}

/// `blue bars`: how series `i` is drawn.
pub fn look(c: &Chart, i: usize) -> String {
    let colour = colour(i).name;
    let m = c.series.get(i).map_or(Mark::Line, |s| s.mark);
    format!("{colour} {}", mark(m))
}

/// The chart's title: what, the bucket size, and each series with its look
/// (Mermaid's xychart draws no legend).
pub fn title(c: &Chart, axis: &TimeAxis) -> String {
    let head = subject(c, &bucket(axis.bucket_s));
    if c.series.len() == 1 {
        return format!("{head} ({})", look(c, 0));
    }
    let parts: Vec<String> = c
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{} ({})", name(&s.measure), look(c, i)))
        .collect();
    format!("{head}: {}", parts.join(", "))
}

/// The y-axis title.
pub fn y_title(c: &Chart, axis: &TimeAxis) -> String {
    let per = bucket(axis.bucket_s);
    match c.unit {
        Unit::Requests => format!("requests per {per}"),
        Unit::Connections => match c.series.first().map(|s| &s.measure) {
            Some(Measure::PoolWaiting) => "callers waiting".to_string(),
            _ => "connections".to_string(),
        },
        Unit::Restarts => format!("restarts per {per}"),
    }
}

/// The sentence above a chart: what each series counts, in full.
pub fn sentence(c: &Chart, axis: &TimeAxis) -> String {
    let per = bucket(axis.bucket_s);
    let parts: Vec<String> = c
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let what = match &s.measure {
                Measure::Completed => "all requests".to_string(),
                Measure::Failed => "requests that failed (5xx or 408)".to_string(),
                Measure::Client(n) => format!("requests of `{n}`"),
                Measure::PoolInUse => "connections in use".to_string(),
                Measure::PoolSize => "the pool's maximum size".to_string(),
                Measure::PoolWaiting => "callers waiting for a connection".to_string(),
                Measure::Restarts => "instance restarts begun".to_string(),
            };
            format!("{what} ({})", look(c, i))
        })
        .collect();
    let list = join_and(&parts);
    match c.unit {
        Unit::Requests => format!(
            "Per {per} bucket (UTC): {list}. A request is counted in the bucket where it ended, so failures never outnumber requests in a bucket."
        ),
        Unit::Connections => format!(
            "Highest reading of any instance in each {per} bucket (UTC): {list}."
        ),
        Unit::Restarts => format!("Per {per} bucket (UTC): {list}."),
    }
}

fn join_and(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Runs of consecutive buckets as `07:55–07:58` (start of the first bucket
/// to the end of the last).
pub fn ranges(axis: &TimeAxis, buckets: &[usize]) -> Vec<String> {
    buckets
        .chunk_by(|a, b| *b == a + 1)
        .filter_map(|run| {
            let (first, last) = (run.first()?, run.last()?);
            Some(format!(
                "{}–{}",
                label(axis, *first),
                clock(axis.label_form(), axis.bucket_start(last + 1))
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::charts::Series;

    const T0: i64 = 1_790_841_120; // 2026-10-01T07:52:00Z

    fn axis(bucket_s: i64) -> TimeAxis {
        TimeAxis {
            start: T0,
            bucket_s,
            count: 15,
        }
    }

    fn chart(unit: Unit, measures: &[(Measure, Mark)]) -> Chart {
        Chart {
            unit,
            y_max: 10.0,
            series: measures
                .iter()
                .map(|(m, k)| Series {
                    measure: m.clone(),
                    mark: *k,
                    values: vec![Some(1.0)],
                })
                .collect(),
        }
    }

    #[test]
    fn bucket_sizes_in_words() {
        for (secs, want) in [
            (10, "10 s"),
            (30, "30 s"),
            (60, "1 min"),
            (900, "15 min"),
            (3600, "1 h"),
            (7200, "2 h"),
            (86_400, "1 day"),
            (604_800, "7 days"),
        ] {
            assert_eq!(bucket(secs), want);
        }
    }

    #[test]
    fn labels_are_short_and_carry_seconds_only_when_needed() {
        assert_eq!(label(&axis(60), 0), "07:52");
        assert_eq!(label(&axis(30), 1), "07:52:30");
        assert_eq!(label(&axis(86_400), 0), "10-01");
    }

    #[test]
    fn titles_name_the_bucket_and_every_series() {
        let c = chart(
            Unit::Requests,
            &[
                (Measure::Completed, Mark::Bars),
                (Measure::Client("acct-4411".to_string()), Mark::Line),
                (Measure::Failed, Mark::Line),
            ],
        );
        assert_eq!(
            title(&c, &axis(30)),
            "Requests per 30 s: all (blue bars), acct-4411 (orange line), failed (green line)"
        );
        let f = chart(Unit::Requests, &[(Measure::Failed, Mark::Bars)]);
        assert_eq!(
            title(&f, &axis(60)),
            "Failed requests per 1 min (blue bars)"
        );
        assert_eq!(y_title(&f, &axis(60)), "requests per 1 min");
    }

    #[test]
    fn gap_ranges_join_neighbouring_buckets() {
        assert_eq!(
            ranges(&axis(60), &[1, 2, 3, 7, 14]),
            vec!["07:53–07:56", "07:59–08:00", "08:06–08:07"]
        );
    }
}
