//! Telling a trace as a story: a numbered narrative where each step says who acts, what it
//! does in the draft's terms, which steps it executes (linked to the published draft), and
//! what part of the state changed; then the property, in plain words. Rendered as text,
//! Markdown (with a Mermaid diagram), a Mermaid sequence diagram, or one self-contained HTML
//! page.

use std::collections::BTreeMap;

use serde_json::Value;
use webmcp_model::error::{markdown_code, markdown_text, printable_lines};
use webmcp_model::machine::Action;
use webmcp_model::steps::StepId;
use webmcp_model::threads::ThreadKey;
use webmcp_model::world::{DocId, World};
use webmcp_profiles::Kind;

use crate::anchors::step_url;
use crate::diff::{differences, Change};
use crate::encode::{thread_key, Names, STATE_VARS, STEPS};
use crate::itf::{payload, render, tag_of};
use crate::reader::Loaded;
use crate::trace::Expect;

/// An output format of `explain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Markdown,
    Mermaid,
    Html,
}

/// At most this many changes are listed per step.
const MAX_CHANGES: usize = 14;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Role {
    Document,
    Thread,
    EventLoop,
    Browser,
    AiAgent,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Participant {
    id: String,
    label: String,
    role: Role,
}

struct Step {
    actor: Participant,
    what: String,
    steps: Vec<String>,
    changes: Vec<Change>,
    more_changes: usize,
    arrows: Vec<(Participant, String)>,
}

struct Story {
    title: String,
    scenario: String,
    summary: String,
    variant: String,
    property: Option<(String, String, Vec<String>)>,
    verdict: Option<Expect>,
    participants: Vec<Participant>,
    steps: Vec<Step>,
}

/// Renders a loaded trace. Whatever the trace holds (a tool's result, a name) reaches the
/// terminal or the page with its unprintable characters escaped: a control character, or a
/// bidirectional override that would reorder how the rest of a line displays. Each format
/// escapes what is markup in it; this is the last pass over all of them.
pub fn explain(l: &Loaded, format: Format) -> String {
    let story = build(l);
    let out = match format {
        Format::Text => text(&story),
        Format::Markdown => markdown(&story),
        Format::Mermaid => mermaid(&story),
        Format::Html => html(&story),
    };
    printable_lines(&out)
}

fn doc_participant(w: &World, name: &str) -> Participant {
    let agent = w
        .doc_named(name)
        .map(|d| w.agents[w.agent_of(d).index()].clone())
        .unwrap_or_default();
    let i = w.doc_named(name).map_or(0, |d| d.index());
    Participant {
        id: format!("D{i}"),
        label: if agent.is_empty() {
            name.to_string()
        } else {
            format!("{name} (event loop {agent})")
        },
        role: Role::Document,
    }
}

fn thread_participant(w: &World, k: ThreadKey) -> Participant {
    let key = render(&thread_key(Names::new(w), k));
    Participant {
        id: format!("T{}", sanitize_id(&key)),
        label: crate::actor(w, &Action::Step(k)),
        role: Role::Thread,
    }
}

fn thread_participant_from_key(w: &World, key: &Value) -> Participant {
    let text = render(key);
    let label = match (tag_of(key), payload(key)) {
        (Some("Cleanup"), Some(p)) => {
            let items = crate::itf::elements(p).cloned().unwrap_or_default();
            let doc = items.first().and_then(Value::as_str).unwrap_or("?");
            let n = items.get(1).and_then(crate::itf::as_int).unwrap_or(0);
            format!("in parallel: unload cleanup #{} of {doc}", n + 1)
        }
        (Some("CleanupCompletion"), Some(p)) => {
            let items = crate::itf::elements(p).cloned().unwrap_or_default();
            let call = items.first().and_then(Value::as_str).unwrap_or("?");
            format!("in parallel: completion steps of {call} (from unload cleanup)")
        }
        (Some(tag), Some(Value::String(call))) => {
            let what = match tag {
                "Register" => "registerTool",
                "Unregister" => "unregister",
                "GetTools" => "getTools",
                "Execute" => "executeTool",
                "CancelOnAbort" => "cancel",
                "Completion" => "completion steps of",
                other => other,
            };
            format!("in parallel: {what} {call}")
        }
        _ => format!("in parallel: {text}"),
    };
    let _ = w;
    Participant {
        id: format!("T{}", sanitize_id(&text)),
        label,
        role: Role::Thread,
    }
}

/// A participant id for `s`: its ASCII letters and digits as they are, every other
/// character (`_` too) as `_`, its code point in hex and `_`, so that two keys never share
/// an id (`e.1` and `e-1` are two calls, and two lifelines). Mermaid shows shorter ones
/// ([`mermaid_ids`]).
fn sanitize_id(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            out.push_str(&format!("_{:x}_", u32::from(c)));
        }
    }
    out
}

