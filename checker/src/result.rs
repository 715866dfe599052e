//! What a search found, and the verdicts drawn from it.

use crate::limits::StopReason;
use crate::model::Model;
use crate::path::Path;
use crate::phases::PhaseTimes;
use crate::property::Expectation;

/// What a search found, before verdicts are drawn.
pub struct Exploration<M: Model> {
    /// States generated (every successor computed, repeats included).
    pub total_states: usize,
    /// Distinct states (by fingerprint, or by class under symmetry reduction).
    pub unique_states: usize,
    /// The deepest state reached; the initial states are depth 1.
    pub max_depth: usize,
    /// Why the search stopped early; `None` when it was exhaustive (or every property was
    /// decided, after which nothing left out could change a verdict).
    pub stopped_by: Option<StopReason>,
    /// Per property, in the order given: the path to the first state found that shows its
    /// outcome (a counterexample, or a witness).
    pub discoveries: Vec<Option<Path<M::State, M::Action>>>,
    /// Where the search's time went, when it was timed ([`crate::Options::time_phases`]).
    pub phases: Option<PhaseTimes>,
}

impl<M: Model> Exploration<M> {
    /// Whether every reachable state was explored (or every property decided).
    pub fn exhaustive(&self) -> bool {
        self.stopped_by.is_none()
    }

    /// What a parallel search reports when the OS would refuse its `threads` threads
    /// ([`crate::limits::can_start_threads`]): `None` when they can start.
    pub(crate) fn unless_threads_start(properties: usize, threads: usize) -> Option<Self> {
        let refused = crate::limits::can_start_threads(threads).err()?;
        Some(Exploration::stopped(
            properties,
            StopReason::ThreadSpawn {
                threads,
                reason: refused.to_string(),
            },
        ))
    }

    /// An exploration that did not start.
    pub(crate) fn stopped(properties: usize, stop: StopReason) -> Self {
        Exploration {
            total_states: 0,
            unique_states: 0,
            max_depth: 0,
            stopped_by: Some(stop),
            discoveries: (0..properties).map(|_| None).collect(),
            phases: None,
        }
    }
}

/// What was decided about one property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Always / at-termination: no reachable state violates it.
    Holds,
    /// A counterexample was found.
    Violated,
    /// Sometimes: an example was found.
    Witnessed,
    /// Sometimes: exploration was exhaustive and found no example.
    NotWitnessed,
    /// A bound stopped exploration before the property was decided.
    Incomplete,
}

impl Verdict {
    /// The verdict on a property of this expectation: `found` tells whether a state showing
    /// its outcome was found, `exhaustive` whether the search covered every reachable state.
    /// An undecided property is never reported as holding.
    pub fn of(expectation: Expectation, found: bool, exhaustive: bool) -> Verdict {
        match (expectation, found, exhaustive) {
            (Expectation::Sometimes, true, _) => Verdict::Witnessed,
            (Expectation::Sometimes, false, true) => Verdict::NotWitnessed,
            (_, true, _) => Verdict::Violated,
            (_, false, true) => Verdict::Holds,
            (_, false, false) => Verdict::Incomplete,
        }
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Holds => "hold",
            Verdict::Violated => "violated",
            Verdict::Witnessed => "witnessed",
            Verdict::NotWitnessed => "not witnessed",
            Verdict::Incomplete => "incomplete",
        }
    }
}
