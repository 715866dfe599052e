//! The engine on a toy model, with nothing of WebMCP: two counters that count up to
//! [`N`] in any interleaving, and a halt that ends a run wherever it is.

use std::time::Duration;

use webmcp_checker::footprint::{Access, Footprint, Key, Kind};
use webmcp_checker::{
    Checker, Expectation, Exploration, FrontierStorage, Mode, Model, Options, Property, Reads,
    Reduction, StateCodec, StopReason, Verdict,
};

const N: u8 = 3;

#[derive(Clone)]
struct TwoCounters;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct State {
    x: u8,
    y: u8,
    halted: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Action {
    IncX,
    IncY,
    Halt,
}

impl Model for TwoCounters {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        vec![State {
            x: 0,
            y: 0,
            halted: false,
        }]
    }

    fn actions(&self, s: &State, actions: &mut Vec<Action>) {
        if s.halted {
            return;
        }
        if s.x < N {
            actions.push(Action::IncX);
        }
        if s.y < N {
            actions.push(Action::IncY);
        }
        actions.push(Action::Halt);
    }

    fn next_state(&self, s: &State, a: Action) -> Option<State> {
        let mut n = s.clone();
        match a {
            Action::IncX => n.x += 1,
            Action::IncY => n.y += 1,
            Action::Halt => n.halted = true,
        }
        Some(n)
    }

    fn codec(&self) -> Option<&dyn StateCodec<State>> {
        Some(self)
    }

    /// The parts: x (bit 0), y (bit 1), `halted` (bit 2).
    fn unchanged_parts(&self, s: &State, next: &State) -> u32 {
        u32::from(s.x == next.x)
            | u32::from(s.y == next.y) << 1
            | u32::from(s.halted == next.halted) << 2
    }

    /// An increment reads and writes its counter and reads `halted` (its enabling
    /// condition); a halt writes `halted`.
    fn next_state_with_footprint(
        &self,
        s: &State,
        a: Action,
    ) -> Option<(Option<State>, Footprint)> {
        let touch = |area, kind| Access {
            area,
            key: Key::All,
            kind,
        };
        let accesses = match a {
            Action::IncX => [touch(X, Kind::Write), touch(HALTED, Kind::Read)],
            Action::IncY => [touch(Y, Kind::Write), touch(HALTED, Kind::Read)],
            Action::Halt => [touch(HALTED, Kind::Write), touch(HALTED, Kind::Read)],
        };
        Some((self.next_state(s, a), Footprint::new(accesses)))
    }
}

/// The areas of a footprint: the two counters and the halt.
const X: u32 = 0;
const Y: u32 = 1;
const HALTED: u32 = 2;

/// Three bytes: x, y, halted.
impl StateCodec<State> for TwoCounters {
    fn encode(&self, s: &State, out: &mut Vec<u8>) {
        out.extend([s.x, s.y, u8::from(s.halted)]);
    }
    fn decode(&self, bytes: &[u8]) -> State {
        State {
            x: bytes[0],
            y: bytes[1],
            halted: bytes[2] == 1,
        }
    }
}

fn properties() -> Vec<Property<TwoCounters>> {
    vec![
        // Violated: three increments in any order.
        Property {
            name: "sum-below-three",
            expectation: Expectation::Always,
            condition: |_, s| s.x + s.y < 3,
            reads: Reads::Anything,
        },
        Property {
            name: "x-bounded",
            expectation: Expectation::Always,
            condition: |_, s| s.x <= N,
            reads: Reads::Anything,
        },
        // Violated: halting at once.
        Property {
            name: "both-counted-by-the-end",
            expectation: Expectation::AtTermination,
            condition: |_, s| s.x >= 1 && s.y >= 1,
            reads: Reads::Anything,
        },
        Property {
            name: "x-reaches-two",
            expectation: Expectation::Sometimes,
            condition: |_, s| s.x == 2,
            reads: Reads::Anything,
        },
        Property {
            name: "x-overflows",
            expectation: Expectation::Sometimes,
            condition: |_, s| s.x > N,
            reads: Reads::Anything,
        },
    ]
}

