//! Canonical forms: one representative per class of scenarios that are the same up to
//! renaming documents, tools, origins, controllers and labels, and reordering tabs.
//!
//! In a [`Gen`], documents, navigables, labels and controllers are already named by position
//! (a document by its place in its tab's preorder, a label by its statement, a controller by
//! its first mention in its document's script), so renaming them changes nothing. What is
//! left is: which integers stand for origins and tool names, and the order of the tabs. For
//! each order of the tabs, origins are renamed by first appearance over the documents
//! (tabs in that order, each in preorder) and tools by first use over the scripts (in the
//! same order); the canonical form is the least of these candidates in `Gen`'s derived order.
//! Since each candidate depends only on the order of the tabs, never on the names the
//! scenario came with, every renaming of a scenario has the same canonical form. Which
//! documents share an origin is kept, across tabs too.
//!
//! A forged tool names its window by (tab, position), so reordering the tabs renames it, and
//! its origin is renamed with the documents' (it is always some document's origin). Lifecycle
//! statements name a document of their own tab by position and need no renaming.
//!
//! Sibling iframes are never reordered: tree order is observable (`get-tools#8.2` walks it,
//! and so does `notify-tool-change#2`). Tool names are compared only for equality and by
//! `get-tools#8.4`'s sort, which orders any set of names the same way up to renaming, so
//! renaming tools is a symmetry of every property.

use crate::space::{Gen, Move, Stmt, TabGen};

/// The canonical form of `g`'s class.
pub fn canonical(g: &Gen) -> Gen {
    let n = g.tabs.len();
    let mut best: Option<Gen> = None;
    for perm in permutations(n) {
        let candidate = rename(g, &perm);
        if best.as_ref().is_none_or(|b| candidate < *b) {
            best = Some(candidate);
        }
    }
    best.expect("a scenario has at least one tab")
}

/// Whether `g` is the canonical form of its class.
pub fn is_canonical(g: &Gen) -> bool {
    canonical(g) == *g
}

/// Every order of `0..n` (n is at most a few tabs).
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for rest in permutations(n - 1) {
        for at in 0..=rest.len() {
            let mut p = rest.clone();
            p.insert(at, n - 1);
            out.push(p);
        }
    }
    out.sort();
    out
}

/// The new name of `old`: the one it already has, or the next one.
fn map(table: &mut Vec<(u8, u8)>, old: u8) -> u8 {
    if let Some((_, new)) = table.iter().find(|(o, _)| *o == old) {
        return *new;
    }
    let new = table.len() as u8;
    table.push((old, new));
    new
}

/// `g` with its tabs in the order `perm` (new tab `i` is old tab `perm[i]`), origins renamed
/// by first appearance and tools by first use, and the moves sorted.
fn rename(g: &Gen, perm: &[usize]) -> Gen {
    let mut tabs: Vec<TabGen> = perm.iter().map(|&i| g.tabs[i].clone()).collect();
    let mut origin_map: Vec<(u8, u8)> = Vec::new();
    for t in &mut tabs {
        for d in &mut t.docs {
            d.origin = map(&mut origin_map, d.origin);
        }
    }
    let new_tab = |old: u8| perm.iter().position(|&p| p == old as usize).unwrap() as u8;
    let mut tool_map: Vec<(u8, u8)> = Vec::new();
    for t in &mut tabs {
        for d in &mut t.docs {
            for s in &mut d.script {
                match s {
                    Stmt::Register { tool, exposed, .. } => {
                        *tool = map(&mut tool_map, *tool);
                        if let Some(o) = exposed {
                            *o = map(&mut origin_map, *o);
                        }
                    }
                    Stmt::GetTools { from: Some(o) } => *o = map(&mut origin_map, *o),
                    Stmt::Execute { tool, .. } => *tool = map(&mut tool_map, *tool),
                    Stmt::Forged {
                        tool, tab, origin, ..
                    } => {
                        *tool = map(&mut tool_map, *tool);
                        *tab = new_tab(*tab);
                        *origin = map(&mut origin_map, *origin);
                    }
                    _ => {}
                }
            }
        }
    }
    let mut moves: Vec<Move> = g
        .env
        .moves
        .iter()
        .map(|m| match *m {
            Move::Abort { tab, doc, ctrl } => Move::Abort {
                tab: new_tab(tab),
                doc,
                ctrl,
            },
            Move::RemoveIframe { tab, doc } => Move::RemoveIframe {
                tab: new_tab(tab),
                doc,
            },
            Move::Navigate { tab, doc } => Move::Navigate {
                tab: new_tab(tab),
                doc,
            },
            Move::Bfcache { tab } => Move::Bfcache { tab: new_tab(tab) },
            Move::Observe => Move::Observe,
        })
        .collect();
    moves.sort();
    Gen {
        tabs,
        env: crate::space::EnvGen {
            moves,
            outcomes: g.env.outcomes,
        },
    }
}
