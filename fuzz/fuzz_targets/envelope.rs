//! Envelope unwrapping on arbitrary bytes: the first byte picks an
//! envelope definition, the rest is the input; the inner lines are
//! detected and parsed as any input is.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let formats = common::formats_of(&[], true);
    let forced = formats[pick as usize % formats.len()];
    common::parse(rest, Some(forced), 1);
});
