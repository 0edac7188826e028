//! The accuracy runner: draws scenarios, analyses each draw with the release binary, checks
//! the report against the draw's truth, and prints a table per scenario and check class, the
//! failures, and `accuracy: X/Y checks`.
//!
//! ```text
//! cargo run --release --example accuracy -- --draws N [--scenario NAME] [--first-seed S]
//!     [--keep DIR] [--bin PATH] [--small] [--threads N]
//! ```
//! Draw `k` of a scenario uses seed `S + k`. `--keep DIR` keeps each failing draw's inputs,
//! truth and report under `DIR/<scenario>-<seed>/`. The binary (`target/release/postmortem`
//! unless `--bin`) is built first when missing.

#[path = "../scenarios/gen/mod.rs"]
mod gen;
mod run;
mod table;

use std::path::PathBuf;
use std::process::ExitCode;

pub struct Args {
    pub draws: u64,
    pub scenario: Option<String>,
    pub first_seed: u64,
    pub keep: Option<PathBuf>,
    pub bin: PathBuf,
    pub small: bool,
    pub threads: usize,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        draws: 10,
        scenario: None,
        first_seed: 1,
        keep: None,
        bin: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/postmortem"),
        small: false,
        threads: 2,
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        let mut val = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match x.as_str() {
            "--draws" => {
                a.draws = val("--draws")?
                    .parse()
                    .map_err(|e| format!("--draws: {e}"))?
            }
            "--scenario" => a.scenario = Some(val("--scenario")?),
            "--first-seed" => {
                a.first_seed = val("--first-seed")?
                    .parse()
                    .map_err(|e| format!("--first-seed: {e}"))?
            }
            "--keep" => a.keep = Some(PathBuf::from(val("--keep")?)),
            "--bin" => a.bin = PathBuf::from(val("--bin")?),
            "--threads" => {
                a.threads = val("--threads")?
                    .parse()
                    .map_err(|e| format!("--threads: {e}"))?
            }
            "--small" => a.small = true,
            _ => return Err(format!("unknown argument {x}")),
        }
    }
    if let Some(s) = &a.scenario {
        if !gen::scenarios::NAMES.contains(&s.as_str()) {
            return Err(format!(
                "unknown scenario {s} (one of: {})",
                gen::scenarios::NAMES.join(", ")
            ));
        }
    }
    Ok(a)
}

fn main() -> ExitCode {
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("accuracy: {e}");
            eprintln!("usage: accuracy --draws N [--scenario NAME] [--first-seed S] [--keep DIR] [--bin PATH] [--small] [--threads N]");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = run::ensure_binary(&a.bin) {
        eprintln!("accuracy: {e}");
        return ExitCode::FAILURE;
    }
    let names: Vec<&str> = match &a.scenario {
        Some(s) => gen::scenarios::NAMES
            .iter()
            .copied()
            .filter(|n| n == s)
            .collect(),
        None => gen::scenarios::NAMES.to_vec(),
    };
    let jobs: Vec<(&str, u64)> = names
        .iter()
        .flat_map(|n| (a.first_seed..a.first_seed + a.draws).map(move |s| (*n, s)))
        .collect();
    let results = run::all(&a, &jobs);
    let (passed, total) = table::print(&names, &results);
    println!("accuracy: {passed}/{total} checks");
    ExitCode::SUCCESS
}
