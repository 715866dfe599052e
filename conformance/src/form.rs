//! The browser form of a scenario, derived from its `scripts` and `environment`:
//! per document, the statements in program order (with the label the model
//! gives each call), its controllers, the interventions it performs, where it
//! sits in the frame tree, and which loopback origin serves it.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{json, Map, Value};
use webmcp_browser::Origin;
use webmcp_model::error::ScenarioError;
use webmcp_model::names::{JsValue, SpecialValue};
use webmcp_model::scenario::{DocSpec, OpSpec, Scenario};
use webmcp_model::world::Op;
use webmcp_model::World;

/// How long a tool body waits before settling when the scenario has
/// interventions, so that they land while it runs (ms).
pub const BODY_DELAY_MS: u64 = 150;
/// When a document performs its interventions if no body was invoked (ms after its script starts).
pub const INTERVENTION_FALLBACK_MS: u64 = 400;

#[derive(Clone, Debug)]
pub struct IframeForm {
    pub nav: String,
    pub doc: String,
    /// The `allow` attribute, origins mapped to loopback at page time.
    pub allow: Option<String>,
}

#[derive(Clone, Debug)]
pub struct DocForm {
    pub name: String,
    pub origin: Origin,
    pub origin_keyed: bool,
    pub iframes: Vec<IframeForm>,
    /// Indices into `frames` from the top-level window to this document's window.
    pub window_path: Vec<usize>,
    /// The statements as the page runtime reads them (scenario JSON plus `label`).
    pub statements: Vec<Value>,
    pub controllers: Vec<String>,
    pub abort: Vec<String>,
    pub remove_iframe: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct BrowserForm {
    pub scenario: String,
    pub summary: String,
    /// Model origin (`https://a.example`) -> loopback origin.
    pub origins: BTreeMap<String, Origin>,
    /// Documents in tree order; the first is the top-level document.
    pub docs: Vec<DocForm>,
    /// How tool bodies settle: the scenario's first `toolOutcomes` entry.
    pub body: String,
    pub body_delay_ms: u64,
    /// The scenario the model judges: the same, with `reaches-body` inputs
    /// written as the plain object `{}` the page passes.
    pub judged: Scenario,
}

/// Why a scenario has no browser form: what the pages cannot script (yet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormError {
    SeveralTabs,
    Navigations,
    Bfcache,
    ToolEvents,
    AbortReasons,
    ForeignModelContext,
    NestedExecute,
    Observations,
    InterventionChoice,
    /// The scenario does not compile.
    Compile(ScenarioError),
    /// A document's URL does not parse.
    Url(BadUrl),
    MoreThanTwoOrigins,
    /// A document's script did not compile to one operation per statement.
    NotOneToOne {
        doc: String,
    },
}

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FormError::SeveralTabs => "several tabs (one top-level page per run)",
            FormError::Navigations => "navigations (not scripted yet)",
            FormError::Bfcache => "back/forward cache (not scriptable in headless Chromium)",
            FormError::ToolEvents => {
                "opt-in tool events (the page runtime does not observe them yet)"
            }
            FormError::AbortReasons => "custom abort reasons (not scripted yet)",
            FormError::ForeignModelContext => {
                "a ModelContext kept from another document (not scripted yet)"
            }
            FormError::NestedExecute => "a tool body that executes a tool (not scripted yet)",
            FormError::Observations => "browser-agent observations (no page API)",
            FormError::InterventionChoice => {
                "a choice among interventions (maxInterventions below their number)"
            }
            FormError::Compile(e) => return write!(f, "{e}"),
            FormError::Url(e) => return write!(f, "{e}"),
            FormError::MoreThanTwoOrigins => "more than two origins",
            FormError::NotOneToOne { doc } => {
                return write!(f, "script of {doc} did not compile 1:1")
            }
        })
    }
}

impl std::error::Error for FormError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FormError::Compile(e) => Some(e),
            FormError::Url(e) => Some(e),
            _ => None,
        }
    }
}

impl From<BadUrl> for FormError {
    fn from(e: BadUrl) -> FormError {
        FormError::Url(e)
    }
}

/// A URL that does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadUrl {
    pub url: String,
    pub source: url::ParseError,
}

impl fmt::Display for BadUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.url, self.source)
    }
}

