//! The generic reader on the built-in vocabulary (`parsers/app/generic_log.json`):
//! each timestamp shape on its own example, the common layouts read whole,
//! decorations and continuation lines, and a property test that a line
//! written from a random shape, level and message reads back.

use chrono::{DateTime, Utc};
use proptest::prelude::*;

use super::*;
use crate::formats::{Catalogue, Format};
use crate::parse::TimeParser;
use crate::zone::Zone;

/// The built-in catalogue, compiled once for every case of the property test.
fn builtin() -> &'static Catalogue {
    static CAT: std::sync::OnceLock<Catalogue> = std::sync::OnceLock::new();
    CAT.get_or_init(|| Catalogue::builtin().expect("catalogue"))
}

fn generic_format(cat: &Catalogue) -> &Format {
    cat.formats
        .iter()
        .find(|f| f.generic.is_some())
        .expect("a generic definition")
}

fn spec(f: &Format) -> &GenericSpec {
    f.def.generic.as_ref().expect("its vocabulary")
}

fn rfc3339(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms)
        .expect("in range")
        .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

/// The time the generic reader finds in `line`, read by the definition's
/// time parser; a year-less time is read in the year of `context`.
fn time_of(f: &Format, line: &str, context: &str) -> Option<(String, String)> {
    let fields = f.generic.as_ref()?.read(line)?;
    let ts = fields.get(Role::Ts)?.to_string();
    let mut times = TimeParser::new(&f.def.timestamp_formats, Zone::Utc);
    times.parse(context)?;
    let ms = times.parse(&ts)?;
    Some((ts, rfc3339(ms)))
}

/// Every row of the table: its example's time is found, is read by this
/// shape (no row above it takes it first), and is the instant `utc` says.
#[test]
fn every_timestamp_shape_reads_its_example_at_its_time() {
    let cat = Catalogue::builtin().expect("catalogue");
    let f = generic_format(&cat);
    let g = f.generic.as_ref().expect("compiled");
    for (i, shape) in spec(f).timestamps.iter().enumerate() {
        let (ts, utc) = time_of(f, &shape.example, &shape.utc)
            .unwrap_or_else(|| panic!("{}: no time read in {:?}", shape.shape, shape.example));
        assert_eq!(
            g.shapes().which(&ts).map(|(j, _)| j),
            Some(i),
            "{}: {ts:?} is taken by another shape",
            shape.shape
        );
        assert_eq!(utc, shape.utc, "{}", shape.shape);
    }
}

