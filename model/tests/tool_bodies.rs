//! Scripted tool bodies: the `execute` callback runs inside the invoking task until it awaits
//! its signal's abort; what it returns is serialized, what it throws rejects.

mod common;

use common::*;
use serde_json::{json, Value as Json};
use webmcp_model::state::{Reason, Status, Value};
use webmcp_model::{Variant, WebMcpModel, World};

/// `top` registers "t1" with `body`, lists its tools and executes "t1".
fn executing(body: Json) -> WebMcpModel {
    let text = one_doc(json!([
        {"registerTool": {"name": "t1", "description": "d", "body": body}, "signal": "reg"},
        {"as": "list", "getTools": {}},
        {"await": "list"},
        {"as": "exec", "executeTool": {"from": "list", "name": "t1"}, "input": {"$js": "reaches-body"}}
    ]));
    let world = World::from_json(&text).expect("valid scenario");
    WebMcpModel::new(world, Variant::proposed())
}

fn result_text(m: &WebMcpModel, label: &str) -> String {
    let end = run_all(m);
    match status(m, &end, label) {
        Status::Fulfilled(Value::Text(t)) => m.world.str(t).to_string(),
        other => panic!("{label} is {other:?}"),
    }
}

#[test]
fn a_returned_value_reaches_the_caller_as_its_json_text() {
    assert_eq!(
        result_text(&executing(json!([{"return": 42}])), "exec"),
        "42"
    );
    assert_eq!(
        result_text(&executing(json!([{"return": {"ok": true}}])), "exec"),
        "{\"ok\":true}"
    );
    assert_eq!(
        result_text(&executing(json!([{"return": null}])), "exec"),
        "null"
    );
    // The tool unregisters itself first and still delivers (PR #248).
    assert_eq!(
        result_text(
            &executing(json!([{"abort": "reg"}, {"return": "x"}])),
            "exec"
        ),
        "\"x\""
    );
}

#[test]
fn throwing_falling_off_the_end_or_returning_undefined_rejects_with_unknown_error() {
    for body in [
        json!([{"throw": true}]),
        json!([]),
        json!([{"return": {"$js": "undefined"}}]),
    ] {
        let m = executing(body.clone());
        let end = run_all(&m);
        assert_eq!(
            status(&m, &end, "exec"),
            Status::Rejected(Reason::UnknownError),
            "{body}"
        );
    }
}

#[test]
fn a_body_awaiting_its_abort_never_settles_unless_aborted() {
    let m = executing(json!([{"awaitAbort": true}, {"return": "late"}]));
    let end = run_all(&m);
    assert_eq!(status(&m, &end, "exec"), Status::Pending);
    let body = end.bodies[&call(&m, "exec")];
    assert!(body.awaiting_abort && !body.settled);
}

#[test]
fn a_body_statement_after_return_or_with_two_kinds_is_refused() {
    for (body, says) in [
        (json!([{"return": 1}, {"throw": true}]), "never runs"),
        (json!([{"return": 1, "throw": true}]), "exactly one of"),
        (json!([{"awaitAbort": false}]), "exactly one of"),
    ] {
        let text =
            one_doc(json!([{"registerTool": {"name": "t1", "description": "d", "body": body}}]));
        let e = World::from_json(&text).expect_err("refused").to_string();
        assert!(e.contains(says) && e.contains("registerTool.body"), "{e}");
    }
}

#[test]
fn a_tool_that_executes_itself_once_gets_its_own_result_and_delivers_its_own() {
    let m = executing(json!([
        {"as": "inner", "executeTool": {"name": "t1", "origin": "https://a.example", "window": "top"},
         "input": {"$js": "reaches-body"}},
        {"return": "outer"}
    ]));
    let end = run_all(&m);
    for label in ["inner", "exec"] {
        match status(&m, &end, label) {
            Status::Fulfilled(Value::Text(t)) => assert_eq!(m.world.str(t), "\"outer\"", "{label}"),
            other => panic!("{label} is {other:?}"),
        }
        assert_eq!(promise(&m, &end, label).attempts, 1, "{label}");
    }
    // Both executions ran the body and left nothing behind.
    assert_eq!(end.bodies.len(), 2);
    assert!(end.pending.iter().all(|p| p.is_empty()));
    assert!(end.docs.iter().all(|d| d.local.is_empty()));
}

#[test]
fn a_body_executes_only_tools_built_by_hand() {
    let text = one_doc(json!([
        {"as": "list", "getTools": {}},
        {"registerTool": {"name": "t1", "description": "d", "body": [
            {"executeTool": {"from": "list", "name": "t1"}}
        ]}}
    ]));
    let e = World::from_json(&text).expect_err("refused").to_string();
    assert!(e.contains("built by hand"), "{e}");
}
