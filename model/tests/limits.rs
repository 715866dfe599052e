//! Hostile scenario files: no scenario can overflow an id or a counter, every bound of
//! `limits` is enforced with an error that names it, and what used to be silently accepted
//! (duplicates, misspelt tags, unsafe names) is refused.

mod common;

use std::collections::{HashSet, VecDeque};

use common::*;
use serde_json::{json, Value as Json};
use webmcp_model::error::{ErrorKind, Location, ScenarioError};
use webmcp_model::legacy::{LegacyModel, LegacyVariant, LegacyWorld};
use webmcp_model::limits::{self, Limit};
use webmcp_model::state::{Reason, ScriptStatus, State, Status};
use webmcp_model::world::{CallId, CtrlId, DocId, NavId, StrId, TabId};
use webmcp_model::{Variant, WebMcpModel, World};

fn scenario_text(scripts: Json, environment: Json) -> String {
    json!({
        "name": "hostile",
        "summary": "s",
        "description": "d",
        "tabs": [{"tab": "main", "top": {"doc": "top", "url": "https://a.example/",
            "iframes": [{"nav": "frame", "doc": "child", "url": "https://a.example/c"}]}}],
        "scripts": scripts,
        "environment": environment
    })
    .to_string()
}

#[track_caller]
fn refused(text: &str) -> ScenarioError {
    match World::from_json(text) {
        Ok(_) => panic!("compiled: {}", &text[..text.len().min(300)]),
        Err(e) => {
            let shown = e.to_string();
            assert!(!shown.contains('\n'), "an error is one line: {shown}");
            e
        }
    }
}

#[track_caller]
fn refused_by(text: &str, limit: Limit) -> ScenarioError {
    let e = refused(text);
    assert!(
        matches!(e.kind, ErrorKind::Limit { limit: l, .. } if l == limit),
        "expected {limit}: {e:?}"
    );
    let shown = e.to_string();
    assert!(shown.contains(&limit.to_string()), "{shown}");
    assert!(shown.contains(&limit.value().to_string()), "{shown}");
    e
}

/// Every state reachable from the initial state (the scenarios here are small).
fn explore(m: &WebMcpModel) -> Vec<State> {
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([m.initial_state()]);
    let mut out = Vec::new();
    while let Some(s) = queue.pop_front() {
        if !seen.insert(s.clone()) {
            continue;
        }
        assert!(seen.len() < 100_000, "the state space should be small");
        for a in enabled(m, &s) {
            queue.push_back(m.apply(&s, a, &mut ()));
        }
        out.push(s);
    }
    out
}

// 1. A script of 256 statements used to wrap its `u8` program counter and loop forever.

#[test]
fn a_script_longer_than_the_bound_is_refused() {
    let aborts = |n: usize| Json::Array(vec![json!({"abort": "c"}); n]);
    let e = refused_by(
        &scenario_text(json!({"top": aborts(256)}), json!({})),
        Limit::Statements,
    );
    assert_eq!(e.at, Location::Member("scripts.top".into()));
    assert_eq!(
        e.to_string(),
        "scripts.top: the script of document \"top\" has 256 statements; at most 200 are allowed (limits::MAX_STATEMENTS)"
    );
}

#[test]
fn a_script_at_the_bound_runs_once_and_finishes() {
    let n = limits::MAX_STATEMENTS;
    let m = model(&scenario_text(
        json!({"top": vec![json!({"abort": "c"}); n]}),
        json!({}),
    ));
    let end = run_all(&m);
    let top = doc(&m, "top");
    assert_eq!(end.doc(top).script.status, ScriptStatus::Finished);
    assert_eq!(end.doc(top).script.pc as usize, n);
    // Exhaustively: the program counter never goes back.
    for s in explore(&m) {
        assert!(s.doc(top).script.pc as usize <= n);
    }
}

// 2. The 257th AbortController used to get the first one's id (CtrlId was a bare u8), so
//    aborting it aborted another document's registration: a false violation.

