//! Partial-order reduction: a state where one in-parallel step may go first, alone.
//!
//! At a state `s`, the step of thread `k` is **safe** when
//!
//! 1. it changes nothing but thread `k`'s own program counter and locals (checked on the
//!    successor it actually produces: same documents, navigables, queues, promises,
//!    controllers, pending maps, bodies, environment, ghost facts and other threads); and
//! 2. nothing it reads can still be written by anything else, in any future of `s`: its
//!    reads are declared per program counter ([`reads`]) in two classes, a tab's **tree**
//!    (navigables, their active documents, lifecycles) and a document's **tool map**, and
//!    [`future_of`] over-approximates every write to those classes that the rest of the
//!    system (scripts from their current statement on, the environment's remaining budget,
//!    the abort steps of controllers that can still be aborted) can still perform. The
//!    completion steps' check (`execute-tool#16.10.1`) also reads its execution's pending map
//!    entry, which `entry_may_change` guards.
//!
//! In-parallel threads never write either class (only scripts, the abort steps and the
//! environment do: `register-tool`, `unregister-tool`, `lifecycle.rs`), so other threads
//! contribute nothing to (2) there; the threads that write a pending map entry are among
//! what `entry_may_change` looks for. A safe step is then independent of every action any other
//! actor can take before it: it reads nothing they write and writes nothing they read
//! (no action reads another thread's locals, except `mark_tools_changed`, which the
//! `changed` read of a walk's first step accounts for), and nothing can disable it (a
//! thread's step is enabled until it runs). So `{step}` is a persistent set. It is also
//! invisible: no property reads a thread's locals (`docs/model.md` §7 states this contract
//! of the catalogue), and (1) rules out ghost facts. The state graph is acyclic, so there
//! is no cycle to ignore an action on. `docs/model.md` §7 gives the soundness argument for
//! each kind of property.
//!
//! A write that leaves a value as it was does not show in (1); every such write in a
//! thread step is to a location the same step reads (a pending map entry, a local map),
//! and none of those steps has declared reads, so none is ever safe.
//!
//! Where no step is safe alone, [`WebMcpModel::persistent_steps`] first looks for an event
//! loop whose oldest runnable task fires `toolchange`, resolves a registration, settles an
//! execution's promise or runs the tool execute steps and may run alone
//! ([`WebMcpModel::task_alone`], `reduction/task_alone.rs`), then for a running tool body
//! whose settlements by the environment may go alone ([`WebMcpModel::body_alone`],
//! `reduction/body_alone.rs`), then for a set of steps
//! that queue tasks (notifications, `register-tool#20.2`, the completion steps' queuing) and
//! may go first together: each changes only its thread and the tails of queues, reads what
//! nothing else can still write, and queues only on event loops nothing outside the set can
//! still queue on; what reads a queue or a thread's existence cannot tell the orders apart;
//! and no property sees the tasks queued or the thread ended ([`Visibility`], which the
//! driver sets from the catalogue). `docs/model.md` §7 gives each condition and the argument.

use crate::machine::{Action, WebMcpModel};
use crate::state::{parts, AbortStep, PendingExecution, ScriptStatus, State, TaskKind};
use crate::threads::{CompletionPc, ExecutePc, GetToolsPc, NotifyPc, Thread, ThreadKey};
use crate::world::{CallId, DocId, Op, World};

mod body_alone;
pub mod dead_facts;
mod task_alone;

/// Sets of tabs (their trees) and documents (their tool maps), one bit each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Classes {
    pub trees: u64,
    pub tools: u64,
}

impl Classes {
    fn union(self, o: Classes) -> Classes {
        Classes {
            trees: self.trees | o.trees,
            tools: self.tools | o.tools,
        }
    }
    fn is_empty(self) -> bool {
        self.trees == 0 && self.tools == 0
    }
}

/// What a script can still write from a statement on, per document (precomputed).
#[derive(Clone, Copy, Debug, Default)]
struct Suffix {
    writes: Classes,
    /// Controllers an `abort` statement still to run aborts.
    aborts: u64,
}

/// The per-scenario tables the reduction consults.
#[derive(Debug)]
pub struct Footprints {
    /// Per document: its tab's bit.
    tab_of_doc: Vec<u64>,
    /// Per tab: the bits of the documents in it.
    docs_of_tab: Vec<u64>,
    /// Per document, per statement index (and one past the end): what the rest writes.
    suffixes: Vec<Vec<Suffix>>,
    /// Controllers some tool body aborts: a body may run whenever its tool is executed, so
    /// these count as abortable from every state (an over-approximation, hence sound).
    body_aborts: u64,
    /// Per document: its event loop's bit.
    agent_of_doc: Vec<u64>,
    /// Per tab: the bits of the event loops of the documents in it.
    agents_of_tab: Vec<u64>,
    /// Per document, per statement index (and one past the end): the event loops on which
    /// the rest of its script, and what that starts, can still queue a task.
    script_queues: Vec<Vec<u64>>,
    /// Whether the scenario lets the environment intervene at all.
    interventions: bool,
    /// Per document: whether its script never suspends (no `await`, no `awaitToolchange`),
    /// so that no microtask checkpoint ever resumes it.
    never_suspends: Vec<bool>,
}

