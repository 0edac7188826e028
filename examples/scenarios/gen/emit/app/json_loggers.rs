//! JSON-lines loggers, each as its library writes a record (key order, time form, level
//! form, where the exception goes).
//!
//! Followed, field by field:
//! - ecs-logging-java: corpus `json_ecs.jsonl` L1-L3 (its odd spacing: `"log.level": "INFO"`
//!   right-aligns the level in five characters; `"@timestamp"` UTC with milliseconds);
//! - logstash-logback-encoder: its documented standard fields (`@timestamp` in the JVM zone
//!   with offset, `@version`, `logger_name`, `thread_name`, `level_value`, `stack_trace`);
//! - python-json-logger: corpus `json_python_json_logger.jsonl` (`json.dumps` separators,
//!   ASCII escapes) with the `%(asctime)s %(levelname)s %(name)s %(message)s` fields;
//! - structlog `JSONRenderer` + `TimeStamper(fmt="iso")`: corpus `json_structlog.jsonl` L2;
//! - logrus `JSONFormatter`: corpus `json_logrus.jsonl` (keys sorted; default time RFC 3339
//!   at second precision in the local zone);
//! - zap production: corpus `json_zap.jsonl` plus zap's encoder order (`level`, `ts` epoch
//!   seconds, `logger`, `caller`, `msg`, fields, `stacktrace`);
//! - pino: corpus `json_pino.jsonl` L1 (numeric level, epoch-ms `time`, `pid`, `hostname`;
//!   `msg` last as pino 7+ writes it; errors under `err`);
//! - bunyan: corpus `json_bunyan.jsonl` L1-L2 (`name`, `hostname`, `pid`, `level`, fields,
//!   `msg`, `time`, `v`).

use super::{level_num, level_word, numeric_key, Rec};
use crate::gen::emit::family::AppFamily;
use crate::gen::emit::json::{self, quote, Esc, J};
use crate::gen::time::{self, OffsetStyle};

fn kv_value(k: &str, v: &str) -> J {
    if numeric_key(k) && v.parse::<f64>().is_ok() {
        J::Num(v.to_string())
    } else {
        J::s(v)
    }
}

fn kv(r: &Rec) -> Vec<(String, J)> {
    r.log
        .kv
        .iter()
        .map(|(k, v)| (k.clone(), kv_value(k, v)))
        .collect()
}

/// `java.sql.X: message` -> (`java.sql.X`, `message`).
fn exception_parts(stack: &str) -> (String, String) {
    let first = stack.lines().next().unwrap_or("");
    match first.split_once(": ") {
        Some((t, m)) => (t.to_string(), m.to_string()),
        None => (first.to_string(), String::new()),
    }
}

pub fn ecs(r: &Rec) -> Vec<String> {
    let l = r.log;
    let level = level_word(AppFamily::EcsJson, l.level);
    // ecs-logging-java writes this prefix by hand, with its own spacing.
    let mut s = format!(
        "{{\"@timestamp\":{}, \"log.level\":{:>7}, \"message\":{}, \"ecs.version\": \"1.2.0\",\"service.name\":{},\"event.dataset\":{},\"process.thread.name\":{},\"log.logger\":{}",
        quote(&time::rfc3339(r.t, 0, 3, OffsetStyle::ZOrColon), Esc::Plain),
        quote(level, Esc::Plain),
        quote(&l.msg, Esc::Plain),
        quote(r.service, Esc::Plain),
        quote(&format!("{}.log", r.service), Esc::Plain),
        quote(&l.thread, Esc::Plain),
        quote(&l.logger, Esc::Plain),
    );
    for (k, v) in kv(r) {
        s.push_str(&format!(
            ",{}:{}",
            quote(&k, Esc::Plain),
            json::to_string(&v, &json::COMPACT)
        ));
    }
    if let Some(st) = &l.stack {
        let (t, m) = exception_parts(st);
        s.push_str(&format!(
            ",\"error.type\":{},\"error.message\":{},\"error.stack_trace\":{}",
            quote(&t, Esc::Plain),
            quote(&m, Esc::Plain),
            quote(st, Esc::Plain)
        ));
    }
    s.push('}');
    vec![s]
}

pub fn logstash(r: &Rec) -> Vec<String> {
    let l = r.log;
    let value = match l.level {
        crate::gen::facts::Level::Debug => 10_000,
        crate::gen::facts::Level::Info => 20_000,
        crate::gen::facts::Level::Warn => 30_000,
        _ => 40_000,
    };
    let mut o: Vec<(String, J)> = vec![
        (
            "@timestamp".into(),
            J::s(time::rfc3339(r.t, r.off, 3, OffsetStyle::ZOrColon)),
        ),
        ("@version".into(), J::s("1")),
        ("message".into(), J::s(&l.msg)),
        ("logger_name".into(), J::s(&l.logger)),
        ("thread_name".into(), J::s(&l.thread)),
        (
            "level".into(),
            J::s(level_word(AppFamily::LogstashJson, l.level)),
        ),
        ("level_value".into(), J::n(value)),
    ];
    if let Some(st) = &l.stack {
        o.push(("stack_trace".into(), J::s(st)));
    }
    o.push(("HOSTNAME".into(), J::s(r.me)));
    o.extend(kv(r));
    vec![json::to_string(&J::Obj(o), &json::COMPACT)]
}

