//! Shared helpers: the embedded scenarios, random walks, traces in memory.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::OnceLock;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use webmcp_model::machine::{Action, WebMcpModel};
use webmcp_model::{Variant, World};
use webmcp_traces::trace::{Expect, Meta, Trace, TOOL};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// (name, JSON text, model) of every scenario in `scenarios/`, sorted by name.
pub fn scenarios() -> &'static [(String, String, WebMcpModel)] {
    static ALL: OnceLock<Vec<(String, String, WebMcpModel)>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("scenarios"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|p| {
                let text = std::fs::read_to_string(&p).unwrap();
                let world = World::from_json(&text).unwrap();
                (
                    world.name.clone(),
                    text,
                    WebMcpModel::new(world, Variant::SEED),
                )
            })
            .collect()
    })
}

pub fn scenario(name: &str) -> &'static (String, String, WebMcpModel) {
    scenarios()
        .iter()
        .find(|(n, _, _)| n == name)
        .unwrap_or_else(|| panic!("no scenario {name}"))
}

/// A random walk of at most `max` actions, reproducible from `seed`.
pub fn walk(model: &WebMcpModel, seed: u64, max: usize) -> Vec<Action> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut s = model.initial_state();
    let mut out = Vec::new();
    let mut enabled = Vec::new();
    while out.len() < max {
        enabled.clear();
        model.enabled_actions(&s, &mut enabled);
        if enabled.is_empty() {
            break;
        }
        let a = enabled[rng.gen_range(0..enabled.len())];
        s = model.apply(&s, a, &mut ());
        out.push(a);
    }
    out
}

pub fn meta(name: &str, text: &str, property: Option<(&str, Expect)>) -> Meta {
    Meta {
        scenario: name.to_string(),
        scenario_json: text.to_string(),
        source: format!("scenarios/{name}.json"),
        variant: "seed".into(),
        property: property.map(|(p, _)| p.to_string()),
        expect: property.map(|(_, e)| e),
        tool: TOOL.into(),
    }
}

pub fn record(name: &str, actions: &[Action], property: Option<(&str, Expect)>) -> Trace {
    let (n, text, model) = scenario(name);
    Trace::record(model, meta(n, text, property), actions).expect("a walk is enabled")
}
