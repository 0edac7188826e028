//! Format definitions: load the data files under `parsers/`, compile them,
//! check their sample lines, and detect which one an input is written in.
//!
//! In: definition JSON (embedded at build time, or from `--formats-dir`) and
//! the first lines of each input. Out: a [`Catalogue`] of compiled
//! [`Format`]s with the [`Rules`], and a [`Detection`] per input.
//!
//! ```text
//! parsers/access/nginx_combined.json --load--> Definition --compile--> Format
//! head lines of access.log --detect--> Detection { format: nginx_combined, score: 1.0 }
//! ```

mod catalogue;
mod compile;
mod compose;
mod definition;
mod detect;
mod error;
pub mod generic;
mod input_names;
pub use input_names::InputNames;
mod kinds;
mod lazy_json;
mod mismatch;
mod pg_infer;
mod pg_prefix;
mod role;
mod rules;
pub mod scaling;
mod score;
pub mod stop_causes;
pub mod tabular;
mod template;
#[cfg(test)]
mod template_props;
mod versions;

pub use catalogue::{load_definition, Catalogue, CatalogueError};
pub use compile::{
    array_records, envelope_records, lookup, lookup_in, Fields, Format, KeySet, Record,
};
pub use definition::{
    Decode, Definition, DefinitionKind, DurationUnit, Produces, SkipRule, Stamped, TimestampMarks,
};
pub use detect::{detect, Detection, MIN_SCORE, MIN_SHARE};
pub use error::FormatError;
pub use kinds::{Extractor, Skip};
pub use lazy_json::LazyRecord;
pub use mismatch::Mismatch;
pub use role::Role;
pub use rules::{metric_role_named, Rules};
pub use score::{record_mode, RecordMode};
pub use versions::VersionRules;
