//! The model's states and actions as ITF values, named after the scenario.
//!
//! Every id of the model is written as the name the scenario gives it (document, navigable,
//! tab, agent, call label, AbortController name), every interned string as its text, every
//! origin as its serialization (an opaque origin, which serializes to `"null"`, is written
//! `"null#<n>"` with its table index, so distinct opaque origins stay distinct), and every step
//! as its step ID. `docs/traces.md` documents the layout variable by variable.

use serde_json::Value;
use webmcp_model::machine::Action;
use webmcp_model::origin::{OriginId, OriginSet};
use webmcp_model::state::{
    AbortStep, Body, ControllerState, DocState, Ghost, Lifecycle, NavState, PendingExecution,
    PromiseState, Reason, RegisteredTool, ScriptStatus, State, Status, Task, TaskKind,
    ToolDefinition, Value as JsResult,
};
use webmcp_model::steps::StepId;
use webmcp_model::threads::{
    CancelPc, CancelProc, CleanupPc, CleanupSub, CompletionPc, CompletionProc, ExecutePc,
    GetToolsPc, NavList, NotifyPc, Thread, ThreadKey,
};
use webmcp_model::world::{
    AgentId, Annotations, CallId, CtrlId, DocId, NavId, StrId, TabId, World,
};

use crate::itf::{int, map, named_map, option, record, set, str, tup, unit, variant};

/// The state variables of a trace, in the order `vars` lists them.
pub const STATE_VARS: &[&str] = &[
    "docs",
    "navs",
    "queues",
    "threads",
    "promises",
    "controllers",
    "pending",
    "bodies",
    "env",
    "ghost",
];

/// The action that led to a state: its name (Quint's `mbt::actionTaken`).
pub const ACTION_TAKEN: &str = "mbt::actionTaken";
/// The arguments of the action, as Quint's `mbt::nondetPicks` (one `Option` per pick).
pub const NONDET_PICKS: &str = "mbt::nondetPicks";
/// The action as one structured sum-type value (what the replayer parses).
pub const ACTION: &str = "mbt::action";
/// The step IDs of the draft the action executed, in order.
pub const STEPS: &str = "mbt::steps";

/// The name of every pick in `mbt::nondetPicks`.
pub const PICKS: &[&str] = &[
    "agent",
    "call",
    "controller",
    "doc",
    "nav",
    "outcome",
    "tab",
    "thread",
];

/// Names the model's ids after the scenario.
#[derive(Clone, Copy)]
pub struct Names<'a> {
    pub w: &'a World,
}

impl<'a> Names<'a> {
    pub fn new(w: &'a World) -> Self {
        Names { w }
    }
    pub fn doc(self, d: DocId) -> Value {
        str(&self.w.docs[d.index()].name)
    }
    pub fn nav(self, n: NavId) -> Value {
        str(&self.w.navs[n.index()].name)
    }
    pub fn tab(self, t: TabId) -> Value {
        str(&self.w.tabs[t.index()].name)
    }
    pub fn agent(self, a: AgentId) -> Value {
        str(&self.w.agents[a.index()])
    }
    pub fn call(self, c: CallId) -> Value {
        str(&self.w.calls[c.index()].label)
    }
    pub fn ctrl(self, c: CtrlId) -> Value {
        str(&self.w.controllers[c.index()].name)
    }
    pub fn text(self, s: StrId) -> Value {
        str(self.w.str(s))
    }
    pub fn origin(self, o: OriginId) -> Value {
        if self.w.origins.is_opaque(o) {
            str(format!("null#{o}"))
        } else {
            str(self.w.origins.serialize(o))
        }
    }
    pub fn origins(self, s: OriginSet) -> Value {
        set(s.iter().map(|o| self.origin(o)))
    }
    pub fn step(self, s: StepId) -> Value {
        str(s.id())
    }
    fn navs(self, l: NavList) -> Value {
        let mut l = l;
        let mut out = Vec::new();
        while let Some(n) = l.pop() {
            out.push(self.nav(n));
        }
        Value::Array(out)
    }
    fn annotations(self, a: Option<Annotations>) -> Value {
        option(a.map(|a| {
            record([
                ("readOnlyHint", Value::Bool(a.read_only)),
                ("untrustedContentHint", Value::Bool(a.untrusted_content)),
            ])
        }))
    }
}

