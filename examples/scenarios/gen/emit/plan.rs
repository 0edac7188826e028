//! The record of every choice a draw made, serialised beside the files so a failing draw can
//! be debugged without re-running it; and the files a writer hands back.
//!
//! In: what each writer decided; out: [`Plan`] (serde) and [`OutFile`] (name, family, bytes).

use std::collections::BTreeMap;

use serde::Serialize;

use super::ctx::Scheme;
use super::tenant::TenantPlan;

#[derive(Clone, Debug, Default, Serialize)]
pub struct Plan {
    pub platform: String,
    /// The language the app log was written for (guessed from the World's loggers).
    pub language: String,
    /// The servers' local zone, used by every source that writes local time.
    pub server_zone: String,
    /// The zone of every zone-less timestamp (one for all, so one `--input-tz` reads them).
    pub zoneless_zone: String,
    pub tenant: Option<TenantPlan>,
    pub sources: Vec<SourcePlan>,
    pub files: Vec<FilePlan>,
    /// Records that tie one naming of an instance to another.
    pub links: Vec<LinkPlan>,
    /// Pairs of naming schemes in use that no record ties together.
    pub unlinked: Vec<String>,
    /// Where each World change was written.
    pub changes: Vec<ChangePlan>,
    /// Each `analyze_args` entry with why it is there.
    pub args: Vec<ArgPlan>,
    pub notes: Vec<String>,
}

/// One source (access log, app log, metrics, events): how it was written.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SourcePlan {
    pub kind: &'static str,
    pub family: String,
    /// Zone of its local timestamps (UTC when it writes UTC).
    pub zone: String,
    /// True when its timestamps carry no offset.
    pub zoneless: bool,
    /// Its clock's error against true time.
    pub skew_ms: i64,
    /// How it names instances (`None`: it does not).
    pub naming: Vec<&'static str>,
    /// Which moment a record's time stamps (`start`, `end`, `log time` ...).
    pub stamps: String,
    /// Family-specific choices (format variant, field names, counts of dropped records ...).
    pub details: BTreeMap<String, String>,
}

impl SourcePlan {
    pub fn detail(&mut self, k: &str, v: impl ToString) {
        self.details.insert(k.to_string(), v.to_string());
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct FilePlan {
    pub name: String,
    pub family: String,
    pub kind: &'static str,
    pub gzip: bool,
    pub records: usize,
    pub bytes: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkPlan {
    pub a: &'static str,
    pub b: &'static str,
    /// The record kind and file that names both.
    pub via: String,
    /// How many instances it links.
    pub instances: usize,
}

impl LinkPlan {
    pub fn new(a: Scheme, b: Scheme, via: impl Into<String>, instances: usize) -> LinkPlan {
        LinkPlan {
            a: a.name(),
            b: b.name(),
            via: via.into(),
            instances,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct ChangePlan {
    pub ts: String,
    pub kind: String,
    pub written_to: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ArgPlan {
    pub arg: Vec<String>,
    pub why: String,
}

/// A file a writer produced, before compression.
#[derive(Clone, Debug)]
pub struct OutFile {
    /// Relative to the output directory; `.gz` is added when it is compressed.
    pub name: String,
    pub family: &'static str,
    pub kind: &'static str,
    pub body: Vec<u8>,
    /// Records (lines, entries, points) it holds.
    pub records: usize,
    /// Some formats are always delivered compressed (ALB access logs).
    pub always_gzip: bool,
}

impl OutFile {
    pub fn new(
        name: impl Into<String>,
        family: &'static str,
        kind: &'static str,
        body: String,
        records: usize,
    ) -> OutFile {
        OutFile {
            name: name.into(),
            family,
            kind,
            body: body.into_bytes(),
            records,
            always_gzip: false,
        }
    }
}

/// What one source writer returns.
#[derive(Debug, Default)]
pub struct SourceOut {
    pub files: Vec<OutFile>,
    pub plan: SourcePlan,
    pub links: Vec<LinkPlan>,
}

/// Lines joined with `\n`, with a final newline (as line-oriented writers leave files).
pub fn lines(v: &[String]) -> String {
    let mut s = v.join("\n");
    if !s.is_empty() {
        s.push('\n');
    }
    s
}

/// Lines collected straight into one text (each followed by `\n`), so a big file is never
/// held twice (as lines and as text).
pub struct Lines(pub String);

impl FromIterator<String> for Lines {
    fn from_iter<I: IntoIterator<Item = String>>(iter: I) -> Lines {
        let mut s = String::new();
        for line in iter {
            s.push_str(&line);
            s.push('\n');
        }
        Lines(s)
    }
}
