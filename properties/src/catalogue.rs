//! The property catalogue: every spec Assert, every implicit "this entry exists", every Note
//! that claims a guarantee, the behavioural properties the draft intends, liveness at
//! terminal states, and the witnesses that keep all of them from being vacuous.

use webmcp_model::machine::WebMcpModel;
use webmcp_model::state::{Ghost, Lifecycle, State, Status, TaskKind, Value};
use webmcp_model::steps::{step, StepId};
use webmcp_model::threads::ThreadKey;
use webmcp_model::world::{CallId, CallKind, DocId, World};

use webmcp_model::algorithms::get_tools::code_unit_cmp;

/// How a property is judged: the engine's expectations (always, at termination, sometimes).
pub use webmcp_checker::Expectation as Kind;

/// One property: what it claims in prose, which steps it is about, and its predicate.
#[derive(Clone, Copy)]
pub struct PropertyDef {
    pub name: &'static str,
    pub kind: Kind,
    pub about: &'static [&'static str],
    pub claim: &'static str,
    pub holds: fn(&WebMcpModel, &State) -> bool,
}

impl PropertyDef {
    /// The property as the engine takes it.
    pub fn engine(&self) -> webmcp_checker::Property<WebMcpModel> {
        webmcp_checker::Property {
            name: self.name,
            expectation: self.kind,
            condition: self.holds,
        }
    }
}

impl std::fmt::Debug for PropertyDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

fn assert_holds<const S: u16>(_: &WebMcpModel, s: &State) -> bool {
    !s.ghost.contains(&Ghost::AssertFailed(StepId(S)))
}

fn value_exists<const S: u16>(_: &WebMcpModel, s: &State) -> bool {
    !s.ghost.contains(&Ghost::MissingValue(StepId(S)))
}

macro_rules! assert_property {
    ($id:literal, $claim:literal) => {
        PropertyDef {
            name: concat!("assert:", $id),
            kind: Kind::Always,
            about: &[$id],
            claim: $claim,
            holds: assert_holds::<{ step($id).0 }>,
        }
    };
}

macro_rules! exists_property {
    ($id:literal, $claim:literal) => {
        PropertyDef {
            name: concat!("exists:", $id),
            kind: Kind::Always,
            about: &[$id],
            claim: $claim,
            holds: value_exists::<{ step($id).0 }>,
        }
    };
}

