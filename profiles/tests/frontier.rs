//! The compact frontier (`--frontier bytes`) changes nothing but memory: on every standard
//! scenario, under the draft and `proposed`, with and without symmetry, on one thread and on
//! two, the search keeping its frontier as bytes reaches the same states in the same order
//! (same counts, same depth) and reports the same verdicts and the same paths as the one
//! keeping values; and every
//! reachable state comes back from its bytes equal, with the same fingerprint.

use std::collections::{HashSet, VecDeque};

use webmcp_checker::fingerprint::fingerprint;
use webmcp_checker::{Model, StateCodec};
use webmcp_model::codec::Postcard;
use webmcp_model::{Variant, WebMcpModel};
use webmcp_profiles::{check, CheckOptions, FrontierStorage, ScenarioResult};

mod common;
use common::standard_worlds;

/// What a run shows: counts, depth, and per property its verdict and path.
fn outcome(r: &ScenarioResult) -> impl PartialEq + std::fmt::Debug {
    let paths: Vec<_> = r
        .properties
        .iter()
        .map(|p| {
            let actions: Option<Vec<_>> = p
                .path
                .as_ref()
                .map(|path| path.iter().map(|s| s.action).collect());
            (p.def.name, p.verdict, actions)
        })
        .collect();
    (
        r.total_states,
        r.unique_states,
        r.max_depth,
        r.exhaustive,
        paths,
    )
}

#[test]
fn a_frontier_of_bytes_gives_the_same_search_as_one_of_values() {
    let mut runs = 0;
    for world in standard_worlds() {
        for variant in [Variant::SEED, Variant::proposed()] {
            // One thread, with and without symmetry, and the parallel search on two.
            for (threads, symmetry) in [(1, false), (1, true), (2, false)] {
                let m = WebMcpModel::new(world.clone(), variant);
                let run = |frontier| {
                    check(
                        m.clone(),
                        &CheckOptions {
                            threads,
                            symmetry,
                            frontier,
                            ..CheckOptions::default()
                        },
                    )
                };
                let (values, bytes) = (run(FrontierStorage::Values), run(FrontierStorage::Bytes));
                assert_eq!(
                    outcome(&values),
                    outcome(&bytes),
                    "{} under {} ({threads} threads, symmetry {symmetry})",
                    world.name,
                    variant.name()
                );
                runs += 1;
            }
        }
    }
    assert!(runs >= 6 * 50, "only {runs} runs: the suite went missing");
}

#[test]
fn every_reachable_state_comes_back_from_its_bytes() {
    let mut states = 0usize;
    let mut largest = 0usize;
    for world in standard_worlds() {
        let m = WebMcpModel::new(world, Variant::SEED);
        let init = m.initial_state();
        let mut seen = HashSet::from([fingerprint(&init)]);
        let mut queue = VecDeque::from([init]);
        let mut actions = Vec::new();
        let mut bytes = Vec::new();
        while let Some(s) = queue.pop_front() {
            bytes.clear();
            Postcard.encode(&s, &mut bytes);
            let back = Postcard.decode(&bytes);
            assert_eq!(back, s);
            assert_eq!(fingerprint(&back), fingerprint(&s));
            states += 1;
            largest = largest.max(bytes.len());
            actions.clear();
            m.actions(&s, &mut actions);
            for a in actions.drain(..) {
                let t = m.apply(&s, a, &mut ());
                if seen.insert(fingerprint(&t)) {
                    queue.push_back(t);
                }
            }
        }
    }
    assert!(states > 200_000, "only {states} states");
    // The point of the form: a state is a few hundred bytes at most.
    assert!(largest < 512, "a state took {largest} bytes");
}
