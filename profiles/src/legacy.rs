//! The legacy profile's driver: its catalogue ([`webmcp_properties::legacy`]) checked by the
//! same engine as the draft ([`webmcp_checker`]), with the same rules: breadth-first on one
//! thread, first discovery wins (shortest paths), verdicts hold / violated / witnessed / not
//! witnessed / incomplete. Its results have their own types (legacy actions, legacy step IDs,
//! and the observation of every terminal state, which the conformance run compares with what
//! the polyfill did), so the search is asked to visit every terminal state, even after every
//! property is decided. `--reduction por` applies the legacy model's own persistent sets
//! (`webmcp_model::legacy` `reduction.rs`), which keep every terminal state and every verdict
//! but not the shortest paths; `--reduction sleep` its footprints (`footprint.rs`), which
//! keep every state and every path's length.

use std::collections::BTreeSet;
use std::time::Duration;

use webmcp_checker::{Checker, Mode, Options, Property, Reduction};
use webmcp_model::legacy::observe::{observation, Observation};
use webmcp_model::legacy::state::LegacyState;
use webmcp_model::legacy::{LegacyAction, LegacyModel};

pub use crate::driver::Verdict;
use crate::limits::StopReason;
pub use webmcp_properties::legacy::*;

/// One step of a path: the action and the legacy step IDs it executed.
#[derive(Clone, Debug)]
pub struct LegacyStep {
    pub action: LegacyAction,
    pub steps: Vec<&'static str>,
}

#[derive(Clone, Debug)]
pub struct LegacyPropertyResult {
    pub property: LegacyProperty,
    pub verdict: Verdict,
    /// A path to the violation or witness: a shortest one unless the search was reduced.
    pub path: Option<Vec<LegacyStep>>,
}

#[derive(Clone, Debug)]
pub struct LegacyResult {
    pub scenario: String,
    pub variant: String,
    /// The reduction the search applied: `Por` explores fewer interleavings, so its paths
    /// need not be shortest; `Sleep` builds fewer successors and keeps every state.
    pub reduction: Reduction,
    pub total_states: usize,
    pub unique_states: usize,
    pub max_depth: usize,
    pub seconds: f64,
    pub exhaustive: bool,
    /// The bound that stopped exploration early; `None` exactly when `exhaustive`.
    pub stopped_by: Option<StopReason>,
    pub properties: Vec<LegacyPropertyResult>,
    /// The observation of every reachable terminal state (complete only when exhaustive).
    pub observations: BTreeSet<Observation>,
}

/// The bounds of one legacy check, as the draft's [`crate::CheckOptions`] has them.
#[derive(Clone, Copy, Debug, Default)]
pub struct LegacyOptions {
    pub max_states: Option<usize>,
    /// Do not expand states at this depth (the initial state is depth 1).
    pub max_depth: Option<usize>,
    pub timeout: Option<Duration>,
    /// `None` falls back to [`crate::limits::process_memory_limit`].
    pub memory_limit_mib: Option<u64>,
    /// `None`, `Por` (the legacy model's persistent sets) or `Sleep` (its footprints).
    pub reduction: Reduction,
}

/// Explores every interleaving of the scenario breadth-first and judges every property.
pub fn check_legacy(model: &LegacyModel, options: &LegacyOptions) -> LegacyResult {
    let start = std::time::Instant::now();
    let props = legacy_catalogue();
    let engine_props: Vec<Property<LegacyModel>> =
        props.iter().map(LegacyProperty::engine).collect();
    let engine = Options {
        mode: Mode::Bfs,
        threads: 1,
        max_states: options.max_states,
        max_depth: options.max_depth,
        timeout: options.timeout,
        memory_limit_mib: options.memory_limit_mib,
        reduction: options.reduction,
        // The legacy model gives no codec: its frontier holds values.
        frontier: webmcp_checker::FrontierStorage::Values,
        // Nor dead parts to forget.
        forget: false,
        time_phases: false,
    };
    let mut observations = BTreeSet::new();
    let mut observe = |s: &LegacyState| {
        observations.insert(observation(&model.world, s));
    };
    let found = Checker::new(model, &engine_props, &engine)
        .on_terminal(&mut observe)
        .run();
    let exhaustive = found.exhaustive();
    let properties = props
        .iter()
        .zip(found.discoveries)
        .map(|(p, path)| LegacyPropertyResult {
            property: *p,
            verdict: Verdict::of(p.kind, path.is_some(), exhaustive),
            path: path.map(|path| replay(model, path.actions)),
        })
        .collect();
    LegacyResult {
        scenario: model.world.name.clone(),
        variant: model.variant.name(),
        reduction: options.reduction,
        total_states: found.total_states,
        unique_states: found.unique_states,
        max_depth: found.max_depth,
        seconds: start.elapsed().as_secs_f64(),
        exhaustive,
        stopped_by: found.stopped_by,
        properties,
        observations,
    }
}

/// Re-runs a path, recording the step IDs of each action.
pub fn replay(model: &LegacyModel, actions: Vec<LegacyAction>) -> Vec<LegacyStep> {
    let mut s = model.initial_state();
    actions
        .into_iter()
        .map(|action| {
            let mut steps = Vec::new();
            s = model.apply(&s, action, &mut steps);
            LegacyStep { action, steps }
        })
        .collect()
}
