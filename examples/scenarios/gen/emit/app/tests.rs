//! Each app family on the fixture: every record present, JSON valid, stack traces intact,
//! layouts and listen lines as chosen.

use super::*;
use crate::gen::emit::fixture;
use crate::gen::time;

fn choice(fam: AppFamily, layout: Layout, envelope: Option<Envelope>, listen: bool) -> AppChoice {
    AppChoice {
        fam,
        envelope,
        layout,
        listen,
    }
}

fn stack_len(w: &World) -> usize {
    w.logs
        .iter()
        .filter_map(|l| l.stack.as_ref())
        .map(|s| s.lines().count())
        .sum()
}

#[test]
fn every_family_writes_every_record_with_its_stack() {
    let w = fixture::world();
    let ctx = fixture::ctx(&w);
    for fam in AppFamily::ALL {
        let out = write(
            &ctx,
            &choice(*fam, Layout::Merged, None, false),
            fixture::clock(0),
            &mut Rng::new(1),
        );
        assert_eq!(out.files.len(), 1);
        let body = String::from_utf8(out.files[0].body.clone()).expect("utf-8");
        let n = body.lines().count();
        let json = !matches!(
            fam,
            AppFamily::SpringText
                | AppFamily::PythonText
                | AppFamily::GoLog
                | AppFamily::Rails
                | AppFamily::Logfmt
        );
        // Go's JSON loggers (but zap) print a panic's stack raw, like the text loggers.
        let raw_stack = !json || matches!(fam, AppFamily::Logrus);
        let want = w.logs.len() + if raw_stack { stack_len(&w) } else { 0 };
        assert_eq!(n, want, "{fam:?}");
        if json {
            let parsed = body
                .lines()
                .filter(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
                .count();
            assert_eq!(parsed, w.logs.len(), "{fam:?}");
            assert!(
                body.contains("HikariPool.createTimeoutException"),
                "{fam:?} keeps the stack"
            );
        } else {
            assert!(body.lines().any(|l| l.ends_with("at com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:696)")), "{fam:?}");
        }
    }
}

#[test]
fn times_read_back_on_the_apps_clock() {
    let w = fixture::world();
    let zone = time::ZONES[1];
    let ctx = fixture::ctx_with(&w, Platform::Vm, zone);
    let clock = Clock {
        zone,
        skew_ms: 1_500,
    };
    let first = &w.logs[0];
    let t = first.ts + 1_500;
    let cases = [
        (
            AppFamily::PythonText,
            time::local_plain(t, zone.offset_ms(t), '-', ' ', ',', 3),
        ),
        (
            AppFamily::SpringText,
            time::local_plain(t, zone.offset_ms(t), '-', ' ', '.', 3),
        ),
        (AppFamily::Pino, format!("\"time\":{t}")),
        (
            AppFamily::Bunyan,
            format!(
                "\"time\":\"{}\"",
                time::rfc3339(t, 0, 3, time::OffsetStyle::ZOrColon)
            ),
        ),
        (
            AppFamily::LogstashJson,
            format!(
                "\"@timestamp\":\"{}\"",
                time::rfc3339(t, zone.offset_ms(t), 3, time::OffsetStyle::ZOrColon)
            ),
        ),
    ];
    for (fam, want) in cases {
        let out = write(
            &ctx,
            &choice(fam, Layout::PerInstance, None, false),
            clock,
            &mut Rng::new(1),
        );
        let f = out
            .files
            .iter()
            .find(|f| f.name.contains(&w.instances[first.instance].host))
            .expect("file of the first line's host");
        let body = String::from_utf8(f.body.clone()).expect("utf-8");
        assert!(
            body.lines().next().is_some_and(|l| l.contains(&want)),
            "{fam:?}: {want} not in {}",
            body.lines().next().unwrap_or("")
        );
    }
}

#[test]
fn kubectl_layout_keeps_the_current_and_previous_process() {
    let w = fixture::world();
    let ctx = fixture::ctx(&w);
    let out = write(
        &ctx,
        &choice(AppFamily::SpringText, Layout::Kubectl, None, false),
        fixture::clock(0),
        &mut Rng::new(1),
    );
    let names: Vec<&str> = out.files.iter().map(|f| f.name.as_str()).collect();
    assert!(names.contains(&"logs/api-7c9d8b6f5-m8vzt.log"), "{names:?}");
    assert!(
        names.contains(&"logs/api-7c9d8b6f5-m8vzt.previous.log"),
        "{names:?}"
    );
    assert_eq!(
        out.files.iter().map(|f| f.records).sum::<usize>(),
        w.logs.len() + stack_len(&w)
    );
}

#[test]
fn listen_lines_name_each_process_address() {
    let w = fixture::world();
    let ctx = fixture::ctx(&w);
    for fam in [
        AppFamily::LogstashJson,
        AppFamily::Pino,
        AppFamily::Zap,
        AppFamily::PythonText,
        AppFamily::Rails,
    ] {
        let out = write(
            &ctx,
            &choice(fam, Layout::PerInstance, None, true),
            fixture::clock(0),
            &mut Rng::new(1),
        );
        for (i, inst) in w.instances.iter().enumerate() {
            let f = out
                .files
                .iter()
                .find(|f| f.name.contains(&inst.pod))
                .expect("file per pod");
            let body = String::from_utf8(f.body.clone()).expect("utf-8");
            let addr = format!("{}:{}", inst.ip, inst.port);
            assert_eq!(
                body.matches(&addr).count(),
                inst.lives.len(),
                "{fam:?} instance {i}"
            );
        }
    }
}

#[test]
fn language_is_read_from_the_loggers() {
    let w = fixture::world();
    assert_eq!(infer_lang(&w), Lang::Java);
    assert_eq!(infer_lang(&World::default()), Lang::Unknown);
    assert!(families_for(Lang::Node)
        .iter()
        .all(|f| f.lang() == Lang::Node));
}
