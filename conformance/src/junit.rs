//! The conformance table as JUnit XML, for CI systems that show test reports: one testcase
//! per scenario and implementation. A divergence no analysis explains is a failure (it is
//! what makes the run exit 1); a run that decided nothing (inconclusive, or not implemented
//! without an analysis: what makes the run exit 3) is an error, so that a CI system that
//! reads only the report does not count the run as green; a run whose divergence or missing
//! API `conformance/analysis.json` explains is skipped with the reason.

use std::fmt::Write;

use crate::report::{verdict, Analyses};
use crate::run::ScenarioResult;
use crate::verdict::Verdict;

/// Escapes text for an XML attribute or element; control characters XML 1.0 cannot carry
/// are written as `\u{..}`, so that an observation from a page cannot break the report.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || matches!(c, '\u{FFFE}' | '\u{FFFF}') => {
                let _ = write!(out, "\\u{{{:04X}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// How a testcase ends besides a pass.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    Failure,
    Error,
    Skipped,
}

/// How the testcase of `r` ends: nothing (a pass), a failure, an error or a skip.
fn body(r: &ScenarioResult, a: &Analyses) -> (Option<End>, String) {
    let text = xml_escape(&verdict(r, a));
    match (&r.verdict, a.get(r)) {
        (Verdict::Diverges, None) => {
            let differences: Vec<String> = r
                .proposed
                .differences
                .iter()
                .map(|d| {
                    format!(
                        "{}: observed {} / allowed {}",
                        d.key,
                        d.observed.as_deref().unwrap_or("nothing"),
                        d.allowed.as_deref().unwrap_or("nothing")
                    )
                })
                .collect();
            (
                Some(End::Failure),
                format!(
                    "<failure message=\"{text}\">{}</failure>",
                    xml_escape(&differences.join("\n"))
                ),
            )
        }
        (Verdict::Inconclusive { .. }, _) | (Verdict::NotImplemented { .. }, None) => (
            Some(End::Error),
            format!("<error type=\"incomplete\" message=\"{text}\"/>"),
        ),
        (Verdict::Diverges | Verdict::NotImplemented { .. }, Some(_)) => {
            (Some(End::Skipped), format!("<skipped message=\"{text}\"/>"))
        }
        _ => (None, String::new()),
    }
}

/// The JUnit report of one run.
pub fn junit(results: &[ScenarioResult], a: &Analyses) -> String {
    let (mut failures, mut errors, mut skipped) = (0, 0, 0);
    let mut cases = String::new();
    for r in results {
        let (failed, body) = body(r, a);
        match failed {
            Some(End::Failure) => failures += 1,
            Some(End::Error) => errors += 1,
            Some(End::Skipped) => skipped += 1,
            None => {}
        }
        let time = r
            .wall_ms
            .map(|ms| format!(" time=\"{:.3}\"", ms as f64 / 1000.0))
            .unwrap_or_default();
        let _ = writeln!(
            cases,
            "    <testcase classname=\"webmcp-check.conformance.{}\" name=\"{}\"{time}>{body}</testcase>",
            xml_escape(&r.implementation),
            xml_escape(&r.scenario),
        );
    }
    let total = results.len();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"webmcp-check\" tests=\"{total}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">\n  <testsuite name=\"conformance\" tests=\"{total}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">\n{cases}  </testsuite>\n</testsuites>\n"
    )
}
