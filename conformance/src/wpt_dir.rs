//! `webmcp-check conformance --wpt-dir DIR`: the WebMCP tests of a web-platform-tests
//! checkout (`DIR/webmcp/`), each run in headless Chromium with the recorder injected,
//! reported per file and subtest: testharness.js's result, and the model's judgement of the
//! recorded trace (`crate::trace`).

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};
use webmcp_browser::{run_pages_until, Chromium, Completion, Origin, Origins, Resource, Visit};

use crate::error::ConformanceError;
use crate::page::add_polyfill;
use crate::record::{collect, read_dir, site, write_log, File, QUIET};
use crate::trace::{validate, Refusal};

/// Where testharness.js is installed (`npm ci` in browser/js).
pub use crate::wpt::chromium::{TESTHARNESSREPORT_JS, TESTHARNESS_PATH};

/// The directory of a checkout that holds the WebMCP tests.
pub const WEBMCP_DIR: &str = "/webmcp/";

/// One test file's run.
#[derive(Clone, Debug)]
pub struct FileResult {
    /// The test's path in the checkout (`/webmcp/x.https.html`).
    pub path: String,
    /// testharness.js's status of the file (OK, ERROR, TIMEOUT), or `no result`.
    pub harness: String,
    /// (subtest name, status, message).
    pub subtests: Vec<(String, String, Option<String>)>,
    /// The recorded log.
    pub log: String,
    /// The model's judgement of it: the verdict (`allowed under ...`, `not allowed`,
    /// `undecided`), or why it was not judged.
    pub trace: Result<String, String>,
    /// The exit code the judgement alone gives (0, 1 or 3).
    pub trace_code: u8,
    /// The judgement per variant, as `validate` words it (where the model stops, and what it
    /// could do instead).
    pub trace_detail: Vec<String>,
}

/// The test files: HTML files under `webmcp/` outside `resources/` directories.
pub fn tests(files: &[File]) -> Vec<&File> {
    files
        .iter()
        .filter(|f| f.path.starts_with(WEBMCP_DIR))
        .filter(|f| !f.path.contains("/resources/"))
        .filter(|f| f.path.ends_with(".html") || f.path.ends_with(".htm"))
        .collect()
}

/// WPT's substitutions in `.sub.` files, onto the two loopback origins: the whole-origin
/// forms `https://{{host}}:{{ports[https][0]}}` (the first origin) and
/// `https://{{domains[www1]}}:{{ports[https][0]}}` (the second), and their `http` forms.
pub fn substitute(text: &str, origins: &Origins) -> String {
    let mut out = text.to_string();
    for scheme in ["https", "http"] {
        out = out
            .replace(
                &format!("{scheme}://{{{{host}}}}:{{{{ports[{scheme}][0]}}}}"),
                &origins.primary,
            )
            .replace(
                &format!("{scheme}://{{{{domains[www1]}}}}:{{{{ports[{scheme}][0]}}}}"),
                &origins.secondary,
            );
    }
    out
}

