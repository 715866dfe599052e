//! The static part of a model: a scenario, checked and lowered to small integer ids.
//!
//! Everything here is fixed for a whole model-checking run: the navigable tree as declared,
//! documents and their origins, agents, page scripts and environment bounds. The dynamic part
//! is [`crate::state::State`].

use std::collections::BTreeMap;

use crate::error::quoted;
use crate::limits::Limit;
use crate::names::{json_text_is_object, JsValue, Thrown};
use crate::origin::{OriginId, OriginTable, ParsedOrigin};
use crate::scenario::{CallOptions, DocSpec, EnvironmentSpec, OpSpec, Scenario, Statement};
use crate::validate::checked;

pub use crate::ids::{AgentId, CallId, CtrlId, DocId, NavId, StrId, TabId};

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

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
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
    /// Whether `inputSchema`, where present, is an object (what its WebIDL type `object`
    /// accepts): `null` and primitives make the dictionary conversion throw a TypeError.
    pub schema_is_object: bool,
    pub annotations: Option<Annotations>,
    pub exposed_to: Option<Vec<ParsedOrigin>>,
    pub signal: Option<CtrlId>,
    /// What the `execute` callback does; `None`: the environment settles it.
    pub body: Option<Vec<BodyOp>>,
}

/// A statement of a tool's `execute` callback.
#[derive(Clone, Debug)]
pub enum BodyOp {
    /// `await document.modelContext.executeTool(...)`, made by the first invocation of the
    /// body that reaches it; later invocations skip it (the page guards it with a flag), so
    /// a tool may execute itself once.
    Execute(ExecuteOp),
    /// `controller.abort()`.
    Abort(CtrlId),
    /// `await` the abort of the callback's signal.
    AwaitAbort,
    /// `return value`: the serialization `imperative-execute-steps#10.fulfilled.4` will make
    /// of it.
    Return(Result<StrId, Thrown>),
    /// `throw`.
    Throw,
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
    /// `execute-tool#10`: serializing inputObject.
    pub input_json: Result<StrId, Thrown>,
    /// The same under the `object-check` fix (differs only for `{"$js": "reaches-body"}`).
    pub input_json_object_check: Result<StrId, Thrown>,
    pub signal: Option<CtrlId>,
}

impl ExecuteOp {
    /// `execute-tool#10`'s serialization of inputObject under `variant`.
    pub fn input_json(&self, variant: crate::variant::Variant) -> Result<StrId, Thrown> {
        if variant.has(&crate::variant::OBJECT_CHECK)
            || variant.revision().tests_object_input_directly()
        {
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
    /// The document of the `ModelContext` the method is called on (`this`'s relevant
    /// global object's associated Document): the script's own, or one it kept (`on`).
    pub doc: DocId,
    /// The document whose script makes the call.
    pub script: DocId,
    pub label: String,
    pub kind: CallKind,
    /// The index of the statement that makes the call in its document's script.
    pub statement: usize,
    /// For a call a tool body makes: its index in the body of the registerTool at
    /// `statement`.
    pub body_statement: Option<usize>,
}

#[derive(Clone, Debug)]
pub struct Controller {
    pub name: String,
    pub owner: DocId,
    /// The reason `abort(reason)` gives, as JSON text; `None`: the default "AbortError"
    /// DOMException. One per controller, used by every abort of it (the environment's too).
    pub reason: Option<StrId>,
}

/// How a running tool body settles the promise its `execute` callback returned.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
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
    /// Whether `toolactivated` and `toolcancel` fire (the scenario's opt-in `toolEvents`).
    pub tool_events: bool,
    /// `execute-tool#4`: the URL parser's result on each interned string, where it is an
    /// origin string some `RegisteredTool` can carry.
    pub origin_string_parse: BTreeMap<StrId, ParsedOrigin>,
    /// The serialized result a body that fulfils with a serializable value produces.
    pub tool_result: StrId,
    /// The empty string (an input schema that does not exist, a title defaulted to "").
    pub empty_string: StrId,
}

pub use crate::error::{ErrorKind, Location, ScenarioError};

/// An error of kind [`ErrorKind::Invalid`] about the member at `at` (empty: the file).
fn err<T>(at: &str, msg: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError::invalid(at, msg))
}

