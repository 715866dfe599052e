//! The static part of a model: a scenario, checked and lowered to small integer ids.
//!
//! Everything here is fixed for a whole model-checking run: the navigable tree as declared,
//! documents and their origins, agents, page scripts and environment bounds. The dynamic part
//! is [`crate::state::State`].

use std::collections::BTreeMap;

use crate::names::{json_text_is_object, JsValue, Thrown};
use crate::origin::{OriginId, OriginTable, ParsedOrigin};
use crate::scenario::{DocSpec, EnvironmentSpec, OpSpec, Scenario};

pub use crate::ids::{CallId, CtrlId, DocId, StrId};
pub type NavId = u8;
pub type TabId = u8;
pub type AgentId = u8;

#[derive(Clone, Debug)]
pub struct Tab {
    pub name: String,
    /// The top-level traversable.
    pub root: NavId,
}

#[derive(Clone, Debug)]
pub struct Nav {
    pub name: String,
    pub tab: TabId,
    /// The document whose iframe element contains this navigable; `None` for a traversable.
    pub container: Option<DocId>,
    pub initial: DocId,
    pub replacement: Option<DocId>,
}

#[derive(Clone, Debug)]
pub struct Doc {
    pub name: String,
    pub url: String,
    pub origin: OriginId,
    /// HTML's serialization of `origin`, as `RegisteredTool.origin` carries it.
    pub origin_string: StrId,
    pub nav: NavId,
    pub agent: AgentId,
    pub origin_keyed: bool,
    /// Whether the permissions policy enables "tools" for this document (the part of
    /// "allowed to use" that does not depend on the lifecycle).
    pub tools_policy: bool,
    pub initially_active: bool,
    pub script: Vec<Op>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Annotations {
    pub read_only: bool,
    pub untrusted_content: bool,
}

#[derive(Clone, Debug)]
pub struct RegisterOp {
    pub call: CallId,
    pub name: StrId,
    pub title: Option<StrId>,
    pub description: StrId,
    /// `None` when `inputSchema` does not exist; otherwise what serializing it gives.
    pub schema: Option<Result<StrId, Thrown>>,
    pub annotations: Option<Annotations>,
    pub exposed_to: Option<Vec<ParsedOrigin>>,
    pub signal: Option<CtrlId>,
}

#[derive(Clone, Debug)]
pub struct GetToolsOp {
    pub call: CallId,
    pub from_origins: Option<Vec<ParsedOrigin>>,
}

#[derive(Clone, Debug)]
pub enum ToolArg {
    /// The entry named `name` of the list `list` fulfilled with.
    FromList { list: CallId, name: StrId },
    /// A `RegisteredTool` dictionary built by hand.
    Forged {
        name: StrId,
        origin: StrId,
        window: DocId,
    },
}

#[derive(Clone, Debug)]
pub struct ExecuteOp {
    pub call: CallId,
    pub tool: ToolArg,
    /// Whether WebIDL accepts the value as an `object` (a primitive throws a TypeError
    /// before the method steps run).
    pub input_is_object: bool,
    /// `execute-tool#9`: serializing inputObject.
    pub input_json: Result<StrId, Thrown>,
    /// The same under the `object-check` fix (differs only for `{"$js": "reaches-body"}`).
    pub input_json_object_check: Result<StrId, Thrown>,
    pub signal: Option<CtrlId>,
}

impl ExecuteOp {
    /// `execute-tool#9`'s serialization of inputObject under `variant`.
    pub fn input_json(&self, variant: crate::variant::Variant) -> Result<StrId, Thrown> {
        if variant.has(&crate::variant::OBJECT_CHECK) {
            self.input_json_object_check
        } else {
            self.input_json
        }
    }
}

#[derive(Clone, Debug)]
pub enum Op {
    Register(RegisterOp),
    GetTools(GetToolsOp),
    Execute(ExecuteOp),
    Abort(CtrlId),
    Await(CallId),
    AwaitToolchange,
    RemoveIframe(NavId),
    Navigate(NavId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallKind {
    Register,
    GetTools,
    Execute,
}

#[derive(Clone, Debug)]
pub struct Call {
    pub doc: DocId,
    pub label: String,
    pub kind: CallKind,
}

#[derive(Clone, Debug)]
pub struct Controller {
    pub name: String,
    pub owner: DocId,
}

/// How a running tool body settles the promise its `execute` callback returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// Fulfils with a value that serializes (`"done"`).
    Fulfil,
    /// Fulfils with a value whose serialization throws (`undefined`, as `async () => {}` does).
    FulfilUnserializable,
    /// Rejects.
    Reject,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Fulfil => "fulfil",
            Outcome::FulfilUnserializable => "fulfil-unserializable",
            Outcome::Reject => "reject",
        }
    }
    pub fn parse(s: &str) -> Option<Outcome> {
        [
            Outcome::Fulfil,
            Outcome::FulfilUnserializable,
            Outcome::Reject,
        ]
        .into_iter()
        .find(|o| o.name() == s)
    }
}

