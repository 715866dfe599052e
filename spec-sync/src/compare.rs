//! Comparing the stored table with a freshly parsed source.
//!
//! IDs are positional: inserting one step at the top of an algorithm renumbers every later step.
//! Reporting that as "every step removed and re-added" would bury the one real change, so the
//! comparison pairs stored and source steps in passes, each pass only looking at what the
//! earlier ones left unpaired:
//!
//! 1. **unchanged**: same ID and same fingerprint (not reported);
//! 2. **renumbered**: same fingerprint, different ID. Among several candidates with the
//!    fingerprint (the draft repeats some sentences verbatim) the first unpaired one in source
//!    order within the same algorithm wins, else the first anywhere, so a shift pairs each step
//!    with its own successor even when the new ID of one step is the old ID of another;
//! 3. **split**: one stored step whose text is now spread over two or more consecutive new steps
//!    of the same algorithm (see [`split_of`] for the heuristic);
//! 4. **changed**, by similarity: a stored and a source step of the same algorithm whose word
//!    sets overlap by at least [`SIMILAR`] (Jaccard), best pairs first (a step that was both
//!    edited and renumbered);
//! 5. **changed**, by ID: whatever is left with the same ID on both sides;
//! 6. **added** / **removed**: whatever is left.
//!
//! Passes 3 and 4 compare every leftover stored step of an algorithm with every leftover
//! source step of it: cheap for a real revision (a few edited steps), quadratic for a store and
//! a source that share nothing. So they spend at most [`MAX_WORK`] word comparisons in all,
//! cheapest algorithm first, and each stored step offers pass 4 at most [`MAX_CANDIDATES`]
//! pairs. An algorithm over the budget skips both passes and is listed in
//! [`Drift::coarse`]: its steps are still all reported, by ID (changed) or as added and
//! removed, so what fails the run does not change, only how a step's drift is named.
//!
//! Every list in the result is in a fixed order (source order for what the source has, store
//! order for what only the store has), so the report is stable.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use crate::normalize::{sketch, words};
use crate::parse::{Kind, SourceStep};
use crate::store::StoredStep;

/// The least Jaccard similarity of word sets for two steps to be "the same step, edited".
pub const SIMILAR: f64 = 0.5;
/// A split must cover at least this share of the stored step's words …
pub const SPLIT_COVERAGE: f64 = 0.8;
/// … and at least this share of the new steps' words must come from the stored step.
pub const SPLIT_PRECISION: f64 = 0.6;
/// The most new steps one stored step is looked for in.
pub const SPLIT_MAX_PARTS: usize = 8;
/// The most word comparisons passes 3 and 4 make in one comparison, estimated per algorithm
/// from its leftover steps and their words (`Group::work`). Rewriting every step of one of the
/// draft's algorithms (under a hundred steps of tens of words) costs about a million; two
/// unrelated 1000-step algorithms cost more than this (at about 30 ns a comparison).
pub const MAX_WORK: u64 = 1 << 25;
/// The most similar source steps one stored step offers pass 4, best first. The draft's
/// algorithms have under a hundred steps, and an edit leaves few of them unpaired.
pub const MAX_CANDIDATES: usize = 32;

/// A source step that no stored step accounts for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Added {
    pub id: String,
    pub kind: Kind,
    pub text: String,
    pub line: usize,
}

/// A stored step that no source step accounts for. (The store keeps no text: what the step
/// said is in our paraphrase, under its ID.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removed {
    pub id: String,
    pub kind: Kind,
}

/// The same text under a new ID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Renumbered {
    pub old_id: String,
    pub new_id: String,
    pub text: String,
}

/// An edited step. `old_id == new_id` unless the step was also renumbered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changed {
    pub old_id: String,
    pub new_id: String,
    pub new_text: String,
}

/// A stored step whose text is now spread over several consecutive new steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    pub old_id: String,
    /// `(id, text)` of the new steps, in source order.
    pub new: Vec<(String, String)>,
}

/// An algorithm whose leftover steps skipped the split and similarity passes: comparing them
/// would have gone over [`MAX_WORK`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coarse {
    pub slug: String,
    /// How many of its stored and source steps were left after passes 1 and 2.
    pub stored: usize,
    pub source: usize,
}

