//! Revisions of the draft (docs/revisions.md): each earlier text the model knows shows the
//! defect the later text removed, and the current text holds there (a regression check).

use webmcp_model::variant::{Revision, REVISIONS};
use webmcp_model::{Variant, WebMcpModel};
use webmcp_profiles::{check, CheckOptions, ScenarioResult, Verdict};

mod common;
use common::standard_world;

fn verdict(r: &ScenarioResult, property: &str) -> Verdict {
    r.properties
        .iter()
        .find(|p| p.def.name == property)
        .unwrap_or_else(|| panic!("no property {property}"))
        .verdict
}

fn checked(name: &str, variant: Variant) -> ScenarioResult {
    let r = check(
        WebMcpModel::new(standard_world(name), variant),
        &CheckOptions {
            threads: 1,
            ..CheckOptions::default()
        },
    );
    assert!(r.exhaustive, "{name} under {}", variant.name());
    r
}

#[test]
fn before_pr_248_unregistration_fails_in_flight_executions_and_notifies_synchronously() {
    let old = Variant::SEED.at(Revision::Pr247);
    let now = Variant::SEED.at(Revision::Aug2026);
    let scenario = "unregister-between-gettools-and-execute";
    let (before, after) = (checked(scenario, old), checked(scenario, now));
    // PR #248 made the notification "in parallel": its Assert held since.
    assert_eq!(
        verdict(&before, "assert:notify-tool-change#1"),
        Verdict::Violated
    );
    assert_eq!(
        verdict(&after, "assert:notify-tool-change#1"),
        Verdict::Holds
    );
    // PR #248 stopped failing executions whose tool is unregistered (issue #218): a tool that
    // completes after its unregistration delivers its result.
    assert_eq!(
        verdict(&before, "completed-result-delivered"),
        Verdict::Violated
    );
    assert_eq!(
        verdict(&after, "completed-result-delivered"),
        Verdict::Holds
    );
    // Under every fix, the earlier text keeps its own defects (fixes are not revisions).
    let proposed_before = checked(scenario, Variant::proposed().at(Revision::Pr247));
    assert_eq!(
        verdict(&proposed_before, "completed-result-delivered"),
        Verdict::Violated
    );
}

#[test]
fn a_tool_that_unregisters_itself_delivers_its_result_only_since_pr_248() {
    let scenario = "tool-unregisters-itself";
    let before = checked(scenario, Variant::SEED.at(Revision::Pr247));
    let after = checked(scenario, Variant::SEED.at(Revision::Aug2026));
    assert_eq!(
        verdict(&before, "completed-result-delivered"),
        Verdict::Violated
    );
    assert_eq!(
        verdict(&after, "completed-result-delivered"),
        Verdict::Holds
    );
}

#[test]
fn a_revision_only_changes_what_it_names() {
    // A scenario that never unregisters is explored identically under both texts.
    for name in ["register-and-discover", "two-concurrent-executions"] {
        let before = checked(name, Variant::SEED.at(Revision::Pr247));
        let after = checked(name, Variant::SEED.at(Revision::Aug2026));
        assert_eq!(before.unique_states, after.unique_states, "{name}");
        for (a, b) in before.properties.iter().zip(&after.properties) {
            assert_eq!(a.verdict, b.verdict, "{name}: {}", a.def.name);
        }
    }
}

#[test]
fn the_current_text_tests_object_inputs_without_the_double_negative() {
    for scenario in ["object-input-double-negative", "undefined-input"] {
        let before = checked(scenario, Variant::SEED.at(Revision::Aug2026));
        let after = checked(scenario, Variant::SEED);
        assert_eq!(verdict(&before, "object-input-accepted"), Verdict::Violated);
        assert_eq!(verdict(&after, "object-input-accepted"), Verdict::Holds);
        assert_eq!(
            verdict(&after, "witness:result-delivered"),
            Verdict::Witnessed
        );
    }
}

#[test]
fn the_current_completion_steps_run_in_parallel_and_race_the_unload_cleanup_assert() {
    // 2026-08: completionSteps assert they run in parallel, and every execution that settles
    // runs them on the target's event loop.
    let before = checked("abort-before-dispatch", Variant::SEED.at(Revision::Aug2026));
    let assert_2026_08 = "assert:2026-08:execute-tool#15.10.1";
    assert_eq!(verdict(&before, assert_2026_08), Verdict::Violated);
    let after = checked("abort-before-dispatch", Variant::SEED);
    assert_eq!(verdict(&after, assert_2026_08), Verdict::Holds);
    // The current text starts them in parallel from the unload cleanup too, which then
    // asserts that they already removed the execution (unload-cleanup#2.3.5).
    let scenario = "target-in-bfcache";
    let unload_assert = "assert:unload-cleanup#2.3.5";
    let fixed = checked(scenario, Variant::proposed());
    assert_eq!(verdict(&fixed, unload_assert), Verdict::Holds);
    let unfixed = Variant::parse("proposed-completion-in-parallel").unwrap();
    assert_eq!(
        verdict(&checked(scenario, unfixed), unload_assert),
        Verdict::Violated
    );
    let unfixed_2026_08 = Variant::parse("proposed-completion-in-parallel@2026-08").unwrap();
    assert_eq!(
        verdict(&checked(scenario, unfixed_2026_08), unload_assert),
        Verdict::Holds
    );
}

#[test]
fn the_current_text_fires_tool_events_without_opting_in() {
    // abort-racing-settlement does not set toolEvents: under 2026-08 nothing fires, so the
    // events add no states; under the current text toolactivated and toolcancel do.
    let scenario = "abort-racing-settlement";
    let before = checked(scenario, Variant::SEED.at(Revision::Aug2026));
    let after = checked(scenario, Variant::SEED);
    assert!(after.unique_states > before.unique_states);
}

#[test]
fn the_origin_keyed_checks_are_gone() {
    let scenario = "not-origin-keyed";
    let before = checked(scenario, Variant::SEED.at(Revision::Aug2026));
    let after = checked(scenario, Variant::SEED);
    assert_eq!(
        verdict(&before, "witness:toolchange-fired"),
        Verdict::NotWitnessed
    );
    assert_eq!(
        verdict(&after, "witness:toolchange-fired"),
        Verdict::Witnessed
    );
}

#[test]
fn every_revision_is_named_documented_and_round_trips() {
    let doc = std::fs::read_to_string(format!(
        "{}/../docs/revisions.md",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("docs/revisions.md");
    for r in REVISIONS {
        assert_eq!(Revision::parse(r.name), Ok(r.revision));
        assert!(
            doc.contains(&format!("`{}`", r.name)),
            "{} undocumented",
            r.name
        );
        let v = Variant::proposed().at(r.revision);
        assert_eq!(Variant::parse(&v.name()), Ok(v));
        for step in r.steps {
            webmcp_model::steps::step(step);
        }
    }
    assert!(Variant::parse("seed@nope").is_err());
    assert!(Variant::parse("seed@").is_err());
}
