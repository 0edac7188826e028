//! The whole writer on the fixture: every family of every kind, determinism, arguments.

use super::*;
use crate::gen::emit::fixture;

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("pm-emit-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn read_dir(d: &Path, files: &[(String, String)]) -> Vec<(String, Vec<u8>)> {
    files
        .iter()
        .map(|(n, _)| (n.clone(), std::fs::read(d.join(n)).expect("file")))
        .collect()
}

#[test]
fn same_world_and_seed_same_bytes() {
    let w = fixture::world();
    let (a, b) = (tmp("det-a"), tmp("det-b"));
    for seed in 0..6 {
        let wa = write(&w, &mut Rng::new(seed), &a, &Force::default()).expect("write a");
        let wb = write(&w, &mut Rng::new(seed), &b, &Force::default()).expect("write b");
        assert_eq!(wa.files, wb.files);
        assert_eq!(
            read_dir(&a, &wa.files),
            read_dir(&b, &wb.files),
            "seed {seed}"
        );
        assert_eq!(wa.analyze_args, wb.analyze_args);
        let _ = std::fs::remove_dir_all(&a);
        let _ = std::fs::remove_dir_all(&b);
    }
}

#[test]
fn every_family_can_be_pinned() {
    let w = fixture::world();
    let d = tmp("pin");
    let fams = Force::families();
    let mut k = 0;
    let mut run = |f: Force| {
        k += 1;
        let out = write(&w, &mut Rng::new(k), &d, &f).expect("write");
        assert!(!out.files.is_empty());
        let _ = std::fs::remove_dir_all(&d);
        out
    };
    for a in fams.access {
        let out = run(Force {
            access: Some(*a),
            ..Force::default()
        });
        assert!(out.files.iter().any(|(_, f)| f == a.name()), "{a:?}");
    }
    for a in fams.app {
        let out = run(Force {
            app: Some(*a),
            ..Force::default()
        });
        assert!(out.files.iter().any(|(_, f)| f == a.name()), "{a:?}");
    }
    for m in fams.metrics {
        let out = run(Force {
            metrics: Some(*m),
            ..Force::default()
        });
        assert!(out.files.iter().any(|(_, f)| f == m.name()), "{m:?}");
    }
    for e in fams.events {
        let out = run(Force {
            events: Some(vec![*e]),
            ..Force::default()
        });
        assert!(out.files.iter().any(|(_, f)| f == e.name()), "{e:?}");
    }
    for e in fams.envelopes {
        let out = run(Force {
            envelope: Some(Some(*e)),
            ..Force::default()
        });
        assert_eq!(
            out.plan
                .sources
                .iter()
                .find(|s| s.kind == "app")
                .and_then(|s| s.details.get("envelope"))
                .map(String::as_str),
            Some(e.name())
        );
    }
    for p in fams.naming {
        let out = run(Force {
            naming: Some(p),
            ..Force::default()
        });
        assert_eq!(out.plan.platform, p.name());
    }
}

