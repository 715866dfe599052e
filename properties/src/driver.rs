//! The checking driver: runs stateright over a scenario and reports per property.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use stateright::{Checker, Model, Property};
use webmcp_model::machine::{Action, WebMcpModel};
use webmcp_model::state::State;
use webmcp_model::steps::StepId;

use crate::bfs::Order;
use crate::catalogue::{catalogue, is_terminal, Kind, PropertyDef};
use crate::limits::{can_start_threads, quietly, Budget, StopReason};

/// The catalogue, built once per process.
pub fn properties() -> &'static [PropertyDef] {
    static CATALOGUE: OnceLock<Vec<PropertyDef>> = OnceLock::new();
    CATALOGUE.get_or_init(catalogue)
}

/// A model with the catalogue attached, as stateright checks it.
pub struct Checked {
    pub model: WebMcpModel,
}

fn evaluate<const I: usize>(m: &Checked, s: &State) -> bool {
    let def = &properties()[I];
    match def.kind {
        Kind::Always | Kind::Sometimes => (def.holds)(&m.model, s),
        Kind::AtTermination => (def.holds)(&m.model, s) || !is_terminal(&m.model, s),
    }
}

macro_rules! evaluators {
    ($($i:literal)*) => { [$(evaluate::<$i> as fn(&Checked, &State) -> bool),*] };
}

const EVALUATORS: [fn(&Checked, &State) -> bool; 64] = evaluators!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
);

impl Model for Checked {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        vec![self.model.initial_state()]
    }

    fn actions(&self, s: &State, actions: &mut Vec<Action>) {
        self.model.enabled_actions(s, actions);
    }

    fn next_state(&self, s: &State, a: Action) -> Option<State> {
        Some(self.model.apply(s, a, &mut ()))
    }

    fn properties(&self) -> Vec<Property<Self>> {
        assert!(properties().len() <= EVALUATORS.len(), "grow EVALUATORS");
        properties()
            .iter()
            .enumerate()
            .map(|(i, def)| match def.kind {
                Kind::Always | Kind::AtTermination => Property::always(def.name, EVALUATORS[i]),
                Kind::Sometimes => Property::sometimes(def.name, EVALUATORS[i]),
            })
            .collect()
    }
}

/// How the state space is explored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Breadth-first: exhaustive, and on one thread every counterexample is a shortest one.
    #[default]
    Bfs,
    /// Depth-first: exhaustive, less memory, counterexamples are not shortest.
    Dfs,
    /// Random walks from the initial state; never exhaustive.
    Sim { seed: u64, runs: u64 },
}

/// Bounds and knobs of one check. Every bound that stops a check is named in
/// [`ScenarioResult::stopped_by`].
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    pub mode: Mode,
    /// Checker threads: 1 runs our own search, more run stateright's (at most
    /// [`crate::limits::MAX_THREADS`] by the command line's rule).
    pub threads: usize,
    /// Stop after generating about this many states.
    pub max_states: Option<usize>,
    /// Do not expand states at this depth (the initial state is depth 1).
    pub max_depth: Option<usize>,
    pub timeout: Option<Duration>,
    /// Stop when the process's resident set exceeds this many MiB; `None` falls back to
    /// [`crate::limits::process_memory_limit`].
    pub memory_limit_mib: Option<u64>,
    /// Explore one state per class of states equal up to swapping interchangeable tabs
    /// (see `webmcp_model::symmetry`); always our own BFS.
    pub symmetry: bool,
}

/// A snapshot of a running check, for progress displays.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub total_states: usize,
    pub unique_states: usize,
    pub max_depth: usize,
    pub elapsed: Duration,
}

/// What was decided about one property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Always / at-termination: no reachable state violates it.
    Holds,
    /// A counterexample was found.
    Violated,
    /// Sometimes: an example was found.
    Witnessed,
    /// Sometimes: exploration was exhaustive and found no example.
    NotWitnessed,
    /// A bound stopped exploration before the property was decided.
    Incomplete,
}

impl Verdict {
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Holds => "hold",
            Verdict::Violated => "violated",
            Verdict::Witnessed => "witnessed",
            Verdict::NotWitnessed => "not witnessed",
            Verdict::Incomplete => "incomplete",
        }
    }
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
    /// The path to the violation (or to the witness), shortest first under BFS on one thread.
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
}

impl ScenarioResult {
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
}

/// Model-checks one scenario.
pub fn check(model: WebMcpModel, options: &CheckOptions) -> ScenarioResult {
    check_with_progress(model, options, &mut |_| {})
}

