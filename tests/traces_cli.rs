//! End-to-end tests of the trace commands: `check --trace-dir`, `replay`, `minimize`,
//! `explain`, and their exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

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
    // 4 violations and 3 witnesses (scenarios/abort-before-dispatch.json).
    assert_eq!(files.len(), 7, "{files:?}");
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

/// What a trace file names (a field, a tag, a variable) and the file's own path are shown
/// escaped: a divergence report cannot move the cursor, retitle the terminal or reorder the
/// line.
#[test]
fn a_divergence_shows_what_the_file_names_escaped() {
    let dir = tmp("hostile-names");
    let hostile = "x\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}";
    let tamper: [&dyn Fn(&mut serde_json::Value); 3] = [
        &|d| d["states"][0]["env"][hostile] = serde_json::json!(true),
        &|d| d["states"][0]["env"]["bfcache"] = serde_json::json!({ "tag": hostile }),
        &|d| {
            d["vars"]
                .as_array_mut()
                .unwrap()
                .push(serde_json::json!(hostile));
            for st in d["states"].as_array_mut().unwrap() {
                st[hostile] = serde_json::json!(1);
            }
        },
    ];
    for (i, edit) in tamper.iter().enumerate() {
        let file = dir.join(format!("t{i}\u{1b}[31m\u{202e}.itf.json"));
        let mut doc = corpus_doc();
        edit(&mut doc);
        std::fs::write(&file, doc.to_string()).unwrap();
        let o = run(&["replay", file.to_str().unwrap()]);
        let (out, err) = (stdout(&o), String::from_utf8_lossy(&o.stderr).into_owned());
        assert!(matches!(o.status.code(), Some(1 | 2)), "{i}: {out}{err}");
        for text in [&out, &err] {
            common::assert_printable(&i.to_string(), text);
        }
        assert!(
            out.contains("\\u{1b}") || err.contains("\\u{1b}"),
            "{i}: {out}{err}"
        );
    }
}