fn check(options: &Options) -> (Vec<Property<TwoCounters>>, Exploration<TwoCounters>) {
    let props = properties();
    let found = Checker::new(&TwoCounters, &props, options).run();
    (props, found)
}

fn verdicts(props: &[Property<TwoCounters>], found: &Exploration<TwoCounters>) -> Vec<Verdict> {
    props
        .iter()
        .zip(&found.discoveries)
        .map(|(p, d)| Verdict::of(p.expectation, d.is_some(), found.exhaustive()))
        .collect()
}

fn path_len(found: &Exploration<TwoCounters>, i: usize) -> usize {
    found.discoveries[i].as_ref().expect("a path").actions.len()
}

#[test]
fn bfs_decides_every_property_with_shortest_paths() {
    let (props, found) = check(&Options::default());
    assert!(found.exhaustive(), "{:?}", found.stopped_by);
    // (N + 1)² counter pairs, each running or halted.
    assert_eq!(found.unique_states, 2 * 16);
    assert_eq!(
        verdicts(&props, &found),
        [
            Verdict::Violated,
            Verdict::Holds,
            Verdict::Violated,
            Verdict::Witnessed,
            Verdict::NotWitnessed,
        ]
    );
    // A shortest counterexample: three increments, no detour.
    assert_eq!(path_len(&found, 0), 3);
    let path = found.discoveries[0].as_ref().unwrap();
    assert!(path.actions.iter().all(|a| *a != Action::Halt));
    // The at-termination violation is found at the first terminal state: halting at once.
    assert_eq!(
        found.discoveries[2].as_ref().unwrap().actions,
        [Action::Halt]
    );
    // The witness: two increments of x.
    assert_eq!(
        found.discoveries[3].as_ref().unwrap().actions,
        [Action::IncX, Action::IncX]
    );
}

#[test]
fn a_path_replays_to_the_state_it_shows() {
    let (props, found) = check(&Options::default());
    for (p, d) in props.iter().zip(&found.discoveries) {
        let Some(path) = d else { continue };
        let mut s = path.init.clone();
        for a in &path.actions {
            s = TwoCounters.next_state(&s, a.clone()).unwrap();
        }
        assert!(p.shows(&TwoCounters, &s), "{}", p.name);
    }
}

#[test]
fn dfs_and_the_parallel_search_agree_with_bfs() {
    let (props, bfs) = check(&Options::default());
    for options in [
        Options {
            mode: Mode::Dfs,
            ..Options::default()
        },
        Options {
            threads: 2,
            ..Options::default()
        },
        Options {
            mode: Mode::Dfs,
            threads: 2,
            ..Options::default()
        },
    ] {
        let (_, other) = check(&options);
        assert_eq!(
            verdicts(&props, &other),
            verdicts(&props, &bfs),
            "{options:?}"
        );
        assert!(other.exhaustive(), "{options:?}");
        assert_eq!(other.unique_states, bfs.unique_states, "{options:?}");
    }
}

#[test]
fn every_bound_stops_the_search_and_leaves_it_incomplete() {
    let stops = [
        (
            Options {
                max_states: Some(3),
                ..Options::default()
            },
            StopReason::MaxStates { n: 3 },
        ),
        (
            Options {
                max_depth: Some(2),
                ..Options::default()
            },
            StopReason::MaxDepth { n: 2 },
        ),
        (
            Options {
                timeout: Some(Duration::ZERO),
                ..Options::default()
            },
            StopReason::Timeout {
                limit: Duration::ZERO,
            },
        ),
        (
            Options {
                memory_limit_mib: Some(1),
                ..Options::default()
            },
            StopReason::MemoryLimit { mib: 1 },
        ),
    ];
    for (options, stop) in stops {
        let (props, found) = check(&options);
        assert_eq!(found.stopped_by, Some(stop), "{options:?}");
        assert!(!found.exhaustive());
        // What was not decided is incomplete, never "holds" or "not witnessed".
        let v = verdicts(&props, &found);
        assert_eq!(v[1], Verdict::Incomplete, "{options:?}");
        assert_eq!(v[4], Verdict::Incomplete, "{options:?}");
    }
}