/// Every state variable of `s`, named as [`STATE_VARS`] lists them.
pub fn state_vars(w: &World, s: &State) -> Vec<(&'static str, Value)> {
    let n = Names::new(w);
    let docs = named_map(
        s.docs
            .iter()
            .enumerate()
            .map(|(d, doc)| (w.docs[d].name.clone(), doc_state(n, doc))),
    );
    let navs = named_map(
        s.navs
            .iter()
            .enumerate()
            .map(|(i, nav)| (w.navs[i].name.clone(), nav_state(n, nav))),
    );
    let queues = named_map(s.queues.iter().enumerate().map(|(a, q)| {
        (
            w.agents[a].clone(),
            Value::Array(q.iter().map(|t| task(n, t)).collect()),
        )
    }));
    let threads = map(s
        .threads
        .iter()
        .map(|(k, t)| (thread_key(n, *k), thread(n, t))));
    let promises = named_map(
        s.promises
            .iter()
            .enumerate()
            .map(|(c, p)| (w.calls[c].label.clone(), promise(n, p))),
    );
    let controllers = named_map(
        s.controllers
            .iter()
            .enumerate()
            .map(|(c, st)| (w.controllers[c].name.clone(), controller(n, st))),
    );
    let pending = named_map(s.pending.iter().enumerate().map(|(t, m)| {
        (
            w.tabs[t].name.clone(),
            Value::Array(m.iter().map(|(u, e)| pending_entry(n, *u, e)).collect()),
        )
    }));
    let bodies = map(s.bodies.iter().map(|(u, b)| (n.call(*u), body(n, b))));
    let env = record([
        ("interventionsLeft", int(s.env.interventions_left)),
        (
            "navsDone",
            set(NavId::all(w.navs.len())
                .filter(|i| s.env.navs_done & (1 << i.index()) != 0)
                .map(|i| n.nav(i))),
        ),
        (
            "bfcache",
            named_map(TabId::all(w.tabs.len()).map(|t| {
                let phase = match s.env.bfcache_phase(t) {
                    0 => unit("Untouched"),
                    1 => unit("InBfcache"),
                    2 => unit("LeftBfcache"),
                    p => variant("Phase", int(p)),
                };
                (w.tabs[t.index()].name.clone(), phase)
            })),
        ),
        ("observationsLeft", int(s.env.observations_left)),
    ]);
    let ghost = set(s.ghost.iter().map(|g| ghost_fact(n, g)));
    vec![
        ("docs", docs),
        ("navs", navs),
        ("queues", queues),
        ("threads", threads),
        ("promises", promises),
        ("controllers", controllers),
        ("pending", pending),
        ("bodies", bodies),
        ("env", env),
        ("ghost", ghost),
    ]
}

fn doc_state(n: Names, d: &DocState) -> Value {
    let lifecycle = match d.lifecycle {
        Lifecycle::Initial => "Initial",
        Lifecycle::FullyActive => "FullyActive",
        Lifecycle::NotFullyActive => "NotFullyActive",
        Lifecycle::Destroyed => "Destroyed",
    };
    let status = match d.script.status {
        ScriptStatus::NotStarted => unit("NotStarted"),
        ScriptStatus::AwaitingCall(c) => variant("AwaitingCall", n.call(c)),
        ScriptStatus::AwaitingToolchange => unit("AwaitingToolchange"),
        ScriptStatus::Ready => unit("Ready"),
        ScriptStatus::Finished => unit("Finished"),
        ScriptStatus::Threw => unit("Threw"),
    };
    record([
        ("lifecycle", unit(lifecycle)),
        (
            "tools",
            map(d
                .tools
                .iter()
                .map(|(k, t)| (n.text(*k), tool_definition(n, t)))),
        ),
        ("local", set(d.local.iter().map(|c| n.call(*c)))),
        (
            "script",
            record([("pc", int(d.script.pc)), ("status", status)]),
        ),
        ("cleanups", int(d.cleanups)),
        ("toolchanges", int(d.toolchanges)),
    ])
}