#[test]
fn every_change_is_written_somewhere() {
    let w = fixture::world();
    let d = tmp("changes");
    for seed in 0..10 {
        let out = write(&w, &mut Rng::new(seed), &d, &Force::default()).expect("write");
        assert_eq!(out.plan.changes.len(), w.changes.len());
        assert!(
            out.plan.changes.iter().all(|c| !c.written_to.is_empty()),
            "seed {seed}"
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}

#[test]
fn zoneless_local_time_asks_for_input_tz() {
    let w = fixture::world();
    let d = tmp("tz");
    let f = Force {
        app: Some(AppFamily::PythonText),
        naming: Some(Platform::Vm),
        zone: Some("Asia/Kolkata"),
        ..Force::default()
    };
    let mut seen = false;
    for seed in 0..12 {
        let out = write(&w, &mut Rng::new(seed), &d, &f).expect("write");
        if out.plan.zoneless_zone == "Asia/Kolkata" {
            seen = true;
            let i = out
                .analyze_args
                .iter()
                .position(|a| a == "--input-tz")
                .expect("--input-tz");
            assert_eq!(out.analyze_args[i + 1], "Asia/Kolkata");
        } else {
            assert!(!out.analyze_args.contains(&"--input-tz".to_string()));
        }
        let _ = std::fs::remove_dir_all(&d);
    }
    assert!(seen);
}

#[test]
fn a_header_tenant_needs_tenant_from() {
    let w = fixture::world();
    let d = tmp("hdr");
    let f = Force {
        access: Some(AccessFamily::TraefikJson),
        tenant: Some(TenantPlace::Header("X-Tenant-ID".into())),
        ..Force::default()
    };
    let out = write(&w, &mut Rng::new(4), &d, &f).expect("write");
    assert_eq!(
        out.analyze_args[..2],
        [
            "--tenant-from".to_string(),
            "header:X-Tenant-ID".to_string()
        ]
    );
    let body = std::fs::read(d.join(&out.files[0].0)).expect("access file");
    let body = if out.files[0].0.ends_with(".gz") {
        use std::io::Read;
        let mut s = vec![];
        flate2::read::GzDecoder::new(&body[..])
            .read_to_end(&mut s)
            .expect("gunzip");
        s
    } else {
        body
    };
    assert!(String::from_utf8_lossy(&body).contains("\"request_X-Tenant-Id\":\"acct-4411\""));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn different_names_are_linked() {
    let w = fixture::world();
    let d = tmp("links");
    for seed in 0..30 {
        let out = write(&w, &mut Rng::new(seed), &d, &Force::default()).expect("write");
        assert!(
            out.plan.unlinked.is_empty(),
            "seed {seed}: {:?}",
            out.plan.unlinked
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}

/// The access file's records: lines, or the elements of gcloud's JSON array.
fn access_records(d: &Path, out: &Written) -> Vec<String> {
    let (name, _) = out
        .files
        .iter()
        .find(|(_, f)| AccessFamily::ALL.iter().any(|a| a.name() == f))
        .expect("access file");
    let bytes = std::fs::read(d.join(name)).expect("read");
    let text = if name.ends_with(".gz") {
        use std::io::Read;
        let mut s = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut s)
            .expect("gunzip");
        s
    } else {
        String::from_utf8(bytes).expect("utf-8")
    };
    if text.starts_with("[\n") {
        let v: Vec<serde_json::Value> = serde_json::from_str(&text).expect("json array");
        v.iter().map(|x| x.to_string()).collect()
    } else {
        text.lines().map(str::to_string).collect()
    }
}

#[test]
fn every_access_family_writes_each_logged_request_once_with_health_checks_where_logged() {
    use crate::gen::facts::{Failure, ReqKind};
    let w = fixture::world();
    let d = tmp("access-all");
    for fam in AccessFamily::ALL {
        for seed in 0..3 {
            let out = write(
                &w,
                &mut Rng::new(seed),
                &d,
                &Force {
                    access: Some(*fam),
                    ..Force::default()
                },
            )
            .expect("write");
            let recs = access_records(&d, &out);
            let want = w
                .requests
                .iter()
                .filter(|r| r.kind != ReqKind::HealthCheck || fam.logs_health_checks())
                .filter(|r| {
                    *fam != AccessFamily::JsonAccess
                        || (r.instance.is_some() && r.failure != Some(Failure::UpstreamReset))
                })
                .count();
            assert_eq!(recs.len(), want, "{fam:?} seed {seed}");
            let health = recs.iter().filter(|l| l.contains("/health")).count();
            assert_eq!(health > 0, fam.logs_health_checks(), "{fam:?}");
            let _ = std::fs::remove_dir_all(&d);
        }
    }
}

#[test]
fn nginx_lines_are_in_end_time_order() {
    let w = fixture::world();
    let d = tmp("nginx-order");
    let out = write(
        &w,
        &mut Rng::new(1),
        &d,
        &Force {
            access: Some(AccessFamily::NginxTimed),
            skew: Some(false),
            ..Force::default()
        },
    )
    .expect("write");
    let recs = access_records(&d, &out);
    let stamps: Vec<String> = recs
        .iter()
        .filter_map(|l| {
            l.split_once('[')
                .and_then(|(_, r)| r.split_once(']'))
                .map(|(t, _)| t[12..20].to_string())
        })
        .collect();
    assert_eq!(stamps.len(), recs.len());
    assert!(
        stamps.windows(2).all(|p| p[0] <= p[1]),
        "lines follow the end of each request"
    );
    let _ = std::fs::remove_dir_all(&d);
}