const fn bit(i: usize) -> u64 {
    1 << i
}

// Documents (and so event loops), tabs and controllers each fit one bit of a u64.
const _: () = assert!(crate::limits::MAX_DOCUMENTS <= u64::BITS as usize);
const _: () = assert!(crate::limits::MAX_TABS <= u64::BITS as usize);
const _: () = assert!(crate::limits::MAX_CONTROLLERS <= u64::BITS as usize);

impl Footprints {
    pub fn of(w: &World) -> Footprints {
        let tab_of_doc: Vec<u64> = w
            .docs
            .iter()
            .map(|d| bit(w.navs[d.nav.index()].tab.index()))
            .collect();
        let mut docs_of_tab = vec![0u64; w.tabs.len()];
        for (d, tab) in tab_of_doc.iter().enumerate() {
            docs_of_tab[tab.trailing_zeros() as usize] |= bit(d);
        }
        let suffixes = w
            .docs
            .iter()
            .map(|doc| {
                let mut out = vec![Suffix::default(); doc.script.len() + 1];
                for (i, op) in doc.script.iter().enumerate().rev() {
                    let mut s = out[i + 1];
                    match op {
                        // The tool map of the ModelContext the call is made on.
                        Op::Register(r) => {
                            s.writes.tools |= bit(w.calls[r.call.index()].doc.index())
                        }
                        Op::Abort(c) => s.aborts |= bit(c.index()),
                        Op::RemoveIframe(n) | Op::Navigate(n) => {
                            s.writes.trees |= bit(w.navs[n.index()].tab.index())
                        }
                        Op::GetTools(_) | Op::Execute(_) | Op::Await(_) | Op::AwaitToolchange => {}
                    }
                    out[i] = s;
                }
                out
            })
            .collect();
        let mut body_aborts = 0u64;
        for doc in &w.docs {
            for op in &doc.script {
                if let Op::Register(r) = op {
                    for b in r.body.iter().flatten() {
                        if let crate::world::BodyOp::Abort(c) = b {
                            body_aborts |= bit(c.index());
                        }
                    }
                }
            }
        }
        let agent_of_doc: Vec<u64> = w.docs.iter().map(|d| bit(d.agent.index())).collect();
        let agents_of_tab: Vec<u64> = docs_of_tab
            .iter()
            .map(|docs| {
                (0..w.docs.len())
                    .filter(|d| docs & bit(*d) != 0)
                    .fold(0, |m, d| m | agent_of_doc[d])
            })
            .collect();
        let script_queues = w
            .docs
            .iter()
            .map(|doc| {
                let mut out = vec![0u64; doc.script.len() + 1];
                for (i, op) in doc.script.iter().enumerate().rev() {
                    out[i] = out[i + 1]
                        | match op {
                            // A registration (or the unregistration its signal may start at
                            // once) notifies the documents of the ModelContext's tab and
                            // resolves on that document's loop (`register-tool#20`).
                            Op::Register(r) => {
                                let d = w.calls[r.call.index()].doc.index();
                                let tab = tab_of_doc[d].trailing_zeros() as usize;
                                agents_of_tab[tab] | agent_of_doc[d]
                            }
                            Op::Await(_) | Op::AwaitToolchange => 0,
                            // Executions, getTools, aborts and tree changes: anywhere.
                            Op::GetTools(_)
                            | Op::Execute(_)
                            | Op::Abort(_)
                            | Op::RemoveIframe(_)
                            | Op::Navigate(_) => u64::MAX,
                        };
                }
                out
            })
            .collect();
        let interventions = !(w.env.abort.is_empty()
            && w.env.remove_iframe.is_empty()
            && w.env.navigate.is_empty()
            && w.env.bfcache.is_empty());
        let never_suspends = w
            .docs
            .iter()
            .map(|doc| {
                !doc.script
                    .iter()
                    .any(|op| matches!(op, Op::Await(_) | Op::AwaitToolchange))
            })
            .collect();
        Footprints {
            never_suspends,
            tab_of_doc,
            docs_of_tab,
            suffixes,
            body_aborts,
            agent_of_doc,
            agents_of_tab,
            script_queues,
            interventions,
        }
    }
}

/// What the rest of the system can still do from a state on (over-approximated).
#[derive(Clone, Copy, Debug, Default)]
pub struct Future {
    /// Every tree and tool map some script, abort steps or environment move can still write.
    pub writes: Classes,
    /// Controllers some script, tool body or environment move can still abort (whether or
    /// not they are aborted already).
    pub aborts: u64,
}

