//! Draws one incident scenario and writes its inputs and `truth.json`, or prints the truth's
//! own statistics over many draws.
//!
//! ```text
//! cargo run --release --example scenarios -- --scenario NAME --seed N --out DIR [--small]
//! cargo run --release --example scenarios -- --list
//! cargo run --release --example scenarios -- --stats [--draws N] [--first-seed S] [--scenario NAME] [--small]
//! ```
//! Deterministic: the same arguments give the same bytes.

mod gen;

mod stats;

use std::path::PathBuf;
use std::process::ExitCode;

struct Args {
    scenario: Option<String>,
    seed: u64,
    out: Option<PathBuf>,
    small: bool,
    list: bool,
    stats: bool,
    debug: bool,
    draws: u64,
    first_seed: u64,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        scenario: None,
        seed: 1,
        out: None,
        small: false,
        list: false,
        stats: false,
        debug: false,
        draws: 100,
        first_seed: 1,
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        let mut val = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match x.as_str() {
            "--scenario" => a.scenario = Some(val("--scenario")?),
            "--seed" => a.seed = val("--seed")?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--out" => a.out = Some(PathBuf::from(val("--out")?)),
            "--draws" => {
                a.draws = val("--draws")?
                    .parse()
                    .map_err(|e| format!("--draws: {e}"))?
            }
            "--first-seed" => {
                a.first_seed = val("--first-seed")?
                    .parse()
                    .map_err(|e| format!("--first-seed: {e}"))?
            }
            "--small" => a.small = true,
            "--list" => a.list = true,
            "--stats" => a.stats = true,
            "--debug" => a.debug = true,
            "-h" | "--help" => return Err(String::new()),
            _ => return Err(format!("unknown argument {x}")),
        }
    }
    Ok(a)
}

const USAGE: &str = "usage: scenarios --scenario NAME --seed N --out DIR [--small]
       scenarios --list
       scenarios --stats [--draws N] [--first-seed S] [--scenario NAME] [--small]";

fn main() -> ExitCode {
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("scenarios: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    if a.list {
        for n in gen::scenarios::NAMES {
            println!("{n}");
        }
        return ExitCode::SUCCESS;
    }
    if a.stats {
        let names: Vec<&str> = match &a.scenario {
            Some(s) => vec![s.as_str()],
            None => gen::scenarios::NAMES.to_vec(),
        };
        if let Some(bad) = names.iter().find(|n| !gen::scenarios::NAMES.contains(n)) {
            eprintln!("scenarios: unknown scenario {bad} (--list shows them)");
            return ExitCode::from(2);
        }
        stats::print(&names, a.first_seed, a.draws, a.small);
        return ExitCode::SUCCESS;
    }
    if let (true, Some(name)) = (a.debug, &a.scenario) {
        match gen::generate(name, a.seed, a.small) {
            Some(g) => stats::debug(&g),
            None => eprintln!("scenarios: unknown scenario {name}"),
        }
        return ExitCode::SUCCESS;
    }
    let (Some(name), Some(out)) = (a.scenario, a.out) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let Some(g) = gen::generate(&name, a.seed, a.small) else {
        eprintln!("scenarios: unknown scenario {name} (--list shows them)");
        return ExitCode::from(2);
    };
    match gen::write(&g, &out, &gen::emit::Force::default()) {
        Ok(t) => {
            let field = |k: &str| t.get(k).cloned().unwrap_or_default();
            let files = field("files").as_object().map_or(0, |f| f.len());
            eprintln!(
                "{name} seed {}: {} requests, {files} files in {}; incident {} onset {} recovered {}",
                a.seed,
                g.world.requests.len(),
                out.display(),
                field("incident"),
                field("onset"),
                field("recovered")
            );
            for p in &g.truth.problems {
                eprintln!("  problem: {p}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("scenarios: writing {}: {e}", out.display());
            ExitCode::FAILURE
        }
    }
}
