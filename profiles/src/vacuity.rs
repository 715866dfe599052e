//! Vacuity: for every property of the catalogue, whether what it judges happens at all in a
//! scenario (its [`Witness`]), and which failures a page can observe and how it tells them
//! apart (the steps that reject each method's promise, and the error each rejects with).
//!
//! A property that holds because its premise is never reached says nothing; this is what
//! `docs/properties.md` shows next to each property, and what
//! `profiles/tests/vacuity.rs` requires of the standard suite under `proposed`.

use std::collections::BTreeSet;

use webmcp_model::machine::WebMcpModel;
use webmcp_model::state::{State, Status};
use webmcp_model::steps::StepId;
use webmcp_model::world::CallKind;

use crate::catalogue::Witness;
use crate::coverage::explore_transitions_within;
use crate::driver::properties;
use crate::limits::StopReason;

/// What one scenario's exploration showed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Engagement {
    /// Per catalogue property, in catalogue order: whether its witness was reached; `None`
    /// for a `Sometimes` property, whose own verdict says.
    pub witnessed: Vec<Option<bool>>,
    /// Every rejection a page can observe: the method, the step that settled the promise,
    /// and the error's name.
    pub rejections: BTreeSet<Rejection>,
    /// The bound that stopped the exploration early, if one did (then `false` means
    /// "not seen before the stop").
    pub stopped_by: Option<StopReason>,
}

/// A rejection a page observes: which method, which step settled it, with which error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rejection {
    pub method: &'static str,
    pub step: StepId,
    pub error: &'static str,
}

fn method(kind: CallKind) -> &'static str {
    match kind {
        CallKind::Register => "registerTool",
        CallKind::GetTools => "getTools",
        CallKind::Execute => "executeTool",
    }
}

/// Explores every reachable state of `model` breadth-first, evaluating each property's
/// witness on every state (and, for [`Witness::StepRuns`], on every transition).
pub fn engagement(model: &WebMcpModel) -> Engagement {
    engagement_within(model, None)
}

/// [`engagement`], stopped after `timeout` (and at the process's memory limit).
pub fn engagement_within(model: &WebMcpModel, timeout: Option<std::time::Duration>) -> Engagement {
    let defs = properties();
    let mut witnessed: Vec<Option<bool>> = defs
        .iter()
        .map(|d| match d.witness {
            Witness::Itself => None,
            _ => Some(false),
        })
        .collect();
    let mut rejections = BTreeSet::new();
    let w = model.world.as_ref();
    let mut look = |s: &State, steps: &[StepId], witnessed: &mut Vec<Option<bool>>| {
        for (i, d) in defs.iter().enumerate() {
            if witnessed[i] != Some(false) {
                continue;
            }
            let seen = match d.witness {
                Witness::Itself => false,
                Witness::StepRuns => d
                    .about
                    .iter()
                    .any(|a| steps.contains(&webmcp_model::steps::step(a))),
                Witness::State { holds, .. } => holds(model, s),
            };
            if seen {
                witnessed[i] = Some(true);
            }
        }
        for (i, c) in w.calls.iter().enumerate() {
            let p = &s.promises[i];
            if let (Status::Rejected(reason), Some(step)) = (&p.status, p.settled_at) {
                rejections.insert(Rejection {
                    method: method(c.kind),
                    step,
                    error: reason.name(),
                });
            }
        }
    };
    look(&model.initial_state(), &[], &mut witnessed);
    let budget = crate::limits::Budget::new(std::time::Instant::now(), timeout, None);
    let explored = explore_transitions_within(model, budget, &mut |next, steps| {
        look(next, steps, &mut witnessed)
    });
    Engagement {
        witnessed,
        rejections,
        stopped_by: explored.stopped_by,
    }
}

/// The properties `result` says hold whose witness no state or step of the scenario shows
/// (`check --vacuity`): they hold because what they judge never happens. The bound that
/// stopped the search for witnesses, when one did (undecided).
pub fn vacuous_holds(
    model: &WebMcpModel,
    result: &crate::ScenarioResult,
    timeout: Option<std::time::Duration>,
) -> Result<Vec<&'static str>, StopReason> {
    let e = engagement_within(model, timeout);
    if let Some(stop) = e.stopped_by {
        return Err(stop);
    }
    assert_eq!(
        e.witnessed.len(),
        result.properties.len(),
        "a result judges every property of the catalogue"
    );
    Ok(result
        .properties
        .iter()
        .zip(&e.witnessed)
        .filter(|(p, seen)| p.verdict == crate::Verdict::Holds && **seen == Some(false))
        .map(|(p, _)| p.def.name)
        .collect())
}
