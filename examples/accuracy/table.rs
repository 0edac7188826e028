//! The runner's output: passed/total per scenario and check class, the failures, the totals.
//! In: the draws' results. Out: text on standard output; returns (passed, total).

use std::collections::BTreeMap;

use super::gen::check::CLASSES;
use super::run::DrawResult;

pub fn print(names: &[&str], results: &[DrawResult]) -> (usize, usize) {
    let mut cells: BTreeMap<(&str, &str), (usize, usize)> = BTreeMap::new();
    for r in results {
        for c in &r.checks {
            let e = cells.entry((scenario(names, &r.scenario), c.class)).or_default();
            e.0 += c.passed as usize;
            e.1 += 1;
        }
        if r.error.is_some() {
            let e = cells.entry((scenario(names, &r.scenario), "incident")).or_default();
            e.1 += 1;
        }
    }
    print!("{:<17}", "scenario");
    for c in CLASSES {
        print!(" {c:>10}");
    }
    println!(" {:>12}", "all");
    let mut col: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let (mut passed, mut total) = (0, 0);
    for n in names {
        print!("{n:<17}");
        let (mut p, mut t) = (0, 0);
        for c in CLASSES {
            match cells.get(&(*n, c)) {
                Some((a, b)) => {
                    print!(" {:>10}", format!("{a}/{b}"));
                    p += a;
                    t += b;
                    let e = col.entry(c).or_default();
                    e.0 += a;
                    e.1 += b;
                }
                None => print!(" {:>10}", ""),
            }
        }
        println!(" {:>12}", format!("{p}/{t}"));
        passed += p;
        total += t;
    }
    print!("{:<17}", "all");
    for c in CLASSES {
        match col.get(c) {
            Some((a, b)) => print!(" {:>10}", format!("{a}/{b}")),
            None => print!(" {:>10}", ""),
        }
    }
    println!(" {:>12}", format!("{passed}/{total}"));
    let failures: Vec<String> = results
        .iter()
        .flat_map(|r| {
            let err = r.error.iter().map(move |e| format!("{:<17} {:>6}  {:<36} {:<28} {}", r.scenario, r.seed, "analysis", "a report", e));
            let checks = r.checks.iter().filter(|c| !c.passed).map(move |c| {
                format!("{:<17} {:>6}  {:<36} {:<28} {}", r.scenario, r.seed, format!("{}: {}", c.class, c.name), c.expected, c.got)
            });
            err.chain(checks)
        })
        .collect();
    if !failures.is_empty() {
        println!();
        println!("failures ({}):", failures.len());
        println!("{:<17} {:>6}  {:<36} {:<28} got", "scenario", "seed", "check", "expected");
        for f in failures {
            println!("{f}");
        }
    }
    (passed, total)
}

fn scenario<'a>(names: &[&'a str], s: &str) -> &'a str {
    names.iter().copied().find(|n| *n == s).unwrap_or("?")
}
