//! Tests of the parse driver: inputs read whole, formats detected, records handed on.

use super::*;
use crate::event::InfraKind;
use std::io::Cursor;

fn run(text: &str) -> (InputStats, Vec<Event<'static>>) {
    let cat = Catalogue::builtin().expect("catalogue");
    let input = Input::from_reader("t".into(), Box::new(Cursor::new(text.as_bytes().to_vec())))
        .expect("input");
    let mut events = Vec::new();
    let stats = parse_input(input, 0, &cat, &ParseOptions::default(), &mut events).expect("parse");
    (stats, events)
}

#[test]
fn every_line_is_accounted_for() {
    let text = "203.0.113.7 - - [01/Oct/2026:13:26:55 +0530] \"GET /a HTTP/1.1\" 200 5 \"-\" \"curl/8\"\n\
                \n\
                garbage here\n\
                203.0.113.7 - - [01/Oct/2026:13:26:56 +0530] \"GET /b HTTP/1.1\" 500 5 \"-\" \"curl/8\"\n";
    let (stats, events) = run(text);
    assert_eq!(stats.lines, 4);
    assert_eq!(stats.parsed, 2);
    assert_eq!(stats.skipped, 2);
    assert_eq!(stats.lines, stats.parsed + stats.skipped);
    assert_eq!(stats.skipped_by_reason.get("blank line"), Some(&1));
    assert_eq!(events.len(), 2);
}

