//! DOM "signal abort" on the named AbortControllers of page scripts, running the abort
//! steps the draft adds (`register-tool#17.3`, `execute-tool#15.4`) in the order added.

use crate::cx::{Cx, Recorder};
use crate::s;
use crate::state::{AbortStep, Reason};
use crate::world::CtrlId;

impl<R: Recorder> Cx<'_, R> {
    pub fn signal_abort(&mut self, ctrl: CtrlId) {
        let c = &mut self.s.controllers[ctrl.index()];
        if c.aborted {
            return;
        }
        c.aborted = true;
        let steps = c.abort_steps.clone();
        for step in steps {
            match step {
                AbortStep::Register { call } => {
                    self.step(s!("register-tool#17.3"));
                    let doc = self.w.calls[call.index()].doc;
                    let name = self.w.register_op(call).name;
                    self.step(s!("register-tool#17.3.1"));
                    self.unregister_tool(doc, name, call);
                    self.step(s!("register-tool#17.3.2"));
                    self.settle(call, Err(Reason::Aborted(ctrl)), s!("register-tool#17.3.2"));
                }
                AbortStep::Execute { call, traversable } => {
                    self.step(s!("execute-tool#15.4"));
                    self.execute_abort_steps(call, ctrl, traversable);
                }
            }
        }
    }
}
