//! Small copy-on-write collections for the state.
//!
//! A scenario's collections hold a handful of entries, so each is one shared, contiguous
//! array, in one allocation with its header (`coll/node.rs`): cloning a state copies a
//! pointer per collection (no allocation), the first mutation after a clone copies that
//! collection's few entries (one allocation), and hashing or comparing walks a slice. An
//! empty collection allocates nothing. The maps and sets keep their entries sorted by key,
//! so they iterate, compare and hash in key order as `im`'s `OrdMap` and `OrdSet` did;
//! `Vector` keeps insertion order.
//!
//! **Hashes are cached per collection.** A collection is hashed once, into a 64-bit digest
//! kept beside its entries (an `AtomicU64`, 0 until computed), and a state's hash writes that digest: a successor shares most of
//! its collections with its parent, so fingerprinting it hashes only what the transition
//! changed (an incremental fingerprint). Every mutation goes through `make_mut`, which clears
//! the digest. Two distinct collections get the same digest with probability 2⁻⁶⁴, which adds
//! to the fingerprint's own collision probability (`webmcp_checker::fingerprint`) a term of
//! the same kind.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Index, IndexMut};
use std::sync::atomic::Ordering as AtomicOrdering;

mod node;
mod recycle;
use node::{Node, Unique};

/// The shared storage: `None` is the empty collection.
#[derive(Clone)]
struct Shared<T>(Option<Node<T>>);

/// The digest of some entries: aHash with fixed seeds, the same on every run. (Not the
/// digits of pi that aHash itself mixes seeds with: those cancel out, and every digest is 0.)
fn digest_of<T: Hash>(items: &[T]) -> u64 {
    ahash::RandomState::with_seeds(
        0x9e37_79b9_7f4a_7c15,
        0xbf58_476d_1ce4_e5b9,
        0x94d0_49bb_1331_11eb,
        0x2545_f491_4f6c_dd1d,
    )
    .hash_one(items)
}

/// The digest of a collection holding exactly `entries`, in this order (a map's: its
/// `(key, value)` pairs in key order), as its `Hash` writes it ([`Digest`]). For hashing a
/// collection without building it (`call_symmetry::renamed_fingerprint`).
pub fn digest_of_entries<T: Hash>(entries: &[T]) -> Digest {
    Digest(digest_of(entries))
}

/// A collection's digest: hashing it writes what hashing the collection writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Digest(pub u64);

impl Hash for Digest {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0)
    }
}

impl<T> Shared<T> {
    const fn new() -> Self {
        Shared(None)
    }
    fn as_slice(&self) -> &[T] {
        self.0.as_ref().map_or(&[], Node::as_slice)
    }
    fn from_vec(v: Vec<T>) -> Self {
        Shared((!v.is_empty()).then(|| Node::from_vec(v)))
    }
}

impl<T> Shared<T> {
    /// The same entries through a borrowed reference ([`Node::borrow`]).
    ///
    /// # Safety
    /// As [`Node::borrow`]: dropped, or counted in by [`Shared::own`], while `self` (or
    /// another counted reference) still holds the node.
    unsafe fn borrow(&self) -> Self {
        // SAFETY: the caller's promise.
        Shared(self.0.as_ref().map(|n| unsafe { n.borrow() }))
    }

    /// Counts a borrowed reference in ([`Node::own`]).
    fn own(&mut self) {
        if let Some(n) = &mut self.0 {
            n.own();
        }
    }

    /// Takes over `lender`'s reference if this one is borrowed from it ([`Node::take_over`]);
    /// whether it did.
    ///
    /// # Safety
    /// Where it did, `lender`'s reference is forgotten, never dropped.
    unsafe fn take_over_from(&mut self, lender: &Self) -> bool {
        match (&mut self.0, &lender.0) {
            (Some(n), Some(l)) if n.is_borrowed() && !l.is_borrowed() && n.ptr_eq(l) => {
                // SAFETY: the caller's promise; `lender` is counted.
                unsafe { n.take_over() };
                true
            }
            _ => false,
        }
    }
}

impl<T: Clone> Shared<T> {
    fn into_vec(self) -> Vec<T> {
        self.0.map_or_else(Vec::new, Node::into_vec)
    }

    /// The entries, unshared first if another state holds them too, with their digest
    /// cleared. The copy has room for one more entry, as most mutations after a clone insert
    /// or push one.
    fn make_mut(&mut self) -> Unique<'_, T> {
        let node = self.0.get_or_insert_with(|| Node::with_capacity(1));
        if !node.is_only() {
            *node = node.copy_with_capacity(node.as_slice().len() + 1);
        }
        node.digest().store(0, AtomicOrdering::Relaxed);
        node.unique().expect("unshared")
    }
}