#[test]
fn an_export_with_nothing_in_it_is_counted_not_refused() {
    let text = "{\n    \"apiVersion\": \"v1\",\n    \"items\": [],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n";
    let (stats, events) = run(text);
    assert_eq!(stats.format, "empty export");
    assert_eq!(stats.lines, 8);
    assert_eq!(stats.skipped, stats.lines);
    assert!(events.is_empty());
    assert!(holds_no_records("[]"));
    assert!(holds_no_records(
        r#"{"status":"success","data":{"resultType":"matrix","result":[]}}"#
    ));
    assert!(!holds_no_records(r#"{"status":"success"}"#));
    assert!(!holds_no_records(r#"{"items":[{"a":1}]}"#));
}

#[test]
fn an_unknown_format_is_a_diagnostic_not_a_panic() {
    let cat = Catalogue::builtin().expect("catalogue");
    let input = Input::from_reader(
        "x".into(),
        Box::new(Cursor::new(b"%%% nothing like a log\n".to_vec())),
    )
    .expect("input");
    let err = parse_input(
        input,
        0,
        &cat,
        &ParseOptions::default(),
        &mut crate::event::Discard,
    )
    .expect_err("unknown");
    assert!(matches!(err, ParseError::UnknownFormat { .. }));
}

/// Regression: zap's example logger writes no timestamp; such records
/// were skipped as "no timestamp field" and the input was not detected.
#[test]
fn records_without_a_time_are_read_and_counted_without_an_event() {
    let text = "{\"level\":\"info\",\"msg\":\"worker started\"}\n\
                {\"level\":\"error\",\"msg\":\"pool exhausted\",\"ts\":\"-\"}\n\
                {\"level\":\"info\",\"msg\":\"tick\",\"ts\":1790841415.5}\n";
    let (stats, events) = run(text);
    assert_eq!(stats.format, "json_lines");
    assert_eq!((stats.lines, stats.parsed, stats.skipped), (3, 3, 0));
    assert_eq!(stats.unplaced_by_reason.get("no timestamp"), Some(&1));
    assert_eq!(
        stats.unplaced_by_reason.get("placeholder timestamp"),
        Some(&1)
    );
    assert_eq!(events.len(), 1);
}

/// The change sources' own samples: what kind of change each record is,
/// and no creator's e-mail survives parsing.
#[test]
fn change_sources_give_deploys_rollbacks_and_flag_changes() {
    let cat = Catalogue::builtin().expect("catalogue");
    // (format, kinds of the first sample's records)
    let cases = [
        (
            "helm_history",
            vec![InfraKind::Deploy, InfraKind::Deploy, InfraKind::Rollback],
        ),
        (
            "argocd_application",
            vec![InfraKind::Deploy, InfraKind::Deploy, InfraKind::Rollback],
        ),
        ("github_deployments", vec![InfraKind::Deploy]),
        ("github_deployment_statuses", vec![InfraKind::Deploy]),
        ("launchdarkly_audit_log", vec![InfraKind::FlagChange]),
        ("unleash_events", vec![InfraKind::FlagChange]),
    ];
    for (name, want) in cases {
        let f = &cat.formats[cat.find(name).expect(name)];
        let text = format!("{}\n", f.def.samples[0].line);
        let input = Input::from_reader("t".into(), Box::new(Cursor::new(text.into_bytes())))
            .expect("input");
        let mut events: Vec<Event> = Vec::new();
        let stats =
            parse_input(input, 0, &cat, &ParseOptions::default(), &mut events).expect("parse");
        assert_eq!(stats.format, name);
        let got: Vec<InfraKind> = events
            .iter()
            .filter_map(|e| match e {
                Event::Infra(i) => {
                    assert!(!i.message.contains('@'), "{name}: {}", i.message);
                    Some(i.kind)
                }
                _ => None,
            })
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

/// A JSON logger's record inside an envelope signals what its message and
/// error detail say, never what its time says: `23:48:24,429` is no 429.
#[test]
fn an_enveloped_json_record_signals_by_its_message_and_error_detail() {
    let inner = |msg: &str, extra: &str| {
        serde_json::json!({
            "asctime": "2025-05-03 23:48:24,429",
            "levelname": "ERROR",
            "name": "db",
            "message": msg,
            "exc_info": extra,
        })
        .to_string()
    };
    let doc = serde_json::json!({"events": [
        {"logStreamName": "app/core/046022de", "timestamp": 1746316104429_i64,
         "message": inner("request failed", "")},
        {"logStreamName": "app/core/046022de", "timestamp": 1746316105000_i64,
         "message": inner("request failed", "sqlalchemy.exc.TimeoutError: QueuePool limit of size 5 overflow 10 reached, connection timed out, timeout 30.00")},
        {"logStreamName": "app/core/046022de", "timestamp": 1746316106000_i64,
         "message": inner("failed to acquire connection from pool: context deadline exceeded", "")},
    ]});
    let (stats, events) = run(&doc.to_string());
    assert_eq!(stats.skipped, 0);
    let signals: Vec<Option<crate::event::Signal>> = events
        .iter()
        .filter_map(|e| match e {
            Event::Log(l) => Some(l.signal),
            _ => None,
        })
        .collect();
    use crate::event::Signal::PoolExhausted;
    assert_eq!(
        signals,
        vec![None, Some(PoolExhausted), Some(PoolExhausted)]
    );
}

/// `--tenant-from query:org` reads a structured access record whose query
/// string is a field of its own beside the path.
#[test]
fn a_query_rule_reads_a_query_kept_apart_from_the_path() {
    let mut cat = Catalogue::builtin().expect("catalogue");
    cat.rules.tenant_query_rules = vec!["org".to_string()];
    let line = r#"{"time":"2025-07-11T15:42:13.002Z","level":"INFO","msg":"request","method":"GET","path":"/v2/projects/1301343","query":"org=tyrell-co&page=2","status":200,"duration_ms":62.8,"user_agent":"datasync/2.1","request_id":"6fc85ca747153bcbe29847137b3fb05a"}"#;
    let text = format!("{line}\n{line}\n");
    let input =
        Input::from_reader("t".into(), Box::new(Cursor::new(text.into_bytes()))).expect("input");
    let mut events: Vec<Event<'static>> = Vec::new();
    parse_input(input, 0, &cat, &ParseOptions::default(), &mut events).expect("parse");
    let tenants: Vec<Option<&str>> = events
        .iter()
        .filter_map(|e| match e {
            Event::Request(r) => Some(r.tenant.as_deref()),
            _ => None,
        })
        .collect();
    assert!(!tenants.is_empty(), "{events:?}");
    assert!(
        tenants.iter().all(|t| *t == Some("tyrell-co")),
        "{tenants:?}"
    );
}

/// An ALB writes a WebSocket's line when the upgraded connection closes:
/// the request began when it was received (`request_creation_time`), not
/// its processing time before the close. Another request keeps its end
/// stamp less its processing time.
#[test]
fn a_websocket_behind_an_alb_starts_when_it_was_received() {
    let line = |status: &str, scheme: &str| {
        format!(
            "{scheme} 2026-10-01T07:58:06.421733Z app/prod-api/6c1f9e2b7a3d4e58 203.0.113.41:51834 10.0.12.7:8080 0.000 0.108 0.000 {status} {status} 812 0 \"GET https://api.example.com:443/ws HTTP/1.1\" \"Mozilla/5.0\" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:eu-west-1:111122223333:targetgroup/prod-api/9f3b1c2d4e5a6b7c \"Root=1-66fb9a1e-3c5d7e9f1a2b4c6d8e0f1a2b\" \"api.example.com\" \"-\" 10 2026-10-01T07:54:06.419000Z \"forward\" \"-\" \"-\" \"10.0.12.7:8080\" \"-\" \"-\" \"-\""
        )
    };
    let text = [line("101", "wss"), line("200", "https")].join("\n");
    let (stats, events) = run(&text);
    assert_eq!(stats.skipped, 0);
    let starts: Vec<(i64, i64)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Request(r) => Some((r.ts, r.end_ts)),
            _ => None,
        })
        .collect();
    let received = 1_790_841_246_419; // 2026-10-01T07:54:06.419Z
    let answered = 1_790_841_486_421; // 2026-10-01T07:58:06.421733Z, to the millisecond
    assert_eq!(
        starts,
        [(received, received + 108), (answered - 108, answered)]
    );
}

/// An ALB's 460 is its client closing the connection before the answer:
/// nginx's 499, a failure where the client had waited (a stuck target's
/// callers giving up after 10 s), not a 4xx of the caller's making.
#[test]
fn an_alb_460_is_a_client_that_gave_up() {
    let line = "https 2026-10-06T04:22:17.205548Z app/gateway-api-prod-alb/6a7e5258ed5fc986 198.51.100.101:60125 10.42.3.26:3000 0.000 -1 -1 460 - 0 475 \"GET https://api.example.com:443/api/v1/accounts/a1/invoices HTTP/1.1\" \"okhttp/4.12.0\" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:us-west-2:111122223333:targetgroup/api-tg/2b750ead1b89ac31 \"Root=1-6ac4776f-08a714a5aca9581c4974f7c3\" \"api.example.com\" \"-\" 14 2026-10-06T04:22:07.205905Z \"forward\" \"-\" \"-\" \"10.42.3.26:3000\" \"-\" \"-\" \"-\"";
    let (stats, events) = run(line);
    assert_eq!(stats.skipped, 0);
    let Some(Event::Request(r)) = events.first() else {
        panic!("a request: {events:?}");
    };
    assert_eq!(r.status, Some(499));
    assert_eq!(r.duration_ms.map(|d| d.round()), Some(10_000.0));
    assert!(r.failed());
}
