//! What the targets share: the built-in catalogue, made once, and a reader
//! over the fuzzer's bytes.
#![allow(dead_code)]

use postmortem::formats::{Catalogue, DefinitionKind};
use postmortem::read::Input;
use std::sync::OnceLock;

pub fn catalogue() -> &'static Catalogue {
    static CAT: OnceLock<Catalogue> = OnceLock::new();
    CAT.get_or_init(|| Catalogue::builtin().expect("the built-in catalogue loads"))
}

pub fn input(bytes: &[u8]) -> Option<Input> {
    Input::from_reader("fuzz".into(), Box::new(std::io::Cursor::new(bytes.to_vec()))).ok()
}

/// The catalogue's formats of `kinds` (all when empty), by index.
pub fn formats_of(kinds: &[DefinitionKind], envelope: bool) -> Vec<usize> {
    catalogue()
        .formats
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            (f.def.kind == DefinitionKind::Envelope) == envelope
                && (kinds.is_empty() || kinds.contains(&f.def.kind))
        })
        .map(|(i, _)| i)
        .collect()
}

/// Parse `bytes` as one input, with the format forced when given.
pub fn parse(bytes: &[u8], forced: Option<usize>, threads: usize) {
    let Some(input) = input(bytes) else { return };
    let opts = postmortem::parse::ParseOptions {
        forced,
        threads,
        ..Default::default()
    };
    let mut events: Vec<postmortem::event::Event<'static>> = Vec::new();
    if let Ok(stats) = postmortem::parse::parse_input(input, 0, catalogue(), &opts, &mut events) {
        assert_eq!(stats.lines, stats.parsed + stats.skipped, "accounting");
    }
}
