//! Properties over generated input (proptest): timestamps read back to the
//! instant they were written from, in every form and offset; route folding
//! is stable; redaction leaves no secret and names each by the same hash;
//! and partial aggregates merged from any split of the events, in any
//! order, give the same report, byte for byte.

use postmortem::event::{Event, EventSink};
use postmortem::parse::{fold_route, TimeParser};
use postmortem::redact::{redact_text, short_hash};
use postmortem::zone::Zone;
use proptest::prelude::*;
use std::sync::OnceLock;

/// 2000-01-01 to 2037-12-31, in seconds.
const SPAN: std::ops::Range<i64> = 946_684_800..2_145_916_800;

fn iso(secs: i64, millis: i64, offset_min: i32) -> (String, String, String) {
    let offset = chrono::FixedOffset::east_opt(offset_min * 60).expect("offset in range");
    let t = chrono::DateTime::from_timestamp(secs, (millis * 1_000_000) as u32)
        .expect("in range")
        .with_timezone(&offset);
    (
        t.format("%Y-%m-%dT%H:%M:%S%.3f%:z").to_string(),
        t.format("%d/%b/%Y:%H:%M:%S %z").to_string(),
        t.format("%Y-%m-%d %H:%M:%S%.3f %z").to_string(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_time_written_in_any_form_and_offset_reads_back(
        secs in SPAN,
        millis in 0i64..1000,
        offset_min in (-12 * 60..=14 * 60).prop_map(|m: i32| m / 15 * 15),
    ) {
        let (rfc3339, clf, pg) = iso(secs, millis, offset_min);
        let mut t = TimeParser::new(&[], Zone::Utc);
        let want = secs * 1000 + millis;
        prop_assert_eq!(t.parse(&rfc3339), Some(want), "{}", rfc3339);
        prop_assert_eq!(t.parse(&clf), Some(secs * 1000), "{}", clf);
        prop_assert_eq!(t.parse(&pg), Some(want), "{}", pg);
        prop_assert_eq!(t.parse(&secs.to_string()), Some(secs * 1000));
        prop_assert_eq!(t.parse(&want.to_string()), Some(want));
    }

    #[test]
    fn any_text_is_a_time_or_none_and_the_same_twice(text in "\\PC{0,40}") {
        let mut t = TimeParser::new(&[], Zone::Utc);
        let once = t.parse(&text);
        let mut fresh = TimeParser::new(&[], Zone::Utc);
        prop_assert_eq!(fresh.parse(&text), once);
        prop_assert_eq!(t.parse(&text), once);
    }

    #[test]
    fn folding_a_folded_route_changes_nothing(path in "(/[a-zA-Z0-9._~%-]{0,12}){0,6}(\\?[a-z]=[0-9]{0,4})?") {
        let keys = vec!["accounts".to_string()];
        let once = fold_route(&path, &keys).into_owned();
        prop_assert_eq!(fold_route(&once, &keys).into_owned(), once.clone(), "{}", path);
    }

    #[test]
    fn ids_fold_to_one_route(a in 0u64..u64::MAX, b in 0u64..u64::MAX, tenant in "[a-z]{2,6}-[0-9]{1,6}") {
        let keys = vec!["accounts".to_string()];
        let one = fold_route(&format!("/api/v1/accounts/{tenant}/orders/{a}"), &keys).into_owned();
        let two = fold_route(&format!("/api/v1/accounts/x/orders/{b}?page=2"), &keys).into_owned();
        prop_assert_eq!(one, two);
    }

    #[test]
    fn redaction_leaves_no_secret_and_hashes_each_the_same(
        user in "[a-z][a-z0-9._]{1,10}",
        domain in "[a-z]{2,10}\\.(com|org|io)",
        token in "[A-Za-z0-9]{12,24}",
        before in "[ a-zA-Z]{0,20}",
    ) {
        let email = format!("{user}@{domain}");
        let text = format!("{before} user {email} sent api_key={token} twice: {email}");
        let out = redact_text(&text).into_owned();
        prop_assert!(!out.contains(&email), "{}", out);
        prop_assert!(!out.contains(&token), "{}", out);
        // Redacting again changes nothing more.
        prop_assert_eq!(redact_text(&out).into_owned(), out.clone());
        prop_assert_eq!(short_hash(&email), short_hash(&email.clone()));
    }
}

/// The events of a small incident: requests failing for a minute in the
/// middle of half an hour, and error logs during it, made once.
fn events() -> &'static Vec<Event<'static>> {
    static EVENTS: OnceLock<Vec<Event<'static>>> = OnceLock::new();
    EVENTS.get_or_init(|| {
        let mut text = String::new();
        for i in 0..1800u32 {
            let status = if (900..960).contains(&i) { 503 } else { 200 };
            text.push_str(&format!(
                "203.0.113.{} - - [01/Oct/2026:07:{:02}:{:02} +0000] \"GET /api/v1/accounts/acct-{}/items/{i} HTTP/1.1\" {status} 512 \"-\" \"curl/8\"\n",
                i % 200,
                i / 60,
                i % 60,
                i % 9
            ));
        }
        let cat = postmortem::formats::Catalogue::builtin().expect("catalogue");
        let input = postmortem::read::Input::from_reader(
            "access.log".into(),
            Box::new(std::io::Cursor::new(text.into_bytes())),
        )
        .expect("input");
        let mut out: Vec<Event<'static>> = Vec::new();
        postmortem::parse::parse_input(input, 0, &cat, &Default::default(), &mut out).expect("parse");
        out
    })
}

fn report_of(agg: postmortem::aggregate::Aggregates) -> String {
    let cat = postmortem::formats::Catalogue::builtin().expect("catalogue");
    let cfg = postmortem::cli::Config::default();
    let report = postmortem::analyse(&cat, &cfg, agg, &[]).expect("report");
    postmortem::render::json::render(&report)
}

fn whole() -> &'static String {
    static WHOLE: OnceLock<String> = OnceLock::new();
    WHOLE.get_or_init(|| {
        let mut agg = postmortem::aggregate::Aggregates::bounded(None, None);
        for e in events() {
            agg.push(e.clone());
        }
        report_of(agg)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn any_split_of_the_events_merges_to_the_same_report(
        mut cuts in proptest::collection::vec(0usize..1800, 0..6),
        order in Just(()).prop_perturb(|_, mut rng| rng.next_u64()),
    ) {
        let all = events();
        cuts.push(0);
        cuts.push(all.len());
        cuts.sort_unstable();
        let base = postmortem::aggregate::Aggregates::bounded(None, None);
        let mut parts: Vec<postmortem::aggregate::Aggregates> = cuts
            .windows(2)
            .map(|w| {
                let mut part = base.fork();
                for e in &all[w[0].min(all.len())..w[1].min(all.len())] {
                    part.push(e.clone());
                }
                part
            })
            .collect();
        // Joined in an order of the draw's own, as workers finish.
        let mut x = order | 1;
        for i in (1..parts.len()).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            parts.swap(i, (x % (i as u64 + 1)) as usize);
        }
        let mut agg = base;
        for p in parts {
            agg.join(p);
        }
        prop_assert_eq!(&report_of(agg), whole());
    }
}