/// A worker's private copies of widely shared collections (the parallel search's
/// [`webmcp_checker::Localizer`]): a few slots, each an original node (kept alive, so that
/// its address names it) and the worker's copy of it.
pub struct Replicas<T> {
    slots: Vec<Replica<T>>,
    next: usize,
}

/// An original node and the worker's copy of it.
type Replica<T> = (Node<T>, Node<T>);

impl<T> Default for Replicas<T> {
    fn default() -> Self {
        Replicas {
            slots: Vec::new(),
            next: 0,
        }
    }
}

/// How many states must share a node before a worker takes its own copy.
const WIDELY_SHARED: usize = 32;
/// Distinct widely shared nodes a worker keeps copies of, per collection.
const REPLICA_SLOTS: usize = 4;

impl<T: Clone> Shared<T> {
    /// Points this collection at the worker's own copy of its node when at least
    /// `min_shared` states (or enclosing nodes) share the node: then cloning and dropping
    /// what holds it touches a reference count no other worker writes. The entries and
    /// their digest are the same; `within` localizes each entry of a new copy in turn.
    fn localize(&mut self, r: &mut Replicas<T>, min_shared: usize, mut within: impl FnMut(&mut T)) {
        let Some(node) = &self.0 else { return };
        if node.count() < min_shared {
            return;
        }
        let mut copy = None;
        for (original, replica) in &r.slots {
            if replica.ptr_eq(node) {
                return;
            }
            if original.ptr_eq(node) {
                copy = Some(replica.clone());
                break;
            }
        }
        let copy = copy.unwrap_or_else(|| {
            let entries = node.as_slice().len();
            let mut replica = node.copy_with_capacity(entries);
            replica
                .unique()
                .expect("a new copy")
                .into_slice()
                .iter_mut()
                .for_each(&mut within);
            let slot = (node.clone(), replica.clone());
            if r.slots.len() < REPLICA_SLOTS {
                r.slots.push(slot);
            } else {
                r.slots[r.next] = slot;
                r.next = (r.next + 1) % REPLICA_SLOTS;
            }
            replica
        });
        self.0 = Some(copy);
    }
}

impl<T: Hash> Shared<T> {
    /// The digest of the entries, computed once per shared node. Inlined where a state is
    /// hashed: most collections of a successor are its parent's, their digests known.
    #[inline]
    fn digest(&self) -> u64 {
        match &self.0 {
            Some(node) => match node.digest().load(AtomicOrdering::Relaxed) {
                0 => Self::compute_digest(node),
                d => d,
            },
            None => digest_of::<T>(&[]),
        }
    }

    #[inline(never)]
    fn compute_digest(node: &Node<T>) -> u64 {
        let d = digest_of(node.as_slice());
        node.digest().store(d, AtomicOrdering::Relaxed);
        d
    }
}

