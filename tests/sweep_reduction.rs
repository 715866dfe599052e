//! Partial-order reduction on the space CI sweeps (`sweep --bound small`, the draft as
//! written; docs/ci.md), scenario by scenario: every one of its 22,282 canonical scenarios is
//! checked with and without the reduction, each property's verdict must be the same on each
//! scenario, and every path the reduced search reports must replay on the unreduced model and
//! end where its outcome shows. A sweep's report sums over scenarios (`tests/sweep_cli.rs`
//! compares those sums on the tiny bound); this compares what the sums are made of.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use webmcp_generator::{Bound, Gen};
use webmcp_model::{Variant, WebMcpModel, World};
use webmcp_profiles::{check, CheckOptions, Mode, Reduction};

/// Far above any scenario of the bound (the largest has a few thousand states): a search it
/// stops fails the test rather than going uncompared.
const MAX_STATES: usize = 1_000_000;

#[test]
fn the_reduction_changes_no_verdict_of_any_scenario_ci_sweeps() {
    let mut scenarios: Vec<Gen> = Vec::new();
    let counts = webmcp_generator::for_each_canonical(&Bound::SMALL, |_, g| {
        scenarios.push(g.clone());
        ControlFlow::Continue(())
    });
    assert_eq!(counts.canonical, 22_282);
    assert_eq!(scenarios.len(), 22_282);
    let options = |reduction| CheckOptions {
        mode: Mode::Bfs,
        threads: 1,
        reduction,
        max_states: Some(MAX_STATES),
        ..CheckOptions::default()
    };
    let next = AtomicUsize::new(0);
    // [compared, fewer states with the reduction, paths replayed, states without, states with]
    let tally = Mutex::new([0usize; 5]);
    let failures = Mutex::new(Vec::<String>::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(gen) = scenarios.get(i) else { break };
                let scenario = webmcp_generator::to_scenario(gen);
                let world = World::compile(&scenario).expect("a generated scenario compiles");
                let m = WebMcpModel::new(world, Variant::SEED);
                let full = check(m.clone(), &options(Reduction::None));
                let reduced = check(m.clone(), &options(Reduction::Por));
                let mut problems = Vec::new();
                if !full.exhaustive || !reduced.exhaustive {
                    problems.push("a search was not exhaustive".to_string());
                } else if full.verdicts() != reduced.verdicts() {
                    problems.extend(
                        full.verdicts()
                            .into_iter()
                            .zip(reduced.verdicts())
                            .filter(|(a, b)| a != b)
                            .map(|((name, a), (_, b))| {
                                format!("{name}: {a:?} without the reduction, {b:?} with")
                            }),
                    );
                }
                if reduced.unique_states > full.unique_states {
                    problems.push(format!(
                        "more states with the reduction: {} against {}",
                        reduced.unique_states, full.unique_states
                    ));
                }
                if let Err(e) = webmcp_profiles::paths_stand(&m, &reduced) {
                    problems.push(format!("under the reduction, {e}"));
                }
                let mut t = tally.lock().expect("no panic");
                t[0] += 1;
                t[1] += usize::from(reduced.unique_states < full.unique_states);
                t[2] += reduced
                    .properties
                    .iter()
                    .filter(|p| p.path.is_some())
                    .count();
                t[3] += full.unique_states;
                t[4] += reduced.unique_states;
                drop(t);
                if !problems.is_empty() {
                    failures.lock().expect("no panic").push(format!(
                        "{} ({}):\n  {}",
                        scenario.name,
                        webmcp_generator::describe(gen),
                        problems.join("\n  ")
                    ));
                }
            });
        }
    });
    let failures = failures.into_inner().expect("no panic");
    assert!(
        failures.is_empty(),
        "{} of 22,282 scenarios differ; the first:\n{}",
        failures.len(),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    let [compared, fewer, replayed, without, with] = tally.into_inner().expect("no panic");
    assert_eq!(compared, 22_282);
    // Not vacuous: the reduction removes states on most scenarios, and the scenarios have
    // paths to replay (under the draft as written most violate something).
    assert!(
        fewer * 2 > compared,
        "fewer states on only {fewer} scenarios"
    );
    assert!(
        with < without,
        "{with} states with the reduction, {without} without"
    );
    assert!(replayed > compared, "only {replayed} paths replayed");
}
