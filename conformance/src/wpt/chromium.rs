//! Runs emitted tests in Chromium with testharness.js, the way a WPT runner would: the files
//! of [`super::files`] served under `/webmcp/` (substituted where `.sub.`, with their
//! `.headers`), testharness.js at `/resources/testharness.js`, and a `testharnessreport.js`
//! that posts every test's status when the harness completes. With a polyfill, each document
//! loads it first (the implementation under test); without, Chromium's own.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use webmcp_browser::{run_pages, Chromium, Origin, Resource, Site, Visit, REPORT_JS};
use webmcp_model::Variant;

use super::{file_name, files, WPT_DIR};
use crate::error::ConformanceError;
use crate::form::BrowserForm;
use crate::page::POLYFILL_PATH;

/// testharness.js as the npm package `wpt-runner` ships it (installed by `npm ci` in
/// browser/js), relative to the repository.
pub const TESTHARNESS_PATH: &str = "browser/js/node_modules/wpt-runner/testharness/testharness.js";

/// Our testharnessreport.js: each test's status and message, and the harness's, to the
/// server's `/__done` once the harness completes.
pub const TESTHARNESSREPORT_JS: &str = r#"
add_completion_callback((tests, harness) => {
  const names = ['PASS', 'FAIL', 'TIMEOUT', 'NOTRUN', 'PRECONDITION_FAILED'];
  const harnessNames = ['OK', 'ERROR', 'TIMEOUT', 'PRECONDITION_FAILED'];
  __done({
    harness: harnessNames[harness.status] || String(harness.status),
    harnessMessage: harness.message,
    tests: tests.map((t) => ({ name: t.name, status: names[t.status] || String(t.status), message: t.message })),
  });
});
"#;

/// The outcome of one emitted test file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WptOutcome {
    pub scenario: String,
    /// PASS, FAIL, TIMEOUT, NOTRUN, PRECONDITION_FAILED; the harness's status (ERROR,
    /// TIMEOUT) when it ran no test; `no result` when the page never completed.
    pub status: String,
    pub message: Option<String>,
}

impl WptOutcome {
    pub fn passed(&self) -> bool {
        self.status == "PASS"
    }
}

/// Runs the tests of `forms` (asserting `variant`) one page each.
pub fn run(
    chromium: &Chromium,
    testharness_js: &str,
    polyfill: Option<&[u8]>,
    forms: &[BrowserForm],
    variant: Variant,
    page_timeout: Duration,
) -> Result<Vec<WptOutcome>, ConformanceError> {
    let (files, unwritten) = files(forms, variant, crate::judge::STATE_LIMIT);
    if let Some(u) = unwritten.first() {
        return Err(ConformanceError::Unwritten(u.clone()));
    }
    let outcomes = run_pages(
        chromium,
        |origins| {
            let mut site = Site::new();
            site.add_everywhere(
                "/resources/testharness.js",
                Resource::javascript(testharness_js.to_string()),
            );
            site.add_everywhere(
                "/resources/testharnessreport.js",
                Resource::javascript(format!("{REPORT_JS}{TESTHARNESSREPORT_JS}")),
            );
            if let Some(iife) = polyfill {
                site.add_everywhere(POLYFILL_PATH, Resource::javascript(iife.to_vec()));
            }
            for (path, text) in &files {
                if path.ends_with(".headers") {
                    continue;
                }
                let mut text = if path.contains(".sub.") {
                    crate::wpt_dir::substitute(text, origins)
                } else {
                    text.clone()
                };
                let resource = if path.ends_with(".html") {
                    if polyfill.is_some() {
                        text = text.replacen(
                            "<meta charset=\"utf-8\">\n",
                            &format!(
                                "<meta charset=\"utf-8\">\n<script src=\"{POLYFILL_PATH}\"></script>\n"
                            ),
                            1,
                        );
                    }
                    let mut r = Resource::html(text);
                    if let Some(h) = files.get(&format!("{path}.headers")) {
                        for line in h.lines() {
                            if let Some((name, value)) = line.split_once(": ") {
                                r = r.with_header(name, value);
                            }
                        }
                    }
                    r
                } else {
                    Resource::javascript(text)
                };
                site.add_everywhere(&format!("/{WPT_DIR}/{path}"), resource);
            }
            let visits = forms
                .iter()
                .map(|f| Visit {
                    run: f.scenario.clone(),
                    origin: Origin::Primary,
                    path: format!("/{WPT_DIR}/{}", file_name(f, &f.docs[0])),
                })
                .collect();
            (site, visits)
        },
        page_timeout,
        webmcp_browser::say_why_silent,
    )
    .map_err(ConformanceError::WptRun)?;
    Ok(forms
        .iter()
        .zip(outcomes)
        .map(|(f, o)| {
            let done = o.done.unwrap_or_default();
            let test = &done["tests"][0];
            let (status, message) = if test.is_object() {
                (test["status"].as_str(), test["message"].as_str())
            } else {
                (done["harness"].as_str(), done["harnessMessage"].as_str())
            };
            WptOutcome {
                scenario: f.scenario.clone(),
                status: status.unwrap_or("no result").to_string(),
                message: message.map(str::to_string),
            }
        })
        .collect())
}

/// The section of docs/conformance.md that records a run of the emitted tests.
pub fn docs_section(
    implementation: &str,
    testharness_version: &str,
    variant: Variant,
    outcomes: &[WptOutcome],
) -> String {
    let mut out = String::from("## Emitted web-platform tests in Chromium with the polyfill\n\n");
    let passed = outcomes.iter().filter(|o| o.passed()).count();
    let _ = writeln!(
        out,
        "`--emit-wpt` tests asserting `{}`, run in Chromium against {implementation} with \
         testharness.js from `wpt-runner@{testharness_version}` \
         (`conformance/tests/wpt_in_chromium.rs`): {passed} of {} pass.\n",
        variant.name(),
        outcomes.len()
    );
    out.push_str("| test | status | first failed assertion |\n|---|---|---|\n");
    for o in outcomes {
        let message = o
            .message
            .as_deref()
            .map(|m| m.replace('|', "\\|").replace('\n', " "))
            .unwrap_or_default();
        let _ = writeln!(out, "| {} | {} | {message} |", o.scenario, o.status);
    }
    out
}

/// The `version` in the package.json of the npm package that holds `file`, searching upwards.
pub fn package_version(file: &Path) -> Option<String> {
    package_of(file).map(|(_, version)| version)
}

/// The name and version of the package `file` belongs to: its nearest package.json only
/// (a file outside a package is not named by the project it sits in further up).
pub fn package_of(file: &Path) -> Option<(String, String)> {
    let text = file
        .ancestors()
        .skip(1)
        .find_map(|d| std::fs::read_to_string(d.join("package.json")).ok())?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some((
        v["name"].as_str()?.to_string(),
        v["version"].as_str()?.to_string(),
    ))
}
