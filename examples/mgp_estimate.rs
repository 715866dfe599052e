//! How many states would a "most general page" have? An estimate from the sweep's own
//! scenarios, to choose between enumerating scenarios and one nondeterministic model
//! (`docs/sweep.md`, "Enumeration or a most general page", and `docs/model.md` §9).
//!
//! ```sh
//! cargo run --release --example mgp_estimate -- tiny seed
//! cargo run --release --example mgp_estimate -- small proposed --edges
//! ```
//!
//! A most general page (MGP) would be one model per topology whose scripts choose their next
//! statement nondeterministically within the bound, and whose environment chooses its moves
//! and tool body outcomes lazily within the budget. Scenarios that share a prefix would then
//! share the states of that prefix. This program does not build one. It visits every
//! reachable state of every canonical scenario of a bound (a full breadth-first search with
//! the model's own successor function, as the sweep's checker does, without its early stop
//! once every property is decided) and keys each state by what an MGP state would have to
//! hold:
//!
//! - the **topology** (tabs, the iframe tree, origins, `allow`): an MGP fixes it up front, so
//!   nothing is shared across topologies;
//! - per document, the statements its script has **already executed** (those before its
//!   counter, and the one that threw), never those still to come;
//! - the **world's mutable state** ([`State`]) with every scenario-specific id renamed to a
//!   scenario-independent one: a call is (document, statement index), a controller is
//!   (document, rank among the document's controllers), a replacement document is its
//!   navigable, an interned string is its text. Navigables, tabs, agents and origins are
//!   already numbered by the topology alone (checked below);
//! - the **environment's moves performed so far**: the state records which navigables were
//!   removed or navigated and each tab's bfcache phase; its budget counters are replaced by
//!   how many interventions and observations were *performed* (an MGP counts up to the
//!   bound, while a scenario counts down from its own list). Documents, promises and
//!   controllers that nothing has touched yet (a replacement document never navigated to, a
//!   call not yet made, a controller neither aborted nor given an abort step) are left out,
//!   since whether they exist depends on the scenario's future.
//!
//! The bound's statement budget is a function of the executed prefixes. What the key leaves
//! out is the set of tool body outcomes used so far and which controllers the environment
//! (rather than a script) aborted: an MGP would need those budget counters too, so the
//! union of keys is a lower bound on its states (an optimistic estimate for the MGP). It
//! also counts only canonical scenarios: with one tool name (every preset) canonical forms
//! differ only by topology, which an MGP would also fix up front.
//!
//! Within one scenario the key must tell apart every two states the fingerprint does (it
//! drops only what is fixed per scenario); the program checks this and reports scenarios
//! where it does not.
//!
//! It prints, for each bound: the sum over scenarios of unique states (what enumeration
//! explores) and the number of distinct keys (an MGP's states, at least), and with
//! `--edges` the same for transitions (distinct (state, successor) pairs), plus the memory
//! of the union's fingerprint set and the largest single scenario.

use std::collections::{HashSet, VecDeque};
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher};
use std::mem::discriminant;
use std::ops::ControlFlow;
use std::time::Instant;

use webmcp_checker::fingerprint::{fingerprint, FingerprintHasher};
use webmcp_generator::space::Stmt;
use webmcp_generator::{Bound, Gen};
use webmcp_model::coll::Vector;
use webmcp_model::state::{
    AbortStep, Body, ControllerState, DocState, EnvState, Ghost, Lifecycle, NavState,
    PendingExecution, PromiseState, Reason, RegisteredTool, ScriptState, ScriptStatus, State,
    Status, Task, TaskKind, ToolDefinition, Value,
};
use webmcp_model::threads::{
    CancelPc, CancelProc, CleanupPc, CleanupSub, CompletionProc, GetToolsPc, Thread, ThreadKey,
};
use webmcp_model::world::{CallId, CtrlId, DocId, Op, StrId, World};
use webmcp_model::{StepId, Variant, WebMcpModel};
use webmcp_profiles::limits::thousands;

