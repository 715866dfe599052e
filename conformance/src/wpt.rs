//! Browser forms as web-platform-tests. For each form, `DIR/SCENARIO.https.html` (or
//! `.https.sub.html` when it needs a second origin) is a testharness.js test that asserts
//! what the pages observe is among the observations the model allows under one variant
//! (`proposed` unless `--wpt-variant` names another): one `assert_equals` per key on which
//! every allowed observation agrees, one `assert_in_array` per key on which they differ, then
//! the observation as a whole. Its iframes are documents in `DIR/resources/`, and the code
//! every test shares is `resources/webmcp-runtime.js` (the page runtime, `js/runtime.js`) and
//! `resources/webmcp-harness.js` (`js/wpt-harness.js`: collecting and folding the reports).
//! [`lint`] applies the rules of WPT's `tools/lint` that bear on these files.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Value};
use webmcp_browser::Origin;
use webmcp_model::{Variant, World};

use crate::form::{BrowserForm, DocForm, INTERVENTION_FALLBACK_MS};
use crate::judge::{allowed_within, required_coverage_within, STATE_LIMIT};
use crate::observation::Observation;
use crate::page::RUNTIME_JS;
use crate::run::describe_statement;

pub const HARNESS_JS: &str = include_str!("../js/wpt-harness.js");
/// The shared files, as a test's `<script src>` names them (relative to the test).
pub const RUNTIME_FILE: &str = "resources/webmcp-runtime.js";
pub const HARNESS_FILE: &str = "resources/webmcp-harness.js";
/// The directory of web-platform-tests the tests are written for (their cross-origin iframes
/// name it in absolute URLs).
pub const WPT_DIR: &str = "webmcp";
/// The published draft.
pub const DRAFT_URL: &str = "https://webmachinelearning.github.io/webmcp/";
/// The observation is judged once the pages have reported nothing for this long, unless it is
/// one the draft allows before (ms).
pub const QUIET_MS: u64 = 1500;
/// How long a test waits for either (ms): within testharness.js's 10 s default, and within its
/// 60 s for `<meta name=timeout content=long>`.
const WAIT_MS: u64 = 8000;
const WAIT_LONG_MS: u64 = 45000;

/// Exceptions to WPT's lint for these files, as lines of its `lint.ignore`. The page runtime
/// runs in cross-origin iframes that have no testharness.js (so no `step_timeout`), and its
/// two timers are part of the scenario: a tool body that runs for a while, so that
/// interventions land during it, and interventions a while after the script starts when no
/// body has been invoked.
pub const LINT_IGNORE: &[(&str, &str)] = &[("SET TIMEOUT", "resources/webmcp-runtime.js")];

/// The anchor (without `#`) of an algorithm's definition in the published draft, by the slug
/// its step IDs use in spec/webmcp-algorithms.md. The same anchors as
/// traces/src/anchors.rs, for the algorithms a browser form exercises.
pub fn algorithm_anchor(slug: &str) -> Option<&'static str> {
    Some(match slug {
        "model-context-getter" => "dom-document-modelcontext",
        "register-tool" => "dom-modelcontext-registertool",
        "unregister-tool" => "model-context-unregister-a-tool",
        "notify-tool-change" => "notify-documents-of-a-tool-change",
        "get-tools" => "dom-modelcontext-gettools",
        "tool-exposed-to-origin" => "tool-is-exposed-to-an-origin",
        "execute-tool" => "dom-modelcontext-executetool",
        "imperative-execute-steps" => "imperative-execute-steps",
        "tool-execute-steps" => "tool-execute-steps",
        "cancel-pending-execution" => "cancel-a-pending-tool-execution",
        "unload-cleanup" => "pending-tool-executions",
        _ => return None,
    })
}

