//! The *imperative execute steps* (`imperative-execute-steps`), and the reactions to the
//! promise the page's `execute` callback returns.

use crate::cx::{Cx, Recorder};
use crate::mutation::Site;
use crate::names::json_text_is_object;
use crate::s;
use crate::state::{Body, Ghost, Status};
use crate::world::{CallId, DocId, Outcome};

impl<R: Recorder> Cx<'_, R> {
    /// `registered_by` identifies the `tool` whose `execute` callback runs.
    pub fn imperative_execute_steps(&mut self, registered_by: CallId, target: DocId, uuid: CallId) {
        self.assert_on_event_loop_of(s!("imperative-execute-steps#1"), target);
        self.step(s!("imperative-execute-steps#2"));
        let input = self
            .w
            .execute_op(uuid)
            .input_json(self.variant)
            .expect("execute-tool#9 serialized it");
        let Some(input_is_object) = json_text_is_object(self.w.str(input)) else {
            // Unreachable: inputArguments is JSON text made at execute-tool#9.
            return self.run_completion_steps(uuid, target, None);
        };
        self.step(s!("imperative-execute-steps#3"));
        // As written: 'If "inputObject is not an Object" is false', i.e. if it IS an Object.
        let is_not_an_object = !input_is_object;
        let fails = if self.fix(&crate::variant::OBJECT_CHECK) {
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
        self.step(s!("imperative-execute-steps#4"));
        self.step(s!("imperative-execute-steps#5"));
        self.step(s!("imperative-execute-steps#6"));
        self.local_insert(target, uuid);
        self.step(s!("imperative-execute-steps#7"));
        self.step(s!("imperative-execute-steps#8"));
        if matches!(self.s.promises[uuid.index()].status, Status::Rejected(_)) {
            self.s.record(Ghost::InvokedAfterCallerRejected(uuid));
        }
        let body = Body {
            target,
            registered_by,
            settled: false,
            signal_aborted: false,
            saw_abort_while_running: false,
            fulfilled_with_result: false,
        };
        self.effect(Site::Effect, move |cx| {
            cx.s.bodies.insert(uuid, body);
        });
        self.step(s!("imperative-execute-steps#9"));
    }

    /// The tool body settles `toolPromise`; the reaction of `imperative-execute-steps#9`
    /// runs in the microtask checkpoint of the same task.
    pub fn tool_promise_settled(&mut self, uuid: CallId, outcome: Outcome) {
        let body = self
            .s
            .bodies
            .get_mut(&uuid)
            .expect("only running bodies settle");
        body.settled = true;
        body.fulfilled_with_result = outcome == Outcome::Fulfil;
        let target = body.target;
        match outcome {
            Outcome::Fulfil | Outcome::FulfilUnserializable => {
                self.step(s!("imperative-execute-steps#9.fulfilled.1"));
                self.step(s!("imperative-execute-steps#9.fulfilled.2"));
                let missing = !self.s.doc(target).local.contains(&uuid);
                if self.cond(s!("imperative-execute-steps#9.fulfilled.2"), missing) {
                    return;
                }
                self.step(s!("imperative-execute-steps#9.fulfilled.3"));
                self.local_remove(target, uuid);
                self.step(s!("imperative-execute-steps#9.fulfilled.4"));
                if outcome == Outcome::FulfilUnserializable {
                    return self.run_completion_steps(uuid, target, None);
                }
                self.step(s!("imperative-execute-steps#9.fulfilled.5"));
                let result = self.w.tool_result;
                self.run_completion_steps(uuid, target, Some(result));
            }
            Outcome::Reject => {
                self.step(s!("imperative-execute-steps#9.rejected.1"));
                self.step(s!("imperative-execute-steps#9.rejected.2"));
                self.step(s!("imperative-execute-steps#9.rejected.3"));
                let missing = !self.s.doc(target).local.contains(&uuid);
                if self.cond(s!("imperative-execute-steps#9.rejected.3"), missing) {
                    return;
                }
                self.step(s!("imperative-execute-steps#9.rejected.4"));
                self.local_remove(target, uuid);
                self.step(s!("imperative-execute-steps#9.rejected.5"));
                self.run_completion_steps(uuid, target, None);
            }
        }
    }
}
