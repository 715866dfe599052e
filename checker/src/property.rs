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

/// The properties a search has yet to decide, grouped by [`Property::needs`]: the loop that
/// asks, at every state, which properties to judge there tests each distinct mask once (a
/// catalogue has a few dozen properties and a score of masks) and reads nothing of a decided
/// property.
pub(crate) struct Undecided {
    /// Per distinct mask, in order of first appearance: the mask and the indices of its
    /// undecided properties, ascending. No group is empty.
    groups: Vec<(u64, Vec<u32>)>,
}

impl Undecided {
    /// Every property but those `decided` names.
    pub(crate) fn new<M: Model>(props: &[Property<M>], decided: impl Fn(usize) -> bool) -> Self {
        let mut groups: Vec<(u64, Vec<u32>)> = Vec::new();
        for (i, p) in props.iter().enumerate().filter(|&(i, _)| !decided(i)) {
            let i = u32::try_from(i).expect("fewer than 2^32 properties");
            let needs = p.needs();
            match groups.iter_mut().find(|(mask, _)| *mask == needs) {
                Some((_, members)) => members.push(i),
                None => groups.push((needs, vec![i])),
            }
        }
        Undecided { groups }
    }

    /// Whether every property is decided.
    pub(crate) fn is_empty(&self) -> bool {
        self.groups.is_empty()
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
        self.groups
            .iter()
            .filter(move |(needs, _)| needs & !unchanged != 0)
            .flat_map(|(_, members)| members.iter())
            .map(|&i| i as usize)
            .filter(move |&i| props[i].shows_at(model, state, terminal))
    }

    /// Decided: no longer judged.
    pub(crate) fn remove(&mut self, property: usize) {
        for (_, members) in &mut self.groups {
            members.retain(|&i| i as usize != property);
        }
        self.groups.retain(|(_, members)| !members.is_empty());
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

    /// A model whose state is eight bits, one per property below.
    struct Bits;

    impl Model for Bits {
        type State = u8;
        type Action = ();
        fn init_states(&self) -> Vec<u8> {
            vec![0]
        }
        fn actions(&self, _: &u8, _: &mut Vec<()>) {}
        fn next_state(&self, _: &u8, _: ()) -> Option<u8> {
            None
        }
    }

    fn bit<const I: u8>(_: &Bits, s: &u8) -> bool {
        s >> I & 1 == 1
    }

    const BITS: [fn(&Bits, &u8) -> bool; 8] = [
        bit::<0>, bit::<1>, bit::<2>, bit::<3>, bit::<4>, bit::<5>, bit::<6>, bit::<7>,
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            rng_algorithm: proptest::test_runner::RngAlgorithm::ChaCha,
            ..proptest::prelude::ProptestConfig::with_cases(512)
        })]

        /// Grouping by mask changes which properties are judged at no state: the list shows
        /// exactly the undecided properties that, one by one, are not `as_before` and show
        /// their outcome, before and after any of them is decided.
        #[test]
        fn grouping_by_mask_judges_what_each_property_asks(
            kinds in proptest::collection::vec((0u8..3, proptest::option::of(0u32..4)), 1..8),
            decided in 0u8..=255,
            removed in proptest::collection::vec(0usize..8, 0..4),
            judged in proptest::collection::vec((0u8..=255, 0u32..16, proptest::bool::ANY), 1..6),
        ) {
            let props: Vec<Property<Bits>> = kinds
                .iter()
                .enumerate()
                .map(|(i, &(e, parts))| Property {
                    name: "p",
                    expectation: [
                        Expectation::Always,
                        Expectation::AtTermination,
                        Expectation::Sometimes,
                    ][e as usize],
                    condition: BITS[i],
                    reads: parts.map_or(Reads::Anything, |p| Reads::Parts(1 << p | p)),
                })
                .collect();
            let mut left = Undecided::new(&props, |i| decided >> i & 1 == 1);
            let mut gone: Vec<usize> = (0..props.len()).filter(|i| decided >> i & 1 == 1).collect();
            for r in std::iter::once(None).chain(removed.iter().map(Some)) {
                if let Some(&r) = r {
                    left.remove(r);
                    gone.push(r);
                }
                proptest::prop_assert_eq!(left.is_empty(), (0..props.len()).all(|i| gone.contains(&i)));
                for &(state, unchanged, terminal) in &judged {
                    let mut shown: Vec<usize> = left
                        .showing(&props, &Bits, &state, terminal, unchanged)
                        .collect();
                    shown.sort_unstable();
                    let expected: Vec<usize> = (0..props.len())
                        .filter(|i| !gone.contains(i))
                        .filter(|&i| !props[i].as_before(unchanged))
                        .filter(|&i| props[i].shows_at(&Bits, &state, terminal))
                        .collect();
                    proptest::prop_assert_eq!(shown, expected);
                }
            }
        }
    }
}
