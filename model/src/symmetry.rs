//! Symmetry reduction: interchangeable parts of a scenario, and a canonical representative of
//! each state's equivalence class under permuting them.
//!
//! A permutation of ids ([`Perm`]) is a *symmetry* of a scenario when it is an automorphism of
//! the compiled [`World`] (every navigable, document, call, controller, agent, script and
//! environment bound maps onto one with the same configuration) **and** it preserves every
//! id order the transition function observes:
//!
//! - navigable ids within one tab: `get-tools#8.3` and `notify-tool-change#3` walk the tree
//!   in tree order (the lowest navigable id first, `NavList::pop`), `visible_tools` breaks
//!   name ties by tree order, and lifecycle events visit descendants in tree order;
//! - document ids within one agent (and, conservatively, within one tab): the microtask
//!   checkpoint resumes ready scripts in document order.
//!
//! Under those two conditions the transition function commutes with renaming
//! (`apply(π s, π a) = π apply(s, a)`, for the draft as written and for every fix), and so do
//! the properties, which quantify over all calls and documents and never name one. Exploring
//! one state per class then reaches exactly the classes the full exploration reaches, and
//! every verdict is unchanged. `tests/symmetry.rs` checks this on every scenario: commutation
//! on every reachable state, the same set of classes with and without reduction, and the
//! class count against Burnside's lemma.
//!
//! The candidates are the **tabs**: two tabs whose whole trees have the same configuration
//! (origins, policies, agent pattern, scripts equal up to renaming their own ids, environment
//! bounds naming all of them or none) are interchangeable. **Sibling iframes are never
//! grouped**, however alike: they share a tab, so swapping them reverses their tree order,
//! which the draft makes observable (the getTools walk visits the earlier sibling first, so a
//! registration racing the walk is seen in one sibling and missed in the other; a list with
//! two tools of one name is in tree order and `executeTool` takes the first). Such a swap is
//! not an automorphism of the transition system: pruning with it misses reachable classes,
//! and exploring its representatives reaches a getTools result in reverse tree order that
//! `get-tools-exact` reports as a violation the full exploration never has (both shown in
//! `tests/symmetry.rs`).
//!
//! In a scenario without interchangeable tabs, the candidates are the **calls of one
//! script**: `executeTool` statements equal up to renaming their own call and controller,
//! interchangeable once the script has made them all ([`crate::call_symmetry`]; a symmetry
//! of a region of states, not of the world, since the script makes them in order).
//!
//! **Using it in a checker.** Deduplicate on `representative(&s)`; expanding either the
//! representative or the state actually reached is exact for these groups (the latter keeps
//! every recorded path a real run, which is what stateright's DFS does). stateright 0.31
//! honours `CheckerBuilder::symmetry_fn` only in `spawn_dfs` and `spawn_simulation`, not in
//! `spawn_bfs`, and takes a plain `fn(&State) -> State`, so the [`Symmetry`] of the scenario
//! being checked must be reachable from a static.

use crate::call_symmetry::CallSymmetry;
use crate::coll::{OrdMap, OrdSet, Vector};

use crate::machine::Action;
use crate::state::{
    AbortStep, Body, ControllerState, DocState, EnvState, Ghost, NavState, PendingExecution,
    PromiseState, Reason, RegisteredTool, ScriptState, ScriptStatus, State, Status, Task, TaskKind,
    ToolDefinition, Value,
};
use crate::threads::{
    CancelPc, CancelProc, CleanupPc, CleanupSub, CompletionProc, GetToolsPc, NavList, NotifyPc,
    Thread, ThreadKey,
};
use crate::world::{AgentId, BodyOp, CallId, CtrlId, DocId, NavId, Op, TabId, ToolArg, World};

/// The most members a group may have (its permutations are enumerated: 5! = 120).
pub const MAX_GROUP_MEMBERS: usize = 5;
/// The most permutations [`Symmetry::representative`] enumerates over all groups together.
pub const MAX_PERMUTATIONS: usize = 720;

/// A bijection on one kind of id, with its inverse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub fwd: Vec<u8>,
    pub inv: Vec<u8>,
}

impl Table {
    fn identity(n: usize) -> Table {
        let fwd: Vec<u8> = (0..n as u8).collect();
        Table {
            inv: fwd.clone(),
            fwd,
        }
    }

    /// From a forward map; `None` if it is not a bijection on `0..n`.
    pub(crate) fn from_fwd(fwd: Vec<u8>) -> Option<Table> {
        let mut inv = vec![u8::MAX; fwd.len()];
        for (i, &j) in fwd.iter().enumerate() {
            let slot = inv.get_mut(j as usize)?;
            if *slot != u8::MAX {
                return None;
            }
            *slot = i as u8;
        }
        Some(Table { fwd, inv })
    }

    #[inline]
    fn get(&self, x: u8) -> u8 {
        self.fwd[x as usize]
    }

    pub(crate) fn is_identity(&self) -> bool {
        self.fwd.iter().enumerate().all(|(i, &j)| i as u8 == j)
    }

    fn inverse(&self) -> Table {
        Table {
            fwd: self.inv.clone(),
            inv: self.fwd.clone(),
        }
    }
}

/// A renaming of every kind of id of a world: documents, navigables, calls (execution
/// uuids), AbortControllers, tabs and agents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Perm {
    pub doc: Table,
    pub nav: Table,
    pub call: Table,
    pub ctrl: Table,
    pub tab: Table,
    pub agent: Table,
}

impl Perm {
    pub fn identity(w: &World) -> Perm {
        Perm {
            doc: Table::identity(w.docs.len()),
            nav: Table::identity(w.navs.len()),
            call: Table::identity(w.calls.len()),
            ctrl: Table::identity(w.controllers.len()),
            tab: Table::identity(w.tabs.len()),
            agent: Table::identity(w.agents.len()),
        }
    }

    /// `self`, then `next`.
    pub fn then(&self, next: &Perm) -> Perm {
        let then = |a: &Table, b: &Table| {
            Table::from_fwd(a.fwd.iter().map(|&x| b.get(x)).collect())
                .expect("a composition of bijections is one")
        };
        Perm {
            doc: then(&self.doc, &next.doc),
            nav: then(&self.nav, &next.nav),
            call: then(&self.call, &next.call),
            ctrl: then(&self.ctrl, &next.ctrl),
            tab: then(&self.tab, &next.tab),
            agent: then(&self.agent, &next.agent),
        }
    }

