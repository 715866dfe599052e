//! The property catalogue: every spec Assert, every implicit "this entry exists", every Note
//! that claims a guarantee, the behavioural properties the draft intends, liveness at
//! terminal states, and the witnesses that keep all of them from being vacuous.
//!
//! **Contract with partial-order reduction** (`docs/model.md` §7): no predicate reads an
//! in-parallel thread's locals (its program counter and the values it carries); a predicate
//! may ask which threads exist. The reduction's safe steps change nothing else, which is what
//! makes them invisible; `profiles/tests/reduction.rs` checks it on every safe step of the
//! standard scenarios.

use webmcp_checker::Reads;
use webmcp_model::machine::WebMcpModel;
use webmcp_model::state::{Ghost, State};
use webmcp_model::world::{CallId, CallKind, World};

mod discovery;
mod events;
mod execution;
mod liveness;
mod registration;
mod spec_text;
mod unload;
mod witnesses;

/// What the families' predicates read.
mod prelude {
    pub(super) use super::{execute_promises, Kind, PropertyDef, Witness};
    pub(super) use webmcp_checker::Reads;
    pub(super) use webmcp_model::algorithms::get_tools::code_unit_cmp;
    pub(super) use webmcp_model::machine::WebMcpModel;
    pub(super) use webmcp_model::state::parts;
    pub(super) use webmcp_model::state::{Ghost, Lifecycle, State, Status, TaskKind, Value};
    pub(super) use webmcp_model::steps::{step, StepId};
    pub(super) use webmcp_model::threads::ThreadKey;
    pub(super) use webmcp_model::world::{CallId, CallKind, DocId, ToolArg, World};
}

/// What the catalogue's predicates read of what a queuing step changes besides its
/// thread's locals (partial-order reduction, `docs/model.md` §7): one witness looks for a
/// queued `toolchange` task of an unregistration (`witnesses.rs`), and the unloading
/// properties ask whether the threads of a destroyed document have all ended and which
/// pending executions name one (`unload.rs`).
/// `profiles/tests/reduction.rs` checks, on the standard scenarios, that no property
/// tells a state from the successor of any step the reduction takes under it.
pub const VISIBILITY: webmcp_model::reduction::Visibility = webmcp_model::reduction::Visibility {
    queued_task: |kind| {
        matches!(
            kind,
            webmcp_model::state::TaskKind::FireToolchange {
                registered: false,
                ..
            }
        )
    },
    thread: unload::thread_is_read,
    pending_entry: unload::pending_entry_is_read,
    // The counters are read only by witnesses that ask whether toolchange fired (at one
    // document, at two): one more firing never takes that back.
    toolchange_fired_keeps_outcomes: true,
    // A registration's promise is read by witnesses that ask whether a promise settled (one
    // more only turns them on) or is pending (true wherever this one is), at termination,
    // and by `registration-abort-unregisters`, which reads only registrations with a signal.
    registration_resolved_keeps_outcomes: |w, call| w.register_op(call).signal.is_none(),
    // An executeTool promise is read by properties that ask whether some promise settled,
    // with what, how often (settling a pending one never takes a failure back nor a witness
    // away: statuses, attempts and tried-flags only grow), or whether it is pending ("an
    // executeTool promise is pending", true wherever this one is), and at termination.
    execution_settled_keeps_outcomes: true,
    // A body is read by properties that ask whether one exists (its settling keeps it),
    // whether it fulfilled with a value (only turns on), saw its signal aborted (unchanged),
    // or runs where its document or its caller is unloaded (true wherever it runs so, with
    // the same lifecycles and unloads); the local map by one that asks that each entry is a
    // running body (the entry goes with the body) and a witness that it has one (true
    // wherever this body runs, its entry in the map); the new completion thread only where
    // a document is destroyed (`VISIBILITY.thread`, asked before it is taken).
    body_settled_keeps_outcomes: true,
    // Starting a tool adds a running body (properties over bodies ask whether one exists
    // with some mark, or that every one is well formed: a new, unmarked, running body only
    // turns the first on and meets the second), an entry of the local map for it (that every
    // entry is a running body: it is one; that the map has one: only turns on) and the
    // `toolactivated` fact (properties over ghost facts ask that none of some kind exists,
    // that every one of some kind is answered, or that one exists: one more only keeps a
    // failure and a witness).
    tool_started_keeps_outcomes: true,
    fact_read_as_presence,
};

/// Whether the catalogue reads facts of this kind only as "one is present" (and never at
/// termination): its always properties ask that none of a kind exists (`spec_text.rs`,
/// `discovery.rs`, `execution.rs`, `events.rs`) and a witness that one exists (`toolcancel`
/// fired). Two kinds are read with the promise they name, which can still change: that a
/// call on an inactive document is rejected, and that `toolactivated` fired for an
/// execution that then fulfils. `profiles/tests/dead_facts.rs` checks the claim at every
/// reachable state of the standard scenarios.
fn fact_read_as_presence(g: &Ghost) -> bool {
    match g {
        Ghost::AssertFailed(_)
        | Ghost::MissingValue(_)
        | Ghost::InvokedAfterCallerRejected(_)
        | Ghost::ObjectInputRefused(_)
        | Ghost::CancelTargetGone(_)
        | Ghost::GetToolsMismatch(_)
        | Ghost::ToolchangeMisfired(_)
        | Ghost::ToolchangeOrder(_)
        | Ghost::SettledOffItsEventLoop(_)
        | Ghost::LocalMapOffItsEventLoop(_)
        | Ghost::RanUndiscoveredTool(_)
        | Ghost::RanForUnexposedCaller(_)
        | Ghost::DiscoverableChangeUnnotified(_)
        | Ghost::ToolCancelled(_)
        | Ghost::ToolcancelForLiveCaller(_)
        | Ghost::ToolcancelAfterSettlement(_)
        | Ghost::ResultBeforeToolactivated(_) => true,
        Ghost::CalledOnInactiveDocument(_) | Ghost::ToolActivated(_) => false,
    }
}

