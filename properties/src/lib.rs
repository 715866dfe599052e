#![recursion_limit = "512"]
//! # webmcp-properties
//!
//! The property catalogues of webmcp-check and their binding to the engine
//! ([`webmcp_checker`]): the draft's catalogue ([`catalogue`]) and its driver ([`driver`]),
//! the legacy proposal's catalogue and its driver ([`legacy`]). Both profiles are checked by
//! the same engine; what is WebMCP-specific about a check (the catalogue, step IDs on every
//! action, symmetry between interchangeable tabs) is here.
//!
//! Also here: what explores the draft for other ends than verdicts ([`coverage`],
//! [`mutants`]) and the measurements of `webmcp-check bench` ([`bench`](mod@bench)).

pub mod bench;
pub mod catalogue;
pub mod coverage;
pub mod driver;
pub mod legacy;
pub mod mutants;
pub mod questions;
pub mod vacuity;

/// The engine's bounds, stops and memory readings ([`webmcp_checker::limits`]).
pub use webmcp_checker::limits;
/// The engine's pool of worker threads for independent checks ([`webmcp_checker::pool`]).
pub use webmcp_checker::pool as parallel;

pub use catalogue::{Kind, PropertyDef};
pub use driver::{
    check, check_with_progress, paths_stand, properties, CheckOptions, FrontierStorage, Mode,
    PathFault, Progress, PropertyResult, Reduction, ScenarioResult, TraceStep, Verdict,
};
pub use limits::StopReason;
