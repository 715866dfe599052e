//! A script may call methods on a same-origin iframe's `ModelContext` it kept (`on`): the
//! call is the iframe document's, and once that document is not fully active every method
//! rejects with "InvalidStateError".

mod common;

use common::*;
use serde_json::{json, Value as Json};
use webmcp_model::state::{Reason, Status};
use webmcp_model::World;

fn with_iframe(child_url: &str, script: Json) -> String {
    json!({
        "name": "inline",
        "summary": "an inline test scenario",
        "description": "built by a test",
        "tabs": [{"tab": "main", "top": {"doc": "top", "url": "https://a.example/",
            "iframes": [{"nav": "frame", "doc": "child", "url": child_url}]}}],
        "navigations": [{"nav": "frame", "doc": "next", "url": "https://a.example/next"}],
        "scripts": {"top": script},
        "expect": {}
    })
    .to_string()
}

#[test]
fn a_registration_through_a_kept_model_context_belongs_to_the_iframe() {
    let m = model(&with_iframe(
        "https://a.example/child",
        json!([{"as": "reg", "registerTool": {"name": "t1", "description": "d"}, "on": "child"}]),
    ));
    let end = run_all(&m);
    assert_eq!(
        status(&m, &end, "reg"),
        Status::Fulfilled(webmcp_model::state::Value::Undefined)
    );
    let child = doc(&m, "child");
    let top = doc(&m, "top");
    assert_eq!(m.world.calls[call(&m, "reg").index()].doc, child);
    assert_eq!(end.doc(child).tools.len(), 1);
    assert!(end.doc(top).tools.is_empty());
}

#[test]
fn every_method_on_a_removed_or_navigated_away_document_rejects_with_invalid_state() {
    for gone in [
        json!({"removeIframe": "frame"}),
        json!({"navigate": "frame"}),
    ] {
        let m = model(&with_iframe(
            "https://a.example/child",
            json!([
                gone,
                {"as": "reg", "registerTool": {"name": "t1", "description": "d"}, "on": "child"},
                {"as": "list", "getTools": {}, "on": "child"},
                {"as": "exec", "executeTool": {"name": "t1", "origin": "https://a.example", "window": "top"}, "on": "child"}
            ]),
        ));
        let (s, _) = run_script(&m, &m.initial_state(), "top");
        assert_rejected(&m, &s, "reg", Reason::InvalidStateError, "register-tool#3");
        assert_rejected(&m, &s, "list", Reason::InvalidStateError, "get-tools#3");
        assert_rejected(&m, &s, "exec", Reason::InvalidStateError, "execute-tool#2");
    }
}

#[test]
fn only_a_same_origin_document_loaded_from_the_start_can_be_kept() {
    let cross = with_iframe(
        "https://b.example/",
        json!([{"getTools": {}, "on": "child"}]),
    );
    let e = World::from_json(&cross)
        .expect_err("cross-origin")
        .to_string();
    assert!(
        e.contains("scripts.top[0].on") && e.contains("same event loop"),
        "{e}"
    );
    let replacement = with_iframe(
        "https://a.example/child",
        json!([{"getTools": {}, "on": "next"}]),
    );
    let e = World::from_json(&replacement)
        .expect_err("not loaded yet")
        .to_string();
    assert!(e.contains("loaded from the start"), "{e}");
    let unknown = with_iframe(
        "https://a.example/child",
        json!([{"getTools": {}, "on": "nobody"}]),
    );
    let e = World::from_json(&unknown).expect_err("unknown").to_string();
    assert!(e.contains("nobody"), "{e}");
    let misplaced = with_iframe(
        "https://a.example/child",
        json!([{"as": "l", "getTools": {}}, {"await": "l", "on": "child"}]),
    );
    let e = World::from_json(&misplaced)
        .expect_err("misplaced")
        .to_string();
    assert!(
        e.contains("\"on\" is an option of registerTool, getTools and executeTool"),
        "{e}"
    );
}
