//! A body's settlement alone: the environment's choices of how one running tool body settles
//! (`Action::SettleTool` with each outcome), explored before anything else where nothing
//! else of its execution can still act and no property can tell when it settled
//! (`docs/model.md` §7, *A body's settlement alone*).
//!
//! Concurrent executions each wait for their tool body, and the environment settles the
//! bodies in any order. Each settlement runs the reaction of `imperative-execute-steps#10`
//! (the body marked settled, its entry removed from the local map) and starts the
//! execution's completion steps in parallel; nothing another execution does reads any of
//! that. Settling the bodies in one order, each with every outcome, removes the other orders.

use super::task_alone::{checkpoint_stays_empty, execution_quiet, only_doc_changed};
use super::{future_of, Future};
use crate::machine::{Action, WebMcpModel};
use crate::state::{parts, State};
use crate::threads::ThreadKey;
use crate::world::CallId;

impl WebMcpModel {
    /// Every `SettleTool` of the first running body whose settlement may go alone (the
    /// module docs), with the states they lead to; `None` when no body's may.
    pub fn body_alone(&self, s: &State) -> Option<Vec<(Action, State)>> {
        // A planted bug may settle or run bodies where the argument assumes it does not.
        if self.mutant.is_some() || !self.visibility.body_settled_keeps_outcomes {
            return None;
        }
        let mut future = None;
        s.bodies
            .keys()
            .find_map(|&uuid| self.try_body_alone(s, uuid, &mut future))
    }

    fn try_body_alone(
        &self,
        s: &State,
        uuid: CallId,
        future: &mut Option<Future>,
    ) -> Option<Vec<(Action, State)>> {
        let (w, f) = (&*self.world, &*self.footprints);
        let body = &s.bodies[&uuid];
        // The environment settles it (a body without a script, which never awaits), it runs
        // (`SettleTool` is enabled) for an execution whose promise is pending, and nothing has
        // aborted its signal.
        let unscripted = w.register_op(body.registered_by).body.is_none();
        if !unscripted
            || s.promises[uuid.index()].status != crate::state::Status::Pending
            || body.settled
            || body.signal_aborted
            || body.awaiting_call.is_some()
            || !s.is_fully_active(body.target)
        {
            return None;
        }
        let future = *future.get_or_insert_with(|| future_of(w, f, s));
        let agent = w.agent_of(body.target);
        // Its completion steps' thread is one no property asks about.
        if !execution_quiet(w, s, &future, uuid, None)
            || !checkpoint_stays_empty(w, s, f, agent)
            || (self.visibility.thread)(w, s, ThreadKey::Completion(uuid))
        {
            return None;
        }
        w.env
            .outcomes
            .iter()
            .map(|&o| {
                let a = Action::SettleTool(uuid, o);
                let next = self.apply(s, a, &mut ());
                only_body_settled(s, &next, uuid).then_some((a, next))
            })
            .collect()
    }
}

/// Whether `next` is `s` with body `uuid` settled, its entry gone from its target's local
/// map, and at most the thread of its completion steps started: no ghost fact, no task
/// queued, no promise settled, no script or other body resumed.
fn only_body_settled(s: &State, next: &State, uuid: CallId) -> bool {
    let target = s.bodies[&uuid].target;
    let bodies_same = next.bodies.get(&uuid).is_some_and(|b| b.settled)
        && s.bodies.len() == next.bodies.len()
        && s.bodies
            .iter()
            .all(|(k, b)| *k == uuid || next.bodies.get(k) == Some(b));
    let docs_same = only_doc_changed(s, next, target, |moved, _| {
        moved.local.remove(&uuid);
    });
    let threads_same = next
        .threads
        .iter()
        .filter(|(k, _)| **k != ThreadKey::Completion(uuid))
        .eq(s.threads.iter())
        && !s.threads.contains_key(&ThreadKey::Completion(uuid));
    bodies_same
        && docs_same
        && threads_same
        && s.same_outside(next, parts::BODIES | parts::DOCS | parts::THREADS)
}
