//! The legacy model's actions and transition function.
//!
//! Granularity (as in the draft model): each page call runs whole in one task, so it is one
//! action; each agent request is served by one task on the page's event loop; each tool-body
//! step and each user answer is one task. The races are between these tasks: the agent lists
//! while a caller replaces the set, an execution runs while a caller clears, a body calls
//! `requestUserInteraction` after its promise settled. Each transition records the legacy
//! step ID and the choice (`C1`..`C10`, `docs/legacy.md`) it applies.

use std::sync::Arc;

use super::scenario::{AgentOp, BodyStep, DefId, LegacyWorld, PageOp};
use super::state::*;
use super::variant::*;

/// One atomic step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LegacyAction {
    /// The caller's next call runs (one task).
    Page(u8),
    /// Variant `piecewise-provide`: the next tool of a provideContext in progress is added.
    ProvidePiece,
    /// The agent's next request is served (one task on the page's event loop).
    Agent,
    /// Variant `lookup-at-request`: a resolved execution invokes its body.
    Invoke(u8),
    /// The next step of an invoked body (one task).
    Body(u8),
    /// Variant `live-until-reply`: the settled body's reply reaches the agent.
    Deliver(u8),
    /// The user answers the interaction `(execution, call)`: the callback's promise fulfils.
    UserAnswers(u8, u8),
    /// The page is unloaded.
    Unload,
}

pub const PROVIDE: &str = "legacy.provide-context#1";
pub const CLEAR: &str = "legacy.clear-context#1";
pub const REGISTER: &str = "legacy.register-tool#1";
pub const UNREGISTER: &str = "legacy.unregister-tool#1";
pub const RUI: &str = "legacy.request-user-interaction#1";
/// The description of `tool["execute"]`: the callback runs when an agent calls the tool, and
/// the agent receives the result when its promise resolves.
pub const EXECUTE: &str = "legacy.tool-execute";
/// The agent lists the page's tools (the proposal has no list operation; "the tools
/// registered with the browser", §4.3, are what an agent can see).
pub const LIST: &str = "legacy.agent-list";

#[derive(Clone, Debug)]
pub struct LegacyModel {
    pub world: Arc<LegacyWorld>,
    pub variant: LegacyVariant,
}

impl LegacyModel {
    pub fn new(world: LegacyWorld, variant: LegacyVariant) -> LegacyModel {
        LegacyModel {
            world: Arc::new(world),
            variant,
        }
    }

    pub fn initial_state(&self) -> LegacyState {
        let w = &self.world;
        LegacyState {
            tools: Vec::new(),
            cleared: false,
            caller_pc: vec![0; w.callers.len()],
            outcomes: w.callers.iter().map(|c| vec![None; c.ops.len()]).collect(),
            provide_progress: None,
            agent_pc: 0,
            lists: vec![None; w.list_labels.len()],
            execs: vec![
                Exec {
                    status: ExecStatus::NotRequested,
                    body_pc: 0,
                    reply: None,
                    reply_attempts: 0,
                    ruis: Vec::new(),
                    started_in_set: None,
                    reply_due: None,
                };
                w.exec_labels.len()
            ],
            unloaded: false,
            settled_sets: std::iter::once(Vec::new()).collect(),
            ghost: Default::default(),
        }
    }

    pub fn enabled_actions(&self, s: &LegacyState, out: &mut Vec<LegacyAction>) {
        let w = &self.world;
        if !s.unloaded {
            if s.provide_progress.is_some() {
                out.push(LegacyAction::ProvidePiece);
            } else {
                for (c, caller) in w.callers.iter().enumerate() {
                    if (s.caller_pc[c] as usize) < caller.ops.len() {
                        out.push(LegacyAction::Page(c as u8));
                    }
                }
            }
        }
        if (s.agent_pc as usize) < w.agent.len() {
            out.push(LegacyAction::Agent);
        }
        if s.unloaded {
            return;
        }
        for (e, x) in s.execs.iter().enumerate() {
            let e = e as u8;
            if x.reply_due.is_some() {
                out.push(LegacyAction::Deliver(e));
            }
            match x.status {
                ExecStatus::Resolved(_) => out.push(LegacyAction::Invoke(e)),
                ExecStatus::Running(d) | ExecStatus::Settled(d)
                    if (x.body_pc as usize) < self.body(d).len() =>
                {
                    out.push(LegacyAction::Body(e))
                }
                _ => {}
            }
            for (k, r) in x.ruis.iter().enumerate() {
                if r.callback_ran && r.promise == Promise::Pending {
                    out.push(LegacyAction::UserAnswers(e, k as u8));
                }
            }
        }
        if w.unload {
            out.push(LegacyAction::Unload);
        }
    }

