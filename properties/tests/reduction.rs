//! Partial-order reduction changes no verdict: every standard scenario, under the seed
//! draft, every proposed fix and each fix alone, gives the same verdict for every property
//! with `Reduction::Por` as with `Reduction::None`, in no more states; and every path the
//! reduced search reports (counterexample or witness) replays on the unreduced model and
//! ends in a state that shows the property's outcome.

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

#[test]
fn the_reduction_changes_no_verdict_of_the_draft() {
    compare(&[Variant::SEED]);
}

#[test]
fn the_reduction_changes_no_verdict_of_any_fix() {
    compare(&common::every_fix());
}
