#![recursion_limit = "512"]
//! # webmcp-properties
//!
//! The property catalogue of webmcp-check ([`catalogue`]) and the driver that checks a
//! scenario with stateright's breadth-first search ([`driver`]).

pub mod catalogue;
pub mod coverage;
pub mod driver;

pub use catalogue::{Kind, PropertyDef};
pub use driver::{
    check, properties, CheckOptions, PropertyResult, ScenarioResult, TraceStep, Verdict,
};
