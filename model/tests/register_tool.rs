//! `registerTool(tool, options)`: every rejection path of the method steps, and the happy
//! path through the in-parallel notification to the resolution task (`register-tool`).

mod common;

use common::*;
use serde_json::{json, Value as Json};
use webmcp_model::state::{Reason, Status, Value};
use webmcp_model::world::{Annotations, StrId};
use webmcp_model::WebMcpModel;

/// A one-document scenario whose script is the single statement `stmt` (labelled `reg`);
/// runs the script's first task and checks the promise was created rejected with `reason`
/// at step `at`, that the recorded steps end there, and that nothing else happened.
#[track_caller]
fn rejects_at(stmt: Json, reason: Reason, at: &str) {
    let mut stmt = stmt;
    stmt["as"] = json!("reg");
    let m = model(&one_doc(json!([stmt])));
    check_rejection(&m, "top", "reg", reason, at);
}

/// Runs `doc`'s script and checks the registration `label` was rejected synchronously.
#[track_caller]
fn check_rejection(m: &WebMcpModel, doc_name: &str, label: &str, reason: Reason, at: &str) {
    let s0 = m.initial_state();
    let (s, rec) = run_script(m, &s0, doc_name);
    assert_rejected(m, &s, label, reason, at);
    assert_eq!(last_step(&rec), at, "recorded steps: {rec:?}");
    let d = doc(m, doc_name);
    assert!(
        s.doc(d).tools.is_empty(),
        "a rejected registration left a tool"
    );
    assert!(
        s.threads.is_empty(),
        "a rejected registration started in-parallel steps"
    );
    // Nothing that runs later changes a rejected promise.
    let end = run_to_end(m, &s);
    assert_rejected(m, &end, label, reason, at);
    assert!(end.doc(d).tools.is_empty());
    assert_eq!(end.doc(d).toolchanges, 0);
    assert_eq!(promise(m, &end, label).attempts, 1);
}

fn reg(name: &str, description: &str) -> Json {
    json!({"registerTool": {"name": name, "description": description}})
}

#[test]
fn duplicate_name_is_rejected_at_9() {
    let m = model(&one_doc(json!([
        {"as": "first", "registerTool": {"name": "t1", "description": "one"}},
        {"as": "second", "registerTool": {"name": "t1", "description": "two"}},
    ])));
    let (s, rec) = run_script(&m, &m.initial_state(), "top");
    assert_eq!(status(&m, &s, "first"), Status::Pending);
    assert_rejected(
        &m,
        &s,
        "second",
        Reason::InvalidStateError,
        "register-tool#8",
    );
    assert_eq!(last_step(&rec), "register-tool#8");
    // The first definition stays.
    let top = doc(&m, "top");
    let t1 = StrId::nth(m.world.strings.iter().position(|x| x == "t1").unwrap());
    let def = s.doc(top).tools[&t1];
    assert_eq!(m.world.str(def.description), "one");
    assert_eq!(def.registered_by, call(&m, "first"));
    let end = run_to_end(&m, &s);
    assert_eq!(
        status(&m, &end, "first"),
        Status::Fulfilled(Value::Undefined)
    );
    assert_rejected(
        &m,
        &end,
        "second",
        Reason::InvalidStateError,
        "register-tool#8",
    );
}

#[test]
fn empty_name_is_rejected_at_9() {
    rejects_at(reg("", "d"), Reason::InvalidStateError, "register-tool#9");
}

#[test]
fn empty_description_is_rejected_at_10() {
    rejects_at(reg("t1", ""), Reason::InvalidStateError, "register-tool#10");
}

#[test]
fn name_of_129_chars_is_rejected_at_11() {
    rejects_at(
        reg(&"a".repeat(129), "d"),
        Reason::InvalidStateError,
        "register-tool#9",
    );
}

#[test]
fn names_outside_the_grammar_are_rejected_at_11() {
    for name in ["bad name!", "café", "工具", "a/b", "t\u{0}"] {
        rejects_at(reg(name, "d"), Reason::InvalidStateError, "register-tool#9");
    }
}

