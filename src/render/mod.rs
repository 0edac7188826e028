//! Rendering: the only code that writes output. The [`Report`] in, Markdown,
//! JSON or a terminal table out, and with `--assets` the charts as SVG files.
//!
//! ```text
//! Report { incident: { found: true, .. }, .. } -> "# Incident on 2026-10-01: ...\n\n## Summary\n..."
//! ```

pub mod assets;
pub mod chart_text;
pub mod json;
pub mod markdown;
pub mod mermaid;
pub mod svg;
pub mod table;
pub mod templates;
pub mod time;

pub use crate::report::Report;
