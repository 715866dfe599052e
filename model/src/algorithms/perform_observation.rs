//! *perform an observation* (`perform-observation`), on the AI agent queue.
//!
//! It writes nothing another algorithm reads, so the model runs it as one action (see
//! docs/model.md); what it observes is returned for traces and tests.

use crate::cx::{Cx, Recorder, Where};
use crate::s;
use crate::world::{DocId, StrId, TabId};

impl<R: Recorder> Cx<'_, R> {
    pub fn perform_observation(&mut self, tab: TabId) -> Vec<(DocId, Vec<StrId>)> {
        let traversable = self.w.tabs[tab.index()].root;
        self.assert_that(s!("perform-observation#1"), self.at == Where::AiAgentQueue);
        let active = self.s.navs[traversable.index()].active;
        let fully_active = active.is_some_and(|d| self.s.is_fully_active(d));
        self.assert_that(s!("perform-observation#2"), fully_active);
        self.step(s!("perform-observation#3"));
        let mut observation = Vec::new();
        self.step(s!("perform-observation#4"));
        let Some(_) = active else {
            return observation;
        };
        self.step(s!("perform-observation#5"));
        for nav in self.s.inclusive_descendants(self.w, traversable) {
            self.step(s!("perform-observation#5.1"));
            let Some(document) = self.s.navs[nav.index()].active else {
                continue;
            };
            self.step(s!("perform-observation#5.2"));
            self.step(s!("perform-observation#5.3"));
            let tools = self
                .s
                .doc_field(document, crate::state::DocField::Tools)
                .tools
                .keys()
                .copied()
                .collect();
            // The observed tool collection's origin is the document's (`document` names it).
            self.step(s!("perform-observation#5.4"));
            self.step(s!("perform-observation#5.5"));
            observation.push((document, tools));
        }
        self.step(s!("perform-observation#6"));
        self.step(s!("perform-observation#7"));
        observation
    }
}
