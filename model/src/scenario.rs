//! The scenario file format (JSON), as an editor writes it.
//!
//! A scenario names the documents (a navigable tree per tab), what each page's script calls in
//! program order, and what the environment may do at any moment. `docs/scenarios.md`
//! documents every field; [`crate::world::World::compile`] checks and lowers it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::names::JsValue;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    /// One line, shown by `webmcp-check list`.
    pub summary: String,
    /// One paragraph an editor can read.
    pub description: String,
    pub tabs: Vec<TabSpec>,
    /// Documents a navigable may be navigated to (at most one per navigable).
    #[serde(default)]
    pub navigations: Vec<NavigationSpec>,
    /// Each document's script: calls in program order.
    #[serde(default, deserialize_with = "unique_keys")]
    pub scripts: BTreeMap<String, Vec<OpSpec>>,
    #[serde(default)]
    pub environment: EnvironmentSpec,
    /// Opt-in semantics the draft as written does not have: fire `toolactivated` and
    /// `toolcancel` where a later published text does (docs/model.md §4).
    #[serde(default, rename = "toolEvents")]
    pub tool_events: bool,
    /// Expected verdict per property name ("hold" or "violated"); checked by the test suite.
    #[serde(default, deserialize_with = "unique_keys")]
    pub expect: BTreeMap<String, String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TabSpec {
    pub tab: String,
    pub top: DocSpec,
}

/// A document and the iframes its markup contains.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocSpec {
    pub doc: String,
    pub url: String,
    /// The agent (event loop) this document runs on; by default same-origin documents of
    /// one tab share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Whether the agent cluster is origin-keyed (`2026-08:register-tool#4`); default true.
    #[serde(default = "yes", rename = "originKeyed")]
    pub origin_keyed: bool,
    #[serde(default)]
    pub iframes: Vec<IframeSpec>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IframeSpec {
    /// The name of the child navigable.
    pub nav: String,
    /// The iframe's `allow` attribute, e.g. "tools" or "tools *".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow: Option<String>,
    #[serde(flatten)]
    pub doc: DocSpec,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NavigationSpec {
    pub nav: String,
    pub doc: String,
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default = "yes", rename = "originKeyed")]
    pub origin_keyed: bool,
}

fn yes() -> bool {
    true
}

/// One statement of a page script.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct OpSpec {
    /// A name for the call's promise, so later statements can await it or use its result.
    #[serde(default, rename = "as", skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Call the method on this document's `ModelContext`, which the script kept (a
    /// same-origin iframe's `contentDocument.modelContext`), instead of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub register_tool: Option<ToolSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub get_tools: Option<GetToolsSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execute_tool: Option<ToolRefSpec>,
    /// `executeTool`'s inputObject; `{}` when absent, as in the IDL. `null` is given (and
    /// is not an object), unlike an absent member.
    #[serde(
        default,
        deserialize_with = "given",
        skip_serializing_if = "Option::is_none"
    )]
    pub input: Option<JsValue>,
    /// `exposedTo` of registerTool's options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exposed_to: Option<Vec<String>>,
    /// The AbortController whose signal goes in the options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// `controller.abort()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort: Option<String>,
    /// `controller.abort(reason)`: a JSON value the signal's abort reason becomes (and the
    /// promises its abort steps reject are rejected with).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<serde_json::Value>,
    /// `await` an earlier call's promise (settled either way).
    #[serde(default, rename = "await", skip_serializing_if = "Option::is_none")]
    pub await_call: Option<String>,
    /// Wait for the next `toolchange` event at this document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub await_toolchange: Option<bool>,
    /// Remove the iframe element of a child navigable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remove_iframe: Option<String>,
    /// Navigate a navigable to its replacement document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigate: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ToolSpec {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub description: String,
    /// `null` is given (and is not an object), unlike an absent member.
    #[serde(
        default,
        deserialize_with = "given",
        skip_serializing_if = "Option::is_none"
    )]
    pub input_schema: Option<JsValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<AnnotationsSpec>,
    /// What the tool's `execute` callback does, statement by statement; absent, the
    /// environment settles it (`environment.toolOutcomes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Vec<BodyOpSpec>>,
}

