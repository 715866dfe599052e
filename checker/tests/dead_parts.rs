//! Dead parts forgotten ([`Options::forget`]) on a toy model: two counters up to [`N`], and a
//! fact recorded when `x` reaches 2 before `y` moved, which only properties read, only as
//! "it is there": kept, it splits every later state in two.

use webmcp_checker::{Checker, Expectation, Exploration, Mode, Model, Options, Property, Reads};

const N: u8 = 3;

#[derive(Clone)]
struct Counters;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct State {
    x: u8,
    y: u8,
    /// Recorded by the step that takes `x` to 2 before `y` moved; nothing reads it but the
    /// properties.
    fact: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Action {
    IncX,
    IncY,
}

impl Model for Counters {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        vec![State {
            x: 0,
            y: 0,
            fact: false,
        }]
    }

    fn actions(&self, s: &State, actions: &mut Vec<Action>) {
        if s.x < N {
            actions.push(Action::IncX);
        }
        if s.y < N {
            actions.push(Action::IncY);
        }
    }

    fn next_state(&self, s: &State, a: Action) -> Option<State> {
        let mut n = s.clone();
        match a {
            Action::IncX => {
                n.x += 1;
                n.fact |= n.x == 2 && n.y == 0;
            }
            Action::IncY => n.y += 1,
        }
        Some(n)
    }

    fn forget(&self, s: &State) -> Option<State> {
        s.fact.then(|| State {
            fact: false,
            ..s.clone()
        })
    }
}

fn properties() -> Vec<Property<Counters>> {
    vec![
        // Shown where the fact is recorded (two actions) and, one action in, where `y` moved
        // first: the search must report the shorter path, although it generates the state
        // with the fact before it judges the state with `y` = 1.
        Property {
            name: "no fact, and y not first",
            expectation: Expectation::Always,
            condition: |_, s| !(s.fact || (s.y == 1 && s.x == 0)),
            reads: Reads::Anything,
        },
        // Shown only where the fact is recorded.
        Property {
            name: "no fact",
            expectation: Expectation::Always,
            condition: |_, s| !s.fact,
            reads: Reads::Anything,
        },
        Property {
            name: "the fact is recorded",
            expectation: Expectation::Sometimes,
            condition: |_, s| s.fact,
            reads: Reads::Anything,
        },
        Property {
            name: "both count to the end",
            expectation: Expectation::AtTermination,
            condition: |_, s| s.x == N && s.y == N,
            reads: Reads::Anything,
        },
        // Never shown: keeps the search going to the end.
        Property {
            name: "x stays within N",
            expectation: Expectation::Always,
            condition: |_, s| s.x <= N,
            reads: Reads::Anything,
        },
    ]
}

fn check(options: &Options) -> Exploration<Counters> {
    Checker::new(&Counters, &properties(), options).run()
}

/// Per property: whether it showed, and the length of the path to where it did.
fn outcomes(e: &Exploration<Counters>) -> Vec<Option<usize>> {
    e.discoveries
        .iter()
        .map(|d| d.as_ref().map(|p| p.actions.len()))
        .collect()
}

/// Replays each path: every action enabled, and the last state shows the property.
fn replays(e: &Exploration<Counters>) {
    for (p, d) in properties().iter().zip(&e.discoveries) {
        let Some(path) = d else { continue };
        let mut s = path.init.clone();
        for a in &path.actions {
            let mut enabled = Vec::new();
            Counters.actions(&s, &mut enabled);
            assert!(enabled.contains(a), "{}: {a:?} not enabled", p.name);
            s = Counters.next_state(&s, a.clone()).unwrap();
        }
        assert!(
            p.shows(&Counters, &s),
            "{}: the path does not show it",
            p.name
        );
    }
}

#[test]
fn forgetting_keeps_every_verdict_and_path_length_in_fewer_states() {
    let kept = check(&Options::default());
    assert!(kept.exhaustive());
    // Every (x, y); and with x >= 2, the fact everywhere, and its absence where y moved.
    assert_eq!(kept.unique_states, 16 + 6);
    assert_eq!(
        outcomes(&kept),
        vec![Some(1), Some(2), Some(2), None, None],
        "the shortest paths"
    );
    for threads in [1, 2] {
        let forgot = check(&Options {
            threads,
            forget: true,
            ..Options::default()
        });
        assert!(forgot.exhaustive(), "{threads} thread(s)");
        assert_eq!(forgot.unique_states, 16, "{threads} thread(s)");
        assert_eq!(outcomes(&forgot), outcomes(&kept), "{threads} thread(s)");
        replays(&forgot);
    }
}

#[test]
fn the_depth_first_search_explores_the_model_as_it_is() {
    let dfs = |forget| {
        check(&Options {
            mode: Mode::Dfs,
            forget,
            ..Options::default()
        })
    };
    let (kept, forgot) = (dfs(false), dfs(true));
    assert_eq!(forgot.unique_states, kept.unique_states);
    assert_eq!(outcomes(&forgot), outcomes(&kept));
}

#[test]
fn a_search_stopped_early_reports_only_what_it_judged_to_its_depth() {
    // Stopped after five states generated: the state with the fact (depth 3) was judged
    // where it was generated, but the search stopped before every state of depth 2 was
    // judged, so a shallower state might still have shown those properties: they stay
    // undecided. The one shown at depth 2 by a state the search judged is reported.
    for threads in [1, 2] {
        let stopped = check(&Options {
            threads,
            max_states: Some(5),
            forget: true,
            ..Options::default()
        });
        assert!(!stopped.exhaustive(), "{threads} thread(s)");
        assert_eq!(
            outcomes(&stopped),
            vec![Some(1), None, None, None, None],
            "{threads} thread(s)"
        );
    }
}