/// Every tree and tool map that some script, abort steps or environment move can still
/// write, from `s` on, and the controllers they can still abort.
pub fn future_of(w: &World, f: &Footprints, s: &State) -> Future {
    let mut writes = Classes::default();
    let mut aborts = f.body_aborts;
    for suffix in rest_of_scripts(s, &f.suffixes) {
        writes = writes.union(suffix.writes);
        aborts |= suffix.aborts;
    }
    if s.env.interventions_left > 0 {
        for &c in &w.env.abort {
            aborts |= bit(c.index());
        }
        for &n in w.env.remove_iframe.iter().chain(&w.env.navigate) {
            if s.env.navs_done & bit(n.index()) == 0 {
                writes.trees |= bit(w.navs[n.index()].tab.index());
            }
        }
        for &t in &w.env.bfcache {
            if s.env.bfcache_phase(t) < 2 {
                writes.trees |= bit(t.index());
            }
        }
    }
    // The abort steps of a controller that can still be aborted unregister the tools
    // registered with its signal (register-tool#17.3.1); a registration still to come
    // adds its step, but is a script statement, already counted.
    for (c, ctrl) in s.controllers.iter().enumerate() {
        if aborts & bit(c) == 0 || ctrl.aborted {
            continue;
        }
        for step in ctrl.abort_steps.iter() {
            if let AbortStep::Register { call } = step {
                writes.tools |= bit(w.calls[call.index()].doc.index());
            }
        }
    }
    Future { writes, aborts }
}

/// What a thread's next step reads of the two classes, and whether it reads the `changed`
/// mark other actors set on running getTools walks; `None` when the step is never safe
/// (it reads or writes shared state beyond the two classes).
pub fn reads(f: &Footprints, t: &Thread) -> Option<(Classes, bool)> {
    let tree = |d: DocId| Classes {
        trees: f.tab_of_doc[d.index()],
        tools: 0,
    };
    match t {
        // notify-tool-change#2–#3 read the owner's navigable and the tree under it;
        // #3.1–#3.3 read a navigable's active document and its lifecycle.
        Thread::Notify { owner, pc, .. } => match pc {
            NotifyPc::Start | NotifyPc::Visit(_) => Some((tree(*owner), false)),
            NotifyPc::ResolveRegistration => None,
        },
        Thread::GetTools { requestor, pc, .. } => match pc {
            // get-tools#8.2–#8.3: the walk starts; a tool change before it is unmarked.
            GetToolsPc::Start => Some((tree(*requestor), true)),
            // get-tools#8.3.1–#8.3.8: a navigable of the tab and its document's tool map.
            // A change marked during the walk commutes with it (the mark is carried on).
            GetToolsPc::Visit { .. } => {
                let tab = f.tab_of_doc[requestor.index()];
                Some((
                    Classes {
                        trees: tab,
                        tools: f.docs_of_tab[tab.trailing_zeros() as usize],
                    },
                    false,
                ))
            }
            GetToolsPc::Finish { .. } => None,
        },
        Thread::Execute {
            caller, target, pc, ..
        } => match pc {
            // execute-tool#16.1: both documents' node navigables.
            ExecutePc::CheckTraversableAndOrigin => {
                Some((tree(*caller).union(tree(*target)), false))
            }
            // execute-tool#16.7–#16.9: the target's tool map.
            ExecutePc::CheckToolExists | ExecutePc::ReadToolDefinition => Some((
                Classes {
                    trees: 0,
                    tools: bit(target.index()),
                },
                false,
            )),
            ExecutePc::SetPending | ExecutePc::QueueToolExecuteSteps => None,
        },
        // execute-tool#16.10.1: the target's traversable (its tree) and the execution's
        // entry in that traversable's pending map, which `entry_may_change` guards.
        Thread::Completion(proc) => match proc.pc {
            CompletionPc::Check => Some((tree(proc.target), false)),
            CompletionPc::Remove | CompletionPc::Queue => None,
        },
        Thread::Cancel(_) | Thread::Cleanup { .. } => None,
    }
}

