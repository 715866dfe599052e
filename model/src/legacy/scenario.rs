//! The legacy scenario format (`scenarios/legacy/*.json`) and its compiled form.
//!
//! One page (one `Window`, hence one `navigator.modelContext`) runs named scripts ("callers"),
//! each a list of legacy method calls in program order; the agent runs a list of `list` /
//! `execute` requests in order; each tool name has a body program the environment steps
//! through once the tool is invoked. `docs/legacy.md` documents every field.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LegacyScenario {
    pub name: String,
    pub summary: String,
    pub description: String,
    /// Each caller's script (a script of the page), in program order.
    pub page: BTreeMap<String, Vec<PageOpSpec>>,
    /// The agent's requests, in order; it does not wait for a reply before the next one.
    #[serde(default)]
    pub agent: Vec<AgentOpSpec>,
    /// What an invoked tool body does, per tool name (default `["fulfil"]`).
    #[serde(default)]
    pub bodies: BTreeMap<String, Vec<BodyStep>>,
    #[serde(default)]
    pub environment: EnvironmentSpec,
    /// How the browser run steps the actors (`docs/legacy.md`, conformance).
    #[serde(default)]
    pub browser: Option<BrowserSpec>,
    /// Expected verdict per property ("witnessed", "violated"; others must hold).
    #[serde(default)]
    pub expect: BTreeMap<String, String>,
}

/// One call of a page script.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum PageOpSpec {
    ProvideContext(Vec<ToolSpec>),
    ClearContext,
    RegisterTool(ToolSpec),
    UnregisterTool(String),
}

/// A `ModelContextTool`: its name, and `annotations.readOnlyHint` when given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolSpec {
    Name(String),
    Full {
        name: String,
        #[serde(rename = "readOnlyHint", default)]
        read_only_hint: Option<bool>,
    },
}

