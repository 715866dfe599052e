//! The timely engine against the engine's own parallel breadth-first search, on a toy model
//! with nothing of WebMCP: `k` counters that count up to `n` in any interleaving, and a halt
//! that ends a run wherever it is. Both searches follow the same rules, so everything they
//! report must be equal, whatever the number of workers and processes.

use std::net::TcpListener;
use std::time::Duration;

use proptest::prelude::*;
use webmcp_checker::{
    Checker, Expectation, Exploration, Model, Options, Property, StateCodec, StopReason,
};
use webmcp_checker_timely::{explore, Cluster, ClusterError};

#[derive(Clone)]
struct Counters {
    k: usize,
    n: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct State {
    counts: Vec<u8>,
    halted: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Action {
    Inc(usize),
    Halt,
}

impl Model for Counters {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        vec![State {
            counts: vec![0; self.k],
            halted: false,
        }]
    }

    fn actions(&self, s: &State, actions: &mut Vec<Action>) {
        if s.halted {
            return;
        }
        for (i, &c) in s.counts.iter().enumerate() {
            if c < self.n {
                actions.push(Action::Inc(i));
            }
        }
        actions.push(Action::Halt);
    }

    fn next_state(&self, s: &State, a: Action) -> Option<State> {
        let mut next = s.clone();
        match a {
            Action::Inc(i) => next.counts[i] += 1,
            Action::Halt => next.halted = true,
        }
        Some(next)
    }

    fn codec(&self) -> Option<&dyn StateCodec<State>> {
        Some(self)
    }
}

/// The counts, then the halt flag.
impl StateCodec<State> for Counters {
    fn encode(&self, s: &State, out: &mut Vec<u8>) {
        out.extend(&s.counts);
        out.push(u8::from(s.halted));
    }
    fn decode(&self, bytes: &[u8]) -> State {
        let (counts, halted) = bytes.split_at(bytes.len() - 1);
        State {
            counts: counts.to_vec(),
            halted: halted[0] == 1,
        }
    }
}

fn properties() -> Vec<Property<Counters>> {
    vec![
        Property {
            name: "sum-below-five",
            expectation: Expectation::Always,
            condition: |_, s| s.counts.iter().map(|&c| u32::from(c)).sum::<u32>() < 5,
            reads: webmcp_checker::Reads::Anything,
        },
        Property {
            name: "bounded",
            expectation: Expectation::Always,
            condition: |m, s| s.counts.iter().all(|&c| c <= m.n),
            reads: webmcp_checker::Reads::Anything,
        },
        Property {
            name: "first-counted-by-the-end",
            expectation: Expectation::AtTermination,
            condition: |_, s| s.counts[0] >= 1,
            reads: webmcp_checker::Reads::Anything,
        },
        Property {
            name: "first-reaches-two",
            expectation: Expectation::Sometimes,
            condition: |_, s| s.counts[0] == 2,
            reads: webmcp_checker::Reads::Anything,
        },
        Property {
            name: "overflows",
            expectation: Expectation::Sometimes,
            condition: |m, s| s.counts.iter().any(|&c| c > m.n),
            reads: webmcp_checker::Reads::Anything,
        },
    ]
}

fn local(model: &Counters, options: &Options) -> Exploration<Counters> {
    let props = properties();
    let options = Options {
        threads: 2,
        ..options.clone()
    };
    Checker::new(model, &props, &options).run()
}

fn timely(model: &Counters, options: &Options, workers: usize) -> Exploration<Counters> {
    let run = explore(
        vec![model.clone()],
        properties(),
        options,
        &Cluster::local(workers),
    )
    .expect("one process starts")
    .expect("the only process is the first");
    run.explorations.into_iter().next().unwrap().0
}

fn assert_same(a: &Exploration<Counters>, b: &Exploration<Counters>, what: &str) {
    assert_eq!(a.total_states, b.total_states, "{what}: total states");
    assert_eq!(a.unique_states, b.unique_states, "{what}: unique states");
    assert_eq!(a.max_depth, b.max_depth, "{what}: depth");
    assert_eq!(a.stopped_by, b.stopped_by, "{what}: stop");
    assert_eq!(a.discoveries, b.discoveries, "{what}: paths");
}

#[test]
fn every_worker_count_reports_what_the_local_search_reports() {
    let model = Counters { k: 3, n: 4 };
    let options = Options::default();
    let expected = local(&model, &options);
    // Two properties are never decided, so the search is exhaustive.
    assert!(expected.exhaustive());
    assert_eq!(expected.unique_states, 5 * 5 * 5 * 2);
    assert!(expected.discoveries[0].is_some() && expected.discoveries[4].is_none());
    for workers in 1..=4 {
        assert_same(
            &timely(&model, &options, workers),
            &expected,
            &format!("{workers} workers"),
        );
    }
}

#[test]
fn a_depth_bound_cuts_where_the_local_search_cuts() {
    let model = Counters { k: 3, n: 4 };
    let options = Options {
        max_depth: Some(4),
        ..Options::default()
    };
    let expected = local(&model, &options);
    assert_eq!(expected.stopped_by, Some(StopReason::MaxDepth { n: 4 }));
    assert_same(&timely(&model, &options, 3), &expected, "max-depth 4");
    // At a depth past the end of every run nothing is cut off.
    let deep = Options {
        max_depth: Some(14),
        ..Options::default()
    };
    let found = timely(&model, &deep, 2);
    assert_eq!(found.stopped_by, None);
    assert_same(&found, &local(&model, &deep), "max-depth 14");
}

#[test]
fn a_state_bound_or_a_time_bound_stops_the_run_and_says_so() {
    let model = Counters { k: 4, n: 6 };
    let few = Options {
        max_states: Some(100),
        ..Options::default()
    };
    let found = timely(&model, &few, 2);
    assert_eq!(found.stopped_by, Some(StopReason::MaxStates { n: 100 }));
    assert!(!found.exhaustive());
    let no_time = Options {
        timeout: Some(Duration::ZERO),
        ..Options::default()
    };
    let found = timely(&model, &no_time, 2);
    assert_eq!(
        found.stopped_by,
        Some(StopReason::Timeout {
            limit: Duration::ZERO
        })
    );
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn cluster(process: usize, workers: usize, hosts: &[String]) -> Cluster {
    Cluster {
        processes: hosts.len(),
        process,
        hosts: hosts.to_vec(),
        connect_within: Duration::from_secs(20),
        ..Cluster::local(workers)
    }
}

type Outcome = Result<Option<webmcp_checker_timely::Run<Counters>>, ClusterError>;

/// Two processes of two workers on loopback (threads of this test standing in for them),
/// given these models.
fn two_processes(first: Vec<Counters>, second: Vec<Counters>) -> (Outcome, Outcome) {
    let hosts: Vec<String> = (0..2)
        .map(|_| format!("127.0.0.1:{}", free_port()))
        .collect();
    let options = Options::default();
    let other = {
        let (options, hosts) = (options.clone(), hosts.clone());
        std::thread::spawn(move || explore(second, properties(), &options, &cluster(1, 2, &hosts)))
    };
    let mine = explore(first, properties(), &options, &cluster(0, 2, &hosts));
    (mine, other.join().unwrap())
}

#[test]
fn two_processes_on_loopback_report_what_one_process_reports() {
    let model = Counters { k: 3, n: 4 };
    // The second process is given one model: the processes disagree and refuse each other.
    let (first, second) = two_processes(vec![model.clone(), model.clone()], vec![model.clone()]);
    assert_eq!(first.err(), Some(ClusterError::Mismatch));
    assert_eq!(second.err(), Some(ClusterError::Mismatch));

    let (first, second) = two_processes(vec![model.clone()], vec![model.clone()]);
    let run = first
        .expect("both processes start")
        .expect("process 0 gets the results");
    assert!(
        second.expect("process 1 finishes").is_none(),
        "only process 0 gets results"
    );
    assert_same(
        &run.explorations[0].0,
        &local(&model, &Options::default()),
        "2 processes x 2 workers",
    );
    assert!(run.traffic.states > 0, "states crossed between workers");
}

#[test]
fn a_process_that_never_comes_fails_the_start() {
    let hosts = vec![
        format!("127.0.0.1:{}", free_port()),
        format!("127.0.0.1:{}", free_port()),
    ];
    let mut c = cluster(0, 1, &hosts);
    c.connect_within = Duration::from_millis(300);
    let e = explore(
        vec![Counters { k: 1, n: 1 }],
        properties(),
        &Options::default(),
        &c,
    )
    .err()
    .expect("no run without process 1");
    assert!(
        matches!(&e, ClusterError::Start(why) if why.contains("did not connect")),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any model size, worker count and depth bound: the local search's report.
    #[test]
    fn any_counters_any_workers_the_same_report(
        k in 1usize..4,
        n in 1u8..5,
        workers in 1usize..5,
        depth in proptest::option::of(1usize..10),
    ) {
        let model = Counters { k, n };
        let options = Options { max_depth: depth, ..Options::default() };
        let expected = local(&model, &options);
        let found = timely(&model, &options, workers);
        prop_assert_eq!(found.total_states, expected.total_states);
        prop_assert_eq!(found.unique_states, expected.unique_states);
        prop_assert_eq!(found.max_depth, expected.max_depth);
        prop_assert_eq!(&found.stopped_by, &expected.stopped_by);
        prop_assert_eq!(&found.discoveries, &expected.discoveries);
    }
}

#[test]
fn a_stranger_on_a_process_port_is_dropped_and_the_run_goes_on() {
    let model = Counters { k: 2, n: 3 };
    let hosts: Vec<String> = (0..2)
        .map(|_| format!("127.0.0.1:{}", free_port()))
        .collect();
    let first = {
        let (model, hosts) = (model.clone(), hosts.clone());
        std::thread::spawn(move || {
            explore(
                vec![model],
                properties(),
                &Options::default(),
                &cluster(0, 1, &hosts),
            )
        })
    };
    // Process 0 listens for process 1; a stranger gets there first and says nonsense.
    let stranger = loop {
        if let Ok(s) = std::net::TcpStream::connect(&hosts[0]) {
            break s;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    use std::io::Write;
    (&stranger)
        .write_all(b"GET / HTTP/1.0\r\nHost: x\r\n\r\n")
        .unwrap();
    let second = explore(
        vec![model.clone()],
        properties(),
        &Options::default(),
        &cluster(1, 1, &hosts),
    );
    assert!(second.expect("process 1 finishes").is_none());
    let run = first.join().unwrap().expect("process 0 finishes").unwrap();
    assert_same(
        &run.explorations[0].0,
        &local(&model, &Options::default()),
        "after a stranger",
    );
}

#[test]
fn worker_0_reports_progress_at_every_level_end() {
    use std::sync::{Arc, Mutex};
    let model = Counters { k: 3, n: 4 };
    let seen: Arc<Mutex<Vec<(usize, webmcp_checker::Progress)>>> = Arc::default();
    let progress: webmcp_checker_timely::ProgressFn = {
        let seen = Arc::clone(&seen);
        Arc::new(move |index, p| seen.lock().unwrap().push((index, p)))
    };
    let run = webmcp_checker_timely::explore_with_progress(
        vec![model.clone(), model.clone()],
        properties(),
        &Options::default(),
        &Cluster::local(2),
        Some(progress),
    )
    .unwrap()
    .unwrap();
    let seen = seen.lock().unwrap();
    for index in 0..2 {
        let mine: Vec<_> = seen.iter().filter(|(i, _)| *i == index).collect();
        let found = &run.explorations[index].0;
        // One report per level, the last one empty.
        assert_eq!(mine.len(), found.max_depth + 1, "model {index}");
        assert!(mine
            .windows(2)
            .all(|w| w[0].1.total_states <= w[1].1.total_states));
        let last = mine.last().unwrap().1;
        assert_eq!(last.total_states, found.total_states);
        assert_eq!(last.max_depth, found.max_depth);
        assert!(last.unique_states <= found.unique_states);
    }
}
