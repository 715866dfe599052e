//! Observations: what the pages of one run saw, as a map from "DOC: KEY" to a
//! value string, built either from the pages' reports or from a model state.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use webmcp_browser::Report;
use webmcp_model::state::{Lifecycle, ScriptStatus, State, Status, Value as MValue};
use webmcp_model::world::{DocId, Op};
use webmcp_model::{Variant, World};

use crate::form::BrowserForm;

/// "DOC: KEY" -> value. Keys: `script`, `toolchange`, `call LABEL`,
/// `controller NAME`, `iframe NAV`, `invoke TOOL` (each invocation's input, its signal
/// when invoked and at the end, and whether it ran inside the `executeTool()` call or
/// later; the model's bodies always run later, from a task). Documents that were
/// destroyed (their iframe removed) contribute nothing: nothing can be seen
/// of them afterwards.
pub type Observation = BTreeMap<String, String>;

/// What a run showed besides the observation: the surfaces the pages exposed, the API
/// the run used, which statements ran, when the interventions landed, and behaviour
/// outside the draft (non-promise returns, synchronous throws, ...).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BrowserRun {
    pub observation: Observation,
    pub api: BTreeSet<String>,
    pub surfaces: BTreeSet<String>,
    /// (document, statement index) of every statement that started.
    pub ran: BTreeSet<(String, usize)>,
    /// Document -> when its interventions landed.
    pub intervened: BTreeMap<String, String>,
    pub notes: BTreeSet<String>,
}