/// Lines of the common layouts, read whole: (name, line, ts, level, message, instance).
#[test]
fn lines_of_the_common_layouts() {
    type Case = (
        &'static str,
        &'static str,
        &'static str,
        Option<&'static str>,
        &'static str,
        Option<&'static str>,
    );
    let cases: [Case; 9] = [
        (
            "log4j",
            "2015-07-29 19:04:29,071 - WARN  [SendWorker:188978561024:QuorumCnxManager$SendWorker@688] - Send worker leaving thread",
            "2015-07-29 19:04:29,071", Some("WARN"), "Send worker leaving thread", None,
        ),
        (
            "spark",
            "17/06/09 20:10:41 INFO spark.SecurityManager: Changing modify acls to: yarn,curi",
            "17/06/09 20:10:41", Some("INFO"), "Changing modify acls to: yarn,curi", None,
        ),
        (
            "go log",
            "2026/10/01 07:58:06 pool exhausted: 20 of 20 connections in use",
            "2026/10/01 07:58:06", None, "pool exhausted: 20 of 20 connections in use", None,
        ),
        (
            "monolog",
            "[2025-01-02 11:19:06] local.INFO: Page Access {\"path\":\"/\",\"host\":\"web-2\"} []",
            "2025-01-02 11:19:06", Some("INFO"), "Page Access", Some("web-2"),
        ),
        (
            "logfmt after the time",
            "2026-10-01T07:58:06Z level=warn msg=\"slow query\" pod=db-0 took=2.1s",
            "2026-10-01T07:58:06Z", Some("warn"), "slow query", Some("db-0"),
        ),
        (
            "json after the time",
            "2026-10-01T07:58:06Z {\"level\":\"error\",\"message\":\"upstream timed out\",\"hostname\":\"api-3\"}",
            "2026-10-01T07:58:06Z", Some("error"), "upstream timed out", Some("api-3"),
        ),
        (
            "bracketed epoch",
            "[1790841486] worker exited",
            "1790841486", None, "worker exited", None,
        ),
        (
            "redis after its role tag",
            "1:M 25 Apr 2024 05:32:35.022 * Ready to accept connections tcp",
            "25 Apr 2024 05:32:35.022", None, "* Ready to accept connections tcp", None,
        ),
        (
            "tomcat",
            "01-Oct-2026 07:58:06.113 SEVERE [main] org.apache.catalina.core.StandardContext.startInternal Context startup failed",
            "01-Oct-2026 07:58:06.113", Some("SEVERE"), "Context startup failed", None,
        ),
    ];
    let cat = Catalogue::builtin().expect("catalogue");
    let g = generic_format(&cat).generic.as_ref().expect("compiled");
    for (name, line, ts, level, message, instance) in cases {
        let f = g.read(line).unwrap_or_else(|| panic!("{name}: not read"));
        assert_eq!(
            (
                f.get(Role::Ts),
                f.get(Role::Level),
                f.get(Role::Message),
                f.get(Role::Instance)
            ),
            (Some(ts), level, Some(message), instance),
            "{name}"
        );
    }
}

/// Lines the generic reader leaves alone: no time near the start.
#[test]
fn lines_without_a_time_near_their_start_are_not_read() {
    let cat = Catalogue::builtin().expect("catalogue");
    let g = generic_format(&cat).generic.as_ref().expect("compiled");
    for line in [
        "GET /api/v1/accounts HTTP/1.1",
        "a b 2026-10-01T07:58:06Z too far in",
        "version 1790841486abc",
        "",
        "   at com.example.Api.handle(Api.java:42)",
    ] {
        assert!(g.read(line).is_none(), "{line:?}");
    }
}

/// Each decoration the vocabulary strips, and the line without it.
#[test]
fn decorations_are_stripped() {
    let cat = Catalogue::builtin().expect("catalogue");
    let g = generic_format(&cat).generic.as_ref().expect("compiled");
    let cases = [
        (
            "colour",
            "\u{1b}[31mERROR\u{1b}[0m pool exhausted",
            "ERROR pool exhausted",
        ),
        (
            "bold and colour",
            "\u{1b}[1m\u{1b}[33m09:24:04\u{1b}[0m x",
            "09:24:04 x",
        ),
        ("erase line", "\u{1b}[2Kweb-1  | ready", "web-1  | ready"),
        ("window title", "\u{1b}]0;api\u{7}started", "started"),
        ("charset", "\u{1b}(Bplain", "plain"),
        ("none", "plain line", "plain line"),
    ];
    for (name, line, want) in cases {
        assert_eq!(g.strip(line), want, "{name}");
        assert_eq!(g.decorated(line), line != want, "{name}");
    }
}

/// Lines that continue the record above, and lines that do not.
#[test]
fn continuation_lines_of_the_common_stack_traces() {
    let cat = Catalogue::builtin().expect("catalogue");
    let g = generic_format(&cat).generic.as_ref().expect("compiled");
    let continues = [
        "\tat com.example.Api.handle(Api.java:42)",
        "  File \"app.py\", line 3, in <module>",
        "Caused by: java.sql.SQLTransientConnectionException: HikariPool-1",
        "Traceback (most recent call last):",
        "java.lang.IllegalStateException: pool closed",
        "ValueError: bad input",
        "goroutine 1 [running]:",
        "go.opentelemetry.io/collector/exporter/exporterhelper/internal.NewQueueSender.func3",
        "#0 /var/www/html/vendor/Log/LogManager.php(140): tap('daily')",
        "[stacktrace]",
    ];
    for line in continues {
        assert!(g.continues(line), "{line:?}");
    }
    for line in [
        "2026-10-01 07:58:06 ERROR x",
        "GET / HTTP/1.1",
        "plain words here",
    ] {
        assert!(!g.continues(line), "{line:?}");
    }
}

