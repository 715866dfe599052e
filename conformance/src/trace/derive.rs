//! The scenario a log implies: its documents and frame tree, and each document's script in
//! program order, with an `await` wherever the script went on after one of its calls settled
//! and an `awaitToolchange` wherever it went on after a `toolchange` (a continuation runs in a
//! later task; the model's scripts wait in exactly those two ways). What the model cannot
//! express is refused with the reason, never guessed.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use super::log::{By, Entry, Event, FrameAction, Log, Method, Outcome};

/// The scenario and the names it gives to the log's ids.
#[derive(Clone, Debug)]
pub struct Derived {
    pub scenario: Value,
    /// Log document id -> scenario document name.
    pub docs: BTreeMap<String, String>,
    /// Log call id -> scenario call label.
    pub calls: BTreeMap<String, String>,
    /// Log controller id -> scenario controller name.
    pub controllers: BTreeMap<String, String>,
    /// (log document id of the container, log frame id) -> scenario navigable name.
    pub frames: BTreeMap<(String, String), String>,
    /// Events left out of the judgement, with why.
    pub outside: Vec<String>,
    /// Tool name -> the serializations of the values its bodies returned in a later task:
    /// the model's environment fulfils such a body with "done", and an `executeTool` result
    /// of `"\"done\""` from the model stands for any of these.
    pub later_results: BTreeMap<String, BTreeSet<String>>,
    /// The scenario's `navigations`: an iframe's second document.
    navigations: Vec<Value>,
}

/// Why a log cannot be judged by the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotJudged {
    pub why: String,
    /// The log goes beyond one of the model's size limits (documents, `toolchange` events
    /// counted): a prefix of it may still be judged.
    pub beyond_limit: bool,
}

impl NotJudged {
    /// Beyond one of the model's size limits.
    fn limit(why: String) -> NotJudged {
        NotJudged {
            why,
            beyond_limit: true,
        }
    }
}

impl From<String> for NotJudged {
    fn from(why: String) -> NotJudged {
        NotJudged {
            why,
            beyond_limit: false,
        }
    }
}

impl From<&str> for NotJudged {
    fn from(why: &str) -> NotJudged {
        NotJudged::from(why.to_string())
    }
}

impl std::fmt::Display for NotJudged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

/// A statement's wait before it: after which call's settlement, or after a toolchange.
#[derive(Clone, Debug)]
enum Wait {
    Call(String),
    Toolchange,
}

