//! The whole Markdown draft of generated incidents, held as snapshots and
//! reviewed like code: one draw of each kind the report must tell well (a
//! slow integration, a gray failure of stuck instances, a crash loop, a
//! thundering herd, a leaking deploy, a quiet day). A change to the
//! detectors, the renderer or the generator shows here as a diff a person
//! reads. Small draws, written under `target/drafts/` and analysed by a
//! path relative to the repository root, so the bytes do not depend on
//! where the checkout is.

use super::fixture::{root, run};
use super::gen;

/// (scenario, seed): small draws whose drafts were read when accepted.
const DRAFTS: [(&str, u64); 6] = [
    ("slow-integration", 4242101),
    ("stuck-instances", 4242102),
    ("crash-loop", 4242103),
    ("thundering-herd", 4242104),
    ("deploy-leak", 4242105),
    ("quiet-day", 4242106),
];

fn draft(scenario: &str, seed: u64) -> String {
    let g = gen::generate(scenario, seed, true).expect("a scenario");
    let rel = format!("target/drafts/{scenario}");
    let dir = root().join(&rel);
    let _ = std::fs::remove_dir_all(&dir);
    let truth = gen::write(&g, &dir, &gen::emit::Force::default()).expect("the draw is written");
    let mut args: Vec<String> = vec!["analyze".into()];
    args.extend(
        truth["analyze_args"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string)),
    );
    let mut files: Vec<String> = truth["files"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(f, _)| format!("{rel}/{f}"))
        .collect();
    files.sort();
    args.extend(files);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{scenario} {seed}: {err}");
    let _ = std::fs::remove_dir_all(&dir);
    out
}

#[test]
fn generated_drafts_read_as_reviewed() {
    for (scenario, seed) in DRAFTS {
        let md = draft(scenario, seed);
        insta::assert_snapshot!(format!("draft_{}", scenario.replace('-', "_")), md);
    }
}
