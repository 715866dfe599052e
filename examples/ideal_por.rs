//! How far a persistent-set reduction can go on one scenario when it knows everything: the
//! reduced state count of an *ideal* method, against the unreduced one and ours.
//!
//! The example builds the whole state graph, then runs a breadth-first search that expands,
//! at each state `s`, a smallest set `T` of its enabled actions that is **persistent by the
//! graph itself**: along every path from `s` that takes no action of `T`, at every state `u`
//! it passes (`s` included),
//!
//! - every action of `T` is enabled at `u`, and commutes at `u` with the action the path
//!   takes there (each stays enabled after the other, both orders reach the same state);
//! - and, unless `T` holds every enabled action of `s`, no action of `T` changes the value
//!   of any property's predicate at `u` (condition C2, visibility, at every state where the
//!   action is postponed rather than only at `s`).
//!
//! This is the persistent-set condition with the independence relation replaced by what
//! actually commutes on the paths that matter, which any sound independence relation (static,
//! declared or observed footprints) implies; the graph is acyclic, so no cycle proviso is
//! needed. So no persistent-set method (persistent, stubborn or ample sets, over any
//! footprints) can take a smaller set at a state than this one takes there, as long as its
//! sets are invisible. A reduction whose sets only keep outcomes (an always property that
//! fails still fails, a sometimes property that holds still holds: `docs/model.md` §7) can
//! take smaller ones: the model's tasks alone do (`model/src/reduction/task_alone.rs`). Taking a
//! smallest set at each state is greedy, not a proven optimum over all choices, so the count
//! is what the best method of the usual kind would reach, not a theorem about every choice.
//!
//! It checks itself: the reduced search must keep every terminal state and show every
//! property outcome (counterexample or witness) the whole graph shows, or the example
//! panics.
//!
//! `docs/performance.md` ("What a reduction could still remove") gives the numbers.
//!
//! ```sh
//! target/release/webmcp-check bench --print-family executions:2 > f.json
//! cargo run --release --example ideal_por -- f.json
//! ```

use std::collections::{HashMap, VecDeque};

use webmcp_checker::fingerprint::fingerprint;
use webmcp_model::{Action, Variant, WebMcpModel, World};

/// The most distinct closed sets whose unions are tried at one state.
const MAX_TRIED: usize = 16;

/// The unreduced state graph: per state, its enabled actions with their successors, the
/// values of every property's predicate (as a fingerprint of the list of values), and the
/// properties whose outcome it shows (a counterexample or a witness).
struct Graph {
    edges: Vec<Vec<(Action, usize)>>,
    values: Vec<u64>,
    shows: Vec<Vec<u32>>,
}

impl Graph {
    fn build(m: &WebMcpModel) -> Graph {
        let props = webmcp_profiles::driver::engine_properties();
        let init = m.initial_state();
        let mut index = HashMap::from([(fingerprint(&init), 0usize)]);
        // A state is kept until it is expanded.
        let mut states = vec![Some(init)];
        let mut edges = Vec::new();
        let mut values = Vec::new();
        let mut shows = Vec::new();
        let mut actions = Vec::new();
        let mut i = 0;
        while i < states.len() {
            let s = states[i].take().expect("expanded once");
            let holds: Vec<bool> = props.iter().map(|p| (p.condition)(m, &s)).collect();
            values.push(fingerprint(&holds));
            actions.clear();
            m.enabled_actions(&s, &mut actions);
            let terminal = actions.is_empty();
            shows.push(
                (0..props.len() as u32)
                    .filter(|&k| props[k as usize].shows_at(m, &s, terminal))
                    .collect(),
            );
            let mut out = Vec::with_capacity(actions.len());
            for &a in &actions {
                let next = m.apply(&s, a, &mut ());
                let fp = fingerprint(&next);
                let j = *index.entry(fp).or_insert_with(|| {
                    states.push(Some(next));
                    states.len() - 1
                });
                out.push((a, j));
            }
            edges.push(out);
            i += 1;
        }
        Graph {
            edges,
            values,
            shows,
        }
    }

    fn by(&self, u: usize, a: Action) -> Option<usize> {
        self.edges[u].iter().find(|(b, _)| *b == a).map(|&(_, v)| v)
    }

    /// Whether `a` and `t`, both enabled at `u`, commute there.
    fn commute(&self, u: usize, a: Action, t: Action) -> bool {
        match (self.by(u, a), self.by(u, t)) {
            (Some(v), Some(w)) => {
                matches!((self.by(v, t), self.by(w, a)), (Some(x), Some(y)) if x == y)
            }
            _ => false,
        }
    }

    /// Whether `set`, a proper subset of the enabled actions, is persistent at `s` by the
    /// graph, invisibility included (see the module docs). `stamp` and `mark` are scratch
    /// space: a state is visited once per call.
    fn persistent(&self, s: usize, set: &[Action], mark: &mut [u32], stamp: u32) -> bool {
        let mut stack = vec![s];
        mark[s] = stamp;
        while let Some(u) = stack.pop() {
            for &t in set {
                let Some(after) = self.by(u, t) else {
                    return false;
                };
                if self.values[after] != self.values[u] {
                    return false;
                }
            }
            for &(a, v) in &self.edges[u] {
                if set.contains(&a) {
                    continue;
                }
                if !set.iter().all(|&t| self.commute(u, a, t)) {
                    return false;
                }
                if mark[v] != stamp {
                    mark[v] = stamp;
                    stack.push(v);
                }
            }
        }
        true
    }

