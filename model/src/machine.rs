//! The model: actions (the nondeterminism) and the transition function.

use std::sync::Arc;

use crate::cx::{Cx, Recorder, Where};
use crate::mutation::Mutant;
use crate::state::Task;
use crate::state::{Ghost, ScriptStatus, State, TaskKind, TOOLCHANGES_COUNTED};
use crate::threads::{Thread, ThreadKey};
use crate::variant::Variant;
use crate::world::{AgentId, CallId, CtrlId, DocId, NavId, Outcome, TabId, World};

/// One atomic step of the system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// The task that starts a document's script (run until its first `await`).
    RunScript(DocId),
    /// An event loop runs its oldest runnable webmcp task, then its microtask checkpoint.
    RunTask(AgentId),
    /// A parallel thread runs one step.
    Step(ThreadKey),
    /// The environment: a running tool body settles its promise (a task on its loop).
    SettleTool(CallId, Outcome),
    /// The environment: a task of the owner calls `controller.abort()`.
    Abort(CtrlId),
    /// The environment: an iframe element is removed.
    RemoveIframe(NavId),
    /// The environment: a navigable is navigated to its replacement document.
    Navigate(NavId),
    /// The environment: a tab's page goes into the back/forward cache...
    EnterBfcache(TabId),
    /// ...and comes back,
    RestoreFromBfcache(TabId),
    /// ...or is evicted.
    EvictFromBfcache(TabId),
    /// The browser agent performs an observation of a tab.
    Observe(TabId),
}

impl Action {
    /// Whether the environment intervenes: the actions `environment.maxInterventions` counts
    /// (enabled while `EnvState::interventions_left` is not 0).
    pub fn is_intervention(self) -> bool {
        matches!(
            self,
            Action::Abort(_)
                | Action::RemoveIframe(_)
                | Action::Navigate(_)
                | Action::EnterBfcache(_)
                | Action::RestoreFromBfcache(_)
                | Action::EvictFromBfcache(_)
        )
    }
}

/// The WebMCP draft over one scenario, under one variant.
#[derive(Clone)]
pub struct WebMcpModel {
    pub world: Arc<World>,
    pub variant: Variant,
    /// A planted bug, for mutation testing (`webmcp-check mutants`).
    pub mutant: Option<Mutant>,
    /// What partial-order reduction consults (`crate::reduction`).
    pub footprints: Arc<crate::reduction::Footprints>,
    /// What the properties judged read beyond what every transition may change
    /// (`crate::reduction::Visibility`): until told, everything.
    pub visibility: crate::reduction::Visibility,
}

/// How a draft of a successor ([`WebMcpModel::draft`]) comes to hold its own references.
static DRAFT_LEASE: webmcp_checker::Lease<State> = webmcp_checker::Lease {
    own: State::own,
    inherit: Some(webmcp_checker::Inheritance {
        take: State::inherit,
        release: State::release_inherited,
    }),
};

impl WebMcpModel {
    pub fn new(world: World, variant: Variant) -> WebMcpModel {
        WebMcpModel {
            footprints: Arc::new(crate::reduction::Footprints::of(&world)),
            world: Arc::new(world),
            variant,
            mutant: None,
            visibility: crate::reduction::Visibility::EVERYTHING,
        }
    }

    /// This model, told what the properties it is judged by read
    /// (`crate::reduction::Visibility`).
    pub fn with_visibility(mut self, visibility: crate::reduction::Visibility) -> WebMcpModel {
        self.visibility = visibility;
        self
    }

    /// This model with `mutant` planted.
    pub fn with_mutant(mut self, mutant: Mutant) -> WebMcpModel {
        self.mutant = Some(mutant);
        self
    }

    pub fn initial_state(&self) -> State {
        State::initial(&self.world)
    }

