//! The truth's own statistics over many draws: per scenario, how often each pattern is
//! required, forbidden or neither, how often a culprit is named or ambiguous, the onset
//! tolerance, durations, sizes and the time a draw takes. In: names and seeds. Out: tables on
//! standard output.

use std::collections::BTreeMap;
use std::time::Instant;

use super::gen;

pub fn print(names: &[&str], first: u64, draws: u64, small: bool) {
    let ids = gen::truth::patterns::IDS;
    println!("pattern verdicts over {draws} draws per scenario (R required / F forbidden / - neither), seeds {first}..{}", first + draws - 1);
    print!("{:<17}", "scenario");
    for id in ids {
        print!(" {:>13}", &id[..id.len().min(13)]);
    }
    println!();
    let mut other = Vec::new();
    for name in names {
        let mut req: BTreeMap<&str, u64> = BTreeMap::new();
        let mut forb: BTreeMap<&str, u64> = BTreeMap::new();
        let (mut incident, mut culprit, mut ambiguous, mut redraws, mut unusable) = (0, 0, 0, 0, 0);
        let mut tol = Vec::new();
        let mut dur = Vec::new();
        let mut reqs = Vec::new();
        let mut ms = Vec::new();
        let mut problems: BTreeMap<String, u64> = BTreeMap::new();
        let mut longest = (0u64, 0i64);
        for seed in first..first + draws {
            let t0 = Instant::now();
            let Some(g) = gen::generate(name, seed, small) else {
                continue;
            };
            ms.push(t0.elapsed().as_secs_f64() * 1000.0 / g.attempts as f64);
            let t = &g.truth.json;
            for p in t["patterns"].as_array().into_iter().flatten() {
                *req.entry(
                    ids.iter()
                        .find(|x| **x == p.as_str().unwrap_or(""))
                        .copied()
                        .unwrap_or("?"),
                )
                .or_default() += 1;
            }
            for p in t["forbidden_patterns"].as_array().into_iter().flatten() {
                *forb
                    .entry(
                        ids.iter()
                            .find(|x| **x == p.as_str().unwrap_or(""))
                            .copied()
                            .unwrap_or("?"),
                    )
                    .or_default() += 1;
            }
            incident += (t["incident"].as_bool() == Some(true) && t["onset"].is_string()) as u64;
            culprit += t["culprit"].is_object() as u64;
            ambiguous += (t["culprit_ambiguous"].as_bool() == Some(true)) as u64;
            redraws += (g.attempts > 1) as u64;
            unusable += (!g.truth.usable) as u64;
            for p in g.truth.problems.iter().chain(&g.rejected) {
                *problems.entry(p.clone()).or_default() += 1;
            }
            if let Some(x) = t["onset_tolerance_s"].as_i64() {
                tol.push(x as f64);
            }
            if let Some(x) = t["duration_s"].as_i64() {
                dur.push(x as f64);
                if x > longest.1 {
                    longest = (seed, x);
                }
            }
            reqs.push(g.world.requests.len() as f64);
        }
        print!("{name:<17}");
        for id in ids {
            let r = req.get(id).copied().unwrap_or(0);
            let f = forb.get(id).copied().unwrap_or(0);
            print!(" {:>13}", format!("{r}R/{f}F/{}-", draws - r - f));
        }
        println!();
        other.push(format!(
            "{name:<17} incident {incident:>3}/{draws} culprit {culprit:>3} ambiguous {ambiguous:>3} redrawn {redraws:>3} unusable {unusable:>3} | onset tol s {} | duration s {} (longest: seed {}) | requests {} | ms/draw {}{}",
            q(&mut tol),
            q(&mut dur),
            longest.0,
            q(&mut reqs),
            q(&mut ms),
            if problems.is_empty() { String::new() } else { format!(" | problems {problems:?}") }
        ));
    }
    println!();
    println!("per scenario (quantiles: min / median / p90 / max)");
    for o in other {
        println!("{o}");
    }
}

fn q(v: &mut [f64]) -> String {
    if v.is_empty() {
        return "-".into();
    }
    v.sort_by(f64::total_cmp);
    // A rank inside the sorted values: `p` is 0 to 1.
    let at = |p: f64| {
        let rank = ((v.len() - 1) as f64 * p).round() as usize;
        v.get(rank).copied().unwrap_or(0.0)
    };
    format!(
        "{:.0}/{:.0}/{:.0}/{:.0}",
        at(0.0),
        at(0.5),
        at(0.9),
        at(1.0)
    )
}

/// What happened in one draw, minute by minute around the incident (for `--debug`).
pub fn debug(g: &gen::Generated) {
    use gen::time::iso_s;
    let w = &g.world;
    let gr = &g.ground;
    println!(
        "{} seed {} (attempt {}): {} requests, span {} .. {}, fault {}",
        g.draw.name,
        g.draw.seed,
        g.attempts,
        w.requests.len(),
        iso_s(w.start),
        iso_s(w.end),
        iso_s(g.draw.intent.fault)
    );
    println!(
        "params {}",
        serde_json::Value::Object(g.draw.params.clone())
    );
    println!("alert {:?}", gr.alert_at.map(iso_s));
    for (t, a) in &gr.actions {
        println!("action {} {a}", iso_s(*t));
    }
    for (i, inst) in w.instances.iter().enumerate() {
        let ends: Vec<String> = inst
            .lives
            .iter()
            .filter_map(|l| Some(format!("{}:{:?}", iso_s(l.ended?), l.end_cause?)))
            .collect();
        println!(
            "instance {i} {} {} lives {} ends {}",
            inst.pod,
            inst.version,
            inst.lives.len(),
            ends.join(" ")
        );
    }
    let mut per: BTreeMap<i64, (u32, u32, f64, u32)> = BTreeMap::new();
    for (r, x) in w.requests.iter().zip(&gr.requests) {
        let e = per.entry((r.start - w.start) / 60_000).or_default();
        e.0 += 1;
        e.1 += gen::truth::symptoms::fault_failure(r, x) as u32;
        e.2 += r.duration_ms as f64;
        e.3 += r.retry as u32;
    }
    let q: BTreeMap<i64, f64> = gr
        .queue
        .iter()
        .map(|(t, v)| ((t - w.start) / 60_000, *v))
        .collect();
    println!("minute  start                requests failed mean_ms retries queue");
    for (m, (n, f, l, re)) in per {
        println!(
            "{m:>6}  {}  {n:>8} {f:>6} {:>7.0} {re:>7} {}",
            iso_s(w.start + m * 60_000),
            l / n.max(1) as f64,
            q.get(&m).map_or(String::new(), |x| format!("{x:.0}"))
        );
    }
    println!(
        "truth {}",
        serde_json::to_string_pretty(&g.truth.json).unwrap_or_default()
    );
}
