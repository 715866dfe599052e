//! `executeTool(tool, inputObject, options)`: the rejections of the method steps and of the
//! in-parallel block, and which inputs `imperative-execute-steps#3` refuses (in the current
//! text and in the 2026-08 text's literal double negative).

mod common;

use common::*;
use serde_json::{json, Value as Json};
use webmcp_model::machine::Action;
use webmcp_model::state::{Reason, Status, Value};
use webmcp_model::threads::ThreadKey;
use webmcp_model::variant::Revision;
use webmcp_model::world::Outcome;
use webmcp_model::{Variant, WebMcpModel};

/// One document on https://a.example that registers "t1" and then runs `exec` (labelled
/// `exec`), preceded by `before`.
fn with_tool(before: Vec<Json>, mut exec: Json) -> WebMcpModel {
    exec["as"] = json!("exec");
    let mut script = vec![json!({"registerTool": {"name": "t1", "description": "d"}})];
    script.extend(before);
    script.push(exec);
    model(&one_doc(Json::Array(script)))
}

fn forged(name: &str, origin: &str, window: &str) -> Json {
    json!({"executeTool": {"name": name, "origin": origin, "window": window},
           "input": {"$js": "to-json-primitive"}})
}

/// The method steps reject synchronously at `at`; no in-parallel block starts for the call.
#[track_caller]
fn rejects_sync(m: &WebMcpModel, reason: Reason, at: &str) {
    let (s, rec) = run_script(m, &m.initial_state(), "top");
    assert_rejected(m, &s, "exec", reason, at);
    assert_eq!(last_step(&rec), at, "recorded: {rec:?}");
    let exec = call(m, "exec");
    assert!(
        !s.threads.contains_key(&ThreadKey::Execute(exec)),
        "threads: {:?}",
        s.threads
    );
    let end = run_to_end(m, &s);
    assert_rejected(m, &end, "exec", reason, at);
    assert!(end.bodies.is_empty());
    assert!(end.pending.iter().all(|p| p.is_empty()));
}

#[test]
fn origin_that_is_not_a_url_is_not_supported() {
    let m = with_tool(vec![], forged("t1", "not a url", "top"));
    rejects_sync(&m, Reason::NotSupportedError, "execute-tool#5");
}

#[test]
fn opaque_origin_is_not_supported() {
    for origin in ["data:text/plain,x", "null", "file:///etc/passwd"] {
        let m = with_tool(vec![], forged("t1", origin, "top"));
        rejects_sync(&m, Reason::NotSupportedError, "execute-tool#5");
    }
}

#[test]
fn unserializable_input_rejects_at_9() {
    for (input, reason) in [
        (json!({"$js": "circular"}), Reason::TypeError),
        (json!({"$js": "to-json-undefined"}), Reason::TypeError),
        (json!({"$js": "to-json-throws"}), Reason::Error),
    ] {
        let m = with_tool(
            vec![],
            json!({"executeTool": {"name": "t1", "origin": "https://a.example", "window": "top"},
                   "input": input}),
        );
        rejects_sync(&m, reason, "execute-tool#10");
    }
}

#[test]
fn signal_aborted_before_the_call_rejects_at_14_2() {
    let mut exec = forged("t1", "https://a.example", "top");
    exec["signal"] = json!("ac");
    let m = with_tool(vec![json!({"abort": "ac"})], exec);
    let ac = ctrl(&m, "ac");
    rejects_sync(&m, Reason::Aborted(ac), "execute-tool#15.2");
}

/// Runs the script, checks the promise is pending with the in-parallel block started, and
/// runs to the end; returns the final state.
fn run_pending(m: &WebMcpModel) -> webmcp_model::State {
    let (s, rec) = run_script(m, &m.initial_state(), "top");
    assert_eq!(status(m, &s, "exec"), Status::Pending);
    assert_eq!(last_step(&rec), "execute-tool#17");
    run_while(
        m,
        &s,
        |_| true,
        |st| assert!(st.bodies.is_empty(), "a tool body ran"),
    )
}

#[test]
fn wrong_origin_rejects_at_15_4() {
    let m = with_tool(vec![], forged("t1", "https://b.example", "top"));
    let end = run_pending(&m);
    assert_rejected(&m, &end, "exec", Reason::UnknownError, "execute-tool#16.4");
}

