//! The parallel depth-first search (`threads > 1`, [`crate::Mode::Dfs`]): stateright's
//! checker over an adapter of the model and its properties. (Breadth-first on several
//! threads is the engine's own, `parallel_bfs`.)
//!
//! It gives the same verdicts and state counts as the one-thread search, but its paths are
//! not shortest and which path it reports for a property may change from run to run.
//! stateright judges at-termination properties as "always" properties that hold at every
//! non-terminal state.

use std::time::{Duration, Instant};

use stateright::{Checker, Model as _};

use crate::limits::{can_start_threads, quietly, Budget, StopReason};
use crate::model::Model;
use crate::options::{Mode, Options, Progress};
use crate::path::Path;
use crate::property::{Expectation, Property};
use crate::result::Exploration;

/// A model with its properties attached, as stateright checks it.
pub struct Adapter<M: Model> {
    pub model: M,
    pub properties: Vec<Property<M>>,
    /// Partial-order reduction: only the persistent action, where the model names one.
    reduction: crate::options::Reduction,
}

/// stateright takes a property's condition as a plain function of (model, state), so the
/// adapter's property `I` is judged by `evaluate::<M, I>`, which looks it up.
fn evaluate<M: Model, const I: usize>(a: &Adapter<M>, s: &M::State) -> bool {
    let p = &a.properties[I];
    match p.expectation {
        Expectation::Always | Expectation::Sometimes => (p.condition)(&a.model, s),
        Expectation::AtTermination => (p.condition)(&a.model, s) || !a.model.is_terminal(s),
    }
}

type Evaluator<M> = fn(&Adapter<M>, &<M as Model>::State) -> bool;

macro_rules! evaluators {
    ($m:ty; $($i:literal)*) => { [$(evaluate::<$m, $i> as Evaluator<$m>),*] };
}

/// How many properties the adapter can carry.
pub const MAX_PROPERTIES: usize = 64;

fn evaluators<M: Model>() -> [Evaluator<M>; MAX_PROPERTIES] {
    evaluators!(M;
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
        32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
    )
}

impl<M: Model> stateright::Model for Adapter<M> {
    type State = M::State;
    type Action = M::Action;

    fn init_states(&self) -> Vec<M::State> {
        self.model.init_states()
    }

    fn actions(&self, s: &M::State, actions: &mut Vec<M::Action>) {
        if self.reduction == crate::options::Reduction::Por {
            // stateright asks for the successors again: those computed here are dropped.
            let mut set = Vec::new();
            if self.model.persistent_set(s, &mut set) {
                return actions.extend(set.into_iter().map(|(a, _)| a));
            }
        }
        self.model.actions(s, actions);
    }

    fn next_state(&self, s: &M::State, a: M::Action) -> Option<M::State> {
        self.model.next_state(s, a)
    }

    fn properties(&self) -> Vec<stateright::Property<Self>> {
        assert!(
            self.properties.len() <= MAX_PROPERTIES,
            "the parallel search carries at most {MAX_PROPERTIES} properties"
        );
        let evaluate = evaluators::<M>();
        self.properties
            .iter()
            .enumerate()
            .map(|(i, p)| match p.expectation {
                Expectation::Always | Expectation::AtTermination => {
                    stateright::Property::always(p.name, evaluate[i])
                }
                Expectation::Sometimes => stateright::Property::sometimes(p.name, evaluate[i]),
            })
            .collect()
    }
}

/// How often the parallel search is looked at (progress, time, memory, done).
const POLL: Duration = Duration::from_millis(20);

/// stateright's parallel search, which cannot be interrupted from inside. Its own `timeout`
/// closes its job market, but a worker looks at the market only when it shares or runs out
/// of work; so time and memory are watched here, every [`POLL`], and a run is stopped by
/// dropping the checker, which closes the market the same way: every worker stops after the
/// block of states it is on. States and depth are stateright's own targets, checked by its
/// workers after every block.
pub(crate) fn explore<M: Model + Send + Sync + 'static>(
    model: M,
    props: &[Property<M>],
    options: &Options,
    start: Instant,
    progress: &mut dyn FnMut(Progress),
) -> Exploration<M> {
    let threads = options.threads.max(1);
    let adapter = Adapter {
        model,
        properties: props.to_vec(),
        reduction: options.reduction,
    };
    let mut builder = adapter.checker().threads(threads);
    if let Some(n) = options.max_states {
        // One more than the bound: a search that generates exactly `n` states is complete
        // (as in our own searches), and one stopped here generated more than `n`.
        builder = builder.target_state_count(n.saturating_add(1));
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
    let refused = |reason: String| {
        Exploration::stopped(props.len(), StopReason::ThreadSpawn { threads, reason })
    };
    if let Err(e) = can_start_threads(threads) {
        return refused(e.to_string());
    }
    let spawned = quietly(move || match options.mode {
        Mode::Dfs => Box::new(builder.spawn_dfs()) as Box<dyn Checker<Adapter<M>>>,
        _ => Box::new(builder.spawn_bfs()),
    });
    let mut checker = match spawned {
        Ok(c) => c,
        Err(reason) => return refused(os_error_text(&reason)),
    };
    let handles = checker.handles();
    let mut budget = Budget::new(start, options.timeout, options.memory_limit_mib);
    let done = |c: &dyn Checker<Adapter<M>>| c.is_done() || handles.iter().all(|h| h.is_finished());
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
    let mut found = checker.discoveries();
    let discoveries: Vec<_> = props
        .iter()
        .map(|p| {
            found.remove(p.name).map(|path| {
                let mut steps = path.into_vec().into_iter();
                let (init, first) = steps.next().expect("a path has an initial state");
                let actions = first.into_iter().chain(steps.filter_map(|(_, a)| a));
                Path {
                    init,
                    actions: actions.collect(),
                }
            })
        })
        .collect();
    // Closes the job market: the workers stop after their current block.
    drop(checker);
    for h in handles {
        if let Err(panic) = h.join() {
            std::panic::resume_unwind(panic);
        }
    }
    let all_decided = discoveries.iter().all(Option::is_some);
    if stopped_by.is_none() && !all_decided {
        if let Some(n) = options.max_states.filter(|n| total_states > *n) {
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
        phases: None,
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
