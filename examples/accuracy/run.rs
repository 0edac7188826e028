//! Runs the draws: generate, write, analyse with the release binary, check. In: the jobs
//! (scenario, seed). Out: one [`DrawResult`] each, in the jobs' order, whatever thread ran it.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::gen;
use super::gen::check::{check_report, Check};
use super::Args;

pub struct DrawResult {
    pub scenario: String,
    pub seed: u64,
    pub checks: Vec<Check>,
    /// The draw could not be analysed (the binary failed, timed out or wrote no JSON).
    pub error: Option<String>,
}

/// Builds the release binary when it is missing.
pub fn ensure_binary(bin: &Path) -> Result<(), String> {
    if bin.exists() {
        return Ok(());
    }
    eprintln!(
        "accuracy: {} is missing; building it (cargo build --release)",
        bin.display()
    );
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--bin", "postmortem"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .map_err(|e| format!("cargo build: {e}"))?;
    if !status.success() || !bin.exists() {
        return Err(format!("cargo build did not produce {}", bin.display()));
    }
    Ok(())
}

pub fn all(a: &Args, jobs: &[(&str, u64)]) -> Vec<DrawResult> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<DrawResult>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..a.threads.max(1) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(name, seed)) = jobs.get(k) else {
                    break;
                };
                let r = one(a, name, seed);
                let bad = r.error.is_some() || r.checks.iter().any(|c| !c.passed);
                eprintln!(
                    "accuracy: {name} seed {seed}: {}",
                    if bad { "failures" } else { "ok" }
                );
                // `out` has a slot per job.
                if let Some(slot) = out.lock().ok().as_mut().and_then(|o| o.get_mut(k)) {
                    *slot = Some(r);
                }
            });
        }
    });
    out.into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

fn one(a: &Args, name: &str, seed: u64) -> DrawResult {
    let mut r = DrawResult {
        scenario: name.to_string(),
        seed,
        checks: Vec::new(),
        error: None,
    };
    let Some(g) = gen::generate(name, seed, a.small) else {
        r.error = Some("unknown scenario".into());
        return r;
    };
    let dir =
        std::env::temp_dir().join(format!("pm-accuracy-{}-{name}-{seed}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let truth = match gen::write(&g, &dir, &gen::emit::Force::default()) {
        Ok(t) => t,
        Err(e) => {
            r.error = Some(format!("writing the draw: {e}"));
            return r;
        }
    };
    let args: Vec<String> = truth
        .get("analyze_args")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let report = analyze(&a.bin, &args, &dir);
    match &report {
        Ok(rep) => r.checks = check_report(&truth, rep),
        Err(e) => r.error = Some(e.clone()),
    }
    let failed = r.error.is_some() || r.checks.iter().any(|c| !c.passed);
    if let (true, Some(keep)) = (failed, &a.keep) {
        let to = keep.join(format!("{name}-{seed}"));
        let _ = fs::remove_dir_all(&to);
        if let Err(e) = copy_dir(&dir, &to) {
            eprintln!("accuracy: keeping {}: {e}", to.display());
        }
        let body = match &report {
            Ok(rep) => serde_json::to_string_pretty(rep).unwrap_or_default(),
            Err(e) => e.clone(),
        };
        let _ = fs::write(to.join("report.json"), body);
        let _ = fs::write(
            to.join("command.txt"),
            format!(
                "{} analyze --json {} {}\n",
                a.bin.display(),
                args.join(" "),
                to.display()
            ),
        );
    }
    let _ = fs::remove_dir_all(&dir);
    r
}

/// `postmortem analyze --json ARGS DIR`, with a fixed zone and a 10-minute limit.
fn analyze(bin: &Path, args: &[String], dir: &Path) -> Result<Value, String> {
    let mut child = Command::new(bin)
        .arg("analyze")
        .arg("--json")
        .args(args)
        .arg(dir)
        .env("TZ", "UTC")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("running {}: {e}", bin.display()))?;
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let mut stderr = child.stderr.take().ok_or("no stderr")?;
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let t0 = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if t0.elapsed() > Duration::from_secs(600) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("analyze took more than 10 minutes".into());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("waiting for analyze: {e}")),
        }
    };
    let out = reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    if !status.success() {
        let first: String = err.lines().take(3).collect::<Vec<_>>().join(" | ");
        return Err(format!("analyze exited with {status}: {first}"));
    }
    serde_json::from_str(&out).map_err(|e| format!("the report is not JSON: {e}"))
}

fn copy_dir(from: &Path, to: &PathBuf) -> std::io::Result<()> {
    fs::create_dir_all(to)?;
    for e in fs::read_dir(from)? {
        let e = e?;
        let target = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_dir(&e.path(), &target)?;
        } else {
            fs::copy(e.path(), target)?;
        }
    }
    Ok(())
}
