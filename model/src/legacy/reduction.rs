//! Partial-order reduction of the legacy model: one action that may go first, alone.
//!
//! An action `a` enabled at `s` is **safe** when `{a}` is a persistent set that keeps
//! outcomes ([`webmcp_checker::Model::persistent_set`]): no action that can still happen
//! along a path from `s` that avoids `a` reads what `a` writes, writes what `a` reads, or
//! enables or disables `a`; and `a` only adds to what the properties read. The guards below
//! over-approximate "can still happen" by the actors' programs: a caller's remaining calls,
//! the agent's remaining requests, a body's remaining steps, the user's pending answers and
//! the environment's unload. `docs/legacy.md`, *Reductions*, gives the argument
//! for each kind of action; `profiles/tests/legacy_reduction.rs` checks persistence and
//! outcomes on the whole graph of every legacy scenario under every alternative.
//!
//! What every guard starts from: **unload** writes `unloaded` (which disables every action
//! but the agent's), the replies and the replies due, so it conflicts with every action here
//! but an agent request after the page is gone. Where the scenario may unload the page and
//! has not yet, nothing is safe.
//!
//! Ghost facts (`LegacyState::ghost`) and the page's settled sets are sets that actions only
//! insert into: two inserts commute, and an insert only makes an always property fail (it
//! never makes one hold again) and a sometimes property hold. So do the other writes of a
//! safe action: a reply attempt counted, a list recorded, a promise settled (read only at
//! termination), an execution's status (read by properties only at termination).

use super::machine::{LegacyAction, LegacyModel};
use super::scenario::{AgentOp, BodyStep, PageOp};
use super::state::{ExecStatus, LegacyState, Promise};

impl LegacyModel {
    /// The first enabled action of `s` that is safe alone, with the state it leads to.
    pub fn safe_alone(&self, s: &LegacyState) -> Option<(LegacyAction, LegacyState)> {
        let mut enabled = Vec::new();
        self.enabled_actions(s, &mut enabled);
        if enabled.len() < 2 {
            // Nothing to prune: the search takes the lone action anyway.
            return None;
        }
        let a = enabled.into_iter().find(|&a| self.is_safe(s, a))?;
        Some((a, self.apply(s, a, &mut Vec::new())))
    }

    /// Whether `a`, enabled at `s`, is safe alone (see the module documentation).
    pub fn is_safe(&self, s: &LegacyState, a: LegacyAction) -> bool {
        if self.world.unload && !s.unloaded {
            return false;
        }
        match a {
            // Reads the execution's status (for its ghost) and its own interaction; only the
            // execution's settlement writes the status, and only its body does that.
            LegacyAction::UserAnswers(e, _) => !self.may_settle(s, e),
            LegacyAction::Body(e) => match self.next_body_step(s, e) {
                // Reads the status (only this body changes it) and, under
                // `live-until-reply`, the reply due (which the delivery takes).
                Some(BodyStep::RequestUserInteraction) => s.execs[e as usize].reply_due.is_none(),
                // Writes the status (read by clearContext's ghost, by every start, and by
                // this execution's pending answers) and, to fulfil, reads the page's set.
                Some(step) => {
                    let x = &s.execs[e as usize];
                    let fulfils = step == BodyStep::Fulfil;
                    // No reply due: always so today, as the compiler lets a body settle once;
                    // asked so that the guard does not rest on that.
                    x.reply_due.is_none()
                        && !x
                            .ruis
                            .iter()
                            .any(|r| r.callback_ran && r.promise == Promise::Pending)
                        && !self.may_start_any(s)
                        && if fulfils {
                            self.page_settled(s)
                        } else {
                            !self.may_clear(s)
                        }
                }
                None => false,
            },
            // Takes the reply due, which a later interaction of the same body reads.
            LegacyAction::Deliver(e) => !self.body_may_interact(s, e),
            // Reads the page's set (and whether it was cleared, and unloaded), written only by
            // the callers; an execution's start also reads every execution's status.
            LegacyAction::Agent => {
                self.page_settled(s)
                    && match self.world.agent[s.agent_pc as usize] {
                        AgentOp::List(_) => true,
                        AgentOp::Execute(e, _) => self.others_keep_status(s, e),
                    }
            }
            // The agent's requests still to come could resolve another execution, whose
            // invocation would count this one as running.
            LegacyAction::Invoke(e) => {
                self.page_settled(s) && !self.agent_may_execute(s) && self.others_keep_status(s, e)
            }
            LegacyAction::Page(_) | LegacyAction::ProvidePiece | LegacyAction::Unload => false,
        }
    }

