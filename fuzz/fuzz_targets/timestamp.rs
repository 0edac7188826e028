//! Timestamp parsing on arbitrary text, with the strftime formats of a
//! definition picked by the first byte (none for one value in four).
#![no_main]

use libfuzzer_sys::fuzz_target;
use postmortem::parse::TimeParser;
use postmortem::zone::Zone;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let cat = common::catalogue();
    let formats: Vec<String> = if pick % 4 == 0 {
        Vec::new()
    } else {
        cat.formats[pick as usize % cat.formats.len()]
            .def
            .timestamp_formats
            .clone()
    };
    let text = String::from_utf8_lossy(rest);
    let zone = if pick & 0x80 == 0 {
        Zone::Utc
    } else {
        "Asia/Kolkata".parse().unwrap_or(Zone::Utc)
    };
    let mut times = TimeParser::new(&formats, zone);
    for part in text.split('\n') {
        let once = times.parse(part);
        // The cache of the last text gives the same answer again.
        assert_eq!(times.parse(part), once);
    }
});
