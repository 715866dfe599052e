//! Shared by the CLI tests: running the binary, the `expect` block of every scenario file in a
//! folder, and the check that a generated document is the one committed.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::process::{Command, Output};

/// The binary under test.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
}

/// Runs it with `args` and waits.
pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// Runs it with `args` and `--trace-dir` a fresh directory named after `tag`, removed after.
pub fn run_with_trace_dir(tag: &str, args: &[&str]) -> Output {
    let dir = std::env::temp_dir().join(format!("webmcp-{tag}-{}", std::process::id()));
    let mut all = args.to_vec();
    all.extend(["--trace-dir", dir.to_str().unwrap()]);
    let out = run(&all);
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// Asserts that `out` shows no unprintable character but its line breaks (a control
/// character, a bidirectional override: what a file could use to rewrite the terminal).
#[track_caller]
pub fn assert_printable(what: &str, out: &str) {
    assert!(
        !out.chars()
            .any(|c| c != '\n' && webmcp_model::error::is_unprintable(c)),
        "{what}: {out:?}"
    );
}

/// Output bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Scenario name -> (property -> expected verdict), for every `.json` file in `dir`.
pub fn expectations_in(dir: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let expect = v["expect"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
            .collect();
        out.insert(v["name"].as_str().unwrap().to_string(), expect);
    }
    out
}

/// Runs `webmcp-check ARGS` (which prints a generated document), and fails unless it
/// succeeds and prints exactly the committed `docs/DOC`; returns what it printed.
pub fn generated_doc_is_up_to_date(args: &[&str], doc: &str) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
        .args(args)
        .output()
        .expect("run webmcp-check");
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fresh = String::from_utf8(out.stdout).expect("UTF-8 output");
    let path = format!("{}/docs/{doc}", env!("CARGO_MANIFEST_DIR"));
    let committed = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("{path} exists"));
    if fresh != committed {
        let line = fresh
            .lines()
            .zip(committed.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| fresh.lines().count().min(committed.lines().count()));
        panic!(
            "docs/{doc} is out of date (first difference at line {}): run `cargo run --release -- {} -o docs/{doc}`",
            line + 1,
            args[0]
        );
    }
    fresh
}
