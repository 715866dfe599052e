//! What the page shows, computed from the model; no HTTP here.
//!
//! A path is a list of indices into the enabled-action list of each state along it
//! (`3.0.5`: the fourth action of the initial state, then the first, then the sixth).
//! `WebMcpModel::enabled_actions` lists actions in a deterministic order, so a path names
//! the same run on every reload and every machine running the same model; the server keeps
//! no state between requests and replays every path from the initial state.

use std::collections::BTreeSet;
use std::fmt;

use serde_json::{json, Value};
use webmcp_model::machine::{Action, WebMcpModel};
use webmcp_model::state::State;
use webmcp_model::steps::StepId;
use webmcp_model::threads::ThreadKey;
use webmcp_profiles::{check, CheckOptions, Kind, Verdict};
use webmcp_traces::encode::{action_text, state_vars};
use webmcp_traces::trace::{Meta, Trace, TOOL};

use crate::spec_text;
use crate::tables::{diff_tables, tables, tables_json};

/// The longest path replayed: each request replays its whole path, so a bound keeps one
/// request's work small (10,000 steps take a few milliseconds).
pub const MAX_STEPS: usize = 10_000;
/// The longest path text accepted: 10,000 indices of up to 5 digits and their dots.
pub const MAX_PATH_TEXT: usize = MAX_STEPS * 6;
/// At most this many steps of the history are sent as swimlane rows (the page would not be
/// readable with more); the count of the others is sent.
pub const MAX_HISTORY_ROWS: usize = 300;

/// Why a path cannot be followed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathError {
    /// More than [`MAX_STEPS`] steps or more than [`MAX_PATH_TEXT`] characters.
    TooLong,
    /// Not dot-separated decimal indices.
    Malformed(String),
    /// A stale or made-up path: no action `index` in the state after `after` steps.
    NoSuchAction {
        index: usize,
        after: usize,
        enabled: usize,
    },
}

impl PathError {
    /// The HTTP status that answers it: 413 for a path too long, 400 otherwise.
    pub fn status(&self) -> u16 {
        match self {
            PathError::TooLong => 413,
            _ => 400,
        }
    }
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathError::TooLong => write!(
                f,
                "the path is too long: at most {MAX_STEPS} steps ({MAX_PATH_TEXT} characters)"
            ),
            PathError::Malformed(why) => write!(f, "malformed path: {why}"),
            PathError::NoSuchAction {
                index,
                after,
                enabled,
            } => write!(
                f,
                "no action {index} in the state after step {after} (it has {enabled} enabled action{}); the path is stale or was edited",
                if *enabled == 1 { "" } else { "s" }
            ),
        }
    }
}

/// Parses `3.0.5` (or the empty string, the initial state).
pub fn parse_path(text: &str) -> Result<Vec<usize>, PathError> {
    if text.len() > MAX_PATH_TEXT {
        return Err(PathError::TooLong);
    }
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for (i, part) in text.split('.').enumerate() {
        if i >= MAX_STEPS {
            return Err(PathError::TooLong);
        }
        if part.is_empty() || part.len() > 5 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(PathError::Malformed(format!(
                "step {} is \"{}\", not an action number",
                i + 1,
                part.escape_debug()
            )));
        }
        out.push(part.parse().expect("at most 5 digits"));
    }
    Ok(out)
}

/// The path as URL text.
pub fn path_text(path: &[usize]) -> String {
    path.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(".")
}

/// A counterexample or witness the check of the scenario found, as a path.
#[derive(Clone, Debug)]
pub struct Jump {
    pub property: &'static str,
    pub claim: &'static str,
    /// `violated` or `witnessed`.
    pub verdict: &'static str,
    pub path: Vec<usize>,
}

/// One scenario under one variant, and what the check of it found.
pub struct Explorer {
    pub model: WebMcpModel,
    /// Where the scenario came from (`scenarios/NAME.json` or the user's path), for traces.
    pub source: String,
    /// The scenario file's text, which a saved trace carries.
    pub scenario_json: String,
    pub jumps: Vec<Jump>,
    /// Why the list of jumps may be incomplete (a bound stopped the check), if it is.
    pub jumps_note: Option<String>,
}

/// A path followed: the actions taken, the step IDs each executed, its lane, and the
/// last two states.
pub struct Walk {
    pub actions: Vec<Action>,
    pub steps: Vec<Vec<StepId>>,
    pub lanes: Vec<String>,
    pub previous: Option<State>,
    pub state: State,
}

