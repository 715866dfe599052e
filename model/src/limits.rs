//! The bounds a scenario file must stay within, one constant each.
//!
//! Scenario files are untrusted input: a checker that accepted any size would sooner or later
//! store a count in a type too small for it, and a wrapped id or program counter makes the
//! model *lie* (a script that loops forever, two AbortControllers that share an id). Every
//! bound here is far above what an exhaustively checkable scenario needs (the standard ones
//! use a few documents and a dozen statements at most; state spaces grow exponentially well
//! before these bounds) and strictly below what the id or counter type that stores it can
//! hold (checked at compile time at the bottom of this file). A scenario beyond a bound is
//! rejected when it is compiled, with an error that names the bound ([`Limit`]);
//! `docs/scenarios.md` lists them.

/// The size of a scenario file, in bytes (1 MiB).
pub const MAX_SCENARIO_BYTES: usize = 1 << 20;
/// How deeply arrays and objects may nest in a scenario file.
pub const MAX_JSON_DEPTH: usize = 32;

/// Tabs (top-level traversables). Each tab's back/forward-cache phase takes 2 bits of a
/// 64-bit word.
pub const MAX_TABS: usize = 32;
/// Navigables (tabs and iframes together). Sets of navigables are 64-bit masks.
pub const MAX_NAVIGABLES: usize = 32;
/// Documents (those of the navigable tree and navigation targets together).
pub const MAX_DOCUMENTS: usize = 32;
/// Statements in one document's script (its program counter is a `u8`).
pub const MAX_STATEMENTS: usize = 200;
/// `awaitToolchange` statements in one script: a document counts the `toolchange` events
/// fired at it only up to this many (the counter saturates there, which keeps states small).
pub const MAX_TOOLCHANGE_AWAITS: usize = 3;
/// Method calls (`registerTool`, `getTools`, `executeTool`) in the whole scenario.
pub const MAX_CALLS: usize = 64;
/// Distinct AbortControllers in the whole scenario.
pub const MAX_CONTROLLERS: usize = 64;
/// Distinct strings the compiled scenario interns (tool names, descriptions, serialized
/// schemas and inputs, origin strings).
pub const MAX_STRINGS: usize = 1024;
/// Distinct origins (every parse that gives an opaque origin counts once). Sets of origins
/// are 64-bit masks.
pub const MAX_ORIGINS: usize = 64;
/// Entries of one `exposedTo` or `fromOrigins` list.
pub const MAX_ORIGIN_LIST: usize = 64;
/// `environment.observe`: observations in one run.
pub const MAX_OBSERVE: usize = 16;
/// `environment.maxInterventions` (and the number of interventions the environment lists
/// allow, which is its default).
pub const MAX_INTERVENTIONS: usize = 200;
/// Entries of the `expect` block.
pub const MAX_EXPECTATIONS: usize = 256;
/// The length, in characters, of a name the file gives something: the scenario, a tab, a
/// navigable, a document, an agent, a call label, an AbortController.
pub const MAX_NAME_LEN: usize = 64;
/// The length, in characters, of a string the page passes or the file describes with: tool
/// names, titles and descriptions, URLs, origins, `allow` attributes, property names in
/// `expect`, the scenario's summary.
pub const MAX_STRING_LEN: usize = 1024;
/// The length, in characters, of the scenario's `description`.
pub const MAX_DESCRIPTION_LEN: usize = 8192;

/// Legacy profile: page scripts (callers).
pub const MAX_LEGACY_CALLERS: usize = 8;
/// Legacy profile: calls in one caller's script (its program counter is a `u8`).
pub const MAX_LEGACY_CALLS: usize = 64;
/// Legacy profile: tool dictionaries passed by all calls together.
pub const MAX_LEGACY_DEFS: usize = 64;
/// Legacy profile: distinct tool names.
pub const MAX_LEGACY_NAMES: usize = 64;
/// Legacy profile: agent requests.
pub const MAX_LEGACY_REQUESTS: usize = 64;
/// Legacy profile: steps of one tool body (its program counter is a `u8`).
pub const MAX_LEGACY_BODY_STEPS: usize = 16;
/// Legacy profile: entries of the browser schedule.
pub const MAX_LEGACY_SCHEDULE: usize = 256;