    fn next_body_step(&self, s: &LegacyState, e: u8) -> Option<BodyStep> {
        let x = &s.execs[e as usize];
        let d = x.status.def()?;
        self.body(d).get(x.body_pc as usize).copied()
    }

    /// The steps of execution `e`'s body still to run (none before it is invoked).
    fn remaining_body(&self, s: &LegacyState, e: u8) -> &[BodyStep] {
        let x = &s.execs[e as usize];
        match x.status {
            ExecStatus::Running(d) | ExecStatus::Settled(d) => {
                self.body(d).get(x.body_pc as usize..).unwrap_or(&[])
            }
            // Invoked later, from its first step; or never.
            ExecStatus::Resolved(d) => self.body(d),
            ExecStatus::NotRequested | ExecStatus::Refused => &[],
        }
    }

    /// Whether execution `e`'s status can still change to settled.
    fn may_settle(&self, s: &LegacyState, e: u8) -> bool {
        matches!(s.execs[e as usize].status, ExecStatus::NotRequested)
            || self
                .remaining_body(s, e)
                .iter()
                .any(|b| *b != BodyStep::RequestUserInteraction)
    }

    fn body_may_interact(&self, s: &LegacyState, e: u8) -> bool {
        self.remaining_body(s, e)
            .contains(&BodyStep::RequestUserInteraction)
    }

    /// The calls the callers have still to make.
    fn remaining_calls<'a>(&'a self, s: &'a LegacyState) -> impl Iterator<Item = &'a PageOp> {
        self.world
            .callers
            .iter()
            .zip(&s.caller_pc)
            .flat_map(|(c, &pc)| c.ops.get(pc as usize..).unwrap_or(&[]))
    }

    /// No caller has a call left and no `provideContext` is in progress: the page's set and
    /// its `cleared` flag keep their values.
    fn page_settled(&self, s: &LegacyState) -> bool {
        s.provide_progress.is_none() && self.remaining_calls(s).next().is_none()
    }

    /// A `clearContext` is still to run (it reads every execution's status).
    fn may_clear(&self, s: &LegacyState) -> bool {
        self.remaining_calls(s)
            .any(|op| matches!(op, PageOp::Clear))
    }

    /// An execution can still start (the agent's request to execute, or an invocation under
    /// `lookup-at-request`), reading every execution's status.
    fn may_start_any(&self, s: &LegacyState) -> bool {
        s.execs
            .iter()
            .any(|x| matches!(x.status, ExecStatus::Resolved(_)))
            || self.agent_may_execute(s)
    }

    fn agent_may_execute(&self, s: &LegacyState) -> bool {
        self.world
            .agent
            .get(s.agent_pc as usize..)
            .unwrap_or(&[])
            .iter()
            .any(|op| matches!(op, AgentOp::Execute(..)))
    }

    /// No execution but `e` can still become running or stop running by an action other
    /// than the agent's: the start of `e` counts the running executions
    /// (`Ghost::Concurrent`). An execution not yet requested waits for the agent, which does
    /// nothing on a path that avoids its own request, and whose later requests under
    /// `lookup-at-request` only resolve (the caller of this for an invocation also asks that
    /// none is left).
    fn others_keep_status(&self, s: &LegacyState, e: u8) -> bool {
        (0..s.execs.len() as u8)
            .filter(|&o| o != e)
            .all(|o| match s.execs[o as usize].status {
                ExecStatus::NotRequested | ExecStatus::Refused => true,
                ExecStatus::Resolved(_) => false,
                ExecStatus::Running(_) | ExecStatus::Settled(_) => !self.may_settle(s, o),
            })
    }
}
