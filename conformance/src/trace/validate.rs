//! Whether the model allows a logged run: a search of the model's states constrained by the
//! log. Every transition's observable effects (a call made or settled, a tool body invoked or
//! settled, a `toolchange`, an abort, an iframe removed) must be the next events of their
//! documents' logs; steps with no observable effect are free. The log is allowed when some
//! path consumes all of it. Only per-document order is judged, and the events one task
//! produces in one document are matched as a set (the log's order within one task is not
//! evidence the model can check).

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use serde_json::Value as Json;
use webmcp_model::state::{State, Status, Value};
use webmcp_model::world::CallId;
use webmcp_model::{Variant, WebMcpModel, World};
use webmcp_profiles::limits::{Budget, StopReason};

use super::derive::Derived;
use super::log::{Entry, Event, Log, SignalState};

/// The most (state, position) pairs one search visits.
pub const DEFAULT_MAX_STATES: usize = 2_000_000;

/// One observable effect of a model transition, in the document that logs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Observed {
    Call(CallId),
    Settle(CallId),
    Invoke(CallId),
    BodySettle(CallId),
    Toolchange,
    Abort(String),
    Remove(String),
    Navigate(String),
}

/// The verdict of one variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// Some path of the model produces the whole log.
    Allowed { states: usize },
    /// No path does: how far the best one got.
    NotAllowed(Stuck),
    /// The search stopped at a bound before deciding.
    Incomplete {
        states: usize,
        matched: usize,
        judged: usize,
        stopped_by: StopReason,
    },
}

/// What stops one search before it decides: `--max-states` (per variant), and `--timeout`
/// and `--memory-limit` (for the whole command: the clock starts once, before both).
#[derive(Clone, Debug)]
pub struct Bounds {
    pub max_states: usize,
    pub start: Instant,
    pub timeout: Option<Duration>,
    /// `None`: the process-wide limit, if one was set.
    pub memory_mib: Option<u64>,
}

impl Bounds {
    /// Only a state bound, from now.
    pub fn states(max_states: usize) -> Bounds {
        Bounds {
            max_states,
            start: Instant::now(),
            timeout: None,
            memory_mib: None,
        }
    }
}

/// Where the model can follow the log no further.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stuck {
    pub states: usize,
    /// Events of the log the best path produced...
    pub matched: usize,
    /// ...of the events judged (all but `document` events and those not judged).
    pub judged: usize,
    /// The first event (lowest `seq`) the best path cannot produce next...
    pub first_unmatched: Option<usize>,
    /// ...and the line of the log it was read from (1-based).
    pub first_unmatched_line: Option<usize>,
    /// What the model could do instead at that point (observable effects, described).
    pub instead: Vec<String>,
}

/// The per-document sequences the search consumes: every event but `document` events and
/// those `derived` left out of the judgement.
struct Expected<'a> {
    /// Scenario document index -> its events.
    per_doc: Vec<Vec<&'a Entry>>,
    total: usize,
    /// Invocation id -> the tool its `invoke` event names.
    invoked: BTreeMap<&'a str, &'a str>,
}

fn expected<'a>(log: &'a Log, derived: &'a Derived, world: &World) -> Expected<'a> {
    let mut per_doc = vec![Vec::new(); world.docs.len()];
    let by_document = log.by_document();
    for (log_doc, name) in &derived.docs {
        let d = world.doc_named(name).expect("derived names compile");
        // Each is judged: `derive` refuses a document with more `toolchange` events than
        // the model counts, so that a prefix without them is judged instead.
        for &e in by_document.get(log_doc.as_str()).into_iter().flatten() {
            let keep = match &e.event {
                Event::Document { .. } => false,
                Event::Frame { action, .. } => *action != super::log::FrameAction::Insert,
                Event::Event { ty } => ty == "toolchange",
                Event::Note { .. } => false,
                _ => true,
            };
            if keep {
                per_doc[d.index()].push(e);
            }
        }
    }
    let total = per_doc.iter().map(Vec::len).sum();
    let invoked = log
        .entries
        .iter()
        .filter_map(|e| match &e.event {
            Event::Invoke {
                invocation, tool, ..
            } => Some((invocation.as_str(), tool.as_str())),
            _ => None,
        })
        .collect();
    Expected {
        per_doc,
        total,
        invoked,
    }
}

