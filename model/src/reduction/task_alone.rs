//! A task alone: running the oldest runnable task of an event loop first, where that task
//! fires `toolchange` for a registration (`notify-tool-change#3.3`), resolves a
//! registration (`register-tool#20.2`) or settles an execution's promise
//! (`execute-tool#16.10.3`–`#16.10.4`, and every other step that queues a rejection), and
//! nothing else can still tell when it ran (`docs/model.md` §7, *A task alone*).
//!
//! Where several notifications append to one queue, no thread step is persistent alone: their
//! appends are ordered, and the order shows. But the task at the head of that queue reads
//! nothing they write: a `toolchange` task as long as no notification of its own cause can
//! still queue at an ancestor of its document (the ordering check of `fire_toolchange`), a
//! registration's resolution once its notification is done. Running it first removes the
//! interleavings of each such task with every later append.

use super::{bit, future_of, Future};
use crate::machine::{is_ancestor, Action, WebMcpModel};
use crate::state::{parts, DocState, Lifecycle, ScriptStatus, State, Status, Task, TaskKind};
use crate::threads::{NotifyPc, Thread};
use crate::world::{AgentId, CallId, DocId, Op, World};

impl WebMcpModel {
    /// `RunTask` of an event loop whose oldest runnable task fires `toolchange` for a
    /// registration, resolves one, settles an execution's promise or runs the tool execute
    /// steps, when that task may run alone (the module docs), with the state it leads to;
    /// `None` when no loop has one.
    pub fn task_alone(&self, s: &State) -> Option<(Action, State)> {
        // A planted bug may run tasks where the argument assumes none run (a queued task run
        // inline).
        if self.mutant.is_some() {
            return None;
        }
        let mut future = None;
        AgentId::all(self.world.agents.len()).find_map(|agent| {
            let next = self.try_task_alone(s, agent, &mut future)?;
            Some((Action::RunTask(agent), next))
        })
    }

    fn try_task_alone(
        &self,
        s: &State,
        agent: AgentId,
        future: &mut Option<Future>,
    ) -> Option<State> {
        let (w, f) = (&*self.world, &*self.footprints);
        let queue = &s.queues[agent.index()];
        // RunTask runs the oldest runnable task; the ones before it wait for their documents.
        let i = queue.iter().position(|t| s.is_fully_active(t.doc))?;
        let task = &queue[i];
        let call = match task.kind {
            TaskKind::FireToolchange {
                cause,
                registered: true,
            } if self.visibility.toolchange_fired_keeps_outcomes => cause,
            TaskKind::ResolveRegister { call }
                if (self.visibility.registration_resolved_keeps_outcomes)(w, call) =>
            {
                call
            }
            TaskKind::ResolveExecute { call, .. } | TaskKind::RejectExecute { call, .. }
                if self.visibility.execution_settled_keeps_outcomes =>
            {
                call
            }
            TaskKind::RunToolExecuteSteps { call, .. }
                if self.visibility.tool_started_keeps_outcomes =>
            {
                call
            }
            _ => return None,
        };
        if (self.visibility.queued_task)(&task.kind) || made_in_a_body(w, call) {
            return None;
        }
        // The trees it reads (its document's lifecycle, `allowed to use`; which tasks before
        // it are runnable) and the tree the registration's notification walks stay as they are.
        let registration = &w.calls[call.index()];
        let mut trees =
            f.tab_of_doc[registration.doc.index()] | f.tab_of_doc[registration.script.index()];
        for t in queue.iter().take(i + 1) {
            trees |= f.tab_of_doc[t.doc.index()];
        }
        let future = *future.get_or_insert_with(|| future_of(w, f, s));
        if trees & future.writes.trees != 0 || !checkpoint_stays_empty(w, s, f, agent) {
            return None;
        }
        let quiet = match task.kind {
            TaskKind::FireToolchange { .. } => !may_queue_at_ancestor(w, s, call, task),
            TaskKind::ResolveRegister { .. } => resolution_unseen(w, s, &future, call),
            TaskKind::RunToolExecuteSteps { target, .. } => {
                start_unseen(s, &future, call, target, (agent, i), w)
            }
            _ => settlement_unseen(w, s, &future, call, agent, i),
        };
        if !quiet {
            return None;
        }
        let next = self.apply(s, Action::RunTask(agent), &mut ());
        only_task_run(w, s, &next, agent, i, task).then_some(next)
    }
}

