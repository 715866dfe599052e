//! The legacy model's reductions, checked on whole graphs, at every state of every legacy
//! scenario under every alternative and on random scenarios:
//! - partial-order reduction (`--profile legacy --reduction por`): every action
//!   `LegacyModel::is_safe` names is persistent and keeps outcomes, and the reduced search
//!   gives every verdict and terminal observation of the unreduced one, with paths that
//!   replay;
//! - sleep sets (`--reduction sleep`): two enabled actions whose declared footprints do not
//!   conflict commute and keep their footprints, and the search keeps every state, depth,
//!   verdict and path length.

mod legacy_gen;

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;
use webmcp_model::legacy::{LegacyAction, LegacyModel, LegacyState, LegacyVariant, LegacyWorld};
use webmcp_profiles::legacy::{check_legacy, legacy_catalogue, replay, LegacyOptions};
use webmcp_profiles::{Kind, Reduction, Verdict};

fn enabled(m: &LegacyModel, s: &LegacyState) -> Vec<LegacyAction> {
    let mut v = Vec::new();
    m.enabled_actions(s, &mut v);
    v
}

fn step(m: &LegacyModel, s: &LegacyState, a: LegacyAction) -> LegacyState {
    m.apply(s, a, &mut Vec::new())
}

/// Every reachable state, unreduced.
fn reachable(m: &LegacyModel) -> Vec<LegacyState> {
    let mut seen = HashSet::new();
    let mut todo = vec![m.initial_state()];
    let mut all = Vec::new();
    while let Some(s) = todo.pop() {
        if !seen.insert(s.clone()) {
            continue;
        }
        for a in enabled(m, &s) {
            todo.push(step(m, &s, a));
        }
        all.push(s);
    }
    all
}

/// A kind of safe action, for the count that shows each guard lets something through.
fn kind(m: &LegacyModel, s: &LegacyState, a: LegacyAction) -> &'static str {
    use webmcp_model::legacy::scenario::{AgentOp, BodyStep};
    match a {
        LegacyAction::UserAnswers(..) => "user answers",
        LegacyAction::Deliver(_) => "delivery",
        LegacyAction::Invoke(_) => "invocation",
        LegacyAction::Agent => match m.world.agent[s.agent_pc as usize] {
            AgentOp::List(_) => "agent lists",
            AgentOp::Execute(..) => "agent executes",
        },
        LegacyAction::Body(e) => {
            let x = &s.execs[e as usize];
            let d = x.status.def().unwrap();
            let body = &m.world.bodies[m.world.defs[d as usize].name as usize];
            match body[x.body_pc as usize] {
                BodyStep::RequestUserInteraction => "body interacts",
                _ => "body settles",
            }
        }
        LegacyAction::Page(_) | LegacyAction::ProvidePiece | LegacyAction::Unload => "other",
    }
}

/// Checks that `{a}` is persistent at `s` and keeps outcomes: along every path from `s`
/// that avoids `a`, `a` stays enabled, commutes with the step taken at each state passed
/// (neither disables the other, both orders reach one state), and taken at any of those
/// states leaves every failing always property failing and every holding sometimes property
/// holding. Returns how many states the check walked.
fn check_persistent(m: &LegacyModel, s: &LegacyState, a: LegacyAction) -> usize {
    let props = legacy_catalogue();
    let mut seen = HashSet::new();
    let mut todo = vec![s.clone()];
    while let Some(t) = todo.pop() {
        if !seen.insert(t.clone()) {
            continue;
        }
        let here = enabled(m, &t);
        assert!(
            here.contains(&a),
            "{}: {a:?}, safe at {s:?}, is disabled at {t:?}",
            m.world.name
        );
        let ta = step(m, &t, a);
        for p in props {
            let (before, after) = ((p.holds)(m, &t), (p.holds)(m, &ta));
            match p.kind {
                Kind::Always => assert!(
                    before || !after,
                    "{}: {a:?} makes {} hold again at {t:?}",
                    m.world.name,
                    p.name
                ),
                Kind::Sometimes => assert!(
                    !before || after,
                    "{}: {a:?} hides {} at {t:?}",
                    m.world.name,
                    p.name
                ),
                Kind::AtTermination => {}
            }
        }
        let after_a = enabled(m, &ta);
        for b in here.into_iter().filter(|&b| b != a) {
            assert!(
                after_a.contains(&b),
                "{}: {a:?} disables {b:?} at {t:?}",
                m.world.name
            );
            let tb = step(m, &t, b);
            assert_eq!(
                step(m, &ta, b),
                step(m, &tb, a),
                "{}: {a:?} and {b:?} do not commute at {t:?}",
                m.world.name
            );
            todo.push(tb);
        }
    }
    seen.len()
}

