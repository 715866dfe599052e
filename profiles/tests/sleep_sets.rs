//! Sleep sets change nothing a reader sees but the work: every standard scenario, under the
//! seed draft, every proposed fix and each fix alone, reaches with `Reduction::Sleep` the
//! same states (as many, to the same depth) as with `Reduction::None`, gives every property
//! the same verdict, with counterexamples and witnesses of the same length that replay on
//! the model and end where they show, and builds no more successors.

use webmcp_model::{Variant, WebMcpModel};
use webmcp_profiles::{check, Reduction, ScenarioResult, Verdict};

mod common;
use common::{options, replay_paths, standard_worlds};

/// Per property: its verdict, and the length of its path.
fn outcomes(r: &ScenarioResult) -> Vec<(&'static str, Verdict, Option<usize>)> {
    r.properties
        .iter()
        .map(|p| {
            (
                p.def.name,
                p.verdict,
                p.path.as_ref().map(|path| path.len()),
            )
        })
        .collect()
}

fn compare(variants: &[Variant]) {
    let (mut runs, mut fewer) = (0usize, 0usize);
    let (mut built, mut built_plain) = (0usize, 0usize);
    for world in standard_worlds() {
        for &variant in variants {
            let m = WebMcpModel::new(world.clone(), variant);
            let full = check(m.clone(), &options(Reduction::None));
            let asleep = check(m.clone(), &options(Reduction::Sleep));
            let name = format!("{} under {}", world.name, variant.name());
            assert!(
                full.exhaustive && asleep.exhaustive,
                "{name}: not exhaustive"
            );
            assert_eq!(full.unique_states, asleep.unique_states, "{name}: states");
            assert_eq!(full.max_depth, asleep.max_depth, "{name}: depth");
            assert_eq!(outcomes(&full), outcomes(&asleep), "{name}");
            assert!(
                asleep.total_states <= full.total_states,
                "{name}: more built"
            );
            if let Err(e) = replay_paths(&m, &asleep) {
                panic!("{name}: {e}");
            }
            runs += 1;
            fewer += usize::from(asleep.total_states < full.total_states);
            built += asleep.total_states;
            built_plain += full.total_states;
        }
    }
    // Not vacuous: sleep sets skip successors in most runs, and many in all.
    assert!(
        fewer * 2 > runs,
        "fewer successors in only {fewer} of {runs} runs"
    );
    assert!(
        built * 5 < built_plain * 4,
        "{built} successors against {built_plain}"
    );
    eprintln!("{built} successors built against {built_plain}, in {runs} runs");
}

#[test]
fn sleep_sets_change_no_state_and_no_verdict_of_the_draft() {
    compare(&[Variant::SEED]);
}

#[test]
fn sleep_sets_change_no_state_and_no_verdict_of_any_fix() {
    compare(&common::every_fix());
}
