//! `In parallel` blocks as values: a key naming which call or event started the block, and a
//! program counter with the block's locals. One [`crate::Action::Step`] runs one step.

use crate::coll::Vector;

use crate::origin::{OriginId, OriginSet};
use crate::state::RegisteredTool;
use crate::world::{CallId, DocId, NavId, StrId};

/// Which `in parallel` block a thread is. Keys are unique in a state, and the same in every
/// run of a scenario, so a trace can name a thread without depending on thread order.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum ThreadKey {
    /// `register-tool#20` of a registerTool call.
    Register(CallId),
    /// `unregister-tool#7`, run by the abort steps of a registerTool call.
    Unregister(CallId),
    /// `get-tools#8`.
    GetTools(CallId),
    /// `execute-tool#16`.
    Execute(CallId),
    /// `execute-tool#15.4.2`: cancel a pending tool execution after the caller aborted.
    CancelOnAbort(CallId),
    /// `unload-cleanup#2` for the nth run of a document's unloading cleanup steps.
    Cleanup(DocId, u8),
    /// completionSteps started in parallel from an event loop (the current text's
    /// `execute-tool#16.10`, or the `completion-in-parallel` fix on the 2026-08 text).
    Completion(CallId),
    /// completionSteps started in parallel by `unload-cleanup#2.3.2` (the current text); the
    /// number tells apart cleanups of one execution that overlap.
    CleanupCompletion(CallId, u8),
}

/// A set of navigables, iterated in tree order (navigable ids are assigned in tree order).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct NavList(pub u64);

impl NavList {
    pub fn from_navs(navs: &[NavId]) -> NavList {
        NavList(navs.iter().fold(0, |m, n| m | (1 << n.index())))
    }
    /// Takes the first navigable in tree order.
    pub fn pop(&mut self) -> Option<NavId> {
        if self.0 == 0 {
            return None;
        }
        let n = NavId::nth(self.0.trailing_zeros() as usize);
        self.0 &= self.0 - 1;
        Some(n)
    }
}

/// A list of uuids (execution calls), in the order they were appended.
pub type UuidList = Vector<CallId>;

#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Thread {
    /// *notify documents of a tool change*, then (for a registration) `register-tool#20.2`.
    Notify {
        owner: DocId,
        exposed: OriginSet,
        cause: CallId,
        resolve_registration: bool,
        pc: NotifyPc,
    },
    GetTools {
        requestor: DocId,
        from_origins: OriginSet,
        pc: GetToolsPc,
    },
    Execute {
        caller: DocId,
        target: DocId,
        expected_origin: OriginId,
        tool_name: StrId,
        pc: ExecutePc,
    },
    Cancel(CancelProc),
    Completion(CompletionProc),
    Cleanup {
        doc: DocId,
        traversable: NavId,
        pc: CleanupPc,
    },
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum NotifyPc {
    /// `notify-tool-change#1`–`#2`.
    Start,
    /// `notify-tool-change#3` with the navigables still to visit.
    Visit(NavList),
    /// `register-tool#20.2`.
    ResolveRegistration,
}

#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum GetToolsPc {
    /// `get-tools#8.1`–`#8.2`.
    Start,
    /// `get-tools#8.3`: navigables still to visit, tools collected, and (ghost) whether a
    /// tool map or the tree changed since the walk began.
    Visit {
        navs: NavList,
        tools: Vector<RegisteredTool>,
        changed: bool,
    },
    /// `get-tools#8.4`–`#8.5`.
    Finish {
        tools: Vector<RegisteredTool>,
        changed: bool,
    },
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum ExecutePc {
    /// `execute-tool#16.1`–`#16.4`.
    CheckTraversableAndOrigin,
    /// `execute-tool#16.5`–`#16.7`.
    CheckToolExists,
    /// `execute-tool#16.8`–`#16.11`.
    ReadToolDefinition,
    /// `execute-tool#16.12`.
    SetPending,
    /// `execute-tool#16.13`.
    QueueToolExecuteSteps,
}

/// *cancel a pending tool execution* given a traversable and a uuid, as a sub-program.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct CancelProc {
    pub traversable: NavId,
    pub uuid: CallId,
    pub pc: CancelPc,
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum CancelPc {
    /// `cancel-pending-execution#1`–`#2`.
    Check,
    /// `cancel-pending-execution#3`.
    Read,
    /// `cancel-pending-execution#4`, with the execution read at #3 (its target).
    Remove { target: DocId },
    /// `cancel-pending-execution#5`–`#6`.
    Queue { target: DocId },
}

/// The completion steps of one execution (`execute-tool#16.10`), run in parallel.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct CompletionProc {
    pub uuid: CallId,
    pub target: DocId,
    /// `Some(result)` for success.
    pub result: Option<StrId>,
    pub pc: CompletionPc,
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum CompletionPc {
    /// `execute-tool#16.10.1` (and, under the 2026-08 text, its Assert `2026-08:execute-tool#15.10.1`).
    Check,
    /// `execute-tool#16.10.2`.
    Remove,
    /// `execute-tool#16.10.3`–`#16.10.4`.
    Queue,
}

#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum CleanupPc {
    /// `unload-cleanup#2.1`–`#2.2`.
    Collect,
    /// `unload-cleanup#2.3` over the uuids still to handle; the first is current.
    Each { uuids: UuidList, sub: CleanupSub },
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum CleanupSub {
    /// `unload-cleanup#2.3.1`–`#2.3.4`'s choice.
    Read,
    /// `unload-cleanup#2.3.2`: the execution's completion steps with null and false.
    Complete(CompletionProc),
    /// `unload-cleanup#2.3.3`.
    Cancel(CancelProc),
    /// `unload-cleanup#2.3.4`.
    Remove,
    /// `unload-cleanup#2.3.5`.
    Assert,
}