    pub fn is_identity(&self) -> bool {
        self.doc.is_identity()
            && self.nav.is_identity()
            && self.call.is_identity()
            && self.ctrl.is_identity()
            && self.tab.is_identity()
            && self.agent.is_identity()
    }

    pub fn inverse(&self) -> Perm {
        Perm {
            doc: self.doc.inverse(),
            nav: self.nav.inverse(),
            call: self.call.inverse(),
            ctrl: self.ctrl.inverse(),
            tab: self.tab.inverse(),
            agent: self.agent.inverse(),
        }
    }

    #[inline]
    pub fn doc(&self, d: DocId) -> DocId {
        DocId::nth(self.doc.get(d.get()) as usize)
    }
    #[inline]
    pub fn nav(&self, n: NavId) -> NavId {
        NavId::nth(self.nav.get(n.get()) as usize)
    }
    #[inline]
    pub fn call(&self, c: CallId) -> CallId {
        CallId::nth(self.call.get(c.get()) as usize)
    }
    #[inline]
    pub fn ctrl(&self, c: CtrlId) -> CtrlId {
        CtrlId::nth(self.ctrl.get(c.get()) as usize)
    }
    #[inline]
    pub fn tab(&self, t: TabId) -> TabId {
        TabId::nth(self.tab.get(t.get()) as usize)
    }
    #[inline]
    pub fn agent(&self, a: AgentId) -> AgentId {
        AgentId::nth(self.agent.get(a.get()) as usize)
    }

    /// The involution that swaps the subtrees rooted at navigables `a` and `b` (and, when
    /// both are tabs' traversables, the two tabs), pairing their navigables, documents,
    /// calls, controllers and agents by position. `None` when the two trees or scripts do
    /// not have the same shape. Whether the swap is a symmetry is
    /// [`Perm::check_automorphism`]'s question.
    pub fn swap_subtrees(w: &World, a: NavId, b: NavId) -> Option<Perm> {
        let mut p = Pairing::new(w);
        if a == b || !p.navs(w, a, b) {
            return None;
        }
        let (ta, tb) = (w.navs[a.index()].tab, w.navs[b.index()].tab);
        let roots = w.tabs[ta.index()].root == a && w.tabs[tb.index()].root == b;
        if roots && !Pairing::link(&mut p.tab, ta.get(), tb.get()) {
            return None;
        }
        p.into_perm()
    }

    /// Whether this renaming maps the world onto itself and preserves the id orders the
    /// transition function observes (see the module documentation). `Err` says what breaks.
    pub fn check_automorphism(&self, w: &World) -> Result<(), String> {
        for (t, tab) in w.tabs.iter().enumerate() {
            if w.tabs[self.tab(TabId::nth(t)).index()].root != self.nav(tab.root) {
                return Err(format!(
                    "tab {} and its image have different roots",
                    tab.name
                ));
            }
        }
        for (n, nav) in w.navs.iter().enumerate() {
            let image = &w.navs[self.nav(NavId::nth(n)).index()];
            if image.tab != self.tab(nav.tab)
                || image.container != nav.container.map(|d| self.doc(d))
                || image.initial != self.doc(nav.initial)
                || image.replacement != nav.replacement.map(|d| self.doc(d))
            {
                return Err(format!(
                    "navigable {} differs from its image {}",
                    nav.name, image.name
                ));
            }
        }
        for (d, doc) in w.docs.iter().enumerate() {
            let image = &w.docs[self.doc(DocId::nth(d)).index()];
            let same = image.origin == doc.origin
                && image.origin_string == doc.origin_string
                && image.nav == self.nav(doc.nav)
                && image.agent == self.agent(doc.agent)
                && image.origin_keyed == doc.origin_keyed
                && image.tools_policy == doc.tools_policy
                && image.initially_active == doc.initially_active;
            if !same {
                return Err(format!(
                    "document {} differs from its image {}",
                    doc.name, image.name
                ));
            }
            if image.script.len() != doc.script.len()
                || !doc
                    .script
                    .iter()
                    .zip(&image.script)
                    .all(|(a, b)| self.op_maps_to(a, b))
            {
                return Err(format!(
                    "the script of {} is not that of {} renamed",
                    doc.name, image.name
                ));
            }
        }
        for (c, call) in w.calls.iter().enumerate() {
            let image = &w.calls[self.call(CallId::nth(c)).index()];
            if image.doc != self.doc(call.doc)
                || image.script != self.doc(call.script)
                || image.kind != call.kind
            {
                return Err(format!(
                    "call {} differs from its image {}",
                    call.label, image.label
                ));
            }
        }
        for (c, ctrl) in w.controllers.iter().enumerate() {
            let image = &w.controllers[self.ctrl(CtrlId::nth(c)).index()];
            if image.owner != self.doc(ctrl.owner) || image.reason != ctrl.reason {
                return Err(format!("controller {} differs from its image", ctrl.name));
            }
        }
        if !invariant(&w.env.abort, |c| self.ctrl(c))
            || !invariant(&w.env.remove_iframe, |n| self.nav(n))
            || !invariant(&w.env.navigate, |n| self.nav(n))
            || !invariant(&w.env.bfcache, |t| self.tab(t))
        {
            return Err("the environment does not treat the images alike".into());
        }
        for m in 0..w.navs.len() {
            for n in m + 1..w.navs.len() {
                if w.navs[m].tab == w.navs[n].tab
                    && self.nav(NavId::nth(m)) > self.nav(NavId::nth(n))
                {
                    return Err(format!(
                        "tree order: {} comes before {} but its image comes after",
                        w.navs[m].name, w.navs[n].name
                    ));
                }
            }
        }
        let tab_of = |d: usize| w.navs[w.docs[d].nav.index()].tab;
        for d in 0..w.docs.len() {
            for e in d + 1..w.docs.len() {
                let related = w.docs[d].agent == w.docs[e].agent || tab_of(d) == tab_of(e);
                if related && self.doc(DocId::nth(d)) > self.doc(DocId::nth(e)) {
                    return Err(format!(
                        "document order: {} comes before {} on one agent or tab, but its image comes after",
                        w.docs[d].name, w.docs[e].name
                    ));
                }
            }
        }
        Ok(())
    }

    /// Whether tool body statement `b` is `a` with this renaming applied.
    fn body_op_maps_to(&self, a: &BodyOp, b: &BodyOp) -> bool {
        match (a, b) {
            (BodyOp::Execute(x), BodyOp::Execute(y)) => {
                self.op_maps_to(&Op::Execute(x.clone()), &Op::Execute(y.clone()))
            }
            (BodyOp::Abort(x), BodyOp::Abort(y)) => self.ctrl(*x) == *y,
            (BodyOp::AwaitAbort, BodyOp::AwaitAbort) | (BodyOp::Throw, BodyOp::Throw) => true,
            (BodyOp::Return(x), BodyOp::Return(y)) => x == y,
            _ => false,
        }
    }

