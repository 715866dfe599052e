//! Reading an `.itf.json` trace, an untrusted file: typed deserialisation of the top level
//! (`#meta`, `vars`, `states`, nothing else), then each state's variables checked to be
//! well-formed ITF while streaming (never built as one `serde_json::Value` of the whole
//! file), then the `itf` crate's typed decoding of each state's action, then the scenario,
//! variant and property the trace names. Every limit of [`crate::limits`] applies; every
//! failure is one line of text, never a panic.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use webmcp_model::machine::{Action, WebMcpModel};
use webmcp_model::threads::ThreadKey;
use webmcp_model::world::{AgentId, CtrlId, Outcome, TabId, World};
use webmcp_model::Variant;
use webmcp_profiles::{properties, PropertyDef};

use crate::encode::{ACTION, ACTION_TAKEN, STEPS};
use crate::limits::{
    one_line, size_text, MAX_ACTION_DEPTH, MAX_DEPTH, MAX_STATES, MAX_STATE_DECODED_BYTES,
    MAX_STRING_BYTES, MAX_VARS, MAX_VAR_NAME_BYTES,
};
use crate::trace::{sha256_hex, Expect, Meta, Trace, TRACE_FORMAT};

/// Why a text is not a valid trace: one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed(pub String);

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Malformed {}

fn err<T>(msg: impl Into<String>) -> Result<T, Malformed> {
    // One line, and not a whole scenario: keep messages short.
    Err(Malformed(one_line(&msg.into(), 300)))
}

/// A trace together with the model it runs on.
#[derive(Clone)]
pub struct Loaded {
    pub trace: Trace,
    pub model: WebMcpModel,
    pub property: Option<PropertyDef>,
}

/// The keys `#meta` may have: ITF's and ours (`docs/traces.md`).
const META_KEYS: &[&str] = &[
    "format",
    "format-description",
    "trace-format",
    "tool",
    "description",
    "source",
    "scenario",
    "variant",
    "property",
    "verdict",
    "scenario-sha256",
    "scenario-json",
];

/// The top level of a trace: exactly these three keys (ITF's `params` and `loop` are not
/// supported: this tool writes neither, and a lasso is not something replay checks).
#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a trace: a JSON object with \"#meta\", \"vars\" and \"states\""
)]
struct RawTrace<'a> {
    #[serde(rename = "#meta", borrow)]
    meta: &'a RawValue,
    vars: Vars,
    #[serde(borrow)]
    states: States<'a>,
}

/// `vars`: at most [`MAX_VARS`] names.
struct Vars(Vec<String>);

impl<'de> Deserialize<'de> for Vars {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Vars;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("\"vars\": a list of variable names")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vars, A::Error> {
                let mut out = Vec::new();
                while let Some(name) = seq.next_element::<String>()? {
                    if out.len() == MAX_VARS {
                        return Err(de::Error::custom(format!(
                            "\"vars\" lists more than {MAX_VARS} variables"
                        )));
                    }
                    out.push(name);
                }
                Ok(Vars(out))
            }
        }
        d.deserialize_seq(V)
    }
}

/// `states`: at most [`MAX_STATES`], each kept as its text until the variables are known.
struct States<'a>(Vec<&'a RawValue>);

impl<'de: 'a, 'a> Deserialize<'de> for States<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = States<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("\"states\": a list of states")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<States<'a>, A::Error> {
                let mut out = Vec::new();
                while let Some(s) = seq.next_element::<&'de RawValue>()? {
                    if out.len() == MAX_STATES {
                        return Err(de::Error::custom(format!(
                            "more than {MAX_STATES} states, the limit for a trace"
                        )));
                    }
                    out.push(s);
                }
                Ok(States(out))
            }
        }
        d.deserialize_seq(V(std::marker::PhantomData))
    }
}

/// A state's `#meta`: its index, nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StateMeta {
    index: u64,
}

/// serde_json's message without its position (which would point into a state's text, not
/// the file).
fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rsplit_once(" at line ") {
        Some((msg, _)) if e.line() > 0 => msg.to_string(),
        _ => text,
    }
}