/// The algorithms a form exercises (slugs, in the draft's order): what its statements call,
/// and what its signals, second origin and removed iframes bring in.
pub fn algorithms(form: &BrowserForm) -> Vec<&'static str> {
    let statements = || form.docs.iter().flat_map(|d| d.statements.iter());
    let has = |key: &str| statements().any(|s| s.get(key).is_some());
    let register = has("registerTool");
    let execute = has("executeTool");
    let mut out = vec!["model-context-getter"];
    if register {
        out.extend(["register-tool", "notify-tool-change"]);
    }
    if statements().any(|s| s.get("registerTool").is_some() && s.get("signal").is_some()) {
        out.push("unregister-tool");
    }
    if has("getTools") {
        out.push("get-tools");
    }
    if form.origins.len() > 1 {
        out.push("tool-exposed-to-origin");
    }
    if execute {
        out.extend([
            "execute-tool",
            "imperative-execute-steps",
            "tool-execute-steps",
        ]);
    }
    if statements().any(|s| s.get("executeTool").is_some() && s.get("signal").is_some()) {
        out.push("cancel-pending-execution");
    }
    if has("removeIframe") || form.docs.iter().any(|d| !d.remove_iframe.is_empty()) {
        out.push("unload-cleanup");
    }
    out
}

/// Whether the form needs WPT's server substitutions: only for a second origin (a single
/// origin is the test's own, and its iframes are named by relative URLs).
fn substitutes(form: &BrowserForm) -> bool {
    form.origins.len() > 1
}

/// The file name of a test (in `DIR`) or of one of its iframes (in `DIR/resources`).
pub fn file_name(form: &BrowserForm, doc: &DocForm) -> String {
    let sub = if substitutes(form) { ".sub" } else { "" };
    if doc.name == form.docs[0].name {
        format!("{}.https{sub}.html", form.scenario)
    } else {
        format!("{}--{}.https{sub}.html", form.scenario, doc.name)
    }
}

/// WPT's server substitutions for the two origins (`.sub.` files).
fn origin_template(o: Origin) -> &'static str {
    match o {
        Origin::Primary => "https://{{host}}:{{ports[https][0]}}",
        Origin::Secondary => "https://{{domains[www1]}}:{{ports[https][0]}}",
    }
}

/// Stands for `self.origin` in the JSON of a single-origin form.
const SELF_ORIGIN: &str = "\u{0}self-origin";

