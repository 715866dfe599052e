//! The partial-order reduction's promises, checked on the full state graphs of the standard
//! scenarios (and the whole list of fixes): wherever the model names a safe step, that step
//!
//! - is enabled, and the state it returns is the one `apply` gives;
//! - changes nothing but its own thread (so no property can see it);
//! - commutes with every other action, and with every sequence of up to [`DEPTH`] other
//!   actions: it stays enabled after them, they stay enabled after it, and both orders reach
//!   the same state.
//!
//! Commuting with every path of non-ample actions is what persistence means; this test
//! checks it on every path up to [`DEPTH`] long from every state of graphs small enough to
//! explore, and the verdict comparisons (`tests/cli.rs`, the sweep, the scenario fuzzer)
//! check its consequence on longer paths.

mod common;

use std::collections::{HashSet, VecDeque};

use common::{enabled, every_variant, reachable, standard_worlds};
use webmcp_model::machine::Action;
use webmcp_model::reduction::Visibility;
use webmcp_model::state::{State, TaskKind};
use webmcp_model::threads::ThreadKey;
use webmcp_model::variant::Revision;
use webmcp_model::{WebMcpModel, World};

/// How many other actions a safe step is commuted past, on every path.
const DEPTH: usize = 3;
/// Scenarios with more reachable states are skipped (the comparison of verdicts covers them).
const MAX_STATES: usize = 30_000;

/// Checks that `a` (leading from `s` to `after_a`) commutes with every path of other
/// actions from `s` up to `depth` long.
fn commutes_along_paths(
    m: &WebMcpModel,
    a: Action,
    s: &State,
    after_a: &State,
    depth: usize,
) -> Result<(), String> {
    if depth == 0 {
        return Ok(());
    }
    for b in enabled(m, s) {
        if b == a {
            continue;
        }
        let sb = m.apply(s, b, &mut ());
        if !m.is_enabled(&sb, a) {
            return Err(format!("{b:?} disables the safe step {a:?}"));
        }
        if !m.is_enabled(after_a, b) {
            return Err(format!("the safe step {a:?} disables {b:?}"));
        }
        let sb_a = m.apply(&sb, a, &mut ());
        let sa_b = m.apply(after_a, b, &mut ());
        if sb_a != sa_b {
            return Err(format!(
                "the safe step {a:?} and {b:?} do not commute:\n{sa_b:?}\n{sb_a:?}"
            ));
        }
        commutes_along_paths(m, a, &sb, &sb_a, depth - 1)
            .map_err(|e| format!("after {b:?}: {e}"))?;
    }
    Ok(())
}

#[test]
fn a_safe_step_is_persistent_and_invisible_on_every_standard_scenario() {
    let mut safe_states = 0usize;
    let mut checked_scenarios = 0usize;
    for world in standard_worlds() {
        for variant in every_variant() {
            let m = WebMcpModel::new(world.clone(), variant);
            let Some(states) = reachable(&m, MAX_STATES) else {
                continue;
            };
            checked_scenarios += 1;
            for s in &states {
                let Some((a, t)) = m.safe_step(s) else {
                    continue;
                };
                safe_states += 1;
                let name = format!("{} under {}", world.name, variant.name());
                assert!(m.is_enabled(s, a), "{name}: {a:?} is not enabled");
                assert_eq!(t, m.apply(s, a, &mut ()), "{name}: {a:?}");
                let Action::Step(key) = a else {
                    panic!("{name}: a safe step that is not a thread's step: {a:?}");
                };
                assert!(
                    t.threads.contains_key(&key),
                    "{name}: {a:?} ended its thread"
                );
                let mut s_without = s.clone();
                let mut t_without = t.clone();
                s_without.threads = Default::default();
                t_without.threads = Default::default();
                assert_eq!(s_without, t_without, "{name}: {a:?} changed shared state");
                if let Err(e) = commutes_along_paths(&m, a, s, &t, DEPTH) {
                    panic!("{name}: {e}\nat {s:?}");
                }
            }
        }
    }
    // Not vacuous: the reduction applies on many states of many scenarios.
    assert!(checked_scenarios > 100, "{checked_scenarios} scenario runs");
    assert!(safe_states > 1_000, "{safe_states} states with a safe step");
    eprintln!("{safe_states} states with a safe step in {checked_scenarios} scenario runs");
}