/// Whether `call` is made by a tool body, which may make it again with each execution of
/// its tool (or names no `registerTool` or `executeTool` statement of a script at all).
fn made_in_a_body(w: &World, call: CallId) -> bool {
    let c = &w.calls[call.index()];
    c.body_statement.is_some()
        || !matches!(
            w.docs[c.script.index()].script[c.statement],
            Op::Register(_) | Op::Execute(_)
        )
}

/// Whether the script that made `call` is done: only it may `await` the call's promise.
fn script_done(w: &World, s: &State, call: CallId) -> bool {
    let script = &s.docs[w.calls[call.index()].script.index()];
    script.lifecycle == Lifecycle::Destroyed
        || matches!(
            script.script.status,
            ScriptStatus::Finished | ScriptStatus::Threw
        )
}

/// Whether no tool body awaits `call`'s promise (and so resumes when it settles).
fn no_body_awaits(s: &State, call: CallId) -> bool {
    !s.bodies
        .iter()
        .any(|(_, b)| !b.settled && b.awaiting_call == Some(call))
}

/// Whether the signal of `call` (a registerTool's or an executeTool's), whose abort steps
/// reject its promise, can still be aborted.
fn abortable(s: &State, future: &Future, signal: Option<crate::world::CtrlId>) -> bool {
    signal.is_some_and(|k| !s.controllers[k.index()].aborted && future.aborts & bit(k.index()) != 0)
}

/// Whether nothing but this task can still settle registration `call`'s promise or read it:
/// the promise is pending, and its signal (whose abort steps reject it) can no longer be
/// aborted; the script that made the call is done (only it may `await` the promise); and no
/// tool body awaits it. Its notification is done and none of its `toolchange` tasks is still
/// queued (what `check_toolchange_before_resolution` reads), as the successor shows: no
/// ghost fact is recorded, and only the notification queues them.
fn resolution_unseen(w: &World, s: &State, future: &Future, call: CallId) -> bool {
    s.promises[call.index()].status == Status::Pending
        && !abortable(s, future, w.register_op(call).signal)
        && script_done(w, s, call)
        && no_body_awaits(s, call)
}

/// Whether nothing but task `i` of `agent`'s queue can still settle execution `call`'s
/// promise or read it: the promise is pending; nothing else of the execution can still act
/// ([`execution_quiet`]), and its tool body, if it has one, has settled (its completion
/// steps would follow); the script that made the call is done and no tool body awaits it.
fn settlement_unseen(
    w: &World,
    s: &State,
    future: &Future,
    call: CallId,
    agent: AgentId,
    i: usize,
) -> bool {
    s.promises[call.index()].status == Status::Pending
        && execution_quiet(w, s, future, call, Some((agent, i)))
        && s.bodies.get(&call).is_none_or(|b| b.settled)
        && script_done(w, s, call)
        && no_body_awaits(s, call)
}

/// Whether nothing but task `i` of `agent`'s queue, which runs the tool execute steps of
/// execution `call` on `target`, can still start its tool or read what starting it writes:
/// the execution's promise is pending (`imperative-execute-steps#9` reads it) and nothing
/// else of the execution can still act ([`execution_quiet`]), so no body of it runs yet and
/// its entry in the pending map, which the `skip-cancelled-execution` fix reads, stays as it
/// is; the target's tool map, which `tool-execute-steps#3` reads, cannot change.
fn start_unseen(
    s: &State,
    future: &Future,
    call: CallId,
    target: DocId,
    except: (AgentId, usize),
    w: &World,
) -> bool {
    s.promises[call.index()].status == Status::Pending
        && !s.bodies.contains_key(&call)
        && execution_quiet(w, s, future, call, Some(except))
        && future.writes.tools & bit(target.index()) == 0
}

