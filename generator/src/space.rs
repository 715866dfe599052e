//! The generated scenarios in a compact form ([`Gen`]) and the one definition of the space
//! within a bound ([`build`]): a sequence of choices, each among a known number of options.
//! Exhaustive enumeration walks every sequence; sampling draws each choice at random.

use crate::bound::Bound;

/// A generated scenario. Documents are numbered per tab in preorder (the top-level document
/// first); origins and tool names are small integers that [`crate::canon`] renames by first
/// appearance. The derived order is the one canonical forms are chosen by.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Gen {
    pub tabs: Vec<TabGen>,
    pub env: EnvGen,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TabGen {
    /// In preorder: a document's iframes follow it, in tree order.
    pub docs: Vec<DocGen>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DocGen {
    /// The container document (an index into the tab's `docs`); `None` for the top-level one.
    pub parent: Option<u8>,
    pub origin: u8,
    /// The iframe has `allow="tools"` (only generated for a cross-origin iframe: a
    /// same-origin one is allowed by the default allowlist `'self'` either way).
    pub allow: bool,
    pub script: Vec<Stmt>,
    /// `originKeyed: false`: its agent cluster is not origin-keyed, so its calls reject with
    /// "SecurityError". The same for every document of its agent (same tab, same origin).
    pub unkeyed: bool,
}

/// One statement of a page script. Controllers are numbered per document by first mention;
/// `list` and `Await` name an earlier statement of the same script by its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stmt {
    Register {
        tool: u8,
        exposed: Option<u8>,
        signal: Option<u8>,
    },
    GetTools {
        from: Option<u8>,
    },
    Execute {
        list: u8,
        tool: u8,
        signal: Option<u8>,
        /// `{}` (an object: it reaches the tool body under the current text, and
        /// `imperative-execute-steps#3` of the 2026-08 text rejected it) or
        /// `{"$js": "to-json-primitive"}` (serializes to a non-object: the current
        /// `imperative-execute-steps#3` rejects it; under the 2026-08 text it was the only
        /// input that reached the body).
        object: bool,
    },
    Await(u8),
    AwaitToolchange,
    Abort(u8),
    /// executeTool on a `RegisteredTool` built by hand: `window` is the document (`tab`,
    /// `doc`), `origin` any origin of the scenario (the window's own or another).
    Forged {
        tool: u8,
        tab: u8,
        doc: u8,
        origin: u8,
        signal: Option<u8>,
        object: bool,
    },
    /// Remove the iframe element of a child navigable (the child document's index in the tab).
    RemoveIframe(u8),
    /// Navigate the document's own navigable or a child's (a document index in the tab) to a
    /// fresh same-origin document without a script.
    Navigate(u8),
}

impl Stmt {
    pub fn is_call(&self) -> bool {
        matches!(
            self,
            Stmt::Register { .. }
                | Stmt::GetTools { .. }
                | Stmt::Execute { .. }
                | Stmt::Forged { .. }
        )
    }
    pub fn signal(&self) -> Option<u8> {
        match self {
            Stmt::Register { signal, .. }
            | Stmt::Execute { signal, .. }
            | Stmt::Forged { signal, .. } => *signal,
            _ => None,
        }
    }
}

/// What the environment may do. `moves` is sorted (the derived order), each at most once.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EnvGen {
    pub moves: Vec<Move>,
    /// Tool body outcomes, a non-empty set: bit 0 fulfil, bit 1 fulfil-unserializable,
    /// bit 2 reject. Always `FULFIL` (the format's default) when no script executes a tool.
    pub outcomes: u8,
}

pub const FULFIL: u8 = 1;
pub const FULFIL_UNSERIALIZABLE: u8 = 2;
pub const REJECT: u8 = 4;

/// The outcome names in bit order.
pub const OUTCOME_NAMES: [&str; 3] = ["fulfil", "fulfil-unserializable", "reject"];

