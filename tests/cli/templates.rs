//! Message templates (issue #13) through the real binary: the incident's key
//! messages come out as one template each with their exact count, on the
//! bundled samples, on generated scenarios and on a log written here with
//! every pool name and wait a stack prints; the templates are the same
//! whatever `--threads` says and however the input is split; on the real
//! logs of `../shared/corpus/external/` they are few and stable.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::fixture::{postmortem, root, scratch, Scratch};
use crate::gen;

/// `postmortem templates --json ARGS...`: the templates array.
fn templates(args: &[&str], inputs: &[&Path]) -> Vec<Value> {
    let out = postmortem()
        .arg("templates")
        .arg("--json")
        .args(args)
        .args(inputs)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "templates {inputs:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("a JSON array");
    v.as_array().expect("an array").clone()
}

/// The templates whose examples contain `fragment`.
fn holding<'a>(ts: &'a [Value], fragment: &str) -> Vec<&'a Value> {
    ts.iter()
        .filter(|t| {
            t["examples"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|e| e["text"].as_str().is_some_and(|s| s.contains(fragment)))
        })
        .collect()
}

fn count(t: &Value) -> u64 {
    t["count"].as_u64().expect("a count")
}

/// The text of a file, gzip inflated.
fn text_of(p: &Path) -> String {
    let bytes = std::fs::read(p).expect("readable");
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut s = String::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_string(&mut s)
            .expect("gzip");
        s
    } else {
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

const POOL_TIMEOUT: &str = "Connection is not available, request timed out after";

#[test]
fn pool_timeouts_of_every_sample_are_one_template_with_their_exact_count() {
    let re = regex::Regex::new(
        r"^\S+ - Connection is not available, request timed out after [0-9]+ms\.$",
    )
    .expect("regex");
    for sample in ["bulk-export", "organic-growth", "quiet-day"] {
        let dir = root().join("samples").join(sample);
        // What the application wrote: every ECS record's message, counted here.
        let mut expected = 0u64;
        for line in text_of(&dir.join("app.jsonl.gz")).lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if v["message"].as_str().is_some_and(|m| re.is_match(m)) {
                expected += 1;
            }
        }
        let ts = templates(&[], &[&dir]);
        let held = holding(&ts, POOL_TIMEOUT);
        if expected == 0 {
            assert!(held.is_empty(), "{sample}: {held:?}");
            continue;
        }
        assert_eq!(held.len(), 1, "{sample}: one template, got {held:#?}");
        let t = held[0];
        assert_eq!(count(t), expected, "{sample}: {}", t["template"]);
        assert_eq!(
            t["template"],
            "HikariPool-<num> - Connection is not available, request timed out after <duration>.",
            "{sample}"
        );
        assert!(
            t["signals"]
                .as_array()
                .is_some_and(|s| s.iter().any(|x| x == "pool_exhausted")),
            "{sample}: {t}"
        );
        // Every template holds its figures: counts per bucket sum to the count.
        for t in &ts {
            let sum: u64 = t["buckets"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|b| b["count"].as_u64().unwrap_or(0))
                .sum();
            assert_eq!(sum, count(t), "{sample}: {}", t["template"]);
        }
    }
}

/// An application log in `format` whose pool-timeout lines name several pools and waits,
/// among other lines, at one line a second from 2026-10-01 08:00:00 UTC. Returns the file
/// and the pool-timeout lines written.
fn pool_log(dir: &Path, format: &str, lines: usize) -> (PathBuf, u64) {
    let pools = [
        "HikariPool-1",
        "HikariPool-2",
        "HikariPool-17",
        "primary",
        "readonly",
        "reporting-db",
    ];
    let mut out = String::new();
    let mut timeouts = 0;
    for i in 0..lines {
        let ts = format!(
            "2026-10-01T{:02}:{:02}:{:02}.{:03}Z",
            8 + i / 3600,
            i / 60 % 60,
            i % 60,
            i * 7 % 1000
        );
        let pod = format!("api-{}", i % 3);
        let (level, msg) = match i % 5 {
            0 | 3 => {
                timeouts += 1;
                (
                    "ERROR",
                    format!(
                        "{} - {POOL_TIMEOUT} {}ms.",
                        pools[i * 7 % pools.len()],
                        [250, 1000, 5000, 30000, 30001][i % 4] + i % 11
                    ),
                )
            }
            1 => (
                "INFO",
                format!(
                    "Completed GET /api/v1/accounts/acct-{}/orders/{} in {} ms",
                    i % 41,
                    i * 31,
                    i % 900
                ),
            ),
            2 => (
                "WARN",
                format!(
                    "Retrying job {} for tenant acct-{} (attempt {})",
                    i * 13,
                    i % 17,
                    i % 4
                ),
            ),
            _ => (
                "INFO",
                format!("Cache refreshed: {} entries", 1000 + i % 97),
            ),
        };
        match format {
            "json" => out.push_str(
                &serde_json::json!({"@timestamp": ts, "log.level": level, "message": msg, "host": {"name": pod}})
                    .to_string(),
            ),
            "logfmt" => out.push_str(&format!(
                "time={ts} level={} msg={:?} pod={pod}",
                level.to_lowercase(),
                msg
            )),
            _ => out.push_str(&format!(
                "{} {level:5} 1 --- [exec-{}] c.z.h.p.HikariPool : {msg}",
                ts.replace('T', " ").trim_end_matches('Z'),
                i % 8
            )),
        }
        out.push('\n');
    }
    let p = dir.join(format!("app-{format}.log"));
    std::fs::write(&p, out).expect("written");
    (p, timeouts)
}