#[test]
fn more_controllers_than_the_bound_are_refused() {
    let ctrls = |prefix: &str, n: usize| -> Json {
        (0..n)
            .map(|i| json!({"abort": format!("{prefix}{i}")}))
            .collect()
    };
    let text = scenario_text(
        json!({
            "child": ctrls("a", 200),
            "other": ctrls("b", 56),
            "top": [{"as": "r", "registerTool": {"name": "t", "description": "d"}, "signal": "c"}]
        }),
        json!({}),
    );
    // `other` is not declared: add it as a second tab.
    let mut v: Json = serde_json::from_str(&text).unwrap();
    v["tabs"]
        .as_array_mut()
        .unwrap()
        .push(json!({"tab": "second", "top": {"doc": "other", "url": "https://b.example/"}}));
    let e = refused_by(&v.to_string(), Limit::Controllers);
    assert!(e.to_string().contains("has 257 AbortControllers"), "{e}");
}

#[test]
fn controllers_at_the_bound_keep_distinct_ids() {
    // `child` creates and aborts MAX_CONTROLLERS - 1 controllers; `top` registers a tool with
    // the last one, which nobody aborts. Had ids wrapped, the registration would be aborted.
    let n = limits::MAX_CONTROLLERS;
    let aborts: Json = (1..n).map(|i| json!({"abort": format!("k{i}")})).collect();
    let m = model(&scenario_text(
        json!({
            "child": aborts,
            "top": [{"as": "r", "registerTool": {"name": "t", "description": "d"}, "signal": "c"},
                    {"await": "r"}]
        }),
        json!({}),
    ));
    assert_eq!(m.world.controllers.len(), n);
    let c = ctrl(&m, "c");
    assert_eq!(c, CtrlId::try_from(n - 1).unwrap());
    let ids: HashSet<CtrlId> = (0..n).map(|i| CtrlId::try_from(i).unwrap()).collect();
    assert_eq!(ids.len(), n);
    for s in explore(&m) {
        assert!(!s.controllers[c.index()].aborted);
        assert!(
            !matches!(
                promise(&m, &s, "r").status,
                Status::Rejected(Reason::Aborted(_))
            ),
            "the registration's signal was never aborted"
        );
    }
}

#[test]
fn ids_are_made_only_within_their_bounds() {
    assert!(CtrlId::try_from(limits::MAX_CONTROLLERS - 1).is_ok());
    let e = CtrlId::try_from(limits::MAX_CONTROLLERS).unwrap_err();
    assert_eq!(e.limit, Limit::Controllers);
    assert!(CallId::try_from(limits::MAX_CALLS).is_err());
    assert!(DocId::try_from(limits::MAX_DOCUMENTS).is_err());
    assert!(StrId::try_from(limits::MAX_STRINGS).is_err());
    assert!(CtrlId::try_from(256).is_err(), "never wraps to 0");
    // They print, hash and order as the integers they hold.
    assert_eq!(format!("{:?}", DocId::try_from(7).unwrap()), "7");
    assert!(CallId::try_from(1).unwrap() < CallId::try_from(2).unwrap());
}

#[test]
fn more_calls_documents_tabs_than_the_bounds_are_refused() {
    let calls: Json = (0..=limits::MAX_CALLS)
        .map(|i| json!({"getTools": {}, "as": format!("g{i}")}))
        .collect();
    refused_by(
        &scenario_text(json!({"top": calls}), json!({})),
        Limit::Calls,
    );

    let iframes: Vec<Json> = (0..limits::MAX_DOCUMENTS)
        .map(|i| json!({"nav": format!("f{i}"), "doc": format!("d{i}"), "url": "https://a.example/"}))
        .collect();
    let text = json!({"name": "x", "summary": "s", "description": "d",
        "tabs": [{"tab": "main", "top": {"doc": "top", "url": "https://a.example/", "iframes": iframes}}]})
    .to_string();
    // 33 navigables (and documents): the navigable bound is met first.
    refused_by(&text, Limit::Navigables);

    let tabs: Vec<Json> = (0..=limits::MAX_TABS)
        .map(|i| json!({"tab": format!("t{i}"), "top": {"doc": format!("d{i}"), "url": "https://a.example/"}}))
        .collect();
    let text = json!({"name": "x", "summary": "s", "description": "d", "tabs": tabs}).to_string();
    refused_by(&text, Limit::Tabs);
}

