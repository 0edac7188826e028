//! Records without a time of their own (snapshots, plain scrapes) are
//! parsed, never skipped, and counted with the reason; snapshots summed
//! over rows give their last capture at the end of the input.

use serde_json::Value;

use super::fixture::{run, scratch_file, ScratchFile};

fn tmp(name: &str, content: &str) -> ScratchFile {
    scratch_file(name, content)
}

#[test]
fn a_pool_table_without_a_capture_time_is_parsed_and_counted_as_unplaced() {
    let p = tmp(
        "pools.txt",
        "pgbouncer=# show pools;\n \
         database | user | cl_active | cl_waiting | sv_active | pool_mode\n\
         ----------+------+-----------+------------+-----------+-----------\n \
         orders   | app  |       412 |        388 |        80 | transaction\n\
         (1 row)\n",
    );
    let (code, out, err) = run(&["formats", "check", "--json", p.arg()]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(out.trim()).expect("json");
    assert_eq!(v["format"], "pgbouncer_show");
    assert_eq!(v["skipped"], 0, "{v}");
    assert_eq!(v["parsed"], 5, "{v}");
    let unplaced = v["unplaced_by_reason"].as_object().expect("reasons");
    assert_eq!(
        unplaced.values().filter_map(Value::as_u64).sum::<u64>(),
        1,
        "{v}"
    );

    let (code, report, err) = run(&["analyze", p.arg()]);
    assert_eq!(code, 0, "{err}");
    assert!(report.contains("not on the timeline"), "{report}");
}

#[test]
fn the_last_pg_stat_activity_capture_is_counted_at_the_end_of_the_input() {
    let p = tmp(
        "activity.csv",
        "captured_at,datname,pid,usename,state,backend_type\n\
         2026-10-01 07:58:00+00,orders,4242,app,active,client backend\n\
         2026-10-01 07:58:00+00,orders,4243,app,idle,client backend\n\
         2026-10-01 07:58:05+00,orders,4242,app,active,client backend\n",
    );
    let (code, out, err) = run(&["formats", "check", "--fields", p.arg()]);
    assert_eq!(code, 0, "{err}");
    let totals: Vec<(String, String)> = out
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["fields"]["series"] == "pg_stat_activity_count")
        .map(|r| {
            (
                r["fields"]["ts"].as_str().unwrap_or("").to_string(),
                r["fields"]["value"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        totals,
        [
            ("2026-10-01 07:58:00+00:00".to_string(), "2".to_string()),
            ("2026-10-01 07:58:05+00:00".to_string(), "1".to_string()),
        ]
    );
}