impl std::error::Error for BadUrl {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Derives the browser form, or says why the scenario has none.
pub fn derive(sc: &Scenario) -> Result<BrowserForm, FormError> {
    if sc.tabs.len() != 1 {
        return Err(FormError::SeveralTabs);
    }
    if !sc.navigations.is_empty() || !sc.environment.navigate.is_empty() {
        return Err(FormError::Navigations);
    }
    if !sc.environment.bfcache.is_empty() {
        return Err(FormError::Bfcache);
    }
    if sc.tool_events {
        return Err(FormError::ToolEvents);
    }
    if sc.scripts.values().flatten().any(|op| op.reason.is_some()) {
        return Err(FormError::AbortReasons);
    }
    if sc.scripts.values().flatten().any(|op| op.on.is_some()) {
        return Err(FormError::ForeignModelContext);
    }
    if sc.scripts.values().flatten().any(|op| {
        op.register_tool
            .as_ref()
            .and_then(|t| t.body.as_ref())
            .is_some_and(|body| body.iter().any(|b| b.execute_tool.is_some()))
    }) {
        return Err(FormError::NestedExecute);
    }
    if sc.environment.observe > 0 {
        return Err(FormError::Observations);
    }
    let env = &sc.environment;
    let interventions = env.abort.len() + env.remove_iframe.len();
    if env
        .max_interventions
        .is_some_and(|m| (m as usize) < interventions)
    {
        return Err(FormError::InterventionChoice);
    }
    let judged = judged_scenario(sc);
    let world = World::compile(&judged).map_err(FormError::Compile)?;
    let mut docs = Vec::new();
    flatten(&sc.tabs[0].top, None, Vec::new(), &mut docs);
    let mut origins = BTreeMap::new();
    for (doc, _, _) in &docs {
        let o = model_origin(&doc.url)?;
        if !origins.contains_key(&o) {
            let slot = match origins.len() {
                0 => Origin::Primary,
                1 => Origin::Secondary,
                _ => return Err(FormError::MoreThanTwoOrigins),
            };
            origins.insert(o, slot);
        }
    }
    let mut forms = Vec::new();
    for (doc, _, path) in &docs {
        let d = world.doc_named(&doc.doc).expect("compiled");
        let ops = &world.docs[d.index()].script;
        let specs = sc.scripts.get(&doc.doc).cloned().unwrap_or_default();
        if ops.len() != specs.len() {
            return Err(FormError::NotOneToOne {
                doc: doc.doc.clone(),
            });
        }
        let statements = specs
            .iter()
            .zip(ops)
            .map(|(spec, op)| statement(spec, op, &world))
            .collect();
        let controllers = world
            .controllers
            .iter()
            .filter(|c| c.owner == d)
            .map(|c| c.name.clone())
            .collect();
        let abort = world
            .env
            .abort
            .iter()
            .map(|&c| &world.controllers[c.index()])
            .filter(|c| c.owner == d)
            .map(|c| c.name.clone())
            .collect();
        let remove_iframe = world
            .env
            .remove_iframe
            .iter()
            .map(|&n| &world.navs[n.index()])
            .filter(|n| n.container == Some(d))
            .map(|n| n.name.clone())
            .collect();
        forms.push(DocForm {
            name: doc.doc.clone(),
            origin: origins[&model_origin(&doc.url)?],
            origin_keyed: doc.origin_keyed,
            iframes: doc
                .iframes
                .iter()
                .map(|f| IframeForm {
                    nav: f.nav.clone(),
                    doc: f.doc.doc.clone(),
                    allow: f.allow.clone(),
                })
                .collect(),
            window_path: path.clone(),
            statements,
            controllers,
            abort,
            remove_iframe,
        });
    }
    let body = env
        .tool_outcomes
        .first()
        .cloned()
        .unwrap_or_else(|| "fulfil".into());
    Ok(BrowserForm {
        scenario: sc.name.clone(),
        summary: sc.summary.clone(),
        origins,
        docs: forms,
        body,
        body_delay_ms: if interventions > 0 { BODY_DELAY_MS } else { 0 },
        judged,
    })
}

fn flatten<'a>(
    doc: &'a DocSpec,
    allow: Option<&'a str>,
    path: Vec<usize>,
    out: &mut Vec<(&'a DocSpec, Option<&'a str>, Vec<usize>)>,
) {
    out.push((doc, allow, path.clone()));
    for (i, f) in doc.iframes.iter().enumerate() {
        let mut p = path.clone();
        p.push(i);
        flatten(&f.doc, f.allow.as_deref(), p, out);
    }
}

