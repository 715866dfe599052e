//! The legacy scenario format (`scenarios/legacy/*.json`) and its compiled form.
//!
//! One page (one `Window`, hence one `navigator.modelContext`) runs named scripts ("callers"),
//! each a list of legacy method calls in program order; the agent runs a list of `list` /
//! `execute` requests in order; each tool name has a body program the environment steps
//! through once the tool is invoked. `docs/legacy.md` documents every field.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{
    check_name, check_page_string, check_scenario_name, check_text, quoted, ErrorKind,
    ScenarioError,
};
use crate::limits::Limit;
use crate::validate::at_most;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LegacyScenario {
    pub name: String,
    pub summary: String,
    pub description: String,
    /// Each caller's script (a script of the page), in program order.
    #[serde(deserialize_with = "crate::scenario::unique_keys")]
    pub page: BTreeMap<String, Vec<PageOpSpec>>,
    /// The agent's requests, in order; it does not wait for a reply before the next one.
    #[serde(default)]
    pub agent: Vec<AgentOpSpec>,
    /// What an invoked tool body does, per tool name (default `["fulfil"]`).
    #[serde(default, deserialize_with = "crate::scenario::unique_keys")]
    pub bodies: BTreeMap<String, Vec<BodyStep>>,
    #[serde(default)]
    pub environment: EnvironmentSpec,
    /// How the browser run steps the actors (`docs/legacy.md`, conformance).
    #[serde(default)]
    pub browser: Option<BrowserSpec>,
    /// Expected verdict per property ("witnessed", "violated"; others must hold).
    #[serde(default, deserialize_with = "crate::scenario::unique_keys")]
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
#[serde(
    untagged,
    deny_unknown_fields,
    expecting = "a tool is its name (a string) or {\"name\": NAME, \"readOnlyHint\": BOOL}"
)]
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
#[serde(
    untagged,
    deny_unknown_fields,
    expecting = "an agent request is {\"list\": LABEL} or {\"execute\": TOOL, \"as\": LABEL}"
)]
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

impl LegacyWorld {
    /// Parses a legacy scenario file's text (a leading UTF-8 byte-order mark is ignored).
    pub fn from_json(text: &str) -> Result<LegacyWorld, ScenarioError> {
        let text = crate::error::precheck(text)?;
        let s: LegacyScenario =
            serde_json::from_str(text).map_err(|e| crate::error::from_serde(&e))?;
        crate::error::strictly::<LegacyScenario>(text)?;
        let mut w = LegacyWorld::compile(&s)?;
        w.source = text.to_string();
        Ok(w)
    }

    /// Checks a legacy scenario (names, strings and [`crate::limits`] first) and lowers it.
    pub fn compile(s: &LegacyScenario) -> Result<LegacyWorld, ScenarioError> {
        validate(s)?;
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
            return Err(ScenarioError::invalid(
                "page",
                "a legacy scenario needs at least one page script",
            ));
        }
        for (ci, (caller, ops)) in s.page.iter().enumerate() {
            let at = format!("page.{caller}");
            if caller == "agent" || caller.contains(':') || caller.contains('#') {
                return Err(ScenarioError::at(
                    at,
                    ErrorKind::BadName {
                        what: "caller name",
                        name: caller.clone(),
                        rule: "is reserved or contains ':' or '#'",
                    },
                ));
            }
            let ci = index(&at, ci, Limit::LegacyCallers)?;
            let mut compiled = Vec::new();
            for (oi, op) in ops.iter().enumerate() {
                let label = format!("{caller}#{oi}");
                let at = format!("{at}[{oi}]");
                compiled.push(match op {
                    PageOpSpec::ProvideContext(tools) => PageOp::Provide(
                        tools
                            .iter()
                            .map(|t| w.def(&at, t, ci, &label, false))
                            .collect::<Result<_, _>>()?,
                    ),
                    PageOpSpec::ClearContext => PageOp::Clear,
                    PageOpSpec::RegisterTool(t) => {
                        PageOp::Register(w.def(&at, t, ci, &label, true)?)
                    }
                    PageOpSpec::UnregisterTool(n) => PageOp::Unregister(w.intern(&at, n)?),
                });
            }
            w.callers.push(Caller {
                name: caller.clone(),
                ops: compiled,
            });
        }
        let mut labels = std::collections::BTreeSet::new();
        for (i, op) in s.agent.iter().enumerate() {
            let at = format!("agent[{i}]");
            match op {
                AgentOpSpec::List { list } => {
                    check_label(&at, list, &mut labels)?;
                    let l = index(&at, w.list_labels.len(), Limit::LegacyRequests)?;
                    w.agent.push(AgentOp::List(l));
                    w.list_labels.push(list.clone());
                }
                AgentOpSpec::Execute { execute, label } => {
                    check_label(&at, label, &mut labels)?;
                    let name = w.intern(&at, execute)?;
                    let e = index(&at, w.exec_labels.len(), Limit::LegacyRequests)?;
                    w.agent.push(AgentOp::Execute(e, name));
                    w.exec_labels.push(label.clone());
                    w.exec_names.push(name);
                }
            }
        }
        for (name, steps) in &s.bodies {
            let at = format!("bodies.{name}");
            if !w.names.contains(name) {
                return Err(ScenarioError::invalid(
                    &at,
                    format!("body for {}, a tool no call defines", quoted(name)),
                ));
            }
            let settles = steps
                .iter()
                .filter(|b| **b != BodyStep::RequestUserInteraction)
                .count();
            if settles > 1 {
                return Err(ScenarioError::invalid(
                    &at,
                    format!("body of {} settles more than once", quoted(name)),
                ));
            }
        }
        w.bodies = w
            .names
            .iter()
            .map(|n| s.bodies.get(n).cloned().unwrap_or(vec![BodyStep::Fulfil]))
            .collect();
        if let Some(b) = &w.browser {
            w.check_schedule(b)?;
        }
        Ok(w)
    }

    fn intern(&mut self, at: &str, name: &str) -> Result<NameId, ScenarioError> {
        if name.is_empty() {
            return Err(ScenarioError::invalid(at, "a tool name must not be empty"));
        }
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return index(at, i, Limit::LegacyNames);
        }
        let id = index(at, self.names.len(), Limit::LegacyNames)?;
        self.names.push(name.to_string());
        Ok(id)
    }

    fn def(
        &mut self,
        at: &str,
        t: &ToolSpec,
        caller: u8,
        label: &str,
        by_register: bool,
    ) -> Result<DefId, ScenarioError> {
        let name = self.intern(at, t.name())?;
        let id = index(at, self.defs.len(), Limit::LegacyDefs)?;
        self.defs.push(DefInfo {
            name,
            caller,
            label: label.to_string(),
            read_only_hint: match t {
                ToolSpec::Full { read_only_hint, .. } => *read_only_hint,
                ToolSpec::Name(_) => None,
            },
            by_register,
        });
        Ok(id)
    }

    fn check_schedule(&self, b: &BrowserSpec) -> Result<(), ScenarioError> {
        for entry in &b.schedule {
            let actor = entry.strip_prefix('+').unwrap_or(entry);
            let known = actor == "agent"
                || self.callers.iter().any(|c| c.name == actor)
                || actor
                    .strip_prefix("body:")
                    .or_else(|| actor.strip_prefix("user:"))
                    .is_some_and(|l| self.exec_labels.iter().any(|e| e == l));
            if !known {
                return Err(ScenarioError::invalid(
                    "browser.schedule",
                    format!("unknown actor {}", quoted(entry)),
                ));
            }
        }
        Ok(())
    }

    /// The tool name a definition carries.
    pub fn def_name(&self, d: DefId) -> &str {
        &self.names[self.defs[d as usize].name as usize]
    }
}