/// The observable effects of `s` -> `next`, per scenario document.
pub fn effects(w: &World, s: &State, next: &State) -> BTreeMap<usize, Vec<Observed>> {
    let mut out: BTreeMap<usize, Vec<Observed>> = BTreeMap::new();
    for (i, call) in w.calls.iter().enumerate() {
        let (before, after) = (&s.promises[i].status, &next.promises[i].status);
        if before == after {
            continue;
        }
        let c = CallId::nth(i);
        let doc = call.script.index();
        if *before == Status::NotCalled {
            out.entry(doc).or_default().push(Observed::Call(c));
        }
        if matches!(after, Status::Fulfilled(_) | Status::Rejected(_)) {
            out.entry(doc).or_default().push(Observed::Settle(c));
        }
    }
    for (uuid, body) in next.bodies.iter() {
        match s.bodies.get(uuid) {
            None => {
                out.entry(body.target.index())
                    .or_default()
                    .push(Observed::Invoke(*uuid));
                if body.settled {
                    out.entry(body.target.index())
                        .or_default()
                        .push(Observed::BodySettle(*uuid));
                }
            }
            Some(old) if !old.settled && body.settled => out
                .entry(body.target.index())
                .or_default()
                .push(Observed::BodySettle(*uuid)),
            Some(_) => {}
        }
    }
    for (d, ds) in next.docs.iter().enumerate() {
        for _ in s.docs[d].toolchanges..ds.toolchanges {
            out.entry(d).or_default().push(Observed::Toolchange);
        }
    }
    for (c, ctrl) in w.controllers.iter().enumerate() {
        if !s.controllers[c].aborted && next.controllers[c].aborted {
            out.entry(ctrl.owner.index())
                .or_default()
                .push(Observed::Abort(ctrl.name.clone()));
        }
    }
    for (n, nav) in w.navs.iter().enumerate() {
        if let Some(container) = nav.container {
            if s.navs[n].attached && !next.navs[n].attached {
                out.entry(container.index())
                    .or_default()
                    .push(Observed::Remove(nav.name.clone()));
            } else if next.navs[n].attached && s.navs[n].active != next.navs[n].active {
                out.entry(container.index())
                    .or_default()
                    .push(Observed::Navigate(nav.name.clone()));
            }
        }
    }
    out
}

/// Whether log event `e` is what `o` produced in state `next`.
fn matches(
    exp: &Expected,
    w: &World,
    variant: Variant,
    derived: &Derived,
    next: &State,
    o: &Observed,
    e: &Entry,
) -> bool {
    let label = |c: CallId| w.calls[c.index()].label.as_str();
    let logged_label = |call: &str| derived.calls.get(call).map(String::as_str);
    match (o, &e.event) {
        (Observed::Call(c), Event::Call { call, .. }) => logged_label(call) == Some(label(*c)),
        (
            Observed::Settle(c),
            Event::Settle {
                call,
                outcome,
                value,
                error,
            },
        ) => {
            logged_label(call) == Some(label(*c))
                && match &next.promises[c.index()].status {
                    Status::Fulfilled(v) => {
                        *outcome == super::log::Outcome::Fulfilled
                            && value.as_ref().is_some_and(|x| {
                                same_value(w, derived, v, x)
                                    || stands_for(w, derived, next, *c, v, x)
                            })
                    }
                    Status::Rejected(r) => {
                        *outcome == super::log::Outcome::Rejected
                            && error.as_deref() == Some(r.name())
                    }
                    _ => false,
                }
        }
        (
            Observed::Invoke(uuid),
            Event::Invoke {
                tool,
                input,
                signal,
                ..
            },
        ) => {
            let body = next.bodies.get(uuid).expect("invoked");
            let name = w.str(w.register_op(body.registered_by).name);
            let model_input = w
                .execute_op(*uuid)
                .input_json(variant)
                .ok()
                .map(|id| canonical(w.str(id)));
            let model_signal = if body.signal_aborted {
                SignalState::Aborted
            } else {
                SignalState::Live
            };
            name == tool
                && input.as_deref().map(canonical) == model_input
                && *signal == model_signal
        }
        (Observed::BodySettle(uuid), Event::BodySettle { invocation, .. }) => {
            // The body was derived from the log's outcome; the tool must be the same.
            let body = next.bodies.get(uuid).expect("invoked");
            let name = w.str(w.register_op(body.registered_by).name);
            exp.invoked
                .get(invocation.as_str())
                .is_some_and(|t| *t == name)
        }
        (Observed::Toolchange, Event::Event { ty }) => ty == "toolchange",
        (Observed::Abort(name), Event::Abort { controller }) => {
            derived.controllers.get(controller) == Some(name)
        }
        (
            Observed::Remove(nav),
            Event::Frame {
                frame,
                action: super::log::FrameAction::Remove,
                ..
            },
        )
        | (
            Observed::Navigate(nav),
            Event::Frame {
                frame,
                action: super::log::FrameAction::Navigate,
                ..
            },
        ) => derived.frames.get(&(e.doc.clone(), frame.clone())) == Some(nav),
        _ => false,
    }
}