/// One statement of a tool's `execute` callback (an async function).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BodyOpSpec {
    /// `await document.modelContext.executeTool(...)` on a RegisteredTool built by hand
    /// (`origin`, `window`), made by the first invocation that reaches it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execute_tool: Option<ToolRefSpec>,
    /// A label for that call.
    #[serde(default, rename = "as", skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Its inputObject.
    #[serde(
        default,
        deserialize_with = "given",
        skip_serializing_if = "Option::is_none"
    )]
    pub input: Option<JsValue>,
    /// Its signal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// `controller.abort()` on a controller of the registering script (its own
    /// registration's, to unregister the tool while it runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort: Option<String>,
    /// `await` until the signal the callback was given is aborted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub await_abort: Option<bool>,
    /// `return VALUE`: the callback's promise fulfils with it (a JSON value or a special
    /// value; `null` is returned as `null`).
    #[serde(
        default,
        rename = "return",
        deserialize_with = "given",
        skip_serializing_if = "Option::is_none"
    )]
    pub return_value: Option<JsValue>,
    /// `throw new Error()`: the callback's promise rejects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throw: Option<bool>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AnnotationsSpec {
    #[serde(default)]
    pub read_only_hint: bool,
    #[serde(default)]
    pub untrusted_content_hint: bool,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GetToolsSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_origins: Option<Vec<String>>,
}

/// Which `RegisteredTool` an `executeTool` call passes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ToolRefSpec {
    /// The entry named `name` of the list an earlier getTools call (by label) fulfilled with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    pub name: String,
    /// A dictionary built by hand: its `origin` string...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// ...and its `window` (a document's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
}

/// What the environment may do, at any moment, within these bounds.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EnvironmentSpec {
    /// AbortControllers that may be aborted (once each) by a task of their owner.
    #[serde(default)]
    pub abort: Vec<String>,
    /// Child navigables whose iframe may be removed.
    #[serde(default)]
    pub remove_iframe: Vec<String>,
    /// Navigables that may be navigated to their replacement document.
    #[serde(default)]
    pub navigate: Vec<String>,
    /// Tabs that may enter the back/forward cache once, then be restored or evicted.
    #[serde(default)]
    pub bfcache: Vec<String>,
    /// How many observations the browser agent may perform in one run, over all tabs
    /// together (at most [`crate::limits::MAX_OBSERVE`]).
    #[serde(default)]
    pub observe: u64,
    /// How a running tool body may settle: "fulfil", "fulfil-unserializable", "reject".
    /// A body may also never settle. Default: ["fulfil"].
    #[serde(default = "default_outcomes")]
    pub tool_outcomes: Vec<String>,
    /// At most this many interventions (abort, remove, navigate, bfcache moves) in one run
    /// (at most [`crate::limits::MAX_INTERVENTIONS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_interventions: Option<u64>,
}

fn default_outcomes() -> Vec<String> {
    vec!["fulfil".to_string()]
}

impl Default for EnvironmentSpec {
    fn default() -> Self {
        EnvironmentSpec {
            abort: Vec::new(),
            remove_iframe: Vec::new(),
            navigate: Vec::new(),
            bfcache: Vec::new(),
            observe: 0,
            tool_outcomes: default_outcomes(),
            max_interventions: None,
        }
    }
}

/// Reads a JSON object into a map, refusing a key given twice (serde's maps would keep the
/// last one silently, so a second script for a document would replace the first).
pub fn unique_keys<'de, D, V>(d: D) -> Result<BTreeMap<String, V>, D::Error>
where
    D: serde::Deserializer<'de>,
    V: Deserialize<'de>,
{
    struct Visitor<V>(std::marker::PhantomData<V>);
    impl<'de, V: Deserialize<'de>> serde::de::Visitor<'de> for Visitor<V> {
        type Value = BTreeMap<String, V>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some(key) = map.next_key::<String>()? {
                if out.contains_key(&key) {
                    return Err(serde::de::Error::custom(format!(
                        "the key {} is given twice in one object",
                        crate::error::quoted(&key)
                    )));
                }
                let value = map.next_value()?;
                out.insert(key, value);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Visitor(std::marker::PhantomData))
}

/// Reads a scenario file (of either profile): at most [`crate::limits::MAX_SCENARIO_BYTES`]
/// bytes are read, so a huge file or a device such as `/dev/zero` is refused at once, and the
/// text must be UTF-8 (a leading byte-order mark is dropped when the text is compiled).
pub fn read_file(path: &std::path::Path) -> Result<String, crate::error::ScenarioError> {
    use crate::error::{ErrorKind, ScenarioError};
    use crate::limits::{Limit, MAX_SCENARIO_BYTES};
    use std::io::Read;
    let unreadable = |e: std::io::Error| ScenarioError::file(ErrorKind::Unreadable(e.to_string()));
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let mut bytes = Vec::new();
    file.take(MAX_SCENARIO_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() > MAX_SCENARIO_BYTES {
        return Err(ScenarioError::limit(
            "",
            "the scenario file",
            None,
            Limit::ScenarioBytes,
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        ScenarioError::file(ErrorKind::Syntax(format!(
            "the scenario file is not UTF-8 text (an invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )))
    })
}

/// A member that is present is given, even as `null` (which serde would read as absent).
fn given<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<JsValue>, D::Error> {
    JsValue::deserialize(d).map(Some)
}