fn check_label(
    at: &str,
    label: &str,
    seen: &mut std::collections::BTreeSet<String>,
) -> Result<(), ScenarioError> {
    if label.is_empty() || !seen.insert(label.to_string()) {
        return Err(ScenarioError::invalid(
            at,
            format!("agent label {} is empty or used twice", quoted(label)),
        ));
    }
    Ok(())
}

/// A `u8` id for index `i` of a table the checks already bounded by `limit`.
fn index(at: &str, i: usize, limit: Limit) -> Result<u8, ScenarioError> {
    match u8::try_from(i) {
        Ok(x) if i < limit.value() => Ok(x),
        _ => Err(ScenarioError::limit(at, "the scenario", None, limit)),
    }
}

/// Checks every name, string and count of a legacy scenario against its grammar and
/// [`crate::limits`].
fn validate(s: &LegacyScenario) -> Result<(), ScenarioError> {
    check_scenario_name(&s.name)?;
    check_text("summary", "summary", &s.summary, Limit::StringLen, false)?;
    check_text(
        "description",
        "description",
        &s.description,
        Limit::DescriptionLen,
        true,
    )?;
    at_most("page", "the scenario", s.page.len(), Limit::LegacyCallers)?;
    let mut defs = 0;
    let mut names = std::collections::BTreeSet::new();
    for (caller, ops) in &s.page {
        let at = format!("page.{caller}");
        check_name(&at, "caller name", caller)?;
        at_most(
            &at,
            &format!("the script of caller {}", quoted(caller)),
            ops.len(),
            Limit::LegacyCalls,
        )?;
        for (i, op) in ops.iter().enumerate() {
            let at = format!("{at}[{i}]");
            let tools: &[ToolSpec] = match op {
                PageOpSpec::ProvideContext(tools) => tools,
                PageOpSpec::RegisterTool(t) => std::slice::from_ref(t),
                PageOpSpec::UnregisterTool(n) => {
                    check_page_string(&at, "tool name", n)?;
                    names.insert(n.as_str());
                    &[]
                }
                PageOpSpec::ClearContext => &[],
            };
            for t in tools {
                check_page_string(&at, "tool name", t.name())?;
                names.insert(t.name());
            }
            defs += tools.len();
        }
    }
    at_most("page", "the scenario", defs, Limit::LegacyDefs)?;
    at_most("agent", "the agent", s.agent.len(), Limit::LegacyRequests)?;
    for (i, op) in s.agent.iter().enumerate() {
        let at = format!("agent[{i}]");
        match op {
            AgentOpSpec::List { list } => check_name(&at, "agent label", list)?,
            AgentOpSpec::Execute { execute, label } => {
                check_page_string(&at, "tool name", execute)?;
                names.insert(execute.as_str());
                check_name(&at, "agent label", label)?;
            }
        }
    }
    at_most("page", "the scenario", names.len(), Limit::LegacyNames)?;
    for (name, steps) in &s.bodies {
        let at = format!("bodies.{name}");
        check_page_string(&at, "tool name", name)?;
        at_most(
            &at,
            &format!("the body of {}", quoted(name)),
            steps.len(),
            Limit::LegacyBodySteps,
        )?;
    }
    if let Some(b) = &s.browser {
        at_most(
            "browser.schedule",
            "the browser schedule",
            b.schedule.len(),
            Limit::LegacySchedule,
        )?;
        for entry in &b.schedule {
            check_text("browser.schedule", "actor", entry, Limit::StringLen, false)?;
        }
    }
    crate::validate::expect_block(&s.expect)
}
