//! The `postmortem` binary: parse the command line, run, write the output,
//! map errors to diagnostics and exit codes (0 written, 1 bad usage or
//! input, 2 `--strict` found bad lines).

use clap::Parser;
use std::io::Write;
use std::process::ExitCode;

use postmortem::cli::{self, Cli, Command, FormatsCommand};
use postmortem::render;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match execute(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let code = e.exit_code();
            eprintln!("{:?}", miette::Report::new(e));
            ExitCode::from(code as u8)
        }
    }
}

fn write_out(path: Option<&std::path::Path>, text: &str) -> Result<(), postmortem::Error> {
    match path {
        Some(p) => std::fs::write(p, text).map_err(|e| {
            cli::CliError::Output {
                path: p.display().to_string(),
                message: e.to_string(),
            }
            .into()
        }),
        None => {
            let mut out = std::io::stdout().lock();
            // A closed pipe (`| head`) is not an error worth a diagnostic.
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
            Ok(())
        }
    }
}

/// Inputs smaller than this finish before a bar would help.
const PROGRESS_AFTER: u64 = 64 << 20;

/// A progress line on stderr when it is a terminal; it appears only once
/// the input turns out to be large, and is cleared when parsing ends.
fn progress(cfg: &mut cli::Config) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    use std::sync::atomic::{AtomicU64, Ordering};
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::hidden());
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{spinner} read {bytes} ({bytes_per_sec}), {elapsed}",
    ) {
        bar.set_style(style);
    }
    let seen = std::sync::Arc::new(AtomicU64::new(0));
    let shown = bar.clone();
    cfg.input.progress = Some(postmortem::parse::Progress(std::sync::Arc::new(move |n| {
        let total = seen.fetch_add(n, Ordering::Relaxed) + n;
        if total >= PROGRESS_AFTER && shown.is_hidden() {
            shown.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        shown.set_position(total);
    })));
    Some(bar)
}

fn run_with_progress(
    mut cfg: cli::Config,
) -> Result<postmortem::report::Report, postmortem::Error> {
    let bar = progress(&mut cfg);
    let result = postmortem::run(&cfg);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    result
}

fn execute(cli: Cli) -> Result<(), postmortem::Error> {
    match cli.command {
        Command::Completions { shell } => {
            let mut buf = Vec::new();
            clap_complete::generate(
                shell,
                &mut <Cli as clap::CommandFactory>::command(),
                "postmortem",
                &mut buf,
            );
            write_out(None, &String::from_utf8_lossy(&buf))
        }
        Command::Man => {
            let mut buf = Vec::new();
            let man = clap_mangen::Man::new(<Cli as clap::CommandFactory>::command());
            // Writing to a Vec cannot fail.
            let _ = man.render(&mut buf);
            write_out(None, &String::from_utf8_lossy(&buf))
        }
        Command::Analyze(r) => {
            let a = &r.common;
            let report = run_with_progress(cli::config(a)?)?;
            let mut opts = render::markdown::Options::default();
            if let Some(dir) = &r.assets {
                opts.assets = Some(render::assets::write(
                    &report.extra.charts,
                    dir,
                    a.output.as_deref(),
                )?);
            }
            let text = if a.json {
                render::json::render(&report)
            } else {
                render::markdown::render_with(&report, &opts)
            };
            write_out(a.output.as_deref(), &text)
        }
        Command::Timeline(a) => {
            let report = run_with_progress(cli::config(&a)?)?;
            let text = if a.json {
                serde_json::to_string_pretty(&report.timeline).unwrap_or_default() + "\n"
            } else {
                render::table::timeline(&report)
            };
            write_out(a.output.as_deref(), &text)
        }
        Command::Tenants(a) => {
            let report = run_with_progress(cli::config(&a)?)?;
            let text = if a.json {
                serde_json::to_string_pretty(&report.attribution).unwrap_or_default() + "\n"
            } else {
                render::table::tenants(&report)
            };
            write_out(a.output.as_deref(), &text)
        }
        Command::Templates(a) => {
            let report = run_with_progress(cli::config(&a)?)?;
            let text = if a.json {
                serde_json::to_string_pretty(&report.templates).unwrap_or_default() + "\n"
            } else {
                render::templates::table(&report)
            };
            write_out(a.output.as_deref(), &text)
        }
        Command::Formats(f) => match f.command {
            None => {
                let input = cli::InputConfig {
                    formats_dir: f.formats_dir,
                    ..cli::InputConfig::default()
                };
                let cat = postmortem::catalogue(&input)?;
                write_out(None, &render::table::formats(&cat))
            }
            Some(FormatsCommand::Check {
                inputs,
                json,
                fields,
                input,
            }) => {
                let mut input = cli::input_config(inputs, &input)?;
                if input.formats_dir.is_none() {
                    input.formats_dir = f.formats_dir;
                }
                let cat = postmortem::catalogue(&input)?;
                let strict = input.strict;
                input.strict = false;
                let mut records = String::new();
                let mut show =
                    |path: &str,
                     o: postmortem::event::Origin,
                     f: &postmortem::formats::Fields<'_>| {
                        records.push_str(&render::table::fields_json(path, o.line, f));
                    };
                let (stats, refused) = postmortem::check_inputs(
                    &cat,
                    &input,
                    &mut postmortem::event::Discard,
                    fields.then_some(&mut show as _),
                )?;
                if fields {
                    write_out(None, &records)?;
                    if !refused.is_empty() {
                        return Err(postmortem::Error::Refused { refused });
                    }
                    return Ok(());
                }
                let text = if json {
                    render::table::check_json(&stats)
                } else {
                    render::table::check(&stats)
                };
                write_out(None, &text)?;
                // Every input was answered; the refused ones' diagnostics go to stderr.
                if !refused.is_empty() {
                    return Err(postmortem::Error::Refused { refused });
                }
                if strict
                    && stats
                        .iter()
                        .any(|s| s.skipped_by_reason.keys().any(|k| k != "blank line"))
                {
                    return Err(postmortem::Error::Strict {
                        count: stats.iter().map(|s| s.skipped).sum(),
                        lines: Vec::new(),
                    });
                }
                Ok(())
            }
        },
    }
}