#[test]
fn unregistered_name_rejects_at_15_7() {
    let m = with_tool(vec![], forged("nope", "https://a.example", "top"));
    let end = run_pending(&m);
    assert_rejected(&m, &end, "exec", Reason::UnknownError, "execute-tool#16.7");
}

#[test]
fn window_in_another_tab_rejects_at_15_1() {
    let text = scenario(
        json!([
            {"tab": "one", "top": {"doc": "first", "url": "https://a.example/"}},
            {"tab": "two", "top": {"doc": "top", "url": "https://a.example/other"}}
        ]),
        json!({
            "first": [{"registerTool": {"name": "t1", "description": "d"}}],
            "top": [{"as": "exec", "executeTool": {"name": "t1", "origin": "https://a.example", "window": "first"},
                     "input": {"$js": "to-json-primitive"}}]
        }),
    );
    let m = model(&text);
    // The tool exists in the other tab before the call.
    let (s, _) = run_script(&m, &m.initial_state(), "first");
    let (s, rec) = run_script(&m, &s, "top");
    assert_eq!(status(&m, &s, "exec"), Status::Pending);
    assert_eq!(last_step(&rec), "execute-tool#17");
    let end = run_while(&m, &s, |_| true, |st| assert!(st.bodies.is_empty()));
    assert_rejected(&m, &end, "exec", Reason::UnknownError, "execute-tool#16.1");
    assert!(end.pending.iter().all(|p| p.is_empty()));
}

/// register "t1", list, await, execute the listed "t1" with `input`.
fn listed_execution_under(input: Json, variant: Variant) -> WebMcpModel {
    model_under(
        &one_doc(json!([
            {"registerTool": {"name": "t1", "description": "d"}},
            {"as": "list", "getTools": {}},
            {"await": "list"},
            {"as": "exec", "executeTool": {"from": "list", "name": "t1"}, "input": input},
        ])),
        variant,
    )
}

#[test]
fn input_is_rejected_before_any_body_runs() {
    // The 2026-08 text's double negative refuses every object; the current text refuses
    // what parses back to something other than an object.
    let cases = [
        (Revision::Aug2026, json!({"q": 1})),
        (Revision::Aug2026, json!({})),
        (Revision::Aug2026, json!([1, 2])),
        (Revision::Current, json!({"$js": "to-json-primitive"})),
    ];
    for (revision, input) in cases {
        let m = listed_execution_under(input, Variant::SEED.at(revision));
        let mut steps_seen = Vec::new();
        let mut s = m.initial_state();
        for _ in 0..MAX_STEPS {
            let Some(a) = enabled(&m, &s).into_iter().next() else {
                break;
            };
            let (next, rec) = apply_recorded(&m, &s, a);
            steps_seen.extend(rec.iter().map(|st| st.id()));
            assert!(next.bodies.is_empty(), "a tool body ran");
            s = next;
        }
        assert!(enabled(&m, &s).is_empty());
        assert_rejected(&m, &s, "exec", Reason::UnknownError, "execute-tool#16.10.4");
        assert!(steps_seen.contains(&"imperative-execute-steps#3"));
        assert!(!steps_seen.contains(&"imperative-execute-steps#5"));
        assert!(!steps_seen.contains(&"imperative-execute-steps#9"));
        assert!(s.pending.iter().all(|p| p.is_empty()));
        assert!(s.doc(doc(&m, "top")).local.is_empty());
    }
}

#[test]
fn accepted_input_runs_the_body_and_fulfils() {
    for (revision, input) in [
        (Revision::Current, json!({"q": 1})),
        (Revision::Aug2026, json!({"$js": "to-json-primitive"})),
    ] {
        accepted_input_runs_the_body_under(listed_execution_under(
            input,
            Variant::SEED.at(revision),
        ));
    }
}

