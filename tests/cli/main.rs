//! Integration tests: the real binary on real files, in a fixed time zone.
//! Themed modules; snapshots under `snapshots/` are reviewed like code.

mod bad_input;
mod changes;
mod commands;
mod corpus;
mod envelopes;
mod fixture;
// The scenario generator, shared with `examples/scenarios` and `examples/accuracy`.
#[path = "../../examples/scenarios/gen/mod.rs"]
mod gen;
mod patterns;
mod samples;
mod scenarios;
mod timeless;
