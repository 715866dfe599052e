//! The storage of a non-empty collection: one allocation holding a header (a reference
//! count, the cached digest, the length and the capacity) and then the entries.
//!
//! Why not `Arc<Vec<T>>`-like nodes: those are two allocations, the `Arc`'s (counts, the
//! `Vec`'s pointer, length and capacity, the digest: 48 bytes) and the entries'. A
//! successor copies every collection its transition changes, and two in three successors
//! are states already seen, dropped at once: each copy was two calls to malloc and two to
//! free. Here it is one of each, and 32 bytes of header; and the block comes from
//! [`super::recycle`], which hands out the block of that size freed last on this thread,
//! still in the cache.
//!
//! A [`Node`] is shared like an `Arc` (cloning counts up; the last drop frees). Its entries
//! change only through [`Unique`], which the collection obtains after making its node its
//! own (`Shared::make_mut` in the parent module): holding a `Unique` is the proof that no
//! other holder sees the change.
//!
//! A node may also be **borrowed** ([`Node::borrow`]): a reference that did not count
//! itself, marked in the lowest bit of its pointer (a header is 8-aligned). A successor
//! being built reads its parent's collections through borrowed references
//! (`webmcp_checker::Draft`), so the two in three successors dropped unseen write nothing
//! to their parent's memory. A borrowed reference is never unique (changing through it
//! copies first), dropping it releases nothing, cloning it makes a counted reference, and
//! [`Node::own`] counts it in.

use std::alloc::{self, Layout};
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::ptr::{self, NonNull};
use std::sync::atomic::{self, AtomicU64, AtomicUsize, Ordering};

use super::recycle;

struct Header {
    /// How many references there are to the node.
    count: AtomicUsize,
    /// The entries' digest once computed, 0 until then (a digest that really is 0 is only
    /// computed again each time it is asked for).
    digest: AtomicU64,
    /// How many entries are initialised, at the start of the entries' space.
    len: usize,
    /// How many entries the allocation has room for.
    cap: usize,
}

/// A counted reference to a node, or a borrowed one ([`BORROWED`] set in `ptr`).
pub(super) struct Node<T> {
    ptr: NonNull<Header>,
    owns: PhantomData<T>,
}

/// The bit of a node's pointer that marks a borrowed reference.
const BORROWED: usize = 1;
const _: () = assert!(std::mem::align_of::<Header>() > BORROWED);

// SAFETY: as for `Arc<Vec<T>>`: the entries are reached from several threads only as shared
// references, and mutated only through a `Unique`, which needs the only counted reference (a
// borrowed one only reads, within a counted one's life).
unsafe impl<T: Send + Sync> Send for Node<T> {}
unsafe impl<T: Send + Sync> Sync for Node<T> {}

/// Above this many references, a count would be near overflowing (as `std`'s `Arc`).
const MAX_COUNT: usize = isize::MAX as usize;

impl<T> Node<T> {
    /// The layout of a node of `cap` entries, and where its entries start.
    fn layout(cap: usize) -> (Layout, usize) {
        let entries = Layout::array::<T>(cap).expect("a collection's size fits in memory");
        let (layout, offset) = Layout::new::<Header>()
            .extend(entries)
            .expect("a collection's size fits in memory");
        (layout.pad_to_align(), offset)
    }

    /// An empty node with room for `cap` entries, its count 1.
    pub(super) fn with_capacity(cap: usize) -> Self {
        let (layout, _) = Self::layout(cap);
        // SAFETY: the layout has a header, so a non-zero size.
        let raw = unsafe { recycle::alloc(layout) } as *mut Header;
        let Some(ptr) = NonNull::new(raw) else {
            alloc::handle_alloc_error(layout)
        };
        // SAFETY: freshly allocated for a header and `cap` entries.
        unsafe {
            ptr.as_ptr().write(Header {
                count: AtomicUsize::new(1),
                digest: AtomicU64::new(0),
                len: 0,
                cap,
            })
        };
        Node {
            ptr,
            owns: PhantomData,
        }
    }

