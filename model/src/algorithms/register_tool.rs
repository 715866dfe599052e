//! The `registerTool(tool, options)` method steps (`register-tool`).

use crate::cx::{Cx, Recorder};
use crate::mutation::Site;
use crate::names::tool_name_is_valid;
use crate::origin::OriginSet;
use crate::s;
use crate::state::{AbortStep, Reason, ToolDefinition};
use crate::threads::{NotifyPc, Thread, ThreadKey};
use crate::world::{DocId, RegisterOp};
use crate::StepId;

impl<R: Recorder> Cx<'_, R> {
    /// Runs on `doc`'s event loop, from its page script.
    pub fn register_tool(&mut self, doc: DocId, op: &RegisterOp) {
        let call = op.call;
        if !op.schema_is_object {
            // WebIDL converts the ModelContextTool dictionary, and its `object inputSchema`,
            // before the method steps run.
            return self.return_rejected(call, Reason::TypeError, s!("register-tool#1"));
        }
        self.step(s!("register-tool#1"));
        self.step(s!("register-tool#2"));
        let tool_owner = doc;
        self.step(s!("register-tool#3"));
        let inactive = !self.s.is_fully_active(tool_owner);
        if self.cond(s!("register-tool#3"), inactive) {
            return self.return_rejected(call, Reason::InvalidStateError, s!("register-tool#3"));
        }
        if self.refuses_unkeyed_agent_cluster(doc, s!("2026-08:register-tool#4")) {
            return self.return_rejected(
                call,
                Reason::SecurityError,
                s!("2026-08:register-tool#4"),
            );
        }
        self.step(s!("register-tool#4"));
        let not_allowed = !self.s.allowed_to_use_tools(self.w, tool_owner);
        if self.cond(s!("register-tool#4"), not_allowed) {
            return self.return_rejected(call, Reason::NotAllowedError, s!("register-tool#4"));
        }
        self.step(s!("register-tool#5"));
        self.step(s!("register-tool#6"));
        self.step(s!("register-tool#7"));
        self.step(s!("register-tool#8"));
        let exists = self
            .s
            .doc_field(doc, crate::state::DocField::Tools)
            .tools
            .contains_key(&op.name);
        if self.cond(s!("register-tool#8"), exists) {
            return self.return_rejected(call, Reason::InvalidStateError, s!("register-tool#8"));
        }
        let name = self.w.str(op.name);
        let no_description = self.w.str(op.description).is_empty();
        if self.variant.revision().checks_name_and_description_apart() {
            self.step(s!("register-tool#9"));
            if self.cond(s!("register-tool#9"), !tool_name_is_valid(name)) {
                return self.return_rejected(
                    call,
                    Reason::InvalidStateError,
                    s!("register-tool#9"),
                );
            }
            self.step(s!("register-tool#10"));
            if self.cond(s!("register-tool#10"), no_description) {
                return self.return_rejected(
                    call,
                    Reason::InvalidStateError,
                    s!("register-tool#10"),
                );
            }
        } else {
            // The 2026-08 text: "If tool name or description is the empty string" (the row now
            // named register-tool#10), then the name's form (now register-tool#9).
            self.step(s!("register-tool#10"));
            let empty = name.is_empty() || no_description;
            if self.cond(s!("register-tool#10"), empty) {
                return self.return_rejected(
                    call,
                    Reason::InvalidStateError,
                    s!("register-tool#10"),
                );
            }
            self.step(s!("register-tool#9"));
            if !tool_name_is_valid(name) {
                return self.return_rejected(
                    call,
                    Reason::InvalidStateError,
                    s!("register-tool#9"),
                );
            }
        }
        self.step(s!("register-tool#11"));
        let mut stringified = None;
        self.step(s!("register-tool#12"));
        if let Some(schema) = op.schema {
            match schema {
                Ok(text) => stringified = Some(text),
                Err(thrown) => {
                    return self.return_rejected(call, thrown.into(), s!("register-tool#12"));
                }
            }
        }
        self.step(s!("register-tool#13"));
        if let Some(ctrl) = op.signal {
            let aborted = self.s.controllers[ctrl.index()].aborted;
            if self.cond(s!("register-tool#13"), aborted) {
                return self.return_rejected(call, Reason::Aborted(ctrl), s!("register-tool#13"));
            }
        }
        self.step(s!("register-tool#14"));
        let mut exposed = OriginSet::default();
        self.step(s!("register-tool#15"));
        if let Some(list) = &op.exposed_to {
            self.step(s!("register-tool#15.1"));
            for parsed in list {
                self.step(s!("register-tool#15.1.1"));
                self.step(s!("register-tool#15.1.2"));
                match parsed {
                    Some(o) if self.w.origins.is_potentially_trustworthy(*o) => {
                        self.step(s!("register-tool#15.1.3"));
                        exposed.insert(*o);
                    }
                    _ => {
                        return self.return_rejected(
                            call,
                            Reason::SecurityError,
                            s!("register-tool#15.1.2"),
                        )
                    }
                }
            }
        }
        self.step(s!("register-tool#16"));
        self.new_promise(call);
        self.step(s!("register-tool#17"));
        let signal = op
            .signal
            .filter(|_| self.cond(s!("register-tool#17"), true));
        if let Some(ctrl) = signal {
            self.step(s!("register-tool#17.1"));
            self.step(s!("register-tool#17.2"));
            if self.s.controllers[ctrl.index()].aborted {
                // Unreachable: #13 made the same check and nothing ran in between.
                return self.return_rejected(call, Reason::Aborted(ctrl), s!("register-tool#17.2"));
            }
            self.step(s!("register-tool#17.3"));
            self.effect(Site::AbortSteps, move |cx| {
                cx.s.controllers[ctrl.index()]
                    .abort_steps
                    .push_back(AbortStep::Register { call });
            });
        }
        self.step(s!("register-tool#18"));
        let definition = ToolDefinition {
            name: op.name,
            title: op.title,
            description: op.description,
            input_schema: stringified.unwrap_or(self.empty_string()),
            annotations: op.annotations,
            exposed,
            registered_by: call,
        };
        self.step(s!("register-tool#19"));
        let name = op.name;
        self.effect(Site::Effect, move |cx| {
            cx.s.doc_field_mut(doc, crate::state::DocField::Tools)
                .tools
                .insert(name, definition);
        });
        self.mark_tools_changed();
        self.step(s!("register-tool#20"));
        self.spawn(
            ThreadKey::Register(call),
            Thread::Notify {
                owner: tool_owner,
                exposed,
                cause: call,
                resolve_registration: true,
                pc: NotifyPc::Start,
            },
        );
        self.step(s!("register-tool#21"));
    }

    /// Step #4 of registerTool, getTools and executeTool in the 2026-08 text: the agent cluster is
    /// origin-keyed, or the scheme of the origin is "file". An opaque origin has no scheme.
    pub fn origin_keyed_or_file(&self, doc: DocId) -> bool {
        let d = &self.w.docs[doc.index()];
        d.origin_keyed || self.w.origins.scheme(d.origin) == Some("file")
    }

    /// The origin-keyed check of the 2026-08 text (`2026-08:register-tool#4`,
    /// `2026-08:get-tools#4`, `2026-08:execute-tool#3`): whether `step` refuses `doc`. The
    /// current text dropped it, so there it is not a step at all.
    pub fn refuses_unkeyed_agent_cluster(&mut self, doc: DocId, step: StepId) -> bool {
        if !self.variant.revision().checks_origin_keyed() {
            return false;
        }
        self.step(step);
        let refused = !self.origin_keyed_or_file(doc);
        self.cond(step, refused)
    }

    /// The id of the empty string (an input schema that does not exist).
    pub fn empty_string(&self) -> crate::world::StrId {
        self.w.empty_string
    }

    /// `register-tool#20.2`: queue the task that resolves the registration promise.
    pub fn queue_registration_resolution(&mut self, call: crate::world::CallId) {
        self.step(s!("register-tool#20.2"));
        let global = self.w.calls[call.index()].doc;
        self.queue_global_task(global, crate::state::TaskKind::ResolveRegister { call });
    }
}