impl Explorer {
    /// The explorer of `model`, with the counterexamples and witnesses of a breadth-first
    /// check on one thread (shortest paths), stopped by `options`' bounds if they are met.
    pub fn new(
        model: WebMcpModel,
        source: String,
        scenario_json: String,
        options: &CheckOptions,
    ) -> Explorer {
        let result = check(model.clone(), options);
        let mut e = Explorer {
            model,
            source,
            scenario_json,
            jumps: Vec::new(),
            jumps_note: result
                .stopped_by
                .as_ref()
                .map(|s| format!("the check of the scenario stopped ({s}); these paths are the ones found before")),
        };
        for p in &result.properties {
            let verdict = match p.verdict {
                Verdict::Violated => "violated",
                Verdict::Witnessed => "witnessed",
                _ => continue,
            };
            let Some(steps) = &p.path else { continue };
            let actions: Vec<Action> = steps.iter().map(|s| s.action).collect();
            // One-thread BFS reports paths from the initial state, which always map.
            if let Ok(path) = e.indices_of(&actions) {
                e.jumps.push(Jump {
                    property: p.def.name,
                    claim: p.def.claim,
                    verdict,
                    path,
                });
            }
        }
        e
    }

    pub fn name(&self) -> &str {
        &self.model.world.name
    }

    /// The path of a run of `actions` ([`indices_of`]).
    pub fn indices_of(&self, actions: &[Action]) -> Result<Vec<usize>, usize> {
        indices_of(&self.model, actions)
    }

    /// Follows `path` from the initial state.
    pub fn walk(&self, path: &[usize]) -> Result<Walk, PathError> {
        if path.len() > MAX_STEPS {
            return Err(PathError::TooLong);
        }
        let mut s = self.model.initial_state();
        let mut previous = None;
        let mut walk = Walk {
            actions: Vec::with_capacity(path.len()),
            steps: Vec::with_capacity(path.len()),
            lanes: Vec::with_capacity(path.len()),
            previous: None,
            state: s.clone(),
        };
        let mut enabled = Vec::new();
        for (after, &index) in path.iter().enumerate() {
            enabled.clear();
            self.model.enabled_actions(&s, &mut enabled);
            let Some(&a) = enabled.get(index) else {
                return Err(PathError::NoSuchAction {
                    index,
                    after,
                    enabled: enabled.len(),
                });
            };
            walk.lanes.push(self.lane(&s, &a));
            let mut steps = Vec::new();
            let next = self.model.apply(&s, a, &mut steps);
            walk.actions.push(a);
            walk.steps.push(steps);
            previous = Some(std::mem::replace(&mut s, next));
        }
        walk.previous = previous;
        walk.state = s;
        Ok(walk)
    }

    /// The swimlane an action taken in `s` belongs to: the document it runs for (each on
    /// its event loop), its in-parallel thread, the browser, or the AI agent.
    pub fn lane(&self, s: &State, a: &Action) -> String {
        let w = &*self.model.world;
        let doc = |d: webmcp_model::world::DocId| format!("doc:{}", w.docs[d.index()].name);
        match *a {
            Action::RunScript(d) => doc(d),
            // The task RunTask runs: the oldest of the queue whose document is fully active.
            Action::RunTask(agent) => s.queues[agent.index()]
                .iter()
                .find(|t| s.is_fully_active(t.doc))
                .map_or_else(
                    || format!("loop:{}", w.agents[agent.index()]),
                    |t| doc(t.doc),
                ),
            Action::SettleTool(c, _) => s
                .bodies
                .get(&c)
                .map_or_else(|| "browser".to_string(), |b| doc(b.target)),
            Action::Abort(c) => doc(w.controllers[c.index()].owner),
            Action::Step(k) => format!("thread:{}", thread_label(&self.model, k)),
            Action::Observe(_) => "ai".to_string(),
            _ => "browser".to_string(),
        }
    }