/// Whether anything other than thread `me` can still write execution `uuid`'s entry of a
/// pending tool executions map, from `s` on (over-approximated). The entry is stored by the
/// execution's own `execute-tool` thread and removed by completion steps (started by its
/// tool body settling, by `imperative-execute-steps#3`, by unloading cleanup or by an
/// unregistration under PR #247's text), by cancellation (after its signal is aborted, or
/// from unloading cleanup) and by unloading cleanup itself. So it can change while:
/// another thread for the same execution, or any unloading cleanup, is running; a task that
/// names it is queued; its tool body can still settle; its signal can still be aborted; or
/// its target's tool map can still change. A tree change that starts a cleanup is the
/// completion check's declared tree read.
fn entry_may_change(
    w: &World,
    s: &State,
    future: &Future,
    me: ThreadKey,
    uuid: CallId,
    target: DocId,
) -> bool {
    let threads = s.threads.keys().any(|k| {
        *k != me
            && match *k {
                ThreadKey::Execute(c)
                | ThreadKey::CancelOnAbort(c)
                | ThreadKey::Completion(c)
                | ThreadKey::CleanupCompletion(c, _) => c == uuid,
                ThreadKey::Cleanup(..) => true,
                ThreadKey::Register(_) | ThreadKey::Unregister(_) | ThreadKey::GetTools(_) => false,
            }
    });
    let tasks = s
        .queues
        .iter()
        .flatten()
        .any(|t| t.kind.execution() == Some(uuid));
    let body = s.bodies.get(&uuid).is_some_and(|b| !b.settled);
    let signal = w
        .execute_op(uuid)
        .signal
        .is_some_and(|c| future.aborts & bit(c.index()) != 0 && !s.controllers[c.index()].aborted);
    threads || tasks || body || signal || future.writes.tools & bit(target.index()) != 0
}

/// Why a thread's step is not safe at a state (for profiles of the reduction).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Blocker {
    /// Its kind of step always reads or writes shared state beyond the two classes.
    Kind(&'static str),
    /// It reads a tab's tree that something else can still change.
    TreeMayChange,
    /// It reads a tool map that something else can still change.
    ToolsMayChange,
    /// It starts a getTools walk while a tool map or tree can still change.
    WalkMarkMayChange,
    /// It reads an execution's pending map entry that something else can still write.
    EntryMayChange,
    /// On this state it writes shared state (queues a task, ends its thread, records a
    /// ghost fact); as a queuing step, shared state beyond its thread and queues' tails.
    WritesShared,
    /// It queues on an event loop something outside the set can still queue on.
    OthersMayQueue,
    /// A property reads the task it queues, or whether its thread still runs.
    SeenByAProperty,
    /// A queued task or a running cleanup reads what it writes (its thread, or the
    /// toolchange tasks of its cause).
    ReadByATask,
}

impl std::fmt::Display for Blocker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Blocker::Kind(kind) => write!(f, "{kind}: never safe"),
            Blocker::TreeMayChange => f.write_str("reads a tree that can still change"),
            Blocker::ToolsMayChange => f.write_str("reads a tool map that can still change"),
            Blocker::WalkMarkMayChange => {
                f.write_str("starts a getTools walk while a tool map or tree can still change")
            }
            Blocker::EntryMayChange => {
                f.write_str("reads a pending execution that can still change")
            }
            Blocker::WritesShared => {
                f.write_str("writes shared state here (queues a task, ends its thread)")
            }
            Blocker::OthersMayQueue => {
                f.write_str("queues where something else can still queue (the order shows)")
            }
            Blocker::SeenByAProperty => {
                f.write_str("a property reads the task it queues or its thread's end")
            }
            Blocker::ReadByATask => f.write_str("a queued task or a cleanup reads what it writes"),
        }
    }
}

impl WebMcpModel {
    /// For each thread of `s`, why its step is neither safe alone nor a member of the set of
    /// queuing steps (`None`: it is one or the other). A step that may only ever go alone
    /// reports why it is not safe; one that may also queue with others, why it did not.
    pub fn blockers(&self, s: &State) -> Vec<(ThreadKey, Option<Blocker>)> {
        let mut future = None;
        let mut kept_out = Vec::new();
        let set = self.queuing_steps(s, Some(&mut kept_out));
        s.threads
            .iter()
            .map(|(key, thread)| {
                let alone = self.try_step(s, *key, thread, &mut future).err();
                let why = alone
                    .filter(|_| !set.iter().any(|q| q.key == *key))
                    .map(|b| match kept_out.iter().find(|(k, _)| k == key) {
                        Some((_, queuing)) => *queuing,
                        None => b,
                    });
                (*key, why)
            })
            .collect()
    }

    /// A safe step (see the module docs) among the enabled actions of `s`, with the state
    /// it leads to; `None` when there is none and `s` must be fully expanded.
    pub fn safe_step(&self, s: &State) -> Option<(Action, State)> {
        // Computed once, and only for a state with a candidate step.
        let mut future = None;
        s.threads.iter().find_map(|(key, thread)| {
            if likely_queues(&self.world, s, thread) {
                return None;
            }
            let next = self.try_step(s, *key, thread, &mut future).ok()?;
            Some((Action::Step(*key), next))
        })
    }

