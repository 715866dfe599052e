//! The visited set the parallel searches share: a map from fingerprint to how the state was
//! first reached, split into shards with a lock each, so workers rarely wait for one
//! another.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::fingerprint::fingerprint;
use crate::path::Path;
use crate::table::{prefetch_slot, prefetch_value, FpTable};

/// Shards of the visited set: as many as the one-thread search's, chosen by the same bits
/// (`crate::path::shard_of`).
use crate::path::SHARDS;

/// How a state was first reached: its parent's fingerprint and the action from it (no
/// action for an initial state, whose parent is 0), and its depth. Flat, so that the depth
/// fills what would be the padding of an `Option<(u64, A)>`: 16 bytes for a small action,
/// where the nested form took 24 (a third of the visited set's values).
pub(crate) struct Link<A> {
    pub(crate) parent: u64,
    pub(crate) action: Option<A>,
    pub(crate) depth: u32,
}

impl<A: Clone> Link<A> {
    fn parent(&self) -> Option<(u64, A)> {
        self.action.clone().map(|a| (self.parent, a))
    }
}

/// The deepest level the search expands: a [`Link`] keeps its depth in 32 bits. A search
/// that reaches it stops there, as at `--max-depth` (named so, never a silent pass); it
/// would first have to hold one new state per level, four billion in all.
pub(crate) const DEEPEST: usize = u32::MAX as usize - 1;

/// Where a shard's table keeps its keys and values, and its mask (`usize::MAX`: no slots).
struct Hint {
    keys: AtomicUsize,
    vals: AtomicUsize,
    mask: AtomicUsize,
}

impl Default for Hint {
    fn default() -> Self {
        Hint {
            keys: AtomicUsize::new(0),
            vals: AtomicUsize::new(0),
            mask: AtomicUsize::new(usize::MAX),
        }
    }
}

pub(crate) struct Visited<S, A> {
    shards: Vec<Mutex<FpTable<Link<A>>>>,
    /// Per shard, where its table's keys and values were as of its last growth: read
    /// without the lock, to prefetch a slot (a stale hint only wastes the prefetch).
    hints: Vec<Hint>,
    pub(crate) unique: AtomicUsize,
    roots: Vec<(u64, S)>,
}

impl<S: Clone, A: Clone + std::hash::Hash> Visited<S, A> {
    pub(crate) fn new() -> Self {
        Visited {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            hints: (0..SHARDS).map(|_| Hint::default()).collect(),
            unique: AtomicUsize::new(0),
            roots: Vec::new(),
        }
    }