fn accepted_input_runs_the_body_under(m: WebMcpModel) {
    let exec = call(&m, "exec");
    let top = doc(&m, "top");
    // Everything except the body's settlement.
    let s = run_while(
        &m,
        &m.initial_state(),
        |a| !matches!(a, Action::SettleTool(..)),
        |_| {},
    );
    assert_eq!(status(&m, &s, "exec"), Status::Pending);
    let body = s.bodies.get(&exec).copied().expect("the body runs");
    assert_eq!(body.target, top);
    assert!(!body.settled);
    assert!(s.doc(top).local.contains(&exec));
    assert_eq!(
        s.pending[0].len(),
        1,
        "the pending execution is in the tab's map"
    );
    assert_eq!(
        enabled(&m, &s),
        vec![Action::SettleTool(exec, Outcome::Fulfil)]
    );
    let (s, rec) = apply_recorded(&m, &s, Action::SettleTool(exec, Outcome::Fulfil));
    let ids: Vec<&str> = rec.iter().map(|st| st.id()).collect();
    assert!(
        ids.contains(&"imperative-execute-steps#10.fulfilled.5"),
        "{ids:?}"
    );
    assert!(s.bodies[&exec].settled);
    assert!(s.doc(top).local.is_empty());
    let end = run_to_end(&m, &s);
    let p = promise(&m, &end, "exec");
    match &p.status {
        Status::Fulfilled(Value::Text(t)) => assert_eq!(m.world.str(*t), "\"done\""),
        other => panic!("exec is {other:?}"),
    }
    assert_eq!(p.settled_at.map(|st| st.id()), Some("execute-tool#16.10.3"));
    assert_eq!(p.attempts, 1);
    assert!(end.pending.iter().all(|p| p.is_empty()));
    assert!(end.queues.iter().all(|q| q.is_empty()));
}

#[test]
fn body_rejection_rejects_with_unknown_error() {
    let text = scenario_with_env(
        json!([{"tab": "main", "top": {"doc": "top", "url": "https://a.example/"}}]),
        json!({"top": [
            {"registerTool": {"name": "t1", "description": "d"}},
            {"as": "list", "getTools": {}},
            {"await": "list"},
            {"as": "exec", "executeTool": {"from": "list", "name": "t1"}, "input": {"q": 1}},
        ]}),
        json!({"toolOutcomes": ["reject", "fulfil-unserializable"]}),
    );
    for outcome in [Outcome::Reject, Outcome::FulfilUnserializable] {
        let m = model(&text);
        let exec = call(&m, "exec");
        let s = run_while(
            &m,
            &m.initial_state(),
            |a| !matches!(a, Action::SettleTool(..)),
            |_| {},
        );
        let s = apply(&m, &s, Action::SettleTool(exec, outcome));
        let end = run_to_end(&m, &s);
        assert_rejected(
            &m,
            &end,
            "exec",
            Reason::UnknownError,
            "execute-tool#16.10.4",
        );
    }
}

/// The compiled `executeTool` statement of `model`'s script (the last statement).
fn execute_op(m: &WebMcpModel) -> webmcp_model::world::ExecuteOp {
    let top = doc(m, "top");
    match m.world.docs[top.index()].script.last() {
        Some(webmcp_model::world::Op::Execute(e)) => e.clone(),
        other => panic!("not an executeTool statement: {other:?}"),
    }
}

/// `optional object inputObject = {}`: WebIDL gives an undefined argument the default, so
/// `executeTool(tool, undefined)` is `executeTool(tool, {})`, not a TypeError; `null` and
/// primitives are still not objects.
#[test]
fn undefined_input_is_the_default_empty_object() {
    let exec = |input: Option<Json>| {
        let mut e = json!({"executeTool": {"from": "list", "name": "t1"}});
        if let Some(i) = input {
            e["input"] = i;
        }
        with_tool(
            vec![
                json!({"as": "list", "getTools": {}}),
                json!({"await": "list"}),
            ],
            e,
        )
    };
    let absent = execute_op(&exec(None));
    let undefined = execute_op(&exec(Some(json!({"$js": "undefined"}))));
    assert!(undefined.input_is_object);
    assert_eq!(undefined.input_json, absent.input_json);
    for not_object in [json!(null), json!(42), json!("text")] {
        let op = execute_op(&exec(Some(not_object.clone())));
        assert!(!op.input_is_object, "{not_object}");
    }
}
