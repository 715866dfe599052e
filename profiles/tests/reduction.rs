//! Partial-order reduction changes no verdict: every standard scenario, under the seed
//! draft, every proposed fix and each fix alone, gives the same verdict for every property
//! with `Reduction::Por` as with `Reduction::None`, in no more states; and every path the
//! reduced search reports (counterexample or witness) replays on the unreduced model and
//! ends in a state that shows the property's outcome.

use webmcp_model::state::State;
use webmcp_model::{Variant, WebMcpModel};
use webmcp_profiles::{check, CheckOptions, Reduction};

mod common;
use common::{options, replay_paths, standard_worlds};

fn compare(variants: &[Variant]) {
    let mut fewer = 0usize;
    let mut runs = 0usize;
    for world in standard_worlds() {
        for &variant in variants {
            let m = WebMcpModel::new(world.clone(), variant);
            let full = check(m.clone(), &options(Reduction::None));
            let reduced = check(m.clone(), &options(Reduction::Por));
            let name = format!("{} under {}", world.name, variant.name());
            assert!(
                full.exhaustive && reduced.exhaustive,
                "{name}: not exhaustive"
            );
            assert_eq!(full.verdicts(), reduced.verdicts(), "{name}");
            assert!(reduced.unique_states <= full.unique_states, "{name}");
            fewer += usize::from(reduced.unique_states < full.unique_states);
            runs += 1;
            // Both reductions together (docs/model.md §7: the induction maps each path by
            // the symmetry that canonicalised its state).
            let both = check(
                m.clone(),
                &CheckOptions {
                    symmetry: true,
                    ..options(Reduction::Por)
                },
            );
            assert_eq!(full.verdicts(), both.verdicts(), "{name} with symmetry");
            assert!(both.unique_states <= reduced.unique_states, "{name}");
            if let Err(e) = replay_paths(&m, &both) {
                panic!("{name} with symmetry: {e}");
            }
            if let Err(e) = replay_paths(&m, &reduced) {
                panic!("{name}: {e}");
            }
        }
    }
    // Not vacuous: the reduction removes states somewhere.
    assert!(
        fewer * 4 > runs,
        "fewer states in only {fewer} of {runs} runs"
    );
}

/// The catalogue's side of the contract: no property tells a state from its safe step's
/// successor (checked on every state of the standard scenarios that has a safe step).
#[test]
fn no_property_sees_a_safe_step() {
    let props = webmcp_profiles::properties();
    let mut seen = 0usize;
    for world in standard_worlds() {
        let m = WebMcpModel::new(world.clone(), Variant::SEED);
        let mut queue = std::collections::VecDeque::from([m.initial_state()]);
        let mut visited = std::collections::HashSet::new();
        while let Some(s) = queue.pop_front() {
            if !visited.insert(s.clone()) || visited.len() > 50_000 {
                continue;
            }
            if let Some((_, t)) = m.safe_step(&s) {
                seen += 1;
                for p in props {
                    assert_eq!(
                        (p.holds)(&m, &s),
                        (p.holds)(&m, &t),
                        "{}: {} sees a safe step",
                        world.name,
                        p.name
                    );
                }
            }
            let mut actions = Vec::new();
            m.enabled_actions(&s, &mut actions);
            queue.extend(actions.into_iter().map(|a| m.apply(&s, a, &mut ())));
        }
    }
    assert!(seen > 1_000, "{seen} safe steps");
}

type Predicate = fn(&WebMcpModel, &webmcp_model::state::State) -> bool;

