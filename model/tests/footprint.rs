//! The promise sleep sets rely on (`webmcp_checker::Model::next_state_with_footprint`),
//! checked at every state of the standard scenarios under every variant (and the 2026-08
//! text): two enabled actions whose footprints do not conflict commute there (each stays
//! enabled after the other, and both orders reach the same state), and each one's footprint
//! is the same after the other (the engine carries it along a sleep set). Also: an action's
//! footprint is taken on the state `apply` gives, and the enabling condition it records
//! agrees with `enabled_actions`.

mod common;

use std::collections::{BTreeSet, HashSet};

use common::{enabled, every_variant, reachable, standard_worlds};
use webmcp_model::machine::Action;
use webmcp_model::state::State;
use webmcp_model::{Variant, WebMcpModel};

/// Scenarios with more reachable states are skipped (the verdict comparison of
/// `profiles/tests/reduction.rs` covers them).
const MAX_STATES: usize = 30_000;

#[test]
fn actions_whose_footprints_do_not_conflict_commute_and_keep_their_footprints() {
    let (mut independent, mut dependent, mut runs) = (0usize, 0usize, 0usize);
    // Every variant of the current text, and the earlier text as written.
    let mut variants = every_variant();
    variants.push(Variant::parse("seed@2026-08").unwrap());
    for world in standard_worlds() {
        for &variant in &variants {
            let m = WebMcpModel::new(world.clone(), variant);
            let Some(states) = reachable(&m, MAX_STATES) else {
                continue;
            };
            runs += 1;
            let name = format!("{} under {}", world.name, variant.name());
            for s in &states {
                let actions = enabled(&m, s);
                let steps: Vec<(State, _)> = actions
                    .iter()
                    .map(|&a| {
                        let (t, f) = m.apply_with_footprint(s, a);
                        assert_eq!(t, m.apply(s, a, &mut ()), "{name}: {a:?}");
                        (t, f)
                    })
                    .collect();
                for (i, &a) in actions.iter().enumerate() {
                    for (j, &b) in actions.iter().enumerate().skip(i + 1) {
                        let ((sa, fa), (sb, fb)) = (&steps[i], &steps[j]);
                        if fa.conflicts(fb) {
                            dependent += 1;
                            continue;
                        }
                        independent += 1;
                        let at = || format!("{name}: {a:?} and {b:?} at {s:?}");
                        assert!(m.is_enabled(sa, b), "{}: the first disables", at());
                        assert!(m.is_enabled(sb, a), "{}: the second disables", at());
                        let (sab, fb_after) = m.apply_with_footprint(sa, b);
                        let (sba, fa_after) = m.apply_with_footprint(sb, a);
                        assert_eq!(sab, sba, "{}: the two orders differ", at());
                        assert_eq!(&fb_after, fb, "{}: the second's footprint moved", at());
                        assert_eq!(&fa_after, fa, "{}: the first's footprint moved", at());
                    }
                }
            }
        }
    }
    // Not vacuous: many pairs are found independent, and many are not.
    assert!(runs > 100, "{runs} scenario runs");
    assert!(independent > 10_000, "{independent} independent pairs");
    assert!(dependent > 10_000, "{dependent} dependent pairs");
    eprintln!("{independent} independent and {dependent} dependent pairs in {runs} runs");
}

#[test]
fn the_enabling_condition_a_footprint_records_is_enabled_actions() {
    let mut compared = 0usize;
    for world in standard_worlds() {
        let m = WebMcpModel::new(world.clone(), Variant::SEED);
        let Some(states) = reachable(&m, MAX_STATES) else {
            continue;
        };
        // Every action enabled anywhere, asked of every state.
        let universe: BTreeSet<Action> = states.iter().flat_map(|s| enabled(&m, s)).collect();
        for s in &states {
            let on: HashSet<Action> = enabled(&m, s).into_iter().collect();
            for &a in &universe {
                assert_eq!(
                    m.enabled_condition(s, a),
                    on.contains(&a),
                    "{}: {a:?} at {s:?}",
                    world.name
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 100_000, "{compared} comparisons");
}
