//! Property tests over random valid action sequences (random walks on the standard
//! scenarios): export -> import -> replay is the identity, and minimisation keeps the verdict
//! and never lengthens a trace.

mod common;

use common::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use webmcp_model::machine::Action;
use webmcp_profiles::{properties, Kind};
use webmcp_traces::minimize::minimize;
use webmcp_traces::reader::{read_trace, Loaded};
use webmcp_traces::replay::{first_showing, replay, Replayed};
use webmcp_traces::trace::{Expect, Trace};

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(0x1DF_7ACE),
        ..Config::default()
    }
}

/// The first property (in catalogue order) whose outcome the last state of the walk shows.
fn property_shown(name: &str, actions: &[Action]) -> Option<(&'static str, Expect)> {
    let (_, _, model) = scenario(name);
    let mut s = model.initial_state();
    for a in actions {
        s = model.apply(&s, *a, &mut ());
    }
    properties()
        .iter()
        .find(|p| p.shows(model, &s))
        .map(|p| (p.name, Expect::for_kind(p.kind)))
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn export_import_replay_is_the_identity(
        which in 0usize..1000,
        seed in any::<u64>(),
        max in 0usize..45,
    ) {
        let all = scenarios();
        let name = all[which % all.len()].0.clone();
        let actions = walk(&scenario(&name).2, seed, max);
        let property = property_shown(&name, &actions);
        let trace = record(&name, &actions, property);
        let text = trace.to_json_text();
        prop_assert!(!text.contains("\"tag\":\"Unknown\""), "a model value the exporter does not name");
        let loaded = read_trace(&text).map_err(|e| TestCaseError::fail(e.0))?;
        prop_assert_eq!(&loaded.trace, &trace);
        prop_assert_eq!(loaded.trace.to_json_text(), text);
        match replay(&loaded) {
            Replayed::Reproduced { shows_at } => {
                prop_assert_eq!(shows_at.is_some(), property.is_some());
            }
            Replayed::Diverged(d) => prop_assert!(false, "{}", d),
        }
    }
}

/// Scenarios with findings whose state spaces are small enough for many cases.
const WITH_FINDINGS: &[&str] = &[
    "abort-before-dispatch",
    "abort-racing-settlement",
    "caller-unloaded-mid-execution",
    "register-in-bfcache",
    "sibling-iframes",
    "target-unloaded-mid-execution",
    "tool-result-unserializable",
    "two-concurrent-executions",
];

/// A random walk cut at the first state that violates a safety or liveness property.
fn walk_to_violation(name: &str, seed: u64) -> Option<(Vec<Action>, &'static str)> {
    let (_, _, model) = scenario(name);
    let actions = walk(model, seed, 80);
    let mut s = model.initial_state();
    for (i, a) in actions.iter().enumerate() {
        s = model.apply(&s, *a, &mut ());
        if let Some(p) = properties()
            .iter()
            .find(|p| p.kind != Kind::Sometimes && p.shows(model, &s))
        {
            return Some((actions[..=i].to_vec(), p.name));
        }
    }
    None
}

fn loaded(name: &str, actions: &[Action], property: &'static str) -> Loaded {
    let (_, _, model) = scenario(name);
    Loaded {
        trace: record(name, actions, Some((property, Expect::Violated))),
        model: model.clone(),
        property: properties().iter().find(|p| p.name == property).copied(),
    }
}

proptest! {
    #![proptest_config(config(40))]

    #[test]
    fn minimisation_keeps_the_violation_and_never_lengthens(
        which in 0usize..WITH_FINDINGS.len(),
        seed in any::<u64>(),
    ) {
        let name = WITH_FINDINGS[which];
        let Some((actions, property)) = walk_to_violation(name, seed) else {
            return Ok(());
        };
        let l = loaded(name, &actions, property);
        let m = minimize(&l).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(m.after <= m.before);
        prop_assert_eq!(m.before, actions.len());
        let again = read_trace(&m.trace.to_json_text()).map_err(|e| TestCaseError::fail(e.0))?;
        prop_assert_eq!(again.trace.meta.property.as_deref(), Some(property));
        match replay(&again) {
            Replayed::Reproduced { shows_at } => prop_assert_eq!(shows_at, Some(m.after)),
            Replayed::Diverged(d) => prop_assert!(false, "{}", d),
        }
        let def = l.property.unwrap();
        prop_assert_eq!(first_showing(&l.model, &def, &m.trace.actions), Some(Some(m.after)));
    }
}

