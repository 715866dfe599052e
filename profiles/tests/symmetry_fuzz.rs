//! Symmetry against an adversary: scenarios whose calls are interchangeable, or nearly so
//! (`scenario_gen::near_symmetric`), checked with and without `--symmetry`. Wherever both
//! searches are exhaustive, every verdict and every path's length must be the same, and every
//! path found under symmetry must replay on the model as written; a scenario whose calls are
//! told apart by one detail must not be reduced as if they were not. The remembered renamed
//! digests (`call_symmetry::RenamedDigests`) live as long as the process, so checking
//! hundreds of scenarios in one process also checks that no scenario reads another's.
//!
//! 160 cases with a fixed seed; `SYMMETRY_FUZZ_CASES` overrides the count.

mod common;
mod scenario_gen;

use proptest::prelude::*;
use scenario_gen::{near_symmetric, Choices};
use webmcp_model::symmetry::Symmetry;
use webmcp_model::{Variant, WebMcpModel, World};
use webmcp_profiles::{check, CheckOptions, Reduction};

/// Small enough for a few hundred cases, large enough for two or three abortable calls.
const MAX_STATES: usize = 150_000;

fn cases() -> u32 {
    scenario_gen::cases("SYMMETRY_FUZZ_CASES", 160)
}

#[test]
fn symmetry_changes_no_verdict_on_nearly_symmetric_scenarios() {
    let mut runner = scenario_gen::runner(cases(), 15);
    let strategy = prop::collection::vec(any::<u32>(), 0..60);
    // Compared exhaustively; of which with a call group; of which with fewer states; with
    // the reductions; on two threads; stopped by the bound.
    let stats = std::cell::Cell::new([0usize; 6]);
    runner
        .run(&strategy, |numbers| {
            let mut c = Choices::new(&numbers);
            let text = near_symmetric(&mut c).to_string();
            let world = World::from_json(&text).map_err(|e| {
                TestCaseError::fail(format!("a generated scenario is rejected: {e}\n{text}"))
            })?;
            let grouped = !Symmetry::of(&world).calls().is_trivial();
            let mut s = stats.get();
            // One configuration per case, in turn: unreduced on one thread, with every
            // reduction on one thread, with every reduction on two.
            let (reduction, forget_facts, threads) = match numbers.first().map_or(0, |n| n % 3) {
                0 => (Reduction::None, false, 1),
                1 => (Reduction::Por, true, 1),
                _ => (Reduction::Por, true, 2),
            };
            let base = CheckOptions {
                reduction,
                forget_facts,
                max_states: Some(MAX_STATES),
                ..common::options(reduction)
            };
            let m = WebMcpModel::new(world, Variant::SEED);
            let plain = check(m.clone(), &base);
            let sym = check(
                m.clone(),
                &CheckOptions {
                    symmetry: true,
                    threads,
                    ..base
                },
            );
            prop_assert!(
                sym.unique_states <= plain.unique_states || !plain.exhaustive,
                "symmetry added states\n{text}"
            );
            if !(plain.exhaustive && sym.exhaustive) {
                s[5] += 1;
                stats.set(s);
                return Ok(());
            }
            prop_assert_eq!(common::outcomes(&plain), common::outcomes(&sym), "{}", text);
            if let Err(e) = common::replay_paths(&m, &sym) {
                return Err(TestCaseError::fail(format!("{e}\n{text}")));
            }
            if !grouped {
                // Nothing interchangeable but tabs, of which there is one.
                prop_assert_eq!(plain.unique_states, sym.unique_states, "{}", text);
            }
            s[0] += 1;
            s[1] += usize::from(grouped);
            s[2] += usize::from(sym.unique_states < plain.unique_states);
            s[3] += usize::from(reduction == Reduction::Por);
            s[4] += usize::from(threads == 2);
            stats.set(s);
            Ok(())
        })
        .unwrap();
    let [compared, grouped, fewer, reduced, parallel, bounded] = stats.get();
    eprintln!(
        "symmetry fuzz: {compared} compared exhaustively ({grouped} with a call group, {fewer} in fewer states; {reduced} with the reductions, {parallel} on two threads), {bounded} stopped by the bound"
    );
    // The fuzzer must exercise what it claims to: groups found and used, near misses not.
    let n = cases() as usize;
    assert!(compared * 2 > n, "fewer than half compared");
    assert!(grouped * 4 > compared && fewer * 5 > compared);
    assert!(compared > grouped, "no near miss");
    assert!(reduced * 4 > compared && parallel * 8 > compared);
}
