//! *tool is exposed to an origin* (`tool-exposed-to-origin`): a pure predicate.

use crate::cx::{Cx, Recorder};
use crate::origin::{OriginId, OriginSet};
use crate::s;

impl<R: Recorder> Cx<'_, R> {
    pub fn tool_is_exposed_to_origin(
        &mut self,
        tool_owner_origin: OriginId,
        exposed_origins: OriginSet,
        accessing_origin: OriginId,
    ) -> bool {
        self.rec.step(s!("tool-exposed-to-origin#1"));
        let same = self
            .w
            .origins
            .same_origin(tool_owner_origin, accessing_origin);
        if self.cond(s!("tool-exposed-to-origin#1"), same) {
            return true;
        }
        self.rec.step(s!("tool-exposed-to-origin#2"));
        for allowed in exposed_origins.iter() {
            self.rec.step(s!("tool-exposed-to-origin#2.1"));
            let same = self.w.origins.same_origin(accessing_origin, allowed);
            if self.cond(s!("tool-exposed-to-origin#2.1"), same) {
                return true;
            }
        }
        self.rec.step(s!("tool-exposed-to-origin#3"));
        false
    }
}
