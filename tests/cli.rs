//! End-to-end tests of the `webmcp-check` binary: verdicts of the standard scenarios, exit
//! codes, and one-line errors for bad input.

mod common;

use std::collections::BTreeMap;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
}

fn scenario_expectations() -> BTreeMap<String, BTreeMap<String, String>> {
    common::expectations_in(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios"))
}

#[test]
fn check_all_gives_every_expected_verdict() {
    let out = bin()
        .args(["check", "--all", "--format", "json", "--no-timings"])
        .output()
        .unwrap();
    // The draft as written violates properties: exit code 1.
    assert_eq!(
        out.status.code(),
        Some(1),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let expectations = scenario_expectations();
    let scenarios = report["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), expectations.len());
    let mut witnessed = BTreeMap::new();
    for s in scenarios {
        let name = s["scenario"].as_str().unwrap();
        assert_eq!(
            s["exhaustive"], true,
            "{name} must be explored exhaustively"
        );
        let unique = s["unique_states"].as_u64().unwrap();
        assert!(unique > 0);
        // What the pass rests on: the chance two of its states shared a fingerprint.
        let chance = s["fingerprint_collision_chance"].as_f64().unwrap();
        let n = unique as f64;
        assert!(
            (chance - n * (n - 1.0) / 2.0 / 2f64.powi(64)).abs() <= chance * 1e-9,
            "{name}: {chance}"
        );
        let expect = &expectations[name];
        for p in s["properties"].as_array().unwrap() {
            let prop = p["name"].as_str().unwrap();
            let verdict = p["verdict"].as_str().unwrap();
            if verdict == "witnessed" {
                *witnessed.entry(prop.to_string()).or_insert(0) += 1;
            }
            let wanted = expect.get(prop).map(String::as_str);
            match wanted {
                Some(w) => assert_eq!(verdict, w, "{name}: {prop}"),
                None => assert!(
                    verdict == "hold" || verdict == "not witnessed",
                    "{name}: {prop} is {verdict} but the scenario does not expect it"
                ),
            }
            if verdict == "violated" {
                let steps = p["counterexample"]
                    .as_array()
                    .expect("a violation carries its counterexample");
                assert!(!steps.is_empty());
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
    // Non-vacuity: every witness is reached by some standard scenario; a witness of what a
    // proposed fix does (witness:own-execution-rejected-on-unload) under `--variant proposed`.
    let proposed = bin()
        .args([
            "check",
            "--all",
            "--variant",
            "proposed",
            "--format",
            "json",
        ])
        .args(["--no-timings", "--quiet"])
        .output()
        .unwrap();
    let proposed: serde_json::Value = serde_json::from_slice(&proposed.stdout).unwrap();
    for s in proposed["scenarios"].as_array().unwrap() {
        for p in s["properties"].as_array().unwrap() {
            if p["verdict"] == "witnessed" {
                witnessed
                    .entry(p["name"].as_str().unwrap().to_string())
                    .or_insert(0);
            }
        }
    }
    for p in report["scenarios"][0]["properties"].as_array().unwrap() {
        if p["kind"] == "sometimes" {
            let name = p["name"].as_str().unwrap();
            assert!(
                witnessed.contains_key(name),
                "no standard scenario witnesses {name}, as written or under proposed"
            );
        }
    }
}

#[test]
fn a_scenario_without_violations_exits_zero() {
    let out = bin()
        .args(["check", "--scenario", "register-and-discover"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("register-and-discover [seed]: "), "{text}");
    assert!(text.contains("unique"));
}

#[test]
fn a_bound_that_stops_exploration_is_incomplete_not_a_pass() {
    let out = bin()
        .args([
            "check",
            "--scenario",
            "register-and-discover",
            "--max-depth",
            "3",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("INCOMPLETE"));
}

#[test]
fn list_names_every_scenario_first_on_its_line() {
    let out = bin().arg("list").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let names: Vec<&str> = text
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    let expected: Vec<String> = scenario_expectations().into_keys().collect();
    assert_eq!(names, expected);
    assert!(names.len() >= 18);
    // Every summary starts in one column, after at least two spaces, however long the name.
    let columns: std::collections::BTreeSet<usize> = text
        .lines()
        .map(|l| {
            let name = l.split_whitespace().next().unwrap();
            assert!(l[name.len()..].starts_with("  "), "{l}");
            l.len() - l[name.len()..].trim_start().len()
        })
        .collect();
    assert_eq!(columns.len(), 1, "{columns:?}");
}

fn one_line_error(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?} printed: {err}");
    assert!(!err.contains("panicked"));
    err
}

#[test]
fn bad_input_gets_one_line_and_exit_two() {
    assert!(one_line_error(&["check", "--scenario", "no-such"])
        .contains("unknown scenario \"no-such\""));
    assert!(one_line_error(&["check", "--frobnicate"]).contains("--frobnicate"));
    assert!(one_line_error(&["check", "--all", "--variant", "bogus"]).contains("unknown variant"));
    assert!(one_line_error(&["check"]).contains("nothing to check"));
    let dir = std::env::temp_dir().join(format!("webmcp-check-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad_json = dir.join("bad.json");
    std::fs::write(&bad_json, "{\"name\": \"x\",\n \"summary\": 3}").unwrap();
    let err = one_line_error(&["check", "--scenario-file", bad_json.to_str().unwrap()]);
    assert!(err.contains("line 2"), "{err}");
    let bad_ref = dir.join("bad-ref.json");
    std::fs::write(
        &bad_ref,
        r#"{"name":"x","summary":"s","description":"d",
            "tabs":[{"tab":"main","top":{"doc":"top","url":"https://a.example/"}}],
            "scripts":{"top":[{"await":"nothing"}]}}"#,
    )
    .unwrap();
    let err = one_line_error(&["check", "--scenario-file", bad_ref.to_str().unwrap()]);
    assert!(
        err.contains("scripts.top[0]") && err.contains("nothing"),
        "{err}"
    );
    let missing = dir.join("missing.json");
    assert!(
        one_line_error(&["check", "--scenario-file", missing.to_str().unwrap()])
            .contains("missing.json")
    );
}

#[test]
fn hostile_scenario_files_get_one_line_and_exit_two() {
    let dir = std::env::temp_dir().join(format!("webmcp-check-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let base: serde_json::Value = serde_json::from_str(
        r#"{"name":"mine","summary":"s","description":"d",
            "tabs":[{"tab":"main","top":{"doc":"top","url":"https://a.example/"}}]}"#,
    )
    .unwrap();
    let write = |file: &str, v: &serde_json::Value| {
        let path = dir.join(file);
        std::fs::write(&path, v.to_string()).unwrap();
        path.to_str().unwrap().to_string()
    };
    // A name that would inject a workflow command through --format github.
    let mut v = base.clone();
    v["name"] = serde_json::json!("x\n::error::injected");
    let path = write("newline.json", &v);
    let err = one_line_error(&["check", "--format", "github", "--scenario-file", &path]);
    assert!(err.contains("scenario name"), "{err}");
    // A script whose u8 program counter would wrap.
    let mut v = base.clone();
    v["scripts"] = serde_json::json!({"top": vec![serde_json::json!({"abort": "c"}); 256]});
    let path = write("long.json", &v);
    let err = one_line_error(&["check", "--scenario-file", &path]);
    assert!(err.contains("limits::MAX_STATEMENTS"), "{err}");
    // An endless file is refused after the size bound, not read into memory.
    if std::path::Path::new("/dev/zero").exists() {
        let err = one_line_error(&["check", "--scenario-file", "/dev/zero"]);
        assert!(err.contains("limits::MAX_SCENARIO_BYTES"), "{err}");
    }
    // A byte-order mark is accepted.
    let path = dir.join("bom.json");
    std::fs::write(&path, format!("\u{feff}{base}")).unwrap();
    let out = bin()
        .args(["check", "--scenario-file", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_user_scenario_file_is_checked() {
    let dir = std::env::temp_dir().join(format!("webmcp-check-user-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mine.json");
    std::fs::write(
        &file,
        r#"{"name":"mine","summary":"s","description":"d",
            "tabs":[{"tab":"main","top":{"doc":"top","url":"https://a.example/"}}],
            "scripts":{"top":[{"as":"r","registerTool":{"name":"bad name!","description":"d"}}]}}"#,
    )
    .unwrap();
    let out = bin()
        .args(["check", "--scenario-file", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .starts_with("mine [seed]"));
}

/// One run checks one scenario of each name: traces and report rows are named after it, so a
/// second scenario of the same name would overwrite the first's traces.
#[test]
fn a_scenario_named_twice_is_checked_once_and_two_scenarios_of_one_name_are_refused() {
    let dir = std::env::temp_dir().join(format!("webmcp-check-twice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let traces = dir.join("traces");
    let out = bin()
        .args(["check", "--scenario", "abort-before-dispatch"])
        .args(["--scenario", "abort-before-dispatch", "--format", "json"])
        .args(["--no-timings", "--trace-dir", traces.to_str().unwrap()])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["scenarios"].as_array().unwrap().len(), 1);
    let written = std::fs::read_dir(&traces).unwrap().count();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&format!("{written} trace(s) written")),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A file whose scenario takes an embedded scenario's name, or another file's.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/abort-before-dispatch.json"
    ))
    .unwrap();
    let copy = dir.join("copy.json");
    std::fs::write(&copy, &text).unwrap();
    let copy = copy.to_str().unwrap();
    let err = one_line_error(&[
        "check",
        "--scenario",
        "abort-before-dispatch",
        "--scenario-file",
        copy,
    ]);
    assert!(
        err.contains("as an embedded scenario this run checks (--scenario or --all) is"),
        "{err}"
    );
    let err = one_line_error(&["check", "--scenario-file", copy, "--scenario-file", copy]);
    assert!(
        err.contains("one run checks one scenario of each name"),
        "{err}"
    );
    assert!(err.contains(&format!("as {copy}'s is")), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The human report calls a counterexample shortest only where the search guarantees it:
/// breadth-first on any number of threads, with or without sleep sets or symmetry; not
/// depth-first, random walks or partial-order reduction, whose paths can be longer.
#[test]
fn a_counterexample_is_called_shortest_only_where_the_search_guarantees_it() {
    let report = |extra: &[&str]| {
        let out = bin()
            .args([
                "check",
                "--scenario",
                "target-in-bfcache",
                "--quiet",
                "--no-timings",
            ])
            .args([
                "--trace-dir",
                &std::env::temp_dir()
                    .join("wc-path-lengths")
                    .to_string_lossy(),
            ])
            .args(extra)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(text.contains("VIOLATED"), "{extra:?}: {text}");
        text
    };
    for shortest in [
        &[][..],
        &["--threads", "2"],
        &["--reduction", "sleep"],
        &["--symmetry"],
    ] {
        let text = report(shortest);
        assert!(
            text.contains("(shortest counterexample: "),
            "{shortest:?}: {text}"
        );
        assert!(!text.contains("(counterexample: "), "{shortest:?}: {text}");
    }
    for not_shortest in [
        &["--mode", "dfs"][..],
        &["--mode", "sim", "--runs", "200"],
        &["--reduction", "por"],
        &["--reduction", "por", "--threads", "2"],
    ] {
        let text = report(not_shortest);
        assert!(!text.contains("shortest"), "{not_shortest:?}: {text}");
        assert!(
            text.contains("(counterexample: "),
            "{not_shortest:?}: {text}"
        );
    }
}

/// With a baseline that lists every violation, the run passes, and its last line says so
/// rather than that every property held.
#[test]
fn a_pass_by_the_baseline_says_the_violations_are_known() {
    let out = bin()
        .args(["check", "--all", "--baseline"])
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/docs/known-findings.json"
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("violations is one the baseline lists"),
        "{text}"
    );
    assert!(!text.contains("every property held"), "{text}");
}

/// A trace that cannot be written (a directory sits at its file's path) is one error line; the
/// run still checks and reports every scenario, a violation keeps its exit 1 (a 2 would hide
/// it), and a run that found none exits 2, since what it was asked to write is missing.
#[test]
fn a_trace_that_cannot_be_written_neither_hides_a_violation_nor_passes() {
    let dir = std::env::temp_dir().join(format!("webmcp-check-blocked-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = |scenarios: &[&str]| {
        let mut cmd = bin();
        cmd.args(["check", "--quiet", "--no-timings", "--trace-dir"])
            .arg(&dir);
        for s in scenarios {
            cmd.args(["--scenario", s]);
        }
        cmd.output().unwrap()
    };
    // The first run writes every trace; then each trace file becomes a directory.
    for (scenarios, clean, blocked) in [
        (&["target-in-bfcache", "duplicate-name-race"][..], 1, 1),
        (&["duplicate-name-race", "cross-origin-exposed"][..], 0, 2),
    ] {
        let out = run(scenarios);
        assert_eq!(out.status.code(), Some(clean), "{scenarios:?}");
        let files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert!(!files.is_empty());
        for f in &files {
            std::fs::remove_file(f).unwrap();
            std::fs::create_dir(f).unwrap();
        }
        let out = run(scenarios);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(blocked), "{scenarios:?}: {stderr}");
        for s in scenarios {
            assert!(stdout.contains(&format!("{s} [seed]")), "{s}: {stdout}");
        }
        assert!(
            stderr.lines().any(|l| l.starts_with("webmcp-check: ")),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        let summary = match blocked {
            1 => "Some traces could not be written",
            _ => "exit 2: a trace could not be written",
        };
        assert!(stdout.contains(summary), "{stdout}");
        assert!(!stdout.contains("exit 0:"), "{stdout}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
