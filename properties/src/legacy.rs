//! The legacy profile's property catalogue and its driver.
//!
//! The legacy model is checked by the same engine as the draft ([`webmcp_checker`]), with
//! the same rules: breadth-first on one thread, first discovery wins (shortest paths),
//! verdicts hold / violated / witnessed / not witnessed / incomplete. Its results have their
//! own types (legacy actions, legacy step IDs, and the observation of every terminal state,
//! which the conformance run compares with what the polyfill did), so the search is asked to
//! visit every terminal state, even after every property is decided.

use std::collections::BTreeSet;
use std::time::Duration;

use webmcp_model::legacy::observe::{observation, Observation};
use webmcp_model::legacy::scenario::BodyStep;
use webmcp_model::legacy::state::{ExecStatus, Ghost, LegacyState, ListResult, Promise};
use webmcp_model::legacy::{LegacyAction, LegacyModel};

use webmcp_checker::{Checker, Mode, Options, Property};

pub use crate::catalogue::Kind;
pub use crate::driver::Verdict;
use crate::limits::StopReason;

/// One legacy property.
#[derive(Clone, Copy)]
pub struct LegacyProperty {
    pub name: &'static str,
    pub kind: Kind,
    /// The legacy step IDs or choices it is about.
    pub about: &'static [&'static str],
    pub claim: &'static str,
    pub holds: fn(&LegacyModel, &LegacyState) -> bool,
}

impl LegacyProperty {
    /// The property as the engine takes it.
    pub fn engine(&self) -> Property<LegacyModel> {
        Property {
            name: self.name,
            expectation: self.kind,
            condition: self.holds,
            reads: webmcp_checker::Reads::Anything,
        }
    }
}

impl std::fmt::Debug for LegacyProperty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

fn no_ghost(s: &LegacyState, p: impl Fn(&Ghost) -> bool) -> bool {
    !s.ghost.iter().any(p)
}

fn names_unique(m: &LegacyModel, defs: &[u8]) -> bool {
    let mut seen = BTreeSet::new();
    defs.iter()
        .all(|d| seen.insert(m.world.defs[*d as usize].name))
}

fn listed(s: &LegacyState) -> impl Iterator<Item = &Vec<u8>> {
    s.lists.iter().filter_map(|l| match l {
        Some(ListResult::Tools(t)) => Some(t),
        _ => None,
    })
}

fn witness(g: Ghost) -> impl Fn(&LegacyModel, &LegacyState) -> bool {
    move |_, s| s.ghost.contains(&g)
}

macro_rules! witness {
    ($name:literal, $ghost:expr, $about:expr, $claim:literal) => {
        LegacyProperty {
            name: concat!("witness:", $name),
            kind: Kind::Sometimes,
            about: $about,
            claim: $claim,
            holds: |m, s| witness($ghost)(m, s),
        }
    };
}