/// A bound, as errors and the documentation name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Limit {
    ScenarioBytes,
    JsonDepth,
    Tabs,
    Navigables,
    Documents,
    Statements,
    ToolchangeAwaits,
    Calls,
    Controllers,
    Strings,
    Origins,
    OriginList,
    Observe,
    Interventions,
    Expectations,
    NameLen,
    StringLen,
    DescriptionLen,
    LegacyCallers,
    LegacyCalls,
    LegacyDefs,
    LegacyNames,
    LegacyRequests,
    LegacyBodySteps,
    LegacySchedule,
}

impl Limit {
    /// Every limit, in the order of `docs/scenarios.md`.
    pub const ALL: [Limit; 25] = [
        Limit::ScenarioBytes,
        Limit::JsonDepth,
        Limit::Tabs,
        Limit::Navigables,
        Limit::Documents,
        Limit::Statements,
        Limit::ToolchangeAwaits,
        Limit::Calls,
        Limit::Controllers,
        Limit::Strings,
        Limit::Origins,
        Limit::OriginList,
        Limit::Observe,
        Limit::Interventions,
        Limit::Expectations,
        Limit::NameLen,
        Limit::StringLen,
        Limit::DescriptionLen,
        Limit::LegacyCallers,
        Limit::LegacyCalls,
        Limit::LegacyDefs,
        Limit::LegacyNames,
        Limit::LegacyRequests,
        Limit::LegacyBodySteps,
        Limit::LegacySchedule,
    ];

    /// The bound.
    pub const fn value(self) -> usize {
        match self {
            Limit::ScenarioBytes => MAX_SCENARIO_BYTES,
            Limit::JsonDepth => MAX_JSON_DEPTH,
            Limit::Tabs => MAX_TABS,
            Limit::Navigables => MAX_NAVIGABLES,
            Limit::Documents => MAX_DOCUMENTS,
            Limit::Statements => MAX_STATEMENTS,
            Limit::ToolchangeAwaits => MAX_TOOLCHANGE_AWAITS,
            Limit::Calls => MAX_CALLS,
            Limit::Controllers => MAX_CONTROLLERS,
            Limit::Strings => MAX_STRINGS,
            Limit::Origins => MAX_ORIGINS,
            Limit::OriginList => MAX_ORIGIN_LIST,
            Limit::Observe => MAX_OBSERVE,
            Limit::Interventions => MAX_INTERVENTIONS,
            Limit::Expectations => MAX_EXPECTATIONS,
            Limit::NameLen => MAX_NAME_LEN,
            Limit::StringLen => MAX_STRING_LEN,
            Limit::DescriptionLen => MAX_DESCRIPTION_LEN,
            Limit::LegacyCallers => MAX_LEGACY_CALLERS,
            Limit::LegacyCalls => MAX_LEGACY_CALLS,
            Limit::LegacyDefs => MAX_LEGACY_DEFS,
            Limit::LegacyNames => MAX_LEGACY_NAMES,
            Limit::LegacyRequests => MAX_LEGACY_REQUESTS,
            Limit::LegacyBodySteps => MAX_LEGACY_BODY_STEPS,
            Limit::LegacySchedule => MAX_LEGACY_SCHEDULE,
        }
    }