    /// Every action enabled in `s`, in a deterministic order.
    pub fn enabled_actions(&self, s: &State, out: &mut Vec<Action>) {
        let w = &*self.world;
        let scripts = DocId::all(w.docs.len()).map(Action::RunScript);
        let tasks = AgentId::all(w.agents.len()).map(Action::RunTask);
        out.extend(
            scripts
                .chain(tasks)
                .filter(|&a| self.enabled_condition(s, a)),
        );
        for k in s.threads.keys() {
            out.push(Action::Step(*k));
        }
        for (uuid, body) in s.bodies.iter() {
            // A scripted body settles itself; the environment settles the others.
            let scripted = w.register_op(body.registered_by).body.is_some();
            if !scripted && !body.settled && s.is_fully_active(body.target) {
                for o in &w.env.outcomes {
                    out.push(Action::SettleTool(*uuid, *o));
                }
            }
        }
        if s.env.interventions_left == 0 {
            return self.observations(s, out);
        }
        for &c in &w.env.abort {
            let owner = w.controllers[c.index()].owner;
            if !s.controllers[c.index()].aborted && s.is_fully_active(owner) {
                out.push(Action::Abort(c));
            }
        }
        for &n in &w.env.remove_iframe {
            let container = w.navs[n.index()].container.expect("checked by compile");
            if s.env.navs_done & (1 << n.index()) == 0
                && s.navs[n.index()].attached
                && s.is_fully_active(container)
            {
                out.push(Action::RemoveIframe(n));
            }
        }
        for &n in &w.env.navigate {
            let nav = &s.navs[n.index()];
            if s.env.navs_done & (1 << n.index()) == 0
                && nav.attached
                && nav.active.is_some_and(|d| s.is_fully_active(d))
            {
                out.push(Action::Navigate(n));
            }
        }
        for &t in &w.env.bfcache {
            let root = w.tabs[t.index()].root;
            match s.env.bfcache_phase(t) {
                0 if s.navs[root.index()]
                    .active
                    .is_some_and(|d| s.is_fully_active(d)) =>
                {
                    out.push(Action::EnterBfcache(t))
                }
                1 => {
                    out.push(Action::RestoreFromBfcache(t));
                    out.push(Action::EvictFromBfcache(t));
                }
                _ => {}
            }
        }
        self.observations(s, out);
    }

    fn observations(&self, s: &State, out: &mut Vec<Action>) {
        if s.env.observations_left > 0 {
            for t in TabId::all(self.world.tabs.len()) {
                let root = self.world.tabs[t.index()].root;
                if s.navs[root.index()].active.is_some() {
                    out.push(Action::Observe(t));
                }
            }
        }
    }

    /// Whether `a` is enabled in `s` (replay checks this before applying a recorded action).
    pub fn is_enabled(&self, s: &State, a: Action) -> bool {
        let mut v = Vec::new();
        self.enabled_actions(s, &mut v);
        v.contains(&a)
    }

    /// Applies `a` to `s`, recording the step IDs executed. The caller checks enabledness.
    pub fn apply<R: Recorder>(&self, s: &State, a: Action, rec: &mut R) -> State {
        self.apply_inner(s, a, rec, false)
    }

    /// [`WebMcpModel::apply`], adding to the footprint being recorded what the transition
    /// reads and writes of the state's collections (`crate::footprint`).
    pub(crate) fn apply_tracked(&self, s: &State, a: Action) -> State {
        self.apply_inner(s, a, &mut (), true)
    }

    fn apply_inner<R: Recorder>(&self, s: &State, a: Action, rec: &mut R, tracked: bool) -> State {
        let mut next = s.clone();
        self.transition(&mut next, a, rec, tracked);
        next
    }

