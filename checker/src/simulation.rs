//! Random walks from the initial states, reproducible from a seed.
//!
//! A walk starts at an initial state chosen at random (the only one, for most models) and
//! picks uniformly among the enabled actions until none is left (or the depth bound).
//! Simulation never proves a property; it finds violations and witnesses in models too
//! large to explore exhaustively, and its verdicts are otherwise *incomplete*: its result is
//! always stopped, by the number of runs when every walk was taken, else by the bound that cut
//! it short.

use std::collections::HashSet;
use std::time::Instant;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::check::TerminalObserver;
use crate::fingerprint::fingerprint;
use crate::limits::{Budget, Checkpoints, StopReason};
use crate::model::Model;
use crate::options::{Options, Progress};
use crate::path::Path;
use crate::property::Property;
use crate::result::Exploration;

#[allow(clippy::too_many_arguments)]
pub(crate) fn simulate<M: Model>(
    model: &M,
    props: &[Property<M>],
    options: &Options,
    seed: u64,
    runs: u64,
    start: Instant,
    progress: &mut dyn FnMut(Progress),
    mut on_terminal: Option<TerminalObserver<'_, M::State>>,
) -> Exploration<M> {
    let mut budget = Budget::new(start, options.timeout, options.memory_limit_mib);
    let mut checkpoints = Checkpoints::new(start);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut seen = HashSet::new();
    let mut discoveries: Vec<Option<Path<M::State, M::Action>>> =
        (0..props.len()).map(|_| None).collect();
    let mut total = 0usize;
    let mut max_depth = 0usize;
    let mut stopped_by = None;
    let inits = model.init_states();
    // Keeps, per property, the shortest walk prefix that shows its outcome.
    let record = |init: &M::State,
                  s: &M::State,
                  path: &[M::Action],
                  discoveries: &mut [Option<Path<M::State, M::Action>>]| {
        for (p, d) in props.iter().zip(discoveries.iter_mut()) {
            let shorter = d.as_ref().is_none_or(|d| d.actions.len() > path.len());
            if shorter && p.shows(model, s) {
                *d = Some(Path {
                    init: init.clone(),
                    actions: path.to_vec(),
                });
            }
        }
    };
    let mut actions = Vec::new();
    'runs: for _ in 0..runs {
        let Some(init) = (match inits.len() {
            0 => None,
            1 => Some(&inits[0]),
            n => Some(&inits[rng.gen_range(0..n)]),
        }) else {
            break;
        };
        let mut s = init.clone();
        let mut path = Vec::new();
        // The walk's first state counts as generated, as the initial states do in the
        // searches, so that no count of unique states exceeds the states generated.
        total += 1;
        seen.insert(fingerprint(&s));
        record(init, &s, &path, &mut discoveries);
        loop {
            // Depth counts a path's states (the initial state is depth 1), as in the searches:
            // a walk under `--max-depth d` takes at most d - 1 actions.
            if options.max_depth.is_some_and(|d| path.len() + 1 >= d) {
                break;
            }
            actions.clear();
            model.actions(&s, &mut actions);
            if actions.is_empty() {
                if let Some(observe) = on_terminal.as_mut() {
                    observe(&s);
                }
                break;
            }
            let a = actions[rng.gen_range(0..actions.len())].clone();
            let Some(next) = model.next_state(&s, a.clone()) else {
                // An action that leads nowhere ends the walk.
                break;
            };
            s = next;
            path.push(a);
            total += 1;
            seen.insert(fingerprint(&s));
            record(init, &s, &path, &mut discoveries);
            let out_of_budget = match options.max_states.filter(|n| total >= *n) {
                Some(n) => Some(StopReason::MaxStates { n }),
                None if checkpoints.due() => {
                    progress(Progress {
                        total_states: total,
                        unique_states: seen.len(),
                        max_depth: max_depth.max(path.len() + 1),
                        elapsed: start.elapsed(),
                    });
                    budget.exceeded()
                }
                None => None,
            };
            if out_of_budget.is_some() {
                stopped_by = out_of_budget;
                max_depth = max_depth.max(path.len() + 1);
                break 'runs;
            }
        }
        max_depth = max_depth.max(path.len() + 1);
    }
    Exploration {
        total_states: total,
        unique_states: seen.len(),
        max_depth,
        // Random walks are never exhaustive: when no other bound cut them short, the number
        // of walks did.
        stopped_by: stopped_by.or(Some(StopReason::Runs { n: runs })),
        discoveries,
        phases: None,
    }
}
