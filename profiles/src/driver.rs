//! The driver: binds the draft's property catalogue and [`WebMcpModel`] to the engine
//! ([`webmcp_checker`]), and turns what the engine found into per-property results with the
//! step IDs of every action.

use std::sync::OnceLock;
use std::time::Duration;

use webmcp_checker::{Checker, Exploration, Property};
use webmcp_model::machine::{Action, WebMcpModel};
use webmcp_model::state::State;
use webmcp_model::steps::StepId;

use crate::catalogue::{catalogue, PropertyDef};
use crate::limits::StopReason;

pub use webmcp_checker::{FrontierStorage, Mode, Progress, Reduction, Verdict};
pub use webmcp_checker_timely::{Cluster, ClusterError, Hostfile, ProgressFn, Traffic};

/// The catalogue, built once per process.
pub fn properties() -> &'static [PropertyDef] {
    static CATALOGUE: OnceLock<Vec<PropertyDef>> = OnceLock::new();
    CATALOGUE.get_or_init(catalogue)
}

/// The catalogue as the engine takes it, in the same order.
pub fn engine_properties() -> &'static [Property<WebMcpModel>] {
    static PROPERTIES: OnceLock<Vec<Property<WebMcpModel>>> = OnceLock::new();
    PROPERTIES.get_or_init(|| properties().iter().map(PropertyDef::engine).collect())
}

/// Bounds and knobs of one check. Every bound that stops a check is named in
/// [`ScenarioResult::stopped_by`].
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    pub mode: Mode,
    /// Checker threads: 1 runs the one-thread search, more the engine's parallel search (at
    /// most [`crate::limits::MAX_THREADS`] by the command line's rule; see
    /// [`webmcp_checker::Options::threads`]).
    pub threads: usize,
    /// Stop after generating about this many states.
    pub max_states: Option<usize>,
    /// Do not expand states at this depth (the initial state is depth 1).
    pub max_depth: Option<usize>,
    pub timeout: Option<Duration>,
    /// Stop when the process's resident set exceeds this many MiB; `None` falls back to
    /// [`crate::limits::process_memory_limit`].
    pub memory_limit_mib: Option<u64>,
    /// Explore one state per class of states equal up to swapping interchangeable tabs, or
    /// interchangeable calls of one script (see `webmcp_model::symmetry`); always our own
    /// search, breadth-first on one thread or several.
    pub symmetry: bool,
    /// Partial-order reduction (`webmcp_model::reduction`, `docs/model.md` §7).
    pub reduction: webmcp_checker::Reduction,
    /// How breadth-first search keeps its frontier (time against memory).
    pub frontier: webmcp_checker::FrontierStorage,
    /// Dead facts forgotten once judged (`webmcp_model::reduction::dead_facts`,
    /// `docs/model.md` §7): breadth-first searches only.
    pub forget_facts: bool,
    /// Time the search by phase ([`webmcp_checker::phases`]): the one-thread search
    /// without sleep sets only ([`webmcp_checker::Options::can_time_phases`]).
    pub time_phases: bool,
}

/// One step of a counterexample: the action and the step IDs it executed.
#[derive(Clone, Debug)]
pub struct TraceStep {
    pub action: Action,
    pub steps: Vec<StepId>,
}

#[derive(Clone, Debug)]
pub struct PropertyResult {
    pub def: PropertyDef,
    pub verdict: Verdict,
    /// The path to the violation (or to the witness): a shortest one where
    /// [`CheckOptions::paths_are_shortest`].
    pub path: Option<Vec<TraceStep>>,
}

#[derive(Clone, Debug)]
pub struct ScenarioResult {
    pub scenario: String,
    pub variant: String,
    pub total_states: usize,
    pub unique_states: usize,
    pub max_depth: usize,
    pub seconds: f64,
    /// Whether every reachable state was explored (or every property decided).
    pub exhaustive: bool,
    /// The bound that stopped exploration early; `None` exactly when `exhaustive`.
    pub stopped_by: Option<StopReason>,
    pub properties: Vec<PropertyResult>,
    /// Where the search's time went, when it was timed ([`CheckOptions::time_phases`]).
    pub phases: Option<webmcp_checker::PhaseTimes>,
}

