//! The command line as clap sees it: the flags of the spec, nothing resolved
//! yet. `config.rs` turns these into a checked [`crate::cli::Config`].

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "postmortem",
    version,
    about = "Reconstructs an incident from exported logs, metrics and events, and drafts the postmortem",
    long_about = "Point postmortem at what you exported after an incident (access logs, application logs, \
                  database and infrastructure metrics, orchestrator events; files, directories, `-` for stdin, \
                  gzip or zstd). It finds the onset and recovery, who drove the load, the cascade, and writes \
                  a Markdown draft of the incident report with every figure tied to its source."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write the incident report (Markdown, or JSON with --json).
    Analyze(ReportArgs),
    /// Show the reconstructed timeline as a table.
    Timeline(AnalyzeArgs),
    /// Show load attribution (tenants or integrations) as a table.
    Tenants(AnalyzeArgs),
    /// Show log message templates, those new or surging in the incident window first (--json: the report's `templates` array).
    Templates(AnalyzeArgs),
    /// List the known formats, or check which format inputs are in.
    Formats(FormatsArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), generated from these same definitions.
    Man,
}

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// Files, directories (read recursively) or `-` for standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Write the JSON report (postmortem.report/v1) instead of Markdown.
    #[arg(long)]
    pub json: bool,

    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Show times in UTC and in this zone (IANA name such as Asia/Kolkata, or an offset such as +05:30).
    #[arg(long, value_name = "ZONE")]
    pub tz: Option<String>,

    #[command(flatten)]
    pub input: InputArgs,

    /// Analyse only data from this time on (RFC 3339, or `YYYY-MM-DD HH:MM:SS` in --input-tz).
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,

    /// Analyse only data before this time.
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,

    /// The span that counts as normal, START..END (default: the data before the onset).
    #[arg(long, value_name = "START..END")]
    pub baseline: Option<String>,
}

/// `analyze`: the flags of every analysing command, and what only the
/// report has.
#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub common: AnalyzeArgs,

    /// Also write each chart as an SVG file into DIR, and link those from the
    /// Markdown instead of drawing the charts with Mermaid.
    #[arg(long, value_name = "DIR")]
    pub assets: Option<PathBuf>,
}

/// Flags about reading inputs, shared by every command that reads.
#[derive(Debug, Args, Clone, Default)]
pub struct InputArgs {
    /// Read timestamps that carry no zone in this zone (default UTC, with a warning).
    #[arg(long = "input-tz", value_name = "ZONE")]
    pub input_tz: Option<String>,

    /// How to find the tenant when the default rules do not: field:NAME, path:REGEX (with a `tenant` group), header:NAME or query:NAME. Repeatable.
    #[arg(long = "tenant-from", value_name = "RULE")]
    pub tenant_from: Vec<String>,

    /// Load extra format definitions (same schema as parsers/) from DIR.
    #[arg(long = "formats-dir", value_name = "DIR")]
    pub formats_dir: Option<PathBuf>,

    /// Read every input as this format instead of detecting it.
    #[arg(long, value_name = "NAME")]
    pub format: Option<String>,

    /// Any line no format parses is an error (exit code 2) instead of a counted skip.
    #[arg(long)]
    pub strict: bool,

    /// Parsing threads (default: one per core). The output is the same whatever the number.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,

    /// Map a metric name to a role, NAME=ROLE (e.g. app_db_busy=db_connections_in_use). Repeatable.
    #[arg(long = "metric-role", value_name = "NAME=ROLE")]
    pub metric_role: Vec<String>,
}

#[derive(Debug, Args)]
pub struct FormatsArgs {
    #[command(subcommand)]
    pub command: Option<FormatsCommand>,

    /// Load extra format definitions from DIR.
    #[arg(long = "formats-dir", value_name = "DIR", global = true)]
    pub formats_dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum FormatsCommand {
    /// Which format each input is, and how many of its lines parse.
    Check {
        #[arg(required = true, value_name = "INPUT")]
        inputs: Vec<PathBuf>,
        /// One JSON object per input: path, format, score, lines, parsed, skipped, skipped_by_reason.
        #[arg(long)]
        json: bool,
        /// Print every record's extracted fields, one JSON object a line (path, line, fields, labels).
        #[arg(long)]
        fields: bool,
        #[command(flatten)]
        input: InputArgs,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
