//! `legacy-conformance` against the real polyfill in real Chromium. Ignored when Chromium
//! ($WEBMCP_CHROMIUM, default /usr/bin/chromium) or the installed polyfill is missing, unless
//! WEBMCP_REQUIRE_BROWSER=1 (then their absence fails).

use std::path::Path;
use std::process::Command;

fn polyfill() -> String {
    format!(
        "{}/browser/js/node_modules/webmcp-polyfill-legacy/dist/index.iife.js",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn conformance(variant: &str) -> (Option<i32>, serde_json::Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "legacy-conformance",
            "--format",
            "json",
            "--variant",
            variant,
            // Generous: a page returns as soon as it is done, and a slow first Chromium
            // start on a busy machine must not turn a verdict into "inconclusive".
            "--page-timeout",
            "60",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("JSON: {stderr}"));
    // What the command said on stderr (a page that reported nothing says why), so that a
    // failing assertion that prints the report shows it too.
    v["stderr"] = stderr.into_owned().into();
    (out.status.code(), v)
}

fn verdicts(v: &serde_json::Value) -> Vec<(String, Option<bool>)> {
    v["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["scenario"].as_str().unwrap().to_string(),
                s["allowed"].as_bool(),
            )
        })
        .collect()
}

#[test]
#[cfg_attr(
    any(webmcp_no_chromium, webmcp_no_polyfill),
    ignore = "needs Chromium ($WEBMCP_CHROMIUM or /usr/bin/chromium) and the polyfills (npm ci in browser/js); WEBMCP_REQUIRE_BROWSER=1 makes their absence a failure"
)]
fn the_polyfill_conforms_except_where_it_takes_two_alternatives() {
    webmcp_browser::chromium_for_tests();
    assert!(
        Path::new(&polyfill()).exists(),
        "{} is missing (npm ci in browser/js)",
        polyfill()
    );
    let (code, report) = conformance("chosen");
    assert_eq!(code, Some(1), "{report}");
    for (name, allowed) in verdicts(&report) {
        let s = report["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["scenario"] == name.as_str())
            .unwrap();
        let why = format!("{name}: {s}\nstderr: {}", report["stderr"]);
        match name.as_str() {
            // The polyfill looks the tool up, awaits validation, then invokes it.
            "clear-between-request-and-start" => {
                assert_eq!(allowed, Some(false), "{why}");
                assert_eq!(s["allowed_by"], serde_json::json!(["lookup-at-request"]));
                assert_eq!(s["differences"][0]["key"], "e1.at-start");
            }
            // The polyfill deactivates the client only after the result is serialised.
            "interaction-same-task-as-settle" => {
                assert_eq!(allowed, Some(false), "{why}");
                assert_eq!(
                    s["allowed_by"],
                    serde_json::json!(["unbound-client", "live-until-reply"])
                );
                assert_eq!(s["differences"][0]["key"], "e1.rui#0");
            }
            "unload-during-execution" => assert_eq!(allowed, None, "not run in a browser"),
            _ => assert_eq!(allowed, Some(true), "{why}"),
        }
    }
    let (code, report) = conformance("chosen+lookup-at-request+live-until-reply");
    assert_eq!(code, Some(0), "{report}");
    assert!(verdicts(&report)
        .iter()
        .all(|(n, a)| *a == Some(true) || n == "unload-during-execution"));
}

#[test]
fn a_missing_polyfill_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
        .args([
            "legacy-conformance",
            "--polyfill",
            "/nonexistent/index.iife.js",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("npm ci"));
}