/// Parses and checks a trace file's text.
pub fn read_trace(text: &str) -> Result<Loaded, Malformed> {
    let raw: RawTrace = match serde_json::from_str(text) {
        Ok(r) => r,
        Err(e) if e.is_data() => return err(format!("not a trace: {e}")),
        Err(e) => return err(format!("not a trace: invalid JSON: {e}")),
    };
    let vars = raw.vars.0;
    let mut seen = BTreeSet::new();
    for v in &vars {
        if v.len() > MAX_VAR_NAME_BYTES || v == "#meta" {
            return err(format!(
                "not a trace: \"vars\" lists an invalid name \"{v}\""
            ));
        }
        if !seen.insert(v.as_str()) {
            return err(format!("not a trace: \"vars\" lists \"{v}\" twice"));
        }
    }
    // Every state variable too: a replay compares the variables a trace records, and one
    // that recorded none would be "reproduced" having compared nothing.
    for &required in [ACTION, STEPS].iter().chain(crate::encode::STATE_VARS) {
        if !vars.iter().any(|v| v == required) {
            return err(format!(
                "not a trace of webmcp-check: vars has no \"{required}\""
            ));
        }
    }
    let meta_map = match MetaMap::parse(raw.meta.get()) {
        Ok(m) => m,
        Err(e) => return err(format!("not a trace: #meta: {}", without_position(&e))),
    };
    let meta = read_meta(&meta_map)?;
    if meta.scenario_json.is_empty() {
        return err("not a trace: #meta has an empty \"scenario-json\"");
    }
    let world = match World::from_json(&meta.scenario_json) {
        Ok(w) => w,
        Err(e) => return err(format!("the scenario in #meta does not compile: {e}")),
    };
    if world.name != meta.scenario {
        return err(format!(
            "wrong scenario: #meta names scenario \"{}\" but its scenario-json is \"{}\"",
            meta.scenario, world.name
        ));
    }
    let variant = match Variant::parse(&meta.variant) {
        Ok(v) => v,
        Err(e) => return err(e.to_string()),
    };
    let property = match &meta.property {
        None => None,
        Some(name) => match properties().iter().find(|p| p.name == name) {
            Some(p) => Some(*p),
            None => return err(format!("unknown property \"{name}\"")),
        },
    };
    if let (Some(p), Some(e)) = (&property, meta.expect) {
        if Expect::for_kind(p.kind) != e {
            return err(format!(
                "verdict \"{}\" does not fit property {} (a {} property)",
                e.as_str(),
                p.name,
                match p.kind {
                    webmcp_profiles::Kind::Sometimes => "sometimes",
                    _ => "safety or liveness",
                }
            ));
        }
    }
    if property.is_some() != meta.expect.is_some() {
        return err("#meta must give both \"property\" and \"verdict\", or neither");
    }
    let raw_states = raw.states.0;
    if raw_states.is_empty() {
        return err("not a trace: \"states\" is empty");
    }
    let var_index: BTreeMap<&str, usize> = vars
        .iter()
        .enumerate()
        .map(|(i, v)| (v.as_str(), i))
        .collect();
    let mut states = Vec::with_capacity(raw_states.len());
    let mut actions = Vec::new();
    for (i, raw) in raw_states.into_iter().enumerate() {
        let (index, values) = match read_state(raw.get(), &vars, &var_index) {
            Ok(r) => r,
            Err(e) => return err(format!("states[{i}]{e}")),
        };
        if index != i as u64 {
            return err(format!("states[{i}]: #meta.index is {index}"));
        }
        let t = match decode_state(&vars, &values) {
            Ok(t) => t,
            Err(e) => return err(format!("states[{i}]: {e}")),
        };
        let tag = t.action.tag();
        if vars.iter().any(|v| v == ACTION_TAKEN) {
            let taken = t.action_taken.as_deref().unwrap_or_default();
            let expected = if i == 0 { "init" } else { tag };
            if taken != expected {
                return err(format!(
                    "states[{i}]: {ACTION_TAKEN} is \"{taken}\" but {ACTION} is {tag}"
                ));
            }
        }
        match (i, &t.action) {
            (0, TypedAction::Init) => {}
            (0, _) => return err(format!("states[0]: {ACTION} must be Init, not {tag}")),
            (_, TypedAction::Init) => {
                return err(format!("states[{i}]: only the first state is Init"))
            }
            (_, a) => match resolve(&world, a) {
                Ok(a) => actions.push(a),
                Err(e) => return err(format!("states[{i}]: {e}")),
            },
        }
        states.push(values);
    }
    let model = WebMcpModel::new(world, variant);
    Ok(Loaded {
        trace: Trace {
            meta,
            vars,
            actions,
            states,
        },
        model,
        property,
    })
}