/// Every safe action of every state of `world` under every variant is checked; returns the
/// safe actions found, by kind.
fn check_world(world: &LegacyWorld, variants: &[LegacyVariant]) -> HashMap<&'static str, usize> {
    let mut found = HashMap::new();
    for &variant in variants {
        let m = LegacyModel::new(world.clone(), variant);
        for s in reachable(&m) {
            let here = enabled(&m, &s);
            let safe: Vec<_> = here.iter().copied().filter(|&a| m.is_safe(&s, a)).collect();
            for &a in &safe {
                check_persistent(&m, &s, a);
                *found.entry(kind(&m, &s, a)).or_default() += 1;
            }
            // What the search is given is the first safe action, and only where there is a
            // choice.
            let chosen = m.safe_alone(&s).map(|(a, next)| {
                assert_eq!(next, step(&m, &s, a));
                a
            });
            let expected = safe.first().copied().filter(|_| here.len() > 1);
            assert_eq!(chosen, expected, "{}: {s:?}", world.name);
        }
    }
    found
}

/// Checks the footprints' promise at every state of `world` under every variant; returns
/// how many pairs of enabled actions were found independent.
fn check_footprints(world: &LegacyWorld, variants: &[LegacyVariant]) -> usize {
    let mut independent = 0;
    for &variant in variants {
        let m = LegacyModel::new(world.clone(), variant);
        for s in reachable(&m) {
            let here = enabled(&m, &s);
            for (i, &a) in here.iter().enumerate() {
                for &b in &here[i + 1..] {
                    let (fa, fb) = (m.footprint(&s, a), m.footprint(&s, b));
                    if fa.conflicts(&fb) {
                        continue;
                    }
                    independent += 1;
                    let (sa, sb) = (step(&m, &s, a), step(&m, &s, b));
                    let at = format!(
                        "{} [{}]: {a:?} and {b:?} at {s:?}",
                        world.name,
                        variant.name()
                    );
                    assert!(enabled(&m, &sa).contains(&b), "{at}: disabled");
                    assert!(enabled(&m, &sb).contains(&a), "{at}: disabled");
                    assert_eq!(step(&m, &sa, b), step(&m, &sb, a), "{at}: do not commute");
                    assert_eq!(m.footprint(&sb, a), fa, "{at}: footprint changes");
                    assert_eq!(m.footprint(&sa, b), fb, "{at}: footprint changes");
                }
            }
        }
    }
    independent
}

fn check_with(m: &LegacyModel, reduction: Reduction) -> webmcp_profiles::legacy::LegacyResult {
    check_legacy(
        m,
        &LegacyOptions {
            reduction,
            ..LegacyOptions::default()
        },
    )
}

/// Sleep sets keep every state, depth, verdict, path length and terminal observation of
/// the unreduced search, and build no more successors.
fn compare_sleep(world: &LegacyWorld, variants: &[LegacyVariant]) {
    for &variant in variants {
        let m = LegacyModel::new(world.clone(), variant);
        let full = check_legacy(&m, &LegacyOptions::default());
        let asleep = check_with(&m, Reduction::Sleep);
        let at = format!("{} [{}]", world.name, variant.name());
        assert!(asleep.exhaustive, "{at}");
        assert_eq!(asleep.unique_states, full.unique_states, "{at}");
        assert_eq!(asleep.max_depth, full.max_depth, "{at}");
        assert!(asleep.total_states <= full.total_states, "{at}");
        assert_eq!(asleep.observations, full.observations, "{at}");
        for (f, r) in full.properties.iter().zip(&asleep.properties) {
            assert_eq!(f.verdict, r.verdict, "{at}: {}", f.property.name);
            assert_eq!(
                f.path.as_ref().map(Vec::len),
                r.path.as_ref().map(Vec::len),
                "{at}: {}",
                f.property.name
            );
        }
    }
}

/// The reduced and unreduced searches of one scenario under one variant agree: every
/// verdict, every terminal observation; the reduced one keeps no more states, and its
/// paths replay to their verdicts.
fn compare(world: &LegacyWorld, variants: &[LegacyVariant]) -> (usize, usize) {
    let mut counts = (0, 0);
    for &variant in variants {
        let m = LegacyModel::new(world.clone(), variant);
        let full = check_legacy(&m, &LegacyOptions::default());
        let por = check_with(&m, Reduction::Por);
        let at = format!("{} [{}]", world.name, variant.name());
        assert!(full.exhaustive && por.exhaustive, "{at}");
        assert!(por.unique_states <= full.unique_states, "{at}");
        assert_eq!(por.observations, full.observations, "{at}");
        for (f, r) in full.properties.iter().zip(&por.properties) {
            assert_eq!(f.property.name, r.property.name);
            assert_eq!(f.verdict, r.verdict, "{at}: {}", f.property.name);
            let Some(path) = &r.path else { continue };
            let mut s = m.initial_state();
            for st in replay(&m, path.iter().map(|st| st.action).collect()) {
                assert!(
                    enabled(&m, &s).contains(&st.action),
                    "{at}: {}",
                    f.property.name
                );
                s = step(&m, &s, st.action);
            }
            let holds = (r.property.holds)(&m, &s);
            match r.verdict {
                Verdict::Witnessed => assert!(holds, "{at}: {}", r.property.name),
                Verdict::Violated => assert!(!holds, "{at}: {}", r.property.name),
                v => panic!("{at}: a path with verdict {v:?}"),
            }
        }
        counts.0 += full.unique_states;
        counts.1 += por.unique_states;
    }
    counts
}

