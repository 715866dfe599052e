//! completionSteps (`execute-tool#16.10.1`–`#16.10.4` ≡ `execute-tool.completion-steps#1`–`#4`).
//!
//! The current text: completionSteps "run the following steps in parallel" wherever they
//! are called, so each call starts a parallel thread. The 2026-08 text asserted that they run
//! in parallel (`2026-08:execute-tool#15.10.1`), yet most callers run them on the target's
//! event loop; for that text the model runs them where they are called: inside the caller's
//! task (atomically, recording the failed assertion) or step by step inside a parallel thread.

use crate::cx::{Cx, Recorder};
use crate::s;
use crate::state::TaskKind;
use crate::threads::{CompletionPc, CompletionProc, Thread, ThreadKey};
use crate::world::{CallId, DocId, StrId};

impl<R: Recorder> Cx<'_, R> {
    /// Runs the completion steps of `uuid`: in the current text, in parallel; in the 2026-08
    /// text, to the end in the current context. With the `completion-in-parallel` fix (either
    /// text), callers on an event loop start them in parallel and callers already in parallel
    /// run them to the end.
    pub fn run_completion_steps(&mut self, uuid: CallId, target: DocId, result: Option<StrId>) {
        let mut proc = CompletionProc {
            uuid,
            target,
            result,
            pc: CompletionPc::Check,
        };
        let start_in_parallel = if self.fix(&crate::variant::COMPLETION_IN_PARALLEL) {
            self.at != crate::cx::Where::Parallel
        } else {
            self.variant.revision().completion_steps_start_in_parallel()
        };
        if start_in_parallel {
            self.spawn(ThreadKey::Completion(uuid), Thread::Completion(proc));
            return;
        }
        while let Some(next) = self.completion_step(proc) {
            proc = next;
        }
    }

    /// One step of the completion steps; `None` when they have returned.
    pub fn completion_step(&mut self, proc: CompletionProc) -> Option<CompletionProc> {
        let CompletionProc {
            uuid,
            target,
            result,
            pc,
        } = proc;
        match pc {
            CompletionPc::Check => {
                if !self.variant.revision().completion_steps_start_in_parallel() {
                    self.assert_in_parallel(s!("2026-08:execute-tool#15.10.1"));
                }
                self.step(s!("execute-tool#16.10.1"));
                let traversable = self.traversable_of_doc(target, s!("execute-tool#16.10.1"))?;
                let missing = self.pending_get(traversable, uuid).is_none();
                if self.cond(s!("execute-tool#16.10.1"), missing) {
                    return None;
                }
                Some(CompletionProc {
                    pc: CompletionPc::Remove,
                    ..proc
                })
            }
            CompletionPc::Remove => {
                self.step(s!("execute-tool#16.10.2"));
                let traversable = self.traversable_of_doc(target, s!("execute-tool#16.10.2"))?;
                self.pending_remove(traversable, uuid);
                Some(CompletionProc {
                    pc: CompletionPc::Queue,
                    ..proc
                })
            }
            CompletionPc::Queue => {
                let caller = self.w.calls[uuid.index()].doc;
                self.step(s!("execute-tool#16.10.3"));
                let success = self.cond(s!("execute-tool#16.10.3"), result.is_some());
                match result.filter(|_| success) {
                    Some(result) => {
                        self.queue_global_task(
                            caller,
                            TaskKind::ResolveExecute { call: uuid, result },
                        );
                    }
                    None => {
                        self.step(s!("execute-tool#16.10.4"));
                        self.queue_global_task(
                            caller,
                            TaskKind::RejectExecute {
                                call: uuid,
                                at: s!("execute-tool#16.10.4"),
                            },
                        );
                    }
                }
                None
            }
        }
    }
}
