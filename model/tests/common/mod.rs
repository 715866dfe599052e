//! Helpers shared by the model's integration tests: build a small scenario inline, run a
//! document's script, run one deterministic schedule to completion, read a call's promise.
#![allow(dead_code)]

use serde_json::{json, Value as Json};
use webmcp_model::machine::Action;
use webmcp_model::state::{PromiseState, Reason, ScriptStatus, State, Status};
use webmcp_model::world::{CallId, CtrlId, DocId};
use webmcp_model::{StepId, Variant, WebMcpModel, World};

/// The longest deterministic schedule the helpers run before declaring the model stuck.
pub const MAX_STEPS: usize = 10_000;

/// A scenario file's text with the given tabs and scripts (environment: nothing).
pub fn scenario(tabs: Json, scripts: Json) -> String {
    scenario_with_env(tabs, scripts, json!({}))
}

pub fn scenario_with_env(tabs: Json, scripts: Json, environment: Json) -> String {
    json!({
        "name": "inline",
        "summary": "an inline test scenario",
        "description": "built by a test",
        "tabs": tabs,
        "scripts": scripts,
        "environment": environment,
        "expect": {}
    })
    .to_string()
}

/// One tab whose only document `top` is on https://a.example and runs `script`.
pub fn one_doc(script: Json) -> String {
    scenario(
        json!([{"tab": "main", "top": {"doc": "top", "url": "https://a.example/"}}]),
        json!({ "top": script }),
    )
}

pub fn model(text: &str) -> WebMcpModel {
    model_under(text, Variant::SEED)
}

/// The model of the 2026-08 text (docs/revisions.md), for behaviour the current text changed.
#[allow(dead_code)]
pub fn model_2026_08(text: &str) -> WebMcpModel {
    model_under(
        text,
        Variant::SEED.at(webmcp_model::variant::Revision::Aug2026),
    )
}

pub fn model_under(text: &str, variant: Variant) -> WebMcpModel {
    let world = World::from_json(text).unwrap_or_else(|e| panic!("scenario: {e}\n{text}"));
    WebMcpModel::new(world, variant)
}

pub fn doc(m: &WebMcpModel, name: &str) -> DocId {
    m.world
        .doc_named(name)
        .unwrap_or_else(|| panic!("no document {name}"))
}

pub fn call(m: &WebMcpModel, label: &str) -> CallId {
    m.world
        .call_named(label)
        .unwrap_or_else(|| panic!("no call labelled {label}"))
}

pub fn ctrl(m: &WebMcpModel, name: &str) -> CtrlId {
    CtrlId::nth(
        m.world
            .controllers
            .iter()
            .position(|c| c.name == name)
            .unwrap_or_else(|| panic!("no controller {name}")),
    )
}

pub fn enabled(m: &WebMcpModel, s: &State) -> Vec<Action> {
    let mut v = Vec::new();
    m.enabled_actions(s, &mut v);
    v
}

/// Applies `a` after checking it is enabled; returns the next state and the steps recorded.
pub fn apply_recorded(m: &WebMcpModel, s: &State, a: Action) -> (State, Vec<StepId>) {
    assert!(
        enabled(m, s).contains(&a),
        "{a:?} is not enabled; enabled: {:?}",
        enabled(m, s)
    );
    let mut rec: Vec<StepId> = Vec::new();
    let next = m.apply(s, a, &mut rec);
    (next, rec)
}

pub fn apply(m: &WebMcpModel, s: &State, a: Action) -> State {
    apply_recorded(m, s, a).0
}

