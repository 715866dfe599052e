//! What the draft says itself: every `Assert`, every value the text assumes exists (each
//! read of an entry or a navigable it never checks), and every Note that claims a guarantee.

use super::prelude::*;

fn assert_holds<const S: u16>(_: &WebMcpModel, s: &State) -> bool {
    !s.ghost.contains(&Ghost::AssertFailed(StepId(S)))
}

fn value_exists<const S: u16>(_: &WebMcpModel, s: &State) -> bool {
    !s.ghost.contains(&Ghost::MissingValue(StepId(S)))
}

macro_rules! assert_property {
    ($id:literal, $claim:literal) => {
        PropertyDef {
            name: concat!("assert:", $id),
            kind: Kind::Always,
            about: &[$id],
            claim: $claim,
            holds: assert_holds::<{ step($id).0 }>,
            reads: Reads::Parts(parts::GHOST),
            witness: Witness::StepRuns,
        }
    };
}

macro_rules! exists_property {
    ($id:literal, $claim:literal) => {
        PropertyDef {
            name: concat!("exists:", $id),
            kind: Kind::Always,
            about: &[$id],
            claim: $claim,
            holds: value_exists::<{ step($id).0 }>,
            reads: Reads::Parts(parts::GHOST),
            witness: Witness::StepRuns,
        }
    };
}

/// The spec text's own Asserts, implicit existence claims and Notes.
pub(super) fn properties() -> Vec<PropertyDef> {
    vec![
        assert_property!("cancel-pending-execution#1", "cancel a pending tool execution runs in parallel"),
        assert_property!("unload-cleanup#2.3.5", "after handling an execution, the unload cleanup finds no entry for its uuid"),
        assert_property!("notify-tool-change#1", "notify documents of a tool change runs in parallel"),
        assert_property!("tool-execute-steps#1", "the tool execute steps run on the target document's event loop"),
        assert_property!("imperative-execute-steps#1", "the imperative execute steps run on the target document's event loop"),
        assert_property!("unregister-tool#1", "unregister a tool runs on the ModelContext's event loop"),
        assert_property!("execute-tool#7", "the expected target origin is not opaque"),
        assert_property!("2026-08:execute-tool#15.10.1", "completion steps run in parallel"),
        assert_property!("perform-observation#1", "perform an observation runs on the AI agent queue"),
        assert_property!("perform-observation#2", "an observed traversable's active document is fully active"),
        exists_property!("notify-tool-change#2", "the tool owner has a node navigable when its change is notified"),
        exists_property!("get-tools#8.2", "the tool requestor has a node navigable when the walk starts"),
        exists_property!("execute-tool#15.3", "the target document has a node navigable when executeTool is called with a signal"),
        exists_property!("execute-tool#16.1", "the target and caller have node navigables when their traversables are compared"),
        exists_property!("execute-tool#16.8", "the tool found at #16.7 is still in the tool map at #16.8"),
        exists_property!("execute-tool#16.12", "the target has a node navigable when the pending execution is stored"),
        exists_property!("execute-tool#16.10.1", "the target has a node navigable when completion steps look up the pending execution"),
        exists_property!("execute-tool#16.10.2", "the target has a node navigable when completion steps remove the pending execution"),
        exists_property!("cancel-pending-execution#3", "the pending execution found at #2 still exists at #3"),
        exists_property!("cancel-pending-execution#6.3", "the local execution found at #6.2 still exists at #6.3"),
        exists_property!("unload-cleanup#1", "an unloading document has a node navigable"),
        exists_property!("unload-cleanup#2.3.1", "each execution collected at #2.2 still exists at #2.3.1"),
        PropertyDef {
            name: "note:cancel-target-exists",
            kind: Kind::Always,
            about: &["cancel-pending-execution#5", "cancel-pending-execution#5.note"],
            claim: "when cancel a pending tool execution reaches #5, the target document has not been unloaded or destroyed",
            holds: |_, s| !s.ghost.iter().any(|g| matches!(g, Ghost::CancelTargetGone(_))),
            reads: Reads::Parts(parts::GHOST),
            witness: Witness::StepRuns,
        },
    ]
}
