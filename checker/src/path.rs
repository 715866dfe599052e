//! Paths through the state graph, and the parent pointers the one-thread search keeps to
//! rebuild them.

use crate::table::FpTable;

/// A run of the model: an initial state and the actions taken from it, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path<S, A> {
    pub init: S,
    pub actions: Vec<A>,
}

/// For every state reached, by fingerprint: the state it was first reached from and the
/// action that led here; an initial state has neither.
///
/// The links live in [`SHARDS`] tables chosen by the fingerprint's top bits, so that a table
/// growing doubles a sixty-fourth of the links at a time. One table would, at every doubling,
/// hold its old and its new storage at once: three times its size, which is what stopped
/// large searches at their memory limit (a search stopped exactly at a doubling).
pub(crate) struct Parents<S, A> {
    links: Vec<FpTable<Option<(u64, A)>>>,
    len: usize,
    /// The initial states, by fingerprint (a path is rebuilt back to one of them).
    roots: Vec<(u64, S)>,
}

/// How many tables the links are spread over (a power of two).
pub(crate) const SHARDS: usize = 64;

/// The table of `fp`: six bits from the middle of the fingerprint. Not its low bits: they
/// choose the slot within the table ([`FpTable`]), and keys that shared them would crowd
/// into one run of slots. Bits 40 to 45 are not among them for any table under 2⁴⁰ slots.
/// (Not the top bits either, for a reason of the hash table used before, which compared the
/// top seven bits of its keys first: `docs/performance.md`, "The visited set in 64 tables".)
pub(crate) fn shard_of(fp: u64) -> usize {
    ((fp >> SHARD_SHIFT) as usize) & (SHARDS - 1)
}

const SHARD_SHIFT: u32 = 40;

impl<S: Clone, A: Clone> Parents<S, A> {
    pub(crate) fn new() -> Self {
        Parents {
            links: (0..SHARDS).map(|_| FpTable::default()).collect(),
            len: 0,
            roots: Vec::new(),
        }
    }

    /// Records an initial state; `false` when an equal one is already known.
    pub(crate) fn insert_root(&mut self, fp: u64, state: &S) -> bool {
        if self.contains(fp) {
            return false;
        }
        self.links[shard_of(fp)].get_or_insert_with(fp, || None);
        self.len += 1;
        self.roots.push((fp, state.clone()));
        true
    }

    /// Records the first way a state was reached; `false` when it was already known.
    pub(crate) fn insert(&mut self, fp: u64, parent: u64, action: &A) -> bool {
        let (inserted, _) =
            self.links[shard_of(fp)].get_or_insert_with(fp, || Some((parent, action.clone())));
        self.len += usize::from(inserted);
        inserted
    }

    /// Asks the memory for where `fp` would be looked up, ahead of [`Parents::insert`].
    pub(crate) fn prefetch(&self, fp: u64) {
        self.links[shard_of(fp)].prefetch(fp);
    }

    pub(crate) fn contains(&self, fp: u64) -> bool {
        self.links[shard_of(fp)].contains(fp)
    }

    /// How many states are known.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The path by which the state with fingerprint `fp` was first reached.
    pub(crate) fn path_to(&self, fp: u64) -> Path<S, A> {
        rebuild(
            fp,
            |fp| self.links[shard_of(fp)].get(fp).cloned().flatten(),
            &self.roots,
        )
    }
}

/// Where a property showed its outcome: at a state the search keeps, or at the successor an
/// action leads to from one, judged where it was generated and kept without its dead parts
/// ([`crate::Model::forget`]).
#[derive(Clone, Debug)]
pub(crate) enum Found<A> {
    State(u64),
    /// The parent's fingerprint, the action, and (the parallel search under symmetry) the
    /// fingerprint of the successor's class as judged, before anything is forgotten.
    After(u64, A, Option<u64>),
}

impl<A: Clone> Found<A> {
    /// The path to it, given the path to a kept state.
    pub(crate) fn path<S>(&self, path_to: impl Fn(u64) -> Path<S, A>) -> Path<S, A> {
        match self {
            Found::State(fp) => path_to(*fp),
            Found::After(parent, action, _) => {
                let mut path = path_to(*parent);
                path.actions.push(action.clone());
                path
            }
        }
    }
}

/// A state's class: its class fingerprint ([`crate::ClassFingerprint`]).
pub(crate) type ClassOf<'a, S> = &'a dyn Fn(&S) -> u64;

