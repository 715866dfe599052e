//! What the engine explores: a model, given as its initial states and its transitions.

use std::fmt::Debug;
use std::hash::Hash;

/// A nondeterministic state machine.
///
/// A **state** is everything that decides what can happen next; two states that are equal
/// (and hash alike) are the same node of the state graph, however they were reached. An
/// **action** is one indivisible step of one of the model's actors: every interleaving the
/// engine explores is a sequence of actions, and there are no others (what happens inside one
/// action cannot interleave with anything).
///
/// The bounds are those of the parallel search, which shares states between threads: states
/// and actions are plain data.
pub trait Model {
    /// A node of the state graph.
    type State: Clone + Debug + Hash + Eq + Send + Sync + 'static;
    /// A transition label: what one step of one actor did.
    type Action: Clone + Debug + Hash + Eq + Send + Sync + 'static;

    /// The states exploration starts from (depth 1).
    fn init_states(&self) -> Vec<Self::State>;

    /// Appends the actions enabled in `state` to `actions`. A state with none is
    /// **terminal**: the at-termination properties are judged there.
    fn actions(&self, state: &Self::State, actions: &mut Vec<Self::Action>);

    /// The state an action leads to, or `None` when it leads nowhere (the action is then
    /// skipped, as if it were not enabled; the state still counts as non-terminal).
    fn next_state(&self, state: &Self::State, action: Self::Action) -> Option<Self::State>;