/// One environment move; documents are (tab, index in the tab's preorder).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Move {
    /// Abort a controller (document, controller) in a task of its owner.
    Abort { tab: u8, doc: u8, ctrl: u8 },
    /// Remove the iframe element of a document's navigable.
    RemoveIframe { tab: u8, doc: u8 },
    /// Navigate a document's navigable to a fresh same-origin document without a script.
    Navigate { tab: u8, doc: u8 },
    /// The tab enters the back/forward cache, then is restored or evicted.
    Bfcache { tab: u8 },
    /// The browser agent performs one observation.
    Observe,
}

impl Gen {
    pub fn documents(&self) -> usize {
        self.tabs.iter().map(|t| t.docs.len()).sum()
    }
    pub fn statements(&self) -> usize {
        self.tabs
            .iter()
            .flat_map(|t| &t.docs)
            .map(|d| d.script.len())
            .sum()
    }
    /// Whether some script executes a tool (only then do tool body outcomes vary).
    pub fn executes(&self) -> bool {
        self.tabs
            .iter()
            .flat_map(|t| &t.docs)
            .flat_map(|d| &d.script)
            .any(|s| matches!(s, Stmt::Execute { .. } | Stmt::Forged { .. }))
    }
}

/// A source of choices: `choose(n)` returns one of `0..n` (`n` is at least 1).
pub trait Chooser {
    fn choose(&mut self, n: usize) -> usize;
    /// Whether statements of this [`Stmt::kind`] may be chosen (swarm sampling leaves some
    /// kinds out of a draw). Enumeration allows every kind, so its choices are unchanged.
    fn allows_statement(&self, _kind: usize) -> bool {
        true
    }
    /// Whether environment moves of this [`Move::kind`] may be chosen.
    fn allows_move(&self, _kind: usize) -> bool {
        true
    }
}

impl Stmt {
    /// How many statement kinds there are ([`Stmt::kind`] is below this).
    pub const KINDS: usize = 9;

    /// The statement's kind, `0..KINDS`, in the order of the enum.
    pub fn kind(&self) -> usize {
        match self {
            Stmt::Register { .. } => 0,
            Stmt::GetTools { .. } => 1,
            Stmt::Execute { .. } => 2,
            Stmt::Await(_) => 3,
            Stmt::AwaitToolchange => 4,
            Stmt::Abort(_) => 5,
            Stmt::Forged { .. } => 6,
            Stmt::RemoveIframe(_) => 7,
            Stmt::Navigate(_) => 8,
        }
    }
}

impl Move {
    /// How many move kinds there are ([`Move::kind`] is below this).
    pub const KINDS: usize = 5;

    /// The move's kind, `0..KINDS`, in the order of the enum.
    pub fn kind(&self) -> usize {
        match self {
            Move::Abort { .. } => 0,
            Move::RemoveIframe { .. } => 1,
            Move::Navigate { .. } => 2,
            Move::Bfcache { .. } => 3,
            Move::Observe => 4,
        }
    }
}

/// The outcome sets of at most `k` outcomes, smallest first.
pub fn outcome_sets(k: u8) -> Vec<u8> {
    let mut sets: Vec<u8> = (1u8..8).filter(|m| m.count_ones() <= k as u32).collect();
    sets.sort_by_key(|m| (m.count_ones(), *m));
    sets
}

