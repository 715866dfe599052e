//! `webmcp-check conformance`: usage errors and WPT emission (no browser needed).

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn an_unknown_scenario_is_a_usage_error() {
    let out = bin()
        .args(["conformance", "--scenario", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("webmcp-check: unknown scenario \"nope\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_scenario_without_browser_form_says_why() {
    let out = bin()
        .args(["conformance", "--scenario", "execution-across-tabs"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("has no browser form: several tabs"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_missing_chromium_is_a_usage_error() {
    let out = bin()
        .args([
            "conformance",
            "--scenario",
            "register-and-discover",
            "--chromium",
            "/nonexistent/chromium",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out).lines().count(), 1);
    assert!(stderr(&out).contains("no Chromium at /nonexistent/chromium"));
}

#[test]
fn emit_wpt_writes_one_test_per_browser_form() {
    let dir = std::env::temp_dir().join(format!("webmcp-cli-wpt-{}", std::process::id()));
    let out = bin()
        .args(["conformance", "--all", "--emit-wpt"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let tests: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".https.sub.html"))
        .collect();
    assert!(tests.len() >= 20, "{} tests", tests.len());
    let t = std::fs::read_to_string(dir.join("abort-before-dispatch.https.sub.html")).unwrap();
    assert!(t.contains("/resources/testharness.js") && t.contains("const ALLOWED = [{"));
    std::fs::remove_dir_all(&dir).unwrap();
}
