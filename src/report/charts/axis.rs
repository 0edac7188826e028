//! The report's one time axis: a window in, whole buckets of a round size
//! out. The bucket is the smallest round size that keeps the window within
//! [`MAX_BUCKETS`] buckets, and every bucket lies inside the data, so no
//! bucket at either edge is partial (a partial bucket would read as a dip).
//!
//! ```text
//! view 07:51:55..08:06:35, data 07:25:00..08:15:00 -> 16 buckets of 1 min from 07:51
//! ```

use crate::aggregate::Span;

/// Bucket sizes a reader counts in without thinking, in seconds.
const ROUND: [i64; 20] = [
    1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400,
    172_800, 604_800,
];

/// Most buckets on one axis with minute labels (HH:MM): about 20 short
/// labels fit GitHub's 860 px content width without touching.
pub const MAX_BUCKETS: usize = 20;

/// How bucket labels are written: as short as the axis allows while every
/// label stays distinct (a repeated label would merge two buckets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelForm {
    /// `07:52`
    Minutes,
    /// `07:52:30`, for buckets shorter than a minute.
    Seconds,
    /// `10-01 06:00`, for an axis longer than a day.
    DayMinutes,
    /// `10-01`, for buckets of whole days.
    Days,
}

impl LabelForm {
    /// Characters in a label.
    pub fn width(self) -> usize {
        match self {
            LabelForm::Minutes | LabelForm::Days => 5,
            LabelForm::Seconds => 8,
            LabelForm::DayMinutes => 11,
        }
    }

    /// Most buckets whose labels fit side by side: [`MAX_BUCKETS`] for the
    /// shortest, fewer for longer ones.
    pub fn max_buckets(self) -> usize {
        MAX_BUCKETS * LabelForm::Minutes.width() * 7 / 5 / (self.width() + 2)
    }
}

/// `count` buckets of `bucket_s` seconds from `start` (Unix seconds, UTC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeAxis {
    pub start: i64,
    pub bucket_s: i64,
    pub count: usize,
}

impl TimeAxis {
    /// The axis for showing `view`, in whole buckets inside `data`. `None`
    /// when not even one bucket of the smallest size fits.
    pub fn choose(view: Span, data: Span) -> Option<TimeAxis> {
        let view = Span::new(view.start.max(data.start), view.end.min(data.end));
        ROUND.into_iter().find_map(|w| {
            let axis = Self::aligned(view, data, w)?;
            (axis.count <= axis.label_form().max_buckets()).then_some(axis)
        })
    }

    /// Whole `w`-second buckets covering `view`, widened outward to bucket
    /// boundaries where the data reaches, cut inward where it does not.
    fn aligned(view: Span, data: Span, w: i64) -> Option<TimeAxis> {
        let mut start = view.start.div_euclid(w) * w;
        if start < data.start {
            start += w;
        }
        let mut end = (view.end + w - 1).div_euclid(w) * w;
        if end > data.end {
            end -= w;
        }
        (end > start).then(|| TimeAxis {
            start,
            bucket_s: w,
            count: ((end - start) / w) as usize,
        })
    }

    /// Seconds only when buckets do not fall on whole minutes; the day
    /// only when a clock time could repeat.
    pub fn label_form(&self) -> LabelForm {
        if self.bucket_s % 86_400 == 0 {
            LabelForm::Days
        } else if self.bucket_s % 60 != 0 {
            LabelForm::Seconds
        } else if self.span().len() > 86_400 {
            LabelForm::DayMinutes
        } else {
            LabelForm::Minutes
        }
    }

    pub fn span(&self) -> Span {
        Span::new(self.start, self.start + self.bucket_s * self.count as i64)
    }

    /// Start of bucket `i`.
    pub fn bucket_start(&self, i: usize) -> i64 {
        self.start + i as i64 * self.bucket_s
    }

    /// The bucket holding second `s`, if on the axis.
    pub fn index(&self, s: i64) -> Option<usize> {
        self.span()
            .contains(s)
            .then(|| ((s - self.start) / self.bucket_s) as usize)
    }
}

/// Leading digits of a round maximum: each divides into 3 to 6 equal
/// steps of 1, 2, 2.5 or 5 times a power of ten.
pub const ROUND_MAXIMA: [f64; 10] = [1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0];

