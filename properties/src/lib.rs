#![recursion_limit = "512"]
//! # webmcp-properties
//!
//! The property catalogues of webmcp-check: what each profile's properties claim, each a
//! predicate over its model's states, with the spec steps it is about and the parts of the
//! state it reads. The draft's catalogue is [`catalogue`], the legacy proposal's is
//! [`legacy`]. Checking them is the engine's job ([`webmcp_checker`]); what binds a
//! catalogue to the engine (the drivers, the benchmarks, mutation testing) is the
//! `webmcp-profiles` crate, above both.

pub mod catalogue;
pub mod legacy;

pub use catalogue::{Kind, PropertyDef};
