//! The log a recorder would write of one run of the model: a path of states, turned into
//! format-v1 events. It is how the tests show that `validate` accepts what the model does
//! (and rejects what it does not), and how `docs/trace-validation.md`'s example was made.

use serde_json::{json, Map, Value};
use webmcp_model::scenario::{DocSpec, Scenario};
use webmcp_model::state::{State, Status, Value as MValue};
use webmcp_model::world::CallId;
use webmcp_model::{Variant, World};

use super::validate::{effects, Observed};

/// What the log format cannot say of a run (a call a tool body makes, several tabs, ...),
/// or a statement that does not serialize.
#[derive(Debug)]
pub enum Unsayable {
    /// What the format cannot say, in a few words.
    Run(&'static str),
    /// A statement of the scenario that does not serialize.
    Json(serde_json::Error),
}

impl std::fmt::Display for Unsayable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unsayable::Run(what) => f.write_str(what),
            Unsayable::Json(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Unsayable {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Unsayable::Run(_) => None,
            Unsayable::Json(e) => Some(e),
        }
    }
}

/// `"several tabs".into()`, `.ok_or("a list call")?`: the phrase is the error.
impl From<&'static str> for Unsayable {
    fn from(what: &'static str) -> Unsayable {
        Unsayable::Run(what)
    }
}

/// Writes the log of `path` (states from the initial one on) of `world`, compiled from `sc`.
/// Err: what the format cannot say of this run (a call a tool body makes, several tabs).
pub fn log_of_path(
    sc: &Scenario,
    world: &World,
    variant: Variant,
    path: &[State],
) -> Result<String, Unsayable> {
    if sc.tabs.len() != 1 {
        return Err("several tabs".into());
    }
    if world.calls.iter().any(|c| c.body_statement.is_some()) {
        return Err("a call made by a tool body".into());
    }
    let mut lines = vec![json!({"format": "webmcp-log", "version": 1}).to_string()];
    let mut dseq = vec![0usize; world.docs.len()];
    let mut push = |lines: &mut Vec<String>, doc: usize, mut event: Map<String, Value>| {
        event.insert("seq".into(), json!(lines.len() - 1));
        event.insert("doc".into(), json!(world.docs[doc].name));
        event.insert("dseq".into(), json!(dseq[doc]));
        dseq[doc] += 1;
        lines.push(Value::Object(event).to_string());
    };
    let mut documents = Vec::new();
    flatten(&sc.tabs[0].top, None, &mut documents);
    for (spec, parent) in documents {
        let d = world
            .doc_named(&spec.doc)
            .ok_or("a document the world lacks")?;
        let (parent_doc, frame, allow) = match parent {
            Some((p, nav, allow)) => (json!(p), json!(nav), json!(allow)),
            None => (Value::Null, Value::Null, Value::Null),
        };
        push(
            &mut lines,
            d.index(),
            obj(json!({
                "kind": "document", "url": spec.url, "parent": parent_doc, "frame": frame,
                "allow": allow, "originKeyed": spec.origin_keyed,
            })),
        );
    }
    let removed_by_env: Vec<&str> = sc
        .environment
        .remove_iframe
        .iter()
        .map(String::as_str)
        .collect();
    for pair in path.windows(2) {
        let (s, next) = (&pair[0], &pair[1]);
        for (doc, effects) in effects(world, s, next) {
            for o in causal_order(world, s, next, effects) {
                let event = event(sc, world, variant, next, &o, &removed_by_env)?;
                push(&mut lines, doc, event);
                if let Observed::Navigate(nav) = &o {
                    // The document the navigation brought comes into being.
                    let spec = sc
                        .navigations
                        .iter()
                        .find(|n| &n.nav == nav)
                        .ok_or("a navigation the scenario lacks")?;
                    let new = world
                        .doc_named(&spec.doc)
                        .ok_or("a document the world lacks")?;
                    push(
                        &mut lines,
                        new.index(),
                        obj(json!({
                            "kind": "document", "url": spec.url,
                            "parent": world.docs[doc].name, "frame": nav,
                            "allow": Value::Null, "originKeyed": world.docs[new.index()].origin_keyed,
                        })),
                    );
                }
            }
        }
    }
    Ok(lines.join("\n") + "\n")
}

