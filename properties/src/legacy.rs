//! The legacy profile's property catalogue: what the legacy proposal's properties claim,
//! each as a predicate over the legacy model's states. Its driver, which checks them with
//! the engine, is `webmcp_profiles::legacy`.

use std::collections::BTreeSet;

use webmcp_model::legacy::scenario::BodyStep;
use webmcp_model::legacy::state::{ExecStatus, Ghost, LegacyState, ListResult, Promise};
use webmcp_model::legacy::LegacyModel;

use webmcp_checker::Property;

pub use crate::catalogue::Kind;

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
