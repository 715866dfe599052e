//! What the legacy tests share: the legacy scenarios of `scenarios/legacy/`, the variants
//! worth checking, and random legacy scenarios.
#![allow(dead_code)]

use std::path::PathBuf;

use proptest::prelude::*;
use webmcp_model::legacy::scenario::{
    AgentOpSpec, BodyStep, EnvironmentSpec, LegacyScenario, PageOpSpec, ToolSpec,
};
use webmcp_model::legacy::variant::ALTERNATIVES;
use webmcp_model::legacy::{LegacyVariant, LegacyWorld};

/// Every scenario of `scenarios/legacy/`, compiled, sorted by file name.
pub fn scenarios() -> Vec<LegacyWorld> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios/legacy"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| LegacyWorld::from_json(&std::fs::read_to_string(f).unwrap()).unwrap())
        .collect()
}

fn tool() -> impl Strategy<Value = ToolSpec> {
    prop_oneof![
        prop::sample::select(vec!["a", "b", "c"]).prop_map(|n| ToolSpec::Name(n.into())),
        (prop::sample::select(vec!["a", "b"]), any::<bool>()).prop_map(|(n, ro)| ToolSpec::Full {
            name: n.into(),
            read_only_hint: Some(ro)
        }),
    ]
}

fn page_op() -> impl Strategy<Value = PageOpSpec> {
    prop_oneof![
        prop::collection::vec(tool(), 0..3).prop_map(PageOpSpec::ProvideContext),
        Just(PageOpSpec::ClearContext),
        tool().prop_map(PageOpSpec::RegisterTool),
        prop::sample::select(vec!["a", "b", "zz"])
            .prop_map(|n| PageOpSpec::UnregisterTool(n.into())),
    ]
}

/// A body: up to three `requestUserInteraction` steps, and at most one settlement anywhere
/// among them (the compiler refuses a second).
fn body() -> impl Strategy<Value = Vec<BodyStep>> {
    (
        0..4usize,
        prop::sample::select(vec![None, Some(BodyStep::Fulfil), Some(BodyStep::Reject)]),
        0..4usize,
    )
        .prop_map(|(interactions, settle, at)| {
            let mut steps = vec![BodyStep::RequestUserInteraction; interactions];
            if let Some(settle) = settle {
                steps.insert(at.min(interactions), settle);
            }
            steps
        })
}

/// Every combination of the alternative readings, by its bits.
pub fn any_variant() -> impl Strategy<Value = LegacyVariant> {
    (0u32..1 << ALTERNATIVES.len()).prop_map(|bits| {
        ALTERNATIVES
            .iter()
            .enumerate()
            .filter(|(i, _)| bits & (1 << i) != 0)
            .fold(LegacyVariant::CHOSEN, |v, (_, &a)| v.with(a))
    })
}

prop_compose! {
    /// A random legacy scenario: two page scripts (up to four and two calls besides the two
    /// registrations), up to three agent requests, two bodies, and in one case of four an
    /// unload (which leaves the reduction nothing to take).
    pub fn scenario()(
        app in prop::collection::vec(page_op(), 1..3),
        widget in prop::collection::vec(page_op(), 0..3),
        agent in prop::collection::vec((any::<bool>(), prop::sample::select(vec!["a", "b", "c"])), 0..4),
        body_a in body(),
        body_b in body(),
        unload in prop::bool::weighted(0.25),
    ) -> LegacyScenario {
        let mut page = std::collections::BTreeMap::new();
        // "a" and "b" always have a definition, so their bodies are valid.
        let mut app = app;
        app.insert(0, PageOpSpec::RegisterTool(ToolSpec::Name("a".into())));
        app.insert(0, PageOpSpec::RegisterTool(ToolSpec::Name("b".into())));
        page.insert("app".to_string(), app);
        if !widget.is_empty() {
            page.insert("widget".to_string(), widget);
        }
        let agent = agent.into_iter().enumerate().map(|(i, (list, name))| if list {
            AgentOpSpec::List { list: format!("l{i}") }
        } else {
            AgentOpSpec::Execute { execute: name.into(), label: format!("e{i}") }
        }).collect();
        LegacyScenario {
            name: "generated".into(),
            summary: String::new(),
            description: String::new(),
            page,
            agent,
            bodies: [("a".to_string(), body_a), ("b".to_string(), body_b)].into_iter().collect(),
            environment: EnvironmentSpec { unload },
            browser: None,
            expect: Default::default(),
        }
    }
}

/// The chosen reading, each alternative alone, and all of them together.
pub fn variants() -> Vec<LegacyVariant> {
    let mut variants = vec![LegacyVariant::CHOSEN];
    variants.extend(ALTERNATIVES.iter().map(|&a| LegacyVariant::CHOSEN.with(a)));
    variants.push(
        ALTERNATIVES
            .iter()
            .fold(LegacyVariant::CHOSEN, |v, &a| v.with(a)),
    );
    variants
}
