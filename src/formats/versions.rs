//! Version banners (`parsers/versions.json`): which log messages name the
//! version a service started with. Data in, a matcher out; the parse stage
//! puts what it finds on the [`LogRecord`](crate::event::LogRecord), and
//! the correlate stage infers changes from it.
//!
//! ```text
//! "Starting orders-api v4.18.3"                     -> service orders-api, version 4.18.3
//! "Starting Application v1.2.3 using Java 17.0.9"   -> service Application, version 1.2.3
//! "build version 2.0.1"                             -> version 2.0.1
//! ```

use regex::{Regex, RegexSet};
use serde::Deserialize;

use super::rules::RuleError;
use crate::event::VersionBanner;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct VersionFile {
    #[serde(rename = "$comment", default)]
    _comment: Option<String>,
    banners: Vec<String>,
}

/// Compiled banner rules: a set to tell quickly whether any matches, and
/// each regex to read the captures of the first that does.
#[derive(Debug)]
pub struct VersionRules {
    set: RegexSet,
    each: Vec<Regex>,
}

impl VersionRules {
    pub fn from_text(text: &str) -> Result<VersionRules, RuleError> {
        let err = |message: String| RuleError {
            file: "versions.json".to_string(),
            message,
        };
        let f: VersionFile = serde_json::from_str(text).map_err(|e| err(e.to_string()))?;
        let set = regex::RegexSetBuilder::new(&f.banners)
            .case_insensitive(true)
            .build()
            .map_err(|e| err(e.to_string()))?;
        let mut each = Vec::new();
        for b in &f.banners {
            let re = regex::RegexBuilder::new(b)
                .case_insensitive(true)
                .build()
                .map_err(|e| err(e.to_string()))?;
            if re.capture_names().flatten().all(|n| n != "version") {
                return Err(err(format!("banner `{b}` has no `version` capture")));
            }
            each.push(re);
        }
        Ok(VersionRules { set, each })
    }

    /// The version a start-up message names, if it is a banner.
    pub fn banner_of(&self, message: &str) -> Option<VersionBanner> {
        // Every banner names a version with a dot in it: most messages have none.
        memchr::memchr(b'.', message.as_bytes())?;
        let first = self.set.matches(message).into_iter().next()?;
        let caps = self.each.get(first)?.captures(message)?;
        let version = caps.name("version")?.as_str();
        Some(VersionBanner {
            service: caps.name("service").map(|s| s.as_str().to_string()),
            version: version.trim_start_matches(['v', 'V']).to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::formats::Catalogue;

    /// Banners written for this test in the shapes each stack uses.
    #[test]
    fn banners_name_their_version() {
        let rules = Catalogue::builtin().expect("catalogue").rules;
        // (name, message, service, version)
        let cases = [
            ("plain", "Starting orders-api v4.18.3", Some("orders-api"), Some("4.18.3")),
            (
                "spring boot",
                "Starting Application v1.2.3 using Java 17.0.9 with PID 4411 (/app/app.jar started by app in /app)",
                Some("Application"),
                Some("1.2.3"),
            ),
            ("name version started", "billing version=2.7.0 started", Some("billing"), Some("2.7.0")),
            ("go build", "build version 1.21.4-rc1 (commit 3f9a1c2)", None, Some("1.21.4-rc1")),
            (
                "started with version",
                "server started on :8080 version=3.0.12",
                None,
                Some("3.0.12"),
            ),
            ("not a banner", "GET /api/v1.2/orders took 1.2 s", None, None),
            ("no version", "Starting orders-api", None, None),
            ("stopping", "Stopping orders-api v4.18.3", None, None),
        ];
        for (name, message, service, version) in cases {
            let got = rules.versions.banner_of(message);
            assert_eq!(got.as_ref().map(|b| b.version.as_str()), version, "{name}");
            if version.is_some() {
                assert_eq!(got.and_then(|b| b.service).as_deref(), service, "{name}");
            }
        }
    }
}
