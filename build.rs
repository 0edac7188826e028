//! Embeds every file under `parsers/` in the binary, so a new format is a new
//! data file and nothing else.

use std::env;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

fn main() -> std::io::Result<()> {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("parsers");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &mut files);
    // Sorted so the embedded order, and so detection ties, never depend on the file system.
    files.sort();
    let out = PathBuf::from(env::var("OUT_DIR").unwrap_or_default()).join("builtin_parsers.rs");
    // A build script's error fails the build with its message: no panic needed.
    let mut f = fs::File::create(&out)?;
    writeln!(f, "pub(crate) const BUILTIN: &[(&str, &str)] = &[")?;
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        writeln!(
            f,
            "    ({rel:?}, include_str!({:?})),",
            path.display().to_string()
        )?;
    }
    writeln!(f, "];")
}
