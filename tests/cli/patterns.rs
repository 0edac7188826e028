//! Patterns beyond the bundled scenarios, on small synthetic exports written
//! here: a gray failure (two stuck upstreams) and a crash loop.

use serde_json::Value;
use std::fmt::Write;
use std::fs;

use super::fixture::{run, scratch, Scratch};

fn dir(name: &str) -> Scratch {
    scratch(&format!("pat-{name}"))
}

fn clf_time(sec: u64) -> String {
    // 2026-10-01 07:00:00 UTC plus `sec`.
    let (h, m, s) = (7 + sec / 3600, (sec / 60) % 60, sec % 60);
    format!("01/Oct/2026:{h:02}:{m:02}:{s:02} +0000")
}

/// 20 minutes at 10 requests a second over five upstreams; from minute 10 to
/// 15 `stuck` upstreams answer 504 after 30 s or crawl.
fn access_log(stuck: &[usize]) -> String {
    fleet_log(|up, k, sec| {
        if (600..900).contains(&sec) && stuck.contains(&up) {
            if k % 2 == 0 {
                (504, "30.001".into())
            } else {
                (200, "8.500".into())
            }
        } else {
            (200, "0.040".into())
        }
    })
}

/// 20 minutes at 10 requests a second over five upstreams, each answered
/// as `answer(upstream, k, second)` says: (status, `$request_time`).
fn fleet_log(answer: impl Fn(usize, u64, u64) -> (u16, String)) -> String {
    let mut out = String::new();
    for sec in 0..1200u64 {
        for k in 0..10u64 {
            let up = ((sec * 10 + k) % 5) as usize;
            let (status, took) = answer(up, k, sec);
            let _ = writeln!(
                out,
                "192.0.2.{} - - [{}] \"GET /api/v1/accounts/acct-{}/runs/{} HTTP/1.1\" {status} 512 \"-\" \"client/{}\" {took} 10.0.0.{}:8080",
                k + 1,
                clf_time(sec),
                // Each tenant's requests spread over every upstream, as a
                // load balancer spreads them.
                (k + sec) % 7,
                sec,
                k % 3,
                up + 1
            );
        }
    }
    out
}

#[test]
fn two_stuck_upstreams_among_five_are_a_gray_failure_not_a_tenant_surge() {
    let d = dir("stuck");
    fs::write(d.join("access.log"), access_log(&[1, 3])).expect("write");
    let (code, out, err) = run(&["analyze", "--json", d.to_str().unwrap_or("")]);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(r["incident"]["found"], true);
    let findings = r["findings"].as_array().expect("findings");
    let stuck = findings
        .iter()
        .find(|f| f["pattern"] == "stuck_instance")
        .expect("stuck_instance found");
    assert!(stuck["confidence"].as_f64() >= Some(0.5), "{stuck}");
    let text = stuck["evidence"].to_string();
    assert!(
        text.contains("10.0.0.2:8080") && text.contains("10.0.0.4:8080"),
        "{text}"
    );
    assert!(
        !text.contains("10.0.0.1:8080"),
        "a healthy peer is not blamed: {text}"
    );
    assert!(!findings
        .iter()
        .any(|f| f["pattern"] == "tenant_surge" && f["confidence"].as_f64() > Some(0.5)));
}