/// A set of 64-bit fingerprints (already hashes, used as they are).
type FpSet = HashSet<u64, BuildHasherDefault<FingerprintHasher>>;

fn hasher() -> ahash::AHasher {
    ahash::RandomState::with_seeds(0x006d_6770, 0x006b_6579, 0x7374_6174, 0x6573).build_hasher()
}

/// One scenario's renaming of ids to scenario-independent ones.
struct Canon<'a> {
    w: &'a World,
    /// Per topology document (in `DocId` order, which is the generator's preorder over tabs):
    /// its whole script, of which a state's key takes the executed prefix.
    scripts: Vec<&'a [Stmt]>,
    /// Per `DocId`: a topology document keeps its number; a navigation's replacement
    /// document is `0x100 + its navigable`.
    doc: Vec<u16>,
    /// Per `CallId`: `document << 8 | statement index`.
    call: Vec<u32>,
    /// Per `CtrlId`: `document << 8 | rank among its owner's controllers`.
    ctrl: Vec<u32>,
    /// The topology's hash.
    topology: u64,
}

fn call_of(op: &Op) -> Option<CallId> {
    match op {
        Op::Register(r) => Some(r.call),
        Op::GetTools(g) => Some(g.call),
        Op::Execute(e) => Some(e.call),
        _ => None,
    }
}

impl<'a> Canon<'a> {
    fn new(w: &'a World, gen: &'a Gen) -> Canon<'a> {
        let scripts: Vec<&[Stmt]> = gen
            .tabs
            .iter()
            .flat_map(|t| t.docs.iter().map(|d| d.script.as_slice()))
            .collect();
        let topo = scripts.len();
        let doc: Vec<u16> = w
            .docs
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let nav = &w.navs[d.nav.index()];
                if i < topo {
                    assert_eq!(nav.initial.index(), i, "topology documents come first");
                    assert_eq!(d.script.len(), scripts[i].len());
                    i as u16
                } else {
                    assert_eq!(nav.replacement, Some(DocId::nth(i)));
                    // Same origin as the document it replaces: no new agent or origin.
                    assert_eq!(d.agent, w.docs[nav.initial.index()].agent);
                    assert_eq!(d.origin, w.docs[nav.initial.index()].origin);
                    0x100 + d.nav.index() as u16
                }
            })
            .collect();
        let mut call = vec![u32::MAX; w.calls.len()];
        for (di, d) in w.docs.iter().enumerate() {
            for (k, op) in d.script.iter().enumerate() {
                if let Some(c) = call_of(op) {
                    call[c.index()] = (u32::from(doc[di]) << 8) | k as u32;
                }
            }
        }
        let ctrl: Vec<u32> = w
            .controllers
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let rank = w.controllers[..i]
                    .iter()
                    .filter(|x| x.owner == c.owner)
                    .count();
                (u32::from(doc[c.owner.index()]) << 8) | rank as u32
            })
            .collect();
        // The renamings keep the order of the ids they rename, so ordered maps and sets of
        // a state iterate in the same order under either name (the key hashes them in it).
        for v in [&call, &ctrl] {
            assert!(v.windows(2).all(|p| p[0] < p[1]), "a renaming keeps order");
        }
        assert!(
            doc.windows(2).all(|p| p[0] < p[1]),
            "a renaming keeps order"
        );
        // Origins are numbered by the topology alone: scripts name no origin of their own.
        let mut origins: Vec<u8> = gen
            .tabs
            .iter()
            .flat_map(|t| t.docs.iter().map(|d| d.origin))
            .collect();
        origins.sort_unstable();
        origins.dedup();
        assert_eq!(
            w.origins.len(),
            origins.len(),
            "origins come from the topology"
        );
        let mut h = hasher();
        for t in &gen.tabs {
            t.docs.len().hash(&mut h);
            for d in &t.docs {
                (d.parent, d.origin, d.allow).hash(&mut h);
            }
        }
        Canon {
            w,
            scripts,
            doc,
            call,
            ctrl,
            topology: h.finish(),
        }
    }

    /// The key of `s`: what a most general page's state would hold (see the module docs).
    /// Without `prefixes`, each script is known only by how many statements it ran (its
    /// counter and status, in the state): the most any design could share, since the
    /// world's state and the statement budget must be kept.
    fn key(&self, s: &State, prefixes: bool) -> u64 {
        let State {
            docs,
            navs,
            queues,
            threads,
            promises,
            controllers,
            pending,
            bodies,
            env,
            ghost,
        } = s;
        let h = &mut hasher();
        self.topology.hash(h);
        // What each script has executed: the statements before its counter, and the
        // statement that threw.
        if prefixes {
            for (d, script) in self.scripts.iter().enumerate() {
                let st = docs[d].script;
                let done = st.pc as usize + usize::from(st.status == ScriptStatus::Threw);
                script[..done].hash(h);
            }
        }
        for (i, d) in docs.iter().enumerate() {
            if i >= self.scripts.len() && is_untouched_doc(d) {
                continue;
            }
            self.doc[i].hash(h);
            d.canon(self, h);
        }
        navs.canon(self, h);
        queues.len().hash(h);
        for q in queues.iter() {
            q.canon(self, h);
        }
        threads.len().hash(h);
        for (k, t) in threads.iter() {
            k.canon(self, h);
            t.canon(self, h);
        }
        for (i, p) in promises.iter().enumerate() {
            if !is_untouched_promise(p) {
                self.call[i].hash(h);
                p.canon(self, h);
            }
        }
        for (i, c) in controllers.iter().enumerate() {
            if c.aborted || !c.abort_steps.is_empty() {
                self.ctrl[i].hash(h);
                c.canon(self, h);
            }
        }
        pending.len().hash(h);
        for p in pending.iter() {
            p.canon(self, h);
        }
        bodies.len().hash(h);
        for (c, b) in bodies.iter() {
            c.canon(self, h);
            b.canon(self, h);
        }
        let EnvState {
            interventions_left,
            navs_done,
            bfcache,
            observations_left,
        } = *env;
        // Moves performed so far, not the moves this scenario still allows.
        (self.w.env.max_interventions - interventions_left).hash(h);
        (self.w.env.observe - observations_left).hash(h);
        (navs_done, bfcache).hash(h);
        ghost.len().hash(h);
        for g in ghost.iter() {
            g.canon(self, h);
        }
        h.finish()
    }
}