/// `https://a.example/child` -> `https://a.example`.
pub fn model_origin(url: &str) -> Result<String, BadUrl> {
    let parsed = url::Url::parse(url).map_err(|source| BadUrl {
        url: url.to_string(),
        source,
    })?;
    Ok(parsed.origin().ascii_serialization())
}

/// The scenario with every `{"$js": "reaches-body"}` replaced by `{}`: pages pass the
/// plain object an author would write, and the model must judge that same value.
pub fn judged_scenario(sc: &Scenario) -> Scenario {
    let mut judged = sc.clone();
    for ops in judged.scripts.values_mut() {
        for op in ops {
            if let Some(JsValue::Special {
                js: SpecialValue::ReachesBody,
            }) = op.input
            {
                op.input = Some(JsValue::Json(json!({})));
            }
        }
    }
    judged
}

/// One statement for the page runtime: the scenario's statement without absent
/// fields, plus the model's label for its call.
fn statement(spec: &OpSpec, op: &Op, world: &World) -> Value {
    let mut v = serde_json::to_value(spec).expect("serializable");
    strip_nulls(&mut v);
    let call = match op {
        Op::Register(r) => Some(r.call),
        Op::GetTools(g) => Some(g.call),
        Op::Execute(e) => Some(e.call),
        _ => None,
    };
    if let (Some(c), Value::Object(m)) = (call, &mut v) {
        m.insert("label".into(), json!(world.calls[c.index()].label));
        m.remove("as");
    }
    v
}

fn strip_nulls(v: &mut Value) {
    if let Value::Object(m) = v {
        let keep: Map<String, Value> = std::mem::take(m)
            .into_iter()
            .filter(|(k, x)| !x.is_null() || k == "input")
            .map(|(k, mut x)| {
                if k != "input" {
                    strip_nulls(&mut x);
                }
                (k, x)
            })
            .collect();
        *m = keep;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(name: &str) -> Scenario {
        let path = format!("{}/../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn cross_origin_iframe_maps_two_origins_and_window_paths() {
        let f = derive(&scenario("cross-origin-exposed")).unwrap();
        assert_eq!(f.origins["https://a.example"], Origin::Primary);
        assert_eq!(f.origins["https://b.example"], Origin::Secondary);
        assert_eq!(f.docs[0].name, "top");
        assert_eq!(f.docs[0].iframes[0].allow.as_deref(), Some("tools"));
        assert_eq!(f.docs[1].window_path, vec![0]);
        assert_eq!(f.docs[1].origin, Origin::Secondary);
        let reg = &f.docs[1].statements[0];
        assert_eq!(reg["registerTool"]["name"], "t1");
        assert_eq!(reg["exposedTo"], json!(["https://a.example"]));
        assert!(reg["label"].as_str().is_some());
        assert!(reg.get("signal").is_none(), "absent fields are dropped");
    }

    #[test]
    fn labels_match_the_model_and_reaches_body_becomes_a_plain_object() {
        let f = derive(&scenario("abort-before-dispatch")).unwrap();
        let s = &f.docs[0].statements;
        assert_eq!(s[0]["label"], "reg");
        assert_eq!(s[1]["label"], "exec");
        assert_eq!(s[1]["input"], json!({"$js": "reaches-body"}));
        assert_eq!(s[2]["abort"], "ac");
        assert_eq!(f.docs[0].controllers, vec!["ac".to_string()]);
        let judged_input = &f.judged.scripts["top"][1].input;
        assert_eq!(judged_input, &Some(JsValue::Json(json!({}))));
    }

    #[test]
    fn interventions_go_to_their_owner_and_delay_bodies() {
        let f = derive(&scenario("target-unloaded-mid-execution")).unwrap();
        assert_eq!(f.docs[0].remove_iframe, vec!["frame".to_string()]);
        assert!(f.docs[1].remove_iframe.is_empty());
        assert_eq!(f.body_delay_ms, BODY_DELAY_MS);
    }

    #[test]
    fn unsupported_scenarios_say_why() {
        let why = |name: &str| derive(&scenario(name)).unwrap_err();
        assert_eq!(why("execution-across-tabs"), FormError::SeveralTabs);
        assert!(why("execution-across-tabs").to_string().contains("tabs"));
        assert!(why("register-in-bfcache")
            .to_string()
            .contains("back/forward"));
        assert!(why("caller-is-target-unloaded")
            .to_string()
            .contains("navigation"));
    }
}