    /// Whether statement `b` is statement `a` with this renaming applied.
    pub(crate) fn op_maps_to(&self, a: &Op, b: &Op) -> bool {
        let ctrl = |x: Option<CtrlId>| x.map(|c| self.ctrl(c));
        match (a, b) {
            (Op::Register(x), Op::Register(y)) => {
                self.call(x.call) == y.call
                    && x.name == y.name
                    && x.title == y.title
                    && x.description == y.description
                    && x.schema == y.schema
                    && x.schema_is_object == y.schema_is_object
                    && x.annotations == y.annotations
                    && x.exposed_to == y.exposed_to
                    && ctrl(x.signal) == y.signal
                    && match (&x.body, &y.body) {
                        (None, None) => true,
                        (Some(bx), Some(by)) => {
                            bx.len() == by.len()
                                && bx.iter().zip(by).all(|(a, b)| self.body_op_maps_to(a, b))
                        }
                        _ => false,
                    }
            }
            (Op::GetTools(x), Op::GetTools(y)) => {
                self.call(x.call) == y.call && x.from_origins == y.from_origins
            }
            (Op::Execute(x), Op::Execute(y)) => {
                let tool = match (&x.tool, &y.tool) {
                    (
                        ToolArg::FromList { list: l1, name: n1 },
                        ToolArg::FromList { list: l2, name: n2 },
                    ) => self.call(*l1) == *l2 && n1 == n2,
                    (
                        ToolArg::Forged {
                            name: n1,
                            origin: o1,
                            window: w1,
                        },
                        ToolArg::Forged {
                            name: n2,
                            origin: o2,
                            window: w2,
                        },
                    ) => n1 == n2 && o1 == o2 && self.doc(*w1) == *w2,
                    _ => false,
                };
                tool && self.call(x.call) == y.call
                    && x.input_is_object == y.input_is_object
                    && x.input_json == y.input_json
                    && x.input_json_object_check == y.input_json_object_check
                    && ctrl(x.signal) == y.signal
            }
            (Op::Abort(x), Op::Abort(y)) => self.ctrl(*x) == *y,
            (Op::Await(x), Op::Await(y)) => self.call(*x) == *y,
            (Op::AwaitToolchange, Op::AwaitToolchange) => true,
            (Op::RemoveIframe(x), Op::RemoveIframe(y)) => self.nav(*x) == *y,
            (Op::Navigate(x), Op::Navigate(y)) => self.nav(*x) == *y,
            _ => false,
        }
    }
}

/// Whether renaming every element of `list` by `f` gives the same elements (as a set with
/// repeats): the environment treats the images alike.
pub(crate) fn invariant<T: Copy + Ord>(list: &[T], f: impl Fn(T) -> T) -> bool {
    let mut a: Vec<T> = list.to_vec();
    let mut b: Vec<T> = list.iter().map(|&x| f(x)).collect();
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

/// A partial involution per kind of id, built while walking two trees side by side.
struct Pairing {
    doc: Vec<Option<u8>>,
    nav: Vec<Option<u8>>,
    call: Vec<Option<u8>>,
    ctrl: Vec<Option<u8>>,
    tab: Vec<Option<u8>>,
    agent: Vec<Option<u8>>,
}

impl Pairing {
    fn new(w: &World) -> Pairing {
        Pairing {
            doc: vec![None; w.docs.len()],
            nav: vec![None; w.navs.len()],
            call: vec![None; w.calls.len()],
            ctrl: vec![None; w.controllers.len()],
            tab: vec![None; w.tabs.len()],
            agent: vec![None; w.agents.len()],
        }
    }

    /// Pairs `a` with `b` both ways; false if either is already paired with something else.
    fn link(table: &mut [Option<u8>], a: u8, b: u8) -> bool {
        for (x, y) in [(a, b), (b, a)] {
            match table[x as usize] {
                None => table[x as usize] = Some(y),
                Some(z) if z == y => {}
                Some(_) => return false,
            }
        }
        true
    }

    fn navs(&mut self, w: &World, a: NavId, b: NavId) -> bool {
        let (na, nb) = (&w.navs[a.index()], &w.navs[b.index()]);
        if !Pairing::link(&mut self.nav, a.get(), b.get()) || !self.docs(w, na.initial, nb.initial)
        {
            return false;
        }
        match (na.replacement, nb.replacement) {
            (None, None) => true,
            (Some(x), Some(y)) => self.docs(w, x, y),
            _ => false,
        }
    }

    fn docs(&mut self, w: &World, a: DocId, b: DocId) -> bool {
        let (da, db) = (&w.docs[a.index()], &w.docs[b.index()]);
        if !Pairing::link(&mut self.doc, a.get(), b.get())
            || !Pairing::link(&mut self.agent, da.agent.get(), db.agent.get())
            || da.script.len() != db.script.len()
        {
            return false;
        }
        for (x, y) in da.script.iter().zip(&db.script) {
            if !self.ops(x, y) {
                return false;
            }
        }
        let ca: Vec<NavId> = w.child_navs(a).collect();
        let cb: Vec<NavId> = w.child_navs(b).collect();
        ca.len() == cb.len() && ca.iter().zip(&cb).all(|(&x, &y)| self.navs(w, x, y))
    }

    /// Pairs the ids a statement introduces; the rest of the statement is compared by
    /// [`Perm::check_automorphism`].
    fn ops(&mut self, a: &Op, b: &Op) -> bool {
        let signal = |p: &mut Pairing, x: Option<CtrlId>, y: Option<CtrlId>| match (x, y) {
            (None, None) => true,
            (Some(x), Some(y)) => Pairing::link(&mut p.ctrl, x.get(), y.get()),
            _ => false,
        };
        match (a, b) {
            (Op::Register(x), Op::Register(y)) => {
                let bodies = match (&x.body, &y.body) {
                    (None, None) => true,
                    (Some(bx), Some(by)) => {
                        bx.len() == by.len()
                            && bx.iter().zip(by).all(|(a, b)| match (a, b) {
                                (BodyOp::Execute(e), BodyOp::Execute(f)) => {
                                    Pairing::link(&mut self.call, e.call.get(), f.call.get())
                                        && signal(self, e.signal, f.signal)
                                }
                                (BodyOp::Abort(c), BodyOp::Abort(d)) => {
                                    Pairing::link(&mut self.ctrl, c.get(), d.get())
                                }
                                _ => true,
                            })
                    }
                    _ => false,
                };
                Pairing::link(&mut self.call, x.call.get(), y.call.get())
                    && signal(self, x.signal, y.signal)
                    && bodies
            }
            (Op::GetTools(x), Op::GetTools(y)) => {
                Pairing::link(&mut self.call, x.call.get(), y.call.get())
            }
            (Op::Execute(x), Op::Execute(y)) => {
                Pairing::link(&mut self.call, x.call.get(), y.call.get())
                    && signal(self, x.signal, y.signal)
            }
            (Op::Abort(x), Op::Abort(y)) => Pairing::link(&mut self.ctrl, x.get(), y.get()),
            (Op::Await(x), Op::Await(y)) => Pairing::link(&mut self.call, x.get(), y.get()),
            (Op::AwaitToolchange, Op::AwaitToolchange)
            | (Op::RemoveIframe(_), Op::RemoveIframe(_))
            | (Op::Navigate(_), Op::Navigate(_)) => true,
            _ => false,
        }
    }

    fn into_perm(self) -> Option<Perm> {
        let table = |t: Vec<Option<u8>>| {
            Table::from_fwd(
                t.iter()
                    .enumerate()
                    .map(|(i, x)| x.unwrap_or(i as u8))
                    .collect(),
            )
        };
        Some(Perm {
            doc: table(self.doc)?,
            nav: table(self.nav)?,
            call: table(self.call)?,
            ctrl: table(self.ctrl)?,
            tab: table(self.tab)?,
            agent: table(self.agent)?,
        })
    }
}

/// The ids of one member of a group, in an order shared by every member of the group: the
/// i-th navigable of one member corresponds to the i-th navigable of every other, and so on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The member's tab (every group is of tabs, see the module documentation).
    pub tab: Option<TabId>,
    pub navs: Vec<NavId>,
    pub docs: Vec<DocId>,
    pub calls: Vec<CallId>,
    pub ctrls: Vec<CtrlId>,
    pub agents: Vec<AgentId>,
}