/// The effects of one task in the order a recorder sees them: what starts the task (an
/// iframe removed, a `toolchange`, a settlement the script awaited, a tool invoked) before
/// what the script then does (calls), and an `abort()` when the page calls it, before the
/// rejection it causes reaches the page.
fn causal_order(
    world: &World,
    s: &State,
    next: &State,
    mut effects: Vec<Observed>,
) -> Vec<Observed> {
    let rank = |o: &Observed| match o {
        Observed::Remove(_) | Observed::Navigate(_) => 0,
        Observed::Toolchange => 1,
        Observed::Settle(c) if s.promises[c.index()].status != Status::NotCalled => 2,
        Observed::Invoke(_) => 3,
        Observed::BodySettle(_) => 4,
        Observed::Call(_) => 5,
        Observed::Settle(_) => 6,
        Observed::Abort(_) => 7,
    };
    effects.sort_by_key(rank);
    let signal_of = |c: CallId| match world.calls[c.index()].kind {
        webmcp_model::world::CallKind::Execute => world.execute_op(c).signal,
        webmcp_model::world::CallKind::Register => world.register_op(c).signal,
        webmcp_model::world::CallKind::GetTools => None,
    };
    let aborts: Vec<usize> = effects
        .iter()
        .enumerate()
        .filter_map(|(i, o)| matches!(o, Observed::Abort(_)).then_some(i))
        .collect();
    for i in aborts {
        let Observed::Abort(name) = effects[i].clone() else {
            continue;
        };
        let caused = effects[..i].iter().position(|o| match o {
            Observed::Settle(c) => {
                matches!(next.promises[c.index()].status, Status::Rejected(_))
                    && signal_of(*c)
                        .is_some_and(|ctrl| world.controllers[ctrl.index()].name == name)
            }
            _ => false,
        });
        if let Some(at) = caused {
            let abort = effects.remove(i);
            effects.insert(at, abort);
        }
    }
    effects
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("an object literal"),
    }
}

type Parent<'a> = Option<(&'a str, &'a str, Option<&'a str>)>;

fn flatten<'a>(doc: &'a DocSpec, parent: Parent<'a>, out: &mut Vec<(&'a DocSpec, Parent<'a>)>) {
    out.push((doc, parent));
    for f in &doc.iframes {
        flatten(
            &f.doc,
            Some((doc.doc.as_str(), f.nav.as_str(), f.allow.as_deref())),
            out,
        );
    }
}

fn value(world: &World, v: &MValue) -> Value {
    match v {
        MValue::Undefined => Value::Null,
        MValue::Text(t) => json!(world.str(*t)),
        MValue::Tools(tools) => Value::Array(
            tools
                .iter()
                .map(|t| {
                    json!({
                        "name": world.str(t.name),
                        "origin": world.str(t.origin),
                        "window": world.docs[t.window.index()].name,
                    })
                })
                .collect(),
        ),
    }
}

