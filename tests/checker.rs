//! The checker as CI uses it: modes, bounds, output formats, determinism and the
//! known-findings baseline.

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn json(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut all = args.to_vec();
    all.extend(["--format", "json", "--no-timings", "-q"]);
    let o = run(&all);
    (o.status.code(), serde_json::from_slice(&o.stdout).unwrap())
}

fn verdicts(v: &serde_json::Value) -> Vec<(String, String)> {
    v["scenarios"][0]["properties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

const S: &str = "abort-before-dispatch";

#[test]
fn json_has_the_documented_fields() {
    let (code, v) = json(&["check", "--scenario", S]);
    assert_eq!(code, Some(1));
    let s = &v["scenarios"][0];
    for field in [
        "scenario",
        "variant",
        "unique_states",
        "total_states",
        "max_depth",
        "exhaustive",
        "properties",
    ] {
        assert!(!s[field].is_null(), "missing {field}");
    }
    assert!(s["seconds"].is_null(), "--no-timings leaves seconds out");
    let violated: Vec<_> = s["properties"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["verdict"] == "violated")
        .collect();
    assert!(!violated.is_empty());
    for p in violated {
        let steps = p["counterexample"].as_array().unwrap();
        assert!(steps
            .iter()
            .all(|st| st["action"].is_string() && st["steps"].is_array()));
        assert!(!p["about"].as_array().unwrap().is_empty());
    }
    let (_, timed) = json(&["check", "--scenario", "register-and-discover"]);
    assert!(timed["scenarios"][0]["seconds"].is_null());
    let o = run(&[
        "check",
        "--scenario",
        "register-and-discover",
        "--format",
        "json",
        "-q",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["scenarios"][0]["seconds"].is_number());
}

#[test]
fn bfs_and_dfs_agree_and_bfs_counterexamples_are_shortest() {
    let (_, bfs) = json(&["check", "--scenario", S, "--mode", "bfs"]);
    let (_, dfs) = json(&["check", "--scenario", S, "--mode", "dfs"]);
    assert_eq!(verdicts(&bfs), verdicts(&dfs));
    assert_eq!(
        bfs["scenarios"][0]["unique_states"],
        dfs["scenarios"][0]["unique_states"]
    );
    let len = |v: &serde_json::Value, name: &str| {
        v["scenarios"][0]["properties"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap()["counterexample"]
            .as_array()
            .unwrap()
            .len()
    };
    for (name, verdict) in verdicts(&bfs) {
        if verdict == "violated" {
            assert!(len(&bfs, &name) <= len(&dfs, &name), "{name}");
        }
    }
}

/// The parallel breadth-first search (checker/src/parallel_bfs.rs) on every standard
/// scenario: the same verdicts, state counts and depth as one thread, counterexamples just as
/// short (both are shortest), and the same output, byte for byte, with 2 and 3 threads.
#[test]
fn the_parallel_search_agrees_with_one_thread_and_does_not_depend_on_the_schedule() {
    let run = |threads: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
            .args([
                "check",
                "--all",
                "--no-timings",
                "--format",
                "json",
                "--quiet",
            ])
            .args(["--threads", threads, "--trace-dir"])
            .arg(
                std::env::temp_dir()
                    .join(format!("webmcp-threads-{}-{threads}", std::process::id())),
            )
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "seed violates properties");
        out.stdout
    };
    let (one, two, three) = (run("1"), run("2"), run("3"));
    assert!(two == three, "2 and 3 threads give the same report");
    let parse = |bytes: &[u8]| -> serde_json::Value { serde_json::from_slice(bytes).unwrap() };
    let (one, two) = (parse(&one), parse(&two));
    let scenarios = |v: &serde_json::Value| v["scenarios"].as_array().unwrap().clone();
    assert_eq!(scenarios(&one).len(), scenarios(&two).len());
    for (a, b) in scenarios(&one).iter().zip(scenarios(&two).iter()) {
        for key in [
            "scenario",
            "unique_states",
            "total_states",
            "max_depth",
            "exhaustive",
        ] {
            assert_eq!(a[key], b[key], "{key} of {}", a["scenario"]);
        }
        for (p, q) in a["properties"]
            .as_array()
            .unwrap()
            .iter()
            .zip(b["properties"].as_array().unwrap())
        {
            assert_eq!(
                p["verdict"], q["verdict"],
                "{} in {}",
                p["name"], a["scenario"]
            );
            let len = |x: &serde_json::Value| x["counterexample"].as_array().map(Vec::len);
            assert_eq!(len(p), len(q), "{} in {}", p["name"], a["scenario"]);
        }
    }
}

#[test]
fn simulation_is_reproducible_from_its_seed_and_never_a_pass() {
    let args = [
        "check",
        "--scenario",
        S,
        "--mode",
        "sim",
        "--seed",
        "42",
        "--runs",
        "300",
    ];
    let (code, a) = json(&args);
    let (_, b) = json(&args);
    assert_eq!(a, b, "same seed, same walks");
    assert_eq!(code, Some(1), "random walks find the abort race");
    assert_eq!(a["scenarios"][0]["exhaustive"], false);
    let sim = verdicts(&a);
    assert!(sim.iter().any(|(_, v)| v == "incomplete"));
    assert!(
        !sim.iter().any(|(_, v)| v == "hold"),
        "simulation never proves a property"
    );
    // Whatever simulation reports as violated is violated under exhaustive search.
    let (_, bfs) = json(&["check", "--scenario", S]);
    for ((name, v), (_, exhaustive)) in sim.iter().zip(verdicts(&bfs)) {
        if v == "violated" {
            assert_eq!(exhaustive, "violated", "{name}");
        }
    }
    let (code, _) = json(&[
        "check",
        "--scenario",
        "register-and-discover",
        "--mode",
        "sim",
        "--runs",
        "5",
    ]);
    assert_eq!(
        code,
        Some(3),
        "no violation found by walks: incomplete, not pass"
    );
}

#[test]
fn every_bound_gives_incomplete_with_exit_three() {
    for bound in [["--max-states", "10"], ["--max-depth", "4"]] {
        let mut args = vec!["check", "--scenario", "duplicate-name-race"];
        args.extend(bound);
        let (code, v) = json(&args);
        assert_eq!(code, Some(3), "{bound:?}");
        assert_eq!(v["scenarios"][0]["exhaustive"], false);
        assert!(verdicts(&v).iter().any(|(_, x)| x == "incomplete"));
        assert!(!verdicts(&v).iter().any(|(_, x)| x == "not witnessed"));
    }
    // A violation found before the bound still fails the run.
    let (code, _) = json(&["check", "--scenario", S, "--max-depth", "14"]);
    assert_eq!(code, Some(1));
    let (code, _) = json(&[
        "check",
        "--scenario",
        "register-and-discover",
        "--timeout",
        "0",
    ]);
    assert_eq!(code, Some(3));
}

#[test]
fn junit_parses_and_counts_match() {
    let o = run(&[
        "check",
        "--scenario",
        S,
        "--scenario",
        "register-and-discover",
        "--format",
        "junit",
        "-q",
    ]);
    let text = stdout(&o);
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), 2);
    let (_, v) = json(&["check", "--scenario", S]);
    let violated = verdicts(&v).iter().filter(|(_, x)| x == "violated").count();
    let suite = suites
        .iter()
        .find(|s| s.attribute("name") == Some(S))
        .unwrap();
    let cases: Vec<_> = suite
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len().to_string(), suite.attribute("tests").unwrap());
    let failures = cases
        .iter()
        .filter(|c| c.children().any(|n| n.has_tag_name("failure")))
        .count();
    assert_eq!(failures, violated);
    assert_eq!(suite.attribute("failures").unwrap(), violated.to_string());
    let total: usize = suites
        .iter()
        .map(|s| s.attribute("tests").unwrap().parse::<usize>().unwrap())
        .sum();
    assert_eq!(root.attribute("tests").unwrap(), total.to_string());
}

