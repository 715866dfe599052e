//! Every scenario in `scenarios/` compiles, and is stored under its own name.

use std::path::PathBuf;

fn scenario_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_scenario_compiles_under_its_own_name() {
    let files = scenario_files();
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("a readable scenario file");
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a UTF-8 file name");
        match webmcp_model::World::from_json(&text) {
            Ok(world) => {
                if world.name != stem {
                    failures.push(format!(
                        "{}: the scenario is named \"{}\"",
                        path.display(),
                        world.name
                    ));
                }
                if world.summary.trim().is_empty() || world.description.trim().is_empty() {
                    failures.push(format!("{}: empty summary or description", path.display()));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "scenarios that do not compile:\n{}",
        failures.join("\n")
    );
}

#[test]
fn there_are_at_least_twenty_scenarios() {
    let n = scenario_files().len();
    assert!(n >= 20, "only {n} scenario files in scenarios/");
}

#[test]
fn too_many_origins_is_an_error_not_a_panic() {
    // Each list stays within limits::MAX_ORIGIN_LIST; together they need 70 opaque origins.
    let exposed = |from: usize| -> Vec<String> {
        (from..from + 35)
            .map(|i| format!("data:text/plain,{i}"))
            .collect()
    };
    let text = serde_json::json!({
        "name": "many", "summary": "s", "description": "d",
        "tabs": [{"tab": "main", "top": {"doc": "top", "url": "https://a.example/"}}],
        "scripts": {"top": [
            {"registerTool": {"name": "t", "description": "d"}, "exposedTo": exposed(0)},
            {"registerTool": {"name": "u", "description": "d"}, "exposedTo": exposed(35)}
        ]}
    })
    .to_string();
    let err = webmcp_model::World::from_json(&text).unwrap_err();
    assert!(
        err.to_string().contains("more than 64 distinct origins"),
        "{err}"
    );
    assert!(
        matches!(
            err.kind,
            webmcp_model::world::ErrorKind::Limit {
                limit: webmcp_model::limits::Limit::Origins,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn an_option_on_a_statement_it_does_not_belong_to_is_an_error() {
    let base = |statement: &str| {
        format!(
            r#"{{"name": "s", "summary": "s", "description": "s",
                "tabs": [{{"tab": "main", "top": {{"doc": "top", "url": "https://a.example/"}}}}],
                "scripts": {{"top": [{{"as": "r", "registerTool": {{"name": "t", "description": "d"}}}}, {statement}]}}}}"#
        )
    };
    let cases = [
        (r#"{"getTools": {}, "input": {"q": 1}}"#, "\"input\""),
        (r#"{"getTools": {}, "signal": "ac"}"#, "\"signal\""),
        (
            r#"{"executeTool": {"from": "r", "name": "t"}, "exposedTo": ["https://b.example"]}"#,
            "\"exposedTo\"",
        ),
        (r#"{"as": "w", "await": "r"}"#, "\"as\""),
    ];
    for (statement, field) in cases {
        let e = webmcp_model::World::from_json(&base(statement))
            .err()
            .unwrap_or_else(|| panic!("{statement} compiled"));
        assert!(e.to_string().contains(field), "{statement}: {e}");
        assert!(
            e.to_string().contains("not of this statement"),
            "{statement}: {e}"
        );
    }
    // The same options where they belong compile.
    let fine = base(
        r#"{"as": "l", "getTools": {}}, {"await": "l"}, {"as": "x", "executeTool": {"from": "l", "name": "t"}, "input": {"q": 1}}"#,
    );
    assert!(
        webmcp_model::World::from_json(&fine).is_ok(),
        "{:?}",
        webmcp_model::World::from_json(&fine).err()
    );
}

/// serde would read an object given as a JSON array, its members by position; the format
/// has objects only, so each such array is refused at its member (and the same scenario
/// written with objects compiles).
#[test]
fn an_object_given_as_an_array_is_refused_at_its_member() {
    let path = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scenarios/two-concurrent-executions.json"
    ));
    let text = std::fs::read_to_string(path).unwrap();
    let original: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(webmcp_model::World::from_json(&text).is_ok());
    type Edit = fn(&mut serde_json::Value);
    let cases: [(&str, Edit); 3] = [
        ("tabs[0]", |s| {
            s["tabs"] = serde_json::json!([["main", ["top", "https://a.example/"]]])
        }),
        ("tabs[0].top", |s| {
            s["tabs"][0]["top"] = serde_json::json!(["top", "https://a.example/"])
        }),
        ("scripts.top[0].registerTool", |s| {
            s["scripts"]["top"][0]["registerTool"] = serde_json::json!(["t1", null, "a test tool"])
        }),
    ];
    for (member, edit) in cases {
        let mut s = original.clone();
        edit(&mut s);
        let e = webmcp_model::World::from_json(&s.to_string())
            .map(|_| ())
            .expect_err(member)
            .to_string();
        assert!(
            e.starts_with(&format!("{member}: ")) && e.contains("invalid type: sequence"),
            "{member}: {e}"
        );
    }
}

/// serde_json keeps the last of two equal keys. The format's structs and maps already refuse
/// a key twice; a JSON value the scenario passes to a tool (an `input`) did not, and the tool
/// saw only the last. It is refused at the second key.
#[test]
fn a_key_given_twice_is_refused_at_its_line_and_column() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios/");
    let text = std::fs::read_to_string(format!("{dir}abort-before-dispatch.json")).unwrap();
    assert!(webmcp_model::World::from_json(&text).is_ok());
    let value_member = text.replacen(
        "\"input\": {\n          \"$js\": \"reaches-body\"\n        }",
        "\"input\": {\"a\": 1, \"a\": {\"x\": 2}}",
        1,
    );
    assert_ne!(value_member, text);
    let e = webmcp_model::World::from_json(&value_member)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "line 30, column 29: the key \"a\" is given twice in one object"
    );
}