impl ToolSpec {
    pub fn name(&self) -> &str {
        match self {
            ToolSpec::Name(n) | ToolSpec::Full { name: n, .. } => n,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum AgentOpSpec {
    /// `{"list": "l1"}`: list the tools; the result is called `l1`.
    List { list: String },
    /// `{"execute": "t", "as": "e1"}`: execute tool `t`; the execution is called `e1`.
    Execute {
        execute: String,
        #[serde(rename = "as")]
        label: String,
    },
}

/// One step of a tool body (`execute(input, client)`), taken when the environment chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BodyStep {
    /// The promise returned by `execute` fulfils.
    Fulfil,
    /// The promise returned by `execute` rejects.
    Reject,
    /// The body calls `client.requestUserInteraction(callback)`.
    RequestUserInteraction,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvironmentSpec {
    /// The page may be unloaded at any moment.
    #[serde(default)]
    pub unload: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrowserSpec {
    /// Actors to step in order: a caller name, `agent`, `body:LABEL`, `user:LABEL`; a leading
    /// `+` runs the step in the same task as the previous one.
    pub schedule: Vec<String>,
}

/// Index of a tool name in [`LegacyWorld::names`].
pub type NameId = u8;
/// Index of a tool definition in [`LegacyWorld::defs`].
pub type DefId = u8;

/// A tool as one call defined it: which name, which call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefInfo {
    pub name: NameId,
    pub caller: u8,
    /// `caller#op`: the call that passed this dictionary.
    pub label: String,
    pub read_only_hint: Option<bool>,
    pub by_register: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PageOp {
    /// The definitions, in list order.
    Provide(Vec<DefId>),
    Clear,
    Register(DefId),
    Unregister(NameId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentOp {
    /// Index into the list results.
    List(u8),
    /// Index into the executions, and the tool name requested.
    Execute(u8, NameId),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    pub name: String,
    pub ops: Vec<PageOp>,
}

/// A compiled legacy scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegacyWorld {
    pub name: String,
    pub summary: String,
    pub names: Vec<String>,
    pub defs: Vec<DefInfo>,
    pub callers: Vec<Caller>,
    pub agent: Vec<AgentOp>,
    pub list_labels: Vec<String>,
    /// Per execution: its label and the tool name requested.
    pub exec_labels: Vec<String>,
    pub exec_names: Vec<NameId>,
    /// Per tool name: the body program.
    pub bodies: Vec<Vec<BodyStep>>,
    pub unload: bool,
    pub browser: Option<BrowserSpec>,
    pub expect: BTreeMap<String, String>,
    /// The scenario's JSON text.
    pub source: String,
}

const MAX: usize = 64;

impl LegacyWorld {
    pub fn from_json(text: &str) -> Result<LegacyWorld, String> {
        let s: LegacyScenario = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let mut w = LegacyWorld::compile(&s)?;
        w.source = text.to_string();
        Ok(w)
    }

    pub fn compile(s: &LegacyScenario) -> Result<LegacyWorld, String> {
        let mut w = LegacyWorld {
            name: s.name.clone(),
            summary: s.summary.clone(),
            names: Vec::new(),
            defs: Vec::new(),
            callers: Vec::new(),
            agent: Vec::new(),
            list_labels: Vec::new(),
            exec_labels: Vec::new(),
            exec_names: Vec::new(),
            bodies: Vec::new(),
            unload: s.environment.unload,
            browser: s.browser.clone(),
            expect: s.expect.clone(),
            source: String::new(),
        };
        if s.page.is_empty() {
            return Err("a legacy scenario needs at least one page script".into());
        }
        for (ci, (caller, ops)) in s.page.iter().enumerate() {
            if caller == "agent" || caller.contains(':') || caller.contains('#') {
                return Err(format!(
                    "caller name \"{caller}\" is reserved or contains ':' or '#'"
                ));
            }
            let mut compiled = Vec::new();
            for (oi, op) in ops.iter().enumerate() {
                let label = format!("{caller}#{oi}");
                compiled.push(match op {
                    PageOpSpec::ProvideContext(tools) => PageOp::Provide(
                        tools
                            .iter()
                            .map(|t| w.def(t, ci, &label, false))
                            .collect::<Result<_, _>>()?,
                    ),
                    PageOpSpec::ClearContext => PageOp::Clear,
                    PageOpSpec::RegisterTool(t) => PageOp::Register(w.def(t, ci, &label, true)?),
                    PageOpSpec::UnregisterTool(n) => PageOp::Unregister(w.intern(n)?),
                });
            }
            w.callers.push(Caller {
                name: caller.clone(),
                ops: compiled,
            });
        }
        let mut labels = std::collections::BTreeSet::new();
        for op in &s.agent {
            match op {
                AgentOpSpec::List { list } => {
                    w.check_label(list, &mut labels)?;
                    w.agent.push(AgentOp::List(w.list_labels.len() as u8));
                    w.list_labels.push(list.clone());
                }
                AgentOpSpec::Execute { execute, label } => {
                    w.check_label(label, &mut labels)?;
                    let name = w.intern(execute)?;
                    w.agent
                        .push(AgentOp::Execute(w.exec_labels.len() as u8, name));
                    w.exec_labels.push(label.clone());
                    w.exec_names.push(name);
                }
            }
        }
        for (name, steps) in &s.bodies {
            if !w.names.contains(name) {
                return Err(format!("body for \"{name}\", a tool no call defines"));
            }
            let settles = steps
                .iter()
                .filter(|b| **b != BodyStep::RequestUserInteraction)
                .count();
            if settles > 1 {
                return Err(format!("body of \"{name}\" settles more than once"));
            }
        }
        w.bodies = w
            .names
            .iter()
            .map(|n| s.bodies.get(n).cloned().unwrap_or(vec![BodyStep::Fulfil]))
            .collect();
        if w.defs.len() > MAX || w.agent.len() > MAX || w.callers.len() > 8 {
            return Err(format!(
                "scenario too large: at most {MAX} tool dictionaries, {MAX} agent requests, 8 callers"
            ));
        }
        if let Some(b) = &w.browser {
            w.check_schedule(b)?;
        }
        Ok(w)
    }

    fn intern(&mut self, name: &str) -> Result<NameId, String> {
        if name.is_empty() {
            return Err("a tool name must not be empty".into());
        }
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return Ok(i as NameId);
        }
        if self.names.len() >= MAX {
            return Err(format!("at most {MAX} tool names"));
        }
        self.names.push(name.to_string());
        Ok((self.names.len() - 1) as NameId)
    }

    fn def(
        &mut self,
        t: &ToolSpec,
        caller: usize,
        label: &str,
        by_register: bool,
    ) -> Result<DefId, String> {
        let name = self.intern(t.name())?;
        self.defs.push(DefInfo {
            name,
            caller: caller as u8,
            label: label.to_string(),
            read_only_hint: match t {
                ToolSpec::Full { read_only_hint, .. } => *read_only_hint,
                ToolSpec::Name(_) => None,
            },
            by_register,
        });
        Ok((self.defs.len() - 1) as DefId)
    }

    fn check_label(
        &self,
        label: &str,
        seen: &mut std::collections::BTreeSet<String>,
    ) -> Result<(), String> {
        if label.is_empty() || !seen.insert(label.to_string()) {
            return Err(format!("agent label \"{label}\" is empty or used twice"));
        }
        Ok(())
    }

    fn check_schedule(&self, b: &BrowserSpec) -> Result<(), String> {
        for entry in &b.schedule {
            let actor = entry.strip_prefix('+').unwrap_or(entry);
            let known = actor == "agent"
                || self.callers.iter().any(|c| c.name == actor)
                || actor
                    .strip_prefix("body:")
                    .or_else(|| actor.strip_prefix("user:"))
                    .is_some_and(|l| self.exec_labels.iter().any(|e| e == l));
            if !known {
                return Err(format!("browser schedule: unknown actor \"{entry}\""));
            }
        }
        Ok(())
    }

    /// The tool name a definition carries.
    pub fn def_name(&self, d: DefId) -> &str {
        &self.names[self.defs[d as usize].name as usize]
    }
}