    /// A node holding `v`'s entries (moved, not cloned).
    pub(super) fn from_vec(mut v: Vec<T>) -> Self {
        let mut node = Self::with_capacity(v.len());
        // SAFETY: the node has room for `v.len()` entries; they are moved bitwise and `v`
        // forgets them before it frees its buffer.
        unsafe {
            ptr::copy_nonoverlapping(v.as_ptr(), node.entries_ptr(), v.len());
            node.header_mut().len = v.len();
            v.set_len(0);
        }
        node
    }

    /// The node's address, without the borrowed mark.
    fn raw(&self) -> NonNull<Header> {
        // SAFETY: clearing the lowest bit of a non-null, 8-aligned address (plus at most the
        // mark) leaves it non-null.
        unsafe { NonNull::new_unchecked(self.ptr.as_ptr().map_addr(|a| a & !BORROWED)) }
    }

    /// Whether this reference did not count itself ([`Node::borrow`]).
    pub(super) fn is_borrowed(&self) -> bool {
        self.ptr.addr().get() & BORROWED != 0
    }

    fn header(&self) -> &Header {
        // SAFETY: the header lives as long as any reference to the node (a borrowed one
        // lives within a counted one's life: `Node::borrow`).
        unsafe { self.raw().as_ref() }
    }

    /// # Safety
    /// Only where no other reference to the node reads its length or capacity: through the
    /// only reference, or while building it.
    unsafe fn header_mut(&mut self) -> &mut Header {
        unsafe { self.raw().as_mut() }
    }

    /// A reference to this node that does not count itself: it reads the node, never
    /// changes it (it is never unique), and dropping it releases nothing.
    ///
    /// # Safety
    /// The borrowed reference (and whatever it is moved into) must be dropped, or counted in
    /// by [`Node::own`], while this reference, or another counted one, still holds the node.
    pub(super) unsafe fn borrow(&self) -> Self {
        Node {
            ptr: self.ptr.map_addr(|a| a | BORROWED),
            owns: PhantomData,
        }
    }

    /// Counts a borrowed reference in, making it an ordinary one; an ordinary reference is
    /// left as it is.
    pub(super) fn own(&mut self) {
        if self.is_borrowed() {
            let counted = self.clone();
            // The borrowed reference is overwritten, not dropped: dropping one is a no-op.
            self.ptr = counted.ptr;
            std::mem::forget(counted);
        }
    }

    /// Makes a borrowed reference an ordinary one without counting it in: it takes over the
    /// reference it was borrowed from.
    ///
    /// # Safety
    /// The reference it was borrowed from is forgotten, never dropped, and was counted.
    pub(super) unsafe fn take_over(&mut self) {
        self.ptr = self.raw();
    }

    /// Where the entries start in the allocation, whatever the capacity: after the header,
    /// rounded up to the entries' alignment (as [`Node::layout`] places them).
    const OFFSET: usize = {
        let align = std::mem::align_of::<T>();
        (std::mem::size_of::<Header>() + align - 1) & !(align - 1)
    };

    fn entries_ptr(&self) -> *mut T {
        // SAFETY: the entries start OFFSET bytes into the allocation.
        unsafe { (self.raw().as_ptr() as *mut u8).add(Self::OFFSET) as *mut T }
    }

    /// Asks the processor to load the node's first cache line: its header, and the first
    /// entries ([`webmcp_checker::prefetch`]).
    pub(super) fn prefetch(&self) {
        webmcp_checker::prefetch(self.raw().as_ptr());
    }

    pub(super) fn as_slice(&self) -> &[T] {
        // SAFETY: the first `len` entries are initialised.
        unsafe { std::slice::from_raw_parts(self.entries_ptr(), self.header().len) }
    }

    pub(super) fn digest(&self) -> &AtomicU64 {
        &self.header().digest
    }

    /// How many references there are to this node.
    pub(super) fn count(&self) -> usize {
        self.header().count.load(Ordering::Acquire)
    }

    pub(super) fn ptr_eq(&self, other: &Self) -> bool {
        self.raw() == other.raw()
    }

    /// The node's address, which names it (tests).
    #[cfg(test)]
    pub(super) fn addr(&self) -> *const () {
        self.raw().as_ptr() as *const ()
    }

