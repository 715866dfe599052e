//! `executeTool`: what it accepts, that each call settles once and never runs a cancelled
//! tool, and that tool bodies and their promises live on the right event loop.

use super::prelude::*;

/// What executeTool accepts as input.
pub(super) fn inputs() -> Vec<PropertyDef> {
    vec![
        PropertyDef {
            name: "object-input-accepted",
            kind: Kind::Always,
            about: &["imperative-execute-steps#3"],
            claim: "an executeTool input that is an Object (what the IDL requires) is never refused before the tool runs",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::ObjectInputRefused(_))),
            reads: Reads::Parts(parts::GHOST),
            witness: Witness::StepRuns,
        },
    ]
}

/// Each executeTool promise settles once, and a cancelled execution never runs the tool.
pub(super) fn settlement() -> Vec<PropertyDef> {
    vec![
        PropertyDef {
            name: "execute-settles-once",
            kind: Kind::Always,
            about: &["execute-tool#15.4.1", "execute-tool#16.10.1", "execute-tool#16.10.3", "execute-tool#16.10.4"],
            claim: "each executeTool promise receives at most one resolve or reject",
            holds: |m, s| execute_promises(m.world.as_ref(), s).all(|(_, p)| p.attempts <= 1),
            reads: Reads::Parts(parts::PROMISES),
            witness: Witness::State {
                claim: "an executeTool promise settles",
                holds: |m, s| execute_promises(m.world.as_ref(), s).any(|(_, p)| p.is_settled()),
                reads: Reads::Parts(parts::PROMISES),
            },
        },
        PropertyDef {
            name: "execute-never-both",
            kind: Kind::Always,
            about: &["execute-tool#15.4.1", "execute-tool#16.10.3"],
            claim: "no executeTool promise is both resolved with a result and rejected",
            holds: |m, s| execute_promises(m.world.as_ref(), s).all(|(_, p)| !(p.tried_fulfil && p.tried_reject)),
            reads: Reads::Parts(parts::PROMISES),
            witness: Witness::State {
                claim: "an executeTool promise with an AbortSignal fulfils with its tool's result",
                holds: |m, s| {
                    let w = m.world.as_ref();
                    execute_promises(w, s).any(|(c, p)| {
                        w.execute_op(c).signal.is_some() && matches!(p.status, Status::Fulfilled(_))
                    })
                },
                reads: Reads::Parts(parts::PROMISES),
            },
        },
        PropertyDef {
            name: "no-ghost-run",
            kind: Kind::Always,
            about: &["imperative-execute-steps#9", "execute-tool#15.4"],
            claim: "a tool is never invoked for a caller whose executeTool promise was already rejected",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::InvokedAfterCallerRejected(_))),
            reads: Reads::Parts(parts::GHOST),
            witness: Witness::State {
                claim: "a tool body runs for an executeTool call whose signal is then aborted",
                holds: |m, s| {
                    let w = m.world.as_ref();
                    s.bodies.keys().any(|&c| {
                        w.execute_op(c).signal.is_some_and(|k| s.controllers[k.index()].aborted)
                    })
                },
                reads: Reads::Parts(parts::CONTROLLERS | parts::BODIES),
            },
        },
        PropertyDef {
            name: "runs-the-discovered-tool",
            kind: Kind::Always,
            about: &["execute-tool#16.6", "execute-tool#16.8", "tool-execute-steps#3", "tool-execute-steps#4", "tool-execute-steps#3.note"],
            claim: "the tool whose execute callback runs has the title, description, input schema and annotations of the RegisteredTool the caller discovered with getTools and passed to executeTool",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::RanUndiscoveredTool(_))),
            reads: Reads::Parts(parts::GHOST),
            witness: Witness::State {
                claim: "a tool body runs for a tool the caller took from a getTools list",
                holds: |m, s| {
                    let w = m.world.as_ref();
                    s.bodies.keys().any(|&c| matches!(w.execute_op(c).tool, ToolArg::FromList { .. }))
                },
                reads: Reads::Parts(parts::BODIES),
            },
        },
        PropertyDef {
            name: "runs-only-for-exposed-callers",
            kind: Kind::Always,
            about: &["execute-tool#16.9", "tool-exposed-to-origin#1", "tool-execute-steps#4"],
            claim: "a tool's execute callback only runs for a caller that is same origin with the tool's document or whose origin the tool's exposedTo lists",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::RanForUnexposedCaller(_))),
            reads: Reads::Parts(parts::GHOST),
            witness: Witness::State {
                claim: "a tool body runs for a caller of another origin",
                holds: |m, s| {
                    let w = m.world.as_ref();
                    s.bodies.iter().any(|(&c, b)| {
                        w.docs[b.target.index()].origin != w.docs[w.calls[c.index()].doc.index()].origin
                    })
                },
                reads: Reads::Parts(parts::BODIES),
            },
        },
    ]
}

