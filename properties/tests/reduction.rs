//! Partial-order reduction changes no verdict: every standard scenario, under the seed
//! draft, every proposed fix and each fix alone, gives the same verdict for every property
//! with `Reduction::Por` as with `Reduction::None`, in no more states; and every path the
//! reduced search reports (counterexample or witness) replays on the unreduced model and
//! ends in a state that shows the property's outcome.

use webmcp_model::state::State;
use webmcp_model::{Variant, WebMcpModel};
use webmcp_properties::{check, CheckOptions, Reduction, ScenarioResult, Verdict};

mod common;
use common::{options, replay_paths, standard_worlds};

fn verdicts(r: &ScenarioResult) -> Vec<(&'static str, Verdict)> {
    r.properties
        .iter()
        .map(|p| (p.def.name, p.verdict))
        .collect()
}

fn compare(variants: &[Variant]) {
    let mut fewer = 0usize;
    let mut runs = 0usize;
    for world in standard_worlds() {
        for &variant in variants {
            let m = WebMcpModel::new(world.clone(), variant);
            let full = check(m.clone(), &options(Reduction::None));
            let reduced = check(m.clone(), &options(Reduction::Por));
            let name = format!("{} under {}", world.name, variant.name());
            assert!(
                full.exhaustive && reduced.exhaustive,
                "{name}: not exhaustive"
            );
            assert_eq!(verdicts(&full), verdicts(&reduced), "{name}");
            assert!(reduced.unique_states <= full.unique_states, "{name}");
            fewer += usize::from(reduced.unique_states < full.unique_states);
            runs += 1;
            // Both reductions together (docs/model.md §7: the induction maps each path by
            // the symmetry that canonicalised its state).
            let both = check(
                m.clone(),
                &CheckOptions {
                    symmetry: true,
                    ..options(Reduction::Por)
                },
            );
            assert_eq!(verdicts(&full), verdicts(&both), "{name} with symmetry");
            assert!(both.unique_states <= reduced.unique_states, "{name}");
            if let Err(e) = replay_paths(&m, &both) {
                panic!("{name} with symmetry: {e}");
            }
            if let Err(e) = replay_paths(&m, &reduced) {
                panic!("{name}: {e}");
            }
        }
    }
    // Not vacuous: the reduction removes states somewhere.
    assert!(
        fewer * 4 > runs,
        "fewer states in only {fewer} of {runs} runs"
    );
}

/// The catalogue's side of the contract: no property tells a state from its safe step's
/// successor (checked on every state of the standard scenarios that has a safe step).
#[test]
fn no_property_sees_a_safe_step() {
    let props = webmcp_properties::properties();
    let mut seen = 0usize;
    for world in standard_worlds() {
        let m = WebMcpModel::new(world.clone(), Variant::SEED);
        let mut queue = std::collections::VecDeque::from([m.initial_state()]);
        let mut visited = std::collections::HashSet::new();
        while let Some(s) = queue.pop_front() {
            if !visited.insert(s.clone()) || visited.len() > 50_000 {
                continue;
            }
            if let Some((_, t)) = m.safe_step(&s) {
                seen += 1;
                for p in props {
                    assert_eq!(
                        (p.holds)(&m, &s),
                        (p.holds)(&m, &t),
                        "{}: {} sees a safe step",
                        world.name,
                        p.name
                    );
                }
            }
            let mut actions = Vec::new();
            m.enabled_actions(&s, &mut actions);
            queue.extend(actions.into_iter().map(|a| m.apply(&s, a, &mut ())));
        }
    }
    assert!(seen > 1_000, "{seen} safe steps");
}

type Predicate = fn(&WebMcpModel, &webmcp_model::state::State) -> bool;

