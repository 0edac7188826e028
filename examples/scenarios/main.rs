//! Draws one incident scenario and writes its inputs and `truth.json`.
//!
//! `cargo run --release --example scenarios -- --scenario NAME --seed N --out DIR`
//! (`--list` prints the scenario names).

mod gen;

use gen::facts::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).cloned().unwrap_or_default();
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let small = args.iter().any(|a| a == "--small");
    let t = std::time::Instant::now();
    let d = gen::scenarios::draw(&name, seed, small).expect("name");
    let (w, g) = gen::sim::run(&d.cfg, seed);
    let el = t.elapsed();
    let n = w.requests.len();
    let mut by_status = std::collections::BTreeMap::new();
    for r in &w.requests {
        *by_status.entry(r.status).or_insert(0) += 1;
    }
    println!("{name} seed {seed}: {n} requests in {el:?}; span {} .. {}; fault {}", gen::time::iso_s(w.start), gen::time::iso_s(w.end), gen::time::iso_s(d.intent.fault));
    println!("status {by_status:?}");
    println!("logs {} events {} changes {} series {} instances {}", w.logs.len(), w.events.len(), w.changes.len(), w.series.len(), w.instances.len());
    println!("alert {:?} actions {:?}", g.alert_at.map(gen::time::iso_s), g.actions.iter().map(|a| (gen::time::iso_s(a.0), a.1.clone())).collect::<Vec<_>>());
    println!("params {}", serde_json::Value::Object(d.params.clone()));
    // failures per minute around the fault
    let mut per_min = std::collections::BTreeMap::new();
    for r in &w.requests {
        if r.status >= 500 && !r.noise {
            *per_min.entry((r.start - w.start) / 60000).or_insert(0) += 1;
        }
    }
    println!("fail/min {:?}", per_min.iter().take(80).collect::<Vec<_>>());
    let kills: Vec<_> = w.instances.iter().flat_map(|i| i.lives.iter().filter_map(|l| l.end_cause.map(|c| (gen::time::iso_s(l.ended.unwrap_or(0)), c)))).collect();
    println!("ends {:?}", kills);
    let mut pre = std::collections::BTreeMap::new();
    for r in &w.requests {
        if r.status >= 500 && !r.noise && r.start < d.intent.fault {
            *pre.entry((r.status, format!("{:?}", r.failure), r.route)).or_insert(0) += 1;
        }
    }
    println!("pre-fault failures {pre:?}");
    let _ = ReqKind::Api;
}
