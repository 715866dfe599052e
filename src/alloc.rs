//! The global allocator: mimalloc, called the way C's `malloc` is wherever the layout allows.
//!
//! A search allocates and frees states by the million, and the parallel search frees on one
//! thread what another allocated, which glibc's malloc pays for in consolidation
//! (`docs/performance.md`). The `mimalloc` crate's allocator asks for every block through
//! `mi_malloc_aligned`, whose fast path in mimalloc 3 gives up whenever the size class has
//! no free block at hand and falls back to the generic aligned path: 12% of all instructions
//! on the largest standard scenario. `mi_malloc` has its own, cheaper refill path, and is
//! enough whenever the alignment asked for is one malloc gives anyway.
//!
//! A search also keeps the memory it frees ([`keep_freed_memory`]): mimalloc's default hands
//! freed pages back to the OS a second after they empty, and the next breadth-first level
//! faults them in again, zeroed by the kernel. And it asks the kernel for no transparent huge
//! pages ([`no_transparent_huge_pages`]), whose zeroing on first touch cost seconds.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::{c_int, c_long, c_void};

use libmimalloc_sys::{mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned};
use libmimalloc_sys::{mi_zalloc, mi_zalloc_aligned};

/// The alignment `mi_malloc` guarantees for a block of at least this many bytes, as C's
/// `malloc` does (`max_align_t`); a smaller block is aligned to its size's power of two.
const MALLOC_ALIGN: usize = 16;

/// Whether `mi_malloc(size)` is aligned enough for `align`.
#[inline]
fn plain(align: usize, size: usize) -> bool {
    align <= MALLOC_ALIGN && align <= size
}

pub struct MiMalloc;

/// `mi_option_purge_delay` in `mimalloc.h` of the mimalloc 3 that `libmimalloc-sys` 0.1.49
/// (pinned in `Cargo.lock`) builds; its default there is 1000 (ms), which a test checks.
const MI_OPTION_PURGE_DELAY: c_int = 15;

/// The environment variable with which mimalloc itself reads the purge delay.
const PURGE_DELAY_ENV: &str = "MIMALLOC_PURGE_DELAY";

extern "C" {
    #[cfg(test)]
    fn mi_option_get(option: c_int) -> c_long;
    fn mi_option_set(option: c_int, value: c_long);
}

/// Never hand freed memory back to the OS during this process, unless `MIMALLOC_PURGE_DELAY`
/// says otherwise. A breadth-first search frees one level's states while it builds the
/// next, so purged pages come straight back, each through a page fault that zeroes it.
/// Keeping them costs two threads 9% more peak memory and saves them 12% of their time on
/// iframes n = 3 (`docs/performance.md`, *Keeping freed memory*). The memory limit watches
/// resident memory, so it still counts every page kept.
pub fn keep_freed_memory() {
    if std::env::var_os(PURGE_DELAY_ENV).is_none() {
        // SAFETY: setting an option is safe at any time; mimalloc reads this one whenever it
        // considers purging.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, -1) }
    }
}

/// The environment variable with which mimalloc itself reads whether it may use transparent
/// huge pages.
const ALLOW_THP_ENV: &str = "MIMALLOC_ALLOW_THP";

/// No transparent huge pages for this process (`PR_SET_THP_DISABLE`, inherited by the
/// processes it starts: `main` asks for it in the commands that start no browser), unless
/// `MIMALLOC_ALLOW_THP` says otherwise: mimalloc asks for them on its arenas
/// (`MADV_HUGEPAGE`), and each first touch of one then makes the kernel zero two MiB. A virtual machine that reports free 2 MiB blocks to its host (ours does) hands
/// out huge pages the host no longer backs, and that zeroing cost a large search seconds of
/// system time, a different number each run (iframes n = 3 on one thread: 2.6–7.9 s against
/// 1.1–1.3 s with 4 KiB pages), for 5–10% less user time (`docs/performance.md`,
/// *Transparent huge pages*). Returns whether they are off.
pub fn no_transparent_huge_pages() -> bool {
    if std::env::var_os(ALLOW_THP_ENV).is_some() {
        return thp_disabled();
    }
    // SAFETY: PR_SET_THP_DISABLE takes one integer argument and touches no memory of ours.
    unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0 }
}

/// Whether transparent huge pages are off for this process.
fn thp_disabled() -> bool {
    // SAFETY: PR_GET_THP_DISABLE reads a flag of the process and touches no memory of ours.
    unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1 }
}

/// The purge delay mimalloc uses now, in ms (-1: never).
#[cfg(test)]
fn purge_delay() -> c_long {
    // SAFETY: reading an option has no precondition.
    unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }
}

// SAFETY: every block comes from mimalloc and goes back to it (`mi_free` takes blocks of
// either kind); `plain` only picks `mi_malloc` where its alignment covers the layout's.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if plain(layout.align(), layout.size()) {
            mi_malloc(layout.size()) as *mut u8
        } else {
            mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if plain(layout.align(), layout.size()) {
            mi_zalloc(layout.size()) as *mut u8
        } else {
            mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        mi_free(ptr as *mut c_void);
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if plain(layout.align(), new_size) {
            mi_realloc(ptr as *mut c_void, new_size) as *mut u8
        } else {
            mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option number is mimalloc's purge delay: unset, it reads the default of this
    /// mimalloc, 1000 ms, and keeping freed memory sets it to -1; set by the environment, it
    /// is left as mimalloc read it (this test binary calls `keep_freed_memory` nowhere else).
    #[test]
    fn the_purge_delay_option_is_mimallocs_and_keeping_freed_memory_disables_purging() {
        match std::env::var(PURGE_DELAY_ENV) {
            Err(_) => {
                assert_eq!(purge_delay(), 1000);
                keep_freed_memory();
                assert_eq!(purge_delay(), -1);
            }
            Ok(_) => {
                let asked = purge_delay();
                keep_freed_memory();
                assert_eq!(purge_delay(), asked, "the environment's value is kept");
            }
        }
    }

    /// Unless the environment asks for them, huge pages are off once asked to be, and the
    /// kernel says so.
    #[test]
    fn transparent_huge_pages_are_off_unless_the_environment_allows_them() {
        let off = no_transparent_huge_pages();
        assert_eq!(off, thp_disabled());
        if std::env::var_os(ALLOW_THP_ENV).is_none() {
            assert!(off, "PR_SET_THP_DISABLE took effect");
        }
    }

    /// Every alignment up to a page, at sizes around it, comes back aligned, writable and
    /// intact through a reallocation.
    #[test]
    fn blocks_are_aligned_as_asked_and_survive_realloc() {
        let a = MiMalloc;
        for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1usize, 3, 8, 15, 16, 17, 48, 100, 5000] {
                let layout = Layout::from_size_align(size, align).unwrap();
                unsafe {
                    let p = a.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "size {size}, align {align}");
                    std::ptr::write_bytes(p, 0xab, size);
                    let q = a.realloc(p, layout, size * 3);
                    assert_eq!(q as usize % align, 0, "realloc: size {size}, align {align}");
                    assert!((0..size).all(|i| *q.add(i) == 0xab));
                    a.dealloc(q, Layout::from_size_align(size * 3, align).unwrap());
                    let z = a.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    a.dealloc(z, layout);
                }
            }
        }
    }
}
