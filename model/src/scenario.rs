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

/// What one script statement does: exactly one kind, with only the options that kind takes.
///
/// A statement is written as one JSON object whose *kind* is its one member among
/// `registerTool`, `getTools`, `executeTool`, `abort`, `await`, `awaitToolchange` (true),
/// `removeIframe` and `navigate`, its options standing beside it ([`OpSpec`]);
/// [`OpSpec::statement`] reads that object into this type, so no later step meets a statement
/// of two kinds, of none, or with another kind's option.
#[derive(Clone, Copy, Debug)]
pub enum Statement<'a> {
    RegisterTool {
        tool: &'a ToolSpec,
        call: CallOptions<'a>,
        exposed_to: Option<&'a [String]>,
        signal: Option<&'a str>,
    },
    GetTools {
        spec: &'a GetToolsSpec,
        call: CallOptions<'a>,
    },
    ExecuteTool {
        tool: &'a ToolRefSpec,
        call: CallOptions<'a>,
        input: Option<&'a JsValue>,
        signal: Option<&'a str>,
    },
    Abort {
        controller: &'a str,
        reason: Option<&'a serde_json::Value>,
    },
    /// `await` an earlier call's promise, by its label.
    Await(&'a str),
    AwaitToolchange,
    RemoveIframe(&'a str),
    Navigate(&'a str),
}

/// The options every call statement (registerTool, getTools, executeTool) takes.
#[derive(Clone, Copy, Debug, Default)]
pub struct CallOptions<'a> {
    /// `as`: the label later statements name the call's promise by.
    pub label: Option<&'a str>,
    /// `on`: the document whose `ModelContext` the script kept and calls the method on.
    pub on: Option<&'a str>,
}

impl OpSpec {
    /// The statement this object writes, or why it writes none: not exactly one kind, or an
    /// option that the statement's kind does not take (the message names them).
    pub fn statement(&self) -> Result<Statement<'_>, String> {
        let kinds = [
            self.register_tool.is_some(),
            self.get_tools.is_some(),
            self.execute_tool.is_some(),
            self.abort.is_some(),
            self.await_call.is_some(),
            self.await_toolchange == Some(true),
            self.remove_iframe.is_some(),
            self.navigate.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err("a statement needs exactly one of registerTool, getTools, executeTool, abort, await, awaitToolchange, removeIframe, navigate".into());
        }
        let is_call = kinds[..3].iter().any(|k| *k);
        let misplaced = [
            ("as", self.label.is_some() && !is_call, CALLS),
            (
                "input",
                self.input.is_some() && self.execute_tool.is_none(),
                "executeTool",
            ),
            ("on", self.on.is_some() && !is_call, CALLS),
            (
                "reason",
                self.reason.is_some() && self.abort.is_none(),
                "abort",
            ),
            (
                "exposedTo",
                self.exposed_to.is_some() && self.register_tool.is_none(),
                "registerTool",
            ),
            (
                "signal",
                self.signal.is_some()
                    && self.register_tool.is_none()
                    && self.execute_tool.is_none(),
                "registerTool and executeTool",
            ),
        ];
        if let Some((field, _, owners)) = misplaced.iter().find(|(_, wrong, _)| *wrong) {
            return Err(format!(
                "\"{field}\" is an option of {owners}, not of this statement"
            ));
        }
        let call = CallOptions {
            label: self.label.as_deref(),
            on: self.on.as_deref(),
        };
        let signal = self.signal.as_deref();
        Ok(if let Some(tool) = &self.register_tool {
            Statement::RegisterTool {
                tool,
                call,
                exposed_to: self.exposed_to.as_deref(),
                signal,
            }
        } else if let Some(spec) = &self.get_tools {
            Statement::GetTools { spec, call }
        } else if let Some(tool) = &self.execute_tool {
            Statement::ExecuteTool {
                tool,
                call,
                input: self.input.as_ref(),
                signal,
            }
        } else if let Some(controller) = &self.abort {
            Statement::Abort {
                controller,
                reason: self.reason.as_ref(),
            }
        } else if let Some(label) = &self.await_call {
            Statement::Await(label)
        } else if let Some(nav) = &self.remove_iframe {
            Statement::RemoveIframe(nav)
        } else if let Some(nav) = &self.navigate {
            Statement::Navigate(nav)
        } else {
            Statement::AwaitToolchange
        })
    }
}

