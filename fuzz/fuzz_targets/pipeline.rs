//! The whole pipeline on arbitrary bytes (gzip and zstd too, by their
//! magic): detection, parsing on two threads, aggregation, correlation,
//! patterns, the report and its Markdown and JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Some(input) = common::input(data) else { return };
    let cat = common::catalogue();
    let cfg = postmortem::cli::Config::default();
    let opts = postmortem::parse::ParseOptions {
        threads: 2,
        ..Default::default()
    };
    let mut agg = postmortem::aggregate::Aggregates::bounded(None, None);
    let Ok(stats) = postmortem::parse::parse_input(input, 0, cat, &opts, &mut agg) else {
        return;
    };
    assert_eq!(stats.lines, stats.parsed + stats.skipped, "accounting");
    if let Ok(report) = postmortem::analyse(cat, &cfg, agg, &[stats]) {
        let _ = postmortem::render::markdown::render(&report);
        let _ = postmortem::render::json::render(&report);
    }
});