/// Every legacy property, in report order.
pub fn legacy_catalogue() -> &'static [LegacyProperty] {
    use webmcp_model::legacy::machine::{CLEAR, EXECUTE, PROVIDE, REGISTER, RUI, UNREGISTER};
    static CATALOGUE: std::sync::OnceLock<Vec<LegacyProperty>> = std::sync::OnceLock::new();
    CATALOGUE.get_or_init(|| {
        vec![
            LegacyProperty {
                name: "names-unique",
                kind: Kind::Always,
                about: &[PROVIDE, REGISTER],
                claim: "tool names are unique at all times: in the page's set and in every list the agent gets",
                holds: |m, s| names_unique(m, &s.tools) && listed(s).all(|l| names_unique(m, l)),
            },
            LegacyProperty {
                name: "provide-atomic",
                kind: Kind::Always,
                about: &[PROVIDE],
                claim: "every list the agent gets is a whole set the page held between two calls, never a mix of an old and a new set",
                holds: |_, s| {
                    listed(s).all(|l| {
                        let mut l = l.clone();
                        l.sort_unstable();
                        s.settled_sets.contains(&l)
                    })
                },
            },
            LegacyProperty {
                name: "clear-means-gone",
                kind: Kind::Always,
                about: &[CLEAR],
                claim: "after clearContext, until a tool is added again, no tool is listed and no tool body starts",
                holds: |_, s| {
                    no_ghost(s, |g| {
                        matches!(g, Ghost::ListedAfterClear | Ghost::StartedAfterClear(_))
                    })
                },
            },
            LegacyProperty {
                name: "starts-only-current",
                kind: Kind::Always,
                about: &[EXECUTE, PROVIDE, UNREGISTER],
                claim: "a tool body starts only while its definition is in the page's set",
                holds: |_, s| no_ghost(s, |g| matches!(g, Ghost::StartedNotCurrent(_))),
            },
            LegacyProperty {
                name: "callback-only-while-live",
                kind: Kind::Always,
                about: &[RUI],
                claim: "a requestUserInteraction callback runs only while its execution is live (invoked, promise not settled)",
                holds: |_, s| no_ghost(s, |g| matches!(g, Ghost::CallbackNotLive(_))),
            },
            LegacyProperty {
                name: "interaction-settles-once",
                kind: Kind::Always,
                about: &[RUI],
                claim: "each requestUserInteraction promise is settled at most once",
                holds: |_, s| s.execs.iter().all(|x| x.ruis.iter().all(|r| r.attempts <= 1)),
            },
            LegacyProperty {
                name: "execute-replies-once",
                kind: Kind::Always,
                about: &[EXECUTE],
                claim: "completion once: the agent gets at most one reply per execution, never both a result and an error",
                holds: |_, s| s.execs.iter().all(|x| x.reply_attempts <= 1),
            },
            LegacyProperty {
                name: "no-ghost-run",
                kind: Kind::Always,
                about: &[EXECUTE],
                claim: "a tool body is never invoked for an execution the agent already has a reply for",
                holds: |_, s| no_ghost(s, |g| matches!(g, Ghost::InvokedAfterReply(_))),
            },
            LegacyProperty {
                name: "execute-replies",
                kind: Kind::AtTermination,
                about: &[EXECUTE],
                claim: "when nothing is left to run, every execution the agent requested has a reply, unless its body never settles",
                holds: |m, s| {
                    s.execs.iter().all(|x| {
                        x.reply.is_some()
                            || match x.status {
                                ExecStatus::Running(d) => !m.world.bodies
                                    [m.world.defs[d as usize].name as usize]
                                    .iter()
                                    .any(|b| *b != BodyStep::RequestUserInteraction),
                                ExecStatus::NotRequested => true,
                                _ => false,
                            }
                    })
                },
            },
            LegacyProperty {
                name: "interaction-settles",
                kind: Kind::AtTermination,
                about: &[RUI],
                claim: "when nothing is left to run and the page is still loaded, every requestUserInteraction promise has settled",
                holds: |_, s| {
                    s.unloaded
                        || s.execs
                            .iter()
                            .all(|x| x.ruis.iter().all(|r| r.promise != Promise::Pending))
                },
            },
            witness!("provide-replaced-set", Ghost::ProvideReplacedNonEmpty, &[PROVIDE], "provideContext replaces a non-empty set"),
            witness!("provide-duplicate-threw", Ghost::DuplicateInProvideThrew, &[PROVIDE], "a provideContext list with a duplicate name throws"),
            witness!("register-duplicate-threw", Ghost::DuplicateRegisterThrew, &[REGISTER], "registerTool of a name already in the set throws"),
            witness!("registered-clobbered", Ghost::RegisteredClobbered, &[PROVIDE, REGISTER], "provideContext drops a tool registerTool added"),
            witness!("unregister-unknown", Ghost::UnregisterUnknown, &[UNREGISTER], "unregisterTool of a name not in the set does nothing"),
            witness!("unregister-other-caller", Ghost::UnregisterOther, &[UNREGISTER], "a caller unregisters a tool another caller added"),
            witness!("clear-during-execution", Ghost::ClearDuringExecution, &[CLEAR, EXECUTE], "clearContext runs while an execution is live"),
            witness!("result-after-removal", Ghost::ResultAfterRemoval, &[EXECUTE], "the agent gets a result from a tool no longer in the set"),
            witness!("not-found", Ghost::NotFound, &[EXECUTE], "the agent executes a name the set does not hold (a stale list)"),
            witness!("callback-during-execution", Ghost::CallbackDuringExecution, &[RUI], "a requestUserInteraction callback runs during its execution"),
            witness!("interaction-after-settle-rejected", Ghost::RuiAfterSettleRejected, &[RUI], "requestUserInteraction after the execution settled rejects"),
            witness!("user-answers-after-settle", Ghost::UserAnsweredAfterSettle, &[RUI], "the user answers after the execution settled; the promise still settles once"),
            witness!("concurrent-executions", Ghost::Concurrent, &[EXECUTE], "two executions are live at once"),
            witness!("unload-during-execution", Ghost::UnloadDuringExecution, &[EXECUTE], "the page unloads while an execution waits"),
            LegacyProperty {
                name: "witness:list-stale",
                kind: Kind::Sometimes,
                about: &[PROVIDE, EXECUTE],
                claim: "a list the agent holds names a tool the page has since replaced or removed",
                holds: |_, s| listed(s).any(|l| l.iter().any(|d| !s.tools.contains(d))),
            },
        ]
    })
}

