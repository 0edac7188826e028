//! Format detection on arbitrary lines: a ranking, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines: Vec<String> = text.lines().take(200).map(str::to_string).collect();
    let (best, scores) = postmortem::formats::detect(common::catalogue(), &lines);
    // Scores of the specific formats, or of every format when the generic
    // reader was asked too: each format at most once.
    let formats = &common::catalogue().formats;
    let mut seen = vec![false; formats.len()];
    for &(i, s) in &scores {
        assert!(!std::mem::replace(&mut seen[i], true), "format {i} scored twice");
        assert!((0.0..=1.0).contains(&s), "score {s}");
    }
    let specific = formats
        .iter()
        .filter(|f| f.def.kind != postmortem::formats::DefinitionKind::Generic)
        .count();
    assert!(scores.len() == specific || scores.len() == formats.len());
    if let Some(d) = best {
        assert!((0.0..=1.0).contains(&d.score), "score {}", d.score);
    }
});
