//! The dynamic state: everything a transition can change. Small copy-on-write collections
//! ([`crate::coll`]) keep cloning cheap; every id is a small integer from
//! [`crate::world::World`].

use crate::coll::{OrdMap, OrdSet, Vector};

use crate::origin::OriginSet;
use crate::steps::StepId;
use crate::threads::{Thread, ThreadKey};
use crate::world::{Annotations, CallId, CtrlId, DocId, NavId, StrId, TabId, World};

#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct State {
    pub docs: Vector<DocState, true>,
    pub navs: Vector<NavState, true>,
    /// Per agent: its event loop's webmcp task source queue, oldest first.
    pub queues: Vector<Vector<Task>, true>,
    /// Running `in parallel` blocks (and the AI agent queue's observations).
    pub threads: OrdMap<ThreadKey, Thread, true>,
    /// Per call: the promise it returned.
    pub promises: Vector<PromiseState, true>,
    /// Per named AbortController.
    pub controllers: Vector<ControllerState, true>,
    /// Per tab: its traversable's pending tool executions map (uuid -> execution).
    pub pending: Vector<Vector<(CallId, PendingExecution)>, true>,
    /// Per execution uuid: the page's tool body, once `execute` was invoked.
    pub bodies: OrdMap<CallId, Body, true>,
    pub env: EnvState,
    /// Facts recorded by transitions for the properties (spec assertions that failed, ...).
    pub ghost: OrdSet<Ghost, true>,
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Lifecycle {
    /// Not yet any navigable's active document (a navigation target).
    Initial,
    FullyActive,
    /// In the back/forward cache, or under a document that is.
    NotFullyActive,
    Destroyed,
}

#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct DocState {
    pub lifecycle: Lifecycle,
    /// The ModelContext's tool map: name -> tool definition.
    pub tools: OrdMap<StrId, ToolDefinition>,
    /// The ModelContext's local pending tool executions map; the abort controller of each
    /// entry is the body's signal in [`State::bodies`].
    pub local: OrdSet<CallId>,
    pub script: ScriptState,
    /// How many times this document's unloading cleanup steps have started.
    pub cleanups: u8,
    /// `toolchange` events fired at this document, counted up to [`TOOLCHANGES_COUNTED`].
    pub toolchanges: u8,
}

/// The parts of an event loop's queue a footprint tells apart (`crate::footprint`): running
/// the oldest runnable task reads and removes entries up to it, queuing appends after every
/// entry, and the two commute whenever the first is enabled.
pub mod queue_part {
    use super::TaskKind;
    use crate::world::CallId;

    pub const HEAD: u8 = 0;
    pub const TAIL: u8 = 1;
    /// The queued `toolchange` tasks of one cause, which the ordering checks look for.
    pub fn toolchanges_of(cause: CallId) -> u8 {
        2 + cause.index() as u8
    }
    /// The part besides the head or tail that queuing or running `kind` changes.
    pub fn of_task(kind: &TaskKind) -> Option<u8> {
        match kind {
            TaskKind::FireToolchange { cause, .. } => Some(toolchanges_of(*cause)),
            _ => None,
        }
    }
}

/// The parts of a pending tool executions map a footprint tells apart: each execution's
/// entry (by its uuid's index, below [`crate::limits::MAX_CALLS`]) and the order of entries,
/// which storing a new one changes.
pub mod pending_part {
    pub const ORDER: u8 = u8::MAX;
}

/// The fields of [`DocState`], for footprints that name one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocField {
    Lifecycle,
    Tools,
    Local,
    Script,
    Cleanups,
    Toolchanges,
}

/// How many `toolchange` events a document counts (`awaitToolchange` only ever needs to know
/// whether its k-th event has fired, and a script has at most this many of them).
pub const TOOLCHANGES_COUNTED: u8 = crate::limits::MAX_TOOLCHANGE_AWAITS as u8;

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct ScriptState {
    /// The next statement to run (at most the script's length, which
    /// [`crate::limits::MAX_STATEMENTS`] keeps below `u8::MAX`).
    pub pc: u8,
    pub status: ScriptStatus,
}