/// Starts the script of document `name` (its first task) from `s`. A container's script
/// starts before its iframes' scripts, so the scripts of `name`'s ancestors that have not
/// started yet are started first (outermost first). The steps returned are those of
/// `name`'s own first task only.
pub fn run_script(m: &WebMcpModel, s: &State, name: &str) -> (State, Vec<StepId>) {
    let d = doc(m, name);
    let mut chain = Vec::new();
    let mut cur = m.world.navs[m.world.docs[d.index()].nav.index()].container;
    while let Some(c) = cur {
        chain.push(c);
        cur = m.world.navs[m.world.docs[c.index()].nav.index()].container;
    }
    let mut s = s.clone();
    for c in chain.into_iter().rev() {
        if s.doc(c).script.status == ScriptStatus::NotStarted {
            s = apply(m, &s, Action::RunScript(c));
        }
    }
    apply_recorded(m, &s, Action::RunScript(d))
}

/// Repeatedly applies the first enabled action accepted by `keep` until none is left: one
/// deterministic schedule. Calls `each` on every state reached.
pub fn run_while(
    m: &WebMcpModel,
    s: &State,
    keep: impl Fn(&Action) -> bool,
    mut each: impl FnMut(&State),
) -> State {
    let mut s = s.clone();
    for _ in 0..MAX_STEPS {
        let Some(a) = enabled(m, &s).into_iter().find(|a| keep(a)) else {
            return s;
        };
        s = m.apply(&s, a, &mut ());
        each(&s);
    }
    panic!("no terminal state after {MAX_STEPS} steps");
}

/// Runs one deterministic schedule (first enabled action each time) to completion.
pub fn run_to_end(m: &WebMcpModel, s: &State) -> State {
    run_while(m, s, |_| true, |_| {})
}

/// From the initial state, starts every script in document order and runs to completion.
pub fn run_all(m: &WebMcpModel) -> State {
    run_to_end(m, &m.initial_state())
}

pub fn promise<'a>(m: &WebMcpModel, s: &'a State, label: &str) -> &'a PromiseState {
    &s.promises[call(m, label).index()]
}

pub fn status(m: &WebMcpModel, s: &State, label: &str) -> Status {
    promise(m, s, label).status.clone()
}

pub fn settled_at(m: &WebMcpModel, s: &State, label: &str) -> Option<&'static str> {
    promise(m, s, label).settled_at.map(|st| st.id())
}

/// Asserts the call's promise is rejected with `reason`, settled at step `at`.
#[track_caller]
pub fn assert_rejected(m: &WebMcpModel, s: &State, label: &str, reason: Reason, at: &str) {
    assert_eq!(
        status(m, s, label),
        Status::Rejected(reason),
        "status of {label}"
    );
    assert_eq!(
        settled_at(m, s, label),
        Some(at),
        "settling step of {label}"
    );
}

/// The ID string of the last recorded step.
pub fn last_step(rec: &[StepId]) -> &'static str {
    rec.last().expect("some steps were recorded").id()
}

/// Every standard scenario of `scenarios/`, compiled, in file name order.
pub fn standard_worlds() -> Vec<World> {
    let dir = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios"));
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .expect("the scenarios directory")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| World::from_json(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect()
}

/// Every state reachable in `m`, in breadth-first order, or `None` past `max` states.
pub fn reachable(m: &WebMcpModel, max: usize) -> Option<Vec<State>> {
    let init = m.initial_state();
    let mut seen = std::collections::HashSet::from([init.clone()]);
    let mut queue = std::collections::VecDeque::from([init.clone()]);
    let mut all = vec![init];
    while let Some(s) = queue.pop_front() {
        for a in enabled(m, &s) {
            let t = m.apply(&s, a, &mut ());
            if seen.insert(t.clone()) {
                if seen.len() > max {
                    return None;
                }
                all.push(t.clone());
                queue.push_back(t);
            }
        }
    }
    Some(all)
}

/// The seed text, every proposed fix, and each fix alone.
pub fn every_variant() -> Vec<Variant> {
    let mut v = vec![Variant::SEED, Variant::proposed()];
    v.extend(
        webmcp_model::variant::FIXES
            .iter()
            .map(|f| Variant::parse(&format!("seed+{}", f.name)).unwrap()),
    );
    v
}
