//! How many of a scenario's states exist only because the facts recorded for the properties
//! (`State::ghost`) stay in every state after the one where they were recorded.
//!
//! Most facts record that a property failed (an Assert's condition was false, a map entry was
//! missing, a promise settled off its event loop, ...). Their properties read only whether a
//! fact of their kind is present, and no transition reads them; so once a state holding one
//! has been judged, the fact is *dead* in Spin's sense: nothing that follows can tell it is
//! there, yet a search that keeps it keeps the states with it apart from the same states
//! without it (`model/src/reduction/dead_facts.rs`; `check --forget-facts` forgets them).
//! The example counts the states of three unreduced breadth-first searches:
//!
//! - **as modelled**: every fact stays;
//! - **forgotten after one state**: a state is expanded with its dead facts removed, so a fact lives only in the state its transition reached (a change of the
//!   model's successors that any engine could make);
//! - **forgotten where recorded**: a successor is judged where it is generated and kept
//!   without its dead facts, so states differing only in them are one (what
//!   `check --forget-facts` stores).
//!
//! It checks itself: every property shows the same outcome (counterexample or witness) in
//! all three, and all three reach the same terminal states once their dead facts are set
//! aside, or the example panics. `docs/performance.md` ("Facts that outlive their
//! state") gives the numbers.
//!
//! ```sh
//! target/release/webmcp-check bench --print-family caller-target:2 > ct2.json
//! cargo run --release --example fact_profile -- ct2.json
//! cargo run --release --example fact_profile -- ct2.json proposed
//! ```

use std::collections::{BTreeMap, HashSet, VecDeque};

use webmcp_checker::fingerprint::fingerprint;
use webmcp_model::state::Ghost;
use webmcp_model::{State, Variant, WebMcpModel, World};

/// `s` without its dead facts ([`WebMcpModel::forget_dead_facts`]).
fn forget(m: &WebMcpModel, s: &State) -> State {
    m.forget_dead_facts(s).unwrap_or_else(|| s.clone())
}

#[derive(Clone, Copy, PartialEq)]
enum Search {
    AsModelled,
    ForgottenAfterOneState,
    ForgottenWhereRecorded,
}

struct Count {
    states: usize,
    /// Per kind of fact, the states that hold one.
    holding: BTreeMap<String, usize>,
    shown: Vec<bool>,
    terminal: HashSet<u64>,
}

/// The kind of a fact: its variant's name.
fn kind(g: &Ghost) -> String {
    let name = format!("{g:?}");
    name.split('(').next().unwrap_or_default().to_owned()
}

fn search(m: &WebMcpModel, how: Search) -> Count {
    let props = webmcp_profiles::driver::engine_properties();
    let stored = |s: &State| match how {
        Search::ForgottenWhereRecorded => fingerprint(&forget(m, s)),
        _ => fingerprint(s),
    };
    let init = m.initial_state();
    let mut seen = HashSet::from([stored(&init)]);
    let mut queue = VecDeque::from([init]);
    let mut count = Count {
        states: 0,
        holding: BTreeMap::new(),
        shown: vec![false; props.len()],
        terminal: HashSet::new(),
    };
    let mut actions = Vec::new();
    while let Some(s) = queue.pop_front() {
        count.states += 1;
        actions.clear();
        m.enabled_actions(&s, &mut actions);
        let terminal = actions.is_empty();
        for (shown, p) in count.shown.iter_mut().zip(props) {
            *shown |= p.shows_at(m, &s, terminal);
        }
        if terminal {
            count.terminal.insert(fingerprint(&forget(m, &s)));
        }
        let mut kinds: Vec<String> = s.ghost.iter().map(kind).collect();
        kinds.dedup();
        for k in kinds {
            *count.holding.entry(k).or_default() += 1;
        }
        let from = match how {
            Search::AsModelled => s,
            _ => forget(m, &s),
        };
        for &a in &actions {
            let next = m.apply(&from, a, &mut ());
            if how == Search::ForgottenWhereRecorded {
                // Judged where generated: the state stored below may not hold its facts.
                let mut after = Vec::new();
                m.enabled_actions(&next, &mut after);
                let terminal = after.is_empty();
                for (shown, p) in count.shown.iter_mut().zip(props) {
                    *shown |= p.shows_at(m, &next, terminal);
                }
            }
            if seen.insert(stored(&next)) {
                queue.push_back(match how {
                    Search::ForgottenWhereRecorded => forget(m, &next),
                    _ => next,
                });
            }
        }
    }
    count
}

fn main() {
    let path = std::env::args().nth(1).expect("a scenario file");
    let world =
        World::from_json(&std::fs::read_to_string(&path).expect("readable")).expect("compiles");
    let variant = std::env::args().nth(2).unwrap_or_else(|| "seed".into());
    let m = WebMcpModel::new(world, Variant::parse(&variant).expect("a variant"))
        .with_visibility(webmcp_profiles::catalogue::VISIBILITY);
    let modelled = search(&m, Search::AsModelled);
    let after_one = search(&m, Search::ForgottenAfterOneState);
    let where_recorded = search(&m, Search::ForgottenWhereRecorded);
    for (name, c) in [
        ("forgotten after one state", &after_one),
        ("forgotten where recorded", &where_recorded),
    ] {
        assert!(c.shown == modelled.shown, "{name}: an outcome differs");
        assert!(
            c.terminal == modelled.terminal,
            "{name}: the terminal states differ"
        );
    }
    println!("{path}, variant {variant}");
    println!(
        "states: as modelled {}, forgotten after one state {} ({:.2}x), forgotten where recorded {} ({:.2}x)",
        modelled.states,
        after_one.states,
        modelled.states as f64 / after_one.states as f64,
        where_recorded.states,
        modelled.states as f64 / where_recorded.states as f64,
    );
    println!("states holding a fact of each kind, as modelled:");
    for (k, n) in &modelled.holding {
        println!("  {k}: {n}");
    }
    println!(
        "outcomes shown: {} of {} properties, the same in all three",
        modelled.shown.iter().filter(|&&x| x).count(),
        modelled.shown.len()
    );
}
