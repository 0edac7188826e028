//! PostgreSQL's stderr log, whatever its `log_line_prefix`: the prefixes
//! the definition lists (compiled by `pg_prefix.rs`) are tried first, then
//! prefixes inferred from this input's own lines (`pg_infer.rs`), then the
//! definition's hand-written `patterns` (syslog and Heroku wrappers, and a
//! last variant that reads any prefix starting with a time stamp but gives
//! only time, level and message). A reader is made per input, so a guess
//! made on one file never reads another.
//!
//! In: lines. Out: one log record per line (`ts`, `level`, `message`, and
//! `user`, `client` where the prefix writes them).
//!
//! ```text
//! 2026-10-01 07:58:06.113 UTC [4411] app=billing,user=api ERROR:  boom
//!   -> prefix guessed "%m [%p] app=%a,user=%u " -> ts, user api, level ERROR, message boom
//! ```

use super::{Extractor, Skip};
use crate::formats::compile::{Fields, Format, Pattern};
use crate::formats::{pg_infer, pg_prefix};

/// Guesses made per input at most: a file of lines no guess reads stops
/// paying for guesses.
const MAX_GUESSES: usize = 32;
/// Inferred prefixes kept per input (a session's and a background
/// process's are two).
const MAX_INFERRED: usize = 4;

pub struct PostgresLog {
    /// The format's patterns: its prefixes first, then its variants.
    patterns: Vec<Pattern>,
    prefixes: usize,
    inferred: Vec<Pattern>,
    guesses: usize,
}

impl PostgresLog {
    pub fn new(format: &Format) -> PostgresLog {
        PostgresLog {
            patterns: format.patterns.clone(),
            prefixes: format.prefix_patterns.min(format.patterns.len()),
            inferred: Vec::new(),
            guesses: 0,
        }
    }

    /// A new pattern from a prefix guessed on `line`, if one reads it.
    fn guess(&mut self, line: &str) -> Option<&Pattern> {
        if self.guesses >= MAX_GUESSES || self.inferred.len() >= MAX_INFERRED {
            return None;
        }
        self.guesses += 1;
        let prefix = pg_infer::infer(line)?;
        let p = Pattern::compile(&pg_prefix::compile(&prefix).ok()?).ok()?;
        self.inferred.push(p);
        self.inferred.last()
    }
}

impl Extractor for PostgresLog {
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip> {
        // A blank line is read as nothing: lnav's and people's excerpts
        // separate sessions with them, and a statement may hold them.
        if line.trim().is_empty() {
            return Ok(Vec::new());
        }
        // The prefix patterns are the first `prefixes` of `patterns`.
        let known = self.patterns.get(..self.prefixes).unwrap_or(&self.patterns);
        if let Some(f) = known
            .iter()
            .chain(&self.inferred)
            .find_map(|p| p.read(line))
        {
            return Ok(vec![f]);
        }
        if let Some(f) = self.guess(line).and_then(|p| p.read(line)) {
            return Ok(vec![f]);
        }
        let variants = self.patterns.get(self.prefixes..).unwrap_or_default();
        match variants.iter().find_map(|p| p.read(line)) {
            Some(f) => Ok(vec![f]),
            None => Err("does not match the format"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{Catalogue, Role};

    fn reader() -> Box<dyn Extractor> {
        let cat = Catalogue::builtin().expect("catalogue");
        let i = cat.find("postgres").expect("postgres");
        cat.formats[i].extractor().expect("a reader")
    }

    /// A prefix no definition lists: its user and client come out, where
    /// the generic variant would give only time, level and message.
    #[test]
    fn an_unlisted_prefix_is_inferred_and_reads_its_fields() {
        let mut x = reader();
        let lines = [
            "2026-10-01 07:58:06.113 UTC [4411] app=billing,user=api,client=10.0.0.7 ERROR:  canceling statement due to statement timeout",
            "2026-10-01 07:58:07.020 UTC [4412] app=web,user=shop,client=10.0.0.8 FATAL:  remaining connection slots are reserved",
        ];
        for (line, user, client) in [
            (lines[0], "api", "10.0.0.7"),
            (lines[1], "shop", "10.0.0.8"),
        ] {
            let recs = x.line(line).expect("reads");
            assert_eq!(recs[0].get(Role::User), Some(user));
            assert_eq!(recs[0].get(Role::Client), Some(client));
            assert_eq!(recs[0].get(Role::Ts).map(|t| &t[..4]), Some("2026"));
        }
    }

    #[test]
    fn foreign_lines_are_refused_and_blank_ones_read_as_nothing() {
        let mut x = reader();
        for line in ["GET / HTTP/1.1", "{\"a\": 1}"] {
            assert!(x.line(line).is_err(), "{line:?}");
        }
        assert!(x.line("  ").is_ok_and(|r| r.is_empty()));
    }
}