    pub(super) fn body(&self, d: DefId) -> &[BodyStep] {
        &self.world.bodies[self.world.defs[d as usize].name as usize]
    }

    /// The successor of `s` under `a`, recording step IDs in `rec`.
    pub fn apply(
        &self,
        s: &LegacyState,
        a: LegacyAction,
        rec: &mut Vec<&'static str>,
    ) -> LegacyState {
        let mut n = s.clone();
        match a {
            LegacyAction::Page(c) => self.page_call(&mut n, c, rec),
            LegacyAction::ProvidePiece => self.provide_piece(&mut n, rec),
            LegacyAction::Agent => self.agent_request(&mut n, rec),
            LegacyAction::Invoke(e) => self.invoke(&mut n, e, rec),
            LegacyAction::Body(e) => self.body_step(&mut n, e, rec),
            LegacyAction::Deliver(e) => {
                rec.push(EXECUTE);
                let r = n.execs[e as usize].reply_due.take().expect("a reply due");
                reply(&mut n, e, r);
            }
            LegacyAction::UserAnswers(e, k) => {
                rec.push(RUI);
                let r = &mut n.execs[e as usize].ruis[k as usize];
                r.promise = Promise::Fulfilled;
                r.attempts = r.attempts.saturating_add(1);
                if !matches!(n.execs[e as usize].status, ExecStatus::Running(_)) {
                    n.ghost.insert(Ghost::UserAnsweredAfterSettle);
                }
            }
            LegacyAction::Unload => self.unload(&mut n, rec),
        }
        n
    }

    fn page_call(&self, n: &mut LegacyState, c: u8, rec: &mut Vec<&'static str>) {
        let pc = n.caller_pc[c as usize];
        n.caller_pc[c as usize] = next(pc);
        let op = &self.world.callers[c as usize].ops[pc as usize];
        let outcome = match op {
            PageOp::Provide(defs) => self.provide(n, c, pc, defs, rec),
            PageOp::Clear => self.clear(n, rec),
            PageOp::Register(d) => self.register(n, *d, rec),
            PageOp::Unregister(name) => self.unregister(n, c, *name, rec),
        };
        n.outcomes[c as usize][pc as usize] = Some(outcome);
        if n.provide_progress.is_none() {
            n.settled_sets.insert(n.sorted_tools());
        }
    }

    fn name_of(&self, d: DefId) -> u8 {
        self.world.defs[d as usize].name
    }

    /// C1, C2: the list must have unique names (§4.3), else TypeError and nothing changes;
    /// otherwise it replaces the whole set, registerTool's tools included.
    fn provide(
        &self,
        n: &mut LegacyState,
        c: u8,
        pc: u8,
        defs: &[DefId],
        rec: &mut Vec<&'static str>,
    ) -> CallOutcome {
        rec.push(PROVIDE);
        let mut names: Vec<u8> = defs.iter().map(|d| self.name_of(*d)).collect();
        names.sort_unstable();
        let duplicate = names.windows(2).any(|p| p[0] == p[1]);
        if duplicate && !self.variant.has(PROVIDE_KEEPS_DUPLICATES) {
            n.ghost.insert(Ghost::DuplicateInProvideThrew);
            return CallOutcome::Threw;
        }
        if !n.tools.is_empty() {
            n.ghost.insert(Ghost::ProvideReplacedNonEmpty);
        }
        if n.tools
            .iter()
            .any(|d| self.world.defs[*d as usize].by_register && !defs.contains(d))
        {
            n.ghost.insert(Ghost::RegisteredClobbered);
        }
        if self.variant.has(PIECEWISE_PROVIDE) {
            n.tools.clear();
            if !defs.is_empty() {
                n.provide_progress = Some((c, pc, 0));
            }
        } else {
            n.tools = defs.to_vec();
        }
        if !defs.is_empty() {
            n.cleared = false;
        }
        CallOutcome::Returned
    }

    fn provide_piece(&self, n: &mut LegacyState, rec: &mut Vec<&'static str>) {
        rec.push(PROVIDE);
        let (c, pc, i) = n.provide_progress.expect("a provideContext in progress");
        let PageOp::Provide(defs) = &self.world.callers[c as usize].ops[pc as usize] else {
            unreachable!("provide_progress names a provideContext call")
        };
        n.tools.push(defs[i as usize]);
        if i as usize + 1 == defs.len() {
            n.provide_progress = None;
            n.settled_sets.insert(n.sorted_tools());
        } else {
            n.provide_progress = Some((c, pc, i + 1));
        }
    }