impl ScriptState {
    /// Moves to the next statement.
    ///
    /// # Panics
    ///
    /// If the counter would wrap, which a compiled scenario never allows: a script that
    /// restarts from its first statement would be a lie.
    #[inline]
    pub fn advance(&mut self) {
        self.pc = self
            .pc
            .checked_add(1)
            .expect("a script has at most limits::MAX_STATEMENTS statements");
    }
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum ScriptStatus {
    /// The script's first task has not run yet.
    NotStarted,
    /// Suspended in `await` on a call's promise.
    AwaitingCall(CallId),
    /// Suspended until the next `toolchange` event.
    AwaitingToolchange,
    /// Resumable now (in the microtask checkpoint that follows).
    Ready,
    Finished,
    /// Threw: the statement at `pc` could not run (e.g. no such tool in a getTools list).
    Threw,
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct NavState {
    pub active: Option<DocId>,
    /// Whether its iframe element is still in its container document (always for a tab).
    pub attached: bool,
}

/// A tool definition (built at `register-tool#18`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct ToolDefinition {
    pub name: StrId,
    pub title: Option<StrId>,
    pub description: StrId,
    /// The stringified input schema ("" when absent).
    pub input_schema: StrId,
    pub annotations: Option<Annotations>,
    pub exposed: OriginSet,
    /// The registerTool call whose `execute` callback the execute steps invoke.
    pub registered_by: CallId,
}

/// A `RegisteredTool` dictionary (`get-tools#8.3.8.2`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct RegisteredTool {
    pub name: StrId,
    /// `None` stands for the empty string the draft substitutes for a null title.
    pub title: Option<StrId>,
    pub description: StrId,
    pub input_schema: Option<StrId>,
    pub window: DocId,
    /// The serialized origin.
    pub origin: StrId,
    pub annotations: Option<Annotations>,
    /// The registration whose tool definition this entry lists; only the `tool-identity`
    /// fix carries it (`None` otherwise, as the draft's dictionary has no such member).
    pub definition: Option<CallId>,
}

#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Value {
    Undefined,
    Tools(Vector<RegisteredTool>),
    /// A JSON string (the tool result).
    Text(StrId),
}

/// Why a promise was rejected.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Reason {
    InvalidStateError,
    SecurityError,
    NotAllowedError,
    NotSupportedError,
    UnknownError,
    TypeError,
    /// An exception rethrown from `JSON.stringify` (a `toJSON` that throws).
    Error,
    /// The abort reason of a named controller's signal (an "AbortError" DOMException).
    Aborted(CtrlId),
}

impl From<crate::names::Thrown> for Reason {
    /// The exception serialization threw, as the rejection reason.
    fn from(t: crate::names::Thrown) -> Reason {
        match t {
            crate::names::Thrown::TypeError => Reason::TypeError,
            crate::names::Thrown::Error => Reason::Error,
        }
    }
}

impl Reason {
    /// The `DOMException` name (or error type) a page observes.
    pub fn name(self) -> &'static str {
        match self {
            Reason::InvalidStateError => "InvalidStateError",
            Reason::SecurityError => "SecurityError",
            Reason::NotAllowedError => "NotAllowedError",
            Reason::NotSupportedError => "NotSupportedError",
            Reason::UnknownError => "UnknownError",
            Reason::TypeError => "TypeError",
            Reason::Error => "Error",
            Reason::Aborted(_) => "AbortError",
        }
    }
}

#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Status {
    /// The call has not run.
    NotCalled,
    Pending,
    Fulfilled(Value),
    Rejected(Reason),
}

#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct PromiseState {
    pub status: Status,
    /// Ghost: resolve/reject attempts after creation (saturating at 3).
    pub attempts: u8,
    pub tried_fulfil: bool,
    pub tried_reject: bool,
    /// Ghost: the step that settled it.
    pub settled_at: Option<StepId>,
}

impl PromiseState {
    pub fn is_settled(&self) -> bool {
        matches!(self.status, Status::Fulfilled(_) | Status::Rejected(_))
    }
}