#[derive(Clone, Debug, Default)]
pub struct Env {
    pub abort: Vec<CtrlId>,
    pub remove_iframe: Vec<NavId>,
    pub navigate: Vec<NavId>,
    pub bfcache: Vec<TabId>,
    pub observe: u8,
    pub outcomes: Vec<Outcome>,
    pub max_interventions: u8,
}

/// A compiled scenario.
#[derive(Clone, Debug)]
pub struct World {
    pub name: String,
    pub summary: String,
    pub description: String,
    pub strings: Vec<String>,
    pub origins: OriginTable,
    pub tabs: Vec<Tab>,
    pub navs: Vec<Nav>,
    pub docs: Vec<Doc>,
    pub agents: Vec<String>,
    pub calls: Vec<Call>,
    pub controllers: Vec<Controller>,
    pub env: Env,
    pub expect: BTreeMap<String, String>,
    /// `execute-tool#5`: the URL parser's result on each interned string, where it is an
    /// origin string some `RegisteredTool` can carry.
    pub origin_string_parse: BTreeMap<StrId, ParsedOrigin>,
    /// The serialized result a body that fulfils with a serializable value produces.
    pub tool_result: StrId,
    /// The empty string (an input schema that does not exist, a title defaulted to "").
    pub empty_string: StrId,
}

/// A scenario that cannot be compiled: what is wrong and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError(pub String);

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScenarioError {}

fn err<T>(msg: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError(msg.into()))
}

impl World {
    pub fn str(&self, id: StrId) -> &str {
        &self.strings[id.index()]
    }
    pub fn doc_named(&self, name: &str) -> Option<DocId> {
        self.docs
            .iter()
            .position(|d| d.name == name)
            .map(DocId::nth)
    }
    pub fn nav_named(&self, name: &str) -> Option<NavId> {
        self.navs
            .iter()
            .position(|n| n.name == name)
            .map(|i| i as NavId)
    }
    pub fn call_named(&self, label: &str) -> Option<CallId> {
        self.calls
            .iter()
            .position(|c| c.label == label)
            .map(CallId::nth)
    }
    /// The top-level traversable of a navigable (its tab's root: the tree never re-parents).
    pub fn traversable_of(&self, nav: NavId) -> NavId {
        self.tabs[self.navs[nav as usize].tab as usize].root
    }
    pub fn agent_of(&self, doc: DocId) -> AgentId {
        self.docs[doc.index()].agent
    }
    /// The navigables whose iframe element sits in `doc`, in tree order.
    pub fn child_navs(&self, doc: DocId) -> impl Iterator<Item = NavId> + '_ {
        self.navs
            .iter()
            .enumerate()
            .filter(move |(_, n)| n.container == Some(doc))
            .map(|(i, _)| i as NavId)
    }
    /// The `execute-tool` call with uuid `call`.
    pub fn execute_op(&self, call: CallId) -> &ExecuteOp {
        let doc = &self.docs[self.calls[call.index()].doc.index()];
        doc.script
            .iter()
            .find_map(|op| match op {
                Op::Execute(e) if e.call == call => Some(e),
                _ => None,
            })
            .expect("an execute call id names an executeTool statement")
    }
    pub fn register_op(&self, call: CallId) -> &RegisterOp {
        let doc = &self.docs[self.calls[call.index()].doc.index()];
        doc.script
            .iter()
            .find_map(|op| match op {
                Op::Register(r) if r.call == call => Some(r),
                _ => None,
            })
            .expect("a register call id names a registerTool statement")
    }

    /// Parses a scenario file's text.
    pub fn from_json(text: &str) -> Result<World, ScenarioError> {
        let scenario: Scenario = serde_json::from_str(text).map_err(|e| {
            ScenarioError(format!(
                "line {}, column {}: {}",
                e.line(),
                e.column(),
                strip_serde_position(&e.to_string())
            ))
        })?;
        World::compile(&scenario)
    }

    /// Checks a scenario and lowers it.
    pub fn compile(sc: &Scenario) -> Result<World, ScenarioError> {
        Compiler::default().compile(sc)
    }
}

