//! What `check` says of a scenario of one's own: with `--vacuity`, the properties that hold
//! because what they judge never happens (so that a scenario in which nothing happens is not
//! read as a pass of anything); and that it may not pass as an embedded scenario by name.

mod common;
use common::{run_with_trace_dir, text};

/// One page that does nothing: every property holds, and none judges anything.
const NOTHING: &str = r#"{"name": "nothing", "summary": "s", "description": "d",
    "tabs": [{"tab": "main", "top": {"doc": "top", "url": "https://a.example/"}}],
    "scripts": {}}"#;

fn scenario_file(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!("webmcp-vacuity-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// The properties a scenario's JSON report says hold, in its order.
fn holding(scenario: &serde_json::Value) -> Vec<&str> {
    let properties = scenario["properties"].as_array().unwrap();
    properties
        .iter()
        .filter(|p| p["verdict"] == "hold")
        .map(|p| p["name"].as_str().unwrap())
        .collect()
}

/// The properties a scenario's JSON report names as holding vacuously (`--vacuity`).
fn vacuous(scenario: &serde_json::Value) -> Vec<&str> {
    let names = scenario["vacuous"].as_array().unwrap();
    names.iter().map(|n| n.as_str().unwrap()).collect()
}

#[test]
fn a_scenario_where_nothing_happens_holds_everything_vacuously() {
    let file = scenario_file("nothing.json", NOTHING);
    // Without --vacuity: the verdicts, and a note that a hold may be vacuous.
    let o = run_with_trace_dir("vacuity-plain", &["check", "--scenario-file", &file, "-q"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("`--vacuity` names them"), "{out}");
    // With it: every property that holds is named, and the exit code is the same.
    let o = run_with_trace_dir(
        "vacuity-human",
        &["check", "--scenario-file", &file, "-q", "--vacuity"],
    );
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    let held: usize = out
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_suffix(" witnesses not reachable in this scenario")
        })
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the count of properties that hold");
    assert!(held > 40, "{out}");
    assert!(
        out.contains(&format!("  vacuous: {held} of the properties that hold")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "vacuity: {held} of the verdicts that held did so vacuously"
        )),
        "{out}"
    );
    assert!(!out.contains("`--vacuity` names them"), "{out}");
    // JSON: the names, per scenario.
    let o = run_with_trace_dir(
        "vacuity-json",
        &[
            "check",
            "--scenario-file",
            &file,
            "-q",
            "--vacuity",
            "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let scenario = &v["scenarios"][0];
    assert_eq!(vacuous(scenario), holding(scenario));
    let _ = std::fs::remove_file(&file);
}

#[test]
fn a_scenario_that_runs_its_tool_engages_what_it_is_about() {
    // Under the proposed fixes every property holds here; the ones about a tool that runs
    // and an abort that reaches it are engaged, the ones about unloading are not.
    let o = run_with_trace_dir(
        "vacuity-engaged",
        &[
            "check",
            "--scenario",
            "tool-waits-for-abort",
            "--variant",
            "proposed",
            "--vacuity",
            "--format",
            "json",
            "-q",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let scenario = &v["scenarios"][0];
    let vacuous = vacuous(scenario);
    assert!(
        vacuous.contains(&"unload-cleans-pending-executions"),
        "{vacuous:?}"
    );
    let holding = holding(scenario).len();
    assert!(
        !vacuous.is_empty() && vacuous.len() < holding,
        "{} of {holding}: {vacuous:?}",
        vacuous.len()
    );
    // Without --vacuity the report has no such field.
    let o = run_with_trace_dir(
        "vacuity-absent",
        &[
            "check",
            "--scenario",
            "tool-waits-for-abort",
            "--variant",
            "proposed",
            "--format",
            "json",
            "-q",
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["scenarios"][0].get("vacuous").is_none());
}

#[test]
fn vacuity_after_a_stopped_search_is_undecided_and_other_uses_are_refused() {
    let o = run_with_trace_dir(
        "vacuity-stopped",
        &[
            "check",
            "--scenario",
            "tool-waits-for-abort",
            "--max-states",
            "5",
            "--vacuity",
            "-q",
        ],
    );
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(3), "{out}");
    assert!(out.contains("vacuity undecided"), "{out}");
    for extra in [
        &["--format", "junit"][..],
        &["--all", "--shard", "1/2"][..],
        &["--profile", "legacy", "--all"][..],
    ] {
        let mut args = vec!["check", "--vacuity"];
        if !extra.contains(&"--all") {
            args.extend(["--scenario", "tool-waits-for-abort"]);
        }
        args.extend(extra);
        let o = run_with_trace_dir("vacuity-refused", &args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}

/// A scenario file that takes an embedded scenario's name must be that scenario: a baseline
/// excuses findings by name, so another scenario under the name would pass as it.
#[test]
fn a_scenario_file_under_an_embedded_name_must_be_that_scenario() {
    let embedded = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/tool-waits-for-abort.json"
    ))
    .unwrap();
    let copy = scenario_file("copy.json", &embedded);
    let o = run_with_trace_dir("same-name-copy", &["check", "--scenario-file", &copy, "-q"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let mut other: serde_json::Value = serde_json::from_str(&embedded).unwrap();
    other["summary"] = "another scenario under its name".into();
    let other = scenario_file("other.json", &other.to_string());
    let o = run_with_trace_dir(
        "same-name-other",
        &["check", "--scenario-file", &other, "-q"],
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("the name of an embedded scenario whose content differs"),
        "{err}"
    );
}
