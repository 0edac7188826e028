//! Deterministic benchmark inputs: an nginx access log (combined plus
//! `$request_time`) or JSON-lines application log of a given size, by default
//! one hour of traffic from 200 tenants; the shape matrix of `benches/run.sh`
//! asks for other spans and tenant counts.
//!
//! `cargo run --release --example gen_bench -- access|json SIZE_MIB OUT_FILE [HOURS [TENANTS]]`

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
/// 2026-10-01T07:00:00Z, where every input starts.
const START: i64 = 1_790_838_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: gen_bench access|json SIZE_MIB OUT_FILE [HOURS [TENANTS]]";
    let (kind, mib, out, rest) = match args.as_slice() {
        [k, m, o, rest @ ..] if rest.len() <= 2 => {
            (k.as_str(), m.parse::<u64>()?, o.as_str(), rest)
        }
        _ => return Err(usage.into()),
    };
    let hours: u64 = rest.first().map_or(Ok(1), |h| h.parse())?;
    let tenants: u64 = rest.get(1).map_or(Ok(200), |t| t.parse())?;
    if hours == 0 || tenants == 0 {
        return Err(usage.into());
    }
    let span = hours * 3600;
    let target = mib * 1024 * 1024;
    let mut w = BufWriter::with_capacity(1 << 20, File::create(out)?);
    let mut rng = Rng(0x5eed);
    let mut written = 0u64;
    let mut line = String::with_capacity(512);
    // Lines are spread evenly over the span whatever the size, like a busy API.
    let est_lines = target / if kind == "json" { 170 } else { 200 };
    let mut n = 0u64;
    while written < target {
        let sec = (u128::from(n) * u128::from(span) / u128::from(est_lines.max(1))) as u64;
        let at = chrono::DateTime::from_timestamp(START + sec.min(span - 1) as i64, 0)
            .ok_or("time out of range")?;
        // Zipf-like: low tenant numbers are busier.
        let tenant = (rng.below(tenants) * rng.below(tenants)) / tenants;
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
                "{{\"@timestamp\":\"{}.{:03}Z\",\"log.level\":\"{}\",\"message\":\"GET /api/v1/accounts/t-{tenant:03}/{route} completed in {ms} ms\",\"host.hostname\":\"api-{}\",\"tenant_id\":\"t-{tenant:03}\",\"duration_ms\":{ms}}}",
                at.format("%Y-%m-%dT%H:%M:%S"),
                rng.below(1000),
                if status == 500 { "ERROR" } else { "INFO" },
                rng.below(6)
            )?;
        } else {
            use std::fmt::Write as _;
            writeln!(
                line,
                "198.51.100.{} - - [{} +0000] \"GET /api/v1/accounts/t-{tenant:03}/{route} HTTP/1.1\" {status} {} \"-\" \"{}\" 0.{ms:03} 10.0.{}.1:8080",
                rng.below(250),
                at.format("%d/%b/%Y:%H:%M:%S"),
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