    /// C3: clearContext empties the set (variant: keeps registerTool's tools).
    fn clear(&self, n: &mut LegacyState, rec: &mut Vec<&'static str>) -> CallOutcome {
        rec.push(CLEAR);
        if n.execs
            .iter()
            .any(|x| matches!(x.status, ExecStatus::Running(_)))
        {
            n.ghost.insert(Ghost::ClearDuringExecution);
        }
        if self.variant.has(CLEAR_KEEPS_REGISTERED) {
            let defs = &self.world.defs;
            n.tools.retain(|d| defs[*d as usize].by_register);
        } else {
            n.tools.clear();
        }
        n.cleared = true;
        CallOutcome::Returned
    }

    /// C4: a name already in the set throws and changes nothing; otherwise it is appended.
    fn register(&self, n: &mut LegacyState, d: DefId, rec: &mut Vec<&'static str>) -> CallOutcome {
        rec.push(REGISTER);
        let name = self.name_of(d);
        if n.tools.iter().any(|t| self.name_of(*t) == name) {
            n.ghost.insert(Ghost::DuplicateRegisterThrew);
            return CallOutcome::Threw;
        }
        n.tools.push(d);
        n.cleared = false;
        CallOutcome::Returned
    }

    /// C5: removes the tool of that name whoever added it; an unknown name does nothing.
    fn unregister(
        &self,
        n: &mut LegacyState,
        c: u8,
        name: u8,
        rec: &mut Vec<&'static str>,
    ) -> CallOutcome {
        rec.push(UNREGISTER);
        match n.tools.iter().position(|t| self.name_of(*t) == name) {
            Some(i) => {
                if self.world.defs[n.tools[i] as usize].caller != c {
                    n.ghost.insert(Ghost::UnregisterOther);
                }
                n.tools.remove(i);
            }
            None => {
                n.ghost.insert(Ghost::UnregisterUnknown);
            }
        }
        CallOutcome::Returned
    }

    fn agent_request(&self, n: &mut LegacyState, rec: &mut Vec<&'static str>) {
        let op = self.world.agent[n.agent_pc as usize];
        n.agent_pc = next(n.agent_pc);
        match op {
            AgentOp::List(l) => {
                rec.push(LIST);
                n.lists[l as usize] = Some(if n.unloaded {
                    ListResult::NoPage
                } else {
                    if n.cleared && !n.tools.is_empty() {
                        n.ghost.insert(Ghost::ListedAfterClear);
                    }
                    ListResult::Tools(n.tools.clone())
                });
            }
            AgentOp::Execute(e, name) => self.execute(n, e, name, rec),
        }
    }

    /// C6: the request is served in one task: look the name up in the page's current set and
    /// invoke the body at once (variant: invoke in a later step).
    fn execute(&self, n: &mut LegacyState, e: u8, name: u8, rec: &mut Vec<&'static str>) {
        rec.push(EXECUTE);
        if n.unloaded {
            n.execs[e as usize].status = ExecStatus::Refused;
            reply(n, e, Reply::PageGone);
            return;
        }
        match n.tools.iter().find(|t| self.name_of(**t) == name) {
            None => {
                n.execs[e as usize].status = ExecStatus::Refused;
                n.ghost.insert(Ghost::NotFound);
                reply(n, e, Reply::NotFound);
            }
            Some(&d) if self.variant.has(LOOKUP_AT_REQUEST) => {
                n.execs[e as usize].status = ExecStatus::Resolved(d);
            }
            Some(&d) => self.start(n, e, d),
        }
    }

    fn invoke(&self, n: &mut LegacyState, e: u8, rec: &mut Vec<&'static str>) {
        rec.push(EXECUTE);
        let d = n.execs[e as usize]
            .status
            .def()
            .expect("a resolved execution");
        self.start(n, e, d);
    }

    /// The body starts: the execution is live from here until its promise settles.
    fn start(&self, n: &mut LegacyState, e: u8, d: DefId) {
        if !n.tools.contains(&d) {
            n.ghost.insert(Ghost::StartedNotCurrent(e));
        }
        if n.cleared && n.tools.is_empty() {
            n.ghost.insert(Ghost::StartedAfterClear(e));
        }
        if n.execs[e as usize].reply.is_some() {
            n.ghost.insert(Ghost::InvokedAfterReply(e));
        }
        n.execs[e as usize].status = ExecStatus::Running(d);
        n.execs[e as usize].started_in_set = Some(n.tools.contains(&d));
        if n.execs
            .iter()
            .filter(|x| matches!(x.status, ExecStatus::Running(_)))
            .count()
            > 1
        {
            n.ghost.insert(Ghost::Concurrent);
        }
    }

