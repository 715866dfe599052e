//! Spec-step coverage: how many transitions of the scenario suite executed each step ID of
//! `spec/webmcp-algorithms.md`, and why the steps never executed are not.
//!
//! The step list is [`STEPS`], the one table that `model/tests/step_table.rs` checks against
//! the spec file. A transition is one `(state, action)` pair of a scenario's reachable state
//! graph; a step counts once per transition that executes it, however often it runs there.

use std::collections::{HashSet, VecDeque};
use std::fmt::Write;

use serde_json::{json, Value};
use webmcp_model::machine::{Action, WebMcpModel};
use webmcp_model::state::State;
use webmcp_model::steps::{StepId, StepKind, STEPS};
use webmcp_model::variant::Revision;

use crate::limits::{Budget, StopReason};

/// Executable step IDs that no scenario can reach, each with the reason, for a spec editor.
///
/// `profiles/tests/coverage.rs` checks that every entry is an executable step of the table
/// and is indeed never executed, so the list shrinks when the model changes; and that every
/// other executable step is executed by some scenario.
///
/// Note what is *not* here: a step whose test can never fail is still executed (the check
/// runs), so it is reached. `register-tool#17.2` (the same check as `#13`, nothing in
/// between), `execute-tool#7` (an assert `#5` guarantees), `imperative-execute-steps#2`
/// (parsing JSON text `execute-tool#10` made never fails) and the fully-active checks of
/// `register-tool#3`, `get-tools#3`, `execute-tool#2` (a script only runs in a fully active
/// document) all run in every scenario that gets that far; only their failure branches are
/// dead, and those have no step ID of their own. Declarative tools
/// (`synthesize-declarative-json-schema#1`, `declarative-execute-steps.issue`) are TODO and
/// ISSUE rows, which are not executable.
pub const UNREACHABLE_BY_CONSTRUCTION: &[(&str, &str)] = &[];

/// Why an executable step was never executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unreached {
    /// No scenario can reach it; the reason, from [`UNREACHABLE_BY_CONSTRUCTION`].
    ByConstruction(&'static str),
    /// No scenario of the suite reaches it: a scenario should be added.
    NotExercised,
}

/// The coverage of one scenario.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScenarioCoverage {
    /// Per step (indexed by `StepId.0`), the number of transitions that executed it.
    pub per_step: Vec<u64>,
    /// Transitions explored: `(state, action)` pairs of the reachable graph.
    pub transitions: u64,
    /// Unique reachable states, the initial state included.
    pub states: u64,
    /// The bound (the process's memory limit) that stopped the exploration early, if one did:
    /// the counts are then a lower bound.
    pub stopped_by: Option<StopReason>,
}

/// Explores every reachable state of `model` breadth-first and counts, per step, the
/// transitions that executed it.
pub fn explore_coverage(model: &WebMcpModel) -> ScenarioCoverage {
    let mut per_step = vec![0u64; STEPS.len()];
    // The number of the transition that last counted each step (they start at 1).
    let mut seen = vec![0u64; STEPS.len()];
    let mut transition = 0u64;
    let explored = explore_transitions(model, &mut |_, steps| {
        transition += 1;
        for step in steps {
            let i = step.0 as usize;
            if seen[i] != transition {
                seen[i] = transition;
                per_step[i] += 1;
            }
        }
    });
    ScenarioCoverage {
        per_step,
        transitions: explored.transitions,
        states: explored.states,
        stopped_by: explored.stopped_by,
    }
}

/// What [`explore_transitions`] went through.
pub(crate) struct Explored {
    pub states: u64,
    pub transitions: u64,
    /// The bound (the process's memory limit) that stopped it early, if one did.
    pub stopped_by: Option<StopReason>,
}

/// Every transition of `model`'s reachable graph, breadth-first on one thread, bounded only
/// by the process's memory limit: `visit` sees each successor state and the step IDs its
/// transition executed (in order, with repeats).
pub(crate) fn explore_transitions(
    model: &WebMcpModel,
    visit: &mut dyn FnMut(&State, &[StepId]),
) -> Explored {
    explore_transitions_within(
        model,
        Budget::new(std::time::Instant::now(), None, None),
        visit,
    )
}