/// How a property is judged: the engine's expectations (always, at termination, sometimes).
pub use webmcp_checker::Expectation as Kind;

/// One property: what it claims in prose, which steps it is about, and its predicate.
#[derive(Clone, Copy)]
pub struct PropertyDef {
    pub name: &'static str,
    pub kind: Kind,
    pub about: &'static [&'static str],
    pub claim: &'static str,
    pub holds: fn(&WebMcpModel, &State) -> bool,
    /// What `holds` reads of a state: [`Reads::Anything`], or only some of the state's
    /// top-level collections (`webmcp_model::state::parts`). The search then judges the
    /// property again only where those changed (`tests/reads.rs` checks each claim).
    pub reads: Reads,
    /// What shows the property is not vacuous (`docs/properties.md` names a scenario for each).
    pub witness: Witness,
}

/// What shows that a property judged something: without it, a property that holds may only
/// hold because what it is about never happened.
#[derive(Clone, Copy)]
pub enum Witness {
    /// A `Sometimes` property is its own witness.
    Itself,
    /// One of the property's `about` steps runs (an Assert is evaluated, an entry is read).
    StepRuns,
    /// Some reachable state shows what the property is about.
    State {
        claim: &'static str,
        holds: fn(&WebMcpModel, &State) -> bool,
        /// What `holds` reads, as [`PropertyDef::reads`].
        reads: Reads,
    },
}

impl Witness {
    /// The witness as an engine property that some state must show.
    pub fn engine(&self, name: &'static str) -> Option<webmcp_checker::Property<WebMcpModel>> {
        match *self {
            Witness::State { holds, reads, .. } => Some(webmcp_checker::Property {
                name,
                expectation: Kind::Sometimes,
                condition: holds,
                reads,
            }),
            Witness::Itself | Witness::StepRuns => None,
        }
    }

    /// The witness in prose.
    pub fn claim(&self) -> &'static str {
        match *self {
            Witness::Itself => "itself (a behaviour some run must show)",
            Witness::StepRuns => "one of its steps runs",
            Witness::State { claim, .. } => claim,
        }
    }
}

impl PropertyDef {
    /// The property as the engine takes it.
    pub fn engine(&self) -> webmcp_checker::Property<WebMcpModel> {
        webmcp_checker::Property {
            name: self.name,
            expectation: self.kind,
            condition: self.holds,
            reads: self.reads,
        }
    }
}

impl std::fmt::Debug for PropertyDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// The whole catalogue, in report order: each family (a module) contributes its properties.
impl PropertyDef {
    /// The earlier text whose steps alone the property is about (`2026-08` for
    /// `assert:2026-08:execute-tool#15.10.1`): only a model of that text can reach its witness.
    /// Whether `s` shows the property's outcome: a violation (always; at termination, at a
    /// terminal state) or an example (sometimes).
    pub fn shows(&self, m: &WebMcpModel, s: &State) -> bool {
        match self.kind {
            Kind::Always => !(self.holds)(m, s),
            Kind::Sometimes => (self.holds)(m, s),
            Kind::AtTermination => !(self.holds)(m, s) && is_terminal(m, s),
        }
    }

    pub fn earlier_text(&self) -> Option<&'static str> {
        let mut texts = self
            .about
            .iter()
            .map(|id| webmcp_model::steps::StepId::parse(id).and_then(|s| s.removed_since()));
        let first = texts.next()??;
        texts.all(|t| t == Some(first)).then_some(first)
    }
}

pub fn catalogue() -> Vec<PropertyDef> {
    [
        spec_text::properties(),
        execution::inputs(),
        discovery::properties(),
        execution::settlement(),
        execution::delivery(),
        registration::properties(),
        execution::bodies(),
        events::properties(),
        unload::properties(),
        liveness::properties(),
        witnesses::properties(),
    ]
    .concat()
}

pub(super) fn execute_promises<'a>(
    w: &'a World,
    s: &'a State,
) -> impl Iterator<Item = (CallId, &'a webmcp_model::state::PromiseState)> + 'a {
    w.calls
        .iter()
        .enumerate()
        .filter(|(_, c)| c.kind == CallKind::Execute)
        .map(move |(i, _)| (CallId::nth(i), &s.promises[i]))
}

/// A state with no enabled action: the run is over.
pub fn is_terminal(m: &WebMcpModel, s: &State) -> bool {
    webmcp_checker::Model::is_terminal(m, s)
}