macro_rules! slice_traits {
    ($name:ident < $($p:ident),* > , $elem:ty) => {
        impl<$($p),*, const W: bool> Default for $name<$($p),*, W> {
            fn default() -> Self {
                $name(Shared::new())
            }
        }
        impl<$($p: PartialEq),*, const W: bool> PartialEq for $name<$($p),*, W> {
            fn eq(&self, other: &Self) -> bool {
                noted::<W, _>(self, Key::All, Kind::Read);
                noted::<W, _>(other, Key::All, Kind::Read);
                self.0.as_slice() == other.0.as_slice()
            }
        }
        impl<$($p: Eq),*, const W: bool> Eq for $name<$($p),*, W> {}
        impl<$($p: PartialOrd),*, const W: bool> PartialOrd for $name<$($p),*, W> {
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                noted::<W, _>(self, Key::All, Kind::Read);
                noted::<W, _>(other, Key::All, Kind::Read);
                self.0.as_slice().partial_cmp(other.0.as_slice())
            }
        }
        impl<$($p: Ord),*, const W: bool> Ord for $name<$($p),*, W> {
            fn cmp(&self, other: &Self) -> Ordering {
                noted::<W, _>(self, Key::All, Kind::Read);
                noted::<W, _>(other, Key::All, Kind::Read);
                self.0.as_slice().cmp(other.0.as_slice())
            }
        }
        impl<$($p: Hash),*, const W: bool> Hash for $name<$($p),*, W> {
            /// Not noted in a footprint: hashing a state is the engine's fingerprint, never
            /// part of a transition (no transition code hashes the state's collections; a
            /// debug build asserts it).
            #[inline]
            fn hash<H: Hasher>(&self, state: &mut H) {
                debug_assert!(!(W && track::watching()), "a transition hashed a watched collection");
                state.write_u64(self.0.digest())
            }
        }
        impl<$($p: Hash),*, const W: bool> $name<$($p),*, W> {
            /// What hashing the collection writes (cached, as there).
            #[inline]
            pub fn digest(&self) -> Digest {
                debug_assert!(!(W && track::watching()), "a transition hashed a watched collection");
                Digest(self.0.digest())
            }
        }
        impl<$($p),*, const W: bool> $name<$($p),*, W> {
            pub const fn new() -> Self {
                $name(Shared::new())
            }
            pub fn len(&self) -> usize {
                noted::<W, _>(self, Key::Len, Kind::Read);
                self.0.as_slice().len()
            }
            pub fn is_empty(&self) -> bool {
                noted::<W, _>(self, Key::Len, Kind::Read);
                self.0.as_slice().is_empty()
            }
            fn entries(&self) -> &[$elem] {
                self.0.as_slice()
            }
        }
        impl<$($p),*> $name<$($p),*, true> {
            /// The same entries, read from this collection's storage without counting a
            /// reference to it: a state's top-level collection in a successor being built
            /// (`crate::state::State::borrow`). Changing the result copies the storage first.
            ///
            /// # Safety
            /// The result, and whatever it is moved into, is dropped or [`Self::own`]ed while
            /// `self` still holds its storage.
            pub(crate) unsafe fn borrow(&self) -> Self {
                // SAFETY: the caller's promise.
                $name(unsafe { self.0.borrow() })
            }
            /// Counts a borrowed collection in: afterwards it holds its storage itself.
            pub(crate) fn own(&mut self) {
                self.0.own()
            }
            /// Takes over `lender`'s reference to the storage it borrowed from it, if it
            /// did; whether it did. Otherwise nothing changes.
            ///
            /// # Safety
            /// Where it did, `lender`'s reference is forgotten, never dropped.
            pub(crate) unsafe fn take_over_from(&mut self, lender: &Self) -> bool {
                // SAFETY: the caller's promise.
                unsafe { self.0.take_over_from(&lender.0) }
            }
            /// How many references its storage has, 0 for an empty collection (tests).
            pub(crate) fn reference_count(&self) -> usize {
                self.0 .0.as_ref().map_or(0, Node::count)
            }
            /// Whether this collection reads storage it holds no reference to
            /// (`borrow`).
            pub fn is_borrowed(&self) -> bool {
                self.0 .0.as_ref().is_some_and(Node::is_borrowed)
            }
        }
        impl<$($p: Clone),*, const W: bool> $name<$($p),*, W> {
            /// The same entries, from this worker's own copy of the node if many states
            /// share it ([`Replicas`]); `within` localizes the copy's entries.
            pub fn localize(&mut self, r: &mut Replicas<$elem>, within: impl FnMut(&mut $elem)) {
                self.0.localize(r, WIDELY_SHARED, within)
            }
            /// A hint to load the collection's storage before it is read.
            #[inline]
            pub fn prefetch(&self) {
                if let Some(node) = &self.0 .0 {
                    node.prefetch()
                }
            }
            /// Whether the two hold the very same storage (not only equal entries).
            pub fn shares_storage_with(&self, other: &Self) -> bool {
                match (&self.0 .0, &other.0 .0) {
                    (Some(a), Some(b)) => a.ptr_eq(b),
                    (None, None) => true,
                    _ => false,
                }
            }
            /// The same, for a collection inside a worker's new copy of an enclosing one:
            /// copied whatever its count, since every clone of the enclosing collection
            /// writes it.
            pub fn localize_inner(&mut self, r: &mut Replicas<$elem>) {
                self.0.localize(r, 1, |_| ())
            }
        }
    };
}

/// A sequence in insertion order (replaces `im::Vector`).
#[derive(Clone)]
pub struct Vector<T, const W: bool = false>(Shared<T>);
slice_traits!(Vector<T>, T);

impl<T, const W: bool> Vector<T, W> {
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        noted::<W, _>(self, Key::All, Kind::Read);
        self.entries().iter()
    }
    pub fn get(&self, i: usize) -> Option<&T> {
        noted::<W, _>(self, Key::At(i as u64), Kind::Read);
        noted::<W, _>(self, Key::Len, Kind::Read);
        self.entries().get(i)
    }
    pub fn front(&self) -> Option<&T> {
        noted::<W, _>(self, Key::All, Kind::Read);
        self.entries().first()
    }
    pub fn back(&self) -> Option<&T> {
        noted::<W, _>(self, Key::All, Kind::Read);
        self.entries().last()
    }
    pub fn contains(&self, x: &T) -> bool
    where
        T: PartialEq,
    {
        noted::<W, _>(self, Key::All, Kind::Read);
        self.entries().contains(x)
    }
}