#[test]
fn simulation_is_never_exhaustive() {
    let (props, found) = check(&Options {
        mode: Mode::Sim { seed: 7, runs: 50 },
        ..Options::default()
    });
    assert_eq!(found.stopped_by, Some(StopReason::Runs { n: 50 }));
    let v = verdicts(&props, &found);
    assert_eq!(v[1], Verdict::Incomplete);
    // Halting is one of at most three choices at every step: fifty walks find it.
    assert_eq!(v[2], Verdict::Violated);
}

/// Random walks count as the searches do: depth is a path's states (the initial state is
/// depth 1), `--max-depth d` keeps every state at depth d or less, and every walk's first
/// state is generated, so no more states are unique than generated.
#[test]
fn simulation_counts_depth_and_states_as_the_searches_do() {
    let (_, full) = check(&Options::default());
    for max_depth in [None, Some(1), Some(2), Some(4)] {
        let (_, bfs) = check(&Options {
            max_depth,
            ..Options::default()
        });
        let (_, sim) = check(&Options {
            mode: Mode::Sim {
                seed: 3,
                runs: 2_000,
            },
            max_depth,
            ..Options::default()
        });
        // Two thousand walks reach every state of so small a graph, to its deepest.
        assert_eq!(sim.max_depth, bfs.max_depth, "{max_depth:?}");
        assert_eq!(sim.unique_states, bfs.unique_states, "{max_depth:?}");
        assert!(sim.unique_states <= sim.total_states, "{max_depth:?}");
        assert!(sim.max_depth <= max_depth.unwrap_or(full.max_depth));
    }
}

/// x and y are interchangeable for every property but those about x alone: those dropped,
/// and one added that holds, so that the search runs to its end.
fn symmetric_properties() -> Vec<Property<TwoCounters>> {
    let mut symmetric: Vec<_> = properties()
        .into_iter()
        .filter(|p| !p.name.starts_with("x-"))
        .collect();
    symmetric.push(Property {
        name: "counters-bounded",
        expectation: Expectation::Always,
        condition: |_, s| s.x <= N && s.y <= N,
        reads: Reads::Anything,
    });
    symmetric
}

/// The representative of a class: the counters in order.
fn sorted(s: &State) -> State {
    State {
        x: s.x.min(s.y),
        y: s.x.max(s.y),
        halted: s.halted,
    }
}

/// A class's fingerprint: its representative's.
fn class_of(s: &State) -> u64 {
    webmcp_checker::fingerprint::fingerprint(&sorted(s))
}

#[test]
fn symmetry_merges_classes_and_keeps_the_verdicts() {
    let props = properties();
    let options = Options::default();
    let plain = Checker::new(&TwoCounters, &props, &options).run();
    let symmetric = symmetric_properties();
    let reduced = Checker::new(&TwoCounters, &symmetric, &options)
        .symmetry(&class_of)
        .run();
    assert!(reduced.exhaustive());
    // Unordered pairs of 0..=N, running or halted.
    assert_eq!(reduced.unique_states, 2 * 10);
    assert!(reduced.unique_states < plain.unique_states);
    assert_eq!(
        verdicts(&symmetric, &reduced),
        [Verdict::Violated, Verdict::Violated, Verdict::Holds]
    );
}