    fn shard(&self, fp: u64) -> std::sync::MutexGuard<'_, FpTable<Link<A>>> {
        self.shards[crate::path::shard_of(fp)]
            .lock()
            .expect("no worker panics holding a shard")
    }

    pub(crate) fn insert_root(&mut self, fp: u64, state: &S) -> bool {
        let (new, _) = self.shard(fp).get_or_insert_with(fp, || Link {
            parent: 0,
            action: None,
            depth: 1,
        });
        if new {
            self.unique.fetch_add(1, Ordering::Relaxed);
            self.roots.push((fp, state.clone()));
        }
        new
    }

    /// Records a state reached at `depth` from `parent` by `action`; `true` when it is new
    /// (the caller counts it in `unique`, once a chunk: one counter both workers wrote at
    /// every new state would move between their caches each time).
    /// A state already reached at the same depth keeps the least parent, so that the
    /// recorded paths do not depend on the schedule.
    pub(crate) fn insert(&self, fp: u64, parent: u64, action: &A, depth: usize) -> bool {
        let mut shard = self.shard(fp);
        self.record(&mut shard, fp, parent, action, depth)
    }

    /// [`Visited::insert`], unless another worker holds the shard (most often while its
    /// table grows, which takes milliseconds on a large search): then `None`, and the
    /// caller records the state later rather than wait.
    pub(crate) fn try_insert(
        &self,
        fp: u64,
        parent: u64,
        action: &A,
        depth: usize,
    ) -> Option<bool> {
        #[cfg(test)]
        if crate::parallel_bfs::tests::seems_busy() {
            return None;
        }
        let mut shard = match self.shards[crate::path::shard_of(fp)].try_lock() {
            Ok(shard) => shard,
            Err(std::sync::TryLockError::WouldBlock) => return None,
            Err(std::sync::TryLockError::Poisoned(_)) => {
                panic!("no worker panics holding a shard")
            }
        };
        Some(self.record(&mut shard, fp, parent, action, depth))
    }

    fn record(
        &self,
        shard: &mut FpTable<Link<A>>,
        fp: u64,
        parent: u64,
        action: &A,
        depth: usize,
    ) -> bool {
        let shard_index = crate::path::shard_of(fp);
        // At most DEEPEST + 1: the search expands no level deeper than DEEPEST.
        let depth = depth as u32;
        let (new, link) = shard.get_or_insert_with(fp, || Link {
            parent,
            action: Some(action.clone()),
            depth,
        });
        if new {
            let (keys, mask) = shard.slot_hint();
            let hint = &self.hints[shard_index];
            if hint.mask.load(Ordering::Relaxed) != mask {
                hint.keys.store(keys, Ordering::Relaxed);
                hint.vals.store(shard.value_hint(), Ordering::Relaxed);
                hint.mask.store(mask, Ordering::Relaxed);
            }
        } else if link.depth == depth {
            if let Some(a) = &link.action {
                // The least (parent, action fingerprint); the actions are hashed only
                // between two edges from one parent (every duplicate comes here, under the
                // shard's lock).
                let less = match parent.cmp(&link.parent) {
                    std::cmp::Ordering::Less => true,
                    std::cmp::Ordering::Greater => false,
                    std::cmp::Ordering::Equal => fingerprint(action) < fingerprint(a),
                };
                if less {
                    (link.parent, link.action) = (parent, Some(action.clone()));
                }
            }
        }
        new
    }

    /// Asks the memory for `fp`'s slot, ahead of [`Visited::insert`], without the lock: its
    /// key, and its value, which the same-depth rule reads when `fp` is already there (as
    /// most successors are).
    pub(crate) fn prefetch(&self, fp: u64) {
        let hint = &self.hints[crate::path::shard_of(fp)];
        let mask = hint.mask.load(Ordering::Relaxed);
        prefetch_slot((hint.keys.load(Ordering::Relaxed), mask), fp);
        prefetch_value::<Link<A>>(hint.vals.load(Ordering::Relaxed), mask, fp);
    }

    pub(crate) fn contains(&self, fp: u64) -> bool {
        self.shard(fp).contains(fp)
    }

    pub(crate) fn path_to(&self, fp: u64) -> Path<S, A> {
        crate::path::rebuild(
            fp,
            |fp| self.shard(fp).get(fp).and_then(Link::parent),
            &self.roots,
        )
    }

    /// The fingerprints of the states on the path to `fp`, after its initial state.
    pub(crate) fn fingerprints_to(&self, mut fp: u64) -> Vec<u64> {
        let mut out = Vec::new();
        while let Some((parent, _)) = self.shard(fp).get(fp).and_then(Link::parent) {
            out.push(fp);
            fp = parent;
        }
        out.reverse();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Link;

    #[test]
    fn a_link_with_a_small_action_takes_sixteen_bytes() {
        // The model's `Action` is 3 bytes; an `Option<(u64, A)>` beside a depth took 24.
        #[derive(Clone)]
        #[allow(dead_code)]
        enum Small {
            A(u8, u8),
            B(u8),
        }
        assert_eq!(std::mem::size_of::<Small>(), 3);
        assert_eq!(std::mem::size_of::<Link<Small>>(), 16);
        let root: Link<Small> = Link {
            parent: 0,
            action: None,
            depth: 1,
        };
        assert!(root.parent().is_none(), "an initial state has no parent");
        let child = Link {
            parent: 7,
            action: Some(Small::B(2)),
            depth: 2,
        };
        assert!(matches!(child.parent(), Some((7, Small::B(2)))));
    }
}
