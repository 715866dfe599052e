//! Real browsers: a few scenarios' browser forms in Chromium (its own
//! implementation) and with the polyfill, judged by the model. Runs when
//! Chromium exists or WEBMCP_REQUIRE_BROWSER=1 (which makes absence a failure).

use std::path::{Path, PathBuf};
use std::time::Duration;

use webmcp_conformance::page::Impl;
use webmcp_conformance::run::{forms, run, Config};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn required() -> bool {
    std::env::var("WEBMCP_REQUIRE_BROWSER").as_deref() == Ok("1")
}

fn chromium_or_skip() -> Option<PathBuf> {
    let path = PathBuf::from(
        std::env::var("WEBMCP_CHROMIUM")
            .unwrap_or_else(|_| webmcp_browser::DEFAULT_CHROMIUM.into()),
    );
    if path.exists() {
        return Some(path);
    }
    assert!(
        !required(),
        "WEBMCP_REQUIRE_BROWSER=1 but no Chromium at {}",
        path.display()
    );
    eprintln!(
        "!!!! SKIPPED conformance browser tests: no Chromium at {} (set WEBMCP_REQUIRE_BROWSER=1 to make this a failure) !!!!",
        path.display()
    );
    None
}

fn scenario_texts(names: &[&str]) -> Vec<(String, String)> {
    names
        .iter()
        .map(|n| {
            let text = std::fs::read_to_string(root().join(format!("scenarios/{n}.json"))).unwrap();
            (n.to_string(), text)
        })
        .collect()
}

fn run_impl(
    chromium: PathBuf,
    imp: Impl,
    names: &[&str],
) -> Vec<webmcp_conformance::run::ScenarioResult> {
    let texts = scenario_texts(names);
    let pairs: Vec<(&str, &str)> = texts
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let (forms, skipped) = forms(&pairs).unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    let config = Config {
        chromium,
        imp,
        polyfill: Some(root().join("browser/js/node_modules/webmcp-polyfill-5/dist/index.iife.js")),
        page_timeout: Duration::from_secs(15),
    };
    run(&config, &forms, |_| {}).unwrap()
}

#[test]
fn chromium_registers_and_discovers_as_the_draft_allows() {
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let results = run_impl(
        chromium,
        Impl::Chromium,
        &["register-and-discover", "abort-before-dispatch"],
    );
    let discover = &results[0];
    assert!(!discover.timed_out);
    assert_eq!(discover.observation["top: script"], "finished");
    assert!(
        discover.seed.allowed && discover.proposed.allowed,
        "{discover:?}"
    );
    // Chromium runs the tool although the caller aborted first, and rejects with
    // UnknownError rather than the abort reason: outside every allowed observation.
    let abort = &results[1];
    assert_eq!(abort.observation["top: controller ac"], "aborted");
    assert!(!abort.seed.allowed && !abort.proposed.allowed, "{abort:?}");
    assert!(abort
        .proposed
        .differences
        .iter()
        .any(|d| d.key == "top: call exec"));
}

#[test]
fn polyfill_is_judged_in_chromium_without_the_flag() {
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let iife = root().join("browser/js/node_modules/webmcp-polyfill-5/dist/index.iife.js");
    if !iife.exists() {
        assert!(
            !required(),
            "WEBMCP_REQUIRE_BROWSER=1 but {} is missing (npm ci in browser/js)",
            iife.display()
        );
        eprintln!(
            "!!!! SKIPPED polyfill conformance test: {} missing (run npm ci in browser/js) !!!!",
            iife.display()
        );
        return;
    }
    let results = run_impl(
        chromium,
        Impl::Polyfill,
        &["not-origin-keyed", "cross-origin-exposed"],
    );
    assert!(
        results[0]
            .api
            .contains(&"document.modelContext".to_string()),
        "{:?}",
        results[0]
    );
    // Origin-Agent-Cluster: ?0 makes the polyfill reject with SecurityError, as the draft says.
    assert_eq!(
        results[0].observation["top: call reg"],
        "rejected SecurityError"
    );
    assert!(results[0].seed.allowed);
    // The polyfill refuses cross-origin frames outright.
    assert_eq!(
        results[1].observation["child: call child#0"],
        "rejected NotAllowedError"
    );
    assert!(!results[1].seed.allowed);
}
