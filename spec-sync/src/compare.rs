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
//! Every list in the result is in a fixed order (source order for what the source has, store
//! order for what only the store has), so the report is stable.

use std::collections::{BTreeMap, BTreeSet};
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
        Ok(())
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
    let mut s_pair: Vec<Option<usize>> = vec![None; stored.len()];
    let mut n_pair: Vec<Option<usize>> = vec![None; source.len()];
    let mut drift = Drift::default();
    // The store keeps word sketches, so the source's texts are compared as sketches too.
    let sketches: Vec<String> = source.iter().map(|n| sketch(&n.text)).collect();

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

    // 2. Renumbered.
    let mut by_fp: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (j, n) in source.iter().enumerate() {
        if n_pair[j].is_none() {
            by_fp.entry(n.fingerprint.0).or_default().push(j);
        }
    }
    let mut renumbered = Vec::new();
    for (i, s) in stored.iter().enumerate() {
        if s_pair[i].is_some() {
            continue;
        }
        let Some(candidates) = by_fp.get(&s.fingerprint.0) else {
            continue;
        };
        let free = |j: &&usize| n_pair[**j].is_none();
        let pick = candidates
            .iter()
            .filter(free)
            .find(|&&j| slug_of(&source[j].id) == slug_of(&s.id))
            .or_else(|| candidates.iter().find(free))
            .copied();
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

    // 3. Split.
    for (i, s) in stored.iter().enumerate() {
        if s_pair[i].is_some() {
            continue;
        }
        let free: Vec<usize> = (0..source.len())
            .filter(|&j| n_pair[j].is_none() && slug_of(&source[j].id) == slug_of(&s.id))
            .collect();
        let sketches: Vec<&str> = free.iter().map(|&j| sketches[j].as_str()).collect();
        if let Some(run) = split_of(&s.sketch, &sketches) {
            let parts: Vec<usize> = run.map(|k| free[k]).collect();
            for &j in &parts {
                n_pair[j] = Some(i);
            }
            s_pair[i] = parts.first().copied();
            drift.split.push(Split {
                old_id: s.id.clone(),
                new: parts
                    .iter()
                    .map(|&j| (source[j].id.clone(), source[j].text.clone()))
                    .collect(),
            });
        }
    }

    // 4. Changed, by similarity.
    let mut changed = Vec::new();
    let mut candidates = Vec::new();
    for (i, s) in stored.iter().enumerate() {
        if s_pair[i].is_some() {
            continue;
        }
        let sw: BTreeSet<String> = words(&s.sketch).into_iter().collect();
        for (j, n) in source.iter().enumerate() {
            if n_pair[j].is_some() || slug_of(&n.id) != slug_of(&s.id) {
                continue;
            }
            let nw: BTreeSet<String> = words(&sketches[j]).into_iter().collect();
            let union = sw.union(&nw).count();
            let score = if union == 0 {
                1.0
            } else {
                sw.intersection(&nw).count() as f64 / union as f64
            };
            if score >= SIMILAR {
                // Higher score first, then the same ID, then store and source order.
                candidates.push((std::cmp::Reverse((score * 1e6) as u64), s.id != n.id, i, j));
            }
        }
    }
    candidates.sort();
    for (_, _, i, j) in candidates {
        if s_pair[i].is_none() && n_pair[j].is_none() {
            s_pair[i] = Some(j);
            n_pair[j] = Some(i);
            changed.push((j, changed_of(&stored[i], &source[j])));
        }
    }

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
    let old_words = words(old);
    if old_words.is_empty() {
        return None;
    }
    let mut old_bag: BTreeMap<&str, usize> = BTreeMap::new();
    for w in &old_words {
        *old_bag.entry(w.as_str()).or_default() += 1;
    }
    let new_words: Vec<Vec<String>> = new.iter().map(|t| words(t)).collect();
    let mut best: Option<(u64, usize, usize)> = None; // (score, parts, start)
    for start in 0..new.len() {
        let mut run_words: Vec<&str> = Vec::new();
        for end in start + 1..=(start + SPLIT_MAX_PARTS).min(new.len()) {
            let part = &new_words[end - 1];
            let in_old = part
                .iter()
                .filter(|w| old_bag.contains_key(w.as_str()))
                .count();
            if part.is_empty() || in_old * 2 < part.len() {
                break;
            }
            run_words.extend(part.iter().map(String::as_str));
            if end - start < 2 {
                continue;
            }
            let score = if run_words == old_words.iter().map(String::as_str).collect::<Vec<_>>() {
                2.0
            } else {
                let mut bag = old_bag.clone();
                let mut covered = 0usize;
                for w in &run_words {
                    if let Some(c) = bag.get_mut(w) {
                        if *c > 0 {
                            *c -= 1;
                            covered += 1;
                        }
                    }
                }
                let coverage = covered as f64 / old_words.len() as f64;
                let precision = covered as f64 / run_words.len() as f64;
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