    /// [`Model::next_state`] as a [`crate::Draft`], which may read `state`'s storage without
    /// holding references to it until the search keeps it: the searches that drop most
    /// successors unseen (breadth-first, one thread or several) build them this way. The
    /// default builds the state itself.
    fn draft<'p>(
        &self,
        state: &'p Self::State,
        action: Self::Action,
    ) -> Option<crate::Draft<'p, Self::State>> {
        self.next_state(state, action).map(crate::Draft::owned)
    }

    /// A hint: the search expands `state` next, so the model may ask the processor to load
    /// the memory listing its actions will read ([`prefetch`]) while the current state is
    /// expanded. It changes nothing; the default does nothing.
    fn prefetch(&self, _state: &Self::State) {}

    /// Which of a state's parts (bit `i`: part `i`, as the model numbers them, at most 32)
    /// `next` shares unchanged with `state`, the state it was built from. A property that
    /// reads only those parts ([`crate::property::Reads`]) has the same outcome at `next` as
    /// at `state`, so the breadth-first searches and the one-thread depth-first search do not
    /// judge it again. 0 (the default) claims nothing.
    fn unchanged_parts(&self, _state: &Self::State, _next: &Self::State) -> u32 {
        0
    }

    /// Partial-order reduction: a set of enabled actions of `state` that may be explored
    /// instead of all of them, each with the state it leads to, appended to `set`; `false`
    /// (the default) explores every enabled action, and `set` is then left as it was.
    ///
    /// The engine relies on three things the model promises for the set it names:
    /// - **persistent**: along every path from `state` that takes no action of the set, each
    ///   action is independent of every action of the set (the two commute, and neither
    ///   enables or disables the other);
    /// - **keeps outcomes**: an action of the set, taken at any state reached from `state`
    ///   by actions outside the set, leaves an always property that fails there failing and a
    ///   sometimes property that holds there holding (one that already holds at `state`
    ///   excepted: `state` shows it). A set that is *invisible* (no action of it changes
    ///   anything a property reads) keeps outcomes; a set may keep them without being
    ///   invisible;
    /// - the model's state graph is **acyclic**, so no action is postponed forever.
    ///
    /// Then every terminal state stays reachable, and every outcome a state of the full
    /// graph shows (an always property violated, a sometimes property satisfied) is shown by
    /// a state the reduced search explores: the verdicts of always, at-termination and
    /// sometimes properties are those of the full search. Invisible sets give more (every
    /// sequence of property values along a path is matched, up to repetition), which the
    /// verdicts do not need. Paths get no shorter, and may get longer.
    fn persistent_set(
        &self,
        _state: &Self::State,
        _set: &mut Vec<(Self::Action, Self::State)>,
    ) -> bool {
        false
    }

    /// Sleep sets ([`crate::Reduction::Sleep`]): [`Model::next_state`], with what the action
    /// read and wrote of `state` ([`crate::footprint`]); `None` (the default) when the model
    /// records no footprints, and the search then builds every successor.
    ///
    /// The engine relies on one promise: two actions enabled at `state` whose footprints
    /// there do not conflict **commute** at `state` (each stays enabled after the other, and
    /// both orders reach the same state), and each reads and writes the same after the
    /// other as at `state` (so its footprint carries over). Then a successor `s·b·a` the
    /// search skips is `s·a·b`, reached by a path of the same length: every state is still
    /// visited, at its depth, and every verdict and counterexample length is the
    /// unreduced search's.
    fn next_state_with_footprint(
        &self,
        _state: &Self::State,
        _action: Self::Action,
    ) -> Option<(Option<Self::State>, crate::footprint::Footprint)> {
        None
    }

    /// Dead parts ([`crate::Options::forget`]): `state` without the parts nothing after it
    /// can tell are there once it has been judged, or `None` (the default) when it holds
    /// none. The breadth-first searches then judge `state` where they generate it and keep
    /// the state returned in its place, so that states differing only in such parts are one.
    ///
    /// The engine relies on three things the model promises for `f = forget(s)`:
    /// - **nothing reads them**: `f` has the actions `s` has, and each leads from `s` to
    ///   the state it leads to from `f` with the parts `forget` took from `s` put back (so
    ///   every path from `s` is a path from `f` that carries those parts along);
    /// - **they only show**: no property shows its outcome at a state without them that it
    ///   does not show at the same state with them (removing them never makes an always
    ///   property fail, nor a sometimes property hold);
    /// - **not at termination**: every at-termination property has the same value at both.
    ///
    /// Then every property shown along a path is shown where the path's states are judged
    /// (at `s` itself, or after it, at states the search keeps), at the same depth, so the
    /// verdicts and the lengths of the breadth-first paths are those of the search without
    /// it; terminal states are kept up to those parts. `forget(f)` must be `None`.
    fn forget(&self, _state: &Self::State) -> Option<Self::State> {
        None
    }

    /// A compact byte form of states for the breadth-first frontier, where most of a large
    /// search's memory goes (the states reached but not yet expanded); `None` (the default)
    /// keeps them as values.
    fn codec(&self) -> Option<&dyn StateCodec<Self::State>> {
        None
    }

    /// The parallel search: a worker's pass over each state it takes from the frontier
    /// before expanding it ([`Localizer`]); `None` (the default) takes states as they are.
    fn localizer(&self) -> Option<Box<dyn Localizer<Self::State>>> {
        None
    }

    /// Whether no action is enabled in `state`.
    fn is_terminal(&self, state: &Self::State) -> bool {
        let mut actions = Vec::new();
        self.actions(state, &mut actions);
        actions.is_empty()
    }
}

/// One worker's private state for [`Model::localizer`]. `localize` must leave the state
/// equal (and hashing the same): it may only change how the state is stored, for example
/// point it at the worker's own copies of parts many states share, so that cloning and
/// dropping successors does not write memory the other workers write too.
pub trait Localizer<S>: Send {
    fn localize(&mut self, state: &mut S);
}

/// States as bytes and back: `decode(encode(s)) == s` for every state the model reaches.
/// The bytes never leave the process, so the form is the model's to choose.
pub trait StateCodec<S>: Sync {
    /// Appends the bytes of `state` to `out`.
    fn encode(&self, state: &S, out: &mut Vec<u8>);
    /// The state `encode` wrote as `bytes`.
    fn decode(&self, bytes: &[u8]) -> S;
}

/// A hint to load the cache line at `p` (nothing on targets without one). It never faults,
/// whatever the address, and changes nothing but what the cache holds.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p.cast::<i8>(), std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
