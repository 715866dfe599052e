//! How one search runs: its mode, its threads and its bounds, and what it reports meanwhile.

use std::time::Duration;

/// How the state space is explored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Breadth-first: exhaustive, and (without [`Reduction::Por`]) every counterexample is a
    /// shortest one, on one thread or several ([`Options::paths_are_shortest`]).
    #[default]
    Bfs,
    /// Depth-first: exhaustive, less memory, counterexamples are not shortest.
    Dfs,
    /// Random walks from the initial states; never exhaustive.
    Sim { seed: u64, runs: u64 },
}

/// Whether the search skips interleavings that cannot change any verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reduction {
    /// Every enabled action of every state is explored.
    #[default]
    None,
    /// Partial-order reduction: where the model names a persistent set of actions that keeps
    /// every outcome ([`crate::Model::persistent_set`]), only those actions are explored.
    Por,
    /// Sleep sets: every state is still visited, at its shortest depth, but a successor is
    /// not built where the other side of a diamond of commuting actions already reaches it
    /// ([`crate::Model::next_state_with_footprint`]). The one-thread breadth-first search
    /// uses them; every other search explores as with `None`.
    Sleep,
}

impl Reduction {
    pub fn name(self) -> &'static str {
        match self {
            Reduction::None => "none",
            Reduction::Por => "por",
            Reduction::Sleep => "sleep",
        }
    }

    pub fn parse(text: &str) -> Option<Reduction> {
        [Reduction::None, Reduction::Por, Reduction::Sleep]
            .into_iter()
            .find(|r| r.name() == text)
    }
}

/// The bounds and knobs of one search. Every bound that stops a search is named in
/// [`crate::Exploration::stopped_by`].
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub mode: Mode,
    /// Search threads: 1 (or 0) runs the one-thread search; more run the level-by-level
    /// parallel breadth-first search, or the parallel depth-first search (workers that share
    /// a pool of states and one visited set).
    pub threads: usize,
    /// Stop after generating about this many states.
    pub max_states: Option<usize>,
    /// Do not expand states at this depth (the initial states are depth 1).
    pub max_depth: Option<usize>,
    pub timeout: Option<Duration>,
    /// Stop when the process's resident set exceeds this many MiB; `None` falls back to
    /// [`crate::limits::process_memory_limit`].
    pub memory_limit_mib: Option<u64>,
    pub reduction: Reduction,
    /// How the breadth-first searches keep the states they have yet to expand.
    pub frontier: FrontierStorage,
    /// Dead parts forgotten ([`crate::Model::forget`]): the breadth-first searches (one
    /// thread or several, without sleep sets) judge a state that holds some where they
    /// generate it, and keep it without them. Verdicts and breadth-first path lengths are
    /// unchanged; the depth-first search and random walks explore the model as it is.
    pub forget: bool,
    /// Time the one-thread search by phase ([`crate::phases`]) and report it in
    /// [`crate::Exploration::phases`]. Only the one-thread breadth-first and depth-first
    /// searches without sleep sets are timed; every other search ignores it.
    pub time_phases: bool,
}

impl Options {
    /// Whether every counterexample and example the search reports is a shortest path:
    /// breadth-first search keeps the first discovery of the least depth on one thread and,
    /// level by level, on several; sleep sets keep every state at its shortest depth.
    /// Depth-first search and random walks do not, nor does partial-order reduction, which
    /// may run a step before the one that shows a violation.
    pub fn paths_are_shortest(&self) -> bool {
        self.mode == Mode::Bfs && self.reduction != Reduction::Por
    }

    /// Whether the search these options run is one [`Options::time_phases`] can time: our
    /// own one-thread search, breadth-first or depth-first, without sleep sets. (A checker
    /// with a terminal observer, or with symmetry outside breadth-first search, runs that
    /// search whatever the threads, and is timed too.)
    pub fn can_time_phases(&self) -> bool {
        self.threads <= 1
            && !matches!(self.mode, Mode::Sim { .. })
            && self.reduction != Reduction::Sleep
    }
}

/// How the breadth-first searches keep their frontier (`crate::frontier`). Only
/// time and memory change: the states, their order, the counts and the paths are the same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FrontierStorage {
    /// As values until the process's resident memory passes a quarter of the memory limit,
    /// then as bytes ([`crate::limits::Budget::memory_is_scarce`]).
    #[default]
    Auto,
    /// As values: fastest, most memory.
    Values,
    /// As bytes from the first state, when the model has a codec ([`crate::StateCodec`]):
    /// about half the memory of a large search, for about a third more time.
    Bytes,
}

impl FrontierStorage {
    pub fn name(self) -> &'static str {
        match self {
            FrontierStorage::Auto => "auto",
            FrontierStorage::Values => "values",
            FrontierStorage::Bytes => "bytes",
        }
    }
}

/// A snapshot of a running search, for progress displays.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub total_states: usize,
    pub unique_states: usize,
    pub max_depth: usize,
    pub elapsed: Duration,
}