/// A tool that completed delivers its result, unless the caller gave up; unregistering the tool
/// while it runs does not cancel it (`unregister-tool#5.note`; `tool-unregisters-itself`).
pub(super) fn delivery() -> Vec<PropertyDef> {
    vec![PropertyDef {
        name: "completed-result-delivered",
        kind: Kind::AtTermination,
        about: &["imperative-execute-steps#10.fulfilled.5", "execute-tool#16.10.1", "execute-tool#16.10.3", "unload-cleanup#2.3.2", "unregister-tool#5.note"],
        claim: "when nothing is left to run, an executeTool promise whose tool body fulfilled with a serializable value is fulfilled with that value's serialization, unless its caller aborted the signal or was unloaded (which cancels its executions, unload-cleanup#2.3.3), or the body's own signal was aborted while it ran (whose result no-result-after-tool-aborted forbids delivering)",
        holds: completed_result_delivered,
        reads: Reads::Anything,
        witness: Witness::State {
            claim: "a tool body fulfils with a serializable value",
            holds: |_, s| s.bodies.values().any(|b| b.result.is_some()),
            reads: Reads::Parts(parts::BODIES),
        },
    }]
}

fn completed_result_delivered(m: &WebMcpModel, s: &State) -> bool {
    let w = m.world.as_ref();
    execute_promises(w, s).all(|(c, p)| {
        let Some(body) = s.bodies.get(&c) else {
            return true;
        };
        let Some(result) = body.result else {
            return true;
        };
        // A body that returns after its signal was aborted (by the caller's abort, or by its
        // own document's unload under abort-local-on-unload) answers a cancellation: its
        // result must not be delivered (no-result-after-tool-aborted).
        if body.saw_abort_while_running {
            return true;
        }
        let aborted = w
            .execute_op(c)
            .signal
            .is_some_and(|ctrl| s.controllers[ctrl.index()].aborted);
        let caller = w.calls[c.index()].doc;
        let gone = !s.is_fully_active(caller) || s.doc(caller).cleanups > 0;
        aborted || gone || p.status == Status::Fulfilled(Value::Text(result))
    })
}

/// Tool bodies and their promises, on the right event loop.
pub(super) fn bodies() -> Vec<PropertyDef> {
    vec![
        PropertyDef {
            name: "no-result-after-tool-aborted",
            kind: Kind::Always,
            about: &["imperative-execute-steps#10.fulfilled.2", "cancel-pending-execution#6.5", "execute-tool#16.10.3"],
            claim: "an executeTool promise is never fulfilled with the result of a tool body whose signal was aborted while it ran",
            holds: |m, s| execute_promises(m.world.as_ref(), s).all(|(c, p)| {
                !(matches!(p.status, Status::Fulfilled(_))
                    && s.bodies.get(&c).is_some_and(|b| b.saw_abort_while_running))
            }),
            reads: Reads::Parts(parts::PROMISES | parts::BODIES),
            witness: Witness::State {
                claim: "a running tool body sees its signal aborted",
                holds: |_, s| s.bodies.values().any(|b| b.saw_abort_while_running),
                reads: Reads::Parts(parts::BODIES),
            },
        },
        PropertyDef {
            name: "local-executions-are-running-tools",
            kind: Kind::Always,
            about: &["imperative-execute-steps#7", "imperative-execute-steps#10.fulfilled.3", "imperative-execute-steps#10.rejected.4", "cancel-pending-execution#6.4"],
            claim: "an entry of a document's local pending tool executions map belongs to a tool body that is still running and whose signal is not aborted",
            holds: |_, s| s.docs.iter().all(|d| d.local.iter().all(|u| s.bodies.get(u).is_some_and(|b| !b.settled && !b.signal_aborted))),
            reads: Reads::Parts(parts::DOCS | parts::BODIES),
            witness: Witness::State {
                claim: "a document's local pending tool executions map has an entry",
                holds: |_, s| s.docs.iter().any(|d| !d.local.is_empty()),
                reads: Reads::Parts(parts::DOCS),
            },
        },
        PropertyDef {
            name: "local-executions-on-their-event-loop",
            kind: Kind::Always,
            about: &["imperative-execute-steps#7", "cancel-pending-execution#6", "cancel-pending-execution#6.4"],
            claim: "a document's local pending tool executions map is only read and written on the document's event loop",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::LocalMapOffItsEventLoop(_))),
            reads: Reads::Parts(parts::GHOST),
            witness: Witness::StepRuns,
        },
        PropertyDef {
            name: "promises-settle-on-their-event-loop",
            kind: Kind::Always,
            about: &["register-tool#20.2", "get-tools#8.5", "execute-tool#16.10.3", "execute-tool#16.10.4"],
            claim: "every registerTool, getTools and executeTool promise is resolved or rejected on its document's event loop (in the method steps or in a queued task), never from in-parallel steps",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::SettledOffItsEventLoop(_))),
            reads: Reads::Parts(parts::GHOST),
            witness: Witness::State {
                claim: "a registerTool, getTools or executeTool promise settles",
                holds: |_, s| s.promises.iter().any(|p| p.is_settled()),
                reads: Reads::Parts(parts::PROMISES),
            },
        },
    ]
}
