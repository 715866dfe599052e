//! The *tool execute steps* (`tool-execute-steps`), in the task queued at
//! `execute-tool#16.13` on the target's event loop.

use crate::cx::{Cx, Recorder};
use crate::s;
use crate::state::{Ghost, ToolDefinition};
use crate::world::{CallId, DocId, StrId, ToolArg};

impl<R: Recorder> Cx<'_, R> {
    pub fn tool_execute_steps(&mut self, tool_name: StrId, target: DocId, uuid: CallId) {
        self.assert_on_event_loop_of(s!("tool-execute-steps#1"), target);
        if self.fix(&crate::variant::CHECK_SIGNAL_BEFORE_INVOKING) {
            if let Some(ctrl) = self.w.execute_op(uuid).signal {
                if self.s.controllers[ctrl.index()].aborted {
                    // The entry execute-tool#16.12 stored must still go (nothing-left-at-end).
                    return self.run_completion_steps(uuid, target, None);
                }
            }
        }
        if self.fix(&crate::variant::SKIP_CANCELLED_EXECUTION) {
            let traversable = self.w.traversable_of(self.w.docs[target.index()].nav);
            if self.pending_get(traversable, uuid).is_none() {
                return;
            }
        }
        self.step(s!("tool-execute-steps#2"));
        self.step(s!("tool-execute-steps#3"));
        let tool = self
            .s
            .doc(target)
            .tools
            .get(&tool_name)
            .copied()
            .filter(|_| !self.is_another_definition(uuid, target, tool_name));
        if self.cond(s!("tool-execute-steps#3"), tool.is_none()) {
            return self.run_completion_steps(uuid, target, None);
        }
        let Some(tool) = tool else {
            self.missing(s!("tool-execute-steps#3"));
            return;
        };
        self.step(s!("tool-execute-steps#4"));
        self.record_what_runs(uuid, target, &tool);
        self.step(s!("tool-execute-steps#5"));
        // Every tool the model registers is imperative (registerTool); see docs/model.md
        // for the declarative execute steps, which the draft leaves unspecified.
        self.imperative_execute_steps(tool.registered_by, target, uuid);
    }
}

impl<R: Recorder> Cx<'_, R> {
    /// The `RegisteredTool` the caller of execution `uuid` passed, if it came from a
    /// getTools list (a forged dictionary describes no discovered tool).
    fn discovered_tool(&self, uuid: CallId) -> Option<crate::state::RegisteredTool> {
        let tool = &self.w.execute_op(uuid).tool;
        match tool {
            ToolArg::FromList { .. } => self.tool_argument(tool),
            ToolArg::Forged { .. } => None,
        }
    }

    /// Under `tool-identity`: the tool map's entry for `tool_name` is not the definition the
    /// caller discovered (execute-tool#16.7 and tool-execute-steps#3 then treat it as missing).
    pub fn is_another_definition(&self, uuid: CallId, target: DocId, tool_name: StrId) -> bool {
        if !self.fix(&crate::variant::TOOL_IDENTITY) {
            return false;
        }
        let Some(discovered) = self.discovered_tool(uuid).and_then(|t| t.definition) else {
            return false;
        };
        self.s
            .doc(target)
            .tools
            .get(&tool_name)
            .is_some_and(|d| d.registered_by != discovered)
    }

    /// Ghosts for what a developer relies on when the tool runs: it is the tool the caller
    /// discovered (the members getTools showed), and it is exposed to the caller's origin.
    fn record_what_runs(&mut self, uuid: CallId, target: DocId, tool: &ToolDefinition) {
        let empty = self.w.empty_string;
        if let Some(seen) = self.discovered_tool(uuid) {
            let same = seen.title == tool.title
                && seen.description == tool.description
                && seen.input_schema == (tool.input_schema != empty).then_some(tool.input_schema)
                && seen.annotations == tool.annotations;
            if !same {
                self.s.record(Ghost::RanUndiscoveredTool(uuid));
            }
        }
        let caller = self.w.calls[uuid.index()].doc;
        let exposed = self.w.origins.exposes(
            self.w.docs[target.index()].origin,
            tool.exposed,
            self.w.docs[caller.index()].origin,
        );
        if !exposed {
            self.s.record(Ghost::RanForUnexposedCaller(uuid));
        }
    }
}