#[test]
fn markdown_and_github_name_properties_and_steps() {
    let md = stdout(&run(&[
        "check",
        "--scenario",
        S,
        "--format",
        "markdown",
        "-q",
    ]));
    assert!(md.starts_with("## webmcp-check"));
    assert!(md.contains("| abort-before-dispatch | seed |"));
    assert!(md.contains("`no-ghost-run` (steps: imperative-execute-steps#9"));
    let gh = stdout(&run(&[
        "check",
        "--scenario",
        S,
        "--format",
        "github",
        "-q",
    ]));
    let errors: Vec<_> = gh.lines().filter(|l| l.starts_with("::error ")).collect();
    let (_, v) = json(&["check", "--scenario", S]);
    assert_eq!(
        errors.len(),
        verdicts(&v).iter().filter(|(_, x)| x == "violated").count()
    );
    assert!(errors
        .iter()
        .any(|l| l.contains("title=webmcp-check no-ghost-run::")
            && l.contains("imperative-execute-steps#9")));
    assert!(errors
        .iter()
        .all(|l| l.contains("file=scenarios/abort-before-dispatch.json")));
}

#[test]
fn the_same_command_twice_is_byte_identical_without_timings() {
    for format in ["human", "json", "junit", "markdown", "github"] {
        let args = ["check", "--all", "--format", format, "--no-timings", "-q"];
        assert_eq!(run(&args).stdout, run(&args).stdout, "{format}");
    }
}

