//! The `executeTool(tool, inputObject, options)` method steps (`execute-tool`).

use crate::cx::{Cx, Recorder};
use crate::mutation::Site;
use crate::s;
use crate::state::{AbortStep, PendingExecution, Reason, RegisteredTool, TaskKind};
use crate::threads::{CancelPc, CancelProc, ExecutePc, Thread, ThreadKey};
use crate::world::{CallId, CtrlId, DocId, ExecuteOp, NavId, StrId};

impl<R: Recorder> Cx<'_, R> {
    /// Runs on the caller's event loop, from its page script, with the `RegisteredTool`
    /// the script passes.
    pub fn execute_tool(&mut self, doc: DocId, op: &ExecuteOp, tool: RegisteredTool) {
        let call = op.call;
        if !op.input_is_object {
            // WebIDL converts inputObject to `object` before the method steps run.
            return self.return_rejected(call, Reason::TypeError, s!("execute-tool#1"));
        }
        self.step(s!("execute-tool#1"));
        let caller = doc;
        self.step(s!("execute-tool#2"));
        let inactive = !self.s.is_fully_active(caller);
        if self.cond(s!("execute-tool#2"), inactive) {
            return self.return_rejected(call, Reason::InvalidStateError, s!("execute-tool#2"));
        }
        if self.refuses_unkeyed_agent_cluster(doc, s!("2026-08:execute-tool#3")) {
            return self.return_rejected(call, Reason::SecurityError, s!("2026-08:execute-tool#3"));
        }
        self.step(s!("execute-tool#3"));
        let not_allowed = !self.s.allowed_to_use_tools(self.w, caller);
        if self.cond(s!("execute-tool#3"), not_allowed) {
            return self.return_rejected(call, Reason::NotAllowedError, s!("execute-tool#3"));
        }
        self.step(s!("execute-tool#4"));
        let parsed = self
            .w
            .origin_string_parse
            .get(&tool.origin)
            .copied()
            .flatten();
        self.step(s!("execute-tool#5"));
        let usable = parsed.filter(|o| !self.w.origins.is_opaque(*o));
        if self.cond(s!("execute-tool#5"), usable.is_none()) {
            return self.return_rejected(call, Reason::NotSupportedError, s!("execute-tool#5"));
        }
        // Only a mutant gets past #6 with a failure: then #7 has no origin to read.
        let Some(expected) = usable.or(parsed) else {
            return self.missing(s!("execute-tool#6"));
        };
        self.step(s!("execute-tool#6"));
        let opaque = self.w.origins.is_opaque(expected);
        self.assert_that(s!("execute-tool#7"), !opaque);
        if self.variant.revision() == crate::variant::Revision::Current {
            // An absent (or undefined) inputObject is `{}` already: the world applies the
            // default when it builds the call (the 2026-08 IDL's `= {}` did the same).
            self.step(s!("execute-tool#8"));
            self.assert_that(s!("execute-tool#9"), op.input_is_object);
        }
        self.step(s!("execute-tool#10"));
        if let Err(thrown) = op.input_json(self.variant) {
            return self.return_rejected(call, thrown.into(), s!("execute-tool#10"));
        }
        self.step(s!("execute-tool#11"));
        self.new_promise(call);
        self.step(s!("execute-tool#12"));
        self.step(s!("execute-tool#13"));
        let target = tool.window;
        self.step(s!("execute-tool#14"));
        let uuid = call;
        self.step(s!("execute-tool#15"));
        let signal = op.signal.filter(|_| self.cond(s!("execute-tool#15"), true));
        if let Some(ctrl) = signal {
            self.step(s!("execute-tool#15.1"));
            self.step(s!("execute-tool#15.2"));
            let aborted = self.s.controllers[ctrl.index()].aborted;
            if self.cond(s!("execute-tool#15.2"), aborted) {
                return self.return_rejected(call, Reason::Aborted(ctrl), s!("execute-tool#15.2"));
            }
            self.step(s!("execute-tool#15.3"));
            let Some(traversable) = self.traversable_of_doc(target, s!("execute-tool#15.3")) else {
                return;
            };
            self.step(s!("execute-tool#15.4"));
            self.effect(Site::AbortSteps, move |cx| {
                cx.s.controllers[ctrl.index()]
                    .abort_steps
                    .push_back(AbortStep::Execute {
                        call: uuid,
                        traversable: Some(traversable),
                    });
            });
        }
        self.step(s!("execute-tool#16"));
        self.spawn(
            ThreadKey::Execute(uuid),
            Thread::Execute {
                caller,
                target,
                expected_origin: expected,
                tool_name: tool.name,
                pc: ExecutePc::CheckTraversableAndOrigin,
            },
        );
        self.step(s!("execute-tool#17"));
    }

    /// The abort steps added at `execute-tool#15.4`.
    pub fn execute_abort_steps(&mut self, call: CallId, ctrl: CtrlId, traversable: Option<NavId>) {
        self.step(s!("execute-tool#15.4.1"));
        self.settle(call, Err(Reason::Aborted(ctrl)), s!("execute-tool#15.4.1"));
        self.step(s!("execute-tool#15.4.2"));
        if let Some(traversable) = traversable {
            self.spawn(
                ThreadKey::CancelOnAbort(call),
                Thread::Cancel(CancelProc {
                    traversable,
                    uuid: call,
                    pc: CancelPc::Check,
                }),
            );
        }
    }

    /// One step of the `execute-tool#16` block.
    pub fn execute_step(
        &mut self,
        uuid: CallId,
        caller: DocId,
        target: DocId,
        expected_origin: u8,
        tool_name: StrId,
        pc: ExecutePc,
    ) -> Option<Thread> {
        let next = |pc| {
            Some(Thread::Execute {
                caller,
                target,
                expected_origin,
                tool_name,
                pc,
            })
        };
        let reject = |cx: &mut Self, at| {
            cx.queue_global_task(caller, TaskKind::RejectExecute { call: uuid, at });
            None
        };
        match pc {
            ExecutePc::CheckTraversableAndOrigin => {
                self.step(s!("execute-tool#16.1"));
                let t = self.traversable_of_doc(target, s!("execute-tool#16.1"))?;
                let c = self.traversable_of_doc(caller, s!("execute-tool#16.1"))?;
                if self.cond(s!("execute-tool#16.1"), t != c) {
                    return reject(self, s!("execute-tool#16.1"));
                }
                self.step(s!("execute-tool#16.2"));
                let target_origin = self.w.docs[target.index()].origin;
                self.step(s!("execute-tool#16.3"));
                self.step(s!("execute-tool#16.4"));
                let other = !self.w.origins.same_origin(target_origin, expected_origin);
                if self.cond(s!("execute-tool#16.4"), other) {
                    return reject(self, s!("execute-tool#16.4"));
                }
                next(ExecutePc::CheckToolExists)
            }
            ExecutePc::CheckToolExists => {
                self.step(s!("execute-tool#16.5"));
                self.step(s!("execute-tool#16.6"));
                self.step(s!("execute-tool#16.7"));
                let missing = !self
                    .s
                    .doc_field(target, crate::state::DocField::Tools)
                    .tools
                    .contains_key(&tool_name)
                    || self.is_another_definition(uuid, target, tool_name);
                if self.cond(s!("execute-tool#16.7"), missing) {
                    return reject(self, s!("execute-tool#16.7"));
                }
                if self.fix(&crate::variant::SINGLE_TOOL_LOOKUP) {
                    // #16.7 and #16.8 are one read of the map.
                    return self.execute_step(
                        uuid,
                        caller,
                        target,
                        expected_origin,
                        tool_name,
                        ExecutePc::ReadToolDefinition,
                    );
                }
                next(ExecutePc::ReadToolDefinition)
            }
            ExecutePc::ReadToolDefinition => {
                self.step(s!("execute-tool#16.8"));
                let Some(definition) = self
                    .s
                    .doc_field(target, crate::state::DocField::Tools)
                    .tools
                    .get(&tool_name)
                    .copied()
                else {
                    self.missing(s!("execute-tool#16.8"));
                    return None;
                };
                self.step(s!("execute-tool#16.9"));
                let target_origin = self.w.docs[target.index()].origin;
                let caller_origin = self.w.docs[caller.index()].origin;
                let hidden = !self.tool_is_exposed_to_origin(
                    target_origin,
                    definition.exposed,
                    caller_origin,
                );
                if self.cond(s!("execute-tool#16.9"), hidden) {
                    return reject(self, s!("execute-tool#16.9"));
                }
                self.step(s!("execute-tool#16.10"));
                self.step(s!("execute-tool#16.11"));
                next(ExecutePc::SetPending)
            }
            ExecutePc::SetPending => {
                self.step(s!("execute-tool#16.12"));
                if self.fix(&crate::variant::STORE_ONLY_LIVE_DOCUMENTS)
                    && !(self.s.is_fully_active(caller) && self.s.is_fully_active(target))
                {
                    return reject(self, s!("execute-tool#16.12"));
                }
                let traversable = self.traversable_of_doc(target, s!("execute-tool#16.12"))?;
                self.pending_set(
                    traversable,
                    uuid,
                    PendingExecution {
                        caller,
                        target,
                        tool_name,
                    },
                );
                next(ExecutePc::QueueToolExecuteSteps)
            }
            ExecutePc::QueueToolExecuteSteps => {
                self.step(s!("execute-tool#16.13"));
                self.queue_global_task(
                    target,
                    TaskKind::RunToolExecuteSteps {
                        call: uuid,
                        target,
                        tool_name,
                    },
                );
                None
            }
        }
    }

    /// The settlement tasks queued at `execute-tool#16.1`–`#16.10.4`, on the caller's loop.
    pub fn reject_execute(&mut self, call: CallId, at: crate::steps::StepId) {
        self.settle(call, Err(Reason::UnknownError), at);
    }

    pub fn resolve_execute(&mut self, call: CallId, result: StrId) {
        if self.tool_events_fire()
            && !self
                .s
                .ghost
                .contains(&crate::state::Ghost::ToolActivated(call))
        {
            self.s
                .record(crate::state::Ghost::ResultBeforeToolactivated(call));
        }
        self.settle(
            call,
            Ok(crate::state::Value::Text(result)),
            s!("execute-tool#16.10.3"),
        );
    }
}