fn tmp(name: &str) -> Scratch {
    scratch(&format!("templates-{name}"))
}

#[test]
fn pool_timeouts_fold_into_one_template_whatever_the_wait_and_the_pool_name() {
    let dir = tmp("pools");
    for format in ["json", "logfmt", "text"] {
        let (p, expected) = pool_log(&dir, format, 3000);
        let ts = templates(&[], &[&p]);
        let held = holding(&ts, POOL_TIMEOUT);
        assert_eq!(held.len(), 1, "{format}: {held:#?}");
        assert_eq!(
            count(held[0]),
            expected,
            "{format}: {}",
            held[0]["template"]
        );
        assert!(
            held[0]["template"]
                .as_str()
                .is_some_and(|t| t
                    .ends_with("Connection is not available, request timed out after <duration>.")),
            "{format}: {}",
            held[0]["template"]
        );
        // The other three messages are a template each, with their counts.
        assert_eq!(
            ts.len(),
            4,
            "{format}: {:#?}",
            ts.iter().map(|t| &t["template"]).collect::<Vec<_>>()
        );
        assert_eq!(ts.iter().map(count).sum::<u64>(), 3000, "{format}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// What must not change with threads or splits: each template's text, count, level,
/// first and last seen, instances and buckets.
fn essence(ts: &[Value]) -> BTreeMap<String, Value> {
    ts.iter()
        .map(|t| {
            let mut t = t.clone();
            // Examples name their input and line: a split input names other ones.
            if let Some(o) = t.as_object_mut() {
                o.remove("examples");
            }
            (t["id"].as_str().unwrap_or("").to_string(), t)
        })
        .collect()
}

#[test]
fn templates_are_the_same_whatever_the_thread_count_and_however_the_input_is_split() {
    // 60,000 lines (about 6 MiB): more than one 4 MiB chunk, so two workers mine a part each.
    let dir = tmp("split");
    let (whole, _) = pool_log(&dir, "json", 60_000);
    let one = postmortem()
        .args(["templates", "--json", "--threads", "1"])
        .arg(&whole)
        .output()
        .expect("runs");
    assert!(one.status.success());
    for n in ["2", "3"] {
        let many = postmortem()
            .args(["templates", "--json", "--threads", n])
            .arg(&whole)
            .output()
            .expect("runs");
        assert!(many.status.success());
        assert_eq!(
            String::from_utf8_lossy(&one.stdout),
            String::from_utf8_lossy(&many.stdout),
            "--threads 1 and {n}"
        );
    }
    // The same lines as three files (cut at 10,000 and 35,000 lines).
    let text = std::fs::read_to_string(&whole).expect("readable");
    let lines: Vec<&str> = text.lines().collect();
    let parts: Vec<PathBuf> = [(0, 10_000), (10_000, 35_000), (35_000, lines.len())]
        .iter()
        .enumerate()
        .map(|(k, (a, b))| {
            let p = dir.join(format!("part-{k}.jsonl"));
            std::fs::write(&p, lines[*a..*b].join("\n") + "\n").expect("written");
            p
        })
        .collect();
    std::fs::remove_file(&whole).expect("removed");
    let whole_ts: Vec<Value> = serde_json::from_slice(&one.stdout).expect("JSON");
    let refs: Vec<&Path> = parts.iter().map(PathBuf::as_path).collect();
    let split_ts = templates(&["--threads", "2"], &refs);
    assert_eq!(essence(&whole_ts), essence(&split_ts));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The digit-free run of a message that names it best (its longest), for finding its lines
/// among the templates' examples.
fn fragment(msg: &str) -> &str {
    msg.split(|c: char| c.is_ascii_digit())
        .max_by_key(|s| s.len())
        .unwrap_or("")
        .trim()
}

fn shape(msg: &str) -> String {
    let mut out = String::new();
    let mut digit = false;
    for c in msg.lines().next().unwrap_or("").chars() {
        if c.is_ascii_digit() {
            if !digit {
                out.push('0');
            }
            digit = true;
        } else {
            out.push(c);
            digit = false;
        }
    }
    out
}

#[test]
fn each_generated_scenario_s_pool_complaints_are_one_template_with_their_exact_count() {
    let f = gen::emit::Force::families();
    let tmp = tmp("scenarios");
    let mut failures = Vec::new();
    let mut checked = 0;
    for (k, name) in gen::scenarios::NAMES.iter().enumerate() {
        let seed = 1300 + k as u64;
        let g = gen::generate(name, seed, true).expect("a scenario");
        // Every app family in turn: JSON loggers and text layouts alike.
        let force = gen::emit::Force {
            app: Some(f.app[k % f.app.len()]),
            ..gen::emit::Force::default()
        };
        let dir = tmp.join(format!("{name}-{seed}"));
        let truth = gen::write(&g, &dir, &force).expect("written");
        let args: Vec<String> = truth["analyze_args"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let ts = templates(&args, &[&dir]);
        // The pool's complaints as the simulation logged them, by shape (digits aside).
        let mut shapes: BTreeMap<String, (String, u64)> = BTreeMap::new();
        for l in g
            .world
            .logs
            .iter()
            .filter(|l| l.topic == gen::facts::LogTopic::PoolTimeout)
        {
            let e = shapes
                .entry(shape(&l.msg))
                .or_insert_with(|| (fragment(&l.msg).to_string(), 0));
            e.1 += 1;
        }
        for (s, (frag, n)) in &shapes {
            // Other lines quoting the same words (a request's error naming the pool's
            // complaint) are other messages: count the complaint's own lines only.
            let all: u64 = g.world.logs.iter().filter(|l| shape(&l.msg) == *s).count() as u64;
            let held = holding(&ts, frag);
            let got: Vec<(String, u64)> = held
                .iter()
                .map(|t| (t["template"].as_str().unwrap_or("").to_string(), count(t)))
                .collect();
            checked += 1;
            eprintln!("{name} seed {seed}: `{s}` x {all}: {got:?}");
            if got.len() != 1 || got[0].1 != all {
                failures.push(format!(
                    "{name} seed {seed} ({:?}): `{s}` x {all} ({n} from the pool): got {got:?}",
                    truth["files"]
                ));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    let _ = std::fs::remove_dir_all(&tmp);
    // Four of the ten scenarios exhaust a pool (the others are crashes, stuck
    // instances, deploys and quiet days).
    assert!(checked >= 4, "only {checked} pool messages checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Loghub's 2,000-line samples that one application wrote, each a handful of message kinds:
/// their templates must number under 5% of their distinct lines.
const ONE_APPLICATION: [&str; 8] = [
    "loghub_Apache_2k.log",
    "loghub_BGL_2k.log",
    "loghub_Hadoop_2k.log",
    "loghub_OpenSSH_2k.log",
    "loghub_OpenStack_2k.log",
    "loghub_Spark_2k.log",
    "loghub_Windows_2k.log",
    "loghub_Zookeeper_2k.log",
];

/// Whole-machine syslogs (every daemon of a Linux host, a Mac, a supercomputer's nodes): many
/// programs, each with messages of its own, so many more message kinds; under 16% of their
/// distinct lines (112, 300 and 133 templates today).
const MANY_PROGRAMS: [&str; 3] = [
    "loghub_Linux_2k.log",
    "loghub_Mac_2k.log",
    "loghub_Thunderbird_2k.log",
];

/// (template, count), sorted: what must not move when the lines are split or reordered.
fn texts_and_counts(ts: &[Value]) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = ts
        .iter()
        .map(|t| (t["template"].as_str().unwrap_or("").to_string(), count(t)))
        .collect();
    v.sort();
    v
}

#[test]
fn a_real_log_s_templates_are_few_and_stable() {
    let Some(dir) = super::fixture::corpus().map(|c| c.join("external")) else {
        eprintln!("SKIPPED: ../shared/corpus is not present in this checkout");
        return;
    };
    if !dir.is_dir() {
        eprintln!("SKIPPED: ../shared/corpus/external is not present in this checkout");
        return;
    }
    let work = tmp("external");
    let mut failures = Vec::new();
    for (file, share) in ONE_APPLICATION
        .iter()
        .map(|f| (f, 0.05))
        .chain(MANY_PROGRAMS.iter().map(|f| (f, 0.16)))
    {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).expect("readable");
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let distinct = lines
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        let ts = templates(&[], &[&path]);
        let records: u64 = ts.iter().map(count).sum();
        eprintln!(
            "{file}: {} templates for {distinct} distinct lines ({:.1}%), {records} records",
            ts.len(),
            100.0 * ts.len() as f64 / distinct as f64
        );
        if records < lines.len() as u64 * 9 / 10 {
            failures.push(format!(
                "{file}: {records} records of {} lines",
                lines.len()
            ));
        }
        if ts.len() as f64 >= share * distinct as f64 {
            failures.push(format!(
                "{file}: {} templates, {distinct} distinct lines (limit {share})",
                ts.len()
            ));
        }
        // Stable: the same templates and counts from the file cut in two, and from its
        // lines in reverse order.
        let whole = texts_and_counts(&ts);
        let half = lines.len() / 2;
        let (a, b) = (work.join("a.log"), work.join("b.log"));
        std::fs::write(&a, lines[..half].join("\n") + "\n").expect("written");
        std::fs::write(&b, lines[half..].join("\n") + "\n").expect("written");
        if texts_and_counts(&templates(&[], &[&a, &b])) != whole {
            failures.push(format!("{file}: cut in two, other templates"));
        }
        let reversed: Vec<&str> = lines.iter().rev().copied().collect();
        let r = work.join("reversed.log");
        std::fs::write(&r, reversed.join("\n") + "\n").expect("written");
        if texts_and_counts(&templates(&[], &[&r])) != whole {
            failures.push(format!("{file}: reversed, other templates"));
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Kubelet writes one file per container, `<pod>_<namespace>_<container>-<id>.log`,
/// and its lines name no pod: the file's name does (`parsers/input-names.json`).
/// Each pod's records are that pod's; a file named otherwise names none.
#[test]
fn a_pod_log_file_names_the_instance_of_its_lines() {
    let dir = scratch("podlog");
    let id = "0b674aaf2c74b1815cfe2dec339a89e19d071f9e0044dbf8a61014052707707c";
    let mut files = Vec::new();
    for (i, pod) in ["web-7d9f8b6c5d-x2x9k", "web-7d9f8b6c5d-q8w2m"]
        .iter()
        .enumerate()
    {
        let path = dir.join(format!("{pod}_production_web-{id}.log"));
        let mut text = String::new();
        for s in 0..(3 + i) {
            text.push_str(&format!(
                "2026-09-06T05:20:{:02}.000Z ERROR Worker stalled after {} ms\n",
                10 + s,
                100 + s
            ));
        }
        std::fs::write(&path, text).expect("written");
        files.push(path);
    }
    let plain = dir.join("app.log");
    std::fs::write(
        &plain,
        "2026-09-06T05:20:30.000Z ERROR Worker stalled after 7 ms\n",
    )
    .expect("written");
    files.push(plain);
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let ts = templates(&[], &inputs);
    let stalled = holding(&ts, "Worker stalled");
    assert_eq!(stalled.len(), 1, "{ts:#?}");
    assert_eq!(count(stalled[0]), 8);
    let by_pod: BTreeMap<String, u64> = stalled[0]["instances"]
        .as_array()
        .expect("instances")
        .iter()
        .map(|n| {
            (
                n["name"].as_str().unwrap_or("").to_string(),
                n["count"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let want: BTreeMap<String, u64> = [
        ("web-7d9f8b6c5d-q8w2m".to_string(), 4),
        ("web-7d9f8b6c5d-x2x9k".to_string(), 3),
    ]
    .into();
    assert_eq!(by_pod, want, "app.log names no pod");
    let _ = std::fs::remove_dir_all(&dir);
}