    /// The static part of the page: the scenario, its documents by event loop, the jumps.
    pub fn scenario_json(&self) -> Value {
        let w = &*self.model.world;
        let loops: Vec<Value> = w
            .agents
            .iter()
            .enumerate()
            .map(|(a, name)| {
                let docs: Vec<Value> = w
                    .docs
                    .iter()
                    .filter(|d| d.agent.index() == a)
                    .map(|d| json!({"name": d.name, "url": d.url, "lane": format!("doc:{}", d.name)}))
                    .collect();
                json!({"name": name, "docs": docs})
            })
            .collect();
        let jumps: Vec<Value> = self
            .jumps
            .iter()
            .map(|j| json!({"property": j.property, "claim": j.claim, "verdict": j.verdict, "path": path_text(&j.path), "length": j.path.len()}))
            .collect();
        json!({
            "name": w.name,
            "summary": w.summary,
            "description": w.description,
            "variant": self.model.variant.name(),
            "loops": loops,
            "jumps": jumps,
            "jumpsNote": self.jumps_note,
            "maxSteps": MAX_STEPS,
        })
    }

    /// Everything the page shows about the state at the end of `path`.
    pub fn view(&self, path: &[usize]) -> Result<Value, PathError> {
        let walk = self.walk(path)?;
        let w = &*self.model.world;
        let s = &walk.state;
        let now = tables(&state_vars(w, s));
        let tables = match &walk.previous {
            Some(p) => diff_tables(&tables(&state_vars(w, p)), &now),
            None => tables_json(&now),
        };
        let first_row = walk.actions.len().saturating_sub(MAX_HISTORY_ROWS);
        let history: Vec<Value> = (first_row..walk.actions.len())
            .map(|i| {
                let a = &walk.actions[i];
                json!({
                    "n": i + 1,
                    "text": action_text(w, a),
                    "actor": webmcp_traces::actor(w, a),
                    "what": webmcp_traces::describe(w, a),
                    "lane": walk.lanes[i],
                    "steps": unique_ids(&walk.steps[i]),
                })
            })
            .collect();
        let mut enabled = Vec::new();
        self.model.enabled_actions(s, &mut enabled);
        let choices: Vec<Value> = enabled
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let mut steps = Vec::new();
                self.model.apply(s, *a, &mut steps);
                json!({
                    "index": i,
                    "text": action_text(w, a),
                    "actor": webmcp_traces::actor(w, a),
                    "what": webmcp_traces::describe(w, a),
                    "lane": self.lane(s, a),
                    "steps": unique_ids(&steps),
                })
            })
            .collect();
        let last_steps: Vec<Value> = walk
            .steps
            .last()
            .map(|steps| spec_entries(steps))
            .unwrap_or_default();
        let mut violated = Vec::new();
        let mut witnessed = Vec::new();
        for def in webmcp_profiles::properties() {
            if def.shows(&self.model, s) {
                let entry = json!({"property": def.name, "claim": def.claim, "about": def.about});
                if def.kind == Kind::Sometimes {
                    witnessed.push(entry);
                } else {
                    violated.push(entry);
                }
            }
        }
        // Thread lanes: those of the history shown and of the actions enabled now.
        let next_lanes: Vec<String> = enabled.iter().map(|a| self.lane(s, a)).collect();
        let mut seen = BTreeSet::new();
        let lanes: Vec<&String> = walk.lanes[first_row..]
            .iter()
            .chain(&next_lanes)
            .filter(|l| l.starts_with("thread:") && seen.insert(l.as_str()))
            .collect();
        Ok(json!({
            "path": path_text(path),
            "depth": path.len(),
            "historyOmitted": first_row,
            "history": history,
            "threadLanes": lanes,
            "lastAction": walk.actions.last().map(|a| action_text(w, a)),
            "lastSteps": last_steps,
            "choices": choices,
            "terminal": enabled.is_empty(),
            "tables": tables,
            "violated": violated,
            "witnessed": witnessed,
        }))
    }

    /// The run of `path` as an ITF trace that `webmcp-check replay` accepts.
    pub fn trace(&self, path: &[usize]) -> Result<String, PathError> {
        let walk = self.walk(path)?;
        let meta = Meta {
            scenario: self.model.world.name.clone(),
            scenario_json: self.scenario_json.clone(),
            source: self.source.clone(),
            variant: self.model.variant.name(),
            property: None,
            expect: None,
            tool: TOOL.to_string(),
        };
        let trace = Trace::record(&self.model, meta, &walk.actions)
            .expect("every action of a walk is enabled where it is taken");
        Ok(trace.to_json_text())
    }
}

