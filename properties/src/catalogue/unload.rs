//! Unloading: a destroyed document leaves no pending or local execution behind.

use super::prelude::*;

/// What unloading cleans up.
pub(super) fn properties() -> Vec<PropertyDef> {
    vec![
        PropertyDef {
            name: "unload-cleans-pending-executions",
            kind: Kind::Always,
            about: &["unload-cleanup#2", "execute-tool#16.12"],
            claim: "once a document is destroyed and the threads it started are done, no pending tool execution names it",
            holds: unload_cleans_pending,
            reads: Reads::Parts(parts::DOCS | parts::THREADS | parts::PENDING),
            witness: Witness::State {
                claim: "a document is destroyed while a pending tool execution names it",
                holds: |_, s| s.pending.iter().flatten().any(|(_, e)| {
                    s.doc(e.caller).lifecycle == Lifecycle::Destroyed || s.doc(e.target).lifecycle == Lifecycle::Destroyed
                }),
                reads: Reads::Parts(parts::DOCS | parts::PENDING),
            },
        },
        PropertyDef {
            name: "unload-cleans-local-executions",
            kind: Kind::Always,
            about: &["unload-cleanup#2", "imperative-execute-steps#7", "cancel-pending-execution#6"],
            claim: "once a document is destroyed and the threads it started are done, its local pending tool executions map is empty",
            holds: unload_cleans_local,
            reads: Reads::Parts(parts::DOCS | parts::THREADS),
            witness: Witness::State {
                claim: "the document of a running tool body is destroyed",
                holds: |_, s| s.bodies.values().any(|b| !b.settled && s.doc(b.target).lifecycle == Lifecycle::Destroyed),
                reads: Reads::Parts(parts::DOCS | parts::BODIES),
            },
        },
        PropertyDef {
            name: "caller-unload-stops-tool",
            kind: Kind::AtTermination,
            about: &["unload-cleanup#2.3.3", "cancel-pending-execution#4", "cancel-pending-execution#6", "cancel-pending-execution#6.5"],
            claim: "when nothing is left to run, no tool body of a fully active document still runs, without its signal aborted, for a caller that was unloaded",
            holds: |m, s| {
                let w = m.world.as_ref();
                s.bodies.iter().all(|(c, b)| {
                    let caller = w.calls[c.index()].doc;
                    b.settled
                        || b.signal_aborted
                        || !s.is_fully_active(b.target)
                        || s.doc(caller).cleanups == 0
                })
            },
            reads: Reads::Anything,
            witness: Witness::State {
                claim: "a tool body is running when its caller is unloaded",
                holds: |m, s| {
                    let w = m.world.as_ref();
                    s.bodies
                        .iter()
                        .any(|(c, b)| !b.settled && s.doc(w.calls[c.index()].doc).cleanups > 0)
                },
                reads: Reads::Parts(parts::DOCS | parts::BODIES),
            },
        },
        PropertyDef {
            name: "nothing-left-at-end",
            kind: Kind::AtTermination,
            about: &["execute-tool#16.12", "execute-tool#16.10.2", "imperative-execute-steps#7", "unload-cleanup#2", "cancel-pending-execution#4"],
            claim: "when nothing is left to run, no pending or local tool execution is left behind, except for a tool body that never settled and a target in the back/forward cache",
            holds: nothing_left_at_end,
            reads: Reads::Anything,
            witness: Witness::State {
                claim: "a pending tool execution is stored",
                holds: |_, s| s.pending.iter().any(|m| !m.is_empty()),
                reads: Reads::Parts(parts::PENDING),
            },
        },
    ]
}

fn nothing_left_at_end(_: &WebMcpModel, s: &State) -> bool {
    // A tool body that never settles keeps its execution open: that is the page's doing
    // (unless its document is gone, and with it any chance to settle).
    let running = |uuid: &CallId| {
        s.bodies
            .get(uuid)
            .is_some_and(|b| !b.settled && s.doc(b.target).lifecycle != Lifecycle::Destroyed)
    };
    let cached = |d: DocId| s.doc(d).lifecycle == Lifecycle::NotFullyActive;
    s.pending
        .iter()
        .flatten()
        .all(|(uuid, e)| running(uuid) || cached(e.target))
        && s.docs
            .iter()
            .all(|d| d.lifecycle == Lifecycle::NotFullyActive || d.local.iter().all(running))
}

/// Whether every thread started by document `d`, or started for it, has finished.
fn threads_of_done(w: &World, s: &State, d: DocId) -> bool {
    !s.threads.keys().any(|k| is_thread_of(w, s, *k, d))
}

/// Whether thread `k` was started by document `d`, or for it.
fn is_thread_of(w: &World, s: &State, k: ThreadKey, d: DocId) -> bool {
    match k {
        ThreadKey::Cleanup(doc, _) => doc == d,
        ThreadKey::Completion(c) => w.calls[c.index()].doc == d,
        // Started by d's own cleanup for an execution d was the target of.
        ThreadKey::CleanupCompletion(c, _) => {
            w.calls[c.index()].doc == d
                || matches!(s.threads.get(&k), Some(webmcp_model::threads::Thread::Completion(p)) if p.target == d)
        }
        ThreadKey::Register(c)
        | ThreadKey::Unregister(c)
        | ThreadKey::GetTools(c)
        | ThreadKey::Execute(c)
        | ThreadKey::CancelOnAbort(c) => w.calls[c.index()].doc == d,
    }
}

/// Whether some property not already shown at `s` reads whether pending execution `e`
/// exists: the unloading properties read the entries that name a destroyed document. The
/// witness of `nothing-left-at-end` ("a pending tool execution is stored") reads every
/// entry, but it holds wherever an entry is removed, so it is shown there already.
pub(super) fn pending_entry_is_read(
    _: &World,
    s: &State,
    e: &webmcp_model::state::PendingExecution,
) -> bool {
    s.doc(e.caller).lifecycle == Lifecycle::Destroyed
        || s.doc(e.target).lifecycle == Lifecycle::Destroyed
}

/// Whether some property reads whether thread `k` exists: only [`threads_of_done`] does,
/// and only for destroyed documents.
pub(super) fn thread_is_read(w: &World, s: &State, k: ThreadKey) -> bool {
    DocId::all(w.docs.len())
        .any(|d| s.doc(d).lifecycle == Lifecycle::Destroyed && is_thread_of(w, s, k, d))
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
