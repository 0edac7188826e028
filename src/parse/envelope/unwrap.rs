//! Envelope records -> inner lines: the envelope's fields (time, line,
//! instance) taken from each record, CRI partial lines and Docker's 16 KiB
//! runtime chunks joined, base64 payloads decoded and read as inputs of
//! their own.
//!
//! In: one envelope record's [`Fields`]. Out: a [`Wrapped`] inner line,
//! handed to the inner parser.
//!
//! ```text
//! {"log":"GET /a 200\n","stream":"stdout","time":"2026-10-01T07:58:06Z"} -> Wrapped { ts, inner: "GET /a 200", .. }
//! ```

use serde_json::Value;
use std::borrow::Cow;
use std::io::Cursor;

use super::inner::InnerParser;
use crate::event::{Event, EventSink, Origin};
use crate::formats::{envelope_records, Catalogue, Decode, Fields, Format, Role};
use crate::parse::error::ParseError;
use crate::parse::record::Inspect;
use crate::parse::stats::InputStats;
use crate::parse::ParseOptions;
use crate::read::Input;

/// How a decoded payload is read as an input of its own: the driver's
/// entry point, handed down so that no reader calls back up into it.
pub(in crate::parse) type ReadPayload = for<'i> fn(
    Input,
    u32,
    &Catalogue,
    &ParseOptions,
    &mut Vec<Event<'static>>,
    Option<Inspect<'i>>,
) -> Result<InputStats, ParseError>;

/// One unwrapped record.
pub(super) struct Wrapped {
    pub(super) origin: Origin,
    /// Envelope lines this record took (CRI partial lines join).
    pub(super) lines: u64,
    pub(super) ts: Option<String>,
    pub(super) inner: String,
    pub(super) instance: Option<String>,
}

/// Unwraps records and joins CRI partial lines.
pub(super) struct Unwrapper<'f, 'i> {
    pub(super) format: &'f Format,
    pub(super) pending: Option<Wrapped>,
    /// `formats check --fields`: the envelope's own fields of every record,
    /// so that what a definition reads can be checked without the inner format.
    /// With `decode`, the fields of the payload's records instead.
    pub(super) inspect: Option<Inspect<'i>>,
    /// The input's position in the run.
    pub(super) index: u32,
    /// Reads a decoded payload (the driver's entry point).
    pub(super) read_payload: ReadPayload,
}

impl Unwrapper<'_, '_> {
    /// Fields of one envelope record -> a finished record, or `None` while
    /// a partial line waits for its end.
    pub(super) fn push(&mut self, f: &Fields<'_>, origin: Origin) -> Option<Wrapped> {
        if let Some(show) = self
            .inspect
            .as_mut()
            .filter(|_| self.format.def.decode.is_none())
        {
            show(origin, f);
        }
        let mut inner = f.get(Role::Message).unwrap_or("").to_string();
        if let Some(ts) = f.get(Role::Ts) {
            inner = join_runtime_chunks(inner, ts);
        }
        // Docker keeps the line's newline inside the record.
        while inner.ends_with(['\n', '\r']) {
            inner.pop();
        }
        let partial = f.get(Role::Partial) == Some("P");
        let rec = match self.pending.take() {
            Some(mut p) => {
                p.inner.push_str(&inner);
                p.lines += 1;
                p
            }
            None => Wrapped {
                origin,
                lines: 1,
                ts: f.get(Role::Ts).map(str::to_string),
                inner,
                instance: f
                    .get(Role::Instance)
                    .filter(|i| !i.is_empty())
                    .map(str::to_string),
            },
        };
        if partial {
            self.pending = Some(rec);
            None
        } else {
            Some(rec)
        }
    }

    /// Hand a finished record on: its line to the inner parser, or with
    /// `decode` its payload to a reading of its own.
    pub(super) fn take<S: EventSink>(
        &mut self,
        w: Wrapped,
        parser: &mut InnerParser<'_>,
        stats: &mut InputStats,
        sink: &mut S,
    ) {
        match self.format.def.decode {
            Some(Decode::Base64) => self.decoded(w, parser, stats, sink),
            None => parser.take(w, stats, sink),
        }
    }

