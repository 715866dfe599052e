//! Revisions of the draft (docs/revisions.md): each earlier text the model knows shows the
//! defect the later text removed, and the current text holds there (a regression check).

use webmcp_model::variant::{Revision, REVISIONS};
use webmcp_model::{Variant, WebMcpModel};
use webmcp_properties::{check, CheckOptions, ScenarioResult, Verdict};

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
    let now = Variant::SEED;
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
    let after = checked(scenario, Variant::SEED);
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
        let after = checked(name, Variant::SEED);
        assert_eq!(before.unique_states, after.unique_states, "{name}");
        for (a, b) in before.properties.iter().zip(&after.properties) {
            assert_eq!(a.verdict, b.verdict, "{name}: {}", a.def.name);
        }
    }
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