    /// A smallest persistent set at `s`, as indices into its edges.
    /// A smallest persistent set at `s`, as indices into its edges; `None` when the closed
    /// sets to try are too many (see [`MAX_TRIED`]).
    ///
    /// Only sets closed under "does not commute at `s`" can be persistent (a path of one step
    /// out of the set must commute with all of it), and a closed set is the union of the
    /// closures of its members: so the candidates are the unions of the closures of single
    /// actions, tried smallest first.
    fn smallest_persistent(
        &self,
        s: usize,
        mark: &mut [u32],
        stamp: &mut u32,
    ) -> Option<Vec<usize>> {
        let n = self.edges[s].len();
        let everything = (0..n).collect();
        if n <= 1 {
            return Some(everything);
        }
        if n > 64 {
            return None;
        }
        let all: u64 = if n == 64 { u64::MAX } else { (1 << n) - 1 };
        let actions: Vec<Action> = self.edges[s].iter().map(|e| e.0).collect();
        let dependent = |i: usize, j: usize| !self.commute(s, actions[i], actions[j]);
        let mut closures: Vec<u64> = (0..n)
            .map(|start| {
                let mut inside = 1u64 << start;
                let mut stack = vec![start];
                while let Some(i) = stack.pop() {
                    for j in 0..n {
                        if inside & (1 << j) == 0 && dependent(i, j) {
                            inside |= 1 << j;
                            stack.push(j);
                        }
                    }
                }
                inside
            })
            .filter(|&c| c != all)
            .collect();
        closures.sort_unstable();
        closures.dedup();
        if closures.len() > MAX_TRIED {
            return None;
        }
        let mut unions: Vec<u64> = (1u32..(1 << closures.len()))
            .map(|pick| {
                (0..closures.len())
                    .filter(|k| pick & (1 << k) != 0)
                    .fold(0, |u, k| u | closures[k])
            })
            .filter(|&u| u != all)
            .collect();
        unions.sort_unstable_by_key(|u| (u.count_ones(), *u));
        unions.dedup();
        for bits in unions {
            let chosen: Vec<usize> = (0..n).filter(|i| bits & (1 << i) != 0).collect();
            let set: Vec<Action> = chosen.iter().map(|&i| actions[i]).collect();
            *stamp += 1;
            if self.persistent(s, &set, mark, *stamp) {
                return Some(chosen);
            }
        }
        Some(everything)
    }
}

fn main() {
    let path = std::env::args().nth(1).expect("a scenario file");
    let world =
        World::from_json(&std::fs::read_to_string(&path).expect("readable")).expect("compiles");
    let m = WebMcpModel::new(world, Variant::parse("seed").unwrap());
    let g = Graph::build(&m);
    let total = g.edges.len();

    // The reduced search: breadth-first from the initial state, a smallest persistent set
    // at each state it reaches.
    let mut mark = vec![0u32; total];
    let mut stamp = 0u32;
    let mut seen = vec![false; total];
    seen[0] = true;
    let mut queue = VecDeque::from([0usize]);
    let (mut reached, mut reduced_here, mut terminals) = (0usize, 0usize, 0usize);
    let mut too_many = 0usize;
    // What the proper subsets taken hold, by kind of action.
    let mut taken: std::collections::BTreeMap<String, usize> = Default::default();
    while let Some(s) = queue.pop_front() {
        reached += 1;
        terminals += usize::from(g.edges[s].is_empty());
        let chosen = g
            .smallest_persistent(s, &mut mark, &mut stamp)
            .unwrap_or_else(|| {
                too_many += 1;
                (0..g.edges[s].len()).collect()
            });
        if chosen.len() < g.edges[s].len() {
            reduced_here += 1;
            let mut kinds: Vec<String> = chosen.iter().map(|&i| kind(g.edges[s][i].0)).collect();
            kinds.sort();
            *taken.entry(kinds.join(" + ")).or_default() += 1;
        }
        for i in chosen {
            let v = g.edges[s][i].1;
            if !seen[v] {
                seen[v] = true;
                queue.push_back(v);
            }
        }
    }
    let all_terminals = g.edges.iter().filter(|e| e.is_empty()).count();
    assert_eq!(
        terminals, all_terminals,
        "a persistent-set search keeps every terminal state"
    );
    // Every property's outcome (a counterexample, a witness, or neither) is the same in the
    // reduced search as in the whole graph: the persistence condition is sound here.
    let shown = |states: &mut dyn Iterator<Item = usize>| -> std::collections::BTreeSet<u32> {
        states.flat_map(|u| g.shows[u].iter().copied()).collect()
    };
    let decided = shown(&mut (0..total));
    assert_eq!(
        decided,
        shown(&mut (0..total).filter(|&u| seen[u])),
        "the reduced search decides some property otherwise"
    );
    println!("{path}: {total} states unreduced");
    println!(
        "  ideal persistent sets: {reached} states ({:.2}x fewer), {reduced_here} of them expanded by a proper subset; \
         all {all_terminals} terminal states kept, and all {} property outcomes shown (counterexamples, witnesses)",
        total as f64 / reached as f64,
        decided.len()
    );
    if too_many > 0 {
        println!(
            "  {too_many} states had too many closed sets to try and were expanded fully \
             (the count is then above the ideal)"
        );
    }
    let mut taken: Vec<_> = taken.into_iter().collect();
    taken.sort_by_key(|t| std::cmp::Reverse(t.1));
    for (kinds, n) in taken.iter().take(12) {
        println!("    {n} states took {kinds}");
    }
}

/// An action's kind: its name and, for a thread's step, the thread's kind.
fn kind(a: Action) -> String {
    let text = format!("{a:?}");
    let mut parts = text.split('(');
    match (parts.next(), parts.next()) {
        (Some("Step"), Some(thread)) => format!("Step({thread})"),
        (Some(name), _) => name.to_string(),
        (None, _) => text,
    }
}
