//! End-to-end tests of the trace commands: `check --trace-dir`, `replay`, `minimize`,
//! `explain`, and their exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("webmcp-traces-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn one_line_exit_two(args: &[&str]) -> String {
    let out = run(args);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?} printed: {err}");
    assert!(!err.contains("panicked"));
    err
}

fn traces_of(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".itf.json"))
        .collect();
    v.sort();
    v
}

#[test]
fn check_writes_a_trace_per_counterexample_and_witness_and_each_replays() {
    let dir = tmp("check");
    let out = run(&[
        "check",
        "--scenario",
        "abort-before-dispatch",
        "--trace-dir",
        dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let files = traces_of(&dir);
    // 5 violations and 3 witnesses (scenarios/abort-before-dispatch.json).
    assert_eq!(files.len(), 8, "{files:?}");
    for f in &files {
        let o = run(&["replay", f.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
        assert!(stdout(&o).contains("every state reproduced"));
    }
    let ghost = dir.join("abort-before-dispatch.seed.no-ghost-run.itf.json");
    let o = run(&["replay", ghost.to_str().unwrap()]);
    assert!(
        stdout(&o).contains("no-ghost-run violated (first after 7 actions)"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_changed_state_is_reported_as_a_divergence_with_the_field() {
    let dir = tmp("diverge");
    let file = dir.join("t.itf.json");
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("traces/corpus/abort-before-dispatch.seed.no-ghost-run.itf.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&src).unwrap()).unwrap();
    // State 2: the execute thread is at CheckToolExists; claim it was elsewhere.
    let threads = &mut doc["states"][2]["threads"]["#map"];
    let entry = threads
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e[0]["tag"] == "Execute")
        .unwrap();
    entry[1]["value"]["pc"]["tag"] = serde_json::json!("SetPending");
    std::fs::write(&file, doc.to_string()).unwrap();
    let o = run(&["replay", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(
        text.contains("diverges at step 2 (Step(Execute(exec)))"),
        "{text}"
    );
    assert!(
        text.contains(
            "threads[Execute(\"exec\")].Execute.pc: expected SetPending, actual CheckToolExists"
        ),
        "{text}"
    );
    // An action that is not enabled where it is taken.
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&src).unwrap()).unwrap();
    doc["states"][1]["mbt::action"] =
        serde_json::json!({"tag": "SettleTool", "value": {"call": "exec", "outcome": "fulfil"}});
    doc["states"][1]["mbt::actionTaken"] = serde_json::json!("SettleTool");
    std::fs::write(&file, doc.to_string()).unwrap();
    let o = run(&["replay", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("is not enabled here (enabled: RunScript(top))"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn invalid_trace_files_get_one_line_and_exit_two() {
    let dir = tmp("invalid");
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("traces/corpus/abort-before-dispatch.seed.no-ghost-run.itf.json");
    let text = std::fs::read_to_string(&src).unwrap();
    let truncated = dir.join("truncated.itf.json");
    std::fs::write(&truncated, &text[..text.len() / 3]).unwrap();
    for cmd in ["replay", "explain"] {
        assert!(one_line_exit_two(&[cmd, truncated.to_str().unwrap()]).contains("invalid JSON"));
    }
    assert!(one_line_exit_two(&[
        "minimize",
        truncated.to_str().unwrap(),
        "-o",
        dir.join("out.itf.json").to_str().unwrap()
    ])
    .contains("invalid JSON"));
    let corrupted = dir.join("corrupted.itf.json");
    std::fs::write(
        &corrupted,
        text.replace("\"#bigint\":\"0\"", "\"#bigint\":\"zero\""),
    )
    .unwrap();
    assert!(one_line_exit_two(&["replay", corrupted.to_str().unwrap()]).contains("#bigint"));
    let wrong = dir.join("wrong.itf.json");
    std::fs::write(
        &wrong,
        text.replace(
            "\"scenario\": \"abort-before-dispatch\"",
            "\"scenario\": \"register-and-discover\"",
        ),
    )
    .unwrap();
    assert!(one_line_exit_two(&["replay", wrong.to_str().unwrap()]).contains("wrong scenario"));
    let missing = dir.join("missing.itf.json");
    assert!(one_line_exit_two(&["replay", missing.to_str().unwrap()]).contains("missing.itf.json"));
    let not_a_trace = dir.join("scenario.json");
    std::fs::write(&not_a_trace, "{\"name\": \"x\"}").unwrap();
    assert!(one_line_exit_two(&["replay", not_a_trace.to_str().unwrap()]).contains("not a trace"));
}

#[test]
fn a_random_walk_from_sim_mode_is_minimised() {
    let dir = tmp("sim");
    let out = run(&[
        "check",
        "--scenario",
        "target-in-bfcache",
        "--mode",
        "sim",
        "--seed",
        "1",
        "--runs",
        "3",
        "--trace-dir",
        dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let files = traces_of(&dir);
    let violated: Vec<&PathBuf> = files
        .iter()
        .filter(|f| !f.to_string_lossy().contains("witness_"))
        .collect();
    assert!(!violated.is_empty());
    let mut shrunk = 0;
    for f in violated {
        let min = dir.join("min.json");
        let o = run(&["minimize", f.to_str().unwrap(), "-o", min.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
        let line = stdout(&o);
        let nums: Vec<usize> = line
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        assert!(nums[1] <= nums[0], "{line}");
        if nums[1] < nums[0] {
            shrunk += 1;
        }
        assert_eq!(
            run(&["replay", min.to_str().unwrap()]).status.code(),
            Some(0)
        );
    }
    assert!(
        shrunk > 0,
        "random walks are longer than shortest counterexamples"
    );
}

#[test]
fn explain_renders_every_format() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("traces/corpus/abort-before-dispatch.seed.no-ghost-run.itf.json");
    let f = src.to_str().unwrap();
    let text = stdout(&run(&["explain", f]));
    assert!(
        text.contains("  7. [top (event loop main/https://a.example)]"),
        "{text}"
    );
    assert!(text.contains("VIOLATED: no-ghost-run. The property says: a tool is never invoked"));
    let md = stdout(&run(&["explain", f, "--format", "markdown"]));
    assert!(md.contains("```mermaid\nsequenceDiagram"));
    assert!(md.contains("(https://webmachinelearning.github.io/webmcp/#imperative-execute-steps"));
    let mm = stdout(&run(&["explain", f, "--format", "mermaid"]));
    assert!(mm.starts_with("sequenceDiagram\n"));
    for line in mm.lines().skip(1) {
        // Mermaid statements: no raw `;` or `#` outside entity codes.
        let stripped: String = line
            .split('#')
            .enumerate()
            .map(|(i, part)| {
                if i == 0 {
                    part.to_string()
                } else {
                    part.split_once(';')
                        .map(|(_, r)| r.to_string())
                        .unwrap_or_default()
                }
            })
            .collect();
        assert!(!stripped.contains(';'), "{line}");
    }
    let html = stdout(&run(&["explain", f, "--format", "html"]));
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(!html.contains("<script") && !html.contains("<link") && !html.contains("@import"));
    assert!(html.contains(
        "href=\"https://webmachinelearning.github.io/webmcp/#imperative-execute-steps\""
    ));
}
