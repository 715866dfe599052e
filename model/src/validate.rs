//! The checks a scenario goes through before it is compiled: the grammar and length of every
//! name and string it holds, and every count [`crate::limits`] bounds, each reported where it
//! is in the file. [`crate::world::World::compile`] then checks what the names refer to.

use std::collections::BTreeSet;

use crate::error::{
    check_name, check_page_string, check_scenario_name, check_text, quoted, ErrorKind,
    ScenarioError,
};
use crate::limits::Limit;
use crate::scenario::{BodyOpSpec, DocSpec, OpSpec, Scenario, ToolRefSpec};

/// The verdicts an `expect` block may name (those `check` reports).
pub const VERDICTS: [&str; 4] = ["hold", "violated", "witnessed", "not witnessed"];

/// Checks every name, string and count of `sc` against its grammar and [`crate::limits`].
pub fn validate(sc: &Scenario) -> Result<(), ScenarioError> {
    check_scenario_name(&sc.name)?;
    check_text("summary", "summary", &sc.summary, Limit::StringLen, false)?;
    check_text(
        "description",
        "description",
        &sc.description,
        Limit::DescriptionLen,
        true,
    )?;
    at_most("tabs", "the scenario", sc.tabs.len(), Limit::Tabs)?;
    let mut tree = Counts::default();
    for (i, t) in sc.tabs.iter().enumerate() {
        let at = format!("tabs[{i}]");
        check_name(&format!("{at}.tab"), "tab name", &t.tab)?;
        doc_tree(&format!("{at}.top"), &t.top, &mut tree)?;
    }
    for (i, n) in sc.navigations.iter().enumerate() {
        let at = format!("navigations[{i}]");
        check_name(&format!("{at}.nav"), "navigable name", &n.nav)?;
        document(&at, &n.doc, &n.url, &n.agent)?;
        tree.docs += 1;
    }
    at_most("tabs", "the scenario", tree.navs, Limit::Navigables)?;
    at_most("", "the scenario", tree.docs, Limit::Documents)?;

    let mut calls = 0;
    let mut controllers = BTreeSet::new();
    for (doc, ops) in &sc.scripts {
        let at = format!("scripts.{doc}");
        check_name(&at, "document name", doc)?;
        let subject = format!("the script of document {}", quoted(doc));
        at_most(&at, &subject, ops.len(), Limit::Statements)?;
        let awaits = ops
            .iter()
            .filter(|op| op.await_toolchange == Some(true))
            .count();
        at_most(&at, &subject, awaits, Limit::ToolchangeAwaits)?;
        for (i, op) in ops.iter().enumerate() {
            let at = format!("{at}[{i}]");
            statement(&at, op, &mut controllers)?;
            if op.register_tool.is_some() || op.get_tools.is_some() || op.execute_tool.is_some() {
                calls += 1;
            }
        }
    }
    at_most("scripts", "the scenario", calls, Limit::Calls)?;
    at_most(
        "scripts",
        "the scenario",
        controllers.len(),
        Limit::Controllers,
    )?;

    let e = &sc.environment;
    for (field, list, what) in [
        ("abort", &e.abort, "AbortController name"),
        ("removeIframe", &e.remove_iframe, "navigable name"),
        ("navigate", &e.navigate, "navigable name"),
        ("bfcache", &e.bfcache, "tab name"),
        ("toolOutcomes", &e.tool_outcomes, "tool outcome"),
    ] {
        let at = format!("environment.{field}");
        let mut seen = BTreeSet::new();
        for name in list {
            check_name(&at, what, name)?;
            // Each entry may happen once: a second one would count twice towards the
            // default maxInterventions (or offer the same settlement twice).
            if !seen.insert(name) {
                return Err(ScenarioError::at(
                    at,
                    ErrorKind::Duplicate {
                        what,
                        name: name.clone(),
                    },
                ));
            }
        }
    }
    at_most_count(
        "environment.observe",
        "the environment",
        e.observe,
        Limit::Observe,
    )?;
    if let Some(m) = e.max_interventions {
        at_most_count(
            "environment.maxInterventions",
            "maxInterventions",
            m,
            Limit::Interventions,
        )?;
    }

    expect_block(&sc.expect)
}

/// An `expect` block (of either profile): bounded in size, property names as text, and only
/// verdicts `check` reports.
pub(crate) fn expect_block(
    expect: &std::collections::BTreeMap<String, String>,
) -> Result<(), ScenarioError> {
    at_most(
        "expect",
        "the expect block",
        expect.len(),
        Limit::Expectations,
    )?;
    for (property, verdict) in expect {
        let at = format!("expect.{property}");
        check_text(&at, "property name", property, Limit::StringLen, false)?;
        if !VERDICTS.contains(&verdict.as_str()) {
            return Err(ScenarioError::invalid(
                &at,
                format!(
                    "the expected verdict {} is not one of {}",
                    quoted(verdict),
                    VERDICTS.map(|v| format!("\"{v}\"")).join(", ")
                ),
            ));
        }
    }
    Ok(())
}

#[derive(Default)]
struct Counts {
    navs: usize,
    docs: usize,
}

fn doc_tree(at: &str, d: &DocSpec, counts: &mut Counts) -> Result<(), ScenarioError> {
    counts.navs += 1;
    counts.docs += 1;
    // The nesting of iframes is bounded by the file's nesting (limits::MAX_JSON_DEPTH); stop
    // counting early anyway.
    at_most("tabs", "the scenario", counts.navs, Limit::Navigables)?;
    document(at, &d.doc, &d.url, &d.agent)?;
    for (j, f) in d.iframes.iter().enumerate() {
        let at = format!("{at}.iframes[{j}]");
        check_name(&format!("{at}.nav"), "navigable name", &f.nav)?;
        if let Some(allow) = &f.allow {
            check_page_string(&format!("{at}.allow"), "allow attribute", allow)?;
        }
        doc_tree(&at, &f.doc, counts)?;
    }
    Ok(())
}