#[test]
fn symmetry_on_two_threads_merges_the_same_classes_and_its_paths_are_runs() {
    let props = symmetric_properties();
    let one = Checker::new(&TwoCounters, &props, &Options::default())
        .symmetry(&class_of)
        .run();
    for frontier in [FrontierStorage::Values, FrontierStorage::Bytes] {
        let options = Options {
            threads: 2,
            frontier,
            ..Options::default()
        };
        let two = Checker::new(&TwoCounters, &props, &options)
            .symmetry(&class_of)
            .run();
        assert!(two.exhaustive());
        assert_eq!(two.unique_states, 2 * 10);
        assert_eq!(two.unique_states, one.unique_states);
        assert_eq!(verdicts(&props, &two), verdicts(&props, &one));
        for ((p, a), b) in props.iter().zip(&one.discoveries).zip(&two.discoveries) {
            let (Some(a), Some(b)) = (a, b) else {
                assert!(a.is_none() && b.is_none(), "{}", p.name);
                continue;
            };
            assert_eq!(a.actions.len(), b.actions.len(), "{}: path length", p.name);
            // A run of the model: every action enabled where it is taken.
            let mut s = b.init.clone();
            for action in &b.actions {
                let mut enabled = Vec::new();
                TwoCounters.actions(&s, &mut enabled);
                assert!(
                    enabled.contains(action),
                    "{}: {action:?} not enabled",
                    p.name
                );
                s = TwoCounters.next_state(&s, action.clone()).unwrap();
            }
            assert!(p.shows(&TwoCounters, &s), "{}", p.name);
        }
    }
}

#[test]
fn an_observer_sees_every_terminal_state() {
    let props = properties();
    let options = Options::default();
    let mut terminal = Vec::new();
    let mut observe = |s: &State| terminal.push(s.clone());
    let found = Checker::new(&TwoCounters, &props, &options)
        .on_terminal(&mut observe)
        .run();
    assert!(found.exhaustive());
    // Every counter pair, halted.
    assert_eq!(terminal.len(), 16);
    assert!(terminal.iter().all(|s| s.halted));
}

/// [`TwoCounters`] with instruments: a panic once x reaches 2 (a bug in a model), and a
/// localizer that counts the states it is given.
#[derive(Clone, Default)]
struct Instrumented {
    panics: bool,
    localized: Option<std::sync::Arc<std::sync::atomic::AtomicUsize>>,
}

struct Counting(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl webmcp_checker::Localizer<State> for Counting {
    fn localize(&mut self, _: &mut State) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Model for Instrumented {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        TwoCounters.init_states()
    }

    fn actions(&self, s: &State, actions: &mut Vec<Action>) {
        TwoCounters.actions(s, actions)
    }

    fn next_state(&self, s: &State, a: Action) -> Option<State> {
        let n = TwoCounters.next_state(s, a)?;
        assert!(!self.panics || n.x < 2, "a bug in the model");
        Some(n)
    }

    fn localizer(&self) -> Option<Box<dyn webmcp_checker::Localizer<State>>> {
        let counter = self.localized.clone()?;
        Some(Box::new(Counting(counter)))
    }
}

#[test]
fn a_panicking_model_panics_the_parallel_search_instead_of_hanging_it() {
    for mode in [Mode::Bfs, Mode::Dfs] {
        a_panicking_model_panics(Options {
            mode,
            threads: 2,
            ..Options::default()
        });
    }
}

fn a_panicking_model_panics(options: Options) {
    let mode = options.mode;
    // A property that holds: the search must go on to the end, and meets the panic.
    let props = vec![Property {
        name: "anything",
        expectation: Expectation::Always,
        condition: |_: &Instrumented, _: &State| true,
        reads: Reads::Anything,
    }];
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let result = std::panic::catch_unwind(|| {
            let panicky = Instrumented {
                panics: true,
                ..Instrumented::default()
            };
            Checker::new(&panicky, &props, &options).run();
        });
        let _ = tx.send(result.is_err());
    });
    let panicked = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the search ended instead of hanging");
    assert!(panicked, "{mode:?}: the model's panic reached the caller");
}

#[test]
fn the_frontier_kept_as_bytes_changes_nothing_but_memory() {
    let run = |frontier| {
        check(&Options {
            frontier,
            ..Options::default()
        })
        .1
    };
    let (values, bytes) = (run(FrontierStorage::Values), run(FrontierStorage::Bytes));
    assert_eq!(bytes.unique_states, values.unique_states);
    assert_eq!(bytes.total_states, values.total_states);
    assert_eq!(bytes.max_depth, values.max_depth);
    assert_eq!(bytes.discoveries, values.discoveries);
    // The parallel search too (its chunks as bytes), on two threads.
    let parallel = |frontier| {
        check(&Options {
            threads: 2,
            frontier,
            ..Options::default()
        })
        .1
    };
    let (pv, pb) = (
        parallel(FrontierStorage::Values),
        parallel(FrontierStorage::Bytes),
    );
    assert_eq!(pb.unique_states, values.unique_states);
    assert_eq!(pb.total_states, pv.total_states);
    assert_eq!(pb.discoveries, pv.discoveries);
    // Depth-first keeps values whatever is asked: same search as without a codec.
    let dfs = |frontier| {
        check(&Options {
            mode: Mode::Dfs,
            frontier,
            ..Options::default()
        })
        .1
    };
    assert_eq!(
        dfs(FrontierStorage::Bytes).discoveries,
        dfs(FrontierStorage::Values).discoveries
    );
}

