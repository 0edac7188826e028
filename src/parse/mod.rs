//! Parsing: each input's lines (or JSON documents) -> normalised events, or a
//! counted skip with its reason. Every line is accounted for:
//! `lines == parsed + skipped`.
//!
//! In: an [`Input`](crate::read::Input) from `read` and the
//! [`Catalogue`](crate::formats::Catalogue) from `formats`. Out:
//! [`Event`](crate::event::Event)s pushed to a sink, and the input's
//! [`InputStats`].
//!
//! ```text
//! access.log:1  203.0.113.7 - - [01/Oct/2026:13:26:55 +0530] "GET /api/..." 200 ...
//!   -> Event::Request(Request { ts: 07:56:52.583Z, route: "/api/v1/accounts/{id}/...", tenant: "acct-4411", .. })
//! ```
//!
//! Calls go one way, top to bottom:
//!
//! ```text
//! driver      head, detection, which reader; threads and order (chunks)
//!   envelope  envelope records -> inner lines -> the line readers
//!   documents whole JSON documents -> records
//!   lines     one line at a time, continuation lines; a syntax read
//!             whole (YAML) is read as one text, then counted line by line
//!     others  what the format leaves: wrapped lines, fallbacks, decorations
//!     above   continuation lines belong to the record above
//!     kind    one line or JSON value, by the definition's kind -> fields
//!       record    the record builder: fields -> Event (request: requests)
//!         timestamp, route
//! stats       every reader's account of the input's lines
//! ```

mod above;
mod bad_line;
mod chunks;
mod console;
mod cut_document;
mod documents;
mod driver;
mod envelope;
mod error;
mod json_fallback;
mod kind;
mod lines;
mod others;
mod record;
mod request;
mod route;
mod stats;
mod timestamp;

pub use driver::{parse_input, parse_input_inspect};
pub use error::ParseError;
pub use record::{level, Builder};
pub use route::fold as fold_route;
pub use stats::{BadLine, InputStats};
pub use timestamp::TimeParser;

use crate::zone::Zone;

/// The skip reason of a line the end of a cut input fell inside.
pub const CUT_SHORT: &str = "cut short: the input ends inside this line";
/// The skip reason of the lines of a CSV row the input ends inside.
pub const CUT_ROW: &str = "cut short: the input ends inside this row";
/// The skip reason of the record a cut JSON document ends inside.
pub const CUT_RECORD: &str = "cut short: the document ends inside this record";

/// How to parse.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// `--format NAME`, resolved to a catalogue index.
    pub forced: Option<usize>,
    /// `--input-tz`.
    pub input_tz: Zone,
    /// Worker threads for large line inputs (1: parse on the calling thread).
    pub threads: usize,
    /// Told how many bytes were handed to the workers, for a progress bar.
    pub progress: Option<Progress>,
    /// The last time an earlier input held (UTC ms): where a time written
    /// without a year (syslog, journald's short form) is placed before the
    /// input gives context of its own.
    pub year_hint: Option<crate::event::Millis>,
}

/// A callback told of bytes read; the binary draws a progress bar with it.
#[derive(Clone)]
pub struct Progress(pub std::sync::Arc<dyn Fn(u64) + Send + Sync>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
}