fn browser() -> Participant {
    Participant {
        id: "B".into(),
        label: "browser".into(),
        role: Role::Browser,
    }
}

fn map_get<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    crate::itf::entries(v)?
        .into_iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

fn lifecycle_of(state: &BTreeMap<String, Value>, doc: &str) -> Option<String> {
    let d = map_get(state.get("docs")?, doc)?;
    tag_of(d.get("lifecycle")?).map(str::to_string)
}

/// What a task does, from its ITF record.
fn task_summary(task: &Value) -> String {
    let kind = task.get("kind");
    let tag = kind.and_then(tag_of).unwrap_or("task");
    let p = kind.and_then(payload);
    let f = |k: &str| {
        p.and_then(|p| p.get(k))
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => render(other),
            })
            .unwrap_or_default()
    };
    match tag {
        "FireToolchange" => format!("fires toolchange (caused by {})", f("cause")),
        "ResolveRegister" => format!("resolves the registerTool promise of {}", f("call")),
        "ResolveGetTools" => {
            let n = p
                .and_then(|p| p.get("tools"))
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            format!(
                "resolves the getTools promise of {} with {n} tool(s)",
                f("call")
            )
        }
        "RejectExecute" => format!(
            "rejects the executeTool promise of {} with UnknownError (queued at {})",
            f("call"),
            f("at")
        ),
        "ResolveExecute" => format!(
            "resolves the executeTool promise of {} with {}",
            f("call"),
            f("result")
        ),
        "RunToolExecuteSteps" => format!(
            "runs the tool execute steps of {} for tool {}",
            f("call"),
            f("toolName")
        ),
        "CancelLocal" => format!("cancels the local execution of {}", f("call")),
        other => format!("runs a {other} task"),
    }
}

fn build(l: &Loaded) -> Story {
    let w = &*l.model.world;
    let t = &l.trace;
    let mut participants: Vec<Participant> = Vec::new();
    let see = |p: &Participant, participants: &mut Vec<Participant>| {
        if !participants.iter().any(|x| x.id == p.id) {
            participants.push(p.clone());
        }
    };
    let mut steps = Vec::new();
    // Two states decoded at a time: the one before the action and the one after.
    let mut after_state = t.state(0);
    for (i, a) in t.actions.iter().enumerate() {
        let before_state = std::mem::replace(&mut after_state, t.state(i + 1));
        let (before, after) = (&before_state, &after_state);
        let (actor, what) = actor_and_what(w, a, before);
        see(&actor, &mut participants);
        let step_ids: Vec<String> = after
            .get(STEPS)
            .and_then(Value::as_array)
            .map(|a| {
                let mut ids: Vec<String> = Vec::new();
                for s in a.iter().filter_map(Value::as_str) {
                    if ids.last().map(String::as_str) != Some(s) {
                        ids.push(s.to_string());
                    }
                }
                ids
            })
            .unwrap_or_default();
        let mut changes = Vec::new();
        for var in STATE_VARS {
            if let (Some(x), Some(y)) = (before.get(*var), after.get(*var)) {
                changes.extend(differences(var, x, y, 200));
            }
        }
        let total = changes.len();
        changes.truncate(MAX_CHANGES);
        let arrows = arrows(w, before, after, &actor);
        for (p, _) in &arrows {
            see(p, &mut participants);
        }
        steps.push(Step {
            actor,
            what,
            steps: step_ids,
            changes,
            more_changes: total.saturating_sub(MAX_CHANGES),
            arrows,
        });
    }
    let property = l.property.map(|p| {
        (
            p.name.to_string(),
            p.claim.to_string(),
            p.about.iter().map(|s| s.to_string()).collect(),
        )
    });
    let kind_word = match (l.property.map(|p| p.kind), t.meta.expect) {
        (Some(Kind::Sometimes), _) => "Witness",
        (Some(_), _) => "Counterexample",
        (None, _) => "Run",
    };
    let title = match &t.meta.property {
        Some(p) => format!("{kind_word}: {p} in {}", t.meta.scenario),
        None => format!("Run of {}", t.meta.scenario),
    };
    Story {
        title,
        scenario: t.meta.scenario.clone(),
        summary: w.summary.clone(),
        variant: t.meta.variant.clone(),
        property,
        verdict: t.meta.expect,
        participants,
        steps,
    }
}

