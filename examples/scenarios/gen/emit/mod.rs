//! The writers: a simulated World -> the files an engineer would export after the incident.

pub mod access;
pub mod app;
pub mod ctx;
pub mod envelope;
pub mod events;
pub mod family;
#[cfg(test)]
pub mod fixture;
pub mod json;
pub mod metrics;
pub mod plan;
pub mod tenant;
