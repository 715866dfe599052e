//! Mutation operators: planted bugs that the property suite must catch.
//!
//! A [`Mutant`] changes the model at one step of the draft. Transitions report their
//! *mutation sites* to the [`Recorder`](crate::cx::Recorder): each condition an `If` step
//! tests ([`Site::Condition`]) and each write to shared state a step performs
//! ([`Site::Effect`], [`Site::Queue`], [`Site::AbortSteps`]). The mutants are the step table
//! ([`STEPS`]) crossed with the operators, kept where the model has a site of the right
//! kind (see [`applicable`]); no mutant is listed by hand.

use crate::steps::{StepId, StepKind, STEPS};

/// What a transition can report as mutable at a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Site {
    /// The condition of an `If` step: `true` when its guarded branch runs.
    Condition,
    /// A write to shared state (a map, a promise, a thread, a signal, a tool body).
    Effect,
    /// Queueing a global task.
    Queue,
    /// Adding abort steps to a signal.
    AbortSteps,
}

/// A mutation operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operator {
    /// An `If ... exists` / `does not exist` / `is null` guard never fires.
    DropExistenceCheck,
    /// An `If` condition is negated.
    NegateCondition,
    /// A step's writes are not performed.
    DropStep,
    /// A step's writes happen after those of the next sibling step.
    SwapAdjacent,
    /// A queued task runs at once, inside the queuing step.
    RunQueuedTaskInline,
    /// Abort steps are not added to the signal.
    SkipAbortStepsRegistration,
}

impl Operator {
    pub const ALL: [Operator; 6] = [
        Operator::DropExistenceCheck,
        Operator::NegateCondition,
        Operator::DropStep,
        Operator::SwapAdjacent,
        Operator::RunQueuedTaskInline,
        Operator::SkipAbortStepsRegistration,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Operator::DropExistenceCheck => "drop-existence-check",
            Operator::NegateCondition => "negate-condition",
            Operator::DropStep => "drop-step",
            Operator::SwapAdjacent => "swap-adjacent",
            Operator::RunQueuedTaskInline => "run-queued-task-inline",
            Operator::SkipAbortStepsRegistration => "skip-abort-steps-registration",
        }
    }

    /// The operator [`Operator::name`] names.
    pub fn parse(name: &str) -> Option<Operator> {
        Operator::ALL.into_iter().find(|o| o.name() == name)
    }
}

/// One planted bug: `op` applied at `step` (and, for a swap, the sibling after it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mutant {
    pub op: Operator,
    pub step: StepId,
    /// The step swapped with `step` ([`Operator::SwapAdjacent`] only).
    pub next: Option<StepId>,
}

impl Mutant {
    /// `negate-condition@execute-tool#16.7`, `swap-adjacent@execute-tool#15.4.1,#15.4.2`.
    pub fn name(&self) -> String {
        match self.next {
            Some(b) => format!(
                "{}@{},{}",
                self.op.name(),
                self.step.id(),
                &b.id()[self.step.algorithm().len()..]
            ),
            None => format!("{}@{}", self.op.name(), self.step.id()),
        }
    }

    /// Parses what [`Mutant::name`] writes.
    pub fn parse(text: &str) -> Option<Mutant> {
        let (op, at) = text.split_once('@')?;
        let op = Operator::parse(op)?;
        let (a, b) = match at.split_once(',') {
            Some((a, rest)) => {
                let step = StepId::parse(a)?;
                (
                    step,
                    Some(StepId::parse(&format!("{}{rest}", step.algorithm()))?),
                )
            }
            None => (StepId::parse(at)?, None),
        };
        let m = Mutant {
            op,
            step: a,
            next: b,
        };
        candidates().contains(&m).then_some(m)
    }
}

fn summary_of(s: StepId) -> &'static str {
    s.info().summary
}

fn is_condition(s: StepId) -> bool {
    let text = summary_of(s);
    text.starts_with("If ") || text.starts_with("Otherwise, if ")
}

fn is_existence_check(s: StepId) -> bool {
    let text = summary_of(s);
    is_condition(s)
        && (text.contains("exist") || text.contains("contain") || text.contains("is null"))
}

/// `execute-tool#16.12` -> (`execute-tool#16`, 12).
fn parent_and_index(id: &str) -> Option<(&str, u32)> {
    let (head, last) = id.rsplit_once(['#', '.'])?;
    let n = last.parse().ok()?;
    Some((&id[..head.len() + 1], n))
}

/// The next sibling of an executable step in the table (`#16.12` -> `#16.13`).
fn next_sibling(s: StepId) -> Option<StepId> {
    let (parent, n) = parent_and_index(s.id())?;
    STEPS[s.0 as usize + 1..]
        .iter()
        .position(|r| r.kind == StepKind::Step && parent_and_index(r.id) == Some((parent, n + 1)))
        .map(|i| StepId((s.0 as usize + 1 + i) as u16))
}

/// Every mutant the step table allows, before asking the model where it has sites.
pub fn candidates() -> Vec<Mutant> {
    let mut out = Vec::new();
    for (i, row) in STEPS.iter().enumerate() {
        if row.kind != StepKind::Step {
            continue;
        }
        let step = StepId(i as u16);
        let one = |op| Mutant {
            op,
            step,
            next: None,
        };
        if is_existence_check(step) {
            out.push(one(Operator::DropExistenceCheck));
        }
        if is_condition(step) {
            out.push(one(Operator::NegateCondition));
        }
        out.push(one(Operator::DropStep));
        out.push(one(Operator::RunQueuedTaskInline));
        out.push(one(Operator::SkipAbortStepsRegistration));
        if let Some(next) = next_sibling(step) {
            out.push(Mutant {
                op: Operator::SwapAdjacent,
                step,
                next: Some(next),
            });
        }
    }
    out
}

/// The sites the model reported while exploring.
#[derive(Clone, Debug, Default)]
pub struct Sites {
    pub seen: std::collections::BTreeSet<(Site, StepId)>,
}

impl Sites {
    /// Whether `step` or one of its sub-steps writes shared state somewhere.
    fn writes_within(&self, step: StepId) -> bool {
        self.seen
            .iter()
            .any(|(site, s)| *site != Site::Condition && within(*s, step))
    }
}

/// Whether the model has a site where `m` changes something.
pub fn applicable(m: &Mutant, sites: &Sites) -> bool {
    let has = |site| sites.seen.contains(&(site, m.step));
    match m.op {
        Operator::DropExistenceCheck | Operator::NegateCondition => has(Site::Condition),
        Operator::DropStep => has(Site::Effect) || has(Site::Queue),
        Operator::RunQueuedTaskInline => has(Site::Queue),
        Operator::SkipAbortStepsRegistration => has(Site::AbortSteps),
        Operator::SwapAdjacent => m
            .next
            .is_some_and(|b| sites.writes_within(m.step) && sites.writes_within(b)),
    }
}

/// `s` is `a` or one of its sub-steps.
pub fn within(s: StepId, a: StepId) -> bool {
    let (s, a) = (s.id(), a.id());
    s == a || (s.len() > a.len() && s.starts_with(a) && s.as_bytes()[a.len()] == b'.')
}
