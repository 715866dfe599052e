//! A trace in memory: its metadata, the actions, and every state as ITF values; recording one
//! from the model and writing it as an `.itf.json` file.

use std::collections::BTreeMap;

use serde_json::Value;
use sha2::{Digest, Sha256};
use webmcp_model::machine::{Action, WebMcpModel};
use webmcp_model::state::State;
use webmcp_model::steps::StepId;
use webmcp_profiles::Kind;

use crate::encode::{
    action_name, action_value, init_value, nondet_picks, state_vars, ACTION, ACTION_TAKEN,
    NONDET_PICKS, STATE_VARS, STEPS,
};
use crate::itf::str;

/// The name of this trace format (`#meta."trace-format"`); bump it when the layout changes
/// incompatibly.
pub const TRACE_FORMAT: &str = "webmcp-check-itf/1";
/// What wrote the trace (`#meta.tool`).
pub const TOOL: &str = concat!("webmcp-check ", env!("CARGO_PKG_VERSION"));
/// ADR-015, which defines the ITF format.
pub const ITF_DESCRIPTION: &str = "https://apalache-mc.org/docs/adr/015adr-trace.html";

/// What a trace claims about its property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// A counterexample: the last state violates the property (always, at termination).
    Violated,
    /// A witness: the last state satisfies a sometimes-property.
    Witnessed,
}

impl Expect {
    pub fn as_str(self) -> &'static str {
        match self {
            Expect::Violated => "violated",
            Expect::Witnessed => "witnessed",
        }
    }
    pub fn for_kind(kind: Kind) -> Expect {
        match kind {
            Kind::Sometimes => Expect::Witnessed,
            Kind::Always | Kind::AtTermination => Expect::Violated,
        }
    }
}

/// `#meta` of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    /// The scenario's name (its `name` field).
    pub scenario: String,
    /// The scenario file's whole text, so that replay can rebuild it (user files too).
    pub scenario_json: String,
    /// Where the scenario came from (`scenarios/NAME.json` or the user's path).
    pub source: String,
    /// The spec variant (`seed`, `seed+FIX`, ...).
    pub variant: String,
    /// The property the trace violates or witnesses, if any (a plain run has none).
    pub property: Option<String>,
    pub expect: Option<Expect>,
    /// The tool version that wrote it.
    pub tool: String,
}

/// One state of a trace: every variable as an ITF value (the model's variables and the
/// `mbt::` ones), keyed by name.
pub type ItfState = BTreeMap<String, Value>;

/// One state as stored: the JSON text of each variable's ITF value, in the order of `vars`.
/// A trace keeps its states as text (about the size of the file) and decodes one or two at
/// a time ([`Trace::state`], [`Trace::value`]): decoded `serde_json` values take up to tens
/// of times the size of their text.
pub type StoredState = Vec<Box<str>>;

#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub meta: Meta,
    /// The variables every state carries, in order, each once.
    pub vars: Vec<String>,
    /// `states[i + 1]` is the state after `actions[i]`.
    pub actions: Vec<Action>,
    /// Each state's variables as JSON text, in `vars` order (the reader checked each is a
    /// well-formed ITF value within the limits of [`crate::limits`]).
    pub states: Vec<StoredState>,
}

