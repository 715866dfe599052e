//! Reading an `.itf.json` trace: JSON, then ITF well-formedness, then the `itf` crate's typed
//! decoding of the metadata and of each state's action, then the scenario, variant and
//! property it names. Every failure is one line of text, never a panic.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;
use webmcp_model::machine::{Action, WebMcpModel};
use webmcp_model::threads::ThreadKey;
use webmcp_model::world::{AgentId, CallId, CtrlId, DocId, NavId, Outcome, TabId, World};
use webmcp_model::Variant;
use webmcp_properties::{properties, PropertyDef};

use crate::encode::{ACTION, ACTION_TAKEN, STEPS};
use crate::trace::{sha256_hex, Expect, Meta, Trace, TRACE_FORMAT};

/// Why a file is not a valid trace: one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError(pub String);

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TraceError {}

fn err<T>(msg: impl Into<String>) -> Result<T, TraceError> {
    let msg: String = msg.into();
    // One line, and not a whole scenario: keep messages short.
    let mut line: String = msg.replace(['\n', '\r'], " ");
    if line.chars().count() > 300 {
        line = line.chars().take(300).collect::<String>() + "...";
    }
    Err(TraceError(line))
}

/// A trace together with the model it runs on.
#[derive(Clone)]
pub struct Loaded {
    pub trace: Trace,
    pub model: WebMcpModel,
    pub property: Option<PropertyDef>,
}

/// Nesting deeper than this is not a trace we wrote (ours stay under 15).
const MAX_DEPTH: usize = 48;