fn form_json(form: &BrowserForm, doc: &DocForm) -> String {
    let windows: serde_json::Map<String, Value> = form
        .docs
        .iter()
        .map(|d| (d.name.clone(), json!(d.window_path)))
        .collect();
    let origins: serde_json::Map<String, Value> = form
        .origins
        .iter()
        .map(|(m, o)| {
            let real = if substitutes(form) {
                origin_template(*o)
            } else {
                SELF_ORIGIN
            };
            (m.clone(), json!(real))
        })
        .collect();
    let v = json!({
        "scenario": form.scenario, "doc": doc.name, "impl": "draft",
        "origins": origins, "windows": windows, "statements": doc.statements,
        "controllers": doc.controllers,
        "iframes": doc.iframes.iter().map(|f| f.nav.clone()).collect::<Vec<_>>(),
        "interventions": {"abort": doc.abort, "removeIframe": doc.remove_iframe},
        "body": form.body, "bodyDelay": form.body_delay_ms,
        "interventionFallback": INTERVENTION_FALLBACK_MS,
    });
    serde_json::to_string(&v)
        .expect("JSON values serialize")
        .replace(&json!(SELF_ORIGIN).to_string(), "self.origin")
        .replace("</", "<\\/")
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The runtime's script and the document's iframes. `prefix` leads from the document to
/// `DIR/resources/` (`resources/` for a test, nothing for an iframe).
fn body(form: &BrowserForm, doc: &DocForm, prefix: &str) -> String {
    let mut out = format!(
        "<script>\nconst FORM = {};\n</script>\n<script src=\"{prefix}webmcp-runtime.js\"></script>\n",
        form_json(form, doc)
    );
    for fr in &doc.iframes {
        let child = form
            .docs
            .iter()
            .find(|d| d.name == fr.doc)
            .expect("flattened");
        let src = if substitutes(form) {
            format!(
                "{}/{WPT_DIR}/resources/{}",
                origin_template(child.origin),
                file_name(form, child)
            )
        } else {
            format!("{prefix}{}", file_name(form, child))
        };
        let allow = fr.allow.as_ref().map(|a| {
            let mut a = a.clone();
            for (m, o) in &form.origins {
                let real = if substitutes(form) {
                    origin_template(*o)
                } else {
                    "'self'"
                };
                a = a.replace(m.as_str(), real);
            }
            format!(" allow=\"{}\"", html_escape(&a))
        });
        let _ = writeln!(
            out,
            "<iframe id=\"nav-{}\" src=\"{src}\"{}></iframe>",
            html_escape(&fr.nav),
            allow.unwrap_or_default()
        );
    }
    out
}

/// `Origin-Agent-Cluster` for a document, as WPT's `FILE.headers`.
fn headers(doc: &DocForm) -> String {
    format!(
        "Origin-Agent-Cluster: {}\n",
        if doc.origin_keyed { "?1" } else { "?0" }
    )
}

/// The variant, as test names say it.
pub fn variant_phrase(variant: Variant) -> String {
    if variant == Variant::SEED {
        "the draft as written".into()
    } else if variant == Variant::proposed() {
        "the draft with the proposed fixes".into()
    } else {
        format!("the draft under variant {}", variant.name())
    }
}

/// What an observation key is, in the API's words, for assertion messages.
fn key_message(form: &BrowserForm, key: &str, draft: &str) -> String {
    let (doc, what) = key.split_once(": ").unwrap_or(("?", key));
    let method = |label: &str| {
        form.docs
            .iter()
            .flat_map(|d| d.statements.iter())
            .find(|s| s["label"] == label)
            .and_then(|s| {
                ["registerTool", "getTools", "executeTool"]
                    .into_iter()
                    .find(|m| s.get(*m).is_some())
            })
            .unwrap_or("the")
    };
    if what == "script" {
        format!("the script in {doc} ends where {draft} allows")
    } else if what == "toolchange" {
        format!(
            "toolchange events at {doc}'s document.modelContext (counted to 3) are as {draft} allows"
        )
    } else if let Some(label) = what.strip_prefix("call ") {
        format!(
            "{}() promise for {label} in {doc} settles as {draft} allows",
            method(label)
        )
    } else if let Some(c) = what.strip_prefix("controller ") {
        format!("AbortController {c} in {doc} is aborted or not as {draft} allows")
    } else if let Some(nav) = what.strip_prefix("iframe ") {
        format!("iframe {nav} in {doc} is attached or removed as {draft} allows")
    } else if let Some(tool) = what.strip_prefix("invoke ") {
        format!(
            "the execute callback of {tool} in {doc} is invoked with the input and signal {draft} allows"
        )
    } else {
        format!("{key} is as {draft} allows")
    }
}

fn js_string(s: &str) -> String {
    json!(s).to_string().replace("</", "<\\/")
}

/// The assertions of a test: per key, then jointly.
fn assertions(form: &BrowserForm, allowed: &BTreeSet<Observation>, draft: &str) -> String {
    let keys: BTreeSet<&String> = allowed.iter().flat_map(|o| o.keys()).collect();
    let mut out = String::new();
    for key in &keys {
        let values: BTreeSet<Option<&String>> = allowed.iter().map(|o| o.get(*key)).collect();
        let lit = |v: &Option<&String>| v.map_or("undefined".to_string(), |s| js_string(s));
        let message = js_string(&key_message(form, key, draft));
        let observed = format!("observed[{}]", js_string(key));
        if values.len() == 1 {
            let v = values.iter().next().expect("one value");
            let _ = writeln!(out, "  assert_equals({observed}, {}, {message});", lit(v));
        } else {
            let list: Vec<String> = values.iter().map(lit).collect();
            let _ = writeln!(
                out,
                "  assert_in_array({observed}, [{}], {message});",
                list.join(", ")
            );
        }
    }
    let _ = writeln!(
        out,
        "  assert_webmcp_allowed(observed, ALLOWED, KEYS, {});",
        js_string(draft)
    );
    out
}

/// Whether the test may take long: interventions, or tool bodies that wait before settling.
fn long(form: &BrowserForm) -> bool {
    form.body_delay_ms > 0
        || form
            .docs
            .iter()
            .any(|d| !d.abort.is_empty() || !d.remove_iframe.is_empty())
}

/// The test file of one form, asserting `variant`.
pub fn test_file(form: &BrowserForm, variant: Variant) -> Result<String, Unwritten> {
    test_file_within(form, variant, STATE_LIMIT)
}

/// A test that is not written: the model's exploration stopped at its bound, so what it
/// would assert is not known (a test of the observations found so far would fail a browser
/// that conforms).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unwritten {
    pub scenario: String,
    pub why: String,
}

impl std::fmt::Display for Unwritten {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.scenario, self.why)
    }
}