/// A path whose links were kept by class (symmetry reduction on several threads), made a
/// run of the model. Each link's action was taken at the member of its parent's class that
/// the search expanded, which need not be the member a replay of the links before it
/// reaches (the search keeps the least link into a class, not the first). At the member the
/// replay reaches, the action taken is the recorded one if it leads into the link's class,
/// else the first enabled one that does: the renamed action, which exists because renaming
/// commutes with the transitions. `classes[k]` is the class after the `k`-th action;
/// `stored` is what the search keeps of a state (its dead parts forgotten), `class` a kept
/// state's class, and `last_class` the class of the last state of a path that ends at a
/// successor judged where it was generated (`Found::After`), taken before forgetting.
pub(crate) fn realign<M: crate::Model>(
    model: &M,
    path: Path<M::State, M::Action>,
    classes: &[u64],
    stored: impl Fn(M::State) -> M::State,
    class: impl Fn(&M::State) -> u64,
    last_class: Option<ClassOf<'_, M::State>>,
) -> Path<M::State, M::Action> {
    debug_assert_eq!(classes.len(), path.actions.len());
    let mut s = path.init.clone();
    let mut actions = Vec::with_capacity(path.actions.len());
    let mut enabled = Vec::new();
    let n = path.actions.len();
    for (k, recorded) in path.actions.into_iter().enumerate() {
        let judged_here = match last_class {
            Some(f) if k + 1 == n => f,
            _ => &|x: &M::State| class(&stored(x.clone())),
        };
        enabled.clear();
        model.actions(&s, &mut enabled);
        // The recorded action first, where it is enabled here.
        if let Some(i) = enabled.iter().position(|a| *a == recorded) {
            enabled.swap(0, i);
        }
        let (a, next) = enabled
            .drain(..)
            .find_map(|a| {
                model
                    .next_state(&s, a.clone())
                    .filter(|next| judged_here(next) == classes[k])
                    .map(|next| (a, next))
            })
            .expect("a member of a class has an action into every class the class leads to");
        actions.push(a);
        s = stored(next);
    }
    Path {
        init: path.init,
        actions,
    }
}

/// The path to the state with fingerprint `fp`, following `parent_of` (a state's parent and
/// the action from it; `None` for an initial state) back to one of `roots`.
pub(crate) fn rebuild<S: Clone, A>(
    mut fp: u64,
    parent_of: impl Fn(u64) -> Option<(u64, A)>,
    roots: &[(u64, S)],
) -> Path<S, A> {
    let mut actions = Vec::new();
    while let Some((parent, a)) = parent_of(fp) {
        actions.push(a);
        fp = parent;
    }
    actions.reverse();
    let init = roots
        .iter()
        .find(|(root, _)| *root == fp)
        .map(|(_, s)| s.clone())
        .expect("every path leads back to an initial state");
    Path { init, actions }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two counters whose order does not matter: a class is the sorted pair.
    struct Pair;

    impl crate::Model for Pair {
        type State = (u8, u8);
        type Action = u8;
        fn init_states(&self) -> Vec<(u8, u8)> {
            vec![(0, 0)]
        }
        fn actions(&self, s: &(u8, u8), actions: &mut Vec<u8>) {
            if s.0 < 3 {
                actions.push(0);
            }
            if s.1 < 3 {
                actions.push(1);
            }
        }
        fn next_state(&self, s: &(u8, u8), a: u8) -> Option<(u8, u8)> {
            Some(if a == 0 {
                (s.0 + 1, s.1)
            } else {
                (s.0, s.1 + 1)
            })
        }
    }

    #[test]
    fn realigning_takes_the_renamed_action_where_the_recorded_one_leads_elsewhere() {
        let class = |s: &(u8, u8)| u64::from(s.0.min(s.1)) << 8 | u64::from(s.0.max(s.1));
        // Recorded at other members of each class: (0,1) then (0,2), where a replay of the
        // first action alone reaches (1,0), at which the second recorded action leads to
        // (1,1), another class.
        let path = Path {
            init: (0, 0),
            actions: vec![0, 1],
        };
        let classes = [class(&(0, 1)), class(&(0, 2))];
        let run = realign(&Pair, path, &classes, |s| s, class, None);
        assert_eq!(run.actions, [0, 0]);
        // A path whose actions already lead into each class is left as it is.
        let path = Path {
            init: (0, 0),
            actions: vec![1, 1],
        };
        let run = realign(&Pair, path.clone(), &classes, |s| s, class, None);
        assert_eq!(run, path);
    }

    #[test]
    fn shards_leave_the_bits_the_hash_table_uses_to_the_table() {
        // Fingerprints that differ only in their top seven bits, or only in their low bits,
        // all share one table; the table gets fingerprints whose top bits vary.
        let base = 0x0123_4567_89ab_cdef_u64;
        for top in 0..128u64 {
            assert_eq!(shard_of(base ^ (top << 57)), shard_of(base));
        }
        for low in 0..(1u64 << 20) {
            assert_eq!(shard_of(base ^ low), shard_of(base));
        }
        let all: std::collections::BTreeSet<_> = (0..SHARDS as u64)
            .map(|i| shard_of(i << SHARD_SHIFT))
            .collect();
        assert_eq!(all.len(), SHARDS);
    }

    #[test]
    fn links_spread_over_shards_keep_every_path() {
        let mut p: Parents<u8, u8> = Parents::new();
        assert!(p.insert_root(7, &0));
        assert!(!p.insert_root(7, &0));
        // A chain 7 -> a -> b -> ..., its fingerprints spread over every shard.
        let fps: Vec<u64> = (1..=200u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        let mut parent = 7;
        for (i, &fp) in fps.iter().enumerate() {
            assert!(p.insert(fp, parent, &(i as u8)));
            assert!(!p.insert(fp, parent, &0), "a second way in is not recorded");
            parent = fp;
        }
        assert_eq!(p.len(), 201);
        let path = p.path_to(*fps.last().unwrap());
        assert_eq!(path.init, 0);
        assert_eq!(path.actions, (0..200).map(|i| i as u8).collect::<Vec<_>>());
    }
}