fn is_untouched_doc(d: &DocState) -> bool {
    d.lifecycle == Lifecycle::Initial
        && d.tools.is_empty()
        && d.local.is_empty()
        && d.script.pc == 0
        && d.script.status == ScriptStatus::NotStarted
        && d.cleanups == 0
        && d.toolchanges == 0
}

fn is_untouched_promise(p: &PromiseState) -> bool {
    p.status == Status::NotCalled
        && p.attempts == 0
        && !p.tried_fulfil
        && !p.tried_reject
        && p.settled_at.is_none()
}

/// Hashing under a scenario's renaming of ids.
trait Canonical {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher);
}

/// Values whose ids are the same in every scenario of a topology: hashed as they are.
macro_rules! as_is {
    ($($t:ty),*) => {$(
        impl Canonical for $t {
            fn canon(&self, _: &Canon, h: &mut ahash::AHasher) {
                self.hash(h)
            }
        }
    )*};
}

as_is!(
    u8,
    bool,
    Lifecycle,
    webmcp_model::world::NavId,
    webmcp_model::world::Annotations,
    webmcp_model::origin::OriginSet,
    StepId,
    webmcp_model::threads::ExecutePc,
    webmcp_model::threads::NotifyPc,
    webmcp_model::threads::CompletionPc
);