    /// The constant's name in this module.
    pub const fn constant(self) -> &'static str {
        match self {
            Limit::ScenarioBytes => "MAX_SCENARIO_BYTES",
            Limit::JsonDepth => "MAX_JSON_DEPTH",
            Limit::Tabs => "MAX_TABS",
            Limit::Navigables => "MAX_NAVIGABLES",
            Limit::Documents => "MAX_DOCUMENTS",
            Limit::Statements => "MAX_STATEMENTS",
            Limit::ToolchangeAwaits => "MAX_TOOLCHANGE_AWAITS",
            Limit::Calls => "MAX_CALLS",
            Limit::Controllers => "MAX_CONTROLLERS",
            Limit::Strings => "MAX_STRINGS",
            Limit::Origins => "MAX_ORIGINS",
            Limit::OriginList => "MAX_ORIGIN_LIST",
            Limit::Observe => "MAX_OBSERVE",
            Limit::Interventions => "MAX_INTERVENTIONS",
            Limit::Expectations => "MAX_EXPECTATIONS",
            Limit::NameLen => "MAX_NAME_LEN",
            Limit::StringLen => "MAX_STRING_LEN",
            Limit::DescriptionLen => "MAX_DESCRIPTION_LEN",
            Limit::LegacyCallers => "MAX_LEGACY_CALLERS",
            Limit::LegacyCalls => "MAX_LEGACY_CALLS",
            Limit::LegacyDefs => "MAX_LEGACY_DEFS",
            Limit::LegacyNames => "MAX_LEGACY_NAMES",
            Limit::LegacyRequests => "MAX_LEGACY_REQUESTS",
            Limit::LegacyBodySteps => "MAX_LEGACY_BODY_STEPS",
            Limit::LegacySchedule => "MAX_LEGACY_SCHEDULE",
        }
    }

    /// What is counted, as a plural noun ("300 statements").
    pub const fn unit(self) -> &'static str {
        match self {
            Limit::ScenarioBytes => "bytes",
            Limit::JsonDepth => "levels of nesting",
            Limit::Tabs => "tabs",
            Limit::Navigables => "navigables",
            Limit::Documents => "documents",
            Limit::Statements => "statements",
            Limit::ToolchangeAwaits => "awaitToolchange statements",
            Limit::Calls => "method calls",
            Limit::Controllers => "AbortControllers",
            Limit::Strings => "distinct strings",
            Limit::Origins => "distinct origins",
            Limit::OriginList => "entries",
            Limit::Observe => "observations",
            Limit::Interventions => "interventions",
            Limit::Expectations => "expectations",
            Limit::NameLen | Limit::StringLen | Limit::DescriptionLen => "characters",
            Limit::LegacyCallers => "page scripts",
            Limit::LegacyCalls => "calls",
            Limit::LegacyDefs => "tool dictionaries",
            Limit::LegacyNames => "distinct tool names",
            Limit::LegacyRequests => "agent requests",
            Limit::LegacyBodySteps => "steps",
            Limit::LegacySchedule => "entries",
        }
    }
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "limits::{}", self.constant())
    }
}

// Every bound fits the type that stores what it bounds, with room to spare.
const _: () = {
    // Document, navigable, tab, agent, call and controller ids are `u8`s; a navigable set
    // and the per-tab bfcache phases are 64-bit words.
    assert!(MAX_DOCUMENTS <= u8::MAX as usize);
    assert!(MAX_NAVIGABLES <= 64 && MAX_NAVIGABLES <= MAX_DOCUMENTS);
    assert!(2 * MAX_TABS <= 64 && MAX_TABS <= MAX_NAVIGABLES);
    assert!(MAX_CALLS <= u8::MAX as usize);
    assert!(MAX_CONTROLLERS <= u8::MAX as usize);
    // A program counter reaches the script's length.
    assert!(MAX_STATEMENTS < u8::MAX as usize);
    // String ids are `u16`s.
    assert!(MAX_STRINGS < u16::MAX as usize);
    // Origin ids are `u8`s and origin sets 64-bit masks.
    assert!(MAX_ORIGINS <= 64);
    // Counters of the environment are `u8`s; every listed intervention can happen once
    // (aborts, removals and navigations once each, a bfcache round trip twice).
    assert!(MAX_OBSERVE < u8::MAX as usize);
    assert!(MAX_INTERVENTIONS < u8::MAX as usize);
    assert!(MAX_CONTROLLERS + 2 * MAX_NAVIGABLES + 2 * MAX_TABS <= MAX_INTERVENTIONS);
    assert!(MAX_TOOLCHANGE_AWAITS < u8::MAX as usize);
    // Legacy: callers, definitions, names, requests and program counters are `u8`s.
    assert!(MAX_LEGACY_CALLERS <= u8::MAX as usize);
    assert!(MAX_LEGACY_CALLS < u8::MAX as usize);
    assert!(MAX_LEGACY_DEFS <= u8::MAX as usize);
    assert!(MAX_LEGACY_NAMES <= u8::MAX as usize);
    assert!(MAX_LEGACY_REQUESTS < u8::MAX as usize);
    assert!(MAX_LEGACY_BODY_STEPS < u8::MAX as usize);
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_limit_is_listed_once_with_its_own_constant() {
        let mut names: Vec<&str> = Limit::ALL.iter().map(|l| l.constant()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Limit::ALL.len());
        assert_eq!(
            Limit::Statements.to_string(),
            "limits::MAX_STATEMENTS",
            "errors name the constant"
        );
    }
}
