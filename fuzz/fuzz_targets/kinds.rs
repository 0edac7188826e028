//! Each definition, of every kind but envelopes (`envelope.rs`), forced on
//! arbitrary bytes: the first byte picks the definition, the rest is the
//! input. Lines are counted exactly, and nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let formats = common::formats_of(&[], false);
    let forced = formats[pick as usize % formats.len()];
    common::parse(rest, Some(forced), 1);
});