impl<T: Clone, const W: bool> Vector<T, W> {
    pub fn push_back(&mut self, x: T) {
        noted::<W, _>(self, Key::All, Kind::Write);
        self.0.make_mut().push(x)
    }
    pub fn pop_front(&mut self) -> Option<T> {
        noted::<W, _>(self, Key::All, Kind::Write);
        (!self.is_empty()).then(|| self.0.make_mut().remove(0))
    }
    pub fn pop_back(&mut self) -> Option<T> {
        noted::<W, _>(self, Key::All, Kind::Write);
        (!self.is_empty())
            .then(|| self.0.make_mut().pop())
            .flatten()
    }
    /// Removes and returns the entry at `i`; panics when out of bounds.
    pub fn remove(&mut self, i: usize) -> T {
        noted::<W, _>(self, Key::All, Kind::Write);
        self.0.make_mut().remove(i)
    }
    pub fn insert(&mut self, i: usize, x: T) {
        noted::<W, _>(self, Key::All, Kind::Write);
        self.0.make_mut().insert(i, x)
    }
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        noted::<W, _>(self, Key::At(i as u64), Kind::Write);
        if i < self.len() {
            self.0.make_mut().into_slice().get_mut(i)
        } else {
            None
        }
    }
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        noted::<W, _>(self, Key::All, Kind::Write);
        if self.is_empty() {
            return [].iter_mut();
        }
        self.0.make_mut().into_slice().iter_mut()
    }
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        noted::<W, _>(self, Key::All, Kind::Write);
        if !self.entries().iter().all(&mut keep) {
            self.0.make_mut().retain(keep)
        }
    }
}

impl<T, const W: bool> Vector<T, W> {
    /// The entry at `i`, of which the caller reads only its field `field` (as the footprint
    /// of a transition records it, `track`).
    pub fn part(&self, i: usize, field: u8) -> &T {
        noted::<W, _>(self, Key::Part(i as u64, field), Kind::Read);
        &self.entries()[i]
    }
}

impl<T, const W: bool> Vector<T, W> {
    /// Notes a write of part `field` of the entry at `i` that the caller makes through
    /// another part's access (a footprint's finer key, `track`); touches nothing.
    pub fn wrote_part(&self, i: usize, field: u8) {
        noted::<W, _>(self, Key::Part(i as u64, field), Kind::Write);
    }
}

impl<T: Clone, const W: bool> Vector<T, W> {
    /// The entry at `i`, of which the caller writes (and reads) only its field `field`.
    pub fn part_mut(&mut self, i: usize, field: u8) -> &mut T {
        noted::<W, _>(self, Key::Part(i as u64, field), Kind::Write);
        &mut self.0.make_mut().into_slice()[i]
    }
}

impl<T, const W: bool> Index<usize> for Vector<T, W> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        noted::<W, _>(self, Key::At(i as u64), Kind::Read);
        &self.entries()[i]
    }
}

impl<T: Clone, const W: bool> IndexMut<usize> for Vector<T, W> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        noted::<W, _>(self, Key::At(i as u64), Kind::Write);
        &mut self.0.make_mut().into_slice()[i]
    }
}

impl<T, const W: bool> FromIterator<T> for Vector<T, W> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Vector(Shared::from_vec(iter.into_iter().collect()))
    }
}

impl<T, const W: bool> From<Vec<T>> for Vector<T, W> {
    fn from(v: Vec<T>) -> Self {
        Vector(Shared::from_vec(v))
    }
}

impl<'a, T, const W: bool> IntoIterator for &'a Vector<T, W> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Clone, const W: bool> IntoIterator for Vector<T, W> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_vec().into_iter()
    }
}

impl<T: fmt::Debug, const W: bool> fmt::Debug for Vector<T, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A map with entries sorted by key (replaces `im::OrdMap`).
#[derive(Clone)]
pub struct OrdMap<K, V, const W: bool = false>(Shared<(K, V)>);
slice_traits!(OrdMap<K, V>, (K, V));

