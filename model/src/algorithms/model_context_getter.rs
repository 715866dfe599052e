//! The `modelContext` getter (`model-context-getter`).
//!
//! Every document has exactly one ModelContext (the `[SameObject]` attribute), so the model
//! identifies a ModelContext with its document: `DocState::tools` and `DocState::local` are
//! its internal context. Reading `document.modelContext` changes nothing; page scripts run
//! this step before each call.

use crate::cx::{Cx, Recorder};
use crate::s;
use crate::world::DocId;

impl<R: Recorder> Cx<'_, R> {
    /// Returns the document whose ModelContext `document.modelContext` is.
    pub fn model_context_getter(&mut self, doc: DocId) -> DocId {
        self.step(s!("model-context-getter#1"));
        doc
    }
}
