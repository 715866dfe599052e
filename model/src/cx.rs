//! The transition engine: a mutable view of one successor state, the context a step runs
//! in, and the helpers every algorithm shares (tasks, promises, maps, threads).

use crate::mutation::{within, Mutant, Operator, Site};
use crate::state::{Ghost, PendingExecution, Reason, State, Status, Task, TaskKind, Value};
use crate::steps::StepId;
use crate::threads::{GetToolsPc, Thread, ThreadKey};
use crate::variant::Variant;
use crate::world::{AgentId, CallId, DocId, NavId, World};

/// Receives the step IDs a transition executes. `()` records nothing (model checking);
/// `Vec<StepId>` records everything (traces, coverage).
pub trait Recorder {
    fn step(&mut self, step: StepId);
    /// A mutation site of `step` (see [`crate::mutation`]); ignored unless looking for them.
    #[inline(always)]
    fn site(&mut self, _site: Site, _step: StepId) {}
}

impl Recorder for () {
    #[inline(always)]
    fn step(&mut self, _: StepId) {}
}

impl Recorder for Vec<StepId> {
    fn step(&mut self, step: StepId) {
        self.push(step);
    }
}

/// Where the running step executes: what `Assert: these steps are running ...` checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Where {
    /// In a task (or microtask) on an agent's event loop.
    EventLoop(AgentId),
    /// In an `in parallel` block.
    Parallel,
    /// On the browser agent's AI agent queue.
    AiAgentQueue,
}

/// A write to shared state, held back by a swap mutant.
type Deferred<'a, R> = Box<dyn FnOnce(&mut Cx<'a, R>)>;

/// Where a [`Operator::SwapAdjacent`] mutant is within its pair of steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwapPhase {
    /// Before the first step of the pair.
    Idle,
    /// In the first step: its writes are held back.
    Deferring,
    /// In the second step: its writes happen now, the first's after it.
    Second,
}

pub struct Cx<'a, R: Recorder> {
    pub w: &'a World,
    pub s: &'a mut State,
    pub rec: &'a mut R,
    pub at: Where,
    pub variant: Variant,
    /// A planted bug (mutation testing); `None` when checking the draft.
    pub mutant: Option<Mutant>,
    /// The step recorded last: the step a write belongs to.
    pub current: StepId,
    pub swap: SwapPhase,
    pub deferred: Vec<Deferred<'a, R>>,
}