impl<K: Ord, V, const W: bool> OrdMap<K, V, W> {
    fn find(&self, k: &K) -> Result<usize, usize> {
        self.entries().binary_search_by(|(key, _)| key.cmp(k))
    }
    pub fn get(&self, k: &K) -> Option<&V>
    where
        K: Hash,
    {
        noted_with::<W, _>(self, || hashed(k), Kind::Read);
        self.find(k).ok().map(|i| &self.entries()[i].1)
    }
    pub fn contains_key(&self, k: &K) -> bool
    where
        K: Hash,
    {
        noted_with::<W, _>(self, || hashed(k), Kind::Read);
        self.find(k).is_ok()
    }
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + ExactSizeIterator {
        noted::<W, _>(self, Key::All, Kind::Read);
        self.entries().iter().map(|(k, v)| (k, v))
    }
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator {
        noted::<W, _>(self, Key::All, Kind::Read);
        self.entries().iter().map(|(k, _)| k)
    }
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        noted::<W, _>(self, Key::All, Kind::Read);
        self.entries().iter().map(|(_, v)| v)
    }
}

impl<K: Ord + Clone + Hash, V: Clone, const W: bool> OrdMap<K, V, W> {
    /// Inserts or replaces; returns the value replaced.
    pub fn insert(&mut self, k: K, v: V) -> Option<V> {
        noted_with::<W, _>(self, || hashed(&k), Kind::Write);
        // Adding or removing distinct keys commutes; reading the length does not.
        noted::<W, _>(self, Key::Len, Kind::Insert);
        match self.find(&k) {
            Ok(i) => Some(std::mem::replace(&mut self.0.make_mut()[i].1, v)),
            Err(i) => {
                self.0.make_mut().insert(i, (k, v));
                None
            }
        }
    }
    pub fn remove(&mut self, k: &K) -> Option<V> {
        noted_with::<W, _>(self, || hashed(k), Kind::Write);
        noted::<W, _>(self, Key::Len, Kind::Insert);
        let i = self.find(k).ok()?;
        Some(self.0.make_mut().remove(i).1)
    }
    pub fn get_mut(&mut self, k: &K) -> Option<&mut V> {
        noted_with::<W, _>(self, || hashed(k), Kind::Write);
        let i = self.find(k).ok()?;
        Some(&mut self.0.make_mut().into_slice()[i].1)
    }
}

impl<K: Ord + Hash, V, const W: bool> Index<&K> for OrdMap<K, V, W> {
    type Output = V;
    fn index(&self, k: &K) -> &V {
        self.get(k).expect("OrdMap: no entry for the key")
    }
}

impl<K: Ord, V, const W: bool> FromIterator<(K, V)> for OrdMap<K, V, W> {
    /// Later entries replace earlier ones with the same key, as repeated inserts would.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut v: Vec<(K, V)> = iter.into_iter().collect();
        // A stable sort keeps equal keys in insertion order; keep the last of each run.
        v.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(K, V)> = Vec::with_capacity(v.len());
        for e in v {
            match out.last_mut() {
                Some(last) if last.0 == e.0 => *last = e,
                _ => out.push(e),
            }
        }
        OrdMap(Shared::from_vec(out))
    }
}

impl<'a, K: Ord, V, const W: bool> IntoIterator for &'a OrdMap<K, V, W> {
    type Item = (&'a K, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;
    fn into_iter(self) -> Self::IntoIter {
        noted::<W, _>(self, Key::All, Kind::Read);
        self.entries().iter().map(|(k, v)| (k, v))
    }
}

impl<K: fmt::Debug, V: fmt::Debug, const W: bool> fmt::Debug for OrdMap<K, V, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.entries().iter().map(|(k, v)| (k, v)))
            .finish()
    }
}

/// A set with elements sorted (replaces `im::OrdSet`).
#[derive(Clone)]
pub struct OrdSet<T, const W: bool = false>(Shared<T>);
slice_traits!(OrdSet<T>, T);

impl<T: Ord, const W: bool> OrdSet<T, W> {
    pub fn contains(&self, x: &T) -> bool
    where
        T: Hash,
    {
        noted_with::<W, _>(self, || hashed(x), Kind::Read);
        // Most lookups miss, and many below the least element (the ghost facts the
        // properties look for most sort first): one comparison answers those.
        match self.entries() {
            [first, ..] if x >= first => self.entries().binary_search(x).is_ok(),
            _ => false,
        }
    }
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        noted::<W, _>(self, Key::All, Kind::Read);
        self.entries().iter()
    }
}

impl<T: Ord + Clone + Hash, const W: bool> OrdSet<T, W> {
    /// Inserts; hands `x` back if an equal element is already there, which stays, and
    /// the set is neither copied nor changed (a fact recorded again costs nothing).
    pub fn insert(&mut self, x: T) -> Option<T> {
        noted_with::<W, _>(self, || hashed(&x), Kind::Insert);
        noted::<W, _>(self, Key::Len, Kind::Insert);
        match self.entries().binary_search(&x) {
            Ok(_) => Some(x),
            Err(i) => {
                self.0.make_mut().insert(i, x);
                None
            }
        }
    }
    pub fn remove(&mut self, x: &T) -> Option<T> {
        noted_with::<W, _>(self, || hashed(x), Kind::Write);
        noted::<W, _>(self, Key::Len, Kind::Write);
        let i = self.entries().binary_search(x).ok()?;
        Some(self.0.make_mut().remove(i))
    }
}

