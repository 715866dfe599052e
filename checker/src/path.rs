//! Paths through the state graph, and the parent pointers the one-thread search keeps to
//! rebuild them.

use crate::fingerprint::FingerprintMap;

/// A run of the model: an initial state and the actions taken from it, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path<S, A> {
    pub init: S,
    pub actions: Vec<A>,
}

/// For every state reached, by fingerprint: the state it was first reached from and the
/// action that led here; an initial state has neither.
pub(crate) struct Parents<S, A> {
    links: FingerprintMap<Option<(u64, A)>>,
    /// The initial states, by fingerprint (a path is rebuilt back to one of them).
    roots: Vec<(u64, S)>,
}

impl<S: Clone, A: Clone> Parents<S, A> {
    pub(crate) fn new() -> Self {
        Parents {
            links: FingerprintMap::default(),
            roots: Vec::new(),
        }
    }

    /// Records an initial state; `false` when an equal one is already known.
    pub(crate) fn insert_root(&mut self, fp: u64, state: &S) -> bool {
        if self.links.contains_key(&fp) {
            return false;
        }
        self.links.insert(fp, None);
        self.roots.push((fp, state.clone()));
        true
    }

    /// Records the first way a state was reached; `false` when it was already known.
    pub(crate) fn insert(&mut self, fp: u64, parent: u64, action: &A) -> bool {
        match self.links.entry(fp) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(Some((parent, action.clone())));
                true
            }
            std::collections::hash_map::Entry::Occupied(_) => false,
        }
    }

    pub(crate) fn contains(&self, fp: u64) -> bool {
        self.links.contains_key(&fp)
    }

    /// How many states are known.
    pub(crate) fn len(&self) -> usize {
        self.links.len()
    }

    /// The path by which the state with fingerprint `fp` was first reached.
    pub(crate) fn path_to(&self, fp: u64) -> Path<S, A> {
        rebuild(fp, |fp| self.links.get(&fp).cloned().flatten(), &self.roots)
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
