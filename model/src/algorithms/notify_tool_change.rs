//! *notify documents of a tool change* (`notify-tool-change`), in parallel; for a
//! registration the same thread then runs `register-tool#20.2`.

use crate::cx::{Cx, Recorder};
use crate::origin::OriginSet;
use crate::s;
use crate::state::TaskKind;
use crate::threads::{NavList, NotifyPc, Thread};
use crate::world::{CallId, DocId, NavId};

impl<R: Recorder> Cx<'_, R> {
    /// One step of a notify thread; returns the thread to keep, or `None` when it is done.
    pub fn notify_step(
        &mut self,
        owner: DocId,
        exposed: OriginSet,
        cause: CallId,
        resolve_registration: bool,
        pc: NotifyPc,
    ) -> Option<Thread> {
        let next = |pc| Thread::Notify {
            owner,
            exposed,
            cause,
            resolve_registration,
            pc,
        };
        match pc {
            NotifyPc::Start => {
                if resolve_registration {
                    self.step(s!("register-tool#20.1"));
                }
                self.assert_in_parallel(s!("notify-tool-change#1"));
                self.step(s!("notify-tool-change#2"));
                let traversable = self.traversable_of_doc(owner, s!("notify-tool-change#2"))?;
                let navs = self.s.inclusive_descendants(self.w, traversable);
                self.step(s!("notify-tool-change#3"));
                Some(next(NotifyPc::Visit(NavList::from_navs(&navs))))
            }
            NotifyPc::Visit(mut navs) => {
                if let Some(nav) = navs.pop() {
                    self.notify_one(owner, exposed, cause, resolve_registration, nav);
                }
                if navs.0 == 0 {
                    // A registration goes on to register-tool#20.2; an unregistration is done.
                    resolve_registration.then(|| next(NotifyPc::ResolveRegistration))
                } else {
                    Some(next(NotifyPc::Visit(navs)))
                }
            }
            NotifyPc::ResolveRegistration => {
                self.queue_registration_resolution(cause);
                None
            }
        }
    }

    /// `notify-tool-change#3.1`–`#3.3` for one navigable.
    fn notify_one(
        &mut self,
        owner: DocId,
        exposed: OriginSet,
        cause: CallId,
        registered: bool,
        nav: NavId,
    ) {
        self.step(s!("notify-tool-change#3.1"));
        // A tab in the back/forward cache shows another page, which has no tools.
        let Some(target) = self.s.navs[nav.index()].active else {
            return;
        };
        self.step(s!("notify-tool-change#3.2"));
        let not_allowed = !self.s.allowed_to_use_tools(self.w, target);
        if self.cond(s!("notify-tool-change#3.2"), not_allowed) {
            return;
        }
        self.step(s!("notify-tool-change#3.3"));
        let owner_origin = self.w.docs[owner.index()].origin;
        let target_origin = self.w.docs[target.index()].origin;
        let exposed_to_target =
            self.tool_is_exposed_to_origin(owner_origin, exposed, target_origin);
        if self.cond(s!("notify-tool-change#3.3"), exposed_to_target) {
            self.queue_global_task(target, TaskKind::FireToolchange { cause, registered });
        }
    }
}
