//! `getTools` and `toolchange`: what a page discovers, in what order, and who is told of a
//! change.

use super::prelude::*;

/// What getTools returns and where toolchange fires.
pub(super) fn properties() -> Vec<PropertyDef> {
    vec![
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
            name: "toolchange-on-discoverable-change",
            kind: Kind::Always,
            about: &["notify-tool-change#2", "notify-tool-change#3.3", "get-tools#9.3", "unload-cleanup#1"],
            claim: "when tools a fully active document could discover leave the tree with their document (unloaded, iframe removed), a toolchange event is queued at that document",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::DiscoverableChangeUnnotified(_))),
        },
        PropertyDef {
            name: "toolchange-ordering-example",
            kind: Kind::Always,
            about: &["notify-tool-change.example", "register-tool#21"],
            claim: "on one event loop, a parent's toolchange fires before its child's, and the registration promise fulfils after both",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::ToolchangeOrder(_))),
        },
    ]
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