/// The smallest round number ([`ROUND_MAXIMA`] times a power of ten) at or
/// above `max`, so the y-axis ends on a value its ticks divide evenly and
/// the highest point fills at least two thirds of the height; 1 when there
/// is nothing above 0.
pub fn round_max(max: f64) -> f64 {
    if !max.is_finite() || max <= 0.0 {
        return 1.0;
    }
    let p = 10f64.powf(max.log10().floor());
    ROUND_MAXIMA
        .into_iter()
        .map(|f| f * p)
        // A relative slack so 20 is not pushed to 25 by rounding in log10.
        .find(|v| *v >= max * (1.0 - 1e-9))
        .unwrap_or(10.0 * p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-10-01T07:00:00Z.
    const T0: i64 = 1_790_838_000;

    fn span(from: i64, to: i64) -> Span {
        Span::new(T0 + from, T0 + to)
    }

    #[test]
    fn the_bucket_is_the_smallest_round_size_within_the_limit() {
        let cases: [(&str, Span, i64, usize); 6] = [
            ("3 min of data", span(0, 180), 15, 12),
            ("15 min, widened to whole minutes", span(3115, 3995), 60, 16),
            ("20 min exactly", span(0, 1200), 60, 20),
            ("21 min", span(0, 1260), 120, 11),
            // 2 h buckets from 06:00 would run to 08:00 the next day.
            ("one day", span(0, 86_400), 10_800, 9),
            ("a week", span(0, 7 * 86_400), 86_400, 8),
        ];
        for (name, view, bucket, count) in cases {
            let a = TimeAxis::choose(view, span(-100_000, 1_000_000));
            assert_eq!(
                a.map(|a| (a.bucket_s, a.count)),
                Some((bucket, count)),
                "{name}"
            );
        }
    }

    #[test]
    fn every_axis_keeps_its_label_limit() {
        let data = span(-1_000_000, 10_000_000);
        for len in (1..40).chain((40..200_000).step_by(97)) {
            let Some(a) = TimeAxis::choose(span(7, 7 + len), data) else {
                panic!("no axis for {len} s");
            };
            assert!(a.count <= a.label_form().max_buckets(), "{len} s: {a:?}");
            assert!(a.count <= MAX_BUCKETS, "{len} s: {a:?}");
            assert!(ROUND.contains(&a.bucket_s), "{len} s: {a:?}");
            assert_eq!(a.start % a.bucket_s, 0, "{len} s: aligned");
        }
    }

    #[test]
    fn no_bucket_reaches_past_the_data() {
        // The view asks for more than the data has at both ends.
        let data = span(95, 1000);
        let a = TimeAxis::choose(span(0, 1100), data).expect("an axis");
        assert_eq!(a.bucket_s, 60);
        assert_eq!(
            a.start,
            T0 + 120,
            "the bucket from 60 s is partial: left out"
        );
        assert!(a.span().end <= data.end, "{a:?}");
        assert_eq!(a.count, 14);
    }

    #[test]
    fn buckets_widen_outward_where_the_data_reaches() {
        let a = TimeAxis::choose(span(95, 1000), span(0, 2000)).expect("an axis");
        assert_eq!((a.start, a.span().end), (T0 + 60, T0 + 1020));
    }

    #[test]
    fn too_little_data_gives_no_axis() {
        assert_eq!(TimeAxis::choose(span(0, 10), span(3, 3)), None);
    }

    #[test]
    fn labels_carry_seconds_or_the_day_only_when_needed() {
        let a = |w, count| TimeAxis {
            start: 0,
            bucket_s: w,
            count,
        };
        assert_eq!(a(30, 10).label_form(), LabelForm::Seconds);
        assert_eq!(a(60, 20).label_form(), LabelForm::Minutes);
        assert_eq!(a(7200, 12).label_form(), LabelForm::Minutes);
        assert_eq!(a(7200, 13).label_form(), LabelForm::DayMinutes);
        assert_eq!(a(86_400, 3).label_form(), LabelForm::Days);
    }

    #[test]
    fn longer_labels_allow_fewer_buckets() {
        let limits: Vec<usize> = [
            LabelForm::Minutes,
            LabelForm::Days,
            LabelForm::Seconds,
            LabelForm::DayMinutes,
        ]
        .into_iter()
        .map(LabelForm::max_buckets)
        .collect();
        assert_eq!(limits, [20, 20, 14, 10]);
    }

    #[test]
    fn buckets_index_seconds() {
        let a = TimeAxis {
            start: 100,
            bucket_s: 10,
            count: 3,
        };
        assert_eq!(a.index(99), None);
        assert_eq!(a.index(100), Some(0));
        assert_eq!(a.index(129), Some(2));
        assert_eq!(a.index(130), None);
    }

    #[test]
    fn y_maxima_are_round_and_above_the_data() {
        let cases = [
            (0.0, 1.0),
            (0.4, 0.4),
            (0.45, 0.5),
            (1.0, 1.0),
            (3.0, 3.0),
            (3.5, 4.0),
            (20.0, 20.0),
            (21.0, 25.0),
            (1550.0, 2000.0),
            (10_186.0, 15_000.0),
            (12_228.0, 15_000.0),
            (61.0, 80.0),
            (f64::NAN, 1.0),
        ];
        for (max, want) in cases {
            assert_eq!(round_max(max), want, "{max}");
        }
    }
}
