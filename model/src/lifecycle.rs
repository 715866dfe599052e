//! Document lifecycle, as HTML drives it: iframes removed, navigables navigated, tabs moving
//! into and out of the back/forward cache. Each event is one action (see docs/model.md).

use crate::cx::{Cx, Recorder};
use crate::state::{Lifecycle, ScriptStatus};
use crate::world::{DocId, NavId, TabId};

impl<R: Recorder> Cx<'_, R> {
    /// HTML "destroy a child navigable": detach the navigable, then destroy its active
    /// document and its descendants (children first).
    pub fn remove_iframe(&mut self, nav: NavId) {
        self.s.navs[nav.index()].attached = false;
        if let Some(doc) = self.s.navs[nav.index()].active {
            self.destroy_document_and_descendants(doc);
        }
        self.mark_tools_changed();
    }

    /// HTML navigation without the back/forward cache: unload the old document and its
    /// descendants (each is unloaded, then destroyed as it is not salvageable), then the
    /// replacement document becomes the navigable's active document.
    pub fn navigate(&mut self, nav: NavId) {
        let replacement = self.w.navs[nav.index()]
            .replacement
            .expect("checked by compile");
        if let Some(old) = self.s.navs[nav.index()].active {
            for doc in self.documents_post_order(old) {
                self.unloading_document_cleanup_steps(doc);
                self.destroy_document(doc);
            }
        }
        self.s.navs[nav.index()].active = Some(replacement);
        self.s.doc_mut(replacement).lifecycle = Lifecycle::FullyActive;
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
            self.s.doc_mut(doc).lifecycle = Lifecycle::NotFullyActive;
        }
        self.s.navs[root.index()].active = None;
        self.mark_tools_changed();
    }

    /// The document in the back/forward cache of `tab`, if any.
    pub fn bfcached_document(&self, tab: TabId) -> Option<DocId> {
        let root = self.w.tabs[tab.index()].root;
        DocId::all(self.w.docs.len()).find(|&d| {
            self.w.docs[d.index()].nav == root
                && self.s.doc(d).lifecycle == Lifecycle::NotFullyActive
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
            if self.s.doc(doc).lifecycle == Lifecycle::NotFullyActive {
                self.s.doc_mut(doc).lifecycle = Lifecycle::FullyActive;
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
