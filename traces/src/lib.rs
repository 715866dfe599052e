//! # webmcp-traces
//!
//! Counterexample traces of the WebMCP model, told in the draft's terms: who acts, what the
//! step does, and which step IDs it executes.
//!
//! - [`trace`], [`encode`], [`itf`]: traces as ITF (`.itf.json`) files, written by `check`
//!   ([`export`]);
//! - [`reader`], [`replay`]: reading a trace back and re-executing it against the model;
//! - [`limits`], [`error`]: trace files are untrusted input: the limits on reading them, and
//!   why a command refused one;
//! - [`minimize`]: delta debugging over a trace's actions;
//! - [`explain`], [`anchors`]: narratives (text, Markdown, Mermaid, HTML) linked to the draft;
//! - [`corpus`]: the corpus of findings in `traces/corpus/`;
//! - [`commands`]: the `replay`, `minimize`, `explain` commands of the CLI;
//! - the documents generated from check results, in one place: [`findings`]
//!   (`docs/findings.md`), [`properties_doc`] (`docs/properties.md`) and [`results_doc`]
//!   (`docs/results.md`).
//!
//! `docs/traces.md` documents the format and the commands.

pub mod anchors;
pub mod commands;
pub mod corpus;
pub mod diff;
pub mod encode;
pub mod error;
pub mod explain;
pub mod export;
pub mod findings;
pub mod itf;
pub mod limits;
pub mod minimize;
pub mod properties_doc;
pub mod reader;
pub mod replay;
pub mod results_doc;
pub mod trace;

use webmcp_model::machine::Action;
use webmcp_model::steps::StepId;
use webmcp_model::threads::ThreadKey;
use webmcp_model::world::{CallId, DocId, World};

/// The published draft, whose anchors step IDs link to.
pub const DRAFT_URL: &str = "https://webmachinelearning.github.io/webmcp/";

/// Who performs an action: a document's event loop, a parallel thread, or the environment.
pub fn actor(w: &World, a: &Action) -> String {
    let doc = |d: DocId| w.docs[d.index()].name.clone();
    let call = |c: CallId| w.calls[c.index()].label.clone();
    match *a {
        Action::RunScript(d) => format!("event loop of {}", doc(d)),
        Action::RunTask(agent) => format!("event loop {}", w.agents[agent.index()]),
        Action::Step(k) => match k {
            ThreadKey::Register(c) => format!("in parallel: registerTool {}", call(c)),
            ThreadKey::Unregister(c) => format!("in parallel: unregister {}", call(c)),
            ThreadKey::GetTools(c) => format!("in parallel: getTools {}", call(c)),
            ThreadKey::Execute(c) => format!("in parallel: executeTool {}", call(c)),
            ThreadKey::Completion(c) => format!("in parallel: completion steps of {}", call(c)),
            ThreadKey::CleanupCompletion(c, _) => {
                format!(
                    "in parallel: completion steps of {} (from unload cleanup)",
                    call(c)
                )
            }
            ThreadKey::CancelOnAbort(c) => format!("in parallel: cancel {}", call(c)),
            ThreadKey::Cleanup(d, n) => {
                format!("in parallel: unload cleanup #{} of {}", n + 1, doc(d))
            }
        },
        Action::SettleTool(c, _) => format!("tool body of {}", call(c)),
        Action::Abort(c) => format!("page script of {}", doc(w.controllers[c.index()].owner)),
        Action::RemoveIframe(_)
        | Action::Navigate(_)
        | Action::EnterBfcache(_)
        | Action::RestoreFromBfcache(_)
        | Action::EvictFromBfcache(_) => "browser".to_string(),
        Action::Observe(_) => "AI agent queue".to_string(),
    }
}

/// What an action does, in words.
pub fn describe(w: &World, a: &Action) -> String {
    let doc = |d: DocId| w.docs[d.index()].name.clone();
    let call = |c: CallId| w.calls[c.index()].label.clone();
    match *a {
        Action::RunScript(d) => format!("{} runs its script", doc(d)),
        Action::RunTask(_) => "runs its oldest runnable webmcp task".to_string(),
        Action::Step(k) => match k {
            ThreadKey::Cleanup(..) => {
                "takes one step of the unloading document cleanup steps".to_string()
            }
            _ => "takes one step".to_string(),
        },
        Action::SettleTool(c, o) => {
            format!("the execute callback of {} settles: {}", call(c), o.name())
        }
        Action::Abort(c) => format!("{}.abort()", w.controllers[c.index()].name),
        Action::RemoveIframe(n) => {
            format!("removes the iframe of navigable {}", w.navs[n.index()].name)
        }
        Action::Navigate(n) => format!("navigates {} away", w.navs[n.index()].name),
        Action::EnterBfcache(t) => format!(
            "tab {} enters the back/forward cache",
            w.tabs[t.index()].name
        ),
        Action::RestoreFromBfcache(t) => format!(
            "tab {} is restored from the back/forward cache",
            w.tabs[t.index()].name
        ),
        Action::EvictFromBfcache(t) => format!(
            "tab {} is evicted from the back/forward cache",
            w.tabs[t.index()].name
        ),
        Action::Observe(t) => format!("performs an observation of tab {}", w.tabs[t.index()].name),
    }
}

/// The steps of one action, compressed: consecutive steps shown once, as `id, id, ...`.
pub fn step_list(steps: &[StepId]) -> String {
    let mut ids: Vec<&str> = Vec::new();
    for s in steps {
        if ids.last() != Some(&s.id()) {
            ids.push(s.id());
        }
    }
    ids.join(", ")
}

/// A numbered narrative of a path of (action, steps).
pub fn narrate<'a>(
    w: &World,
    path: impl IntoIterator<Item = (&'a Action, &'a [StepId])>,
) -> String {
    let mut out = String::new();
    for (i, (a, steps)) in path.into_iter().enumerate() {
        out.push_str(&format!(
            "{:>3}. [{}] {}",
            i + 1,
            actor(w, a),
            describe(w, a)
        ));
        if !steps.is_empty() {
            out.push_str(&format!("  ({})", step_list(steps)));
        }
        out.push('\n');
    }
    out
}