impl Canonical for StrId {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        c.w.str(*self).hash(h)
    }
}
impl Canonical for CallId {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        c.call[self.index()].hash(h)
    }
}
impl Canonical for DocId {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        c.doc[self.index()].hash(h)
    }
}
impl Canonical for CtrlId {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        c.ctrl[self.index()].hash(h)
    }
}
impl<T: Canonical> Canonical for Option<T> {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        match self {
            None => 0u8.hash(h),
            Some(x) => {
                1u8.hash(h);
                x.canon(c, h)
            }
        }
    }
}
impl<T: Canonical + Clone, const W: bool> Canonical for Vector<T, W> {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        self.len().hash(h);
        for x in self.iter() {
            x.canon(c, h)
        }
    }
}
impl<A: Canonical, B: Canonical> Canonical for (A, B) {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        self.0.canon(c, h);
        self.1.canon(c, h)
    }
}

impl Canonical for DocState {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        let DocState {
            lifecycle,
            tools,
            local,
            script,
            cleanups,
            toolchanges,
        } = self;
        lifecycle.canon(c, h);
        // Keyed by interned name, whose order differs between scenarios: by the name's text.
        let mut entries: Vec<(&str, &ToolDefinition)> =
            tools.iter().map(|(k, v)| (c.w.str(*k), v)).collect();
        entries.sort_unstable_by_key(|(name, _)| *name);
        entries.len().hash(h);
        for (name, def) in entries {
            name.hash(h);
            def.canon(c, h);
        }
        local.len().hash(h);
        for x in local.iter() {
            x.canon(c, h);
        }
        script.canon(c, h);
        (cleanups, toolchanges).hash(h);
    }
}
impl Canonical for ScriptState {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        let ScriptState { pc, status } = self;
        pc.hash(h);
        discriminant(status).hash(h);
        if let ScriptStatus::AwaitingCall(call) = status {
            call.canon(c, h);
        }
    }
}
impl Canonical for NavState {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        let NavState { active, attached } = self;
        active.canon(c, h);
        attached.hash(h);
    }
}
impl Canonical for ToolDefinition {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        let ToolDefinition {
            name,
            title,
            description,
            input_schema,
            annotations,
            exposed,
            registered_by,
        } = self;
        name.canon(c, h);
        title.canon(c, h);
        description.canon(c, h);
        input_schema.canon(c, h);
        annotations.canon(c, h);
        exposed.canon(c, h);
        registered_by.canon(c, h);
    }
}
impl Canonical for RegisteredTool {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        let RegisteredTool {
            name,
            title,
            description,
            input_schema,
            window,
            origin,
            annotations,
            definition,
        } = self;
        definition.canon(c, h);
        name.canon(c, h);
        title.canon(c, h);
        description.canon(c, h);
        input_schema.canon(c, h);
        window.canon(c, h);
        origin.canon(c, h);
        annotations.canon(c, h);
    }
}
impl Canonical for Value {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        discriminant(self).hash(h);
        match self {
            Value::Undefined => {}
            Value::Tools(tools) => tools.canon(c, h),
            Value::Text(s) => s.canon(c, h),
        }
    }
}
impl Canonical for Reason {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        discriminant(self).hash(h);
        if let Reason::Aborted(ctrl) = self {
            ctrl.canon(c, h);
        }
    }
}
impl Canonical for PromiseState {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        let PromiseState {
            status,
            attempts,
            tried_fulfil,
            tried_reject,
            settled_at,
        } = self;
        discriminant(status).hash(h);
        match status {
            Status::NotCalled | Status::Pending => {}
            Status::Fulfilled(v) => v.canon(c, h),
            Status::Rejected(r) => r.canon(c, h),
        }
        (attempts, tried_fulfil, tried_reject, settled_at).hash(h);
    }
}
impl Canonical for AbortStep {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        discriminant(self).hash(h);
        match self {
            AbortStep::Register { call } => call.canon(c, h),
            AbortStep::Execute { call, traversable } => {
                call.canon(c, h);
                traversable.canon(c, h);
            }
        }
    }
}
impl Canonical for ControllerState {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        let ControllerState {
            aborted,
            abort_steps,
        } = self;
        aborted.hash(h);
        abort_steps.canon(c, h);
    }
}
impl Canonical for PendingExecution {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        let PendingExecution {
            caller,
            target,
            tool_name,
        } = self;
        caller.canon(c, h);
        target.canon(c, h);
        tool_name.canon(c, h);
    }
}
impl Canonical for Body {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        let Body {
            target,
            registered_by,
            settled,
            signal_aborted,
            saw_abort_while_running,
            result,
            pc,
            awaiting_abort,
            awaiting_call,
        } = self;
        target.canon(c, h);
        registered_by.canon(c, h);
        (settled, signal_aborted, saw_abort_while_running).hash(h);
        result.canon(c, h);
        (pc, awaiting_abort).hash(h);
        awaiting_call.canon(c, h);
    }
}
impl Canonical for Task {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        let Task { doc, kind } = self;
        doc.canon(c, h);
        discriminant(kind).hash(h);
        match kind {
            TaskKind::FireToolchange { cause, registered } => {
                cause.canon(c, h);
                registered.hash(h);
            }
            TaskKind::ResolveRegister { call } => call.canon(c, h),
            TaskKind::ResolveGetTools { call, tools } => {
                call.canon(c, h);
                tools.canon(c, h);
            }
            TaskKind::RejectExecute { call, at } => {
                call.canon(c, h);
                at.hash(h);
            }
            TaskKind::ResolveExecute { call, result } => {
                call.canon(c, h);
                result.canon(c, h);
            }
            TaskKind::RunToolExecuteSteps {
                call,
                target,
                tool_name,
            } => {
                call.canon(c, h);
                target.canon(c, h);
                tool_name.canon(c, h);
            }
            TaskKind::CancelLocal { call, target } => {
                call.canon(c, h);
                target.canon(c, h);
            }
        }
    }
}
impl Canonical for ThreadKey {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        discriminant(self).hash(h);
        match self {
            ThreadKey::Register(x)
            | ThreadKey::Unregister(x)
            | ThreadKey::GetTools(x)
            | ThreadKey::Execute(x)
            | ThreadKey::CancelOnAbort(x)
            | ThreadKey::Completion(x) => x.canon(c, h),
            ThreadKey::Cleanup(d, n) => {
                d.canon(c, h);
                n.hash(h);
            }
            ThreadKey::CleanupCompletion(x, n) => {
                x.canon(c, h);
                n.hash(h);
            }
        }
    }
}
impl Canonical for CancelProc {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        let CancelProc {
            traversable,
            uuid,
            pc,
        } = self;
        traversable.canon(c, h);
        uuid.canon(c, h);
        discriminant(pc).hash(h);
        match pc {
            CancelPc::Check | CancelPc::Read => {}
            CancelPc::Remove { target } | CancelPc::Queue { target } => target.canon(c, h),
        }
    }
}
impl Canonical for CompletionProc {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        let CompletionProc {
            uuid,
            target,
            result,
            pc,
        } = self;
        uuid.canon(c, h);
        target.canon(c, h);
        result.canon(c, h);
        pc.canon(c, h);
    }
}
impl Canonical for Thread {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        discriminant(self).hash(h);
        match self {
            Thread::Notify {
                owner,
                exposed,
                cause,
                resolve_registration,
                pc,
            } => {
                owner.canon(c, h);
                exposed.canon(c, h);
                cause.canon(c, h);
                resolve_registration.hash(h);
                pc.canon(c, h);
            }
            Thread::GetTools {
                requestor,
                from_origins,
                pc,
            } => {
                requestor.canon(c, h);
                from_origins.canon(c, h);
                discriminant(pc).hash(h);
                match pc {
                    GetToolsPc::Start => {}
                    GetToolsPc::Visit {
                        navs,
                        tools,
                        changed,
                    } => {
                        navs.hash(h);
                        tools.canon(c, h);
                        changed.hash(h);
                    }
                    GetToolsPc::Finish { tools, changed } => {
                        tools.canon(c, h);
                        changed.hash(h);
                    }
                }
            }
            Thread::Execute {
                caller,
                target,
                expected_origin,
                tool_name,
                pc,
            } => {
                caller.canon(c, h);
                target.canon(c, h);
                expected_origin.hash(h);
                tool_name.canon(c, h);
                pc.canon(c, h);
            }
            Thread::Cancel(p) => p.canon(c, h),
            Thread::Completion(p) => p.canon(c, h),
            Thread::Cleanup {
                doc,
                traversable,
                pc,
            } => {
                doc.canon(c, h);
                traversable.canon(c, h);
                discriminant(pc).hash(h);
                if let CleanupPc::Each { uuids, sub } = pc {
                    uuids.canon(c, h);
                    discriminant(sub).hash(h);
                    match sub {
                        CleanupSub::Complete(p) => p.canon(c, h),
                        CleanupSub::Cancel(p) => p.canon(c, h),
                        CleanupSub::Read | CleanupSub::Remove | CleanupSub::Assert => {}
                    }
                }
            }
        }
    }
}
impl Canonical for Ghost {
    fn canon(&self, c: &Canon, h: &mut ahash::AHasher) {
        discriminant(self).hash(h);
        match self {
            Ghost::AssertFailed(s) | Ghost::MissingValue(s) => s.hash(h),
            Ghost::InvokedAfterCallerRejected(x)
            | Ghost::ObjectInputRefused(x)
            | Ghost::CancelTargetGone(x)
            | Ghost::GetToolsMismatch(x)
            | Ghost::ToolchangeOrder(x)
            | Ghost::SettledOffItsEventLoop(x)
            | Ghost::RanUndiscoveredTool(x)
            | Ghost::RanForUnexposedCaller(x)
            | Ghost::CalledOnInactiveDocument(x)
            | Ghost::ToolActivated(x)
            | Ghost::ToolCancelled(x)
            | Ghost::ToolcancelForLiveCaller(x)
            | Ghost::ToolcancelAfterSettlement(x)
            | Ghost::ResultBeforeToolactivated(x) => x.canon(c, h),
            Ghost::ToolchangeMisfired(d)
            | Ghost::LocalMapOffItsEventLoop(d)
            | Ghost::DiscoverableChangeUnnotified(d) => d.canon(c, h),
        }
    }
}