    /// The state thread `key`'s step leads to if the step is safe on `s`, or why it is not.
    /// `future` caches [`future_of`] of `s`, computed at the first declared read.
    fn try_step(
        &self,
        s: &State,
        key: ThreadKey,
        thread: &Thread,
        future: &mut Option<Future>,
    ) -> Result<State, Blocker> {
        let f = &*self.footprints;
        let (r, reads_changed) = reads(f, thread).ok_or(Blocker::Kind(kind_name(thread)))?;
        let future = *future.get_or_insert_with(|| future_of(&self.world, f, s));
        if r.trees & future.writes.trees != 0 {
            return Err(Blocker::TreeMayChange);
        }
        if r.tools & future.writes.tools != 0 {
            return Err(Blocker::ToolsMayChange);
        }
        if reads_changed && !future.writes.is_empty() {
            return Err(Blocker::WalkMarkMayChange);
        }
        if let Thread::Completion(proc) = thread {
            if entry_may_change(&self.world, s, &future, key, proc.uuid, proc.target) {
                return Err(Blocker::EntryMayChange);
            }
        }
        let next = self.apply(s, Action::Step(key), &mut ());
        if only_thread_changed(s, &next, key) {
            Ok(next)
        } else {
            Err(Blocker::WritesShared)
        }
    }
}

/// Whether a notification's next visit finds a document it may notify, and so queues a
/// task (not safe): skipping the trial step saves its cost. Skipping is always sound.
fn likely_queues(w: &World, s: &State, t: &Thread) -> bool {
    match t {
        Thread::Notify {
            pc: NotifyPc::Visit(navs),
            ..
        } => {
            let mut navs = *navs;
            navs.pop()
                .and_then(|n| s.navs[n.index()].active)
                .is_some_and(|d| s.allowed_to_use_tools(w, d))
        }
        _ => false,
    }
}

fn kind_name(t: &Thread) -> &'static str {
    match t {
        Thread::Notify { .. } => "notify (queuing)",
        Thread::GetTools { .. } => "getTools (finishing the walk)",
        Thread::Execute { .. } => "execute (storing the pending execution or queuing)",
        Thread::Cancel(_) => "cancel a pending tool execution",
        Thread::Completion(_) => "completion steps (removing the entry)",
        Thread::Cleanup { .. } => "unloading cleanup",
    }
}

/// Whether `next` differs from `s` only in thread `key`'s entry, which is still there.
fn only_thread_changed(s: &State, next: &State, key: ThreadKey) -> bool {
    s.same_outside(next, parts::THREADS)
        && s.threads.len() == next.threads.len()
        && s.threads
            .iter()
            .zip(next.threads.iter())
            .all(|((k1, t1), (k2, t2))| k1 == k2 && (*k1 == key || t1 == t2))
}

/// What the properties being judged read of the state a queuing step changes beyond its
/// thread's locals: queued tasks, which threads exist, and pending executions. A catalogue states its own
/// (`webmcp_properties::catalogue::VISIBILITY`, `docs/model.md` §7); a model that has not
/// been told ([`Visibility::EVERYTHING`]) never takes a step that queues a task or ends its
/// thread alone.
#[derive(Clone, Copy)]
pub struct Visibility {
    /// Whether some property reads the queued tasks of this kind.
    pub queued_task: fn(&TaskKind) -> bool,
    /// Whether some property reads whether thread `key` exists, in any state whose
    /// documents' lifecycles are those of `s`.
    pub thread: fn(&World, &State, ThreadKey) -> bool,
    /// Whether some property that is not already shown at `s` reads whether this entry of a
    /// pending tool executions map exists, in any state whose documents' lifecycles are
    /// those of `s` (a sometimes property that holds at `s` is shown there: nothing after
    /// `s` can change its verdict).
    pub pending_entry: fn(&World, &State, &PendingExecution) -> bool,
    /// Whether firing one more `toolchange` event (a document's counter up by one) keeps
    /// every property's outcome at any state: an always property that fails there still
    /// fails, a sometimes property (or witness) that holds still holds. A `toolchange` task
    /// runs alone only then ([`WebMcpModel::task_alone`]).
    pub toolchange_fired_keeps_outcomes: bool,
    /// Whether fulfilling the pending promise of registration `call` keeps, at any state
    /// where it is pending, every outcome there, except that of a sometimes property that
    /// holds at every state where that promise is pending. A registration's resolution runs
    /// alone only then ([`WebMcpModel::task_alone`]).
    pub registration_resolved_keeps_outcomes: fn(&World, CallId) -> bool,
    /// Whether settling a pending `executeTool` promise (fulfilling it with the tool's
    /// result, or rejecting it with an "UnknownError"), and counting the attempt, keeps, at
    /// any state where it is pending, every outcome there, except that of a sometimes
    /// property that holds at every state where that promise is pending. An execution's
    /// settlement runs alone only then ([`WebMcpModel::task_alone`]).
    pub execution_settled_keeps_outcomes: bool,
    /// Whether settling a running tool body without a script, of a pending execution, whose
    /// signal is not aborted and whose completion steps' thread no property reads ([`Visibility::thread`]) (its
    /// reaction, `imperative-execute-steps#10`: the body settled, its entry gone from the
    /// local map, its completion steps started in parallel), with any outcome, keeps, at
    /// any state where it runs so, every outcome there, except that of a sometimes property
    /// that holds at every state where it runs so and the documents' lifecycles and unloads
    /// are as there. A body's settlement goes alone only then ([`WebMcpModel::body_alone`]).
    pub body_settled_keeps_outcomes: bool,
    /// Whether starting the tool of a pending execution, for which no body runs yet (the
    /// tool execute steps: its uuid added to the target's local map, a body without a script
    /// running, `toolactivated` recorded), keeps every outcome at any state where it has not
    /// started. The tool execute steps go alone only then ([`WebMcpModel::task_alone`]).
    pub tool_started_keeps_outcomes: bool,
    /// Whether every property reads facts of this kind only as "a fact of this kind is
    /// present" (an always property fails at a state with one, a sometimes property holds
    /// at a state with one: removing facts of the kind never makes one fail or hold), and
    /// no at-termination property reads them. Such facts are forgotten once the state
    /// holding them is judged, where the search forgets dead parts
    /// ([`dead_facts`]).
    pub fact_read_as_presence: fn(&crate::state::Ghost) -> bool,
}