/// Whether nothing of execution `call` but its tool body and the task `except` (a loop and
/// an index in its queue) can still act, in any future of `s`: its signal can no longer be
/// aborted (`execute-tool#15.4.1` would reject its promise and cancel it); no other task of
/// the execution is queued on any loop (running the tool execute steps, a settlement, a
/// cancellation's `#6`); no thread of the execution runs (its `execute-tool` thread, a
/// cancellation, completion steps); no unloading cleanup runs, and none can start, since no
/// tree can change (`unload-cleanup#2.3` rejects and cancels pending executions); and the
/// tool map of the target of its pending entry, if it has one, cannot change (under PR
/// #247's text an unregistration runs the completion steps of the tool's pending
/// executions).
pub(super) fn execution_quiet(
    w: &World,
    s: &State,
    future: &Future,
    call: CallId,
    except: Option<(AgentId, usize)>,
) -> bool {
    use crate::threads::ThreadKey;
    let other_task = s.queues.iter().enumerate().any(|(a, queue)| {
        queue
            .iter()
            .enumerate()
            .any(|(j, t)| Some((AgentId::nth(a), j)) != except && t.kind.execution() == Some(call))
    });
    let thread_of_call = s.threads.iter().any(|(key, t)| match *key {
        ThreadKey::Execute(c)
        | ThreadKey::CancelOnAbort(c)
        | ThreadKey::Completion(c)
        | ThreadKey::CleanupCompletion(c, _) => c == call,
        ThreadKey::Cleanup(..) => true,
        _ => matches!(t, Thread::Cancel(p) if p.uuid == call),
    });
    let entry_stays = s
        .pending
        .iter()
        .flatten()
        .filter(|(uuid, _)| *uuid == call)
        .all(|(_, e)| future.writes.tools & bit(e.target.index()) == 0);
    !abortable(s, future, w.execute_op(call).signal)
        && !other_task
        && !thread_of_call
        && future.writes.trees == 0
        && entry_stays
}

/// Whether the microtask checkpoint after a task on `agent` finds nothing to run, in every
/// future where that loop runs no task of its queue: every script of the loop's documents is
/// done, or its document destroyed, or it has not started and never suspends (so no
/// checkpoint ever resumes it); and no tool body on the loop can still resume, since bodies
/// start only in the tool execute steps, a task of the loop's queue. A body without a script
/// (the environment settles it, `Action::SettleTool`) never awaits, so no checkpoint resumes
/// it.
pub(super) fn checkpoint_stays_empty(
    w: &World,
    s: &State,
    f: &super::Footprints,
    agent: AgentId,
) -> bool {
    let loop_bit = bit(agent.index());
    let scripts_quiet = DocId::all(w.docs.len())
        .filter(|d| f.agent_of_doc[d.index()] == loop_bit)
        .all(|d| {
            let doc = &s.docs[d.index()];
            doc.lifecycle == Lifecycle::Destroyed
                || match doc.script.status {
                    ScriptStatus::Finished | ScriptStatus::Threw => true,
                    ScriptStatus::NotStarted => f.never_suspends[d.index()],
                    ScriptStatus::AwaitingCall(_)
                    | ScriptStatus::AwaitingToolchange
                    | ScriptStatus::Ready => false,
                }
        });
    scripts_quiet
        && !s.bodies.iter().any(|(_, b)| {
            !b.settled
                && w.agent_of(b.target) == agent
                && w.register_op(b.registered_by).body.is_some()
        })
}

/// Whether something other than running this loop's tasks can still queue a `toolchange`
/// task of `cause` (a registration's) at an ancestor of `task`'s document: the registration's
/// own notification, still to start or with such a navigable left to visit, or the
/// `registerTool` statement still to run.
fn may_queue_at_ancestor(w: &World, s: &State, cause: CallId, task: &Task) -> bool {
    let call = &w.calls[cause.index()];
    let script = &s.docs[call.script.index()].script;
    let statement_to_run = !matches!(script.status, ScriptStatus::Finished | ScriptStatus::Threw)
        && script.pc as usize <= call.statement;
    statement_to_run
        || s.threads.values().any(|t| match t {
            Thread::Notify {
                cause: c,
                resolve_registration: true,
                pc,
                ..
            } if *c == cause => match pc {
                NotifyPc::Start => true,
                NotifyPc::Visit(navs) => {
                    let mut navs = *navs;
                    std::iter::from_fn(|| navs.pop()).any(|n| {
                        s.navs[n.index()]
                            .active
                            .is_some_and(|a| is_ancestor(w, a, task.doc))
                    })
                }
                NotifyPc::ResolveRegistration => false,
            },
            _ => false,
        })
}

