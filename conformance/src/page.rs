//! Pages for a browser form: one HTML document per scenario document, served
//! on its loopback origin, running `js/runtime.js` over its statements.

use serde_json::{json, Value};
use webmcp_browser::{Origins, Resource, Site, Visit, REPORT_JS};

use crate::form::{BrowserForm, DocForm, INTERVENTION_FALLBACK_MS};

pub const RUNTIME_JS: &str = include_str!("../js/runtime.js");
/// Where the polyfill's IIFE build is served (on both origins).
pub const POLYFILL_PATH: &str = "/__impl/webmcp-polyfill.iife.js";

/// Which implementation the pages exercise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Impl {
    /// Chromium's own implementation (`--enable-blink-features=WebMCP`).
    Chromium,
    /// `@mcp-b/webmcp-polyfill` loaded into each page, Chromium without the flag.
    Polyfill,
}

impl Impl {
    pub fn name(self) -> &'static str {
        match self {
            Impl::Chromium => "chromium",
            Impl::Polyfill => "polyfill",
        }
    }
}

/// Which API the pages call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// The draft's `document.modelContext`, and nothing else.
    Draft,
    /// Chromium's `navigator.modelContext` with `navigator.modelContextTesting` for
    /// discovery and execution (an explicit choice, labelled in every verdict).
    Testing,
}

impl Api {
    pub fn name(self) -> &'static str {
        match self {
            Api::Draft => "draft",
            Api::Testing => "testing",
        }
    }
}

pub fn page_path(scenario: &str, doc: &str) -> String {
    format!("/{scenario}/{doc}.html")
}

/// Replaces model origins by loopback origins in `text` (URLs, allow lists).
pub fn to_real(form: &BrowserForm, origins: &Origins, text: &str) -> String {
    let mut out = text.to_string();
    for (model, slot) in &form.origins {
        out = out.replace(model.as_str(), origins.url(*slot));
    }
    out
}

/// The per-document object the runtime reads as `FORM`.
pub fn form_json(
    form: &BrowserForm,
    doc: &DocForm,
    origins: &Origins,
    imp: Impl,
    api: Api,
) -> Value {
    let windows: serde_json::Map<String, Value> = form
        .docs
        .iter()
        .map(|d| (d.name.clone(), json!(d.window_path)))
        .collect();
    let origin_map: serde_json::Map<String, Value> = form
        .origins
        .iter()
        .map(|(m, slot)| (m.clone(), json!(origins.url(*slot))))
        .collect();
    json!({
        "scenario": form.scenario,
        "doc": doc.name,
        "impl": imp.name(),
        "api": api.name(),
        "origins": origin_map,
        "windows": windows,
        "statements": doc.statements,
        "controllers": doc.controllers,
        "iframes": doc.iframes.iter().map(|f| f.nav.clone()).collect::<Vec<_>>(),
        "interventions": {"abort": doc.abort, "removeIframe": doc.remove_iframe},
        "body": form.body,
        "bodyDelay": form.body_delay_ms,
        "interventionFallback": INTERVENTION_FALLBACK_MS,
    })
}