#[test]
fn navigation_targets_count_towards_the_document_bound() {
    let tabs: Vec<Json> = (0..20)
        .map(|i| json!({"tab": format!("t{i}"), "top": {"doc": format!("d{i}"), "url": "https://a.example/"}}))
        .collect();
    let navigations: Vec<Json> = (0..13)
        .map(|i| json!({"nav": format!("t{i}"), "doc": format!("n{i}"), "url": "https://b.example/"}))
        .collect();
    let text = json!({"name": "x", "summary": "s", "description": "d",
        "tabs": tabs, "navigations": navigations})
    .to_string();
    let e = refused_by(&text, Limit::Documents);
    assert!(e.to_string().contains("has 33 documents"), "{e}");
}

#[test]
fn more_awaits_of_toolchange_than_are_counted_are_refused() {
    // A document counts toolchange events up to limits::MAX_TOOLCHANGE_AWAITS; a fourth
    // awaitToolchange used to resume after the third event.
    let awaits = |n: usize| Json::Array(vec![json!({"awaitToolchange": true}); n]);
    let ok = scenario_text(
        json!({"top": awaits(limits::MAX_TOOLCHANGE_AWAITS)}),
        json!({}),
    );
    assert!(World::from_json(&ok).is_ok());
    refused_by(
        &scenario_text(
            json!({"top": awaits(limits::MAX_TOOLCHANGE_AWAITS + 1)}),
            json!({}),
        ),
        Limit::ToolchangeAwaits,
    );
}

#[test]
fn environment_counters_are_bounded() {
    let e = refused(&scenario_text(json!({}), json!({"observe": 300})));
    assert!(e.to_string().contains("limits::MAX_OBSERVE"), "{e}");
    assert!(e.to_string().starts_with("environment.observe: "), "{e}");
    let e = refused(&scenario_text(json!({}), json!({"maxInterventions": 1000})));
    assert!(e.to_string().contains("limits::MAX_INTERVENTIONS"), "{e}");
    // Within the bounds they are what the file says.
    let m = model(&scenario_text(
        json!({}),
        json!({"observe": limits::MAX_OBSERVE, "maxInterventions": limits::MAX_INTERVENTIONS}),
    ));
    assert_eq!(m.world.env.observe as usize, limits::MAX_OBSERVE);
    assert_eq!(
        m.world.env.max_interventions as usize,
        limits::MAX_INTERVENTIONS
    );
}

#[test]
fn origin_lists_are_bounded() {
    let list: Vec<String> = (0..=limits::MAX_ORIGIN_LIST)
        .map(|_| "https://b.example".to_string())
        .collect();
    refused_by(
        &scenario_text(
            json!({"top": [{"registerTool": {"name": "t", "description": "d"}, "exposedTo": list}]}),
            json!({}),
        ),
        Limit::OriginList,
    );
    refused_by(
        &scenario_text(
            json!({"top": [{"getTools": {"fromOrigins": list}}]}),
            json!({}),
        ),
        Limit::OriginList,
    );
}

// 3. Legacy profile: a caller's u8 program counter wrapped after 255 calls.

fn legacy_text(ops: Json) -> String {
    json!({"name": "hostile", "summary": "s", "description": "d",
        "page": {"app": ops}, "agent": [{"list": "l"}]})
    .to_string()
}

