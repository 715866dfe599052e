//! Mutation adequacy: plant one bug at a time in the `proposed` model and see whether some
//! property of the standard suite notices.
//!
//! 1. *Sites*: explore every scenario under the unmutated model, recording at which steps
//!    the transitions test a condition or write shared state ([`Site`]).
//! 2. *Mutants*: the step table's candidates ([`candidates`]) that have a site
//!    ([`applicable`]).
//! 3. *Kill*: a mutant is killed when, in some scenario, some property's verdict differs
//!    from the unmutated model's (a violation, or a witness no longer reached), or when the
//!    model crashes or its state space outgrows the bound.

use std::collections::{HashSet, VecDeque};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use webmcp_model::machine::{Action, WebMcpModel};
use webmcp_model::mutation::{applicable, candidates, Mutant, Site, Sites};
use webmcp_model::steps::StepId;
use webmcp_model::{Recorder, State};

use crate::driver::{check, CheckOptions, Reduction, ScenarioResult, Verdict};
use crate::limits::{Budget, StopReason};

/// Collects the sites of one transition.
#[derive(Default)]
struct SiteRecorder {
    seen: Vec<(Site, StepId)>,
}

impl Recorder for SiteRecorder {
    fn step(&mut self, _: StepId) {}
    fn site(&mut self, site: Site, step: StepId) {
        self.seen.push((site, step));
    }
}

/// Visits every transition of `model` from every reachable state, breadth-first:
/// `visit(state, action, rec)` applies the action with its own recorder and returns the
/// successor, or `None` to stop. Returns whether the walk went to the end, or the bound
/// (the process's memory limit) that stopped it.
fn walk(
    model: &WebMcpModel,
    mut visit: impl FnMut(&State, Action, &mut SiteRecorder) -> Option<State>,
) -> Result<bool, StopReason> {
    let mut budget = Budget::new(Instant::now(), None, None);
    let mut checkpoints = webmcp_checker::limits::Checkpoints::default();
    let mut seen: HashSet<State> = HashSet::new();
    let mut queue = VecDeque::new();
    let init = model.initial_state();
    seen.insert(init.clone());
    queue.push_back(init);
    let mut actions: Vec<Action> = Vec::new();
    while let Some(s) = queue.pop_front() {
        if checkpoints.due() {
            if let Some(stop) = budget.exceeded() {
                return Err(stop);
            }
        }
        actions.clear();
        model.enabled_actions(&s, &mut actions);
        for a in &actions {
            let Some(next) = visit(&s, *a, &mut SiteRecorder::default()) else {
                return Ok(false);
            };
            if seen.insert(next.clone()) {
                queue.push_back(next);
            }
        }
    }
    Ok(true)
}

/// Every site the model reaches in `model`'s scenario, or the bound that stopped the walk.
pub fn sites(model: &WebMcpModel, into: &mut Sites) -> Result<(), StopReason> {
    walk(model, |s, a, rec| {
        let next = model.apply(s, a, rec);
        into.seen.extend(rec.seen.drain(..));
        Some(next)
    })
    .map(|_| ())
}

/// How a mutant fared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    /// A property's verdict changed in `scenario`.
    Killed { scenario: String, property: String },
    /// The model panicked in `scenario` (a crash is a detection).
    Crashed { scenario: String, message: String },
    /// The state space of `scenario` outgrew the bound.
    Exploded { scenario: String },
    /// A bound of the run (its memory limit, not the mutant's state bound) stopped the check
    /// of `scenario` before the mutant was judged: undecided.
    Stopped { scenario: String, stop: StopReason },
    /// Every transition from every reachable state gives the unmutated successor: the
    /// mutant cannot be told apart on the suite, so no property could kill it.
    Equivalent,
    /// Every scenario gave the unmutated verdicts, yet some transition differs.
    Survived,
}

impl Fate {
    pub fn is_killed(&self) -> bool {
        !matches!(
            self,
            Fate::Survived | Fate::Equivalent | Fate::Stopped { .. }
        )
    }
}

/// A check the mutants need was stopped by a bound (the memory limit), so no mutant can be
/// judged against it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stopped {
    pub scenario: String,
    pub stop: StopReason,
    /// What was being done: "the unmutated check", "the walk that finds sites".
    pub during: &'static str,
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} was not exhaustive: stopped by {}",
            self.scenario, self.during, self.stop
        )
    }
}

impl std::error::Error for Stopped {}

/// Whether `mutant` gives the unmutated successor for every action enabled in every state
/// `model` reaches. Enabledness does not depend on the mutant, so then the mutated model
/// reaches exactly the same states.
pub fn same_transitions(model: &WebMcpModel, mutant: Mutant) -> bool {
    try_same_transitions(model, mutant) == Ok(true)
}

