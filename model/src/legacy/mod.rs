//! The older WebMCP proposal (`spec/webmcp-legacy-proposal.md`): `navigator.modelContext` with
//! `provideContext`, `clearContext`, `registerTool`, `unregisterTool`, and
//! `ModelContextClient.requestUserInteraction`. Its method steps are TODO; the semantics this
//! model pins down, and the alternatives it leaves open ([`variant`]), are in `docs/legacy.md`.

mod footprint;
pub mod machine;
pub mod observe;
mod reduction;
pub mod scenario;
pub mod state;
pub mod variant;

pub use machine::{LegacyAction, LegacyModel};
pub use scenario::LegacyWorld;
pub use state::LegacyState;
pub use variant::LegacyVariant;