/// A tool's result that holds escape sequences and a right-to-left override, told by
/// `explain` in every format: shown escaped, never raw.
#[test]
fn explain_shows_what_a_page_returned_escaped_in_every_format() {
    let dir = tmp("hostile-result");
    let hostile = "v\u{1b}[31mRED\u{202e}evil\u{202c}<img src=x onerror=alert(1)>";
    let scenario = serde_json::json!({
        "name": "hostile-result", "summary": "s", "description": "d",
        "tabs": [{"tab": "main", "top": {"doc": "top", "url": "https://a.example/"}}],
        "scripts": {"top": [
            {"as": "r", "registerTool": {"name": "t1", "description": "d",
                "body": [{"return": hostile}]}},
            {"await": "r"},
            {"as": "l", "getTools": {}},
            {"await": "l"},
            {"as": "x", "executeTool": {"from": "l", "name": "t1"}, "input": {}},
            {"await": "x"}
        ]}
    });
    let file = dir.join("hostile.json");
    std::fs::write(&file, scenario.to_string()).unwrap();
    let traces = dir.join("traces");
    let o = run(&[
        "check",
        "--scenario-file",
        file.to_str().unwrap(),
        "--trace-dir",
        traces.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stdout(&o));
    let witness = traces.join("hostile-result.seed.witness_result-delivered.itf.json");
    assert!(witness.exists(), "{:?}", traces_of(&traces));
    for format in ["text", "markdown", "html", "mermaid"] {
        let o = run(&["explain", witness.to_str().unwrap(), "--format", format]);
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(0), "{format}: {out}");
        common::assert_printable(format, &out);
        if format != "mermaid" {
            assert!(out.contains("\\u{202e}evil"), "{format}: {out}");
        }
    }
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

/// A minimisation whose search for a shorter run stops at its bound writes its 1-minimal
/// result but exits 3 and names the bound: a shorter run may exist, so it is not a pass.
#[test]
fn a_minimisation_its_bound_stopped_exits_three() {
    let dir = tmp("min-bound");
    let scenario = dir.join("two-tabs.json");
    std::fs::write(&scenario, TWO_TABS).unwrap();
    let traces = dir.join("t");
    run(&[
        "check",
        "--scenario-file",
        scenario.to_str().unwrap(),
        "--mode",
        "sim",
        "--seed",
        "0",
        "--runs",
        "100",
        "--quiet",
        "--trace-dir",
        traces.to_str().unwrap(),
    ]);
    let trace = traces.join("two-tabs-in-bfcache.seed.get-tools-promise-settles.itf.json");
    let out = dir.join("min.itf.json");
    let o = run(&[
        "minimize",
        trace.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(3), "{text}");
    assert!(
        text.contains("stopped at its bound of 300,000 states, so one may exist"),
        "{text}"
    );
    assert_eq!(
        run(&["replay", out.to_str().unwrap()]).status.code(),
        Some(0)
    );
}

const TWO_TABS: &str = r#"{"name":"two-tabs-in-bfcache","summary":"Two tabs, each a page and an iframe that registers a tool the page lists and executes; one tab can enter the back/forward cache.","description":"Large enough that minimize's search for a shorter run reaches its bound.","tabs":[{"tab":"main","top":{"doc":"top","url":"https://a.example/","iframes":[{"nav":"frame","doc":"child","url":"https://a.example/child"}]}},{"tab":"other","top":{"doc":"o","url":"https://c.example/","iframes":[{"nav":"oframe","doc":"ochild","url":"https://c.example/child"}]}}],"scripts":{"child":[{"registerTool":{"name":"t1","description":"a test tool"}}],"top":[{"awaitToolchange":true},{"as":"list","getTools":{}},{"await":"list"},{"as":"exec","executeTool":{"from":"list","name":"t1"},"input":{"$js":"reaches-body"}}],"ochild":[{"registerTool":{"name":"t2","description":"d"}}],"o":[{"awaitToolchange":true},{"as":"olist","getTools":{}},{"await":"olist"},{"as":"oexec","executeTool":{"from":"olist","name":"t2"},"input":{"$js":"reaches-body"}}]},"environment":{"bfcache":["main"]}}"#;

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

// ---------------------------------------------------------------------------------------
// Trace files, baselines and outputs are untrusted: limits, validation before explain and
// minimize, and outputs checked before the work.

fn corpus_trace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("traces/corpus/abort-before-dispatch.seed.no-ghost-run.itf.json")
}

fn corpus_doc() -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(corpus_trace()).unwrap()).unwrap()
}

/// The exit code and the one line on stderr; stdout must be empty.
fn refused(args: &[&str]) -> (i32, String) {
    let out = run(args);
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?} printed: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(stdout(&out), "", "{args:?} printed on stdout");
    (out.status.code().unwrap(), err)
}

#[test]
fn dev_zero_pipes_and_oversized_files_are_refused_naming_the_limit() {
    let dir = tmp("limits");
    let out = dir.join("out.itf.json");
    let o = out.to_str().unwrap();
    // A sparse file one byte over the limit: refused from its size, nothing read.
    let big = dir.join("big.itf.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(webmcp_traces::limits::MAX_TRACE_BYTES + 1)
        .unwrap();
    for file in ["/dev/zero", big.to_str().unwrap()] {
        for args in [
            vec!["replay", file],
            vec!["explain", file],
            vec!["minimize", file, "-o", o],
        ] {
            let (code, err) = refused(&args);
            assert_eq!(code, 2, "{err}");
            assert!(
                err.ends_with(": larger than 64 MiB, the limit for a trace file; not read\n"),
                "{err}"
            );
        }
    }
    assert!(!out.exists());
    // A pipe that never ends.
    let fifo = dir.join("fifo.itf.json");
    if Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        let path = fifo.clone();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
            let chunk = vec![b' '; 1 << 16];
            while f.write_all(&chunk).is_ok() {}
        });
        let (code, err) = refused(&["replay", fifo.to_str().unwrap()]);
        assert_eq!(code, 2);
        assert!(err.contains("larger than 64 MiB"), "{err}");
        writer.join().unwrap();
    }
    let (code, err) = refused(&[
        "check",
        "--scenario",
        "abort-before-dispatch",
        "--baseline",
        "/dev/zero",
        "--quiet",
    ]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "webmcp-check: /dev/zero: larger than 1 MiB, the limit for a baseline file; not read\n"
    );
}

