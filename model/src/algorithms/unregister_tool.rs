//! *unregister a tool* (`unregister-tool`), run by a registration's abort steps.

use crate::cx::{Cx, Recorder};
use crate::mutation::Site;
use crate::s;
use crate::threads::{NotifyPc, Thread, ThreadKey};
use crate::world::{CallId, DocId, StrId};

impl<R: Recorder> Cx<'_, R> {
    /// `model_context` is the document whose ModelContext registered the tool; `cause` is
    /// the registerTool call whose abort steps run this (it names the notify thread).
    pub fn unregister_tool(&mut self, model_context: DocId, tool_name: StrId, cause: CallId) {
        self.assert_on_event_loop_of(s!("unregister-tool#1"), model_context);
        self.step(s!("unregister-tool#2"));
        self.step(s!("unregister-tool#3"));
        let definition = self.s.doc(model_context).tools.get(&tool_name).copied();
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
            cx.s.doc_mut(model_context).tools.remove(&tool_name);
        });
        self.mark_tools_changed();
        self.step(s!("unregister-tool#6"));
        let target_document = model_context;
        self.step(s!("unregister-tool#7"));
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
