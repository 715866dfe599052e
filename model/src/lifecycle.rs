//! Document lifecycle, as HTML drives it: iframes removed, navigables navigated, tabs moving
//! into and out of the back/forward cache. Each event is one action (see docs/model.md).

use crate::cx::{Cx, Recorder};
use crate::state::{Ghost, Lifecycle, ScriptStatus, TaskKind};
use crate::world::{CallId, DocId, NavId, TabId};

impl<R: Recorder> Cx<'_, R> {
    /// HTML "destroy a child navigable": detach the navigable, then destroy its active
    /// document and its descendants (children first).
    pub fn remove_iframe(&mut self, nav: NavId) {
        let leaving = self.s.navs[nav.index()]
            .active
            .map(|d| self.documents_post_order(d));
        let told = self.who_discovers_tools_of(leaving.as_deref().unwrap_or_default());
        self.s.navs[nav.index()].attached = false;
        if let Some(doc) = self.s.navs[nav.index()].active {
            self.destroy_document_and_descendants(doc);
        }
        self.tools_left(told);
        self.mark_tools_changed();
    }

    /// HTML navigation without the back/forward cache: unload the old document and its
    /// descendants (each is unloaded, then destroyed as it is not salvageable), then the
    /// replacement document becomes the navigable's active document.
    pub fn navigate(&mut self, nav: NavId) {
        let replacement = self.w.navs[nav.index()]
            .replacement
            .expect("checked by compile");
        let leaving = self.s.navs[nav.index()]
            .active
            .map(|d| self.documents_post_order(d));
        let told = self.who_discovers_tools_of(leaving.as_deref().unwrap_or_default());
        if let Some(old) = self.s.navs[nav.index()].active {
            for doc in self.documents_post_order(old) {
                self.unloading_document_cleanup_steps(doc);
                self.destroy_document(doc);
            }
        }
        self.s.navs[nav.index()].active = Some(replacement);
        self.s
            .doc_field_mut(replacement, crate::state::DocField::Lifecycle)
            .lifecycle = Lifecycle::FullyActive;
        self.tools_left(told);
        self.mark_tools_changed();
    }

    /// The tab's page goes into the back/forward cache: every document is unloaded (the
    /// cleanup steps run) but kept, not fully active; the tab shows another page.
    pub fn enter_bfcache(&mut self, tab: TabId) {
        let root = self.w.tabs[tab.index()].root;
        let Some(top) = self.s.navs[root.index()].active else {
            return;
        };
        for doc in self.documents_post_order(top) {
            self.unloading_document_cleanup_steps(doc);
            self.s
                .doc_field_mut(doc, crate::state::DocField::Lifecycle)
                .lifecycle = Lifecycle::NotFullyActive;
        }
        self.s.navs[root.index()].active = None;
        self.mark_tools_changed();
    }

    /// Who can discover the tools of documents about to leave the tree: per tool (its
    /// registration), each fully active document of the same tab, not leaving itself, that is
    /// allowed to use "tools" and to which the tool is exposed (what get-tools#8.3 would list).
    fn who_discovers_tools_of(&self, leaving: &[DocId]) -> Vec<(CallId, DocId)> {
        let w = self.w;
        let mut told = Vec::new();
        for &x in leaving {
            if !self.s.is_fully_active(x) {
                continue;
            }
            let tab = w.navs[w.docs[x.index()].nav.index()].tab;
            for tool in self
                .s
                .doc_field(x, crate::state::DocField::Tools)
                .tools
                .values()
            {
                for d in DocId::all(w.docs.len()) {
                    let shown = w.navs[w.docs[d.index()].nav.index()].tab == tab
                        && !leaving.contains(&d)
                        && self.s.allowed_to_use_tools(w, d)
                        && w.origins.exposes(
                            w.docs[x.index()].origin,
                            tool.exposed,
                            w.docs[d.index()].origin,
                        );
                    if shown {
                        told.push((tool.registered_by, d));
                    }
                }
            }
        }
        told
    }

    /// Tools left the tree under the eyes of `told`: the draft fires nothing (a ghost for
    /// `toolchange-on-discoverable-change`); `notify-on-unload` queues a toolchange at each.
    fn tools_left(&mut self, told: Vec<(CallId, DocId)>) {
        for (cause, d) in told {
            if self.fix(&crate::variant::NOTIFY_ON_UNLOAD) {
                let kind = TaskKind::FireToolchange {
                    cause,
                    registered: false,
                };
                self.queue_global_task(d, kind);
            } else {
                self.s.record(Ghost::DiscoverableChangeUnnotified(d));
            }
        }
    }

    /// The document in the back/forward cache of `tab`, if any.
    pub fn bfcached_document(&self, tab: TabId) -> Option<DocId> {
        let root = self.w.tabs[tab.index()].root;
        DocId::all(self.w.docs.len()).find(|&d| {
            self.w.docs[d.index()].nav == root
                && self
                    .s
                    .doc_field(d, crate::state::DocField::Lifecycle)
                    .lifecycle
                    == Lifecycle::NotFullyActive
        })
    }

    /// History traversal back to the cached page: its documents are fully active again.
    pub fn restore_from_bfcache(&mut self, tab: TabId) {
        let root = self.w.tabs[tab.index()].root;
        let Some(top) = self.bfcached_document(tab) else {
            return;
        };
        self.s.navs[root.index()].active = Some(top);
        for doc in self.documents_post_order(top) {
            if self
                .s
                .doc_field(doc, crate::state::DocField::Lifecycle)
                .lifecycle
                == Lifecycle::NotFullyActive
            {
                self.s
                    .doc_field_mut(doc, crate::state::DocField::Lifecycle)
                    .lifecycle = Lifecycle::FullyActive;
            }
        }
        self.mark_tools_changed();
    }

    /// The cached page is evicted: "destroy a document and its descendants" on a document
    /// that is not fully active destroys it without unloading it again.
    pub fn evict_from_bfcache(&mut self, tab: TabId) {
        if let Some(top) = self.bfcached_document(tab) {
            self.destroy_document_and_descendants(top);
        }
    }

    fn destroy_document_and_descendants(&mut self, doc: DocId) {
        for d in self.documents_post_order(doc) {
            self.destroy_document(d);
        }
    }

    /// HTML "destroy a document": step 6 runs the unloading document cleanup steps, step 7
    /// removes the document's tasks, step 9 clears its navigable's active document.
    fn destroy_document(&mut self, doc: DocId) {
        self.unloading_document_cleanup_steps(doc);
        let agent = self.w.agent_of(doc).index();
        self.s.queues[agent].retain(|t| t.doc != doc);
        let d = self.s.doc_mut(doc);
        d.lifecycle = Lifecycle::Destroyed;
        if matches!(
            d.script.status,
            ScriptStatus::NotStarted
                | ScriptStatus::AwaitingCall(_)
                | ScriptStatus::AwaitingToolchange
                | ScriptStatus::Ready
        ) {
            d.script.status = ScriptStatus::Finished;
        }
        let nav = self.w.docs[doc.index()].nav.index();
        if self.s.navs[nav].active == Some(doc) {
            self.s.navs[nav].active = None;
        }
    }

    /// `doc` and the active documents of its (still attached) descendant navigables,
    /// children before parents, in tree order.
    pub fn documents_post_order(&self, doc: DocId) -> Vec<DocId> {
        let mut out = Vec::new();
        self.post_order(doc, &mut out);
        out
    }

    fn post_order(&self, doc: DocId, out: &mut Vec<DocId>) {
        for child in self.w.child_navs(doc) {
            let n = &self.s.navs[child.index()];
            if n.attached {
                if let Some(c) = n.active {
                    self.post_order(c, out);
                }
            }
        }
        out.push(doc);
    }
}
