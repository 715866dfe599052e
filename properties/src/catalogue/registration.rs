//! `registerTool`: aborting a registration's signal unregisters the tool; and what every
//! method does on the `ModelContext` of a document that is not fully active.

use super::prelude::*;

/// Aborting a registration unregisters.
pub(super) fn properties() -> Vec<PropertyDef> {
    vec![
        PropertyDef {
            name: "registration-abort-unregisters",
            kind: Kind::Always,
            about: &["register-tool#17.3", "register-tool#17.3.1", "register-tool#17.3.2", "unregister-tool#5"],
            claim: "once the signal passed to registerTool is aborted, the tool it registered is gone from its tool map and the registration promise has been rejected (a no-op if it was already fulfilled)",
            holds: registration_abort_unregisters,
            reads: Reads::Parts(parts::PROMISES | parts::CONTROLLERS | parts::DOCS),
            witness: Witness::State {
                claim: "the signal of a registerTool call that ran is aborted",
                holds: |m, s| {
                    let w = m.world.as_ref();
                    w.calls.iter().enumerate().any(|(i, c)| {
                        c.kind == CallKind::Register
                            && s.promises[i].status != Status::NotCalled
                            && w.register_op(CallId::nth(i)).signal.is_some_and(|k| s.controllers[k.index()].aborted)
                    })
                },
                reads: Reads::Parts(parts::PROMISES | parts::CONTROLLERS),
            },
        },
        PropertyDef {
            name: "abort-rejects-with-the-signals-reason",
            kind: Kind::Always,
            about: &["register-tool#13", "register-tool#17.3.2", "execute-tool#15.2", "execute-tool#15.4.1"],
            claim: "a registerTool or executeTool promise rejected by an abort is rejected with the abort reason of the signal passed to that call (a custom reason if abort() was given one)",
            holds: |m, s| {
                let w = m.world.as_ref();
                w.calls.iter().enumerate().all(|(i, c)| {
                    let webmcp_model::state::Status::Rejected(webmcp_model::state::Reason::Aborted(by)) = s.promises[i].status else {
                        return true;
                    };
                    let own = match c.kind {
                        CallKind::Register => w.register_op(CallId::nth(i)).signal,
                        CallKind::Execute => w.execute_op(CallId::nth(i)).signal,
                        CallKind::GetTools => None,
                    };
                    own == Some(by)
                })
            },
            reads: Reads::Parts(parts::PROMISES),
            witness: Witness::State {
                claim: "a promise is rejected by an abort that was given a custom reason",
                holds: |m, s| {
                    let w = m.world.as_ref();
                    s.promises.iter().any(|p| {
                        matches!(p.status, Status::Rejected(webmcp_model::state::Reason::Aborted(c)) if w.controllers[c.index()].reason.is_some())
                    })
                },
                reads: Reads::Parts(parts::PROMISES),
            },
        },
        PropertyDef {
            name: "inactive-document-calls-reject",
            kind: Kind::Always,
            about: &["register-tool#3", "get-tools#3", "execute-tool#2"],
            claim: "a registerTool, getTools or executeTool call on the ModelContext of a document that is not fully active (a removed or navigated-away iframe's, kept by a script) is rejected with an \"InvalidStateError\" DOMException",
            holds: |_, s| s.ghost.iter().all(|g| match g {
                Ghost::CalledOnInactiveDocument(c) => matches!(
                    s.promises[c.index()].status,
                    Status::Rejected(webmcp_model::state::Reason::InvalidStateError)
                ),
                _ => true,
            }),
            reads: Reads::Parts(parts::GHOST | parts::PROMISES),
            witness: Witness::State {
                claim: "a script calls a method on the ModelContext of a document that is not fully active",
                holds: |_, s| s.ghost.iter().any(|g| matches!(g, Ghost::CalledOnInactiveDocument(_))),
                reads: Reads::Parts(parts::GHOST),
            },
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