fn write_baseline(findings: &[serde_json::Value]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "webmcp-baseline-{}-{}",
        std::process::id(),
        findings.len()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("known.json");
    std::fs::write(
        &path,
        serde_json::json!({"version": 1, "findings": findings}).to_string(),
    )
    .unwrap();
    path
}

#[test]
fn the_baseline_passes_known_findings_fails_new_ones_and_reports_stale_ones() {
    let committed = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/known-findings.json");
    let o = run(&["check", "--all", "--baseline", committed, "-q"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "the committed baseline lists every current finding:\n{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("0 new violation(s)"));

    let (_, v) = json(&["check", "--scenario", S]);
    let mut listed: Vec<serde_json::Value> = verdicts(&v)
        .into_iter()
        .filter(|(_, x)| x == "violated")
        .map(|(p, _)| serde_json::json!({"scenario": S, "property": p, "variant": "seed", "reason": "test"}))
        .collect();
    let full = write_baseline(&listed);
    assert_eq!(
        run(&[
            "check",
            "--scenario",
            S,
            "--baseline",
            full.to_str().unwrap(),
            "-q"
        ])
        .status
        .code(),
        Some(0)
    );

    let dropped = listed.pop().unwrap();
    let partial = write_baseline(&listed);
    let o = run(&[
        "check",
        "--scenario",
        S,
        "--baseline",
        partial.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains(&format!(
        "new: {S}: {}",
        dropped["property"].as_str().unwrap()
    )));

    listed.push(dropped);
    listed.push(serde_json::json!({"scenario": S, "property": "get-tools-sorted", "variant": "seed", "reason": "fixed since"}));
    let stale = write_baseline(&listed);
    let o = run(&[
        "check",
        "--scenario",
        S,
        "--baseline",
        stale.to_str().unwrap(),
        "--format",
        "json",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["baseline"]["no_longer_occurring"][0]["property"],
        "get-tools-sorted"
    );

    let bad = write_baseline(&[serde_json::json!({"scenario": S})]);
    let o = run(&[
        "check",
        "--scenario",
        S,
        "--baseline",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(o.stderr)
            .unwrap()
            .trim_end()
            .lines()
            .count(),
        1
    );
}

#[test]
fn coverage_lists_every_step_and_the_suite_reaches_every_executable_one() {
    let o = run(&["coverage", "--format", "json"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ids: Vec<&str> = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    let table: Vec<&str> = webmcp_model::STEPS.iter().map(|s| s.id).collect();
    assert_eq!(ids, table);
    assert_eq!(v["reached"], v["executable"]);
    let text = stdout(&run(&["coverage", "--scenario", "register-and-discover"]));
    assert!(
        text.contains("not exercised"),
        "one scenario leaves most execution steps unexercised"
    );
    assert_eq!(
        run(&["coverage", "--scenario", "register-and-discover"])
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn symmetry_reduces_states_and_keeps_every_verdict() {
    for (scenario, min_factor) in [
        ("identical-tabs-register", 5.0),
        ("identical-tabs-execute", 1.9),
        // Interchangeable calls of one script (`webmcp_model::call_symmetry`).
        ("two-concurrent-executions", 1.7),
    ] {
        let (_, full) = json(&["check", "--scenario", scenario]);
        let (_, reduced) = json(&["check", "--scenario", scenario, "--symmetry"]);
        assert_eq!(verdicts(&full), verdicts(&reduced), "{scenario}");
        let u = |v: &serde_json::Value| v["scenarios"][0]["unique_states"].as_f64().unwrap();
        assert!(
            u(&full) / u(&reduced) >= min_factor,
            "{scenario}: {} vs {}",
            u(&full),
            u(&reduced)
        );
    }
    // Scenarios without interchangeable tabs or calls are unchanged.
    let (_, a) = json(&["check", "--scenario", S]);
    let (_, b) = json(&["check", "--scenario", S, "--symmetry"]);
    assert_eq!(
        a["scenarios"][0]["unique_states"],
        b["scenarios"][0]["unique_states"]
    );
}

#[test]
fn the_proposed_variant_passes_the_whole_suite_and_each_fix_is_needed() {
    let o = run(&[
        "check",
        "--all",
        "--variant",
        "proposed",
        "-q",
        "--format",
        "json",
        "--no-timings",
    ]);
    assert_eq!(o.status.code(), Some(0), "proposed must hold everywhere");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for s in v["scenarios"].as_array().unwrap() {
        assert_eq!(s["exhaustive"], true);
    }
    // Non-vacuity under the fixes too: every witness is reached by some scenario.
    let witnessed: std::collections::BTreeSet<_> = v["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["properties"].as_array().unwrap().iter())
        .filter(|p| p["verdict"] == "witnessed")
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    for p in v["scenarios"][0]["properties"].as_array().unwrap() {
        if p["kind"] == "sometimes" {
            assert!(
                witnessed.contains(p["name"].as_str().unwrap()),
                "{}",
                p["name"]
            );
        }
    }
    for fix in webmcp_model::variant::FIXES {
        // A fix the current text adopted is needed only under the earlier text it fixes.
        let variant = match fix.adopted_by() {
            Some(_) => format!("proposed-{}@2026-08", fix.name),
            None => format!("proposed-{}", fix.name),
        };
        let o = run(&[
            "check",
            "--all",
            "--variant",
            &variant,
            "-q",
            "--format",
            "json",
            "--no-timings",
        ]);
        assert_eq!(
            o.status.code(),
            Some(1),
            "without {} some property must fail, or the fix is not needed",
            fix.name
        );
    }
}

/// A scenario named twice is covered once: its counts are not added twice.
#[test]
fn coverage_of_a_scenario_named_twice_is_its_coverage() {
    // One scenario leaves steps unreached (exit 1); what matters is that both say the same.
    let json = |args: &[&str]| -> (Option<i32>, serde_json::Value) {
        let o = run(args);
        let v = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
        (o.status.code(), v)
    };
    let once = json(&[
        "coverage",
        "--scenario",
        "register-and-discover",
        "--format",
        "json",
    ]);
    let twice = json(&[
        "coverage",
        "--scenario",
        "register-and-discover",
        "--scenario",
        "register-and-discover",
        "--format",
        "json",
    ]);
    assert_eq!(once, twice);
}
