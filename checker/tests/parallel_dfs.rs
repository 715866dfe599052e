//! The parallel depth-first search on a toy model, against the one-thread searches: `k`
//! counters that each count up to `n`, in any interleaving, on two to four threads; and both
//! parallel searches when the progress callback panics.

use std::time::Duration;

use proptest::prelude::*;
use webmcp_checker::{
    Checker, Expectation, Exploration, Mode, Model, Options, Property, Reads, StopReason, Verdict,
};

#[derive(Clone)]
struct Counters {
    k: usize,
    n: u8,
}

impl Model for Counters {
    type State = Vec<u8>;
    type Action = usize;

    fn init_states(&self) -> Vec<Vec<u8>> {
        vec![vec![0; self.k]]
    }

    fn actions(&self, s: &Vec<u8>, actions: &mut Vec<usize>) {
        actions.extend((0..self.k).filter(|&i| s[i] < self.n));
    }

    fn next_state(&self, s: &Vec<u8>, i: usize) -> Option<Vec<u8>> {
        let mut next = s.clone();
        next[i] += 1;
        Some(next)
    }
}

/// One property of each verdict: violated only at the last state, holding, holding at
/// termination, witnessed at a corner, never witnessed.
fn properties() -> Vec<Property<Counters>> {
    vec![
        Property {
            name: "never-all-done",
            expectation: Expectation::Always,
            condition: |m, s| s.iter().any(|&c| c < m.n),
            reads: Reads::Anything,
        },
        Property {
            name: "bounded",
            expectation: Expectation::Always,
            condition: |m, s| s.iter().all(|&c| c <= m.n),
            reads: Reads::Anything,
        },
        Property {
            name: "first-done-at-the-end",
            expectation: Expectation::AtTermination,
            condition: |m, s| s[0] == m.n,
            reads: Reads::Anything,
        },
        Property {
            name: "first-done-second-not-started",
            expectation: Expectation::Sometimes,
            condition: |m, s| s[0] == m.n && s[1] == 0,
            reads: Reads::Anything,
        },
        Property {
            name: "overflow",
            expectation: Expectation::Sometimes,
            condition: |m, s| s[0] > m.n,
            reads: Reads::Anything,
        },
    ]
}

fn run(m: &Counters, options: &Options) -> Exploration<Counters> {
    Checker::new(m, &properties(), options).run()
}

fn verdicts(found: &Exploration<Counters>) -> Vec<Verdict> {
    properties()
        .iter()
        .zip(&found.discoveries)
        .map(|(p, d)| Verdict::of(p.expectation, d.is_some(), found.exhaustive()))
        .collect()
}

fn dfs(threads: usize) -> Options {
    Options {
        mode: Mode::Dfs,
        threads,
        ..Options::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        rng_algorithm: proptest::test_runner::RngAlgorithm::ChaCha,
        ..ProptestConfig::with_source_file(file!())
    })]

    /// Every state, every successor and every verdict of the one-thread searches, and paths
    /// that are runs of the model ending where their property shows.
    #[test]
    fn the_parallel_depth_first_search_explores_what_one_thread_does(
        k in 2usize..=4, n in 1u8..=6, threads in 2usize..=4,
    ) {
        let m = Counters { k, n };
        let bfs = run(&m, &Options::default());
        let one = run(&m, &dfs(1));
        let many = run(&m, &dfs(threads));
        prop_assert!(many.exhaustive(), "{:?}", many.stopped_by);
        prop_assert_eq!(many.unique_states, (usize::from(n) + 1).pow(k as u32));
        prop_assert_eq!(many.unique_states, one.unique_states);
        prop_assert_eq!(many.total_states, one.total_states);
        prop_assert_eq!(many.unique_states, bfs.unique_states);
        prop_assert_eq!(verdicts(&many), verdicts(&bfs));
        prop_assert_eq!(
            verdicts(&many),
            [
                Verdict::Violated,
                Verdict::Holds,
                Verdict::Holds,
                Verdict::Witnessed,
                Verdict::NotWitnessed,
            ]
        );
        for (p, d) in properties().iter().zip(&many.discoveries) {
            let Some(path) = d else { continue };
            let mut s = path.init.clone();
            for &a in &path.actions {
                let mut enabled = Vec::new();
                m.actions(&s, &mut enabled);
                prop_assert!(enabled.contains(&a), "{}: {a} taken where not enabled", p.name);
                s = m.next_state(&s, a).unwrap();
            }
            prop_assert!(p.shows(&m, &s), "{}", p.name);
        }
    }
}