fn tool_definition(n: Names, t: &ToolDefinition) -> Value {
    record([
        ("name", n.text(t.name)),
        ("title", option(t.title.map(|s| n.text(s)))),
        ("description", n.text(t.description)),
        ("inputSchema", n.text(t.input_schema)),
        ("annotations", n.annotations(t.annotations)),
        ("exposedOrigins", n.origins(t.exposed)),
        ("registeredBy", n.call(t.registered_by)),
    ])
}

fn registered_tool(n: Names, t: &RegisteredTool) -> Value {
    record([
        ("name", n.text(t.name)),
        ("title", option(t.title.map(|s| n.text(s)))),
        ("description", n.text(t.description)),
        ("inputSchema", option(t.input_schema.map(|s| n.text(s)))),
        ("window", n.doc(t.window)),
        ("origin", n.text(t.origin)),
        ("annotations", n.annotations(t.annotations)),
        ("definition", option(t.definition.map(|c| n.call(c)))),
    ])
}

fn tools<'x>(n: Names, list: impl IntoIterator<Item = &'x RegisteredTool>) -> Value {
    Value::Array(list.into_iter().map(|t| registered_tool(n, t)).collect())
}

fn nav_state(n: Names, nav: &NavState) -> Value {
    record([
        ("active", option(nav.active.map(|d| n.doc(d)))),
        ("attached", Value::Bool(nav.attached)),
    ])
}

fn task(n: Names, t: &Task) -> Value {
    let kind = match &t.kind {
        TaskKind::FireToolchange { cause, registered } => variant(
            "FireToolchange",
            record([
                ("cause", n.call(*cause)),
                ("registered", Value::Bool(*registered)),
            ]),
        ),
        TaskKind::ResolveRegister { call } => {
            variant("ResolveRegister", record([("call", n.call(*call))]))
        }
        TaskKind::ResolveGetTools { call, tools: list } => variant(
            "ResolveGetTools",
            record([("call", n.call(*call)), ("tools", tools(n, list))]),
        ),
        TaskKind::RejectExecute { call, at } => variant(
            "RejectExecute",
            record([("call", n.call(*call)), ("at", n.step(*at))]),
        ),
        TaskKind::ResolveExecute { call, result } => variant(
            "ResolveExecute",
            record([("call", n.call(*call)), ("result", n.text(*result))]),
        ),
        TaskKind::RunToolExecuteSteps {
            call,
            target,
            tool_name,
        } => variant(
            "RunToolExecuteSteps",
            record([
                ("call", n.call(*call)),
                ("target", n.doc(*target)),
                ("toolName", n.text(*tool_name)),
            ]),
        ),
        TaskKind::CancelLocal { call, target } => variant(
            "CancelLocal",
            record([("call", n.call(*call)), ("target", n.doc(*target))]),
        ),
    };
    record([("doc", n.doc(t.doc)), ("kind", kind)])
}

/// A thread key as a sum-type value. A key this exporter does not know yet (a variant added
/// to the model after it) is written as `Unknown(<Debug text>)`; the tests reject that.
#[allow(unreachable_patterns)]
pub fn thread_key(n: Names, k: ThreadKey) -> Value {
    match k {
        ThreadKey::Register(c) => variant("Register", n.call(c)),
        ThreadKey::Unregister(c) => variant("Unregister", n.call(c)),
        ThreadKey::GetTools(c) => variant("GetTools", n.call(c)),
        ThreadKey::Execute(c) => variant("Execute", n.call(c)),
        ThreadKey::CancelOnAbort(c) => variant("CancelOnAbort", n.call(c)),
        ThreadKey::Cleanup(d, i) => variant("Cleanup", tup(vec![n.doc(d), int(i)])),
        ThreadKey::Completion(c) => variant("Completion", n.call(c)),
        ThreadKey::CleanupCompletion(c, i) => {
            variant("CleanupCompletion", tup(vec![n.call(c), int(i)]))
        }
        other => variant("Unknown", str(format!("{other:?}"))),
    }
}

