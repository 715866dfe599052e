//! A successor that may still lean on its parent ([`Model::draft`](crate::Model::draft)).
//!
//! Why: a breadth-first search builds every successor, and on our models two in three are
//! states already seen, dropped as soon as their fingerprint is looked up. A successor that
//! shares most of its parent's storage must normally count itself into each shared part when
//! it is built and out again when it is dropped: atomic writes to the parent's memory, paid
//! in full for the successors thrown away. A draft reads those parts without counting them,
//! and only the successors the search keeps ([`Draft::keep`]) take their own references.
//!
//! The lifetime `'p` is the parent's borrow: the compiler holds every draft to it, so a
//! draft cannot outlive the state it leans on.
//!
//! A kept successor still counts itself into what it shares with its parent, and the parent,
//! dropped once its successors are built, counts itself out again. [`Draft::keep_from`]
//! spares both: the first kept successor to share a part takes over the parent's reference
//! to it, and the [`Parent`] that holds the state releases only the rest.

use std::marker::PhantomData;
use std::ops::Deref;

/// A successor state, to be read (fingerprint, lookup) and then either dropped or kept.
pub struct Draft<'p, S: 'static> {
    state: S,
    /// How `state` comes to hold its own references to what it still reads of the parent;
    /// `None` when it holds them already. (One pointer: a draft is moved a few times per
    /// successor, and a larger one is copied by a call rather than by a few moves.)
    lease: Option<&'static Lease<S>>,
    parent: PhantomData<&'p S>,
}

/// How a draft that reads its parent's storage comes to hold its own references to it.
pub struct Lease<S> {
    /// Makes the state hold its own reference to everything it reads ([`Draft::keep`]).
    pub own: fn(&mut S),
    /// How it may take over its parent's references instead ([`Draft::keep_from`]).
    pub inherit: Option<Inheritance<S>>,
}

/// How a kept successor takes over its parent's references to what they share, so that
/// neither counts itself in or out of it (the search's parent is dropped right after its
/// successors are built, and on our models it has one new successor on average). The
/// successor of [`Draft::keep`] counts itself into every part it shares with its parent,
/// and the parent counts itself out of each part when it is dropped: two locked
/// read-modify-writes per part, each waiting for every store before it.
pub struct Inheritance<S> {
    /// Counts `child` in as [`Draft::keep`] does, but for the parts it shares with `parent`
    /// whose bit in `given` is clear: those take over the parent's reference, and their bit
    /// is set. It must not panic: the parts it took would then be released twice.
    pub take: unsafe fn(parent: &S, child: &mut S, given: &mut u32),
    /// Drops `parent` but for the parts whose bit in `given` is set (their references were
    /// taken over).
    pub release: unsafe fn(parent: S, given: u32),
}

/// A state whose successors are being built: it owns the state, and drops it when dropped,
/// releasing only what no kept successor took over ([`Draft::keep_from`]).
pub struct Parent<S: 'static> {
    state: std::mem::ManuallyDrop<S>,
    /// The parts kept successors took over.
    given: std::cell::Cell<u32>,
    /// How they took them, once one did.
    heir: std::cell::Cell<Option<&'static Inheritance<S>>>,
}

impl<S: 'static> Parent<S> {
    pub fn new(state: S) -> Self {
        Parent {
            state: std::mem::ManuallyDrop::new(state),
            given: std::cell::Cell::new(0),
            heir: std::cell::Cell::new(None),
        }
    }
}

impl<S: 'static> Deref for Parent<S> {
    type Target = S;
    fn deref(&self) -> &S {
        &self.state
    }
}

impl<S: 'static> Drop for Parent<S> {
    fn drop(&mut self) {
        // SAFETY: the state is taken once, here, and never read again.
        let state = unsafe { std::mem::ManuallyDrop::take(&mut self.state) };
        match self.heir.get() {
            // SAFETY: `given` names exactly the parts kept successors took over
            // (`Draft::keep_from`), by this inheritance.
            Some(heir) => unsafe { (heir.release)(state, self.given.get()) },
            None => drop(state),
        }
    }
}

impl<'p, S: 'static> Draft<'p, S> {
    /// A successor that leans on nothing: keeping it is moving it out.
    pub fn owned(state: S) -> Self {
        Draft {
            state,
            lease: None,
            parent: PhantomData,
        }
    }

    /// A successor that may read parts of `parent` without holding references to them.
    ///
    /// # Safety
    /// The caller promises, for as long as `parent` is borrowed:
    /// - reading `state`, cloning it (a clone holds its own references) and dropping it are
    ///   sound, and dropping it releases nothing it did not count itself into;
    /// - after `(lease.own)(&mut state)` the state holds a reference to everything it
    ///   reads, and outlives `parent` soundly;
    /// - where `lease.inherit` is given, its `take` leaves the state holding a reference to
    ///   everything it reads, as `own` does, where every part whose bit it sets in `given`
    ///   holds the parent's own reference to the same storage, and its `release` drops a
    ///   parent but for those parts.
    pub unsafe fn borrowing(state: S, _parent: &'p S, lease: &'static Lease<S>) -> Self {
        Draft {
            state,
            lease: Some(lease),
            parent: PhantomData,
        }
    }

    /// The successor as a state of its own, independent of its parent.
    pub fn keep(mut self) -> S {
        if let Some(lease) = self.lease {
            (lease.own)(&mut self.state);
        }
        self.state
    }

    /// [`Draft::keep`], taking over `parent`'s references to what the successor shares with
    /// it where no successor kept before took them ([`Inheritance`]).
    ///
    /// # Safety
    /// `parent` holds the state this draft was built from, and the successor returned is
    /// neither changed nor dropped until `parent` and every draft built from it are
    /// dropped: it may now hold the only reference to storage they read, and a collection
    /// held by one reference may be changed in place. Every draft kept from one parent has
    /// the same lease (the parent is released by the last one's).
    pub unsafe fn keep_from(mut self, parent: &'p Parent<S>) -> S {
        let Some(inherit) = self.lease.and_then(|l| l.inherit.as_ref()) else {
            return self.keep();
        };
        let mut given = parent.given.get();
        // SAFETY: the caller's promise, and `borrowing`'s.
        unsafe { (inherit.take)(&parent.state, &mut self.state, &mut given) };
        parent.given.set(given);
        parent.heir.set(Some(inherit));
        self.state
    }
}