/// An error about `name`, a `what` the scenario does not declare.
fn unknown<T>(at: &str, what: &'static str, name: &str) -> Result<T, ScenarioError> {
    Err(ScenarioError::at(
        at,
        ErrorKind::Unknown {
            what,
            name: name.to_string(),
        },
    ))
}

/// An error about `name`, a `what` declared twice.
fn twice<T>(at: &str, what: &'static str, name: &str) -> Result<T, ScenarioError> {
    Err(ScenarioError::at(
        at,
        ErrorKind::Duplicate {
            what,
            name: name.to_string(),
        },
    ))
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
            .map(NavId::nth)
    }
    pub fn call_named(&self, label: &str) -> Option<CallId> {
        self.calls
            .iter()
            .position(|c| c.label == label)
            .map(CallId::nth)
    }
    /// The top-level traversable of a navigable (its tab's root: the tree never re-parents).
    pub fn traversable_of(&self, nav: NavId) -> NavId {
        self.tabs[self.navs[nav.index()].tab.index()].root
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
            .map(|(i, _)| NavId::nth(i))
    }
    /// The `execute-tool` call with uuid `call`.
    pub fn execute_op(&self, call: CallId) -> &ExecuteOp {
        let c = &self.calls[call.index()];
        match (
            &self.docs[c.script.index()].script[c.statement],
            c.body_statement,
        ) {
            (Op::Execute(e), None) if e.call == call => e,
            (Op::Register(r), Some(j)) => match r.body.as_ref().and_then(|b| b.get(j)) {
                Some(BodyOp::Execute(e)) if e.call == call => e,
                _ => panic!("a body call id names an executeTool statement of a body"),
            },
            _ => panic!("an execute call id names an executeTool statement"),
        }
    }
    pub fn register_op(&self, call: CallId) -> &RegisterOp {
        let c = &self.calls[call.index()];
        match &self.docs[c.script.index()].script[c.statement] {
            Op::Register(r) if r.call == call => r,
            _ => panic!("a register call id names a registerTool statement"),
        }
    }

    /// Parses a scenario file's text (a leading UTF-8 byte-order mark is ignored).
    pub fn from_json(text: &str) -> Result<World, ScenarioError> {
        let text = crate::error::precheck(text)?;
        let scenario: Scenario =
            serde_json::from_str(text).map_err(|e| crate::error::from_serde(&e))?;
        crate::error::strictly::<Scenario>(text)?;
        World::compile(&scenario)
    }

    /// Checks a scenario (names, strings and [`crate::limits`] first) and lowers it.
    pub fn compile(sc: &Scenario) -> Result<World, ScenarioError> {
        crate::validate::validate(sc)?;
        Compiler::default().compile(sc)
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
    fn intern(&mut self, s: &str) -> Result<StrId, ScenarioError> {
        if let Some(i) = self.strings.iter().position(|x| x == s) {
            return checked("", i);
        }
        let id = checked("", self.strings.len())?;
        self.strings.push(s.to_string());
        Ok(id)
    }

    fn add_doc(&mut self, at: &str, d: NewDoc<'_>) -> Result<DocId, ScenarioError> {
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
            return twice(at, "document", spec_doc);
        }
        let Some(origin) = self.origins.parse(url) else {
            return err(
                at,
                format!(
                    "the URL {} of document {} does not parse",
                    quoted(url),
                    quoted(spec_doc)
                ),
            );
        };
        let id = checked(at, self.docs.len())?;
        let origin_string = self.origins.serialize(origin);
        let origin_string = self.intern(&origin_string)?;
        self.docs.push(Doc {
            name: spec_doc.to_string(),
            url: url.to_string(),
            origin,
            origin_string,
            nav,
            agent: AgentId::nth(0),
            origin_keyed: keyed,
            tools_policy: false,
            initially_active: active,
            script: Vec::new(),
        });
        self.frame_info.push(frame);
        self.doc_keyed.push(keyed);
        self.explicit_agents.push(agent.clone());
        Ok(id)
    }

    fn add_tree(
        &mut self,
        at: &str,
        tab: TabId,
        name: &str,
        container: Option<DocId>,
        allow: Option<String>,
        d: &DocSpec,
    ) -> Result<(), ScenarioError> {
        if self.navs.iter().any(|n| n.name == name) {
            return twice(at, "navigable", name);
        }
        let nav = checked(at, self.navs.len())?;
        let src = self.origins.parse(&d.url);
        let doc = self.add_doc(
            at,
            NewDoc {
                name: &d.doc,
                url: &d.url,
                nav,
                agent: &d.agent,
                keyed: d.origin_keyed,
                active: true,
                frame: (allow, src),
            },
        )?;
        self.navs.push(Nav {
            name: name.to_string(),
            tab,
            container,
            initial: doc,
            replacement: None,
        });
        for (j, f) in d.iframes.iter().enumerate() {
            let at = format!("{at}.iframes[{j}]");
            self.add_tree(&at, tab, &f.nav, Some(doc), f.allow.clone(), &f.doc)?;
        }
        Ok(())
    }

    fn compile(mut self, sc: &Scenario) -> Result<World, ScenarioError> {
        if sc.tabs.is_empty() {
            return err("tabs", "a scenario needs at least one tab");
        }
        for (i, t) in sc.tabs.iter().enumerate() {
            let at = format!("tabs[{i}]");
            let tab = checked(&at, self.tabs.len())?;
            self.tabs.push(Tab {
                name: t.tab.clone(),
                root: checked(&at, self.navs.len())?,
            });
            self.add_tree(&at, tab, &t.tab, None, None, &t.top)?;
        }
        for (i, n) in sc.navigations.iter().enumerate() {
            let at = format!("navigations[{i}]");
            let Some(nav) = self.navs.iter().position(|x| x.name == n.nav) else {
                return unknown(&format!("{at}.nav"), "navigable", &n.nav);
            };
            if self.navs[nav].replacement.is_some() {
                return err(
                    &at,
                    format!("navigable {} has two navigations", quoted(&n.nav)),
                );
            }
            let frame = self.frame_info[self.navs[nav].initial.index()].clone();
            let doc = self.add_doc(
                &at,
                NewDoc {
                    name: &n.doc,
                    url: &n.url,
                    nav: checked(&at, nav)?,
                    agent: &n.agent,
                    keyed: n.origin_keyed,
                    active: false,
                    frame,
                },
            )?;
            self.navs[nav].replacement = Some(doc);
        }
        self.assign_agents()?;
        self.compute_policies();
        for (doc_name, ops) in &sc.scripts {
            let Some(doc) = self.docs.iter().position(|d| &d.name == doc_name) else {
                return unknown("scripts", "document", doc_name);
            };
            let mut script = Vec::new();
            for (i, op) in ops.iter().enumerate() {
                let at = format!("scripts.{doc_name}[{i}]");
                script.push(self.op(DocId::nth(doc), op, &at)?);
            }
            for (i, op) in script.iter().enumerate() {
                if let Op::Register(r) = op {
                    for (j, b) in r.body.iter().flatten().enumerate() {
                        if let BodyOp::Execute(e) = b {
                            self.calls[e.call.index()].statement = i;
                            self.calls[e.call.index()].body_statement = Some(j);
                        }
                    }
                }
                let call = match op {
                    Op::Register(r) => r.call,
                    Op::GetTools(g) => g.call,
                    Op::Execute(e) => e.call,
                    Op::Abort(_)
                    | Op::Await(_)
                    | Op::AwaitToolchange
                    | Op::RemoveIframe(_)
                    | Op::Navigate(_) => continue,
                };
                self.calls[call.index()].statement = i;
            }
            self.docs[doc].script = script;
        }
        let env = self.env(&sc.environment)?;
        self.navigated_once(&env)?;
        for d in 0..self.docs.len() {
            let s = self.docs[d].origin_string;
            let parsed = self.origins.parse(&self.strings[s.index()].clone());
            self.origin_string_parse.insert(s, parsed);
        }
        if self.origins.overflowed() {
            return Err(ScenarioError::limit(
                "",
                "the scenario (where each opaque origin counts once per use)",
                None,
                Limit::Origins,
            ));
        }
        let tool_result = self.intern("\"done\"")?;
        let empty_string = self.intern("")?;
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
            tool_events: sc.tool_events,
            origin_string_parse: self.origin_string_parse,
            tool_result,
            empty_string,
        })
    }

    /// Same-origin documents of one tab share an agent (and so an event loop) unless the
    /// scenario names agents explicitly.
    fn assign_agents(&mut self) -> Result<(), ScenarioError> {
        for d in 0..self.docs.len() {
            let name = match &self.explicit_agents[d] {
                Some(a) => a.clone(),
                None => {
                    let tab = &self.tabs[self.navs[self.docs[d].nav.index()].tab.index()].name;
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
            // There are at most as many agents as documents.
            self.docs[d].agent = checked("", id)?;
        }
        Ok(())
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
        let nav = &self.navs[self.docs[doc.index()].nav.index()];
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
                return err(
                    at,
                    format!(
                        "AbortController {} belongs to another document's script",
                        quoted(name)
                    ),
                );
            }
            return checked(at, i);
        }
        let id = checked(at, self.controllers.len())?;
        self.controllers.push(Controller {
            name: name.to_string(),
            owner: doc,
            reason: None,
        });
        Ok(id)
    }

    fn new_call(
        &mut self,
        script: DocId,
        options: CallOptions<'_>,
        kind: CallKind,
        at: &str,
    ) -> Result<CallId, ScenarioError> {
        let label = options.label.map_or_else(
            || format!("{}#{}", self.docs[script.index()].name, self.calls.len()),
            str::to_string,
        );
        if self.calls.iter().any(|c| c.label == label) {
            return err(at, format!("the label {} is used twice", quoted(&label)));
        }
        let doc = self.model_context_of(script, options.on, at)?;
        let id = checked(at, self.calls.len())?;
        // The statement index is set once the script is compiled.
        self.calls.push(Call {
            doc,
            script,
            label,
            kind,
            statement: 0,
            body_statement: None,
        });
        Ok(id)
    }

    /// The document whose `ModelContext` a call statement of `script` uses: its own, or
    /// the one named by `on`, which the script can only hold if it is a document of the same
    /// tab on the same event loop (a same-origin `contentDocument`), loaded from the start.
    fn model_context_of(
        &self,
        script: DocId,
        on: Option<&str>,
        at: &str,
    ) -> Result<DocId, ScenarioError> {
        let Some(name) = on else {
            return Ok(script);
        };
        let Some(i) = self.docs.iter().position(|d| d.name == name) else {
            return unknown(&format!("{at}.on"), "document", name);
        };
        let (kept, by) = (&self.docs[i], &self.docs[script.index()]);
        let tab = |d: &Doc| self.navs[d.nav.index()].tab;
        if !kept.initially_active || tab(kept) != tab(by) || kept.agent != by.agent {
            return err(
                &format!("{at}.on"),
                format!(
                    "the script of {} cannot hold the ModelContext of {}: it must be a document of the same tab, on the same event loop, loaded from the start",
                    quoted(&by.name),
                    quoted(name)
                ),
            );
        }
        checked(at, i)
    }

    fn earlier_call(&self, doc: DocId, label: &str, at: &str) -> Result<CallId, ScenarioError> {
        match self.calls.iter().position(|c| c.label == label) {
            Some(i) if self.calls[i].script == doc => checked(at, i),
            Some(_) => err(
                at,
                format!(
                    "{} is another document's call; a script can only await its own",
                    quoted(label)
                ),
            ),
            None => err(at, format!("no earlier call labelled {}", quoted(label))),
        }
    }

    /// A tool body: each statement one of `abort`, `awaitAbort`, `return`, `throw`; nothing
    /// after a `return` or `throw`, which would never run.
    fn body(
        &mut self,
        script: DocId,
        on: Option<&str>,
        ops: &[crate::scenario::BodyOpSpec],
        at: &str,
    ) -> Result<Vec<BodyOp>, ScenarioError> {
        if ops.len() > crate::limits::MAX_STATEMENTS {
            return Err(ScenarioError::limit(
                at,
                "a tool body",
                Some(ops.len()),
                Limit::Statements,
            ));
        }
        let mut body = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            let at = format!("{at}[{i}]");
            let kinds = [
                op.abort.is_some(),
                op.await_abort == Some(true),
                op.return_value.is_some(),
                op.throw == Some(true),
                op.execute_tool.is_some(),
            ];
            if kinds.iter().filter(|k| **k).count() != 1 {
                return err(
                    &at,
                    "a tool body statement needs exactly one of abort, awaitAbort (true), return, throw (true), executeTool",
                );
            }
            if op.execute_tool.is_none()
                && (op.label.is_some() || op.input.is_some() || op.signal.is_some())
            {
                return err(
                    &at,
                    "\"as\", \"input\" and \"signal\" are options of a body's executeTool",
                );
            }
            if matches!(body.last(), Some(BodyOp::Return(_) | BodyOp::Throw)) {
                return err(&at, "a statement after return or throw never runs");
            }
            if let Some(r) = &op.execute_tool {
                if r.from.is_some() {
                    return err(
                        &at,
                        "a tool body passes a RegisteredTool built by hand (\"origin\" and \"window\")",
                    );
                }
                // The call is made on the ModelContext of the tool's document.
                let statement = Statement::ExecuteTool {
                    tool: r,
                    call: CallOptions {
                        label: op.label.as_deref(),
                        on,
                    },
                    input: op.input.as_ref(),
                    signal: op.signal.as_deref(),
                };
                match self.statement(script, statement, &at)? {
                    Op::Execute(e) => body.push(BodyOp::Execute(e)),
                    _ => unreachable!("an executeTool statement compiles to an Execute op"),
                }
                continue;
            }
            body.push(if let Some(c) = &op.abort {
                BodyOp::Abort(self.ctrl(script, c, &at)?)
            } else if let Some(v) = &op.return_value {
                BodyOp::Return(match v.serialize() {
                    Ok(text) => Ok(self.intern(&text)?),
                    Err(thrown) => Err(thrown),
                })
            } else if op.await_abort == Some(true) {
                BodyOp::AwaitAbort
            } else {
                BodyOp::Throw
            });
        }
        Ok(body)
    }

    fn nav(&self, name: &str, at: &str) -> Result<NavId, ScenarioError> {
        match self.navs.iter().position(|n| n.name == name) {
            Some(i) => checked(at, i),
            None => unknown(at, "navigable", name),
        }
    }

    fn op(&mut self, doc: DocId, op: &OpSpec, at: &str) -> Result<Op, ScenarioError> {
        let statement = op.statement().or_else(|message| err(at, message))?;
        self.statement(doc, statement, at)
    }

    fn statement(
        &mut self,
        doc: DocId,
        statement: Statement<'_>,
        at: &str,
    ) -> Result<Op, ScenarioError> {
        match statement {
            Statement::RegisterTool {
                tool: t,
                call,
                exposed_to,
                signal,
            } => self.register_tool(doc, t, call, exposed_to, signal, at),
            Statement::GetTools { spec: g, call } => {
                let call = self.new_call(doc, call, CallKind::GetTools, at)?;
                let from_origins = g
                    .from_origins
                    .as_ref()
                    .map(|list| list.iter().map(|s| self.origins.parse(s)).collect());
                Ok(Op::GetTools(GetToolsOp { call, from_origins }))
            }
            Statement::ExecuteTool {
                tool: r,
                call,
                input,
                signal,
            } => self.execute_tool(doc, r, call, input, signal, at),
            Statement::Abort {
                controller: a,
                reason,
            } => {
                let ctrl = self.ctrl(doc, a, at)?;
                if let Some(reason) = reason {
                    let text = self.intern(&reason.to_string())?;
                    let declared = &mut self.controllers[ctrl.index()].reason;
                    if declared.is_some_and(|r| r != text) {
                        return err(
                            &format!("{at}.reason"),
                            format!(
                                "AbortController {} is given two different reasons",
                                quoted(a)
                            ),
                        );
                    }
                    *declared = Some(text);
                }
                Ok(Op::Abort(ctrl))
            }
            Statement::Await(l) => Ok(Op::Await(self.earlier_call(doc, l, at)?)),
            Statement::AwaitToolchange => Ok(Op::AwaitToolchange),
            Statement::RemoveIframe(n) => {
                let nav = self.nav(n, at)?;
                if self.navs[nav.index()].container != Some(doc) {
                    return err(
                        at,
                        format!("{} is not an iframe of this document", quoted(n)),
                    );
                }
                Ok(Op::RemoveIframe(nav))
            }
            Statement::Navigate(n) => {
                let nav = self.nav(n, at)?;
                if self.navs[nav.index()].replacement.is_none() {
                    return err(
                        at,
                        format!("navigable {} has no navigation declared", quoted(n)),
                    );
                }
                Ok(Op::Navigate(nav))
            }
        }
    }

    /// `registerTool(tool, options)` (a body, if any, is compiled with it).
    fn register_tool(
        &mut self,
        doc: DocId,
        t: &crate::scenario::ToolSpec,
        call_options: CallOptions<'_>,
        exposed_to: Option<&[String]>,
        signal: Option<&str>,
        at: &str,
    ) -> Result<Op, ScenarioError> {
        let call = self.new_call(doc, call_options, CallKind::Register, at)?;
        let name = self.intern(&t.name)?;
        let title = match t.title.as_deref() {
            Some(x) => Some(self.intern(x)?),
            None => None,
        };
        let description = self.intern(&t.description)?;
        // A dictionary member whose value is undefined is not present (WebIDL).
        let schema = match t
            .input_schema
            .as_ref()
            .filter(|v| !v.is_undefined())
            .map(|v| v.serialize())
        {
            Some(Ok(text)) => Some(Ok(self.intern(&text)?)),
            Some(Err(thrown)) => Some(Err(thrown)),
            None => None,
        };
        let annotations = t.annotations.as_ref().map(|a| Annotations {
            read_only: a.read_only_hint,
            untrusted_content: a.untrusted_content_hint,
        });
        let exposed_to =
            exposed_to.map(|list| list.iter().map(|s| self.origins.parse(s)).collect());
        let signal = match signal {
            Some(s) => Some(self.ctrl(doc, s, at)?),
            None => None,
        };
        let schema_is_object = t
            .input_schema
            .as_ref()
            .is_none_or(|v| v.is_undefined() || v.is_object());
        let body = match &t.body {
            Some(ops) => Some(self.body(
                doc,
                call_options.on,
                ops,
                &format!("{at}.registerTool.body"),
            )?),
            None => None,
        };
        Ok(Op::Register(RegisterOp {
            call,
            name,
            title,
            description,
            schema,
            schema_is_object,
            annotations,
            exposed_to,
            signal,
            body,
        }))
    }

    /// `executeTool(tool, inputObject, options)`.
    fn execute_tool(
        &mut self,
        doc: DocId,
        r: &crate::scenario::ToolRefSpec,
        call: CallOptions<'_>,
        input: Option<&JsValue>,
        signal: Option<&str>,
        at: &str,
    ) -> Result<Op, ScenarioError> {
        let name = self.intern(&r.name)?;
        let tool = match (&r.from, &r.origin, &r.window) {
        (Some(list), None, None) => {
            let call = self.earlier_call(doc, list, at)?;
            if self.calls[call.index()].kind != CallKind::GetTools {
                return err(
                    at,
                    format!(
                        "\"from\" names a getTools call, and {} is not one",
                        quoted(list)
                    ),
                );
            }
            ToolArg::FromList { list: call, name }
        }
        (None, Some(origin), Some(window)) => {
            let Some(w) = self.docs.iter().position(|d| &d.name == window) else {
                return unknown(at, "document", window);
            };
            let o = self.intern(origin)?;
            let parsed = self.origins.parse(origin);
            self.origin_string_parse.insert(o, parsed);
            ToolArg::Forged {
                name,
                origin: o,
                window: checked(at, w)?,
            }
        }
        _ => {
            return err(
                at,
                "executeTool needs either \"from\" (a getTools label) or both \"origin\" and \"window\"",
            )
        }
    };
        let call = self.new_call(doc, call, CallKind::Execute, at)?;
        // `optional object inputObject = {}`: an absent or undefined argument is `{}`
        // (WebIDL's overload resolution takes the default for undefined).
        let input = input
            .filter(|v| !v.is_undefined())
            .cloned()
            .unwrap_or(JsValue::Json(serde_json::json!({})));
        let input_json = match input.serialize() {
            Ok(s) => Ok(self.intern(&s)?),
            Err(e) => Err(e),
        };
        let input_json_object_check = match input.serialize_with_object_check() {
            Ok(s) => Ok(self.intern(&s)?),
            Err(e) => Err(e),
        };
        if let Ok(s) = input_json {
            if json_text_is_object(&self.strings[s.index()]).is_none() {
                return err(at, "internal: the input serializes to invalid JSON");
            }
        }
        let signal = match signal {
            Some(s) => Some(self.ctrl(doc, s, at)?),
            None => None,
        };
        Ok(Op::Execute(ExecuteOp {
            call,
            tool,
            input_is_object: input.is_object(),
            input_json,
            input_json_object_check,
            signal,
        }))
    }

    /// A navigable has one replacement document (`navigations`), so it can be navigated
    /// once: by one `navigate` statement or by `environment.navigate`, not by several.
    fn navigated_once(&self, env: &Env) -> Result<(), ScenarioError> {
        let mut by: Vec<Vec<String>> = vec![Vec::new(); self.navs.len()];
        for doc in &self.docs {
            for (i, op) in doc.script.iter().enumerate() {
                if let Op::Navigate(n) = op {
                    by[n.index()].push(format!("scripts.{}[{i}]", doc.name));
                }
            }
        }
        for n in &env.navigate {
            by[n.index()].push("environment.navigate".into());
        }
        match by.iter().position(|b| b.len() > 1) {
            Some(n) => err(
                &by[n][1],
                format!(
                    "navigable {} is already navigated by {}: it has one replacement document, so it can be navigated once",
                    quoted(&self.navs[n].name),
                    by[n][0]
                ),
            ),
            None => Ok(()),
        }
    }

    fn env(&mut self, e: &EnvironmentSpec) -> Result<Env, ScenarioError> {
        // validate() bounded observe and maxInterventions, so they fit their u8 counters.
        let mut env = Env {
            observe: small("environment.observe", e.observe as usize, Limit::Observe)?,
            ..Env::default()
        };
        for a in &e.abort {
            match self.controllers.iter().position(|c| &c.name == a) {
                Some(i) => env.abort.push(checked("environment.abort", i)?),
                None => {
                    return err(
                        "environment.abort",
                        format!("no script uses an AbortController named {}", quoted(a)),
                    )
                }
            }
        }
        for n in &e.remove_iframe {
            let nav = self.nav(n, "environment.removeIframe")?;
            if self.navs[nav.index()].container.is_none() {
                return err(
                    "environment.removeIframe",
                    format!("{} is a tab, not an iframe", quoted(n)),
                );
            }
            env.remove_iframe.push(nav);
        }
        for n in &e.navigate {
            let nav = self.nav(n, "environment.navigate")?;
            if self.navs[nav.index()].replacement.is_none() {
                return err(
                    "environment.navigate",
                    format!("navigable {} has no navigation declared", quoted(n)),
                );
            }
            env.navigate.push(nav);
        }
        for t in &e.bfcache {
            match self.tabs.iter().position(|x| &x.name == t) {
                Some(i) => env.bfcache.push(checked("environment.bfcache", i)?),
                None => return unknown("environment.bfcache", "tab", t),
            }
        }
        for o in &e.tool_outcomes {
            match Outcome::parse(o) {
                Some(o) => env.outcomes.push(o),
                None => {
                    return err(
                        "environment.toolOutcomes",
                        format!(
                            "{} is not one of fulfil, fulfil-unserializable, reject",
                            quoted(o)
                        ),
                    )
                }
            }
        }
        // Each listed intervention can happen once (a bfcache round trip is two moves); the
        // lists hold no duplicates, so this stays within limits::MAX_INTERVENTIONS.
        let total =
            env.abort.len() + env.remove_iframe.len() + env.navigate.len() + 2 * env.bfcache.len();
        let max = e.max_interventions.map_or(total, |m| m as usize);
        env.max_interventions = small("environment.maxInterventions", max, Limit::Interventions)?;
        Ok(env)
    }
}

/// A `u8` counter for a count the checks already bounded by `limit`.
fn small(at: &str, n: usize, limit: Limit) -> Result<u8, ScenarioError> {
    match u8::try_from(n) {
        Ok(x) if n <= limit.value() => Ok(x),
        _ => Err(ScenarioError::limit(at, "the scenario", Some(n), limit)),
    }
}
