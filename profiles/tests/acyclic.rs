//! The state graphs are acyclic (docs/model.md §6: every action consumes something finite: a
//! script statement, a queued task, a thread step, an environment budget, a body's one
//! settlement). Three arguments rest on it: liveness decided at terminal states (every
//! maximal run ends in one), partial-order reduction's cycle condition (C3, docs/model.md
//! §7: no action postponed around a cycle), and the height induction of the reduction's
//! proof. This walks every reachable graph of the standard suite, under the draft as
//! written, every proposed fix, each fix alone and the `2026-08` text, depth first: a state
//! met again while it is still on the walk's stack closes a cycle.

use webmcp_model::{Variant, WebMcpModel};

mod common;
use common::{every_fix, find_cycle, find_model_cycle, standard_worlds};

fn variants() -> Vec<Variant> {
    let mut all = vec![
        Variant::SEED,
        Variant::parse("seed@2026-08").expect("a revision"),
    ];
    all.extend(every_fix());
    all
}

#[test]
fn every_reachable_graph_of_the_suite_is_acyclic() {
    let mut walked = 0usize;
    let mut graphs = 0usize;
    for world in standard_worlds() {
        for variant in variants() {
            let m = WebMcpModel::new(world.clone(), variant);
            let (cycle, states) = find_model_cycle(&m);
            assert!(
                cycle.is_none(),
                "{} under {}: a cycle of {} states",
                world.name,
                variant.name(),
                cycle.map_or(0, |c| c.len() - 1)
            );
            walked += states;
            graphs += 1;
        }
    }
    assert!(graphs > 500, "{graphs} graphs");
    assert!(walked > 1_000_000, "{walked} states walked");
}

/// The walk finds a cycle where there is one: a self-loop, a cycle reached after a detour,
/// and none in a diamond (a state reached twice by different paths is no cycle).
#[test]
fn the_walk_finds_a_cycle_where_there_is_one() {
    let (cycle, _) = find_cycle(0u32, |&n| vec![n]);
    assert_eq!(cycle, Some(vec![0, 0]));
    let (cycle, _) = find_cycle(0u32, |&n| match n {
        0 => vec![1, 2],
        1 => vec![3],
        2 => vec![3],
        3 => vec![4],
        4 => vec![5],
        5 => vec![3],
        _ => vec![],
    });
    assert_eq!(cycle, Some(vec![3, 4, 5, 3]));
    let (cycle, walked) = find_cycle(0u32, |&n| match n {
        0 => vec![1, 2],
        1 | 2 => vec![3],
        _ => vec![],
    });
    assert_eq!((cycle, walked), (None, 4));
}