impl Block {
    /// Every id of the subtree of tab `t`, in id order.
    fn of_tab(w: &World, t: TabId) -> Block {
        let navs: Vec<NavId> = NavId::all(w.navs.len())
            .filter(|&n| w.navs[n.index()].tab == t)
            .collect();
        let docs: Vec<DocId> = DocId::all(w.docs.len())
            .filter(|&d| navs.contains(&w.docs[d.index()].nav))
            .collect();
        let calls = CallId::all(w.calls.len())
            .filter(|&c| docs.contains(&w.calls[c.index()].doc))
            .collect();
        let ctrls = CtrlId::all(w.controllers.len())
            .filter(|&c| docs.contains(&w.controllers[c.index()].owner))
            .collect();
        let mut agents: Vec<AgentId> = docs.iter().map(|&d| w.agent_of(d)).collect();
        agents.sort_unstable();
        agents.dedup();
        Block {
            tab: Some(t),
            navs,
            docs,
            calls,
            ctrls,
            agents,
        }
    }

    /// This block's image under `p`, element by element.
    fn image(&self, p: &Perm) -> Block {
        Block {
            tab: self.tab.map(|t| p.tab(t)),
            navs: self.navs.iter().map(|&x| p.nav(x)).collect(),
            docs: self.docs.iter().map(|&x| p.doc(x)).collect(),
            calls: self.calls.iter().map(|&x| p.call(x)).collect(),
            ctrls: self.ctrls.iter().map(|&x| p.ctrl(x)).collect(),
            agents: self.agents.iter().map(|&x| p.agent(x)).collect(),
        }
    }
}

/// The interchangeable parts of a scenario and the permutations they generate.
#[derive(Clone, Debug, Default)]
pub struct Symmetry {
    groups: Vec<Vec<Block>>,
    /// Every element of the product of the groups' symmetric groups except the identity.
    perms: Vec<Perm>,
    /// Per renaming of `perms`, per group, per member: the member it is sent to.
    destinations: Vec<Vec<Vec<usize>>>,
    /// Interchangeable calls of one script, once it is past them (only without tab groups).
    calls: CallSymmetry,
}

impl Symmetry {
    /// No reduction.
    pub fn none() -> Symmetry {
        Symmetry::default()
    }

    /// The groups of interchangeable tabs of a compiled scenario. Conservative: a tab joins a
    /// group only if swapping it with the group's first member is an automorphism of the
    /// world that preserves the observed id orders, and every permutation of every group is
    /// checked again.
    pub fn of(w: &World) -> Symmetry {
        let mut groups: Vec<Vec<Block>> = Vec::new();
        let mut grouped = vec![false; w.tabs.len()];
        for t in 0..w.tabs.len() {
            if grouped[t] {
                continue;
            }
            let first = Block::of_tab(w, TabId::nth(t));
            let mut members = vec![first.clone()];
            let candidates: Vec<usize> = (t + 1..w.tabs.len()).filter(|&u| !grouped[u]).collect();
            for u in candidates {
                if members.len() == MAX_GROUP_MEMBERS {
                    break;
                }
                let swap = Perm::swap_subtrees(w, w.tabs[t].root, w.tabs[u].root);
                let Some(swap) = swap.filter(|p| p.check_automorphism(w).is_ok()) else {
                    continue;
                };
                let image = first.image(&swap);
                if !same_ids(&image, &Block::of_tab(w, TabId::nth(u))) {
                    continue;
                }
                grouped[u] = true;
                members.push(image);
            }
            if members.len() >= 2 {
                grouped[t] = true;
                groups.push(members);
            }
        }
        let mut sym = Symmetry {
            groups,
            perms: Vec::new(),
            destinations: Vec::new(),
            calls: CallSymmetry::none(),
        };
        // Shrink the largest groups until the enumeration stays within bounds.
        while sym.order() > MAX_PERMUTATIONS {
            let largest = (0..sym.groups.len())
                .max_by_key(|&i| sym.groups[i].len())
                .expect("a group");
            sym.groups[largest].pop();
            sym.groups.retain(|g| g.len() >= 2);
        }
        match sym.enumerate(w) {
            Some(perms) => sym.perms = perms,
            None => return Symmetry::none(),
        }
        if sym.perms.is_empty() {
            return Symmetry {
                calls: CallSymmetry::of(w),
                ..Symmetry::none()
            };
        }
        let destinations = sym
            .perms
            .iter()
            .map(|p| {
                sym.groups
                    .iter()
                    .map(|g| {
                        g.iter()
                            .map(|b| {
                                let image = b.tab.map(|t| p.tab(t));
                                g.iter().position(|m| m.tab == image)
                            })
                            .collect::<Option<Vec<usize>>>()
                    })
                    .collect::<Option<Vec<Vec<usize>>>>()
            })
            .collect::<Option<Vec<_>>>();
        match destinations {
            Some(d) => sym.destinations = d,
            // A renaming that does not permute a group's members: no reduction.
            None => return Symmetry::none(),
        }
        sym
    }