impl Visibility {
    /// Properties may read every queued task and every thread.
    pub const EVERYTHING: Visibility = Visibility {
        queued_task: |_| true,
        thread: |_, _, _| true,
        pending_entry: |_, _, _| true,
        toolchange_fired_keeps_outcomes: false,
        registration_resolved_keeps_outcomes: |_, _| false,
        execution_settled_keeps_outcomes: false,
        body_settled_keeps_outcomes: false,
        tool_started_keeps_outcomes: false,
        fact_read_as_presence: |_| false,
    };
    /// No property reads a queued task or a thread (for the tests of persistence alone).
    pub const NOTHING: Visibility = Visibility {
        queued_task: |_| false,
        thread: |_, _, _| false,
        pending_entry: |_, _, _| false,
        toolchange_fired_keeps_outcomes: true,
        registration_resolved_keeps_outcomes: |_, _| true,
        execution_settled_keeps_outcomes: true,
        body_settled_keeps_outcomes: true,
        tool_started_keeps_outcomes: true,
        // Not a claim the tests of persistence need: nothing is forgotten under it.
        fact_read_as_presence: |_| false,
    };
}

impl std::fmt::Debug for Visibility {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Visibility")
    }
}

/// What a queuing step reads, for the thread steps that may join a [`queuing_steps`] set;
/// `None` for every other step.
///
/// [`queuing_steps`]: WebMcpModel::queuing_steps
fn queuing_reads(w: &World, f: &Footprints, t: &Thread) -> Option<Classes> {
    let tree = |d: DocId| Classes {
        trees: f.tab_of_doc[d.index()],
        tools: 0,
    };
    match t {
        // notify-tool-change#2–#3.3 as in `reads`; queuing (`#3.3`) reads the lifecycle of a
        // document of the same tab.
        Thread::Notify {
            owner,
            pc: NotifyPc::Start | NotifyPc::Visit(_),
            ..
        } => Some(tree(*owner)),
        // register-tool#20.2 queues on the ModelContext's document (its lifecycle).
        Thread::Notify {
            owner,
            cause,
            pc: NotifyPc::ResolveRegistration,
            ..
        } => Some(tree(*owner).union(tree(w.calls[cause.index()].doc))),
        // execute-tool#16.10.3–#16.10.4 queue on the caller (its lifecycle).
        Thread::Completion(proc) if matches!(proc.pc, CompletionPc::Queue) => {
            Some(tree(w.calls[proc.uuid.index()].doc))
        }
        // execute-tool#16.10.2 removes the entry from the target's traversable's map; the
        // caller's tree too, since whether a property sees the entry depends on the
        // lifecycles of both documents it names.
        Thread::Completion(proc) if matches!(proc.pc, CompletionPc::Remove) => {
            Some(tree(proc.target).union(tree(w.calls[proc.uuid.index()].doc)))
        }
        _ => None,
    }
}

/// The event loops on which thread `t`, from its current step on, and the tasks it queues
/// can still queue a task (over-approximated: `u64::MAX` is every loop).
fn thread_queues(w: &World, f: &Footprints, t: &Thread) -> u64 {
    match t {
        // Toolchange tasks at the documents of the owner's tab, the registration's resolution
        // on its ModelContext's document; running either queues nothing.
        Thread::Notify { owner, cause, .. } => {
            let tab = f.tab_of_doc[owner.index()].trailing_zeros() as usize;
            f.agents_of_tab[tab] | f.agent_of_doc[w.calls[cause.index()].doc.index()]
        }
        // get-tools#8.5 resolves on the requestor's loop.
        Thread::GetTools { requestor, .. } => f.agent_of_doc[requestor.index()],
        // execute-tool#16.10.3–#16.10.4 settle on the caller's loop.
        Thread::Completion(proc) => f.agent_of_doc[w.calls[proc.uuid.index()].doc.index()],
        // Executions, cancellations and cleanups start tool bodies and further threads.
        Thread::Execute { .. } | Thread::Cancel(_) | Thread::Cleanup { .. } => u64::MAX,
    }
}