/// Persistence exactly, not to a depth: from every state with a safe step `a`, every state
/// reachable by actions other than `a` still enables `a`, and there `a` commutes with every
/// other enabled action (both orders enabled, same state). By induction along any path
/// that does not take `a`, `a` then commutes with the whole path, which is what `{a}` being
/// persistent means. A thread's step is the same action wherever its thread has not moved,
/// so a state and a thread are checked once, whichever safe state reached them.
#[test]
fn a_safe_step_commutes_with_every_path_that_does_not_take_it() {
    let mut regions = 0usize;
    for world in standard_worlds() {
        for variant in every_variant() {
            let m = WebMcpModel::new(world.clone(), variant);
            let Some(states) = reachable(&m, MAX_STATES) else {
                continue;
            };
            let name = format!("{} under {}", world.name, variant.name());
            let mut checked: HashSet<(State, Vec<Action>)> = HashSet::new();
            for s in &states {
                let Some((a, _)) = m.safe_step(s) else {
                    continue;
                };
                regions += 1;
                assert_commutes_with_every_path_avoiding(&m, &[a], s, &mut checked, &name);
            }
        }
    }
    assert!(regions > 1_000, "{regions} states with a safe step");
}

/// Persistence of the set `set` exactly, from `s`: every state reachable from `s` by actions
/// outside `set` still enables each action of it, and there each commutes with every enabled
/// action outside it (both orders enabled, the same state). By induction along any path that
/// takes none of them, each then commutes with the whole path. `checked` holds the states
/// already checked for `set`: actions that read the same things wherever the path has not
/// moved them are checked once per state, whichever state of the search reached it.
fn assert_commutes_with_every_path_avoiding(
    m: &WebMcpModel,
    set: &[Action],
    s: &State,
    checked: &mut HashSet<(State, Vec<Action>)>,
    name: &str,
) {
    let mut queue = VecDeque::from([s.clone()]);
    while let Some(here) = queue.pop_front() {
        if !checked.insert((here.clone(), set.to_vec())) {
            continue;
        }
        let outside: Vec<Action> = enabled(m, &here)
            .into_iter()
            .filter(|b| !set.contains(b))
            .collect();
        for &a in set {
            assert!(
                m.is_enabled(&here, a),
                "{name}: {a:?} is disabled by a path that takes nothing of {set:?}, at {here:?}"
            );
            let after_a = m.apply(&here, a, &mut ());
            for &b in &outside {
                assert!(
                    m.is_enabled(&after_a, b),
                    "{name}: {a:?} of {set:?} disables {b:?} at {here:?}"
                );
                let after_b = m.apply(&here, b, &mut ());
                assert_eq!(
                    m.apply(&after_a, b, &mut ()),
                    m.apply(&after_b, a, &mut ()),
                    "{name}: {a:?} of {set:?} and {b:?} do not commute at {here:?}"
                );
            }
        }
        for b in outside {
            queue.push_back(m.apply(&here, b, &mut ()));
        }
    }
}