    /// Whether this is the only reference to the node, counted (so it may change it).
    pub(super) fn is_only(&self) -> bool {
        !self.is_borrowed() && self.count() == 1
    }

    /// A node of its own with the same entries (cloned) and digest, and room for `cap`.
    pub(super) fn copy_with_capacity(&self, cap: usize) -> Self
    where
        T: Clone,
    {
        let entries = self.as_slice();
        let copy = Self::with_capacity(cap.max(entries.len()));
        let digest = self.digest().load(Ordering::Relaxed);
        copy.digest().store(digest, Ordering::Relaxed);
        // A new node is not borrowed: its own pointer needs no mark taken off.
        let (header, to) = (copy.ptr.as_ptr(), copy.entries_ptr());
        for (i, e) in entries.iter().enumerate() {
            // SAFETY: the only reference to a node with room for every entry.
            unsafe { to.add(i).write(e.clone()) };
        }
        // The length is set once, after the loop, so that the loop is a plain copy where
        // cloning is one. A clone that panics leaves the length 0: the entries written
        // before it leak, and nothing is dropped twice.
        // SAFETY: the first `entries.len()` entries are written.
        unsafe { (*header).len = entries.len() };
        copy
    }

    /// The node's entries for changing, if this is the only reference to it.
    pub(super) fn unique(&mut self) -> Option<Unique<'_, T>> {
        self.is_only().then_some(Unique(self))
    }

    /// The entries as a `Vec`: moved out if this is the only reference, else cloned.
    pub(super) fn into_vec(mut self) -> Vec<T>
    where
        T: Clone,
    {
        if !self.is_only() {
            return self.as_slice().to_vec();
        }
        let len = self.header().len;
        let mut v = Vec::with_capacity(len);
        // SAFETY: the only reference: the entries are moved bitwise into `v`, and the node
        // forgets them before it is freed.
        unsafe {
            ptr::copy_nonoverlapping(self.entries_ptr(), v.as_mut_ptr(), len);
            v.set_len(len);
            self.header_mut().len = 0;
        }
        v
    }
}

impl<T> Clone for Node<T> {
    fn clone(&self) -> Self {
        // Relaxed, as `std`'s `Arc`: a new reference is made from an existing one.
        if self.header().count.fetch_add(1, Ordering::Relaxed) > MAX_COUNT {
            std::process::abort();
        }
        Node {
            ptr: self.raw(),
            owns: PhantomData,
        }
    }
}

impl<T> Drop for Node<T> {
    /// Inlined where a node is dropped: most drops release a borrowed reference or one of
    /// several, and need neither a call nor the registers freeing the node takes (as `Arc`).
    ///
    /// The last counted reference frees the node without the atomic decrement: a count of 1
    /// read through a counted reference means no other counted reference exists, and none
    /// can be made (a clone needs one, and a borrowed reference is counted in only while
    /// the reference it was borrowed from lives). A locked decrement waits for every store
    /// before it, so this spares the many copies a transition makes and drops unseen.
    #[inline]
    fn drop(&mut self) {
        if self.is_borrowed() {
            return;
        }
        // Acquire: every other reference's drop (a release decrement) happens before this.
        if self.header().count.load(Ordering::Acquire) != 1
            && self.header().count.fetch_sub(1, Ordering::Release) != 1
        {
            return;
        }
        self.drop_last();
    }
}

impl<T> Node<T> {
    /// Drops the entries and frees the node, once its last counted reference is dropped.
    #[inline(never)]
    fn drop_last(&mut self) {
        // Every other reference's uses happen before the entries are dropped (as `Arc`).
        atomic::fence(Ordering::Acquire);
        let (len, cap) = (self.header().len, self.header().cap);
        // SAFETY: the last reference: the first `len` entries are initialised and dropped
        // once, and the allocation was made with the layout of `cap` entries.
        unsafe {
            ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.entries_ptr(), len));
            recycle::free(self.raw().as_ptr() as *mut u8, Self::layout(cap).0);
        }
    }
}

/// The only reference to a node, for changing its entries.
pub(super) struct Unique<'a, T>(&'a mut Node<T>);

