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
        },
    ]
}

/// Each executeTool promise settles once, and a cancelled execution never runs the tool.
pub(super) fn settlement() -> Vec<PropertyDef> {
    vec![
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
    ]
}

/// Tool bodies and their promises, on the right event loop.
pub(super) fn bodies() -> Vec<PropertyDef> {
    vec![
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
    ]
}