#[test]
fn explain_and_minimize_refuse_a_trace_that_does_not_replay() {
    let dir = tmp("refuse");
    let out = dir.join("out");
    // A changed state value.
    let mut doc = corpus_doc();
    doc["states"][3]["env"]["interventionsLeft"] = serde_json::json!({"#bigint": "7"});
    let changed = dir.join("changed.itf.json");
    std::fs::write(&changed, doc.to_string()).unwrap();
    // A violation cut before the state that shows it.
    let mut doc = corpus_doc();
    doc["states"].as_array_mut().unwrap().pop();
    let cut = dir.join("cut.itf.json");
    std::fs::write(&cut, doc.to_string()).unwrap();
    for (file, at) in [
        (&changed, "diverges at step 3 (Step(Execute(exec))): env.interventionsLeft: expected 7, actual "),
        (&cut, "diverges at step 6 (Step(Execute(exec))): the last state does not violate no-ghost-run"),
    ] {
        let f = file.to_str().unwrap();
        let replayed = run(&["replay", f]);
        assert_eq!(replayed.status.code(), Some(1));
        assert!(stdout(&replayed).contains(at), "{}", stdout(&replayed));
        for (args, what) in [
            (vec!["explain", f], "explained"),
            (vec!["explain", f, "--format", "html", "-o", out.to_str().unwrap()], "explained"),
            (vec!["minimize", f, "-o", out.to_str().unwrap()], "minimised"),
        ] {
            let (code, err) = refused(&args);
            assert_eq!(code, 1, "{args:?}: {err}");
            assert!(err.starts_with(&format!("webmcp-check: {f}: {at}")), "{err}");
            assert!(err.trim_end().ends_with(&format!("only a trace that replays is {what}")));
            assert!(!out.exists(), "{args:?} wrote its output");
        }
    }
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        2,
        "temporary files left"
    );
}