impl<T: Ord, const W: bool> FromIterator<T> for OrdSet<T, W> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut v: Vec<T> = iter.into_iter().collect();
        v.sort();
        v.dedup();
        OrdSet(Shared::from_vec(v))
    }
}

impl<'a, T: Ord, const W: bool> IntoIterator for &'a OrdSet<T, W> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Ord + Clone, const W: bool> IntoIterator for OrdSet<T, W> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_vec().into_iter()
    }
}

impl<T: fmt::Debug, const W: bool> fmt::Debug for OrdSet<T, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.entries().iter()).finish()
    }
}

/// Which entries of a state's collections a transition touches, recorded as it runs: the
/// dynamic footprint sleep sets compare (`crate::footprint`).
///
/// Off by default: every access then costs one thread-local flag test. [`track::start`]
/// names the collections to watch by address (a state's top-level fields, each an *area*),
/// and every read or write of one of them through this module's methods is noted with the
/// entry it touches: an index, a key's hash, the length, or all of it (iteration). Nested
/// collections (a document's tool map inside `State::docs`) are not watched: reaching them
/// goes through the watched collection that holds them, and is noted there.
pub mod track {
    use std::cell::{Cell, UnsafeCell};
    use std::sync::atomic::{AtomicUsize, Ordering};

    pub use webmcp_checker::footprint::{Access, Footprint, Key, Kind};

    /// How many collections one footprint watches at most.
    pub const MAX_AREAS: usize = 16;

    struct Log {
        areas: [(usize, u32); MAX_AREAS],
        watched: usize,
        footprint: Footprint,
    }

    /// How many threads are watching: while none is, an access costs one load of this.
    static WATCHING: AtomicUsize = AtomicUsize::new(0);

    thread_local! {
        static ON: Cell<bool> = const { Cell::new(false) };
        // Constant, and without a destructor: the cheapest kind of thread-local to reach.
        static LOG: UnsafeCell<Log> = const {
            UnsafeCell::new(Log {
                areas: [(0, 0); MAX_AREAS],
                watched: 0,
                footprint: Footprint::EMPTY,
            })
        };
    }

    fn with_log<T>(f: impl FnOnce(&mut Log) -> T) -> T {
        // SAFETY: the log is this thread's alone, and nothing that holds the reference calls
        // anything that takes it again (each use reads and sets plain fields).
        LOG.with(|log| f(unsafe { &mut *log.get() }))
    }

    /// Starts a footprint on this thread, watching the collections at these addresses, each
    /// as its area.
    pub fn start(areas: &[(*const (), u32)]) {
        with_log(|log| log.footprint = Footprint::EMPTY);
        watch(areas);
    }