fn document(at: &str, doc: &str, url: &str, agent: &Option<String>) -> Result<(), ScenarioError> {
    check_name(&format!("{at}.doc"), "document name", doc)?;
    check_page_string(&format!("{at}.url"), "URL", url)?;
    if let Some(a) = agent {
        check_name(&format!("{at}.agent"), "agent name", a)?;
    }
    Ok(())
}

fn statement(
    at: &str,
    op: &OpSpec,
    controllers: &mut BTreeSet<String>,
) -> Result<(), ScenarioError> {
    let page = |field: &str, what: &'static str, s: &str| {
        check_page_string(&format!("{at}.{field}"), what, s)
    };
    let origins = |field: &str, list: &[String]| {
        let at = format!("{at}.{field}");
        at_most(&at, field, list.len(), Limit::OriginList)?;
        list.iter()
            .try_for_each(|s| check_page_string(&at, "origin", s))
    };
    if let Some(l) = &op.label {
        check_name(&format!("{at}.as"), "call label", l)?;
    }
    if let Some(t) = &op.register_tool {
        page("registerTool.name", "tool name", &t.name)?;
        if let Some(title) = &t.title {
            page("registerTool.title", "tool title", title)?;
        }
        page(
            "registerTool.description",
            "tool description",
            &t.description,
        )?;
        for (i, b) in t.body.iter().flatten().enumerate() {
            body_statement(&format!("{at}.registerTool.body[{i}]"), b, controllers)?;
        }
    }
    if let Some(list) = &op.exposed_to {
        origins("exposedTo", list)?;
    }
    if let Some(list) = op.get_tools.as_ref().and_then(|g| g.from_origins.as_ref()) {
        origins("getTools.fromOrigins", list)?;
    }
    if let Some(r) = &op.execute_tool {
        tool_reference(at, r)?;
    }
    controller_names(
        at,
        [("signal", &op.signal), ("abort", &op.abort)],
        controllers,
    )?;
    if let Some(l) = &op.await_call {
        check_name(&format!("{at}.await"), "call label", l)?;
    }
    for (field, name) in [
        ("removeIframe", &op.remove_iframe),
        ("navigate", &op.navigate),
    ] {
        if let Some(n) = name {
            check_name(&format!("{at}.{field}"), "navigable name", n)?;
        }
    }
    Ok(())
}

/// A statement of a tool's body: its names and strings are held to the rules of a script's
/// (they are shown in every report, as a script's are).
fn body_statement(
    at: &str,
    b: &BodyOpSpec,
    controllers: &mut BTreeSet<String>,
) -> Result<(), ScenarioError> {
    if let Some(l) = &b.label {
        check_name(&format!("{at}.as"), "call label", l)?;
    }
    if let Some(r) = &b.execute_tool {
        tool_reference(at, r)?;
    }
    controller_names(
        at,
        [("signal", &b.signal), ("abort", &b.abort)],
        controllers,
    )
}

/// The tool an `executeTool` statement names.
fn tool_reference(at: &str, r: &ToolRefSpec) -> Result<(), ScenarioError> {
    check_page_string(&format!("{at}.executeTool.name"), "tool name", &r.name)?;
    if let Some(from) = &r.from {
        check_name(&format!("{at}.executeTool.from"), "call label", from)?;
    }
    if let Some(origin) = &r.origin {
        check_page_string(&format!("{at}.executeTool.origin"), "origin", origin)?;
    }
    if let Some(window) = &r.window {
        check_name(&format!("{at}.executeTool.window"), "document name", window)?;
    }
    Ok(())
}

/// The AbortControllers a statement names (`signal`, `abort`), counted in `controllers`.
fn controller_names(
    at: &str,
    names: [(&str, &Option<String>); 2],
    controllers: &mut BTreeSet<String>,
) -> Result<(), ScenarioError> {
    for (field, name) in names {
        if let Some(c) = name {
            check_name(&format!("{at}.{field}"), "AbortController name", c)?;
            controllers.insert(c.clone());
        }
    }
    Ok(())
}

/// `count` must not exceed `limit`.
pub(crate) fn at_most(
    at: &str,
    subject: &str,
    count: usize,
    limit: Limit,
) -> Result<(), ScenarioError> {
    if count <= limit.value() {
        return Ok(());
    }
    Err(ScenarioError::limit(at, subject, Some(count), limit))
}

fn at_most_count(at: &str, subject: &str, n: u64, limit: Limit) -> Result<(), ScenarioError> {
    if n <= limit.value() as u64 {
        return Ok(());
    }
    Err(ScenarioError::invalid(
        at,
        format!(
            "{subject} asks for {n} {}; at most {} are allowed ({limit})",
            limit.unit(),
            limit.value()
        ),
    ))
}

/// The bound-checked id or count for an index the checks above already bounded; the error
/// only arises if they missed a case.
pub(crate) fn checked<T: TryFrom<usize, Error = crate::ids::IdOverflow>>(
    at: &str,
    i: usize,
) -> Result<T, ScenarioError> {
    T::try_from(i).map_err(|e| ScenarioError::limit(at, "the scenario", None, e.limit))
}