#[allow(unreachable_patterns)]
fn thread(n: Names, t: &Thread) -> Value {
    match t {
        Thread::Notify {
            owner,
            exposed,
            cause,
            resolve_registration,
            pc,
        } => variant(
            "Notify",
            record([
                ("owner", n.doc(*owner)),
                ("exposedOrigins", n.origins(*exposed)),
                ("cause", n.call(*cause)),
                ("resolveRegistration", Value::Bool(*resolve_registration)),
                (
                    "pc",
                    match pc {
                        NotifyPc::Start => unit("Start"),
                        NotifyPc::Visit(l) => variant("Visit", n.navs(*l)),
                        NotifyPc::ResolveRegistration => unit("ResolveRegistration"),
                    },
                ),
            ]),
        ),
        Thread::GetTools {
            requestor,
            from_origins,
            pc,
        } => variant(
            "GetTools",
            record([
                ("requestor", n.doc(*requestor)),
                ("fromOrigins", n.origins(*from_origins)),
                (
                    "pc",
                    match pc {
                        GetToolsPc::Start => unit("Start"),
                        GetToolsPc::Visit {
                            navs,
                            tools: list,
                            changed,
                        } => variant(
                            "Visit",
                            record([
                                ("navs", n.navs(*navs)),
                                ("tools", tools(n, list)),
                                ("changed", Value::Bool(*changed)),
                            ]),
                        ),
                        GetToolsPc::Finish {
                            tools: list,
                            changed,
                        } => variant(
                            "Finish",
                            record([
                                ("tools", tools(n, list)),
                                ("changed", Value::Bool(*changed)),
                            ]),
                        ),
                    },
                ),
            ]),
        ),
        Thread::Execute {
            caller,
            target,
            expected_origin,
            tool_name,
            pc,
        } => variant(
            "Execute",
            record([
                ("caller", n.doc(*caller)),
                ("target", n.doc(*target)),
                ("expectedOrigin", n.origin(*expected_origin)),
                ("toolName", n.text(*tool_name)),
                (
                    "pc",
                    unit(match pc {
                        ExecutePc::CheckTraversableAndOrigin => "CheckTraversableAndOrigin",
                        ExecutePc::CheckToolExists => "CheckToolExists",
                        ExecutePc::ReadToolDefinition => "ReadToolDefinition",
                        ExecutePc::SetPending => "SetPending",
                        ExecutePc::QueueToolExecuteSteps => "QueueToolExecuteSteps",
                    }),
                ),
            ]),
        ),
        Thread::Cancel(p) => variant("Cancel", cancel_proc(n, p)),
        Thread::Completion(p) => variant("Completion", completion_proc(n, p)),
        Thread::Cleanup {
            doc,
            traversable,
            pc,
        } => variant(
            "Cleanup",
            record([
                ("doc", n.doc(*doc)),
                ("traversable", n.nav(*traversable)),
                (
                    "pc",
                    match pc {
                        CleanupPc::Collect => unit("Collect"),
                        CleanupPc::Each { uuids, sub } => variant(
                            "Each",
                            record([
                                (
                                    "uuids",
                                    Value::Array(uuids.iter().map(|u| n.call(*u)).collect()),
                                ),
                                (
                                    "sub",
                                    match sub {
                                        CleanupSub::Read => unit("Read"),
                                        CleanupSub::Complete(p) => {
                                            variant("Complete", completion_proc(n, p))
                                        }
                                        CleanupSub::Cancel(p) => {
                                            variant("Cancel", cancel_proc(n, p))
                                        }
                                        CleanupSub::Remove => unit("Remove"),
                                        CleanupSub::Assert => unit("Assert"),
                                    },
                                ),
                            ]),
                        ),
                    },
                ),
            ]),
        ),
        other => variant("Unknown", str(format!("{other:?}"))),
    }
}

fn cancel_proc(n: Names, p: &CancelProc) -> Value {
    let pc = match p.pc {
        CancelPc::Check => unit("Check"),
        CancelPc::Read => unit("Read"),
        CancelPc::Remove { target } => variant("Remove", record([("target", n.doc(target))])),
        CancelPc::Queue { target } => variant("Queue", record([("target", n.doc(target))])),
    };
    record([
        ("traversable", n.nav(p.traversable)),
        ("uuid", n.call(p.uuid)),
        ("pc", pc),
    ])
}

fn completion_proc(n: Names, p: &CompletionProc) -> Value {
    record([
        ("uuid", n.call(p.uuid)),
        ("target", n.doc(p.target)),
        ("result", option(p.result.map(|r| n.text(r)))),
        (
            "pc",
            unit(match p.pc {
                CompletionPc::Check => "Check",
                CompletionPc::Remove => "Remove",
                CompletionPc::Queue => "Queue",
            }),
        ),
    ])
}

