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

    /// Whether no action is enabled in `state`.
    fn is_terminal(&self, state: &Self::State) -> bool {
        let mut actions = Vec::new();
        self.actions(state, &mut actions);
        actions.is_empty()
    }
}
