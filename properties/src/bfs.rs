//! Our one-thread search: breadth-first, which guarantees shortest counterexamples, and
//! depth-first, which keeps a smaller frontier.
//!
//! stateright 0.31's "BFS" pops each worker's pending states from the back of its queue and
//! keeps the *last* discovery of a property, so its counterexamples are not shortest (on
//! `abort-before-dispatch` it reports 15 actions where 8 suffice). Editors need the shortest
//! trace, so the single-threaded `--mode bfs` uses this explorer: a FIFO queue, first
//! discovery wins, parent pointers for paths. `--threads N > 1` uses stateright's parallel
//! search, which gives the same verdicts and state counts but not shortest paths.
//!
//! `--mode dfs` on one thread uses it too, with a stack instead of the queue: stateright's
//! one-thread depth-first search looks at its timeout only when its own stack runs empty,
//! which on a large scenario is never (31 iframes ran on past a 5 s `--timeout` for minutes).
//! Here every bound is looked at every [`CHECKPOINT`] states: time and memory through a
//! [`Budget`], states and depth as they are reached.

use std::collections::VecDeque;
use std::time::Instant;

use webmcp_model::machine::{Action, WebMcpModel};
use webmcp_model::state::State;

use crate::driver::{outcome_shows_at, properties, CheckOptions, Exploration, Progress};
use crate::fingerprint::{fingerprint, FingerprintMap};
use crate::limits::{Budget, StopReason};

/// Progress is reported, and the time and memory budget asked, every this many states.
pub(crate) const CHECKPOINT: u64 = 256;

/// Which state is expanded next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// The oldest (a queue): breadth-first, shortest paths.
    Fifo,
    /// The newest (a stack): depth-first.
    Lifo,
}

pub(crate) fn explore(
    model: &WebMcpModel,
    options: &CheckOptions,
    order: Order,
    start: Instant,
    progress: &mut dyn FnMut(Progress),
) -> Exploration {
    let mut budget = Budget::new(start, options.timeout, options.memory_limit_mib);
    let props = properties();
    let symmetry = options
        .symmetry
        .then(|| webmcp_model::symmetry::Symmetry::of(&model.world))
        .filter(|s| !s.is_trivial());
    // Under symmetry reduction a state is known by its class (its representative's
    // fingerprint), but the state actually reached is the one expanded, so paths stay real.
    let fingerprint = |s: &State| match &symmetry {
        Some(sym) => fingerprint(&sym.representative(s)),
        None => fingerprint(s),
    };
    // fingerprint -> (parent fingerprint, action that led here); the root has none.
    let mut parents: FingerprintMap<Option<(u64, Action)>> = FingerprintMap::default();
    // Per property (by index in the catalogue): the first state that shows its outcome.
    let mut found: Vec<Option<u64>> = vec![None; props.len()];
    let mut undecided = props.len();
    let mut queue = VecDeque::new();
    let init = model.initial_state();
    let init_fp = fingerprint(&init);
    parents.insert(init_fp, None);
    // Depth counts the states of a path, as stateright does: the initial state is depth 1.
    queue.push_back((init, init_fp, 1usize));
    let (mut total, mut max_depth) = (1usize, 0usize);
    // The bound that stopped the search; a depth bound lets it go on elsewhere.
    let mut stopped_by: Option<StopReason> = None;
    let mut depth_cut = false;
    let mut actions = Vec::new();
    let mut popped = 0u64;
    loop {
        let next = match order {
            Order::Fifo => queue.pop_front(),
            Order::Lifo => queue.pop_back(),
        };
        let Some((s, fp, depth)) = next else { break };
        if popped.is_multiple_of(CHECKPOINT) {
            progress(Progress {
                total_states: total,
                unique_states: parents.len(),
                max_depth,
                elapsed: start.elapsed(),
            });
            if let Some(stop) = budget.exceeded() {
                // The state just taken is not explored: the search is not exhaustive.
                stopped_by = Some(stop);
                break;
            }
        }
        popped += 1;
        max_depth = max_depth.max(depth);
        // The enabled actions, computed once: expansion needs them, and the at-termination
        // properties ask whether there are none.
        actions.clear();
        model.enabled_actions(&s, &mut actions);
        let terminal = actions.is_empty();
        for (i, def) in props.iter().enumerate() {
            if found[i].is_none() && outcome_shows_at(model, def, &s, terminal) {
                found[i] = Some(fp);
                undecided -= 1;
            }
        }
        if undecided == 0 {
            break;
        }
        if terminal {
            continue;
        }
        if options.max_depth.is_some_and(|d| depth >= d) {
            // Not expanded: the bound cuts something off only if a successor is new.
            depth_cut = depth_cut
                || actions
                    .iter()
                    .any(|&a| !parents.contains_key(&fingerprint(&model.apply(&s, a, &mut ()))));
            continue;
        }
        if let Some(n) = options.max_states.filter(|n| total >= *n) {
            stopped_by = Some(StopReason::MaxStates { n });
            break;
        }
        for &a in &actions {
            let next = model.apply(&s, a, &mut ());
            total += 1;
            let nfp = fingerprint(&next);
            if let std::collections::hash_map::Entry::Vacant(e) = parents.entry(nfp) {
                e.insert(Some((fp, a)));
                queue.push_back((next, nfp, depth + 1));
            }
        }
    }
    // Once every property is decided nothing a bound left out matters; and a bound that
    // fires after the last state was explored leaves nothing unexplored (the loop ended).
    let stopped_by = if undecided == 0 {
        None
    } else if depth_cut && stopped_by.is_none() {
        options.max_depth.map(|n| StopReason::MaxDepth { n })
    } else {
        stopped_by
    };
    let discoveries = props
        .iter()
        .zip(found)
        .filter_map(|(def, fp)| Some((def.name, path_to(&parents, fp?))))
        .collect();
    Exploration {
        total_states: total,
        unique_states: parents.len(),
        max_depth,
        stopped_by,
        discoveries,
    }
}

fn path_to(parents: &FingerprintMap<Option<(u64, Action)>>, mut fp: u64) -> Vec<Action> {
    let mut path = Vec::new();
    while let Some(Some((parent, a))) = parents.get(&fp) {
        path.push(*a);
        fp = *parent;
    }
    path.reverse();
    path
}