#[test]
fn tampered_traces_never_exit_zero() {
    let dir = tmp("tampered");
    let out = dir.join("out.itf.json");
    type Edit = fn(&mut serde_json::Value);
    let cases: Vec<(&str, Edit, i32, &str)> = vec![
        (
            "scenario text changed",
            |d| {
                let t = d["#meta"]["scenario-json"].as_str().unwrap().replace("a test tool", "a tool");
                d["#meta"]["scenario-json"] = t.into();
            },
            2,
            "corrupted trace: scenario-json does not match scenario-sha256",
        ),
        (
            "scenario text changed and rehashed",
            |d| {
                let t = d["#meta"]["scenario-json"].as_str().unwrap().replace("a test tool", "a tool");
                d["#meta"]["scenario-sha256"] = webmcp_traces::trace::sha256_hex(&t).into();
                d["#meta"]["scenario-json"] = t.into();
            },
            1,
            "diverges at step 1 (RunScript(top)): docs[\"top\"].tools[\"t1\"].description: expected \"a test tool\", actual \"a tool\"",
        ),
        (
            "a false verdict",
            |d| d["#meta"]["property"] = "execute-settles-once".into(),
            1,
            "the last state does not violate execute-settles-once",
        ),
        (
            "an extra state",
            |d| {
                let states = d["states"].as_array_mut().unwrap();
                let mut extra = states.last().unwrap().clone();
                extra["#meta"]["index"] = states.len().into();
                states.push(extra);
            },
            1,
            "diverges at step 8 (RunTask(main/https://a.example)): the action is not enabled here",
        ),
        (
            "a missing state, renumbered",
            |d| {
                let states = d["states"].as_array_mut().unwrap();
                states.remove(3);
                for (i, s) in states.iter_mut().enumerate() {
                    s["#meta"]["index"] = i.into();
                }
            },
            1,
            "diverges at step 3 (Step(Execute(exec))): threads[Execute(\"exec\")].Execute.pc",
        ),
        (
            "a missing state",
            |d| {
                d["states"].as_array_mut().unwrap().remove(3);
            },
            2,
            "states[3]: #meta.index is 4",
        ),
        (
            "an unknown top-level field",
            |d| d["loop"] = 0.into(),
            2,
            "not a trace: unknown field `loop`",
        ),
        (
            "an unknown #meta field",
            |d| d["#meta"]["comment"] = "x".into(),
            2,
            "not a trace: #meta: unknown key \"comment\"",
        ),
        (
            "an unknown state field",
            |d| d["states"][2]["comment"] = "x".into(),
            2,
            "states[2]: has a variable \"comment\" that vars does not list",
        ),
        (
            "an unknown record field",
            |d| d["states"][2]["env"]["comment"] = true.into(),
            1,
            "env.comment: expected true, actual <absent>",
        ),
        (
            // One line, but not a megabyte of it: the value is quoted up to 200 characters.
            "a huge value",
            |d| d["states"][2]["env"]["comment"] = "x".repeat(1 << 20).into(),
            1,
            "xxx… (1048578 bytes in all), actual <absent>",
        ),
    ];
    for (what, edit, want, message) in cases {
        let mut doc = corpus_doc();
        edit(&mut doc);
        let file = dir.join("t.itf.json");
        std::fs::write(&file, doc.to_string()).unwrap();
        let f = file.to_str().unwrap();
        for args in [
            vec!["replay", f],
            vec!["explain", f],
            vec!["minimize", f, "-o", out.to_str().unwrap()],
        ] {
            let o = run(&args);
            let (code, line) = if args[0] == "replay" && want == 1 {
                (o.status.code().unwrap(), stdout(&o))
            } else {
                assert_eq!(stdout(&o), "", "{what}: {args:?}");
                (
                    o.status.code().unwrap(),
                    String::from_utf8(o.stderr).unwrap(),
                )
            };
            assert_eq!(code, want, "{what}: {args:?}: {line}");
            assert_eq!(line.trim_end().lines().count(), 1, "{what}: {line}");
            assert!(
                line.len() < 1000,
                "{what}: {args:?}: a {}-byte line",
                line.len()
            );
            assert!(line.contains(message), "{what}: {args:?}: {line}");
        }
        assert!(!out.exists());
    }
}