/// The sets of queuing steps (`webmcp_model::reduction`, `docs/model.md` §7), persistence
/// exactly: from every state where the model names such a set `T`, every state reachable by
/// actions outside `T` still enables each action of `T`, and there each commutes with every
/// enabled action outside `T`. Every step of the set changes nothing but its own thread, the
/// tails of event loops' queues and its own pending entry. Under [`Visibility::NOTHING`], so that the steps every
/// property would see (which a catalogue keeps out of the sets) are checked too.
#[test]
fn a_set_of_queuing_steps_commutes_with_every_path_that_takes_none_of_them() {
    let (mut regions, mut larger) = (0usize, 0usize);
    for world in standard_worlds() {
        for variant in every_variant() {
            let m = WebMcpModel::new(world.clone(), variant).with_visibility(Visibility::NOTHING);
            let Some(states) = reachable(&m, MAX_STATES) else {
                continue;
            };
            let name = format!("{} under {}", world.name, variant.name());
            let mut checked: HashSet<(State, Vec<Action>)> = HashSet::new();
            for s in &states {
                if m.safe_step(s).is_some()
                    || m.task_alone(s).is_some()
                    || m.body_alone(s).is_some()
                {
                    continue;
                }
                let mut set = Vec::new();
                if !m.persistent_steps(s, &mut set) {
                    continue;
                }
                regions += 1;
                larger += usize::from(set.len() > 1);
                for (a, t) in &set {
                    assert_eq!(*t, m.apply(s, *a, &mut ()), "{name}: {a:?}");
                    let Action::Step(key) = *a else {
                        panic!("{name}: a queuing step that is not a thread's step: {a:?}");
                    };
                    assert_only_thread_and_queue_tails(s, t, key, &name);
                }
                let ample: Vec<Action> = set.iter().map(|(a, _)| *a).collect();
                assert_commutes_with_every_path_avoiding(&m, &ample, s, &mut checked, &name);
            }
        }
    }
    // Not vacuous: sets are named on many states, some of more than one step.
    assert!(
        regions > 1_000,
        "{regions} states with a set of queuing steps"
    );
    assert!(larger > 100, "{larger} sets of more than one step");
    eprintln!("{regions} states with a set of queuing steps, {larger} of more than one");
}

/// `next` differs from `s` only in thread `key` (moved on or ended), in tasks appended to
/// the end of queues, and in at most one entry removed from a pending map (the completion
/// steps' own).
fn assert_only_thread_and_queue_tails(s: &State, next: &State, key: ThreadKey, name: &str) {
    let mut s_rest = s.clone();
    let mut next_rest = next.clone();
    s_rest.threads.remove(&key);
    next_rest.threads.remove(&key);
    for (before, after) in s.queues.iter().zip(next.queues.iter()) {
        assert!(
            after.len() >= before.len() && before.iter().zip(after.iter()).all(|(x, y)| x == y),
            "{name}: Step({key:?}) changed a queue other than at its end"
        );
    }
    let mut removed = 0;
    for (before, after) in s.pending.iter().zip(next.pending.iter()) {
        let kept: Vec<_> = before
            .iter()
            .filter(|e| after.iter().any(|a| a == *e))
            .collect();
        assert!(
            kept.len() == after.len() && kept.iter().zip(after.iter()).all(|(k, a)| *k == a),
            "{name}: Step({key:?}) changed a pending map other than by removing from it"
        );
        removed += before.len() - after.len();
    }
    assert!(
        removed == 0
            || (removed == 1
                && matches!(
                    key,
                    ThreadKey::Completion(_) | ThreadKey::CleanupCompletion(..)
                )),
        "{name}: Step({key:?}) removed {removed} pending entries"
    );
    s_rest.queues = Default::default();
    next_rest.queues = Default::default();
    s_rest.pending = Default::default();
    next_rest.pending = Default::default();
    assert_eq!(
        s_rest, next_rest,
        "{name}: Step({key:?}) changed shared state"
    );
}