impl<R: Recorder> Cx<'_, R> {
    /// Whether `toolactivated` and `toolcancel` fire: always in the current text, and in
    /// earlier ones only in scenarios that opt in (`toolEvents`).
    pub fn tool_events_fire(&self) -> bool {
        self.variant.revision().fires_tool_events() || self.w.tool_events
    }

    #[inline]
    pub fn fix(&self, fix: &crate::variant::Fix) -> bool {
        self.variant.has(fix)
    }

    #[inline]
    pub fn step(&mut self, step: StepId) {
        self.rec.step(step);
        self.current = step;
        if self.mutant.is_some() {
            self.swap_on_step(step);
        }
    }

    /// The condition an `If` step tests (`true`: its guarded branch runs), as the mutant
    /// leaves it.
    #[inline]
    pub fn cond(&mut self, step: StepId, fires: bool) -> bool {
        self.rec.site(Site::Condition, step);
        match self.mutant {
            Some(m) if m.step == step => match m.op {
                Operator::NegateCondition => !fires,
                Operator::DropExistenceCheck => false,
                _ => fires,
            },
            _ => fires,
        }
    }

    /// Performs a write of the current step to shared state, unless the mutant drops it or
    /// holds it back.
    #[inline]
    pub fn effect(&mut self, site: Site, write: impl FnOnce(&mut Self) + 'static) {
        self.rec.site(site, self.current);
        let Some(m) = self.mutant else {
            return write(self);
        };
        if m.step == self.current {
            match (m.op, site) {
                (Operator::DropStep, Site::Effect | Site::Queue)
                | (Operator::SkipAbortStepsRegistration, Site::AbortSteps) => return,
                _ => {}
            }
        }
        if self.swap == SwapPhase::Deferring {
            // Held back, it still runs where the step ran.
            let at = self.at;
            return self.deferred.push(Box::new(move |cx| {
                let saved = std::mem::replace(&mut cx.at, at);
                write(cx);
                cx.at = saved;
            }));
        }
        write(self)
    }

    fn swap_on_step(&mut self, s: StepId) {
        let Some(Mutant {
            op: Operator::SwapAdjacent,
            step: a,
            next: Some(b),
        }) = self.mutant
        else {
            return;
        };
        self.swap = match self.swap {
            SwapPhase::Idle if within(s, a) => SwapPhase::Deferring,
            SwapPhase::Deferring if within(s, b) => SwapPhase::Second,
            SwapPhase::Second if !within(s, b) => {
                self.flush_deferred();
                SwapPhase::Idle
            }
            phase => phase,
        };
    }

    /// Performs the writes a swap held back (after the second step, or at the end of the
    /// transition).
    pub fn flush_deferred(&mut self) {
        self.swap = SwapPhase::Idle;
        for write in std::mem::take(&mut self.deferred) {
            write(self);
        }
    }

    /// Records `step` and checks that it runs in parallel.
    pub fn assert_in_parallel(&mut self, step: StepId) {
        self.step(step);
        if self.at != Where::Parallel {
            self.s.record(Ghost::AssertFailed(step));
        }
    }

    /// Records `step` and checks that it runs on `doc`'s relevant agent's event loop.
    pub fn assert_on_event_loop_of(&mut self, step: StepId, doc: DocId) {
        self.step(step);
        if self.at != Where::EventLoop(self.w.agent_of(doc)) {
            self.s.record(Ghost::AssertFailed(step));
        }
    }

    pub fn assert_that(&mut self, step: StepId, holds: bool) {
        self.step(step);
        if !holds {
            self.s.record(Ghost::AssertFailed(step));
        }
    }

    /// A step read a value the text assumes exists and it does not: record, and the caller
    /// stops the algorithm.
    pub fn missing(&mut self, step: StepId) {
        self.s.record(Ghost::MissingValue(step));
    }

    /// `document`'s node navigable's traversable navigable, or `None` (recorded as missing
    /// at `step`) when the node navigable is null.
    pub fn traversable_of_doc(&mut self, doc: DocId, step: StepId) -> Option<NavId> {
        if self.fix(&crate::variant::CAPTURE_TRAVERSABLE) {
            // The traversable captured when the algorithm started, while the document was
            // fully active: documents never change tabs, so it is the document's tab.
            return Some(self.w.traversable_of(self.w.docs[doc.index()].nav));
        }
        match self.s.node_navigable(self.w, doc) {
            Some(nav) => Some(self.w.traversable_of(nav)),
            None => {
                self.missing(step);
                None
            }
        }
    }

    /// Queue a global task on the webmcp task source, given `doc`'s relevant global object.
    /// A destroyed document's tasks are never runnable, so they are not kept.
    pub fn queue_global_task(&mut self, doc: DocId, kind: TaskKind) {
        if self
            .s
            .doc_field(doc, crate::state::DocField::Lifecycle)
            .lifecycle
            == crate::state::Lifecycle::Destroyed
        {
            return;
        }
        let inline = self
            .mutant
            .is_some_and(|m| m.op == Operator::RunQueuedTaskInline && m.step == self.current);
        if inline {
            self.rec.site(Site::Queue, self.current);
            return self.run_task_inline(Task { doc, kind });
        }
        self.effect(Site::Queue, move |cx| {
            let agent = cx.w.agent_of(doc).index();
            if let Some(part) = crate::state::queue_part::of_task(&kind) {
                cx.s.queues.wrote_part(agent, part);
            }
            cx.s.queues
                .part_mut(agent, crate::state::queue_part::TAIL)
                .push_back(Task { doc, kind });
        });
    }

    /// Resolves or rejects a call's promise; settling a settled promise has no effect, but
    /// the attempt is counted (ghost).
    pub fn settle(&mut self, call: CallId, outcome: Result<Value, Reason>, at: StepId) {
        self.step(at);
        self.effect(Site::Effect, move |cx| cx.settle_now(call, outcome, at));
    }

    fn settle_now(&mut self, call: CallId, outcome: Result<Value, Reason>, at: StepId) {
        let doc = self.w.calls[call.index()].doc;
        if self.at != Where::EventLoop(self.w.agent_of(doc)) {
            self.s.record(Ghost::SettledOffItsEventLoop(call));
        }
        if self.fix(&crate::variant::REMOVE_ABORT_STEPS) {
            for c in self.s.controllers.iter_mut() {
                if c.abort_steps.iter().any(
                    |s| matches!(s, crate::state::AbortStep::Execute { call: x, .. } if *x == call),
                ) {
                    c.abort_steps.retain(|s| !matches!(s, crate::state::AbortStep::Execute { call: x, .. } if *x == call));
                }
            }
        }
        let p = &mut self.s.promises[call.index()];
        p.attempts = (p.attempts + 1).min(3);
        match outcome {
            Ok(_) => p.tried_fulfil = true,
            Err(_) => p.tried_reject = true,
        }
        if p.status == Status::Pending {
            p.status = match outcome {
                Ok(v) => Status::Fulfilled(v),
                Err(r) => Status::Rejected(r),
            };
            p.settled_at = Some(at);
        }
    }

    /// "Return a promise rejected with `reason`": the call's promise is created rejected.
    pub fn return_rejected(&mut self, call: CallId, reason: Reason, at: StepId) {
        self.s.promises[call.index()].status = Status::Pending;
        self.settle(call, Err(reason), at);
    }

    /// "Let promise be a new promise".
    pub fn new_promise(&mut self, call: CallId) {
        self.s.promises[call.index()].status = Status::Pending;
    }

    pub fn spawn(&mut self, key: ThreadKey, thread: Thread) {
        self.effect(Site::Effect, move |cx| {
            cx.s.threads.insert(key, thread);
        });
    }

    /// A tool map or the navigable tree changed: running getTools walks can no longer be
    /// compared with a snapshot (ghost bookkeeping for the exactness property).
    pub fn mark_tools_changed(&mut self) {
        let keys: Vec<ThreadKey> = self
            .s
            .threads
            .keys()
            .filter(|k| matches!(k, ThreadKey::GetTools(_)))
            .copied()
            .collect();
        for k in keys {
            if let Some(Thread::GetTools { pc, .. }) = self.s.threads.get_mut(&k) {
                match pc {
                    GetToolsPc::Visit { changed, .. } | GetToolsPc::Finish { changed, .. } => {
                        *changed = true
                    }
                    GetToolsPc::Start => {}
                }
            }
        }
    }

    /// Removes `uuid` from `doc`'s local pending tool executions map.
    pub fn local_remove(&mut self, doc: DocId, uuid: CallId) {
        self.effect(Site::Effect, move |cx| {
            cx.on_event_loop_of(doc);
            cx.s.doc_field_mut(doc, crate::state::DocField::Local)
                .local
                .remove(&uuid);
        });
    }

    /// Adds `uuid` to `doc`'s local pending tool executions map.
    pub fn local_insert(&mut self, doc: DocId, uuid: CallId) {
        self.effect(Site::Effect, move |cx| {
            cx.on_event_loop_of(doc);
            cx.s.doc_field_mut(doc, crate::state::DocField::Local)
                .local
                .insert(uuid);
        });
    }

    /// Ghost: the local map of `doc` belongs to its event loop.
    fn on_event_loop_of(&mut self, doc: DocId) {
        if self.at != Where::EventLoop(self.w.agent_of(doc)) {
            self.s.record(Ghost::LocalMapOffItsEventLoop(doc));
        }
    }

    // The pending tool executions map of a traversable: an ordered map (insertion order).

    pub fn pending_get(&self, trav: NavId, uuid: CallId) -> Option<PendingExecution> {
        let tab = self.w.navs[trav.index()].tab.index();
        self.s
            .pending
            .part(tab, uuid.index() as u8)
            .iter()
            .find(|(k, _)| *k == uuid)
            .map(|(_, v)| *v)
    }

    pub fn pending_set(&mut self, trav: NavId, uuid: CallId, exec: PendingExecution) {
        self.effect(Site::Effect, move |cx| cx.pending_set_now(trav, uuid, exec));
    }

    fn pending_set_now(&mut self, trav: NavId, uuid: CallId, exec: PendingExecution) {
        let tab = self.w.navs[trav.index()].tab.index();
        let part = uuid.index() as u8;
        // Read first: storing what is already there changes nothing, and copies nothing.
        match self
            .s
            .pending
            .part(tab, part)
            .iter()
            .position(|(k, _)| *k == uuid)
        {
            Some(i) if self.s.pending.part(tab, part)[i].1 == exec => {}
            Some(i) => self.s.pending.part_mut(tab, part)[i] = (uuid, exec),
            None => {
                self.s.pending.part_mut(tab, part).push_back((uuid, exec));
                // A new entry goes after every other: it changes the order too.
                self.s
                    .pending
                    .wrote_part(tab, crate::state::pending_part::ORDER);
            }
        }
    }

    pub fn pending_remove(&mut self, trav: NavId, uuid: CallId) {
        self.effect(Site::Effect, move |cx| cx.pending_remove_now(trav, uuid));
    }

    fn pending_remove_now(&mut self, trav: NavId, uuid: CallId) {
        let tab = self.w.navs[trav.index()].tab.index();
        // Read first: removing an execution that is not there changes nothing, and copies
        // nothing.
        let part = self.s.pending.part(tab, uuid.index() as u8);
        if let Some(i) = part.iter().position(|(k, _)| *k == uuid) {
            self.s.pending.part_mut(tab, uuid.index() as u8).remove(i);
        }
    }
}