/// Folds the reports of one page run (last value per key wins).
pub fn from_reports(form: &BrowserForm, reports: &[Report]) -> BrowserRun {
    let mut last: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut run = BrowserRun::default();
    let mut ordered: Vec<&Report> = reports.iter().collect();
    // Stable: reports without a sequence number keep their arrival order.
    ordered.sort_by_key(|r| {
        (
            r.value["doc"].as_str().map(str::to_string),
            r.value["seq"].as_u64(),
        )
    });
    for r in ordered {
        let (Some(doc), Some(key)) = (r.value["doc"].as_str(), r.value["key"].as_str()) else {
            continue;
        };
        let value = match &r.value["value"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        match key {
            "note" => {
                run.notes.insert(format!("{doc}: {value}"));
            }
            "api" => {
                run.api.insert(value);
            }
            "surfaces" => {
                run.surfaces.insert(value);
            }
            "ran" => {
                if let Ok(i) = value.parse() {
                    run.ran.insert((doc.to_string(), i));
                }
            }
            "intervened" => {
                run.intervened.insert(doc.to_string(), value);
            }
            _ => {
                last.insert((doc.to_string(), key.to_string()), value);
            }
        }
    }
    let destroyed = destroyed_docs(form, |nav| {
        form.docs.iter().any(|d| {
            last.get(&(d.name.clone(), format!("iframe {nav}")))
                .is_some_and(|v| v == "removed")
        })
    });
    let mut invocations: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for ((doc, key), value) in last {
        if destroyed.contains(&doc) {
            continue;
        }
        if let Some(rest) = key.strip_prefix("invoke ") {
            let tool = rest.rsplit_once(" #").map_or(rest, |(t, _)| t);
            invocations
                .entry((doc, tool.to_string()))
                .or_default()
                .push(value);
        } else {
            run.observation.insert(format!("{doc}: {key}"), value);
        }
    }
    for ((doc, tool), mut values) in invocations {
        values.sort();
        run.observation
            .insert(format!("{doc}: invoke {tool}"), values.join("; "));
    }
    run
}

/// The documents inside a removed iframe (transitively).
fn destroyed_docs(form: &BrowserForm, removed: impl Fn(&str) -> bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for d in &form.docs {
        for f in &d.iframes {
            if out.contains(&d.name) || removed(&f.nav) {
                out.insert(f.doc.clone());
            }
        }
    }
    out
}

/// The observation a page would report from model state `s`.
pub fn from_state(w: &World, variant: Variant, s: &State) -> Observation {
    let mut obs = Observation::new();
    for (d, doc) in w.docs.iter().enumerate() {
        let ds = &s.docs[d];
        if ds.lifecycle != Lifecycle::FullyActive {
            continue;
        }
        let name = &doc.name;
        let st = ds.script;
        let script = match st.status {
            ScriptStatus::NotStarted => "not started".to_string(),
            ScriptStatus::Finished => "finished".to_string(),
            ScriptStatus::Ready => "running".to_string(),
            ScriptStatus::AwaitingCall(_) | ScriptStatus::AwaitingToolchange => {
                format!("waiting at {}", st.pc.saturating_sub(1))
            }
            ScriptStatus::Threw => format!("threw at {}", st.pc),
        };
        obs.insert(format!("{name}: script"), script);
        obs.insert(
            format!("{name}: toolchange"),
            ds.toolchanges.min(3).to_string(),
        );
        for (c, ctrl) in w.controllers.iter().enumerate() {
            if ctrl.owner.index() == d {
                let v = if s.controllers[c].aborted {
                    "aborted"
                } else {
                    "live"
                };
                obs.insert(format!("{name}: controller {}", ctrl.name), v.into());
            }
        }
        for nav in w.child_navs(DocId::nth(d)) {
            let v = if s.navs[nav.index()].attached {
                "attached"
            } else {
                "removed"
            };
            obs.insert(
                format!("{name}: iframe {}", w.navs[nav.index()].name),
                v.into(),
            );
        }
        for op in &doc.script {
            let call = match op {
                Op::Register(r) => r.call,
                Op::GetTools(g) => g.call,
                Op::Execute(e) => e.call,
                _ => continue,
            };
            if let Some(v) = describe_call(w, &s.promises[call.index()].status) {
                obs.insert(format!("{name}: call {}", w.calls[call.index()].label), v);
            }
        }
    }
    let mut invocations: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (uuid, body) in s.bodies.iter() {
        if s.docs[body.target.index()].lifecycle != Lifecycle::FullyActive {
            continue;
        }
        let tool = w.str(w.register_op(body.registered_by).name);
        let input = match w.execute_op(*uuid).input_json(variant) {
            Ok(id) => canonical_json(w.str(id)),
            Err(_) => "unserializable".into(),
        };
        let later = if body.signal_aborted {
            "aborted"
        } else {
            "live"
        };
        invocations
            .entry(format!(
                "{}: invoke {tool}",
                w.docs[body.target.index()].name
            ))
            .or_default()
            .push(format!("input={input} signal=live/{later} when=later"));
    }
    for (k, mut v) in invocations {
        v.sort();
        obs.insert(k, v.join("; "));
    }
    obs
}

fn canonical_json(text: &str) -> String {
    serde_json::from_str::<Value>(text).map_or_else(|_| text.to_string(), |v| v.to_string())
}

fn describe_call(w: &World, status: &Status) -> Option<String> {
    Some(match status {
        Status::NotCalled => return None,
        Status::Pending => "pending".into(),
        Status::Fulfilled(MValue::Undefined) => "fulfilled undefined".into(),
        Status::Fulfilled(MValue::Text(t)) => format!("fulfilled string {}", w.str(*t)),
        Status::Fulfilled(MValue::Tools(tools)) => {
            let items: Vec<String> = tools
                .iter()
                .map(|t| {
                    format!(
                        "{} @{} in {}",
                        w.str(t.name),
                        w.str(t.origin),
                        w.docs[t.window.index()].name
                    )
                })
                .collect();
            format!("fulfilled tools [{}]", items.join(", "))
        }
        Status::Rejected(r) => format!("rejected {}", r.name()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form::derive;
    use serde_json::json;
    use webmcp_browser::Origin;

    fn form(name: &str) -> BrowserForm {
        let path = format!("{}/../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
        derive(&serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()).unwrap()
    }

    fn report(doc: &str, seq: u64, key: &str, value: Value) -> Report {
        Report {
            origin: Origin::Primary,
            value: json!({"doc": doc, "seq": seq, "key": key, "value": value}),
        }
    }

    #[test]
    fn folds_by_sequence_not_arrival_and_groups_invocations() {
        let f = form("two-concurrent-executions");
        let reports = vec![
            report("top", 3, "script", json!("finished")),
            report("top", 0, "script", json!("running")),
            report(
                "top",
                1,
                "invoke t1 #1",
                json!("input={} signal=live/live when=later"),
            ),
            report(
                "top",
                2,
                "invoke t1 #0",
                json!("input={} signal=live/aborted when=later"),
            ),
            report("top", 4, "toolchange", json!(1)),
            report("top", 5, "note", json!("x returned undefined")),
            report("top", 6, "api", json!("document.modelContext")),
        ];
        let run = from_reports(&f, &reports);
        assert_eq!(run.observation["top: script"], "finished");
        assert_eq!(run.observation["top: toolchange"], "1");
        assert_eq!(
            run.observation["top: invoke t1"],
            "input={} signal=live/aborted when=later; input={} signal=live/live when=later"
        );
        assert!(run.notes.contains("top: x returned undefined"));
        assert!(run.api.contains("document.modelContext"));
        assert_eq!(run.observation.len(), 3);
    }

    #[test]
    fn a_removed_iframe_hides_its_document() {
        let f = form("target-unloaded-mid-execution");
        let reports = vec![
            report("child", 0, "script", json!("finished")),
            report("top", 0, "iframe frame", json!("attached")),
            report("top", 1, "iframe frame", json!("removed")),
        ];
        let run = from_reports(&f, &reports);
        assert_eq!(run.observation.len(), 1);
        assert_eq!(run.observation["top: iframe frame"], "removed");
    }
}