/// Whether the model's result `v` of execution `c`, the "done" an environment-settled body
/// gives, stands for the logged result `logged`: the serialization of a value the log shows
/// that tool's bodies returning in a later task.
fn stands_for(
    w: &World,
    derived: &Derived,
    next: &State,
    c: CallId,
    v: &Value,
    logged: &Json,
) -> bool {
    let Value::Text(t) = v else {
        return false;
    };
    let Some(body) = next.bodies.get(&c) else {
        return false;
    };
    let tool = w.str(w.register_op(body.registered_by).name);
    w.str(*t) == "\"done\""
        && logged.as_str().is_some_and(|text| {
            derived
                .later_results
                .get(tool)
                .is_some_and(|set| set.contains(&canonical(text)))
        })
}

fn canonical(text: &str) -> String {
    serde_json::from_str::<Json>(text).map_or_else(|_| text.to_string(), |v| v.to_string())
}

fn same_value(w: &World, derived: &Derived, v: &Value, logged: &Json) -> bool {
    match v {
        Value::Undefined => logged.is_null(),
        Value::Text(t) => logged.as_str() == Some(w.str(*t)),
        Value::Tools(tools) => {
            let Some(list) = logged.as_array() else {
                return false;
            };
            list.len() == tools.len()
                && tools.iter().zip(list).all(|(t, x)| {
                    x["name"].as_str() == Some(w.str(t.name))
                        && x["origin"].as_str() == Some(w.str(t.origin))
                        && x["window"]
                            .as_str()
                            .and_then(|d| derived.docs.get(d))
                            .is_some_and(|name| *name == w.docs[t.window.index()].name)
                })
        }
    }
}

fn describe(w: &World, derived: &Derived, next: &State, doc: usize, o: &Observed) -> String {
    let log_call = |c: CallId| {
        let label = &w.calls[c.index()].label;
        derived
            .calls
            .iter()
            .find(|(_, l)| *l == label)
            .map_or(label.clone(), |(id, _)| id.clone())
    };
    let log_doc = derived
        .docs
        .iter()
        .find(|(_, n)| **n == w.docs[doc].name)
        .map_or(w.docs[doc].name.clone(), |(id, _)| id.clone());
    let what = match o {
        Observed::Call(c) => format!("call {}", log_call(*c)),
        Observed::Settle(c) => match &next.promises[c.index()].status {
            Status::Fulfilled(v) => format!(
                "settle {} fulfilled with {}",
                log_call(*c),
                match v {
                    Value::Undefined => "undefined".to_string(),
                    Value::Text(t) => Json::from(w.str(*t)).to_string(),
                    Value::Tools(tools) => format!("a list of {} tools", tools.len()),
                }
            ),
            Status::Rejected(r) => format!("settle {} rejected with {}", log_call(*c), r.name()),
            _ => format!("settle {}", log_call(*c)),
        },
        Observed::Invoke(c) => format!("invoke the tool for call {}", log_call(*c)),
        Observed::BodySettle(c) => format!("settle the body run for call {}", log_call(*c)),
        Observed::Toolchange => "fire toolchange".into(),
        Observed::Abort(name) => {
            let id = derived.controllers.iter().find(|(_, n)| *n == name);
            format!("abort {}", id.map_or(name.as_str(), |(id, _)| id.as_str()))
        }
        Observed::Remove(nav) | Observed::Navigate(nav) => {
            let id = derived.frames.iter().find(|(_, n)| *n == nav);
            let verb = if matches!(o, Observed::Remove(_)) {
                "remove"
            } else {
                "navigate"
            };
            format!(
                "{verb} iframe {}",
                id.map_or(nav.as_str(), |((_, f), _)| f.as_str())
            )
        }
    };
    format!("{log_doc}: {what}")
}

