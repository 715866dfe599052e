//! The emitted web-platform-tests, run in Chromium against the polyfill with the real
//! testharness.js (from the npm package `wpt-runner`, installed by `npm ci` in browser/js):
//! each test must pass exactly where the conformance run of the same pages judges the
//! polyfill's observation allowed by the variant the tests assert (`proposed`). Ignored when
//! no Chromium is installed or `npm ci` has not been run, unless WEBMCP_REQUIRE_BROWSER=1.
//! WEBMCP_WPT_ALL=1 runs every scenario that has a browser form instead of the sample, and
//! prints the section of docs/conformance.md that records the run.

use std::path::Path;
use std::time::Duration;

use webmcp_browser::Chromium;
use webmcp_conformance::page::Impl;
use webmcp_conformance::run::{forms, run, Config};
use webmcp_conformance::verdict::Verdict;
use webmcp_conformance::wpt::chromium::{docs_section, package_version, TESTHARNESS_PATH};
use webmcp_conformance::wpt::{self, lint};
use webmcp_model::Variant;

const POLYFILL: &str = "browser/js/node_modules/webmcp-polyfill-5/dist/index.iife.js";

/// Conforming and diverging rows of the polyfill's conformance run, one of them long
/// (an iframe removed while a tool body runs) and two with a second origin.
const SAMPLE: &[&str] = &[
    "register-and-discover",
    "object-input-double-negative",
    "same-origin-iframe",
    "abort-before-dispatch",
    "cross-origin-exposed",
    "target-unloaded-mid-execution",
    "tool-result-unserializable",
    "forged-tool-not-exposed",
];

#[test]
#[cfg_attr(
    any(webmcp_no_chromium, webmcp_no_polyfill),
    ignore = "needs Chromium ($WEBMCP_CHROMIUM or /usr/bin/chromium) and npm ci in browser/js (the polyfill, testharness.js); WEBMCP_REQUIRE_BROWSER=1 makes their absence a failure"
)]
fn emitted_tests_pass_exactly_where_the_polyfill_is_allowed_by_proposed() {
    let chromium_path = webmcp_browser::chromium_for_tests();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let testharness = std::fs::read_to_string(root.join(TESTHARNESS_PATH))
        .expect("testharness.js (run `npm ci` in browser/js)");
    assert!(testharness.contains("Test.prototype.step_wait = function"));
    let iife =
        std::fs::read(root.join(POLYFILL)).expect("the polyfill (run `npm ci` in browser/js)");
    let all = std::env::var("WEBMCP_WPT_ALL").is_ok_and(|v| v == "1");
    let mut texts: Vec<(String, String)> = Vec::new();
    for entry in std::fs::read_dir(root.join("scenarios")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if path.extension().is_some_and(|e| e == "json") && (all || SAMPLE.contains(&name.as_str()))
        {
            texts.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
    texts.sort();
    let pairs: Vec<(&str, &str)> = texts
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let (forms, _) = forms(&pairs).unwrap();
    let variant = Variant::proposed();
    let (files, unwritten) = wpt::files(&forms, variant, webmcp_conformance::judge::STATE_LIMIT);
    assert!(unwritten.is_empty(), "{unwritten:?}");
    assert!(lint::lint(&files).is_empty());
    let outcomes = wpt::chromium::run(
        &Chromium::new(&chromium_path),
        &testharness,
        Some(&iife),
        &forms,
        variant,
        Duration::from_secs(70),
    )
    .unwrap();
    let judged = run(
        &Config {
            chromium: chromium_path,
            imp: Impl::Polyfill,
            api: webmcp_conformance::page::Api::Draft,
            polyfill: Some(root.join(POLYFILL)),
            page_timeout: Duration::from_secs(30),
        },
        &forms,
        |_| {},
    )
    .unwrap();
    let section = docs_section(
        &format!(
            "`@mcp-b/webmcp-polyfill@{}`",
            package_version(&root.join(POLYFILL)).unwrap_or_default()
        ),
        &package_version(&root.join(TESTHARNESS_PATH)).unwrap_or_default(),
        variant,
        &outcomes,
    );
    eprintln!("{section}");
    // A judged run whose top-level script did not finish (a page that went quiet early, as a
    // loaded machine can make it) observed too little to compare: left out, not judged.
    let mut compared = 0;
    for (o, r) in outcomes.iter().zip(&judged) {
        assert_eq!(o.scenario, r.scenario);
        assert!(
            ["PASS", "FAIL"].contains(&o.status.as_str()),
            "{}: the test neither passed nor failed: {o:?}",
            o.scenario
        );
        if r.observation.get("top: script").map(String::as_str) != Some("finished") {
            eprintln!(
                "{}: the judged run did not finish its script; not compared",
                r.scenario
            );
            continue;
        }
        // The test asserts what the verdict requires: an observation `proposed` allows, with
        // every statement it depends on run.
        assert_eq!(
            o.passed(),
            matches!(r.verdict, Verdict::Conforms { .. }),
            "{o:?}\n{r:?}"
        );
        compared += 1;
    }
    assert!(
        compared >= forms.len() / 2,
        "only {compared} runs finished: {judged:?}"
    );
    assert!(
        outcomes.iter().any(|o| o.passed()),
        "no emitted test passed: {outcomes:?}"
    );
    assert!(
        outcomes.iter().any(|o| !o.passed()),
        "no emitted test failed: {outcomes:?}"
    );
}
