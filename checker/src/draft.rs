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

use std::marker::PhantomData;
use std::ops::Deref;

/// A successor state, to be read (fingerprint, lookup) and then either dropped or kept.
pub struct Draft<'p, S> {
    state: S,
    /// Makes `state` hold its own references to what it still reads of the parent; `None`
    /// when it holds them already.
    own: Option<fn(&mut S)>,
    parent: PhantomData<&'p S>,
}

impl<'p, S> Draft<'p, S> {
    /// A successor that leans on nothing: keeping it is moving it out.
    pub fn owned(state: S) -> Self {
        Draft {
            state,
            own: None,
            parent: PhantomData,
        }
    }

    /// A successor that may read parts of `parent` without holding references to them.
    ///
    /// # Safety
    /// The caller promises, for as long as `parent` is borrowed:
    /// - reading `state`, cloning it (a clone holds its own references) and dropping it are
    ///   sound, and dropping it releases nothing it did not count itself into;
    /// - after `own(&mut state)` the state holds a reference to everything it reads, and
    ///   outlives `parent` soundly.
    pub unsafe fn borrowing(state: S, _parent: &'p S, own: fn(&mut S)) -> Self {
        Draft {
            state,
            own: Some(own),
            parent: PhantomData,
        }
    }

    /// The successor as a state of its own, independent of its parent.
    pub fn keep(mut self) -> S {
        if let Some(own) = self.own {
            own(&mut self.state);
        }
        self.state
    }
}

impl<S> Deref for Draft<'_, S> {
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

    #[test]
    fn keeping_an_owned_draft_moves_it_out_and_a_borrowing_one_is_owned_first() {
        assert_eq!(Draft::owned(7).keep(), 7);
        thread_local!(static OWNED: Cell<u32> = const { Cell::new(0) });
        let parent = 1u32;
        // SAFETY: a `u32` leans on nothing; `own` only counts its calls.
        let draft = unsafe { Draft::borrowing(2u32, &parent, |_| OWNED.set(OWNED.get() + 1)) };
        assert_eq!(*draft, 2);
        assert_eq!(OWNED.get(), 0, "reading does not own");
        assert_eq!(draft.keep(), 2);
        assert_eq!(OWNED.get(), 1, "keeping owns once");
        {
            // SAFETY: as above.
            let _dropped =
                unsafe { Draft::borrowing(3u32, &parent, |_| OWNED.set(OWNED.get() + 1)) };
        }
        assert_eq!(OWNED.get(), 1, "a dropped draft is never owned");
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