/// Everything that differs between the store and the source.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Drift {
    pub added: Vec<Added>,
    pub removed: Vec<Removed>,
    pub renumbered: Vec<Renumbered>,
    pub changed: Vec<Changed>,
    pub split: Vec<Split>,
    /// Slugs of algorithms that have steps in the source and none in the store.
    pub new_algorithms: Vec<String>,
    /// Slugs of algorithms that have steps in the store and none in the source.
    pub removed_algorithms: Vec<String>,
    /// Algorithms paired by ID only (see [`Coarse`]), by slug. Never the only drift: a
    /// coarse algorithm has leftover steps, and they are reported.
    pub coarse: Vec<Coarse>,
}

impl Drift {
    /// Whether the source says exactly what the store says.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.renumbered.is_empty()
            && self.changed.is_empty()
            && self.split.is_empty()
            && self.new_algorithms.is_empty()
            && self.removed_algorithms.is_empty()
    }
}

impl fmt::Display for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return writeln!(f, "no drift");
        }
        for slug in &self.new_algorithms {
            writeln!(f, "new algorithm: {slug}")?;
        }
        for slug in &self.removed_algorithms {
            writeln!(f, "removed algorithm: {slug}")?;
        }
        for a in &self.added {
            writeln!(
                f,
                "added {} ({}, line {}): {}",
                a.id, a.kind, a.line, a.text
            )?;
        }
        for r in &self.removed {
            writeln!(f, "removed {} ({})", r.id, r.kind)?;
        }
        for r in &self.renumbered {
            writeln!(f, "renumbered {} -> {}", r.old_id, r.new_id)?;
        }
        for c in &self.changed {
            if c.old_id == c.new_id {
                writeln!(f, "changed {}", c.new_id)?;
            } else {
                writeln!(f, "changed {} -> {}", c.old_id, c.new_id)?;
            }
            writeln!(f, "  now: {}", c.new_text)?;
        }
        for s in &self.split {
            let ids: Vec<&str> = s.new.iter().map(|(id, _)| id.as_str()).collect();
            writeln!(f, "split {} -> {}", s.old_id, ids.join(", "))?;
        }
        for c in &self.coarse {
            writeln!(f, "{c}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Coarse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} stored and {} source steps were left to compare, more than the split and \
             similarity passes compare ({MAX_WORK} word comparisons), so they were paired by ID \
             only",
            self.slug, self.stored, self.source
        )
    }
}

/// The algorithm slug of a step ID: `execute-tool` for `execute-tool#16.10.1`,
/// `declarative-execute-steps` for `declarative-execute-steps.issue`.
pub fn slug_of(id: &str) -> &str {
    let end = id.find(['#', '.', '[']).unwrap_or(id.len());
    &id[..end]
}

/// Compares a stored table with the steps of a source. See the module documentation.
pub fn compare(stored: &[StoredStep], source: &[SourceStep]) -> Drift {
    compare_within(stored, source, MAX_WORK)
}