/// Reads one state: its `#meta.index`, and the text of each variable in `vars` order, each
/// checked to be well-formed ITF within the limits. An error starts with the place in the
/// state (`.docs: ...`, `: ...`).
fn read_state(
    text: &str,
    vars: &[String],
    var_index: &BTreeMap<&str, usize>,
) -> Result<(u64, Vec<Box<str>>), String> {
    struct StateVisitor<'v, 'a> {
        var_index: &'v BTreeMap<&'v str, usize>,
        n: usize,
        _text: std::marker::PhantomData<&'a ()>,
    }
    type Fields<'a> = (Option<u64>, Vec<Option<&'a RawValue>>);
    impl<'de: 'a, 'a> Visitor<'de> for StateVisitor<'_, 'a> {
        type Value = Fields<'a>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a state: an object of variables")
        }
        fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Fields<'a>, M::Error> {
            let mut index = None;
            let mut values: Vec<Option<&'a RawValue>> = vec![None; self.n];
            while let Some(key) = map.next_key::<String>()? {
                if key == "#meta" {
                    if index.is_some() {
                        return Err(de::Error::custom("#meta appears twice"));
                    }
                    let m: StateMeta = map
                        .next_value()
                        .map_err(|e| de::Error::custom(format!("#meta: {e}")))?;
                    index = Some(m.index);
                    continue;
                }
                let Some(&j) = self.var_index.get(key.as_str()) else {
                    return Err(de::Error::custom(format!(
                        "has a variable \"{}\" that vars does not list",
                        one_line(&key, 60)
                    )));
                };
                if values[j].is_some() {
                    return Err(de::Error::custom(format!("\"{key}\" appears twice")));
                }
                values[j] = Some(map.next_value::<&'de RawValue>()?);
            }
            Ok((index, values))
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let (index, values) = de::Deserializer::deserialize_map(
        &mut de,
        StateVisitor {
            var_index,
            n: vars.len(),
            _text: std::marker::PhantomData,
        },
    )
    .map_err(|e| format!(": {}", without_position(&e)))?;
    let Some(index) = index else {
        return Err(" has no \"#meta\" object".into());
    };
    let mut budget = MAX_STATE_DECODED_BYTES;
    let mut out = Vec::with_capacity(vars.len());
    for (v, raw) in vars.iter().zip(values) {
        let Some(raw) = raw else {
            return Err(format!(" has no variable \"{v}\""));
        };
        let max_depth = if v == ACTION {
            MAX_ACTION_DEPTH
        } else {
            MAX_DEPTH
        };
        let mut de = serde_json::Deserializer::from_str(raw.get());
        Check {
            depth: 1,
            max_depth,
            budget: &mut budget,
        }
        .deserialize(&mut de)
        .map_err(|e| format!(".{v}: {}", without_position(&e)))?;
        out.push(Box::from(raw.get()));
    }
    Ok((index, out))
}

/// `#meta`: an object of strings, with the keys of [`META_KEYS`] only.
struct MetaMap(BTreeMap<String, String>);

impl MetaMap {
    fn parse(text: &str) -> Result<MetaMap, serde_json::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MetaMap;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of strings")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<MetaMap, M::Error> {
                let mut out = BTreeMap::new();
                while let Some(key) = map.next_key::<String>()? {
                    if !META_KEYS.contains(&key.as_str()) {
                        return Err(de::Error::custom(format!(
                            "unknown key \"{}\"",
                            one_line(&key, 60)
                        )));
                    }
                    let value: String = map
                        .next_value()
                        .map_err(|e| de::Error::custom(format!("\"{key}\": {e}")))?;
                    if value.len() > MAX_STRING_BYTES {
                        return Err(de::Error::custom(format!(
                            "\"{key}\" is longer than {}, the limit for a string",
                            size_text(MAX_STRING_BYTES as u64)
                        )));
                    }
                    if out.insert(key.clone(), value).is_some() {
                        return Err(de::Error::custom(format!("\"{key}\" appears twice")));
                    }
                }
                Ok(MetaMap(out))
            }
        }
        let mut de = serde_json::Deserializer::from_str(text);
        de::Deserializer::deserialize_map(&mut de, V)
    }
}

