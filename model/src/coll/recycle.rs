//! The blocks of freed nodes, kept per thread for the next node of the same size.
//!
//! Why: a search builds each successor by copying the collections its transition changes,
//! and two in three successors are states already seen, dropped at once. So the typical
//! allocation asks for a block of the size just freed. The allocator gives the block back
//! only after it has handed out the rest of its page (mimalloc keeps a page's freed blocks
//! apart from the ones it hands out), a block cold in the cache by then: callgrind's cache
//! simulation put a quarter of the search's first-level read misses in malloc. Kept here,
//! the block just freed is the next one handed out, still in the cache.
//!
//! Each thread keeps at most [`DEPTH`] blocks of each size up to [`LARGEST`] bytes, all of
//! the one alignment nodes have ([`ALIGN`]); anything else goes to the global allocator as
//! before. The blocks go back to the global allocator when the thread ends.

use std::alloc::{self, Layout};
use std::cell::UnsafeCell;

/// The alignment of every block kept: a node's header's (a node whose entries align more is
/// not kept).
const ALIGN: usize = 8;
/// Block sizes are multiples of the alignment (a layout is padded to it).
const CLASSES: usize = 64;
/// The largest block kept, in bytes.
const LARGEST: usize = CLASSES * ALIGN;
/// Blocks kept per size.
const DEPTH: usize = 8;

struct Bins {
    blocks: [[*mut u8; DEPTH]; CLASSES],
    len: [u8; CLASSES],
    /// Whether blocks may be kept: [`NEW`], [`OPEN`] or [`CLOSED`].
    state: u8,
}

/// No block kept yet: the first one registers the thread's [`Guard`].
const NEW: u8 = 0;
/// The guard is registered: blocks are kept.
const OPEN: u8 = 1;
/// The guard has given the blocks back (the thread is ending): none are kept any more.
const CLOSED: u8 = 2;

// The bins have no destructor, so reaching them is a plain thread-local access, with no
// check of whether they are still alive (a thread-local with a destructor checks at every
// access). The guard, registered by the first block kept, gives their blocks back.
thread_local! {
    static BINS: UnsafeCell<Bins> = const {
        UnsafeCell::new(Bins {
            blocks: [[std::ptr::null_mut(); DEPTH]; CLASSES],
            len: [0; CLASSES],
            state: NEW,
        })
    };
    static GUARD: Guard = const { Guard };
}

/// Gives a thread's kept blocks back to the global allocator when the thread ends.
struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        BINS.with(|bins| {
            // SAFETY: this thread's bins; nothing called while the reference lives takes them.
            let bins = unsafe { &mut *bins.get() };
            bins.state = CLOSED;
            for (class, blocks) in bins.blocks.iter().enumerate() {
                for &block in &blocks[..usize::from(bins.len[class])] {
                    // SAFETY: kept by `free`, which took it from a block of this class's layout.
                    unsafe { alloc::dealloc(block, layout_of(class)) };
                }
            }
            bins.len = [0; CLASSES];
        });
    }
}

/// The size class of `layout`, if its blocks are kept.
#[inline]
fn class_of(layout: Layout) -> Option<usize> {
    let size = layout.size();
    (layout.align() == ALIGN && size != 0 && size <= LARGEST && size.is_multiple_of(ALIGN))
        .then(|| size / ALIGN - 1)
}

fn layout_of(class: usize) -> Layout {
    Layout::from_size_align((class + 1) * ALIGN, ALIGN).expect("a small layout")
}

/// A block for `layout` (non-zero size): the one last freed of its size on this thread if
/// any is kept, else the global allocator's (null if it fails, as `alloc::alloc`).
///
/// # Safety
/// As `alloc::alloc`: `layout` has a non-zero size.
#[inline]
pub(super) unsafe fn alloc(layout: Layout) -> *mut u8 {
    if let Some(class) = class_of(layout) {
        let kept = BINS.with(|bins| {
            // SAFETY: this thread's bins; nothing called while the reference lives takes them.
            let bins = unsafe { &mut *bins.get() };
            let len = bins.len[class];
            (len > 0).then(|| {
                bins.len[class] = len - 1;
                bins.blocks[class][usize::from(len - 1)]
            })
        });
        if let Some(block) = kept {
            return block;
        }
    }
    // SAFETY: the caller's promise.
    unsafe { alloc::alloc(layout) }
}