/// The parts of a web-platform-tests checkout a WebMCP test can load: `webmcp/`, `common/`
/// and `resources/` (testharness.js and its report are served from our copies whatever the
/// checkout holds). Only these are read, so that a whole checkout (hundreds of thousands of
/// files) is within the bounds of a served directory, which apply to the three together.
fn read_checkout(dir: &Path) -> Result<Vec<File>, ConformanceError> {
    let meta = std::fs::metadata(dir).map_err(|source| crate::error::DirError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    if !meta.is_dir() {
        return Err(crate::error::DirError::NotADirectory {
            path: dir.to_path_buf(),
        }
        .into());
    }
    let mut files = Vec::new();
    for part in ["webmcp", "common", "resources"] {
        let sub = dir.join(part);
        if !std::fs::symlink_metadata(&sub).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        files.extend(read_dir(&sub)?.into_iter().map(|f| File {
            path: format!("/{part}{}", f.path),
            bytes: f.bytes,
        }));
        let bytes: u64 = files.iter().map(|f| f.bytes.len() as u64).sum();
        if files.len() > crate::record::MAX_FILES {
            return Err(crate::error::DirError::TooManyFiles {
                dir: dir.to_path_buf(),
                limit: crate::record::MAX_FILES,
            }
            .into());
        }
        if bytes > crate::record::MAX_TOTAL_BYTES {
            return Err(crate::error::DirError::TooManyBytes {
                dir: dir.to_path_buf(),
                limit: crate::record::MAX_TOTAL_BYTES,
            }
            .into());
        }
    }
    Ok(files)
}

/// Runs every test of `dir`'s `webmcp/` in `chromium` (its own WebMCP, or `polyfill`
/// injected), one page at a time.
pub fn run(
    dir: &Path,
    chromium: &Chromium,
    testharness_js: &str,
    polyfill: Option<&[u8]>,
    page_timeout: Duration,
    max_states: usize,
) -> Result<Vec<FileResult>, ConformanceError> {
    let files = read_checkout(dir)?;
    let tests: Vec<File> = tests(&files).into_iter().cloned().collect();
    if tests.is_empty() {
        return Err(ConformanceError::NoTests {
            dir: dir.to_path_buf(),
        });
    }
    let mut out = Vec::new();
    for test in &tests {
        let outcomes = run_pages_until(
            chromium,
            |origins| {
                let served: Vec<File> = files
                    .iter()
                    .map(|f| {
                        if f.path.contains(".sub.") {
                            if let Ok(text) = std::str::from_utf8(&f.bytes) {
                                return File {
                                    path: f.path.clone(),
                                    bytes: substitute(text, origins).into_bytes(),
                                };
                            }
                        }
                        f.clone()
                    })
                    .collect();
                let mut s = site(&served, origins, polyfill.is_some());
                s.add_everywhere(
                    "/resources/testharness.js",
                    Resource::javascript(testharness_js.to_string()),
                );
                s.add_everywhere(
                    "/resources/testharnessreport.js",
                    Resource::javascript(format!(
                        "{}{TESTHARNESSREPORT_JS}",
                        webmcp_browser::REPORT_JS
                    )),
                );
                if let Some(iife) = polyfill {
                    add_polyfill(&mut s, iife);
                }
                let visit = Visit {
                    run: "record".into(),
                    origin: Origin::Primary,
                    path: test.path.clone(),
                };
                (s, vec![visit])
            },
            Completion::DoneThenQuiet(QUIET),
            page_timeout,
            webmcp_browser::say_why_silent,
        )
        .map_err(ConformanceError::WptRun)?;
        let outcome = outcomes.into_iter().next().expect("one visit");
        let done = outcome.done.clone().unwrap_or(Value::Null);
        let recorder: Vec<Value> = outcome
            .reports
            .iter()
            .map(|r| r.value.clone())
            .filter(|v| v.get("webmcpRecorder").is_some())
            .collect();
        let collected = collect(&recorder);
        let log = write_log(&collected.events);
        let missing = crate::record::what_is_missing(
            &collected,
            outcome.done.is_some(),
            outcome.refused,
            page_timeout.as_secs(),
        );
        let (trace, mut trace_code, mut trace_detail) = match validate(&log, max_states) {
            Ok(report) => (
                Ok(report.verdict().to_string()),
                report.exit_code(),
                report
                    .human(&log)
                    .lines()
                    .skip(1)
                    .map(|l| l.trim().to_string())
                    .collect(),
            ),
            Err(Refusal::Malformed(e)) => (
                Err(format!("the recorded log is malformed: {e}")),
                3,
                Vec::new(),
            ),
            Err(Refusal::NotJudged(why)) => (Err(why), 3, Vec::new()),
        };
        // A log that may lack events (refused, malformed or cut reports, a document the
        // recorder was not in) is judged as far as it goes, and allowed only as a prefix.
        if !missing.is_empty() {
            if trace_code == 0 {
                trace_code = 3;
            }
            trace_detail.extend(missing.iter().map(|why| format!("incomplete: {why}")));
        }
        let subtests = done["tests"]
            .as_array()
            .map(|tests| {
                tests
                    .iter()
                    .map(|t| {
                        (
                            t["name"].as_str().unwrap_or("").to_string(),
                            t["status"].as_str().unwrap_or("").to_string(),
                            t["message"].as_str().map(str::to_string),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        out.push(FileResult {
            path: test.path.clone(),
            harness: done["harness"].as_str().unwrap_or("no result").to_string(),
            subtests,
            log,
            trace,
            trace_code,
            trace_detail,
        });
    }
    Ok(out)
}

/// 1 when a recorded trace is not allowed, else 3 when one was not judged or undecided, or
/// a file gave no testharness result; else 0. testharness.js's own pass or fail is reported,
/// not judged: a failing test of a correct implementation is the test's matter.
pub fn exit_code(results: &[FileResult]) -> u8 {
    if results.iter().any(|r| r.trace_code == 1) {
        1
    } else if results
        .iter()
        .any(|r| r.trace_code == 3 || r.harness == "no result")
    {
        3
    } else {
        0
    }
}

pub fn human(results: &[FileResult]) -> String {
    // Every name, status, message and verdict comes from a page or its log: printed on one
    // line each, escaped, so that a test cannot forge a line of the report or drive the
    // terminal.
    let text = |s: &str| webmcp_model::error::one_line(s, 2_000);
    let mut out = String::new();
    for r in results {
        out.push_str(&format!(
            "{}  harness: {}\n",
            text(&r.path),
            text(&r.harness)
        ));
        for (name, status, message) in &r.subtests {
            out.push_str(&format!("    {}  {}", text(status), text(name)));
            if let Some(m) = message.as_deref().filter(|m| !m.is_empty()) {
                out.push_str(&format!("  ({})", text(m)));
            }
            out.push('\n');
        }
        match &r.trace {
            Ok(verdict) => {
                out.push_str(&format!("    trace: {}\n", text(verdict)));
                if r.trace_code != 0 {
                    for line in &r.trace_detail {
                        out.push_str(&format!("      {}\n", text(line)));
                    }
                }
            }
            Err(why) => {
                out.push_str(&format!("    trace: not judged: {}\n", text(why)));
                for line in &r.trace_detail {
                    out.push_str(&format!("      {}\n", text(line)));
                }
            }
        }
    }
    let allowed = results.iter().filter(|r| r.trace_code == 0).count();
    let not_allowed = results.iter().filter(|r| r.trace_code == 1).count();
    out.push_str(&format!(
        "{} test files: traces {allowed} allowed, {not_allowed} not allowed, {} not judged or undecided\n",
        results.len(),
        results.len() - allowed - not_allowed
    ));
    out
}

pub fn json(results: &[FileResult]) -> Value {
    json!(results
        .iter()
        .map(|r| json!({
            "path": r.path,
            "harness": r.harness,
            "subtests": r.subtests.iter().map(|(n, s, m)| json!({"name": n, "status": s, "message": m})).collect::<Vec<_>>(),
            "trace": match &r.trace { Ok(v) => json!({"verdict": v, "detail": r.trace_detail}), Err(w) => json!({"not_judged": w}) },
            "log": r.log,
        }))
        .collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    /// Of a checkout, only the parts a WebMCP test loads are read, at their paths: a whole
    /// web-platform-tests checkout has far more files than a served directory may.
    #[test]
    fn only_the_webmcp_common_and_resources_parts_of_a_checkout_are_read() {
        let dir = std::env::temp_dir().join(format!("webmcp-checkout-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in [
            ("webmcp/a.https.html", "<p>a"),
            ("webmcp/resources/child.html", "<p>c"),
            ("common/utils.js", "//"),
            ("resources/testdriver.js", "//"),
            ("dom/huge.html", "<p>not read"),
        ] {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let files = super::read_checkout(&dir).unwrap();
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/webmcp/a.https.html",
                "/webmcp/resources/child.html",
                "/common/utils.js",
                "/resources/testdriver.js"
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            super::read_checkout(&dir).is_err(),
            "a missing checkout is an error"
        );
    }

    /// What a test names and says is printed escaped, one line each: a subtest cannot forge
    /// a line of the report (a `PASS`, a `trace: allowed`) or send the terminal a control
    /// sequence.
    #[test]
    fn the_human_report_escapes_what_a_page_wrote() {
        let r = super::FileResult {
            path: "/webmcp/x.html".into(),
            harness: "OK".into(),
            subtests: vec![(
                "evil\nPASS  fake".into(),
                "FAIL".into(),
                Some("\n    trace: allowed under seed and proposed\n\u{1b}[2J".into()),
            )],
            log: String::new(),
            trace: Ok("not allowed".into()),
            trace_code: 1,
            trace_detail: vec!["line\u{1b}[32m".into()],
        };
        let out = super::human(&[r]);
        assert!(!out.contains('\u{1b}'), "{out:?}");
        assert!(
            !out.lines()
                .any(|l| l.starts_with("PASS") || l.trim_start().starts_with("trace: allowed")),
            "{out}"
        );
        assert_eq!(out.lines().count(), 5, "{out}");
    }

    use super::*;

    #[test]
    fn wpt_substitutions_map_the_two_hosts_onto_the_loopback_origins() {
        let o = Origins {
            primary: "http://127.0.0.1:4001".into(),
            secondary: "http://localhost:4002".into(),
        };
        let text = "<iframe src=\"https://{{domains[www1]}}:{{ports[https][0]}}/webmcp/resources/f.html\"></iframe> https://{{host}}:{{ports[https][0]}}";
        assert_eq!(
            substitute(text, &o),
            "<iframe src=\"http://localhost:4002/webmcp/resources/f.html\"></iframe> http://127.0.0.1:4001"
        );
    }

    #[test]
    fn tests_are_the_html_files_of_webmcp_outside_resources() {
        let f = |p: &str| File {
            path: p.into(),
            bytes: Vec::new(),
        };
        let files = [
            f("/webmcp/a.https.html"),
            f("/webmcp/resources/child.html"),
            f("/webmcp/b.https.sub.html"),
            f("/webmcp/b.https.sub.html.headers"),
            f("/other/c.html"),
        ];
        let names: Vec<&str> = tests(&files).iter().map(|f| f.path.as_str()).collect();
        assert_eq!(names, ["/webmcp/a.https.html", "/webmcp/b.https.sub.html"]);
    }
}