impl<T> Unique<'_, T> {
    fn header(&mut self) -> &mut Header {
        // SAFETY: the only reference to the node.
        unsafe { self.0.header_mut() }
    }

    /// Room for at least one more entry: twice the capacity (at least 4) when it is full.
    fn reserve_one(&mut self) {
        let (len, cap) = (self.header().len, self.header().cap);
        if len < cap {
            return;
        }
        let new_cap = (cap * 2).max(4);
        let (old, _) = Node::<T>::layout(cap);
        let (new, _) = Node::<T>::layout(new_cap);
        // SAFETY: the allocation was made with `old`, whose alignment `new` shares; the
        // header and entries move bitwise, which moves them in Rust.
        let raw = unsafe { alloc::realloc(self.0.raw().as_ptr() as *mut u8, old, new.size()) };
        let Some(ptr) = NonNull::new(raw as *mut Header) else {
            alloc::handle_alloc_error(new)
        };
        self.0.ptr = ptr;
        self.header().cap = new_cap;
    }

    pub(super) fn push(&mut self, x: T) {
        self.reserve_one();
        let len = self.header().len;
        // SAFETY: room for one more.
        unsafe { self.0.entries_ptr().add(len).write(x) };
        self.header().len = len + 1;
    }

    /// Inserts `x` at `i`, moving the entries from `i` on one place up; panics past the end.
    pub(super) fn insert(&mut self, i: usize, x: T) {
        let len = self.header().len;
        assert!(i <= len, "insertion index {i} past the length {len}");
        self.reserve_one();
        // SAFETY: room for one more; entries `i..len` move up, then `x` fills `i`.
        unsafe {
            let at = self.0.entries_ptr().add(i);
            ptr::copy(at, at.add(1), len - i);
            at.write(x);
        }
        self.header().len = len + 1;
    }

    /// Removes the entry at `i`, moving the rest down; panics when out of bounds.
    pub(super) fn remove(&mut self, i: usize) -> T {
        let len = self.header().len;
        assert!(
            i < len,
            "removal index {i} out of bounds for the length {len}"
        );
        // SAFETY: entry `i` is read out once, and the ones after it move down over it.
        unsafe {
            let at = self.0.entries_ptr().add(i);
            let x = at.read();
            ptr::copy(at.add(1), at, len - i - 1);
            self.header().len = len - 1;
            x
        }
    }

    pub(super) fn pop(&mut self) -> Option<T> {
        let len = self.header().len.checked_sub(1)?;
        self.header().len = len;
        // SAFETY: entry `len` was the last initialised one and is no longer counted.
        Some(unsafe { self.0.entries_ptr().add(len).read() })
    }

    /// Keeps the entries `keep` accepts, in order.
    pub(super) fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        let len = self.header().len;
        // Counted as empty meanwhile: if `keep` panics, the rest leak, never drop twice.
        self.header().len = 0;
        let base = self.0.entries_ptr();
        let mut kept = 0;
        for i in 0..len {
            // SAFETY: each of the `len` entries is visited once: dropped, or moved down to
            // `kept` (never past `i`).
            unsafe {
                let at = base.add(i);
                if keep(&*at) {
                    if kept != i {
                        ptr::copy_nonoverlapping(at, base.add(kept), 1);
                    }
                    kept += 1;
                } else {
                    ptr::drop_in_place(at);
                }
            }
        }
        self.header().len = kept;
    }
}

impl<'a, T> Unique<'a, T> {
    /// The entries, for changing in place, for as long as the node was lent.
    pub(super) fn into_slice(self) -> &'a mut [T] {
        let node = self.0;
        // SAFETY: the only reference, and the first `len` entries are initialised.
        unsafe { std::slice::from_raw_parts_mut(node.entries_ptr(), node.header().len) }
    }
}

impl<T> Deref for Unique<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.0.as_slice()
    }
}