/// What an exploration found, before verdicts are drawn.
pub(crate) struct Exploration {
    pub(crate) total_states: usize,
    pub(crate) unique_states: usize,
    pub(crate) max_depth: usize,
    /// Why exploration stopped early; `None` when it was exhaustive.
    pub(crate) stopped_by: Option<StopReason>,
    pub(crate) discoveries: std::collections::HashMap<&'static str, Vec<Action>>,
}

/// Model-checks one scenario, calling `progress` about five times a second.
pub fn check_with_progress(
    model: WebMcpModel,
    options: &CheckOptions,
    progress: &mut dyn FnMut(Progress),
) -> ScenarioResult {
    let scenario = model.world.name.clone();
    let variant = model.variant.name();
    let start = Instant::now();
    let found = match options.mode {
        Mode::Bfs if options.threads <= 1 || options.symmetry => {
            crate::bfs::explore(&model, options, Order::Fifo, start, progress)
        }
        Mode::Dfs if options.threads <= 1 || options.symmetry => {
            crate::bfs::explore(&model, options, Order::Lifo, start, progress)
        }
        Mode::Bfs | Mode::Dfs => explore_in_parallel(model.clone(), options, start, progress),
        Mode::Sim { seed, runs } => {
            crate::simulation::simulate(&model, options, seed, runs, start, progress)
        }
    };
    let exhaustive = found.stopped_by.is_none();
    let seconds = start.elapsed().as_secs_f64();
    let properties = properties()
        .iter()
        .map(|def| {
            let path = found.discoveries.get(def.name);
            let verdict = match (def.kind, path.is_some(), exhaustive) {
                (Kind::Sometimes, true, _) => Verdict::Witnessed,
                (Kind::Sometimes, false, true) => Verdict::NotWitnessed,
                (_, true, _) => Verdict::Violated,
                (_, false, true) => Verdict::Holds,
                (_, false, false) => Verdict::Incomplete,
            };
            let path = path.map(|p| shortest_prefix(&model, def, p.clone()));
            PropertyResult {
                def: *def,
                verdict,
                path,
            }
        })
        .collect();
    ScenarioResult {
        scenario,
        variant,
        total_states: found.total_states,
        unique_states: found.unique_states,
        max_depth: found.max_depth,
        seconds,
        exhaustive,
        stopped_by: found.stopped_by,
        properties,
    }
}

/// How often the parallel search is looked at (progress, time, memory, done).
const POLL: Duration = Duration::from_millis(20);

/// `--threads N > 1`: stateright's parallel search, which we cannot interrupt from inside.
/// Its own `timeout` closes its job market, but a worker looks at the market only when it
/// shares or runs out of work; so time and memory are watched here, every [`POLL`], and a
/// run is stopped by dropping the checker, which closes the market the same way: every
/// worker stops after the block of states it is on. States and depth are stateright's own
/// targets, checked by its workers after every block.
fn explore_in_parallel(
    model: WebMcpModel,
    options: &CheckOptions,
    start: Instant,
    progress: &mut dyn FnMut(Progress),
) -> Exploration {
    let threads = options.threads.max(1);
    let checked = Checked { model };
    let mut builder = checked.checker().threads(threads);
    if let Some(n) = options.max_states {
        builder = builder.target_state_count(n);
    }
    if let Some(d) = options.max_depth {
        // stateright skips a state whose depth reaches its target without judging it; ours
        // judges the states at the bound and expands none of them. One deeper gives the same:
        // a state at depth d + 1 is generated (and left unjudged) exactly when a state at the
        // bound had a new successor, so reaching d + 1 tells that something was cut.
        builder = builder.target_max_depth(d + 1);
    }
    // A thread the OS refuses is a stop, not a crash: ask first (every thread started is
    // joined), and should stateright's own spawn still fail, catch its panic.
    let refused = |reason: String| Exploration {
        total_states: 0,
        unique_states: 0,
        max_depth: 0,
        stopped_by: Some(StopReason::ThreadSpawn { threads, reason }),
        discoveries: Default::default(),
    };
    if let Err(e) = can_start_threads(threads) {
        return refused(e.to_string());
    }
    let spawned = quietly(move || match options.mode {
        Mode::Dfs => Box::new(builder.spawn_dfs()) as Box<dyn Checker<Checked>>,
        _ => Box::new(builder.spawn_bfs()),
    });
    let mut checker = match spawned {
        Ok(c) => c,
        Err(reason) => return refused(os_error_text(&reason)),
    };
    let handles = checker.handles();
    let mut budget = Budget::new(start, options.timeout, options.memory_limit_mib);
    let done = |c: &dyn Checker<Checked>| c.is_done() || handles.iter().all(|h| h.is_finished());
    let mut stopped_by = None;
    while !done(checker.as_ref()) {
        progress(Progress {
            total_states: checker.state_count(),
            unique_states: checker.unique_state_count(),
            max_depth: checker.max_depth(),
            elapsed: start.elapsed(),
        });
        if let Some(stop) = budget.exceeded() {
            // A bound that fires as the last worker finishes leaves nothing unexplored.
            if !done(checker.as_ref()) {
                stopped_by = Some(stop);
            }
            break;
        }
        std::thread::sleep(POLL);
    }
    let total_states = checker.state_count();
    let unique_states = checker.unique_state_count();
    let mut max_depth = checker.max_depth();
    let discoveries: std::collections::HashMap<_, _> = checker
        .discoveries()
        .into_iter()
        .map(|(name, path)| (name, path.into_actions()))
        .collect();
    // Closes the job market: the workers stop after their current block.
    drop(checker);
    for h in handles {
        if let Err(panic) = h.join() {
            std::panic::resume_unwind(panic);
        }
    }
    let all_decided = discoveries.len() == properties().len();
    if stopped_by.is_none() && !all_decided {
        if let Some(n) = options.max_states.filter(|n| total_states >= *n) {
            stopped_by = Some(StopReason::MaxStates { n });
        } else if let Some(n) = options.max_depth.filter(|d| max_depth > *d) {
            stopped_by = Some(StopReason::MaxDepth { n });
        }
    }
    if let Some(d) = options.max_depth {
        max_depth = max_depth.min(d);
    }
    Exploration {
        total_states,
        unique_states,
        max_depth,
        stopped_by: stopped_by.filter(|_| !all_decided),
        discoveries,
    }
}