/// How the property test writes each shape (chrono's strftime); a shape
/// added to the table needs a writer here.
fn writer(shape: &str) -> Option<&'static str> {
    Some(match shape {
        "iso8601" => "%Y-%m-%dT%H:%M:%S%.3fZ",
        "slash_ymd" => "%Y/%m/%d %H:%M:%S",
        "slash_yy" => "%y/%m/%d %H:%M:%S",
        "clf" => "[%d/%b/%Y:%H:%M:%S +0000]",
        "ctime" => "%a %b %e %H:%M:%S %Y",
        "syslog" => "%b %e %H:%M:%S",
        "java_util_logging" => "%b %d, %Y %-I:%M:%S %p",
        "tomcat" => "%d-%b-%Y %H:%M:%S%.3f",
        "day_month_year" => "%-d %b %Y %H:%M:%S%.3f",
        "dotted_dmy" => "%d.%m.%Y %H:%M:%S",
        "epoch" => "%s",
        _ => return None,
    })
}

#[test]
fn every_shape_has_a_writer_for_the_property_test() {
    let cat = Catalogue::builtin().expect("catalogue");
    for shape in &spec(generic_format(&cat)).timestamps {
        assert!(writer(&shape.shape).is_some(), "{}", shape.shape);
    }
}

/// A message the header cannot take for a level, pid, thread or logger:
/// plain lower-case words, the first not a level.
fn message() -> impl Strategy<Value = String> {
    proptest::collection::vec("[a-z]{2,8}", 1..6).prop_map(|words| format!("zz{}", words.join(" ")))
}

proptest! {
    /// A line written as `TIME [LEVEL] MESSAGE` (the level alone, in
    /// brackets, or after ` - `) reads back with its time, level and
    /// message. Times fall in 2001..2033, which every shape can say (a
    /// two-digit year, a ten-digit epoch).
    #[test]
    fn a_written_line_reads_back(
        shape in 0usize..64,
        secs in 1_000_000_000i64..2_000_000_000,
        millis in 0i64..1000,
        level in proptest::sample::select(vec!["INFO", "WARN", "ERROR", "debug", "error"]),
        layout in 0usize..3,
        text in message(),
    ) {
        let f = generic_format(builtin());
        let shapes = &spec(f).timestamps;
        let shape = &shapes[shape % shapes.len()];
        let write = writer(&shape.shape).expect("a writer");
        // Shapes without a fraction hold whole seconds.
        let ms = if write.contains("%.3f") { secs * 1000 + millis } else { secs * 1000 };
        let at = DateTime::<Utc>::from_timestamp_millis(ms).expect("in range");
        let time = at.format(write).to_string();
        let line = match layout {
            0 => format!("{time} {level} {text}"),
            1 => format!("{time} [{level}] {text}"),
            _ => format!("{time} - {level} - {text}"),
        };
        let fields = f.generic.as_ref().expect("compiled").read(&line);
        prop_assert!(fields.is_some(), "not read: {line:?}");
        let fields = fields.expect("read");
        prop_assert_eq!(fields.get(Role::Level), Some(level), "{:?}", line);
        prop_assert_eq!(fields.get(Role::Message), Some(text.as_str()), "{:?}", line);
        let ts = fields.get(Role::Ts).expect("a time").to_string();
        let mut times = TimeParser::new(&f.def.timestamp_formats, Zone::Utc);
        // A year-less time is read in the year of the time before it.
        times.parse(&rfc3339(ms));
        prop_assert_eq!(times.parse(&ts), Some(ms), "{:?} in {:?}", ts, line);
    }
}