    /// A base64 payload (gzip inside is recognised by its magic) is read as
    /// an input of its own: detected, and unwrapped again if it is an
    /// envelope (a CloudWatch subscription message, a Cloud Logging entry).
    /// Its records count as this input's, at the line of the record that
    /// carried them. A payload no format reads is the inner line itself.
    fn decoded<S: EventSink>(
        &mut self,
        w: Wrapped,
        parser: &mut InnerParser<'_>,
        stats: &mut InputStats,
        sink: &mut S,
    ) {
        let line = w.origin.line;
        let Some(bytes) = decode_base64(&w.inner) else {
            for _ in 0..w.lines {
                stats.skip(line, "the payload is not base64", "");
            }
            return;
        };
        let opts = ParseOptions {
            threads: 1,
            progress: None,
            ..parser.opts.clone()
        };
        let payload =
            |bytes: Vec<u8>| Input::from_reader("payload".into(), Box::new(Cursor::new(bytes)));
        let mut events: Vec<Event> = Vec::new();
        let mut show = self.inspect.as_mut();
        let mut remap = |o: Origin, f: &Fields<'_>| {
            if let Some(s) = show.as_mut() {
                s(Origin { line, ..o }, f);
            }
        };
        let read = payload(bytes.clone())
            .map_err(ParseError::from)
            .and_then(|input| {
                (self.read_payload)(
                    input,
                    self.index,
                    parser.cat,
                    &opts,
                    &mut events,
                    Some(&mut remap),
                )
            });
        match read {
            Ok(mut sub) => {
                for b in &mut sub.bad_lines {
                    b.line = line;
                }
                let inner = match sub.inner_format.take() {
                    Some(i) => format!("{} > {i}", sub.format),
                    None => std::mem::take(&mut sub.format),
                };
                stats.inner_format.get_or_insert(inner);
                stats.merge(sub);
                for mut ev in events {
                    ev.origin_mut().line = line;
                    sink.push(ev);
                }
            }
            // Not a format of its own (Firehose's `Hello World`): the line.
            Err(ParseError::UnknownFormat { .. } | ParseError::Empty { .. }) => {
                let text: Vec<String> = match payload(bytes) {
                    Ok(input) => input
                        .lines()
                        .map_while(Result::ok)
                        .map(|(_, l)| l)
                        .collect(),
                    Err(_) => Vec::new(),
                };
                let inner = text.join("\n");
                let mut f = Fields::default();
                if let Some(ts) = &w.ts {
                    f.set(Role::Ts, Cow::Borrowed(ts.as_str()));
                }
                f.set(Role::Message, Cow::Borrowed(inner.as_str()));
                remap(w.origin, &f);
                parser.take(Wrapped { inner, ..w }, stats, sink);
            }
            Err(_) => {
                for _ in 0..w.lines {
                    stats.skip(line, "the payload does not read", "");
                }
            }
        }
    }

    pub(super) fn records_of_json<'v>(&self, v: &'v Value) -> Vec<Cow<'v, Value>> {
        match self
            .format
            .def
            .envelope
            .as_deref()
            .and_then(|e| crate::formats::lookup(v, e))
        {
            Some(Value::Array(items)) => items.iter().flat_map(envelope_records).collect(),
            _ => envelope_records(v),
        }
    }
}

/// Standard or URL-safe base64, padded or not, whitespace ignored.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    use base64::Engine;
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
        .iter()
        .find_map(|e| e.decode(&compact).ok())
}

/// How much of a line a container runtime writes per chunk.
const RUNTIME_CHUNK: usize = 16 * 1024;

/// A line longer than 16 KiB that Docker wrote in chunks, each opened with
/// the line's timestamp (a TTY container's `docker logs --timestamps`):
/// the repeated timestamps at the chunk ends are dropped.
///
/// ```text
/// 2026-10-01T07:58:06.1Z aaaa(16 KiB)2026-10-01T07:58:06.1Z a -> aaaa(16 KiB)a
/// ```
fn join_runtime_chunks(line: String, ts: &str) -> String {
    let repeat = format!("{ts} ");
    let mut rest = line.as_str();
    let mut out = String::new();
    while rest.len() > RUNTIME_CHUNK
        && rest.is_char_boundary(RUNTIME_CHUNK)
        && rest[RUNTIME_CHUNK..].starts_with(&repeat)
    {
        out.push_str(&rest[..RUNTIME_CHUNK]);
        rest = &rest[RUNTIME_CHUNK + repeat.len()..];
    }
    if out.is_empty() {
        return line;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_chunks_of_a_long_line_are_joined() {
        let ts = "2026-10-01T07:58:06.113456789Z";
        let a = "a".repeat(RUNTIME_CHUNK);
        let cases = [
            ("short", "GET /a 200".to_string(), "GET /a 200".to_string()),
            ("two chunks", format!("{a}{ts} b"), format!("{a}b")),
            (
                "three chunks",
                format!("{a}{ts} {a}{ts} c"),
                format!("{a}{a}c"),
            ),
            (
                "another time",
                format!("{a}2026-10-01T07:58:07Z b"),
                format!("{a}2026-10-01T07:58:07Z b"),
            ),
        ];
        for (name, line, want) in cases {
            assert_eq!(join_runtime_chunks(line, ts), want, "{name}");
        }
    }
}