pub fn derive(log: &Log) -> Result<Derived, NotJudged> {
    let mut d = Derived {
        scenario: Value::Null,
        docs: BTreeMap::new(),
        calls: BTreeMap::new(),
        controllers: BTreeMap::new(),
        frames: BTreeMap::new(),
        outside: Vec::new(),
        later_results: BTreeMap::new(),
        navigations: Vec::new(),
    };
    let documents = log.documents();
    // Before the frame tree is walked (one level of recursion per level of nesting).
    if documents.len() > webmcp_model::limits::MAX_DOCUMENTS {
        return Err(NotJudged::limit(format!(
            "the log has {} documents, more than the model's limit of {}",
            documents.len(),
            webmcp_model::limits::MAX_DOCUMENTS
        )));
    }
    let by_document = log.by_document();
    for (i, e) in documents.iter().enumerate() {
        d.docs.insert(e.doc.clone(), format!("d{i}"));
    }
    // The frame tree.
    let mut children: BTreeMap<Option<String>, Vec<&Entry>> = BTreeMap::new();
    for e in &documents {
        if let Event::Document { parent, .. } = &e.event {
            children.entry(parent.clone()).or_default().push(e);
        }
    }
    let tops = children.get(&None).cloned().unwrap_or_default();
    if tops.len() != 1 {
        return Err(format!(
            "the log has {} top-level documents; validation judges one page (one tab) at a time",
            tops.len()
        )
        .into());
    }
    if !log
        .entries
        .iter()
        .any(|e| matches!(e.event, Event::Call { .. }))
    {
        return Err(
            "the log has no WebMCP call: nothing to judge (did the page find the API? see its notes)"
                .into(),
        );
    }
    let mut nav = 0;
    let top = doc_spec(tops[0], &children, &mut d, &mut nav)?;
    // Calls get labels in log order, controllers names as they first appear.
    for e in &log.entries {
        if let Event::Call { call, .. } = &e.event {
            let label = format!("c{}", d.calls.len());
            d.calls.insert(call.clone(), label);
        }
    }
    let bodies = bodies(&by_document);
    d.later_results = bodies.later_results.clone();
    let mut scripts = Map::new();
    let mut removed_by_environment = Vec::new();
    let mut navigated_by_environment = Vec::new();
    for e in &documents {
        let mut script = Vec::new();
        let mut wait: Option<Wait> = None;
        let mut toolchange_awaits = 0;
        let mut toolchanges = 0;
        for x in by_document.get(e.doc.as_str()).into_iter().flatten() {
            let statement = match &x.event {
                Event::Settle { call, .. } => {
                    wait = Some(Wait::Call(d.calls[call].clone()));
                    None
                }
                Event::Event { ty } if ty == "toolchange" => {
                    // The model counts a document's toolchange events only so far
                    // (`TOOLCHANGES_COUNTED`): it cannot tell whether one more was due.
                    toolchanges += 1;
                    if toolchanges > webmcp_model::state::TOOLCHANGES_COUNTED {
                        return Err(NotJudged::limit(format!(
                            "document \"{}\" receives more than {} toolchange events, the most the model counts",
                            e.doc,
                            webmcp_model::state::TOOLCHANGES_COUNTED
                        )));
                    }
                    wait = Some(Wait::Toolchange);
                    None
                }
                Event::Event { ty } => {
                    d.outside.push(format!(
                        "line {}: the event \"{ty}\" (the model fires only toolchange at a ModelContext)",
                        x.line
                    ));
                    None
                }
                Event::Call { call, method, args } => {
                    let label = d.calls[call].clone();
                    Some(call_statement(
                        &e.doc, &label, *method, args, &mut d, &bodies,
                    )?)
                }
                Event::Abort { controller } => {
                    let name = controller_name(&mut d, controller);
                    Some(json!({"abort": name}))
                }
                Event::Frame {
                    action: FrameAction::Remove,
                    frame,
                    by,
                } => {
                    let Some(nav) = d.frames.get(&(e.doc.clone(), frame.clone())).cloned() else {
                        return Err(format!(
                            "line {}: frame \"{frame}\" was removed, but no document of the log lives in it",
                            x.line
                        ).into());
                    };
                    match by {
                        By::Script => Some(json!({"removeIframe": nav})),
                        By::Environment => {
                            removed_by_environment.push(json!(nav));
                            None
                        }
                    }
                }
                Event::Frame {
                    action: FrameAction::Navigate,
                    frame,
                    ..
                } => {
                    let Some(nav) = d.frames.get(&(e.doc.clone(), frame.clone())).cloned() else {
                        return Err(format!(
                            "line {}: frame \"{frame}\" was navigated, but no document of the log lives in it",
                            x.line
                        ).into());
                    };
                    navigated_by_environment.push(json!(nav));
                    None
                }
                Event::Frame {
                    action: FrameAction::Insert,
                    ..
                } => {
                    d.outside.push(format!(
                        "line {}: an iframe insertion (the model's documents exist from the start; their scripts may start at any time)",
                        x.line
                    ));
                    None
                }
                Event::Note { text } => {
                    d.outside.push(format!("line {}: a note: {text}", x.line));
                    None
                }
                Event::Document { .. } | Event::Invoke { .. } | Event::BodySettle { .. } => None,
            };
            if let Some(st) = statement {
                match wait.take() {
                    Some(Wait::Call(label)) => script.push(json!({"await": label})),
                    Some(Wait::Toolchange) => {
                        toolchange_awaits += 1;
                        if toolchange_awaits > webmcp_model::limits::MAX_TOOLCHANGE_AWAITS {
                            return Err(NotJudged::limit(format!(
                                "document \"{}\" goes on after more than {} toolchange events (the model's limit)",
                                e.doc,
                                webmcp_model::limits::MAX_TOOLCHANGE_AWAITS
                            )));
                        }
                        script.push(json!({"awaitToolchange": true}));
                    }
                    None => {}
                }
                script.push(st);
            }
        }
        if !script.is_empty() {
            scripts.insert(d.docs[&e.doc].clone(), Value::Array(script));
        }
    }
    let mut environment = Map::new();
    if !removed_by_environment.is_empty() {
        environment.insert("removeIframe".into(), Value::Array(removed_by_environment));
    }
    if !navigated_by_environment.is_empty() {
        environment.insert("navigate".into(), Value::Array(navigated_by_environment));
    }
    let outcomes = bodies.environment_outcomes;
    if !outcomes.is_empty() {
        environment.insert("toolOutcomes".into(), json!(outcomes));
    }
    d.scenario = json!({
        "name": "recorded-run",
        "summary": "A run derived from a recorded log.",
        "description": "Derived by webmcp-check validate from a recorded log (docs/trace-validation.md).",
        "tabs": [{"tab": "main", "top": top}],
        "navigations": d.navigations,
        "scripts": scripts,
        "environment": environment,
    });
    Ok(d)
}