/// Why a state's `mbt::` variables do not decode.
#[derive(Debug)]
enum StateError {
    /// The state has no such variable (or its value is not JSON).
    Missing { var: &'static str },
    /// The variable does not decode as what it must be.
    Decode {
        var: &'static str,
        source: itf::Error,
    },
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateError::Missing { var } => write!(f, "no variable \"{var}\""),
            StateError::Decode { var, source } => write!(f, "{var}: {source}"),
        }
    }
}

impl std::error::Error for StateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StateError::Missing { .. } => None,
            StateError::Decode { source, .. } => Some(source),
        }
    }
}

/// Decodes a state's `mbt::` variables with the itf crate (they are small: checked by
/// [`read_state`], the action at most [`MAX_ACTION_DEPTH`] deep).
fn decode_state(vars: &[String], values: &[Box<str>]) -> Result<TypedState, StateError> {
    let get = |k: &str| -> Option<Value> {
        let j = vars.iter().position(|v| v == k)?;
        serde_json::from_str(&values[j]).ok()
    };
    let need = |var: &'static str| get(var).ok_or(StateError::Missing { var });
    let decode = |var: &'static str| move |source| StateError::Decode { var, source };
    let action: TypedAction = itf::from_value(need(ACTION)?).map_err(decode(ACTION))?;
    let steps: Vec<String> = itf::from_value(need(STEPS)?).map_err(decode(STEPS))?;
    let action_taken = match get(ACTION_TAKEN) {
        Some(v) => Some(itf::from_value::<String>(v).map_err(decode(ACTION_TAKEN))?),
        None => None,
    };
    Ok(TypedState {
        action_taken,
        action,
        steps,
    })
}

fn read_meta(m: &MetaMap) -> Result<Meta, Malformed> {
    let get = |k: &str| m.0.get(k).cloned();
    if get("format").as_deref() != Some("ITF") {
        return err("not a trace: #meta.format is not \"ITF\"");
    }
    let need = |k: &str| -> Result<String, Malformed> {
        match get(k) {
            Some(v) => Ok(v),
            None => err(format!("not a trace of webmcp-check: #meta has no \"{k}\"")),
        }
    };
    let format = need("trace-format")?;
    if format != TRACE_FORMAT {
        return err(format!(
            "unsupported trace format \"{format}\" (this version reads \"{TRACE_FORMAT}\")"
        ));
    }
    let scenario_json = need("scenario-json")?;
    let sha = need("scenario-sha256")?;
    if sha != sha256_hex(&scenario_json) {
        return err("corrupted trace: scenario-json does not match scenario-sha256");
    }
    let expect = match get("verdict").as_deref() {
        None => None,
        Some("violated") => Some(Expect::Violated),
        Some("witnessed") => Some(Expect::Witnessed),
        Some(other) => {
            return err(format!(
                "unknown verdict \"{other}\" (violated or witnessed)"
            ))
        }
    };
    Ok(Meta {
        scenario: need("scenario")?,
        scenario_json,
        source: get("source").unwrap_or_default(),
        variant: need("variant")?,
        property: get("property"),
        expect,
        tool: get("tool").unwrap_or_default(),
    })
}

// ---------------------------------------------------------------------------------------
// Typed decoding with the itf crate.

/// What the replayer needs from each state; the itf crate decodes it (sum types as
/// `{"tag", "value"}`, integers from `#bigint`, tuples from `#tup`).
#[derive(Debug)]
struct TypedState {
    action_taken: Option<String>,
    action: TypedAction,
    #[allow(dead_code)]
    steps: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "tag", content = "value")]
enum TypedAction {
    Init,
    RunScript { doc: String },
    RunTask { agent: String },
    Step { thread: TypedThreadKey },
    SettleTool { call: String, outcome: String },
    Abort { controller: String },
    RemoveIframe { nav: String },
    Navigate { nav: String },
    EnterBfcache { tab: String },
    RestoreFromBfcache { tab: String },
    EvictFromBfcache { tab: String },
    Observe { tab: String },
}

