//! `getTools` and `toolchange`: what a page discovers, in what order, and who is told of a
//! change.

use super::prelude::*;

/// What getTools returns and where toolchange fires.
pub(super) fn properties() -> Vec<PropertyDef> {
    vec![
        PropertyDef {
            name: "get-tools-sorted",
            kind: Kind::Always,
            about: &["get-tools#8.4"],
            claim: "every getTools result is sorted by name in code unit order",
            holds: get_tools_sorted,
            reads: Reads::Parts(parts::PROMISES),
            witness: Witness::State {
                claim: "a getTools result lists two tools or more",
                holds: |_, s| s.promises.iter().any(|p| matches!(&p.status, Status::Fulfilled(Value::Tools(l)) if l.len() >= 2)),
                reads: Reads::Parts(parts::PROMISES),
            },
        },
        PropertyDef {
            name: "get-tools-exact",
            kind: Kind::Always,
            about: &["get-tools#8.3", "get-tools#8.3.8.1"],
            claim: "when nothing changes during the walk, getTools returns exactly the tools visible to the caller",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::GetToolsMismatch(_))),
            reads: Reads::Parts(parts::GHOST),
            witness: Witness::State {
                claim: "a getTools result lists a tool",
                holds: |_, s| s.promises.iter().any(|p| matches!(&p.status, Status::Fulfilled(Value::Tools(l)) if !l.is_empty())),
                reads: Reads::Parts(parts::PROMISES),
            },
        },
        PropertyDef {
            name: "get-tools-members-as-registered",
            kind: Kind::Always,
            about: &["get-tools#8.3.8.2", "register-tool#18"],
            claim: "every entry of a getTools result carries the title, description, input schema (as serialized at registration) and annotations that a registerTool call of that name gave in that window",
            holds: get_tools_members_as_registered,
            reads: Reads::Parts(parts::PROMISES),
            witness: Witness::State {
                claim: "a getTools result lists a tool with an input schema, a title or annotations",
                holds: |_, s| {
                    s.promises.iter().any(|p| match &p.status {
                        Status::Fulfilled(Value::Tools(l)) => l
                            .iter()
                            .any(|t| t.input_schema.is_some() || t.title.is_some() || t.annotations.is_some()),
                        _ => false,
                    })
                },
                reads: Reads::Parts(parts::PROMISES),
            },
        },
        PropertyDef {
            name: "toolchange-only-where-allowed-and-exposed",
            kind: Kind::Always,
            about: &["notify-tool-change#3.2", "notify-tool-change#3.3"],
            claim: "toolchange fires only at documents allowed to use \"tools\" to which the tool is exposed",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::ToolchangeMisfired(_))),
            reads: Reads::Parts(parts::GHOST),
            witness: Witness::State {
                claim: "a toolchange event fires",
                holds: |_, s| s.docs.iter().any(|d| d.toolchanges > 0),
                reads: Reads::Parts(parts::DOCS),
            },
        },
        PropertyDef {
            name: "toolchange-on-discoverable-change",
            kind: Kind::Always,
            about: &["notify-tool-change#2", "notify-tool-change#3.3", "get-tools#8.3", "unload-cleanup#1"],
            claim: "when tools a fully active document could discover leave the tree with their document (unloaded, iframe removed), a toolchange event is queued at that document",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::DiscoverableChangeUnnotified(_))),
            reads: Reads::Parts(parts::GHOST),
            witness: Witness::State {
                claim: "a document's tools leave the tree while another document of its tab could discover them",
                holds: tools_left_under_eyes,
                reads: Reads::Parts(parts::DOCS),
            },
        },
        PropertyDef {
            name: "toolchange-ordering-example",
            kind: Kind::Always,
            about: &["notify-tool-change.example", "register-tool#20"],
            claim: "on one event loop, a parent's toolchange fires before its child's, and the registration promise fulfils after both",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::ToolchangeOrder(_))),
            reads: Reads::Parts(parts::GHOST),
            witness: Witness::State {
                claim: "a registerTool promise fulfils where toolchange fired at two documents",
                holds: |m, s| {
                    let w = m.world.as_ref();
                    s.docs.iter().filter(|d| d.toolchanges > 0).count() >= 2
                        && w.calls.iter().enumerate().any(|(i, c)| {
                            c.kind == CallKind::Register && matches!(s.promises[i].status, Status::Fulfilled(_))
                        })
                },
                reads: Reads::Parts(parts::DOCS | parts::PROMISES),
            },
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

/// A destroyed document still holds tools (its tool map is never cleared) that a fully active
/// document of its tab, allowed to use "tools", could have discovered.
fn tools_left_under_eyes(m: &WebMcpModel, s: &State) -> bool {
    let w = m.world.as_ref();
    let tab = |d: DocId| w.navs[w.docs[d.index()].nav.index()].tab;
    DocId::all(w.docs.len()).any(|x| {
        s.doc(x).lifecycle == Lifecycle::Destroyed
            && s.doc(x).tools.values().any(|t| {
                DocId::all(w.docs.len()).any(|d| {
                    tab(d) == tab(x)
                        && s.allowed_to_use_tools(w, d)
                        && w.origins.exposes(
                            w.docs[x.index()].origin,
                            t.exposed,
                            w.docs[d.index()].origin,
                        )
                })
            })
    })
}

fn get_tools_members_as_registered(m: &WebMcpModel, s: &State) -> bool {
    let w = m.world.as_ref();
    s.promises.iter().all(|p| match &p.status {
        Status::Fulfilled(Value::Tools(list)) => list.iter().all(|t| {
            w.calls.iter().enumerate().any(|(i, c)| {
                if c.kind != CallKind::Register || c.doc != t.window {
                    return false;
                }
                let r = w.register_op(CallId::nth(i));
                r.name == t.name
                    && r.title == t.title
                    && r.description == t.description
                    && r.schema.and_then(Result::ok) == t.input_schema
                    && r.annotations == t.annotations
            })
        }),
        _ => true,
    })
}