/// Builds one scenario of the space from `ch`'s choices, or `None` when the choices make a
/// scenario outside the vocabulary (a controller that is aborted but never used as a signal).
///
/// Raw choices are deliberately naive: origins are drawn from a pool as big as the number
/// of documents, tool names from the whole pool, tabs in either order. Scenarios that differ
/// only by such names are the same up to renaming; [`crate::canon`] picks one of each class.
pub fn build(b: &Bound, ch: &mut dyn Chooser) -> Option<Gen> {
    let ntabs = 1 + ch.choose(b.tabs.min(b.docs) as usize);
    // Documents left for iframes, over all tabs.
    let mut left = b.docs as usize - ntabs;
    let mut tabs = Vec::with_capacity(ntabs);
    for _ in 0..ntabs {
        let mut docs = Vec::new();
        tree(b, ch, None, 0, &mut left, &mut docs);
        tabs.push(TabGen { docs });
    }
    // Origins: a pool as big as the number of documents.
    let pool = tabs.iter().map(|t| t.docs.len()).sum::<usize>();
    for t in &mut tabs {
        for i in 0..t.docs.len() {
            match t.docs[i].parent {
                None => t.docs[i].origin = ch.choose(pool) as u8,
                Some(p) => {
                    let container = t.docs[p as usize].origin;
                    match ch.choose(3) {
                        0 => t.docs[i].origin = container,
                        rel => {
                            let o = ch.choose(pool - 1) as u8;
                            t.docs[i].origin = if o >= container { o + 1 } else { o };
                            t.docs[i].allow = rel == 1;
                        }
                    }
                }
            }
        }
    }
    // Agent clusters that are not origin-keyed: one choice per agent (a tab's documents of
    // one origin share it), made at the agent's first document.
    if b.unkeyed > 0 {
        for t in &mut tabs {
            for i in 0..t.docs.len() {
                let origin = t.docs[i].origin;
                let shared = t.docs[..i]
                    .iter()
                    .find(|d| d.origin == origin)
                    .map(|d| d.unkeyed);
                t.docs[i].unkeyed = shared.unwrap_or_else(|| ch.choose(2) == 1);
            }
        }
    }
    // Scripts. Forged tools may name any document as their window and any origin of the
    // scenario as their origin.
    let windows: Vec<(u8, u8)> = if b.forged > 0 {
        tabs.iter()
            .enumerate()
            .flat_map(|(ti, t)| (0..t.docs.len()).map(move |di| (ti as u8, di as u8)))
            .collect()
    } else {
        Vec::new()
    };
    let mut all_origins: Vec<u8> = tabs
        .iter()
        .flat_map(|t| &t.docs)
        .map(|d| d.origin)
        .collect();
    all_origins.sort_unstable();
    all_origins.dedup();
    // Per tab, per document: its navigable is already removed or navigated by a statement.
    let mut claimed: Vec<Vec<bool>> = tabs.iter().map(|t| vec![false; t.docs.len()]).collect();
    let mut total_left = b.total as usize;
    for (ti, tab) in tabs.iter_mut().enumerate() {
        let mut tab_origins: Vec<u8> = tab.docs.iter().map(|d| d.origin).collect();
        tab_origins.sort_unstable();
        tab_origins.dedup();
        for di in 0..tab.docs.len() {
            let len = ch.choose((b.stmts as usize).min(total_left) + 1);
            total_left -= len;
            let own = tab.docs[di].origin;
            let others: Vec<u8> = tab_origins.iter().copied().filter(|o| *o != own).collect();
            let children: Vec<u8> = (0..tab.docs.len())
                .filter(|&c| tab.docs[c].parent == Some(di as u8))
                .map(|c| c as u8)
                .collect();
            let cx = ScriptCx {
                me: di as u8,
                others: &others,
                children: &children,
                windows: &windows,
                origins: &all_origins,
            };
            tab.docs[di].script = script(b, ch, len, &cx, &mut claimed[ti])?;
        }
    }
    // Environment moves, in the derived order of `Move`, each in or out within the budget.
    let mut candidates = Vec::new();
    for (ti, t) in tabs.iter().enumerate() {
        for (di, d) in t.docs.iter().enumerate() {
            let mut ctrls: Vec<u8> = d.script.iter().filter_map(Stmt::signal).collect();
            ctrls.sort_unstable();
            ctrls.dedup();
            for c in ctrls {
                candidates.push(Move::Abort {
                    tab: ti as u8,
                    doc: di as u8,
                    ctrl: c,
                });
            }
        }
    }
    for (ti, t) in tabs.iter().enumerate() {
        for (di, d) in t.docs.iter().enumerate() {
            if d.parent.is_some() && !claimed[ti][di] {
                candidates.push(Move::RemoveIframe {
                    tab: ti as u8,
                    doc: di as u8,
                });
            }
        }
    }
    for (ti, claimed) in claimed.iter().enumerate() {
        for (di, _) in claimed.iter().enumerate().filter(|(_, c)| !**c) {
            candidates.push(Move::Navigate {
                tab: ti as u8,
                doc: di as u8,
            });
        }
    }
    for ti in 0..tabs.len() {
        candidates.push(Move::Bfcache { tab: ti as u8 });
    }
    candidates.push(Move::Observe);
    debug_assert!(candidates.windows(2).all(|w| w[0] < w[1]));
    let mut moves = Vec::new();
    for m in candidates {
        if moves.len() < b.moves as usize && ch.allows_move(m.kind()) && ch.choose(2) == 1 {
            moves.push(m);
        }
    }
    let mut gen = Gen {
        tabs,
        env: EnvGen {
            moves,
            outcomes: FULFIL,
        },
    };
    if gen.executes() {
        let sets = outcome_sets(b.outcomes);
        gen.env.outcomes = sets[ch.choose(sets.len())];
    }
    Some(gen)
}