    /// Watches the collections at these addresses instead (another state's), adding to the
    /// same footprint.
    pub fn watch(areas: &[(*const (), u32)]) {
        assert!(areas.len() <= MAX_AREAS, "at most {MAX_AREAS} areas");
        with_log(|log| {
            for (slot, &(addr, area)) in log.areas.iter_mut().zip(areas) {
                *slot = (addr as usize, area);
            }
            log.watched = areas.len();
        });
        if !ON.replace(true) {
            WATCHING.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Stops watching, leaving the footprint to [`finish`].
    pub fn pause() {
        if ON.replace(false) {
            WATCHING.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Stops watching, and hands back every access since [`start`].
    pub fn finish() -> Footprint {
        pause();
        with_log(|log| log.footprint.clone())
    }

    /// Whether this thread is watching.
    pub fn watching() -> bool {
        on()
    }

    /// Whether this thread is watching (first asking, in one load, whether any is).
    #[inline(always)]
    fn on() -> bool {
        WATCHING.load(Ordering::Relaxed) != 0 && ON.get()
    }

    /// Adds an access made outside the watched collections.
    pub fn add(access: Access) {
        with_log(|log| log.footprint.add(access));
    }

    #[inline(always)]
    pub(super) fn note<C: ?Sized>(collection: &C, key: Key, kind: Kind) {
        if on() {
            note_slow(collection as *const C as *const () as usize, key, kind)
        }
    }

    /// [`note`], with a key worth computing only while watching.
    #[inline(always)]
    pub(super) fn note_with<C: ?Sized>(collection: &C, key: impl FnOnce() -> Key, kind: Kind) {
        if on() {
            note_slow(collection as *const C as *const () as usize, key(), kind)
        }
    }

    #[cold]
    fn note_slow(addr: usize, key: Key, kind: Kind) {
        with_log(|log| {
            let watched = &log.areas[..log.watched];
            if let Some(&(_, area)) = watched.iter().find(|(a, _)| *a == addr) {
                log.footprint.add(Access { area, key, kind });
            }
        });
    }

    /// The key of a map entry or a set element.
    pub(super) fn hashed<T: std::hash::Hash + ?Sized>(x: &T) -> Key {
        Key::At(ahash::RandomState::with_seeds(1, 2, 3, 4).hash_one(x))
    }
}

use track::{hashed, note, note_with, Key, Kind};

/// [`track::note`], for a collection that may be watched (`W`: a state's top-level field);
/// nothing at all for the others.
#[inline(always)]
fn noted<const W: bool, C: ?Sized>(collection: &C, key: Key, kind: Kind) {
    if W {
        note(collection, key, kind)
    }
}

#[inline(always)]
fn noted_with<const W: bool, C: ?Sized>(collection: &C, key: impl FnOnce() -> Key, kind: Kind) {
    if W {
        note_with(collection, key, kind)
    }
}

#[cfg(test)]
mod digest_tests {
    use super::*;
    use std::hash::BuildHasher;

    fn h<T: Hash>(x: &T) -> u64 {
        std::hash::BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default()
            .hash_one(x)
    }

    #[test]
    fn a_mutation_changes_the_hash_and_equal_collections_hash_alike() {
        let mut a: Vector<u32> = Vector::new();
        let empty = h(&a);
        a.push_back(1);
        let one = h(&a);
        assert_ne!(empty, one);
        let b = a.clone();
        a.push_back(2);
        assert_ne!(h(&a), one, "a mutation after a clone clears the digest");
        assert_eq!(h(&b), one, "the clone keeps its own digest");
        a[1] = 3;
        let built: Vector<u32> = [1, 3].into_iter().collect();
        assert_eq!(
            h(&a),
            h(&built),
            "equal contents, equal hash, however built"
        );
        a.pop_back();
        a.pop_back();
        assert_eq!(h(&a), empty, "emptied equals never filled");
    }
}

/// Collections travel as sequences of their entries (the engine's compact frontier keeps
/// states as bytes, `crate::codec`). Maps and sets come back only from sorted, duplicate-free
/// sequences, the form they were written in; anything else is refused, never trusted.
mod wire {
    use super::{OrdMap, OrdSet, Shared, Vector};
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    impl<T: Serialize, const W: bool> Serialize for Vector<T, W> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            self.0.as_slice().serialize(s)
        }
    }
    impl<'de, T: Deserialize<'de>, const W: bool> Deserialize<'de> for Vector<T, W> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            Ok(Vector(Shared::from_vec(Vec::deserialize(d)?)))
        }
    }

    impl<K: Serialize, V: Serialize, const W: bool> Serialize for OrdMap<K, V, W> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            self.0.as_slice().serialize(s)
        }
    }
    impl<'de, K: Deserialize<'de> + Ord, V: Deserialize<'de>, const W: bool> Deserialize<'de>
        for OrdMap<K, V, W>
    {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let entries: Vec<(K, V)> = Vec::deserialize(d)?;
            if !entries.windows(2).all(|w| w[0].0 < w[1].0) {
                return Err(D::Error::custom("map keys out of order"));
            }
            Ok(OrdMap(Shared::from_vec(entries)))
        }
    }

    impl<T: Serialize, const W: bool> Serialize for OrdSet<T, W> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            self.0.as_slice().serialize(s)
        }
    }
    impl<'de, T: Deserialize<'de> + Ord, const W: bool> Deserialize<'de> for OrdSet<T, W> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let entries: Vec<T> = Vec::deserialize(d)?;
            if !entries.windows(2).all(|w| w[0] < w[1]) {
                return Err(D::Error::custom("set entries out of order"));
            }
            Ok(OrdSet(Shared::from_vec(entries)))
        }
    }
}

#[cfg(test)]
mod replica_tests {
    use super::*;

    fn node_of<T>(v: &Vector<T>) -> *const Node<T> {
        v.0 .0
            .as_ref()
            .map_or(std::ptr::null(), |n| n.addr() as *const Node<T>)
    }

    fn shared_by(v: &Vector<u32>, n: usize) -> Vec<Vector<u32>> {
        (0..n).map(|_| v.clone()).collect()
    }