/// A deploy at minute 5 replaced the whole fleet (upstreams .11-.15 before
/// it, .1-.5 after); from minute 10 one new upstream hangs while the four
/// new peers are fine. The deploy does not tell it apart from its peers:
/// it is a stuck instance, not the new version failing.
#[test]
fn one_of_a_new_fleet_hanging_while_its_new_peers_are_fine_is_stuck() {
    let d = dir("stuck-new-fleet");
    let log = access_log(&[1]);
    let log: String = log
        .lines()
        .enumerate()
        .map(|(i, l)| {
            // Ten lines a second: the first 300 s went to the old fleet.
            if i < 3000 {
                let cut = l.rfind(' ').map_or(l.len(), |p| p + 1);
                let up: usize = l[cut..]
                    .trim_start_matches("10.0.0.")
                    .trim_end_matches(":8080")
                    .parse()
                    .unwrap_or(1);
                format!("{}10.0.0.{}:8080\n", &l[..cut], up + 10)
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    fs::write(d.join("access.log"), log).expect("write");
    fs::write(
        d.join("deploys.log"),
        "2026-10-01T07:05:00Z deploy api v2.5.0 by ci\n",
    )
    .expect("write");
    let findings = findings_of(&d);
    assert!(
        confidence_of(&findings, "stuck_instance") >= 0.5,
        "{findings:?}"
    );
}

#[test]
fn one_slow_upstream_in_a_fleet_failing_together_is_not_stuck() {
    // From minute 10 every upstream times out on half its requests (504,
    // no time logged, as a load balancer logs a target timeout); the rest
    // take 2 s, and on upstream 3 for the last two minutes 40 s.
    let d = dir("fleet-failing");
    let log = fleet_log(|up, k, sec| match sec {
        600..=899 if k % 2 == 0 => (504, "-".into()),
        780..=899 if up == 2 => (200, "40.000".into()),
        600..=899 => (200, "2.000".into()),
        _ => (200, "0.040".into()),
    });
    fs::write(d.join("access.log"), log).expect("write");
    let findings = findings_of(&d);
    let stuck = confidence_of(&findings, "stuck_instance");
    assert!(
        stuck < 0.5,
        "peers failing as much are no healthy peers: {findings:?}"
    );
}

#[test]
fn a_pod_restarting_again_and_again_is_a_crash_loop() {
    let d = dir("crash");
    // Errors while the pod is down, so there is an incident to explain.
    fs::write(d.join("access.log"), access_log(&[0, 1, 2])).expect("write");
    let mut events = String::new();
    for (i, at) in [610u64, 680, 730, 765, 790].iter().enumerate() {
        for (reason, dt, msg) in [
            (
                "Killing",
                0,
                "Container api failed liveness probe, will be restarted",
            ),
            ("BackOff", 5, "Back-off restarting failed container api"),
            ("Started", 15, "Started container api"),
        ] {
            let t = at + dt;
            let ts = format!(
                "2026-10-01T{:02}:{:02}:{:02}Z",
                7 + t / 3600,
                (t / 60) % 60,
                t % 60
            );
            let _ = writeln!(
                events,
                "{}",
                serde_json::json!({"metadata": {"name": format!("api-0.{i}{reason}")}, "involvedObject": {"kind": "Pod", "name": "api-0"},
                    "reason": reason, "message": msg, "firstTimestamp": ts, "lastTimestamp": ts, "count": 1, "type": "Warning"})
            );
        }
    }
    fs::write(d.join("events.jsonl"), events).expect("write");
    let (code, out, err) = run(&["analyze", "--json", d.to_str().unwrap_or("")]);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).expect("json");
    let findings = r["findings"].as_array().expect("findings");
    let cl = findings
        .iter()
        .find(|f| f["pattern"] == "crash_loop")
        .expect("crash_loop found");
    assert!(cl["confidence"].as_f64() >= Some(0.5), "{cl}");
    assert_eq!(cl["subject"]["instance"], "api-0");
}

fn findings_of(d: &std::path::Path) -> Vec<Value> {
    let (code, out, err) = run(&["analyze", "--json", d.to_str().unwrap_or("")]);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(r["incident"]["found"], true, "{r}");
    r["findings"].as_array().cloned().unwrap_or_default()
}

fn confidence_of(findings: &[Value], pattern: &str) -> f64 {
    findings
        .iter()
        .find(|f| f["pattern"] == pattern)
        .and_then(|f| f["confidence"].as_f64())
        .unwrap_or(0.0)
}

#[test]
fn a_deploy_after_the_onset_is_a_red_herring_and_one_before_it_fixed_by_rollback_is_a_regression() {
    let d = dir("herring");
    fs::write(d.join("access.log"), access_log(&[1, 3])).expect("write");
    fs::write(
        d.join("deploys.log"),
        "2026-10-01T07:11:00Z deploy api v2.4.1 by ci\n",
    )
    .expect("write");
    let f = findings_of(&d);
    assert!(confidence_of(&f, "red_herring_deploy") >= 0.5, "{f:?}");
    assert!(confidence_of(&f, "deploy_regression") < 0.5, "{f:?}");

    let d = dir("regression");
    fs::write(d.join("access.log"), access_log(&[1, 3])).expect("write");
    fs::write(
        d.join("deploys.log"),
        "2026-10-01T07:05:00Z deploy api v2.4.1 by ci\n2026-10-01 07:14:40+00:00 rollback api to v2.4.0\n",
    )
    .expect("write");
    let f = findings_of(&d);
    assert!(confidence_of(&f, "deploy_regression") >= 0.5, "{f:?}");
    assert!(confidence_of(&f, "red_herring_deploy") < 0.5, "{f:?}");
}

/// Ten requests a second for 20 minutes; from minute 10 to 15 everyone's
/// take 1.5 s and a slow endpoint answers in 25 s, called by `hooks` (the
/// tenants that call it) every other second. With `quick`, the first of them
/// also sends five quick requests a second all along.
fn hog_export(name: &str, hooks: &[&str], quick: bool) -> Scratch {
    let d = dir(name);
    let mut out = String::new();
    for sec in 0..1200u64 {
        let incident = (600..900).contains(&sec);
        for k in 0..10u64 {
            let took = if incident { 1.5 } else { 0.040 };
            let _ = writeln!(
                out,
                "192.0.2.{} - - [{}] \"GET /api/v1/accounts/acct-{}/runs/{sec} HTTP/1.1\" 200 512 \"-\" \"client/1\" {took:.3} 10.0.0.{}:8080",
                k + 1,
                clf_time(sec),
                k % 7,
                k % 3 + 1
            );
        }
        if quick {
            for k in 0..5u64 {
                let _ = writeln!(
                    out,
                    "198.51.100.9 - - [{}] \"GET /api/v1/accounts/{}/items/{k} HTTP/1.1\" 200 64 \"-\" \"hook-relay/1.0\" 0.010 10.0.0.{}:8080",
                    clf_time(sec),
                    hooks[0],
                    k % 3 + 1
                );
            }
        }
        if incident && sec % 2 == 0 {
            let _ = writeln!(
                out,
                "198.51.100.9 - - [{}] \"POST /api/v1/accounts/{}/webhooks/relay HTTP/1.1\" 200 64 \"-\" \"hook-relay/1.0\" 25.000 10.0.0.1:8080",
                clf_time(sec),
                hooks[(sec / 2) as usize % hooks.len()]
            );
        }
    }
    fs::write(d.join("access.log"), out).expect("write");
    d
}

fn hog_of(d: &std::path::Path) -> Value {
    let f = findings_of(d);
    assert!(confidence_of(&f, "slow_request_hogging") >= 0.5, "{f:?}");
    f.iter()
        .find(|x| x["pattern"] == "slow_request_hogging")
        .cloned()
        .unwrap_or_default()
}

#[test]
fn few_slow_requests_holding_most_of_the_busy_time_are_hogging() {
    let hog = hog_of(&hog_export("hog", &["acct-hooks"], false));
    assert_eq!(hog["subject"]["tenant"], "acct-hooks");
}

/// A tenant whose slow requests to one endpoint held the servers, hidden
/// in its own figures by its many quick requests elsewhere, is still the
/// one named; an endpoint every caller shares names no tenant.
#[test]
fn the_tenant_behind_a_hogging_endpoint_is_named_and_a_shared_one_is_not() {
    let hog = hog_of(&hog_export("hog-mixed", &["acct-hooks"], true));
    assert_eq!(hog["subject"]["tenant"], "acct-hooks", "{hog}");
    assert!(
        hog["subject"]["endpoint"]
            .as_str()
            .is_some_and(|e| e.contains("webhooks")),
        "{hog}"
    );

    let hog = hog_of(&hog_export(
        "hog-shared",
        &["acct-a", "acct-b", "acct-c", "acct-d"],
        false,
    ));
    // Their one integration, or the endpoint: no tenant.
    assert_eq!(hog["subject"]["tenant"], Value::Null, "{hog}");
    assert!(
        hog["subject"]["integration"] == "hook-relay"
            || hog["subject"]["endpoint"]
                .as_str()
                .is_some_and(|e| e.contains("webhooks")),
        "{hog}"
    );
}

#[test]
fn a_dependency_limiting_after_the_onset_is_an_upstream_rate_limit() {
    let d = dir("ratelimit");
    fs::write(d.join("access.log"), access_log(&[0, 1])).expect("write");
    let mut app = String::new();
    for i in 0..40u64 {
        let t = 660 + i * 5;
        let _ = writeln!(
            app,
            "{}",
            serde_json::json!({"@timestamp": format!("2026-10-01T07:{:02}:{:02}Z", (t / 60) % 60, t % 60), "log.level": "WARN",
                "message": "OAuth login failed: GitHub API rate limit exceeded for installation", "host.hostname": format!("web-{}", i % 3)})
        );
    }
    fs::write(d.join("app.jsonl"), app).expect("write");
    let f = findings_of(&d);
    assert!(confidence_of(&f, "upstream_rate_limit") >= 0.5, "{f:?}");
}

#[test]
fn a_queue_that_fills_faster_than_it_drains_is_backlog_growth() {
    let d = dir("backlog");
    fs::write(d.join("access.log"), access_log(&[0, 1, 2])).expect("write");
    let mut prom = String::from("# TYPE sidekiq_queue_size gauge\n");
    for t in (0..1200u64).step_by(15) {
        let depth = if t < 600 {
            40 + t % 7
        } else if t < 900 {
            40 + (t - 600) * 20
        } else {
            (6040u64).saturating_sub((t - 900) * 30).max(45)
        };
        let _ = writeln!(
            prom,
            "sidekiq_queue_size{{queue=\"default\"}} {depth} {}",
            (1_790_838_000 + t) * 1000
        );
    }
    fs::write(d.join("queue.prom"), prom).expect("write");
    let f = findings_of(&d);
    assert!(confidence_of(&f, "backlog_growth") >= 0.5, "{f:?}");
}

/// 20 minutes of ten API requests a second (`status(sec, k)`) beside
/// `handshakes(sec)` websocket upgrades a second on `/cable`, each from its
/// own client, and whatever `more` writes each second.
fn websocket_log(
    status: impl Fn(u64, u64) -> u16,
    handshakes: impl Fn(u64) -> u64,
    more: impl Fn(u64, &mut String),
) -> String {
    let mut out = String::new();
    for sec in 0..1200u64 {
        for k in 0..10u64 {
            let _ = writeln!(
                out,
                "192.0.2.{} - - [{}] \"GET /api/v1/accounts/acct-{}/runs/{sec} HTTP/1.1\" {} 512 \"-\" \"client/1\" 0.040 10.0.0.{}:8080",
                k + 1,
                clf_time(sec),
                k % 7,
                status(sec, k),
                k % 3 + 1
            );
        }
        for h in 0..handshakes(sec) {
            let _ = writeln!(
                out,
                "198.51.{}.{} - - [{}] \"GET /cable HTTP/1.1\" 101 0 \"-\" \"Mozilla/5.0\" 0.002 10.0.0.1:8080",
                h % 200,
                sec % 250,
                clf_time(sec)
            );
        }
        more(sec, &mut out);
    }
    out
}

#[test]
fn clients_reconnecting_all_at_once_after_an_outage_are_a_thundering_herd() {
    let d = dir("herd");
    // Websocket handshakes: one a second as usual, thirty a second right
    // after the outage.
    let out = websocket_log(
        |sec, _| if (600..660).contains(&sec) { 502 } else { 200 },
        |sec| if (660..780).contains(&sec) { 30 } else { 1 },
        |sec, out| {
            // During the outage, a few logins where there are usually none:
            // a larger ratio to its usual rate (chosen by it, the herd was
            // these logins), but a handful of clients, not a herd.
            if (610..620).contains(&sec) {
                for k in 0..4 {
                    let _ = writeln!(
                        out,
                        "203.0.113.{} - - [{}] \"POST /login HTTP/1.1\" 200 0 \"-\" \"Mozilla/5.0\" 0.030 10.0.0.2:8080",
                        (sec * 4 + k) % 250,
                        clf_time(sec)
                    );
                }
            }
        },
    );
    fs::write(d.join("access.log"), out).expect("write");
    let f = findings_of(&d);
    assert!(confidence_of(&f, "thundering_herd") >= 0.5, "{f:?}");
    // The herd is the many clients on `/cable` right after the outage
    // (07:11:00), dated within the ten seconds its start is read from.
    let herd = f.iter().find(|x| x["pattern"] == "thundering_herd");
    let endpoint = herd.map(|x| x["subject"]["endpoint"].clone());
    assert_eq!(endpoint, Some(Value::from("/cable")), "{f:?}");
    let start = herd.and_then(|x| x["start"].as_str()).unwrap_or_default();
    assert!(
        ("2026-10-01T07:10:50Z"..="2026-10-01T07:11:10Z").contains(&start),
        "{start}"
    );
}

/// Seed 004's herd: a breaker opens inside a failing stretch, and every
/// websocket client reconnects at once. The storm is told with the breaker
/// (not "as the service came back": failures go on for two minutes after
/// it), and the opening and closing are on the timeline in their own words.
#[test]
fn a_storm_when_a_circuit_breaker_opened_is_told_with_it() {
    let d = dir("breaker-herd");
    let out = websocket_log(
        |sec, k| {
            if (600..780).contains(&sec) && k % 2 == 0 {
                503
            } else {
                200
            }
        },
        |sec| if (660..760).contains(&sec) { 30 } else { 1 },
        |_, _| {},
    );
    fs::write(d.join("access.log"), out).expect("write");
    let app = [
        (640, "CircuitBreaker 'db' changed state from CLOSED to OPEN"),
        (715, "CircuitBreaker 'db' changed state from OPEN to HALF_OPEN"),
        (716, "CircuitBreaker 'db' changed state from HALF_OPEN to CLOSED"),
    ]
    .iter()
    .map(|(sec, msg)| {
        format!(
            "{{\"@timestamp\":\"2026-10-01T07:{:02}:{:02}.000Z\",\"level\":\"WARN\",\"logger_name\":\"i.g.r.circuitbreaker.internal.CircuitBreakerStateMachine\",\"message\":\"{msg}\",\"host\":\"10.0.0.1\"}}\n",
            sec / 60,
            sec % 60
        )
    })
    .collect::<String>();
    fs::write(d.join("app.json"), app).expect("write");
    let (code, out, err) = run(&["analyze", "--json", d.to_str().unwrap_or("")]);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).expect("json");
    let findings = r["findings"].as_array().cloned().unwrap_or_default();
    let herd = findings.iter().find(|x| x["pattern"] == "thundering_herd");
    let title = herd.and_then(|x| x["title"].as_str()).unwrap_or_default();
    assert!(
        title.contains("after a circuit breaker opened"),
        "{findings:?}"
    );
    let kinds: Vec<(&str, &str)> = r["timeline"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| Some((e["kind"].as_str()?, e["ts"].as_str()?)))
        .filter(|(k, _)| k.starts_with("circuit"))
        .collect();
    assert_eq!(
        kinds,
        [
            ("circuit_opened", "2026-10-01T07:10:40Z"),
            ("circuit_closed", "2026-10-01T07:11:56Z")
        ],
        "{}",
        r["timeline"]
    );
}

/// Regression: a pool's routine state lines (HikariCP's pool stats every
/// 30 s, connections added) are in the pool-exhaustion family, but on a
/// healthy service they are no incident and no exhaustion; the same lines in
/// a burst, with the errors, are.
#[test]
fn a_pools_routine_state_lines_are_no_incident() {
    let d = dir("hikari-stats");
    fs::write(d.join("access.log"), access_log(&[])).expect("write");
    let mut app = String::new();
    for sec in (0..1200u64).step_by(30) {
        let _ = writeln!(
            app,
            "2026-10-01 07:{:02}:{:02}.000 DEBUG 4411 --- [l-1 housekeeper] com.zaxxer.hikari.pool.HikariPool : HikariPool-1 - Pool stats (total=10, active=2, idle=8, waiting=0)",
            sec / 60,
            sec % 60
        );
        if sec % 300 == 0 {
            let _ = writeln!(
                app,
                "2026-10-01 07:{:02}:{:02}.500 DEBUG 4411 --- [onnection adder] com.zaxxer.hikari.pool.HikariPool : HikariPool-1 - Added connection org.postgresql.jdbc.PgConnection@5e1f",
                sec / 60,
                sec % 60
            );
        }
    }
    fs::write(d.join("app.log"), app).expect("write");
    let (code, out, err) = run(&["analyze", "--json", d.to_str().unwrap_or("")]);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(r["incident"]["found"], false, "{}", r["timeline"]);
    let findings = r["findings"].as_array().expect("findings");
    assert!(
        !findings.iter().any(|f| f["pattern"] == "pool_exhaustion"),
        "{findings:?}"
    );
}

/// Pools at their maximum with requests waiting on all five servers while
/// their requests fail (minutes 10 to 15), and the kubelet's events: each
/// server's liveness probe failed `times` times from 07:10:31 on.
fn coupled_export(name: &str, times: u32) -> Scratch {
    probes_and_pool(name, times, true)
}

/// Probes failing `times` each on five servers, beside pools that saturate
/// in the same minutes (`hot`) or never do.
fn probes_and_pool(name: &str, times: u32, hot_pool: bool) -> Scratch {
    let d = dir(name);
    fs::write(d.join("access.log"), access_log(&[0, 1, 2, 3, 4])).expect("write");
    let mut prom = String::from(
        "# TYPE hikaricp_connections_active gauge\n# TYPE hikaricp_connections_max gauge\n# TYPE hikaricp_connections_pending gauge\n",
    );
    for i in 1..=5 {
        for t in (0..1200u64).step_by(15) {
            let hot = hot_pool && (600..900).contains(&t);
            let ms = (1_790_838_000 + t) * 1000;
            let inst = format!("instance=\"10.0.0.{i}:8080\",pool=\"HikariPool-1\"");
            let active = if hot { 20 } else { 3 + t % 4 };
            let pending = if hot { 40 } else { 0 };
            let _ = writeln!(prom, "hikaricp_connections_active{{{inst}}} {active} {ms}");
            let _ = writeln!(prom, "hikaricp_connections_max{{{inst}}} 20 {ms}");
            let _ = writeln!(
                prom,
                "hikaricp_connections_pending{{{inst}}} {pending} {ms}"
            );
        }
    }
    fs::write(d.join("pool.prom"), prom).expect("write");
    let items: Vec<Value> = (1..=5u32)
        .map(|i| {
            let first = 630 + u64::from(i);
            let last = first + u64::from(times - 1) * 10;
            let at = |s: u64| format!("2026-10-01T07:{:02}:{:02}Z", s / 60, s % 60);
            serde_json::json!({
                "kind": "Event",
                "type": "Warning",
                "reason": "Unhealthy",
                "message": format!("Liveness probe failed: Get \"http://10.0.0.{i}:8080/healthz\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)"),
                "involvedObject": {"kind": "Pod", "name": format!("api-{i}")},
                "count": times,
                "firstTimestamp": at(first),
                "lastTimestamp": at(last),
            })
        })
        .collect();
    let list = serde_json::json!({"kind": "List", "apiVersion": "v1", "items": items});
    fs::write(d.join("events.json"), list.to_string()).expect("write");
    d
}

/// A check bound to the exhausted pool fails again and again while it lasts;
/// one failed probe per server in a busy quarter hour is a timeout, and
/// calling it coupling would send the reader to rewrite health checks that
/// did nothing wrong.
#[test]
fn one_failed_probe_per_server_is_no_coupling_but_repeated_failures_are() {
    let once = findings_of(&coupled_export("hcc-once", 1));
    assert!(
        confidence_of(&once, "health_check_coupling") < 0.5,
        "{once:?}"
    );
    let again = findings_of(&coupled_export("hcc-again", 4));
    assert!(
        confidence_of(&again, "health_check_coupling") >= 0.5,
        "{again:?}"
    );
}

/// Checks that fail again and again while every pool reports with room to
/// spare failed on something else (a process too busy or crashing to
/// answer): coupling to a shared resource is not shown.
#[test]
fn failing_checks_beside_pools_that_never_saturated_are_no_coupling() {
    let cool = findings_of(&probes_and_pool("hcc-cool", 4, false));
    assert!(
        confidence_of(&cool, "health_check_coupling") < 0.5,
        "{cool:?}"
    );
}
