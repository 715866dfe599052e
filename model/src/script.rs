//! Page scripts: each document runs its statements in program order, suspending at `await`;
//! a suspended script resumes in the microtask checkpoint after the task that settled what
//! it awaits.

use crate::cx::{Cx, Recorder, Where};
use crate::state::Ghost;
use crate::state::RegisteredTool;
use crate::state::{ScriptStatus, Status, Value, TOOLCHANGES_COUNTED};
use crate::world::{AgentId, DocId, ExecuteOp, GetToolsOp, Op, RegisterOp, ToolArg};

impl<R: Recorder> Cx<'_, R> {
    /// Runs `doc`'s script from its current statement until it suspends or ends.
    pub fn run_script(&mut self, doc: DocId) {
        let w = self.w;
        let script = &w.docs[doc.index()].script;
        loop {
            if !self.s.is_fully_active(doc) {
                return;
            }
            let pc = self
                .s
                .doc_field(doc, crate::state::DocField::Script)
                .script
                .pc as usize;
            let Some(op) = script.get(pc) else {
                self.s
                    .doc_field_mut(doc, crate::state::DocField::Script)
                    .script
                    .status = ScriptStatus::Finished;
                return;
            };
            let mut status = ScriptStatus::Ready;
            if let Op::Register(RegisterOp { call, .. })
            | Op::GetTools(GetToolsOp { call, .. })
            | Op::Execute(ExecuteOp { call, .. }) = op
            {
                if !self.s.is_fully_active(w.calls[call.index()].doc) {
                    self.s.record(Ghost::CalledOnInactiveDocument(*call));
                }
            }
            match op {
                Op::Register(r) => {
                    let mc = self.model_context_getter(w.calls[r.call.index()].doc);
                    self.register_tool(mc, r);
                }
                Op::GetTools(g) => {
                    let mc = self.model_context_getter(w.calls[g.call.index()].doc);
                    self.get_tools(mc, g);
                }
                Op::Execute(e) => match self.tool_argument(&e.tool) {
                    Some(tool) => {
                        let mc = self.model_context_getter(w.calls[e.call.index()].doc);
                        self.execute_tool(mc, e, tool);
                    }
                    None => status = ScriptStatus::Threw,
                },
                Op::Abort(ctrl) => self.signal_abort(*ctrl),
                Op::Await(call) => {
                    if !self.s.promises[call.index()].is_settled() {
                        status = ScriptStatus::AwaitingCall(*call);
                    }
                }
                Op::AwaitToolchange => status = ScriptStatus::AwaitingToolchange,
                // An iframe removed earlier (by the environment or this script) is gone:
                // removing it again, or navigating its destroyed navigable, does nothing.
                Op::RemoveIframe(nav) => {
                    if self.s.navs[nav.index()].attached {
                        self.remove_iframe(*nav);
                    }
                }
                Op::Navigate(nav) => {
                    if self.s.navs[nav.index()].attached {
                        self.navigate(*nav);
                    }
                }
            }
            // A swap mutant reorders writes within the method the statement called; they
            // have all landed when the script goes on.
            if self.mutant.is_some() {
                self.flush_deferred();
            }
            let st = &mut self
                .s
                .doc_field_mut(doc, crate::state::DocField::Script)
                .script;
            match status {
                ScriptStatus::Ready => st.advance(),
                ScriptStatus::Threw => {
                    st.status = ScriptStatus::Threw;
                    return;
                }
                suspended => {
                    st.advance();
                    st.status = suspended;
                    return;
                }
            }
        }
    }

    /// The `RegisteredTool` a statement passes to executeTool: an entry of an earlier
    /// getTools result, or a dictionary built by hand. `None`: the script throws (the list
    /// is not there, or has no such entry).
    pub(crate) fn tool_argument(&self, arg: &ToolArg) -> Option<RegisteredTool> {
        match *arg {
            ToolArg::FromList { list, name } => match &self.s.promises[list.index()].status {
                Status::Fulfilled(Value::Tools(tools)) => {
                    tools.iter().find(|t| t.name == name).copied()
                }
                _ => None,
            },
            ToolArg::Forged {
                name,
                origin,
                window,
            } => Some(RegisteredTool {
                name,
                title: None,
                description: self.w.empty_string,
                input_schema: None,
                window,
                origin,
                annotations: None,
                definition: None,
            }),
        }
    }

    /// The microtask checkpoint after a task on `agent`'s event loop: resume every script
    /// whose awaited promise has settled or whose awaited event fired, in document order,
    /// until none is left.
    pub fn microtask_checkpoint(&mut self, agent: AgentId) {
        loop {
            let ready = DocId::all(self.w.docs.len()).find(|&d| {
                self.w.agent_of(d) == agent
                    && self.s.is_fully_active(d)
                    && match self
                        .s
                        .doc_field(d, crate::state::DocField::Script)
                        .script
                        .status
                    {
                        ScriptStatus::Ready => true,
                        ScriptStatus::AwaitingCall(c) => self.s.promises[c.index()].is_settled(),
                        ScriptStatus::AwaitingToolchange => self.toolchange_arrived(d),
                        _ => false,
                    }
            });
            if let Some(doc) = ready {
                self.s
                    .doc_field_mut(doc, crate::state::DocField::Script)
                    .script
                    .status = ScriptStatus::Ready;
                self.run_script(doc);
            } else if let Some(uuid) = self.body_ready_on(agent) {
                self.resume_body_on_call(uuid);
            } else {
                return;
            }
        }
    }

    /// `awaitToolchange`: the page counts `toolchange` events from the start of its script
    /// (a handler installed first thing); its k-th `awaitToolchange` resumes once k events
    /// have fired.
    fn toolchange_arrived(&self, doc: DocId) -> bool {
        let pc = self
            .s
            .doc_field(doc, crate::state::DocField::Script)
            .script
            .pc as usize;
        let script = &self.w.docs[doc.index()].script;
        let k = script[..pc.min(script.len())]
            .iter()
            .filter(|op| matches!(op, Op::AwaitToolchange))
            .count();
        // A script has at most TOOLCHANGES_COUNTED awaitToolchange statements (the compiler
        // checks), so the saturating counter answers exactly.
        self.s
            .doc_field(doc, crate::state::DocField::Toolchanges)
            .toolchanges
            >= k.min(TOOLCHANGES_COUNTED as usize) as u8
    }

    /// Runs `f` as a task on `agent`'s event loop, then its microtask checkpoint.
    pub fn as_task(&mut self, agent: AgentId, f: impl FnOnce(&mut Self)) {
        let saved = self.at;
        self.at = Where::EventLoop(agent);
        f(self);
        // A swap mutant's held-back writes belong to the task: they land before its
        // microtask checkpoint reads them.
        if self.mutant.is_some() {
            self.flush_deferred();
        }
        self.microtask_checkpoint(agent);
        self.at = saved;
    }
}