    /// The groups: each a list of members, each member the ids of one tab's subtree.
    pub fn groups(&self) -> &[Vec<Block>] {
        &self.groups
    }

    pub fn is_trivial(&self) -> bool {
        self.perms.is_empty() && self.calls.is_trivial()
    }

    /// The groups of interchangeable calls (none where tabs are grouped).
    pub fn calls(&self) -> &CallSymmetry {
        &self.calls
    }

    /// How many renamings the tab groups generate (1 for no symmetry).
    pub fn order(&self) -> usize {
        self.groups
            .iter()
            .map(|g| (1..=g.len()).product::<usize>())
            .product()
    }

    /// Every renaming the tab groups generate except the identity.
    pub fn perms(&self) -> &[Perm] {
        &self.perms
    }

    /// The groups by tab name, e.g. `{one, two, three}`; empty when trivial.
    pub fn describe(&self, w: &World) -> String {
        if !self.calls.is_trivial() {
            return self.calls.describe(w);
        }
        self.groups
            .iter()
            .map(|g| {
                let names: Vec<&str> = g
                    .iter()
                    .filter_map(|b| b.tab.map(|t| w.tabs[t.index()].name.as_str()))
                    .collect();
                format!("{{{}}}", names.join(", "))
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The fingerprint of `s`'s class, for the engine ([`webmcp_checker::ClassFingerprint`]):
    /// under call groups [`CallSymmetry::class_fingerprint`], which hashes the renamed states
    /// without building them; under tab groups the fingerprint of [`Self::representative`].
    pub fn class_fingerprint(&self, s: &State) -> u64 {
        if self.perms.is_empty() {
            return self.calls.class_fingerprint(s);
        }
        webmcp_checker::fingerprint::fingerprint(&self.representative(s))
    }

    /// The representative of `s`'s class: the least state (under `Ord`) among the renamings
    /// of `s` that put every group's members in the order of their [`signature`]s, ties
    /// enumerated.
    ///
    /// The same for every state of one class: a member's signature reads only its own part
    /// of the state, in its own id order, so renaming `s` by a symmetry `π` gives member
    /// `π(m)` the signature `m` had. The renamings that sort `π(s)`'s members are then those
    /// that sort `s`'s composed with `π⁻¹`, and they produce the same set of states. Sorting
    /// leaves only ties to enumerate: most states rename once, where trying every permutation
    /// renamed each state `n! - 1` times.
    pub fn representative(&self, s: &State) -> State {
        if self.perms.is_empty() {
            return self.calls.representative(s);
        }
        // Per group, each member's signature, and the same sorted.
        let signatures: Vec<Vec<u64>> = self
            .groups
            .iter()
            .map(|g| g.iter().map(|b| signature(s, b)).collect())
            .collect();
        let sorted: Vec<Vec<u64>> = signatures
            .iter()
            .map(|g| {
                let mut v = g.clone();
                v.sort_unstable();
                v
            })
            .collect();
        // A renaming qualifies when it sends every member to the place its signature has in
        // sorted order; the identity does when the members are sorted already.
        let sorts = |dest: &[Vec<usize>]| {
            dest.iter().enumerate().all(|(g, to)| {
                to.iter()
                    .enumerate()
                    .all(|(i, &j)| sorted[g][j] == signatures[g][i])
            })
        };
        let identity_sorts = signatures.iter().zip(&sorted).all(|(g, v)| g == v);
        let mut best: Option<State> = identity_sorts.then(|| s.clone());
        for (p, dest) in self.perms.iter().zip(&self.destinations) {
            if !sorts(dest) {
                continue;
            }
            let r = s.rename(p);
            if best.as_ref().is_none_or(|b| r < *b) {
                best = Some(r);
            }
        }
        best.expect("some renaming of the groups sorts their members")
    }

    /// Builds every non-identity renaming; `None` if one of them is not an automorphism.
    fn enumerate(&self, w: &World) -> Option<Vec<Perm>> {
        let mut all = vec![Perm::identity(w)];
        for group in &self.groups {
            let mut next = Vec::new();
            for sigma in permutations(group.len()) {
                for base in &all {
                    let mut p = base.clone();
                    for (i, &j) in sigma.iter().enumerate() {
                        let (from, to) = (&group[i], &group[j]);
                        let set = |t: &mut Vec<u8>, a: &[u8], b: &[u8]| {
                            for (x, y) in a.iter().zip(b) {
                                t[*x as usize] = *y;
                            }
                        };
                        let raw = |ids: &[DocId]| ids.iter().map(|d| d.get()).collect::<Vec<u8>>();
                        set(&mut p.doc.fwd, &raw(&from.docs), &raw(&to.docs));
                        let raw = |ids: &[NavId]| ids.iter().map(|n| n.get()).collect::<Vec<u8>>();
                        set(&mut p.nav.fwd, &raw(&from.navs), &raw(&to.navs));
                        let raw = |ids: &[CallId]| ids.iter().map(|c| c.get()).collect::<Vec<u8>>();
                        set(&mut p.call.fwd, &raw(&from.calls), &raw(&to.calls));
                        let raw = |ids: &[CtrlId]| ids.iter().map(|c| c.get()).collect::<Vec<u8>>();
                        set(&mut p.ctrl.fwd, &raw(&from.ctrls), &raw(&to.ctrls));
                        let raw =
                            |ids: &[AgentId]| ids.iter().map(|a| a.get()).collect::<Vec<u8>>();
                        set(&mut p.agent.fwd, &raw(&from.agents), &raw(&to.agents));
                        if let (Some(a), Some(b)) = (from.tab, to.tab) {
                            p.tab.fwd[a.index()] = b.get();
                        }
                    }
                    next.push(p);
                }
            }
            all = next;
        }
        let mut perms = Vec::new();
        for p in all {
            let p = Perm {
                doc: Table::from_fwd(p.doc.fwd)?,
                nav: Table::from_fwd(p.nav.fwd)?,
                call: Table::from_fwd(p.call.fwd)?,
                ctrl: Table::from_fwd(p.ctrl.fwd)?,
                tab: Table::from_fwd(p.tab.fwd)?,
                agent: Table::from_fwd(p.agent.fwd)?,
            };
            if p.is_identity() {
                continue;
            }
            p.check_automorphism(w).ok()?;
            perms.push(p);
        }
        Some(perms)
    }
}

/// What one member's own part of a state looks like, with its ids written as positions in
/// the member's own id lists (and ids of other members as `u32::MAX`), folded into one
/// number: two members of a group whose parts differ only by the renaming between them get
/// the same signature. Two different parts may collide; that only makes a tie, which the
/// representative enumerates, so it costs time, never exactness.
pub fn signature(s: &State, b: &Block) -> u64 {
    const OTHER: u32 = u32::MAX;
    let call = |c: CallId| {
        b.calls
            .iter()
            .position(|&x| x == c)
            .map_or(OTHER, |i| i as u32)
    };
    let doc = |d: DocId| {
        b.docs
            .iter()
            .position(|&x| x == d)
            .map_or(OTHER, |i| i as u32)
    };
    // FNV-1a over 32-bit words: fixed, so the representative is the same on every run.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut word = |x: u32| h = (h ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3);
    for &d in &b.docs {
        let st = s.doc(d);
        let (status, arg) = match st.script.status {
            ScriptStatus::NotStarted => (0, 0),
            ScriptStatus::AwaitingCall(c) => (1, call(c)),
            ScriptStatus::AwaitingToolchange => (2, 0),
            ScriptStatus::Ready => (3, 0),
            ScriptStatus::Finished => (4, 0),
            ScriptStatus::Threw => (5, 0),
        };
        for x in [
            st.lifecycle as u32,
            u32::from(st.script.pc),
            status,
            arg,
            u32::from(st.toolchanges),
            u32::from(st.cleanups),
            st.tools.len() as u32,
            st.local.len() as u32,
        ] {
            word(x);
        }
    }
    for &n in &b.navs {
        let nav = &s.navs[n.index()];
        word(u32::from(nav.attached));
        word(nav.active.map_or(OTHER - 1, doc));
        word(u32::from(s.env.navs_done & (1 << n.index()) != 0));
    }
    for &c in &b.calls {
        let p = &s.promises[c.index()];
        word(match p.status {
            Status::NotCalled => 0,
            Status::Pending => 1,
            Status::Fulfilled(_) => 2,
            Status::Rejected(_) => 3,
        });
        word(u32::from(p.attempts));
        word(match s.bodies.get(&c) {
            None => 0,
            Some(body) => 1 + u32::from(body.settled),
        });
    }
    for &c in &b.ctrls {
        word(u32::from(s.controllers[c.index()].aborted));
    }
    if let Some(t) = b.tab {
        word(s.pending[t.index()].len() as u32);
        word(u32::from(s.env.bfcache_phase(t)));
    }
    h
}

/// Two blocks with the same ids (agents may be listed in another order).
fn same_ids(a: &Block, b: &Block) -> bool {
    fn sorted<T: Ord + Copy>(v: &[T]) -> Vec<T> {
        let mut v = v.to_vec();
        v.sort_unstable();
        v
    }
    a.tab == b.tab
        && sorted(&a.navs) == b.navs
        && sorted(&a.docs) == b.docs
        && sorted(&a.calls) == b.calls
        && sorted(&a.ctrls) == b.ctrls
        && sorted(&a.agents) == b.agents
}

/// Every permutation of `0..n`, as the image of each index.
pub(crate) fn permutations(n: usize) -> Vec<Vec<usize>> {
    fn go(prefix: &mut Vec<usize>, n: usize, out: &mut Vec<Vec<usize>>) {
        if prefix.len() == n {
            out.push(prefix.clone());
            return;
        }
        for i in 0..n {
            if !prefix.contains(&i) {
                prefix.push(i);
                go(prefix, n, out);
                prefix.pop();
            }
        }
    }
    let mut out = Vec::new();
    go(&mut Vec::with_capacity(n), n, &mut out);
    out
}

/// Applying a renaming of ids to a value that holds ids.
pub trait Rename {
    fn rename(&self, p: &Perm) -> Self;
}

impl<T: Rename> Rename for Option<T> {
    fn rename(&self, p: &Perm) -> Self {
        self.as_ref().map(|x| x.rename(p))
    }
}

/// A vector indexed by ids: entry `i` moves to `t.fwd[i]`, renamed.
pub(crate) fn permute<T: Clone + Rename, const W: bool>(
    v: &Vector<T, W>,
    t: &Table,
    p: &Perm,
) -> Vector<T, W> {
    (0..v.len())
        .map(|i| v[t.inv[i] as usize].rename(p))
        .collect()
}

impl Rename for State {
    fn rename(&self, p: &Perm) -> State {
        State {
            docs: permute(&self.docs, &p.doc, p),
            navs: permute(&self.navs, &p.nav, p),
            queues: (0..self.queues.len())
                .map(|i| {
                    self.queues[p.agent.inv[i] as usize]
                        .iter()
                        .map(|t| t.rename(p))
                        .collect()
                })
                .collect(),
            threads: self
                .threads
                .iter()
                .map(|(k, t)| (k.rename(p), t.rename(p)))
                .collect::<OrdMap<_, _, true>>(),
            promises: permute(&self.promises, &p.call, p),
            controllers: permute(&self.controllers, &p.ctrl, p),
            pending: (0..self.pending.len())
                .map(|i| {
                    self.pending[p.tab.inv[i] as usize]
                        .iter()
                        .map(|(c, e)| (p.call(*c), e.rename(p)))
                        .collect()
                })
                .collect(),
            bodies: self
                .bodies
                .iter()
                .map(|(c, b)| (p.call(*c), b.rename(p)))
                .collect::<OrdMap<_, _, true>>(),
            env: self.env.rename(p),
            ghost: self
                .ghost
                .iter()
                .map(|g| g.rename(p))
                .collect::<OrdSet<_, true>>(),
        }
    }
}

impl Rename for DocState {
    fn rename(&self, p: &Perm) -> DocState {
        // A map or set that names no moved call is shared, cached digest and all.
        let moved = |c: CallId| p.call(c) != c;
        DocState {
            lifecycle: self.lifecycle,
            tools: if self.tools.values().any(|t| moved(t.registered_by)) {
                self.tools
                    .iter()
                    .map(|(k, v)| (*k, v.rename(p)))
                    .collect::<OrdMap<_, _>>()
            } else {
                self.tools.clone()
            },
            local: if self.local.iter().any(|&c| moved(c)) {
                self.local.iter().map(|c| p.call(*c)).collect::<OrdSet<_>>()
            } else {
                self.local.clone()
            },
            script: self.script.rename(p),
            cleanups: self.cleanups,
            toolchanges: self.toolchanges,
        }
    }
}

impl Rename for ToolDefinition {
    fn rename(&self, p: &Perm) -> ToolDefinition {
        ToolDefinition {
            registered_by: p.call(self.registered_by),
            ..*self
        }
    }
}

impl Rename for ScriptState {
    fn rename(&self, p: &Perm) -> ScriptState {
        ScriptState {
            pc: self.pc,
            status: match self.status {
                ScriptStatus::AwaitingCall(c) => ScriptStatus::AwaitingCall(p.call(c)),
                other => other,
            },
        }
    }
}

impl Rename for NavState {
    fn rename(&self, p: &Perm) -> NavState {
        NavState {
            active: self.active.map(|d| p.doc(d)),
            attached: self.attached,
        }
    }
}

impl Rename for RegisteredTool {
    fn rename(&self, p: &Perm) -> RegisteredTool {
        RegisteredTool {
            window: p.doc(self.window),
            definition: self.definition.map(|c| p.call(c)),
            ..*self
        }
    }
}

fn rename_tools(v: &Vector<RegisteredTool>, p: &Perm) -> Vector<RegisteredTool> {
    v.iter().map(|t| t.rename(p)).collect()
}

impl Rename for Value {
    fn rename(&self, p: &Perm) -> Value {
        match self {
            Value::Tools(list) => Value::Tools(rename_tools(list, p)),
            other => other.clone(),
        }
    }
}

impl Rename for Reason {
    fn rename(&self, p: &Perm) -> Reason {
        match *self {
            Reason::Aborted(c) => Reason::Aborted(p.ctrl(c)),
            other => other,
        }
    }
}

impl Rename for PromiseState {
    fn rename(&self, p: &Perm) -> PromiseState {
        PromiseState {
            status: match &self.status {
                Status::Fulfilled(v) => Status::Fulfilled(v.rename(p)),
                Status::Rejected(r) => Status::Rejected(r.rename(p)),
                other => other.clone(),
            },
            ..self.clone()
        }
    }
}

impl Rename for AbortStep {
    fn rename(&self, p: &Perm) -> AbortStep {
        match *self {
            AbortStep::Register { call } => AbortStep::Register { call: p.call(call) },
            AbortStep::Execute { call, traversable } => AbortStep::Execute {
                call: p.call(call),
                traversable: traversable.map(|n| p.nav(n)),
            },
        }
    }
}

impl Rename for ControllerState {
    fn rename(&self, p: &Perm) -> ControllerState {
        ControllerState {
            aborted: self.aborted,
            abort_steps: self.abort_steps.iter().map(|s| s.rename(p)).collect(),
        }
    }
}

impl Rename for PendingExecution {
    fn rename(&self, p: &Perm) -> PendingExecution {
        PendingExecution {
            caller: p.doc(self.caller),
            target: p.doc(self.target),
            tool_name: self.tool_name,
        }
    }
}

impl Rename for Body {
    fn rename(&self, p: &Perm) -> Body {
        Body {
            target: p.doc(self.target),
            registered_by: p.call(self.registered_by),
            awaiting_call: self.awaiting_call.map(|c| p.call(c)),
            ..*self
        }
    }
}

impl Rename for EnvState {
    fn rename(&self, p: &Perm) -> EnvState {
        let mut env = EnvState {
            navs_done: rename_navs(self.navs_done, p),
            bfcache: 0,
            ..*self
        };
        for t in TabId::all(p.tab.fwd.len()) {
            env.set_bfcache_phase(p.tab(t), self.bfcache_phase(t));
        }
        env
    }
}

impl Rename for Ghost {
    fn rename(&self, p: &Perm) -> Ghost {
        match *self {
            Ghost::AssertFailed(s) => Ghost::AssertFailed(s),
            Ghost::MissingValue(s) => Ghost::MissingValue(s),
            Ghost::InvokedAfterCallerRejected(c) => Ghost::InvokedAfterCallerRejected(p.call(c)),
            Ghost::CancelTargetGone(c) => Ghost::CancelTargetGone(p.call(c)),
            Ghost::ObjectInputRefused(c) => Ghost::ObjectInputRefused(p.call(c)),
            Ghost::GetToolsMismatch(c) => Ghost::GetToolsMismatch(p.call(c)),
            Ghost::ToolchangeMisfired(d) => Ghost::ToolchangeMisfired(p.doc(d)),
            Ghost::ToolchangeOrder(c) => Ghost::ToolchangeOrder(p.call(c)),
            Ghost::SettledOffItsEventLoop(c) => Ghost::SettledOffItsEventLoop(p.call(c)),
            Ghost::LocalMapOffItsEventLoop(d) => Ghost::LocalMapOffItsEventLoop(p.doc(d)),
            Ghost::RanUndiscoveredTool(c) => Ghost::RanUndiscoveredTool(p.call(c)),
            Ghost::RanForUnexposedCaller(c) => Ghost::RanForUnexposedCaller(p.call(c)),
            Ghost::DiscoverableChangeUnnotified(d) => Ghost::DiscoverableChangeUnnotified(p.doc(d)),
            Ghost::CalledOnInactiveDocument(c) => Ghost::CalledOnInactiveDocument(p.call(c)),
            Ghost::ToolActivated(c) => Ghost::ToolActivated(p.call(c)),
            Ghost::ToolCancelled(c) => Ghost::ToolCancelled(p.call(c)),
            Ghost::ToolcancelForLiveCaller(c) => Ghost::ToolcancelForLiveCaller(p.call(c)),
            Ghost::ToolcancelAfterSettlement(c) => Ghost::ToolcancelAfterSettlement(p.call(c)),
            Ghost::ResultBeforeToolactivated(c) => Ghost::ResultBeforeToolactivated(p.call(c)),
        }
    }
}

impl Rename for Task {
    fn rename(&self, p: &Perm) -> Task {
        Task {
            doc: p.doc(self.doc),
            kind: self.kind.rename(p),
        }
    }
}

impl Rename for TaskKind {
    fn rename(&self, p: &Perm) -> TaskKind {
        match self {
            TaskKind::FireToolchange { cause, registered } => TaskKind::FireToolchange {
                cause: p.call(*cause),
                registered: *registered,
            },
            TaskKind::ResolveRegister { call } => TaskKind::ResolveRegister {
                call: p.call(*call),
            },
            TaskKind::ResolveGetTools { call, tools } => TaskKind::ResolveGetTools {
                call: p.call(*call),
                tools: rename_tools(tools, p),
            },
            TaskKind::RejectExecute { call, at } => TaskKind::RejectExecute {
                call: p.call(*call),
                at: *at,
            },
            TaskKind::ResolveExecute { call, result } => TaskKind::ResolveExecute {
                call: p.call(*call),
                result: *result,
            },
            TaskKind::RunToolExecuteSteps {
                call,
                target,
                tool_name,
            } => TaskKind::RunToolExecuteSteps {
                call: p.call(*call),
                target: p.doc(*target),
                tool_name: *tool_name,
            },
            TaskKind::CancelLocal { call, target } => TaskKind::CancelLocal {
                call: p.call(*call),
                target: p.doc(*target),
            },
        }
    }
}

impl Rename for ThreadKey {
    fn rename(&self, p: &Perm) -> ThreadKey {
        match *self {
            ThreadKey::Register(c) => ThreadKey::Register(p.call(c)),
            ThreadKey::Unregister(c) => ThreadKey::Unregister(p.call(c)),
            ThreadKey::GetTools(c) => ThreadKey::GetTools(p.call(c)),
            ThreadKey::Execute(c) => ThreadKey::Execute(p.call(c)),
            ThreadKey::CancelOnAbort(c) => ThreadKey::CancelOnAbort(p.call(c)),
            ThreadKey::Cleanup(d, n) => ThreadKey::Cleanup(p.doc(d), n),
            ThreadKey::Completion(c) => ThreadKey::Completion(p.call(c)),
            ThreadKey::CleanupCompletion(c, n) => ThreadKey::CleanupCompletion(p.call(c), n),
        }
    }
}

/// A bit set over navigable ids.
fn rename_navs(set: u64, p: &Perm) -> u64 {
    let mut out = 0;
    let mut bits = set;
    while bits != 0 {
        let n = NavId::nth(bits.trailing_zeros() as usize);
        bits &= bits - 1;
        out |= 1 << p.nav(n).index();
    }
    out
}

impl Rename for NavList {
    fn rename(&self, p: &Perm) -> NavList {
        NavList(rename_navs(self.0, p))
    }
}

impl Rename for Thread {
    fn rename(&self, p: &Perm) -> Thread {
        match self {
            Thread::Notify {
                owner,
                exposed,
                cause,
                resolve_registration,
                pc,
            } => Thread::Notify {
                owner: p.doc(*owner),
                exposed: *exposed,
                cause: p.call(*cause),
                resolve_registration: *resolve_registration,
                pc: match pc {
                    NotifyPc::Visit(navs) => NotifyPc::Visit(navs.rename(p)),
                    other => *other,
                },
            },
            Thread::GetTools {
                requestor,
                from_origins,
                pc,
            } => Thread::GetTools {
                requestor: p.doc(*requestor),
                from_origins: *from_origins,
                pc: match pc {
                    GetToolsPc::Start => GetToolsPc::Start,
                    GetToolsPc::Visit {
                        navs,
                        tools,
                        changed,
                    } => GetToolsPc::Visit {
                        navs: navs.rename(p),
                        tools: rename_tools(tools, p),
                        changed: *changed,
                    },
                    GetToolsPc::Finish { tools, changed } => GetToolsPc::Finish {
                        tools: rename_tools(tools, p),
                        changed: *changed,
                    },
                },
            },
            Thread::Execute {
                caller,
                target,
                expected_origin,
                tool_name,
                pc,
            } => Thread::Execute {
                caller: p.doc(*caller),
                target: p.doc(*target),
                expected_origin: *expected_origin,
                tool_name: *tool_name,
                pc: *pc,
            },
            Thread::Cancel(proc) => Thread::Cancel(proc.rename(p)),
            Thread::Completion(proc) => Thread::Completion(proc.rename(p)),
            Thread::Cleanup {
                doc,
                traversable,
                pc,
            } => Thread::Cleanup {
                doc: p.doc(*doc),
                traversable: p.nav(*traversable),
                pc: match pc {
                    CleanupPc::Collect => CleanupPc::Collect,
                    CleanupPc::Each { uuids, sub } => CleanupPc::Each {
                        uuids: uuids.iter().map(|c| p.call(*c)).collect(),
                        sub: match sub {
                            CleanupSub::Complete(c) => CleanupSub::Complete(c.rename(p)),
                            CleanupSub::Cancel(c) => CleanupSub::Cancel(c.rename(p)),
                            other => *other,
                        },
                    },
                },
            },
        }
    }
}

impl Rename for CancelProc {
    fn rename(&self, p: &Perm) -> CancelProc {
        CancelProc {
            traversable: p.nav(self.traversable),
            uuid: p.call(self.uuid),
            pc: match self.pc {
                CancelPc::Check => CancelPc::Check,
                CancelPc::Read => CancelPc::Read,
                CancelPc::Remove { target } => CancelPc::Remove {
                    target: p.doc(target),
                },
                CancelPc::Queue { target } => CancelPc::Queue {
                    target: p.doc(target),
                },
            },
        }
    }
}

impl Rename for CompletionProc {
    fn rename(&self, p: &Perm) -> CompletionProc {
        CompletionProc {
            uuid: p.call(self.uuid),
            target: p.doc(self.target),
            ..*self
        }
    }
}

impl Rename for Action {
    fn rename(&self, p: &Perm) -> Action {
        match *self {
            Action::RunScript(d) => Action::RunScript(p.doc(d)),
            Action::RunTask(a) => Action::RunTask(p.agent(a)),
            Action::Step(k) => Action::Step(k.rename(p)),
            Action::SettleTool(c, o) => Action::SettleTool(p.call(c), o),
            Action::Abort(c) => Action::Abort(p.ctrl(c)),
            Action::RemoveIframe(n) => Action::RemoveIframe(p.nav(n)),
            Action::Navigate(n) => Action::Navigate(p.nav(n)),
            Action::EnterBfcache(t) => Action::EnterBfcache(p.tab(t)),
            Action::RestoreFromBfcache(t) => Action::RestoreFromBfcache(p.tab(t)),
            Action::EvictFromBfcache(t) => Action::EvictFromBfcache(p.tab(t)),
            Action::Observe(t) => Action::Observe(p.tab(t)),
        }
    }
}
