//! Browser forms as web-platform-tests: one `SCENARIO.https.sub.html` test per
//! form, its iframes in `resources/`, asserting that what the pages observe
//! is among the observations the draft as written (`seed`) allows.

use std::path::Path;

use serde_json::{json, Value};
use webmcp_browser::Origin;
use webmcp_model::{Variant, World};

use crate::form::{BrowserForm, DocForm, INTERVENTION_FALLBACK_MS};
use crate::judge::allowed;
use crate::page::RUNTIME_JS;

const HARNESS_JS: &str = include_str!("../js/wpt-harness.js");
/// How long the test waits for the pages to settle (ms).
const QUIET_MS: u64 = 2000;

/// WPT's server substitutions for the two origins (`.sub.` files).
fn origin_template(o: Origin) -> &'static str {
    match o {
        Origin::Primary => "https://{{host}}:{{ports[https][0]}}",
        Origin::Secondary => "https://{{domains[www1]}}:{{ports[https][0]}}",
    }
}

/// Reports go to the top-level window, where the harness collects them.
const WPT_REPORT_JS: &str =
    "function __report(value) { window.top.postMessage({ webmcpReport: value }, '*'); }\n";

fn resource_name(form: &BrowserForm, doc: &DocForm) -> String {
    format!("{}--{}.https.sub.html", form.scenario, doc.name)
}

fn form_json(form: &BrowserForm, doc: &DocForm) -> Value {
    let windows: serde_json::Map<String, Value> = form
        .docs
        .iter()
        .map(|d| (d.name.clone(), json!(d.window_path)))
        .collect();
    let origins: serde_json::Map<String, Value> = form
        .origins
        .iter()
        .map(|(m, o)| (m.clone(), json!(origin_template(*o))))
        .collect();
    json!({
        "scenario": form.scenario, "doc": doc.name, "impl": "draft",
        "origins": origins, "windows": windows, "statements": doc.statements,
        "controllers": doc.controllers,
        "iframes": doc.iframes.iter().map(|f| f.nav.clone()).collect::<Vec<_>>(),
        "interventions": {"abort": doc.abort, "removeIframe": doc.remove_iframe},
        "body": form.body, "bodyDelay": form.body_delay_ms,
        "interventionFallback": INTERVENTION_FALLBACK_MS,
    })
}

fn document(form: &BrowserForm, doc: &DocForm, head: &str) -> String {
    let mut out = format!("<!doctype html>\n<meta charset=\"utf-8\">\n{head}");
    let f = form_json(form, doc).to_string().replace("</", "<\\/");
    out.push_str(&format!(
        "<script>\n{WPT_REPORT_JS}const FORM = {f};\n{RUNTIME_JS}</script>\n"
    ));
    for fr in &doc.iframes {
        let child = form
            .docs
            .iter()
            .find(|d| d.name == fr.doc)
            .expect("flattened");
        let src = format!(
            "{}/webmcp/resources/{}",
            origin_template(child.origin),
            resource_name(form, child)
        );
        let allow = fr.allow.as_ref().map(|a| {
            let mut a = a.clone();
            for (m, o) in &form.origins {
                a = a.replace(m.as_str(), origin_template(*o));
            }
            format!(" allow=\"{a}\"")
        });
        out.push_str(&format!(
            "<iframe id=\"nav-{}\" src=\"{src}\"{}></iframe>\n",
            fr.nav,
            allow.unwrap_or_default()
        ));
    }
    out
}

/// The test file of one form (the top-level document plus the harness).
pub fn test_file(form: &BrowserForm) -> String {
    let world = World::compile(&form.judged).expect("derive compiled it");
    let allowed = allowed(&world, Variant::SEED);
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
    let head = format!(
        "<title>WebMCP: {}</title>\n<meta name=\"timeout\" content=\"long\">\n<script src=\"/resources/testharness.js\"></script>\n<script src=\"/resources/testharnessreport.js\"></script>\n<script>\nconst TITLE = {};\nconst QUIET_MS = {QUIET_MS};\nconst TREE = {};\nconst ALLOWED = {};\n{HARNESS_JS}</script>\n",
        form.scenario,
        json!(form.summary),
        json!(tree),
        serde_json::to_string(&allowed.observations).unwrap(),
    );
    document(form, &form.docs[0], &head)
}

/// Writes every form's test into `dir` (and its iframes into `dir/resources`).
/// Returns the number of tests.
pub fn emit(dir: &Path, forms: &[BrowserForm]) -> std::io::Result<usize> {
    std::fs::create_dir_all(dir.join("resources"))?;
    for form in forms {
        std::fs::write(
            dir.join(format!("{}.https.sub.html", form.scenario)),
            test_file(form),
        )?;
        for doc in &form.docs[1..] {
            std::fs::write(
                dir.join("resources").join(resource_name(form, doc)),
                document(form, doc, ""),
            )?;
        }
    }
    Ok(forms.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form::derive;

    fn form(name: &str) -> BrowserForm {
        let path = format!("{}/../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
        derive(&serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()).unwrap()
    }

    #[test]
    fn a_test_loads_testharness_and_embeds_the_allowed_set() {
        let f = form("cross-origin-exposed");
        let t = test_file(&f);
        assert!(t.contains("<script src=\"/resources/testharness.js\"></script>"));
        assert!(t.contains("promise_test("));
        assert!(t.contains("const ALLOWED = [{"));
        assert!(t.contains("\"top: script\":\"finished\""));
        assert!(t.contains(
            "src=\"https://{{domains[www1]}}:{{ports[https][0]}}/webmcp/resources/cross-origin-exposed--child.https.sub.html\""
        ));
    }

    #[test]
    fn emit_writes_tests_and_resources() {
        let dir = std::env::temp_dir().join(format!("webmcp-wpt-{}", std::process::id()));
        let n = emit(
            &dir,
            &[form("cross-origin-exposed"), form("register-and-discover")],
        )
        .unwrap();
        assert_eq!(n, 2);
        assert!(dir.join("cross-origin-exposed.https.sub.html").exists());
        assert!(dir
            .join("resources/cross-origin-exposed--child.https.sub.html")
            .exists());
        assert!(dir.join("register-and-discover.https.sub.html").exists());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