/// The sets one run fills: the union of keys (and of key edges), and per scenario the
/// visited fingerprints (and edges) and keys, cleared between scenarios.
#[derive(Default)]
struct Tally {
    scenarios: u64,
    topologies: std::collections::BTreeSet<u64>,
    /// Σ over scenarios of unique states (fingerprints), and of transitions generated.
    unique: u64,
    generated: u64,
    /// Σ over scenarios of distinct (state, successor) pairs.
    edges: u64,
    /// The most unique states of one scenario.
    largest: u64,
    /// Scenarios where two distinct states had the same key.
    key_merges: u64,
    union: FpSet,
    /// The union of keys without the executed statements.
    union_bare: FpSet,
    union_edges: FpSet,
    seen: FpSet,
    seen_edges: FpSet,
    keys: FpSet,
}

/// Visits every reachable state of `model` breadth-first, keying each one.
fn explore(model: &WebMcpModel, canon: &Canon, t: &mut Tally, edges: bool) {
    t.seen.clear();
    t.seen_edges.clear();
    t.keys.clear();
    let mut queue = VecDeque::new();
    let init = model.initial_state();
    t.seen.insert(fingerprint(&init));
    queue.push_back(init);
    let mut actions = Vec::new();
    while let Some(s) = queue.pop_front() {
        let fp = fingerprint(&s);
        let key = canon.key(&s, true);
        t.keys.insert(key);
        t.union.insert(key);
        t.union_bare.insert(canon.key(&s, false));
        actions.clear();
        model.enabled_actions(&s, &mut actions);
        for &a in &actions {
            let next = model.apply(&s, a, &mut ());
            t.generated += 1;
            let nfp = fingerprint(&next);
            if edges {
                t.seen_edges.insert(pair(fp, nfp));
                t.union_edges.insert(pair(key, canon.key(&next, true)));
            }
            if t.seen.insert(nfp) {
                queue.push_back(next);
            }
        }
    }
    let n = t.seen.len() as u64;
    t.unique += n;
    t.largest = t.largest.max(n);
    t.edges += t.seen_edges.len() as u64;
    if t.keys.len() != t.seen.len() {
        t.key_merges += 1;
    }
}