#[test]
fn name_of_128_chars_succeeds() {
    let name = format!("{}{}", "a".repeat(125), "_.-");
    assert_eq!(name.len(), 128);
    let m = model(&one_doc(
        json!([{"as": "reg", "registerTool": {"name": name, "description": "d"}}]),
    ));
    let end = run_all(&m);
    assert_eq!(status(&m, &end, "reg"), Status::Fulfilled(Value::Undefined));
    let top = doc(&m, "top");
    let names: Vec<&str> = end
        .doc(top)
        .tools
        .values()
        .map(|t| m.world.str(t.name))
        .collect();
    assert_eq!(names, vec![name.as_str()]);
}

#[test]
fn unserializable_schemas_are_rejected_at_13() {
    for (schema, reason) in [
        (json!({"$js": "circular"}), Reason::TypeError),
        (json!({"$js": "to-json-undefined"}), Reason::TypeError),
        (json!({"$js": "to-json-function"}), Reason::TypeError),
        (json!({"$js": "to-json-throws"}), Reason::Error),
    ] {
        rejects_at(
            json!({"registerTool": {"name": "t1", "description": "d", "inputSchema": schema}}),
            reason,
            "register-tool#12",
        );
    }
}

#[test]
fn signal_aborted_before_the_call_is_rejected_at_14() {
    let m = model(&one_doc(json!([
        {"abort": "ac"},
        {"as": "reg", "registerTool": {"name": "t1", "description": "d"}, "signal": "ac"},
    ])));
    let ac = ctrl(&m, "ac");
    check_rejection(&m, "top", "reg", Reason::Aborted(ac), "register-tool#13");
    assert_eq!(Reason::Aborted(ac).name(), "AbortError");
}

#[test]
fn document_not_origin_keyed_is_rejected_only_under_2026_08() {
    let text = scenario(
        json!([{"tab": "main", "top": {"doc": "top", "url": "https://a.example/", "originKeyed": false}}]),
        json!({"top": [{"as": "reg", "registerTool": {"name": "t1", "description": "d"}}]}),
    );
    let current = model(&text);
    let (s, _) = run_script(&current, &current.initial_state(), "top");
    assert_eq!(status(&current, &s, "reg"), Status::Pending);
    let m = model_2026_08(&text);
    check_rejection(
        &m,
        "top",
        "reg",
        Reason::SecurityError,
        "2026-08:register-tool#4",
    );
}

#[test]
fn untrustworthy_exposed_to_is_rejected_at_16_1_2() {
    for origin in [
        "not a url",
        "http://evil.example",
        "data:text/plain,x",
        "ftp://a.example",
    ] {
        rejects_at(
            json!({"registerTool": {"name": "t1", "description": "d"}, "exposedTo": ["https://ok.example", origin]}),
            Reason::SecurityError,
            "register-tool#15.1.2",
        );
    }
}

#[test]
fn cross_origin_iframe_without_allow_is_rejected_at_5() {
    let text = scenario(
        json!([{"tab": "main", "top": {"doc": "top", "url": "https://a.example/",
            "iframes": [{"nav": "frame", "doc": "child", "url": "https://b.example/"}]}}]),
        json!({"child": [{"as": "reg", "registerTool": {"name": "t1", "description": "d"}}]}),
    );
    let m = model(&text);
    check_rejection(
        &m,
        "child",
        "reg",
        Reason::NotAllowedError,
        "register-tool#4",
    );
}

#[test]
fn cross_origin_iframe_with_allow_registers() {
    let text = scenario(
        json!([{"tab": "main", "top": {"doc": "top", "url": "https://a.example/",
            "iframes": [{"nav": "frame", "allow": "tools", "doc": "child", "url": "https://b.example/"}]}}]),
        json!({"child": [{"as": "reg", "registerTool": {"name": "t1", "description": "d"}}]}),
    );
    let m = model(&text);
    let end = run_all(&m);
    assert_eq!(status(&m, &end, "reg"), Status::Fulfilled(Value::Undefined));
    assert_eq!(end.doc(doc(&m, "child")).tools.len(), 1);
}