/// The catalogue's side of the contract for sets of queuing steps: under the catalogue's
/// [`webmcp_profiles::catalogue::VISIBILITY`], no always or sometimes property and no
/// witness tells a state from its successor by a step of the set, at the state and at every
/// state reached from it without taking a step of the set (up to 2,000 states from
/// each); a "sometimes" property or witness that holds at the state is shown there, and is
/// not asked.
#[test]
fn no_property_sees_a_queuing_step_on_any_path_that_takes_none() {
    let predicates = judged_predicates();
    let mut checked = 0usize;
    let pick = |m: &WebMcpModel, s: &State| {
        let mut set = Vec::new();
        let taken = m.safe_step(s).is_none()
            && m.task_alone(s).is_none()
            && m.body_alone(s).is_none()
            && m.persistent_steps(s, &mut set);
        taken.then(|| set.into_iter().map(|(a, _)| a).collect())
    };
    let sets = for_each_region(pick, |m, name, s, here, ample| {
        for &a in ample {
            let after = m.apply(here, a, &mut ());
            checked += 1;
            for (property, holds, sometimes) in &predicates {
                // A "sometimes" predicate that holds where the set is taken is shown there,
                // whatever follows.
                if *sometimes && holds(m, s) {
                    continue;
                }
                assert_eq!(
                    holds(m, here),
                    holds(m, &after),
                    "{name}: {property} sees {a:?} of {ample:?} at {here:?}"
                );
            }
        }
    });
    // Not vacuous: the catalogue leaves many queuing steps to the reduction.
    assert!(sets > 1_000, "{sets} sets of queuing steps");
    eprintln!("{sets} sets of queuing steps, {checked} steps checked along their regions");
}

/// Walks the standard scenarios (the draft and `proposed`, under the catalogue's
/// [`webmcp_profiles::catalogue::VISIBILITY`], up to 30,000 states each); at each state
/// where `pick` names the actions a reduction takes, calls `check` at that state and at
/// every state reached from it without taking one of them (up to 2,000 states), with the
/// scenario's name, the state where the set was taken, the state reached, and the set.
/// Returns how many sets it walked from.
fn for_each_region(
    pick: impl Fn(&WebMcpModel, &State) -> Option<Vec<webmcp_model::machine::Action>>,
    mut check: impl FnMut(&WebMcpModel, &str, &State, &State, &[webmcp_model::machine::Action]),
) -> usize {
    const REGION: usize = 2_000;
    let mut sets = 0usize;
    for world in standard_worlds() {
        for variant in [Variant::SEED, Variant::proposed()] {
            let m = WebMcpModel::new(world.clone(), variant)
                .with_visibility(webmcp_profiles::catalogue::VISIBILITY);
            let name = format!("{} under {}", world.name, variant.name());
            let mut queue = std::collections::VecDeque::from([m.initial_state()]);
            let mut visited = std::collections::HashSet::new();
            while let Some(s) = queue.pop_front() {
                if !visited.insert(s.clone()) || visited.len() > 30_000 {
                    continue;
                }
                if let Some(ample) = pick(&m, &s) {
                    sets += 1;
                    let mut region = std::collections::VecDeque::from([s.clone()]);
                    let mut seen = std::collections::HashSet::new();
                    while let Some(here) = region.pop_front() {
                        if seen.len() >= REGION || !seen.insert(here.clone()) {
                            continue;
                        }
                        check(&m, &name, &s, &here, &ample);
                        let mut actions = Vec::new();
                        m.enabled_actions(&here, &mut actions);
                        region.extend(
                            actions
                                .into_iter()
                                .filter(|b| !ample.contains(b))
                                .map(|b| m.apply(&here, b, &mut ())),
                        );
                    }
                }
                let mut actions = Vec::new();
                m.enabled_actions(&s, &mut actions);
                queue.extend(actions.into_iter().map(|a| m.apply(&s, a, &mut ())));
            }
        }
    }
    sets
}

#[test]
fn the_reduction_changes_no_verdict_of_the_draft() {
    compare(&[Variant::SEED]);
}

#[test]
fn the_reduction_changes_no_verdict_of_any_fix() {
    compare(&common::every_fix());
}

/// Each predicate the engine judges, and whether it is judged "sometimes" (shown once any
/// state has it) rather than "always" (shown by a state where it fails). At-termination
/// predicates are judged only where nothing is enabled, where no reduction takes a set.
fn judged_predicates() -> Vec<(&'static str, Predicate, bool)> {
    let props = webmcp_profiles::properties();
    props
        .iter()
        .filter(|p| p.kind != webmcp_profiles::Kind::AtTermination)
        .map(|p| (p.name, p.holds, p.kind == webmcp_profiles::Kind::Sometimes))
        .chain(props.iter().filter_map(|p| match p.witness {
            webmcp_profiles::catalogue::Witness::State { holds, .. } => Some((p.name, holds, true)),
            _ => None,
        }))
        .collect()
}