fn strip_serde_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// A document to declare: its name, URL, navigable, agent, whether its agent cluster is
/// origin-keyed, whether it starts active, and its iframe's `allow` and src origin.
struct NewDoc<'a> {
    name: &'a str,
    url: &'a str,
    nav: NavId,
    agent: &'a Option<String>,
    keyed: bool,
    active: bool,
    frame: (Option<String>, Option<OriginId>),
}

#[derive(Default)]
struct Compiler {
    strings: Vec<String>,
    origins: OriginTable,
    tabs: Vec<Tab>,
    navs: Vec<Nav>,
    docs: Vec<Doc>,
    /// Per document: its iframe `allow` attribute and declared src origin.
    frame_info: Vec<(Option<String>, Option<OriginId>)>,
    doc_keyed: Vec<bool>,
    agents: Vec<String>,
    explicit_agents: Vec<Option<String>>,
    calls: Vec<Call>,
    controllers: Vec<Controller>,
    origin_string_parse: BTreeMap<StrId, ParsedOrigin>,
}

impl Compiler {
    fn intern(&mut self, s: &str) -> StrId {
        if let Some(i) = self.strings.iter().position(|x| x == s) {
            return StrId::nth(i);
        }
        self.strings.push(s.to_string());
        StrId::nth(self.strings.len() - 1)
    }

    fn add_doc(&mut self, d: NewDoc<'_>) -> Result<DocId, ScenarioError> {
        let NewDoc {
            name: spec_doc,
            url,
            nav,
            agent,
            keyed,
            active,
            frame,
        } = d;
        if self.docs.iter().any(|d| d.name == spec_doc) {
            return err(format!("document \"{spec_doc}\" is declared twice"));
        }
        let Some(origin) = self.origins.parse(url) else {
            return err(format!("document \"{spec_doc}\": \"{url}\" is not a URL"));
        };
        let origin_string = self.origins.serialize(origin);
        let origin_string = self.intern(&origin_string);
        self.docs.push(Doc {
            name: spec_doc.to_string(),
            url: url.to_string(),
            origin,
            origin_string,
            nav,
            agent: 0,
            origin_keyed: keyed,
            tools_policy: false,
            initially_active: active,
            script: Vec::new(),
        });
        self.frame_info.push(frame);
        self.doc_keyed.push(keyed);
        self.explicit_agents.push(agent.clone());
        if self.docs.len() > 32 {
            return err("a scenario may declare at most 32 documents");
        }
        Ok(DocId::nth(self.docs.len() - 1))
    }