/// The whole catalogue, in report order.
pub fn catalogue() -> Vec<PropertyDef> {
    vec![
        assert_property!("cancel-pending-execution#1", "cancel a pending tool execution runs in parallel"),
        assert_property!("unload-cleanup#2.3.5", "after handling an execution, the unload cleanup finds no entry for its uuid"),
        assert_property!("notify-tool-change#1", "notify documents of a tool change runs in parallel"),
        assert_property!("tool-execute-steps#1", "the tool execute steps run on the target document's event loop"),
        assert_property!("imperative-execute-steps#1", "the imperative execute steps run on the target document's event loop"),
        assert_property!("unregister-tool#1", "unregister a tool runs on the ModelContext's event loop"),
        assert_property!("execute-tool#8", "the expected target origin is not opaque"),
        assert_property!("execute-tool#15.10.1", "completion steps run in parallel"),
        assert_property!("perform-observation#1", "perform an observation runs on the AI agent queue"),
        assert_property!("perform-observation#2", "an observed traversable's active document is fully active"),
        exists_property!("notify-tool-change#2", "the tool owner has a node navigable when its change is notified"),
        exists_property!("get-tools#9.2", "the tool requestor has a node navigable when the walk starts"),
        exists_property!("execute-tool#14.3", "the target document has a node navigable when executeTool is called with a signal"),
        exists_property!("execute-tool#15.1", "the target and caller have node navigables when their traversables are compared"),
        exists_property!("execute-tool#15.8", "the tool found at #15.7 is still in the tool map at #15.8"),
        exists_property!("execute-tool#15.12", "the target has a node navigable when the pending execution is stored"),
        exists_property!("execute-tool#15.10.2", "the target has a node navigable when completion steps look up the pending execution"),
        exists_property!("execute-tool#15.10.3", "the target has a node navigable when completion steps remove the pending execution"),
        exists_property!("cancel-pending-execution#3", "the pending execution found at #2 still exists at #3"),
        exists_property!("cancel-pending-execution#6.3", "the local execution found at #6.2 still exists at #6.3"),
        exists_property!("unload-cleanup#1", "an unloading document has a node navigable"),
        exists_property!("unload-cleanup#2.3.1", "each execution collected at #2.2 still exists at #2.3.1"),
        PropertyDef {
            name: "note:cancel-target-exists",
            kind: Kind::Always,
            about: &["cancel-pending-execution#5", "cancel-pending-execution#5.note"],
            claim: "when cancel a pending tool execution reaches #5, the target document has not been unloaded or destroyed",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::CancelTargetGone(_))),
        },
        PropertyDef {
            name: "object-input-accepted",
            kind: Kind::Always,
            about: &["imperative-execute-steps#3"],
            claim: "an executeTool input that is an Object (what the IDL requires) is never refused before the tool runs",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::ObjectInputRefused(_))),
        },
        PropertyDef {
            name: "get-tools-sorted",
            kind: Kind::Always,
            about: &["get-tools#9.4"],
            claim: "every getTools result is sorted by name in code unit order",
            holds: get_tools_sorted,
        },
        PropertyDef {
            name: "get-tools-exact",
            kind: Kind::Always,
            about: &["get-tools#9.3", "get-tools#9.3.8.1"],
            claim: "when nothing changes during the walk, getTools returns exactly the tools visible to the caller",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::GetToolsMismatch(_))),
        },
        PropertyDef {
            name: "toolchange-only-where-allowed-and-exposed",
            kind: Kind::Always,
            about: &["notify-tool-change#3.2", "notify-tool-change#3.3"],
            claim: "toolchange fires only at documents allowed to use \"tools\" to which the tool is exposed",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::ToolchangeMisfired(_))),
        },
        PropertyDef {
            name: "toolchange-ordering-example",
            kind: Kind::Always,
            about: &["notify-tool-change.example", "register-tool#21"],
            claim: "on one event loop, a parent's toolchange fires before its child's, and the registration promise fulfils after both",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::ToolchangeOrder(_))),
        },
        PropertyDef {
            name: "execute-settles-once",
            kind: Kind::Always,
            about: &["execute-tool#14.4.1", "execute-tool#15.10.2", "execute-tool#15.10.4", "execute-tool#15.10.5"],
            claim: "each executeTool promise receives at most one resolve or reject",
            holds: |m, s| execute_promises(m.world.as_ref(), s).all(|(_, p)| p.attempts <= 1),
        },
        PropertyDef {
            name: "execute-never-both",
            kind: Kind::Always,
            about: &["execute-tool#14.4.1", "execute-tool#15.10.4"],
            claim: "no executeTool promise is both resolved with a result and rejected",
            holds: |m, s| execute_promises(m.world.as_ref(), s).all(|(_, p)| !(p.tried_fulfil && p.tried_reject)),
        },
        PropertyDef {
            name: "no-ghost-run",
            kind: Kind::Always,
            about: &["imperative-execute-steps#8", "execute-tool#14.4"],
            claim: "a tool is never invoked for a caller whose executeTool promise was already rejected",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::InvokedAfterCallerRejected(_))),
        },
        PropertyDef {
            name: "registration-abort-unregisters",
            kind: Kind::Always,
            about: &["register-tool#18.3", "register-tool#18.3.1", "register-tool#18.3.2", "unregister-tool#5"],
            claim: "once the signal passed to registerTool is aborted, the tool it registered is gone from its tool map and the registration promise has been rejected (a no-op if it was already fulfilled)",
            holds: registration_abort_unregisters,
        },
        PropertyDef {
            name: "no-result-after-tool-aborted",
            kind: Kind::Always,
            about: &["imperative-execute-steps#9.fulfilled.2", "cancel-pending-execution#6.5", "execute-tool#15.10.4"],
            claim: "an executeTool promise is never fulfilled with the result of a tool body whose signal was aborted while it ran",
            holds: |m, s| execute_promises(m.world.as_ref(), s).all(|(c, p)| {
                !(matches!(p.status, Status::Fulfilled(_))
                    && s.bodies.get(&c).is_some_and(|b| b.saw_abort_while_running))
            }),
        },
        PropertyDef {
            name: "local-executions-are-running-tools",
            kind: Kind::Always,
            about: &["imperative-execute-steps#6", "imperative-execute-steps#9.fulfilled.3", "imperative-execute-steps#9.rejected.4", "cancel-pending-execution#6.4"],
            claim: "an entry of a document's local pending tool executions map belongs to a tool body that is still running and whose signal is not aborted",
            holds: |_, s| s.docs.iter().all(|d| d.local.iter().all(|u| s.bodies.get(u).is_some_and(|b| !b.settled && !b.signal_aborted))),
        },
        PropertyDef {
            name: "local-executions-on-their-event-loop",
            kind: Kind::Always,
            about: &["imperative-execute-steps#6", "cancel-pending-execution#6", "cancel-pending-execution#6.4"],
            claim: "a document's local pending tool executions map is only read and written on the document's event loop",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::LocalMapOffItsEventLoop(_))),
        },
        PropertyDef {
            name: "promises-settle-on-their-event-loop",
            kind: Kind::Always,
            about: &["register-tool#21.2", "get-tools#9.5", "execute-tool#15.10.4", "execute-tool#15.10.5"],
            claim: "every registerTool, getTools and executeTool promise is resolved or rejected on its document's event loop (in the method steps or in a queued task), never from in-parallel steps",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::SettledOffItsEventLoop(_))),
        },
        PropertyDef {
            name: "unload-cleans-pending-executions",
            kind: Kind::Always,
            about: &["unload-cleanup#2", "execute-tool#15.12"],
            claim: "once a document is destroyed and the threads it started are done, no pending tool execution names it",
            holds: unload_cleans_pending,
        },
        PropertyDef {
            name: "unload-cleans-local-executions",
            kind: Kind::Always,
            about: &["unload-cleanup#2", "imperative-execute-steps#6", "cancel-pending-execution#6"],
            claim: "once a document is destroyed and the threads it started are done, its local pending tool executions map is empty",
            holds: unload_cleans_local,
        },
        PropertyDef {
            name: "execute-promise-settles",
            kind: Kind::AtTermination,
            about: &["execute-tool#15", "execute-tool#15.10"],
            claim: "when nothing is left to run, every executeTool promise of a fully active caller has settled, unless its tool body never settled or its target waits in the back/forward cache",
            holds: execute_settled_at_end,
        },
        PropertyDef {
            name: "register-promise-settles",
            kind: Kind::AtTermination,
            about: &["register-tool#21.2"],
            claim: "when nothing is left to run, every registerTool promise of a fully active document has settled",
            holds: |m, s| calls_settled(m.world.as_ref(), s, CallKind::Register),
        },
        PropertyDef {
            name: "get-tools-promise-settles",
            kind: Kind::AtTermination,
            about: &["get-tools#9.5"],
            claim: "when nothing is left to run, every getTools promise of a fully active document has settled",
            holds: |m, s| calls_settled(m.world.as_ref(), s, CallKind::GetTools),
        },
        PropertyDef {
            name: "witness:discovered-cross-origin",
            kind: Kind::Sometimes,
            about: &["get-tools#9.3.5", "get-tools#9.3.8.1"],
            claim: "a getTools result lists a tool registered by a cross-origin document",
            holds: discovered_cross_origin,
        },
        PropertyDef {
            name: "witness:toolchange-fired",
            kind: Kind::Sometimes,
            about: &["notify-tool-change#3.3"],
            claim: "a toolchange event fires",
            holds: |_, s| s.docs.iter().any(|d| d.toolchanges > 0),
        },
        PropertyDef {
            name: "witness:toolchange-after-unregistration",
            kind: Kind::Sometimes,
            about: &["unregister-tool#7", "notify-tool-change#3.3"],
            claim: "an unregistration queues a toolchange event",
            holds: |_, s| s.queues.iter().flatten().any(|t| matches!(t.kind, TaskKind::FireToolchange { registered: false, .. })),
        },
        PropertyDef {
            name: "witness:result-delivered",
            kind: Kind::Sometimes,
            about: &["execute-tool#15.10.4"],
            claim: "an executeTool promise fulfils with the tool's result",
            holds: |m, s| execute_promises(m.world.as_ref(), s).any(|(_, p)| matches!(p.status, Status::Fulfilled(Value::Text(_)))),
        },
        PropertyDef {
            name: "witness:abort-wins-race",
            kind: Kind::Sometimes,
            about: &["execute-tool#14.4.1", "cancel-pending-execution#2.note"],
            claim: "an executeTool promise rejects with the abort reason after its tool body was invoked",
            holds: |m, s| {
                execute_promises(m.world.as_ref(), s).any(|(c, p)| {
                    matches!(p.status, Status::Rejected(webmcp_model::state::Reason::Aborted(_))) && s.bodies.contains_key(&c)
                })
            },
        },
        PropertyDef {
            name: "witness:unload-unknown-error",
            kind: Kind::Sometimes,
            about: &["unload-cleanup#2.3.2", "execute-tool#15.10.5"],
            claim: "unloading the target rejects an executeTool promise with UnknownError",
            holds: |m, s| {
                execute_promises(m.world.as_ref(), s).any(|(c, p)| {
                    p.settled_at == Some(const { step("execute-tool#15.10.5") })
                        && s.bodies.get(&c).is_none_or(|b| !b.settled)
                        && s.docs.iter().any(|d| d.cleanups > 0)
                })
            },
        },
        PropertyDef {
            name: "witness:own-execution-rejected-on-unload",
            kind: Kind::Sometimes,
            about: &["unload-cleanup#2.3.4"],
            claim: "a document that executed its own tool and was unloaded finds that executeTool promise rejected by the unloading cleanup (reject-on-self-unload)",
            holds: |m, s| {
                execute_promises(m.world.as_ref(), s).any(|(_, p)| {
                    matches!(p.status, Status::Rejected(_))
                        && p.settled_at == Some(const { step("unload-cleanup#2.3.4") })
                })
            },
        },
        PropertyDef {
            name: "witness:tool-sees-abort",
            kind: Kind::Sometimes,
            about: &["cancel-pending-execution#6.5"],
            claim: "a running tool body sees its signal aborted",
            holds: |_, s| s.bodies.values().any(|b| b.saw_abort_while_running),
        },
    ]
}

