//! `toolactivated` and `toolcancel`, under the opt-in `toolEvents` semantics (the draft as
//! written fires neither; a later text fires them, docs/model.md §4): their order relative
//! to the settlement of the execution they are about.

use super::prelude::*;

fn toolcancel_fired(_: &WebMcpModel, s: &State) -> bool {
    s.ghost.iter().any(|g| matches!(g, Ghost::ToolCancelled(_)))
}

/// The order of the tool events against settlement.
pub(super) fn properties() -> Vec<PropertyDef> {
    vec![
        PropertyDef {
            name: "toolactivated-before-result",
            kind: Kind::Always,
            about: &["imperative-execute-steps#4", "execute-tool#16.10.3"],
            claim: "an executeTool promise is fulfilled with a result only after toolactivated fired for its execution",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::ResultBeforeToolactivated(_))),
            reads: Reads::Parts(parts::GHOST),
            witness: Witness::State {
                claim: "toolactivated fires for an execution whose promise then fulfils",
                holds: |_, s| {
                    s.ghost.iter().any(|g| match g {
                        Ghost::ToolActivated(c) => matches!(s.promises[c.index()].status, Status::Fulfilled(_)),
                        _ => false,
                    })
                },
                reads: Reads::Parts(parts::PROMISES | parts::GHOST),
            },
        },
        PropertyDef {
            name: "toolcancel-only-after-caller-gave-up",
            kind: Kind::Always,
            about: &["cancel-pending-execution#6.6", "execute-tool#15.4.2", "unload-cleanup#2.3.3"],
            claim: "toolcancel fires for an execution only once its caller aborted the signal or was unloaded",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::ToolcancelForLiveCaller(_))),
            reads: Reads::Parts(parts::GHOST),
            witness: Witness::State {
                claim: "a toolcancel event fires",
                holds: toolcancel_fired,
                reads: Reads::Parts(parts::GHOST),
            },
        },
        PropertyDef {
            name: "toolcancel-never-after-settlement",
            kind: Kind::Always,
            about: &["cancel-pending-execution#6.2", "cancel-pending-execution#6.6", "imperative-execute-steps#10"],
            claim: "toolcancel never fires for a tool whose callback's promise already settled",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::ToolcancelAfterSettlement(_))),
            reads: Reads::Parts(parts::GHOST),
            witness: Witness::State {
                claim: "a toolcancel event fires",
                holds: toolcancel_fired,
                reads: Reads::Parts(parts::GHOST),
            },
        },
    ]
}
