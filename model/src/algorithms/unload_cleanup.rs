//! This specification's *unloading document cleanup steps* (`unload-cleanup`).
//!
//! HTML runs them from "unload a document" (also when the document goes into the
//! back/forward cache) and again from "destroy a document", in a task on the document's
//! event loop; step #2 runs in parallel.

use crate::coll::Vector;

use crate::cx::{Cx, Recorder, Where};
use crate::s;
use crate::threads::{
    CancelPc, CancelProc, CleanupPc, CleanupSub, CompletionPc, CompletionProc, Thread, ThreadKey,
};
use crate::world::{DocId, NavId};

impl<R: Recorder> Cx<'_, R> {
    pub fn unloading_document_cleanup_steps(&mut self, doc: DocId) {
        let saved = self.at;
        self.at = Where::EventLoop(self.w.agent_of(doc));
        let n = self
            .s
            .doc_field(doc, crate::state::DocField::Cleanups)
            .cleanups;
        self.s
            .doc_field_mut(doc, crate::state::DocField::Cleanups)
            .cleanups = n.saturating_add(1);
        if self.fix(&crate::variant::ABORT_LOCAL_ON_UNLOAD) {
            let local = std::mem::take(
                &mut self
                    .s
                    .doc_field_mut(doc, crate::state::DocField::Local)
                    .local,
            );
            for &uuid in &local {
                if let Some(body) = self.s.bodies.get_mut(&uuid) {
                    body.signal_aborted = true;
                    if !body.settled {
                        body.saw_abort_while_running = true;
                    }
                }
            }
            for uuid in local {
                self.resume_body_on_abort(uuid);
            }
        }
        self.step(s!("unload-cleanup#1"));
        if let Some(traversable) = self.traversable_of_doc(doc, s!("unload-cleanup#1")) {
            self.step(s!("unload-cleanup#2"));
            self.spawn(
                ThreadKey::Cleanup(doc, n),
                Thread::Cleanup {
                    doc,
                    traversable,
                    pc: CleanupPc::Collect,
                },
            );
        }
        self.at = saved;
    }

    /// One step of the `unload-cleanup#2` block.
    pub fn cleanup_step(
        &mut self,
        doc: DocId,
        traversable: NavId,
        pc: CleanupPc,
    ) -> Option<Thread> {
        let next = |pc| {
            Some(Thread::Cleanup {
                doc,
                traversable,
                pc,
            })
        };
        match pc {
            CleanupPc::Collect => {
                self.step(s!("unload-cleanup#2.1"));
                let mut uuids = Vector::new();
                self.step(s!("unload-cleanup#2.2"));
                let tab = self.w.navs[traversable.index()].tab.index();
                let pending = self.s.pending[tab].clone();
                for (uuid, execution) in pending.iter() {
                    self.rec.step(s!("unload-cleanup#2.2.1"));
                    let involved = doc == execution.target || doc == execution.caller;
                    if self.cond(s!("unload-cleanup#2.2.1"), involved) {
                        uuids.push_back(*uuid);
                    }
                }
                self.step(s!("unload-cleanup#2.3"));
                if uuids.is_empty() {
                    return None;
                }
                next(CleanupPc::Each {
                    uuids,
                    sub: CleanupSub::Read,
                })
            }
            CleanupPc::Each { uuids, sub } => {
                let uuid = *uuids.front().expect("Each holds at least one uuid");
                let sub = match sub {
                    CleanupSub::Read => {
                        self.step(s!("unload-cleanup#2.3.1"));
                        let Some(execution) = self.pending_get(traversable, uuid) else {
                            self.missing(s!("unload-cleanup#2.3.1"));
                            return None;
                        };
                        self.step(s!("unload-cleanup#2.3.2"));
                        let target_only = doc == execution.target && doc != execution.caller;
                        let caller_only = doc == execution.caller && doc != execution.target;
                        if self.cond(s!("unload-cleanup#2.3.2"), target_only) {
                            let proc = CompletionProc {
                                uuid,
                                target: execution.target,
                                result: self.settled_result(uuid),
                                pc: CompletionPc::Check,
                            };
                            // The current text's completionSteps run their steps in
                            // parallel: this block goes on to #2.3.5 without waiting for them
                            // (unless `completion-in-parallel` runs them here, to the end).
                            let start_in_parallel =
                                self.variant.revision().completion_steps_start_in_parallel()
                                    && !self.fix(&crate::variant::COMPLETION_IN_PARALLEL);
                            if start_in_parallel {
                                let key = self.free_cleanup_completion_key(uuid);
                                self.spawn(key, Thread::Completion(proc));
                                CleanupSub::Assert
                            } else {
                                CleanupSub::Complete(proc)
                            }
                        } else {
                            self.step(s!("unload-cleanup#2.3.3"));
                            if self.cond(s!("unload-cleanup#2.3.3"), caller_only) {
                                if self.fix(&crate::variant::REJECT_ON_CALLER_UNLOAD) {
                                    self.queue_global_task(
                                        execution.caller,
                                        crate::state::TaskKind::RejectExecute {
                                            call: uuid,
                                            at: s!("unload-cleanup#2.3.3"),
                                        },
                                    );
                                }
                                CleanupSub::Cancel(CancelProc {
                                    traversable,
                                    uuid,
                                    pc: CancelPc::Check,
                                })
                            } else {
                                CleanupSub::Remove
                            }
                        }
                    }
                    CleanupSub::Complete(proc) => match self.completion_step(proc) {
                        Some(p) => CleanupSub::Complete(p),
                        None => CleanupSub::Assert,
                    },
                    CleanupSub::Cancel(proc) => match self.cancel_step(proc) {
                        Some(p) => CleanupSub::Cancel(p),
                        None => CleanupSub::Assert,
                    },
                    CleanupSub::Remove => {
                        self.step(s!("unload-cleanup#2.3.4"));
                        self.pending_remove(traversable, uuid);
                        // Only reached when `doc` is both the caller and the target.
                        if self.fix(&crate::variant::REJECT_ON_SELF_UNLOAD) {
                            self.queue_global_task(
                                doc,
                                crate::state::TaskKind::RejectExecute {
                                    call: uuid,
                                    at: s!("unload-cleanup#2.3.4"),
                                },
                            );
                        }
                        CleanupSub::Assert
                    }
                    CleanupSub::Assert => {
                        let exists = self.pending_get(traversable, uuid).is_some();
                        self.assert_that(s!("unload-cleanup#2.3.5"), !exists);
                        let mut rest = uuids.clone();
                        rest.pop_front();
                        if rest.is_empty() {
                            return None;
                        }
                        return next(CleanupPc::Each {
                            uuids: rest,
                            sub: CleanupSub::Read,
                        });
                    }
                };
                next(CleanupPc::Each { uuids, sub })
            }
        }
    }
}

impl<R: Recorder> Cx<'_, R> {
    /// The first key for completion steps that `unload-cleanup#2.3.2` starts for `uuid` that
    /// no running thread holds.
    fn free_cleanup_completion_key(&self, uuid: crate::world::CallId) -> ThreadKey {
        (0..=u8::MAX)
            .map(|n| ThreadKey::CleanupCompletion(uuid, n))
            .find(|k| !self.s.threads.contains_key(k))
            .unwrap_or(ThreadKey::CleanupCompletion(uuid, u8::MAX))
    }

    /// Under `keep-settled-result`: the result the tool already settled with, when its
    /// completion steps are under way (`unload-cleanup#2.3.2` then completes with it rather
    /// than with null and false).
    fn settled_result(&self, uuid: crate::world::CallId) -> Option<crate::world::StrId> {
        if !self.fix(&crate::variant::KEEP_SETTLED_RESULT) {
            return None;
        }
        match self.s.threads.get(&ThreadKey::Completion(uuid)) {
            Some(Thread::Completion(proc)) => proc.result,
            _ => None,
        }
    }
}
