//! The scenario generator as a library, shared by `examples/scenarios` (writes one draw),
//! `examples/accuracy` (draws many and checks `postmortem` against each truth) and the
//! integration tests (a fixed set of draws).
//!
//! One way: scenario parameters (drawn from a seed) -> `sim` (a [`facts::World`]) -> `emit`
//! (files in real formats) and `truth` (measured from the world, never typed in).

#![allow(dead_code)]

pub mod emit;
pub mod facts;
pub mod people;
pub mod rng;
pub mod routes;
pub mod sim;
pub mod stack;
pub mod scenarios;
pub mod time;
