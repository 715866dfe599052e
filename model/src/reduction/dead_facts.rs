//! Dead facts: the facts recorded for the properties (`State::ghost`) that nothing after the
//! state they were recorded in can tell apart, forgotten once it is judged
//! ([`webmcp_checker::Model::forget`], `docs/model.md` §7, *Dead facts*).
//!
//! Most facts record that a property failed: an Assert's condition was false, a map entry
//! was missing, a promise settled off its event loop. The catalogue reads most kinds only as
//! "a fact of this kind is present" (an always property fails where one is, a witness holds
//! where one is), and never at termination ([`Visibility::fact_read_as_presence`]); no
//! transition reads them but `execute-tool#16.10.3`'s check of `toolactivated`
//! ([`read_by_transitions`]). Such a fact is dead, in Spin's sense, from the state after
//! the one where it was recorded: that state shows its property, and every state after it
//! behaves as the same state without it. Keeping it anyway keeps apart states that differ
//! only in which failures happened on the way to them.
//!
//! [`Visibility::fact_read_as_presence`]: crate::reduction::Visibility::fact_read_as_presence

use crate::machine::WebMcpModel;
use crate::state::{Ghost, State};

/// Whether a transition reads facts of this kind (the match is exhaustive: a new kind needs
/// a decision here).
pub fn read_by_transitions(g: &Ghost) -> bool {
    match g {
        // `execute-tool#16.10.3` records `ResultBeforeToolactivated` where it is missing.
        Ghost::ToolActivated(_) => true,
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
        | Ghost::CalledOnInactiveDocument(_)
        | Ghost::ToolCancelled(_)
        | Ghost::ToolcancelForLiveCaller(_)
        | Ghost::ToolcancelAfterSettlement(_)
        | Ghost::ResultBeforeToolactivated(_) => false,
    }
}

impl WebMcpModel {
    /// Whether a fact is dead once the state that holds it is judged.
    pub fn fact_is_dead_once_judged(&self, g: &Ghost) -> bool {
        !read_by_transitions(g) && (self.visibility.fact_read_as_presence)(g)
    }

    /// `s` without its dead facts, or `None` if it holds none.
    pub fn forget_dead_facts(&self, s: &State) -> Option<State> {
        if !s.ghost.iter().any(|g| self.fact_is_dead_once_judged(g)) {
            return None;
        }
        let mut kept = s.clone();
        kept.ghost = s
            .ghost
            .iter()
            .filter(|g| !self.fact_is_dead_once_judged(g))
            .copied()
            .collect();
        Some(kept)
    }
}