/// The catalogue's side of the contract for sets of queuing steps: under the catalogue's
/// [`webmcp_properties::catalogue::VISIBILITY`], no always or sometimes property and no
/// witness tells a state from its successor by a step of the set, at the state and at every
/// state reached from it without taking a step of the set (up to 2,000 states from
/// each); a "sometimes" property or witness that holds at the state is shown there, and is
/// not asked.
#[test]
fn no_property_sees_a_queuing_step_on_any_path_that_takes_none() {
    let predicates = judged_predicates();
    let mut checked = 0usize;
    let pick = |m: &WebMcpModel, s: &State| {
        let mut set = Vec::new();
        let taken = m.safe_step(s).is_none()
            && m.task_alone(s).is_none()
            && m.persistent_steps(s, &mut set);
        taken.then(|| set.into_iter().map(|(a, _)| a).collect())
    };
    let sets = for_each_region(pick, |m, name, s, here, ample| {
        for &a in ample {
            let after = m.apply(here, a, &mut ());
            checked += 1;
            for (property, holds, sometimes) in &predicates {
                // A "sometimes" predicate that holds where the set is taken is shown there,
                // whatever follows.
                if *sometimes && holds(m, s) {
                    continue;
                }
                assert_eq!(
                    holds(m, here),
                    holds(m, &after),
                    "{name}: {property} sees {a:?} of {ample:?} at {here:?}"
                );
            }
        }
    });
    // Not vacuous: the catalogue leaves many queuing steps to the reduction.
    assert!(sets > 1_000, "{sets} sets of queuing steps");
    eprintln!("{sets} sets of queuing steps, {checked} steps checked along their regions");
}

/// Walks the standard scenarios (the draft and `proposed`, under the catalogue's
/// [`webmcp_properties::catalogue::VISIBILITY`], up to 30,000 states each); at each state
/// where `pick` names the actions a reduction takes, calls `check` at that state and at
/// every state reached from it without taking one of them (up to 2,000 states), with the
/// scenario's name, the state where the set was taken, the state reached, and the set.
/// Returns how many sets it walked from.
fn for_each_region(
    pick: impl Fn(&WebMcpModel, &State) -> Option<Vec<webmcp_model::machine::Action>>,
    mut check: impl FnMut(&WebMcpModel, &str, &State, &State, &[webmcp_model::machine::Action]),
) -> usize {
    const REGION: usize = 2_000;
    let mut sets = 0usize;
    for world in standard_worlds() {
        for variant in [Variant::SEED, Variant::proposed()] {
            let m = WebMcpModel::new(world.clone(), variant)
                .with_visibility(webmcp_properties::catalogue::VISIBILITY);
            let name = format!("{} under {}", world.name, variant.name());
            let mut queue = std::collections::VecDeque::from([m.initial_state()]);
            let mut visited = std::collections::HashSet::new();
            while let Some(s) = queue.pop_front() {
                if !visited.insert(s.clone()) || visited.len() > 30_000 {
                    continue;
                }
                if let Some(ample) = pick(&m, &s) {
                    sets += 1;
                    let mut region = std::collections::VecDeque::from([s.clone()]);
                    let mut seen = std::collections::HashSet::new();
                    while let Some(here) = region.pop_front() {
                        if seen.len() >= REGION || !seen.insert(here.clone()) {
                            continue;
                        }
                        check(&m, &name, &s, &here, &ample);
                        let mut actions = Vec::new();
                        m.enabled_actions(&here, &mut actions);
                        region.extend(
                            actions
                                .into_iter()
                                .filter(|b| !ample.contains(b))
                                .map(|b| m.apply(&here, b, &mut ())),
                        );
                    }
                }
                let mut actions = Vec::new();
                m.enabled_actions(&s, &mut actions);
                queue.extend(actions.into_iter().map(|a| m.apply(&s, a, &mut ())));
            }
        }
    }
    sets
}

#[test]
fn the_reduction_changes_no_verdict_of_the_draft() {
    compare(&[Variant::SEED]);
}

#[test]
fn the_reduction_changes_no_verdict_of_any_fix() {
    compare(&common::every_fix());
}

