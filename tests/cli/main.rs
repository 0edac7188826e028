//! Integration tests: the real binary on real files, in a fixed time zone.
//! Themed modules; snapshots under `snapshots/` are reviewed like code.

// A test's helpers state their assumptions with expect: a failed one is a
// failed test, never a user's panic.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "test code: a failed expectation fails the test"
)]
// Helpers index the reports and tables the test just made: a miss fails the
// test. (`allow-indexing-slicing-in-tests` covers `#[test]` functions only.)
#![allow(
    clippy::indexing_slicing,
    reason = "test code: a failed expectation fails the test"
)]

mod bad_input;
mod changes;
mod charts;
mod commands;
mod corpus;
mod drafts;
mod envelopes;
mod families;
mod fixture;
mod flipped;
mod hostile;
mod instances;
mod log_requests;
// The scenario generator, shared with `examples/scenarios` and `examples/accuracy`.
#[path = "../../examples/scenarios/gen/mod.rs"]
mod gen;
mod patterns;
mod properties;
mod samples;
mod scenarios;
mod templates;
mod timeless;
