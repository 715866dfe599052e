//! The `getTools(options)` method steps (`get-tools`), and the independent definition of
//! what a caller may see that the exactness property compares against.

use crate::coll::Vector;

use crate::cx::{Cx, Recorder};
use crate::origin::OriginSet;
use crate::s;
use crate::state::{Ghost, Reason, RegisteredTool, State, TaskKind, Value};
use crate::threads::{GetToolsPc, NavList, Thread, ThreadKey};
use crate::world::{CallId, DocId, GetToolsOp, NavId, StrId, World};

impl<R: Recorder> Cx<'_, R> {
    pub fn get_tools(&mut self, doc: DocId, op: &GetToolsOp) {
        let call = op.call;
        self.step(s!("get-tools#1"));
        self.step(s!("get-tools#2"));
        let tool_requestor = doc;
        self.step(s!("get-tools#3"));
        let inactive = !self.s.is_fully_active(tool_requestor);
        if self.cond(s!("get-tools#3"), inactive) {
            return self.return_rejected(call, Reason::InvalidStateError, s!("get-tools#3"));
        }
        if self.refuses_unkeyed_agent_cluster(doc, s!("2026-08:get-tools#4")) {
            return self.return_rejected(call, Reason::SecurityError, s!("2026-08:get-tools#4"));
        }
        self.step(s!("get-tools#4"));
        let not_allowed = !self.s.allowed_to_use_tools(self.w, tool_requestor);
        if self.cond(s!("get-tools#4"), not_allowed) {
            return self.return_rejected(call, Reason::NotAllowedError, s!("get-tools#4"));
        }
        self.step(s!("get-tools#5"));
        let mut from_origins = OriginSet::default();
        self.step(s!("get-tools#6"));
        if let Some(list) = &op.from_origins {
            self.step(s!("get-tools#6.1"));
            for parsed in list {
                self.step(s!("get-tools#6.1.1"));
                self.step(s!("get-tools#6.1.2"));
                match parsed {
                    Some(o) if self.w.origins.is_potentially_trustworthy(*o) => {
                        self.step(s!("get-tools#6.1.3"));
                        from_origins.insert(*o);
                    }
                    _ => {
                        return self.return_rejected(
                            call,
                            Reason::SecurityError,
                            s!("get-tools#6.1.2"),
                        )
                    }
                }
            }
        }
        self.step(s!("get-tools#7"));
        self.new_promise(call);
        self.step(s!("get-tools#8"));
        self.spawn(
            ThreadKey::GetTools(call),
            Thread::GetTools {
                requestor: tool_requestor,
                from_origins,
                pc: GetToolsPc::Start,
            },
        );
        self.step(s!("get-tools#9"));
    }

    /// One step of the `get-tools#8` block.
    pub fn get_tools_step(
        &mut self,
        call: CallId,
        requestor: DocId,
        from_origins: OriginSet,
        pc: GetToolsPc,
    ) -> Option<Thread> {
        let next = |pc| Thread::GetTools {
            requestor,
            from_origins,
            pc,
        };
        match pc {
            GetToolsPc::Start => {
                self.step(s!("get-tools#8.1"));
                self.step(s!("get-tools#8.2"));
                let traversable = self.traversable_of_doc(requestor, s!("get-tools#8.2"))?;
                let navs = self.s.inclusive_descendants(self.w, traversable);
                self.step(s!("get-tools#8.3"));
                Some(next(GetToolsPc::Visit {
                    navs: NavList::from_navs(&navs),
                    tools: Vector::new(),
                    changed: false,
                }))
            }
            GetToolsPc::Visit {
                mut navs,
                mut tools,
                changed,
            } => {
                if let Some(nav) = navs.pop() {
                    self.get_tools_visit(requestor, from_origins, nav, &mut tools);
                }
                Some(next(if navs.0 == 0 {
                    GetToolsPc::Finish { tools, changed }
                } else {
                    GetToolsPc::Visit {
                        navs,
                        tools,
                        changed,
                    }
                }))
            }
            GetToolsPc::Finish { tools, changed } => {
                self.step(s!("get-tools#8.4"));
                // Infra's "sort in ascending order" is stable (im's sort is not).
                let w = self.w;
                let mut sorted: Vec<RegisteredTool> = tools.iter().copied().collect();
                sorted.sort_by(|a, b| code_unit_cmp(w.str(a.name), w.str(b.name)));
                let tools: Vector<RegisteredTool> = sorted.into_iter().collect();
                if !changed
                    && !same_tools(&tools, &visible_tools(w, self.s, requestor, from_origins))
                {
                    self.s.record(Ghost::GetToolsMismatch(call));
                }
                self.step(s!("get-tools#8.5"));
                self.queue_global_task(requestor, TaskKind::ResolveGetTools { call, tools });
                None
            }
        }
    }

    /// `get-tools#8.3.1`–`#8.3.8.3` for one navigable: one step, reading one tool map.
    fn get_tools_visit(
        &mut self,
        requestor: DocId,
        from_origins: OriginSet,
        nav: NavId,
        tools: &mut Vector<RegisteredTool>,
    ) {
        self.step(s!("get-tools#8.3.1"));
        let Some(target) = self.s.navs[nav.index()].active else {
            return;
        };
        self.step(s!("get-tools#8.3.2"));
        let not_allowed = !self.s.allowed_to_use_tools(self.w, target);
        if self.cond(s!("get-tools#8.3.2"), not_allowed) {
            return;
        }
        self.step(s!("get-tools#8.3.3"));
        let target_origin = self.w.docs[target.index()].origin;
        self.step(s!("get-tools#8.3.4"));
        let caller_origin = self.w.docs[requestor.index()].origin;
        self.step(s!("get-tools#8.3.5"));
        let requested = self.w.origins.same_origin(target_origin, caller_origin)
            || from_origins.iter().any(|o| o == target_origin);
        self.step(s!("get-tools#8.3.6"));
        if self.cond(s!("get-tools#8.3.6"), !requested) {
            return;
        }
        self.step(s!("get-tools#8.3.7"));
        let map = self
            .s
            .doc_field(target, crate::state::DocField::Tools)
            .tools
            .clone();
        self.step(s!("get-tools#8.3.8"));
        for definition in map.values() {
            self.step(s!("get-tools#8.3.8.1"));
            let hidden =
                !self.tool_is_exposed_to_origin(target_origin, definition.exposed, caller_origin);
            if self.cond(s!("get-tools#8.3.8.1"), hidden) {
                continue;
            }
            self.step(s!("get-tools#8.3.8.2"));
            let empty = self.w.empty_string;
            tools.push_back(RegisteredTool {
                name: definition.name,
                title: definition.title,
                description: definition.description,
                input_schema: (definition.input_schema != empty).then_some(definition.input_schema),
                window: target,
                origin: self.w.docs[target.index()].origin_string,
                annotations: definition.annotations,
                definition: self
                    .fix(&crate::variant::TOOL_IDENTITY)
                    .then_some(definition.registered_by),
            });
            self.step(s!("get-tools#8.3.8.3"));
        }
    }

    /// The getTools resolution task.
    pub fn resolve_get_tools(&mut self, call: CallId, tools: Vector<RegisteredTool>) {
        self.settle(call, Ok(Value::Tools(tools)), s!("get-tools#8.5"));
    }
}

