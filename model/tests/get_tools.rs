//! `getTools(options)`: the rejection paths of the method steps, and what the in-parallel
//! walk lists (`get-tools`).

mod common;

use common::*;
use serde_json::{json, Value as Json};
use webmcp_model::state::{Reason, State, Status, Value};
use webmcp_model::WebMcpModel;

/// The list a getTools call fulfilled with, as (name, window document, origin) triples.
fn listed(m: &WebMcpModel, s: &State, label: &str) -> Vec<(String, String, String)> {
    match status(m, s, label) {
        Status::Fulfilled(Value::Tools(tools)) => tools
            .iter()
            .map(|t| {
                (
                    m.world.str(t.name).to_string(),
                    m.world.docs[t.window.index()].name.clone(),
                    m.world.str(t.origin).to_string(),
                )
            })
            .collect(),
        other => panic!("{label} is {other:?}, not a fulfilled tool list"),
    }
}

fn triple(name: &str, window: &str, origin: &str) -> (String, String, String) {
    (name.into(), window.into(), origin.into())
}

#[track_caller]
fn rejects_sync(m: &WebMcpModel, doc_name: &str, label: &str, reason: Reason, at: &str) {
    let (s, rec) = run_script(m, &m.initial_state(), doc_name);
    assert_rejected(m, &s, label, reason, at);
    assert_eq!(last_step(&rec), at);
    assert!(s.threads.is_empty(), "a rejected getTools started the walk");
    let end = run_to_end(m, &s);
    assert_rejected(m, &end, label, reason, at);
}

#[test]
fn from_origins_not_a_url_is_a_security_error() {
    let m = model(&one_doc(
        json!([{"as": "list", "getTools": {"fromOrigins": ["not a url"]}}]),
    ));
    rejects_sync(&m, "top", "list", Reason::SecurityError, "get-tools#6.1.2");
}

#[test]
fn from_origins_not_trustworthy_is_a_security_error() {
    for bad in [
        "http://evil.example",
        "data:text/plain,x",
        "ftp://a.example",
    ] {
        let m = model(&one_doc(json!([
            {"as": "list", "getTools": {"fromOrigins": ["https://b.example", bad]}}
        ])));
        rejects_sync(&m, "top", "list", Reason::SecurityError, "get-tools#6.1.2");
    }
}

#[test]
fn iframe_without_allow_is_not_allowed() {
    let text = scenario(
        json!([{"tab": "main", "top": {"doc": "top", "url": "https://a.example/",
            "iframes": [{"nav": "frame", "doc": "child", "url": "https://b.example/"}]}}]),
        json!({"child": [{"as": "list", "getTools": {}}]}),
    );
    rejects_sync(
        &model(&text),
        "child",
        "list",
        Reason::NotAllowedError,
        "get-tools#4",
    );
}

#[test]
fn not_origin_keyed_is_a_security_error_only_under_2026_08() {
    let text = scenario(
        json!([{"tab": "main", "top": {"doc": "top", "url": "https://a.example/", "originKeyed": false}}]),
        json!({"top": [{"as": "list", "getTools": {}}]}),
    );
    // The current text has no origin-keyed check: the call goes on in parallel.
    let m = model(&text);
    let (s, _) = run_script(&m, &m.initial_state(), "top");
    assert_eq!(status(&m, &s, "list"), Status::Pending);
    rejects_sync(
        &model_2026_08(&text),
        "top",
        "list",
        Reason::SecurityError,
        "2026-08:get-tools#4",
    );
}

#[test]
fn empty_page_lists_nothing() {
    let m = model(&one_doc(
        json!([{"as": "list", "getTools": {}}, {"await": "list"}]),
    ));
    let end = run_all(&m);
    assert_eq!(listed(&m, &end, "list"), vec![]);
    assert_eq!(settled_at(&m, &end, "list"), Some("get-tools#8.5"));
}