#[test]
fn sleep_sets_build_each_state_once_where_its_actions_commute() {
    let (props, full) = check(&Options::default());
    let (_, asleep) = check(&Options {
        reduction: Reduction::Sleep,
        ..Options::default()
    });
    assert!(asleep.exhaustive());
    assert_eq!(asleep.unique_states, full.unique_states);
    assert_eq!(asleep.max_depth, full.max_depth);
    assert_eq!(verdicts(&props, &asleep), verdicts(&props, &full));
    for i in [0, 2, 3] {
        assert_eq!(path_len(&asleep, i), path_len(&full, i), "property {i}");
    }
    // The increments commute, so each running state is built once; a halt conflicts with
    // both, so each halted state is built from its running twin alone.
    assert_eq!(asleep.total_states, full.unique_states);
    assert!(asleep.total_states < full.total_states);
    // Elsewhere sleep sets are not used: the other searches explore as without them.
    for options in [
        Options {
            mode: Mode::Dfs,
            ..Options::default()
        },
        Options {
            threads: 2,
            ..Options::default()
        },
    ] {
        let (_, plain) = check(&options);
        let (_, asked) = check(&Options {
            reduction: Reduction::Sleep,
            ..options
        });
        assert_eq!(asked.total_states, plain.total_states);
    }
}

#[test]
fn the_parallel_search_localizes_each_state_once_before_expanding_it() {
    let (_, plain) = check(&Options::default());
    let localized = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let model = Instrumented {
        localized: Some(localized.clone()),
        ..Instrumented::default()
    };
    // A property that holds, so that the search is not cut short by deciding it.
    let props = vec![Property::<Instrumented> {
        name: "x-bounded",
        expectation: Expectation::Always,
        condition: |_, s| s.x <= N,
        reads: Reads::Anything,
    }];
    let options = Options {
        threads: 2,
        ..Options::default()
    };
    let found = Checker::new(&model, &props, &options).run();
    assert!(found.exhaustive());
    assert_eq!(found.unique_states, plain.unique_states);
    assert!(found.discoveries[0].is_none());
    assert_eq!(
        localized.load(std::sync::atomic::Ordering::Relaxed),
        plain.unique_states,
        "every state taken from the frontier, once"
    );
    // The one-thread search has no workers to localize for.
    let one = Checker::new(&model, &props, &Options::default()).run();
    assert_eq!(one.unique_states, plain.unique_states);
    assert_eq!(
        localized.load(std::sync::atomic::Ordering::Relaxed),
        plain.unique_states
    );
}

/// A property that claims to read only some parts is judged again only at states where those
/// parts changed from the state they were reached from. An honest claim changes no outcome,
/// breadth-first and depth-first, on one thread and two, with states kept as values and as
/// bytes; a false one is
/// believed (which shows the judgments are skipped: the search cannot tell a lie).
/// Our own searches, which skip judging a property where what it reads is unchanged: breadth
/// and depth first, one thread and two, states kept as values and as bytes.
fn searches_that_skip_judgments() -> [Options; 5] {
    [
        Options::default(),
        Options {
            mode: Mode::Dfs,
            ..Options::default()
        },
        Options {
            frontier: FrontierStorage::Bytes,
            ..Options::default()
        },
        Options {
            threads: 2,
            ..Options::default()
        },
        Options {
            threads: 2,
            frontier: FrontierStorage::Bytes,
            ..Options::default()
        },
    ]
}

