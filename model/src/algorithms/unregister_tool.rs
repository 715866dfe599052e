//! *unregister a tool* (`unregister-tool`), run by a registration's abort steps.

use crate::cx::{Cx, Recorder};
use crate::mutation::Site;
use crate::origin::OriginSet;
use crate::s;
use crate::threads::{NotifyPc, Thread, ThreadKey};
use crate::variant::Revision;
use crate::world::{CallId, DocId, StrId};

impl<R: Recorder> Cx<'_, R> {
    /// `model_context` is the document whose ModelContext registered the tool; `cause` is
    /// the registerTool call whose abort steps run this (it names the notify thread).
    pub fn unregister_tool(&mut self, model_context: DocId, tool_name: StrId, cause: CallId) {
        self.assert_on_event_loop_of(s!("unregister-tool#1"), model_context);
        self.step(s!("unregister-tool#2"));
        self.step(s!("unregister-tool#3"));
        let definition = self
            .s
            .doc_field(model_context, crate::state::DocField::Tools)
            .tools
            .get(&tool_name)
            .copied();
        if self.cond(s!("unregister-tool#3"), definition.is_none()) {
            return;
        }
        let Some(definition) = definition else {
            return self.missing(s!("unregister-tool#4"));
        };
        self.step(s!("unregister-tool#4"));
        let exposed = definition.exposed;
        self.step(s!("unregister-tool#5"));
        self.effect(Site::Effect, move |cx| {
            cx.s.doc_field_mut(model_context, crate::state::DocField::Tools)
                .tools
                .remove(&tool_name);
        });
        self.mark_tools_changed();
        self.step(s!("unregister-tool#6"));
        let target_document = model_context;
        self.step(s!("unregister-tool#7"));
        if self.variant.revision() == Revision::Pr247 {
            return self.unregister_tool_pr247(target_document, tool_name, exposed, cause);
        }
        self.spawn(
            ThreadKey::Unregister(cause),
            Thread::Notify {
                owner: target_document,
                exposed,
                cause,
                resolve_registration: false,
                pc: NotifyPc::Start,
            },
        );
    }
}

impl<R: Recorder> Cx<'_, R> {
    /// The end of unregister-tool as PR #247 left it (docs/revisions.md): after removing the
    /// tool, "For each uuid of canceledExecutions: … Run execution's completion steps given
    /// null and false", then "Notify documents of a tool change given targetDocument and
    /// exposed origins", synchronously. The review diffs do not show how canceledExecutions
    /// was collected; we take the executions of the traversable's pending tool executions map
    /// whose target document is targetDocument and whose tool name is the tool's.
    fn unregister_tool_pr247(
        &mut self,
        target_document: DocId,
        tool_name: StrId,
        exposed: OriginSet,
        cause: CallId,
    ) {
        if let Some(traversable) = self.traversable_of_doc(target_document, s!("unregister-tool#7"))
        {
            let tab = self.w.navs[traversable.index()].tab.index();
            let canceled: Vec<CallId> = self.s.pending[tab]
                .iter()
                .filter(|(_, e)| e.target == target_document && e.tool_name == tool_name)
                .map(|(uuid, _)| *uuid)
                .collect();
            for uuid in canceled {
                self.run_completion_steps(uuid, target_document, None);
            }
        }
        // Not "in parallel": the notify steps run here, on the event loop, to the end.
        let mut thread = Some(Thread::Notify {
            owner: target_document,
            exposed,
            cause,
            resolve_registration: false,
            pc: NotifyPc::Start,
        });
        while let Some(Thread::Notify {
            owner,
            exposed,
            cause,
            resolve_registration,
            pc,
        }) = thread
        {
            thread = self.notify_step(owner, exposed, cause, resolve_registration, pc);
        }
    }
}