#[test]
fn a_legacy_tool_with_a_field_it_does_not_have_is_refused() {
    for tool in [
        json!({"name": "a", "readonlyhint": "yes please"}),
        json!({"name": "a", "readOnlyHint": true, "execute": "whatever"}),
    ] {
        for op in [
            json!({"registerTool": tool.clone()}),
            json!({"provideContext": [tool.clone()]}),
        ] {
            let e = LegacyWorld::from_json(&legacy_text(json!([op]))).unwrap_err();
            assert!(e.to_string().contains("a tool is its name"), "{op}: {e}");
        }
    }
    let ok = legacy_text(json!([{"registerTool": {"name": "a", "readOnlyHint": true}}]));
    assert!(LegacyWorld::from_json(&ok).is_ok());
}

#[test]
fn a_legacy_caller_longer_than_the_bound_is_refused() {
    let mut ops = vec![json!("clearContext"); 255];
    ops.push(json!({"provideContext": ["a"]}));
    let e = LegacyWorld::from_json(&legacy_text(Json::Array(ops))).unwrap_err();
    assert!(
        matches!(
            e.kind,
            ErrorKind::Limit {
                limit: Limit::LegacyCalls,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("limits::MAX_LEGACY_CALLS"), "{e}");
    assert!(e.to_string().contains("has 256 calls"), "{e}");
}

#[test]
fn a_legacy_caller_at_the_bound_runs_once() {
    let n = limits::MAX_LEGACY_CALLS;
    let mut ops = vec![json!("clearContext"); n - 1];
    ops.push(json!({"provideContext": ["a"]}));
    let w = LegacyWorld::from_json(&legacy_text(Json::Array(ops))).unwrap();
    let m = LegacyModel::new(w, LegacyVariant::CHOSEN);
    // Only the page's calls: the script runs each call once, then stops.
    let mut s = m.initial_state();
    let mut steps = 0;
    loop {
        let mut actions = Vec::new();
        m.enabled_actions(&s, &mut actions);
        let Some(a) = actions
            .into_iter()
            .find(|a| matches!(a, webmcp_model::legacy::LegacyAction::Page(_)))
        else {
            break;
        };
        s = m.apply(&s, a, &mut Vec::new());
        steps += 1;
        assert!(steps <= n, "the caller's script restarted");
    }
    assert_eq!(steps, n);
    assert_eq!(s.caller_pc[0] as usize, n);
    assert_eq!(s.tools.len(), 1, "the last call provided the tool");
}

#[test]
fn legacy_bounds_name_their_limits() {
    let body = vec![json!("requestUserInteraction"); limits::MAX_LEGACY_BODY_STEPS + 1];
    let text = json!({"name": "x", "summary": "s", "description": "d",
        "page": {"app": [{"registerTool": "t"}]}, "bodies": {"t": body}})
    .to_string();
    let e = LegacyWorld::from_json(&text).unwrap_err();
    assert!(
        e.to_string().contains("limits::MAX_LEGACY_BODY_STEPS"),
        "{e}"
    );
    let agent: Vec<Json> = (0..=limits::MAX_LEGACY_REQUESTS)
        .map(|i| json!({"list": format!("l{i}")}))
        .collect();
    let text = json!({"name": "x", "summary": "s", "description": "d",
        "page": {"app": ["clearContext"]}, "agent": agent})
    .to_string();
    let e = LegacyWorld::from_json(&text).unwrap_err();
    assert!(e.to_string().contains("limits::MAX_LEGACY_REQUESTS"), "{e}");
    let callers: serde_json::Map<String, Json> = (0..=limits::MAX_LEGACY_CALLERS)
        .map(|i| (format!("c{i}"), json!(["clearContext"])))
        .collect();
    let text =
        json!({"name": "x", "summary": "s", "description": "d", "page": callers}).to_string();
    let e = LegacyWorld::from_json(&text).unwrap_err();
    assert!(e.to_string().contains("limits::MAX_LEGACY_CALLERS"), "{e}");
}

// 4. Duplicates that would double-count.

#[test]
fn duplicate_list_entries_are_refused() {
    let base = json!({
        "top": [{"as": "r", "registerTool": {"name": "t", "description": "d"}, "signal": "c"}]
    });
    for (env, what) in [
        (
            json!({"toolOutcomes": ["fulfil", "fulfil"]}),
            "tool outcome",
        ),
        (json!({"abort": ["c", "c"]}), "AbortController name"),
        (
            json!({"removeIframe": ["frame", "frame"]}),
            "navigable name",
        ),
        (json!({"bfcache": ["main", "main"]}), "tab name"),
    ] {
        let e = refused(&scenario_text(base.clone(), env.clone()));
        assert!(
            matches!(&e.kind, ErrorKind::Duplicate { what: w, .. } if *w == what),
            "{env}: {e:?}"
        );
        assert!(e.to_string().contains("appears twice"), "{e}");
    }
    // Each once is fine, and counts once towards the default maxInterventions.
    let m = model(&scenario_text(
        base,
        json!({"abort": ["c"], "removeIframe": ["frame"], "bfcache": ["main"]}),
    ));
    assert_eq!(m.world.env.max_interventions, 4);
}

#[test]
fn a_key_given_twice_is_refused() {
    // serde's maps keep the last value silently: the first script would vanish.
    let text = r#"{"name": "x", "summary": "s", "description": "d",
        "tabs": [{"tab": "main", "top": {"doc": "top", "url": "https://a.example/"}}],
        "scripts": {"top": [{"getTools": {}}], "top": [{"abort": "c"}]}}"#;
    let e = refused(text);
    assert!(e.to_string().contains("\"top\" is given twice"), "{e}");
    assert!(matches!(e.at, Location::Text { line: 3, .. }), "{e:?}");
    let text = r#"{"name": "x", "summary": "s", "description": "d",
        "tabs": [{"tab": "main", "top": {"doc": "top", "url": "https://a.example/"}}],
        "expect": {"witness:x": "witnessed", "witness:x": "violated"}}"#;
    assert!(refused(text).to_string().contains("given twice"));
    let text = r#"{"name": "x", "summary": "s", "description": "d",
        "page": {"app": ["clearContext"], "app": [{"provideContext": ["a"]}]}}"#;
    let e = LegacyWorld::from_json(text).unwrap_err();
    assert!(e.to_string().contains("given twice"), "{e}");
}