    #[test]
    fn a_widely_shared_node_is_swapped_for_the_workers_copy_with_the_same_entries_and_hash() {
        let original: Vector<u32> = [1, 2, 3].into_iter().collect();
        let digest = original.0.digest();
        let holders = shared_by(&original, WIDELY_SHARED);
        let mut r = Replicas::default();
        let mut a = original.clone();
        a.localize(&mut r, |_| ());
        assert_ne!(node_of(&a), node_of(&original), "copied");
        assert_eq!(a, original);
        assert_eq!(
            a.0.digest(),
            digest,
            "the digest is carried, not recomputed"
        );
        // Another state holding the same node gets the same copy, and the copy is never
        // copied again, however many states come to share it.
        let mut b = holders[0].clone();
        b.localize(&mut r, |_| ());
        assert_eq!(node_of(&b), node_of(&a));
        let many = shared_by(&a, WIDELY_SHARED);
        let mut c = a.clone();
        c.localize(&mut r, |_| ());
        assert_eq!(node_of(&c), node_of(&a));
        drop((holders, many));
    }

    #[test]
    fn a_node_few_states_share_and_an_empty_collection_stay_as_they_are() {
        let original: Vector<u32> = [7].into_iter().collect();
        let _few = shared_by(&original, 2);
        let mut r = Replicas::default();
        let mut a = original.clone();
        a.localize(&mut r, |_| ());
        assert_eq!(node_of(&a), node_of(&original));
        let mut empty: Vector<u32> = Vector::new();
        empty.localize(&mut r, |_| ());
        assert!(empty.is_empty() && node_of(&empty).is_null());
    }

    #[test]
    fn the_entries_of_a_new_copy_are_localized_inside_it_and_a_mutation_leaves_the_original() {
        let inner: Vector<u32> = [5, 6].into_iter().collect();
        let outer: Vector<Vector<u32>> = [inner.clone(), Vector::new()].into_iter().collect();
        let _holders: Vec<_> = (0..WIDELY_SHARED).map(|_| outer.clone()).collect();
        let (mut r, mut ri) = (Replicas::default(), Replicas::default());
        let mut a = outer.clone();
        a.localize(&mut r, |v| v.localize_inner(&mut ri));
        assert_eq!(a, outer);
        assert_ne!(
            node_of(&a[0]),
            node_of(&inner),
            "the inner node is the worker's too"
        );
        a[0].push_back(9);
        assert_eq!(outer[0], inner, "copy on write still copies");
        assert_eq!(a[0].len(), 3);
    }

    #[test]
    fn replicas_past_the_slots_replace_the_oldest_and_every_copy_stays_equal() {
        let mut r = Replicas::default();
        let originals: Vec<Vector<u32>> = (0..3 * REPLICA_SLOTS as u32)
            .map(|i| [i].into_iter().collect())
            .collect();
        let _holders: Vec<_> = originals
            .iter()
            .map(|o| shared_by(o, WIDELY_SHARED))
            .collect();
        let copies: Vec<Vector<u32>> = originals
            .iter()
            .map(|o| {
                let mut c = o.clone();
                c.localize(&mut r, |_| ());
                c
            })
            .collect();
        assert_eq!(copies, originals);
        assert_eq!(r.slots.len(), REPLICA_SLOTS);
    }
}

#[cfg(test)]
mod ord_set_tests {
    use super::OrdSet;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, rng_seed: proptest::test_runner::RngSeed::Fixed(15), ..ProptestConfig::default() })]

        /// Insertions and removals (`true`, `false`) then lookups answer as a `BTreeSet`'s,
        /// below, inside and above the range of the elements, on shared copies too.
        #[test]
        fn an_ord_set_answers_as_a_btree_set(
            ops in proptest::collection::vec((any::<bool>(), 0u8..40), 0..40),
            lookups in proptest::collection::vec(0u8..48, 0..48),
        ) {
            let mut set: OrdSet<u8> = OrdSet::default();
            let mut model = BTreeSet::new();
            let mut copies = Vec::new();
            for (insert, x) in ops {
                copies.push((set.clone(), model.clone()));
                if insert {
                    let present = set.insert(x).is_some();
                    prop_assert_eq!(present, !model.insert(x));
                    // An element already there leaves the set as it was, not even copied.
                    let before = &copies.last().expect("pushed above").0;
                    prop_assert_eq!(present, set.shares_storage_with(before));
                } else {
                    prop_assert_eq!(set.remove(&x).is_some(), model.remove(&x));
                }
            }
            copies.push((set, model));
            for (set, model) in &copies {
                prop_assert!(set.iter().eq(model.iter()));
                for x in &lookups {
                    prop_assert_eq!(set.contains(x), model.contains(x), "looking up {}", x);
                }
            }
        }
    }
}