/// The statements that take the options of a call.
const CALLS: &str = "registerTool, getTools and executeTool";

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
    let file = webmcp_checker::input::open(path).map_err(unreadable)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn statement_of(json: &str) -> Result<String, String> {
        let op: OpSpec = serde_json::from_str(json).expect("an OpSpec");
        op.statement().map(|s| {
            match s {
                Statement::RegisterTool { .. } => "registerTool",
                Statement::GetTools { .. } => "getTools",
                Statement::ExecuteTool { .. } => "executeTool",
                Statement::Abort { .. } => "abort",
                Statement::Await(_) => "await",
                Statement::AwaitToolchange => "awaitToolchange",
                Statement::RemoveIframe(_) => "removeIframe",
                Statement::Navigate(_) => "navigate",
            }
            .to_string()
        })
    }

    const KINDS: [(&str, &str); 8] = [
        (
            "registerTool",
            r#""registerTool": {"name": "t", "description": "d"}"#,
        ),
        ("getTools", r#""getTools": {}"#),
        (
            "executeTool",
            r#""executeTool": {"name": "t", "from": "list"}"#,
        ),
        ("abort", r#""abort": "c""#),
        ("await", r#""await": "p""#),
        ("awaitToolchange", r#""awaitToolchange": true"#),
        ("removeIframe", r#""removeIframe": "f""#),
        ("navigate", r#""navigate": "f""#),
    ];

    #[test]
    fn a_statement_is_exactly_one_kind() {
        for (kind, member) in KINDS {
            assert_eq!(statement_of(&format!("{{{member}}}")).as_deref(), Ok(kind));
            for (other, second) in KINDS.iter().filter(|(k, _)| *k != kind) {
                let two = statement_of(&format!("{{{member}, {second}}}"));
                assert!(
                    two.as_ref().is_err_and(|e| e.contains("exactly one of")),
                    "{kind} and {other}: {two:?}"
                );
            }
        }
        for none in ["{}", r#"{"awaitToolchange": false}"#, r#"{"as": "p"}"#] {
            assert!(
                statement_of(none).is_err_and(|e| e.contains("exactly one of")),
                "{none}"
            );
        }
    }

    #[test]
    fn an_option_goes_only_with_the_kinds_that_take_it() {
        let options: [(&str, &str, &[&str]); 6] = [
            (
                "as",
                r#""as": "p""#,
                &["registerTool", "getTools", "executeTool"],
            ),
            (
                "on",
                r#""on": "doc""#,
                &["registerTool", "getTools", "executeTool"],
            ),
            ("input", r#""input": 1"#, &["executeTool"]),
            ("reason", r#""reason": "why""#, &["abort"]),
            ("exposedTo", r#""exposedTo": []"#, &["registerTool"]),
            (
                "signal",
                r#""signal": "c""#,
                &["registerTool", "executeTool"],
            ),
        ];
        for (field, member, owners) in options {
            for (kind, kind_member) in KINDS {
                let got = statement_of(&format!("{{{kind_member}, {member}}}"));
                if owners.contains(&kind) {
                    assert_eq!(got.as_deref(), Ok(kind), "{field} with {kind}");
                } else {
                    let expected = format!("\"{field}\" is an option of");
                    assert!(
                        got.as_ref().is_err_and(|e| e.starts_with(&expected)),
                        "{field} with {kind}: {got:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_statement_carries_its_own_options() {
        let op: OpSpec = serde_json::from_str(
            r#"{"executeTool": {"name": "t", "from": "list"}, "as": "run", "on": "child",
                "input": {"a": 1}, "signal": "c"}"#,
        )
        .unwrap();
        let Ok(Statement::ExecuteTool {
            tool,
            call,
            input,
            signal,
        }) = op.statement()
        else {
            panic!("an executeTool statement");
        };
        assert_eq!(tool.name, "t");
        assert_eq!((call.label, call.on), (Some("run"), Some("child")));
        assert!(input.is_some_and(|v| v.is_object()));
        assert_eq!(signal, Some("c"));
    }
}
