//! `--mode sim`: random walks from the initial state, reproducible from a seed.
//!
//! A walk picks uniformly among the enabled actions until none is left (or `--max-depth`).
//! Simulation never proves a property; it finds violations and witnesses in scenarios too
//! large to explore exhaustively, and its verdicts are otherwise *incomplete*: its result is
//! always stopped, by `--runs` when every walk was taken, else by the bound that cut it short.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use webmcp_model::machine::{Action, WebMcpModel};
use webmcp_model::state::State;

use crate::bfs::CHECKPOINT;
use crate::driver::{outcome_shows, properties, CheckOptions, Exploration, Progress};
use crate::fingerprint::fingerprint;
use crate::limits::{Budget, StopReason};

pub(crate) fn simulate(
    model: &WebMcpModel,
    options: &CheckOptions,
    seed: u64,
    runs: u64,
    start: Instant,
    progress: &mut dyn FnMut(Progress),
) -> Exploration {
    let mut budget = Budget::new(start, options.timeout, options.memory_limit_mib);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut seen = HashSet::new();
    let mut discoveries: HashMap<&'static str, Vec<Action>> = HashMap::new();
    let mut total = 0usize;
    let mut max_depth = 0usize;
    let mut stopped_by = None;
    let record =
        |s: &State, path: &[Action], discoveries: &mut HashMap<&'static str, Vec<Action>>| {
            for def in properties() {
                let shorter = discoveries
                    .get(def.name)
                    .is_none_or(|p| p.len() > path.len());
                if shorter && outcome_shows(model, def, s) {
                    discoveries.insert(def.name, path.to_vec());
                }
            }
        };
    let mut actions = Vec::new();
    'runs: for _ in 0..runs {
        let mut s = model.initial_state();
        let mut path = Vec::new();
        seen.insert(fingerprint(&s));
        record(&s, &path, &mut discoveries);
        loop {
            if options.max_depth.is_some_and(|d| path.len() >= d) {
                break;
            }
            actions.clear();
            model.enabled_actions(&s, &mut actions);
            if actions.is_empty() {
                break;
            }
            let a = actions[rng.gen_range(0..actions.len())];
            s = model.apply(&s, a, &mut ());
            path.push(a);
            total += 1;
            seen.insert(fingerprint(&s));
            record(&s, &path, &mut discoveries);
            let out_of_budget = match options.max_states.filter(|n| total >= *n) {
                Some(n) => Some(StopReason::MaxStates { n }),
                None if (total as u64).is_multiple_of(CHECKPOINT) => {
                    progress(Progress {
                        total_states: total,
                        unique_states: seen.len(),
                        max_depth: max_depth.max(path.len()),
                        elapsed: start.elapsed(),
                    });
                    budget.exceeded()
                }
                None => None,
            };
            if out_of_budget.is_some() {
                stopped_by = out_of_budget;
                max_depth = max_depth.max(path.len());
                break 'runs;
            }
        }
        max_depth = max_depth.max(path.len());
    }
    Exploration {
        total_states: total,
        unique_states: seen.len(),
        max_depth,
        // Random walks are never exhaustive: when no other bound cut them short, the number
        // of walks did.
        stopped_by: stopped_by.or(Some(StopReason::Runs { n: runs })),
        discoveries,
    }
}