#[test]
fn an_output_that_is_a_directory_or_unwritable_is_refused_before_the_work() {
    let dir = tmp("output");
    let trace = corpus_trace();
    let t = trace.to_str().unwrap();
    let target = dir.join("outdir");
    std::fs::create_dir(&target).unwrap();
    let o = target.to_str().unwrap();
    for args in [vec!["minimize", t, "-o", o], vec!["explain", t, "-o", o]] {
        let (code, err) = refused(&args);
        assert_eq!(code, 2);
        assert_eq!(
            err,
            format!("webmcp-check: {o}: is a directory; the output must be a file name\n")
        );
    }
    let missing = dir.join("no/such/dir/out.md");
    for (out, because) in [
        ("/proc/x/y", "cannot create a file in /proc/x"),
        (missing.to_str().unwrap(), "cannot create a file in"),
        ("/dev/null/y", "Not a directory"),
        ("/proc/self/out.md", "cannot create a file in /proc/self"),
    ] {
        for args in [
            vec!["minimize", t, "-o", out],
            vec!["explain", t, "-o", out],
        ] {
            let (code, err) = refused(&args);
            assert_eq!(code, 2, "{err}");
            assert!(err.starts_with(&format!("webmcp-check: {out}: ")), "{err}");
            assert!(err.contains(because), "{err}");
        }
    }
    // Checked before the work: a trace that does not replay, to an unwritable output, is
    // refused for its output.
    let (code, err) = refused(&["explain", "/dev/zero", "-o", o]);
    assert_eq!(code, 2);
    assert!(err.contains("is a directory"), "{err}");
    // No temporary file is left, next to the directory or in it.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .chain(std::fs::read_dir(&target).unwrap())
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("outdir")]);
    // A device is written in place, never replaced.
    let o = run(&["explain", t, "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(0));
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    // And a plain file works, with nothing left beside it.
    let file = dir.join("story.md");
    let o = run(&[
        "explain",
        t,
        "--format",
        "markdown",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("```mermaid"));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
}

#[test]
fn a_trace_dir_that_is_not_a_writable_directory_is_refused_before_exploring() {
    let dir = tmp("tracedir");
    let file = dir.join("file");
    std::fs::write(&file, "").unwrap();
    for (trace_dir, message) in [
        (
            "/dev/null",
            "/dev/null: the trace directory (--trace-dir) is not a directory",
        ),
        (
            file.to_str().unwrap(),
            "the trace directory (--trace-dir) is not a directory",
        ),
        (
            "/proc/self/traces",
            "/proc/self/traces: cannot create the trace directory (--trace-dir)",
        ),
        (
            "/proc/self",
            "/proc/self: cannot create a file in the trace directory (--trace-dir)",
        ),
    ] {
        // `refused` asserts stdout is empty: no report, so nothing was explored.
        let (code, err) = refused(&[
            "check",
            "--scenario",
            "abort-before-dispatch",
            "--trace-dir",
            trace_dir,
        ]);
        assert_eq!(code, 2);
        assert!(err.contains(message), "{err}");
    }
}

#[test]
fn the_longest_page_strings_a_scenario_may_hold_give_traces_that_replay() {
    let dir = tmp("unreadable");
    // A trace's string limit is far above what a scenario may hold (a description of at most
    // MAX_STRING_LEN characters, a file of at most MAX_SCENARIO_BYTES), so every trace
    // `check` writes is one `replay` accepts: the longest description gives traces that
    // replay, and one character more is refused before any exploration.
    const { assert!(webmcp_model::limits::MAX_SCENARIO_BYTES < webmcp_traces::limits::MAX_STRING_BYTES) };
    let with_description = |len: usize| {
        let mut s: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/register-and-discover.json"),
            )
            .unwrap(),
        )
        .unwrap();
        let mut replaced = false;
        for stmts in s["scripts"].as_object_mut().unwrap().values_mut() {
            for st in stmts.as_array_mut().unwrap() {
                if let Some(t) = st.get_mut("registerTool") {
                    t["description"] = "x".repeat(len).into();
                    replaced = true;
                }
            }
        }
        assert!(replaced);
        // Another scenario than the embedded one: a name of its own.
        s["name"] = format!("long-descriptions-{len}").into();
        let scenario = dir.join(format!("long-{len}.json"));
        std::fs::write(&scenario, s.to_string()).unwrap();
        scenario
    };
    let longest = webmcp_model::limits::MAX_STRING_LEN;
    let traces = dir.join("traces");
    let o = run(&[
        "check",
        "--quiet",
        "--scenario-file",
        with_description(longest).to_str().unwrap(),
        "--trace-dir",
        traces.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let written = traces_of(&traces);
    assert!(!written.is_empty());
    for t in written {
        let r = run(&["replay", t.to_str().unwrap()]);
        assert_eq!(r.status.code(), Some(0), "{}", stdout(&r));
    }
    let err = one_line_exit_two(&[
        "check",
        "--scenario-file",
        with_description(longest + 1).to_str().unwrap(),
        "--trace-dir",
        traces.to_str().unwrap(),
    ]);
    assert!(err.contains("MAX_STRING_LEN"), "{err}");
}

#[test]
fn an_out_of_range_bigint_says_so() {
    let dir = tmp("bigint");
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/corpus");
    let trace = traces_of(&corpus)
        .into_iter()
        .next()
        .expect("a corpus trace");
    let text = std::fs::read_to_string(trace).unwrap();
    let at = text.find("{\"#bigint\":\"").expect("an integer") + "{\"#bigint\":\"".len();
    let end = at + text[at..].find('"').unwrap();
    for (digits, complaint) in [
        ("9".repeat(50), "out of range: 50 digits"),
        ("12x".to_string(), "must be a decimal string"),
    ] {
        let bad = format!("{}{digits}{}", &text[..at], &text[end..]);
        let file = dir.join("bad.itf.json");
        std::fs::write(&file, bad).unwrap();
        let err = one_line_exit_two(&["replay", file.to_str().unwrap()]);
        assert!(err.contains(complaint), "{err}");
    }
}

/// `corpus --dir` removes only the traces its own last index listed: a directory with
/// someone else's `INDEX.md` is refused before any work, a trace it never wrote stays, and
/// a run a bound stopped leaves no directory behind.
#[test]
fn corpus_removes_only_what_its_own_index_listed() {
    let dir = tmp("corpus-own");
    let foreign = dir.join("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("INDEX.md"), "my notes\n").unwrap();
    std::fs::write(foreign.join("mine.seed.p.itf.json"), "{}").unwrap();
    let err = one_line_exit_two(&["corpus", "--dir", foreign.to_str().unwrap()]);
    assert!(err.contains("not a corpus index"), "{err}");
    assert_eq!(
        std::fs::read_to_string(foreign.join("INDEX.md")).unwrap(),
        "my notes\n"
    );
    assert!(foreign.join("mine.seed.p.itf.json").exists());

    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::write(corpus.join("mine.seed.p.itf.json"), "{}").unwrap();
    let regenerate = || {
        let o = run(&["corpus", "--dir", corpus.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}");
    };
    regenerate();
    let written = traces_of(&corpus).len();
    assert!(written > 1, "{written}");
    assert!(
        corpus.join("mine.seed.p.itf.json").exists(),
        "not ours: kept"
    );
    // A finding that no longer occurs: a trace the index lists, which this run does not
    // write. And a file the index was edited to list, which is no trace of the corpus: the
    // index alone does not decide what is deleted.
    let index = std::fs::read_to_string(corpus.join("INDEX.md")).unwrap();
    std::fs::write(
        corpus.join("INDEX.md"),
        format!(
            "{index}| `gone` | 1 | [old](old.seed.gone.itf.json) | old |\n\
             | `x` | 1 | [a](mine.seed.p.itf.json) | y |\n"
        ),
    )
    .unwrap();
    let ours = traces_of(&corpus)
        .into_iter()
        .find(|t| !t.ends_with("mine.seed.p.itf.json"))
        .unwrap();
    std::fs::copy(ours, corpus.join("old.seed.gone.itf.json")).unwrap();
    regenerate();
    assert!(
        !corpus.join("old.seed.gone.itf.json").exists(),
        "stale: removed"
    );
    assert!(
        corpus.join("mine.seed.p.itf.json").exists(),
        "listed by an edited index, but not a trace of the corpus: kept"
    );
    assert_eq!(traces_of(&corpus).len(), written);

    let stopped = dir.join("new");
    let o = run(&[
        "corpus",
        "--dir",
        stopped.to_str().unwrap(),
        "--memory-limit",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(3));
    assert!(!stopped.exists(), "nothing written, not even the directory");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A trace carries its own scenario: one whose text is not the embedded scenario of its name
/// (edited, rehashed, and its states edited to match) still replays, and the report says
/// whose scenario it replayed.
#[test]
fn a_replayed_trace_says_when_its_scenario_is_not_the_embedded_one() {
    let dir = tmp("own-scenario");
    let plain = run(&["replay", corpus_trace().to_str().unwrap()]);
    assert_eq!(plain.status.code(), Some(0));
    assert!(
        !stdout(&plain).contains("not the embedded scenario"),
        "{}",
        stdout(&plain)
    );
    // The summary is not part of any state: only the scenario text changes.
    let mut d = corpus_doc();
    let mut scenario: serde_json::Value =
        serde_json::from_str(d["#meta"]["scenario-json"].as_str().unwrap()).unwrap();
    scenario["summary"] = "another scenario under its name".into();
    let text = scenario.to_string();
    d["#meta"]["scenario-sha256"] = webmcp_traces::trace::sha256_hex(&text).into();
    d["#meta"]["scenario-json"] = text.into();
    let path = dir.join("own.itf.json");
    std::fs::write(&path, d.to_string()).unwrap();
    let out = run(&["replay", path.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout(&out).contains(
            "of scenario abort-before-dispatch (the trace's own, not the embedded scenario of that name)"
        ),
        "{}",
        stdout(&out)
    );
}