/// What aborting a signal runs (abort steps are never removed: `1.7` of the draft).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum AbortStep {
    /// `register-tool#17.3`: unregister the tool, reject the registration promise.
    Register { call: CallId },
    /// `execute-tool#15.4`: reject the promise, cancel in parallel. The traversable was
    /// captured at `execute-tool#15.3` (`None`: the target had no node navigable).
    Execute {
        call: CallId,
        traversable: Option<NavId>,
    },
}

#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct ControllerState {
    pub aborted: bool,
    pub abort_steps: Vector<AbortStep>,
}

/// A pending tool execution (`execute-tool#16.11`); its completion steps are identified by
/// the uuid, which is the executeTool call.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct PendingExecution {
    pub caller: DocId,
    pub target: DocId,
    pub tool_name: StrId,
}

/// The page's `execute` callback for one execution, after it was invoked.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Body {
    pub target: DocId,
    /// The registration whose callback ran.
    pub registered_by: CallId,
    pub settled: bool,
    /// Whether the signal given to the callback has been aborted.
    pub signal_aborted: bool,
    /// Ghost: the signal was aborted while the body was still running.
    pub saw_abort_while_running: bool,
    /// Ghost: the serialization of the value the body fulfilled with, when it has one: the
    /// result the caller awaits.
    pub result: Option<StrId>,
    /// A scripted body (`body` in the scenario): its next statement...
    pub pc: u8,
    /// ...whether it waits for its signal's abort...
    pub awaiting_abort: bool,
    /// ...or for the executeTool call it made.
    pub awaiting_call: Option<CallId>,
}

/// How a tool body's promise settles.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Settlement {
    /// Fulfilled; what serializing the value gives (`imperative-execute-steps#10.fulfilled.4`).
    Fulfilled(Result<StrId, crate::names::Thrown>),
    Rejected,
}

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
pub struct EnvState {
    /// At most [`crate::limits::MAX_INTERVENTIONS`]; only decremented while positive.
    pub interventions_left: u8,
    /// Bit per navigable: removal or navigation already done.
    pub navs_done: u64,
    /// Per tab (2 bits each): 0 untouched, 1 in the bfcache, 2 restored or evicted.
    pub bfcache: u64,
    /// At most [`crate::limits::MAX_OBSERVE`]; only decremented while positive.
    pub observations_left: u8,
}

// A bit per navigable, and two per tab, fit the 64-bit words above.
const _: () = assert!(crate::limits::MAX_NAVIGABLES <= u64::BITS as usize);
const _: () = assert!(2 * crate::limits::MAX_TABS <= u64::BITS as usize);
const _: () = assert!(crate::limits::MAX_TOOLCHANGE_AWAITS < u8::MAX as usize);

impl EnvState {
    pub fn bfcache_phase(&self, tab: TabId) -> u8 {
        ((self.bfcache >> (2 * tab.index())) & 3) as u8
    }
    pub fn set_bfcache_phase(&mut self, tab: TabId, phase: u8) {
        let shift = 2 * tab.index();
        self.bfcache = (self.bfcache & !(3 << shift)) | ((phase as u64) << shift);
    }
}

