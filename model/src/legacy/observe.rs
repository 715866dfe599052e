//! What a page and an agent can see of a run: the observation a browser run reports and the
//! model must allow (`webmcp-check legacy-conformance`).

use std::collections::BTreeMap;

use super::scenario::LegacyWorld;
use super::state::{CallOutcome, ExecStatus, LegacyState, ListResult, Promise, Reply};

/// Observation key -> value, compared as a whole.
pub type Observation = BTreeMap<String, String>;

/// The observation of a state (meant for terminal states).
///
/// - `CALLER#N`: `returned` / `threw` / `not-run`;
/// - `LIST`: the listed names, sorted and comma-separated, or `no-page` / `not-run`;
/// - `EXEC`: `result` / `error` / `pending`; `EXEC.tool`: the call whose dictionary ran, or
///   `none`; `EXEC.at-start`: whether the tool was in the set when its body started;
/// - `EXEC.rui#K`: `callback+fulfilled` / `callback+pending` / `rejected`.
pub fn observation(w: &LegacyWorld, s: &LegacyState) -> Observation {
    let mut o = Observation::new();
    for (c, caller) in w.callers.iter().enumerate() {
        for (i, out) in s.outcomes[c].iter().enumerate() {
            let v = match out {
                Some(CallOutcome::Returned) => "returned",
                Some(CallOutcome::Threw) => "threw",
                None => "not-run",
            };
            o.insert(format!("{}#{i}", caller.name), v.into());
        }
    }
    for (l, label) in w.list_labels.iter().enumerate() {
        let v = match &s.lists[l] {
            Some(ListResult::Tools(defs)) => {
                let mut names: Vec<&str> = defs.iter().map(|d| w.def_name(*d)).collect();
                names.sort_unstable();
                names.join(",")
            }
            Some(ListResult::NoPage) => "no-page".into(),
            None => "not-run".into(),
        };
        o.insert(label.clone(), v);
    }
    for (e, label) in w.exec_labels.iter().enumerate() {
        let x = &s.execs[e];
        let reply = match x.reply {
            Some(Reply::Result) => "result",
            Some(_) => "error",
            None => "pending",
        };
        o.insert(label.clone(), reply.into());
        let tool = match x.status {
            ExecStatus::Running(d) | ExecStatus::Settled(d) => w.defs[d as usize].label.clone(),
            _ => "none".into(),
        };
        o.insert(format!("{label}.tool"), tool);
        if let Some(in_set) = x.started_in_set {
            let v = if in_set { "in-set" } else { "not-in-set" };
            o.insert(format!("{label}.at-start"), v.into());
        }
        for (k, r) in x.ruis.iter().enumerate() {
            let v = match (r.callback_ran, r.promise) {
                (true, Promise::Fulfilled) => "callback+fulfilled",
                (true, _) => "callback+pending",
                (false, _) => "rejected",
            };
            o.insert(format!("{label}.rui#{k}"), v.into());
        }
    }
    o
}