/// Parses and checks a trace file's text.
pub fn read_trace(text: &str) -> Result<Loaded, TraceError> {
    let mut json: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return err(format!("not a trace: invalid JSON: {e}")),
    };
    check_shape(&json)?;
    // The itf crate decodes the metadata and each state's `#meta` and action (the model's
    // variables are compared as JSON by replay). Its untagged value type backtracks, so it
    // only sees documents that `check_shape` found well-formed.
    let itf_meta: itf::trace::Meta = match serde_json::from_value(json["#meta"].clone()) {
        Ok(m) => m,
        Err(e) => return err(format!("not a trace: #meta: {e}")),
    };
    let meta = read_meta(&itf_meta)?;
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
        Err(e) => return err(e),
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
                    webmcp_properties::Kind::Sometimes => "sometimes",
                    _ => "safety or liveness",
                }
            ));
        }
    }
    if property.is_some() != meta.expect.is_some() {
        return err("#meta must give both \"property\" and \"verdict\", or neither");
    }
    let vars: Vec<String> = json["vars"]
        .as_array()
        .expect("checked by check_shape")
        .iter()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    for required in [ACTION, STEPS] {
        if !vars.iter().any(|v| v == required) {
            return err(format!(
                "not a trace of webmcp-check: vars has no \"{required}\""
            ));
        }
    }
    let Value::Array(raw_states) = json["states"].take() else {
        unreachable!("checked by check_shape")
    };
    let mut states = Vec::with_capacity(raw_states.len());
    let mut actions = Vec::new();
    for (i, mut raw) in raw_states.into_iter().enumerate() {
        let state_meta: itf::state::Meta = match serde_json::from_value(raw["#meta"].clone()) {
            Ok(m) => m,
            Err(e) => return err(format!("states[{i}].#meta: {e}")),
        };
        if let Some(index) = state_meta.index {
            if index != i as u64 {
                return err(format!("states[{i}]: #meta.index is {index}"));
            }
        }
        let t = match decode_state(&raw) {
            Ok(t) => t,
            Err(e) => return err(format!("states[{i}]: {e}")),
        };
        let obj = raw.as_object_mut().expect("checked by check_shape");
        let mut st = BTreeMap::new();
        for v in &vars {
            match obj.remove(v) {
                Some(value) => {
                    st.insert(v.clone(), value);
                }
                None => return err(format!("states[{i}] has no variable \"{v}\"")),
            }
        }
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
        states.push(st);
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

/// Decodes a state's `mbt::` variables with the itf crate.
fn decode_state(raw: &Value) -> Result<TypedState, String> {
    let get = |k: &str| {
        raw.get(k)
            .cloned()
            .ok_or_else(|| format!("no variable \"{k}\""))
    };
    let action: TypedAction =
        itf::from_value(get(ACTION)?).map_err(|e| format!("{ACTION}: {e}"))?;
    let steps: Vec<String> = itf::from_value(get(STEPS)?).map_err(|e| format!("{STEPS}: {e}"))?;
    let action_taken = match raw.get(ACTION_TAKEN) {
        Some(v) => {
            Some(itf::from_value::<String>(v.clone()).map_err(|e| format!("{ACTION_TAKEN}: {e}"))?)
        }
        None => None,
    };
    Ok(TypedState {
        action_taken,
        action,
        steps,
    })
}

fn read_meta(m: &itf::trace::Meta) -> Result<Meta, TraceError> {
    if m.format.as_deref() != Some("ITF") {
        return err("not a trace: #meta.format is not \"ITF\"");
    }
    let get = |k: &str| m.other.get(k).cloned();
    let need = |k: &str| -> Result<String, TraceError> {
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
        source: m.source.clone().unwrap_or_default(),
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
}

/// Resolves the names of a decoded action in the scenario.
fn resolve(w: &World, a: &TypedAction) -> Result<Action, String> {
    let doc = |s: &str| -> Result<DocId, String> {
        w.doc_named(s)
            .ok_or_else(|| format!("wrong scenario: no document named \"{s}\" in {}", w.name))
    };
    let nav = |s: &str| -> Result<NavId, String> {
        w.nav_named(s)
            .ok_or_else(|| format!("wrong scenario: no navigable named \"{s}\" in {}", w.name))
    };
    let tab = |s: &str| -> Result<TabId, String> {
        w.tabs
            .iter()
            .position(|t| t.name == s)
            .map(|i| i as TabId)
            .ok_or_else(|| format!("wrong scenario: no tab named \"{s}\" in {}", w.name))
    };
    let call = |s: &str| -> Result<CallId, String> {
        w.call_named(s)
            .ok_or_else(|| format!("wrong scenario: no call labelled \"{s}\" in {}", w.name))
    };
    Ok(match a {
        TypedAction::Init => unreachable!("handled by the caller"),
        TypedAction::RunScript { doc: d } => Action::RunScript(doc(d)?),
        TypedAction::RunTask { agent } => {
            let i = w.agents.iter().position(|x| x == agent).ok_or_else(|| {
                format!("wrong scenario: no agent named \"{agent}\" in {}", w.name)
            })?;
            Action::RunTask(i as AgentId)
        }
        TypedAction::Step { thread } => Action::Step(match thread {
            TypedThreadKey::Register(c) => ThreadKey::Register(call(c)?),
            TypedThreadKey::Unregister(c) => ThreadKey::Unregister(call(c)?),
            TypedThreadKey::GetTools(c) => ThreadKey::GetTools(call(c)?),
            TypedThreadKey::Execute(c) => ThreadKey::Execute(call(c)?),
            TypedThreadKey::CancelOnAbort(c) => ThreadKey::CancelOnAbort(call(c)?),
            TypedThreadKey::Cleanup((d, n)) => ThreadKey::Cleanup(doc(d)?, *n),
            TypedThreadKey::Completion(c) => ThreadKey::Completion(call(c)?),
        }),
        TypedAction::SettleTool { call: c, outcome } => Action::SettleTool(
            call(c)?,
            Outcome::parse(outcome).ok_or_else(|| format!("unknown tool outcome \"{outcome}\""))?,
        ),
        TypedAction::Abort { controller } => {
            let i = w
                .controllers
                .iter()
                .position(|c| &c.name == controller)
                .ok_or_else(|| {
                    format!(
                        "wrong scenario: no AbortController named \"{controller}\" in {}",
                        w.name
                    )
                })?;
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
// ITF well-formedness, checked before the itf crate sees the document.

fn check_shape(v: &Value) -> Result<(), TraceError> {
    let Some(top) = v.as_object() else {
        return err("not a trace: the file is not a JSON object");
    };
    for k in top.keys() {
        if !matches!(k.as_str(), "#meta" | "params" | "vars" | "states" | "loop") {
            return err(format!("not a trace: unexpected top-level key \"{k}\""));
        }
    }
    if !top.get("#meta").is_some_and(Value::is_object) {
        return err("not a trace: no \"#meta\" object");
    }
    let Some(vars) = top.get("vars").and_then(Value::as_array) else {
        return err("not a trace: no \"vars\" list");
    };
    if !vars.iter().all(Value::is_string) {
        return err("not a trace: \"vars\" must list names");
    }
    let Some(states) = top.get("states").and_then(Value::as_array) else {
        return err("not a trace: no \"states\" list");
    };
    if states.is_empty() {
        return err("not a trace: \"states\" is empty");
    }
    for (i, s) in states.iter().enumerate() {
        let Some(obj) = s.as_object() else {
            return err(format!("states[{i}] is not an object"));
        };
        if !obj.get("#meta").is_some_and(Value::is_object) {
            return err(format!("states[{i}] has no \"#meta\" object"));
        }
        for (k, val) in obj {
            if k == "#meta" {
                continue;
            }
            if let Err(e) = check_value(val, 1) {
                return err(format!("states[{i}].{k}: {e}"));
            }
        }
    }
    Ok(())
}

/// Whether `v` is an ITF value (no `null`, no fractions, well-formed `#` forms).
fn check_value(v: &Value, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err("nested too deeply".into());
    }
    match v {
        Value::Null => Err("null is not an ITF value".into()),
        Value::Bool(_) | Value::String(_) => Ok(()),
        Value::Number(n) => {
            if n.is_i64() {
                Ok(())
            } else {
                Err(format!("{n} is not an ITF integer"))
            }
        }
        Value::Array(items) => items.iter().try_for_each(|x| check_value(x, depth + 1)),
        Value::Object(o) => {
            let special: Vec<&String> = o.keys().filter(|k| k.starts_with('#')).collect();
            if special.is_empty() {
                return o.values().try_for_each(|x| check_value(x, depth + 1));
            }
            if o.len() != 1 {
                return Err(format!("{} must be alone in its object", special[0]));
            }
            let (k, inner) = o.iter().next().expect("one entry");
            match k.as_str() {
                "#bigint" => match inner.as_str() {
                    Some(s) if is_decimal(s) => Ok(()),
                    _ => Err("#bigint must be a decimal string".into()),
                },
                "#unserializable" => match inner {
                    Value::String(_) => Ok(()),
                    _ => Err("#unserializable must be a string".into()),
                },
                "#tup" | "#set" => match inner.as_array() {
                    Some(items) => items.iter().try_for_each(|x| check_value(x, depth + 1)),
                    None => Err(format!("{k} must be a list")),
                },
                "#map" => match inner.as_array() {
                    Some(pairs) => pairs.iter().try_for_each(|p| match p.as_array() {
                        Some(kv) if kv.len() == 2 => {
                            check_value(&kv[0], depth + 1)?;
                            check_value(&kv[1], depth + 1)
                        }
                        _ => Err("#map entries must be [key, value] pairs".into()),
                    }),
                    None => Err("#map must be a list of pairs".into()),
                },
                other => Err(format!("unknown ITF form \"{other}\"")),
            }
        }
    }
}

fn is_decimal(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.len() <= 38 && digits.bytes().all(|b| b.is_ascii_digit())
}