/// Searches the model of `world` under `variant` for a path that produces `log`.
pub fn judge(
    log: &Log,
    derived: &Derived,
    world: &World,
    variant: Variant,
    bounds: &Bounds,
) -> Judgement {
    let mut budget = Budget::new(bounds.start, bounds.timeout, bounds.memory_mib);
    let exp = expected(log, derived, world);
    let model = WebMcpModel::new(world.clone(), variant);
    let init = (model.initial_state(), vec![0usize; world.docs.len()]);
    let mut seen: HashSet<(State, Vec<usize>)> = HashSet::new();
    let mut queue = VecDeque::new();
    seen.insert(init.clone());
    queue.push_back(init);
    let mut best: Option<(usize, Vec<usize>)> = None;
    // What the model could do at the best positions reached, that the log does not show.
    let mut instead: Vec<String> = Vec::new();
    let mut actions = Vec::new();
    let mut stopped_by = None;
    while let Some((s, pos)) = queue.pop_front() {
        let matched: usize = pos.iter().sum();
        if matched == exp.total {
            return Judgement::Allowed { states: seen.len() };
        }
        if best.as_ref().is_none_or(|(m, _)| matched > *m) {
            best = Some((matched, pos.clone()));
            instead.clear();
        }
        // After `best` is set: a search stopped at once still says how far it got.
        if let Some(reason) = budget.exceeded() {
            stopped_by = Some(reason);
            break;
        }
        let at_best = best.as_ref().is_some_and(|(m, _)| *m == matched);
        actions.clear();
        model.enabled_actions(&s, &mut actions);
        for &a in &actions {
            let next = model.apply(&s, a, &mut ());
            let effects = effects(world, &s, &next);
            let Some(next_pos) = advance(world, variant, derived, &exp, &next, &effects, &pos)
            else {
                if at_best {
                    for (doc, effects) in effects {
                        for o in effects {
                            let text = describe(world, derived, &next, doc, &o);
                            if !instead.contains(&text) {
                                instead.push(text);
                            }
                        }
                    }
                }
                continue;
            };
            let node = (next, next_pos);
            if seen.contains(&node) {
                continue;
            }
            if seen.len() >= bounds.max_states {
                stopped_by = Some(StopReason::MaxStates {
                    n: bounds.max_states,
                });
                continue;
            }
            seen.insert(node.clone());
            queue.push_back(node);
        }
    }
    let (matched, pos) = best.expect("the initial node");
    if let Some(stopped_by) = stopped_by {
        return Judgement::Incomplete {
            states: seen.len(),
            matched,
            judged: exp.total,
            stopped_by,
        };
    }
    let first = pos
        .iter()
        .enumerate()
        .filter_map(|(d, &p)| exp.per_doc[d].get(p).map(|e| (e.seq, e.line)))
        .min();
    Judgement::NotAllowed(Stuck {
        states: seen.len(),
        matched,
        judged: exp.total,
        first_unmatched: first.map(|(seq, _)| seq),
        first_unmatched_line: first.map(|(_, line)| line),
        instead,
    })
}

/// The positions after a transition to `next` with `effects`, if they are the next events of
/// their documents. A document's log may end inside the transition (a log is a finite
/// prefix, and the model's one step can be several logged events: a call and the rejection
/// its method steps return at once): then every event left in it must be one of the
/// effects, and the others happened after its log ends.
fn advance(
    w: &World,
    variant: Variant,
    derived: &Derived,
    exp: &Expected,
    next: &State,
    effects: &BTreeMap<usize, Vec<Observed>>,
    pos: &[usize],
) -> Option<Vec<usize>> {
    let mut out = pos.to_vec();
    for (&doc, effects) in effects {
        let events = &exp.per_doc[doc];
        let left = events.len() - pos[doc];
        if effects.is_empty() {
            continue;
        }
        if left == 0 {
            return None;
        }
        let upcoming = &events[pos[doc]..pos[doc] + effects.len().min(left)];
        // The effects of one task in one document, matched as a set; where the log ends
        // first, its last events are matched by some of them.
        let mut used = vec![false; upcoming.len()];
        let mut unmatched = 0;
        for o in effects {
            match upcoming
                .iter()
                .enumerate()
                .position(|(i, e)| !used[i] && matches(exp, w, variant, derived, next, o, e))
            {
                Some(slot) => used[slot] = true,
                None => unmatched += 1,
            }
        }
        if used.contains(&false) || (unmatched > 0 && effects.len() <= left) {
            return None;
        }
        out[doc] += upcoming.len();
    }
    Some(out)
}
