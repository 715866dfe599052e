//! A task alone: running the oldest runnable task of an event loop first, where that task
//! fires `toolchange` for a registration (`notify-tool-change#3.3`) or resolves a
//! registration (`register-tool#20.2`) and nothing else can still tell when it ran
//! (`docs/model.md` §7, *A task alone*).
//!
//! Where several notifications append to one queue, no thread step is persistent alone: their
//! appends are ordered, and the order shows. But the task at the head of that queue reads
//! nothing they write: a `toolchange` task as long as no notification of its own cause can
//! still queue at an ancestor of its document (the ordering check of `fire_toolchange`), a
//! registration's resolution once its notification is done. Running it first removes the
//! interleavings of each such task with every later append.

use super::{bit, future_of, Future};
use crate::machine::{is_ancestor, Action, WebMcpModel};
use crate::state::{parts, Lifecycle, ScriptStatus, State, Status, Task, TaskKind};
use crate::threads::{NotifyPc, Thread};
use crate::world::{AgentId, CallId, DocId, Op, World};

impl WebMcpModel {
    /// `RunTask` of an event loop whose oldest runnable task fires `toolchange` for a
    /// registration or resolves one, when that task may run alone (the module docs), with the
    /// state it leads to; `None` when no loop has one.
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
            _ => return None,
        };
        if (self.visibility.queued_task)(&task.kind) || registered_in_a_body(w, call) {
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
            _ => resolution_unseen(w, s, &future, call),
        };
        if !quiet {
            return None;
        }
        let next = self.apply(s, Action::RunTask(agent), &mut ());
        only_task_run(s, &next, agent, i, task).then_some(next)
    }
}

/// Whether registration `call` is made by a tool body, which may run it again with each
/// execution of its tool (or names no `registerTool` statement at all).
fn registered_in_a_body(w: &World, call: CallId) -> bool {
    let c = &w.calls[call.index()];
    c.body_statement.is_some()
        || !matches!(
            w.docs[c.script.index()].script[c.statement],
            Op::Register(_)
        )
}

/// Whether nothing but this task can still settle registration `call`'s promise or read it:
/// the promise is pending, and its signal (whose abort steps reject it) can no longer be
/// aborted; the script that made the call is done (only it may `await` the promise); and no
/// tool body awaits it. Its notification is done and none of its `toolchange` tasks is still
/// queued (what `check_toolchange_before_resolution` reads), as the successor shows: no
/// ghost fact is recorded, and only the notification queues them.
fn resolution_unseen(w: &World, s: &State, future: &Future, call: CallId) -> bool {
    let c = &w.calls[call.index()];
    let abortable = w
        .register_op(call)
        .signal
        .is_some_and(|k| !s.controllers[k.index()].aborted && future.aborts & bit(k.index()) != 0);
    let script = &s.docs[c.script.index()];
    let done = script.lifecycle == Lifecycle::Destroyed
        || matches!(
            script.script.status,
            ScriptStatus::Finished | ScriptStatus::Threw
        );
    s.promises[call.index()].status == Status::Pending
        && !abortable
        && done
        && !s
            .bodies
            .iter()
            .any(|(_, b)| !b.settled && b.awaiting_call == Some(call))
}

/// Whether the microtask checkpoint after a task on `agent` finds nothing to run, in every
/// future where that loop runs no task of its queue: every script of the loop's documents is
/// done, or its document destroyed, or it has not started and never suspends (so no
/// checkpoint ever resumes it); and no tool body on the loop can still resume, since bodies
/// start only in the tool execute steps, a task of the loop's queue.
fn checkpoint_stays_empty(w: &World, s: &State, f: &super::Footprints, agent: AgentId) -> bool {
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
        && !s
            .bodies
            .iter()
            .any(|(_, b)| !b.settled && w.agent_of(b.target) == agent)
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

/// Whether `next` is `s` with task `i` of `agent`'s queue removed and, for a `toolchange`
/// task, its document's counter moved, for a resolution, its promise settled, and nothing
/// else: no ghost fact recorded, no script or body resumed.
fn only_task_run(s: &State, next: &State, agent: AgentId, i: usize, task: &Task) -> bool {
    let queues_same =
        s.queues
            .iter()
            .zip(next.queues.iter())
            .enumerate()
            .all(|(a, (before, after))| {
                if a != agent.index() {
                    return before == after;
                }
                let rest = before
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, t)| t);
                rest.eq(after.iter())
            });
    let docs_same = s
        .docs
        .iter()
        .zip(next.docs.iter())
        .enumerate()
        .all(|(d, (before, after))| {
            if d != task.doc.index() {
                return before == after;
            }
            let mut moved = before.clone();
            if matches!(task.kind, TaskKind::FireToolchange { .. }) {
                moved.toolchanges = after.toolchanges;
            }
            moved == *after
        });
    let settled = match task.kind {
        TaskKind::ResolveRegister { call } => Some(call.index()),
        _ => None,
    };
    let promises_same = s
        .promises
        .iter()
        .zip(next.promises.iter())
        .enumerate()
        .all(|(p, (before, after))| Some(p) == settled || before == after);
    queues_same
        && docs_same
        && promises_same
        && s.same_outside(next, parts::QUEUES | parts::DOCS | parts::PROMISES)
}