/// Facts transitions record for the properties.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Ghost {
    /// An `Assert:` step was reached and its condition was false.
    AssertFailed(StepId),
    /// A step read a map entry that does not exist, or a document's node navigable that is
    /// null: the text gives no value to go on with, so the algorithm stops there.
    MissingValue(StepId),
    /// `imperative-execute-steps#9` invoked a tool for a caller whose promise was already
    /// rejected (uuid).
    InvokedAfterCallerRejected(CallId),
    /// `imperative-execute-steps#3` refused an input that is an Object (uuid).
    ObjectInputRefused(CallId),
    /// `cancel-pending-execution#5`: the target document was not fully active (uuid).
    CancelTargetGone(CallId),
    /// A getTools promise fulfilled with a list that differs from the tools visible at that
    /// moment although nothing changed during the walk.
    GetToolsMismatch(CallId),
    /// `toolchange` fired at a document that may not use "tools" or is not exposed.
    ToolchangeMisfired(DocId),
    /// The ordering example: a registration promise fulfilled before a same-loop
    /// `toolchange` it caused, or a child's `toolchange` before its ancestor's.
    ToolchangeOrder(CallId),
    /// A method's promise was resolved or rejected outside its document's event loop.
    SettledOffItsEventLoop(CallId),
    /// A document's local pending tool executions map was touched outside its event loop.
    LocalMapOffItsEventLoop(DocId),
    /// `tool-execute-steps#4` ran a tool definition whose members differ from the
    /// `RegisteredTool` the caller discovered and passed (uuid).
    RanUndiscoveredTool(CallId),
    /// `tool-execute-steps#4` ran a tool not exposed to the caller's origin (uuid).
    RanForUnexposedCaller(CallId),
    /// A document's tools left the tree (unload, removal) while they were discoverable by a
    /// fully active document of the tab, and nothing queued a `toolchange` at it.
    DiscoverableChangeUnnotified(DocId),
    /// A script called a method on the `ModelContext` of a document that was not fully
    /// active (one it kept from a removed or navigated-away iframe).
    CalledOnInactiveDocument(CallId),
    /// `toolactivated` fired for an execution (uuid), under the opt-in tool events.
    ToolActivated(CallId),
    /// `toolcancel` fired for an execution (uuid), under the opt-in tool events...
    ToolCancelled(CallId),
    /// ...while its caller had neither aborted its signal nor been unloaded.
    ToolcancelForLiveCaller(CallId),
    /// ...after its tool body had settled.
    ToolcancelAfterSettlement(CallId),
    /// An executeTool promise was fulfilled with a result before `toolactivated` fired for it.
    ResultBeforeToolactivated(CallId),
}

/// A task on the webmcp task source, with the document whose global it was queued on.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Task {
    pub doc: DocId,
    pub kind: TaskKind,
}

#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum TaskKind {
    /// `notify-tool-change#3.3`, caused by a registration (`registered`) or by the
    /// unregistration its abort steps ran.
    FireToolchange { cause: CallId, registered: bool },
    /// `register-tool#20.2`.
    ResolveRegister { call: CallId },
    /// `get-tools#8.5`.
    ResolveGetTools {
        call: CallId,
        tools: Vector<RegisteredTool>,
    },
    /// `execute-tool#16.1`, `#16.4`, `#16.7`, `#16.9`, `#16.10.4`: reject with UnknownError.
    RejectExecute { call: CallId, at: StepId },
    /// `execute-tool#16.10.3`.
    ResolveExecute { call: CallId, result: StrId },
    /// `execute-tool#16.13`: run the tool execute steps.
    RunToolExecuteSteps {
        call: CallId,
        target: DocId,
        tool_name: StrId,
    },
    /// `cancel-pending-execution#6`.
    CancelLocal { call: CallId, target: DocId },
}

impl TaskKind {
    /// The `executeTool` call (its execution's uuid) the task belongs to, if any.
    pub fn execution(&self) -> Option<CallId> {
        match *self {
            TaskKind::RejectExecute { call, .. }
            | TaskKind::ResolveExecute { call, .. }
            | TaskKind::RunToolExecuteSteps { call, .. }
            | TaskKind::CancelLocal { call, .. } => Some(call),
            TaskKind::FireToolchange { .. }
            | TaskKind::ResolveRegister { .. }
            | TaskKind::ResolveGetTools { .. } => None,
        }
    }
}

/// The state's parts as `webmcp_checker::Model::unchanged_parts` numbers them: a bit per
/// top-level collection, the bit of its footprint area (`crate::footprint::area`), paired
/// with it in `top_level_collections!` (`env`, not a collection, is no part: a property
/// reading it reads `Reads::Anything`).
pub mod parts {
    use crate::footprint::area;

    pub const DOCS: u32 = 1 << area::DOCS;
    pub const NAVS: u32 = 1 << area::NAVS;
    pub const QUEUES: u32 = 1 << area::QUEUES;
    pub const THREADS: u32 = 1 << area::THREADS;
    pub const PROMISES: u32 = 1 << area::PROMISES;
    pub const CONTROLLERS: u32 = 1 << area::CONTROLLERS;
    pub const PENDING: u32 = 1 << area::PENDING;
    pub const BODIES: u32 = 1 << area::BODIES;
    pub const GHOST: u32 = 1 << area::GHOST;
}