/// [`compare`] with `max_work` in place of [`MAX_WORK`] (tests use a small one).
pub fn compare_within(stored: &[StoredStep], source: &[SourceStep], max_work: u64) -> Drift {
    let mut s_pair: Vec<Option<usize>> = vec![None; stored.len()];
    let mut n_pair: Vec<Option<usize>> = vec![None; source.len()];
    let mut drift = Drift::default();

    // 1. Unchanged.
    let by_id: BTreeMap<&str, usize> = source
        .iter()
        .enumerate()
        .map(|(j, n)| (n.id.as_str(), j))
        .collect();
    for (i, s) in stored.iter().enumerate() {
        if let Some(&j) = by_id.get(s.id.as_str()) {
            if n_pair[j].is_none() && source[j].fingerprint == s.fingerprint {
                s_pair[i] = Some(j);
                n_pair[j] = Some(i);
            }
        }
    }

    // 2. Renumbered. Queues in source order, by fingerprint and by fingerprint and algorithm;
    // a cursor skips what was taken, so a fingerprint shared by many steps costs linear time.
    let mut by_fp: HashMap<u64, Queue> = HashMap::new();
    let mut by_fp_slug: HashMap<(u64, &str), Queue> = HashMap::new();
    for (j, n) in source.iter().enumerate() {
        if n_pair[j].is_none() {
            by_fp.entry(n.fingerprint.0).or_default().items.push(j);
            by_fp_slug
                .entry((n.fingerprint.0, slug_of(&n.id)))
                .or_default()
                .items
                .push(j);
        }
    }
    let mut renumbered = Vec::new();
    for (i, s) in stored.iter().enumerate() {
        if s_pair[i].is_some() {
            continue;
        }
        let fp = s.fingerprint.0;
        let pick = by_fp_slug
            .get_mut(&(fp, slug_of(&s.id)))
            .and_then(|q| q.first_free(&n_pair))
            .or_else(|| by_fp.get_mut(&fp).and_then(|q| q.first_free(&n_pair)));
        if let Some(j) = pick {
            s_pair[i] = Some(j);
            n_pair[j] = Some(i);
            renumbered.push((
                j,
                Renumbered {
                    old_id: s.id.clone(),
                    new_id: source[j].id.clone(),
                    text: source[j].text.clone(),
                },
            ));
        }
    }
    renumbered.sort_by_key(|(j, _)| *j);
    drift.renumbered = renumbered.into_iter().map(|(_, r)| r).collect();

    // 3 and 4 pair only steps of one algorithm, so each algorithm's leftovers are compared on
    // their own, in words interned once (the store keeps sketches, so the source's texts are
    // compared as sketches too).
    let mut interner = Interner::default();
    let mut groups: BTreeMap<&str, Group> = BTreeMap::new();
    for (i, s) in stored.iter().enumerate() {
        if s_pair[i].is_none() {
            let g = groups.entry(slug_of(&s.id)).or_default();
            g.stored.push((i, interner.tokens(&s.sketch)));
        }
    }
    for (j, n) in source.iter().enumerate() {
        if n_pair[j].is_none() {
            let g = groups.entry(slug_of(&n.id)).or_default();
            g.source.push((j, interner.tokens(&sketch(&n.text))));
        }
    }
    // Cheapest algorithm first, so that one huge algorithm cannot starve the small ones.
    let mut order: Vec<(u64, &str)> = groups.iter().map(|(slug, g)| (g.work(), *slug)).collect();
    order.sort();
    let mut budget = max_work;
    let mut changed = Vec::new();
    let mut split = Vec::new();
    for (work, slug) in order {
        let g = &groups[slug];
        if work > budget {
            drift.coarse.push(Coarse {
                slug: slug.to_string(),
                stored: g.stored.len(),
                source: g.source.len(),
            });
            continue;
        }
        budget -= work;
        split_pass(stored, source, g, &mut s_pair, &mut n_pair, &mut split);
        similar_pass(stored, source, g, &mut s_pair, &mut n_pair, &mut changed);
    }
    // Store order, as one pass over the whole store would give.
    split.sort_by_key(|(i, _)| *i);
    drift.split = split.into_iter().map(|(_, sp)| sp).collect();
    drift.coarse.sort_by(|a, b| a.slug.cmp(&b.slug));

    // 5. Changed, by ID.
    for (i, s) in stored.iter().enumerate() {
        if s_pair[i].is_some() {
            continue;
        }
        if let Some(&j) = by_id.get(s.id.as_str()) {
            if n_pair[j].is_none() {
                s_pair[i] = Some(j);
                n_pair[j] = Some(i);
                changed.push((j, changed_of(s, &source[j])));
            }
        }
    }
    changed.sort_by_key(|(j, _)| *j);
    drift.changed = changed.into_iter().map(|(_, c)| c).collect();

    // 6. Added and removed.
    for (j, n) in source.iter().enumerate() {
        if n_pair[j].is_none() {
            drift.added.push(Added {
                id: n.id.clone(),
                kind: n.kind,
                text: n.text.clone(),
                line: n.line,
            });
        }
    }
    for (i, s) in stored.iter().enumerate() {
        if s_pair[i].is_none() {
            drift.removed.push(Removed {
                id: s.id.clone(),
                kind: s.kind,
            });
        }
    }

    let stored_slugs: BTreeSet<&str> = stored.iter().map(|s| slug_of(&s.id)).collect();
    let source_slugs: BTreeSet<&str> = source.iter().map(|n| slug_of(&n.id)).collect();
    let mut seen = BTreeSet::new();
    for n in source {
        let slug = slug_of(&n.id);
        if !stored_slugs.contains(slug) && seen.insert(slug) {
            drift.new_algorithms.push(slug.to_string());
        }
    }
    for s in stored {
        let slug = slug_of(&s.id);
        if !source_slugs.contains(slug) && seen.insert(slug) {
            drift.removed_algorithms.push(slug.to_string());
        }
    }
    drift
}

/// Source steps of one fingerprint (and algorithm), in source order, and the first that may
/// still be free: steps are only ever taken, so the cursor only moves forward.
#[derive(Default)]
struct Queue {
    items: Vec<usize>,
    next: usize,
}

impl Queue {
    fn first_free(&mut self, n_pair: &[Option<usize>]) -> Option<usize> {
        while self.next < self.items.len() && n_pair[self.items[self.next]].is_some() {
            self.next += 1;
        }
        self.items.get(self.next).copied()
    }
}

