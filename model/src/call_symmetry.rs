//! Symmetry between the calls of one script: `executeTool` statements that are equal up to
//! renaming their own call and their own AbortController are interchangeable **once the
//! script has run past all of them**.
//!
//! Before that they are not: the script makes them in statement order, so in a state where it
//! has made the first and not yet the second, swapping them gives a state no run reaches. The
//! group therefore applies to a region of states, not to the world: a state is *released* for
//! a group when its script's next statement comes after every member's (`ScriptState::pc`
//! only grows, so every successor of a released state is released, and renaming leaves the
//! counter alone, so a class is all released or all not). On released states the transition
//! function cannot tell the members apart:
//!
//! - the members' statements are equal up to the renaming (`Perm::op_maps_to`: the same
//!   tool, input and list; each its own signal, or none), and no other statement
//!   of any script or tool body names a member's call or own controller (each maps to itself),
//!   so what is left to run is the same after renaming;
//! - the members' calls have the same document, script and kind, their controllers the same
//!   owner and abort reason, and the environment may abort all their controllers or none;
//! - the only thing that told them apart, their statements' order, is read only by the
//!   script's counter and by questions of the form "has the script made this call yet"
//!   (`reduction::task_alone`), whose answer is "yes" for every member of a released group;
//! - pending maps keep insertion order, task queues their own order, and nothing else
//!   orders calls by id (bodies ready to resume are found in id order, `body_ready_on`,
//!   but only scripted bodies wait, and a world with one has no call groups);
//! - statements may run between the members (an iframe removed between two calls): what
//!   then differs between the calls is in the state, which the renaming carries with them.
//!
//! A signal shared by the members is refused: its abort steps list them in the order they
//! were made, so no reachable state is the renaming of another and the group would cost
//! time for nothing. `rename_calls` renames the collections that can hold a call or a
//! controller; a new field holding one must be renamed there and in `symmetry::Rename`.
//!
//! So `apply(π s, π a) = π apply(s, a)` for every released `s` and every renaming `π` of the
//! group, and the properties, which quantify over all calls and never name one, take the same
//! value at `s` and `π s`. Exploring one state per class then reaches exactly the classes the
//! full exploration reaches. `model/tests/symmetry.rs` checks commutation at every released
//! reachable state of the scenarios that have such groups, the classes against Burnside's
//! count over the released states, and every verdict against the unreduced search.
//!
//! Call groups are used only in scenarios without interchangeable tabs ([`Symmetry`]):
//! combining the two would need the tab renamings to carry released groups onto each other.
//!
//! [`Symmetry`]: crate::symmetry::Symmetry

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

use smallvec::{smallvec, SmallVec};
use webmcp_checker::fingerprint::fingerprint;

use crate::coll::{digest_of_entries, Digest, OrdMap, OrdSet, Vector};
use crate::state::{DocState, Ghost, PendingExecution, ScriptStatus, State, Task, TaskKind};
use std::hash::Hash;

use crate::symmetry::{invariant, permutations, permute, signature, Block, Perm, Rename, Table};
use crate::threads::ThreadKey;
use crate::world::{CallId, CallKind, CtrlId, DocId, Op, World};

/// The most members a call group may have (its permutations are enumerated: 5! = 120).
pub const MAX_CALL_GROUP_MEMBERS: usize = 5;
/// A group's renamings are numbered in the low 8 bits of their key ([`RenamedDigests`]):
/// every one but the identity must fit there, or two renamings would share a key.
const _: () = assert!({
    let (mut n, mut order) = (1, 1);
    while n <= MAX_CALL_GROUP_MEMBERS {
        order *= n;
        n += 1;
    }
    order - 1 <= 1 << 8
});
/// The most renamings the released groups of one state may generate together.
pub const MAX_CALL_PERMUTATIONS: usize = 720;

/// Interchangeable `executeTool` statements of one script.
#[derive(Clone, Debug)]
pub struct CallGroup {
    /// The document whose script makes the calls.
    pub script: DocId,
    /// Released once the script's counter is at least this: past every member's statement.
    pub released_at: u8,
    /// Per member: its call and its own controller (if it has one of its own).
    pub members: Vec<Block>,
    /// Every renaming of the members but the identity, with the member each is sent to.
    perms: Vec<(Perm, Vec<usize>)>,
    /// Unique in the process: with a renaming's index, it keys the renamed digests this
    /// thread has computed ([`RenamedDigests`]).
    id: u64,
}

impl CallGroup {
    /// Whether `s` is past every member's statement.
    #[inline]
    pub fn is_released(&self, s: &State) -> bool {
        s.doc(self.script).script.pc >= self.released_at
    }