    fn add_tree(
        &mut self,
        tab: TabId,
        name: &str,
        container: Option<DocId>,
        allow: Option<String>,
        d: &DocSpec,
    ) -> Result<(), ScenarioError> {
        if self.navs.iter().any(|n| n.name == name) {
            return err(format!("navigable \"{name}\" is declared twice"));
        }
        let nav = self.navs.len() as NavId;
        let src = self.origins.parse(&d.url);
        let doc = self.add_doc(NewDoc {
            name: &d.doc,
            url: &d.url,
            nav,
            agent: &d.agent,
            keyed: d.origin_keyed,
            active: true,
            frame: (allow, src),
        })?;
        self.navs.push(Nav {
            name: name.to_string(),
            tab,
            container,
            initial: doc,
            replacement: None,
        });
        for f in &d.iframes {
            self.add_tree(tab, &f.nav, Some(doc), f.allow.clone(), &f.doc)?;
        }
        Ok(())
    }

    fn compile(mut self, sc: &Scenario) -> Result<World, ScenarioError> {
        if sc.tabs.is_empty() {
            return err("a scenario needs at least one tab");
        }
        for t in &sc.tabs {
            let tab = self.tabs.len() as TabId;
            self.tabs.push(Tab {
                name: t.tab.clone(),
                root: self.navs.len() as NavId,
            });
            self.add_tree(tab, &t.tab, None, None, &t.top)?;
        }
        for n in &sc.navigations {
            let Some(nav) = self.navs.iter().position(|x| x.name == n.nav) else {
                return err(format!("navigation: no navigable named \"{}\"", n.nav));
            };
            if self.navs[nav].replacement.is_some() {
                return err(format!("navigable \"{}\" has two navigations", n.nav));
            }
            let frame = self.frame_info[self.navs[nav].initial.index()].clone();
            let doc = self.add_doc(NewDoc {
                name: &n.doc,
                url: &n.url,
                nav: nav as NavId,
                agent: &n.agent,
                keyed: n.origin_keyed,
                active: false,
                frame,
            })?;
            self.navs[nav].replacement = Some(doc);
        }
        self.assign_agents();
        self.compute_policies();
        for (doc_name, ops) in &sc.scripts {
            let Some(doc) = self.docs.iter().position(|d| &d.name == doc_name) else {
                return err(format!("scripts: no document named \"{doc_name}\""));
            };
            let mut script = Vec::new();
            for (i, op) in ops.iter().enumerate() {
                let at = format!("scripts.{doc_name}[{i}]");
                script.push(self.op(DocId::nth(doc), op, &at)?);
            }
            self.docs[doc].script = script;
        }
        let env = self.env(&sc.environment)?;
        for d in 0..self.docs.len() {
            let s = self.docs[d].origin_string;
            let parsed = self.origins.parse(&self.strings[s.index()].clone());
            self.origin_string_parse.insert(s, parsed);
        }
        if self.origins.overflowed() {
            return err(format!(
                "the scenario uses more than {} distinct origins (each opaque origin counts once per use)",
                OriginTable::CAPACITY
            ));
        }
        let tool_result = self.intern("\"done\"");
        let empty_string = self.intern("");
        Ok(World {
            name: sc.name.clone(),
            summary: sc.summary.clone(),
            description: sc.description.clone(),
            strings: self.strings,
            origins: self.origins,
            tabs: self.tabs,
            navs: self.navs,
            docs: self.docs,
            agents: self.agents,
            calls: self.calls,
            controllers: self.controllers,
            env,
            expect: sc.expect.clone(),
            origin_string_parse: self.origin_string_parse,
            tool_result,
            empty_string,
        })
    }

