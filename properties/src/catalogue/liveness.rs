//! Liveness, judged at terminal states: every promise of a fully active page has settled.

use super::prelude::*;

/// Every promise settles by the end of a run.
pub(super) fn properties() -> Vec<PropertyDef> {
    vec![
        PropertyDef {
            name: "execute-promise-settles",
            kind: Kind::AtTermination,
            about: &["execute-tool#16", "execute-tool#16.10"],
            claim: "when nothing is left to run, every executeTool promise of a fully active caller has settled, unless its tool body never settled or its target waits in the back/forward cache",
            holds: execute_settled_at_end,
            reads: Reads::Anything,
            witness: Witness::State {
                claim: "an executeTool promise is pending",
                holds: |m, s| execute_promises(m.world.as_ref(), s).any(|(_, p)| p.status == Status::Pending),
                reads: Reads::Parts(parts::PROMISES),
            },
        },
        PropertyDef {
            name: "register-promise-settles",
            kind: Kind::AtTermination,
            about: &["register-tool#20.2"],
            claim: "when nothing is left to run, every registerTool promise of a fully active document has settled",
            holds: |m, s| calls_settled(m.world.as_ref(), s, CallKind::Register),
            reads: Reads::Anything,
            witness: Witness::State {
                claim: "a registerTool promise is pending",
                holds: |m, s| pending_of(m.world.as_ref(), s, CallKind::Register),
                reads: Reads::Parts(parts::PROMISES),
            },
        },
        PropertyDef {
            name: "get-tools-promise-settles",
            kind: Kind::AtTermination,
            about: &["get-tools#8.5"],
            claim: "when nothing is left to run, every getTools promise of a fully active document has settled",
            holds: |m, s| calls_settled(m.world.as_ref(), s, CallKind::GetTools),
            reads: Reads::Anything,
            witness: Witness::State {
                claim: "a getTools promise is pending",
                holds: |m, s| pending_of(m.world.as_ref(), s, CallKind::GetTools),
                reads: Reads::Parts(parts::PROMISES),
            },
        },
    ]
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

fn pending_of(w: &World, s: &State, kind: CallKind) -> bool {
    w.calls
        .iter()
        .enumerate()
        .any(|(i, c)| c.kind == kind && s.promises[i].status == Status::Pending)
}