    /// Every renaming of the members but the identity.
    pub fn perms(&self) -> impl Iterator<Item = &Perm> {
        self.perms.iter().map(|(p, _)| p)
    }

    /// How many renamings the group generates, the identity included.
    pub fn order(&self) -> usize {
        self.perms.len() + 1
    }
}

/// The call groups of a scenario.
#[derive(Clone, Debug, Default)]
pub struct CallSymmetry {
    groups: Vec<CallGroup>,
}

impl CallSymmetry {
    pub fn none() -> CallSymmetry {
        CallSymmetry::default()
    }

    /// The groups of interchangeable `executeTool` statements of each script. Conservative:
    /// a statement joins a group only if swapping it with the group's first member is a
    /// symmetry of the released states (the conditions of the module documentation), and
    /// every renaming of every group is checked again.
    pub fn of(w: &World) -> CallSymmetry {
        let mut groups = Vec::new();
        for (d, doc) in w.docs.iter().enumerate() {
            let executes: Vec<usize> = (0..doc.script.len())
                .filter(|&k| matches!(doc.script[k], Op::Execute(_)))
                .collect();
            let mut grouped = vec![false; executes.len()];
            for f in 0..executes.len() {
                if grouped[f] {
                    continue;
                }
                let mut members = vec![executes[f]];
                for i in f + 1..executes.len() {
                    if members.len() == MAX_CALL_GROUP_MEMBERS {
                        break;
                    }
                    if grouped[i] {
                        continue;
                    }
                    let pair = [executes[f], executes[i]];
                    if let Some(group) = CallGroup::build(w, DocId::nth(d), &pair) {
                        if group.perms.len() == 1 {
                            grouped[i] = true;
                            members.push(executes[i]);
                        }
                    }
                }
                if members.len() >= 2 {
                    grouped[f] = true;
                    if let Some(group) = CallGroup::build(w, DocId::nth(d), &members) {
                        groups.push(group);
                    }
                }
            }
        }
        // Keep the renamings of all groups together within bounds: smaller groups first.
        loop {
            let order: usize = groups.iter().map(CallGroup::order).product();
            if order <= MAX_CALL_PERMUTATIONS {
                break;
            }
            let largest = (0..groups.len())
                .max_by_key(|&i| groups[i].members.len())
                .expect("a group");
            let g = &groups[largest];
            let statements: Vec<usize> = g
                .members
                .iter()
                .map(|b| w.calls[b.calls[0].index()].statement)
                .collect();
            match CallGroup::build(w, g.script, &statements[..statements.len() - 1]) {
                Some(smaller) if smaller.members.len() >= 2 => groups[largest] = smaller,
                _ => {
                    groups.remove(largest);
                }
            }
        }
        CallSymmetry { groups }
    }

    pub fn groups(&self) -> &[CallGroup] {
        &self.groups
    }

    pub fn is_trivial(&self) -> bool {
        self.groups.is_empty()
    }