    /// Same-origin documents of one tab share an agent (and so an event loop) unless the
    /// scenario names agents explicitly.
    fn assign_agents(&mut self) {
        for d in 0..self.docs.len() {
            let name = match &self.explicit_agents[d] {
                Some(a) => a.clone(),
                None => {
                    let tab = &self.tabs[self.navs[self.docs[d].nav as usize].tab as usize].name;
                    format!("{tab}/{}", self.origins.serialize(self.docs[d].origin))
                }
            };
            let id = match self.agents.iter().position(|a| *a == name) {
                Some(i) => i,
                None => {
                    self.agents.push(name);
                    self.agents.len() - 1
                }
            };
            self.docs[d].agent = id as AgentId;
        }
    }

    /// Permissions Policy for "tools" (default allowlist `'self'`): a top-level document has
    /// it; a child has it when its container document has it and either the iframe's `allow`
    /// attribute lists "tools" for the child's origin or, with no such directive, the child
    /// is same origin with its container document.
    fn compute_policies(&mut self) {
        for d in 0..self.docs.len() {
            let allowed = self.policy(DocId::nth(d));
            self.docs[d].tools_policy = allowed;
        }
    }

    fn policy(&self, doc: DocId) -> bool {
        let nav = &self.navs[self.docs[doc.index()].nav as usize];
        let Some(container) = nav.container else {
            return true;
        };
        if !self.policy(container) {
            return false;
        }
        let origin = self.docs[doc.index()].origin;
        let (allow, src) = &self.frame_info[doc.index()];
        let directive = allow.as_deref().and_then(|a| {
            a.split(';')
                .map(str::trim)
                .find(|d| d.split_whitespace().next() == Some("tools"))
        });
        match directive {
            None => origin == self.docs[container.index()].origin,
            Some(d) => {
                let list: Vec<&str> = d.split_whitespace().skip(1).collect();
                if list.is_empty() {
                    return Some(origin) == *src;
                }
                list.iter().any(|item| match *item {
                    "*" => true,
                    "'none'" => false,
                    "'self'" => origin == self.docs[container.index()].origin,
                    "'src'" => Some(origin) == *src,
                    url => crate::origin::parse_origin(url)
                        .is_some_and(|o| o == *self.origins.get(origin)),
                })
            }
        }
    }

    fn ctrl(&mut self, doc: DocId, name: &str, at: &str) -> Result<CtrlId, ScenarioError> {
        if let Some(i) = self.controllers.iter().position(|c| c.name == name) {
            if self.controllers[i].owner != doc {
                return err(format!(
                    "{at}: AbortController \"{name}\" belongs to another document's script"
                ));
            }
            return Ok(CtrlId::nth(i));
        }
        self.controllers.push(Controller {
            name: name.to_string(),
            owner: doc,
        });
        Ok(CtrlId::nth(self.controllers.len() - 1))
    }

    fn new_call(
        &mut self,
        doc: DocId,
        op: &OpSpec,
        kind: CallKind,
        at: &str,
    ) -> Result<CallId, ScenarioError> {
        let label = op
            .label
            .clone()
            .unwrap_or_else(|| format!("{}#{}", self.docs[doc.index()].name, self.calls.len()));
        if self.calls.iter().any(|c| c.label == label) {
            return err(format!("{at}: the label \"{label}\" is used twice"));
        }
        if self.calls.len() >= 64 {
            return err(format!("{at}: a scenario may make at most 64 calls"));
        }
        self.calls.push(Call { doc, label, kind });
        Ok(CallId::nth(self.calls.len() - 1))
    }

    fn earlier_call(&self, doc: DocId, label: &str, at: &str) -> Result<CallId, ScenarioError> {
        match self.calls.iter().position(|c| c.label == label) {
            Some(i) if self.calls[i].doc == doc => Ok(CallId::nth(i)),
            Some(_) => err(format!(
                "{at}: \"{label}\" is another document's call; a script can only await its own"
            )),
            None => err(format!("{at}: no earlier call labelled \"{label}\"")),
        }
    }

    fn nav(&self, name: &str, at: &str) -> Result<NavId, ScenarioError> {
        match self.navs.iter().position(|n| n.name == name) {
            Some(i) => Ok(i as NavId),
            None => err(format!("{at}: no navigable named \"{name}\"")),
        }
    }