/// One step of a path: the action and the legacy step IDs it executed.
#[derive(Clone, Debug)]
pub struct LegacyStep {
    pub action: LegacyAction,
    pub steps: Vec<&'static str>,
}

#[derive(Clone, Debug)]
pub struct LegacyPropertyResult {
    pub property: LegacyProperty,
    pub verdict: Verdict,
    /// The shortest path to the violation or witness.
    pub path: Option<Vec<LegacyStep>>,
}

#[derive(Clone, Debug)]
pub struct LegacyResult {
    pub scenario: String,
    pub variant: String,
    pub total_states: usize,
    pub unique_states: usize,
    pub max_depth: usize,
    pub seconds: f64,
    pub exhaustive: bool,
    /// The bound that stopped exploration early; `None` exactly when `exhaustive`.
    pub stopped_by: Option<StopReason>,
    pub properties: Vec<LegacyPropertyResult>,
    /// The observation of every reachable terminal state (complete only when exhaustive).
    pub observations: BTreeSet<Observation>,
}

/// The bounds of one legacy check, as the draft's [`crate::CheckOptions`] has them.
#[derive(Clone, Copy, Debug, Default)]
pub struct LegacyOptions {
    pub max_states: Option<usize>,
    /// Do not expand states at this depth (the initial state is depth 1).
    pub max_depth: Option<usize>,
    pub timeout: Option<Duration>,
    /// `None` falls back to [`crate::limits::process_memory_limit`].
    pub memory_limit_mib: Option<u64>,
}

/// Explores every interleaving of the scenario breadth-first and judges every property.
pub fn check_legacy(model: &LegacyModel, options: &LegacyOptions) -> LegacyResult {
    let start = std::time::Instant::now();
    let props = legacy_catalogue();
    let engine_props: Vec<Property<LegacyModel>> =
        props.iter().map(LegacyProperty::engine).collect();
    let engine = Options {
        mode: Mode::Bfs,
        threads: 1,
        max_states: options.max_states,
        max_depth: options.max_depth,
        timeout: options.timeout,
        memory_limit_mib: options.memory_limit_mib,
        // The legacy model names no persistent actions: its searches are never reduced.
        reduction: webmcp_checker::Reduction::None,
        // The legacy model gives no codec: its frontier holds values.
        frontier: webmcp_checker::FrontierStorage::Values,
        // Nor dead parts to forget.
        forget: false,
        time_phases: false,
    };
    let mut observations = BTreeSet::new();
    let mut observe = |s: &LegacyState| {
        observations.insert(observation(&model.world, s));
    };
    let found = Checker::new(model, &engine_props, &engine)
        .on_terminal(&mut observe)
        .run();
    let exhaustive = found.exhaustive();
    let properties = props
        .iter()
        .zip(found.discoveries)
        .map(|(p, path)| LegacyPropertyResult {
            property: *p,
            verdict: Verdict::of(p.kind, path.is_some(), exhaustive),
            path: path.map(|path| replay(model, path.actions)),
        })
        .collect();
    LegacyResult {
        scenario: model.world.name.clone(),
        variant: model.variant.name(),
        total_states: found.total_states,
        unique_states: found.unique_states,
        max_depth: found.max_depth,
        seconds: start.elapsed().as_secs_f64(),
        exhaustive,
        stopped_by: found.stopped_by,
        properties,
        observations,
    }
}

/// Re-runs a path, recording the step IDs of each action.
pub fn replay(model: &LegacyModel, actions: Vec<LegacyAction>) -> Vec<LegacyStep> {
    let mut s = model.initial_state();
    actions
        .into_iter()
        .map(|action| {
            let mut steps = Vec::new();
            s = model.apply(&s, action, &mut steps);
            LegacyStep { action, steps }
        })
        .collect()
}