#[test]
fn rejections_come_in_the_draft_order() {
    // Duplicate name (#9) is checked before the empty description (#10), which comes before
    // the grammar (#11), the schema (#13), the signal (#14) and exposedTo (#16).
    let m = model(&one_doc(json!([
        {"registerTool": {"name": "t1", "description": "d"}},
        {"abort": "ac"},
        {"as": "dup", "registerTool": {"name": "t1", "description": "",
            "inputSchema": {"$js": "circular"}}, "signal": "ac", "exposedTo": ["not a url"]},
        {"as": "bad", "registerTool": {"name": "bad name", "description": "d",
            "inputSchema": {"$js": "circular"}}, "signal": "ac", "exposedTo": ["not a url"]},
        {"as": "schema", "registerTool": {"name": "t2", "description": "d",
            "inputSchema": {"$js": "to-json-throws"}}, "signal": "ac", "exposedTo": ["not a url"]},
        {"as": "sig", "registerTool": {"name": "t3", "description": "d"},
            "signal": "ac", "exposedTo": ["not a url"]},
    ])));
    let (s, _) = run_script(&m, &m.initial_state(), "top");
    let ac = ctrl(&m, "ac");
    assert_rejected(&m, &s, "dup", Reason::InvalidStateError, "register-tool#8");
    assert_rejected(&m, &s, "bad", Reason::InvalidStateError, "register-tool#9");
    assert_rejected(&m, &s, "schema", Reason::Error, "register-tool#12");
    assert_rejected(&m, &s, "sig", Reason::Aborted(ac), "register-tool#13");
}

#[test]
fn trustworthy_exposed_to_succeeds() {
    let m = model(&one_doc(json!([{
        "as": "reg",
        "registerTool": {"name": "t1", "description": "d"},
        "exposedTo": ["https://b.example/with/path", "http://localhost:8000", "http://127.0.0.1:9"]
    }])));
    let (s, rec) = run_script(&m, &m.initial_state(), "top");
    assert_eq!(status(&m, &s, "reg"), Status::Pending);
    assert_eq!(last_step(&rec), "register-tool#21");
    let top = doc(&m, "top");
    let def = s
        .doc(top)
        .tools
        .values()
        .next()
        .copied()
        .expect("t1 registered");
    let mut exposed: Vec<String> = def
        .exposed
        .iter()
        .map(|o| m.world.origins.serialize(o))
        .collect();
    exposed.sort();
    assert_eq!(
        exposed,
        vec![
            "http://127.0.0.1:9",
            "http://localhost:8000",
            "https://b.example"
        ]
    );
    let end = run_to_end(&m, &s);
    assert_eq!(status(&m, &end, "reg"), Status::Fulfilled(Value::Undefined));
}

#[test]
fn happy_path_builds_the_definition_and_resolves_at_21_2() {
    let m = model(&one_doc(json!([{
        "as": "reg",
        "registerTool": {
            "name": "search",
            "title": "Search",
            "description": "finds things",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true}
        }
    }])));
    let top = doc(&m, "top");
    let reg = call(&m, "reg");
    assert_eq!(status(&m, &m.initial_state(), "reg"), Status::NotCalled);
    let (s, rec) = run_script(&m, &m.initial_state(), "top");
    // register-tool#16 .. #21: a pending promise, the definition in the tool map.
    assert_eq!(status(&m, &s, "reg"), Status::Pending);
    assert_eq!(settled_at(&m, &s, "reg"), None);
    let ids: Vec<&str> = rec.iter().map(|st| st.id()).collect();
    for step in [
        "register-tool#16",
        "register-tool#18",
        "register-tool#19",
        "register-tool#20",
    ] {
        assert!(ids.contains(&step), "{step} not recorded: {ids:?}");
    }
    assert!(
        !ids.contains(&"register-tool#17.1"),
        "no signal, yet #18.1 ran"
    );
    let tools = &s.doc(top).tools;
    assert_eq!(tools.len(), 1);
    let (key, def) = tools.iter().next().unwrap();
    assert_eq!(*key, def.name);
    assert_eq!(m.world.str(def.name), "search");
    assert_eq!(def.title.map(|t| m.world.str(t)), Some("Search"));
    assert_eq!(m.world.str(def.description), "finds things");
    assert_eq!(m.world.str(def.input_schema), r#"{"type":"object"}"#);
    assert_eq!(
        def.annotations,
        Some(Annotations {
            read_only: true,
            untrusted_content: false
        })
    );
    assert_eq!(def.exposed.iter().count(), 0);
    assert_eq!(def.registered_by, reg);
    // Run one schedule to the end: the notification, then the resolution task.
    let end = run_to_end(&m, &s);
    let p = promise(&m, &end, "reg");
    assert_eq!(p.status, Status::Fulfilled(Value::Undefined));
    assert_eq!(p.settled_at.map(|st| st.id()), Some("register-tool#20.2"));
    assert_eq!(p.attempts, 1);
    assert_eq!(end.doc(top).tools.len(), 1);
    assert_eq!(
        end.doc(top).toolchanges,
        1,
        "the owner hears its own toolchange"
    );
    assert!(end.threads.is_empty());
    assert!(end.queues.iter().all(|q| q.is_empty()));
    assert!(end.ghost.is_empty(), "ghost facts: {:?}", end.ghost);
}