/// Whether `after` keeps every outcome `here` shows: an always predicate that fails at `here`
/// fails at `after`, a sometimes predicate that holds at `here` holds at `after`.
fn outcomes_kept(
    m: &WebMcpModel,
    predicates: &[(&'static str, Predicate, bool)],
    here: &webmcp_model::state::State,
    after: &webmcp_model::state::State,
) -> Result<(), &'static str> {
    for (name, holds, sometimes) in predicates {
        let (before, now) = (holds(m, here), holds(m, after));
        let lost = if *sometimes {
            before && !now
        } else {
            !before && now
        };
        if lost {
            return Err(name);
        }
    }
    Ok(())
}

/// The catalogue's claim `toolchange_fired_keeps_outcomes`: at every state of the standard
/// scenarios, one more `toolchange` event at any document (its counter up by one, as
/// `fire_toolchange` moves it) keeps every outcome the state shows.
#[test]
fn one_more_toolchange_event_keeps_every_outcome() {
    // The claim this test checks is the one the catalogue makes.
    const { assert!(webmcp_profiles::catalogue::VISIBILITY.toolchange_fired_keeps_outcomes) };
    let predicates = judged_predicates();
    let mut checked = 0usize;
    for world in standard_worlds() {
        let m = WebMcpModel::new(world.clone(), Variant::SEED);
        let mut queue = std::collections::VecDeque::from([m.initial_state()]);
        let mut visited = std::collections::HashSet::new();
        while let Some(s) = queue.pop_front() {
            if !visited.insert(s.clone()) || visited.len() > 30_000 {
                continue;
            }
            for d in 0..s.docs.len() {
                let mut after = s.clone();
                let counter = &mut after.docs[d].toolchanges;
                *counter = (*counter + 1).min(webmcp_model::state::TOOLCHANGES_COUNTED);
                checked += 1;
                if let Err(name) = outcomes_kept(&m, &predicates, &s, &after) {
                    panic!("{}: {name} loses its outcome when document {d} hears one more toolchange, at {s:?}", world.name);
                }
            }
            let mut actions = Vec::new();
            m.enabled_actions(&s, &mut actions);
            queue.extend(actions.into_iter().map(|a| m.apply(&s, a, &mut ())));
        }
    }
    assert!(checked > 10_000, "{checked} states and documents checked");
}

/// The argument for a task alone (`docs/model.md` §7): under the catalogue's
/// [`webmcp_profiles::catalogue::VISIBILITY`], running the task keeps every outcome, at the
/// state where it is taken and at every state reached from it without running it (up to
/// 2,000 states from each), except that of a sometimes property shown where it is taken.
#[test]
fn a_task_alone_keeps_every_outcome_on_any_path_that_does_not_run_it() {
    let pick = |m: &WebMcpModel, s: &State| m.task_alone(s).map(|(a, _)| vec![a]);
    let (sets, checked) = sets_keep_outcomes(pick);
    // Not vacuous: the catalogue leaves many tasks to the reduction.
    assert!(sets > 1_000, "{sets} tasks taken alone");
    eprintln!("{sets} tasks taken alone, {checked} runs checked along their regions");
}

/// Checks a claim of the catalogue's [`webmcp_profiles::catalogue::VISIBILITY`] that a change
/// keeps outcomes: at every state of the standard scenarios (up to 30,000 each), each state
/// `change` makes of it (with a key naming what changed) keeps every outcome the state
/// shows, except that of a sometimes property that holds at every reachable state of the
/// class (`class`, for the same key) of the state the change was made at. Returns how many
/// changes were checked and how many exemptions were needed.
fn check_claim<K: Copy + Eq + std::hash::Hash + std::fmt::Debug, C: Eq + std::hash::Hash>(
    claim: &str,
    change: impl Fn(&WebMcpModel, &State) -> Vec<(K, State)>,
    class: impl Fn(&State, K) -> C,
) -> (usize, usize) {
    let predicates = judged_predicates();
    let (mut checked, mut exemptions) = (0usize, 0usize);
    for world in standard_worlds() {
        let m = WebMcpModel::new(world.clone(), Variant::SEED);
        let mut queue = std::collections::VecDeque::from([m.initial_state()]);
        let mut visited = std::collections::HashSet::new();
        // Sometimes predicates a change turned off: which, the change's key, the class of
        // the state where.
        let mut lost = std::collections::HashSet::new();
        while let Some(s) = queue.pop_front() {
            if visited.len() >= 30_000 || !visited.insert(s.clone()) {
                continue;
            }
            for (key, after) in change(&m, &s) {
                checked += 1;
                for (k, (name, holds, sometimes)) in predicates.iter().enumerate() {
                    let (before, now) = (holds(&m, &s), holds(&m, &after));
                    if *sometimes && before && !now {
                        lost.insert((k, key, class(&s, key)));
                    } else if !*sometimes && !before && now {
                        panic!(
                            "{}: {claim}: {name} no longer fails after {key:?}, at {s:?}",
                            world.name
                        );
                    }
                }
            }
            let mut actions = Vec::new();
            m.enabled_actions(&s, &mut actions);
            queue.extend(actions.into_iter().map(|a| m.apply(&s, a, &mut ())));
        }
        for (k, key, at) in lost {
            let (name, holds, _) = predicates[k];
            exemptions += 1;
            assert!(
                visited
                    .iter()
                    .filter(|v| class(v, key) == at)
                    .all(|v| holds(&m, v)),
                "{}: {claim}: {key:?} turns {name} off, which does not hold at every state like it",
                world.name
            );
        }
    }
    (checked, exemptions)
}

/// The catalogue's claim `execution_settled_keeps_outcomes`: settling any pending
/// `executeTool` promise as a settlement task does (fulfilled with the tool's result at
/// `execute-tool#16.10.3`, or rejected with an "UnknownError" at each step that queues such
/// a rejection; the attempt counted) keeps every outcome, except that of a sometimes
/// property that holds at every reachable state where that promise is pending.
#[test]
fn settling_a_pending_execution_keeps_every_outcome() {
    use webmcp_model::state::{Reason, Status, Value};
    use webmcp_model::steps::step;
    use webmcp_model::world::CallKind;
    const { assert!(webmcp_profiles::catalogue::VISIBILITY.execution_settled_keeps_outcomes) };
    let rejected_at = [
        "execute-tool#16.1",
        "execute-tool#16.4",
        "execute-tool#16.7",
        "execute-tool#16.9",
        "execute-tool#16.10.4",
        "unload-cleanup#2.3.4",
    ];
    let change = |m: &WebMcpModel, s: &State| {
        let w = &m.world;
        let mut afters = Vec::new();
        for (i, call) in w.calls.iter().enumerate() {
            if call.kind != CallKind::Execute || s.promises[i].status != Status::Pending {
                continue;
            }
            let fulfilled = (Ok(Value::Text(w.tool_result)), "execute-tool#16.10.3");
            let rejected = rejected_at.map(|at| (Err(Reason::UnknownError), at));
            for (outcome, at) in std::iter::once(fulfilled).chain(rejected) {
                let mut after = s.clone();
                let p = &mut after.promises[i];
                p.attempts = (p.attempts + 1).min(3);
                match outcome {
                    Ok(v) => {
                        p.tried_fulfil = true;
                        p.status = Status::Fulfilled(v);
                    }
                    Err(r) => {
                        p.tried_reject = true;
                        p.status = Status::Rejected(r);
                    }
                }
                p.settled_at = Some(step(at));
                afters.push((i, after));
            }
        }
        afters
    };
    let pending = |v: &State, i: usize| v.promises[i].status == Status::Pending;
    let (checked, exempt) = check_claim("an execution settled", change, pending);
    // Not vacuous: many pending executions, and the one exempt witness ("an executeTool
    // promise is pending") is met.
    assert!(checked > 10_000, "{checked} settlements checked");
    assert!(exempt > 0, "no sometimes property was exempt");
    eprintln!("{checked} settlements checked, {exempt} exemptions");
}

/// The catalogue's claim `body_settled_keeps_outcomes`: settling any running tool body
/// without a script, of a pending execution, whose signal is not aborted and whose
/// completion thread no property
/// reads (`VISIBILITY.thread`), with every outcome the environment may give (the model's own
/// `SettleTool`), keeps every outcome, except that of a sometimes
/// property that holds at every reachable state where the body runs so and the documents'
/// lifecycles and unloads are as where it settled.
#[test]
fn settling_a_running_body_keeps_every_outcome() {
    use webmcp_model::machine::Action;
    const { assert!(webmcp_profiles::catalogue::VISIBILITY.body_settled_keeps_outcomes) };
    let runs = |w: &webmcp_model::World, s: &State, uuid: webmcp_model::world::CallId| {
        s.bodies.get(&uuid).is_some_and(|b| {
            w.register_op(b.registered_by).body.is_none()
                && s.promises[uuid.index()].status == webmcp_model::state::Status::Pending
                && !b.settled
                && !b.signal_aborted
                && s.is_fully_active(b.target)
        })
    };
    let change = |m: &WebMcpModel, s: &State| {
        let mut afters = Vec::new();
        let thread_read = webmcp_profiles::catalogue::VISIBILITY.thread;
        for &uuid in s.bodies.keys() {
            let completion = webmcp_model::threads::ThreadKey::Completion(uuid);
            if !runs(&m.world, s, uuid) || thread_read(&m.world, s, completion) {
                continue;
            }
            for &o in &m.world.env.outcomes {
                afters.push((uuid, m.apply(s, Action::SettleTool(uuid, o), &mut ())));
            }
        }
        afters
    };
    let like = |v: &State, uuid| {
        let running = v
            .bodies
            .get(&uuid)
            .is_some_and(|b| !b.settled && !b.signal_aborted);
        let lifecycles: Vec<_> = v.docs.iter().map(|d| (d.lifecycle, d.cleanups)).collect();
        (running, lifecycles)
    };
    let (checked, exempt) = check_claim("a body settled", change, like);
    assert!(checked > 1_000, "{checked} settlements checked");
    eprintln!("{checked} bodies settled, {exempt} exemptions");
}

/// The catalogue's claim `tool_started_keeps_outcomes`: starting the tool of any pending
/// execution that runs no body yet, on any fully active document, as the tool execute steps
/// do (the uuid added to the local map, a running body without a script, `toolactivated`
/// recorded), keeps every outcome.
#[test]
fn starting_a_tool_keeps_every_outcome() {
    use webmcp_model::state::{Body, Ghost, Status};
    use webmcp_model::world::{CallId, CallKind};
    const { assert!(webmcp_profiles::catalogue::VISIBILITY.tool_started_keeps_outcomes) };
    let change = |m: &WebMcpModel, s: &State| {
        let w = &m.world;
        let unscripted = (0..w.calls.len()).map(CallId::nth).find(|&c| {
            w.calls[c.index()].kind == CallKind::Register && w.register_op(c).body.is_none()
        });
        let Some(registered_by) = unscripted else {
            return Vec::new();
        };
        let mut afters = Vec::new();
        for (i, call) in w.calls.iter().enumerate() {
            let uuid = CallId::nth(i);
            if call.kind != CallKind::Execute
                || s.promises[i].status != Status::Pending
                || s.bodies.contains_key(&uuid)
            {
                continue;
            }
            for target in (0..s.docs.len()).map(webmcp_model::world::DocId::nth) {
                if !s.is_fully_active(target) || s.docs[target.index()].local.contains(&uuid) {
                    continue;
                }
                let mut after = s.clone();
                after.docs[target.index()].local.insert(uuid);
                after.bodies.insert(
                    uuid,
                    Body {
                        target,
                        registered_by,
                        settled: false,
                        signal_aborted: false,
                        saw_abort_while_running: false,
                        result: None,
                        pc: 0,
                        awaiting_abort: false,
                        awaiting_call: None,
                    },
                );
                after.record(Ghost::ToolActivated(uuid));
                afters.push((uuid, after));
            }
        }
        afters
    };
    let (checked, exempt) = check_claim("a tool started", change, |_, _| ());
    assert!(checked > 10_000, "{checked} starts checked");
    assert_eq!(exempt, 0, "starting a tool turned a witness off");
    eprintln!("{checked} tools started");
}

/// The argument for a body's settlement alone (`docs/model.md` §7): under the catalogue's
/// [`webmcp_profiles::catalogue::VISIBILITY`], settling the body with each outcome keeps
/// every outcome, at the state where the set is taken and at every state reached from it
/// without settling it (up to 2,000 states from each), except that of a sometimes property
/// shown where it is taken.
#[test]
fn a_bodys_settlement_alone_keeps_every_outcome_on_any_path_that_does_not_settle_it() {
    let pick = |m: &WebMcpModel, s: &State| {
        m.body_alone(s)
            .map(|set| set.into_iter().map(|(a, _)| a).collect())
    };
    let (sets, checked) = sets_keep_outcomes(pick);
    assert!(sets > 100, "{sets} bodies' settlements taken alone");
    eprintln!("{sets} bodies' settlements taken alone, {checked} runs checked along their regions");
}

/// Walks the regions of the sets `pick` names ([`for_each_region`]) and checks that each
/// action of a set, run anywhere in its region, keeps every outcome not shown where the set
/// is taken (a sometimes property that holds there is shown there). Returns how many sets
/// and how many runs were checked.
fn sets_keep_outcomes(
    pick: impl Fn(&WebMcpModel, &State) -> Option<Vec<webmcp_model::machine::Action>>,
) -> (usize, usize) {
    let predicates = judged_predicates();
    let mut checked = 0usize;
    let sets = for_each_region(pick, |m, name, s, here, ample| {
        let unshown: Vec<_> = predicates
            .iter()
            .filter(|(_, holds, sometimes)| !(*sometimes && holds(m, s)))
            .copied()
            .collect();
        for &a in ample {
            let after = m.apply(here, a, &mut ());
            checked += 1;
            if let Err(property) = outcomes_kept(m, &unshown, here, &after) {
                panic!("{name}: {property} loses its outcome by {a:?} of {ample:?} at {here:?}");
            }
        }
    });
    (sets, checked)
}

/// The replay the comparisons rest on fails where a path does not stand: a path cut one
/// action short ends before its outcome shows (the driver cuts each path at the first state
/// that shows it), and a path that starts with an action enabled only later is refused at
/// that action.
#[test]
fn a_path_that_does_not_stand_is_caught() {
    let mut cut = 0usize;
    let mut moved = 0usize;
    for world in standard_worlds() {
        let m = WebMcpModel::new(world, Variant::SEED);
        let r = check(m.clone(), &options(Reduction::None));
        assert_eq!(webmcp_profiles::paths_stand(&m, &r), Ok(()));
        let init = m.initial_state();
        for (i, p) in r.properties.iter().enumerate() {
            let Some(path) = p.path.as_ref().filter(|p| !p.is_empty()) else {
                continue;
            };
            let mut short = r.clone();
            short.properties = vec![short.properties.swap_remove(i)];
            short.properties[0].path.as_mut().unwrap().pop();
            assert_eq!(
                webmcp_profiles::paths_stand(&m, &short),
                Err(webmcp_profiles::PathFault::DoesNotShow {
                    property: p.def.name
                })
            );
            cut += 1;
            if let Some(late) = path.iter().position(|t| !m.is_enabled(&init, t.action)) {
                let mut early = short.clone();
                let steps = early.properties[0].path.as_mut().unwrap();
                *steps = path.clone();
                let step = steps.remove(late);
                steps.insert(0, step.clone());
                assert_eq!(
                    webmcp_profiles::paths_stand(&m, &early),
                    Err(webmcp_profiles::PathFault::NotEnabled {
                        property: p.def.name,
                        step: 0,
                        action: step.action,
                    })
                );
                moved += 1;
            }
        }
    }
    assert!(cut > 100 && moved > 100, "{cut} cut, {moved} moved");
}
