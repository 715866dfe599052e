//! What sleep sets could save, at best: a breadth-first search with sleep sets whose
//! independence is the exact one (two actions *commute here*: each stays enabled after the
//! other and both orders reach the same state), against the plain search, on one scenario.
//!
//! Sleep sets alone prune transitions, not states: every reachable state is still visited,
//! and at its shortest depth (a pruned transition's target is reached by the other side of
//! its diamond, a path of the same length). The example asserts both. A sleep set is kept
//! per state; a state reached again after its expansion with a sleep set missing some of
//! the actions it slept on is expanded again (Godefroid's revisit rule), which the count of
//! generated successors includes.
//!
//! No footprint-based relation can put more to sleep than this exact one, so its count is
//! a floor for any sleep sets we could build. `--only-thread-steps` relates only pairs of
//! in-parallel steps: what footprints of thread steps alone could reach. `--footprints`
//! uses the footprints `--reduction sleep` uses (`model/src/footprint.rs`), and asserts
//! that every pair they call independent commutes. `--local-steps` relates two thread steps
//! that each change only their own thread's entry, the cheapest relation that needs no
//! footprint, and asserts that they commute. The pairs put to sleep are counted by
//! kind of action, which says whose footprints matter (`docs/performance.md`, "Sleep sets").
//!
//! ```sh
//! target/release/webmcp-check bench --print-family iframes:2 > f.json
//! cargo run --release --example sleep_profile -- f.json [--only-thread-steps | --footprints | --local-steps]
//! ```

use std::collections::{BTreeMap, HashMap};

use webmcp_checker::fingerprint::fingerprint;
use webmcp_model::{Action, State, Variant, WebMcpModel, World};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a scenario file");
    let relation = match args.next().as_deref() {
        None => Relation::Exact,
        Some("--only-thread-steps") => Relation::ThreadSteps,
        Some("--footprints") => Relation::Footprints,
        Some("--local-steps") => Relation::LocalSteps,
        Some(other) => panic!("unknown argument {other:?}"),
    };
    let world =
        World::from_json(&std::fs::read_to_string(&path).expect("readable")).expect("compiles");
    let m = WebMcpModel::new(world, Variant::parse("seed").unwrap());

    let plain = plain_bfs(&m);
    let sleep = sleep_bfs(&m, relation);
    assert_eq!(
        plain.depth, sleep.depth,
        "sleep sets reached other states, or at other depths"
    );
    let states = plain.depth.len();
    let per_state = |n: usize| n as f64 / states as f64;
    println!("{path}: {states} states, the same at the same depths in both searches");
    println!(
        "  plain search: {} successors generated ({:.2} per state)",
        plain.generated,
        per_state(plain.generated)
    );
    println!(
        "  sleep sets{}: {} ({:.2} per state, {:.2}x fewer), {} states reached again \
         after their expansion, {} of them expanded again",
        match relation {
            Relation::Exact => " (exact)",
            Relation::ThreadSteps => " (thread steps only)",
            Relation::Footprints => " (our footprints)",
            Relation::LocalSteps => " (steps that change only their own thread)",
        },
        sleep.generated,
        per_state(sleep.generated),
        plain.generated as f64 / sleep.generated.max(1) as f64,
        sleep.reached_again,
        sleep.reexpansions
    );
    println!("  actions put to sleep, by the kinds of the pair:");
    for ((a, b), n) in &sleep.pairs {
        println!("    {a} / {b}: {n}");
    }
}

struct Search {
    /// Every state's fingerprint and depth.
    depth: HashMap<u64, usize>,
    generated: usize,
    reached_again: usize,
    reexpansions: usize,
    pairs: BTreeMap<(&'static str, &'static str), usize>,
}

fn plain_bfs(m: &WebMcpModel) -> Search {
    let init = m.initial_state();
    let mut depth = HashMap::from([(fingerprint(&init), 1)]);
    let mut level = vec![init];
    let mut generated = 0;
    let mut actions = Vec::new();
    for d in 1.. {
        if level.is_empty() {
            break;
        }
        let mut next = Vec::new();
        for s in &level {
            actions.clear();
            m.enabled_actions(s, &mut actions);
            for &a in &actions {
                let t = m.apply(s, a, &mut ());
                generated += 1;
                if let std::collections::hash_map::Entry::Vacant(e) = depth.entry(fingerprint(&t)) {
                    e.insert(d + 1);
                    next.push(t);
                }
            }
        }
        level = next;
    }
    Search {
        depth,
        generated,
        reached_again: 0,
        reexpansions: 0,
        pairs: BTreeMap::new(),
    }
}

/// `a` (leading from `s` to `sa`) and `b` commute at `s`.
fn commute_here(m: &WebMcpModel, s: &State, a: Action, sa: &State, b: Action) -> bool {
    if !m.is_enabled(sa, b) {
        return false;
    }
    let sb = m.apply(s, b, &mut ());
    m.is_enabled(&sb, a) && m.apply(sa, b, &mut ()) == m.apply(&sb, a, &mut ())
}