/// A property of y alone, claiming to read `reads`.
fn y_below_two(reads: Reads) -> Property<TwoCounters> {
    Property {
        name: "y-below-two",
        expectation: Expectation::Always,
        condition: |_, s: &State| s.y < 2,
        reads,
    }
}

#[test]
fn a_property_is_judged_again_only_where_what_it_reads_changed() {
    for options in searches_that_skip_judgments() {
        let run = |reads| {
            let props = [y_below_two(reads)];
            Checker::new(&TwoCounters, &props, &options).run()
        };
        let anything = run(Reads::Anything);
        let honest = run(Reads::Parts(1 << 1));
        let lying = run(Reads::Parts(1 << 0));
        assert_eq!(anything.unique_states, honest.unique_states);
        let path =
            |e: &Exploration<TwoCounters>| e.discoveries[0].as_ref().map(|p| p.actions.clone());
        assert!(path(&anything).is_some(), "y reaches two");
        assert_eq!(
            path(&honest),
            path(&anything),
            "{:?} on {} thread(s)",
            options.mode,
            options.threads
        );
        // y only ever changes by an increment of y, which leaves x as it was: where the
        // search first finds y at two it does not look, so it finds it later or never.
        assert_ne!(
            path(&lying),
            path(&anything),
            "{:?} on {} thread(s)",
            options.mode,
            options.threads
        );
    }
}

/// The parallel depth-first search skips judgments as the others do, though which state it
/// finds first changes from run to run: a property judged only where y changed is first seen
/// violated at a state reached by an increment of y, one judged only where x changed (a
/// false claim, believed) at a state reached by an increment of x.
#[test]
fn the_parallel_depth_first_search_judges_again_only_where_what_a_property_reads_changed() {
    let options = Options {
        mode: Mode::Dfs,
        threads: 2,
        ..Options::default()
    };
    for _ in 0..20 {
        let last = |reads| {
            let props = [y_below_two(reads)];
            let found = Checker::new(&TwoCounters, &props, &options).run();
            found.discoveries[0]
                .as_ref()
                .and_then(|p| p.actions.last().cloned())
        };
        assert_eq!(last(Reads::Parts(1 << 1)), Some(Action::IncY));
        assert_eq!(last(Reads::Parts(1 << 0)), Some(Action::IncX));
    }
}

/// Several properties of every kind judged together, some decided early, others never: each
/// is decided at the same state as when every property is judged at every state. An
/// at-termination property is judged at every terminal state whatever it claims (the state
/// before was not terminal), so even a claim that leaves out what it reads changes nothing:
/// here it claims x alone, which a halt leaves as it was.
#[test]
fn properties_of_every_kind_are_judged_together_until_each_is_decided() {
    let props = |claims: [Reads; 4]| {
        [
            Property {
                name: "y-below-two",
                expectation: Expectation::Always,
                condition: |_, s: &State| s.y < 2,
                reads: claims[0],
            },
            Property {
                name: "x-reaches-three",
                expectation: Expectation::Sometimes,
                condition: |_, s: &State| s.x == 3,
                reads: claims[1],
            },
            Property {
                name: "x-never-above-three",
                expectation: Expectation::Always,
                condition: |_, s: &State| s.x <= N,
                reads: claims[2],
            },
            Property {
                name: "ends-with-x-at-most-y",
                expectation: Expectation::AtTermination,
                condition: |_, s: &State| s.x <= s.y,
                reads: claims[3],
            },
        ]
    };
    let (x, y) = (Reads::Parts(1), Reads::Parts(1 << 1));
    for options in searches_that_skip_judgments() {
        let run = |claims| Checker::new(&TwoCounters, &props(claims), &options).run();
        let anything = run([Reads::Anything; 4]);
        let claimed = run([y, x, x, x]);
        let paths = |e: &Exploration<TwoCounters>| {
            e.discoveries
                .iter()
                .map(|d| d.as_ref().map(|p| p.actions.clone()))
                .collect::<Vec<_>>()
        };
        let label = format!("{:?} on {} thread(s)", options.mode, options.threads);
        assert_eq!(paths(&claimed), paths(&anything), "{label}");
        assert_eq!(claimed.unique_states, anything.unique_states, "{label}");
        let found = paths(&anything);
        assert!(
            found[0].is_some() && found[1].is_some(),
            "{label}: y reaches two, x three"
        );
        assert!(found[2].is_none(), "{label}: x never passes three");
        assert!(found[3].is_some(), "{label}: some run halts with x above y");
    }
}