#[test]
fn every_bound_stops_the_parallel_depth_first_search_and_leaves_it_incomplete() {
    let m = Counters { k: 4, n: 6 };
    let stops = [
        (
            Options {
                max_states: Some(100),
                ..dfs(2)
            },
            StopReason::MaxStates { n: 100 },
        ),
        (
            Options {
                max_depth: Some(3),
                ..dfs(2)
            },
            StopReason::MaxDepth { n: 3 },
        ),
        (
            Options {
                timeout: Some(Duration::ZERO),
                ..dfs(2)
            },
            StopReason::Timeout {
                limit: Duration::ZERO,
            },
        ),
    ];
    for (options, stop) in stops {
        let found = run(&m, &options);
        assert_eq!(found.stopped_by, Some(stop), "{options:?}");
        // What was not decided is incomplete, never "holds" or "not witnessed".
        let v = verdicts(&found);
        assert_eq!(v[1], Verdict::Incomplete, "{options:?}");
        assert_eq!(v[4], Verdict::Incomplete, "{options:?}");
    }
    // A bound the search stays within is no stop.
    let within = run(
        &m,
        &Options {
            max_states: Some(1_000_000),
            max_depth: Some(100),
            ..dfs(2)
        },
    );
    assert!(within.exhaustive(), "{:?}", within.stopped_by);
}

#[test]
fn the_parallel_depth_first_search_stops_once_every_property_is_decided() {
    // Both decided within a few states: the search need not go on.
    let props = vec![
        Property {
            name: "two-steps",
            expectation: Expectation::Sometimes,
            condition: |_: &Counters, s: &Vec<u8>| {
                s.iter().map(|&c| usize::from(c)).sum::<usize>() == 2
            },
            reads: Reads::Anything,
        },
        Property {
            name: "nothing-moves",
            expectation: Expectation::Always,
            condition: |_: &Counters, s: &Vec<u8>| s.iter().all(|&c| c == 0),
            reads: Reads::Anything,
        },
    ];
    let m = Counters { k: 6, n: 9 };
    let found = Checker::new(&m, &props, &dfs(2)).run();
    assert!(found.discoveries.iter().all(Option::is_some));
    assert_eq!(found.stopped_by, None);
    assert!(
        found.unique_states < 10usize.pow(6) / 10,
        "stopped early: {} states",
        found.unique_states
    );
}

#[test]
fn with_nothing_to_decide_the_parallel_depth_first_search_expands_nothing() {
    // As the one-thread search: the roots are counted, nothing is expanded.
    let m = Counters { k: 4, n: 6 };
    let (one, two) = (
        Checker::new(&m, &[], &dfs(1)).run(),
        Checker::new(&m, &[], &dfs(2)).run(),
    );
    assert_eq!((one.unique_states, one.total_states), (1, 1));
    assert_eq!((two.unique_states, two.total_states), (1, 1));
    assert_eq!(two.stopped_by, None);
}

/// [`Counters`] that counts the successors it builds.
struct Counted(Counters, std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl Model for Counted {
    type State = Vec<u8>;
    type Action = usize;

    fn init_states(&self) -> Vec<Vec<u8>> {
        self.0.init_states()
    }

    fn actions(&self, s: &Vec<u8>, actions: &mut Vec<usize>) {
        self.0.actions(s, actions)
    }

    fn next_state(&self, s: &Vec<u8>, i: usize) -> Option<Vec<u8>> {
        self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.0.next_state(s, i)
    }
}

/// A progress callback that panics (as `eprintln!` does when standard error is closed)
/// reaches the caller at once, on either parallel search: the workers are stopped, not left
/// to finish the search, nor waiting for a level that never comes (the parallel
/// breadth-first search hung there).
#[test]
fn a_panicking_progress_callback_stops_the_parallel_searches_at_once() {
    let m = Counters { k: 3, n: 120 };
    // Every successor of the whole space: 3 * 120 * 121^2.
    let whole = 3 * 120 * 121 * 121;
    for mode in [Mode::Bfs, Mode::Dfs] {
        let built = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let model = Counted(m.clone(), built.clone());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let props = vec![Property {
                name: "anything",
                expectation: Expectation::Always,
                condition: |_: &Counted, _: &Vec<u8>| true,
                reads: Reads::Anything,
            }];
            let options = Options {
                mode,
                threads: 2,
                ..Options::default()
            };
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                Checker::new(&model, &props, &options)
                    .progress(&mut |_| panic!("failed printing to stderr"))
                    .run();
            }));
            let _ = tx.send(result.is_err());
        });
        let panicked = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("{mode:?}: the search hangs"));
        assert!(panicked, "{mode:?}: the panic reached the caller");
        let built = built.load(std::sync::atomic::Ordering::Relaxed);
        assert!(
            built < whole / 2,
            "{mode:?}: {built} of {whole} successors built"
        );
    }
}