#[derive(Clone, Copy, PartialEq)]
enum Relation {
    Exact,
    ThreadSteps,
    Footprints,
    LocalSteps,
}

/// Whether `next`, reached from `s` by thread `key`'s step, differs from `s` only in that
/// thread's entry (changed, or gone).
fn local_step(s: &State, next: &State, key: webmcp_model::threads::ThreadKey) -> bool {
    use webmcp_model::state::parts;
    s.same_outside(next, parts::THREADS)
        && s.threads
            .iter()
            .filter(|(k, _)| **k != key)
            .eq(next.threads.iter().filter(|(k, _)| **k != key))
}

fn sleep_bfs(m: &WebMcpModel, relation: Relation) -> Search {
    let related = |s: &State, a: Action, sa: &State, b: Action| match relation {
        Relation::Exact => commute_here(m, s, a, sa, b),
        Relation::ThreadSteps => {
            matches!((a, b), (Action::Step(_), Action::Step(_))) && commute_here(m, s, a, sa, b)
        }
        Relation::LocalSteps => match (a, b) {
            (Action::Step(ka), Action::Step(kb)) => {
                let sb = m.apply(s, b, &mut ());
                let local = local_step(s, sa, ka) && local_step(s, &sb, kb);
                assert!(
                    !local || commute_here(m, s, a, sa, b),
                    "{a:?} and {b:?} change only their own threads and do not commute"
                );
                local
            }
            _ => false,
        },
        Relation::Footprints => {
            let (_, fa) = m.apply_with_footprint(s, a);
            let (_, fb) = m.apply_with_footprint(s, b);
            let independent = !fa.conflicts(&fb);
            assert!(
                !independent || commute_here(m, s, a, sa, b),
                "{a:?} and {b:?} are called independent and do not commute"
            );
            independent
        }
    };
    let init = m.initial_state();
    let fp0 = fingerprint(&init);
    let mut depth = HashMap::from([(fp0, 1)]);
    // The sleep set a state waits with, or was last expanded with.
    let mut sleeps: HashMap<u64, Vec<Action>> = HashMap::from([(fp0, Vec::new())]);
    let mut expanded: HashMap<u64, bool> = HashMap::new();
    let mut level = vec![(init, fp0)];
    let mut search = Search {
        depth: HashMap::new(),
        generated: 0,
        reached_again: 0,
        reexpansions: 0,
        pairs: BTreeMap::new(),
    };
    let mut actions = Vec::new();
    for d in 1.. {
        if level.is_empty() {
            break;
        }
        let mut next: Vec<(State, u64)> = Vec::new();
        let mut i = 0;
        // A state expanded again joins the level being expanded.
        while i < level.len() {
            let (s, fp) = level[i].clone();
            i += 1;
            expanded.insert(fp, true);
            let z = sleeps[&fp].clone();
            actions.clear();
            m.enabled_actions(&s, &mut actions);
            let mut done: Vec<Action> = Vec::new();
            for &a in &actions {
                if z.contains(&a) {
                    continue;
                }
                let t = m.apply(&s, a, &mut ());
                search.generated += 1;
                let child_sleep: Vec<Action> = z
                    .iter()
                    .chain(&done)
                    .copied()
                    .filter(|&b| related(&s, a, &t, b))
                    .collect();
                for &b in &child_sleep {
                    let (x, y) = (kind(a), kind(b));
                    *search.pairs.entry((x.min(y), x.max(y))).or_default() += 1;
                }
                done.push(a);
                let tfp = fingerprint(&t);
                if let std::collections::hash_map::Entry::Vacant(e) = depth.entry(tfp) {
                    e.insert(d + 1);
                    sleeps.insert(tfp, child_sleep);
                    next.push((t, tfp));
                    continue;
                }
                let was_expanded = expanded.get(&tfp).copied().unwrap_or(false);
                search.reached_again += usize::from(was_expanded);
                let old = sleeps.get_mut(&tfp).expect("a sleep set per state");
                let smaller = old.iter().any(|b| !child_sleep.contains(b));
                old.retain(|b| child_sleep.contains(b));
                if smaller && was_expanded {
                    // Expanded already, without an action it must now take.
                    search.reexpansions += 1;
                    expanded.insert(tfp, false);
                    level.push((t, tfp));
                }
            }
        }
        level = next;
    }
    search.depth = depth;
    search
}

fn kind(a: Action) -> &'static str {
    match a {
        Action::RunScript(_) => "script",
        Action::RunTask(_) => "task",
        Action::Step(_) => "thread step",
        Action::SettleTool(..) => "tool settles",
        Action::Abort(_) => "abort",
        Action::Observe(_) => "observation",
        Action::RemoveIframe(_)
        | Action::Navigate(_)
        | Action::EnterBfcache(_)
        | Action::RestoreFromBfcache(_)
        | Action::EvictFromBfcache(_) => "lifecycle",
    }
}