#[test]
fn every_safe_action_is_persistent_and_keeps_outcomes_on_every_legacy_scenario() {
    let mut found: HashMap<&str, usize> = HashMap::new();
    for w in legacy_gen::scenarios() {
        for (k, n) in check_world(&w, &legacy_gen::variants()) {
            *found.entry(k).or_default() += n;
        }
    }
    // Each kind of safe action is taken somewhere, so each guard is exercised (the scenarios
    // have no `provideContext` piece, call or unload that is ever safe).
    for k in [
        "user answers",
        "delivery",
        "invocation",
        "agent lists",
        "agent executes",
        "body interacts",
        "body settles",
    ] {
        assert!(found.get(k).copied().unwrap_or(0) > 0, "{k}: {found:?}");
    }
    assert!(!found.contains_key("other"), "{found:?}");
}

/// Small scenarios at the edge of each guard: an action that would not be safe one call,
/// request or step earlier.
fn edge_scenarios() -> Vec<LegacyWorld> {
    [
        // A rejection while a clearContext is still to run (which reads every status).
        r#"{"name":"reject-before-clear","summary":"","description":"","page":{"app":[{"registerTool":"a"},"clearContext"]},"agent":[{"execute":"a","as":"e1"}],"bodies":{"a":["reject"]}}"#,
        // A fulfilment while the page's set can still change (it reads the set).
        r#"{"name":"fulfil-before-unregister","summary":"","description":"","page":{"app":[{"registerTool":"a"},{"unregisterTool":"a"}]},"agent":[{"execute":"a","as":"e1"}],"bodies":{"a":["fulfil"]}}"#,
        // A second execution starting while the first can still settle.
        r#"{"name":"start-while-another-settles","summary":"","description":"","page":{"app":[{"registerTool":"a"}]},"agent":[{"execute":"a","as":"e1"},{"execute":"a","as":"e2"}],"bodies":{"a":["requestUserInteraction","fulfil"]}}"#,
        // A settlement while an answer to an earlier interaction than the last is pending.
        r#"{"name":"two-interactions","summary":"","description":"","page":{"app":[{"registerTool":"a"}]},"agent":[{"execute":"a","as":"e1"}],"bodies":{"a":["requestUserInteraction","requestUserInteraction","fulfil"]}}"#,
        // A list while a provideContext can still run.
        r#"{"name":"list-before-provide","summary":"","description":"","page":{"app":[{"registerTool":"a"},{"provideContext":["b"]}]},"agent":[{"list":"l1"},{"execute":"a","as":"e1"}],"bodies":{"a":["fulfil","requestUserInteraction"],"b":["reject"]}}"#,
    ]
    .iter()
    .map(|t| LegacyWorld::from_json(t).unwrap())
    .collect()
}

#[test]
fn every_safe_action_is_persistent_and_keeps_outcomes_at_the_edge_of_each_guard() {
    let mut found = 0;
    for w in edge_scenarios() {
        found += check_world(&w, &legacy_gen::variants())
            .values()
            .sum::<usize>();
        compare(&w, &legacy_gen::variants());
    }
    assert!(found > 0);
}

#[test]
fn the_reduction_changes_no_verdict_of_any_legacy_scenario() {
    let (mut full, mut por) = (0, 0);
    for w in legacy_gen::scenarios() {
        let (f, r) = compare(&w, &legacy_gen::variants());
        full += f;
        por += r;
    }
    // Not vacuous: the reduction removes states.
    assert!(por < full, "{por} of {full}");
}

#[test]
fn independent_footprints_commute_and_sleep_sets_keep_every_state_of_every_legacy_scenario() {
    let mut independent = 0;
    for w in legacy_gen::scenarios().iter().chain(&edge_scenarios()) {
        independent += check_footprints(w, &legacy_gen::variants());
        compare_sleep(w, &legacy_gen::variants());
    }
    // Not vacuous: some pairs are independent, so sleep sets have something to prune.
    assert!(independent > 100, "{independent}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, rng_seed: proptest::test_runner::RngSeed::Fixed(15), ..ProptestConfig::default() })]

    /// The same checks on random scenarios, under the chosen reading, every alternative
    /// alone, all of them, and one random combination of them.
    #[test]
    fn the_reductions_are_sound_on_random_legacy_scenarios(
        s in legacy_gen::scenario(),
        combination in legacy_gen::any_variant(),
    ) {
        let w = LegacyWorld::compile(&s).unwrap();
        let mut variants = legacy_gen::variants();
        variants.push(combination);
        check_world(&w, &variants);
        compare(&w, &variants);
        check_footprints(&w, &variants);
        compare_sleep(&w, &variants);
    }
}