fn actor_and_what(
    w: &World,
    a: &Action,
    before: &BTreeMap<String, Value>,
) -> (Participant, String) {
    let doc = |d: DocId| w.docs[d.index()].name.clone();
    match *a {
        Action::RunScript(d) => (
            doc_participant(w, &doc(d)),
            format!(
                "the task that starts {}'s script runs it until its first await on a pending promise",
                doc(d)
            ),
        ),
        Action::RunTask(agent) => {
            let name = &w.agents[agent.index()];
            let queue = before
                .get("queues")
                .and_then(|q| map_get(q, name))
                .and_then(Value::as_array);
            let task = queue.and_then(|q| {
                q.iter().find(|t| {
                    t.get("doc")
                        .and_then(Value::as_str)
                        .is_some_and(|d| lifecycle_of(before, d).as_deref() == Some("FullyActive"))
                })
            });
            match task {
                Some(task) => {
                    let d = task.get("doc").and_then(Value::as_str).unwrap_or("?");
                    (
                        doc_participant(w, d),
                        format!(
                            "its event loop runs the oldest runnable webmcp task: {}",
                            task_summary(task)
                        ),
                    )
                }
                None => (
                    Participant {
                        id: format!("L{agent}"),
                        label: format!("event loop {name}"),
                        role: Role::EventLoop,
                    },
                    "runs its oldest runnable webmcp task".into(),
                ),
            }
        }
        Action::Step(k) => {
            let pc = before
                .get("threads")
                .and_then(|ts| {
                    let key = thread_key(Names::new(w), k);
                    crate::itf::entries(ts)?
                        .into_iter()
                        .find(|(x, _)| **x == key)
                        .map(|(_, v)| v.clone())
                })
                .and_then(|t| payload(&t).and_then(|p| p.get("pc")).cloned());
            let at = pc.map(|pc| format!(" (at {})", render(&pc))).unwrap_or_default();
            (
                thread_participant(w, k),
                format!("runs its next step{at}"),
            )
        }
        Action::SettleTool(c, o) => {
            let label = &w.calls[c.index()].label;
            let target = before
                .get("bodies")
                .and_then(|b| map_get(b, label))
                .and_then(|b| b.get("target"))
                .and_then(Value::as_str)
                .map(str::to_string);
            let actor = target.map_or_else(browser, |d| doc_participant(w, &d));
            (
                actor,
                format!(
                    "the promise returned by the tool's execute callback for {label} settles: {}",
                    match o.name() {
                        "fulfil" => "fulfilled with a serializable value",
                        "fulfil-unserializable" => "fulfilled with undefined, which does not serialize",
                        _ => "rejected",
                    }
                ),
            )
        }
        Action::Abort(c) => {
            let owner = w.controllers[c.index()].owner;
            (
                doc_participant(w, &doc(owner)),
                format!(
                    "a task of the page calls {}.abort() (the abort steps run in order)",
                    w.controllers[c.index()].name
                ),
            )
        }
        Action::Observe(_) => (
            Participant {
                id: "A".into(),
                label: "AI agent queue".into(),
                role: Role::AiAgent,
            },
            crate::describe(w, a),
        ),
        _ => (browser(), crate::describe(w, a)),
    }
}

