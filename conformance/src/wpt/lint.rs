//! The rules of web-platform-tests' lint (`tools/lint/rules.py` and `lint.py`) that bear on
//! the emitted files, with the rule names WPT uses, so that a failure reads as `wpt lint`
//! would print it. Not covered: rules about other kinds of file (Python, reftests, workers,
//! testdriver, Ahem, manifests) and the parse of the whole repository.

use std::collections::BTreeMap;

use super::{LINT_IGNORE, WPT_DIR};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LintError {
    pub rule: &'static str,
    /// Relative to the emitted directory.
    pub path: String,
    pub line: Option<usize>,
    pub description: String,
}

impl std::fmt::Display for LintError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(n) => write!(
                f,
                "{}:{}: {} ({})",
                self.path, n, self.rule, self.description
            ),
            None => write!(f, "{}: {} ({})", self.path, self.rule, self.description),
        }
    }
}

/// Non-void elements, which `<x/>` does not close (HTML INVALID SYNTAX).
const NON_VOID: &[&str] = &[
    "a",
    "abbr",
    "article",
    "audio",
    "b",
    "bdi",
    "bdo",
    "blockquote",
    "body",
    "button",
    "canvas",
    "caption",
    "cite",
    "code",
    "colgroup",
    "data",
    "datalist",
    "dd",
    "del",
    "details",
    "dfn",
    "dialog",
    "div",
    "dl",
    "dt",
    "em",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "html",
    "i",
    "iframe",
    "ins",
    "kbd",
    "label",
    "legend",
    "li",
    "main",
    "map",
    "mark",
    "menu",
    "meter",
    "nav",
    "noscript",
    "object",
    "ol",
    "optgroup",
    "option",
    "output",
    "p",
    "picture",
    "pre",
    "progress",
    "q",
    "rp",
    "rt",
    "ruby",
    "s",
    "samp",
    "script",
    "search",
    "section",
    "select",
    "slot",
    "small",
    "span",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "time",
    "title",
    "tr",
    "u",
    "ul",
    "var",
    "video",
];

/// `name` followed by optional whitespace and `(`, as WPT's `name\s*\(`.
fn call_of(line: &str, name: &str) -> bool {
    line.match_indices(name).any(|(i, _)| {
        line[i + name.len()..]
            .trim_start_matches(char::is_whitespace)
            .starts_with('(')
    })
}

/// `console\.[a-zA-Z]+\s*\(`
fn console_call(line: &str) -> bool {
    line.match_indices("console.").any(|(i, m)| {
        let rest = &line[i + m.len()..];
        let ident = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                .len();
        ident > 0 && rest[ident..].trim_start().starts_with('(')
    })
}

/// `<TAG ...  />` for a non-void TAG.
fn self_closed_non_void(line: &str) -> bool {
    line.match_indices('<').any(|(i, _)| {
        let rest = &line[i + 1..];
        let name_len = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_ascii_alphanumeric())
                .len();
        let name = &rest[..name_len];
        if !NON_VOID.contains(&name) {
            return false;
        }
        let after = &rest[name_len..];
        match after.find('>') {
            Some(end) => {
                let tag = &after[..end];
                tag.ends_with('/') && (tag.len() == 1 || tag.starts_with(char::is_whitespace))
            }
            None => false,
        }
    })
}