/// Calls `$m!` with the state's top-level collections (every field but `env`), each with its
/// bit of [`parts`]. `State::borrow` builds a whole `State` from the list, so a new
/// collection left out of it does not compile; the other methods below use the same list.
macro_rules! top_level_collections {
    ($m:ident) => {
        $m!(
            docs: DOCS,
            navs: NAVS,
            queues: QUEUES,
            threads: THREADS,
            promises: PROMISES,
            controllers: CONTROLLERS,
            pending: PENDING,
            bodies: BODIES,
            ghost: GHOST
        )
    };
}

impl State {
    /// A copy of this state that reads its collections without counting references to them:
    /// the start of a successor that the search may drop unseen (`webmcp_checker::Draft`).
    /// A transition changing one of its collections copies that collection first, so this
    /// state is never changed through it.
    ///
    /// # Safety
    /// The copy, and every collection moved out of it, is dropped or [`State::own`]ed while
    /// `self` is alive and unchanged.
    pub(crate) unsafe fn borrow(&self) -> State {
        macro_rules! borrowed {
            ($($c:ident: $_part:ident),*) => {
                // SAFETY: the caller's promise, for each collection.
                State { $($c: unsafe { self.$c.borrow() },)* env: self.env }
            };
        }
        top_level_collections!(borrowed)
    }

    /// Counts in every collection still borrowed ([`State::borrow`]): afterwards the state
    /// holds all it reads and may outlive the one it was borrowed from.
    pub(crate) fn own(&mut self) {
        macro_rules! own_each {
            ($($c:ident: $_part:ident),*) => {{ $(self.$c.own();)* }};
        }
        top_level_collections!(own_each)
    }

    /// [`State::own`] for `child`, a successor built from `parent` by [`State::borrow`], but
    /// each top-level collection it still borrows from `parent` whose part ([`parts`]) is
    /// not in `given` takes over `parent`'s reference instead, and its part is added to
    /// `given` (`webmcp_checker::Inheritance`).
    ///
    /// # Safety
    /// `parent` is counted in every part outside `given` and is released by
    /// [`State::release_inherited`] with the `given` this leaves.
    pub(crate) unsafe fn inherit(parent: &State, child: &mut State, given: &mut u32) {
        macro_rules! inherit_each {
            ($($c:ident: $part:ident),*) => {{
                $(
                    // SAFETY: the caller's promise: `parent` forgets this part's reference.
                    if *given & parts::$part == 0
                        && unsafe { child.$c.take_over_from(&parent.$c) }
                    {
                        *given |= parts::$part;
                    } else {
                        child.$c.own();
                    }
                )*
            }};
        }
        top_level_collections!(inherit_each)
    }

    /// Drops `parent` but for the top-level collections whose part is in `given`, whose
    /// references a successor took over ([`State::inherit`]). Every field but `env` (a
    /// `Copy` value) is a top-level collection, as `State::borrow` makes sure.
    ///
    /// # Safety
    /// As [`State::inherit`]'s.
    pub(crate) unsafe fn release_inherited(parent: State, given: u32) {
        let mut parent = std::mem::ManuallyDrop::new(parent);
        macro_rules! release_each {
            ($($c:ident: $part:ident),*) => {{
                $(
                    if given & parts::$part == 0 {
                        // SAFETY: each collection is dropped once, here, and `parent` is
                        // never used again.
                        unsafe { std::ptr::drop_in_place(&mut parent.$c) };
                    }
                )*
            }};
        }
        top_level_collections!(release_each)
    }

    /// A hint to load every top-level collection's storage (`webmcp_checker::Model::prefetch`).
    pub fn prefetch(&self) {
        macro_rules! prefetch_each {
            ($($c:ident: $part:ident),*) => {
                { $(self.$c.prefetch();)* }
            };
        }
        top_level_collections!(prefetch_each);
    }