/// The HTML of one document: implementation, runtime, then its iframes (so the
/// container's script starts before its iframes' scripts, as in the model).
pub fn html(
    form: &BrowserForm,
    doc: &DocForm,
    origins: &Origins,
    imp: Impl,
    api: Api,
    run: &str,
) -> String {
    let mut out = String::from("<!doctype html>\n<meta charset=\"utf-8\">\n");
    out.push_str(&format!(
        "<title>{} / {}</title>\n",
        form.scenario, doc.name
    ));
    if imp == Impl::Polyfill {
        out.push_str(&format!("<script src=\"{POLYFILL_PATH}\"></script>\n"));
    }
    let form_text = form_json(form, doc, origins, imp, api)
        .to_string()
        .replace("</", "<\\/");
    out.push_str(&format!(
        "<script>\n{REPORT_JS}\nconst FORM = {form_text};\n{RUNTIME_JS}</script>\n"
    ));
    for f in &doc.iframes {
        let child = form
            .docs
            .iter()
            .find(|d| d.name == f.doc)
            .expect("flattened");
        let src = format!(
            "{}{}?run={run}",
            origins.url(child.origin),
            page_path(&form.scenario, &child.name)
        );
        let allow = f
            .allow
            .as_ref()
            .map(|a| format!(" allow=\"{}\"", html_escape(&to_real(form, origins, a))))
            .unwrap_or_default();
        out.push_str(&format!(
            "<iframe id=\"nav-{}\" src=\"{}\"{allow}></iframe>\n",
            html_escape(&f.nav),
            html_escape(&src)
        ));
    }
    out
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Adds every document of `form` to `site` and returns the visit of its top-level page.
pub fn add_pages(
    site: &mut Site,
    form: &BrowserForm,
    origins: &Origins,
    imp: Impl,
    api: Api,
    run: &str,
) -> Visit {
    for doc in &form.docs {
        let keyed = if doc.origin_keyed { "?1" } else { "?0" };
        site.add(
            doc.origin,
            &page_path(&form.scenario, &doc.name),
            Resource::html(html(form, doc, origins, imp, api, run))
                .with_header("Origin-Agent-Cluster", keyed),
        );
    }
    Visit {
        run: run.to_string(),
        origin: form.docs[0].origin,
        path: page_path(&form.scenario, &form.docs[0].name),
    }
}

/// Serves the polyfill's IIFE build on both origins.
pub fn add_polyfill(site: &mut Site, iife: &[u8]) {
    site.add_everywhere(POLYFILL_PATH, Resource::javascript(iife.to_vec()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form::derive;
    use webmcp_browser::Origin;

    fn origins() -> Origins {
        Origins {
            primary: "http://127.0.0.1:4001".into(),
            secondary: "http://localhost:4002".into(),
        }
    }

    fn form(name: &str) -> BrowserForm {
        let path = format!("{}/../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
        derive(&serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()).unwrap()
    }

    #[test]
    fn iframes_follow_the_script_and_point_at_their_origin() {
        let f = form("cross-origin-exposed");
        let page = html(&f, &f.docs[0], &origins(), Impl::Chromium, Api::Draft, "r1");
        let script_at = page.find("const FORM").unwrap();
        let iframe_at = page.find("<iframe").unwrap();
        assert!(script_at < iframe_at);
        assert!(page.contains(
            "<iframe id=\"nav-frame\" src=\"http://localhost:4002/cross-origin-exposed/child.html?run=r1\" allow=\"tools\">"
        ));
        assert!(!page.contains(POLYFILL_PATH));
        let child = html(&f, &f.docs[1], &origins(), Impl::Polyfill, Api::Draft, "r1");
        assert!(child.find(POLYFILL_PATH).unwrap() < child.find("const FORM").unwrap());
    }

    #[test]
    fn form_json_maps_origins_and_windows() {
        let f = form("cross-origin-exposed");
        let v = form_json(&f, &f.docs[1], &origins(), Impl::Chromium, Api::Draft);
        assert_eq!(v["origins"]["https://b.example"], "http://localhost:4002");
        assert_eq!(v["windows"]["child"], json!([0]));
        assert_eq!(v["windows"]["top"], json!([]));
        assert_eq!(v["doc"], "child");
    }

    #[test]
    fn origin_agent_cluster_header_follows_origin_keyed() {
        let mut site = Site::new();
        let f = form("not-origin-keyed");
        let visit = add_pages(&mut site, &f, &origins(), Impl::Chromium, Api::Draft, "r");
        assert_eq!(visit.path, "/not-origin-keyed/top.html");
        let page = site.get(Origin::Primary, &visit.path).unwrap();
        assert!(page
            .headers
            .contains(&("Origin-Agent-Cluster".to_string(), "?0".to_string())));
        let mut site = Site::new();
        let f = form("cross-origin-exposed");
        add_pages(&mut site, &f, &origins(), Impl::Polyfill, Api::Draft, "r");
        let child = site
            .get(Origin::Secondary, "/cross-origin-exposed/child.html")
            .unwrap();
        assert!(child
            .headers
            .contains(&("Origin-Agent-Cluster".to_string(), "?1".to_string())));
    }
}
