//! Minimising a trace: delta debugging (Zeller's ddmin) over its action list, every candidate
//! re-checked by replaying it (a candidate with an action that is not enabled where it is
//! taken is skipped), then a bounded breadth-first search that either finds a shorter run or
//! proves none exists.

use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};

use webmcp_model::machine::{Action, WebMcpModel};
use webmcp_model::state::State;
use webmcp_profiles::PropertyDef;

use crate::reader::Loaded;
use crate::replay::first_showing;
use crate::trace::Trace;

/// Minimises a counterexample the checker found: records `actions` as a trace described by
/// `meta` (which must name the violated property `def`) and returns the minimised trace.
pub fn minimize_counterexample(
    model: &WebMcpModel,
    def: PropertyDef,
    meta: crate::trace::Meta,
    actions: &[Action],
) -> Result<Trace, MinimizeError> {
    let trace =
        Trace::record(model, meta, actions).map_err(MinimizeError::CounterexampleNotEnabled)?;
    let loaded = Loaded {
        trace,
        model: model.clone(),
        property: Some(def),
    };
    Ok(minimize(&loaded)?.trace)
}

/// How many distinct states the final breadth-first search may visit.
pub const BFS_BUDGET: usize = 300_000;

/// The result of minimising one trace.
#[derive(Clone, Debug)]
pub struct Minimized {
    /// Actions in the input trace, and in the result.
    pub before: usize,
    pub after: usize,
    /// Actions left by delta debugging alone (before the breadth-first search).
    pub after_ddmin: usize,
    /// Candidates replayed by delta debugging.
    pub candidates: usize,
    /// Whether no shorter run shows the outcome (proved by exhaustive search up to the
    /// result's length), or the search budget ran out first.
    pub proved_shortest: bool,
    pub trace: Trace,
}

/// Why a trace cannot be minimised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MinimizeError {
    /// A plain run: no property, so no outcome to preserve.
    NoProperty,
    /// The run does not show the recorded outcome of the property.
    NoOutcome { property: String },
    /// An action is not enabled where the trace takes it.
    NotEnabled,
    /// The minimised run did not record (a bug).
    Internal(usize),
    /// Action `k` of a counterexample the checker found is not enabled where it is taken
    /// (a bug).
    CounterexampleNotEnabled(usize),
}

impl std::fmt::Display for MinimizeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MinimizeError::NoProperty => {
                f.write_str("the trace names no property, so there is nothing to preserve")
            }
            MinimizeError::NoOutcome { property } => write!(
                f,
                "the trace does not show its verdict on {property}: replay it to see why"
            ),
            MinimizeError::NotEnabled => {
                f.write_str("an action of the trace is not enabled: replay it to see where")
            }
            MinimizeError::Internal(i) => {
                write!(f, "internal: minimised action {i} is not enabled")
            }
            MinimizeError::CounterexampleNotEnabled(k) => {
                write!(f, "internal: action {k} of a counterexample is not enabled")
            }
        }
    }
}

impl std::error::Error for MinimizeError {}

/// Minimises a trace that names a property and shows its recorded verdict.
pub fn minimize(l: &Loaded) -> Result<Minimized, MinimizeError> {
    let def = l.property.ok_or(MinimizeError::NoProperty)?;
    let model = &l.model;
    let before = l.trace.actions.len();
    let mut cur: Vec<Action> = match first_showing(model, &def, &l.trace.actions) {
        Some(Some(k)) => l.trace.actions[..k].to_vec(),
        Some(None) => {
            return Err(MinimizeError::NoOutcome {
                property: def.name.to_string(),
            })
        }
        None => return Err(MinimizeError::NotEnabled),
    };
    let mut candidates = 0usize;
    let mut test = |c: &[Action]| -> Option<usize> {
        candidates += 1;
        first_showing(model, &def, c).flatten()
    };
    let mut n = 2usize;
    while cur.len() >= 2 {
        let chunks = split(&cur, n);
        let mut reduced = false;
        for chunk in &chunks {
            if let Some(k) = test(chunk) {
                cur = chunk[..k].to_vec();
                n = 2;
                reduced = true;
                break;
            }
        }
        if !reduced && chunks.len() > 2 {
            for i in 0..chunks.len() {
                let complement: Vec<Action> = chunks
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .flat_map(|(_, c)| c.iter().copied())
                    .collect();
                if let Some(k) = test(&complement) {
                    cur = complement[..k].to_vec();
                    n = (n - 1).max(2);
                    reduced = true;
                    break;
                }
            }
        }
        if !reduced {
            if n >= cur.len() {
                break;
            }
            n = (2 * n).min(cur.len());
        }
    }
    let after_ddmin = cur.len();
    let (shorter, proved_shortest) = shortest_below(model, &def, cur.len());
    if let Some(path) = shorter {
        cur = path;
    }
    let trace =
        Trace::record(model, l.trace.meta.clone(), &cur).map_err(MinimizeError::Internal)?;
    Ok(Minimized {
        before,
        after: cur.len(),
        after_ddmin,
        candidates,
        proved_shortest,
        trace,
    })
}

/// `cur` in `n` contiguous chunks of near-equal size (fewer when it is shorter).
fn split(cur: &[Action], n: usize) -> Vec<Vec<Action>> {
    let n = n.min(cur.len()).max(1);
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for i in 0..n {
        let end = start + (cur.len() - start) / (n - i);
        out.push(cur[start..end].to_vec());
        start = end;
    }
    out
}

fn fingerprint(s: &State) -> u64 {
    let mut h = DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// Breadth-first search for a run of fewer than `len` actions that shows `def`'s outcome.
/// Returns the shortest such run if there is one, and whether the search was exhaustive.
fn shortest_below(
    model: &WebMcpModel,
    def: &PropertyDef,
    len: usize,
) -> (Option<Vec<Action>>, bool) {
    let init = model.initial_state();
    let mut parents: HashMap<u64, Option<(u64, Action)>> = HashMap::new();
    let fp0 = fingerprint(&init);
    parents.insert(fp0, None);
    let mut queue = VecDeque::from([(init, fp0, 0usize)]);
    let mut actions = Vec::new();
    while let Some((s, fp, depth)) = queue.pop_front() {
        if def.shows(model, &s) {
            let mut path = Vec::new();
            let mut cur = fp;
            while let Some(Some((parent, a))) = parents.get(&cur) {
                path.push(*a);
                cur = *parent;
            }
            path.reverse();
            return (Some(path), true);
        }
        if depth + 1 >= len {
            continue;
        }
        actions.clear();
        model.enabled_actions(&s, &mut actions);
        for &a in &actions {
            let next = model.apply(&s, a, &mut ());
            let nfp = fingerprint(&next);
            if let std::collections::hash_map::Entry::Vacant(e) = parents.entry(nfp) {
                e.insert(Some((fp, a)));
                queue.push_back((next, nfp, depth + 1));
            }
        }
        if parents.len() > BFS_BUDGET {
            return (None, false);
        }
    }
    (None, true)
}
