//! Bad usage, reported before anything is read.

use miette::Diagnostic;
use thiserror::Error;

#[derive(Debug, Error, Diagnostic)]
pub enum CliError {
    #[error("{flag}: {message}")]
    #[diagnostic(
        code(postmortem::cli::zone),
        help("use an IANA name (Asia/Kolkata, Europe/Berlin) or an offset (+05:30, -0400, UTC)")
    )]
    Zone { flag: String, message: String },

    #[error("{flag}: `{value}` is not a time")]
    #[diagnostic(
        code(postmortem::cli::time),
        help("use RFC 3339 (2026-10-01T07:56:55Z) or `YYYY-MM-DD HH:MM:SS`; --baseline takes START..END with START before END")
    )]
    Time { flag: String, value: String },

    #[error("--tenant-from {rule}: {message}")]
    #[diagnostic(
        code(postmortem::cli::tenant_rule),
        help("rules: field:NAME, path:REGEX with (?P<tenant>...), header:NAME, query:NAME")
    )]
    TenantRule { rule: String, message: String },

    #[error("--metric-role {arg}: {message}")]
    #[diagnostic(
        code(postmortem::cli::metric_role),
        help("roles: db_connections_in_use, db_connections_max, db_connections_waiting, cpu_utilization, memory_utilization, queue_depth, restarts, requests_rate, db_writes_rate")
    )]
    MetricRole { arg: String, message: String },

    #[error("cannot write {path}: {message}")]
    #[diagnostic(code(postmortem::cli::output))]
    Output { path: String, message: String },
}
