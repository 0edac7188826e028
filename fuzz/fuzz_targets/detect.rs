//! Format detection on arbitrary lines: a ranking, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines: Vec<String> = text.lines().take(200).map(str::to_string).collect();
    let (best, scores) = postmortem::formats::detect(common::catalogue(), &lines);
    assert_eq!(scores.len(), common::catalogue().formats.len());
    if let Some(d) = best {
        assert!((0.0..=1.0).contains(&d.score), "score {}", d.score);
    }
});
