//! completionSteps (`execute-tool#15.10.1`–`#15.10.5` ≡ `execute-tool.completion-steps`).
//!
//! The draft asserts they run in parallel, yet most callers run them on the target's event
//! loop. The model runs them where they are called: inside the caller's task (atomically,
//! recording the failed assertion) or step by step inside a parallel thread.

use crate::cx::{Cx, Recorder};
use crate::s;
use crate::state::TaskKind;
use crate::threads::{CompletionPc, CompletionProc, Thread, ThreadKey};
use crate::world::{CallId, DocId, StrId};

impl<R: Recorder> Cx<'_, R> {
    /// Runs the completion steps of `uuid` to the end, in the current context (or, with the
    /// `completion-in-parallel` fix, starts them in parallel).
    pub fn run_completion_steps(&mut self, uuid: CallId, target: DocId, result: Option<StrId>) {
        let mut proc = CompletionProc {
            uuid,
            target,
            result,
            pc: CompletionPc::Check,
        };
        if self.fix(&crate::variant::COMPLETION_IN_PARALLEL)
            && self.at != crate::cx::Where::Parallel
        {
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
                self.assert_in_parallel(s!("execute-tool#15.10.1"));
                self.step(s!("execute-tool#15.10.2"));
                let traversable = self.traversable_of_doc(target, s!("execute-tool#15.10.2"))?;
                let missing = self.pending_get(traversable, uuid).is_none();
                if self.cond(s!("execute-tool#15.10.2"), missing) {
                    return None;
                }
                Some(CompletionProc {
                    pc: CompletionPc::Remove,
                    ..proc
                })
            }
            CompletionPc::Remove => {
                self.step(s!("execute-tool#15.10.3"));
                let traversable = self.traversable_of_doc(target, s!("execute-tool#15.10.3"))?;
                self.pending_remove(traversable, uuid);
                Some(CompletionProc {
                    pc: CompletionPc::Queue,
                    ..proc
                })
            }
            CompletionPc::Queue => {
                let caller = self.w.calls[uuid.index()].doc;
                self.step(s!("execute-tool#15.10.4"));
                let success = self.cond(s!("execute-tool#15.10.4"), result.is_some());
                match result.filter(|_| success) {
                    Some(result) => {
                        self.queue_global_task(
                            caller,
                            TaskKind::ResolveExecute { call: uuid, result },
                        );
                    }
                    None => {
                        self.step(s!("execute-tool#15.10.5"));
                        self.queue_global_task(
                            caller,
                            TaskKind::RejectExecute {
                                call: uuid,
                                at: s!("execute-tool#15.10.5"),
                            },
                        );
                    }
                }
                None
            }
        }
    }
}
