//! Replaying a trace: rebuild the scenario and variant, take each recorded action (checking it
//! is enabled), compare every recorded variable with the model's, and judge the property on
//! the last state.

use webmcp_model::machine::{Action, WebMcpModel};
use webmcp_profiles::PropertyDef;

use crate::diff::first_difference;
use crate::encode::action_text;
use crate::reader::Loaded;
use crate::trace::{itf_state, Expect};

/// Where and how a replay departs from the recorded trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The index of the state that differs (0 is the initial state; state i follows action i).
    pub index: usize,
    /// The action that led to it, in text.
    pub action: Option<String>,
    pub detail: String,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.action {
            Some(a) => write!(f, "step {} ({a}): {}", self.index, self.detail),
            None => write!(f, "initial state: {}", self.detail),
        }
    }
}

/// The longest text of a value or path a divergence quotes whole; a trace is untrusted, and
/// one of its strings may hold 16 MiB.
const MAX_QUOTED_CHARS: usize = 200;

/// `text`, or its first [`MAX_QUOTED_CHARS`] characters and how long it is in all.
fn clipped(text: &str) -> String {
    let line = |t: &str| crate::limits::one_line(t, usize::MAX);
    match text.char_indices().nth(MAX_QUOTED_CHARS) {
        None => line(text),
        Some((end, _)) => format!("{}… ({} bytes in all)", line(&text[..end]), text.len()),
    }
}

/// What a replay found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replayed {
    /// Every action was enabled and every recorded variable reproduced; when the trace names
    /// a property, its last state shows the recorded verdict, first after `shows_at` actions.
    Reproduced {
        shows_at: Option<usize>,
    },
    Diverged(Divergence),
}

/// Replays a loaded trace against the model.
pub fn replay(l: &Loaded) -> Replayed {
    let model = &l.model;
    let w = &*model.world;
    let t = &l.trace;
    let mut s = model.initial_state();
    let mut shows_at = None;
    for i in 0..t.states.len() {
        let action = if i == 0 { None } else { Some(t.actions[i - 1]) };
        let mut steps = Vec::new();
        if let Some(a) = action {
            if !model.is_enabled(&s, a) {
                let mut enabled = Vec::new();
                model.enabled_actions(&s, &mut enabled);
                let list: Vec<String> = enabled.iter().map(|e| action_text(w, e)).collect();
                return Replayed::Diverged(Divergence {
                    index: i,
                    action: Some(action_text(w, &a)),
                    detail: format!(
                        "the action is not enabled here (enabled: {})",
                        if list.is_empty() {
                            "none".to_string()
                        } else {
                            list.join(", ")
                        }
                    ),
                });
            }
            s = model.apply(&s, a, &mut steps);
        }
        let actual = itf_state(model, &s, action.as_ref(), &steps);
        for (j, var) in t.vars.iter().enumerate() {
            let detail = match actual.get(var) {
                None => Some(format!(
                    "{}: the trace records a variable the model does not have",
                    clipped(var)
                )),
                // The text the writer gives is the same (fast, and nothing to decode);
                // otherwise decode the recorded value and compare it as ITF.
                Some(a)
                    if serde_json::to_string(a).ok().as_deref()
                        == t.states[i].get(j).map(|text| &**text) =>
                {
                    None
                }
                Some(a) => first_difference(var, &t.value(i, j), a).map(|c| {
                    format!(
                        "{}: expected {}, actual {}",
                        clipped(&c.path),
                        clipped(c.before.as_deref().unwrap_or("<absent>")),
                        clipped(c.after.as_deref().unwrap_or("<absent>"))
                    )
                }),
            };
            if let Some(detail) = detail {
                return Replayed::Diverged(Divergence {
                    index: i,
                    action: action.map(|a| action_text(w, &a)),
                    detail,
                });
            }
        }
        if let Some(def) = &l.property {
            if shows_at.is_none() && def.shows(model, &s) {
                shows_at = Some(i);
            }
        }
    }
    if let (Some(def), Some(expect)) = (&l.property, t.meta.expect) {
        if !def.shows(model, &s) {
            let n = t.actions.len();
            return Replayed::Diverged(Divergence {
                index: n,
                action: t.actions.last().map(|a| action_text(w, a)),
                detail: match expect {
                    Expect::Violated => format!(
                        "the last state does not violate {} (the trace records a violation)",
                        def.name
                    ),
                    Expect::Witnessed => format!(
                        "the last state does not witness {} (the trace records a witness)",
                        def.name
                    ),
                },
            });
        }
    }
    Replayed::Reproduced { shows_at }
}

/// Runs `actions` from the initial state; `None` when one is not enabled where it is taken,
/// otherwise the number of actions after which `def`'s outcome first shows (if it does).
pub fn first_showing(
    model: &WebMcpModel,
    def: &PropertyDef,
    actions: &[Action],
) -> Option<Option<usize>> {
    let mut s = model.initial_state();
    if def.shows(model, &s) {
        return Some(Some(0));
    }
    for (i, a) in actions.iter().enumerate() {
        if !model.is_enabled(&s, *a) {
            return None;
        }
        s = model.apply(&s, *a, &mut ());
        if def.shows(model, &s) {
            return Some(Some(i + 1));
        }
    }
    Some(None)
}