/// The line rules (WPT's `Regexp` rules): (rule, what it says, applies to scripts and
/// markup only, the test).
type LineRule = (&'static str, &'static str, bool, fn(&str) -> bool);
const LINE_RULES: &[LineRule] = &[
    ("TRAILING WHITESPACE", "Whitespace at EOL", false, |l| {
        l.ends_with([' ', '\t', '\u{c}', '\u{b}'])
    }),
    (
        "INDENT TABS",
        "Test-file line starts with one or more tab characters",
        false,
        |l| l.starts_with('\t'),
    ),
    (
        "CR AT EOL",
        "Test-file line ends with CR (U+000D) character",
        false,
        |l| l.ends_with('\r'),
    ),
    (
        "W3C-TEST.ORG",
        "Test-file line has the string `w3c-test.org`",
        false,
        |l| l.contains("w3c-test.org"),
    ),
    (
        "WEB-PLATFORM.TEST",
        "Internal web-platform.test domain used",
        false,
        |l| l.contains("web-platform.test"),
    ),
    ("WEBIDL2.JS", "Legacy webidl2.js script used", false, |l| {
        l.contains("webidl2.js")
    }),
    ("SET TIMEOUT", "setTimeout used", true, |l| {
        call_of(l, "setTimeout")
    }),
    (
        "CONSOLE",
        "Test-file line has a `console.*(...)` call",
        true,
        console_call,
    ),
    (
        "GENERATE_TESTS",
        "Test file line has a generate_tests call",
        true,
        |l| call_of(l, "generate_tests"),
    ),
    (
        "LAYOUTTESTS APIS",
        "eventSender/testRunner/internals used; these are LayoutTests-specific APIs (WebKit/Blink)",
        true,
        |l| {
            ["eventSender.", "testRunner.", "internals."]
                .iter()
                .any(|s| l.contains(s))
        },
    ),
    (
        "MISSING DEPENDENCY",
        "Chromium-specific content referenced",
        true,
        |l| {
            l.match_indices("/gen/")
                .any(|(i, _)| i > 0 && !l[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
        },
    ),
    ("SPECIALPOWERS API", "SpecialPowers used", true, |l| {
        l.contains("SpecialPowers")
    }),
    (
        "ASSERT_THROWS",
        "Test-file line has an `assert_throws(...)` call",
        true,
        |l| {
            l.match_indices("assert_throws(")
                .any(|(i, _)| !l[..i].ends_with('.'))
        },
    ),
    (
        "PROMISE_REJECTS",
        "Test-file line has a `promise_rejects(...)` call",
        true,
        |l| l.contains("promise_rejects("),
    ),
    (
        "ASSERT-PRECONDITION",
        "Test-file line has an `assert_precondition(...)` call",
        true,
        |l| {
            l.match_indices("assert_precondition(")
                .any(|(i, _)| !l[..i].ends_with('.'))
        },
    ),
];

/// `<script src="...">` sources and `<meta name="timeout" content="...">` values of a
/// document, with their positions.
fn script_srcs(text: &str) -> Vec<(usize, &str)> {
    text.match_indices("<script src=\"")
        .filter_map(|(i, m)| {
            let rest = &text[i + m.len()..];
            rest.find('"').map(|end| (i, &rest[..end]))
        })
        .collect()
}

fn timeouts(text: &str) -> Vec<(usize, &str)> {
    text.match_indices("<meta name=\"timeout\"")
        .map(|(i, m)| {
            let rest = &text[i + m.len()..];
            let content = rest
                .split('>')
                .next()
                .and_then(|a| a.split("content=\"").nth(1))
                .and_then(|c| c.split('"').next())
                .unwrap_or("");
            (i, content)
        })
        .collect()
}

fn ignored(rule: &str, path: &str) -> bool {
    LINT_IGNORE.iter().any(|(r, p)| *r == rule && *p == path)
}

/// Lints the emitted files (path relative to the emitted directory -> text), less the
/// exceptions of [`LINT_IGNORE`].
pub fn lint(files: &BTreeMap<String, String>) -> Vec<LintError> {
    let mut out = Vec::new();
    for (path, text) in files {
        let mut err = |rule: &'static str, line: Option<usize>, description: String| {
            if !ignored(rule, path) {
                out.push(LintError {
                    rule,
                    path: path.clone(),
                    line,
                    description,
                });
            }
        };
        let full = format!("/{WPT_DIR}/{path}");
        if full.len() > 150 {
            err(
                "PATH LENGTH",
                None,
                format!(
                    "{full} longer than maximum path length ({} > 150)",
                    full.len()
                ),
            );
        }
        let markup_or_script = path.ends_with(".html") || path.ends_with(".js");
        for (n, line) in text.split('\n').enumerate() {
            for (rule, description, scripts_only, check) in LINE_RULES {
                if (!scripts_only || markup_or_script) && check(line) {
                    err(rule, Some(n + 1), description.to_string());
                }
            }
            if path.ends_with(".html") && self_closed_non_void(line) {
                err(
                    "HTML INVALID SYNTAX",
                    Some(n + 1),
                    "Test-file line has a non-void HTML tag with /> syntax".into(),
                );
            }
        }
        // Not a rule of WPT's lint but of its server: `.sub.` files are the ones it
        // substitutes, and only they may use substitutions.
        let sub = path.contains(".sub.");
        if markup_or_script && sub != text.contains("{{") {
            err(
                "SUBSTITUTION",
                None,
                if sub {
                    "`.sub.` file without substitutions".into()
                } else {
                    "substitutions in a file without `.sub.`".into()
                },
            );
        }
        if !path.ends_with(".html") {
            continue;
        }
        let srcs = script_srcs(text);
        let harness: Vec<usize> = srcs
            .iter()
            .filter(|(_, s)| s.ends_with("testharness.js"))
            .map(|(i, _)| *i)
            .collect();
        let report: Vec<usize> = srcs
            .iter()
            .filter(|(_, s)| s.ends_with("testharnessreport.js"))
            .map(|(i, _)| *i)
            .collect();
        for (_, s) in &srcs {
            if s.ends_with("testharness.js") && *s != "/resources/testharness.js" {
                err(
                    "TESTHARNESS-PATH",
                    None,
                    "testharness.js script seen with incorrect path".into(),
                );
            }
            if s.ends_with("testharnessreport.js") && *s != "/resources/testharnessreport.js" {
                err(
                    "TESTHARNESSREPORT-PATH",
                    None,
                    "testharnessreport.js script seen with incorrect path".into(),
                );
            }
        }
        let is_test = !path.starts_with("resources/");
        if harness.is_empty() {
            // Not a rule of WPT's lint either: these tests are all testharness.js tests.
            if is_test {
                err(
                    "MISSING-TESTHARNESS",
                    None,
                    "a test that does not load /resources/testharness.js".into(),
                );
            }
            continue;
        }
        if harness.len() > 1 {
            err(
                "MULTIPLE-TESTHARNESS",
                None,
                "More than one `<script src='/resources/testharness.js'>`".into(),
            );
        }
        match report.as_slice() {
            [] => err(
                "MISSING-TESTHARNESSREPORT",
                None,
                "Missing `<script src='/resources/testharnessreport.js'>`".into(),
            ),
            [r] => {
                if *r < harness[0] {
                    err(
                        "EARLY-TESTHARNESSREPORT",
                        None,
                        "testharnessreport.js included before testharness.js".into(),
                    );
                }
                let t = timeouts(text);
                if t.len() > 1 {
                    err(
                        "MULTIPLE-TIMEOUT",
                        None,
                        "More than one meta name='timeout'".into(),
                    );
                }
                for (at, content) in t {
                    if content != "long" {
                        err(
                            "INVALID-TIMEOUT",
                            None,
                            format!(
                                "`<meta name='timeout'>` whose content is not `long`: {content}"
                            ),
                        );
                    }
                    if at > *r {
                        err(
                            "LATE-TIMEOUT",
                            None,
                            "`<meta name='timeout'>` after testharnessreport.js".into(),
                        );
                    }
                }
            }
            _ => err(
                "MULTIPLE-TESTHARNESSREPORT",
                None,
                "More than one `<script src='/resources/testharnessreport.js'>`".into(),
            ),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(path: &str, text: &str) -> Vec<&'static str> {
        let files = BTreeMap::from([(path.to_string(), text.to_string())]);
        lint(&files).into_iter().map(|e| e.rule).collect()
    }

    const GOOD: &str = "<!doctype html>\n<meta name=\"timeout\" content=\"long\">\n<script src=\"/resources/testharness.js\"></script>\n<script src=\"/resources/testharnessreport.js\"></script>\n";

    #[test]
    fn a_well_formed_test_passes() {
        assert!(one("a.https.html", GOOD).is_empty());
    }

    #[test]
    fn each_rule_fires_on_what_wpt_flags() {
        assert_eq!(
            one("a.html", &format!("{GOOD}x \n")),
            ["TRAILING WHITESPACE"]
        );
        assert_eq!(one("a.html", &format!("{GOOD}\tx\n")), ["INDENT TABS"]);
        assert_eq!(one("a.html", &format!("{GOOD}x\r\n")), ["CR AT EOL"]);
        assert_eq!(
            one("a.html", &format!("{GOOD}setTimeout (f, 1);\n")),
            ["SET TIMEOUT"]
        );
        assert!(one("a.html", &format!("{GOOD}step_timeout(f, 1);\n")).is_empty());
        assert_eq!(
            one("a.html", &format!("{GOOD}console.log('x');\n")),
            ["CONSOLE"]
        );
        assert_eq!(
            one("a.html", &format!("{GOOD}<div/>\n")),
            ["HTML INVALID SYNTAX"]
        );
        assert!(one("a.html", &format!("{GOOD}<br/>\n")).is_empty());
        assert_eq!(
            one("a.html", &format!("{GOOD}{{{{host}}}}\n")),
            ["SUBSTITUTION"]
        );
        assert_eq!(one("a.sub.html", GOOD), ["SUBSTITUTION"]);
        assert_eq!(
            one(
                "a.html",
                &GOOD.replace("content=\"long\"", "content=\"10\"")
            ),
            ["INVALID-TIMEOUT"]
        );
        assert_eq!(
            one("a.html", "<script src=\"/resources/testharness.js\"></script>\n<script src=\"/resources/testharnessreport.js\"></script>\n<meta name=\"timeout\" content=\"long\">\n"),
            ["LATE-TIMEOUT"]
        );
        assert_eq!(
            one("a.html", "<script src=\"/resources/testharnessreport.js\"></script>\n<script src=\"/resources/testharness.js\"></script>\n"),
            ["EARLY-TESTHARNESSREPORT"]
        );
        assert_eq!(
            one("a.html", "<script src=\"testharness.js\"></script>\n<script src=\"/resources/testharnessreport.js\"></script>\n"),
            ["TESTHARNESS-PATH"]
        );
        assert_eq!(one("a.html", "<p>\n"), ["MISSING-TESTHARNESS"]);
        assert!(one("resources/a.html", "<p>\n").is_empty());
        assert_eq!(
            one(&format!("{}.html", "x".repeat(140)), GOOD),
            ["PATH LENGTH"]
        );
    }

    #[test]
    fn the_runtime_may_use_its_timers() {
        assert!(one("resources/webmcp-runtime.js", "setTimeout(f, 1);\n").is_empty());
        assert_eq!(
            one("resources/other.js", "setTimeout(f, 1);\n"),
            ["SET TIMEOUT"]
        );
    }
}
