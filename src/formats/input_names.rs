//! Which instance an input's own path names (`parsers/input-names.json`):
//! kubelet and Docker write one file per pod or container, and the pod is
//! in the file name, not in the lines. Data in, a matcher out; the run
//! gives each input's instance to the sink, which fills it into the records
//! that name none.
//!
//! ```text
//! logs/web-7d9f-x2x9k_production_web-<64 hex>.log      -> web-7d9f-x2x9k
//! /var/log/pods/ns_checkout-6b8d-9zq2k_<uid>/app/0.log -> checkout-6b8d-9zq2k
//! logs/nginx/access.log                                -> none
//! ```

use regex::Regex;
use serde::Deserialize;

use super::rules::RuleError;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InputNameFile {
    #[serde(rename = "$comment", default)]
    _comment: Option<String>,
    patterns: Vec<String>,
    #[serde(default)]
    samples: Vec<Sample>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Sample {
    path: String,
    instance: Option<String>,
    #[serde(default)]
    host: Option<String>,
}

/// What an input's path names: the instance, and the host it ran on when a
/// directory of the path is named for one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathName {
    pub instance: String,
    pub host: Option<String>,
}

/// The compiled patterns, tried in order.
#[derive(Debug, Default)]
pub struct InputNames {
    each: Vec<Regex>,
}

const FILE: &str = "input-names.json";

impl InputNames {
    /// Compile the patterns; every sample must give the instance it states.
    pub fn from_text(text: &str) -> Result<InputNames, RuleError> {
        let err = |message: String| RuleError {
            file: FILE.to_string(),
            message,
        };
        let f: InputNameFile = serde_json::from_str(text).map_err(|e| err(e.to_string()))?;
        let mut each = Vec::new();
        for p in &f.patterns {
            let re = Regex::new(p).map_err(|e| err(e.to_string()))?;
            if re.capture_names().flatten().all(|n| n != "instance") {
                return Err(err(format!("pattern `{p}` has no `instance` capture")));
            }
            each.push(re);
        }
        let names = InputNames { each };
        for s in &f.samples {
            let got = names.named(&s.path);
            let want = s.instance.clone().map(|instance| PathName {
                instance,
                host: s.host.clone(),
            });
            if got != want {
                return Err(err(format!(
                    "sample `{}` names {:?}, expected {:?}",
                    s.path, got, want
                )));
            }
        }
        Ok(names)
    }

    /// The instance `path` names, if a pattern reads one.
    pub fn instance_of(&self, path: &str) -> Option<String> {
        self.named(path).map(|n| n.instance)
    }

    /// The file name without its directories and its data and compression
    /// extensions (`grafana/pgbouncer_pools_client_waiting_connections.csv.gz`
    /// -> `pgbouncer_pools_client_waiting_connections`): a dashboard's
    /// export is named for its metric, whose columns are then instances.
    pub fn stem_of(path: &str) -> &str {
        let mut stem = path.rsplit(['/', '\\']).next().unwrap_or(path);
        loop {
            let before = stem;
            for ext in [".gz", ".zst", ".csv", ".tsv", ".json", ".txt", ".prom"] {
                if let Some(s) = stem.strip_suffix(ext) {
                    stem = s;
                }
            }
            if stem == before {
                return stem;
            }
        }
    }

    /// The instance `path` names, and the host if the pattern reads one.
    pub fn named(&self, path: &str) -> Option<PathName> {
        // Windows separators read like the others.
        let path = path.replace('\\', "/");
        self.each.iter().find_map(|re| {
            let caps = re.captures(&path)?;
            Some(PathName {
                instance: caps.name("instance")?.as_str().to_string(),
                host: caps.name("host").map(|h| h.as_str().to_string()),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::formats::Catalogue;

    #[test]
    fn a_file_stem_is_its_name_without_data_and_compression_extensions() {
        use super::InputNames;
        assert_eq!(
            InputNames::stem_of("grafana/pgbouncer_pools_client_waiting_connections.csv.gz"),
            "pgbouncer_pools_client_waiting_connections"
        );
        assert_eq!(
            InputNames::stem_of("datadog/pgbouncer.pools.cl_waiting.json"),
            "pgbouncer.pools.cl_waiting"
        );
        assert_eq!(InputNames::stem_of("metrics"), "metrics");
    }

    /// The samples are checked on load; these are paths they do not hold.
    #[test]
    fn paths_written_elsewhere() {
        let names = &Catalogue::builtin().expect("catalogue").rules.input_names;
        let cases = [
            (
                r"C:\export\containers\api-6c7d-k2p4q_prod_api-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.log",
                Some("api-6c7d-k2p4q"),
            ),
            ("web-0_default_web.log", None),
            ("pods/ns_web-0_not-a-uid/web/0.log", None),
            ("", None),
        ];
        for (path, want) in cases {
            assert_eq!(names.instance_of(path).as_deref(), want, "{path}");
        }
    }
}
