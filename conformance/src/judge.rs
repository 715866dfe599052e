//! The set of observations the draft allows for a scripted scenario (every
//! interleaving, under one variant), and the verdict on an observed one.

use std::collections::{BTreeSet, HashSet, VecDeque};

use webmcp_model::state::{ScriptStatus, State};
use webmcp_model::{Variant, WebMcpModel, World};

use crate::observation::{from_state, Observation};

/// States explored at most per scenario and variant (about 1.6 GB of memory at the limit).
pub const STATE_LIMIT: usize = 2_000_000;

#[derive(Clone, Debug)]
pub struct Allowed {
    /// The observations of every quiescent state (no action enabled).
    pub observations: BTreeSet<Observation>,
    pub states: usize,
    /// False when the state limit stopped the exploration.
    pub complete: bool,
}

/// Explores every reachable state of `world` under `variant` (breadth first)
/// and projects each state where nothing more can happen.
pub fn allowed(world: &World, variant: Variant) -> Allowed {
    allowed_within(world, variant, STATE_LIMIT)
}

/// [`allowed`], exploring at most `limit` states.
pub fn allowed_within(world: &World, variant: Variant, limit: usize) -> Allowed {
    let mut observations = BTreeSet::new();
    let (states, complete) = explore_quiescent(world, variant, limit, |s| {
        observations.insert(from_state(world, variant, s));
    });
    Allowed {
        observations,
        states,
        complete,
    }
}

/// What the browser form must run for an observation to say anything: the statements
/// that run in every quiescent outcome of the scenario *without* its environment's
/// interventions (the schedule a browser form aims at: every statement runs, and the
/// interventions land while a tool body runs), and whether a tool body is invoked in
/// every such outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coverage {
    /// (document, statement index) pairs.
    pub statements: BTreeSet<(String, usize)>,
    pub body_always_invoked: bool,
    pub complete: bool,
}

/// The [`Coverage`] of `world` under `variant`.
pub fn required_coverage(world: &World, variant: Variant) -> Coverage {
    required_coverage_within(world, variant, STATE_LIMIT)
}

/// [`required_coverage`], exploring at most `limit` states.
pub fn required_coverage_within(world: &World, variant: Variant, limit: usize) -> Coverage {
    let mut quiet = world.clone();
    quiet.env.abort.clear();
    quiet.env.remove_iframe.clear();
    let mut statements: Option<BTreeSet<(String, usize)>> = None;
    let mut body_always_invoked = true;
    let (_, complete) = explore_quiescent(&quiet, variant, limit, |s| {
        let ran = statements_started(&quiet, s);
        statements = Some(match statements.take() {
            None => ran,
            Some(all) => all.intersection(&ran).cloned().collect(),
        });
        body_always_invoked &= !s.bodies.is_empty();
    });
    Coverage {
        statements: statements.unwrap_or_default(),
        body_always_invoked,
        complete,
    }
}

/// Why no outcome the model allows invokes a tool body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoBody {
    /// No statement executes a tool.
    NoExecution,
    /// Every execution is rejected before a body runs, in every outcome `variant` allows.
    Rejected { variant: String },
    /// The exploration stopped at `states` without reaching a body.
    Incomplete { states: usize },
}

impl std::fmt::Display for NoBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoBody::NoExecution => {
                f.write_str("no statement executes a tool: registration and discovery only")
            }
            NoBody::Rejected { variant } => write!(
                f,
                "every execution is rejected before a body runs, in every outcome {variant} allows"
            ),
            NoBody::Incomplete { states } => {
                write!(f, "no body in the {states} states explored (incomplete)")
            }
        }
    }
}

impl std::error::Error for NoBody {}

/// Whether some outcome the model allows under `variant` invokes a tool body, or why none
/// does.
pub fn reaches_body(world: &World, variant: Variant) -> Result<(), NoBody> {
    let executes = world.docs.iter().any(|d| {
        d.script
            .iter()
            .any(|op| matches!(op, webmcp_model::world::Op::Execute(_)))
    });
    if !executes {
        return Err(NoBody::NoExecution);
    }
    let mut invoked = false;
    let (_, complete) = explore_quiescent(world, variant, STATE_LIMIT, |s| {
        invoked |= !s.bodies.is_empty()
    });
    match (invoked, complete) {
        (true, _) => Ok(()),
        (false, true) => Err(NoBody::Rejected {
            variant: variant.name(),
        }),
        (false, false) => Err(NoBody::Incomplete {
            states: STATE_LIMIT,
        }),
    }
}

/// The statements each document's script has started in `s` (a statement that threw
/// started; a script waiting at an await has started it).
pub fn statements_started(world: &World, s: &State) -> BTreeSet<(String, usize)> {
    let mut out = BTreeSet::new();
    for (d, doc) in world.docs.iter().enumerate() {
        let script = s.docs[d].script;
        let started = match script.status {
            ScriptStatus::Threw => script.pc as usize + 1,
            _ => script.pc as usize,
        };
        for i in 0..started.min(doc.script.len()) {
            out.insert((doc.name.clone(), i));
        }
    }
    out
}