/// [`explore_transitions`], stopped by `budget` (its clock and memory limit).
pub(crate) fn explore_transitions_within(
    model: &WebMcpModel,
    mut budget: Budget,
    visit: &mut dyn FnMut(&State, &[StepId]),
) -> Explored {
    let init = model.initial_state();
    let mut visited: HashSet<State> = HashSet::new();
    let mut queue: VecDeque<State> = VecDeque::new();
    visited.insert(init.clone());
    queue.push_back(init);
    let mut actions: Vec<Action> = Vec::new();
    let mut steps: Vec<StepId> = Vec::new();
    let mut stopped_by = None;
    let mut checkpoints = webmcp_checker::limits::Checkpoints::default();
    let mut transitions = 0u64;
    while let Some(state) = queue.pop_front() {
        if checkpoints.due() {
            stopped_by = budget.exceeded();
            if stopped_by.is_some() {
                break;
            }
        }
        actions.clear();
        model.enabled_actions(&state, &mut actions);
        for &action in &actions {
            transitions += 1;
            steps.clear();
            let next = model.apply(&state, action, &mut steps);
            visit(&next, &steps);
            if !visited.contains(&next) {
                visited.insert(next.clone());
                queue.push_back(next);
            }
        }
    }
    Explored {
        states: visited.len() as u64,
        transitions,
        stopped_by,
    }
}

/// The coverage of a suite of scenarios.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Per step (indexed by `StepId.0`), the transitions of all scenarios that executed it.
    pub per_step: Vec<u64>,
    /// The text explored: under the current one, the rows of steps it removed
    /// (`2026-08:register-tool#4`) are not its steps, so they are not counted as gaps.
    pub revision: Revision,
    /// Each scenario's name and coverage, in the order given.
    pub scenarios: Vec<(String, ScenarioCoverage)>,
}

impl Coverage {
    /// Explores every model (in parallel, one scenario per thread) and sums the counts.
    pub fn of(models: &[WebMcpModel]) -> Coverage {
        let workers = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        let scenarios = crate::parallel::map(models, workers, |model| {
            (model.world.name.clone(), explore_coverage(model))
        });
        let revision = models
            .first()
            .map(|m| m.variant.revision())
            .unwrap_or_default();
        Coverage::from_scenarios(scenarios, revision)
    }

    /// The scenarios whose exploration a bound stopped, with the bound.
    pub fn stopped(&self) -> impl Iterator<Item = (&str, &StopReason)> {
        self.scenarios
            .iter()
            .filter_map(|(name, c)| c.stopped_by.as_ref().map(|s| (name.as_str(), s)))
    }