/// A document and, below `b.depth`, its iframes (preorder), taking iframes from `left`.
fn tree(
    b: &Bound,
    ch: &mut dyn Chooser,
    parent: Option<u8>,
    level: u8,
    left: &mut usize,
    docs: &mut Vec<DocGen>,
) {
    let me = docs.len() as u8;
    docs.push(DocGen {
        parent,
        origin: 0,
        allow: false,
        script: Vec::new(),
        unkeyed: false,
    });
    if level < b.depth {
        let k = ch.choose((b.iframes as usize).min(*left) + 1);
        *left -= k;
        for _ in 0..k {
            tree(b, ch, Some(me), level + 1, left, docs);
        }
    }
}

/// What a document's script may name besides its own calls and controllers.
struct ScriptCx<'a> {
    /// The document's index in its tab.
    me: u8,
    /// The origins of the tab other than the document's own (the only values `exposedTo`
    /// and `fromOrigins` take).
    others: &'a [u8],
    /// The document's iframes (indices in the tab).
    children: &'a [u8],
    /// A forged tool's windows (every document, when forged tools are in the bound).
    windows: &'a [(u8, u8)],
    /// Every origin of the scenario (a forged tool's origins).
    origins: &'a [u8],
}

/// A script of `len` statements. `claimed` marks the navigables of the tab that a statement
/// already removes or navigates; the script's own lifecycle statements are marked too.
fn script(
    b: &Bound,
    ch: &mut dyn Chooser,
    len: usize,
    cx: &ScriptCx,
    claimed: &mut [bool],
) -> Option<Vec<Stmt>> {
    let others = cx.others;
    let mut script: Vec<Stmt> = Vec::with_capacity(len);
    let mut ctrls: u8 = 0;
    let mut options: Vec<Stmt> = Vec::new();
    for i in 0..len {
        options.clear();
        // Signals: none, an existing controller, or a new one.
        let signals: Vec<Option<u8>> = std::iter::once(None)
            .chain((0..(ctrls + u8::from(ctrls < b.signals))).map(Some))
            .collect();
        let origins: Vec<Option<u8>> = std::iter::once(None)
            .chain(others.iter().copied().map(Some))
            .collect();
        for tool in 0..b.tools {
            for &exposed in &origins {
                for &signal in &signals {
                    options.push(Stmt::Register {
                        tool,
                        exposed,
                        signal,
                    });
                }
            }
        }
        for &from in &origins {
            options.push(Stmt::GetTools { from });
        }
        // executeTool takes an entry of a list the script has awaited: a list it has not
        // awaited cannot have settled yet, and the call would always throw.
        for (i, s) in script.iter().enumerate() {
            let awaited = script.contains(&Stmt::Await(i as u8));
            if matches!(s, Stmt::GetTools { .. }) && awaited {
                for tool in 0..b.tools {
                    for &signal in &signals {
                        for object in [true, false] {
                            options.push(Stmt::Execute {
                                list: i as u8,
                                tool,
                                signal,
                                object,
                            });
                        }
                    }
                }
            }
        }
        // Forged tools need no list: any tool name, any document as the window, any origin of
        // the scenario (the window's own, or another: execute-tool#16.4). Without a signal:
        // signals are varied on executeTool from a list, and take the same steps here.
        for tool in 0..b.tools {
            for &(tab, doc) in cx.windows {
                for &origin in cx.origins {
                    for object in [true, false] {
                        options.push(Stmt::Forged {
                            tool,
                            tab,
                            doc,
                            origin,
                            signal: None,
                            object,
                        });
                    }
                }
            }
        }
        // Each call is awaited at most once (a second await changes nothing).
        for (i, s) in script.iter().enumerate() {
            if s.is_call() && !script.contains(&Stmt::Await(i as u8)) {
                options.push(Stmt::Await(i as u8));
            }
        }
        // A script waits for at most MAX_TOOLCHANGE_AWAITS toolchange events (a scenario
        // with more is refused, naming that limit).
        let waits = script
            .iter()
            .filter(|s| matches!(s, Stmt::AwaitToolchange))
            .count();
        if waits < webmcp_model::limits::MAX_TOOLCHANGE_AWAITS {
            options.push(Stmt::AwaitToolchange);
        }
        // Each controller is aborted at most once; a new one may be aborted before its
        // signal is passed (register-tool#13, execute-tool#15.2).
        for c in 0..(ctrls + u8::from(ctrls < b.signals)) {
            if !script.contains(&Stmt::Abort(c)) {
                options.push(Stmt::Abort(c));
            }
        }
        // Lifecycle: remove or navigate an iframe's navigable, or navigate the document's own
        // (only as the last statement: the script stops with its document). A navigable is
        // named by at most one statement of the scenario, and then by no environment move.
        for &c in cx.children {
            if !claimed[c as usize] {
                options.push(Stmt::RemoveIframe(c));
                options.push(Stmt::Navigate(c));
            }
        }
        if i + 1 == len && !claimed[cx.me as usize] {
            options.push(Stmt::Navigate(cx.me));
        }
        // The kind first, then its variation: a random sample then draws every kind as often,
        // however many variations each has (forged tools have many).
        let mut kinds: Vec<Vec<Stmt>> = Vec::new();
        for o in options.drain(..) {
            let k = std::mem::discriminant(&o);
            match kinds
                .iter_mut()
                .find(|g| std::mem::discriminant(&g[0]) == k)
            {
                Some(g) => g.push(o),
                None => kinds.push(vec![o]),
            }
        }
        // A swarm draw leaves some kinds out; if it leaves out every kind offered here, all
        // are offered (a statement must be chosen).
        if kinds.iter().any(|g| ch.allows_statement(g[0].kind())) {
            kinds.retain(|g| ch.allows_statement(g[0].kind()));
        }
        let group = &kinds[ch.choose(kinds.len())];
        let s = group[ch.choose(group.len())];
        if let Stmt::RemoveIframe(d) | Stmt::Navigate(d) = s {
            claimed[d as usize] = true;
        }
        let mentioned = match s {
            Stmt::Abort(c) => Some(c),
            other => other.signal(),
        };
        if let Some(c) = mentioned {
            ctrls = ctrls.max(c + 1);
        }
        script.push(s);
    }
    // A controller that is never passed as a signal makes its aborts no-ops: not generated.
    for c in 0..ctrls {
        if !script.iter().any(|s| s.signal() == Some(c)) {
            return None;
        }
    }
    Some(script)
}