/// Whether `next`'s queues are `s`'s with task `i` of `agent`'s queue removed.
fn only_task_removed(s: &State, next: &State, agent: AgentId, i: usize) -> bool {
    s.queues
        .iter()
        .zip(next.queues.iter())
        .enumerate()
        .all(|(a, (before, after))| {
            if a != agent.index() {
                return before == after;
            }
            let rest = before.iter().enumerate().filter(|(j, _)| *j != i);
            rest.map(|(_, t)| t).eq(after.iter())
        })
}

/// Whether `next`'s documents are `s`'s with document `doc` changed by `edit` (given the
/// document before and after) and no other.
pub(super) fn only_doc_changed(
    s: &State,
    next: &State,
    doc: DocId,
    edit: impl Fn(&mut DocState, &DocState),
) -> bool {
    s.docs
        .iter()
        .zip(next.docs.iter())
        .enumerate()
        .all(|(d, (before, after))| {
            if d != doc.index() {
                return before == after;
            }
            let mut moved = before.clone();
            edit(&mut moved, after);
            moved == *after
        })
}

/// Whether `next` is `s` with task `i` of `agent`'s queue removed and, for a `toolchange`
/// task, its document's counter moved, for a resolution or a settlement, its promise
/// settled, for the tool execute steps, what [`only_tool_started`] allows, and nothing else:
/// no ghost fact recorded, no script or body resumed.
fn only_task_run(
    w: &World,
    s: &State,
    next: &State,
    agent: AgentId,
    i: usize,
    task: &Task,
) -> bool {
    if let TaskKind::RunToolExecuteSteps { call, target, .. } = task.kind {
        return only_task_removed(s, next, agent, i) && only_tool_started(w, s, next, call, target);
    }
    let firing = matches!(task.kind, TaskKind::FireToolchange { .. });
    let docs_same = only_doc_changed(s, next, task.doc, |moved, after| {
        if firing {
            moved.toolchanges = after.toolchanges;
        }
    });
    let settled = match task.kind {
        TaskKind::ResolveRegister { call }
        | TaskKind::ResolveExecute { call, .. }
        | TaskKind::RejectExecute { call, .. } => Some(call.index()),
        _ => None,
    };
    let promises_same = s
        .promises
        .iter()
        .zip(next.promises.iter())
        .enumerate()
        .all(|(p, (before, after))| Some(p) == settled || before == after);
    only_task_removed(s, next, agent, i)
        && docs_same
        && promises_same
        && s.same_outside(next, parts::QUEUES | parts::DOCS | parts::PROMISES)
}

/// Whether `next` is `s` (but for its queues) with `call` added to `target`'s local map, a
/// body without a script running for it, and at most `toolactivated` recorded for it: no
/// other ghost fact, no promise settled, no thread started, no script or other body resumed.
fn only_tool_started(w: &World, s: &State, next: &State, call: CallId, target: DocId) -> bool {
    let docs_same = only_doc_changed(s, next, target, |moved, _| {
        moved.local.insert(call);
    });
    let body_started = next.bodies.len() == s.bodies.len() + 1
        && next.bodies.get(&call).is_some_and(|b| {
            !b.settled
                && !b.signal_aborted
                && b.awaiting_call.is_none()
                && b.target == target
                && w.register_op(b.registered_by).body.is_none()
        })
        && s.bodies.iter().all(|(k, b)| next.bodies.get(k) == Some(b));
    let mut ghost = s.ghost.clone();
    ghost.insert(crate::state::Ghost::ToolActivated(call));
    let ghost_same = next.ghost == s.ghost || next.ghost == ghost;
    docs_same
        && body_started
        && ghost_same
        && s.same_outside(
            next,
            parts::QUEUES | parts::DOCS | parts::BODIES | parts::GHOST,
        )
}