    fn body_step(&self, n: &mut LegacyState, e: u8, rec: &mut Vec<&'static str>) {
        let x = &n.execs[e as usize];
        let d = x.status.def().expect("an invoked execution");
        let step = self.body(d)[x.body_pc as usize];
        n.execs[e as usize].body_pc = next(x.body_pc);
        match step {
            BodyStep::Fulfil | BodyStep::Reject => {
                rec.push(EXECUTE);
                n.execs[e as usize].status = ExecStatus::Settled(d);
                let r = if step == BodyStep::Fulfil {
                    Reply::Result
                } else {
                    Reply::ToolError
                };
                if r.is_result() && !n.tools.contains(&d) {
                    n.ghost.insert(Ghost::ResultAfterRemoval);
                }
                if self.variant.has(LIVE_UNTIL_REPLY) {
                    n.execs[e as usize].reply_due = Some(r);
                } else {
                    reply(n, e, r);
                }
            }
            BodyStep::RequestUserInteraction => self.request_user_interaction(n, e, rec),
        }
    }

    /// C8: the client is live while its execution runs; then the callback runs and the promise
    /// waits for it (C9). Outside, the promise rejects and the callback never runs.
    fn request_user_interaction(&self, n: &mut LegacyState, e: u8, rec: &mut Vec<&'static str>) {
        rec.push(RUI);
        let x = &n.execs[e as usize];
        let live = matches!(x.status, ExecStatus::Running(_));
        let runs = live
            || self.variant.has(UNBOUND_CLIENT)
            || (self.variant.has(LIVE_UNTIL_REPLY) && x.reply_due.is_some());
        if runs && !live {
            n.ghost.insert(Ghost::CallbackNotLive(e));
        }
        if live {
            n.ghost.insert(Ghost::CallbackDuringExecution);
        }
        if !runs {
            n.ghost.insert(Ghost::RuiAfterSettleRejected);
        }
        n.execs[e as usize].ruis.push(Rui {
            callback_ran: runs,
            promise: if runs {
                Promise::Pending
            } else {
                Promise::Rejected
            },
            attempts: u8::from(!runs),
        });
    }

    /// C10: the browser answers every execution still waiting with an error; the page's own
    /// promises stay pending forever (its realm is gone).
    fn unload(&self, n: &mut LegacyState, rec: &mut Vec<&'static str>) {
        rec.push(EXECUTE);
        n.unloaded = true;
        n.provide_progress = None;
        for e in 0..n.execs.len() {
            let waiting = matches!(
                n.execs[e].status,
                ExecStatus::Running(_) | ExecStatus::Resolved(_)
            );
            if waiting || n.execs[e].reply_due.take().is_some() {
                n.ghost.insert(Ghost::UnloadDuringExecution);
                reply(n, e as u8, Reply::PageGone);
            }
        }
    }
}

/// The program counter after `pc`. The compiler keeps every program (a caller's calls, the
/// agent's requests, a body's steps) within [`crate::limits`], far below `u8::MAX`: a
/// counter that wrapped would restart the program, so it panics instead.
fn next(pc: u8) -> u8 {
    pc.checked_add(1)
        .expect("programs are bounded by limits::MAX_LEGACY_*")
}

/// The agent receives a reply; a second one would be a second settlement (ghost count).
fn reply(n: &mut LegacyState, e: u8, r: Reply) {
    let x = &mut n.execs[e as usize];
    x.reply_attempts = x.reply_attempts.saturating_add(1);
    if x.reply.is_none() {
        x.reply = Some(r);
    }
}

/// The legacy proposal as the engine explores it.
impl webmcp_checker::Model for LegacyModel {
    type State = LegacyState;
    type Action = LegacyAction;

    fn init_states(&self) -> Vec<LegacyState> {
        vec![self.initial_state()]
    }

    fn actions(&self, s: &LegacyState, actions: &mut Vec<LegacyAction>) {
        self.enabled_actions(s, actions);
    }

    fn next_state(&self, s: &LegacyState, a: LegacyAction) -> Option<LegacyState> {
        Some(self.apply(s, a, &mut Vec::new()))
    }

    /// Sleep sets: the successor, with the footprint declared in `footprint.rs`.
    fn next_state_with_footprint(
        &self,
        s: &LegacyState,
        a: LegacyAction,
    ) -> Option<(Option<LegacyState>, webmcp_checker::footprint::Footprint)> {
        let footprint = self.footprint(s, a);
        Some((Some(self.apply(s, a, &mut Vec::new())), footprint))
    }

    /// One action that is safe alone (`reduction.rs`), else none: every action is explored.
    fn persistent_set(&self, s: &LegacyState, set: &mut Vec<(LegacyAction, LegacyState)>) -> bool {
        match self.safe_alone(s) {
            Some(one) => {
                set.push(one);
                true
            }
            None => false,
        }
    }
}