#[test]
fn expected_verdicts_are_known_ones() {
    let text = json!({"name": "x", "summary": "s", "description": "d",
        "tabs": [{"tab": "main", "top": {"doc": "top", "url": "https://a.example/"}}],
        "expect": {"witness:x": "violate"}})
    .to_string();
    let e = refused(&text);
    assert!(e.to_string().contains("\"violate\" is not one of"), "{e}");
}

// 5. A misspelt `$js` tag used to become a plain object and change verdicts.

#[test]
fn unknown_dollar_tags_are_refused() {
    for (input, says, lists_allowed) in [
        (json!({"$jss": "undefined"}), "unknown tag \"$jss\"", true),
        (
            json!({"$js": "undefned"}),
            "unknown special value \"undefned\"",
            true,
        ),
        (
            json!({"$js": "circular", "extra": 1}),
            "no other members",
            false,
        ),
        (
            json!({"q": {"$js": "circular"}}),
            "whole inputSchema or input",
            false,
        ),
    ] {
        let text = scenario_text(
            json!({"top": [{"as": "r", "registerTool": {"name": "t", "description": "d"}},
                           {"as": "l", "getTools": {}}, {"await": "l"},
                           {"executeTool": {"from": "l", "name": "t"}, "input": input}]}),
            json!({}),
        );
        let e = refused(&text);
        assert!(matches!(e.kind, ErrorKind::Syntax(_)), "{e:?}");
        assert!(matches!(e.at, Location::Text { .. }), "{e:?}");
        let shown = e.to_string();
        assert!(shown.contains(says), "{input}: {shown}");
        assert!(
            !lists_allowed || shown.contains("\"$js\"") && shown.contains("\"to-json-primitive\""),
            "names the allowed ones: {shown}"
        );
    }
    // JSON Schema's $ keywords are plain members of an inputSchema.
    let text = scenario_text(
        json!({"top": [{"registerTool": {"name": "t", "description": "d",
            "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}}}]}),
        json!({}),
    );
    assert!(World::from_json(&text).is_ok());
}

// 6. Messages that said nothing useful.

#[test]
fn a_byte_order_mark_is_ignored() {
    let text = format!("\u{feff}{}", scenario_text(json!({}), json!({})));
    assert!(World::from_json(&text).is_ok());
    let legacy = format!("\u{feff}{}", legacy_text(json!(["clearContext"])));
    assert!(LegacyWorld::from_json(&legacy).is_ok());
}

#[test]
fn a_file_that_is_not_an_object_says_so() {
    for text in ["[]", " [1, 2]", "\"scenario\"", "42"] {
        let e = refused(text);
        assert!(
            e.to_string()
                .contains("a scenario file must be a JSON object"),
            "{text}: {e}"
        );
    }
    assert!(refused("").to_string().contains("empty"));
    let e = LegacyWorld::from_json("[]").unwrap_err();
    assert!(e.to_string().contains("must be a JSON object"), "{e}");
    // A member given as an array: no Rust type names.
    let text = r#"{"name": "x", "summary": "s", "description": "d", "tabs": [[]]}"#;
    let e = refused(text);
    assert!(e.to_string().contains("a tab (a JSON object)"), "{e}");
    assert!(!e.to_string().contains("TabSpec"), "{e}");
}

#[test]
fn deep_and_huge_files_are_refused_before_parsing() {
    let deep = format!(
        "{{\"name\": \"x\", \"expect\": {}{}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    refused_by(&deep, Limit::JsonDepth);
    let huge = format!(
        "{{\"name\": \"x\", \"summary\": \"{}\"}}",
        "x".repeat(limits::MAX_SCENARIO_BYTES)
    );
    refused_by(&huge, Limit::ScenarioBytes);
    // Reading a file stops after the bound: /dev/zero is an error at once.
    let zero = std::path::Path::new("/dev/zero");
    if zero.exists() {
        let e = webmcp_model::scenario::read_file(zero).unwrap_err();
        assert!(
            matches!(
                e.kind,
                ErrorKind::Limit {
                    limit: Limit::ScenarioBytes,
                    ..
                }
            ),
            "{e:?}"
        );
    }
}

// 7. Names: the scenario's name becomes file names and output; other names are bounded.

#[test]
fn unsafe_scenario_names_are_refused() {
    for name in [
        "../../x",
        "a/b",
        "x\n::error::injected",
        "nul\u{0}",
        "Upper",
        "",
        &"a".repeat(65),
    ] {
        let mut v: Json = serde_json::from_str(&scenario_text(json!({}), json!({}))).unwrap();
        v["name"] = json!(name);
        let e = refused(&v.to_string());
        assert_eq!(e.at, Location::Member("name".into()), "{name:?}");
        assert!(
            matches!(e.kind, ErrorKind::BadName { .. }),
            "{name:?}: {e:?}"
        );
    }
    let legacy = json!({"name": "../x", "summary": "s", "description": "d",
        "page": {"app": ["clearContext"]}})
    .to_string();
    assert!(matches!(
        LegacyWorld::from_json(&legacy).unwrap_err().kind,
        ErrorKind::BadName { .. }
    ));
}

#[test]
fn identifiers_refuse_control_characters_and_length() {
    let with_doc = |doc: &str| {
        json!({"name": "x", "summary": "s", "description": "d",
            "tabs": [{"tab": "main", "top": {"doc": doc, "url": "https://a.example/"}}]})
        .to_string()
    };
    let e = refused(&with_doc("top\nx"));
    assert!(e.to_string().contains(r#""top\nx""#), "escaped: {e}");
    assert!(refused(&with_doc("a\u{0}"))
        .to_string()
        .contains("control character"));
    refused_by(
        &with_doc(&"d".repeat(limits::MAX_NAME_LEN + 1)),
        Limit::NameLen,
    );
    assert!(World::from_json(&with_doc(&"d".repeat(limits::MAX_NAME_LEN))).is_ok());
    assert!(
        World::from_json(&with_doc("документ 1")).is_ok(),
        "Unicode is fine"
    );
    // Labels and controllers too.
    let e = refused(&scenario_text(
        json!({"top": [{"as": "a\tb", "getTools": {}}]}),
        json!({}),
    ));
    assert!(e.to_string().starts_with("scripts.top[0].as: "), "{e}");
    let e = refused(&scenario_text(
        json!({"top": [{"abort": "c\r"}]}),
        json!({}),
    ));
    assert!(e.to_string().contains("AbortController name"), "{e}");
    // And those of a tool's body, which every report shows as it shows a script's.
    let body = |statement: Json| {
        scenario_text(
            json!({"top": [{"registerTool": {"name": "t", "description": "d",
                "body": [statement, {"return": "r"}]}}]}),
            json!({}),
        )
    };
    let call = |extra: Json| {
        let mut st =
            json!({"executeTool": {"name": "t", "origin": "https://a.example", "window": "top"}});
        st.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        body(st)
    };
    let e = refused(&call(json!({"as": "\u{1b}[2Jx\u{202e}"})));
    assert!(
        e.to_string().starts_with(
            "scripts.top[0].registerTool.body[0].as: the call label \"\\u{1b}[2Jx\\u{202e}\""
        ),
        "{e}"
    );
    refused_by(
        &call(json!({"as": "l".repeat(limits::MAX_NAME_LEN + 1)})),
        Limit::NameLen,
    );
    let e = refused(&call(json!({"signal": "c\u{7}"})));
    assert!(
        e.to_string()
            .contains("body[0].signal: the AbortController name"),
        "{e}"
    );
    let e = refused(&body(json!({"abort": "c\n"})));
    assert!(
        e.to_string()
            .contains("body[0].abort: the AbortController name"),
        "{e}"
    );
    let long = "a".repeat(limits::MAX_STRING_LEN + 1);
    for field in ["name", "origin"] {
        let mut st =
            json!({"executeTool": {"name": "t", "origin": "https://a.example", "window": "top"}});
        st["executeTool"][field] = json!(long);
        let e = refused_by(&body(st), Limit::StringLen);
        assert!(
            e.to_string()
                .contains(&format!("body[0].executeTool.{field}")),
            "{e}"
        );
    }
    let e = refused(&call(json!({})).replace(r#""window":"top""#, r#""window":"to\u0000p""#));
    assert!(e.to_string().contains("body[0].executeTool.window"), "{e}");
    assert!(World::from_json(&call(json!({"as": "inner", "signal": "ic"}))).is_ok());
}

#[test]
fn page_strings_are_any_text_but_bounded() {
    let tool = |name: &str| {
        scenario_text(
            json!({"top": [{"registerTool": {"name": name, "description": "d"}}]}),
            json!({}),
        )
    };
    // Any text, control characters included: a page can pass any string, and the draft's
    // own grammar (register-tool#9) judges it. Only the length is bounded.
    assert!(World::from_json(&tool("bad name! 工具")).is_ok());
    assert!(World::from_json(&tool("nul\u{0} and\nnewline")).is_ok());
    assert!(World::from_json(&tool(&"a".repeat(limits::MAX_STRING_LEN))).is_ok());
    let e = refused_by(
        &tool(&"a".repeat(limits::MAX_STRING_LEN + 1)),
        Limit::StringLen,
    );
    assert!(e.to_string().contains("the tool name \"aaa"), "{e}");
    // The file's own description of itself is printable.
    let mut v: Json = serde_json::from_str(&tool("t")).unwrap();
    v["summary"] = json!("one\nline");
    assert!(refused(&v.to_string()).to_string().contains("summary"));
}

// 9. Errors are typed: a kind and a location, displayed as one sentence.

#[test]
fn errors_carry_kind_and_location() {
    let e = refused(&scenario_text(json!({"nobody": []}), json!({})));
    assert_eq!(e.at, Location::Member("scripts".into()));
    assert_eq!(
        e.kind,
        ErrorKind::Unknown {
            what: "document",
            name: "nobody".into()
        }
    );
    assert_eq!(e.to_string(), "scripts: no document named \"nobody\"");
    let e = refused(
        r#"{"name": "x",
        "summary": 3}"#,
    );
    assert_eq!(
        e.at,
        Location::Text {
            line: 2,
            column: 20
        }
    );
    assert!(
        e.to_string().starts_with("line 2, column 20: invalid type"),
        "{e}"
    );
}

#[test]
fn the_documentation_lists_every_limit() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/scenarios.md"))
        .unwrap();
    for l in Limit::ALL {
        let row = format!("| `{}` | {} |", l.constant(), l.value());
        assert!(doc.contains(&row), "docs/scenarios.md lacks the row {row}");
    }
}

#[test]
fn the_model_still_runs_a_scenario_with_the_two_options() {
    // A sanity check of the helpers: a plain scenario compiles and explores.
    let m = WebMcpModel::new(
        World::from_json(&scenario_text(
            json!({"top": [{"as": "r", "registerTool": {"name": "t", "description": "d"}}]}),
            json!({}),
        ))
        .unwrap(),
        Variant::SEED,
    );
    assert!(explore(&m).len() > 1);
}

// `environment.maxInterventions` counts exactly the actions `Action::is_intervention` names.

#[test]
fn the_intervention_budget_counts_exactly_the_interventions() {
    use webmcp_model::machine::Action;
    let text = json!({
        "name": "every-intervention",
        "summary": "s",
        "description": "d",
        "tabs": [{"tab": "main", "top": {"doc": "top", "url": "https://a.example/",
            "iframes": [
                {"nav": "frame", "doc": "child", "url": "https://a.example/c"},
                {"nav": "other", "doc": "second", "url": "https://a.example/d"}
            ]}}],
        "navigations": [{"nav": "other", "doc": "next", "url": "https://a.example/e"}],
        "scripts": {"top": [
            {"registerTool": {"name": "t", "description": "d"}, "signal": "c"}
        ]},
        "environment": {"abort": ["c"], "removeIframe": ["frame"], "navigate": ["other"],
            "bfcache": ["main"], "maxInterventions": 2}
    })
    .to_string();
    let m = WebMcpModel::new(World::from_json(&text).unwrap(), Variant::SEED);
    let mut kinds = HashSet::new();
    for s in explore(&m) {
        let left = s.env.interventions_left;
        for a in enabled(&m, &s) {
            let next = m.apply(&s, a, &mut ());
            if a.is_intervention() {
                assert!(left > 0, "{a:?} enabled with no intervention left");
                assert_eq!(next.env.interventions_left, left - 1, "{a:?}");
                kinds.insert(std::mem::discriminant(&a));
            } else {
                assert_eq!(next.env.interventions_left, left, "{a:?}");
            }
        }
    }
    // Each of the six kinds of intervention was taken somewhere.
    let all = [
        Action::Abort(CtrlId::nth(0)),
        Action::RemoveIframe(NavId::nth(0)),
        Action::Navigate(NavId::nth(0)),
        Action::EnterBfcache(TabId::nth(0)),
        Action::RestoreFromBfcache(TabId::nth(0)),
        Action::EvictFromBfcache(TabId::nth(0)),
    ];
    for a in all {
        assert!(
            kinds.contains(&std::mem::discriminant(&a)),
            "{a:?} never taken"
        );
    }
}