impl TypedAction {
    fn tag(&self) -> &'static str {
        match self {
            TypedAction::Init => "Init",
            TypedAction::RunScript { .. } => "RunScript",
            TypedAction::RunTask { .. } => "RunTask",
            TypedAction::Step { .. } => "Step",
            TypedAction::SettleTool { .. } => "SettleTool",
            TypedAction::Abort { .. } => "Abort",
            TypedAction::RemoveIframe { .. } => "RemoveIframe",
            TypedAction::Navigate { .. } => "Navigate",
            TypedAction::EnterBfcache { .. } => "EnterBfcache",
            TypedAction::RestoreFromBfcache { .. } => "RestoreFromBfcache",
            TypedAction::EvictFromBfcache { .. } => "EvictFromBfcache",
            TypedAction::Observe { .. } => "Observe",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(tag = "tag", content = "value")]
enum TypedThreadKey {
    Register(String),
    Unregister(String),
    GetTools(String),
    Execute(String),
    CancelOnAbort(String),
    Cleanup((String, u8)),
    Completion(String),
    CleanupCompletion((String, u8)),
}

/// Why a decoded action does not resolve in the scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ResolveError {
    /// The scenario has no `kind` (`document`, `call labelled`, ...) of that name: the trace
    /// was written for another scenario.
    UnknownName {
        kind: &'static str,
        name: String,
        scenario: String,
    },
    /// A tool outcome that is none of the model's.
    UnknownOutcome { outcome: String },
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResolveError::UnknownName {
                kind,
                name,
                scenario,
            } => write!(f, "wrong scenario: no {kind} \"{name}\" in {scenario}"),
            ResolveError::UnknownOutcome { outcome } => {
                write!(f, "unknown tool outcome \"{outcome}\"")
            }
        }
    }
}

impl std::error::Error for ResolveError {}

/// Resolves the names of a decoded action in the scenario.
fn resolve(w: &World, a: &TypedAction) -> Result<Action, ResolveError> {
    let unknown = |kind: &'static str, name: &str| ResolveError::UnknownName {
        kind,
        name: name.to_string(),
        scenario: w.name.clone(),
    };
    let doc = |s: &str| w.doc_named(s).ok_or_else(|| unknown("document named", s));
    let nav = |s: &str| w.nav_named(s).ok_or_else(|| unknown("navigable named", s));
    let tab = |s: &str| {
        w.tabs
            .iter()
            .position(|t| t.name == s)
            .map(TabId::nth)
            .ok_or_else(|| unknown("tab named", s))
    };
    let call = |s: &str| w.call_named(s).ok_or_else(|| unknown("call labelled", s));
    Ok(match a {
        TypedAction::Init => unreachable!("handled by the caller"),
        TypedAction::RunScript { doc: d } => Action::RunScript(doc(d)?),
        TypedAction::RunTask { agent } => {
            let i = w
                .agents
                .iter()
                .position(|x| x == agent)
                .ok_or_else(|| unknown("agent named", agent))?;
            Action::RunTask(AgentId::nth(i))
        }
        TypedAction::Step { thread } => Action::Step(match thread {
            TypedThreadKey::Register(c) => ThreadKey::Register(call(c)?),
            TypedThreadKey::Unregister(c) => ThreadKey::Unregister(call(c)?),
            TypedThreadKey::GetTools(c) => ThreadKey::GetTools(call(c)?),
            TypedThreadKey::Execute(c) => ThreadKey::Execute(call(c)?),
            TypedThreadKey::CancelOnAbort(c) => ThreadKey::CancelOnAbort(call(c)?),
            TypedThreadKey::Cleanup((d, n)) => ThreadKey::Cleanup(doc(d)?, *n),
            TypedThreadKey::Completion(c) => ThreadKey::Completion(call(c)?),
            TypedThreadKey::CleanupCompletion((c, n)) => ThreadKey::CleanupCompletion(call(c)?, *n),
        }),
        TypedAction::SettleTool { call: c, outcome } => Action::SettleTool(
            call(c)?,
            Outcome::parse(outcome).ok_or_else(|| ResolveError::UnknownOutcome {
                outcome: outcome.clone(),
            })?,
        ),
        TypedAction::Abort { controller } => {
            let i = w
                .controllers
                .iter()
                .position(|c| &c.name == controller)
                .ok_or_else(|| unknown("AbortController named", controller))?;
            Action::Abort(CtrlId::nth(i))
        }
        TypedAction::RemoveIframe { nav: n } => Action::RemoveIframe(nav(n)?),
        TypedAction::Navigate { nav: n } => Action::Navigate(nav(n)?),
        TypedAction::EnterBfcache { tab: t } => Action::EnterBfcache(tab(t)?),
        TypedAction::RestoreFromBfcache { tab: t } => Action::RestoreFromBfcache(tab(t)?),
        TypedAction::EvictFromBfcache { tab: t } => Action::EvictFromBfcache(tab(t)?),
        TypedAction::Observe { tab: t } => Action::Observe(tab(t)?),
    })
}