/// The SHA-256 of a scenario text, in hex (`#meta."scenario-sha256"`).
pub fn sha256_hex(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every variable name a recorded state has, in the order `vars` lists them.
pub fn all_vars() -> Vec<String> {
    STATE_VARS
        .iter()
        .chain(&[ACTION_TAKEN, NONDET_PICKS, ACTION, STEPS])
        .map(|s| s.to_string())
        .collect()
}

/// The ITF state of `s`, reached by `action` which executed `steps`.
pub fn itf_state(
    model: &WebMcpModel,
    s: &State,
    action: Option<&Action>,
    steps: &[StepId],
) -> ItfState {
    let w = &*model.world;
    let mut out: ItfState = state_vars(w, s)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    out.insert(ACTION_TAKEN.into(), str(action.map_or("init", action_name)));
    out.insert(NONDET_PICKS.into(), nondet_picks(w, action));
    out.insert(
        ACTION.into(),
        action.map_or_else(init_value, |a| action_value(w, a)),
    );
    out.insert(
        STEPS.into(),
        Value::Array(steps.iter().map(|s| str(s.id())).collect()),
    );
    out
}

/// A state in the stored form: the text of each of `vars` (`null` for a variable `s` lacks,
/// which no reader accepts).
fn stored(vars: &[String], s: &ItfState) -> StoredState {
    vars.iter()
        .map(|v| {
            s.get(v)
                .map_or_else(|| "null".into(), |x| x.to_string().into())
        })
        .collect()
}

impl Trace {
    /// Records the run of `actions` from the initial state. Fails (with the index of the
    /// action) when an action is not enabled where it is taken.
    pub fn record(model: &WebMcpModel, meta: Meta, actions: &[Action]) -> Result<Trace, usize> {
        let vars = all_vars();
        let mut s = model.initial_state();
        let mut states = vec![stored(&vars, &itf_state(model, &s, None, &[]))];
        for (i, a) in actions.iter().enumerate() {
            if !model.is_enabled(&s, *a) {
                return Err(i);
            }
            let mut steps = Vec::new();
            s = model.apply(&s, *a, &mut steps);
            states.push(stored(&vars, &itf_state(model, &s, Some(a), &steps)));
        }
        Ok(Trace {
            meta,
            vars,
            actions: actions.to_vec(),
            states,
        })
    }

    /// The value of `vars[j]` in state `i`, decoded (`null` if it does not decode, which the
    /// reader rules out).
    pub fn value(&self, i: usize, j: usize) -> Value {
        self.states
            .get(i)
            .and_then(|s| s.get(j))
            .and_then(|text| serde_json::from_str(text).ok())
            .unwrap_or(Value::Null)
    }

    /// State `i`, decoded: every variable by name.
    pub fn state(&self, i: usize) -> ItfState {
        (0..self.vars.len())
            .map(|j| (self.vars[j].clone(), self.value(i, j)))
            .collect()
    }

    /// The number of actions.
    pub fn len(&self) -> usize {
        self.actions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// The `.itf.json` text: `#meta` first, then `vars`, then one state per line.
    pub fn to_json_text(&self) -> String {
        let m = &self.meta;
        let description = match (&m.property, m.expect) {
            (Some(p), Some(Expect::Violated)) => format!(
                "A counterexample: scenario {} under {} violates {} after {} actions.",
                m.scenario,
                m.variant,
                p,
                self.len()
            ),
            (Some(p), _) => format!(
                "A witness: scenario {} under {} reaches a state where {} holds after {} actions.",
                m.scenario,
                m.variant,
                p,
                self.len()
            ),
            (None, _) => format!(
                "A run of {} actions of scenario {} under {}.",
                self.len(),
                m.scenario,
                m.variant
            ),
        };
        let mut meta: Vec<(&str, String)> = vec![
            ("format", "ITF".into()),
            ("format-description", ITF_DESCRIPTION.into()),
            ("trace-format", TRACE_FORMAT.into()),
            ("tool", m.tool.clone()),
            ("description", description),
            ("source", m.source.clone()),
            ("scenario", m.scenario.clone()),
            ("variant", m.variant.clone()),
        ];
        if let Some(p) = &m.property {
            meta.push(("property", p.clone()));
        }
        if let Some(e) = m.expect {
            meta.push(("verdict", e.as_str().into()));
        }
        meta.push(("scenario-sha256", sha256_hex(&m.scenario_json)));
        meta.push(("scenario-json", m.scenario_json.clone()));
        let q = |s: &str| Value::String(s.to_string()).to_string();
        let mut out = String::from("{\n  \"#meta\": {\n");
        for (i, (k, v)) in meta.iter().enumerate() {
            out.push_str(&format!(
                "    {}: {}{}\n",
                q(k),
                q(v),
                if i + 1 < meta.len() { "," } else { "" }
            ));
        }
        out.push_str("  },\n  \"vars\": ");
        out.push_str(&Value::from(self.vars.clone()).to_string());
        out.push_str(",\n  \"states\": [\n");
        // Each state is one object, keys in byte order (`#meta` first), as serde_json writes
        // an object.
        let mut keys: Vec<(String, Option<usize>)> = self
            .vars
            .iter()
            .enumerate()
            .map(|(j, v)| (v.clone(), Some(j)))
            .chain([("#meta".to_string(), None)])
            .collect();
        keys.sort();
        for (i, st) in self.states.iter().enumerate() {
            out.push_str("    {");
            for (n, (k, j)) in keys.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                out.push_str(&q(k));
                out.push(':');
                match j {
                    Some(j) => out.push_str(st.get(*j).map_or("null", |t| t)),
                    None => out.push_str(&format!("{{\"index\":{i}}}")),
                }
            }
            out.push('}');
            out.push_str(if i + 1 < self.states.len() {
                ",\n"
            } else {
                "\n"
            });
        }
        out.push_str("  ]\n}\n");
        out
    }
}