/// Each predicate the engine judges, and whether it is judged "sometimes" (shown once any
/// state has it) rather than "always" (shown by a state where it fails). At-termination
/// predicates are judged only where nothing is enabled, where no reduction takes a set.
fn judged_predicates() -> Vec<(&'static str, Predicate, bool)> {
    let props = webmcp_properties::properties();
    props
        .iter()
        .filter(|p| p.kind != webmcp_properties::Kind::AtTermination)
        .map(|p| {
            (
                p.name,
                p.holds,
                p.kind == webmcp_properties::Kind::Sometimes,
            )
        })
        .chain(props.iter().filter_map(|p| match p.witness {
            webmcp_properties::catalogue::Witness::State { holds, .. } => {
                Some((p.name, holds, true))
            }
            _ => None,
        }))
        .collect()
}

/// Whether `after` keeps every outcome `here` shows: an always predicate that fails at `here`
/// fails at `after`, a sometimes predicate that holds at `here` holds at `after`.
fn outcomes_kept(
    m: &WebMcpModel,
    predicates: &[(&'static str, Predicate, bool)],
    here: &webmcp_model::state::State,
    after: &webmcp_model::state::State,
) -> Result<(), &'static str> {
    for (name, holds, sometimes) in predicates {
        let (before, now) = (holds(m, here), holds(m, after));
        let lost = if *sometimes {
            before && !now
        } else {
            !before && now
        };
        if lost {
            return Err(name);
        }
    }
    Ok(())
}

/// The catalogue's claim `toolchange_fired_keeps_outcomes`: at every state of the standard
/// scenarios, one more `toolchange` event at any document (its counter up by one, as
/// `fire_toolchange` moves it) keeps every outcome the state shows.
#[test]
fn one_more_toolchange_event_keeps_every_outcome() {
    // The claim this test checks is the one the catalogue makes.
    const { assert!(webmcp_properties::catalogue::VISIBILITY.toolchange_fired_keeps_outcomes) };
    let predicates = judged_predicates();
    let mut checked = 0usize;
    for world in standard_worlds() {
        let m = WebMcpModel::new(world.clone(), Variant::SEED);
        let mut queue = std::collections::VecDeque::from([m.initial_state()]);
        let mut visited = std::collections::HashSet::new();
        while let Some(s) = queue.pop_front() {
            if !visited.insert(s.clone()) || visited.len() > 30_000 {
                continue;
            }
            for d in 0..s.docs.len() {
                let mut after = s.clone();
                let counter = &mut after.docs[d].toolchanges;
                *counter = (*counter + 1).min(webmcp_model::state::TOOLCHANGES_COUNTED);
                checked += 1;
                if let Err(name) = outcomes_kept(&m, &predicates, &s, &after) {
                    panic!("{}: {name} loses its outcome when document {d} hears one more toolchange, at {s:?}", world.name);
                }
            }
            let mut actions = Vec::new();
            m.enabled_actions(&s, &mut actions);
            queue.extend(actions.into_iter().map(|a| m.apply(&s, a, &mut ())));
        }
    }
    assert!(checked > 10_000, "{checked} states and documents checked");
}

/// The argument for a task alone (`docs/model.md` §7): under the catalogue's
/// [`webmcp_properties::catalogue::VISIBILITY`], running the task keeps every outcome, at the
/// state where it is taken and at every state reached from it without running it (up to
/// 2,000 states from each), except that of a sometimes property shown where it is taken.
#[test]
fn a_task_alone_keeps_every_outcome_on_any_path_that_does_not_run_it() {
    let predicates = judged_predicates();
    let mut checked = 0usize;
    let pick = |m: &WebMcpModel, s: &State| m.task_alone(s).map(|(a, _)| vec![a]);
    let sets = for_each_region(pick, |m, name, s, here, ample| {
        // A sometimes property that holds where the task is taken is shown there.
        let unshown: Vec<_> = predicates
            .iter()
            .filter(|(_, holds, sometimes)| !(*sometimes && holds(m, s)))
            .copied()
            .collect();
        let after = m.apply(here, ample[0], &mut ());
        checked += 1;
        if let Err(property) = outcomes_kept(m, &unshown, here, &after) {
            panic!("{name}: {property} loses its outcome by {ample:?} at {here:?}");
        }
    });
    // Not vacuous: the catalogue leaves many tasks to the reduction.
    assert!(sets > 1_000, "{sets} tasks taken alone");
    eprintln!("{sets} tasks taken alone, {checked} runs checked along their regions");
}