/// Arrows from the actor: tasks it queued, parallel blocks it started, promises it settled.
fn arrows(
    w: &World,
    before: &BTreeMap<String, Value>,
    after: &BTreeMap<String, Value>,
    actor: &Participant,
) -> Vec<(Participant, String)> {
    let mut out = Vec::new();
    let all_tasks = |st: &BTreeMap<String, Value>| -> Vec<Value> {
        st.get("queues")
            .and_then(crate::itf::entries)
            .map(|es| {
                es.into_iter()
                    .flat_map(|(_, q)| q.as_array().cloned().unwrap_or_default())
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut old = all_tasks(before);
    for task in all_tasks(after) {
        if let Some(i) = old.iter().position(|t| *t == task) {
            old.remove(i);
            continue;
        }
        let d = task.get("doc").and_then(Value::as_str).unwrap_or("?");
        out.push((
            doc_participant(w, d),
            format!("queues a task that {}", task_summary(&task)),
        ));
    }
    let keys = |st: &BTreeMap<String, Value>| -> Vec<Value> {
        st.get("threads")
            .and_then(crate::itf::entries)
            .map(|es| es.into_iter().map(|(k, _)| k.clone()).collect())
            .unwrap_or_default()
    };
    let old_keys = keys(before);
    for k in keys(after) {
        if !old_keys.contains(&k) {
            let p = thread_participant_from_key(w, &k);
            if p.id != actor.id {
                out.push((p, "starts in parallel".into()));
            }
        }
    }
    let statuses = |st: &BTreeMap<String, Value>| -> Vec<(String, Value)> {
        st.get("promises")
            .and_then(crate::itf::entries)
            .map(|es| {
                es.into_iter()
                    .filter_map(|(k, v)| Some((k.as_str()?.to_string(), v.get("status")?.clone())))
                    .collect()
            })
            .unwrap_or_default()
    };
    let old_status = statuses(before);
    for (call, status) in statuses(after) {
        let was = old_status.iter().find(|(c, _)| *c == call).map(|(_, s)| s);
        let settled = matches!(tag_of(&status), Some("Fulfilled" | "Rejected"));
        if settled && was != Some(&status) {
            if let Some(c) = w.call_named(&call) {
                let d = &w.docs[w.calls[c.index()].doc.index()].name;
                out.push((
                    doc_participant(w, d),
                    format!("promise of {call}: {}", render(&status)),
                ));
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Step IDs, grouped by algorithm.

/// Consecutive step IDs of one algorithm: `(slug, [(id, "#15.5"), ...])`.
fn groups(ids: &[String]) -> Vec<(String, Vec<(String, String)>)> {
    let mut out: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for id in ids {
        let (slug, rest) = match id.split_once('#') {
            Some((s, r)) => (s.to_string(), format!("#{r}")),
            None => (id.clone(), id.clone()),
        };
        match out.last_mut() {
            Some((s, v)) if *s == slug => v.push((id.clone(), rest)),
            _ => out.push((slug, vec![(id.clone(), rest)])),
        }
    }
    out
}

fn summary_of(id: &str) -> &'static str {
    StepId::parse(id).map_or("", |s| s.info().summary)
}

// ---------------------------------------------------------------------------------------
// Text.

fn verdict_line(s: &Story) -> String {
    match (&s.property, s.verdict) {
        (Some((name, claim, about)), Some(Expect::Violated)) => format!(
            "VIOLATED: {name}. The property says: {claim}. It is about {}.",
            about.join(", ")
        ),
        (Some((name, claim, about)), _) => format!(
            "WITNESSED: {name}. This run shows that {claim} can happen ({}).",
            about.join(", ")
        ),
        _ => "The run ends here.".into(),
    }
}

fn text(s: &Story) -> String {
    let mut out = format!(
        "{}\nscenario {} (variant {}): {}\n\n",
        s.title, s.scenario, s.variant, s.summary
    );
    for (i, st) in s.steps.iter().enumerate() {
        out.push_str(&format!("{:>3}. [{}] {}\n", i + 1, st.actor.label, st.what));
        for (slug, ids) in groups(&st.steps) {
            let nums: Vec<&str> = ids.iter().map(|(_, n)| n.as_str()).collect();
            out.push_str(&format!(
                "       steps: {slug} {}  <{}>\n",
                nums.join(" "),
                step_url(&ids[0].0)
            ));
        }
        for (p, what) in &st.arrows {
            out.push_str(&format!("       -> {}: {what}\n", p.label));
        }
        for c in &st.changes {
            out.push_str(&format!("       {}\n", change_text(c)));
        }
        if st.more_changes > 0 {
            out.push_str(&format!(
                "       ... and {} more changes\n",
                st.more_changes
            ));
        }
    }
    out.push('\n');
    out.push_str(&verdict_line(s));
    out.push('\n');
    out
}

fn change_text(c: &Change) -> String {
    match (&c.before, &c.after) {
        (Some(b), Some(a)) => format!("{}: {b} -> {a}", c.path),
        (None, Some(a)) => format!("{}: added {a}", c.path),
        (Some(b), None) => format!("{}: removed {b}", c.path),
        (None, None) => c.path.clone(),
    }
}

// ---------------------------------------------------------------------------------------
// Markdown.

fn markdown(s: &Story) -> String {
    let mut out = format!("# {}\n\n", markdown_text(&s.title));
    out.push_str(&format!(
        "Scenario {} (variant {}): {}\n\n",
        markdown_code(&s.scenario),
        markdown_code(&s.variant),
        markdown_text(&s.summary)
    ));
    out.push_str("```mermaid\n");
    out.push_str(&mermaid(s));
    out.push_str("```\n\n");
    for (i, st) in s.steps.iter().enumerate() {
        out.push_str(&format!(
            "{}. **{}**: {}\n",
            i + 1,
            markdown_text(&st.actor.label),
            markdown_text(&st.what)
        ));
        for (slug, ids) in groups(&st.steps) {
            let links: Vec<String> = ids
                .iter()
                .map(|(id, n)| {
                    format!(
                        "[{}]({} \"{}\")",
                        markdown_text(n),
                        step_url(id),
                        summary_of(id).replace('"', "'")
                    )
                })
                .collect();
            out.push_str(&format!(
                "   - steps: {} {}\n",
                markdown_code(&slug),
                links.join(" ")
            ));
        }
        for (p, what) in &st.arrows {
            out.push_str(&format!(
                "   - → **{}**: {}\n",
                markdown_text(&p.label),
                markdown_text(what)
            ));
        }
        for c in &st.changes {
            out.push_str(&format!("   - {}\n", markdown_code(&change_text(c))));
        }
        if st.more_changes > 0 {
            out.push_str(&format!("   - … and {} more changes\n", st.more_changes));
        }
    }
    out.push_str(&format!("\n**{}**\n", markdown_text(&verdict_line(s))));
    out
}

// ---------------------------------------------------------------------------------------
// Mermaid.

/// Text Mermaid shows as is: anything outside a small safe set becomes an entity code
/// (`#35;` for `#`), which Mermaid decodes.
fn mm(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric()
            || matches!(
                c,
                ' ' | '.'
                    | ','
                    | '_'
                    | '-'
                    | '('
                    | ')'
                    | '/'
                    | '\''
                    | '='
                    | '+'
                    | '*'
                    | '?'
                    | '!'
                    | '['
                    | ']'
            )
        {
            out.push(c);
        } else {
            out.push_str(&format!("#{};", c as u32));
        }
    }
    out
}

fn step_range(ids: &[String]) -> String {
    match ids {
        [] => String::new(),
        [one] => one.clone(),
        [first, .., last] => {
            let last = match (first.split_once('#'), last.split_once('#')) {
                (Some((a, _)), Some((b, r))) if a == b => format!("#{r}"),
                _ => last.clone(),
            };
            format!("{first} to {last}")
        }
    }
}

/// Per participant id, the id a Mermaid diagram gives it: the id with each escaped
/// character as one `_` (readable, as a diagram's source is read), and where two would then
/// be the same, the later ones numbered (`_2`, `_3`, ...) in the order they first appear.
fn mermaid_ids(participants: &[Participant]) -> std::collections::HashMap<&str, String> {
    let short = |id: &str| {
        let mut out = String::with_capacity(id.len());
        let mut escaped = false;
        for c in id.chars() {
            match (c, escaped) {
                ('_', false) => {
                    escaped = true;
                    out.push('_');
                }
                ('_', true) => escaped = false,
                (_, true) => {}
                (c, false) => out.push(c),
            }
        }
        out
    };
    let mut given: std::collections::HashMap<&str, String> = Default::default();
    let mut taken: std::collections::HashSet<String> = Default::default();
    for p in participants {
        let base = short(&p.id);
        let mut id = base.clone();
        let mut n = 1;
        while !taken.insert(id.clone()) {
            n += 1;
            id = format!("{base}_{n}");
        }
        given.insert(&p.id, id);
    }
    given
}

fn mermaid(s: &Story) -> String {
    let mut out = String::from("sequenceDiagram\n");
    let ids = mermaid_ids(&s.participants);
    let id = |p: &Participant| {
        ids.get(p.id.as_str())
            .cloned()
            .unwrap_or_else(|| p.id.clone())
    };
    for p in &s.participants {
        out.push_str(&format!("    participant {} as {}\n", id(p), mm(&p.label)));
    }
    for (i, st) in s.steps.iter().enumerate() {
        let what: String = st.what.chars().take(90).collect();
        let ellipsis = if st.what.chars().count() > 90 {
            "..."
        } else {
            ""
        };
        out.push_str(&format!(
            "    {}->>{}: {}\n",
            id(&st.actor),
            id(&st.actor),
            mm(&format!("{}. {what}{ellipsis}", i + 1))
        ));
        if !st.steps.is_empty() {
            out.push_str(&format!(
                "    Note right of {}: {}\n",
                id(&st.actor),
                mm(&step_range(&st.steps))
            ));
        }
        for (p, what) in &st.arrows {
            let what: String = what.chars().take(80).collect();
            out.push_str(&format!(
                "    {}-){}: {}\n",
                id(&st.actor),
                id(p),
                mm(&what)
            ));
        }
    }
    if let (Some(first), Some(last)) = (s.participants.first(), s.participants.last()) {
        let span = if first.id == last.id {
            id(first)
        } else {
            format!("{},{}", id(first), id(last))
        };
        let line = match (&s.property, s.verdict) {
            (Some((name, _, _)), Some(Expect::Violated)) => format!("VIOLATED {name}"),
            (Some((name, _, _)), _) => format!("WITNESSED {name}"),
            _ => "end of the run".into(),
        };
        out.push_str(&format!("    Note over {span}: {}\n", mm(&line)));
    }
    out
}

// ---------------------------------------------------------------------------------------
// HTML.

fn h(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const CSS: &str = "body{font:15px/1.5 system-ui,sans-serif;max-width:64em;margin:2em auto;padding:0 1em;color:#1b1b1b}\
h1{font-size:1.5em}code,.c{font-family:ui-monospace,monospace;font-size:.9em}\
.sum{background:#f4f6f8;border-radius:.4em;padding:.6em 1em}\
ol.story>li{margin:.8em 0;padding:.4em .6em;border-left:4px solid #ccc}\
ol.story>li.Document{border-color:#2b6cb0}ol.story>li.Thread{border-color:#b7791f}\
ol.story>li.Browser,ol.story>li.EventLoop{border-color:#718096}ol.story>li.AiAgent{border-color:#805ad5}\
.who{font-weight:600}.role{font-size:.8em;color:#555;margin-left:.4em}\
.steps a{margin-right:.35em;text-decoration:none}.steps a:hover{text-decoration:underline}\
ul.ch{margin:.2em 0;padding-left:1.2em}ul.ch li{font-family:ui-monospace,monospace;font-size:.85em}\
.arrow{color:#2c7a7b}.verdict{margin-top:1.5em;padding:.8em 1em;border-radius:.4em;background:#fff5f5;border:1px solid #feb2b2}\
.verdict.w{background:#f0fff4;border-color:#9ae6b4}";

fn html(s: &Story) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        h(&s.title),
        h(&s.title)
    );
    out.push_str(&format!(
        "<p class=\"sum\">Scenario <code>{}</code> (variant <code>{}</code>): {}</p>\n<ol class=\"story\">\n",
        h(&s.scenario),
        h(&s.variant),
        h(&s.summary)
    ));
    for st in &s.steps {
        let role = match st.actor.role {
            Role::Document => "document",
            Role::Thread => "parallel thread",
            Role::EventLoop => "event loop",
            Role::Browser => "environment",
            Role::AiAgent => "AI agent queue",
        };
        out.push_str(&format!(
            "<li class=\"{:?}\"><span class=\"who\">{}</span><span class=\"role\">{role}</span><br>{}\n",
            st.actor.role,
            h(&st.actor.label),
            h(&st.what)
        ));
        for (slug, ids) in groups(&st.steps) {
            out.push_str(&format!("<div class=\"steps\"><code>{}</code> ", h(&slug)));
            for (id, n) in ids {
                out.push_str(&format!(
                    "<a href=\"{}\" title=\"{}\"><code>{}</code></a>",
                    h(&step_url(&id)),
                    h(summary_of(&id)),
                    h(&n)
                ));
            }
            out.push_str("</div>\n");
        }
        if !st.arrows.is_empty() || !st.changes.is_empty() {
            out.push_str("<ul class=\"ch\">\n");
            for (p, what) in &st.arrows {
                out.push_str(&format!(
                    "<li class=\"arrow\">&rarr; {}: {}</li>\n",
                    h(&p.label),
                    h(what)
                ));
            }
            for c in &st.changes {
                out.push_str(&format!("<li>{}</li>\n", h(&change_text(c))));
            }
            if st.more_changes > 0 {
                out.push_str(&format!(
                    "<li>&hellip; and {} more changes</li>\n",
                    st.more_changes
                ));
            }
            out.push_str("</ul>\n");
        }
        out.push_str("</li>\n");
    }
    out.push_str("</ol>\n");
    let class = if s.verdict == Some(Expect::Witnessed) {
        "verdict w"
    } else {
        "verdict"
    };
    out.push_str(&format!(
        "<div class=\"{class}\">{}</div>\n</body>\n</html>\n",
        h(&verdict_line(s))
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::{mermaid_ids, sanitize_id, Participant, Role};
    use proptest::prelude::*;
    use webmcp_model::error::markdown_code;

    proptest! {
        #![proptest_config(ProptestConfig { rng_seed: proptest::test_runner::RngSeed::Fixed(7), ..ProptestConfig::default() })]
        /// A code span holds whatever a trace names: no run of backticks inside it is as long
        /// as its fence, and it stays on one line.
        #[test]
        fn a_code_span_is_closed_only_by_its_own_fence(s in "[`a<>\\n\\r|x]{0,16}") {
            prop_assume!(!s.is_empty());
            let span = markdown_code(&s);
            let fence = span.chars().take_while(|&c| c == '`').count();
            prop_assert!(fence >= 1);
            prop_assert!(span.ends_with(&"`".repeat(fence)), "{}", span);
            let inner = &span[fence..span.len() - fence];
            let longest = inner.split(|c| c != '`').map(str::len).max().unwrap_or(0);
            prop_assert!(longest < fence, "{}", span);
            prop_assert!(!span.contains('\n') && !span.contains('\r'), "{}", span);
        }
    }

    #[test]
    fn a_tool_name_with_backticks_and_html_stays_inside_its_code_span() {
        assert_eq!(markdown_code("t1"), "`t1`");
        assert_eq!(markdown_code(""), "` `");
        assert_eq!(markdown_code("x``<b>x</b>``y"), "``` x``<b>x</b>``y ```");
        assert_eq!(markdown_code("a\n\nb"), "`a\\n\\nb`");
    }

    proptest! {
        /// Participant ids are Mermaid identifiers, and distinct keys get distinct ids.
        #[test]
        fn participant_ids_are_identifiers_and_never_shared(a in ".{0,12}", b in "[-._a-z0-9]{0,6}") {
            let (ia, ib) = (sanitize_id(&a), sanitize_id(&b));
            prop_assert!(ia.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "{}", ia);
            prop_assert_eq!(ia == ib, a == b, "{} / {} -> {}", a, b, ia);
        }
    }

    #[test]
    fn calls_whose_names_differ_only_in_punctuation_get_two_lifelines() {
        assert_ne!(sanitize_id("Execute(e.1)"), sanitize_id("Execute(e-1)"));
        assert_ne!(sanitize_id("a_b"), sanitize_id("a.b"));
        assert_eq!(sanitize_id("e1"), "e1");
        let thread = |key: &str| Participant {
            id: format!("T{}", sanitize_id(key)),
            label: key.to_string(),
            role: Role::Thread,
        };
        let ps = [
            thread("Execute(e.1)"),
            thread("Execute(e-1)"),
            thread("GetTools(list)"),
        ];
        let ids = mermaid_ids(&ps);
        assert_eq!(ids[ps[0].id.as_str()], "TExecute_e_1_");
        assert_eq!(ids[ps[1].id.as_str()], "TExecute_e_1__2");
        assert_eq!(ids[ps[2].id.as_str()], "TGetTools_list_");
    }
}