impl<S: 'static> Deref for Draft<'_, S> {
    type Target = S;
    fn deref(&self) -> &S {
        &self.state
    }
}

/// An empty vector with `v`'s buffer, for elements of another lifetime: a search keeps one
/// buffer of drafts across parents, each parent's drafts borrowing only that parent. Where
/// the two element types differ in size or alignment, the buffer is freed and a new vector
/// starts empty.
pub fn recycle<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    if std::mem::size_of::<T>() != std::mem::size_of::<U>()
        || std::mem::align_of::<T>() != std::mem::align_of::<U>()
    {
        return Vec::new();
    }
    let mut v = std::mem::ManuallyDrop::new(v);
    // SAFETY: the buffer was allocated for `capacity` elements of `T`, which has `U`'s size
    // and alignment, so it has the layout `U`'s vector of that capacity frees; it holds no
    // element, and `v` forgets it.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr() as *mut U, 0, v.capacity()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local!(static OWNED: Cell<u32> = const { Cell::new(0) });
    thread_local!(static RELEASED: Cell<Option<u32>> = const { Cell::new(None) });

    /// Counts the calls of `own`; no inheritance.
    static COUNTING: Lease<u32> = Lease {
        own: |_| OWNED.set(OWNED.get() + 1),
        inherit: None,
    };

    /// Parts are bits of a `u32` state: a successor takes over the parts it shares with its
    /// parent that no successor took before, and counts the others in (`OWNED`).
    static BITS: Lease<u32> = Lease {
        own: |child| OWNED.set(OWNED.get() + child.count_ones()),
        inherit: Some(Inheritance {
            take: |parent, child, given| {
                let taken = *parent & *child & !*given;
                *given |= taken;
                OWNED.set(OWNED.get() + (*child & !taken).count_ones());
            },
            release: |_parent, given| RELEASED.set(Some(given)),
        }),
    };

    #[test]
    fn keeping_an_owned_draft_moves_it_out_and_a_borrowing_one_is_owned_first() {
        assert_eq!(Draft::owned(7).keep(), 7);
        let parent = 1u32;
        // SAFETY: a `u32` leans on nothing; `own` only counts its calls.
        let draft = unsafe { Draft::borrowing(2u32, &parent, &COUNTING) };
        assert_eq!(*draft, 2);
        assert_eq!(OWNED.get(), 0, "reading does not own");
        assert_eq!(draft.keep(), 2);
        assert_eq!(OWNED.get(), 1, "keeping owns once");
        {
            // SAFETY: as above.
            let _dropped = unsafe { Draft::borrowing(3u32, &parent, &COUNTING) };
        }
        assert_eq!(OWNED.get(), 1, "a dropped draft is never owned");
    }

    #[test]
    fn a_parent_releases_only_what_no_kept_successor_took_over() {
        let parent = Parent::new(0b1011u32);
        // SAFETY: `u32`s lean on nothing; the functions only count.
        let first = unsafe { Draft::borrowing(0b0011u32, &parent, &BITS) };
        let second = unsafe { Draft::borrowing(0b1010u32, &parent, &BITS) };
        let owned = Draft::owned(0b1111u32);
        // SAFETY: as above.
        let kept = unsafe {
            [
                first.keep_from(&parent),
                second.keep_from(&parent),
                owned.keep_from(&parent),
            ]
        };
        assert_eq!(kept, [0b0011, 0b1010, 0b1111]);
        // The second takes over only bit 3: bit 1 was the first's, so it counts that in.
        assert_eq!(OWNED.get(), 1);
        assert_eq!(RELEASED.get(), None, "released with the parent, not before");
        drop(parent);
        assert_eq!(RELEASED.get(), Some(0b1011));
        // A parent none of whose successors could inherit is dropped as it is.
        RELEASED.set(None);
        let parent = Parent::new(1u32);
        // SAFETY: as above.
        let kept = unsafe { Draft::borrowing(1u32, &parent, &COUNTING).keep_from(&parent) };
        assert_eq!((kept, OWNED.get()), (1, 2), "kept as `keep` keeps");
        drop(parent);
        assert_eq!(RELEASED.get(), None);
    }

    #[test]
    fn recycling_keeps_the_buffer_and_drops_the_elements() {
        let alive = std::rc::Rc::new(());
        let mut v: Vec<(u64, std::rc::Rc<()>)> = Vec::with_capacity(64);
        v.push((1, alive.clone()));
        let cap = v.capacity();
        let mut w: Vec<(u64, &u64)> = recycle(v);
        assert_eq!(
            std::rc::Rc::strong_count(&alive),
            1,
            "the element was dropped"
        );
        assert!(w.is_empty());
        assert_eq!(w.capacity(), cap);
        w.push((2, &3));
        assert_eq!(w, [(2, &3)]);
        let other: Vec<u8> = recycle(w);
        assert_eq!(other.capacity(), 0, "another layout starts afresh");
    }
}