impl<T> DerefMut for Unique<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        let len = self.header().len;
        // SAFETY: the only reference, and the first `len` entries are initialised.
        unsafe { std::slice::from_raw_parts_mut(self.0.entries_ptr(), len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::rc::Rc;

    /// An entry that counts how many of its kind are alive, to catch a drop missed or
    /// repeated.
    #[derive(Clone, Debug, PartialEq)]
    struct Counted(u32, Rc<()>);

    #[derive(Clone, Debug)]
    enum Op {
        Push(u32),
        Insert(usize, u32),
        Remove(usize),
        Pop,
        Retain(u32),
        Set(usize, u32),
        Share,
        /// A copy held alone (count 1, as a collection only its parent state holds).
        Copy,
        Unshare,
        /// A borrowed reference to the newest shared copy.
        Borrow,
        /// The newest borrowed reference counted in, kept apart.
        OwnBorrowed,
        /// The newest borrowed reference changed (a push), kept apart.
        WriteBorrowed(u32),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            any::<u32>().prop_map(Op::Push),
            (0usize..12, any::<u32>()).prop_map(|(i, x)| Op::Insert(i, x)),
            (0usize..12).prop_map(Op::Remove),
            Just(Op::Pop),
            (1u32..4).prop_map(Op::Retain),
            (0usize..12, any::<u32>()).prop_map(|(i, x)| Op::Set(i, x)),
            Just(Op::Share),
            Just(Op::Copy),
            Just(Op::Unshare),
            Just(Op::Borrow),
            Just(Op::OwnBorrowed),
            any::<u32>().prop_map(Op::WriteBorrowed),
        ]
    }

    /// The node made unique first, as the collections do (`Shared::make_mut`).
    fn unique<'a>(
        node: &'a mut Node<Counted>,
        held: &mut Vec<Node<Counted>>,
    ) -> Unique<'a, Counted> {
        if !node.is_only() {
            held.push(node.clone());
            *node = node.copy_with_capacity(node.as_slice().len() + 1);
        }
        node.unique().expect("made unique")
    }

    proptest! {
        /// Any sequence of changes, with copies made, shared and borrowed along the way,
        /// holds what a `Vec` holds, leaves every shared copy as it was (whatever is done
        /// through a borrowed reference to it), and drops each entry once.
        #[test]
        fn a_node_holds_what_a_vec_holds(ops in proptest::collection::vec(op(), 0..40)) {
            let alive = Rc::new(());
            let c = |x: u32| Counted(x, alive.clone());
            {
                let mut node = Node::from_vec(Vec::<Counted>::new());
                let mut reference: Vec<Counted> = Vec::new();
                let mut held: Vec<(Node<Counted>, Vec<Counted>)> = Vec::new();
                // Borrowed references to `held`'s entries, by index, with what they hold.
                let mut borrowed: Vec<(usize, Node<Counted>)> = Vec::new();
                // Borrowed references since counted in or changed, with what they hold.
                let mut owned: Vec<(Node<Counted>, Vec<Counted>)> = Vec::new();
                let mut kept = Vec::new();
                for op in ops {
                    match op {
                        Op::Push(x) => { unique(&mut node, &mut kept).push(c(x)); reference.push(c(x)); }
                        Op::Insert(i, x) if i <= reference.len() => {
                            unique(&mut node, &mut kept).insert(i, c(x));
                            reference.insert(i, c(x));
                        }
                        Op::Remove(i) if i < reference.len() => {
                            prop_assert_eq!(unique(&mut node, &mut kept).remove(i), reference.remove(i));
                        }
                        Op::Pop => prop_assert_eq!(unique(&mut node, &mut kept).pop(), reference.pop()),
                        Op::Retain(m) => {
                            unique(&mut node, &mut kept).retain(|e| e.0 % m == 0);
                            reference.retain(|e| e.0 % m == 0);
                        }
                        Op::Set(i, x) if i < reference.len() => {
                            unique(&mut node, &mut kept)[i] = c(x);
                            reference[i] = c(x);
                        }
                        Op::Share => held.push((node.clone(), reference.clone())),
                        Op::Copy => held.push((node.copy_with_capacity(reference.len()), reference.clone())),
                        Op::Unshare => {
                            // Its borrowed references go first, as `Node::borrow` asks.
                            borrowed.retain(|(i, _)| *i + 1 < held.len());
                            held.pop();
                        }
                        Op::Borrow if !held.is_empty() => {
                            let i = held.len() - 1;
                            // SAFETY: dropped or counted in before `held[i]` is dropped.
                            borrowed.push((i, unsafe { held[i].0.borrow() }));
                        }
                        Op::OwnBorrowed => if let Some((i, mut b)) = borrowed.pop() {
                            prop_assert!(b.is_borrowed());
                            let before = b.count();
                            b.own();
                            prop_assert!(!b.is_borrowed());
                            prop_assert_eq!(b.count(), before + 1);
                            owned.push((b, held[i].1.clone()));
                        }
                        Op::WriteBorrowed(x) => if let Some((i, mut b)) = borrowed.pop() {
                            prop_assert!(b.unique().is_none(), "a borrowed reference is never unique");
                            unique(&mut b, &mut kept).push(c(x));
                            let mut r = held[i].1.clone();
                            r.push(c(x));
                            owned.push((b, r));
                        }
                        _ => {}
                    }
                    prop_assert_eq!(node.as_slice(), reference.as_slice());
                    for (n, r) in held.iter().chain(&owned) {
                        prop_assert_eq!(n.as_slice(), r.as_slice());
                    }
                    for (i, b) in &borrowed {
                        prop_assert_eq!(b.as_slice(), held[*i].1.as_slice());
                    }
                }
                let back = node.into_vec();
                prop_assert_eq!(&back, &reference);
                drop(borrowed);
                drop((back, held, owned, kept, reference));
            }
            prop_assert_eq!(Rc::strong_count(&alive), 1, "every entry dropped once");
        }
    }

    #[test]
    fn the_entries_start_where_the_layout_puts_them() {
        assert_eq!(Node::<u8>::OFFSET, Node::<u8>::layout(3).1);
        assert_eq!(Node::<u64>::OFFSET, Node::<u64>::layout(3).1);
        assert_eq!(Node::<u128>::OFFSET, Node::<u128>::layout(3).1);
        assert_eq!(Node::<[u8; 3]>::OFFSET, Node::<[u8; 3]>::layout(0).1);
    }

    #[test]
    fn a_borrowed_reference_counts_nothing_until_owned() {
        let node = Node::from_vec(vec![1u32, 2]);
        // SAFETY: every borrowed reference below goes before `node`.
        let borrowed = unsafe { node.borrow() };
        assert!(borrowed.is_borrowed() && borrowed.ptr_eq(&node));
        assert_eq!(node.count(), 1, "borrowing counts nothing");
        assert!(!borrowed.is_only(), "though the count is 1");
        assert_eq!(borrowed.as_slice(), &[1, 2]);
        let counted = borrowed.clone();
        assert!(!counted.is_borrowed());
        assert_eq!(node.count(), 2, "a clone counts itself");
        drop(counted);
        drop(borrowed);
        assert_eq!(
            node.count(),
            1,
            "dropping a borrowed reference releases nothing"
        );
        // SAFETY: as above.
        let mut owned = unsafe { node.borrow() };
        owned.own();
        assert!(!owned.is_borrowed());
        assert_eq!(node.count(), 2);
        drop(node);
        assert_eq!(owned.count(), 1);
        assert_eq!(
            owned.into_vec(),
            vec![1, 2],
            "moved out: the only reference now"
        );
    }

    #[test]
    fn a_shared_node_is_copied_and_a_unique_one_moved_out() {
        let node = Node::from_vec(vec![1u32, 2, 3]);
        let other = node.clone();
        assert_eq!(node.count(), 2);
        assert!(node.ptr_eq(&other));
        let mut copy = node.copy_with_capacity(4);
        assert!(!copy.ptr_eq(&node));
        copy.unique().expect("its own").push(4);
        assert_eq!(node.as_slice(), &[1, 2, 3]);
        assert_eq!(
            node.into_vec(),
            vec![1, 2, 3],
            "cloned: another still holds it"
        );
        assert_eq!(other.count(), 1);
        assert_eq!(copy.into_vec(), vec![1, 2, 3, 4]);
    }
}
