//! The *imperative execute steps* (`imperative-execute-steps`), and the reactions to the
//! promise the page's `execute` callback returns.

use crate::cx::{Cx, Recorder};
use crate::mutation::Site;
use crate::names::json_text_is_object;
use crate::s;
use crate::state::{Body, Ghost, Settlement, Status};
use crate::world::{BodyOp, CallId, DocId, Outcome, World};

impl<R: Recorder> Cx<'_, R> {
    /// `registered_by` identifies the `tool` whose `execute` callback runs.
    pub fn imperative_execute_steps(&mut self, registered_by: CallId, target: DocId, uuid: CallId) {
        self.assert_on_event_loop_of(s!("imperative-execute-steps#1"), target);
        self.step(s!("imperative-execute-steps#2"));
        let input = self
            .w
            .execute_op(uuid)
            .input_json(self.variant)
            .expect("execute-tool#10 serialized it");
        let Some(input_is_object) = json_text_is_object(self.w.str(input)) else {
            // Unreachable: inputArguments is JSON text made at execute-tool#10.
            return self.run_completion_steps(uuid, target, None);
        };
        self.step(s!("imperative-execute-steps#3"));
        // The current text: "If inputObject is not an Object". The 2026-08 text:
        // 'If "inputObject is not an Object" is false', i.e. if it IS an Object.
        let is_not_an_object = !input_is_object;
        let fails = if self.fix(&crate::variant::OBJECT_CHECK)
            || self.variant.revision().tests_object_input_directly()
        {
            is_not_an_object
        } else {
            !is_not_an_object
        };
        if fails && input_is_object {
            self.s.record(Ghost::ObjectInputRefused(uuid));
        }
        if self.cond(s!("imperative-execute-steps#3"), fails) {
            return self.run_completion_steps(uuid, target, None);
        }
        if self.tool_events_fire() {
            // The current text fires toolactivated here; the 2026-08 text only asks for it
            // (its ISSUE at #3), so there it fires only in scenarios that opt in (toolEvents).
            self.step(s!("imperative-execute-steps#4"));
            self.s.record(Ghost::ToolActivated(uuid));
        }
        self.step(s!("imperative-execute-steps#5"));
        self.step(s!("imperative-execute-steps#6"));
        self.step(s!("imperative-execute-steps#7"));
        self.local_insert(target, uuid);
        self.step(s!("imperative-execute-steps#8"));
        self.step(s!("imperative-execute-steps#9"));
        if matches!(self.s.promises[uuid.index()].status, Status::Rejected(_)) {
            self.s.record(Ghost::InvokedAfterCallerRejected(uuid));
        }
        let body = Body {
            target,
            registered_by,
            settled: false,
            signal_aborted: false,
            saw_abort_while_running: false,
            result: None,
            pc: 0,
            awaiting_abort: false,
            awaiting_call: None,
        };
        self.effect(Site::Effect, move |cx| {
            cx.s.bodies.insert(uuid, body);
        });
        // #8 invokes the callback: a scripted one runs now, until its first await (it is an
        // async function); #9 reacts to the promise it returned.
        let settled = self.run_body(uuid);
        self.step(s!("imperative-execute-steps#10"));
        if let Some(settlement) = settled {
            // The reaction runs in the microtask checkpoint of this task.
            self.tool_promise_settled(uuid, settlement);
        }
    }

    /// Runs a scripted tool body from its next statement until it awaits or settles; the
    /// settlement of its promise, if it settled. A body without a script (settled by the
    /// environment) does nothing here.
    pub fn run_body(&mut self, uuid: CallId) -> Option<Settlement> {
        let registered_by = self.s.bodies.get(&uuid)?.registered_by;
        let script = self.w.register_op(registered_by).body.as_deref()?;
        loop {
            let body = self.s.bodies.get(&uuid)?;
            let pc = body.pc as usize;
            let Some(op) = script.get(pc) else {
                // The end of an async function: it fulfils with undefined, which
                // JSON.stringify does not serialize (imperative-execute-steps#10.fulfilled.4).
                return Some(Settlement::Fulfilled(Err(crate::names::Thrown::TypeError)));
            };
            if let Some(b) = self.s.bodies.get_mut(&uuid) {
                b.pc =
                    b.pc.checked_add(1)
                        .expect("a body has at most MAX_STATEMENTS statements");
            }
            match op {
                BodyOp::Execute(e) => {
                    // Made by the first invocation that gets here; later ones skip it.
                    if self.s.promises[e.call.index()].status != Status::NotCalled {
                        continue;
                    }
                    if let Some(tool) = self.tool_argument(&e.tool) {
                        let mc = self.model_context_getter(self.w.calls[e.call.index()].doc);
                        self.execute_tool(mc, e, tool);
                    }
                    if self.mutant.is_some() {
                        self.flush_deferred();
                    }
                    if !self.s.promises[e.call.index()].is_settled() {
                        if let Some(b) = self.s.bodies.get_mut(&uuid) {
                            b.awaiting_call = Some(e.call);
                        }
                        return None;
                    }
                }
                &BodyOp::Abort(ctrl) => self.signal_abort(ctrl),
                BodyOp::AwaitAbort => {
                    if !self.s.bodies.get(&uuid)?.signal_aborted {
                        if let Some(b) = self.s.bodies.get_mut(&uuid) {
                            b.awaiting_abort = true;
                        }
                        return None;
                    }
                }
                &BodyOp::Return(value) => return Some(Settlement::Fulfilled(value)),
                BodyOp::Throw => return Some(Settlement::Rejected),
            }
        }
    }

    /// A body awaiting a call that has settled, on `agent`'s event loop, if any.
    pub fn body_ready_on(&self, agent: crate::world::AgentId) -> Option<CallId> {
        self.s.bodies.iter().find_map(|(uuid, b)| {
            let ready = b
                .awaiting_call
                .is_some_and(|c| self.s.promises[c.index()].is_settled())
                && !b.settled
                && self.w.agent_of(b.target) == agent
                && self.s.is_fully_active(b.target);
            ready.then_some(*uuid)
        })
    }

    /// Resumes a body whose awaited call settled (in a microtask checkpoint).
    pub fn resume_body_on_call(&mut self, uuid: CallId) {
        if let Some(b) = self.s.bodies.get_mut(&uuid) {
            b.awaiting_call = None;
        }
        if let Some(settlement) = self.run_body(uuid) {
            self.tool_promise_settled(uuid, settlement);
        }
    }

    /// The body's signal was just aborted: a body awaiting that resumes (in the microtask
    /// checkpoint of the aborting task), and its promise may settle.
    pub fn resume_body_on_abort(&mut self, uuid: CallId) {
        let waiting = self
            .s
            .bodies
            .get(&uuid)
            .is_some_and(|b| b.awaiting_abort && b.signal_aborted && !b.settled);
        if !waiting {
            return;
        }
        if let Some(b) = self.s.bodies.get_mut(&uuid) {
            b.awaiting_abort = false;
        }
        if let Some(settlement) = self.run_body(uuid) {
            self.tool_promise_settled(uuid, settlement);
        }
    }

    /// The tool body settles `toolPromise`; the reaction of `imperative-execute-steps#10`
    /// runs in the microtask checkpoint of the same task.
    pub fn tool_promise_settled(&mut self, uuid: CallId, settlement: Settlement) {
        let body = self
            .s
            .bodies
            .get_mut(&uuid)
            .expect("only running bodies settle");
        body.settled = true;
        body.result = match settlement {
            Settlement::Fulfilled(Ok(text)) => Some(text),
            _ => None,
        };
        let target = body.target;
        match settlement {
            Settlement::Fulfilled(serialized) => {
                self.step(s!("imperative-execute-steps#10.fulfilled.1"));
                self.step(s!("imperative-execute-steps#10.fulfilled.2"));
                let missing = !self
                    .s
                    .doc_field(target, crate::state::DocField::Local)
                    .local
                    .contains(&uuid);
                if self.cond(s!("imperative-execute-steps#10.fulfilled.2"), missing) {
                    return;
                }
                self.step(s!("imperative-execute-steps#10.fulfilled.3"));
                self.local_remove(target, uuid);
                self.step(s!("imperative-execute-steps#10.fulfilled.4"));
                let Ok(result) = serialized else {
                    return self.run_completion_steps(uuid, target, None);
                };
                self.step(s!("imperative-execute-steps#10.fulfilled.5"));
                self.run_completion_steps(uuid, target, Some(result));
            }
            Settlement::Rejected => {
                self.step(s!("imperative-execute-steps#10.rejected.1"));
                self.step(s!("imperative-execute-steps#10.rejected.2"));
                self.step(s!("imperative-execute-steps#10.rejected.3"));
                let missing = !self
                    .s
                    .doc_field(target, crate::state::DocField::Local)
                    .local
                    .contains(&uuid);
                if self.cond(s!("imperative-execute-steps#10.rejected.3"), missing) {
                    return;
                }
                self.step(s!("imperative-execute-steps#10.rejected.4"));
                self.local_remove(target, uuid);
                self.step(s!("imperative-execute-steps#10.rejected.5"));
                self.run_completion_steps(uuid, target, None);
            }
        }
    }
}

impl Outcome {
    /// What the environment's settlement of an unscripted body means for its promise.
    pub fn settlement(self, w: &World) -> Settlement {
        match self {
            Outcome::Fulfil => Settlement::Fulfilled(Ok(w.tool_result)),
            Outcome::FulfilUnserializable => {
                Settlement::Fulfilled(Err(crate::names::Thrown::TypeError))
            }
            Outcome::Reject => Settlement::Rejected,
        }
    }
}