/// A model that has not been told what its properties read (`Visibility::EVERYTHING`, the
/// default of `WebMcpModel::new`) takes no step alone or in a set that queues a task, ends
/// its thread or removes a pending entry: every set it names changes threads' locals only.
#[test]
fn a_model_not_told_what_properties_read_takes_no_queuing_step() {
    let mut sets = 0usize;
    for world in standard_worlds() {
        let m = WebMcpModel::new(world.clone(), webmcp_model::Variant::SEED);
        let Some(states) = reachable(&m, MAX_STATES) else {
            continue;
        };
        for s in &states {
            let mut set = Vec::new();
            if !m.persistent_steps(s, &mut set) {
                continue;
            }
            sets += 1;
            for (a, t) in &set {
                let Action::Step(key) = *a else {
                    panic!("{}: {a:?} is not a thread's step", world.name);
                };
                assert!(
                    t.queues == s.queues && t.pending == s.pending && t.threads.contains_key(&key),
                    "{}: {a:?} queued, removed or ended at {s:?}",
                    world.name
                );
            }
        }
    }
    assert!(sets > 1_000, "{sets} states with a persistent set");
}

/// The scenarios a task alone is checked on: the standard ones, same-origin iframes that each
/// register a tool (the family `bench` measures, at sizes 1 and 2) with and without a script
/// that awaits a `toolchange` event, and one document executing its tool once or twice (the
/// executions family) with and without awaiting the last execution, and once with its tool
/// registered with a signal the environment may abort.
fn task_alone_worlds() -> Vec<World> {
    let iframes = |n: usize, await_first: bool| {
        let frames: Vec<_> = (1..=n)
            .map(|i| serde_json::json!({"doc": format!("child{i}"), "nav": format!("frame{i}"), "url": format!("https://a.example/{i}")}))
            .collect();
        let mut scripts = serde_json::Map::new();
        for i in 1..=n {
            let register = serde_json::json!({"registerTool": {"name": format!("t{i}"), "description": "a test tool"}});
            let script = if await_first && i == 1 {
                serde_json::json!([{"awaitToolchange": true}, register])
            } else {
                serde_json::json!([register])
            };
            scripts.insert(format!("child{i}"), script);
        }
        let text = common::scenario(
            serde_json::json!([{"tab": "main", "top": {"doc": "top", "url": "https://a.example/", "iframes": frames}}]),
            serde_json::Value::Object(scripts),
        )
        .replace("\"inline\"", &format!("\"iframes-{n}{}\"", if await_first { "-awaiting" } else { "" }));
        World::from_json(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    };
    // One document that executes its tool `n` times without awaiting (the executions
    // family), and the same awaiting the last execution (its script is not done until then).
    let executions = |n: usize, await_last: bool| {
        let mut script = vec![
            serde_json::json!({"registerTool": {"name": "t1", "description": "a test tool"}}),
            serde_json::json!({"as": "list", "getTools": {}}),
            serde_json::json!({"await": "list"}),
        ];
        for i in 1..=n {
            script.push(serde_json::json!({"as": format!("exec{i}"), "executeTool": {"from": "list", "name": "t1"}, "input": {"$js": "reaches-body"}}));
        }
        if await_last {
            script.push(serde_json::json!({"await": format!("exec{n}")}));
        }
        let text = common::scenario_with_env(
            serde_json::json!([{"tab": "main", "top": {"doc": "top", "url": "https://a.example/"}}]),
            serde_json::json!({ "top": script }),
            serde_json::json!({"toolOutcomes": ["fulfil", "reject"]}),
        )
        .replace("\"inline\"", &format!("\"executions-{n}{}\"", if await_last { "-awaiting" } else { "" }));
        World::from_json(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    };
    // The execution's tool unregistered by an abort (the environment's, at any moment) while
    // it may run: under PR #247's text the unregistration runs the execution's completion
    // steps.
    let unregistered = {
        let script = serde_json::json!([
            {"registerTool": {"name": "t1", "description": "a test tool"}, "signal": "ac"},
            {"as": "list", "getTools": {}},
            {"await": "list"},
            {"as": "exec1", "executeTool": {"from": "list", "name": "t1"}, "input": {"$js": "reaches-body"}}
        ]);
        let text = common::scenario_with_env(
            serde_json::json!([{"tab": "main", "top": {"doc": "top", "url": "https://a.example/"}}]),
            serde_json::json!({ "top": script }),
            serde_json::json!({"toolOutcomes": ["fulfil", "reject"], "abort": ["ac"]}),
        )
        .replace("\"inline\"", "\"execution-then-unregistration\"");
        World::from_json(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    };
    let mut worlds = standard_worlds();
    worlds.extend([iframes(1, false), iframes(2, false), iframes(2, true)]);
    worlds.extend([
        executions(1, false),
        executions(2, false),
        executions(2, true),
        unregistered,
    ]);
    worlds
}

/// A task alone (`WebMcpModel::task_alone`, `docs/model.md` §7), persistence exactly: from
/// every state where the model runs a `toolchange` task, a registration's resolution or an
/// execution's settlement first, every state reachable without running it still enables it, and there it commutes
/// with every other enabled action (both orders enabled, the same state). The task changes
/// nothing but its queue, where it is removed, and its document's `toolchange` counter or
/// its call's promise. Under [`Visibility::NOTHING`], so that the tasks a catalogue
/// would keep out are checked too; under every variant and the earlier texts.
#[test]
fn a_task_alone_commutes_with_every_path_that_does_not_run_it() {
    let (mut regions, mut resolutions, mut settlements, mut starts, mut scenarios) =
        (0usize, 0usize, 0usize, 0usize, HashSet::new());
    for_each_state_of_task_alone_worlds(|m, world, name, s, checked| {
        let Some((a, t)) = m.task_alone(s) else {
            return;
        };
        regions += 1;
        scenarios.insert(world.name.clone());
        assert_eq!(t, m.apply(s, a, &mut ()), "{name}: {a:?}");
        let Action::RunTask(agent) = a else {
            panic!("{name}: a task alone that is not a task: {a:?}");
        };
        let kind = &s.queues[agent.index()]
            .iter()
            .find(|task| s.is_fully_active(task.doc))
            .expect("a runnable task")
            .kind;
        let mut s_rest = s.clone();
        let mut t_rest = t.clone();
        s_rest.queues = Default::default();
        t_rest.queues = Default::default();
        match kind {
            TaskKind::FireToolchange { .. } => {
                for (d, doc) in t_rest.docs.clone().iter().enumerate() {
                    s_rest.docs[d].toolchanges = doc.toolchanges;
                }
            }
            TaskKind::ResolveRegister { call } => {
                resolutions += 1;
                assert!(t.promises[call.index()].is_settled(), "{name}: {a:?}");
                s_rest.promises[call.index()] = t_rest.promises[call.index()].clone();
            }
            TaskKind::RunToolExecuteSteps { call, target, .. } => {
                starts += 1;
                let body = t.bodies.get(call).expect("a body starts");
                assert!(!body.settled && body.target == *target, "{name}: {a:?}");
                t_rest.bodies.remove(call);
                t_rest.docs[target.index()].local.remove(call);
                t_rest
                    .ghost
                    .remove(&webmcp_model::state::Ghost::ToolActivated(*call));
            }
            TaskKind::ResolveExecute { call, .. } | TaskKind::RejectExecute { call, .. } => {
                settlements += 1;
                assert!(t.promises[call.index()].is_settled(), "{name}: {a:?}");
                s_rest.promises[call.index()] = t_rest.promises[call.index()].clone();
            }
            other => panic!("{name}: {other:?} taken alone"),
        }
        assert_eq!(
            s_rest, t_rest,
            "{name}: {a:?} changed more than its task's own"
        );
        assert_eq!(
            s.queues[agent.index()].len(),
            t.queues[agent.index()].len() + 1,
            "{name}: {a:?}"
        );
        assert_commutes_with_every_path_avoiding(m, &[a], s, checked, name);
    });
    // Not vacuous: the rule applies on many states, of the families it is for and of others,
    // to every kind of task.
    assert!(regions > 1_000, "{regions} states with a task alone");
    assert!(resolutions > 100, "{resolutions} resolutions alone");
    assert!(
        settlements > 100,
        "{settlements} executions' settlements alone"
    );
    assert!(starts > 100, "{starts} tool execute steps alone");
    assert!(scenarios.len() > 5, "only in {scenarios:?}");
    eprintln!(
        "{regions} states with a task alone ({resolutions} resolutions, {settlements} executions' settlements, {starts} tools started), in {} scenarios",
        scenarios.len()
    );
}

/// A body's settlement alone (`WebMcpModel::body_alone`, `docs/model.md` §7), persistence
/// exactly: from every state where the model settles one running tool body first (with
/// every outcome the environment may give), every state reachable without settling it still
/// enables each of those actions, and there each commutes with every other enabled action.
/// Each changes nothing but the body (settled), its entry of the local map (gone) and the
/// thread of its completion steps (started). Under [`Visibility::NOTHING`], every variant and
/// the earlier texts.
#[test]
fn a_bodys_settlement_alone_commutes_with_every_path_that_does_not_settle_it() {
    let (mut regions, mut scenarios) = (0usize, HashSet::new());
    for_each_state_of_task_alone_worlds(|m, world, name, s, checked| {
        if m.safe_step(s).is_some() || m.task_alone(s).is_some() {
            return;
        }
        let Some(set) = m.body_alone(s) else {
            return;
        };
        regions += 1;
        scenarios.insert(world.name.clone());
        assert_eq!(set.len(), world.env.outcomes.len(), "{name}: {set:?}");
        for (a, t) in &set {
            assert_eq!(*t, m.apply(s, *a, &mut ()), "{name}: {a:?}");
            let Action::SettleTool(uuid, _) = *a else {
                panic!("{name}: a body's settlement that is not one: {a:?}");
            };
            let target = s.bodies.get(&uuid).expect("running").target;
            assert!(t.bodies.get(&uuid).expect("kept").settled, "{name}: {a:?}");
            let (mut s_rest, mut t_rest) = (s.clone(), t.clone());
            s_rest.bodies.remove(&uuid);
            t_rest.bodies.remove(&uuid);
            s_rest.docs[target.index()].local.remove(&uuid);
            t_rest.threads.remove(&ThreadKey::Completion(uuid));
            assert_eq!(
                s_rest, t_rest,
                "{name}: {a:?} changed more than its body's own"
            );
        }
        let ample: Vec<Action> = set.iter().map(|(a, _)| *a).collect();
        assert_commutes_with_every_path_avoiding(m, &ample, s, checked, name);
    });
    // Not vacuous: the rule applies on many states, in several scenarios.
    assert!(
        regions > 1_000,
        "{regions} states with a body's settlement alone"
    );
    assert!(scenarios.len() > 3, "only in {scenarios:?}");
    eprintln!(
        "{regions} states with a body's settlement alone, in {} scenarios",
        scenarios.len()
    );
}

/// Calls `visit` at every reachable state of each of [`task_alone_worlds`] (those of up to
/// [`MAX_STATES`] states) under every variant of the current text and the earlier texts
/// (PR #247's notifies synchronously on unregistration and completes the tool's pending
/// executions), with [`Visibility::NOTHING`], the world, a name for it and the variant, and
/// the states already checked for a set (shared by the states of one world and variant).
fn for_each_state_of_task_alone_worlds(
    mut visit: impl FnMut(&WebMcpModel, &World, &str, &State, &mut HashSet<(State, Vec<Action>)>),
) {
    let earlier = [Revision::Aug2026, Revision::Pr247].map(|r| webmcp_model::Variant::SEED.at(r));
    for world in task_alone_worlds() {
        for variant in every_variant().into_iter().chain(earlier) {
            let m = WebMcpModel::new(world.clone(), variant).with_visibility(Visibility::NOTHING);
            let Some(states) = reachable(&m, MAX_STATES) else {
                continue;
            };
            let name = format!("{} under {}", world.name, variant.name());
            let mut checked: HashSet<(State, Vec<Action>)> = HashSet::new();
            for s in &states {
                visit(&m, &world, &name, s, &mut checked);
            }
        }
    }
}