#[test]
fn same_origin_iframe_tool_is_listed() {
    let text = scenario(
        json!([{"tab": "main", "top": {"doc": "top", "url": "https://a.example/",
            "iframes": [{"nav": "frame", "doc": "child", "url": "https://a.example/child"}]}}]),
        json!({
            "child": [{"registerTool": {"name": "t1", "title": "T", "description": "d",
                "inputSchema": {"type": "object"}}}],
            "top": [{"awaitToolchange": true}, {"as": "list", "getTools": {}}, {"await": "list"}]
        }),
    );
    let m = model(&text);
    // The parent's script starts first and waits for the iframe's toolchange.
    let (s, _) = run_script(&m, &m.initial_state(), "child");
    assert_eq!(status(&m, &s, "list"), Status::NotCalled);
    let end = run_to_end(&m, &s);
    assert_eq!(end.doc(doc(&m, "top")).toolchanges, 1);
    assert_eq!(
        listed(&m, &end, "list"),
        vec![triple("t1", "child", "https://a.example")]
    );
    let Status::Fulfilled(Value::Tools(tools)) = status(&m, &end, "list") else {
        unreachable!()
    };
    let t = tools[0];
    assert_eq!(t.title.map(|x| m.world.str(x)), Some("T"));
    assert_eq!(m.world.str(t.description), "d");
    assert_eq!(
        t.input_schema.map(|x| m.world.str(x)),
        Some(r#"{"type":"object"}"#)
    );
    assert!(end.ghost.is_empty(), "ghost facts: {:?}", end.ghost);
}

#[test]
fn absent_schema_is_undefined_in_the_list() {
    let m = model(&one_doc(json!([
        {"registerTool": {"name": "t1", "description": "d"}},
        {"as": "list", "getTools": {}},
        {"await": "list"},
    ])));
    let end = run_all(&m);
    let Status::Fulfilled(Value::Tools(tools)) = status(&m, &end, "list") else {
        panic!("not fulfilled")
    };
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].input_schema, None);
    assert_eq!(tools[0].title, None);
    assert_eq!(tools[0].window, doc(&m, "top"));
}

/// A parent on https://a.example and an iframe on https://b.example (allowed to use
/// "tools"); the iframe registers "t1" with `exposed_to`, then the parent lists tools with
/// `from_origins`.
fn cross_origin(
    exposed_to: Option<Json>,
    from_origins: Option<Json>,
) -> Vec<(String, String, String)> {
    let mut reg = json!({"registerTool": {"name": "t1", "description": "d"}});
    if let Some(e) = exposed_to {
        reg["exposedTo"] = e;
    }
    let get = match from_origins {
        Some(f) => json!({"as": "list", "getTools": {"fromOrigins": f}}),
        None => json!({"as": "list", "getTools": {}}),
    };
    let text = scenario(
        json!([{"tab": "main", "top": {"doc": "top", "url": "https://a.example/",
            "iframes": [{"nav": "frame", "allow": "tools", "doc": "child", "url": "https://b.example/"}]}}]),
        json!({"child": [reg], "top": [
            {"as": "own", "registerTool": {"name": "own", "description": "d"}},
            {"await": "own"},
            get,
            {"await": "list"}
        ]}),
    );
    let m = model(&text);
    // The parent starts first and waits for its own registration; the iframe registers
    // before the parent's getTools call, whatever the schedule.
    let (s, _) = run_script(&m, &m.initial_state(), "child");
    assert_eq!(status(&m, &s, "list"), Status::NotCalled);
    assert_eq!(
        s.doc(doc(&m, "child")).tools.len(),
        1,
        "the iframe registered t1"
    );
    let end = run_to_end(&m, &s);
    assert!(end.ghost.is_empty(), "ghost facts: {:?}", end.ghost);
    listed(&m, &end, "list")
}

#[test]
fn cross_origin_tool_needs_both_exposure_and_request() {
    let own = triple("own", "top", "https://a.example");
    let t1 = triple("t1", "child", "https://b.example");
    let exposed = || Some(json!(["https://a.example"]));
    let requested = || Some(json!(["https://b.example"]));
    assert_eq!(cross_origin(exposed(), requested()), vec![own.clone(), t1]);
    assert_eq!(cross_origin(exposed(), None), vec![own.clone()]);
    assert_eq!(cross_origin(None, requested()), vec![own.clone()]);
    assert_eq!(cross_origin(None, None), vec![own.clone()]);
    // Exposed to another origin, or to the caller's host on another port: not the caller.
    assert_eq!(
        cross_origin(Some(json!(["https://c.example"])), requested()),
        vec![own.clone()]
    );
    assert_eq!(
        cross_origin(Some(json!(["https://a.example:8443"])), requested()),
        vec![own.clone()]
    );
    // Requested some other origin only.
    assert_eq!(
        cross_origin(exposed(), Some(json!(["https://c.example"]))),
        vec![own.clone()]
    );
    // Paths and default ports are dropped by taking the origin.
    assert_eq!(
        cross_origin(
            Some(json!(["https://a.example:443/some/path?q"])),
            Some(json!(["https://b.example/x"]))
        ),
        vec![own, triple("t1", "child", "https://b.example")]
    );
}