#[test]
fn absent_schema_and_title_are_stored_as_empty() {
    let m = model(&one_doc(
        json!([{"as": "reg", "registerTool": {"name": "t1", "description": "d"}}]),
    ));
    let (s, _) = run_script(&m, &m.initial_state(), "top");
    let def = s
        .doc(doc(&m, "top"))
        .tools
        .values()
        .next()
        .copied()
        .unwrap();
    assert_eq!(def.input_schema, m.world.empty_string);
    assert_eq!(m.world.str(def.input_schema), "");
    assert_eq!(def.title, None);
    assert_eq!(def.annotations, None);
}

#[test]
fn signal_registered_then_aborted_unregisters_and_rejects() {
    let m = model(&one_doc(json!([
        {"as": "reg", "registerTool": {"name": "t1", "description": "d"}, "signal": "ac"},
        {"abort": "ac"},
    ])));
    let ac = ctrl(&m, "ac");
    let (s, _) = run_script(&m, &m.initial_state(), "top");
    assert!(
        s.doc(doc(&m, "top")).tools.is_empty(),
        "the abort steps unregister"
    );
    assert_rejected(&m, &s, "reg", Reason::Aborted(ac), "register-tool#17.3.2");
    let end = run_to_end(&m, &s);
    // The later resolution task finds the promise already rejected.
    assert_rejected(&m, &end, "reg", Reason::Aborted(ac), "register-tool#17.3.2");
}

/// A dictionary member whose value is undefined is not present (WebIDL): registering with
/// `inputSchema: undefined` is registering without one, not a TypeError at #13.
#[test]
fn undefined_input_schema_is_no_input_schema() {
    let schema_of = |tool: Json| {
        let m = model(&one_doc(json!([{ "registerTool": tool }])));
        let top = doc(&m, "top");
        match &m.world.docs[top.index()].script[0] {
            webmcp_model::world::Op::Register(r) => r.schema,
            other => panic!("not a registerTool statement: {other:?}"),
        }
    };
    let absent = schema_of(json!({"name": "t1", "description": "d"}));
    let undefined =
        schema_of(json!({"name": "t1", "description": "d", "inputSchema": {"$js": "undefined"}}));
    assert_eq!(absent, None);
    assert_eq!(undefined, None);
}

/// `object inputSchema`: WebIDL's dictionary conversion throws a TypeError for `null` or a
/// primitive before the method steps run, so the registration is rejected with it and nothing
/// is registered; an object (even one that serializes to a primitive) is converted.
#[test]
fn input_schema_that_is_not_an_object_is_a_type_error() {
    for schema in [json!(null), json!(42), json!("text"), json!(true)] {
        rejects_at(
            json!({"registerTool": {"name": "t1", "description": "d", "inputSchema": schema}}),
            Reason::TypeError,
            "register-tool#1",
        );
    }
    let m = model(&one_doc(json!([{"registerTool": {
        "name": "t1", "description": "d", "inputSchema": {"$js": "to-json-primitive"}}}])));
    let (s, _) = run_script(&m, &m.initial_state(), "top");
    assert_eq!(s.doc(doc(&m, "top")).tools.len(), 1);
}
