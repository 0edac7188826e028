//! Every file of `../shared/corpus/` and `samples/` with bytes flipped at
//! seeded random positions, and every gzip sample cut at seeded random
//! offsets, through the whole pipeline: exit 0 or 1, never a panic,
//! `lines == parsed + skipped` for every input, and a cut gzip reported
//! with a warning that names the cut. A fixed set of seeds keeps the run
//! time fixed; a failure names the file, the seed and the positions, so
//! the case can be made again and kept as a named test.

use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

use super::fixture::{corpus, root, run};

/// Flipped copies made of each file (each file's seeds differ: some 200
/// files give some 200 different draws; the fuzz targets do the volume).
const FLIP_SEEDS: u64 = 1;
/// Cuts made of each gzip sample.
const CUT_SEEDS: u64 = 3;
/// A flipped copy keeps at most this much of its file (a `.gz` is then cut
/// too): the run time stays fixed whatever the samples weigh.
const MAX_FLIPPED_BYTES: usize = 256 << 10;

/// xorshift64*: the same positions for the same seed on every machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            files_under(&p, out);
        } else if !(name.ends_with(".md") || name == "truth.json" || name == "MANIFEST.json") {
            out.push(p);
        }
    }
}

fn inputs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    files_under(&root().join("samples"), &mut files);
    if let Some(c) = corpus() {
        files_under(&c, &mut files);
    } else {
        eprintln!("../shared/corpus is not here: only samples/ are flipped");
    }
    files.sort();
    files
}

/// Run `analyze --json` on `path`: the exit code and the report (exit 0).
fn analyse(path: &Path, what: &str) -> Option<Value> {
    let (code, out, err) = run(&["analyze", "--json", path.to_str().expect("utf-8 path")]);
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{what}: {err}"
    );
    assert!(code == 0 || code == 1, "{what}: exit {code}: {err}");
    if code != 0 {
        return None;
    }
    let r: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{what}: {e}"));
    for i in r["inputs"].as_array().expect("inputs") {
        let (lines, parsed, skipped) = (
            i["lines"].as_u64(),
            i["parsed"].as_u64().unwrap_or(0),
            i["skipped"].as_u64().unwrap_or(0),
        );
        assert_eq!(lines, Some(parsed + skipped), "{what}: accounting: {i}");
        let by_reason: u64 = i["skipped_by_reason"]
            .as_object()
            .map_or(0, |m| m.values().filter_map(Value::as_u64).sum());
        assert_eq!(by_reason, skipped, "{what}: skipped by reason: {i}");
    }
    Some(r)
}

#[test]
fn flipped_bytes_never_panic_and_every_line_is_accounted_for() {
    let tmp = super::fixture::scratch("flipped");
    let files = inputs();
    assert!(
        files.len() >= 12,
        "samples/ holds the bundles: {}",
        files.len()
    );
    let mut runs = 0;
    for (i, file) in files.iter().enumerate() {
        let mut original = fs::read(file).expect("read");
        original.truncate(MAX_FLIPPED_BYTES);
        if original.is_empty() {
            continue;
        }
        for seed in 0..FLIP_SEEDS {
            let mut rng = Rng::new(i as u64 * 1000 + seed);
            let mut bytes = original.clone();
            let flips = 1 + rng.below(8);
            let mut at = Vec::new();
            for _ in 0..flips {
                let p = rng.below(bytes.len());
                // Any value but the one there: a flip always changes the byte.
                bytes[p] ^= 1 + rng.below(255) as u8;
                at.push(p);
            }
            let name = file.file_name().expect("a file name");
            let copy = tmp.join(format!("{seed}-{}", name.to_string_lossy()));
            fs::write(&copy, &bytes).expect("write");
            analyse(
                &copy,
                &format!("{} seed {seed} flipped at {at:?}", file.display()),
            );
            runs += 1;
        }
    }
    eprintln!("{runs} flipped runs");
}

#[test]
fn a_gzip_cut_anywhere_is_analysed_with_a_warning() {
    let tmp = super::fixture::scratch("cut");
    let gz: Vec<PathBuf> = inputs()
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "gz"))
        .collect();
    assert!(!gz.is_empty(), "samples/ holds gzip exports");
    for (i, file) in gz.iter().enumerate() {
        let original = fs::read(file).expect("read");
        for seed in 0..CUT_SEEDS {
            let mut rng = Rng::new(0xC07 + i as u64 * 100 + seed);
            // Past the header, short of the end: a cut inside the stream.
            let cut = 64 + rng.below(original.len().saturating_sub(72));
            let copy = tmp.join(format!(
                "{seed}-{}",
                file.file_name().expect("name").to_string_lossy()
            ));
            fs::write(&copy, &original[..cut]).expect("write");
            let what = format!("{} seed {seed} cut at {cut}", file.display());
            let Some(r) = analyse(&copy, &what) else {
                // A cut before the first line ends: exit 1 is the answer.
                continue;
            };
            let want = format!("{}: the input is cut at byte {cut} (", copy.display());
            let warned = r["warnings"]
                .as_array()
                .expect("warnings")
                .iter()
                .filter_map(Value::as_str)
                .any(|w| w.starts_with(&want));
            assert!(warned, "{what}: {}", r["warnings"]);
        }
    }
}