fn registration_abort_unregisters(m: &WebMcpModel, s: &State) -> bool {
    let w = m.world.as_ref();
    w.calls.iter().enumerate().all(|(i, c)| {
        if c.kind != CallKind::Register {
            return true;
        }
        let op = w.register_op(CallId::nth(i));
        let Some(ctrl) = op.signal else { return true };
        let p = &s.promises[i];
        if !s.controllers[ctrl.index()].aborted || p.status == Status::NotCalled {
            return true;
        }
        let still_registered = s
            .doc(c.doc)
            .tools
            .get(&op.name)
            .is_some_and(|t| t.registered_by == CallId::nth(i));
        p.tried_reject && !still_registered
    })
}

fn execute_promises<'a>(
    w: &'a World,
    s: &'a State,
) -> impl Iterator<Item = (CallId, &'a webmcp_model::state::PromiseState)> + 'a {
    w.calls
        .iter()
        .enumerate()
        .filter(|(_, c)| c.kind == CallKind::Execute)
        .map(move |(i, _)| (CallId::nth(i), &s.promises[i]))
}

fn get_tools_sorted(m: &WebMcpModel, s: &State) -> bool {
    let w = m.world.as_ref();
    s.promises.iter().all(|p| match &p.status {
        Status::Fulfilled(Value::Tools(list)) => {
            list.iter().zip(list.iter().skip(1)).all(|(a, b)| {
                code_unit_cmp(w.str(a.name), w.str(b.name)) != std::cmp::Ordering::Greater
            })
        }
        _ => true,
    })
}

fn discovered_cross_origin(m: &WebMcpModel, s: &State) -> bool {
    let w = m.world.as_ref();
    w.calls
        .iter()
        .enumerate()
        .any(|(i, c)| match &s.promises[i].status {
            Status::Fulfilled(Value::Tools(list)) => list
                .iter()
                .any(|t| w.docs[t.window.index()].origin != w.docs[c.doc.index()].origin),
            _ => false,
        })
}

/// Whether every thread started by document `d`, or started for it, has finished.
fn threads_of_done(w: &World, s: &State, d: DocId) -> bool {
    !s.threads.keys().any(|k| match *k {
        ThreadKey::Cleanup(doc, _) => doc == d,
        ThreadKey::Completion(c) => w.calls[c.index()].doc == d,
        ThreadKey::Register(c)
        | ThreadKey::Unregister(c)
        | ThreadKey::GetTools(c)
        | ThreadKey::Execute(c)
        | ThreadKey::CancelOnAbort(c) => w.calls[c.index()].doc == d,
    })
}

fn destroyed_and_quiet<'a>(w: &'a World, s: &'a State) -> impl Iterator<Item = DocId> + 'a {
    DocId::all(w.docs.len())
        .filter(move |&d| s.doc(d).lifecycle == Lifecycle::Destroyed && threads_of_done(w, s, d))
}

fn unload_cleans_pending(m: &WebMcpModel, s: &State) -> bool {
    let w = m.world.as_ref();
    destroyed_and_quiet(w, s).all(|d| {
        s.pending
            .iter()
            .all(|map| map.iter().all(|(_, e)| e.caller != d && e.target != d))
    })
}

fn unload_cleans_local(m: &WebMcpModel, s: &State) -> bool {
    let w = m.world.as_ref();
    destroyed_and_quiet(w, s).all(|d| s.doc(d).local.is_empty())
}

/// A state with no enabled action: the run is over.
pub fn is_terminal(m: &WebMcpModel, s: &State) -> bool {
    webmcp_checker::Model::is_terminal(m, s)
}

fn execute_settled_at_end(m: &WebMcpModel, s: &State) -> bool {
    let w = m.world.as_ref();
    let stuck = execute_promises(w, s).any(|(c, p)| {
        let caller = w.calls[c.index()].doc;
        p.status == Status::Pending
            && s.is_fully_active(caller)
            && s.bodies.get(&c).is_none_or(|b| b.settled)
            && !target_waits_in_bfcache(w, s, c)
    });
    !stuck
}

/// The execution's target document is in the back/forward cache (its tasks wait there).
fn target_waits_in_bfcache(w: &World, s: &State, c: CallId) -> bool {
    let e = w.execute_op(c);
    let target = match e.tool {
        webmcp_model::world::ToolArg::Forged { window, .. } => Some(window),
        webmcp_model::world::ToolArg::FromList { list, name } => {
            match &s.promises[list.index()].status {
                Status::Fulfilled(Value::Tools(t)) => {
                    t.iter().find(|t| t.name == name).map(|t| t.window)
                }
                _ => None,
            }
        }
    };
    target.is_some_and(|t| s.doc(t).lifecycle == Lifecycle::NotFullyActive)
}

fn calls_settled(w: &World, s: &State, kind: CallKind) -> bool {
    w.calls.iter().enumerate().all(|(i, c)| {
        c.kind != kind || s.promises[i].status != Status::Pending || !s.is_fully_active(c.doc)
    })
}