    fn op(&mut self, doc: DocId, op: &OpSpec, at: &str) -> Result<Op, ScenarioError> {
        let kinds = [
            op.register_tool.is_some(),
            op.get_tools.is_some(),
            op.execute_tool.is_some(),
            op.abort.is_some(),
            op.await_call.is_some(),
            op.await_toolchange == Some(true),
            op.remove_iframe.is_some(),
            op.navigate.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return err(format!(
                "{at}: a statement needs exactly one of registerTool, getTools, executeTool, abort, await, awaitToolchange, removeIframe, navigate"
            ));
        }
        let is_call =
            op.register_tool.is_some() || op.get_tools.is_some() || op.execute_tool.is_some();
        let misplaced = [
            (
                "as",
                op.label.is_some() && !is_call,
                "registerTool, getTools and executeTool",
            ),
            (
                "input",
                op.input.is_some() && op.execute_tool.is_none(),
                "executeTool",
            ),
            (
                "exposedTo",
                op.exposed_to.is_some() && op.register_tool.is_none(),
                "registerTool",
            ),
            (
                "signal",
                op.signal.is_some() && op.register_tool.is_none() && op.execute_tool.is_none(),
                "registerTool and executeTool",
            ),
        ];
        if let Some((field, _, owners)) = misplaced.iter().find(|(_, wrong, _)| *wrong) {
            return err(format!(
                "{at}: \"{field}\" is an option of {owners}, not of this statement"
            ));
        }
        if let Some(t) = &op.register_tool {
            let call = self.new_call(doc, op, CallKind::Register, at)?;
            let name = self.intern(&t.name);
            let title = t.title.as_deref().map(|x| self.intern(x));
            let description = self.intern(&t.description);
            let schema = t
                .input_schema
                .as_ref()
                .map(|v| v.serialize().map(|text| self.intern(&text)));
            let annotations = t.annotations.as_ref().map(|a| Annotations {
                read_only: a.read_only_hint,
                untrusted_content: a.untrusted_content_hint,
            });
            let exposed_to = op
                .exposed_to
                .as_ref()
                .map(|list| list.iter().map(|s| self.origins.parse(s)).collect());
            let signal = match &op.signal {
                Some(s) => Some(self.ctrl(doc, s, at)?),
                None => None,
            };
            return Ok(Op::Register(RegisterOp {
                call,
                name,
                title,
                description,
                schema,
                annotations,
                exposed_to,
                signal,
            }));
        }
        if let Some(g) = &op.get_tools {
            let call = self.new_call(doc, op, CallKind::GetTools, at)?;
            let from_origins = g
                .from_origins
                .as_ref()
                .map(|list| list.iter().map(|s| self.origins.parse(s)).collect());
            return Ok(Op::GetTools(GetToolsOp { call, from_origins }));
        }
        if let Some(r) = &op.execute_tool {
            let name = self.intern(&r.name);
            let tool = match (&r.from, &r.origin, &r.window) {
                (Some(list), None, None) => {
                    let call = self.earlier_call(doc, list, at)?;
                    if self.calls[call.index()].kind != CallKind::GetTools {
                        return err(format!(
                            "{at}: \"from\" names a getTools call, and \"{list}\" is not one"
                        ));
                    }
                    ToolArg::FromList { list: call, name }
                }
                (None, Some(origin), Some(window)) => {
                    let Some(w) = self.docs.iter().position(|d| &d.name == window) else {
                        return err(format!("{at}: no document named \"{window}\""));
                    };
                    let o = self.intern(origin);
                    let parsed = self.origins.parse(origin);
                    self.origin_string_parse.insert(o, parsed);
                    ToolArg::Forged {
                        name,
                        origin: o,
                        window: DocId::nth(w),
                    }
                }
                _ => {
                    return err(format!(
                        "{at}: executeTool needs either \"from\" (a getTools label) or both \"origin\" and \"window\""
                    ))
                }
            };
            let call = self.new_call(doc, op, CallKind::Execute, at)?;
            let input = op
                .input
                .clone()
                .unwrap_or(JsValue::Json(serde_json::json!({})));
            let input_json = match input.serialize() {
                Ok(s) => Ok(self.intern(&s)),
                Err(e) => Err(e),
            };
            let input_json_object_check =
                input.serialize_with_object_check().map(|s| self.intern(&s));
            if let Ok(s) = input_json {
                if json_text_is_object(&self.strings[s.index()]).is_none() {
                    return err(format!(
                        "{at}: internal: the input serializes to invalid JSON"
                    ));
                }
            }
            let signal = match &op.signal {
                Some(s) => Some(self.ctrl(doc, s, at)?),
                None => None,
            };
            return Ok(Op::Execute(ExecuteOp {
                call,
                tool,
                input_is_object: input.is_object(),
                input_json,
                input_json_object_check,
                signal,
            }));
        }
        if let Some(a) = &op.abort {
            return Ok(Op::Abort(self.ctrl(doc, a, at)?));
        }
        if let Some(l) = &op.await_call {
            return Ok(Op::Await(self.earlier_call(doc, l, at)?));
        }
        if op.await_toolchange == Some(true) {
            return Ok(Op::AwaitToolchange);
        }
        if let Some(n) = &op.remove_iframe {
            let nav = self.nav(n, at)?;
            if self.navs[nav as usize].container != Some(doc) {
                return err(format!("{at}: \"{n}\" is not an iframe of this document"));
            }
            return Ok(Op::RemoveIframe(nav));
        }
        let n = op.navigate.as_ref().expect("one kind is set");
        let nav = self.nav(n, at)?;
        if self.navs[nav as usize].replacement.is_none() {
            return err(format!(
                "{at}: navigable \"{n}\" has no navigation declared"
            ));
        }
        Ok(Op::Navigate(nav))
    }