/// Words as small integers: equal words, equal numbers.
#[derive(Default)]
struct Interner(HashMap<String, u32>);

impl Interner {
    fn tokens(&mut self, text: &str) -> Vec<u32> {
        words(text)
            .into_iter()
            .map(|w| {
                let next = self.0.len() as u32;
                *self.0.entry(w).or_insert(next)
            })
            .collect()
    }
}

/// The steps of one algorithm that passes 1 and 2 left unpaired, with their words in order.
#[derive(Default)]
struct Group {
    stored: Vec<(usize, Vec<u32>)>,
    source: Vec<(usize, Vec<u32>)>,
}

impl Group {
    /// What passes 3 and 4 cost here, in word comparisons: each stored step looks at runs of
    /// up to [`SPLIT_MAX_PARTS`] source steps from every start, and at every source step.
    fn work(&self) -> u64 {
        let count = |side: &[(usize, Vec<u32>)]| -> (u64, u64) {
            let words: usize = side.iter().map(|(_, w)| w.len()).sum();
            (side.len() as u64, words as u64)
        };
        let (s, s_words) = count(&self.stored);
        let (n, n_words) = count(&self.source);
        let per_stored = (SPLIT_MAX_PARTS as u64 + 1)
            .saturating_mul(n_words)
            .saturating_add(n);
        s.saturating_mul(per_stored)
            .saturating_add(n.saturating_mul(s_words))
    }
}

/// Pass 3 over one algorithm's leftovers, in store order.
fn split_pass(
    stored: &[StoredStep],
    source: &[SourceStep],
    g: &Group,
    s_pair: &mut [Option<usize>],
    n_pair: &mut [Option<usize>],
    out: &mut Vec<(usize, Split)>,
) {
    for (i, old) in &g.stored {
        let free: Vec<(usize, &[u32])> = g
            .source
            .iter()
            .filter(|(j, _)| n_pair[*j].is_none())
            .map(|(j, w)| (*j, w.as_slice()))
            .collect();
        let texts: Vec<&[u32]> = free.iter().map(|(_, w)| *w).collect();
        if let Some(run) = split_of_words(old, &texts) {
            let parts: Vec<usize> = run.map(|k| free[k].0).collect();
            for &j in &parts {
                n_pair[j] = Some(*i);
            }
            s_pair[*i] = parts.first().copied();
            let new = parts
                .iter()
                .map(|&j| (source[j].id.clone(), source[j].text.clone()))
                .collect();
            let old_id = stored[*i].id.clone();
            out.push((*i, Split { old_id, new }));
        }
    }
}

/// Pass 4 over one algorithm's leftovers: best pairs first, each stored step offering at most
/// its [`MAX_CANDIDATES`] best.
fn similar_pass(
    stored: &[StoredStep],
    source: &[SourceStep],
    g: &Group,
    s_pair: &mut [Option<usize>],
    n_pair: &mut [Option<usize>],
    changed: &mut Vec<(usize, Changed)>,
) {
    let set = |w: &[u32]| -> Vec<u32> {
        let mut w = w.to_vec();
        w.sort_unstable();
        w.dedup();
        w
    };
    let free: Vec<(usize, Vec<u32>)> = g
        .source
        .iter()
        .filter(|(j, _)| n_pair[*j].is_none())
        .map(|(j, w)| (*j, set(w)))
        .collect();
    let mut candidates = Vec::new();
    let mut mine = Vec::new();
    for (i, w) in &g.stored {
        if s_pair[*i].is_some() {
            continue;
        }
        let sw = set(w);
        let s = &stored[*i];
        mine.clear();
        for (j, nw) in &free {
            let common = intersection(&sw, nw);
            let union = sw.len() + nw.len() - common;
            let score = if union == 0 {
                1.0
            } else {
                common as f64 / union as f64
            };
            if score >= SIMILAR {
                // Higher score first, then the same ID, then store and source order.
                let key = std::cmp::Reverse((score * 1e6) as u64);
                mine.push((key, s.id != source[*j].id, *i, *j));
            }
        }
        mine.sort_unstable();
        candidates.extend(mine.iter().take(MAX_CANDIDATES).copied());
    }
    candidates.sort_unstable();
    for (_, _, i, j) in candidates {
        if s_pair[i].is_none() && n_pair[j].is_none() {
            s_pair[i] = Some(j);
            n_pair[j] = Some(i);
            changed.push((j, changed_of(&stored[i], &source[j])));
        }
    }
}