// ---------------------------------------------------------------------------------------
// ITF well-formedness, checked while reading (no value is built), before the itf crate or
// anything else decodes a state.

/// What serde_json takes for one value (an enum of 32 bytes), for a non-empty object beyond
/// that (a B-tree node of 11 entries), and per key of an object: the estimate of
/// [`MAX_STATE_DECODED_BYTES`].
const VALUE_BYTES: usize = 32;
const OBJECT_BYTES: usize = 640;
const KEY_BYTES: usize = 64;

/// Checks one ITF value: no `null`, integers only, each `#` form alone and well-shaped, no
/// key twice, nesting at most `max_depth` deep, strings at most [`MAX_STRING_BYTES`], and
/// what it would take decoded charged to `budget`.
struct Check<'b> {
    depth: usize,
    max_depth: usize,
    budget: &'b mut usize,
}

impl Check<'_> {
    fn charge<E: de::Error>(&mut self, bytes: usize) -> Result<(), E> {
        match self.budget.checked_sub(bytes) {
            Some(left) => {
                *self.budget = left;
                Ok(())
            }
            None => Err(E::custom(format!(
                "the state takes more than {} once decoded, the limit for one state",
                size_text(MAX_STATE_DECODED_BYTES as u64)
            ))),
        }
    }

    fn child(&mut self) -> Check<'_> {
        Check {
            depth: self.depth + 1,
            max_depth: self.max_depth,
            budget: self.budget,
        }
    }

    /// The same level (the list inside a `#tup`, a `#map`'s pairs: not levels of their own).
    fn same(&mut self) -> Check<'_> {
        Check {
            depth: self.depth,
            max_depth: self.max_depth,
            budget: self.budget,
        }
    }

    fn enter<E: de::Error>(&self) -> Result<(), E> {
        if self.depth > self.max_depth {
            Err(E::custom(format!(
                "nested too deeply (more than {} levels)",
                self.max_depth
            )))
        } else {
            Ok(())
        }
    }

    fn string<E: de::Error>(&mut self, s: &str) -> Result<(), E> {
        if s.len() > MAX_STRING_BYTES {
            return Err(E::custom(format!(
                "a string longer than {}, the limit for a string",
                size_text(MAX_STRING_BYTES as u64)
            )));
        }
        self.charge(VALUE_BYTES + s.len())
    }
}

