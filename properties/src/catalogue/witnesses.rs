//! Witnesses: behaviours some run must show, so that the other properties are not vacuous.

use super::prelude::*;

/// The witnesses.
pub(super) fn properties() -> Vec<PropertyDef> {
    vec![
        PropertyDef {
            name: "witness:discovered-cross-origin",
            kind: Kind::Sometimes,
            about: &["get-tools#8.3.5", "get-tools#8.3.8.1"],
            claim: "a getTools result lists a tool registered by a cross-origin document",
            holds: discovered_cross_origin,
            reads: Reads::Parts(parts::PROMISES),
            witness: Witness::Itself,
        },
        PropertyDef {
            name: "witness:toolchange-fired",
            kind: Kind::Sometimes,
            about: &["notify-tool-change#3.3"],
            claim: "a toolchange event fires",
            holds: |_, s| s.docs.iter().any(|d| d.toolchanges > 0),
            reads: Reads::Parts(parts::DOCS),
            witness: Witness::Itself,
        },
        PropertyDef {
            name: "witness:toolchange-after-unregistration",
            kind: Kind::Sometimes,
            about: &["unregister-tool#7", "notify-tool-change#3.3"],
            claim: "an unregistration queues a toolchange event",
            holds: |_, s| s.queues.iter().flatten().any(|t| matches!(t.kind, TaskKind::FireToolchange { registered: false, .. })),
            reads: Reads::Parts(parts::QUEUES),
            witness: Witness::Itself,
        },
        PropertyDef {
            name: "witness:result-delivered",
            kind: Kind::Sometimes,
            about: &["execute-tool#16.10.3"],
            claim: "an executeTool promise fulfils with the tool's result",
            holds: |m, s| execute_promises(m.world.as_ref(), s).any(|(_, p)| matches!(p.status, Status::Fulfilled(Value::Text(_)))),
            reads: Reads::Parts(parts::PROMISES),
            witness: Witness::Itself,
        },
        PropertyDef {
            name: "witness:abort-wins-race",
            kind: Kind::Sometimes,
            about: &["execute-tool#15.4.1", "cancel-pending-execution#2.note"],
            claim: "an executeTool promise rejects with the abort reason after its tool body was invoked",
            holds: |m, s| {
                execute_promises(m.world.as_ref(), s).any(|(c, p)| {
                    matches!(p.status, Status::Rejected(webmcp_model::state::Reason::Aborted(_))) && s.bodies.contains_key(&c)
                })
            },
            reads: Reads::Parts(parts::PROMISES | parts::BODIES),
            witness: Witness::Itself,
        },
        PropertyDef {
            name: "witness:unload-unknown-error",
            kind: Kind::Sometimes,
            about: &["unload-cleanup#2.3.2", "execute-tool#16.10.4"],
            claim: "unloading the target rejects an executeTool promise with UnknownError",
            holds: |m, s| {
                execute_promises(m.world.as_ref(), s).any(|(c, p)| {
                    p.settled_at == Some(const { step("execute-tool#16.10.4") })
                        && s.bodies.get(&c).is_none_or(|b| !b.settled)
                        && s.docs.iter().any(|d| d.cleanups > 0)
                })
            },
            reads: Reads::Parts(parts::PROMISES | parts::BODIES | parts::DOCS),
            witness: Witness::Itself,
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
            reads: Reads::Parts(parts::PROMISES),
            witness: Witness::Itself,
        },
        PropertyDef {
            name: "witness:tool-sees-abort",
            kind: Kind::Sometimes,
            about: &["cancel-pending-execution#6.5"],
            claim: "a running tool body sees its signal aborted",
            holds: |_, s| s.bodies.values().any(|b| b.saw_abort_while_running),
            reads: Reads::Parts(parts::BODIES),
            witness: Witness::Itself,
        },
    ]
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
