//! The other formats of a line input, for what its own format leaves: the
//! request formats inside a wrapping format's records (an access-log line
//! carried by syslog), and the fallbacks for the lines it does not read (a
//! second format concatenated, then the generic reader). The driver
//! decides them once from the head ([`LinePlan`]); every chunk reads with
//! the same plan, so the output does not depend on how the input was cut.
//!
//! In: a wrapping record's fields, or a line the input's format did not
//! read. Out: the inner record's fields, or the events of the first
//! fallback that reads the line.
//!
//! ```text
//! Mar 24 14:02:50 web1 tomcat.log: 127.0.0.1 - - "GET /x HTTP/1.1" 200 65508 4.386
//!   syslog_rfc3164 record -> message read by http_common -> Request { ts: Mar 24 14:02:50, instance: web1, .. }
//! ```

use std::borrow::Cow;

use super::kind::parse_line;
use super::record::{Builder, Inspect};
use super::timestamp::TimeParser;
use crate::event::{Event, Origin};
use crate::formats::{Catalogue, Fields, Format, Role};
use crate::zone::Zone;

/// How an input's lines are read besides its own format.
#[derive(Clone, Debug, Default)]
pub(super) struct LinePlan {
    /// Formats for the lines the input's format does not read, in order.
    pub fallbacks: Vec<usize>,
    /// Formats that may read a wrapping record's message.
    pub wrapped: Vec<usize>,
    /// Strip decorations (ANSI colour codes) from every line first.
    pub strip: bool,
    /// `--input-tz`, for the other formats' time parsers.
    pub zone: Zone,
    /// The input is an application's log that carries request lines, not
    /// an access log: its requests are marked [`Request::from_log`].
    ///
    /// [`Request::from_log`]: crate::event::Request::from_log
    pub log_requests: bool,
}

/// The other formats, each with its own time parser.
pub(super) struct Others<'c, 'i> {
    cat: &'c Catalogue,
    wrapped: Vec<(&'c Format, Builder<'i>)>,
    fallbacks: Vec<(&'c Format, Builder<'i>)>,
    pub(super) strip: bool,
}

/// What a fallback made of a line, and the fallback's name.
pub(super) enum Fallback<'c> {
    /// Its events (none: read, but without a record to show).
    Read(Vec<Event<'static>>, &'c str),
    /// Read, but with no time to place it on the timeline.
    Unplaced(String, &'c str),
}

impl<'c, 'i> Others<'c, 'i> {
    pub(super) fn new(cat: &'c Catalogue, plan: &LinePlan) -> Others<'c, 'i> {
        let with_times = |&i: &usize| {
            let f = cat.formats.get(i)?;
            Some((
                f,
                Builder::new(TimeParser::new(&f.def.timestamp_formats, plan.zone), None),
            ))
        };
        Others {
            cat,
            wrapped: plan.wrapped.iter().filter_map(with_times).collect(),
            fallbacks: plan.fallbacks.iter().filter_map(with_times).collect(),
            strip: plan.strip,
        }
    }

    /// Whether there is a wrapped format to try.
    pub(super) fn wraps(&self) -> bool {
        !self.wrapped.is_empty()
    }

    /// The name of wrapped format `i` (an index [`Others::unwrap`] gave).
    pub(super) fn wrapped_name(&self, i: usize) -> &'c str {
        self.wrapped.get(i).map_or("", |(f, _)| f.name())
    }

    /// A wrapping record's message read by the first inner format that reads
    /// it whole: the inner fields, with the record's time and instance where
    /// the inner line has none. `outer` is left as it was when none reads it.
    pub(super) fn unwrap<'a>(&self, outer: &mut Fields<'a>) -> Option<(usize, Fields<'a>)> {
        let message = match outer.take(Role::Message)? {
            Cow::Borrowed(m) => m,
            owned => {
                outer.set(Role::Message, owned);
                return None;
            }
        };
        for (i, (f, _)) in self.wrapped.iter().enumerate() {
            if let Some(mut inner) = f.match_line(message) {
                if inner.untimed().is_some() {
                    if let Some(ts) = outer.take(Role::Ts) {
                        inner.set(Role::Ts, ts);
                    }
                }
                if !inner.has(Role::Instance) {
                    if let Some(instance) = outer.take(Role::Instance) {
                        inner.set(Role::Instance, instance);
                    }
                }
                return Some((i, inner));
            }
        }
        outer.set(Role::Message, Cow::Borrowed(message));
        None
    }

    /// Build a wrapped record's event with its format's time parser; the
    /// main builder lends its look at raw fields (`formats check --fields`).
    pub(super) fn build_wrapped<'f>(
        &mut self,
        i: usize,
        fields: &'f Fields<'_>,
        origin: Origin,
        inspect: &mut Option<Inspect<'i>>,
    ) -> (Result<Option<Event<'f>>, &'static str>, Option<String>) {
        // `i` came from `unwrap`, so is in range: a miss reads as no match.
        let Some((f, times)) = self.wrapped.get_mut(i) else {
            return (Err("does not match the format"), None);
        };
        times.inspect = inspect.take();
        let built = times.build(f, &self.cat.rules, fields, None, origin);
        *inspect = times.inspect.take();
        (built, times.take_unplaced())
    }

    /// The first fallback that reads `line`, and what it made of it.
    pub(super) fn fallback(
        &mut self,
        line: &str,
        origin: Origin,
        inspect: &mut Option<Inspect<'i>>,
    ) -> Option<Fallback<'c>> {
        for (f, times) in &mut self.fallbacks {
            let f: &'c Format = f;
            times.inspect = inspect.take();
            let parsed = parse_line(f, &mut None, self.cat, times, line, origin);
            *inspect = times.inspect.take();
            let unplaced = times.take_unplaced();
            match (parsed, unplaced) {
                (Ok(events), Some(reason)) if events.is_empty() => {
                    return Some(Fallback::Unplaced(reason, f.name()))
                }
                (Ok(events), _) => return Some(Fallback::Read(events, f.name())),
                (Err(_), _) => {}
            }
        }
        None
    }

    /// Strip decorations (ANSI colour codes) when the plan says so.
    pub(super) fn clean<'l>(&self, line: &'l str) -> Cow<'l, str> {
        match self.cat.generic() {
            Some(g) if self.strip => g.strip(line),
            _ => Cow::Borrowed(line),
        }
    }

    /// Whether a line continues the record above it (a stack frame).
    pub(super) fn continues(&self, line: &str) -> bool {
        self.cat.generic().is_some_and(|g| g.continues(line))
    }
}
