//! Property tests of the two template compilers: a line written from a
//! random PostgreSQL `log_line_prefix` (`pg_prefix.rs`), or from a random
//! nginx `log_format` (`template.rs`), is read back with the values it was
//! written with. Failures are kept by proptest under `proptest-regressions/`
//! and replayed first on the next run.

use proptest::prelude::*;

use super::compile::Pattern;
use super::pg_prefix::compile;
use super::role::Role;
use super::template::Template;

/// One escape of a generated prefix and the text it wrote.
#[derive(Clone, Debug)]
struct Esc {
    letter: char,
    value: String,
}

fn word() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_]{0,7}"
}

fn ipv4() -> impl Strategy<Value = String> {
    (1u8..=254, 0u8..=255, 0u8..=255, 1u8..=254).prop_map(|(a, b, c, d)| format!("{a}.{b}.{c}.{d}"))
}

/// A wall-clock time and a zone as PostgreSQL writes them.
fn clock() -> impl Strategy<Value = String> {
    (
        2000u32..2040,
        1u32..=12,
        1u32..=28,
        0u32..24,
        0u32..60,
        0u32..60,
    )
        .prop_map(|(y, mo, d, h, mi, s)| format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}"))
}

fn zone() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["UTC", "PDT", "CEST", "+03", "-0330"])
}

/// The value an escape writes, shaped as PostgreSQL writes it.
fn value_of(letter: char) -> BoxedStrategy<String> {
    match letter {
        't' => (clock(), zone())
            .prop_map(|(c, z)| format!("{c} {z}"))
            .boxed(),
        'm' => (clock(), 0u32..1000, zone())
            .prop_map(|(c, ms, z)| format!("{c}.{ms:03} {z}"))
            .boxed(),
        'n' => (1_000_000_000u64..2_000_000_000, 0u32..1000)
            .prop_map(|(s, ms)| format!("{s}.{ms:03}"))
            .boxed(),
        'p' | 'l' | 'x' => (1u32..100_000).prop_map(|n| n.to_string()).boxed(),
        'u' | 'd' | 'a' => word().boxed(),
        'h' => ipv4().boxed(),
        'r' => (ipv4(), 1024u32..65536)
            .prop_map(|(ip, p)| format!("{ip}({p})"))
            .boxed(),
        'c' => ("[0-9a-f]{8}", "[0-9a-f]{1,5}")
            .prop_map(|(a, b)| format!("{a}.{b}"))
            .boxed(),
        'e' => "[0-9A-Z]{5}".boxed(),
        'v' => (1u32..64, 1u32..100_000)
            .prop_map(|(a, b)| format!("{a}/{b}"))
            .boxed(),
        _ => Just(String::new()).boxed(),
    }
}

/// Literal text between escapes: punctuation a value never holds.
fn separator() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        " ", " [", "] ", "@", ":", ",", "|", " user=", ",db=", "]: [", "-", " {",
    ])
}

/// A prefix: a time stamp escape, then up to five other escapes, each
/// letter at most once (a role written twice reads as its last), between
/// separators; `%q` maybe before one of them.
fn prefix() -> impl Strategy<Value = (Vec<(String, Esc)>, String, Option<usize>)> {
    let others = prop::sample::subsequence(
        vec!['p', 'l', 'u', 'd', 'a', 'h', 'c', 'e', 'v', 'x'],
        0..=5,
    )
    .prop_shuffle();
    (
        prop::sample::select(vec!['t', 'm', 'n']),
        others,
        any::<bool>(),
    )
        .prop_flat_map(|(ts, mut others, remote)| {
            // `%r` and `%h` both fill the client: one of them.
            if remote {
                if let Some(h) = others.iter_mut().find(|c| **c == 'h') {
                    *h = 'r';
                }
            }
            let letters: Vec<char> = std::iter::once(ts).chain(others).collect();
            let n = letters.len();
            let escs: Vec<BoxedStrategy<(String, Esc)>> = letters
                .into_iter()
                .enumerate()
                .map(|(i, letter)| {
                    let sep = if i == 0 {
                        Just("").boxed()
                    } else {
                        separator().boxed()
                    };
                    (sep, value_of(letter))
                        .prop_map(move |(s, value)| (s.to_string(), Esc { letter, value }))
                        .boxed()
                })
                .collect();
            let end = prop::sample::select(vec![" ", ": ", "] ", ":"]);
            let stop = prop::option::of(1..n.max(2));
            (escs, end.prop_map(str::to_string), stop)
        })
}