    fn env(&mut self, e: &EnvironmentSpec) -> Result<Env, ScenarioError> {
        let mut env = Env {
            observe: e.observe,
            ..Env::default()
        };
        for a in &e.abort {
            match self.controllers.iter().position(|c| &c.name == a) {
                Some(i) => env.abort.push(CtrlId::nth(i)),
                None => {
                    return err(format!(
                        "environment.abort: no script uses an AbortController named \"{a}\""
                    ))
                }
            }
        }
        for n in &e.remove_iframe {
            let nav = self.nav(n, "environment.removeIframe")?;
            if self.navs[nav as usize].container.is_none() {
                return err(format!(
                    "environment.removeIframe: \"{n}\" is a tab, not an iframe"
                ));
            }
            env.remove_iframe.push(nav);
        }
        for n in &e.navigate {
            let nav = self.nav(n, "environment.navigate")?;
            if self.navs[nav as usize].replacement.is_none() {
                return err(format!(
                    "environment.navigate: navigable \"{n}\" has no navigation declared"
                ));
            }
            env.navigate.push(nav);
        }
        for t in &e.bfcache {
            match self.tabs.iter().position(|x| &x.name == t) {
                Some(i) => env.bfcache.push(i as TabId),
                None => return err(format!("environment.bfcache: no tab named \"{t}\"")),
            }
        }
        for o in &e.tool_outcomes {
            match Outcome::parse(o) {
                Some(o) => env.outcomes.push(o),
                None => {
                    return err(format!(
                        "environment.toolOutcomes: \"{o}\" is not one of fulfil, fulfil-unserializable, reject"
                    ))
                }
            }
        }
        let total =
            env.abort.len() + env.remove_iframe.len() + env.navigate.len() + 2 * env.bfcache.len();
        env.max_interventions = e.max_interventions.unwrap_or(total.min(255) as u8);
        Ok(env)
    }
}