/// [`test_file`], the model exploring at most `limit` states for each question it answers.
pub fn test_file_within(
    form: &BrowserForm,
    variant: Variant,
    limit: usize,
) -> Result<String, Unwritten> {
    let world = World::compile(&form.judged).expect("derive compiled it");
    let stopped = |what: &str| {
        Unwritten {
        scenario: form.scenario.clone(),
        why: format!(
            "the model's exploration of {what} stopped at {} states (the bound of conformance's judge), so the test is not written",
            webmcp_profiles::limits::thousands(limit as u64)
        ),
    }
    };
    let allowed = allowed_within(&world, variant, limit);
    if !allowed.complete {
        return Err(stopped("the observations it allows"));
    }
    // What the observation depends on (as the conformance verdict requires it).
    let coverage = required_coverage_within(&world, variant, limit);
    if !coverage.complete {
        return Err(stopped("the runs without interventions"));
    }
    let draft = format!("the draft ({})", variant.name());
    let top = &form.docs[0];
    let mut out = String::from("<!doctype html>\n<meta charset=\"utf-8\">\n");
    let _ = writeln!(
        out,
        "<title>WebMCP: {} ({})</title>",
        html_escape(&form.scenario),
        html_escape(&variant.name())
    );
    for slug in algorithms(form) {
        let anchor = algorithm_anchor(slug).expect("every exercised algorithm has an anchor");
        let _ = writeln!(out, "<link rel=\"help\" href=\"{DRAFT_URL}#{anchor}\">");
    }
    let _ = writeln!(
        out,
        "<meta name=\"assert\" content=\"{}\">",
        html_escape(&form.summary)
    );
    if long(form) {
        out.push_str("<meta name=\"timeout\" content=\"long\">\n");
    }
    out.push_str("<script src=\"/resources/testharness.js\"></script>\n");
    out.push_str("<script src=\"/resources/testharnessreport.js\"></script>\n");
    let _ = writeln!(out, "<script src=\"{HARNESS_FILE}\"></script>");
    out.push_str(&body(form, top, "resources/"));
    let tree: Vec<Value> = form
        .docs
        .iter()
        .map(|d| {
            json!([
                d.name,
                d.iframes
                    .iter()
                    .map(|f| json!([f.nav, f.doc]))
                    .collect::<Vec<_>>()
            ])
        })
        .collect();
    let keys: BTreeSet<&String> = allowed.observations.iter().flat_map(|o| o.keys()).collect();
    out.push_str("<script>\n");
    let _ = writeln!(
        out,
        "// Every observation the model of {draft} allows ({} states explored).",
        allowed.states
    );
    out.push_str("const ALLOWED = [\n");
    for o in &allowed.observations {
        let _ = writeln!(
            out,
            "  {},",
            serde_json::to_string(o)
                .expect("JSON values serialize")
                .replace("</", "<\\/")
        );
    }
    out.push_str("];\n");
    let _ = writeln!(
        out,
        "const KEYS = {};",
        serde_json::to_string(&keys).expect("JSON values serialize")
    );
    let required: Vec<Value> = form
        .docs
        .iter()
        .flat_map(|d| {
            d.statements
                .iter()
                .enumerate()
                .filter(|(i, _)| coverage.statements.contains(&(d.name.clone(), *i)))
                .map(|(i, st)| json!([format!("{}#{i}", d.name), describe_statement(st)]))
        })
        .collect();
    let _ = writeln!(
        out,
        "// The statements every run of {draft} without the interventions starts."
    );
    let _ = writeln!(
        out,
        "const REQUIRED = {};",
        serde_json::to_string(&required)
            .expect("JSON values serialize")
            .replace("</", "<\\/")
    );
    let wait = if long(form) { WAIT_LONG_MS } else { WAIT_MS };
    out.push_str("promise_test(async (t) => {\n");
    let _ = writeln!(
        out,
        "  const observed = await webmcp_observation(t, {{\n    tree: {},\n    allowed: ALLOWED, required: REQUIRED, quiet_ms: {QUIET_MS}, timeout_ms: {wait},\n  }});",
        serde_json::to_string(&tree).expect("JSON values serialize")
    );
    out.push_str(&assertions(form, &allowed.observations, &draft));
    let interventions = form
        .docs
        .iter()
        .any(|d| !d.abort.is_empty() || !d.remove_iframe.is_empty());
    let _ = writeln!(
        out,
        "  assert_webmcp_ran(REQUIRED, {});",
        interventions && coverage.body_always_invoked
    );
    let _ = writeln!(
        out,
        "}}, {});",
        js_string(&format!(
            "{}: {} ({})",
            form.scenario,
            form.summary.trim_end_matches('.'),
            variant_phrase(variant)
        ))
    );
    out.push_str("</script>\n");
    Ok(out)
}

