//! # webmcp-generator
//!
//! Scenarios of the WebMCP draft generated over a bounded vocabulary, so that
//! `webmcp-check sweep` can judge the behaviour space and not only the hand-written suite.
//! One job: enumerate `webmcp_model::scenario::Scenario` values within a [`Bound`], one per
//! class of scenarios equal up to renaming ([`canon`]), split them into shards, and draw
//! seeded random samples beyond what can be enumerated. `docs/sweep.md` documents the
//! vocabulary, the presets and the measurements.
//!
//! - [`space`]: the compact form [`Gen`] and the single definition of the space, a sequence
//!   of choices ([`space::build`]).
//! - [`enumerate`]: every choice sequence in order (raw), the canonical ones, shards, samples.
//! - [`canon`]: canonical forms.
//! - [`convert`]: to and from the scenario file format.
//!
//! **Why scenarios are enumerated directly.** Every generated scenario is an ordinary
//! scenario file, compiled by `World::compile` and checked one at a time by the ordinary
//! checker: nothing in the model had to change, a violation comes with a small scenario a
//! person can read and re-run with `check --scenario-file`, and the work splits into
//! independent pieces (shards, workers). The alternative, a "most general page" inside the
//! model whose scripts are chosen nondeterministically, would share the states of common
//! prefixes; measured with `examples/mgp_estimate.rs`, it would explore only 1.21 (tiny) and
//! 1.12 (small) times fewer states, while holding the whole space in memory at
//! once and giving counterexamples that are runs of one huge scenario (`docs/sweep.md`,
//! "Enumeration or a most general page").

pub mod bound;
pub mod canon;
pub mod convert;
pub mod enumerate;
pub mod space;

pub use bound::{Bound, BoundError};
pub use canon::{canonical, is_canonical};
pub use convert::{describe, from_scenario, name, to_scenario, ConvertError};
pub use enumerate::{
    count, for_each_canonical, for_each_raw, sample, shard, Counts, Sampling, Shard, ShardError,
    MAX_SHARDS,
};
pub use space::Gen;