    /// Which of the state's parts ([`parts`]) `next` shares with this state, the very same
    /// storage: a transition that leaves a collection alone leaves it shared, so a property
    /// reading only those parts has this state's outcome at `next`.
    pub fn unchanged_parts(&self, next: &State) -> u32 {
        macro_rules! shared {
            ($($c:ident: $part:ident),*) => {
                0 $(| if next.$c.shares_storage_with(&self.$c) { parts::$part } else { 0 })*
            };
        }
        top_level_collections!(shared)
    }

    /// Whether `other` equals this state in `env` and in every part ([`parts`]) outside
    /// `except`: what a reduction's rule asks of a successor it has checked part by part.
    pub fn same_outside(&self, other: &State, except: u32) -> bool {
        macro_rules! same_each {
            ($($c:ident: $part:ident),*) => {
                self.env == other.env $(&& (except & parts::$part != 0 || self.$c == other.$c))*
            };
        }
        top_level_collections!(same_each)
    }

    /// This state with the parts in `mask` ([`parts`]) taken from `other`: what a property
    /// that claims to read only those parts must judge as it judges `other` (the catalogue's
    /// test of each claim).
    pub fn with_parts_of(&self, other: &State, mask: u32) -> State {
        let mut mixed = self.clone();
        macro_rules! take {
            ($($c:ident: $part:ident),*) => {{
                $(if mask & parts::$part != 0 {
                    mixed.$c = other.$c.clone();
                })*
            }};
        }
        top_level_collections!(take);
        mixed
    }

    /// Per top-level collection, how many references its storage has (0 for an empty
    /// one): for tests of how drafts count references.
    #[doc(hidden)]
    pub fn reference_counts(&self) -> Vec<usize> {
        macro_rules! counts {
            ($($c:ident: $_part:ident),*) => {{ vec![$(self.$c.reference_count()),*] }};
        }
        top_level_collections!(counts)
    }

    /// Whether some top-level collection is still borrowed (`State::borrow`): true only of
    /// a successor being built, never of a state the search keeps.
    pub fn borrows(&self) -> bool {
        macro_rules! any_borrowed {
            ($($c:ident: $_part:ident),*) => {{ false $(|| self.$c.is_borrowed())* }};
        }
        top_level_collections!(any_borrowed)
    }

    pub fn initial(w: &World) -> State {
        let docs = w
            .docs
            .iter()
            .map(|d| DocState {
                lifecycle: if d.initially_active {
                    Lifecycle::FullyActive
                } else {
                    Lifecycle::Initial
                },
                tools: OrdMap::new(),
                local: OrdSet::new(),
                script: ScriptState {
                    pc: 0,
                    status: ScriptStatus::NotStarted,
                },
                cleanups: 0,
                toolchanges: 0,
            })
            .collect();
        let navs = w
            .navs
            .iter()
            .map(|n| NavState {
                active: Some(n.initial),
                attached: true,
            })
            .collect();
        State {
            docs,
            navs,
            queues: w.agents.iter().map(|_| Vector::new()).collect(),
            threads: OrdMap::new(),
            promises: w
                .calls
                .iter()
                .map(|_| PromiseState {
                    status: Status::NotCalled,
                    attempts: 0,
                    tried_fulfil: false,
                    tried_reject: false,
                    settled_at: None,
                })
                .collect(),
            controllers: w
                .controllers
                .iter()
                .map(|_| ControllerState {
                    aborted: false,
                    abort_steps: Vector::new(),
                })
                .collect(),
            pending: w.tabs.iter().map(|_| Vector::new()).collect(),
            bodies: OrdMap::new(),
            env: EnvState {
                interventions_left: w.env.max_interventions,
                navs_done: 0,
                bfcache: 0,
                observations_left: w.env.observe,
            },
            ghost: OrdSet::new(),
        }
    }