impl ScenarioResult {
    /// Each property's name and verdict, in the catalogue's order: what two searches of one
    /// scenario must agree on.
    pub fn verdicts(&self) -> Vec<(&'static str, Verdict)> {
        self.properties
            .iter()
            .map(|p| (p.def.name, p.verdict))
            .collect()
    }

    pub fn violations(&self) -> impl Iterator<Item = &PropertyResult> {
        self.properties
            .iter()
            .filter(|p| p.verdict == Verdict::Violated)
    }
    pub fn is_incomplete(&self) -> bool {
        self.properties
            .iter()
            .any(|p| p.verdict == Verdict::Incomplete)
    }
    /// Why the exploration is not exhaustive, naming the bound ("stopped by --timeout 5 s
    /// after 1,234,567 states"); `None` when it is.
    pub fn why_incomplete(&self) -> Option<String> {
        crate::limits::why_incomplete(self.stopped_by.as_ref(), self.exhaustive, self.total_states)
    }
}

/// Model-checks one scenario.
pub fn check(model: WebMcpModel, options: &CheckOptions) -> ScenarioResult {
    check_with_progress(model, options, &mut |_| {})
}

impl CheckOptions {
    /// The engine's options: these, less the symmetry switch (a parameter of its own).
    pub fn engine(&self) -> webmcp_checker::Options {
        webmcp_checker::Options {
            mode: self.mode,
            threads: self.threads,
            max_states: self.max_states,
            max_depth: self.max_depth,
            timeout: self.timeout,
            memory_limit_mib: self.memory_limit_mib,
            reduction: self.reduction,
            frontier: self.frontier,
            forget: self.forget_facts,
            time_phases: self.time_phases,
        }
    }

    /// Whether every path the check reports is a shortest one: as the engine's search says
    /// ([`webmcp_checker::Options::paths_are_shortest`]); symmetry keeps it, since a class is
    /// reached at the least depth of any of its states and the properties are symmetric.
    pub fn paths_are_shortest(&self) -> bool {
        self.engine().paths_are_shortest()
    }
}

/// Model-checks one scenario, calling `progress` about five times a second.
pub fn check_with_progress(
    model: WebMcpModel,
    options: &CheckOptions,
    progress: &mut dyn FnMut(Progress),
) -> ScenarioResult {
    let start = std::time::Instant::now();
    let model = model.with_visibility(crate::catalogue::VISIBILITY);
    let engine = options.engine();
    let props = engine_properties();
    let symmetry = options
        .symmetry
        .then(|| webmcp_model::symmetry::Symmetry::of(&model.world))
        .filter(|s| !s.is_trivial());
    let class = |s: &State| match &symmetry {
        Some(sym) => sym.class_fingerprint(s),
        None => webmcp_checker::fingerprint::fingerprint(s),
    };
    let mut checker = Checker::new(&model, props, &engine).progress(progress);
    if symmetry.is_some() {
        checker = checker.symmetry(&class);
    }
    let found = checker.run();
    let seconds = start.elapsed().as_secs_f64();
    results(&model, found, seconds)
}

/// Model-checks every scenario on timely dataflow ([`webmcp_checker_timely`]): the same
/// results as the engine's parallel breadth-first search, on the workers and processes
/// `cluster` names. Every process of the run calls this with the same models and options;
/// the first process gets the results and what the workers sent one another, the others
/// `None`.
pub fn check_distributed(
    models: Vec<WebMcpModel>,
    options: &CheckOptions,
    cluster: &Cluster,
    progress: Option<ProgressFn>,
) -> Result<Option<(Vec<ScenarioResult>, Traffic)>, ClusterError> {
    let props = engine_properties().to_vec();
    let models: Vec<WebMcpModel> = models
        .into_iter()
        .map(|m| m.with_visibility(crate::catalogue::VISIBILITY))
        .collect();
    let run = webmcp_checker_timely::explore_with_progress(
        models.clone(),
        props,
        &options.engine(),
        cluster,
        progress,
    )?;
    Ok(run.map(|run| {
        let results = models
            .iter()
            .zip(run.explorations)
            .map(|(model, (found, took))| results(model, found, took.as_secs_f64()))
            .collect();
        (results, run.traffic)
    }))
}