/// The prefix, and what it writes for a session (`full`) or for a
/// background process, which stops at `%q` (written before escape `stop`).
fn render(escs: &[(String, Esc)], end: &str, stop: Option<usize>, full: bool) -> (String, String) {
    let mut prefix = String::new();
    let mut line = String::new();
    let mut cut = false;
    for (i, (sep, e)) in escs.iter().enumerate() {
        if stop == Some(i) {
            prefix.push_str("%q");
            cut = !full;
        }
        prefix.push_str(sep);
        prefix.push('%');
        prefix.push(e.letter);
        if !cut {
            line.push_str(sep);
            line.push_str(&e.value);
        }
    }
    prefix.push_str(end);
    if !cut {
        line.push_str(end);
    }
    (prefix, line)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_line_from_a_random_log_line_prefix_reads_back(
        (escs, end, stop) in prefix(),
        full in any::<bool>(),
        message in "[a-zA-Z0-9 ,.:()\"=]{0,40}",
    ) {
        let (prefix_full, line_prefix) = render(&escs, &end, stop, full);
        let written = escs
            .iter()
            .enumerate()
            .filter(|(i, _)| full || stop.is_none_or(|s| *i < s))
            .map(|(_, (_, e))| e.clone())
            .collect::<Vec<_>>();
        let line = format!("{line_prefix}ERROR:  {message}");
        let source = compile(&prefix_full).map_err(TestCaseError::fail)?;
        let pattern = Pattern::compile(&source)
            .map_err(|_| TestCaseError::fail(format!("{prefix_full} does not compile")))?;
        let fields = pattern.read(&line);
        prop_assert!(fields.is_some(), "{prefix_full:?} does not read {line:?}");
        let fields = fields.unwrap_or_default();
        let of = |letters: &[char]| written.iter().find(|e| letters.contains(&e.letter)).map(|e| e.value.as_str());
        prop_assert_eq!(fields.get(Role::Ts), of(&['t', 'm', 'n']), "{:?} / {:?}", prefix_full, line);
        prop_assert_eq!(fields.get(Role::User), of(&['u']), "{:?} / {:?}", prefix_full, line);
        prop_assert_eq!(fields.get(Role::Client), of(&['h', 'r']), "{:?} / {:?}", prefix_full, line);
        prop_assert_eq!(fields.get(Role::Level), Some("ERROR"));
        prop_assert_eq!(fields.get(Role::Message), Some(message.trim_start()));
    }
}

/// An nginx variable, how the template writes it, and a value.
fn nginx_var() -> impl Strategy<Value = (&'static str, Option<Role>, String)> {
    prop_oneof![
        ipv4().prop_map(|v| ("$remote_addr", Some(Role::Client), v)),
        word().prop_map(|v| ("$remote_user", Some(Role::User), v)),
        "(GET|POST|PUT) /[a-z0-9/]{0,20}(\\?[a-z]=[0-9]{1,3})? HTTP/1\\.[01]".prop_map(|v| (
            "\"$request\"",
            Some(Role::Request),
            v
        )),
        "[1-5][0-9][0-9]".prop_map(|v| ("$status", Some(Role::Status), v)),
        "[0-9]{1,7}".prop_map(|v| ("$body_bytes_sent", Some(Role::Bytes), v)),
        "[0-9]{1,3}\\.[0-9]{3}".prop_map(|v| ("$request_time", Some(Role::Duration), v)),
        "[a-zA-Z/0-9.;() ]{1,30}".prop_map(|v| ("\"$http_user_agent\"", Some(Role::UserAgent), v)),
        (ipv4(), 1024u32..65536).prop_map(|(ip, p)| (
            "$upstream_addr",
            Some(Role::Instance),
            format!("{ip}:{p}")
        )),
        "[0-9a-f]{16}".prop_map(|v| ("$request_id", Some(Role::RequestId), v)),
        "[a-z]{1,8}".prop_map(|v| ("$host", None, v)),
    ]
}

fn nginx_time() -> impl Strategy<Value = (&'static str, String)> {
    prop_oneof![
        (1u32..=28, 0u32..24, 0u32..60).prop_map(|(d, h, m)| (
            "[$time_local]",
            format!("{d:02}/Oct/2026:{h:02}:{m:02}:07 +0530")
        )),
        (1u32..=28, 0u32..24, 0u32..60).prop_map(|(d, h, m)| (
            "$time_iso8601",
            format!("2026-10-{d:02}T{h:02}:{m:02}:07+00:00")
        )),
        (1_700_000_000u64..1_900_000_000, 0u32..1000)
            .prop_map(|(s, ms)| ("$msec", format!("{s}.{ms:03}"))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_line_from_a_random_nginx_log_format_reads_back(
        vars in prop::collection::vec(nginx_var(), 0..6),
        (time_var, time_value) in nginx_time(),
        at in 0usize..6,
        seps in prop::collection::vec(prop::sample::select(vec![" ", " - ", " | ", " ; "]), 7),
    ) {
        // Each variable once: a role written twice reads as its last.
        let mut seen = std::collections::BTreeSet::new();
        let mut vars: Vec<_> = vars.into_iter().filter(|(name, _, _)| seen.insert(*name)).collect();
        vars.insert(at.min(vars.len()), (time_var, Some(Role::Ts), time_value));
        let mut template = String::new();
        let mut line = String::new();
        for (i, (name, _, value)) in vars.iter().enumerate() {
            if i > 0 {
                template.push_str(seps[i]);
                line.push_str(seps[i]);
            }
            template.push_str(name);
            // The variable's own brackets or quotes, around its value.
            let (open, close) = match name.as_bytes().first() {
                Some(b'[') => ("[", "]"),
                Some(b'"') => ("\"", "\""),
                _ => ("", ""),
            };
            line.push_str(open);
            line.push_str(value);
            line.push_str(close);
        }
        let t = Template::compile(&template).map_err(TestCaseError::fail)?;
        let fields = t.match_line(&line);
        prop_assert!(fields.is_some(), "{template:?} does not read {line:?}");
        let fields = fields.unwrap_or_default();
        for (name, role, value) in &vars {
            if let Some(role) = role {
                prop_assert_eq!(fields.get(*role), Some(value.as_str()), "{} in {:?} / {:?}", name, template, line);
            }
        }
    }
}