    /// Why a step no scenario reached is unreached: the suite lacks a scenario for it, or,
    /// when a bound stopped some scenario, perhaps only the bound.
    fn not_exercised_reason(&self) -> &'static str {
        if self.stopped().next().is_some() {
            "no scenario reached it before a bound stopped some of them: it may be reachable"
        } else {
            "no scenario reaches it: add a scenario"
        }
    }

    /// Sums per-scenario coverages.
    pub fn from_scenarios(
        scenarios: Vec<(String, ScenarioCoverage)>,
        revision: Revision,
    ) -> Coverage {
        let mut per_step = vec![0u64; STEPS.len()];
        for (_, c) in &scenarios {
            for (total, n) in per_step.iter_mut().zip(&c.per_step) {
                *total += n;
            }
        }
        Coverage {
            per_step,
            revision,
            scenarios,
        }
    }

    /// How many transitions executed `step`.
    pub fn count(&self, step: StepId) -> u64 {
        self.per_step.get(step.0 as usize).copied().unwrap_or(0)
    }

    /// The names of the scenarios that executed `step`.
    pub fn scenarios_reaching(&self, step: StepId) -> Vec<&str> {
        self.scenarios
            .iter()
            .filter(|(_, c)| c.per_step.get(step.0 as usize).is_some_and(|n| *n > 0))
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// The executable steps (steps and asserts) of the text explored, in table order.
    pub fn steps(&self) -> impl Iterator<Item = StepId> + '_ {
        executable_steps().filter(|s| self.counts(*s))
    }

    /// Whether `step` is an executable step of the text explored: not a step an earlier
    /// text had (`2026-08:...`) under the current text, nor one the current text added under
    /// an earlier text ([`webmcp_model::variant::RevisionInfo::absent`]).
    fn counts(&self, step: StepId) -> bool {
        step.info().kind.is_executable()
            && (step.removed_since().is_none() || self.revision != Revision::Current)
            && !self.revision.info().absent.contains(&step.id())
    }

    /// The number of executable steps of the text explored.
    pub fn executable(&self) -> usize {
        self.steps().count()
    }

    /// The number of executable steps executed at least once.
    pub fn reached(&self) -> usize {
        self.steps().filter(|s| self.count(*s) > 0).count()
    }

    /// Transitions explored, over all scenarios.
    pub fn transitions(&self) -> u64 {
        self.scenarios.iter().map(|(_, c)| c.transitions).sum()
    }

    /// Unique states explored, summed over scenarios.
    pub fn states(&self) -> u64 {
        self.scenarios.iter().map(|(_, c)| c.states).sum()
    }

    /// The executable steps never executed, in table order, each classified.
    pub fn unreached(&self) -> Vec<(StepId, Unreached)> {
        self.steps()
            .filter(|s| self.count(*s) == 0)
            .map(|s| (s, classify(s)))
            .collect()
    }

    /// The summary line: "N of M executable steps reached".
    pub fn summary(&self) -> String {
        format!(
            "{} of {} executable steps reached",
            self.reached(),
            self.executable()
        )
    }

    /// Plain text: every step in table order with kind and count, then the unreached
    /// executable steps, then the summary line.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        let width = STEPS.iter().map(|s| s.id.len()).max().unwrap_or(0);
        let _ = writeln!(
            out,
            "Spec-step coverage over {} scenarios ({} states, {} transitions)",
            self.scenarios.len(),
            self.states(),
            self.transitions()
        );
        for (name, stop) in self.stopped() {
            let _ = writeln!(
                out,
                "INCOMPLETE: {name}: stopped by {stop}; its counts are a lower bound"
            );
        }
        let _ = writeln!(out);
        for (i, info) in STEPS.iter().enumerate() {
            let id = StepId(i as u16);
            let count = if self.counts(id) {
                self.count(id).to_string()
            } else {
                "-".to_string()
            };
            let _ = writeln!(
                out,
                "{:<width$}  {:<7}  {:>10}",
                info.id,
                kind_name(info.kind),
                count
            );
        }
        let unreached = self.unreached();
        let _ = writeln!(out);
        if unreached.is_empty() {
            let _ = writeln!(out, "Every executable step is reached.");
        } else {
            let _ = writeln!(out, "Executable steps never reached:");
            for (step, why) in &unreached {
                match why {
                    Unreached::ByConstruction(reason) => {
                        let _ = writeln!(out, "  {step}: unreachable by construction: {reason}");
                    }
                    Unreached::NotExercised => {
                        let _ = writeln!(
                            out,
                            "  {step}: not exercised: {}",
                            self.not_exercised_reason()
                        );
                    }
                }
            }
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", self.summary());
        out
    }

    /// Markdown: a table of every step, then the unreached executable steps, then the
    /// summary line.
    pub fn render_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# Spec-step coverage");
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{} scenarios, {} states, {} transitions. A count is the number of transitions \
             that executed the step; prose rows (notes, issues, examples, items, TODOs) are \
             not executable and show `-`.",
            self.scenarios.len(),
            self.states(),
            self.transitions()
        );
        for (name, stop) in self.stopped() {
            let _ = writeln!(
                out,
                "\n**INCOMPLETE**: {name}: stopped by {stop}; its counts are a lower bound."
            );
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "| Step | Kind | Transitions |");
        let _ = writeln!(out, "|---|---|---:|");
        for (i, info) in STEPS.iter().enumerate() {
            let id = StepId(i as u16);
            let count = if self.counts(id) {
                self.count(id).to_string()
            } else {
                "-".to_string()
            };
            let _ = writeln!(
                out,
                "| `{}` | {} | {} |",
                info.id,
                kind_name(info.kind),
                count
            );
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "## Executable steps never reached");
        let _ = writeln!(out);
        let unreached = self.unreached();
        if unreached.is_empty() {
            let _ = writeln!(out, "None: every executable step is reached.");
        } else {
            let _ = writeln!(out, "| Step | Classification | Why |");
            let _ = writeln!(out, "|---|---|---|");
            for (step, why) in &unreached {
                let (class, reason) = match why {
                    Unreached::ByConstruction(r) => ("unreachable by construction", *r),
                    Unreached::NotExercised => ("not exercised", self.not_exercised_reason()),
                };
                let _ = writeln!(
                    out,
                    "| `{step}` | {class} | {} |",
                    reason.replace('|', "\\|")
                );
            }
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "{}.", self.summary());
        out
    }

    /// JSON: `steps` (every row in table order: id, kind, executable, transitions, and the
    /// scenarios that reached it), `unreached` (id, classification, reason), `scenarios`
    /// (name, states, transitions, steps reached) and `summary`.
    pub fn render_json(&self) -> Value {
        let steps: Vec<Value> = STEPS
            .iter()
            .enumerate()
            .map(|(i, info)| {
                let id = StepId(i as u16);
                if self.counts(id) {
                    json!({
                        "id": info.id,
                        "kind": kind_name(info.kind),
                        "executable": true,
                        "transitions": self.count(id),
                        "scenarios": self.scenarios_reaching(id),
                    })
                } else {
                    json!({
                        "id": info.id,
                        "kind": kind_name(info.kind),
                        "executable": false,
                    })
                }
            })
            .collect();
        let unreached: Vec<Value> = self
            .unreached()
            .into_iter()
            .map(|(step, why)| match why {
                Unreached::ByConstruction(reason) => json!({
                    "id": step.id(),
                    "classification": "unreachable-by-construction",
                    "reason": reason,
                }),
                Unreached::NotExercised => json!({
                    "id": step.id(),
                    "classification": "not-exercised",
                    "reason": self.not_exercised_reason(),
                }),
            })
            .collect();
        let scenarios: Vec<Value> = self
            .scenarios
            .iter()
            .map(|(name, c)| {
                json!({
                    "name": name,
                    "states": c.states,
                    "transitions": c.transitions,
                    "stopped_by": c.stopped_by.as_ref().map(StopReason::to_json),
                    "stepsReached": self.steps()
                        .filter(|s| c.per_step.get(s.0 as usize).is_some_and(|n| *n > 0))
                        .count(),
                })
            })
            .collect();
        json!({
            "steps": steps,
            "unreached": unreached,
            "scenarios": scenarios,
            "reached": self.reached(),
            "executable": self.executable(),
            "summary": self.summary(),
        })
    }
}

/// The executable rows of the step table (steps and asserts), in table order.
pub fn executable_steps() -> impl Iterator<Item = StepId> {
    STEPS
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind.is_executable())
        .map(|(i, _)| StepId(i as u16))
}

/// Classifies a step no scenario executed.
pub fn classify(step: StepId) -> Unreached {
    match UNREACHABLE_BY_CONSTRUCTION
        .iter()
        .find(|(id, _)| *id == step.id())
    {
        Some((_, reason)) => Unreached::ByConstruction(reason),
        None => Unreached::NotExercised,
    }
}

/// The lower-case name of a row kind, as the outputs show it.
pub fn kind_name(kind: StepKind) -> &'static str {
    match kind {
        StepKind::Step => "step",
        StepKind::Assert => "assert",
        StepKind::Item => "item",
        StepKind::Note => "note",
        StepKind::Issue => "issue",
        StepKind::Example => "example",
        StepKind::Todo => "todo",
    }
}