fn doc_spec(
    e: &Entry,
    children: &BTreeMap<Option<String>, Vec<&Entry>>,
    d: &mut Derived,
    nav: &mut usize,
) -> Result<Value, NotJudged> {
    let Event::Document {
        url, origin_keyed, ..
    } = &e.event
    else {
        unreachable!("documents() returns document events")
    };
    let mut iframes = Vec::new();
    for child in children.get(&Some(e.doc.clone())).into_iter().flatten() {
        let Event::Document {
            frame,
            allow,
            url: child_url,
            ..
        } = &child.event
        else {
            continue;
        };
        let frame = frame.clone().unwrap_or_default();
        if let Some(name) = d.frames.get(&(e.doc.clone(), frame.clone())).cloned() {
            // A later document in the same iframe: the iframe was navigated to it.
            if d.navigations.iter().any(|n| n["nav"] == name.as_str()) {
                return Err(format!(
                    "iframe \"{frame}\" of document \"{}\" holds more than two documents; the model navigates a navigable once",
                    e.doc
                ).into());
            }
            if children.contains_key(&Some(child.doc.clone())) {
                return Err(format!(
                    "document \"{}\", which a navigation brought, has iframes; the model's navigations bring documents without",
                    child.doc
                ).into());
            }
            d.navigations
                .push(json!({"nav": name, "doc": d.docs[&child.doc], "url": child_url}));
            continue;
        }
        let name = format!("f{nav}");
        *nav += 1;
        d.frames.insert((e.doc.clone(), frame), name.clone());
        let mut spec = doc_spec(child, children, d, nav)?;
        let obj = spec.as_object_mut().expect("an object");
        obj.insert("nav".into(), json!(name));
        if let Some(a) = allow {
            obj.insert("allow".into(), json!(a));
        }
        iframes.push(spec);
    }
    Ok(json!({
        "doc": d.docs[&e.doc],
        "url": url,
        "originKeyed": origin_keyed,
        "iframes": iframes,
    }))
}

fn controller_name(d: &mut Derived, id: &str) -> String {
    let n = d.controllers.len();
    d.controllers
        .entry(id.to_string())
        .or_insert_with(|| format!("ac{n}"))
        .clone()
}

/// What each registered tool's body does, as far as the log shows it.
struct Bodies {
    /// (registering log doc, tool name) -> a scripted body.
    scripted: BTreeMap<(String, String), Value>,
    /// The outcomes the environment must be able to choose for bodies it settles.
    environment_outcomes: Vec<&'static str>,
    /// Tool name -> the serializations of the values its environment-settled bodies returned.
    later_results: BTreeMap<String, BTreeSet<String>>,
}

/// One invocation of a tool: how its body settled (if the log shows it), and whether it
/// settled in the task that invoked it.
type Invocation<'a> = (Option<&'a Event>, bool);

/// Infers each tool's body from its invocations: a body that settled in the task that invoked
/// it (nothing else of its document between) the same way every time returns that value (or
/// throws); the others are settled by the environment at any later moment (or never), which
/// the model fulfils with "done": the values they returned are kept, and the caller's result
/// is judged against their serializations.
fn bodies(by_document: &BTreeMap<&str, Vec<&Entry>>) -> Bodies {
    let mut by_tool: BTreeMap<(String, String), Vec<Invocation>> = BTreeMap::new();
    let mut out = Bodies {
        scripted: BTreeMap::new(),
        environment_outcomes: Vec::new(),
        later_results: BTreeMap::new(),
    };
    for (doc, events) in by_document {
        // Invocation -> the positions of its body's settlements in this document's events.
        let mut settles: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (j, y) in events.iter().enumerate() {
            if let Event::BodySettle { invocation, .. } = &y.event {
                settles.entry(invocation).or_default().push(j);
            }
        }
        for (i, x) in events.iter().enumerate() {
            let Event::Invoke {
                invocation, tool, ..
            } = &x.event
            else {
                continue;
            };
            // The first settlement after the invocation.
            let settle = settles.get(invocation.as_str()).and_then(|at| {
                at.get(at.partition_point(|&j| j <= i))
                    .map(|&j| (j, &events[j].event))
            });
            let at_once = settle.is_some_and(|(j, _)| j == i + 1);
            by_tool
                .entry((doc.to_string(), tool.clone()))
                .or_default()
                .push((settle.map(|(_, y)| y), at_once));
        }
    }
    for ((doc, tool), settles) in by_tool {
        let outcomes: Vec<(Outcome, Option<&Value>)> = settles
            .iter()
            .filter_map(|(s, _)| match s {
                Some(Event::BodySettle { outcome, value, .. }) => Some((*outcome, value.as_ref())),
                _ => None,
            })
            .collect();
        let every_at_once = settles.iter().all(|(_, at_once)| *at_once);
        let first = outcomes.first().copied();
        if every_at_once && outcomes.iter().all(|o| Some(*o) == first) {
            if let Some((outcome, value)) = first {
                let body = match outcome {
                    Outcome::Rejected => json!([{"throw": true}]),
                    Outcome::Fulfilled => {
                        json!([{"return": value.cloned().unwrap_or(Value::Null)}])
                    }
                };
                out.scripted.insert((doc, tool), body);
                continue;
            }
        }
        // The environment settles the rest: at any later moment, fulfilling with "done" or
        // rejecting (or never).
        for (outcome, value) in &outcomes {
            let choice = match (outcome, value) {
                (Outcome::Rejected, _) => "reject",
                (Outcome::Fulfilled, Some(v)) if *v == &json!({"$js": "undefined"}) => {
                    "fulfil-unserializable"
                }
                (Outcome::Fulfilled, v) => {
                    // The model's later value is "done"; the caller's result stands for the
                    // serialization of what this tool's body returned.
                    let serialized = v.map_or_else(|| "null".to_string(), |v| v.to_string());
                    out.later_results
                        .entry(tool.clone())
                        .or_default()
                        .insert(serialized);
                    "fulfil"
                }
            };
            if !out.environment_outcomes.contains(&choice) {
                out.environment_outcomes.push(choice);
            }
        }
        if outcomes.is_empty() && !out.environment_outcomes.contains(&"fulfil") {
            out.environment_outcomes.push("fulfil");
        }
    }
    out
}

