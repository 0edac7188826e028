//! postmortem: incident exports in, a draft postmortem out.
//!
//! The pipeline, one way:
//! read -> formats (detect) -> parse -> event -> aggregate -> correlate ->
//! patterns -> report (redacted) -> render.
//!
//! ```no_run
//! let cfg = postmortem::cli::Config::default();
//! let report = postmortem::run(&cfg)?;
//! print!("{}", postmortem::render::markdown::render(&report));
//! # Ok::<(), postmortem::Error>(())
//! ```

pub mod aggregate;
pub mod cli;
pub mod correlate;
pub mod event;
pub mod formats;
pub mod parse;
pub mod patterns;
pub mod read;
pub mod redact;
pub mod render;
pub mod report;
mod scan;
pub mod templates;
pub mod zone;

use miette::Diagnostic;
use thiserror::Error;

use aggregate::{AggregateError, Aggregates};
use cli::{CliError, Config, InputConfig};
use correlate::CorrelateOptions;
use formats::{Catalogue, CatalogueError, FormatError};
use parse::{InputStats, ParseError, ParseOptions};
use read::ReadError;
use report::Report;
use templates::TemplateError;

/// Every error a run can end with; `main` turns it into a diagnostic.
#[derive(Debug, Error, Diagnostic)]
pub enum Error {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Cli(#[from] CliError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Catalogue(#[from] CatalogueError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Format(#[from] FormatError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Read(#[from] ReadError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Parse(#[from] ParseError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Aggregate(#[from] AggregateError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Templates(#[from] TemplateError),
    /// `--strict` found lines no format reads (exit code 2).
    #[error("--strict: {count} line(s) could not be parsed")]
    #[diagnostic(code(postmortem::strict))]
    Strict {
        count: u64,
        #[related]
        lines: Vec<ParseError>,
    },
}

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Strict { .. } => 2,
            _ => 1,
        }
    }
}

/// The catalogue with `--formats-dir` and `--metric-role` applied.
pub fn catalogue(input: &InputConfig) -> Result<Catalogue, Error> {
    let mut cat = Catalogue::builtin()?;
    if let Some(dir) = &input.formats_dir {
        cat.load_dir(dir)?;
    }
    for (name, role) in &input.metric_roles {
        cat.rules.add_metric_role(name, *role);
    }
    cat.rules.tenant_field_rules = input.tenant_fields.clone();
    cat.rules.tenant_path_rules = input.tenant_paths.clone();
    cat.rules.tenant_query_rules = input.tenant_queries.clone();
    Ok(cat)
}

fn parse_options(cat: &Catalogue, input: &InputConfig) -> Result<ParseOptions, Error> {
    let forced = match &input.format {
        Some(name) => Some(
            cat.find(name)
                .ok_or_else(|| ParseError::NoSuchFormat { name: name.clone() })?,
        ),
        None => None,
    };
    Ok(ParseOptions {
        forced,
        input_tz: input.input_tz,
        threads: input.threads.max(1),
        progress: input.progress.clone(),
    })
}

/// Read and parse every input into `sink`; the per-input statistics come back.
pub fn read_inputs<S: event::EventSink>(
    cat: &Catalogue,
    input: &InputConfig,
    sink: &mut S,
) -> Result<Vec<InputStats>, Error> {
    read_inputs_inspect(cat, input, sink, None)
}

/// A look at each record's raw fields, with the path of its input.
pub type InspectRecords<'i> = &'i mut dyn FnMut(&str, event::Origin, &formats::Fields<'_>);

/// [`read_inputs`], also showing `inspect` each record's raw fields with the
/// path of its input.
pub fn read_inputs_inspect<S: event::EventSink>(
    cat: &Catalogue,
    input: &InputConfig,
    sink: &mut S,
    mut inspect: Option<InspectRecords<'_>>,
) -> Result<Vec<InputStats>, Error> {
    let opts = parse_options(cat, input)?;
    let mut stats = Vec::new();
    for (i, inp) in read::open_all(&input.inputs)?.into_iter().enumerate() {
        let path = inp.name.clone();
        let from_dir = inp.from_dir;
        let st = match inspect.as_mut() {
            Some(f) => {
                let mut per = |o: event::Origin, fl: &formats::Fields<'_>| f(&path, o, fl);
                parse::parse_input_inspect(inp, i as u32, cat, &opts, sink, Some(&mut per))
            }
            None => parse::parse_input(inp, i as u32, cat, &opts, sink),
        };
        let st = match st {
            Ok(st) => st,
            // In a directory, a file no format reads (a README, a binary) is noted and passed over.
            Err(ParseError::UnknownFormat { .. } | ParseError::Empty { .. }) if from_dir => {
                InputStats {
                    path,
                    format: "not a log (passed over)".to_string(),
                    ..InputStats::default()
                }
            }
            Err(e) => return Err(e.into()),
        };
        stats.push(st);
    }
    if input.strict {
        strict_check(&stats)?;
    }
    Ok(stats)
}

/// Under `--strict`, lines that no format reads are errors. Blank lines are not.
fn strict_check(stats: &[InputStats]) -> Result<(), Error> {
    let mut count = 0;
    let mut lines = Vec::new();
    for s in stats {
        let bad: u64 = s
            .skipped_by_reason
            .iter()
            .filter(|(k, _)| k.as_str() != "blank line")
            .map(|(_, v)| v)
            .sum();
        count += bad;
        for b in s.bad_lines.iter().filter(|b| b.reason != "blank line") {
            lines.push(b.diagnostic(&s.path));
        }
    }
    if count > 0 {
        return Err(Error::Strict { count, lines });
    }
    Ok(())
}

/// The whole pipeline: inputs to report.
pub fn run(cfg: &Config) -> Result<Report, Error> {
    let template_rules = templates::Rules::builtin()?;
    let cat = catalogue(&cfg.input)?;
    let mut agg = Aggregates::bounded(cfg.since.map(|s| s * 1000), cfg.until.map(|u| u * 1000));
    let inputs = read_inputs(&cat, &cfg.input, &mut agg)?;
    agg.finish();
    let opts = CorrelateOptions {
        inputs: inputs.iter().map(|i| i.path.clone()).collect(),
        baseline: cfg.baseline,
        reconnect_routes: cat.rules.reconnect_routes.clone(),
        since: cfg.since,
        until: cfg.until,
    };
    let analysis = correlate::correlate(&agg, &opts)?;
    // Templates need the incident window, and the findings cite them.
    let template_set = templates::TemplateSet::build(agg.templates());
    let surges = templates::surge::analyze(&template_set, &analysis);
    let mut findings = patterns::detect(&agg, &analysis);
    templates::cite::cite(&mut findings, &template_set, &analysis, template_rules);
    let mut warnings = Vec::new();
    if agg.first_ms().is_none() && agg.infra_events().is_empty() {
        warnings.push("no event in the inputs carried a usable timestamp".to_string());
    }
    warnings.extend(template_set.warnings());
    let mut report = report::build(&agg, &analysis, &findings, &inputs, cfg.tz, warnings);
    (report.templates, report.extra.templates) =
        templates::json::to_json(&template_set, surges.as_ref(), &analysis);
    Ok(report)
}