#[test]
fn results_are_sorted_by_code_units() {
    let m = model(&one_doc(json!([
        {"registerTool": {"name": "zeta", "description": "d"}},
        {"registerTool": {"name": "alpha", "description": "d"}},
        {"registerTool": {"name": "Mid", "description": "d"}},
        {"registerTool": {"name": "_x", "description": "d"}},
        {"registerTool": {"name": "9", "description": "d"}},
        {"as": "list", "getTools": {}},
        {"await": "list"},
    ])));
    let end = run_all(&m);
    let names: Vec<String> = listed(&m, &end, "list").into_iter().map(|t| t.0).collect();
    // '9' (0x39) < 'M' (0x4D) < '_' (0x5F) < 'a' (0x61) < 'z' (0x7A).
    assert_eq!(names, vec!["9", "Mid", "_x", "alpha", "zeta"]);
}

#[test]
fn equal_names_keep_tree_order() {
    let text = scenario(
        json!([{"tab": "main", "top": {"doc": "top", "url": "https://a.example/",
        "iframes": [
            {"nav": "f1", "doc": "c1", "url": "https://a.example/1"},
            {"nav": "f2", "doc": "c2", "url": "https://a.example/2"}
        ]}}]),
        json!({
            "c2": [{"registerTool": {"name": "t1", "description": "d"}}],
            "c1": [{"registerTool": {"name": "t1", "description": "d"}},
                   {"registerTool": {"name": "a", "description": "d"}}],
            "top": [{"as": "own", "registerTool": {"name": "t1", "description": "d"}},
                    {"await": "own"},
                    {"as": "list", "getTools": {}}, {"await": "list"}]
        }),
    );
    let m = model(&text);
    let mut s = m.initial_state();
    for d in ["top", "c2", "c1"] {
        s = run_script(&m, &s, d).0;
    }
    let end = run_to_end(&m, &s);
    assert_eq!(
        listed(&m, &end, "list"),
        vec![
            triple("a", "c1", "https://a.example"),
            triple("t1", "top", "https://a.example"),
            triple("t1", "c1", "https://a.example"),
            triple("t1", "c2", "https://a.example"),
        ]
    );
}

#[test]
fn other_tabs_are_not_listed() {
    let text = scenario(
        json!([
            {"tab": "one", "top": {"doc": "first", "url": "https://a.example/"}},
            {"tab": "two", "top": {"doc": "second", "url": "https://a.example/other"}}
        ]),
        json!({
            "first": [{"registerTool": {"name": "t1", "description": "d"}}],
            "second": [{"as": "list", "getTools": {}}, {"await": "list"}]
        }),
    );
    let m = model(&text);
    let end = run_all(&m);
    assert_eq!(end.doc(doc(&m, "first")).tools.len(), 1);
    assert_eq!(listed(&m, &end, "list"), vec![]);
}

#[test]
fn iframe_without_allow_is_skipped_by_the_walk() {
    // The parent asks for the iframe's origin, but the iframe may not use "tools".
    let text = scenario(
        json!([{"tab": "main", "top": {"doc": "top", "url": "https://a.example/",
            "iframes": [{"nav": "frame", "doc": "child", "url": "https://b.example/"}]}}]),
        json!({"top": [{"as": "list", "getTools": {"fromOrigins": ["https://b.example"]}}, {"await": "list"}]}),
    );
    let m = model(&text);
    let (s, rec) = run_script(&m, &m.initial_state(), "top");
    assert_eq!(status(&m, &s, "list"), Status::Pending);
    assert_eq!(last_step(&rec), "get-tools#9");
    let end = run_to_end(&m, &s);
    assert_eq!(listed(&m, &end, "list"), vec![]);
}
