//! Deterministic benchmark inputs: an nginx access log (combined plus
//! `$request_time`) or JSON-lines application log of a given size, one hour
//! of traffic from 200 tenants. Used by `benches/run.sh`.
//!
//! `cargo run --release --example gen_bench -- access|json SIZE_MIB OUT_FILE`

use std::fs::File;
use std::io::{BufWriter, Write};

/// splitmix64, written out so the bytes never change with a crate version.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One of `items`, drawn.
fn pick(rng: &mut Rng, items: &[&'static str]) -> &'static str {
    // `below` stays under the length it is given.
    items
        .get(rng.below(items.len() as u64) as usize)
        .copied()
        .unwrap_or_default()
}

const ROUTES: [&str; 6] = [
    "projects",
    "projects/{n}",
    "runs/{n}",
    "runs",
    "results?page={p}",
    "test-cases/{n}",
];
const AGENTS: [&str; 5] = [
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
    "jenkins-plugin/1.4.2",
    "github-actions-runner/2.311.0",
    "python-requests/2.31.0",
    "acme-exporter/2.3.1",
];
const MONTH_DAY: &str = "01/Oct/2026";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (kind, mib, out) = match args.as_slice() {
        [k, m, o] => (k.as_str(), m.parse::<u64>()?, o.as_str()),
        _ => return Err("usage: gen_bench access|json SIZE_MIB OUT_FILE".into()),
    };
    let target = mib * 1024 * 1024;
    let mut w = BufWriter::with_capacity(1 << 20, File::create(out)?);
    let mut rng = Rng(0x5eed);
    let mut written = 0u64;
    let mut line = String::with_capacity(512);
    // Lines are spread over one hour whatever the size, like a busy API.
    let est_lines = target / if kind == "json" { 170 } else { 200 };
    let mut n = 0u64;
    while written < target {
        let sec = (n * 3600 / est_lines.max(1)).min(3599);
        let (hh, mm, ss) = (7 + sec / 3600, (sec / 60) % 60, sec % 60);
        // Zipf-like: low tenant numbers are busier.
        let tenant = (rng.below(200) * rng.below(200)) / 200;
        let route = pick(&mut rng, &ROUTES)
            .replace("{n}", &rng.below(100_000).to_string())
            .replace("{p}", &rng.below(50).to_string());
        let status = match rng.below(1000) {
            0..=2 => 500,
            3..=9 => 404,
            _ => 200,
        };
        let ms = 5 + rng.below(200);
        line.clear();
        if kind == "json" {
            use std::fmt::Write as _;
            writeln!(
                line,
                "{{\"@timestamp\":\"2026-10-01T{hh:02}:{mm:02}:{ss:02}.{:03}Z\",\"log.level\":\"{}\",\"message\":\"GET /api/v1/accounts/t-{tenant:03}/{route} completed in {ms} ms\",\"host.hostname\":\"api-{}\",\"tenant_id\":\"t-{tenant:03}\",\"duration_ms\":{ms}}}",
                rng.below(1000),
                if status == 500 { "ERROR" } else { "INFO" },
                rng.below(6)
            )?;
        } else {
            use std::fmt::Write as _;
            writeln!(
                line,
                "198.51.100.{} - - [{MONTH_DAY}:{hh:02}:{mm:02}:{ss:02} +0000] \"GET /api/v1/accounts/t-{tenant:03}/{route} HTTP/1.1\" {status} {} \"-\" \"{}\" 0.{ms:03} 10.0.{}.1:8080",
                rng.below(250),
                200 + rng.below(20_000),
                pick(&mut rng, &AGENTS),
                rng.below(4)
            )?;
        }
        w.write_all(line.as_bytes())?;
        written += line.len() as u64;
        n += 1;
    }
    w.flush()?;
    eprintln!("{out}: {n} lines, {written} bytes");
    Ok(())
}
