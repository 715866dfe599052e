//! The state of the legacy model: the page's tool set, program counters, executions, and the
//! ghost records the properties read.

use std::collections::BTreeSet;

use super::scenario::DefId;

/// What a page call did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CallOutcome {
    Returned,
    Threw,
}

/// What an agent `list` request got back.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ListResult {
    /// The definitions listed, in the page's order.
    Tools(Vec<DefId>),
    /// The page was gone.
    NoPage,
}

/// Where an agent execution is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ExecStatus {
    /// The agent has not sent the request yet.
    NotRequested,
    /// Looked up, not yet invoked (variant `lookup-at-request` only).
    Resolved(DefId),
    /// The body was invoked and its promise has not settled: the execution is live.
    Running(DefId),
    /// The body's promise settled.
    Settled(DefId),
    /// No tool of that name (or no page) when the request was served.
    Refused,
}

impl ExecStatus {
    pub fn def(self) -> Option<DefId> {
        match self {
            ExecStatus::Resolved(d) | ExecStatus::Running(d) | ExecStatus::Settled(d) => Some(d),
            _ => None,
        }
    }
}

/// What the agent received for an execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reply {
    /// The body's promise fulfilled.
    Result,
    /// No tool of that name.
    NotFound,
    /// The body's promise rejected.
    ToolError,
    /// The page was unloaded before the body settled, or before the request was served.
    PageGone,
}

impl Reply {
    pub fn is_result(self) -> bool {
        self == Reply::Result
    }
}

/// A promise as the page sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Promise {
    Pending,
    Fulfilled,
    Rejected,
}

/// One `requestUserInteraction(callback)` call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rui {
    pub callback_ran: bool,
    pub promise: Promise,
    /// Settlement attempts on the returned promise (ghost).
    pub attempts: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Exec {
    pub status: ExecStatus,
    pub body_pc: u8,
    pub reply: Option<Reply>,
    /// Replies attempted to the agent (ghost; at most one is delivered).
    pub reply_attempts: u8,
    pub ruis: Vec<Rui>,
    /// Whether the tool was in the page's set when its body started (`None`: not started).
    pub started_in_set: Option<bool>,
    /// Variant `live-until-reply`: the body settled, its reply is not delivered yet.
    pub reply_due: Option<Reply>,
}

/// Events the properties and witnesses read (ghost only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ghost {
    /// A tool was listed while the set was empty by `clearContext` (no add since).
    ListedAfterClear,
    /// A tool body started after `clearContext` emptied the set (no add since).
    StartedAfterClear(u8),
    /// A tool body started while its definition was not in the page's set.
    StartedNotCurrent(u8),
    /// A user-interaction callback ran while its execution was not live.
    CallbackNotLive(u8),
    /// A body was invoked for an execution the agent already had a reply for.
    InvokedAfterReply(u8),
    // Witnesses.
    ProvideReplacedNonEmpty,
    DuplicateInProvideThrew,
    DuplicateRegisterThrew,
    RegisteredClobbered,
    UnregisterUnknown,
    UnregisterOther,
    ClearDuringExecution,
    ResultAfterRemoval,
    NotFound,
    CallbackDuringExecution,
    RuiAfterSettleRejected,
    UserAnsweredAfterSettle,
    Concurrent,
    UnloadDuringExecution,
}

/// The whole legacy state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LegacyState {
    /// The page's tool set (`navigator.modelContext`), in insertion order.
    pub tools: Vec<DefId>,
    /// Set by `clearContext`, reset when a tool is added (ghost for clear-means-gone).
    pub cleared: bool,
    /// Per caller: the next call.
    pub caller_pc: Vec<u8>,
    /// Per caller and call: what it did.
    pub outcomes: Vec<Vec<Option<CallOutcome>>>,
    /// A `provideContext` applied one tool per step (variant `piecewise-provide`):
    /// (caller, call, next tool index).
    pub provide_progress: Option<(u8, u8, u8)>,
    pub agent_pc: u8,
    pub lists: Vec<Option<ListResult>>,
    pub execs: Vec<Exec>,
    pub unloaded: bool,
    /// Every tool set the page held between calls, sorted (ghost for provide-atomic).
    pub settled_sets: BTreeSet<Vec<DefId>>,
    pub ghost: BTreeSet<Ghost>,
}

impl LegacyState {
    pub fn sorted_tools(&self) -> Vec<DefId> {
        let mut v = self.tools.clone();
        v.sort_unstable();
        v
    }
}