/// The event loops on which something other than a thread can still queue a task, from `s`
/// on: scripts from their current statement (and the threads they start), queued tasks that
/// run tool bodies or cancel, tool bodies still to settle, the environment.
fn queues_without_threads(f: &Footprints, s: &State) -> u64 {
    if (f.interventions && s.env.interventions_left > 0)
        || s.bodies.iter().any(|(_, b)| !b.settled)
        || s.queues.iter().flatten().any(|t| {
            matches!(
                t.kind,
                TaskKind::RunToolExecuteSteps { .. } | TaskKind::CancelLocal { .. }
            )
        })
    {
        return u64::MAX;
    }
    rest_of_scripts(s, &f.script_queues).fold(0, |m, q| m | q)
}

/// For each script still to run or resume, the entry of its document's table (indexed by
/// statement, one past the end included) at its current statement.
fn rest_of_scripts<'a, T: Copy>(
    s: &'a State,
    tables: &'a [Vec<T>],
) -> impl Iterator<Item = T> + 'a {
    s.docs.iter().zip(tables).filter_map(|(doc, table)| {
        let done = matches!(
            doc.script.status,
            ScriptStatus::Finished | ScriptStatus::Threw
        );
        (!done).then(|| table[(doc.script.pc as usize).min(table.len() - 1)])
    })
}

/// A step that may join a set of queuing steps: its action, the state it leads to, and the
/// event loops it queues on.
struct Queuing {
    key: ThreadKey,
    next: State,
    queues: u64,
}

impl WebMcpModel {
    /// The persistent set [`webmcp_checker::Model::persistent_set`] names: a safe step alone
    /// if there is one, else a task alone ([`WebMcpModel::task_alone`]), else a body's
    /// settlement alone ([`WebMcpModel::body_alone`]), else a set of queuing steps
    /// (`WebMcpModel::queuing_steps`).
    pub fn persistent_steps(&self, s: &State, set: &mut Vec<(Action, State)>) -> bool {
        if let Some(step) = self.safe_step(s) {
            set.push(step);
            return true;
        }
        if let Some(task) = self.task_alone(s) {
            set.push(task);
            return true;
        }
        if let Some(settlements) = self.body_alone(s) {
            set.extend(settlements);
            return true;
        }
        let steps = self.queuing_steps(s, None);
        if steps.is_empty() {
            return false;
        }
        set.extend(steps.into_iter().map(|q| (Action::Step(q.key), q.next)));
        true
    }

    /// A set of thread steps that each change only their own thread (its locals, or its end)
    /// and append tasks to event loops' queues, taken together where nothing outside the set
    /// can still queue on those loops (`docs/model.md` §7); empty when there is none. Each
    /// step that might have joined and did not is put in `kept_out` with the reason.
    fn queuing_steps(
        &self,
        s: &State,
        mut kept_out: Option<&mut Vec<(ThreadKey, Blocker)>>,
    ) -> Vec<Queuing> {
        let (w, f) = (&*self.world, &*self.footprints);
        let mut future = None;
        let mut set: Vec<Queuing> = Vec::new();
        for (key, thread) in s.threads.iter() {
            let Some(r) = queuing_reads(w, f, thread) else {
                continue;
            };
            let future = *future.get_or_insert_with(|| future_of(w, f, s));
            match self.try_queuing(s, *key, thread, r, &future) {
                Ok(q) => set.push(q),
                Err(b) => {
                    if let Some(out) = kept_out.as_deref_mut() {
                        out.push((*key, b));
                    }
                }
            }
        }
        if set.is_empty() {
            return set;
        }
        // Nothing outside the set may queue where a step of the set queues; a step that
        // leaves the set is outside it, so repeat until no step leaves.
        let elsewhere = queues_without_threads(f, s);
        loop {
            let mut outside = elsewhere;
            for (key, thread) in s.threads.iter() {
                if !set.iter().any(|q| q.key == *key) {
                    outside |= thread_queues(w, f, thread);
                }
            }
            let before = set.len();
            set.retain(|q| {
                let quiet = q.queues & outside == 0;
                if let (false, Some(out)) = (quiet, kept_out.as_deref_mut()) {
                    out.push((q.key, Blocker::OthersMayQueue));
                }
                quiet
            });
            if set.len() == before || set.is_empty() {
                return set;
            }
        }
    }