/// [`same_transitions`], or the bound that stopped the walk before it could tell.
pub fn try_same_transitions(model: &WebMcpModel, mutant: Mutant) -> Result<bool, StopReason> {
    let mutated = model.clone().with_mutant(mutant);
    walk(model, |s, a, _| {
        let next = model.apply(s, a, &mut ());
        let other = catch_unwind(AssertUnwindSafe(|| mutated.apply(s, a, &mut ())));
        (other.ok().as_ref() == Some(&next)).then_some(next)
    })
}

/// The verdicts of the unmutated model, per scenario, that mutants are compared with.
pub struct Baseline {
    pub models: Vec<WebMcpModel>,
    pub results: Vec<ScenarioResult>,
    /// The reduction of every check, unmutated and mutated.
    pub reduction: Reduction,
}

impl Baseline {
    /// Checks every model unmutated; scenarios are tried smallest first afterwards.
    pub fn new(models: Vec<WebMcpModel>) -> Result<Baseline, Stopped> {
        Baseline::reduced(models, Reduction::None)
    }

    /// [`Baseline::new`], every check (unmutated and mutated) searched with `reduction`.
    pub fn reduced(
        mut models: Vec<WebMcpModel>,
        reduction: Reduction,
    ) -> Result<Baseline, Stopped> {
        let mut results: Vec<ScenarioResult> = models
            .iter()
            .map(|m| check(m.clone(), &one_thread(None, reduction)))
            .collect();
        if let Some(r) = results.iter().find(|r| !r.exhaustive || r.is_incomplete()) {
            return Err(Stopped {
                scenario: r.scenario.clone(),
                stop: r
                    .stopped_by
                    .clone()
                    .expect("a check that is not exhaustive names its stop"),
                during: "the unmutated check",
            });
        }
        let mut order: Vec<usize> = (0..models.len()).collect();
        order.sort_by_key(|&i| (results[i].unique_states, results[i].scenario.clone()));
        let mut sorted_models = Vec::new();
        let mut sorted_results = Vec::new();
        for i in order {
            sorted_models.push(models[i].clone());
            sorted_results.push(results[i].clone());
        }
        models.clear();
        results.clear();
        Ok(Baseline {
            models: sorted_models,
            results: sorted_results,
            reduction,
        })
    }

    /// The mutants of the step table that have a site in some scenario.
    pub fn mutants(&self) -> Result<(Vec<Mutant>, Sites), Stopped> {
        let mut s = Sites::default();
        for m in &self.models {
            sites(m, &mut s).map_err(|stop| Stopped {
                scenario: m.world.name.clone(),
                stop,
                during: "the walk that finds sites",
            })?;
        }
        let list = candidates()
            .into_iter()
            .filter(|m| applicable(m, &s))
            .collect();
        Ok((list, s))
    }

    /// Runs `mutant` on the scenarios, smallest first, until one kills it. A scenario's search
    /// may generate `bound` times the states its unmutated search generated before the
    /// mutant counts as exploded.
    pub fn judge(&self, mutant: Mutant, bound: usize) -> Fate {
        for (model, base) in self.models.iter().zip(&self.results) {
            let mutated = model.clone().with_mutant(mutant);
            // In the unit `max_states` counts: states generated, duplicates included (the
            // unmutated search generates two to four times the states it keeps).
            let limit = base.total_states.saturating_mul(bound).max(10_000);
            let run = catch_unwind(AssertUnwindSafe(|| {
                check(mutated, &one_thread(Some(limit), self.reduction))
            }));
            let scenario = base.scenario.clone();
            let result = match run {
                Ok(r) => r,
                Err(panic) => {
                    let message = panic
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "panic".into());
                    return Fate::Crashed { scenario, message };
                }
            };
            if let Some(p) = differing(base, &result) {
                return Fate::Killed {
                    scenario,
                    property: p.to_string(),
                };
            }
            match result.stopped_by {
                None => {}
                Some(StopReason::MaxStates { .. }) => return Fate::Exploded { scenario },
                Some(stop) => return Fate::Stopped { scenario, stop },
            }
        }
        for model in &self.models {
            match try_same_transitions(model, mutant) {
                Ok(true) => {}
                Ok(false) => return Fate::Survived,
                Err(stop) => {
                    return Fate::Stopped {
                        scenario: model.world.name.clone(),
                        stop,
                    }
                }
            }
        }
        Fate::Equivalent
    }
}

fn one_thread(max_states: Option<usize>, reduction: Reduction) -> CheckOptions {
    CheckOptions {
        threads: 1,
        max_states,
        reduction,
        ..CheckOptions::default()
    }
}

/// The first property (catalogue order) whose decided verdict differs.
fn differing(base: &ScenarioResult, result: &ScenarioResult) -> Option<&'static str> {
    base.properties
        .iter()
        .zip(&result.properties)
        .find(|(b, r)| r.verdict != Verdict::Incomplete && b.verdict != r.verdict)
        .map(|(b, _)| b.def.name)
}