/// A long random walk to a violation (what `--mode sim` finds) shrinks to the length of the
/// checker's shortest counterexample.
#[test]
fn a_long_random_walk_shrinks_to_the_shortest_counterexample() {
    let name = "target-unloaded-mid-execution";
    let (_, _, model) = scenario(name);
    let result = webmcp_profiles::check(model.clone(), &Default::default());
    let mut checked = 0;
    for seed in 0..200u64 {
        let Some((actions, property)) = walk_to_violation(name, seed) else {
            continue;
        };
        let shortest = result
            .properties
            .iter()
            .find(|p| p.def.name == property)
            .and_then(|p| p.path.as_ref())
            .map(Vec::len)
            .expect("the checker finds it too");
        if actions.len() <= shortest + 3 {
            continue;
        }
        let m = minimize(&loaded(name, &actions, property)).unwrap();
        assert_eq!(m.after, shortest, "{property} from seed {seed}");
        assert!(m.proved_shortest);
        checked += 1;
        if checked == 3 {
            break;
        }
    }
    assert!(checked > 0, "no long walk reached a violation");
}

/// A trace padded by hand with actions that do not matter shrinks back.
#[test]
fn padding_by_hand_is_removed() {
    let name = "abort-before-dispatch";
    let (_, _, model) = scenario(name);
    let result = webmcp_profiles::check(model.clone(), &Default::default());
    let p = result
        .properties
        .iter()
        .find(|p| p.def.name == "no-ghost-run")
        .unwrap();
    let shortest: Vec<Action> = p.path.as_ref().unwrap().iter().map(|s| s.action).collect();
    // Let the registration thread finish first: extra actions before the violation.
    let mut s = model.initial_state();
    let mut padded = vec![shortest[0]];
    s = model.apply(&s, shortest[0], &mut ());
    let mut extra = 0;
    loop {
        let mut enabled = Vec::new();
        model.enabled_actions(&s, &mut enabled);
        let Some(a) = enabled.into_iter().find(|a| {
            matches!(
                a,
                Action::Step(webmcp_model::threads::ThreadKey::Register(_))
            ) || matches!(a, Action::RunTask(_))
        }) else {
            break;
        };
        s = model.apply(&s, a, &mut ());
        padded.push(a);
        extra += 1;
        if extra > 6 {
            break;
        }
    }
    padded.extend_from_slice(&shortest[1..]);
    let trace: Trace = record(name, &padded, Some(("no-ghost-run", Expect::Violated)));
    let l = Loaded {
        trace,
        model: model.clone(),
        property: Some(p.def),
    };
    assert!(matches!(replay(&l), Replayed::Reproduced { .. }));
    let m = minimize(&l).unwrap();
    assert!(extra > 0);
    assert_eq!(m.before, shortest.len() + extra);
    assert_eq!(m.after, shortest.len());
}

/// Every field of the model's `State` is a variable of the trace: a field added to the model
/// must be added to `traces/src/encode.rs` (and `docs/traces.md`), or replay would not compare
/// it.
#[test]
fn every_state_field_is_a_trace_variable() {
    let (_, _, model) = scenario("abort-before-dispatch");
    let text = format!("{:?}", model.initial_state());
    let body = text.strip_prefix("State { ").expect("State's Debug output");
    // Top-level field names: identifiers followed by ": " at nesting depth 0.
    let (mut depth, mut in_str, mut escaped) = (0i32, false, false);
    let mut fields = Vec::new();
    let mut start = 0;
    for (i, c) in body.char_indices() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            ':' if depth == 0 => {
                let name = body[start..i].trim().trim_start_matches(',').trim();
                fields.push(name.to_string());
            }
            ',' if depth == 0 => start = i + 1,
            _ => {}
        }
    }
    let vars = webmcp_traces::encode::STATE_VARS;
    for f in &fields {
        assert!(
            vars.contains(&f.as_str()),
            "State has a field `{f}` that traces do not record: add it to traces/src/encode.rs"
        );
    }
    assert_eq!(fields.len(), vars.len(), "{fields:?}");
}
