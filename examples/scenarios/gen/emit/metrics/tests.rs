//! Metrics families on the fixture: names, labels, units, links and round trips.

use super::*;
use crate::gen::emit::fixture;
use crate::gen::emit::json;

fn body(f: &OutFile) -> String {
    String::from_utf8(f.body.clone()).expect("utf-8")
}

#[test]
fn prometheus_range_results_carry_instance_and_pod() {
    let w = fixture::world();
    let ctx = fixture::ctx(&w);
    let out = write(
        &ctx,
        MetricsFamily::PromRange,
        fixture::clock(0),
        &mut Rng::new(3),
    );
    assert!(!out.files.is_empty());
    let mut seen_active = false;
    for f in &out.files {
        for line in body(f).lines() {
            let j: serde_json::Value = serde_json::from_str(line).expect("json");
            assert_eq!(j["data"]["resultType"], "matrix");
            for r in j["data"]["result"].as_array().into_iter().flatten() {
                if r["metric"]["__name__"] == "hikaricp_connections_active" {
                    seen_active = true;
                    assert!(r["metric"]["instance"]
                        .as_str()
                        .is_some_and(|s| s.starts_with("10.42.")));
                    assert!(r["metric"]["pod"]
                        .as_str()
                        .is_some_and(|s| s.starts_with("api-")));
                }
                for v in r["values"].as_array().into_iter().flatten() {
                    assert!(v[0].is_number() && v[1].is_string(), "{v}");
                }
            }
        }
    }
    assert!(seen_active);
    assert_eq!(out.links.len(), 1);
    assert_eq!(out.links[0].instances, w.instances.len());
}

#[test]
fn exposition_lines_have_value_and_millisecond_timestamp() {
    let w = fixture::world();
    let ctx = fixture::ctx(&w);
    let out = write(
        &ctx,
        MetricsFamily::PromText,
        fixture::clock(2_000),
        &mut Rng::new(3),
    );
    let text = body(&out.files[0]);
    let mut n = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let parts: Vec<&str> = line.rsplitn(3, ' ').collect();
        let ts: i64 = parts[0].parse().expect("timestamp");
        assert!(ts >= w.start + 2_000 && ts < w.end + 2_000, "{line}");
        assert!(parts[1].parse::<f64>().is_ok(), "{line}");
        n += 1;
    }
    assert_eq!(n, out.files[0].records);
    assert!(text.contains(
        "kube_pod_container_status_restarts_total{container=\"api\",instance=\"10.42.0."
    ));
}

#[test]
fn cloudwatch_is_newest_first_per_minute() {
    let w = fixture::world();
    let ctx = fixture::ctx(&w);
    let out = write(
        &ctx,
        MetricsFamily::CloudWatch,
        fixture::clock(0),
        &mut Rng::new(3),
    );
    let j: serde_json::Value = serde_json::from_str(&body(&out.files[0])).expect("json");
    let results = j["MetricDataResults"].as_array().expect("results");
    assert!(!results.is_empty());
    for r in results {
        let ts: Vec<&str> = r["Timestamps"]
            .as_array()
            .expect("ts")
            .iter()
            .filter_map(|t| t.as_str())
            .collect();
        assert!(ts.windows(2).all(|p| p[0] > p[1]), "descending");
        assert!(ts.iter().all(|t| t.ends_with(":00+00:00")));
        assert_eq!(ts.len(), r["Values"].as_array().map(Vec::len).unwrap_or(0));
    }
}

#[test]
fn datadog_groups_by_pod_and_rolls_up() {
    let w = fixture::world();
    let ctx = fixture::ctx(&w);
    let out = write(
        &ctx,
        MetricsFamily::Datadog,
        fixture::clock(0),
        &mut Rng::new(3),
    );
    for f in &out.files {
        let j: serde_json::Value = serde_json::from_str(&body(f)).expect("json");
        assert_eq!(j["status"], "ok");
        for s in j["series"].as_array().into_iter().flatten() {
            assert_eq!(s["interval"], 20);
            let pl = s["pointlist"].as_array().expect("points");
            assert_eq!(pl.len() as u64, s["length"].as_u64().unwrap_or(0));
            assert!(pl.windows(2).all(|p| p[0][0].as_f64() < p[1][0].as_f64()));
        }
    }
}

#[test]
fn csv_exports_hold_every_point() {
    let w = fixture::world();
    let ctx = fixture::ctx(&w);
    for seed in 0..4 {
        let out = write(
            &ctx,
            MetricsFamily::Csv,
            fixture::clock(0),
            &mut Rng::new(seed),
        );
        let rows = body(&out.files[0])
            .lines()
            .filter(|l| !l.starts_with("timestamp,"))
            .count();
        assert_eq!(rows, out.files[0].records);
        let g = write(
            &ctx,
            MetricsFamily::GrafanaCsv,
            fixture::clock(0),
            &mut Rng::new(seed),
        );
        for f in &g.files {
            let b = body(f);
            assert!(!b.ends_with('\n') && b.starts_with("\"Time\","));
            let cols = b
                .split("\r\n")
                .next()
                .map(|h| h.split("\",\"").count())
                .unwrap_or(0);
            assert!(
                b.split("\r\n")
                    .skip(1)
                    .all(|r| r.split(',').count() == cols),
                "{}",
                f.name
            );
        }
    }
}

#[test]
fn vm_prometheus_ties_addresses_to_host_names() {
    let w = fixture::world();
    let ctx = fixture::ctx_with(&w, Platform::Vm, crate::gen::time::UTC);
    let out = write(
        &ctx,
        MetricsFamily::PromText,
        fixture::clock(0),
        &mut Rng::new(3),
    );
    assert!(body(&out.files[0]).contains("node_uname_info{domainname=\"(none)\",instance=\"10.42."));
    assert_eq!(out.links.first().map(|l| l.b), Some("host"));
    let _ = json::COMPACT;
}
