//! Vacuity: every property's witness is reached by the standard suite under `proposed`, a
//! witness that cannot be reached is reported as such, and the table of executeTool failures
//! (`model/src/failures.rs`) says exactly what the model rejects with, under `seed`.

use std::collections::BTreeSet;

use webmcp_model::failures::EXECUTE_FAILURES;
use webmcp_model::steps::{step, StepId};
use webmcp_model::{Variant, WebMcpModel, World};
use webmcp_profiles::catalogue::Witness;
use webmcp_profiles::properties;
use webmcp_profiles::vacuity::{engagement, Engagement};

mod common;
use common::standard_worlds;

fn explore(variant: Variant) -> Vec<Engagement> {
    let models: Vec<WebMcpModel> = standard_worlds()
        .into_iter()
        .map(|w| WebMcpModel::new(w, variant))
        .collect();
    webmcp_profiles::parallel::map(&models, 2, engagement)
}

/// The 2026-08 text, for what only it can reach.
fn earlier(variant: Variant) -> Variant {
    variant.at(webmcp_model::variant::Revision::Aug2026)
}

#[test]
fn every_witness_is_reached_under_proposed() {
    let current = explore(Variant::proposed());
    let august = explore(earlier(Variant::proposed()));
    for (i, def) in properties().iter().enumerate() {
        if matches!(def.witness, Witness::Itself) {
            continue;
        }
        // A property of steps the current text removed is reached under the text that had them.
        let engaged = match def.earlier_text() {
            Some("2026-08") => &august,
            Some(other) => panic!("{}: no model of the text {other}", def.name),
            None => &current,
        };
        assert!(
            engaged.iter().any(|e| e.witnessed[i] == Some(true)),
            "{}: no standard scenario reaches its witness ({})",
            def.name,
            def.witness.claim()
        );
    }
}

#[test]
fn a_scenario_where_nothing_happens_witnesses_nothing() {
    let world = World::from_json(
        r#"{"name": "idle", "summary": "s", "description": "d",
            "tabs": [{"tab": "main", "top": {"doc": "top", "url": "https://a.example/"}}]}"#,
    )
    .expect("valid scenario");
    let e = engagement(&WebMcpModel::new(world, Variant::proposed()));
    for (i, def) in properties().iter().enumerate() {
        let expected = match def.witness {
            Witness::Itself => None,
            _ => Some(false),
        };
        assert_eq!(e.witnessed[i], expected, "{}", def.name);
    }
    assert!(e.rejections.is_empty());
}

#[test]
fn the_failure_table_is_what_the_model_rejects_executetool_with() {
    // The rows of steps the current text removed are reached under the 2026-08 text.
    let mut engaged = explore(Variant::SEED);
    engaged.extend(explore(earlier(Variant::SEED)));
    let seen: BTreeSet<(StepId, &str)> = engaged
        .iter()
        .flat_map(|e| e.rejections.iter())
        .filter(|r| r.method == "executeTool")
        .map(|r| (r.step, r.error))
        .collect();
    let table: BTreeSet<(StepId, &str)> = EXECUTE_FAILURES
        .iter()
        .map(|f| (step(f.settled_at), f.error))
        .collect();
    let unlisted: Vec<_> = seen.difference(&table).collect();
    assert!(
        unlisted.is_empty(),
        "rejections not in the table: {unlisted:?}"
    );
    let unseen: Vec<_> = table.difference(&seen).collect();
    assert!(
        unseen.is_empty(),
        "table rows no scenario reaches: {unseen:?}"
    );
    for f in EXECUTE_FAILURES {
        assert_eq!(step(f.detected_at).id(), f.detected_at);
    }
}