fn reason(n: Names, r: Reason) -> Value {
    match r {
        Reason::Aborted(c) => variant("AbortError", n.ctrl(c)),
        other => unit(other.name()),
    }
}

fn promise(n: Names, p: &PromiseState) -> Value {
    let status = match &p.status {
        Status::NotCalled => unit("NotCalled"),
        Status::Pending => unit("Pending"),
        Status::Fulfilled(v) => variant(
            "Fulfilled",
            match v {
                JsResult::Undefined => unit("Undefined"),
                JsResult::Tools(list) => variant("Tools", tools(n, list)),
                JsResult::Text(s) => variant("Text", n.text(*s)),
            },
        ),
        Status::Rejected(r) => variant("Rejected", reason(n, *r)),
    };
    record([
        ("status", status),
        ("attempts", int(p.attempts)),
        ("triedFulfil", Value::Bool(p.tried_fulfil)),
        ("triedReject", Value::Bool(p.tried_reject)),
        ("settledAt", option(p.settled_at.map(|s| n.step(s)))),
    ])
}

fn controller(n: Names, c: &ControllerState) -> Value {
    record([
        ("aborted", Value::Bool(c.aborted)),
        (
            "abortSteps",
            Value::Array(
                c.abort_steps
                    .iter()
                    .map(|s| match s {
                        AbortStep::Register { call } => {
                            variant("Register", record([("call", n.call(*call))]))
                        }
                        AbortStep::Execute { call, traversable } => variant(
                            "Execute",
                            record([
                                ("call", n.call(*call)),
                                ("traversable", option(traversable.map(|t| n.nav(t)))),
                            ]),
                        ),
                    })
                    .collect(),
            ),
        ),
    ])
}

fn pending_entry(n: Names, uuid: CallId, e: &PendingExecution) -> Value {
    record([
        ("uuid", n.call(uuid)),
        ("callerDocument", n.doc(e.caller)),
        ("targetDocument", n.doc(e.target)),
        ("toolName", n.text(e.tool_name)),
    ])
}

fn body(n: Names, b: &Body) -> Value {
    record([
        ("target", n.doc(b.target)),
        ("registeredBy", n.call(b.registered_by)),
        ("settled", Value::Bool(b.settled)),
        ("signalAborted", Value::Bool(b.signal_aborted)),
        (
            "sawAbortWhileRunning",
            Value::Bool(b.saw_abort_while_running),
        ),
        ("result", option(b.result.map(|s| n.text(s)))),
        ("pc", int(b.pc)),
        ("awaitingAbort", Value::Bool(b.awaiting_abort)),
        ("awaitingCall", option(b.awaiting_call.map(|c| n.call(c)))),
    ])
}

fn ghost_fact(n: Names, g: &Ghost) -> Value {
    match *g {
        Ghost::AssertFailed(s) => variant("AssertFailed", n.step(s)),
        Ghost::MissingValue(s) => variant("MissingValue", n.step(s)),
        Ghost::InvokedAfterCallerRejected(c) => variant("InvokedAfterCallerRejected", n.call(c)),
        Ghost::CancelTargetGone(c) => variant("CancelTargetGone", n.call(c)),
        Ghost::ObjectInputRefused(c) => variant("ObjectInputRefused", n.call(c)),
        Ghost::GetToolsMismatch(c) => variant("GetToolsMismatch", n.call(c)),
        Ghost::ToolchangeMisfired(d) => variant("ToolchangeMisfired", n.doc(d)),
        Ghost::ToolchangeOrder(c) => variant("ToolchangeOrder", n.call(c)),
        Ghost::SettledOffItsEventLoop(c) => variant("SettledOffItsEventLoop", n.call(c)),
        Ghost::LocalMapOffItsEventLoop(d) => variant("LocalMapOffItsEventLoop", n.doc(d)),
        Ghost::RanUndiscoveredTool(c) => variant("RanUndiscoveredTool", n.call(c)),
        Ghost::RanForUnexposedCaller(c) => variant("RanForUnexposedCaller", n.call(c)),
        Ghost::DiscoverableChangeUnnotified(d) => variant("DiscoverableChangeUnnotified", n.doc(d)),
        Ghost::CalledOnInactiveDocument(c) => variant("CalledOnInactiveDocument", n.call(c)),
        Ghost::ToolActivated(c) => variant("ToolActivated", n.call(c)),
        Ghost::ToolCancelled(c) => variant("ToolCancelled", n.call(c)),
        Ghost::ToolcancelForLiveCaller(c) => variant("ToolcancelForLiveCaller", n.call(c)),
        Ghost::ToolcancelAfterSettlement(c) => variant("ToolcancelAfterSettlement", n.call(c)),
        Ghost::ResultBeforeToolactivated(c) => variant("ResultBeforeToolactivated", n.call(c)),
    }
}