fn pair(a: u64, b: u64) -> u64 {
    let mut h = hasher();
    (a, b).hash(&mut h);
    h.finish()
}

/// Bytes a hash set of fingerprints holds (hashbrown: a `u64` and a control byte per bucket,
/// at most 7/8 of the buckets full).
fn set_bytes(s: &FpSet) -> u64 {
    buckets(s.capacity() as u64) * 9
}

fn buckets(capacity: u64) -> u64 {
    (capacity * 8 / 7).next_power_of_two()
}

fn mib(bytes: u64) -> String {
    format!("{:.0} MiB", bytes as f64 / (1 << 20) as f64)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let edges = args.iter().any(|a| a == "--edges");
    let positional: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let bound_text = positional.first().map_or("tiny", |s| s.as_str());
    let variant_text = positional.get(1).map_or("seed", |s| s.as_str());
    let bound = Bound::parse(bound_text).unwrap_or_else(|e| panic!("{e}"));
    let variant = Variant::parse(variant_text).unwrap_or_else(|e| panic!("{e}"));
    let start = Instant::now();
    let mut t = Tally::default();
    let counts = webmcp_generator::for_each_canonical(&bound, |_, gen| {
        let scenario = webmcp_generator::to_scenario(gen);
        let world = World::compile(&scenario).expect("a generated scenario compiles");
        let model = WebMcpModel::new(world, variant);
        let canon = Canon::new(&model.world, gen);
        t.topologies.insert(canon.topology);
        explore(&model, &canon, &mut t, edges);
        t.scenarios += 1;
        ControlFlow::Continue(())
    });
    let seconds = start.elapsed().as_secs_f64();
    let ratio = |a: u64, b: u64| a as f64 / b.max(1) as f64;
    println!(
        "bound {bound_text} ({bound}), variant {}: {} canonical scenarios ({} raw), {} topologies",
        variant.name(),
        thousands(counts.canonical),
        thousands(counts.raw),
        t.topologies.len()
    );
    println!(
        "enumeration: {} unique states summed over scenarios ({} transitions generated); largest scenario {}",
        thousands(t.unique),
        thousands(t.generated),
        thousands(t.largest)
    );
    println!(
        "most general page, at least: {} distinct states; enumeration explores {:.2}x as many",
        thousands(t.union.len() as u64),
        ratio(t.unique, t.union.len() as u64)
    );
    println!(
        "  without the executed statements (scripts known by their counters only): {} ({:.2}x)",
        thousands(t.union_bare.len() as u64),
        ratio(t.unique, t.union_bare.len() as u64)
    );
    if edges {
        println!(
            "transitions (distinct state/successor pairs): enumeration {}, most general page at least {} ({:.2}x)",
            thousands(t.edges),
            thousands(t.union_edges.len() as u64),
            ratio(t.edges, t.union_edges.len() as u64)
        );
    }
    println!(
        "fingerprint sets: the union's {} ({} bytes per state) vs the largest scenario's {}",
        mib(set_bytes(&t.union)),
        set_bytes(&t.union) / t.union.len().max(1) as u64,
        mib(buckets(t.largest) * 9)
    );
    println!(
        "scenarios where the key merged two distinct states: {} (must be 0)",
        t.key_merges
    );
    println!(
        "{seconds:.1} s; peak resident set {}",
        peak_resident_bytes().map_or("?".into(), mib)
    );
}

/// The peak resident set of this process (Linux: `VmHWM` in `/proc/self/status`).
fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
