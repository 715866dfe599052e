//! Spec-step coverage of the scenario suite: every executable step of the table (which
//! `model/tests/step_table.rs` checks against the spec) is executed by some scenario, or is
//! listed as unreachable by construction with a reason; the list holds nothing else.

use std::sync::OnceLock;

use webmcp_model::steps::{StepId, StepKind, STEPS};
use webmcp_model::{Variant, WebMcpModel};

mod common;
use common::standard_worlds;
use webmcp_profiles::coverage::{Coverage, Unreached, UNREACHABLE_BY_CONSTRUCTION};

/// Every scenario file of `scenarios/`, sorted by name, explored once per test binary.
fn coverage() -> &'static Coverage {
    static COVERAGE: OnceLock<Coverage> = OnceLock::new();
    COVERAGE.get_or_init(|| {
        let models: Vec<WebMcpModel> = standard_worlds()
            .into_iter()
            .map(|world| WebMcpModel::new(world, Variant::SEED))
            .collect();
        Coverage::of(&models)
    })
}

#[test]
fn every_executable_step_is_reached_or_unreachable_by_construction() {
    let c = coverage();
    let missing: Vec<String> = c
        .unreached()
        .into_iter()
        .filter(|(_, why)| *why == Unreached::NotExercised)
        .map(|(s, _)| format!("{s} ({})", s.info().summary))
        .collect();
    assert!(
        missing.is_empty(),
        "executable steps no scenario exercises (add a scenario, or list them in \
         UNREACHABLE_BY_CONSTRUCTION with the reason no scenario can reach them):\n  {}\n\n{}",
        missing.join("\n  "),
        c.summary()
    );
}

#[test]
fn unreachable_list_holds_only_unreached_executable_steps() {
    let c = coverage();
    for (id, reason) in UNREACHABLE_BY_CONSTRUCTION {
        let step = StepId::parse(id)
            .unwrap_or_else(|| panic!("UNREACHABLE_BY_CONSTRUCTION lists {id}, not a step ID"));
        assert!(
            step.info().kind.is_executable(),
            "UNREACHABLE_BY_CONSTRUCTION lists {id}, a {:?} row, which no transition executes anyway",
            step.info().kind
        );
        assert!(!reason.trim().is_empty(), "{id} needs a reason");
        assert_eq!(
            c.count(step),
            0,
            "{id} is listed as unreachable by construction but {} transitions executed it \
             (in {:?}): remove it from the list",
            c.count(step),
            c.scenarios_reaching(step)
        );
    }
    let mut ids: Vec<&str> = UNREACHABLE_BY_CONSTRUCTION
        .iter()
        .map(|(id, _)| *id)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(
        ids.len(),
        UNREACHABLE_BY_CONSTRUCTION.len(),
        "a step is listed twice"
    );
}

#[test]
fn every_assert_is_reached() {
    let c = coverage();
    // Of the current text: the 2026-08 Assert is reached under that text (the test below).
    let unreached: Vec<&str> = c
        .steps()
        .filter(|s| s.info().kind == StepKind::Assert && c.count(*s) == 0)
        .map(|s| s.id())
        .collect();
    assert!(
        unreached.is_empty(),
        "Assert steps never checked by any scenario: {unreached:?}"
    );
}

#[test]
fn counts_are_per_transition_and_add_up() {
    let c = coverage();
    assert_eq!(c.per_step.len(), STEPS.len());
    for (i, info) in STEPS.iter().enumerate() {
        let id = StepId(i as u16);
        let sum: u64 = c.scenarios.iter().map(|(_, s)| s.per_step[i]).sum();
        assert_eq!(
            c.count(id),
            sum,
            "{} total is not the sum of scenarios",
            info.id
        );
        if !info.kind.is_executable() {
            assert_eq!(c.count(id), 0, "{} is prose but was recorded", info.id);
        }
    }
    for (name, s) in &c.scenarios {
        assert!(s.states >= 1, "{name}");
        assert!(
            s.per_step.iter().all(|n| *n <= s.transitions),
            "{name}: a step counted more often than there are transitions"
        );
    }
}

#[test]
fn renderings_list_every_step_and_the_summary() {
    let c = coverage();
    let text = c.render_text();
    let md = c.render_markdown();
    let json = c.render_json();
    let summary = c.summary();
    assert!(summary.ends_with("executable steps reached"));
    assert!(text.contains(&summary) && md.contains(&summary));
    assert_eq!(json["summary"], summary.as_str());
    let rows = json["steps"].as_array().expect("steps array");
    assert_eq!(rows.len(), STEPS.len());
    for (row, info) in rows.iter().zip(STEPS) {
        assert_eq!(row["id"], info.id);
        assert!(text.contains(info.id) && md.contains(&format!("`{}`", info.id)));
    }
    assert_eq!(
        json["unreached"].as_array().expect("unreached array").len(),
        c.unreached().len()
    );
}

#[test]
fn the_steps_the_current_text_removed_are_reached_under_the_text_that_had_them() {
    let removed: Vec<StepId> = (0..STEPS.len() as u16)
        .map(StepId)
        .filter(|s| s.info().kind.is_executable() && s.removed_since() == Some("2026-08"))
        .collect();
    assert!(!removed.is_empty());
    // The current text's coverage leaves them out rather than calling them gaps.
    assert!(coverage().steps().all(|s| !removed.contains(&s)));
    let models: Vec<WebMcpModel> = standard_worlds()
        .into_iter()
        .map(|world| WebMcpModel::new(world, Variant::parse("seed@2026-08").unwrap()))
        .collect();
    let august = Coverage::of(&models);
    for step in removed {
        assert!(
            august.count(step) > 0,
            "{step} is not reached under 2026-08"
        );
    }
}

/// Under every earlier text, the standard suite reaches every executable step that text has,
/// and never a step it does not have (`RevisionInfo::absent`, which coverage leaves out
/// there rather than calling gaps); each such step is one of the current text's.
#[test]
fn under_every_revision_the_suite_reaches_exactly_the_steps_that_text_has() {
    for info in webmcp_model::variant::REVISIONS {
        let variant = Variant::parse(&format!("seed@{}", info.name)).unwrap();
        let models: Vec<WebMcpModel> = standard_worlds()
            .into_iter()
            .map(|world| WebMcpModel::new(world, variant))
            .collect();
        let c = Coverage::of(&models);
        for id in info.absent {
            let step = StepId::parse(id).unwrap_or_else(|| panic!("{id} is not a step"));
            assert_eq!(step.removed_since(), None, "{id}");
            assert!(step.info().kind.is_executable(), "{id}");
            assert_eq!(c.count(step), 0, "{id} is reached under {}", info.name);
            assert!(
                c.steps().all(|s| s != step),
                "{id} counted under {}",
                info.name
            );
        }
        let missing: Vec<(StepId, Unreached)> = c
            .unreached()
            .into_iter()
            .filter(|(_, why)| *why == Unreached::NotExercised)
            .collect();
        assert!(missing.is_empty(), "{}: {missing:?}", info.name);
    }
}