/// The path of a run of `actions`: each action's index in the enabled list where it is
/// taken; `Err(i)` when action `i` is not enabled there.
pub fn indices_of(model: &WebMcpModel, actions: &[Action]) -> Result<Vec<usize>, usize> {
    let mut s = model.initial_state();
    let mut out = Vec::with_capacity(actions.len());
    let mut enabled = Vec::new();
    for (i, a) in actions.iter().enumerate() {
        enabled.clear();
        model.enabled_actions(&s, &mut enabled);
        let Some(k) = enabled.iter().position(|e| e == a) else {
            return Err(i);
        };
        out.push(k);
        s = model.apply(&s, *a, &mut ());
    }
    Ok(out)
}

/// A thread's label, as the narratives name it (`in parallel: executeTool exec`).
fn thread_label(model: &WebMcpModel, k: ThreadKey) -> String {
    let label = webmcp_traces::actor(&model.world, &Action::Step(k));
    label
        .strip_prefix("in parallel: ")
        .unwrap_or(&label)
        .to_string()
}

/// Step IDs in the order first executed, each once.
fn unique_ids(steps: &[StepId]) -> Vec<&'static str> {
    let mut seen = BTreeSet::new();
    steps
        .iter()
        .filter(|s| seen.insert(**s))
        .map(|s| s.id())
        .collect()
}

/// The spec text of each step executed, in order, each once.
fn spec_entries(steps: &[StepId]) -> Vec<Value> {
    let mut seen = BTreeSet::new();
    steps
        .iter()
        .filter(|s| seen.insert(**s))
        .map(|s| {
            json!({
                "id": s.id(),
                "text": spec_text::text_of(s.id()).unwrap_or(s.info().summary),
                "url": webmcp_traces::anchors::step_url(s.id()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_parse_and_print_back() {
        assert_eq!(parse_path(""), Ok(vec![]));
        assert_eq!(parse_path("3.0.15"), Ok(vec![3, 0, 15]));
        assert_eq!(path_text(&[3, 0, 15]), "3.0.15");
        assert!(matches!(parse_path("3..1"), Err(PathError::Malformed(_))));
        assert!(matches!(parse_path("-1"), Err(PathError::Malformed(_))));
        assert!(matches!(parse_path("999999"), Err(PathError::Malformed(_))));
        let long = vec!["0"; MAX_STEPS + 1].join(".");
        assert_eq!(parse_path(&long), Err(PathError::TooLong));
        assert_eq!(PathError::TooLong.status(), 413);
    }
}

#[cfg(test)]
mod scenario_tests {
    use super::*;
    use webmcp_model::{Variant, World};

    fn explorer(name: &str) -> Explorer {
        let path = format!("{}/../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).unwrap();
        let world = World::from_json(&text).unwrap();
        let variant = Variant::parse("seed").unwrap();
        Explorer::new(
            WebMcpModel::new(world, variant),
            format!("scenarios/{name}.json"),
            text,
            &CheckOptions {
                threads: 1,
                ..CheckOptions::default()
            },
        )
    }

    /// Every jump the page offers ends in a state where the page shows its property.
    #[test]
    fn every_jump_shows_its_property_at_its_end() {
        let dir = format!("{}/../scenarios", env!("CARGO_MANIFEST_DIR"));
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| {
                let name = e.ok()?.file_name().into_string().ok()?;
                name.strip_suffix(".json").map(str::to_string)
            })
            .collect();
        names.sort();
        let mut jumps = 0;
        for name in names {
            let e = explorer(&name);
            for j in &e.jumps {
                let v = e.view(&j.path).unwrap();
                let list = if j.verdict == "violated" {
                    &v["violated"]
                } else {
                    &v["witnessed"]
                };
                assert!(
                    list.as_array()
                        .unwrap()
                        .iter()
                        .any(|p| p["property"] == j.property),
                    "{name}: {} at {}",
                    j.property,
                    path_text(&j.path)
                );
                jumps += 1;
            }
        }
        assert!(jumps > 100, "only {jumps} jumps");
    }

    #[test]
    fn a_stale_index_names_the_step_and_a_saved_run_reads_back() {
        let e = explorer("register-in-bfcache");
        let err = e.view(&[0, 7]).err().unwrap();
        assert_eq!(
            err,
            PathError::NoSuchAction {
                index: 7,
                after: 1,
                enabled: 2
            }
        );
        assert!(err
            .to_string()
            .starts_with("no action 7 in the state after step 1"));
        let text = e.trace(&[0, 1, 0]).unwrap();
        let loaded = webmcp_traces::reader::read_trace(&text).unwrap();
        assert_eq!(e.indices_of(&loaded.trace.actions), Ok(vec![0, 1, 0]));
    }
}