/// Frees a block that [`alloc`] (or the global allocator) gave for `layout`: kept for the
/// next block of its size on this thread if there is room, else given back.
///
/// # Safety
/// As `alloc::dealloc`: `block` was allocated for `layout` and is not used again.
#[inline]
pub(super) unsafe fn free(block: *mut u8, layout: Layout) {
    if let Some(class) = class_of(layout) {
        let kept = BINS.with(|bins| {
            // SAFETY: as in `alloc`.
            let bins = unsafe { &mut *bins.get() };
            if bins.state != OPEN && !open(bins) {
                return false;
            }
            let len = bins.len[class];
            let room = usize::from(len) < DEPTH;
            if room {
                bins.blocks[class][usize::from(len)] = block;
                bins.len[class] = len + 1;
            }
            room
        });
        if kept {
            return;
        }
    }
    // SAFETY: the caller's promise.
    unsafe { alloc::dealloc(block, layout) }
}

/// Registers the thread's guard before the first block is kept; `false` once the guard has
/// run, or when it can no longer be registered (the thread is ending).
#[cold]
fn open(bins: &mut Bins) -> bool {
    if bins.state == NEW {
        bins.state = if GUARD.try_with(|_| ()).is_ok() {
            OPEN
        } else {
            CLOSED
        };
    }
    bins.state == OPEN
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` on a thread of its own, whose bins hold nothing yet.
    fn on_fresh_thread(f: impl FnOnce() + Send + 'static) {
        std::thread::spawn(f).join().unwrap();
    }

    #[test]
    fn a_freed_block_is_the_next_of_its_size_and_only_of_its_size() {
        on_fresh_thread(|| {
            let small = Layout::from_size_align(48, ALIGN).unwrap();
            let other = Layout::from_size_align(56, ALIGN).unwrap();
            unsafe {
                let a = alloc(small);
                assert!(!a.is_null());
                free(a, small);
                let b = alloc(other);
                assert_ne!(a, b, "a block is kept for its own size only");
                let c = alloc(small);
                assert_eq!(a, c, "the block just freed is handed out next");
                free(b, other);
                free(c, small);
            }
        });
    }

    #[test]
    fn blocks_beyond_the_depth_or_the_largest_size_go_back() {
        on_fresh_thread(|| {
            let small = Layout::from_size_align(32, ALIGN).unwrap();
            let blocks: Vec<_> = (0..DEPTH + 3).map(|_| unsafe { alloc(small) }).collect();
            for &b in &blocks {
                unsafe { free(b, small) };
            }
            // The kept ones come back last freed first; the rest went to the allocator.
            let again: Vec<_> = (0..DEPTH).map(|_| unsafe { alloc(small) }).collect();
            let expected: Vec<_> = blocks[..DEPTH].iter().rev().copied().collect();
            assert_eq!(again, expected);
            for b in again {
                unsafe { free(b, small) };
            }
        });
        assert_eq!(
            class_of(Layout::from_size_align(LARGEST + ALIGN, ALIGN).unwrap()),
            None
        );
        assert_eq!(
            class_of(Layout::from_size_align(64, 16).unwrap()),
            None,
            "another alignment"
        );
        assert_eq!(
            class_of(Layout::from_size_align(LARGEST, ALIGN).unwrap()),
            Some(CLASSES - 1)
        );
    }

    #[test]
    fn a_thread_gives_its_blocks_back_when_it_ends() {
        // Run under valgrind's memcheck (the model crate's tests use the system allocator),
        // a block kept past the thread's end would show as lost.
        on_fresh_thread(|| {
            let l = Layout::from_size_align(64, ALIGN).unwrap();
            let b = unsafe { alloc(l) };
            unsafe { free(b, l) };
            BINS.with(|bins| assert_eq!(unsafe { &*bins.get() }.len[7], 1));
            BINS.with(|bins| assert_eq!(unsafe { &*bins.get() }.state, OPEN));
        });
    }
}
