//! *cancel a pending tool execution* (`cancel-pending-execution`), in parallel.

use crate::cx::{Cx, Recorder};
use crate::mutation::Site;
use crate::s;
use crate::state::{Ghost, TaskKind};
use crate::threads::{CancelPc, CancelProc};
use crate::world::{CallId, DocId};

impl<R: Recorder> Cx<'_, R> {
    /// One step; `None` when the algorithm has returned.
    pub fn cancel_step(&mut self, proc: CancelProc) -> Option<CancelProc> {
        let CancelProc {
            traversable,
            uuid,
            pc,
        } = proc;
        let next = |pc| Some(CancelProc { pc, ..proc });
        match pc {
            CancelPc::Check => {
                self.assert_in_parallel(s!("cancel-pending-execution#1"));
                self.step(s!("cancel-pending-execution#2"));
                let missing = self.pending_get(traversable, uuid).is_none();
                if self.cond(s!("cancel-pending-execution#2"), missing) {
                    return None;
                }
                next(CancelPc::Read)
            }
            CancelPc::Read => {
                self.step(s!("cancel-pending-execution#3"));
                let Some(execution) = self.pending_get(traversable, uuid) else {
                    self.missing(s!("cancel-pending-execution#3"));
                    return None;
                };
                next(CancelPc::Remove {
                    target: execution.target,
                })
            }
            CancelPc::Remove { target } => {
                self.step(s!("cancel-pending-execution#4"));
                self.pending_remove(traversable, uuid);
                next(CancelPc::Queue { target })
            }
            CancelPc::Queue { target } => {
                self.step(s!("cancel-pending-execution#5"));
                // The note at #5 claims the target has not been unloaded or destroyed.
                if !self.s.is_fully_active(target) && !self.fix(&crate::variant::AMEND_CANCEL_NOTE)
                {
                    self.s.record(Ghost::CancelTargetGone(uuid));
                }
                self.step(s!("cancel-pending-execution#6"));
                self.queue_global_task(target, TaskKind::CancelLocal { call: uuid, target });
                None
            }
        }
    }

    /// The task queued at `cancel-pending-execution#6`, on the target's event loop.
    pub fn cancel_local_execution(&mut self, uuid: CallId, target: DocId) {
        self.step(s!("cancel-pending-execution#6.1"));
        self.step(s!("cancel-pending-execution#6.2"));
        let missing = !self
            .s
            .doc_field(target, crate::state::DocField::Local)
            .local
            .contains(&uuid);
        if self.cond(s!("cancel-pending-execution#6.2"), missing) {
            return;
        }
        self.step(s!("cancel-pending-execution#6.3"));
        if !self
            .s
            .doc_field(target, crate::state::DocField::Local)
            .local
            .contains(&uuid)
        {
            return self.missing(s!("cancel-pending-execution#6.3"));
        }
        self.step(s!("cancel-pending-execution#6.4"));
        self.local_remove(target, uuid);
        self.step(s!("cancel-pending-execution#6.5"));
        self.effect(Site::Effect, move |cx| {
            if let Some(body) = cx.s.bodies.get_mut(&uuid) {
                body.signal_aborted = true;
                if !body.settled {
                    body.saw_abort_while_running = true;
                }
            }
        });
        if self.tool_events_fire() {
            self.step(s!("cancel-pending-execution#6.6"));
            self.fire_toolcancel(uuid);
        }
        self.resume_body_on_abort(uuid);
    }

    /// `cancel-pending-execution#6.6`: toolcancel at the target's ModelContext, after
    /// signalling abort (in the 2026-08 text only its ISSUE, so there only under toolEvents);
    /// ghosts record what the properties judge of its timing.
    fn fire_toolcancel(&mut self, uuid: CallId) {
        self.s.record(Ghost::ToolCancelled(uuid));
        let caller = self.w.calls[uuid.index()].doc;
        let aborted = self
            .w
            .execute_op(uuid)
            .signal
            .is_some_and(|c| self.s.controllers[c.index()].aborted);
        if !aborted
            && self
                .s
                .doc_field(caller, crate::state::DocField::Cleanups)
                .cleanups
                == 0
        {
            self.s.record(Ghost::ToolcancelForLiveCaller(uuid));
        }
        if self.s.bodies.get(&uuid).is_some_and(|b| b.settled) {
            self.s.record(Ghost::ToolcancelAfterSettlement(uuid));
        }
    }
}
