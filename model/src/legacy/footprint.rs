//! Footprints of the legacy model's actions, for sleep sets (`--reduction sleep`): what each
//! action reads and writes of a state, declared by hand from `machine.rs` (the legacy state
//! is plain fields, not watched collections), its enabling condition included.
//!
//! Each declaration may name more than the action touches, never less: a needless access
//! only costs pruning. `profiles/tests/legacy_reduction.rs` checks the promise the engine
//! relies on at every state of every legacy scenario under every alternative: two enabled
//! actions whose footprints do not conflict commute there, and each keeps its footprint
//! after the other.

use webmcp_checker::footprint::{Access, Footprint, Key, Kind};

use super::machine::{LegacyAction, LegacyModel};
use super::scenario::{AgentOp, BodyStep, PageOp};
use super::state::LegacyState;
use super::variant::LIVE_UNTIL_REPLY;

/// The areas of a legacy state: its fields, the executions' split by field.
mod area {
    pub const TOOLS: u32 = 0;
    pub const CLEARED: u32 = 1;
    /// A caller's next call and the outcomes of its calls, at the caller.
    pub const CALLER: u32 = 2;
    pub const PROVIDE_PROGRESS: u32 = 3;
    /// The agent's next request and the lists it got.
    pub const AGENT: u32 = 4;
    /// Per execution, at its index.
    pub const STATUS: u32 = 5;
    pub const BODY_PC: u32 = 6;
    /// The reply and the replies attempted.
    pub const REPLY: u32 = 7;
    /// One interaction of an execution: `Key::Part(execution, interaction)`.
    pub const INTERACTIONS: u32 = 8;
    pub const STARTED_IN_SET: u32 = 9;
    pub const REPLY_DUE: u32 = 10;
    pub const UNLOADED: u32 = 11;
    /// Sets that actions only add to and no action reads (the properties do).
    pub const SETTLED_SETS: u32 = 12;
    pub const GHOST: u32 = 13;
}

struct Accesses(Footprint);

impl Accesses {
    fn read(&mut self, area: u32, key: Key) -> &mut Self {
        self.0.add(Access {
            area,
            key,
            kind: Kind::Read,
        });
        self
    }
    fn write(&mut self, area: u32, key: Key) -> &mut Self {
        self.0.add(Access {
            area,
            key,
            kind: Kind::Write,
        });
        self
    }
    /// Adds to a set no action reads: commutes with every other such insert.
    fn insert(&mut self, area: u32) -> &mut Self {
        self.0.add(Access {
            area,
            key: Key::Len,
            kind: Kind::Insert,
        });
        self
    }
}

fn at(i: u8) -> Key {
    Key::At(u64::from(i))
}

impl LegacyModel {
    /// What `a`, enabled at `s`, reads and writes there (see the module documentation).
    pub fn footprint(&self, s: &LegacyState, a: LegacyAction) -> Footprint {
        use area::*;
        let mut f = Accesses(Footprint::EMPTY);
        match a {
            LegacyAction::Page(c) => {
                f.read(UNLOADED, Key::All)
                    .read(PROVIDE_PROGRESS, Key::All)
                    .write(CALLER, at(c))
                    .write(TOOLS, Key::All)
                    .insert(SETTLED_SETS)
                    .insert(GHOST);
                match self.world.callers[c as usize].ops[s.caller_pc[c as usize] as usize] {
                    PageOp::Provide(_) => {
                        f.write(CLEARED, Key::All).write(PROVIDE_PROGRESS, Key::All);
                    }
                    PageOp::Clear => {
                        f.write(CLEARED, Key::All).read(STATUS, Key::All);
                    }
                    PageOp::Register(_) => {
                        f.write(CLEARED, Key::All);
                    }
                    PageOp::Unregister(_) => {}
                }
            }
            LegacyAction::ProvidePiece => {
                f.read(UNLOADED, Key::All)
                    .write(PROVIDE_PROGRESS, Key::All)
                    .write(TOOLS, Key::All)
                    .insert(SETTLED_SETS);
            }
            LegacyAction::Agent => {
                f.write(AGENT, Key::All)
                    .read(UNLOADED, Key::All)
                    .read(TOOLS, Key::All)
                    .read(CLEARED, Key::All)
                    .insert(GHOST);
                if let AgentOp::Execute(e, _) = self.world.agent[s.agent_pc as usize] {
                    f.write(STATUS, at(e))
                        .read(STATUS, Key::All)
                        .write(REPLY, at(e))
                        .write(STARTED_IN_SET, at(e));
                }
            }
            LegacyAction::Invoke(e) => {
                f.read(UNLOADED, Key::All)
                    .read(TOOLS, Key::All)
                    .read(CLEARED, Key::All)
                    .read(STATUS, Key::All)
                    .write(STATUS, at(e))
                    .read(REPLY, at(e))
                    .write(STARTED_IN_SET, at(e))
                    .insert(GHOST);
            }
            LegacyAction::Body(e) => {
                let x = &s.execs[e as usize];
                f.read(UNLOADED, Key::All)
                    .read(STATUS, at(e))
                    .write(BODY_PC, at(e))
                    .insert(GHOST);
                let d = x.status.def().expect("an invoked execution");
                match self.body(d)[x.body_pc as usize] {
                    BodyStep::RequestUserInteraction => {
                        f.write(
                            INTERACTIONS,
                            Key::Part(u64::from(e), x.ruis.len().min(255) as u8),
                        );
                        if self.variant.has(LIVE_UNTIL_REPLY) {
                            f.read(REPLY_DUE, at(e));
                        }
                    }
                    BodyStep::Fulfil | BodyStep::Reject => {
                        f.write(STATUS, at(e))
                            .read(TOOLS, Key::All)
                            .write(REPLY, at(e))
                            .write(REPLY_DUE, at(e));
                    }
                }
            }
            LegacyAction::Deliver(e) => {
                f.read(UNLOADED, Key::All)
                    .write(REPLY_DUE, at(e))
                    .write(REPLY, at(e));
            }
            LegacyAction::UserAnswers(e, k) => {
                f.read(UNLOADED, Key::All)
                    .write(INTERACTIONS, Key::Part(u64::from(e), k))
                    .read(STATUS, at(e))
                    .insert(GHOST);
            }
            LegacyAction::Unload => {
                f.write(UNLOADED, Key::All)
                    .write(PROVIDE_PROGRESS, Key::All)
                    .read(STATUS, Key::All)
                    .write(REPLY_DUE, Key::All)
                    .write(REPLY, Key::All)
                    .insert(GHOST);
            }
        }
        f.0
    }
}