    /// The groups by call label, e.g. `{exec1, exec2} after statement 4 of caller`.
    pub fn describe(&self, w: &World) -> String {
        self.groups
            .iter()
            .map(|g| {
                let names: Vec<&str> = g
                    .members
                    .iter()
                    .map(|b| w.calls[b.calls[0].index()].label.as_str())
                    .collect();
                format!(
                    "{{{}}} after statement {} of {}",
                    names.join(", "),
                    g.released_at,
                    w.docs[g.script.index()].name
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The representative of `s`'s class: the least state (under `Ord`) among the renamings
    /// by the released groups that put each group's members in the order of their
    /// [`signature`]s, ties enumerated. The same for every state of a class, by the argument
    /// of [`crate::symmetry::Symmetry::representative`]: a member's signature reads only its
    /// own call and controller, and whether a group is released is the same across a class.
    pub fn representative(&self, s: &State) -> State {
        let mut best: Option<State> = None;
        for p in &self.sorting_renamings(s) {
            let r = match p {
                None => s.clone(),
                Some(r) => rename_calls(s, &r.perm),
            };
            if best.as_ref().is_none_or(|b| r < *b) {
                best = Some(r);
            }
        }
        best.expect("some renaming sorts every released group")
    }

    /// The fingerprint of `s`'s class ([`webmcp_checker::ClassFingerprint`]): the least
    /// fingerprint of the states [`Self::representative`] chooses among, each hashed without
    /// being built ([`renamed_fingerprint`]). The same for every state of a class, since
    /// that set of states is (the argument of [`Self::representative`]), and different
    /// between classes, whose sets are disjoint, but for collisions. Most states are
    /// unreleased or sorted already and are hashed as they are.
    pub fn class_fingerprint(&self, s: &State) -> u64 {
        self.least_fingerprint(s, true)
    }

    /// [`Self::class_fingerprint`] with every renamed collection hashed again, none taken
    /// from those this thread remembers: what the tests compare it with.
    pub fn class_fingerprint_from_scratch(&self, s: &State) -> u64 {
        self.least_fingerprint(s, false)
    }

    fn least_fingerprint(&self, s: &State, remembered: bool) -> u64 {
        self.sorting_renamings(s)
            .iter()
            .map(|r| match r {
                None => fingerprint(s),
                Some(r) => hash_renamed(s, &r.perm, r.key.filter(|_| remembered)),
            })
            .min()
            .expect("some renaming sorts every released group")
    }

    /// The renamings by the released groups that put each group's members in the order of
    /// their signatures ([`member_signatures`]), ties enumerated; `None` is the identity.
    fn sorting_renamings(&self, s: &State) -> SmallVec<[Option<Renaming<'_>>; 2]> {
        let mut sorting: SmallVec<[Option<Renaming<'_>>; 2]> = smallvec![None];
        for g in self.groups.iter().filter(|g| g.is_released(s)) {
            let signatures = member_signatures(s, g);
            let mut sorted = signatures.clone();
            sorted.sort_unstable();
            let sorts = |dest: &[usize]| {
                dest.iter()
                    .enumerate()
                    .all(|(i, &j)| sorted[j] == signatures[i])
            };
            let mut here: SmallVec<[Option<Renaming<'_>>; 2]> = SmallVec::new();
            if signatures == sorted {
                here.push(None);
            }
            here.extend(
                g.perms
                    .iter()
                    .enumerate()
                    .filter(|(_, (_, dest))| sorts(dest))
                    .map(|(k, (p, _))| {
                        Some(Renaming {
                            perm: Cow::Borrowed(p),
                            key: Some(g.id << 8 | k as u64),
                        })
                    }),
            );
            if here.len() == 1 && sorting.len() == 1 {
                // No tie, and none before: the one renaming so far, then this group's.
                let a = sorting.pop().expect("one");
                let b = here.pop().expect("one");
                sorting.push(compose(a, b));
                continue;
            }
            sorting = sorting
                .iter()
                .flat_map(|a| here.iter().map(move |b| compose(a.clone(), b.clone())))
                .collect();
        }
        sorting
    }
}

/// A renaming of calls and controllers, and, when it is one group's own, the key that names
/// it in [`RenamedDigests`] (a composition of several groups' has none).
#[derive(Clone)]
struct Renaming<'p> {
    perm: Cow<'p, Perm>,
    key: Option<u64>,
}

/// The signatures of a group's members (at most [`MAX_CALL_GROUP_MEMBERS`]).
type Signatures = SmallVec<[u64; MAX_CALL_GROUP_MEMBERS]>;

/// `a` then `b`, where `None` is the identity.
fn compose<'p>(a: Option<Renaming<'p>>, b: Option<Renaming<'p>>) -> Option<Renaming<'p>> {
    match (a, b) {
        (a, None) => a,
        (None, b) => b,
        (Some(a), Some(b)) => Some(Renaming {
            perm: Cow::Owned(a.perm.then(&b.perm)),
            key: None,
        }),
    }
}

/// Per member of `g`: [`signature`] of its call and controller, refined by where its call
/// stands in the pending maps, the local maps, the threads and the task queues: positions in
/// a pending map or a queue tell two members apart wherever both are there, so few states
/// tie. Each member's signature reads only its own part, in orders renaming keeps (insertion
/// order, queue order), so a renamed member keeps its signature. One pass over each
/// collection for all members; each member's words are those of one member's scan
/// (`tests::member_signature`, which a test compares with this on every reachable state).
fn member_signatures(s: &State, g: &CallGroup) -> Signatures {
    let calls: SmallVec<[CallId; MAX_CALL_GROUP_MEMBERS]> =
        g.members.iter().map(|b| b.calls[0]).collect();
    let member = |c: CallId| calls.iter().position(|&x| x == c);
    let mut h: Signatures = g.members.iter().map(|b| signature(s, b)).collect();
    let word = |h: &mut u64, x: u32| *h = (*h ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3);
    for map in s.pending.iter() {
        let mut position = [u32::MAX; MAX_CALL_GROUP_MEMBERS];
        for (i, (x, _)) in map.iter().enumerate() {
            if let Some(m) = member(*x) {
                position[m] = position[m].min(i as u32);
            }
        }
        for (h, &p) in h.iter_mut().zip(&position) {
            word(h, p);
        }
    }
    for doc in s.docs.iter() {
        let mut local = [false; MAX_CALL_GROUP_MEMBERS];
        for &x in doc.local.iter() {
            if let Some(m) = member(x) {
                local[m] = true;
            }
        }
        for (h, &l) in h.iter_mut().zip(&local) {
            word(h, u32::from(l));
        }
    }
    for key in s.threads.keys() {
        let (x, kind) = match *key {
            ThreadKey::Execute(x) => (x, 1),
            ThreadKey::CancelOnAbort(x) => (x, 2),
            ThreadKey::Completion(x) => (x, 3),
            ThreadKey::CleanupCompletion(x, n) => (x, 4 + u32::from(n)),
            _ => continue,
        };
        if let Some(m) = member(x) {
            word(&mut h[m], kind);
        }
    }
    for (q, queue) in s.queues.iter().enumerate() {
        for (i, task) in queue.iter().enumerate() {
            let Some(m) = task.kind.execution().and_then(member) else {
                continue;
            };
            let kind = match task.kind {
                TaskKind::RejectExecute { .. } => 1,
                TaskKind::ResolveExecute { .. } => 2,
                TaskKind::RunToolExecuteSteps { .. } => 3,
                _ => 4,
            };
            word(&mut h[m], ((q as u32) << 24) | ((i as u32) << 4) | kind);
        }
    }
    h
}

/// `s.rename(p)` for a renaming `p` of `executeTool` calls and controllers alone, sharing
/// every collection that names none of the calls it moves (their hashes are cached with
/// them, so the representative is hashed for what changed only).
/// [`renamed_fingerprint`] hashes the same state without building it: a change here is a
/// change there.
pub fn rename_calls(s: &State, p: &Perm) -> State {
    debug_assert!(
        p.doc.is_identity() && p.nav.is_identity() && p.tab.is_identity(),
        "a renaming of calls and controllers alone"
    );
    let docs = if s.docs.iter().any(|d| doc_moves(d, p)) {
        permute(&s.docs, &p.doc, p)
    } else {
        s.docs.clone()
    };
    let queues = if s.queues.iter().any(|q| queue_moves(q, p)) {
        s.queues
            .iter()
            .map(|q| {
                if queue_moves(q, p) {
                    q.iter().map(|t| t.rename(p)).collect()
                } else {
                    q.clone()
                }
            })
            .collect()
    } else {
        s.queues.clone()
    };
    let pending = if s.pending.iter().any(|m| pending_moves(m, p)) {
        s.pending
            .iter()
            .map(|m| {
                if pending_moves(m, p) {
                    m.iter().map(|(c, e)| (p.call(*c), e.rename(p))).collect()
                } else {
                    m.clone()
                }
            })
            .collect()
    } else {
        s.pending.clone()
    };
    let ghost = if s.ghost.is_empty() {
        s.ghost.clone()
    } else {
        s.ghost
            .iter()
            .map(|g| g.rename(p))
            .collect::<OrdSet<_, true>>()
    };
    State {
        docs,
        navs: s.navs.clone(),
        queues,
        threads: s
            .threads
            .iter()
            .map(|(k, t)| (k.rename(p), t.rename(p)))
            .collect::<OrdMap<_, _, true>>(),
        promises: permute(&s.promises, &p.call, p),
        controllers: permute(&s.controllers, &p.ctrl, p),
        pending,
        bodies: s
            .bodies
            .iter()
            .map(|(c, b)| (p.call(*c), b.rename(p)))
            .collect::<OrdMap<_, _, true>>(),
        env: s.env,
        ghost,
    }
}

/// `fingerprint(&rename_calls(s, p))`, without building the renamed state: each collection
/// [`rename_calls`] rebuilds is renamed into a buffer (on the stack up to eight entries) and
/// digested as the rebuilt collection would be ([`digest_of_entries`]: a map's entries
/// sorted by key), and each one it shares gives its cached digest. The fields are hashed in `State`'s order, as
/// its derived `Hash` does. `model/tests/symmetry.rs` checks the two agree on every
/// renaming of every reachable state of the scenarios with call groups.
pub fn renamed_fingerprint(s: &State, p: &Perm) -> u64 {
    hash_renamed(s, p, None)
}

/// [`renamed_fingerprint`], with the digests of renamed collections remembered on this
/// thread under `key`, the renaming's name, if it has one ([`RenamedDigests`]).
fn hash_renamed(s: &State, p: &Perm, key: Option<u64>) -> u64 {
    let memo = |field: Field, plain: Digest, compute: &dyn Fn() -> Digest| match key {
        Some(key) => RenamedDigests::get_or(field, plain, key, compute),
        None => compute(),
    };
    /// Entries renamed, in the rebuilt collection's order: on the stack up to eight.
    type Buffer<T> = SmallVec<[T; 8]>;
    fn sorted_by_key<K: Ord, V>(mut v: Buffer<(K, V)>) -> Buffer<(K, V)> {
        v.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        v
    }
    debug_assert!(
        p.doc.is_identity() && p.nav.is_identity() && p.tab.is_identity(),
        "a renaming of calls and controllers alone"
    );
    let docs = memo(Field::Docs, s.docs.digest(), &|| {
        if !s.docs.iter().any(|d| doc_moves(d, p)) {
            return s.docs.digest();
        }
        let renamed: Buffer<DocState> = s
            .docs
            .iter()
            .map(|d| {
                if doc_moves(d, p) {
                    d.rename(p)
                } else {
                    d.clone()
                }
            })
            .collect();
        digest_of_entries(&renamed)
    });
    // A vector of inner vectors (per agent, per tab): the inner ones a renaming moves are
    // renamed, the others give their cached digests.
    fn nested_digest<T: Hash>(
        outer: &Vector<Vector<T>, true>,
        moves: impl Fn(&Vector<T>) -> bool,
        rename: impl Fn(&T) -> T,
    ) -> Digest {
        if !outer.iter().any(&moves) {
            return outer.digest();
        }
        let each: Buffer<Digest> = outer
            .iter()
            .map(|inner| {
                if moves(inner) {
                    let renamed: Buffer<T> = inner.iter().map(&rename).collect();
                    digest_of_entries(&renamed)
                } else {
                    inner.digest()
                }
            })
            .collect();
        digest_of_entries(&each)
    }
    let queues = memo(Field::Queues, s.queues.digest(), &|| {
        nested_digest(&s.queues, |q| queue_moves(q, p), |t| t.rename(p))
    });
    let pending = memo(Field::Pending, s.pending.digest(), &|| {
        nested_digest(
            &s.pending,
            |m| pending_moves(m, p),
            |(c, e)| (p.call(*c), e.rename(p)),
        )
    });
    let ghost = memo(Field::Ghost, s.ghost.digest(), &|| {
        let mut renamed: Buffer<Ghost> = s.ghost.iter().map(|g| g.rename(p)).collect();
        // A renaming is a bijection: no two facts become one, so nothing to deduplicate.
        renamed.sort_unstable();
        digest_of_entries(&renamed)
    });
    let threads = memo(Field::Threads, s.threads.digest(), &|| {
        digest_of_entries(&sorted_by_key(
            s.threads
                .iter()
                .map(|(k, t)| (k.rename(p), t.rename(p)))
                .collect(),
        ))
    });
    // `permute`d, as `rename_calls` does; most often the members' entries are equal, and
    // the permuted vector is the same one.
    fn permuted_digest<T: Clone + Rename + PartialEq + Hash, const W: bool>(
        v: &Vector<T, W>,
        t: &Table,
        p: &Perm,
    ) -> Digest {
        let entry = |i: usize| v[t.inv[i] as usize].rename(p);
        if (0..v.len()).all(|i| entry(i) == v[i]) {
            return v.digest();
        }
        let renamed: Buffer<T> = (0..v.len()).map(entry).collect();
        digest_of_entries(&renamed)
    }
    let promises = memo(Field::Promises, s.promises.digest(), &|| {
        permuted_digest(&s.promises, &p.call, p)
    });
    let controllers = memo(Field::Controllers, s.controllers.digest(), &|| {
        permuted_digest(&s.controllers, &p.ctrl, p)
    });
    let bodies = memo(Field::Bodies, s.bodies.digest(), &|| {
        digest_of_entries(&sorted_by_key(
            s.bodies
                .iter()
                .map(|(c, b)| (p.call(*c), b.rename(p)))
                .collect(),
        ))
    });
    fingerprint(&(
        docs,
        s.navs.digest(),
        queues,
        threads,
        promises,
        controllers,
        pending,
        bodies,
        &s.env,
        ghost,
    ))
}

/// The collections of a state a renaming of calls can change, each remembered apart.
#[derive(Clone, Copy)]
enum Field {
    Docs,
    Queues,
    Threads,
    Promises,
    Controllers,
    Pending,
    Bodies,
    Ghost,
}

/// The digests of renamed collections this thread has computed, by collection digest and
/// renaming: a successor shares most collections with its parent, and its siblings sort the
/// same way, so most are found here instead of renamed and hashed again. Direct-mapped, per
/// [`Field`] (a new entry replaces the one in its slot).
///
/// Sound as the fingerprints are: a collection's renamed digest is a function of its entries
/// and the renaming (`rename_calls` reads nothing else), its entries are known by their
/// digest, as the state's fingerprint knows them, and the key names one renaming of one group
/// for the life of the process (`CallGroup::id`), so no other scenario's renaming shares it.
/// A wrong entry needs two collections of one field with the same digest, which already makes
/// two states' fingerprints collide.
struct RenamedDigests {
    slots: Vec<RenamedSlot>,
}

#[derive(Clone, Copy, Default)]
struct RenamedSlot {
    digest: u64,
    key: u64,
    renamed: u64,
}

impl RenamedDigests {
    /// Slots per field: a few hundred kilobytes in all, near the core.
    const SLOTS: usize = 1024;

    /// The digest of the collection whose digest is `plain` renamed by the renaming `key`
    /// names: remembered, or `compute`d and remembered.
    fn get_or(field: Field, plain: Digest, key: u64, compute: &dyn Fn() -> Digest) -> Digest {
        thread_local! {
            static RENAMED: RefCell<RenamedDigests> = RefCell::new(RenamedDigests {
                slots: vec![RenamedSlot::default(); 8 * RenamedDigests::SLOTS],
            });
        }
        let slot = field as usize * Self::SLOTS
            + ((plain.0 ^ key.wrapping_mul(0x9e37_79b9_7f4a_7c15)) as usize & (Self::SLOTS - 1));
        let known = RENAMED.with_borrow(|m| {
            let e = m.slots[slot];
            (e.digest == plain.0 && e.key == key).then_some(Digest(e.renamed))
        });
        known.unwrap_or_else(|| {
            let renamed = compute();
            RENAMED.with_borrow_mut(|m| {
                m.slots[slot] = RenamedSlot {
                    digest: plain.0,
                    key,
                    renamed: renamed.0,
                }
            });
            renamed
        })
    }
}

/// Whether renaming `p` changes a document: its local map, its tools' registering calls, or
/// the call its script awaits.
fn doc_moves(d: &DocState, p: &Perm) -> bool {
    let moved = |c: CallId| p.call(c) != c;
    d.local.iter().any(|&c| moved(c))
        || d.tools.iter().any(|(_, t)| moved(t.registered_by))
        || matches!(d.script.status, ScriptStatus::AwaitingCall(c) if moved(c))
}

/// Whether renaming `p` changes a task of the queue.
fn queue_moves(q: &Vector<Task>, p: &Perm) -> bool {
    q.iter().any(|t| t.rename(p) != *t)
}

/// Whether renaming `p` moves a call of a pending executions map.
fn pending_moves(m: &Vector<(CallId, PendingExecution)>, p: &Perm) -> bool {
    m.iter().any(|(c, _)| p.call(*c) != *c)
}

impl CallGroup {
    /// The group of the `executeTool` statements at `statements` of `script`'s script, with
    /// every renaming of them checked; `None` if one is not a symmetry of released states.
    fn build(w: &World, script: DocId, statements: &[usize]) -> Option<CallGroup> {
        // A scripted tool body can wait for an abort or for a call, and the bodies ready to
        // resume are found in call id order (`body_ready_on`, and the local map's order under
        // `abort-local-on-unload`): an order renaming would change. Only default bodies here.
        let scripted_body = w
            .docs
            .iter()
            .flat_map(|d| &d.script)
            .any(|op| matches!(op, Op::Register(r) if r.body.is_some()));
        if scripted_body {
            return None;
        }
        let ops = &w.docs[script.index()].script;
        let members: Vec<Block> = statements
            .iter()
            .map(|&k| {
                let Op::Execute(x) = &ops[k] else {
                    return None;
                };
                Some(Block {
                    tab: None,
                    navs: Vec::new(),
                    docs: Vec::new(),
                    calls: vec![x.call],
                    ctrls: x.signal.into_iter().collect(),
                    agents: Vec::new(),
                })
            })
            .collect::<Option<_>>()?;
        // Each member's signal is its own, or none has one. A signal they share tells them
        // apart: its abort steps list them in the order the script made the calls
        // (`execute-tool#15.4`), and an abort runs them in that order.
        let signals: Vec<Option<CtrlId>> =
            members.iter().map(|b| b.ctrls.first().copied()).collect();
        let mut own: Vec<CtrlId> = signals.iter().flatten().copied().collect();
        own.sort_unstable();
        own.dedup();
        let none = signals.iter().all(Option::is_none);
        if !none && own.len() != members.len() {
            return None;
        }
        let mut perms = Vec::new();
        for sigma in permutations(members.len()) {
            if sigma.iter().enumerate().all(|(i, &j)| i == j) {
                continue;
            }
            let mut call: Vec<u8> = (0..w.calls.len() as u8).collect();
            let mut ctrl: Vec<u8> = (0..w.controllers.len() as u8).collect();
            for (i, &j) in sigma.iter().enumerate() {
                call[members[i].calls[0].index()] = members[j].calls[0].get();
                if let (Some(a), Some(b)) = (members[i].ctrls.first(), members[j].ctrls.first()) {
                    ctrl[a.index()] = b.get();
                }
            }
            let identity = Perm::identity(w);
            let p = Perm {
                call: Table::from_fwd(call)?,
                ctrl: Table::from_fwd(ctrl)?,
                ..identity
            };
            if !is_symmetry_once_past(w, &p, script, statements) {
                return None;
            }
            perms.push((p, sigma));
        }
        let released_at = statements.iter().max().map(|&k| k + 1)?;
        static GROUPS: AtomicU64 = AtomicU64::new(1);
        Some(CallGroup {
            script,
            released_at: u8::try_from(released_at).ok()?,
            members,
            perms,
            id: GROUPS.fetch_add(1, AtomicOrdering::Relaxed),
        })
    }
}

/// Whether `p`, which renames only calls and controllers, is a symmetry of the states where
/// `script`'s script is past its `statements` (the conditions of the module documentation).
fn is_symmetry_once_past(w: &World, p: &Perm, script: DocId, statements: &[usize]) -> bool {
    let ops = &w.docs[script.index()].script;
    let call_of = |k: usize| match &ops[k] {
        Op::Execute(x) => Some(x.call),
        _ => None,
    };
    for (d, doc) in w.docs.iter().enumerate() {
        for (k, op) in doc.script.iter().enumerate() {
            let member = d == script.index() && statements.contains(&k);
            let image = if member {
                let Some(c) = call_of(k) else { return false };
                let target = p.call(c);
                match statements.iter().find(|&&j| call_of(j) == Some(target)) {
                    Some(&j) => &ops[j],
                    None => return false,
                }
            } else {
                op
            };
            if !p.op_maps_to(op, image) {
                return false;
            }
        }
    }
    for (c, call) in w.calls.iter().enumerate() {
        let image = &w.calls[p.call(CallId::nth(c)).index()];
        if image.doc != call.doc
            || image.script != call.script
            || image.kind != call.kind
            || image.body_statement != call.body_statement
            || (image.kind != CallKind::Execute && p.call(CallId::nth(c)) != CallId::nth(c))
        {
            return false;
        }
    }
    for (c, ctrl) in w.controllers.iter().enumerate() {
        let image = &w.controllers[p.ctrl(CtrlId::nth(c)).index()];
        if image.owner != ctrl.owner || image.reason != ctrl.reason {
            return false;
        }
    }
    invariant(&w.env.abort, |c| p.ctrl(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Variant, WebMcpModel};

    /// [`signature`] of a member's call and controller, refined by where its call stands in the
    /// pending maps, the local maps, the threads and the task queues: positions in a pending map
    /// or a queue tell two members apart wherever both are there, so few states tie. Reads only
    /// the member's own part, in orders renaming keeps (insertion order, queue order), so a
    /// renamed member keeps its signature.
    pub(super) fn member_signature(s: &State, b: &Block) -> u64 {
        let c = b.calls[0];
        let mut h = signature(s, b);
        let mut word = |x: u32| h = (h ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3);
        for map in s.pending.iter() {
            word(
                map.iter()
                    .position(|(x, _)| *x == c)
                    .map_or(u32::MAX, |i| i as u32),
            );
        }
        for doc in s.docs.iter() {
            word(u32::from(doc.local.contains(&c)));
        }
        for key in s.threads.keys() {
            let kind = match *key {
                ThreadKey::Execute(x) if x == c => 1,
                ThreadKey::CancelOnAbort(x) if x == c => 2,
                ThreadKey::Completion(x) if x == c => 3,
                ThreadKey::CleanupCompletion(x, n) if x == c => 4 + u32::from(n),
                _ => continue,
            };
            word(kind);
        }
        for (q, queue) in s.queues.iter().enumerate() {
            for (i, task) in queue.iter().enumerate() {
                if task.kind.execution() == Some(c) {
                    let kind = match task.kind {
                        TaskKind::RejectExecute { .. } => 1,
                        TaskKind::ResolveExecute { .. } => 2,
                        TaskKind::RunToolExecuteSteps { .. } => 3,
                        _ => 4,
                    };
                    word(((q as u32) << 24) | ((i as u32) << 4) | kind);
                }
            }
        }
        h
    }

    /// The one-pass signatures are, member by member, those of one member's own scan.
    #[test]
    fn one_pass_signatures_are_each_members_own() {
        let (w, calls) = three_calls();
        let [g] = calls.groups() else {
            panic!("one group: {}", calls.describe(&w))
        };
        let (mut released, mut cancelling, mut visited) = (0, 0, 0);
        // The first 20,000 states: every kind of thread and task is there.
        breadth_first(&w, |s| {
            visited += 1;
            let each: Signatures = g.members.iter().map(|b| member_signature(s, b)).collect();
            assert_eq!(member_signatures(s, g), each);
            released += usize::from(g.is_released(s));
            cancelling += usize::from(
                s.threads
                    .keys()
                    .any(|k| matches!(k, ThreadKey::CancelOnAbort(_))),
            );
            visited < 20_000
        });
        assert!(released > 1000, "{released} released states");
        assert!(cancelling > 100, "{cancelling} states cancelling on abort");
    }

    /// Visits `w`'s reachable states breadth-first while `visit` asks for more.
    fn breadth_first(w: &World, mut visit: impl FnMut(&State) -> bool) {
        let m = WebMcpModel::new(w.clone(), Variant::SEED);
        let mut queue = std::collections::VecDeque::from([m.initial_state()]);
        let mut seen = std::collections::HashSet::new();
        while let Some(s) = queue.pop_front() {
            if !visit(&s) {
                return;
            }
            let mut actions = Vec::new();
            m.enabled_actions(&s, &mut actions);
            for a in actions {
                let t = m.apply(&s, a, &mut ());
                if seen.insert(fingerprint(&t)) {
                    queue.push_back(t);
                }
            }
        }
    }

    /// `two-concurrent-executions` with a third, identical call, each with its own
    /// AbortController, which the environment may abort.
    fn three_calls() -> (World, CallSymmetry) {
        let text = include_str!("../../scenarios/two-concurrent-executions.json");
        let mut v: serde_json::Value = serde_json::from_str(text).expect("JSON");
        let script = v["scripts"]["top"].as_array_mut().expect("a script");
        let mut third = script[4].clone();
        third["as"] = serde_json::json!("exec3");
        script.push(third);
        for (k, c) in [(3, "c1"), (4, "c2"), (5, "c3")] {
            script[k]["signal"] = serde_json::json!(c);
        }
        v["environment"]["toolOutcomes"] = serde_json::json!(["fulfil"]);
        v["environment"]["abort"] = serde_json::json!(["c1", "c2", "c3"]);
        let w = World::from_json(&v.to_string()).expect("compiles");
        let calls = CallSymmetry::of(&w);
        (w, calls)
    }

    /// The remembered digests are kept apart by renaming: hashing one state under each of
    /// the group's renamings in turn, remembering as the search does, gives each renaming's
    /// own fingerprint, though every collection's digest is the same each time.
    #[test]
    fn remembered_renamed_digests_are_told_apart_by_renaming() {
        let (w, calls) = three_calls();
        let [g] = calls.groups() else {
            panic!("one group: {}", calls.describe(&w))
        };
        assert_eq!(g.order(), 6);
        // Breadth-first to 20 states where every renaming gives another state.
        let mut tried = 0;
        breadth_first(&w, |s| {
            if !(g.is_released(s) && g.perms().all(|p| rename_calls(s, p) != *s)) {
                return true;
            }
            tried += 1;
            let mut fingerprints: Vec<u64> = Vec::new();
            for (k, p) in g.perms().enumerate() {
                let key = Some(g.id << 8 | k as u64);
                let remembered = hash_renamed(s, p, key);
                assert_eq!(remembered, fingerprint(&rename_calls(s, p)));
                // Asked again, it is found, and the same.
                assert_eq!(hash_renamed(s, p, key), remembered);
                fingerprints.push(remembered);
            }
            fingerprints.sort_unstable();
            fingerprints.dedup();
            assert!(fingerprints.len() > 1, "every renaming gave one state");
            tried < 20
        });
        assert_eq!(
            tried, 20,
            "too few states where every renaming moves something"
        );
    }
}