/// Compares two strings by UTF-16 code units, as "code unit less than" does.
pub fn code_unit_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

fn same_tools(a: &Vector<RegisteredTool>, b: &[(StrId, DocId)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(t, (n, d))| t.name == *n && t.window == *d)
}

/// What a `getTools` call from `requestor` may see right now, written from the draft's
/// intent rather than its steps: every tool of a fully active document in the requestor's
/// tab that may use "tools", whose origin the requestor asked for (its own or listed), and
/// that is exposed to the requestor's origin; ordered by name, then tree order.
pub fn visible_tools(
    w: &World,
    s: &State,
    requestor: DocId,
    from_origins: OriginSet,
) -> Vec<(StrId, DocId)> {
    let tab = w.navs[w.docs[requestor.index()].nav.index()].tab;
    let caller_origin = w.docs[requestor.index()].origin;
    let mut out = Vec::new();
    for (d, doc) in w.docs.iter().enumerate() {
        let d = DocId::nth(d);
        if w.navs[doc.nav.index()].tab != tab || !in_tree(w, s, d) || !s.allowed_to_use_tools(w, d)
        {
            continue;
        }
        let own = doc.origin == caller_origin;
        if !own && from_origins.0 & (1 << doc.origin) == 0 {
            continue;
        }
        for t in s.doc_field(d, crate::state::DocField::Tools).tools.values() {
            if own || t.exposed.0 & (1 << caller_origin) != 0 {
                out.push((t.name, d, doc.nav));
            }
        }
    }
    out.sort_by(|a, b| code_unit_cmp(w.str(a.0), w.str(b.0)).then(a.2.cmp(&b.2)));
    out.into_iter().map(|(n, d, _)| (n, d)).collect()
}

/// Whether `d` is the active document of a navigable attached all the way up to its tab.
fn in_tree(w: &World, s: &State, d: DocId) -> bool {
    let nav = w.docs[d.index()].nav;
    if s.navs[nav.index()].active != Some(d) || !s.navs[nav.index()].attached {
        return false;
    }
    match w.navs[nav.index()].container {
        None => true,
        Some(parent) => in_tree(w, s, parent),
    }
}