/// Explores every reachable state of `world` under `variant` (breadth first) and calls
/// `at_quiescence` on each state where no action is enabled. Returns the states explored
/// and whether the exploration was complete (at most `limit` states).
fn explore_quiescent(
    world: &World,
    variant: Variant,
    limit: usize,
    mut at_quiescence: impl FnMut(&State),
) -> (usize, bool) {
    let model = WebMcpModel::new(world.clone(), variant);
    let init = model.initial_state();
    let mut seen = HashSet::new();
    let mut queue = VecDeque::new();
    seen.insert(init.clone());
    queue.push_back(init);
    let mut actions = Vec::new();
    let mut complete = true;
    while let Some(s) = queue.pop_front() {
        actions.clear();
        model.enabled_actions(&s, &mut actions);
        if actions.is_empty() {
            at_quiescence(&s);
            continue;
        }
        for &a in &actions {
            let next = model.apply(&s, a, &mut ());
            if !seen.contains(&next) {
                if seen.len() >= limit {
                    complete = false;
                    continue;
                }
                seen.insert(next.clone());
                queue.push_back(next);
            }
        }
    }
    (seen.len(), complete)
}

/// Where an observation departs from the closest allowed one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub key: String,
    /// What the implementation showed (None: nothing).
    pub observed: Option<String>,
    /// What the closest allowed observation has (None: nothing).
    pub allowed: Option<String>,
}

/// Whether `observed` is allowed; if not, the differences to the closest
/// allowed observation (fewest differing keys; ties broken by order).
pub fn judge(
    observed: &Observation,
    allowed: &BTreeSet<Observation>,
) -> Result<(), Vec<Difference>> {
    if allowed.contains(observed) {
        return Ok(());
    }
    let best = allowed
        .iter()
        .map(|a| differences(observed, a))
        .min_by_key(Vec::len)
        .unwrap_or_default();
    Err(best)
}

pub fn differences(observed: &Observation, allowed: &Observation) -> Vec<Difference> {
    let keys: BTreeSet<&String> = observed.keys().chain(allowed.keys()).collect();
    keys.into_iter()
        .filter(|k| observed.get(*k) != allowed.get(*k))
        .map(|k| Difference {
            key: k.clone(),
            observed: observed.get(k).cloned(),
            allowed: allowed.get(k).cloned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form::derive;
    use proptest::prelude::*;
    use webmcp_model::scenario::Scenario;

    fn world(name: &str) -> World {
        let path = format!("{}/../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
        let sc: Scenario = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        World::compile(&derive(&sc).unwrap().judged).unwrap()
    }

    #[test]
    fn register_and_discover_allows_exactly_the_list_with_t1() {
        let a = allowed(&world("register-and-discover"), Variant::SEED);
        assert!(a.complete);
        assert!(!a.observations.is_empty());
        for o in &a.observations {
            assert_eq!(o["top: script"], "finished");
            assert!(
                o.values()
                    .any(|v| v.starts_with("fulfilled tools [t1 @https://a.example in top")),
                "{o:?}"
            );
        }
    }

    #[test]
    fn a_changed_value_is_a_divergence_naming_the_key() {
        let a = allowed(&world("register-and-discover"), Variant::SEED);
        let mut o = a.observations.iter().next().unwrap().clone();
        o.insert("top: script".into(), "threw at 0".into());
        let diffs = judge(&o, &a.observations).unwrap_err();
        assert_eq!(diffs.len(), 1);
        assert_eq!(diffs[0].key, "top: script");
        assert_eq!(diffs[0].observed.as_deref(), Some("threw at 0"));
    }

    #[test]
    fn every_execution_scenario_with_a_browser_form_reaches_a_body_or_says_why_not() {
        for name in [
            "parent-executes-cross-origin-tool",
            "abort-cross-document-while-body-runs",
            "remove-cross-origin-target-while-body-waits",
            "tool-returns-object",
            "undefined-input",
        ] {
            assert_eq!(
                reaches_body(&world(name), Variant::proposed()),
                Ok(()),
                "{name}"
            );
        }
        let why = reaches_body(&world("primitive-inputs"), Variant::proposed()).unwrap_err();
        assert!(
            why.to_string().contains("rejected before a body runs"),
            "{why}"
        );
        let why = reaches_body(&world("register-and-discover"), Variant::proposed()).unwrap_err();
        assert_eq!(why, NoBody::NoExecution);
        assert!(
            why.to_string().contains("no statement executes a tool"),
            "{why}"
        );
    }

    fn random_walk_observation(w: &World, variant: Variant, choices: &[usize]) -> Observation {
        let model = WebMcpModel::new(w.clone(), variant);
        let mut s = model.initial_state();
        let mut actions = Vec::new();
        let mut i = 0;
        loop {
            actions.clear();
            model.enabled_actions(&s, &mut actions);
            if actions.is_empty() {
                return from_state(w, variant, &s);
            }
            let pick = actions[choices[i % choices.len()] % actions.len()];
            i += 1;
            s = model.apply(&s, pick, &mut ());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, rng_seed: proptest::test_runner::RngSeed::Fixed(7), ..ProptestConfig::default() })]
        /// Any path of the model to quiescence ends in an allowed observation.
        #[test]
        fn every_model_path_is_judged_allowed(
            choices in proptest::collection::vec(0usize..16, 1..40),
            which in 0usize..4,
            proposed in any::<bool>(),
        ) {
            let name = ["abort-before-dispatch", "target-unloaded-mid-execution", "two-concurrent-executions", "toolchange-ordering-example"][which];
            let w = world(name);
            let variant = if proposed { Variant::proposed() } else { Variant::SEED };
            let a = allowed(&w, variant);
            let o = random_walk_observation(&w, variant, &choices);
            prop_assert!(judge(&o, &a.observations).is_ok(), "{name}: {o:?}");
        }
    }
}