/// An iframe's document (in `DIR/resources/`).
pub fn resource_file(form: &BrowserForm, doc: &DocForm) -> String {
    let mut out = String::from("<!doctype html>\n<meta charset=\"utf-8\">\n");
    let _ = writeln!(
        out,
        "<title>WebMCP: {} / {}</title>",
        html_escape(&form.scenario),
        html_escape(&doc.name)
    );
    out.push_str(&body(form, doc, ""));
    out
}

/// `resources/webmcp-runtime.js`: reports go to the top-level window, then the runtime.
pub fn runtime_file() -> String {
    format!(
        "// Runs one document's statements of a WebMCP test (FORM) and posts what it observes\n\
         // to the top-level window, where resources/webmcp-harness.js collects it.\n\
         function __report(value) {{ window.top.postMessage({{ webmcpReport: value }}, '*'); }}\n{RUNTIME_JS}"
    )
}

/// The files of the tests of `forms` (path relative to `DIR`, content), and the tests not
/// written because the model's exploration stopped at `limit` states.
pub fn files(
    forms: &[BrowserForm],
    variant: Variant,
    limit: usize,
) -> (BTreeMap<String, String>, Vec<Unwritten>) {
    let mut out = BTreeMap::new();
    let mut unwritten = Vec::new();
    out.insert(RUNTIME_FILE.to_string(), runtime_file());
    out.insert(HARNESS_FILE.to_string(), HARNESS_JS.to_string());
    for form in forms {
        let test = match test_file_within(form, variant, limit) {
            Ok(test) => test,
            Err(u) => {
                unwritten.push(u);
                continue;
            }
        };
        let top = &form.docs[0];
        let name = file_name(form, top);
        out.insert(format!("{name}.headers"), headers(top));
        out.insert(name, test);
        for doc in &form.docs[1..] {
            let name = format!("resources/{}", file_name(form, doc));
            out.insert(format!("{name}.headers"), headers(doc));
            out.insert(name, resource_file(form, doc));
        }
    }
    (out, unwritten)
}

/// What [`emit`] wrote.
#[derive(Debug)]
pub struct Emitted {
    pub tests: usize,
    pub unwritten: Vec<Unwritten>,
}

/// Writes every form's test into `dir` (its iframes and the shared files into
/// `dir/resources`), asserting `variant`, the model exploring at most `limit` states per
/// question; a form whose exploration stopped gets no test.
pub fn emit(
    dir: &Path,
    forms: &[BrowserForm],
    variant: Variant,
    limit: usize,
) -> std::io::Result<Emitted> {
    std::fs::create_dir_all(dir.join("resources"))?;
    let (files, unwritten) = files(forms, variant, limit);
    for (path, text) in files {
        // Each file whole or not at all: a full disk leaves no test cut short.
        webmcp_traces::export::write_atomically(&dir.join(path), &text)
            .map_err(std::io::Error::other)?;
    }
    Ok(Emitted {
        tests: forms.len() - unwritten.len(),
        unwritten,
    })
}

