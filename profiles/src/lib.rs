#![recursion_limit = "512"]
//! # webmcp-profiles
//!
//! What binds each profile's property catalogue ([`webmcp_properties`]) to the engine
//! ([`webmcp_checker`]): the draft's driver ([`driver`]) and the legacy proposal's
//! ([`legacy`]). Both profiles are checked by the same engine; what is WebMCP-specific about
//! a check (step IDs on every action, symmetry between interchangeable tabs, the catalogue's
//! claims of what each property reads) is bound here, and the engine knows none of it.
//!
//! Also here: what explores the draft for other ends than verdicts ([`coverage`],
//! [`mutants`], [`questions`], [`vacuity`]) and the measurements of `webmcp-check bench`
//! ([`bench`](mod@bench)).

pub mod bench;
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
/// The draft's property catalogue ([`webmcp_properties::catalogue`]).
pub use webmcp_properties::catalogue;

pub use driver::{
    check, check_with_progress, paths_stand, properties, CheckOptions, FrontierStorage, Mode,
    PathFault, Progress, PropertyResult, Reduction, ScenarioResult, TraceStep, Verdict,
};
pub use limits::StopReason;
pub use webmcp_properties::{Kind, PropertyDef};
