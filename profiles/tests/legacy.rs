//! The legacy profile: our BFS agrees with stateright's, the chosen semantics keeps every
//! safety and termination property on random scenarios, and each alternative is caught.

mod common;
mod legacy_gen;

use legacy_gen::{scenario, scenarios};

use proptest::prelude::*;
use stateright::{Checker, Model, Property};
use webmcp_model::legacy::variant::{LegacyVariantError, ALTERNATIVES, LOOKUP_AT_REQUEST};
use webmcp_model::legacy::{LegacyAction, LegacyModel, LegacyState, LegacyVariant, LegacyWorld};
use webmcp_profiles::legacy::{check_legacy, replay, LegacyOptions};
use webmcp_profiles::{Kind, Verdict};

/// stateright stops once every property is decided, so it needs one that never is.
struct Explored(LegacyModel);

impl Model for Explored {
    type State = LegacyState;
    type Action = LegacyAction;
    fn init_states(&self) -> Vec<LegacyState> {
        vec![self.0.initial_state()]
    }
    fn actions(&self, s: &LegacyState, a: &mut Vec<LegacyAction>) {
        self.0.enabled_actions(s, a)
    }
    fn next_state(&self, s: &LegacyState, a: LegacyAction) -> Option<LegacyState> {
        Some(self.0.apply(s, a, &mut Vec::new()))
    }
    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always("explore everything", |_, _| true)]
    }
}

#[test]
fn our_bfs_and_stateright_count_the_same_states() {
    for w in scenarios() {
        for variant in [
            LegacyVariant::CHOSEN,
            LegacyVariant::CHOSEN.with(LOOKUP_AT_REQUEST),
        ] {
            let model = LegacyModel::new(w.clone(), variant);
            let ours = check_legacy(&model, &LegacyOptions::default());
            let theirs = Explored(model.clone()).checker().spawn_bfs().join();
            assert_eq!(
                ours.unique_states,
                theirs.unique_state_count(),
                "{} [{}]",
                w.name,
                variant.name()
            );
        }
    }
}

#[test]
fn every_path_replays_to_its_verdict_and_is_labelled() {
    let alt = LegacyVariant::parse("chosen+piecewise-provide+unbound-client").unwrap();
    for w in scenarios() {
        let model = LegacyModel::new(w.clone(), alt);
        for p in check_legacy(&model, &LegacyOptions::default()).properties {
            let Some(path) = p.path else { continue };
            assert!(
                path.iter().all(|s| !s.steps.is_empty()),
                "{}",
                p.property.name
            );
            let again = replay(&model, path.iter().map(|s| s.action).collect());
            let mut s = model.initial_state();
            for step in &again {
                s = model.apply(&s, step.action, &mut Vec::new());
            }
            let holds = (p.property.holds)(&model, &s);
            match p.verdict {
                Verdict::Witnessed => assert!(holds, "{}: {}", w.name, p.property.name),
                Verdict::Violated => assert!(!holds, "{}: {}", w.name, p.property.name),
                v => panic!("a path with verdict {v:?}"),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, rng_seed: proptest::test_runner::RngSeed::Fixed(9), ..ProptestConfig::default() })]

    /// The chosen semantics keeps every safety and termination property on any scenario.
    #[test]
    fn the_chosen_semantics_keeps_every_property(s in scenario()) {
        let w = LegacyWorld::compile(&s).unwrap();
        let r = check_legacy(&LegacyModel::new(w, LegacyVariant::CHOSEN), &LegacyOptions::default());
        prop_assert!(r.exhaustive);
        prop_assert!(!r.observations.is_empty());
        for p in &r.properties {
            if p.property.kind != Kind::Sometimes {
                prop_assert_eq!(p.verdict, Verdict::Holds, "{}", p.property.name);
            }
        }
    }

    /// The alternatives that only add interleavings (a later invocation, a later end of
    /// liveness) keep every observation of the chosen semantics.
    #[test]
    fn relaxing_alternatives_keep_the_chosen_observations(s in scenario()) {
        let w = LegacyWorld::compile(&s).unwrap();
        let chosen = check_legacy(&LegacyModel::new(w.clone(), LegacyVariant::CHOSEN), &LegacyOptions::default());
        for name in ["lookup-at-request", "live-until-reply"] {
            let v = LegacyVariant::parse(&format!("chosen+{name}")).unwrap();
            let alt = check_legacy(&LegacyModel::new(w.clone(), v), &LegacyOptions::default());
            prop_assert!(chosen.observations.is_subset(&alt.observations), "{}", name);
        }
    }
}

