//! Output: unique names, gzip for some files, bytes on disk.
//!
//! In: the writers' files (name, family, body); out: the files under the output directory and
//! their `(name, family)` list. Gzip streams carry no name and no time, so the bytes depend only
//! on the body.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

use flate2::{Compression, GzBuilder};

use super::plan::{FilePlan, OutFile, Plan};
use crate::gen::rng::Rng;

/// `a/b.log` -> `a/b-2.log` (before the last extension, so dotted host names stay whole).
fn numbered(name: &str, k: usize) -> String {
    let (dir, file) = name
        .rsplit_once('/')
        .map(|(d, f)| (format!("{d}/"), f))
        .unwrap_or((String::new(), name));
    match file.rsplit_once('.') {
        Some((stem, ext)) => format!("{dir}{stem}-{k}.{ext}"),
        None => format!("{dir}{file}-{k}"),
    }
}

pub fn gzip(body: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut enc = GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), Compression::fast());
    enc.write_all(body)?;
    enc.finish()
}

/// Writes files as the sources produce them (so only one source's bodies are in memory).
pub struct Writer<'a> {
    out: &'a Path,
    compression: Option<bool>,
    rng: Rng,
    seen: HashSet<String>,
    pub written: Vec<(String, String)>,
}

impl<'a> Writer<'a> {
    pub fn new(out: &'a Path, compression: Option<bool>, rng: Rng) -> Writer<'a> {
        Writer {
            out,
            compression,
            rng,
            seen: HashSet::new(),
            written: vec![],
        }
    }

    pub fn write(
        &mut self,
        files: Vec<OutFile>,
        plan: &mut Plan,
    ) -> Result<(), Box<dyn std::error::Error>> {
        for f in files {
            let mut name = f.name.clone();
            let mut k = 2;
            while self.seen.contains(&name) {
                name = numbered(&f.name, k);
                k += 1;
            }
            self.seen.insert(name.clone());
            let gz = f.always_gzip || self.compression.unwrap_or_else(|| self.rng.chance(0.25));
            let (name, bytes) = if gz {
                (format!("{name}.gz"), gzip(&f.body)?)
            } else {
                (name, f.body)
            };
            let path = self.out.join(&name);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&path, &bytes)?;
            plan.files.push(FilePlan {
                name: name.clone(),
                family: f.family.into(),
                kind: f.kind,
                gzip: gz,
                records: f.records,
                bytes: bytes.len(),
            });
            self.written.push((name, f.family.to_string()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collisions_get_numbers() {
        assert_eq!(numbered("logs/web-1.log", 2), "logs/web-1-2.log");
        assert_eq!(numbered("metrics.prom", 3), "metrics-3.prom");
        assert_eq!(numbered("journal", 2), "journal-2");
        assert_eq!(
            numbered("logs/ip-10-0-0-5.ec2.internal.log", 2),
            "logs/ip-10-0-0-5.ec2.internal-2.log"
        );
    }

    #[test]
    fn gzip_is_deterministic_and_round_trips() {
        use std::io::Read;
        let a = gzip(b"line 1\nline 2\n").expect("gzip");
        assert_eq!(a, gzip(b"line 1\nline 2\n").expect("gzip"));
        let mut s = String::new();
        flate2::read::GzDecoder::new(&a[..])
            .read_to_string(&mut s)
            .expect("gunzip");
        assert_eq!(s, "line 1\nline 2\n");
    }
}
