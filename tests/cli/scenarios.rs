//! Every scenario on a fixed set of small draws: generated in a temp dir (with writer
//! families pinned so that the set uses every family the writers offer), analysed by the real
//! binary with the arguments a user would pass, and checked against the draw's truth with the
//! accuracy runner's own checks (`examples/scenarios/gen/check.rs`).

use std::path::Path;

use crate::gen;
use gen::emit::family::{EventsFamily, Platform};
use gen::emit::Force;

use super::fixture::postmortem;

struct Case {
    scenario: &'static str,
    seed: u64,
    force: Force,
}

/// Two draws per scenario; draw `k` of the set pins the `k`-th family of each kind (round
/// robin), an orchestrator family that fits its platform and a change family that fits the
/// scenario, and an envelope on every other draw.
fn cases() -> Vec<Case> {
    let f = Force::families();
    let mut out = Vec::new();
    let mut k = 0usize;
    for name in gen::scenarios::NAMES {
        for j in 0..2u64 {
            let platform = f.naming[k % f.naming.len()];
            let orchestrator = match platform {
                Platform::Kubernetes if (k / 3) % 2 == 0 => EventsFamily::K8sList,
                Platform::Kubernetes => EventsFamily::K8sLines,
                Platform::Ecs => EventsFamily::EcsServices,
                Platform::Vm => EventsFamily::Journal,
            };
            let change = match name {
                "flag-flip" if j == 0 => EventsFamily::LaunchDarkly,
                "flag-flip" => EventsFamily::Unleash,
                _ => [
                    EventsFamily::DeployLog,
                    EventsFamily::HelmHistory,
                    EventsFamily::GithubDeployments,
                ][k % 3],
            };
            let envelope = if k % 2 == 0 {
                Some(f.envelopes[(k / 2) % f.envelopes.len()])
            } else {
                None
            };
            out.push(Case {
                scenario: name,
                seed: 1000 + j,
                force: Force {
                    access: Some(f.access[k % f.access.len()]),
                    app: Some(f.app[k % f.app.len()]),
                    metrics: Some(f.metrics[k % f.metrics.len()]),
                    events: Some(vec![orchestrator, change]),
                    envelope: Some(envelope),
                    naming: Some(platform),
                    ..Force::default()
                },
            });
            k += 1;
        }
    }
    out
}

#[test]
fn the_fixed_set_pins_every_writer_family() {
    let f = Force::families();
    let cases = cases();
    let pinned = |pick: &dyn Fn(&Force) -> Vec<String>| -> Vec<String> {
        cases.iter().flat_map(|c| pick(&c.force)).collect()
    };
    let access = pinned(&|x| x.access.iter().map(|a| a.name().to_string()).collect());
    let app = pinned(&|x| x.app.iter().map(|a| a.name().to_string()).collect());
    let metrics = pinned(&|x| x.metrics.iter().map(|a| a.name().to_string()).collect());
    let events = pinned(&|x| {
        x.events
            .iter()
            .flatten()
            .map(|a| a.name().to_string())
            .collect()
    });
    let envelopes = pinned(&|x| {
        x.envelope
            .iter()
            .flatten()
            .map(|a| a.name().to_string())
            .collect()
    });
    let naming = pinned(&|x| x.naming.iter().map(|a| a.name().to_string()).collect());
    for a in f.access {
        assert!(
            access.contains(&a.name().to_string()),
            "access family {} never used",
            a.name()
        );
    }
    for a in f.app {
        assert!(
            app.contains(&a.name().to_string()),
            "app family {} never used",
            a.name()
        );
    }
    for a in f.metrics {
        assert!(
            metrics.contains(&a.name().to_string()),
            "metrics family {} never used",
            a.name()
        );
    }
    for a in f.events {
        assert!(
            events.contains(&a.name().to_string()),
            "events family {} never used",
            a.name()
        );
    }
    for a in f.envelopes {
        assert!(
            envelopes.contains(&a.name().to_string()),
            "envelope {} never used",
            a.name()
        );
    }
    for a in f.naming {
        assert!(
            naming.contains(&a.name().to_string()),
            "naming {} never used",
            a.name()
        );
    }
    let mut names: Vec<&str> = cases.iter().map(|c| c.scenario).collect();
    names.dedup();
    assert_eq!(names, gen::scenarios::NAMES);
}

fn analyze(dir: &Path, args: &[String]) -> serde_json::Value {
    let out = postmortem()
        .arg("analyze")
        .arg("--json")
        .args(args)
        .arg(dir)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "analyze {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("a JSON report")
}

/// Check classes where a miss misleads the reader (an incident invented or
/// missed, a quiet day given findings, a customer blamed who did not cause
/// it): every one must pass on every draw. A culprit not named is a gap,
/// not a false claim: it counts with the other checks.
const MUST_PASS: [&str; 3] = ["incident", "quiet", "culprit"];

/// Whether a failed check is one that must pass (see [`MUST_PASS`]).
fn must_pass(k: &gen::check::Check) -> bool {
    MUST_PASS.contains(&k.class) && !(k.class == "culprit" && k.got == "none")
}

/// The least share of the other checks (onset, recovery, organic, patterns,
/// instances, timeline, culprits not named) the fixed set must pass: a
/// guard against regressions below what the tree measured when this was
/// set (355 of 390, 91%, on these draws, 2026-12-04; the accuracy runner's
/// 100-draw figure was 92%). The aim is 97% per class (issue #8); raise it
/// as the detectors improve.
const MIN_OTHER_SHARE: f64 = 0.85;

#[test]
fn scenarios_fixed_draws_match_their_truth() {
    let tmp = super::fixture::scratch("scenarios");
    let (mut failures, mut misses, mut others) = (Vec::new(), Vec::new(), 0usize);
    for c in cases() {
        let g = gen::generate(c.scenario, c.seed, true).expect("a scenario");
        let dir = tmp.join(format!("{}-{}", c.scenario, c.seed));
        let _ = std::fs::remove_dir_all(&dir);
        let truth = gen::write(&g, &dir, &c.force).expect("the draw is written");
        let families: Vec<&str> = truth["files"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(_, v)| v.as_str())
            .collect();
        if let Some(a) = c.force.access {
            assert!(
                families.contains(&a.name()),
                "{} {}: {families:?}",
                c.scenario,
                c.seed
            );
        }
        let args: Vec<String> = truth["analyze_args"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        let report = analyze(&dir, &args);
        for k in gen::check::check_report(&truth, &report) {
            let must = must_pass(&k);
            if !must {
                others += 1;
            }
            if k.passed {
                continue;
            }
            let line = format!(
                "{} seed {}: {}: {}: expected {}, got {}",
                c.scenario, c.seed, k.class, k.name, k.expected, k.got
            );
            if must {
                failures.push(line);
            } else {
                misses.push(line);
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    let _ = std::fs::remove_dir_all(&tmp);
    // The misses are printed whatever the outcome: they are the next work.
    eprintln!(
        "{} of {others} other checks missed:\n{}",
        misses.len(),
        misses.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} checks that must pass failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let share = 1.0 - misses.len() as f64 / others.max(1) as f64;
    assert!(
        share >= MIN_OTHER_SHARE,
        "{:.1}% of the other checks passed, below {:.0}%",
        share * 100.0,
        MIN_OTHER_SHARE * 100.0
    );
}
