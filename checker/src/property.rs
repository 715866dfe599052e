//! What the engine judges: named predicates over (model, state), each with an expectation.

use crate::model::Model;

/// How a property is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Expectation {
    /// Holds in every reachable state (safety). A state where it fails is a counterexample.
    Always,
    /// Holds in every reachable terminal state (a state with no enabled action). On a model
    /// whose state graph is acyclic, every run ends in one, so this is liveness: "by the end,
    /// this has happened".
    AtTermination,
    /// Holds in some reachable state. A state where it holds is a witness (an example that
    /// keeps the other properties from being vacuous).
    Sometimes,
}

/// What a property's condition reads of a state: anything, or only some of the state's
/// parts, bit `i` for part `i` as the model numbers them ([`Model::unchanged_parts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reads {
    Anything,
    Parts(u32),
}

/// One property, as the engine takes it: a name, an expectation, a predicate, and what the
/// predicate reads.
pub struct Property<M: Model> {
    pub name: &'static str,
    pub expectation: Expectation,
    pub condition: fn(&M, &M::State) -> bool,
    /// A search may skip judging the property at a state whose parts it reads are, unchanged,
    /// those of the state it was reached from, which was judged first: the verdict there is
    /// the same. Claiming parts the condition does not confine itself to makes verdicts wrong.
    pub reads: Reads,
}

impl<M: Model> Clone for Property<M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M: Model> Copy for Property<M> {}

impl<M: Model> std::fmt::Debug for Property<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({:?})", self.name, self.expectation)
    }
}

impl<M: Model> Property<M> {
    /// Whether `state` shows the property's outcome: a violation (always, at termination) or
    /// an example (sometimes). Terminality is asked of the model only when it matters.
    pub fn shows(&self, model: &M, state: &M::State) -> bool {
        let terminal = self.expectation == Expectation::AtTermination && model.is_terminal(state);
        self.shows_at(model, state, terminal)
    }

    /// Whether the property's outcome at a state is that of the state it was reached from,
    /// given which parts the two share unchanged (`unchanged`, [`Model::unchanged_parts`]).
    /// Never for an at-termination property: the state before was not terminal.
    pub fn as_before(&self, unchanged: u32) -> bool {
        self.needs() & !u64::from(unchanged) == 0
    }

    /// The parts of which one changed makes judging the property again worth it, and a bit
    /// no `unchanged` mask has (bit 32) where every state must be judged.
    fn needs(&self) -> u64 {
        match self.reads {
            Reads::Parts(parts) if self.expectation != Expectation::AtTermination => {
                u64::from(parts)
            }
            _ => 1 << 32,
        }
    }

    /// [`Property::shows`] for a state whose terminality the caller already knows.
    pub fn shows_at(&self, model: &M, state: &M::State, terminal: bool) -> bool {
        match self.expectation {
            Expectation::Always => !(self.condition)(model, state),
            Expectation::AtTermination => terminal && !(self.condition)(model, state),
            Expectation::Sometimes => (self.condition)(model, state),
        }
    }
}

/// The properties a search has yet to decide, each with [`Property::needs`]: the loop that
/// asks, at every state, which properties to judge there reads sixteen bytes per undecided
/// property (its index and that mask) and none for a decided one.
pub(crate) struct Undecided {
    left: Vec<(u32, u64)>,
}

impl Undecided {
    /// Every property but those `decided` names.
    pub(crate) fn new<M: Model>(props: &[Property<M>], decided: impl Fn(usize) -> bool) -> Self {
        let left = props
            .iter()
            .enumerate()
            .filter(|&(i, _)| !decided(i))
            .map(|(i, p)| {
                (
                    u32::try_from(i).expect("fewer than 2^32 properties"),
                    p.needs(),
                )
            })
            .collect();
        Undecided { left }
    }

    /// Whether every property is decided.
    pub(crate) fn is_empty(&self) -> bool {
        self.left.is_empty()
    }

    /// Each property left whose outcome `state` shows (a violation, or an example), judged
    /// only where something it reads changed since the state `state` was reached from
    /// ([`Property::as_before`]).
    pub(crate) fn showing<'a, M: Model>(
        &'a self,
        props: &'a [Property<M>],
        model: &'a M,
        state: &'a M::State,
        terminal: bool,
        unchanged: u32,
    ) -> impl Iterator<Item = usize> + 'a {
        let unchanged = u64::from(unchanged);
        self.left
            .iter()
            .filter(move |&&(i, needs)| {
                needs & !unchanged != 0 && props[i as usize].shows_at(model, state, terminal)
            })
            .map(|&(i, _)| i as usize)
    }

    /// Decided: no longer judged.
    pub(crate) fn remove(&mut self, property: usize) {
        self.left.retain(|&(i, _)| i as usize != property);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model with nothing in it: the rule of judging again depends only on the property.
    struct Nothing;

    impl Model for Nothing {
        type State = ();
        type Action = ();
        fn init_states(&self) -> Vec<()> {
            vec![()]
        }
        fn actions(&self, _: &(), _: &mut Vec<()>) {}
        fn next_state(&self, _: &(), _: ()) -> Option<()> {
            None
        }
    }

    fn property(expectation: Expectation, reads: Reads) -> Property<Nothing> {
        Property {
            name: "p",
            expectation,
            condition: |_, _| true,
            reads,
        }
    }

    #[test]
    fn a_property_is_as_before_only_where_all_it_claims_is_unchanged() {
        let always = property(Expectation::Always, Reads::Parts(0b101));
        assert!(always.as_before(0b101));
        assert!(always.as_before(u32::MAX));
        assert!(!always.as_before(0b100));
        assert!(!always.as_before(0));
        let sometimes = property(Expectation::Sometimes, Reads::Parts(1 << 31));
        assert!(sometimes.as_before(1 << 31));
        assert!(!sometimes.as_before(!(1 << 31)));
        // Claiming nothing, or judged at termination: never as before, whatever is shared.
        for p in [
            property(Expectation::Always, Reads::Anything),
            property(Expectation::AtTermination, Reads::Parts(0b1)),
            property(Expectation::AtTermination, Reads::Anything),
        ] {
            assert!(!p.as_before(u32::MAX), "{p:?}");
        }
    }

    #[test]
    fn the_undecided_list_skips_what_is_as_before_and_forgets_what_is_decided() {
        let props = [
            property(Expectation::Always, Reads::Parts(0b01)),
            property(Expectation::Sometimes, Reads::Parts(0b10)),
            property(Expectation::Sometimes, Reads::Anything),
        ];
        let mut left = Undecided::new(&props, |i| i == 2);
        let shown = |left: &Undecided, unchanged| {
            left.showing(&props, &Nothing, &(), false, unchanged)
                .collect::<Vec<_>>()
        };
        // The always property holds (shows nothing); the sometimes ones show where judged.
        assert_eq!(shown(&left, 0), vec![1]);
        assert_eq!(shown(&left, 0b10), Vec::<usize>::new());
        left.remove(1);
        assert_eq!(shown(&left, 0), Vec::<usize>::new());
        assert!(!left.is_empty());
        left.remove(0);
        assert!(left.is_empty());
        assert_eq!(
            Undecided::new(&props, |_| false)
                .showing(&props, &Nothing, &(), false, u32::MAX)
                .count(),
            1,
            "a property claiming nothing is judged whatever is shared"
        );
    }
}