fn event(
    sc: &Scenario,
    world: &World,
    variant: Variant,
    next: &State,
    o: &Observed,
    removed_by_env: &[&str],
) -> Result<Map<String, Value>, Unsayable> {
    Ok(match o {
        Observed::Call(c) => call(sc, world, next, *c)?,
        Observed::Settle(c) => match &next.promises[c.index()].status {
            Status::Fulfilled(v) => obj(json!({
                "kind": "settle", "call": world.calls[c.index()].label,
                "outcome": "fulfilled", "value": value(world, v),
            })),
            Status::Rejected(r) => obj(json!({
                "kind": "settle", "call": world.calls[c.index()].label,
                "outcome": "rejected", "error": r.name(),
            })),
            _ => unreachable!("a settlement"),
        },
        Observed::Invoke(uuid) => {
            let body = next.bodies.get(uuid).expect("invoked");
            let input = world
                .execute_op(*uuid)
                .input_json(variant)
                .ok()
                .map(|id| world.str(id).to_string());
            obj(json!({
                "kind": "invoke", "invocation": format!("i-{}", world.calls[uuid.index()].label),
                "tool": world.str(world.register_op(body.registered_by).name),
                "input": input,
                "signal": if body.signal_aborted { "aborted" } else { "live" },
            }))
        }
        Observed::BodySettle(uuid) => {
            let body = next.bodies.get(uuid).expect("invoked");
            let invocation = format!("i-{}", world.calls[uuid.index()].label);
            match body.result {
                Some(t) => obj(json!({
                    "kind": "body-settle", "invocation": invocation, "outcome": "fulfilled",
                    "value": serde_json::from_str::<Value>(world.str(t)).unwrap_or(Value::Null),
                })),
                // Rejected, or fulfilled with what does not serialize: the caller sees the
                // same failure either way.
                None => obj(json!({
                    "kind": "body-settle", "invocation": invocation, "outcome": "rejected",
                    "error": "Error",
                })),
            }
        }
        Observed::Toolchange => obj(json!({"kind": "event", "type": "toolchange"})),
        Observed::Abort(name) => obj(json!({"kind": "abort", "controller": name})),
        Observed::Remove(nav) => obj(json!({
            "kind": "frame", "action": "remove", "frame": nav,
            "by": if removed_by_env.contains(&nav.as_str()) { "environment" } else { "script" },
        })),
        // A recorder cannot tell who navigated an iframe.
        Observed::Navigate(nav) => obj(json!({
            "kind": "frame", "action": "navigate", "frame": nav, "by": "environment",
        })),
    })
}

fn call(
    sc: &Scenario,
    world: &World,
    s: &State,
    c: CallId,
) -> Result<Map<String, Value>, Unsayable> {
    let call = &world.calls[c.index()];
    let doc = &world.docs[call.script.index()].name;
    let spec = sc
        .scripts
        .get(doc)
        .and_then(|ops| ops.get(call.statement))
        .ok_or("a call without its statement")?;
    let v = serde_json::to_value(spec).map_err(Unsayable::Json)?;
    let mut args = Map::new();
    let copy = |from: &Value, key: &str, to: &mut Map<String, Value>| {
        if let Some(x) = from.get(key).filter(|x| !x.is_null()) {
            to.insert(key.into(), x.clone());
        }
    };
    let method = if let Some(t) = v.get("registerTool") {
        for key in ["name", "description", "title", "inputSchema", "annotations"] {
            copy(t, key, &mut args);
        }
        copy(&v, "exposedTo", &mut args);
        copy(&v, "signal", &mut args);
        "registerTool"
    } else if let Some(g) = v.get("getTools") {
        copy(g, "fromOrigins", &mut args);
        "getTools"
    } else if let Some(t) = v.get("executeTool") {
        let name = t["name"].as_str().unwrap_or_default();
        let tool = match t.get("from").and_then(Value::as_str) {
            Some(list) => {
                let list_call = world
                    .calls
                    .iter()
                    .position(|x| x.label == list && x.script == call.script)
                    .ok_or("a list call")?;
                let Status::Fulfilled(MValue::Tools(tools)) = &s.promises[list_call].status else {
                    return Err("a tool from a list that is not there (the script threw)".into());
                };
                let entry = tools
                    .iter()
                    .find(|x| world.str(x.name) == name)
                    .ok_or("a tool the list lacks (the script threw)")?;
                json!({
                    "name": name, "origin": world.str(entry.origin),
                    "window": world.docs[entry.window.index()].name, "list": list,
                })
            }
            None => json!({"name": name, "origin": t["origin"], "window": t["window"]}),
        };
        args.insert("tool".into(), tool);
        // Special values stay as they are (`reaches-body` included: the model's input is
        // the value the scenario names, and the derived scenario must name the same).
        match v.get("input") {
            Some(input) if input == &json!({"$js": "undefined"}) => {}
            Some(input) => {
                args.insert("input".into(), input.clone());
            }
            None => {
                args.insert("input".into(), json!({}));
            }
        }
        copy(&v, "signal", &mut args);
        "executeTool"
    } else {
        return Err("a call of no method".into());
    };
    Ok(obj(json!({
        "kind": "call", "call": call.label, "method": method, "args": Value::Object(args),
    })))
}