    /// Thread `key`'s step as a member of a set of queuing steps on `s`, or why it cannot be
    /// one whatever else the set holds. `r` is what the step reads ([`queuing_reads`]).
    fn try_queuing(
        &self,
        s: &State,
        key: ThreadKey,
        thread: &Thread,
        r: Classes,
        future: &Future,
    ) -> Result<Queuing, Blocker> {
        let w = &*self.world;
        if r.trees & future.writes.trees != 0 {
            return Err(Blocker::TreeMayChange);
        }
        if r.tools & future.writes.tools != 0 {
            return Err(Blocker::ToolsMayChange);
        }
        match thread {
            // Running register-tool#20.2's task reads whether this thread exists and which
            // toolchange tasks of its cause are queued.
            Thread::Notify { cause, .. } => {
                let resolving = s.queues.iter().flatten().any(
                    |t| matches!(t.kind, TaskKind::ResolveRegister { call } if call == *cause),
                );
                if resolving {
                    return Err(Blocker::ReadByATask);
                }
            }
            // Unloading cleanup reads whether this thread exists (`unload-cleanup#2.3`), and
            // a new start of the completion steps would take its key.
            Thread::Completion(proc) => {
                if s.threads
                    .keys()
                    .any(|k| matches!(k, ThreadKey::Cleanup(..)))
                {
                    return Err(Blocker::ReadByATask);
                }
                if future.writes.trees != 0 {
                    return Err(Blocker::TreeMayChange);
                }
                if entry_may_change(w, s, future, key, proc.uuid, proc.target) {
                    return Err(Blocker::EntryMayChange);
                }
            }
            _ => {}
        }
        let next = self.apply(s, Action::Step(key), &mut ());
        let queues = self.only_thread_and_queued(s, &next, key)?;
        Ok(Queuing { key, next, queues })
    }

    /// The event loops on whose queues `next` appends to `s`, if `next` differs from `s`
    /// only by that and by thread `key` (moved on, or ended), and no property sees either.
    fn only_thread_and_queued(
        &self,
        s: &State,
        next: &State,
        key: ThreadKey,
    ) -> Result<u64, Blocker> {
        if !s.same_outside(next, parts::QUEUES | parts::THREADS | parts::PENDING) {
            return Err(Blocker::WritesShared);
        }
        if s.pending != next.pending {
            let removed = match s.threads.get(&key) {
                Some(Thread::Completion(proc)) => self.removed_entry(s, next, proc.uuid),
                _ => None,
            };
            let Some(entry) = removed else {
                return Err(Blocker::WritesShared);
            };
            if (self.visibility.pending_entry)(&self.world, s, &entry) {
                return Err(Blocker::SeenByAProperty);
            }
        }
        let ended = !next.threads.contains_key(&key);
        let others_before = s.threads.iter().filter(|(k, _)| **k != key);
        let others_after = next.threads.iter().filter(|(k, _)| **k != key);
        if !others_before.eq(others_after) {
            return Err(Blocker::WritesShared);
        }
        if ended && (self.visibility.thread)(&self.world, s, key) {
            return Err(Blocker::SeenByAProperty);
        }
        let mut queues = 0u64;
        for (agent, (before, after)) in s.queues.iter().zip(next.queues.iter()).enumerate() {
            if before == after {
                continue;
            }
            let n = before.len();
            if after.len() <= n || before.iter().zip(after.iter()).any(|(x, y)| x != y) {
                return Err(Blocker::WritesShared);
            }
            for task in after.iter().skip(n) {
                if (self.visibility.queued_task)(&task.kind) {
                    return Err(Blocker::SeenByAProperty);
                }
                if self.heard_late(before, task) {
                    return Err(Blocker::ReadByATask);
                }
            }
            queues |= bit(agent);
        }
        Ok(queues)
    }

    /// The entry of execution `uuid` that `next` removed from a pending tool executions map
    /// of `s`, if that is the only difference between the two states' maps.
    fn removed_entry(&self, s: &State, next: &State, uuid: CallId) -> Option<PendingExecution> {
        let mut removed = None;
        for (before, after) in s.pending.iter().zip(next.pending.iter()) {
            if before == after {
                continue;
            }
            let i = before.iter().position(|(c, _)| *c == uuid)?;
            let rest = before
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, e)| e);
            if removed.is_some() || !rest.eq(after.iter()) {
                return None;
            }
            removed = Some(before[i].1);
        }
        removed
    }

    /// Whether running a task already queued (`before`) would look for `task`: a toolchange
    /// task looks for one of the same cause queued at an ancestor (`notify-tool-change#3.3`,
    /// the ordering example).
    fn heard_late(
        &self,
        before: &crate::coll::Vector<crate::state::Task>,
        task: &crate::state::Task,
    ) -> bool {
        let TaskKind::FireToolchange { cause, registered } = task.kind else {
            return false;
        };
        before.iter().any(|t| {
            matches!(t.kind, TaskKind::FireToolchange { cause: c, registered: r } if c == cause && r == registered)
                && crate::machine::is_ancestor(&self.world, task.doc, t.doc)
        })
    }
}