impl<'de> DeserializeSeed<'de> for Check<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.enter::<D::Error>()?;
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Check<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an ITF value")
    }

    fn visit_bool<E: de::Error>(mut self, _: bool) -> Result<(), E> {
        self.charge(VALUE_BYTES)
    }

    fn visit_i64<E: de::Error>(mut self, _: i64) -> Result<(), E> {
        self.charge(VALUE_BYTES)
    }

    fn visit_u64<E: de::Error>(mut self, n: u64) -> Result<(), E> {
        if i64::try_from(n).is_err() {
            return Err(E::custom(format!("{n} is not an ITF integer")));
        }
        self.charge(VALUE_BYTES)
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<(), E> {
        Err(E::custom(format!("{n} is not an ITF integer")))
    }

    fn visit_str<E: de::Error>(mut self, s: &str) -> Result<(), E> {
        self.string(s)
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom("null is not an ITF value"))
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        self.charge(VALUE_BYTES)?;
        while seq.next_element_seed(self.child())?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        self.charge(VALUE_BYTES)?;
        let Some(Key(first)) = map.next_key::<Key>()? else {
            return Ok(());
        };
        self.charge(OBJECT_BYTES + KEY_BYTES + first.len())?;
        if first.starts_with('#') {
            let form = match &*first {
                "#bigint" => Form::BigInt,
                "#unserializable" => Form::Text,
                "#tup" => Form::List,
                "#set" => Form::Set,
                "#map" => Form::Map,
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown ITF form \"{}\"",
                        one_line(other, 40)
                    )))
                }
            };
            map.next_value_seed(FormSeed {
                form,
                name: &first,
                check: self.same(),
            })?;
            if map.next_key::<de::IgnoredAny>()?.is_some() {
                return Err(de::Error::custom(format!(
                    "{first} must be alone in its object"
                )));
            }
            return Ok(());
        }
        let mut keys = Fields::default();
        let mut key = first;
        loop {
            if key.starts_with('#') {
                return Err(de::Error::custom(format!(
                    "{} must be alone in its object",
                    one_line(&key, 40)
                )));
            }
            map.next_value_seed(self.child())?;
            if !keys.insert(key) {
                return Err(de::Error::custom("a record has a field twice"));
            }
            match map.next_key::<Key>()? {
                Some(Key(k)) => {
                    self.charge(KEY_BYTES + k.len())?;
                    key = k;
                }
                None => return Ok(()),
            }
        }
    }
}

/// An object key, borrowed from the text when it has no escapes (no allocation).
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

/// The fields of a record seen so far: a short list (records have a few fields), a set past
/// 16 (a crafted record may have millions).
#[derive(Default)]
struct Fields<'de> {
    few: Vec<Cow<'de, str>>,
    many: BTreeSet<Cow<'de, str>>,
}

impl<'de> Fields<'de> {
    /// False when `k` was already there.
    fn insert(&mut self, k: Cow<'de, str>) -> bool {
        if self.few.contains(&k) || self.many.contains(&k) {
            return false;
        }
        if self.few.len() < 16 {
            self.few.push(k);
        } else {
            self.many.insert(k);
        }
        true
    }
}

#[derive(Clone, Copy)]
enum Form {
    BigInt,
    Text,
    List,
    /// A list with no element twice.
    Set,
    /// `[key, value]` pairs with no key twice.
    Map,
}

/// The value of a `#` form.
struct FormSeed<'n, 'b> {
    form: Form,
    name: &'n str,
    check: Check<'b>,
}

impl<'de> DeserializeSeed<'de> for FormSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for FormSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.form {
            Form::BigInt => write!(f, "{}: a decimal string", self.name),
            Form::Text => write!(f, "{}: a string", self.name),
            Form::List | Form::Set => write!(f, "{}: a list", self.name),
            Form::Map => write!(f, "{}: a list of [key, value] pairs", self.name),
        }
    }

    fn visit_str<E: de::Error>(mut self, s: &str) -> Result<(), E> {
        match self.form {
            Form::BigInt if is_decimal(s) => self.check.charge(VALUE_BYTES),
            Form::BigInt if is_decimal_digits(s) => Err(E::custom(format!(
                "#bigint is out of range: {} digits, at most {MAX_BIGINT_DIGITS} are allowed (integers fit in 128 bits)",
                s.trim_start_matches('-').len()
            ))),
            Form::BigInt => Err(E::custom(
                "#bigint must be a decimal string (digits, optionally after a minus sign)",
            )),
            Form::Text => self.check.string(s),
            _ => Err(E::invalid_type(de::Unexpected::Str(s), &self)),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        match self.form {
            Form::List => {
                self.check.charge(VALUE_BYTES)?;
                while seq.next_element_seed(self.check.child())?.is_some() {}
                Ok(())
            }
            Form::Set => {
                self.check.charge(VALUE_BYTES)?;
                let mut seen = Distinct::default();
                while let Some(element) = seq.next_element::<&'de RawValue>()? {
                    let canonical = self.check.child().distinct_part(element)?;
                    if !seen.insert(canonical) {
                        return Err(de::Error::custom(format!(
                            "#set lists {} twice",
                            one_line(element.get(), 60)
                        )));
                    }
                }
                Ok(())
            }
            Form::Map => {
                self.check.charge(VALUE_BYTES)?;
                let mut keys = Distinct::default();
                while let Some(key) = seq.next_element_seed(PairSeed(self.check.same()))? {
                    if !keys.insert(key.canonical) {
                        return Err(de::Error::custom(format!(
                            "#map has the key {} twice",
                            one_line(key.text, 60)
                        )));
                    }
                }
                Ok(())
            }
            _ => Err(de::Error::invalid_type(de::Unexpected::Seq, &self)),
        }
    }
}