/// stateright's spawn panic says `Failed to spawn a thread: Os { code: 11, kind: WouldBlock,
/// message: "Resource temporarily unavailable" }`; people read "Resource temporarily
/// unavailable (os error 11)".
fn os_error_text(panic: &str) -> String {
    let field = |name: &str| {
        let start = panic.find(name)? + name.len();
        let rest = &panic[start..];
        Some(
            rest.split(['"', ',', ' ', '}'])
                .find(|s| !s.is_empty())?
                .to_string(),
        )
    };
    let message = panic
        .find("message: \"")
        .and_then(|i| panic[i + 10..].split('"').next());
    match (message, field("code: ")) {
        (Some(m), Some(code)) => format!("{m} (os error {code})"),
        _ => panic.to_string(),
    }
}

/// Whether `s` shows the property's outcome: a violation (always, at termination) or an
/// example (sometimes).
pub(crate) fn outcome_shows(model: &WebMcpModel, def: &PropertyDef, s: &State) -> bool {
    let terminal = def.kind == Kind::AtTermination && is_terminal(model, s);
    outcome_shows_at(model, def, s, terminal)
}

/// [`outcome_shows`] for a state whose terminality the caller already knows.
pub(crate) fn outcome_shows_at(
    model: &WebMcpModel,
    def: &PropertyDef,
    s: &State,
    terminal: bool,
) -> bool {
    let holds = match def.kind {
        Kind::Always | Kind::Sometimes => (def.holds)(model, s),
        Kind::AtTermination => !terminal || (def.holds)(model, s),
    };
    if def.kind == Kind::Sometimes {
        holds
    } else {
        !holds
    }
}

/// Re-runs a discovery path and cuts it at the first state where the property's outcome
/// shows (the violation, or the witness), recording the step IDs of each action.
fn shortest_prefix(model: &WebMcpModel, def: &PropertyDef, actions: Vec<Action>) -> Vec<TraceStep> {
    let mut path = replay_path(model, actions);
    let mut s = model.initial_state();
    for (i, step) in path.iter().enumerate() {
        s = model.apply(&s, step.action, &mut ());
        if outcome_shows(model, def, &s) {
            path.truncate(i + 1);
            break;
        }
    }
    path
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

#[cfg(test)]
mod tests {
    #[test]
    fn a_refused_thread_reads_as_the_os_error() {
        let panic = r#"Failed to spawn a thread: Os { code: 11, kind: WouldBlock, message: "Resource temporarily unavailable" }"#;
        assert_eq!(
            super::os_error_text(panic),
            "Resource temporarily unavailable (os error 11)"
        );
        assert_eq!(super::os_error_text("something else"), "something else");
    }
}