fn field<'a>(args: &'a Value, name: &str) -> Option<&'a Value> {
    args.get(name).filter(|v| !v.is_null())
}

fn call_statement(
    doc: &str,
    label: &str,
    method: Method,
    args: &Value,
    d: &mut Derived,
    bodies: &Bodies,
) -> Result<Value, NotJudged> {
    let mut st = Map::new();
    st.insert("as".into(), json!(label));
    if let Some(signal) = field(args, "signal").and_then(Value::as_str) {
        let name = controller_name(d, signal);
        st.insert("signal".into(), json!(name));
    }
    match method {
        Method::RegisterTool => {
            let name = field(args, "name")
                .and_then(Value::as_str)
                .ok_or("a registerTool call without a string name (the model's tools have one)")?;
            let mut tool = Map::new();
            tool.insert("name".into(), json!(name));
            tool.insert(
                "description".into(),
                field(args, "description").cloned().unwrap_or(json!("")),
            );
            for key in ["title", "inputSchema", "annotations"] {
                if let Some(v) = field(args, key) {
                    tool.insert(key.into(), v.clone());
                }
            }
            if let Some(body) = bodies.scripted.get(&(doc.to_string(), name.to_string())) {
                tool.insert("body".into(), body.clone());
            }
            st.insert("registerTool".into(), Value::Object(tool));
            if let Some(exposed) = field(args, "exposedTo") {
                st.insert("exposedTo".into(), exposed.clone());
            }
        }
        Method::GetTools => {
            let mut options = Map::new();
            if let Some(from) = field(args, "fromOrigins") {
                options.insert("fromOrigins".into(), from.clone());
            }
            st.insert("getTools".into(), Value::Object(options));
        }
        Method::ExecuteTool => {
            let tool = field(args, "tool").ok_or("an executeTool call without its tool")?;
            let name = field(tool, "name")
                .and_then(Value::as_str)
                .ok_or("an executeTool call whose tool has no string name")?;
            let reference = match field(tool, "list").and_then(Value::as_str) {
                Some(list) => {
                    let from = d.calls.get(list).ok_or_else(|| {
                        format!("an executeTool call names list \"{list}\", which no call made")
                    })?;
                    json!({"from": from, "name": name})
                }
                None => {
                    let window = field(tool, "window").and_then(Value::as_str).unwrap_or("");
                    let doc = d.docs.get(window).ok_or_else(|| {
                        format!(
                            "an executeTool call names window \"{window}\", which is no document of the log"
                        )
                    })?;
                    json!({
                        "name": name,
                        "origin": field(tool, "origin").cloned().unwrap_or(json!("")),
                        "window": doc,
                    })
                }
            };
            st.insert("executeTool".into(), reference);
            st.insert(
                "input".into(),
                match args.get("input") {
                    None => json!({"$js": "undefined"}),
                    Some(v) => v.clone(),
                },
            );
        }
    }
    Ok(Value::Object(st))
}
