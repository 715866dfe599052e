//! End-to-end tests of `--profile legacy`: the verdicts every legacy scenario expects, the
//! alternatives each property rules out, and one-line errors for bad input.

mod common;

use std::collections::BTreeMap;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
}

fn expectations() -> BTreeMap<String, BTreeMap<String, String>> {
    common::expectations_in(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/legacy"))
}

fn check_json(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out = bin()
        .args([
            "check",
            "--profile",
            "legacy",
            "--format",
            "json",
            "--no-timings",
        ])
        .args(args)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("JSON: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), v)
}

#[test]
fn every_legacy_scenario_gives_its_expected_verdicts_and_every_witness_is_reached() {
    let (code, report) = check_json(&["--all"]);
    assert_eq!(code, Some(0), "the chosen semantics keeps every property");
    let expectations = expectations();
    let scenarios = report["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), expectations.len());
    assert!(scenarios.len() >= 8);
    let mut witnessed = BTreeMap::<String, usize>::new();
    let mut names = Vec::new();
    for s in scenarios {
        let name = s["scenario"].as_str().unwrap();
        assert_eq!(s["exhaustive"], true, "{name}");
        assert_eq!(s["profile"], "legacy");
        let expect = &expectations[name];
        for p in s["properties"].as_array().unwrap() {
            let prop = p["name"].as_str().unwrap().to_string();
            names.push(prop.clone());
            let verdict = p["verdict"].as_str().unwrap();
            match expect.get(&prop) {
                Some(want) => assert_eq!(verdict, want, "{name}: {prop}"),
                None => assert!(
                    matches!(verdict, "hold" | "not witnessed"),
                    "{name}: {prop} is {verdict} but the scenario does not expect it"
                ),
            }
            if verdict == "witnessed" {
                *witnessed.entry(prop).or_default() += 1;
            }
        }
        for prop in expect.keys() {
            assert!(
                s["properties"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|p| p["name"] == prop.as_str()),
                "{name} expects unknown property {prop}"
            );
        }
    }
    for n in names.iter().filter(|n| n.starts_with("witness:")) {
        assert!(
            witnessed.contains_key(n),
            "{n} is reached by no legacy scenario"
        );
    }
}

/// Each alternative reading breaks the property that names the chosen reading's guarantee.
#[test]
fn each_alternative_breaks_the_property_the_choice_buys() {
    for (alt, scenario, property) in [
        (
            "lookup-at-request",
            "clear-between-request-and-start",
            "clear-means-gone",
        ),
        (
            "lookup-at-request",
            "provide-replaces",
            "starts-only-current",
        ),
        ("piecewise-provide", "provide-replaces", "provide-atomic"),
        (
            "clear-keeps-registered",
            "register-then-provide",
            "clear-means-gone",
        ),
        (
            "unbound-client",
            "interaction-same-task-as-settle",
            "callback-only-while-live",
        ),
        (
            "provide-keeps-duplicates",
            "provide-duplicate-names",
            "names-unique",
        ),
        (
            "live-until-reply",
            "interaction-same-task-as-settle",
            "callback-only-while-live",
        ),
    ] {
        let variant = format!("chosen+{alt}");
        let (code, report) = check_json(&["--scenario", scenario, "--variant", &variant]);
        assert_eq!(code, Some(1), "{variant} on {scenario}");
        let s = &report["scenarios"][0];
        assert_eq!(s["variant"], variant.as_str());
        let p = s["properties"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == property)
            .unwrap();
        assert_eq!(p["verdict"], "violated", "{variant}: {property}");
        assert!(!p["counterexample"].as_array().unwrap().is_empty());
    }
}

#[test]
fn list_shows_every_legacy_scenario_and_the_draft_stays_the_default() {
    let out = bin()
        .args(["list", "--profile", "legacy"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let listed: Vec<&str> = text
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    let expected: Vec<String> = expectations().into_keys().collect();
    assert_eq!(listed, expected);
    let draft = bin().arg("list").output().unwrap();
    let draft = String::from_utf8(draft.stdout).unwrap();
    assert!(!draft.contains("provide-replaces"));
    assert!(draft.contains("register-and-discover"));
}

/// `check --profile legacy --scenario NAME`, in human form, with `extra` after it.
fn check_legacy_scenario(name: &str, extra: &[&str]) -> std::process::Output {
    bin()
        .args(["check", "--profile", "legacy", "--scenario", name])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn human_output_has_the_draft_look() {
    let out = check_legacy_scenario("provide-replaces", &["--no-timings"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("provide-replaces [legacy chosen]: "),
        "{text}"
    );
    assert!(text.contains("  witnessed     witness:provide-replaced-set\n"));
    assert!(text.contains("properties hold;"));
}

/// Each reduction gives every legacy scenario its expected verdicts and says which it applied;
/// `por` stores fewer states (and calls no counterexample shortest), `sleep` stores every
/// state and builds fewer successors.
#[test]
fn each_reduction_keeps_the_expected_verdicts_and_is_reported() {
    let (_, none) = check_json(&["--all"]);
    let verdicts = |r: &serde_json::Value| -> Vec<(String, String)> {
        r["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| {
                s["properties"].as_array().unwrap().iter().map(move |p| {
                    (
                        format!("{} {}", s["scenario"], p["name"]),
                        p["verdict"].as_str().unwrap().to_string(),
                    )
                })
            })
            .collect()
    };
    let sum = |r: &serde_json::Value, key: &str| -> u64 {
        r["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s[key].as_u64().unwrap())
            .sum()
    };
    for reduction in ["none", "por", "sleep"] {
        let (code, r) = check_json(&["--all", "--reduction", reduction]);
        assert_eq!(code, Some(0), "{reduction}");
        assert_eq!(verdicts(&r), verdicts(&none), "{reduction}");
        let scenarios = r["scenarios"].as_array().unwrap();
        for (s, n) in scenarios.iter().zip(none["scenarios"].as_array().unwrap()) {
            assert_eq!(s["reduction"], reduction);
            assert_eq!(
                s["observations"], n["observations"],
                "{reduction}: {}",
                s["scenario"]
            );
        }
        let (unique, total) = (sum(&r, "unique_states"), sum(&r, "total_states"));
        match reduction {
            "por" => assert!(unique < sum(&none, "unique_states"), "{unique}"),
            "sleep" => {
                assert_eq!(unique, sum(&none, "unique_states"));
                assert!(total < sum(&none, "total_states"), "{total}");
            }
            _ => {}
        }
    }
    let out = bin()
        .args([
            "check",
            "--profile",
            "legacy",
            "--scenario",
            "interaction-during-and-after",
            "--variant",
            "chosen+live-until-reply",
            "--reduction",
            "por",
            "--no-timings",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(
            "interaction-during-and-after [legacy chosen+live-until-reply, reduction por]: "
        ),
        "{text}"
    );
    assert!(text.contains(" (counterexample: "), "{text}");
    assert!(!text.contains("shortest"), "{text}");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    for args in [
        vec!["check", "--profile", "legacy", "--scenario", "no-such"],
        vec!["check", "--profile", "legacy", "--all", "--variant", "seed"],
        vec![
            "check",
            "--profile",
            "legacy",
            "--all",
            "--variant",
            "chosen+nope",
        ],
        vec!["check", "--profile", "legacy", "--all", "--format", "junit"],
        // Options the legacy search does not take were ignored (no trace was written).
        vec!["check", "--profile", "legacy", "--all", "--trace-dir", "t"],
        vec!["check", "--profile", "legacy", "--all", "--seed", "3"],
        vec!["check", "--profile", "legacy", "--all", "--runs", "3"],
        vec!["check", "--profile", "legacy", "--all", "--workers", "2"],
        vec!["check", "--profile", "legacy"],
        vec!["check", "--profile", "nope", "--all"],
        vec![
            "check",
            "--profile",
            "legacy",
            "--scenario-file",
            "/nonexistent.json",
        ],
    ] {
        let out = bin().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("webmcp-check: "), "{err}");
    }
}

#[test]
fn a_bound_makes_the_verdict_incomplete_exit_3() {
    let (code, report) = check_json(&["--scenario", "concurrent-executions", "--max-states", "5"]);
    assert_eq!(code, Some(3));
    assert_eq!(report["scenarios"][0]["exhaustive"], false);
}

/// `check --profile legacy` of a scenario file of `text`, written under `name`.
fn check_legacy_file(name: &str, text: &str) -> std::process::Output {
    let dir = std::env::temp_dir().join(format!("legacy-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    bin()
        .args(["check", "--profile", "legacy", "--scenario-file"])
        .arg(&path)
        .output()
        .unwrap()
}

#[test]
fn a_malformed_scenario_file_is_rejected() {
    let out = check_legacy_file(
        "bad.json",
        r#"{"name":"x","summary":"s","description":"d","page":{"app":[{"provideContext":["a"]}]},"bodies":{"zz":["fulfil"]}}"#,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("body for \"zz\""));
}

/// A scenario file in which nothing happens holds every property: the output says that a
/// hold may be vacuous, and that the witnesses not reachable show what never happened.
#[test]
fn a_scenario_file_in_which_nothing_happens_is_not_a_silent_pass() {
    let out = check_legacy_file(
        "empty.json",
        r#"{"name":"y","summary":"s","description":"d","page":{"app":[]}}"#,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("witnesses not reachable in this scenario"),
        "{text}"
    );
    assert!(text.contains("note: a property holds vacuously"), "{text}");
    // The embedded scenarios, each of which reaches witnesses of its own: no note.
    let out = check_legacy_scenario("concurrent-executions", &[]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("note:"));
}