    /// [`WebMcpModel::apply`] as a draft that reads `s`'s collections without counting
    /// references to them; the search counts them in only for a successor it keeps.
    fn draft<'p>(&self, s: &'p State, a: Action) -> webmcp_checker::Draft<'p, State> {
        // SAFETY: `next` lives in this call and then in the draft, which the borrow of `s`
        // bounds; `s` is not changed meanwhile (a transition copies a borrowed collection
        // before changing it: `Node::is_only`); and the draft counts every borrowed
        // collection in (`State::own`) before it is kept.
        let mut next = unsafe { s.borrow() };
        self.transition(&mut next, a, &mut (), false);
        // SAFETY: as above; dropping `next` releases nothing it borrowed (a borrowed node's
        // drop is a no-op), and cloning it counts every reference of the clone. A kept draft
        // may take over `s`'s references instead (`State::inherit`), and `s` is then released
        // but for those (`State::release_inherited`).
        unsafe { webmcp_checker::Draft::borrowing(next, s, &DRAFT_LEASE) }
    }

    /// Runs action `a` on `next`, a copy of the state it is enabled in.
    fn transition<R: Recorder>(&self, next: &mut State, a: Action, rec: &mut R, tracked: bool) {
        let w = &*self.world;
        if tracked {
            crate::coll::track::watch(&next.areas());
        }
        if a.is_intervention() {
            next.env.interventions_left -= 1;
        }
        let mut cx = Cx {
            w,
            s: next,
            rec,
            at: Where::Parallel,
            variant: self.variant,
            mutant: self.mutant,
            current: crate::steps::StepId(0),
            swap: crate::cx::SwapPhase::Idle,
            deferred: Vec::new(),
        };
        match a {
            Action::RunScript(d) => cx.as_task(w.agent_of(d), |cx| {
                cx.s.doc_field_mut(d, crate::state::DocField::Script)
                    .script
                    .status = ScriptStatus::Ready;
                cx.run_script(d);
            }),
            Action::RunTask(agent) => cx.as_task(agent, |cx| cx.run_task(agent)),
            Action::Step(key) => cx.run_thread_step(key),
            Action::SettleTool(uuid, outcome) => {
                let target = cx.s.bodies[&uuid].target;
                cx.as_task(w.agent_of(target), |cx| {
                    cx.tool_promise_settled(uuid, outcome.settlement(w))
                });
            }
            Action::Abort(c) => {
                let owner = w.controllers[c.index()].owner;
                cx.as_task(w.agent_of(owner), |cx| cx.signal_abort(c));
            }
            Action::RemoveIframe(n) => {
                cx.s.env.navs_done |= 1 << n.index();
                let container = w.navs[n.index()].container.expect("an iframe");
                cx.as_task(w.agent_of(container), |cx| cx.remove_iframe(n));
            }
            Action::Navigate(n) => {
                cx.s.env.navs_done |= 1 << n.index();
                let old = cx.s.navs[n.index()].active.expect("enabled");
                cx.as_task(w.agent_of(old), |cx| cx.navigate(n));
            }
            Action::EnterBfcache(t) => {
                cx.s.env.set_bfcache_phase(t, 1);
                cx.enter_bfcache(t);
            }
            Action::RestoreFromBfcache(t) => {
                cx.s.env.set_bfcache_phase(t, 2);
                cx.restore_from_bfcache(t);
            }
            Action::EvictFromBfcache(t) => {
                cx.s.env.set_bfcache_phase(t, 2);
                cx.evict_from_bfcache(t);
            }
            Action::Observe(t) => {
                cx.s.env.observations_left -= 1;
                cx.at = Where::AiAgentQueue;
                cx.perform_observation(t);
            }
        }
        if !cx.deferred.is_empty() {
            cx.flush_deferred();
        }
        drop(cx);
        if tracked {
            crate::coll::track::pause();
        }
    }
}

