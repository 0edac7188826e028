//! Resolved configuration: zones parsed, times read, rules compiled. Built
//! from clap's [`super::args`]; the pipeline only sees a [`Config`].

use regex::Regex;
use std::path::PathBuf;

use super::args::{AnalyzeArgs, InputArgs};
use super::error::CliError;
use crate::aggregate::Span;
use crate::event::MetricRole;
use crate::formats::metric_role_named;
use crate::parse::TimeParser;
use crate::zone::Zone;

/// What the run reads and how.
#[derive(Clone, Debug, Default)]
pub struct InputConfig {
    pub inputs: Vec<PathBuf>,
    pub input_tz: Zone,
    pub formats_dir: Option<PathBuf>,
    pub format: Option<String>,
    pub strict: bool,
    pub tenant_fields: Vec<String>,
    pub tenant_paths: Vec<Regex>,
    pub tenant_queries: Vec<String>,
    pub metric_roles: Vec<(String, MetricRole)>,
    /// Parsing threads.
    pub threads: usize,
    /// Bytes-read callback for a progress bar (set by the binary on a terminal).
    pub progress: Option<crate::parse::Progress>,
}

/// A resolved `analyze`/`timeline`/`tenants` run.
#[derive(Clone, Debug, Default)]
pub struct Config {
    pub input: InputConfig,
    pub tz: Zone,
    pub since: Option<i64>,
    pub until: Option<i64>,
    pub baseline: Option<Span>,
}

fn zone(flag: &str, v: Option<&str>) -> Result<Zone, CliError> {
    match v {
        None => Ok(Zone::Utc),
        Some(s) => s.parse().map_err(|message| CliError::Zone {
            flag: flag.to_string(),
            message,
        }),
    }
}

pub fn input_config(inputs: Vec<PathBuf>, a: &InputArgs) -> Result<InputConfig, CliError> {
    let mut c = InputConfig {
        inputs,
        input_tz: zone("--input-tz", a.input_tz.as_deref())?,
        formats_dir: a.formats_dir.clone(),
        format: a.format.clone(),
        strict: a.strict,
        threads: a
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
            .max(1),
        ..InputConfig::default()
    };
    for rule in &a.tenant_from {
        let bad = |why: &str| CliError::TenantRule {
            rule: rule.clone(),
            message: why.to_string(),
        };
        let (kind, value) = rule
            .split_once(':')
            .ok_or_else(|| bad("a rule is KIND:VALUE"))?;
        if value.is_empty() {
            return Err(bad("the value is empty"));
        }
        match kind {
            "field" => c.tenant_fields.push(value.to_string()),
            "header" => {
                // Headers appear in JSON access logs under a few conventional parents.
                for parent in [
                    "headers",
                    "request.headers",
                    "httpRequest.headers",
                    "req.headers",
                    "request_headers",
                ] {
                    c.tenant_fields.push(format!("{parent}.{value}"));
                    c.tenant_fields
                        .push(format!("{parent}.{}", value.to_ascii_lowercase()));
                }
                // Traefik's JSON access log keeps headers as top-level
                // `request_<Name>`; an nginx JSON log_format as `$http_<name>`.
                // Header names are case-blind, and Go (Traefik) writes them
                // in their canonical form: `X-Tenant-ID` is `X-Tenant-Id`.
                let snake = value.to_ascii_lowercase().replace('-', "_");
                let canonical = canonical_header(value);
                c.tenant_fields.push(format!("request_{value}"));
                if canonical != value {
                    c.tenant_fields.push(format!("request_{canonical}"));
                }
                c.tenant_fields.push(format!("http_{snake}"));
            }
            "query" => c.tenant_queries.push(value.to_string()),
            "path" => {
                let re = Regex::new(value).map_err(|e| bad(&e.to_string()))?;
                if !re.capture_names().any(|n| n == Some("tenant")) {
                    return Err(bad(
                        "the regex needs a named group `tenant`: (?P<tenant>...)",
                    ));
                }
                c.tenant_paths.push(re);
            }
            _ => return Err(bad("KIND is one of field, path, header, query")),
        }
    }
    for m in &a.metric_role {
        let (name, role) = m.split_once('=').ok_or_else(|| CliError::MetricRole {
            arg: m.clone(),
            message: "expected NAME=ROLE".to_string(),
        })?;
        let role = metric_role_named(role).ok_or_else(|| CliError::MetricRole {
            arg: m.clone(),
            message: format!("unknown role `{role}`"),
        })?;
        c.metric_roles.push((name.to_string(), role));
    }
    Ok(c)
}

fn time(flag: &str, v: &str, zone: Zone) -> Result<i64, CliError> {
    TimeParser::new(&[], zone)
        .parse(v)
        .map(|ms| ms.div_euclid(1000))
        .ok_or_else(|| CliError::Time {
            flag: flag.to_string(),
            value: v.to_string(),
        })
}

pub fn config(a: &AnalyzeArgs) -> Result<Config, CliError> {
    let input = input_config(a.inputs.clone(), &a.input)?;
    let tz = zone("--tz", a.tz.as_deref())?;
    let since = a
        .since
        .as_deref()
        .map(|v| time("--since", v, input.input_tz))
        .transpose()?;
    let until = a
        .until
        .as_deref()
        .map(|v| time("--until", v, input.input_tz))
        .transpose()?;
    let baseline = match a.baseline.as_deref() {
        None => None,
        Some(b) => {
            let (s, e) = b.split_once("..").ok_or_else(|| CliError::Time {
                flag: "--baseline".to_string(),
                value: b.to_string(),
            })?;
            let (s, e) = (
                time("--baseline", s, input.input_tz)?,
                time("--baseline", e, input.input_tz)?,
            );
            if e <= s {
                return Err(CliError::Time {
                    flag: "--baseline".to_string(),
                    value: b.to_string(),
                });
            }
            Some(Span::new(s, e))
        }
    };
    Ok(Config {
        input,
        tz,
        since,
        until,
        baseline,
    })
}

/// A header name as Go's `textproto.CanonicalMIMEHeaderKey` writes it:
/// each dash-separated word capitalised, the rest lower case.
fn canonical_header(name: &str) -> String {
    name.split('-')
        .map(|w| {
            let mut cs = w.chars();
            match cs.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + &cs.as_str().to_ascii_lowercase(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join("-")
}

#[cfg(test)]
mod tests {
    #[test]
    fn header_names_are_read_in_go_s_canonical_form_too() {
        assert_eq!(super::canonical_header("X-Tenant-ID"), "X-Tenant-Id");
        assert_eq!(super::canonical_header("x-org-id"), "X-Org-Id");
    }
}
