//! A `toolchange` task alone: running the oldest runnable task of an event loop first, where
//! that task fires `toolchange` for a registration (`notify-tool-change#3.3`) and nothing
//! else can still tell when it ran (`docs/model.md` §7, *A toolchange task alone*).
//!
//! Where several notifications append to one queue, no thread step is persistent alone: their
//! appends are ordered, and the order shows. But the task at the head of that queue reads
//! nothing they write, as long as no notification of its own cause can still queue at an
//! ancestor of its document (the ordering check of `fire_toolchange`). Running it first
//! removes the interleavings of each firing with every later append.

use super::{bit, future_of, Future};
use crate::machine::{is_ancestor, Action, WebMcpModel};
use crate::state::{Lifecycle, ScriptStatus, State, Task, TaskKind};
use crate::threads::{NotifyPc, Thread};
use crate::world::{AgentId, CallId, DocId, Op, World};

impl WebMcpModel {
    /// `RunTask` of an event loop whose oldest runnable task fires `toolchange` for a
    /// registration, when that task may run alone (the module docs), with the state it
    /// leads to; `None` when no loop has one.
    pub fn toolchange_task(&self, s: &State) -> Option<(Action, State)> {
        // A planted bug may run tasks where the argument assumes none run (a queued task run
        // inline); a catalogue that has not said how it reads the counters may see the firing.
        if self.mutant.is_some() || !self.visibility.toolchange_fired_keeps_outcomes {
            return None;
        }
        let mut future = None;
        AgentId::all(self.world.agents.len()).find_map(|agent| {
            let next = self.try_toolchange_task(s, agent, &mut future)?;
            Some((Action::RunTask(agent), next))
        })
    }

    fn try_toolchange_task(
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
        let TaskKind::FireToolchange {
            cause,
            registered: true,
        } = task.kind
        else {
            return None;
        };
        if (self.visibility.queued_task)(&task.kind) {
            return None;
        }
        // The trees it reads (its document's lifecycle, `allowed to use`; which tasks before
        // it are runnable) and the tree the notifications of its cause walk stay as they are.
        let call = &w.calls[cause.index()];
        let mut trees = f.tab_of_doc[call.doc.index()] | f.tab_of_doc[call.script.index()];
        for t in queue.iter().take(i + 1) {
            trees |= f.tab_of_doc[t.doc.index()];
        }
        let future = *future.get_or_insert_with(|| future_of(w, f, s));
        if trees & future.writes.trees != 0 {
            return None;
        }
        if !checkpoint_stays_empty(w, s, f, agent) || may_queue_at_ancestor(w, s, cause, task) {
            return None;
        }
        let next = self.apply(s, Action::RunTask(agent), &mut ());
        only_task_run(s, &next, agent, i, task).then_some(next)
    }
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
/// `registerTool` statement still to run (or in a tool body, which may run it again).
fn may_queue_at_ancestor(w: &World, s: &State, cause: CallId, task: &Task) -> bool {
    let call = &w.calls[cause.index()];
    let script = &s.docs[call.script.index()].script;
    // A registration a tool body makes runs again with each execution of the tool.
    let in_body = call.body_statement.is_some()
        || !matches!(
            w.docs[call.script.index()].script[call.statement],
            Op::Register(_)
        );
    let statement_to_run = !matches!(script.status, ScriptStatus::Finished | ScriptStatus::Threw)
        && script.pc as usize <= call.statement;
    in_body
        || statement_to_run
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

/// Whether `next` is `s` with task `i` of `agent`'s queue removed and its document's
/// `toolchange` counter moved, and nothing else: no ghost fact recorded, no script or body
/// resumed.
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
            moved.toolchanges = after.toolchanges;
            moved == *after
        });
    queues_same
        && docs_same
        && s.navs == next.navs
        && s.threads == next.threads
        && s.promises == next.promises
        && s.controllers == next.controllers
        && s.pending == next.pending
        && s.bodies == next.bodies
        && s.env == next.env
        && s.ghost == next.ghost
}