pub mod chromium;
pub mod lint;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form::derive;

    fn form(name: &str) -> BrowserForm {
        let path = format!("{}/../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
        derive(&serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()).unwrap()
    }

    #[test]
    fn a_test_loads_testharness_and_the_shared_resources() {
        let f = form("cross-origin-exposed");
        let t = test_file(&f, Variant::proposed()).unwrap();
        let harness = t.find("<script src=\"/resources/testharness.js\"></script>\n<script src=\"/resources/testharnessreport.js\"></script>\n<script src=\"resources/webmcp-harness.js\"></script>").unwrap();
        let runtime = t
            .find("<script src=\"resources/webmcp-runtime.js\"></script>")
            .unwrap();
        let iframe = t.find("<iframe").unwrap();
        let test = t.find("promise_test(async (t) => {").unwrap();
        assert!(harness < runtime && runtime < iframe && iframe < test);
        assert!(
            !t.contains("function webmcp_fold"),
            "shared code is not inlined"
        );
        assert!(t.contains("<title>WebMCP: cross-origin-exposed (proposed)</title>"));
        assert!(t.contains(
            "src=\"https://{{domains[www1]}}:{{ports[https][0]}}/webmcp/resources/cross-origin-exposed--child.https.sub.html\" allow=\"tools\""
        ));
        assert!(t.contains(
            "<link rel=\"help\" href=\"https://webmachinelearning.github.io/webmcp/#tool-is-exposed-to-an-origin\">"
        ));
        assert!(
            !t.contains("<meta name=\"timeout\""),
            "nothing here takes long"
        );
        assert!(t.contains("assert_equals(observed[\"top: script\"], \"finished\", \"the script in top ends where the draft (proposed) allows\");"));
        assert!(t.contains("(the draft with the proposed fixes)\");\n</script>"));
    }

    #[test]
    fn a_single_origin_test_needs_no_substitution() {
        let f = form("same-origin-iframe");
        let (files, _) = files(std::slice::from_ref(&f), Variant::proposed(), STATE_LIMIT);
        let t = &files["same-origin-iframe.https.html"];
        assert!(!t.contains("{{"), "{t}");
        assert!(t.contains("\"https://a.example\":self.origin"));
        assert!(t.contains("src=\"resources/same-origin-iframe--child.https.html\""));
        assert!(files.contains_key("resources/same-origin-iframe--child.https.html"));
        assert_eq!(
            files["same-origin-iframe.https.html.headers"],
            "Origin-Agent-Cluster: ?1\n"
        );
        let child = &files["resources/same-origin-iframe--child.https.html"];
        assert!(child.contains("<script src=\"webmcp-runtime.js\"></script>"));
        assert!(!child.contains("testharness"));
    }

    /// The 2026-08 text rejects every object input (imperative-execute-steps#3); the current
    /// text and the proposed variant reach the tool's execute callback. Each test asserts its
    /// variant.
    #[test]
    fn object_input_double_negative_asserts_the_chosen_variant() {
        let f = form("object-input-double-negative");
        let proposed = test_file(&f, Variant::proposed()).unwrap();
        assert!(proposed.contains(
            "assert_equals(observed[\"top: call exec\"], \"fulfilled string \\\"done\\\"\", \"executeTool() promise for exec in top settles as the draft (proposed) allows\");"
        ), "{proposed}");
        assert!(proposed.contains("assert_equals(observed[\"top: invoke t1\"], \"input={\\\"q\\\":1} signal=live/live when=later\""), "{proposed}");
        // And that the statements the observation depends on ran.
        assert!(
            proposed.contains("\"top#3\",\"executeTool t1 as exec\""),
            "{proposed}"
        );
        assert!(
            proposed.contains("assert_webmcp_ran(REQUIRED, false);"),
            "{proposed}"
        );
        assert!(proposed.contains("(the draft with the proposed fixes)"));
        let current = test_file(&f, Variant::SEED).unwrap();
        assert!(current.contains("assert_equals(observed[\"top: invoke t1\"], \"input={\\\"q\\\":1} signal=live/live when=later\""), "{current}");
        let seed = test_file(
            &f,
            Variant::SEED.at(webmcp_model::variant::Revision::Aug2026),
        )
        .unwrap();
        assert!(seed.contains(
            "assert_equals(observed[\"top: call exec\"], \"rejected UnknownError\", \"executeTool() promise for exec in top settles as the draft (seed@2026-08) allows\");"
        ), "{seed}");
        assert!(
            !seed.contains("invoke t1"),
            "the body is never invoked as the 2026-08 text was written"
        );
        assert!(seed.contains("(the draft under variant seed@2026-08)"));
        assert!(seed.contains("<title>WebMCP: object-input-double-negative (seed@2026-08)</title>"));
    }

    #[test]
    fn interventions_make_a_test_long_and_link_unload_cleanup() {
        let f = form("target-unloaded-mid-execution");
        let t = test_file(&f, Variant::proposed()).unwrap();
        assert!(t.contains("<meta name=\"timeout\" content=\"long\">"));
        assert!(t.contains("#pending-tool-executions\">"));
        assert!(t.contains("timeout_ms: 45000"));
        let at = |s: &str| t.find(s).unwrap();
        assert!(at("<meta name=\"timeout\"") < at("/resources/testharness.js"));
    }

    #[test]
    fn anchors_are_those_of_the_trace_links() {
        let anchors = std::fs::read_to_string(format!(
            "{}/../traces/src/anchors.rs",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        for slug in [
            "model-context-getter",
            "register-tool",
            "unregister-tool",
            "notify-tool-change",
            "get-tools",
            "tool-exposed-to-origin",
            "execute-tool",
            "imperative-execute-steps",
            "tool-execute-steps",
            "cancel-pending-execution",
            "unload-cleanup",
        ] {
            let a = algorithm_anchor(slug).unwrap();
            assert!(
                anchors.contains(&format!("\"{slug}\" => \"{a}\""))
                    || anchors.contains(&format!(
                        "\"{slug}\" | \"execute-tool.completion-steps\" => \"{a}\""
                    )),
                "{slug} -> {a}"
            );
        }
    }

    /// Every scenario that has a browser form, under both variants.
    #[test]
    fn every_emitted_file_passes_the_lint() {
        let dir = format!("{}/../scenarios", env!("CARGO_MANIFEST_DIR"));
        let mut forms = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                let sc = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                if let Ok(f) = derive(&sc) {
                    forms.push(f);
                }
            }
        }
        assert!(forms.len() >= 20, "{}", forms.len());
        for variant in [Variant::proposed(), Variant::SEED] {
            let (files, unwritten) = files(&forms, variant, STATE_LIMIT);
            assert!(unwritten.is_empty(), "{unwritten:?}");
            let errors = lint::lint(&files);
            assert!(
                errors.is_empty(),
                "{}",
                errors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            assert!(files.keys().filter(|p| p.contains(".sub.")).count() > 0);
        }
    }

    #[test]
    fn emit_writes_tests_resources_and_shared_files() {
        let dir = std::env::temp_dir().join(format!("webmcp-wpt-{}", std::process::id()));
        let forms = [form("cross-origin-exposed"), form("register-and-discover")];
        let emitted = emit(&dir, &forms, Variant::proposed(), STATE_LIMIT).unwrap();
        assert_eq!((emitted.tests, emitted.unwritten), (2, vec![]));
        assert!(dir.join("cross-origin-exposed.https.sub.html").exists());
        assert!(dir
            .join("resources/cross-origin-exposed--child.https.sub.html")
            .exists());
        assert!(dir.join("register-and-discover.https.html").exists());
        let runtime = std::fs::read_to_string(dir.join(RUNTIME_FILE)).unwrap();
        assert!(runtime.starts_with("// Runs one document's statements"));
        assert!(runtime.contains("window.top.postMessage({ webmcpReport: value }, '*')"));
        assert!(dir.join(HARNESS_FILE).exists());
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A test of the observations found before the model's bound would fail a browser that
    /// conforms (it once held `const ALLOWED = [];`): it is not written, and says why.
    #[test]
    fn a_test_whose_exploration_stopped_is_not_written() {
        let dir = std::env::temp_dir().join(format!("webmcp-wpt-bound-{}", std::process::id()));
        let forms = [form("cross-origin-exposed"), form("register-and-discover")];
        let all = |limit| {
            let (files, unwritten) = files(&forms, Variant::proposed(), limit);
            (
                files.keys().filter(|k| k.ends_with(".html")).count(),
                unwritten.len(),
            )
        };
        // register-and-discover is the smaller: some bound writes it and not the other.
        let limit = (1..10_000).find(|&n| all(n).1 == 1).unwrap();
        let emitted = emit(&dir, &forms, Variant::proposed(), limit).unwrap();
        assert_eq!(emitted.tests, 1);
        assert_eq!(emitted.unwritten[0].scenario, "cross-origin-exposed");
        assert!(
            emitted.unwritten[0]
                .why
                .contains(&format!("stopped at {limit} states")),
            "{}",
            emitted.unwritten[0]
        );
        assert!(dir.join("register-and-discover.https.html").exists());
        assert!(!dir.join("cross-origin-exposed.https.sub.html").exists());
        assert!(!dir
            .join("resources/cross-origin-exposed--child.https.sub.html")
            .exists());
        assert_eq!(all(1), (0, 2));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