// ---------------------------------------------------------------------------------------
// Actions.

/// The name of an action (`mbt::actionTaken`).
pub fn action_name(a: &Action) -> &'static str {
    match a {
        Action::RunScript(_) => "RunScript",
        Action::RunTask(_) => "RunTask",
        Action::Step(_) => "Step",
        Action::SettleTool(..) => "SettleTool",
        Action::Abort(_) => "Abort",
        Action::RemoveIframe(_) => "RemoveIframe",
        Action::Navigate(_) => "Navigate",
        Action::EnterBfcache(_) => "EnterBfcache",
        Action::RestoreFromBfcache(_) => "RestoreFromBfcache",
        Action::EvictFromBfcache(_) => "EvictFromBfcache",
        Action::Observe(_) => "Observe",
    }
}

/// The arguments of an action, by pick name.
fn action_args(w: &World, a: &Action) -> Vec<(&'static str, Value)> {
    let n = Names::new(w);
    match *a {
        Action::RunScript(d) => vec![("doc", n.doc(d))],
        Action::RunTask(ag) => vec![("agent", n.agent(ag))],
        Action::Step(k) => vec![("thread", thread_key(n, k))],
        Action::SettleTool(c, o) => vec![("call", n.call(c)), ("outcome", str(o.name()))],
        Action::Abort(c) => vec![("controller", n.ctrl(c))],
        Action::RemoveIframe(nav) | Action::Navigate(nav) => vec![("nav", n.nav(nav))],
        Action::EnterBfcache(t)
        | Action::RestoreFromBfcache(t)
        | Action::EvictFromBfcache(t)
        | Action::Observe(t) => vec![("tab", n.tab(t))],
    }
}

/// The action as a sum-type value: `{"tag": "SettleTool", "value": {"call": "exec", ...}}`.
pub fn action_value(w: &World, a: &Action) -> Value {
    let mut m = serde_json::Map::new();
    for (k, v) in action_args(w, a) {
        m.insert(k.to_string(), v);
    }
    variant(action_name(a), Value::Object(m))
}

/// The pseudo-action of the initial state.
pub fn init_value() -> Value {
    unit("Init")
}

/// `mbt::nondetPicks`: every pick, `Some` where the action has that argument.
pub fn nondet_picks(w: &World, a: Option<&Action>) -> Value {
    let args = a.map(|a| action_args(w, a)).unwrap_or_default();
    let mut m = serde_json::Map::new();
    for p in PICKS {
        let v = args.iter().find(|(k, _)| k == p).map(|(_, v)| v.clone());
        m.insert(p.to_string(), option(v));
    }
    Value::Object(m)
}

/// A compact text form of an action, for messages: `SettleTool(exec, fulfil)`,
/// `Step(Execute(exec))`.
pub fn action_text(w: &World, a: &Action) -> String {
    let args: Vec<String> = action_args(w, a).iter().map(|(_, v)| plain(v)).collect();
    format!("{}({})", action_name(a), args.join(", "))
}

/// An ITF value as text, strings unquoted: `Cleanup(top, 0)`.
fn plain(v: &Value) -> String {
    if let (Some(tag), Some(p)) = (crate::itf::tag_of(v), crate::itf::payload(v)) {
        let inner = match crate::itf::elements(p) {
            Some(items) if p.get("#tup").is_some() => {
                items.iter().map(plain).collect::<Vec<_>>().join(", ")
            }
            _ => plain(p),
        };
        return format!("{tag}({inner})");
    }
    match v {
        Value::String(s) => s.clone(),
        other => crate::itf::render(other),
    }
}
