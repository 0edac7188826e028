//! Writes the generator's test World in every format family, one directory per family, to
//! check the writers against the real tool (`postmortem formats check --json DIR`).
//!
//! `cargo run --release --example emit_demo -- OUT_DIR [SEED [DRAWS]]`: OUT_DIR/<kind>-<family>/
//! holds the files; OUT_DIR/plans/<kind>-<family>.json the plan and the `analyze` arguments.
//! With DRAWS, also DRAWS unpinned draws (seeds SEED, SEED+1, ...) in OUT_DIR/draw-<seed>/.

#[path = "scenarios/gen/mod.rs"]
mod gen;

use std::path::PathBuf;

use gen::emit::{fixture, write, Force};
use gen::rng::Rng;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = PathBuf::from(args.next().ok_or("usage: emit_demo OUT_DIR [SEED]")?);
    let seed: u64 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(1);
    let draws: u64 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(0);
    let world = fixture::world();
    let fams = Force::families();
    let mut runs: Vec<(String, Force)> = vec![];
    for a in fams.access {
        runs.push((
            format!("access-{}", a.name()),
            Force {
                access: Some(*a),
                ..Force::default()
            },
        ));
    }
    for a in fams.app {
        runs.push((
            format!("app-{}", a.name()),
            Force {
                app: Some(*a),
                envelope: Some(None),
                ..Force::default()
            },
        ));
    }
    for m in fams.metrics {
        runs.push((
            format!("metrics-{}", m.name()),
            Force {
                metrics: Some(*m),
                ..Force::default()
            },
        ));
    }
    for e in fams.events {
        runs.push((
            format!("events-{}", e.name()),
            Force {
                events: Some(vec![*e]),
                ..Force::default()
            },
        ));
    }
    for e in fams.envelopes {
        runs.push((
            format!("envelope-{}", e.name()),
            Force {
                envelope: Some(Some(*e)),
                ..Force::default()
            },
        ));
    }
    for k in 0..draws {
        runs.push((format!("draw-{}", seed + k), Force::default()));
    }
    std::fs::create_dir_all(out.join("plans"))?;
    for (name, force) in runs {
        let dir = out.join(&name);
        let _ = std::fs::remove_dir_all(&dir);
        // Pinned runs are written plain for reading; draws keep their drawn compression.
        let draw: Option<u64> = name.strip_prefix("draw-").and_then(|s| s.parse().ok());
        let force = match draw {
            Some(_) => force,
            None => Force {
                compression: Some(false),
                ..force
            },
        };
        let w = write(&world, &mut Rng::new(draw.unwrap_or(seed)), &dir, &force)?;
        let plan =
            serde_json::json!({ "files": w.files, "analyze_args": w.analyze_args, "plan": w.plan });
        std::fs::write(
            out.join("plans").join(format!("{name}.json")),
            serde_json::to_string_pretty(&plan)?,
        )?;
        println!("{name}: {} files, args {:?}", w.files.len(), w.analyze_args);
    }
    Ok(())
}
