//! Integration tests: the real binary on real files, in a fixed time zone.
//! Themed modules; snapshots under `snapshots/` are reviewed like code.

mod bad_input;
mod changes;
mod charts;
mod commands;
mod corpus;
mod envelopes;
mod families;
mod fixture;
mod patterns;
mod samples;
mod timeless;
