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
mod input_notes;
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
pub use input_notes::input_warnings;
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
    /// `formats check`: inputs no format reads (each also answered on stdout).
    #[error("{} input(s) no format reads", refused.len())]
    #[diagnostic(code(postmortem::refused))]
    Refused {
        #[related]
        refused: Vec<ParseError>,
    },
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
        year_hint: None,
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
    inspect: Option<InspectRecords<'_>>,
) -> Result<Vec<InputStats>, Error> {
    read_each(cat, input, sink, inspect, &mut |e| Err(e.into()))
}

/// `formats check`: every input's statistics, an input no format reads
/// among them (`refused`, its format empty), and the diagnostics of those.
pub fn check_inputs<S: event::EventSink>(
    cat: &Catalogue,
    input: &InputConfig,
    sink: &mut S,
    inspect: Option<InspectRecords<'_>>,
) -> Result<(Vec<InputStats>, Vec<ParseError>), Error> {
    let mut refused = Vec::new();
    let stats = read_each(cat, input, sink, inspect, &mut |e| {
        let st = InputStats {
            path: refused_path(&e),
            refused: Some(e.to_string()),
            ..InputStats::default()
        };
        refused.push(e);
        Ok(st)
    })?;
    Ok((stats, refused))
}

/// The input an unknown-format or empty-input error is about.
fn refused_path(e: &ParseError) -> String {
    match e {
        ParseError::UnknownFormat { path, .. } | ParseError::Empty { path } => path.clone(),
        _ => String::new(),
    }
}

/// Read every input; an input no format reads (or an empty one) outside a
/// directory goes to `refused`, which says what stands in its place.
fn read_each<S: event::EventSink>(
    cat: &Catalogue,
    input: &InputConfig,
    sink: &mut S,
    mut inspect: Option<InspectRecords<'_>>,
    refused: &mut dyn FnMut(ParseError) -> Result<InputStats, Error>,
) -> Result<Vec<InputStats>, Error> {
    let mut opts = parse_options(cat, input)?;
    let mut stats = Vec::new();
    let opened = read::open_each(&input.inputs)?;
    // One input that cannot be read among several is listed with why and
    // the others are read; alone, it is the run's error.
    let several = opened.len() > 1;
    let mut first_error = None;
    let mut seen: std::collections::HashMap<std::path::PathBuf, String> = Default::default();
    for (i, inp) in opened.into_iter().enumerate() {
        let inp = match inp {
            Ok(inp) => inp,
            Err(e) if several => {
                stats.push(InputStats::unreadable(e.path().unwrap_or("?"), e.reason()));
                first_error.get_or_insert(e);
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let path = inp.name.clone();
        // A file given twice (or named and found in a directory) is read once.
        if let Some(first) = inp.identity.as_ref().and_then(|id| seen.get(id)) {
            stats.push(InputStats::same_as(&path, first));
            continue;
        }
        if let Some(id) = inp.identity.clone() {
            seen.insert(id, path.clone());
        }
        let from_dir = inp.from_dir;
        let named = cat.rules.input_names.named(&path);
        sink.begin_input(
            i as u32,
            named.as_ref().map(|n| n.instance.as_str()),
            named.as_ref().and_then(|n| n.host.as_deref()),
        );
        let stem = formats::InputNames::stem_of(&path);
        if let Some(role) = cat.rules.metric_role(stem) {
            sink.input_metric(i as u32, stem, role);
        }
        let st = match inspect.as_mut() {
            Some(f) => {
                let mut per = |o: event::Origin, fl: &formats::Fields<'_>| f(&path, o, fl);
                parse::parse_input_inspect(inp, i as u32, cat, &opts, sink, Some(&mut per))
            }
            None => parse::parse_input(inp, i as u32, cat, &opts, sink),
        };
        // The input's request ids join those a later input is checked against.
        sink.end_input();
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
            Err(ParseError::Read(e)) if several => {
                stats.push(InputStats::unreadable(&path, e.reason()));
                first_error.get_or_insert(e);
                continue;
            }
            Err(e @ (ParseError::UnknownFormat { .. } | ParseError::Empty { .. })) => refused(e)?,
            Err(e) => return Err(e.into()),
        };
        let mut st = st;
        if st.skipped > 0 {
            st.second_format = input_notes::second_format(cat, &st);
        }
        // A later input's times without a year are placed near this one's.
        opts.year_hint = st.last_ts.or(opts.year_hint);
        stats.push(st);
    }
    if let Some(e) = first_error.filter(|_| stats.iter().all(|s| s.unreadable.is_some())) {
        return Err(e.into());
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
///
/// With `POSTMORTEM_TIMINGS` set in the environment, the seconds spent
/// reading and parsing and the seconds after (merging what the workers
/// aggregated, correlating, detecting, building the report) go to stderr:
/// the benchmark's column "after parsing" reads them.
pub fn run(cfg: &Config) -> Result<Report, Error> {
    let started = std::time::Instant::now();
    let cat = catalogue(&cfg.input)?;
    let mut agg = Aggregates::bounded(cfg.since.map(|s| s * 1000), cfg.until.map(|u| u * 1000));
    agg.set_connect_routes(cat.rules.reconnect_routes.clone());
    let inputs = read_inputs(&cat, &cfg.input, &mut agg)?;
    let parsed = started.elapsed();
    let report = analyse(&cat, cfg, agg, &inputs);
    if std::env::var_os("POSTMORTEM_TIMINGS").is_some() {
        let after = started.elapsed().saturating_sub(parsed);
        eprintln!(
            "timings: parsing {:.3} s, after parsing {:.3} s",
            parsed.as_secs_f64(),
            after.as_secs_f64()
        );
    }
    report
}

/// Read inputs to report: aggregates filled by [`read_inputs`] (or by
/// [`parse::parse_input`] on any reader, as the fuzz targets do) and the
/// inputs' statistics -> the report.
pub fn analyse(
    cat: &Catalogue,
    cfg: &Config,
    mut agg: Aggregates,
    inputs: &[InputStats],
) -> Result<Report, Error> {
    let template_rules = templates::Rules::builtin()?;
    agg.finish();
    let opts = CorrelateOptions {
        inputs: inputs.iter().map(|i| i.path.clone()).collect(),
        baseline: cfg.baseline,
        reconnect_routes: cat.rules.reconnect_routes.clone(),
        scaling: cat.rules.scaling.clone(),
        stop_causes: cat.rules.stop_causes.clone(),
        identity_labels: cat.rules.identity_labels.clone(),
        since: cfg.since,
        until: cfg.until,
    };
    let mut analysis = correlate::correlate(&agg, &opts)?;
    // Templates need the incident window, and the findings cite them.
    let template_set = templates::TemplateSet::build(agg.templates());
    let surges = templates::surge::analyze(&template_set, &analysis);
    let mut findings = patterns::detect(&agg, &analysis);
    templates::cite::cite(
        &mut findings,
        &template_set,
        surges.as_ref(),
        &analysis,
        template_rules,
    );
    report::culprit::agree(&mut analysis.attribution, &findings);
    let mut warnings = Vec::new();
    if agg.first_ms().is_none() && agg.infra_events().is_empty() {
        warnings.push("no event in the inputs carried a usable timestamp".to_string());
    }
    warnings.extend(input_warnings(inputs));
    warnings.extend(template_set.warnings());
    let mut report = report::build(&agg, &analysis, &findings, inputs, cfg.tz, warnings);
    (report.templates, report.extra.templates) =
        templates::json::to_json(&template_set, surges.as_ref(), &analysis);
    Ok(report)
}