/// A `[key, value]` pair of a `#map`.
struct PairSeed<'b>(Check<'b>);

/// A checked key of a `#map`: its text and its canonical form.
struct PairKey<'de> {
    text: &'de str,
    canonical: String,
}

impl<'de> DeserializeSeed<'de> for PairSeed<'_> {
    type Value = PairKey<'de>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<PairKey<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PairSeed<'_> {
    type Value = PairKey<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("#map entries must be [key, value] pairs")
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<PairKey<'de>, A::Error> {
        let c = &mut self.0;
        c.charge(VALUE_BYTES)?;
        // The pair itself is a list one level down; key and value are checked at the level
        // of the pair's elements, as they are for any list.
        let pair_error = || de::Error::custom("#map entries must be [key, value] pairs");
        let Some(key) = seq.next_element::<&'de RawValue>()? else {
            return Err(pair_error());
        };
        let canonical = c.child().distinct_part(key)?;
        if seq.next_element_seed(c.child())?.is_none()
            || seq.next_element::<de::IgnoredAny>()?.is_some()
        {
            return Err(pair_error());
        }
        Ok(PairKey {
            text: key.get(),
            canonical,
        })
    }
}

/// The canonical forms of a set's elements or a map's keys seen so far.
type Distinct = std::collections::HashSet<String>;

impl Check<'_> {
    /// Checks `raw`, a set's element or a map's key, as any value at this level, and returns
    /// its canonical form: two parts are the same ITF value exactly when their forms are
    /// equal (integers plain or `#bigint`, sets and maps in any order, fields in any order).
    fn distinct_part<E: de::Error>(mut self, raw: &RawValue) -> Result<String, E> {
        self.enter::<E>()?;
        let mut de = serde_json::Deserializer::from_str(raw.get());
        de::Deserializer::deserialize_any(&mut de, self.same())
            .map_err(|e| E::custom(without_position(&e)))?;
        // Well-formed and within the state's budget: small enough to build.
        let value: Value =
            serde_json::from_str(raw.get()).map_err(|e| E::custom(without_position(&e)))?;
        Ok(canonical(&value))
    }
}

/// The canonical text of a well-formed ITF value (see [`Check::distinct_part`]).
fn canonical(v: &Value) -> String {
    let sorted = |items: &[Value]| -> Vec<String> {
        let mut texts: Vec<String> = items.iter().map(canonical).collect();
        texts.sort_unstable();
        texts
    };
    match v {
        Value::Number(n) => format!("i{n}"),
        Value::Object(o) if o.len() == 1 => match o.iter().next() {
            Some((k, Value::String(digits))) if k == "#bigint" => match digits.parse::<i128>() {
                Ok(n) => format!("i{n}"),
                Err(_) => format!("b{digits}"),
            },
            Some((k, Value::Array(items))) if k == "#set" => {
                format!("s[{}]", sorted(items).join(","))
            }
            Some((k, Value::Array(pairs))) if k == "#map" => {
                format!("m[{}]", sorted(pairs).join(","))
            }
            Some((k, Value::Array(items))) if k == "#tup" => format!(
                "t[{}]",
                items.iter().map(canonical).collect::<Vec<_>>().join(",")
            ),
            _ => record(o),
        },
        Value::Object(o) => record(o),
        Value::Array(items) => format!(
            "a[{}]",
            items.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

/// A record's canonical text: its fields in key order (a `serde_json` map is sorted).
fn record(o: &serde_json::Map<String, Value>) -> String {
    let fields: Vec<String> = o
        .iter()
        .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), canonical(v)))
        .collect();
    format!("r{{{}}}", fields.join(","))
}

/// Digits of an `i128` that always fit: 38 (its maximum has 39).
const MAX_BIGINT_DIGITS: usize = 38;

fn is_decimal(s: &str) -> bool {
    is_decimal_digits(s) && s.strip_prefix('-').unwrap_or(s).len() <= MAX_BIGINT_DIGITS
}

fn is_decimal_digits(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}
