//! # webmcp-model
//!
//! The W3C WebMCP draft (`spec/webmcp-algorithms.md`) as a state machine for model checking.
//!
//! - [`world::World`]: a compiled scenario (documents, navigables, agents, scripts, bounds).
//! - [`state::State`]: everything that changes, in small copy-on-write collections ([`coll`]).
//! - [`machine::Action`] and [`machine::WebMcpModel`]: the nondeterminism and the pure
//!   transition function; each transition records the step IDs it executes.
//! - [`algorithms`]: one module per algorithm of the draft.
//!
//! `docs/model.md` explains what is modelled, at which granularity, and why.

pub mod abort;
pub mod algorithms;
pub mod call_symmetry;
pub mod codec;
pub mod coll;
pub mod cx;
pub mod error;
pub mod failures;
pub mod footprint;
pub mod ids;
pub mod legacy;
pub mod lifecycle;
pub mod limits;
pub mod machine;
pub mod mutation;
pub mod names;
pub mod origin;
pub mod reduction;
pub mod scenario;
pub mod script;
pub mod state;
pub mod steps;
pub mod strict;
pub mod symmetry;
pub mod threads;
pub mod validate;
pub mod variant;
pub mod world;

pub use cx::Recorder;
pub use machine::{Action, WebMcpModel};
pub use state::State;
pub use steps::{StepId, StepKind, STEPS};
pub use variant::Variant;
pub use world::World;