#[test]
fn variant_names_round_trip_and_bad_names_are_refused() {
    for a in ALTERNATIVES {
        let v = LegacyVariant::parse(&format!("chosen+{}", a.name)).unwrap();
        assert!(v.has(*a));
        assert_eq!(LegacyVariant::parse(&v.name()).unwrap(), v);
    }
    assert_eq!(
        LegacyVariant::parse("seed"),
        Err(LegacyVariantError::UnknownBase("seed".into()))
    );
    let unknown = LegacyVariant::parse("chosen+nope").unwrap_err();
    assert_eq!(
        unknown,
        LegacyVariantError::UnknownAlternative("nope".into())
    );
    assert!(unknown.to_string().contains("known:"), "{unknown}");
    let a = ALTERNATIVES[0].name;
    assert_eq!(
        LegacyVariant::parse(&format!("chosen+{a}+{a}")),
        Err(LegacyVariantError::AlternativeTwice {
            alternative: a,
            variant: format!("chosen+{a}+{a}")
        })
    );
}

#[test]
fn scenario_errors_are_reported_not_panicked() {
    for (text, want) in [
        (
            r#"{"name":"x","summary":"","description":"","page":{}}"#,
            "at least one page script",
        ),
        (
            r#"{"name":"x","summary":"","description":"","page":{"agent":[]}}"#,
            "reserved",
        ),
        (
            r#"{"name":"x","summary":"","description":"","page":{"p":["clearContext"]},"agent":[{"list":"l"},{"list":"l"}]}"#,
            "used twice",
        ),
        (
            r#"{"name":"x","summary":"","description":"","page":{"p":[{"registerTool":"a"}]},"bodies":{"a":["fulfil","reject"]}}"#,
            "settles more than once",
        ),
        (
            r#"{"name":"x","summary":"","description":"","page":{"p":["clearContext"]},"browser":{"schedule":["q"]}}"#,
            "unknown actor",
        ),
        (
            r#"{"name":"x","summary":"","description":"","page":{"p":[{"nope":1}]}}"#,
            "unknown variant",
        ),
    ] {
        let e = LegacyWorld::from_json(text).unwrap_err();
        assert!(e.to_string().contains(want), "{text}: {e}");
    }
}

/// The legacy model's graphs are acyclic too (its liveness is decided at terminal states, as
/// the draft's is): every legacy scenario, under the chosen reading, each alternative alone
/// and all of them together, walked depth first.
#[test]
fn every_reachable_legacy_graph_is_acyclic() {
    let variants = legacy_gen::variants();
    let mut walked = 0usize;
    for world in scenarios() {
        for &variant in &variants {
            let m = LegacyModel::new(world.clone(), variant);
            let mut actions = Vec::new();
            let (cycle, states) = common::find_cycle(m.initial_state(), |s| {
                actions.clear();
                m.enabled_actions(s, &mut actions);
                actions
                    .iter()
                    .map(|&a| m.apply(s, a, &mut Vec::new()))
                    .collect()
            });
            assert!(cycle.is_none(), "{} under {variant:?}: a cycle", world.name);
            walked += states;
        }
    }
    assert!(walked > 1_000, "{walked} states walked");
}
