//! The *tool execute steps* (`tool-execute-steps`), in the task queued at
//! `execute-tool#15.13` on the target's event loop.

use crate::cx::{Cx, Recorder};
use crate::s;
use crate::world::{CallId, DocId, StrId};

impl<R: Recorder> Cx<'_, R> {
    pub fn tool_execute_steps(&mut self, tool_name: StrId, target: DocId, uuid: CallId) {
        self.assert_on_event_loop_of(s!("tool-execute-steps#1"), target);
        if self.fix(&crate::variant::CHECK_SIGNAL_BEFORE_INVOKING) {
            if let Some(ctrl) = self.w.execute_op(uuid).signal {
                if self.s.controllers[ctrl.index()].aborted {
                    return;
                }
            }
        }
        if self.fix(&crate::variant::SKIP_CANCELLED_EXECUTION) {
            let traversable = self.w.traversable_of(self.w.docs[target.index()].nav);
            if self.pending_get(traversable, uuid).is_none() {
                return;
            }
        }
        self.step(s!("tool-execute-steps#2"));
        self.step(s!("tool-execute-steps#3"));
        let tool = self.s.doc(target).tools.get(&tool_name).copied();
        if self.cond(s!("tool-execute-steps#3"), tool.is_none()) {
            return self.run_completion_steps(uuid, target, None);
        }
        let Some(tool) = tool else {
            self.missing(s!("tool-execute-steps#3"));
            return;
        };
        self.step(s!("tool-execute-steps#4"));
        self.step(s!("tool-execute-steps#5"));
        // Every tool the model registers is imperative (registerTool); see docs/model.md
        // for the declarative execute steps, which the draft leaves unspecified.
        self.imperative_execute_steps(tool.registered_by, target, uuid);
    }
}
