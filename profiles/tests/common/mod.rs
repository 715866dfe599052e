//! What the property tests share: the standard scenarios, read from `scenarios/`.
#![allow(dead_code)]

use webmcp_model::World;

/// Every scenario file of `scenarios/`, compiled, sorted by file name.
pub fn standard_worlds() -> Vec<World> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("scenarios/ exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no scenario files in {}", dir.display());
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("readable scenario");
            World::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()))
        })
        .collect()
}

/// The standard scenario `name`.
pub fn standard_world(name: &str) -> World {
    standard_worlds()
        .into_iter()
        .find(|w| w.name == name)
        .unwrap_or_else(|| panic!("no standard scenario {name}"))
}

/// Every proposed fix together, and each fix alone.
pub fn every_fix() -> Vec<webmcp_model::Variant> {
    let mut variants = vec![webmcp_model::Variant::proposed()];
    variants.extend(
        webmcp_model::variant::FIXES
            .iter()
            .map(|f| webmcp_model::Variant::parse(&format!("seed+{}", f.name)).unwrap()),
    );
    variants
}

/// One-thread breadth-first options with `reduction`.
pub fn options(reduction: webmcp_profiles::Reduction) -> webmcp_profiles::CheckOptions {
    webmcp_profiles::CheckOptions {
        mode: webmcp_profiles::Mode::Bfs,
        threads: 1,
        reduction,
        ..webmcp_profiles::CheckOptions::default()
    }
}

/// Replays every path of `r` on the unreduced model: each action enabled where it is taken,
/// and the last state shows the property's outcome ([`webmcp_profiles::paths_stand`]).
pub fn replay_paths(
    m: &webmcp_model::WebMcpModel,
    r: &webmcp_profiles::ScenarioResult,
) -> Result<(), String> {
    webmcp_profiles::paths_stand(m, r).map_err(|e| e.to_string())
}

/// Every state reachable in `m`, in breadth-first order of discovery, or `None` past `max`.
pub fn reachable_up_to(
    m: &webmcp_model::WebMcpModel,
    max: usize,
) -> Option<Vec<webmcp_model::state::State>> {
    let (all, complete) = first_reached(m, max);
    complete.then_some(all)
}

/// The first `max` states a breadth-first walk of `m` discovers, and whether they are all.
pub fn first_reached(
    m: &webmcp_model::WebMcpModel,
    max: usize,
) -> (Vec<webmcp_model::state::State>, bool) {
    let init = m.initial_state();
    let mut seen = std::collections::HashSet::from([init.clone()]);
    let mut queue = std::collections::VecDeque::from([init.clone()]);
    let mut all = vec![init];
    let mut actions = Vec::new();
    while let Some(s) = queue.pop_front() {
        actions.clear();
        m.enabled_actions(&s, &mut actions);
        for &a in &actions {
            let t = m.apply(&s, a, &mut ());
            if seen.insert(t.clone()) {
                if seen.len() > max {
                    return (all, false);
                }
                all.push(t.clone());
                queue.push_back(t);
            }
        }
    }
    (all, true)
}

/// Each property's name, verdict and path length: what a reduction must leave unchanged.
pub fn outcomes(
    r: &webmcp_profiles::ScenarioResult,
) -> Vec<(&'static str, webmcp_profiles::Verdict, Option<usize>)> {
    r.properties
        .iter()
        .map(|p| (p.def.name, p.verdict, p.path.as_ref().map(Vec::len)))
        .collect()
}

/// A cycle reachable from `init`, as the states along it (the first repeated at the end), or
/// `None` where the graph `successors` spans from `init` is acyclic; with the number of
/// states walked.
pub fn find_cycle<S: Clone + Eq + std::hash::Hash>(
    init: S,
    mut successors: impl FnMut(&S) -> Vec<S>,
) -> (Option<Vec<S>>, usize) {
    // true: on the walk's stack; false: every successor walked.
    let mut on_stack: std::collections::HashMap<S, bool> = std::collections::HashMap::new();
    let mut stack: Vec<(S, std::vec::IntoIter<S>)> = Vec::new();
    on_stack.insert(init.clone(), true);
    let next = successors(&init).into_iter();
    stack.push((init, next));
    while let Some((_, pending)) = stack.last_mut() {
        match pending.next() {
            Some(t) => match on_stack.get(&t) {
                Some(true) => {
                    let from = stack
                        .iter()
                        .position(|(s, _)| *s == t)
                        .expect("on the stack");
                    let mut cycle: Vec<S> = stack[from..].iter().map(|(s, _)| s.clone()).collect();
                    cycle.push(t);
                    return (Some(cycle), on_stack.len());
                }
                Some(false) => {}
                None => {
                    on_stack.insert(t.clone(), true);
                    let next = successors(&t).into_iter();
                    stack.push((t, next));
                }
            },
            None => {
                let (done, _) = stack.pop().expect("not empty");
                on_stack.insert(done, false);
            }
        }
    }
    let walked = on_stack.len();
    (None, walked)
}

/// A cycle of `m`'s reachable graph ([`find_cycle`]), with the number of states walked.
pub fn find_model_cycle(
    m: &webmcp_model::WebMcpModel,
) -> (Option<Vec<webmcp_model::state::State>>, usize) {
    let mut actions = Vec::new();
    find_cycle(m.initial_state(), |s| {
        actions.clear();
        m.enabled_actions(s, &mut actions);
        actions.iter().map(|&a| m.apply(s, a, &mut ())).collect()
    })
}
