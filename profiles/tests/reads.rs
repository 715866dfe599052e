//! Each property (and each property's witness) that claims to read only some of a state's
//! parts (`PropertyDef::reads`, `Witness::State::reads`) judges a state as it judges any
//! other state with the same such parts. Our searches rely on it: they do not judge such a
//! predicate again at a state that shares those parts, unchanged, with the state it was
//! reached from. A claim that left out a part the predicate reads would let the search skip
//! a judgment whose outcome changed.
//!
//! Checked on the reachable states of the standard scenarios, under the seed text and under
//! every proposed fix, two ways: a state given the claimed parts of another
//! (`State::with_parts_of`) is judged as that other; and the footprint tracker sees the
//! predicate touch nothing outside its claim (`State::parts_touched_by`), at every state,
//! while a state given another `env` (which no claim may read) is judged the same.

mod common;

use std::collections::HashSet;

use common::{reachable_up_to, standard_worlds};
use webmcp_checker::Reads;
use webmcp_model::state::{parts, State};
use webmcp_model::{Variant, WebMcpModel};
use webmcp_profiles::catalogue::{catalogue, Witness};

/// Scenarios with more reachable states are left out of the test that mixes states.
const MAX_STATES: usize = 20_000;
/// The tracker's test costs less per state: it takes every standard scenario (the largest,
/// target-in-bfcache, has 108,900 states).
const MAX_STATES_TRACKED: usize = 150_000;
/// Each state is mixed with this many others: the states whose ghost facts differ from
/// every earlier one's (where the claims matter), then every so many states.
const DONORS: usize = 64;
const SAMPLE_EVERY: usize = 7;
/// States per claim where its predicate judges otherwise than at the initial state.
const RARE: usize = 3;

/// A predicate that claims to read only some parts: a property's, or a witness's.
struct Claim {
    name: String,
    holds: fn(&WebMcpModel, &State) -> bool,
    mask: u32,
    /// A witness's claim (`Witness::State`), not the property's own.
    witness: bool,
}

/// Every claim of the catalogue: the properties', then the witnesses' (`Witness::State`).
fn claims() -> Vec<Claim> {
    let mut claims = Vec::new();
    for p in catalogue() {
        if let Reads::Parts(mask) = p.reads {
            claims.push(Claim {
                name: p.name.to_string(),
                holds: p.holds,
                mask,
                witness: false,
            });
        }
        if let Witness::State {
            holds,
            reads: Reads::Parts(mask),
            ..
        } = p.witness
        {
            claims.push(Claim {
                name: format!("the witness of {}", p.name),
                holds,
                mask,
                witness: true,
            });
        }
    }
    claims
}

fn reachable(m: &WebMcpModel) -> Option<Vec<State>> {
    reachable_up_to(m, MAX_STATES)
}

/// The states whose parts others are given: for each claim, the first few states where its
/// predicate judges otherwise than at the initial state (its rare outcome, where a part left
/// out shows); each new set of ghost facts; then a sample.
fn donors<'s>(m: &WebMcpModel, states: &'s [State], claims: &[Claim]) -> Vec<&'s State> {
    let mut chosen: Vec<&State> = Vec::new();
    for p in claims {
        let usual = (p.holds)(m, &states[0]);
        chosen.extend(
            states
                .iter()
                .filter(|s| (p.holds)(m, s) != usual)
                .take(RARE),
        );
    }
    let mut ghosts = HashSet::new();
    chosen.extend(
        states
            .iter()
            .filter(|s| ghosts.insert(format!("{:?}", s.ghost)))
            .take(DONORS / 2),
    );
    chosen.extend(states.iter().step_by(SAMPLE_EVERY).take(DONORS / 2));
    chosen
}