/// The size of the intersection of two sorted sets.
fn intersection(a: &[u32], b: &[u32]) -> usize {
    let (mut x, mut y, mut n) = (0, 0, 0);
    while x < a.len() && y < b.len() {
        match a[x].cmp(&b[y]) {
            std::cmp::Ordering::Less => x += 1,
            std::cmp::Ordering::Greater => y += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                x += 1;
                y += 1;
            }
        }
    }
    n
}

fn changed_of(s: &StoredStep, n: &SourceStep) -> Changed {
    Changed {
        old_id: s.id.clone(),
        new_id: n.id.clone(),
        new_text: n.text.clone(),
    }
}

/// The split heuristic. Given the text of a stored step and the texts of the unpaired new steps
/// of its algorithm (in source order), returns the range of the run of new steps it was split
/// into, if any.
///
/// A run of 2 to [`SPLIT_MAX_PARTS`] consecutive new steps qualifies when either
/// - its texts, joined with spaces, have exactly the stored text's words in the same order; or
/// - at least [`SPLIT_COVERAGE`] of the stored text's words (counted with repetition) occur in
///   the run, at least [`SPLIT_PRECISION`] of the run's words occur in the stored text, and
///   every part has at least half of its words in the stored text (so an unrelated new step
///   next to the pieces is not swept in).
///
/// The best run wins: highest coverage + precision, then fewest parts, then earliest.
pub fn split_of(old: &str, new: &[&str]) -> Option<std::ops::Range<usize>> {
    let mut interner = Interner::default();
    let old = interner.tokens(old);
    let new: Vec<Vec<u32>> = new.iter().map(|t| interner.tokens(t)).collect();
    let new: Vec<&[u32]> = new.iter().map(Vec::as_slice).collect();
    split_of_words(&old, &new)
}

/// [`split_of`] over interned words. The run's coverage of the stored words is kept up to date
/// as the run grows, so one start costs the words of its parts, not of the stored step.
fn split_of_words(old: &[u32], new: &[&[u32]]) -> Option<std::ops::Range<usize>> {
    if old.is_empty() {
        return None;
    }
    let mut old_bag: HashMap<u32, usize> = HashMap::new();
    for w in old {
        *old_bag.entry(*w).or_default() += 1;
    }
    let mut used: HashMap<u32, usize> = HashMap::new();
    let mut best: Option<(u64, usize, usize)> = None; // (score, parts, start)
    for start in 0..new.len() {
        used.clear();
        let (mut covered, mut run_len) = (0usize, 0usize);
        for end in start + 1..=(start + SPLIT_MAX_PARTS).min(new.len()) {
            let part = new[end - 1];
            let in_old = part.iter().filter(|w| old_bag.contains_key(w)).count();
            if part.is_empty() || in_old * 2 < part.len() {
                break;
            }
            for w in part {
                run_len += 1;
                if let Some(&most) = old_bag.get(w) {
                    let u = used.entry(*w).or_default();
                    if *u < most {
                        *u += 1;
                        covered += 1;
                    }
                }
            }
            if end - start < 2 {
                continue;
            }
            let exact = run_len == old.len()
                && new[start..end].iter().flat_map(|p| p.iter()).eq(old.iter());
            let score = if exact {
                2.0
            } else {
                let coverage = covered as f64 / old.len() as f64;
                let precision = covered as f64 / run_len as f64;
                if coverage < SPLIT_COVERAGE || precision < SPLIT_PRECISION {
                    continue;
                }
                coverage + precision
            };
            let key = ((score * 1e6) as u64, end - start, start);
            let better = match best {
                None => true,
                Some((s, parts, st)) => key.0 > s || (key.0 == s && (key.1, key.2) < (parts, st)),
            };
            if better {
                best = Some(key);
            }
        }
    }
    best.map(|(_, parts, start)| start..start + parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slug_of("execute-tool#16.10.1"), "execute-tool");
        assert_eq!(
            slug_of("declarative-execute-steps.issue"),
            "declarative-execute-steps"
        );
        assert_eq!(slug_of("x[a]"), "x");
    }

    #[test]
    fn split_heuristic() {
        let old = "Let a be 1, let b be 2, and let c be 3.";
        assert_eq!(
            split_of(
                old,
                &[
                    "Unrelated words here.",
                    "Let a be 1.",
                    "Let b be 2.",
                    "Let c be 3."
                ]
            ),
            Some(1..4)
        );
        assert_eq!(
            split_of(old, &["Let a be 1.", "Something else entirely."]),
            None
        );
        assert_eq!(
            split_of(old, &["Let a be 1, let b be 2, and let c be 3."]),
            None
        );
    }
}
