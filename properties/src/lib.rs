#![recursion_limit = "512"]
//! # webmcp-properties
//!
//! The property catalogue of webmcp-check ([`catalogue`]) and the driver that checks a
//! scenario with stateright's breadth-first search ([`driver`]).

pub mod bench;
mod bfs;
pub mod catalogue;
pub mod coverage;
pub mod driver;
pub mod fingerprint;
pub mod legacy;
pub mod limits;
pub mod mutants;
pub mod parallel;
mod simulation;

pub use catalogue::{Kind, PropertyDef};
pub use driver::{
    check, check_with_progress, properties, CheckOptions, Mode, Progress, PropertyResult,
    ScenarioResult, TraceStep, Verdict,
};
pub use limits::StopReason;