impl<R: Recorder> Cx<'_, R> {
    /// Runs the oldest runnable task of `agent`'s webmcp queue.
    fn run_task(&mut self, agent: AgentId) {
        // Enabled, it reads and removes entries up to the first runnable one, before anything
        // queued later (`crate::state::queue_part`).
        use crate::state::queue_part::HEAD;
        let queue = self.s.queues.part(agent.index(), HEAD);
        let Some(i) = queue.iter().position(|t| self.s.is_fully_active(t.doc)) else {
            return;
        };
        let task = self.s.queues.part_mut(agent.index(), HEAD).remove(i);
        if let Some(part) = crate::state::queue_part::of_task(&task.kind) {
            self.s.queues.wrote_part(agent.index(), part);
        }
        self.run_queued(task, agent);
    }

    /// Runs `task` now, on its document's event loop, as if it had been queued and picked
    /// (the run-queued-task-inline mutant).
    pub(crate) fn run_task_inline(&mut self, task: Task) {
        // It runs where the queuing step runs, not on the task's event loop.
        let agent = self.w.agent_of(task.doc);
        self.run_queued(task, agent);
    }

    fn run_queued(&mut self, task: Task, agent: AgentId) {
        match task.kind {
            TaskKind::FireToolchange { cause, registered } => {
                self.fire_toolchange(task.doc, cause, registered)
            }
            TaskKind::ResolveRegister { call } => {
                self.check_toolchange_before_resolution(call, agent);
                self.settle(
                    call,
                    Ok(crate::state::Value::Undefined),
                    crate::s!("register-tool#20.2"),
                );
            }
            TaskKind::ResolveGetTools { call, tools } => self.resolve_get_tools(call, tools),
            TaskKind::RejectExecute { .. } | TaskKind::ResolveExecute { .. }
                if self.fix(&crate::variant::SETTLE_ONCE)
                    && task
                        .kind
                        .execution()
                        .is_some_and(|call| self.s.promises[call.index()].is_settled()) => {}
            TaskKind::RejectExecute { call, at } => self.reject_execute(call, at),
            TaskKind::ResolveExecute { call, result } => self.resolve_execute(call, result),
            TaskKind::RunToolExecuteSteps {
                call,
                target,
                tool_name,
            } => self.tool_execute_steps(tool_name, target, call),
            TaskKind::CancelLocal { call, target } => self.cancel_local_execution(call, target),
        }
    }

    /// `notify-tool-change#3.3`'s task: fire `toolchange` at the document's ModelContext.
    fn fire_toolchange(&mut self, doc: DocId, cause: CallId, registered: bool) {
        self.step(crate::s!("notify-tool-change#3.3"));
        let w = self.w;
        let owner = w.calls[cause.index()].doc;
        let exposed = w
            .register_op(cause)
            .exposed_to
            .iter()
            .flatten()
            .flatten()
            .any(|o| *o == w.docs[doc.index()].origin);
        let own = w.docs[owner.index()].origin == w.docs[doc.index()].origin;
        if !self.s.allowed_to_use_tools(w, doc) || !(own || exposed) {
            self.s.record(Ghost::ToolchangeMisfired(doc));
        }
        // The ordering example: an ancestor on this loop still waiting for the same cause
        // means a child heard of the change first.
        let agent = w.agent_of(doc).index();
        let ancestor_waiting = self
            .s
            .queues
            .part(agent, crate::state::queue_part::toolchanges_of(cause))
            .iter()
            .any(|t| {
            matches!(t.kind, TaskKind::FireToolchange { cause: c, registered: r } if c == cause && r == registered)
                && is_ancestor(w, t.doc, doc)
        });
        if ancestor_waiting {
            self.s.record(Ghost::ToolchangeOrder(cause));
        }
        let d = self
            .s
            .doc_field_mut(doc, crate::state::DocField::Toolchanges);
        d.toolchanges = (d.toolchanges + 1).min(TOOLCHANGES_COUNTED);
    }

    /// The ordering example: the registration promise is fulfilled only after every
    /// `toolchange` it caused on the same event loop has fired.
    fn check_toolchange_before_resolution(&mut self, call: CallId, agent: AgentId) {
        let waiting = self
            .s
            .queues
            .part(agent.index(), crate::state::queue_part::toolchanges_of(call))
            .iter()
            .any(|t| matches!(t.kind, TaskKind::FireToolchange { cause, registered: true } if cause == call));
        let notifying = self.s.threads.contains_key(&ThreadKey::Register(call));
        if waiting || notifying {
            self.s.record(Ghost::ToolchangeOrder(call));
        }
    }

    fn run_thread_step(&mut self, key: ThreadKey) {
        self.at = Where::Parallel;
        let thread = self.s.threads.remove(&key).expect("enabled");
        let next = match thread {
            Thread::Notify {
                owner,
                exposed,
                cause,
                resolve_registration,
                pc,
            } => self.notify_step(owner, exposed, cause, resolve_registration, pc),
            Thread::GetTools {
                requestor,
                from_origins,
                pc,
            } => {
                let ThreadKey::GetTools(call) = key else {
                    unreachable!()
                };
                self.get_tools_step(call, requestor, from_origins, pc)
            }
            Thread::Execute {
                caller,
                target,
                expected_origin,
                tool_name,
                pc,
            } => {
                let ThreadKey::Execute(uuid) = key else {
                    unreachable!()
                };
                self.execute_step(uuid, caller, target, expected_origin, tool_name, pc)
            }
            Thread::Cancel(proc) => self.cancel_step(proc).map(Thread::Cancel),
            Thread::Completion(proc) => self.completion_step(proc).map(Thread::Completion),
            Thread::Cleanup {
                doc,
                traversable,
                pc,
            } => self.cleanup_step(doc, traversable, pc),
        };
        // With the pending-map-queue fix, every block that touches a pending tool executions
        // map runs on the traversable's parallel queue: the whole block is one action.
        let next = match next {
            Some(t @ (Thread::Cancel(_) | Thread::Completion(_) | Thread::Cleanup { .. }))
                if self.fix(&crate::variant::PENDING_MAP_QUEUE) =>
            {
                self.s.threads.insert(key, t);
                return self.run_thread_step(key);
            }
            // A swap mutant holding back the writes of a step lets the thread run on to
            // the next step in the same action, whose writes then come first.
            Some(t) if self.swap == crate::cx::SwapPhase::Deferring => {
                self.s.threads.insert(key, t);
                return self.run_thread_step(key);
            }
            other => other,
        };
        if let Some(t) = next {
            self.s.threads.insert(key, t);
        }
    }
}

