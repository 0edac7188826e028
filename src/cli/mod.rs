//! Command line: clap arguments (`args.rs`) resolved into a checked
//! configuration (`config.rs`). In: `std::env::args`. Out: a [`Command`] and,
//! for the analysing commands, a [`Config`].
//!
//! ```text
//! postmortem analyze --tz Asia/Kolkata samples/bulk-export -> Config { tz: Asia/Kolkata, input: { inputs: [samples/bulk-export] } }
//! ```

mod args;
mod config;
mod error;

pub use args::{AnalyzeArgs, Cli, Command, FormatsArgs, FormatsCommand, InputArgs, ReportArgs};
pub use config::{config, input_config, Config, InputConfig};
pub use error::CliError;