#[test]
fn a_property_reads_no_more_than_it_claims() {
    let claims = claims();
    assert!(
        claims.iter().any(|p| p.name.starts_with("assert:")),
        "the Asserts claim to read the ghost facts alone"
    );
    assert_eq!(
        claims.iter().filter(|p| p.witness).count(),
        catalogue()
            .iter()
            .filter(|p| matches!(p.witness, Witness::State { .. }))
            .count(),
        "every witness claims what it reads"
    );
    let (mut judged, mut turned, mut scenarios) = (0usize, 0usize, 0usize);
    // Per claim: whether its outcome ever changed with the parts given, and which of its
    // parts were seen to matter (given all but that one, the outcome was not the other's).
    let mut varies = vec![false; claims.len()];
    let mut matters = vec![0u32; claims.len()];
    for world in standard_worlds() {
        for variant in [Variant::SEED, Variant::proposed()] {
            let name = world.name.clone();
            let m = WebMcpModel::new(world.clone(), variant);
            let Some(states) = reachable(&m) else {
                continue;
            };
            scenarios += 1;
            let donors = donors(&m, &states, &claims);
            for s in states.iter().step_by(SAMPLE_EVERY) {
                for other in &donors {
                    for (k, p) in claims.iter().enumerate() {
                        let mask = p.mask;
                        let mixed = s.with_parts_of(other, mask);
                        let expected = (p.holds)(&m, other);
                        assert_eq!(
                            (p.holds)(&m, &mixed),
                            expected,
                            "{name}: {} judges a state with another's parts {mask:#b} otherwise \
                             than the other:\n{s:?}\nwith the parts of\n{other:?}",
                            p.name
                        );
                        judged += 1;
                        if (p.holds)(&m, s) != expected {
                            turned += 1;
                            varies[k] = true;
                            for bit in (0..32).map(|i| 1u32 << i).filter(|b| mask & b != 0) {
                                if matters[k] & bit == 0
                                    && (p.holds)(&m, &s.with_parts_of(other, mask & !bit))
                                        != expected
                                {
                                    matters[k] |= bit;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(
        scenarios >= 20,
        "only {scenarios} scenarios were small enough"
    );
    assert!(judged > 100_000, "only {judged} judgments");
    // Each part a claim names was seen to matter, wherever its outcome varies at all: so
    // the test would have caught that part left out.
    for (k, p) in claims.iter().enumerate() {
        if varies[k] {
            assert_eq!(matters[k], p.mask, "{}: parts never seen to matter", p.name);
        }
    }
    assert!(
        varies.iter().filter(|v| **v).count() >= 15,
        "the outcomes of only {} claims vary",
        varies.iter().filter(|v| **v).count()
    );
    // Not vacuous: the parts given change the verdict often enough to catch a part left out.
    assert!(
        turned > 1_000,
        "the parts given changed only {turned} verdicts"
    );
}

/// The footprint tracker (`webmcp_model::coll::track`) sees every access a predicate makes
/// to a state's top-level collections, whether or not the value read decides anything. So
/// this holds each claim to what its predicate touches at every reachable state of every
/// standard scenario, not only where a part left out would have changed an outcome.
#[test]
fn a_property_touches_nothing_outside_its_claim() {
    let claims = claims();
    let mut touched = vec![0u32; claims.len()];
    let (mut judged, mut scenarios, mut envs_swapped) = (0usize, 0usize, 0usize);
    for world in standard_worlds() {
        for variant in [Variant::SEED, Variant::proposed()] {
            let name = world.name.clone();
            let m = WebMcpModel::new(world.clone(), variant);
            let Some(states) = reachable_up_to(&m, MAX_STATES_TRACKED) else {
                continue;
            };
            scenarios += 1;
            let mut envs = Vec::new();
            for s in &states {
                if !envs.contains(&s.env) {
                    envs.push(s.env);
                }
            }
            for (i, s) in states.iter().enumerate() {
                // The tracker does not see `env` (not a collection), which no claim may read:
                // the same state with another state's `env` is judged the same.
                let other_env = (0..envs.len())
                    .map(|k| &envs[(i + k) % envs.len()])
                    .find(|e| **e != s.env)
                    .map(|e| {
                        let mut t = s.clone();
                        t.env = *e;
                        t
                    });
                envs_swapped += usize::from(other_env.is_some());
                for (k, p) in claims.iter().enumerate() {
                    let mask = p.mask;
                    let (outcome, parts) = s.parts_touched_by(|s| (p.holds)(&m, s));
                    assert_eq!(
                        parts & !mask,
                        0,
                        "{name}: {} claims the parts {mask:#b} but touched {parts:#b} at\n{s:?}",
                        p.name
                    );
                    if let Some(t) = &other_env {
                        assert_eq!(
                            (p.holds)(&m, t),
                            outcome,
                            "{name}: {} reads `env`, which no claim covers, at\n{s:?}",
                            p.name
                        );
                    }
                    touched[k] |= parts;
                    judged += 1;
                }
            }
        }
    }
    assert_eq!(
        scenarios,
        2 * standard_worlds().len(),
        "every standard scenario, under the seed text and the proposed fixes"
    );
    assert!(judged > 100_000, "only {judged} judgments");
    assert!(
        envs_swapped > 100_000,
        "only {envs_swapped} states judged with another `env`"
    );
    // No claim is wider than its predicate's reach: each part it names was touched somewhere
    // (and the tracker saw something at all).
    for (p, parts) in claims.iter().zip(&touched) {
        assert_eq!(
            *parts, p.mask,
            "{}: parts claimed but never touched",
            p.name
        );
    }
}

#[test]
fn a_part_marked_unchanged_is_the_parent_s() {
    let all = parts::DOCS
        | parts::NAVS
        | parts::QUEUES
        | parts::THREADS
        | parts::PROMISES
        | parts::CONTROLLERS
        | parts::PENDING
        | parts::BODIES
        | parts::GHOST;
    assert_eq!(all, (1 << 9) - 1, "nine parts, one bit each");
    let (mut successors, mut changed) = (0usize, 0usize);
    let mut actions = Vec::new();
    for world in standard_worlds().into_iter().take(12) {
        let m = WebMcpModel::new(world, Variant::SEED);
        let Some(states) = reachable(&m) else {
            continue;
        };
        for s in &states {
            assert_eq!(
                s.unchanged_parts(&s.clone()),
                all,
                "a copy shares every part"
            );
            actions.clear();
            m.enabled_actions(s, &mut actions);
            for &a in &actions {
                let next = m.apply(s, a, &mut ());
                let unchanged = s.unchanged_parts(&next);
                for bit in (0..9).map(|i| 1u32 << i) {
                    if unchanged & bit != 0 {
                        assert_eq!(&s.with_parts_of(&next, bit), s, "{a:?}: part {bit:#b}");
                    } else if &s.with_parts_of(&next, bit) != s {
                        changed += 1;
                    }
                }
                successors += 1;
            }
        }
    }
    assert!(successors > 10_000, "only {successors} successors");
    assert!(changed >= successors / 2, "only {changed} parts changed");
}