/// Per-property results from what the engine found.
fn results(model: &WebMcpModel, found: Exploration<WebMcpModel>, seconds: f64) -> ScenarioResult {
    let exhaustive = found.exhaustive();
    let properties = properties()
        .iter()
        .zip(engine_properties())
        .zip(found.discoveries)
        .map(|((def, property), path)| PropertyResult {
            def: *def,
            verdict: Verdict::of(def.kind, path.is_some(), exhaustive),
            path: path.map(|p| shortest_prefix(model, property, p.actions)),
        })
        .collect();
    ScenarioResult {
        scenario: model.world.name.clone(),
        variant: model.variant.name(),
        total_states: found.total_states,
        unique_states: found.unique_states,
        max_depth: found.max_depth,
        seconds,
        exhaustive,
        stopped_by: found.stopped_by,
        properties,
        phases: found.phases,
    }
}

/// Re-runs a discovery path and cuts it at the first state where the property's outcome
/// shows (the violation, or the witness), recording the step IDs of each action.
fn shortest_prefix(
    model: &WebMcpModel,
    property: &Property<WebMcpModel>,
    actions: Vec<Action>,
) -> Vec<TraceStep> {
    let mut path = replay_path(model, actions);
    let mut s = model.initial_state();
    for (i, step) in path.iter().enumerate() {
        s = model.apply(&s, step.action, &mut ());
        if property.shows(model, &s) {
            path.truncate(i + 1);
            break;
        }
    }
    path
}

/// Why a path a search reported does not stand on a model ([`paths_stand`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathFault {
    /// The path's `step`-th action (counted from 0) is not enabled where the path takes it.
    NotEnabled {
        property: &'static str,
        step: usize,
        action: Action,
    },
    /// The path's last state does not show the property's outcome.
    DoesNotShow { property: &'static str },
}

impl std::fmt::Display for PathFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathFault::NotEnabled {
                property,
                step,
                action,
            } => write!(
                f,
                "{property}: action {step} of its path ({action:?}) is not enabled where it is taken"
            ),
            PathFault::DoesNotShow { property } => write!(
                f,
                "{property}: its path does not end in a state that shows the outcome"
            ),
        }
    }
}

impl std::error::Error for PathFault {}

/// Replays every path `r` reports (counterexamples and witnesses) on `model` from its initial
/// state: each action must be enabled where the path takes it, and the last state must show
/// the property's outcome (an at-termination property's at a terminal state). A reduced
/// search's paths must stand so on the unreduced model (docs/model.md §7).
pub fn paths_stand(model: &WebMcpModel, r: &ScenarioResult) -> Result<(), PathFault> {
    for p in &r.properties {
        let Some(path) = &p.path else { continue };
        let property = p.def.name;
        let mut s = model.initial_state();
        for (step, t) in path.iter().enumerate() {
            if !model.is_enabled(&s, t.action) {
                return Err(PathFault::NotEnabled {
                    property,
                    step,
                    action: t.action,
                });
            }
            s = model.apply(&s, t.action, &mut ());
        }
        if !p.def.shows(model, &s) {
            return Err(PathFault::DoesNotShow { property });
        }
    }
    Ok(())
}

/// Re-runs a path's actions, recording the step IDs of each.
pub fn replay_path(model: &WebMcpModel, actions: Vec<Action>) -> Vec<TraceStep> {
    let mut s = model.initial_state();
    actions
        .into_iter()
        .map(|action| {
            let mut steps = Vec::new();
            s = model.apply(&s, action, &mut steps);
            TraceStep { action, steps }
        })
        .collect()
}