/// Whether document `a` is a strict ancestor of document `b` in the declared tree.
pub(crate) fn is_ancestor(w: &World, a: DocId, b: DocId) -> bool {
    let mut cur = w.navs[w.docs[b.index()].nav.index()].container;
    while let Some(d) = cur {
        if d == a {
            return true;
        }
        cur = w.navs[w.docs[d.index()].nav.index()].container;
    }
    false
}

/// The draft as the engine explores it.
impl webmcp_checker::Model for WebMcpModel {
    type State = State;
    type Action = Action;

    fn prefetch(&self, s: &State) {
        s.prefetch()
    }

    fn init_states(&self) -> Vec<State> {
        vec![self.initial_state()]
    }

    fn actions(&self, s: &State, actions: &mut Vec<Action>) {
        self.enabled_actions(s, actions);
    }

    fn next_state(&self, s: &State, a: Action) -> Option<State> {
        Some(self.apply(s, a, &mut ()))
    }

    fn draft<'p>(&self, s: &'p State, a: Action) -> Option<webmcp_checker::Draft<'p, State>> {
        Some(WebMcpModel::draft(self, s, a))
    }

    fn unchanged_parts(&self, s: &State, next: &State) -> u32 {
        s.unchanged_parts(next)
    }

    fn persistent_set(&self, s: &State, set: &mut Vec<(Action, State)>) -> bool {
        self.persistent_steps(s, set)
    }

    fn forget(&self, s: &State) -> Option<State> {
        self.forget_dead_facts(s)
    }

    fn localizer(&self) -> Option<Box<dyn webmcp_checker::Localizer<State>>> {
        Some(Box::<crate::state::Replicas>::default())
    }

    fn next_state_with_footprint(
        &self,
        s: &State,
        a: Action,
    ) -> Option<(Option<State>, webmcp_checker::footprint::Footprint)> {
        let (next, footprint) = self.apply_with_footprint(s, a);
        Some((Some(next), footprint))
    }

    fn codec(&self) -> Option<&dyn webmcp_checker::StateCodec<State>> {
        Some(&crate::codec::Postcard)
    }
}