#[test]
fn a_search_timed_by_phase_explores_the_same_graph_and_says_where_its_time_went() {
    use webmcp_checker::Phase;
    for mode in [Mode::Bfs, Mode::Dfs] {
        let plain = Options {
            mode,
            ..Options::default()
        };
        let (props, untimed) = check(&plain);
        let (_, timed) = check(&Options {
            time_phases: true,
            ..plain.clone()
        });
        assert!(untimed.phases.is_none(), "untimed unless asked");
        assert_eq!(timed.unique_states, untimed.unique_states);
        assert_eq!(timed.total_states, untimed.total_states);
        assert_eq!(verdicts(&props, &timed), verdicts(&props, &untimed));
        let lengths = |found: &Exploration<TwoCounters>| -> Vec<Option<usize>> {
            found
                .discoveries
                .iter()
                .map(|p| p.as_ref().map(|p| p.actions.len()))
                .collect()
        };
        assert_eq!(lengths(&timed), lengths(&untimed));
        let t = timed.phases.expect("timed");
        let phases: Vec<Phase> = t.phases.iter().map(|(p, _)| *p).collect();
        // Every phase of an unreduced search, in the loop's order; no persistent sets asked.
        assert_eq!(
            phases,
            [
                Phase::Frontier,
                Phase::Actions,
                Phase::Judging,
                Phase::Building,
                Phase::Fingerprinting,
                Phase::Visited,
                Phase::Dropping,
                Phase::Search
            ],
            "{mode:?}"
        );
        // About six reads per state and four per successor; never fewer than one per state.
        assert!(t.laps >= untimed.unique_states as u64 + untimed.total_states as u64);
        assert!(
            t.total() <= t.timed,
            "the clock reads are subtracted, not added"
        );
    }
}

#[test]
fn only_the_one_thread_search_without_sleep_sets_is_timed() {
    for options in [
        Options {
            threads: 2,
            time_phases: true,
            ..Options::default()
        },
        Options {
            reduction: Reduction::Sleep,
            time_phases: true,
            ..Options::default()
        },
        Options {
            mode: Mode::Sim { seed: 1, runs: 5 },
            time_phases: true,
            ..Options::default()
        },
    ] {
        assert!(!options.can_time_phases(), "{options:?}");
        let (_, found) = check(&options);
        assert!(found.phases.is_none(), "{options:?}");
    }
    assert!(Options {
        time_phases: true,
        ..Options::default()
    }
    .can_time_phases());
}

#[test]
fn under_symmetry_the_class_fingerprints_are_a_phase_of_their_own() {
    use webmcp_checker::Phase;
    let symmetric = symmetric_properties();
    let options = Options {
        time_phases: true,
        ..Options::default()
    };
    let timed = Checker::new(&TwoCounters, &symmetric, &options)
        .symmetry(&class_of)
        .run();
    let untimed = Checker::new(&TwoCounters, &symmetric, &Options::default())
        .symmetry(&class_of)
        .run();
    assert_eq!(timed.unique_states, untimed.unique_states);
    assert_eq!(verdicts(&symmetric, &timed), verdicts(&symmetric, &untimed));
    let phases: Vec<Phase> = timed
        .phases
        .expect("timed")
        .phases
        .iter()
        .map(|(p, _)| *p)
        .collect();
    assert!(phases.contains(&Phase::Symmetry), "{phases:?}");
    // The class fingerprint is the fingerprint: nothing else is fingerprinted. (Without
    // symmetry, no class fingerprint is taken: the test above lists every phase.)
    assert!(!phases.contains(&Phase::Fingerprinting), "{phases:?}");
}