pub fn python_json(r: &Rec) -> Vec<String> {
    let l = r.log;
    let mut o: Vec<(String, J)> = vec![
        (
            "asctime".into(),
            J::s(time::local_plain(r.t, r.off, '-', ' ', ',', 3)),
        ),
        (
            "levelname".into(),
            J::s(level_word(AppFamily::PythonJson, l.level)),
        ),
        ("name".into(), J::s(&l.logger)),
        ("message".into(), J::s(&l.msg)),
    ];
    o.extend(kv(r));
    if let Some(st) = &l.stack {
        o.push(("exc_info".into(), J::s(st)));
    }
    vec![json::to_string(&J::Obj(o), &json::PY)]
}

pub fn structlog(r: &Rec) -> Vec<String> {
    let l = r.log;
    let mut o = kv(r);
    o.push(("event".into(), J::s(&l.msg)));
    if !l.logger.is_empty() {
        o.push(("logger".into(), J::s(&l.logger)));
    }
    o.push((
        "level".into(),
        J::s(level_word(AppFamily::Structlog, l.level)),
    ));
    let ns = r.t * 1_000_000 + (r.log.ts.rem_euclid(7) * 111_000);
    o.push((
        "timestamp".into(),
        J::s(time::rfc3339_ns(ns, 0, 6, false, OffsetStyle::ZOrColon)),
    ));
    if let Some(st) = &l.stack {
        o.push(("exception".into(), J::s(st)));
    }
    vec![json::to_string(&J::Obj(o), &json::PY)]
}

/// Go programs print a panic's goroutine dump raw on stderr, after the last log line.
fn raw_stack(r: &Rec) -> Vec<String> {
    r.log
        .stack
        .as_deref()
        .map(|s| s.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

pub fn logrus(r: &Rec) -> Vec<String> {
    let l = r.log;
    let mut o = kv(r);
    o.push(("level".into(), J::s(level_word(AppFamily::Logrus, l.level))));
    o.push(("msg".into(), J::s(&l.msg)));
    o.push((
        "time".into(),
        J::s(time::rfc3339(r.t, r.off, 0, OffsetStyle::ZOrColon)),
    ));
    o.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = vec![json::to_string(&J::Obj(o), &json::GO)];
    out.extend(raw_stack(r));
    out
}

/// Epoch seconds as a float64, printed as Go's `strconv.FormatFloat(f, 'f', -1, 64)` prints
/// zap's time (shortest digits that round-trip: about seven fraction digits).
fn epoch_s_ns(ns: i64) -> String {
    json::go_float(ns as f64 / 1e9)
}

/// `caller` as zap prints it, from the logger's last component.
fn caller(logger: &str, ts: i64) -> String {
    let pkg = logger
        .rsplit(['.', '/'])
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or("main");
    format!("{pkg}/{pkg}.go:{}", 40 + ts.rem_euclid(160))
}

pub fn zap(r: &Rec) -> Vec<String> {
    let l = r.log;
    let ns = r.t * 1_000_000 + r.log.ts.rem_euclid(997) * 1_003;
    let mut o: Vec<(String, J)> = vec![
        ("level".into(), J::s(level_word(AppFamily::Zap, l.level))),
        ("ts".into(), J::Num(epoch_s_ns(ns))),
    ];
    if !l.logger.is_empty() {
        o.push(("logger".into(), J::s(&l.logger)));
    }
    o.push(("caller".into(), J::s(caller(&l.logger, l.ts))));
    o.push(("msg".into(), J::s(&l.msg)));
    o.extend(kv(r));
    if let Some(st) = &l.stack {
        o.push(("stacktrace".into(), J::s(st)));
    }
    vec![json::to_string(&J::Obj(o), &json::COMPACT)]
}

/// A Node error object (`err`) from a stack whose first line is `Type: message`.
fn node_err(stack: &str) -> J {
    let (t, m) = exception_parts(stack);
    J::obj(vec![
        (
            "type",
            J::s(if t.contains(' ') {
                "Error".to_string()
            } else {
                t
            }),
        ),
        ("message", J::s(m)),
        ("stack", J::s(stack)),
    ])
}

pub fn pino(r: &Rec) -> Vec<String> {
    let l = r.log;
    let mut o: Vec<(String, J)> = vec![
        ("level".into(), J::n(level_num(l.level))),
        ("time".into(), J::n(r.t)),
        ("pid".into(), J::n(r.pid)),
        ("hostname".into(), J::s(r.me)),
    ];
    o.extend(kv(r));
    if let Some(st) = &l.stack {
        o.push(("err".into(), node_err(st)));
    }
    o.push(("msg".into(), J::s(&l.msg)));
    vec![json::to_string(&J::Obj(o), &json::COMPACT)]
}

pub fn bunyan(r: &Rec) -> Vec<String> {
    let l = r.log;
    let mut o: Vec<(String, J)> = vec![
        ("name".into(), J::s(r.service)),
        ("hostname".into(), J::s(r.me)),
        ("pid".into(), J::n(r.pid)),
        ("level".into(), J::n(level_num(l.level))),
    ];
    o.extend(kv(r));
    if let Some(st) = &l.stack {
        o.push(("err".into(), node_err(st)));
    }
    o.push(("msg".into(), J::s(&l.msg)));
    o.push((
        "time".into(),
        J::s(time::rfc3339(r.t, 0, 3, OffsetStyle::ZOrColon)),
    ));
    o.push(("v".into(), J::n(0)));
    vec![json::to_string(&J::Obj(o), &json::COMPACT)]
}