    pub fn doc(&self, d: DocId) -> &DocState {
        &self.docs[d.index()]
    }
    pub fn doc_mut(&mut self, d: DocId) -> &mut DocState {
        &mut self.docs[d.index()]
    }
    /// `d`'s state, of which the caller reads only `field` (a transition's footprint then
    /// names that field alone: `crate::footprint`).
    pub fn doc_field(&self, d: DocId, field: DocField) -> &DocState {
        self.docs.part(d.index(), field as u8)
    }
    /// `d`'s state, of which the caller writes only `field`.
    pub fn doc_field_mut(&mut self, d: DocId, field: DocField) -> &mut DocState {
        self.docs.part_mut(d.index(), field as u8)
    }
    pub fn is_fully_active(&self, d: DocId) -> bool {
        self.doc_field(d, DocField::Lifecycle).lifecycle == Lifecycle::FullyActive
    }
    /// HTML's node navigable: the navigable whose active document is `d`, or null.
    pub fn node_navigable(&self, w: &World, d: DocId) -> Option<NavId> {
        let nav = w.docs[d.index()].nav;
        (self.navs[nav.index()].active == Some(d)
            && self.doc_field(d, DocField::Lifecycle).lifecycle != Lifecycle::Destroyed)
            .then_some(nav)
    }
    /// HTML's "allowed to use" the "tools" feature: a browsing context, fully active, and
    /// the permissions policy enables it.
    pub fn allowed_to_use_tools(&self, w: &World, d: DocId) -> bool {
        self.is_fully_active(d) && w.docs[d.index()].tools_policy
    }
    /// The inclusive descendant navigables of a navigable, in tree order.
    pub fn inclusive_descendants(&self, w: &World, nav: NavId) -> Vec<NavId> {
        let mut out = Vec::new();
        self.collect_descendants(w, nav, &mut out);
        out
    }
    fn collect_descendants(&self, w: &World, nav: NavId, out: &mut Vec<NavId>) {
        out.push(nav);
        if let Some(doc) = self.navs[nav.index()].active {
            for child in w.child_navs(doc) {
                if self.navs[child.index()].attached {
                    self.collect_descendants(w, child, out);
                }
            }
        }
    }
    pub fn record(&mut self, g: Ghost) {
        self.ghost.insert(g);
    }
}

/// A parallel search worker's own copies of the collections many states share
/// ([`crate::coll::Replicas`]): one set per top-level collection of [`State`], and for the
/// collections inside documents, queues and pending maps.
#[derive(Default)]
pub struct Replicas {
    docs: crate::coll::Replicas<DocState>,
    doc_tools: crate::coll::Replicas<(StrId, ToolDefinition)>,
    doc_local: crate::coll::Replicas<CallId>,
    navs: crate::coll::Replicas<NavState>,
    queues: crate::coll::Replicas<Vector<Task>>,
    queue: crate::coll::Replicas<Task>,
    threads: crate::coll::Replicas<(ThreadKey, Thread)>,
    promises: crate::coll::Replicas<PromiseState>,
    controllers: crate::coll::Replicas<ControllerState>,
    pending: crate::coll::Replicas<Vector<(CallId, PendingExecution)>>,
    pending_map: crate::coll::Replicas<(CallId, PendingExecution)>,
    bodies: crate::coll::Replicas<(CallId, Body)>,
    ghost: crate::coll::Replicas<Ghost>,
}

impl webmcp_checker::Localizer<State> for Replicas {
    fn localize(&mut self, s: &mut State) {
        let (tools, local) = (&mut self.doc_tools, &mut self.doc_local);
        s.docs.localize(&mut self.docs, |d| {
            d.tools.localize_inner(tools);
            d.local.localize_inner(local);
        });
        s.navs.localize(&mut self.navs, |_| ());
        s.queues
            .localize(&mut self.queues, |q| q.localize_inner(&mut self.queue));
        s.threads.localize(&mut self.threads, |_| ());
        s.promises.localize(&mut self.promises, |_| ());
        s.controllers.localize(&mut self.controllers, |_| ());
        s.pending.localize(&mut self.pending, |p| {
            p.localize_inner(&mut self.pending_map)
        });
        s.bodies.localize(&mut self.bodies, |_| ());
        s.ghost.localize(&mut self.ghost, |_| ());
    }
}
