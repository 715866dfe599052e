//! The comparison against the one it replaced (spec-sync before its passes were made
//! near-linear), kept here verbatim as the reference: on inputs within the budgets the two
//! must give the same drift, field by field.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use webmcp_spec_sync::compare::{compare_within, split_of, MAX_WORK};
use webmcp_spec_sync::{
    compare, parse, read_store, write_store, Fingerprint, Kind, SourceStep, StoredStep,
};

#[allow(clippy::all)]
mod reference {
    use std::collections::{BTreeMap, BTreeSet};
    use webmcp_spec_sync::compare::{
        slug_of, SIMILAR, SPLIT_COVERAGE, SPLIT_MAX_PARTS, SPLIT_PRECISION,
    };
    use webmcp_spec_sync::normalize::sketch;
    use webmcp_spec_sync::{
        Added, Changed, Drift, Removed, Renumbered, SourceStep, Split, StoredStep,
    };

    fn words(text: &str) -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    }

    // Compares a stored table with the steps of a source. See the module documentation.
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

    // The split heuristic. Given the text of a stored step and the texts of the unpaired new steps
    // of its algorithm (in source order), returns the range of the run of new steps it was split
    // into, if any.
    ///
    // A run of 2 to [`SPLIT_MAX_PARTS`] consecutive new steps qualifies when either
    // - its texts, joined with spaces, have exactly the stored text's words in the same order; or
    // - at least [`SPLIT_COVERAGE`] of the stored text's words (counted with repetition) occur in
    //   the run, at least [`SPLIT_PRECISION`] of the run's words occur in the stored text, and
    //   every part has at least half of its words in the stored text (so an unrelated new step
    //   next to the pieces is not swept in).
    ///
    // The best run wins: highest coverage + precision, then fewest parts, then earliest.
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
                let score = if run_words == old_words.iter().map(String::as_str).collect::<Vec<_>>()
                {
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
                    Some((s, parts, st)) => {
                        key.0 > s || (key.0 == s && (key.1, key.2) < (parts, st))
                    }
                };
                if better {
                    best = Some(key);
                }
            }
        }
        best.map(|(_, parts, start)| start..start + parts)
    }
}

const WORDS: &[&str] = &[
    "let", "tool", "be", "the", "origin", "if", "then", "return", "name", "a", "promise", "reject",
];
const SLUGS: &[&str] = &["register-tool", "execute-tool", "get-tools"];

fn step(id: String, text: String, line: usize) -> SourceStep {
    SourceStep {
        fingerprint: Fingerprint::of(&text),
        id,
        kind: Kind::Step,
        text,
        line,
    }
}

/// One edit of a table of steps, so that sources are revisions of the store, not noise.
#[derive(Clone, Debug)]
enum Edit {
    /// Insert a step of these words at this position.
    Insert(usize, Vec<usize>),
    Delete(usize),
    /// Replace word `1` of step `0` with word `2`.
    Word(usize, usize, usize),
    /// Cut step `0` into two consecutive steps at word `1`.
    Split(usize, usize),
    /// Swap two steps.
    Swap(usize, usize),
    /// Repeat a step right after itself (then edits make near-twins that tie in score).
    Copy(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), prop::collection::vec(0..WORDS.len(), 0..8))
            .prop_map(|(a, w)| Edit::Insert(a, w)),
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), any::<usize>(), 0..WORDS.len()).prop_map(|(a, b, c)| Edit::Word(a, b, c)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Split(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Swap(a, b)),
        any::<usize>().prop_map(Edit::Copy),
    ]
}

/// `(slug, words)` of each step, numbered per slug in order.
type Table = Vec<(usize, Vec<String>)>;

fn apply(mut t: Table, edits: &[Edit]) -> Table {
    for e in edits {
        let n = t.len();
        match e {
            Edit::Insert(at, w) => {
                let slug = if n == 0 { 0 } else { t[at % n].0 };
                let words = w.iter().map(|&k| WORDS[k].to_string()).collect();
                t.insert(if n == 0 { 0 } else { at % (n + 1) }, (slug, words));
            }
            Edit::Delete(at) if n > 0 => {
                t.remove(at % n);
            }
            Edit::Word(at, w, k) if n > 0 => {
                let words = &mut t[at % n].1;
                if !words.is_empty() {
                    let len = words.len();
                    words[w % len] = WORDS[*k].to_string();
                }
            }
            Edit::Split(at, w) if n > 0 => {
                let at = at % n;
                let (slug, words) = t[at].clone();
                if words.len() > 1 {
                    let cut = 1 + w % (words.len() - 1);
                    t[at].1 = words[..cut].to_vec();
                    t.insert(at + 1, (slug, words[cut..].to_vec()));
                }
            }
            Edit::Swap(a, b) if n > 0 => t.swap(a % n, b % n),
            Edit::Copy(at) if n > 0 => t.insert(at % n, t[at % n].clone()),
            _ => {}
        }
    }
    t
}

fn steps(t: &Table) -> Vec<SourceStep> {
    let mut numbers = vec![0; SLUGS.len()];
    t.iter()
        .enumerate()
        .map(|(line, (slug, words))| {
            numbers[*slug] += 1;
            let text = words.join(" ");
            step(
                format!("{}#{}", SLUGS[*slug], numbers[*slug]),
                text,
                line + 1,
            )
        })
        .collect()
}

fn table() -> impl Strategy<Value = Table> {
    prop::collection::vec(
        (
            0..SLUGS.len(),
            prop::collection::vec(prop::sample::select(WORDS), 0..10),
        ),
        0..24,
    )
    .prop_map(|rows| {
        rows.into_iter()
            .map(|(s, w)| (s, w.into_iter().map(str::to_string).collect()))
            .collect()
    })
}

fn stored(steps: &[SourceStep]) -> Vec<StoredStep> {
    read_store(&write_store("t", steps)).unwrap().steps
}

fn config(seed: u64) -> Config {
    Config {
        cases: 512,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config(0x005E_C51C))]

    /// Small tables from a small vocabulary: every pass has work to do, and the new passes must
    /// name every drift as the old ones did.
    #[test]
    fn same_drift_as_the_reference(t in table(), edits in prop::collection::vec(edit(), 0..8)) {
        let old = stored(&steps(&t));
        let new = steps(&apply(t, &edits));
        let got = compare(&old, &new);
        prop_assert_eq!(&got, &reference::compare(&old, &new));
        prop_assert!(got.coarse.is_empty());
    }

    #[test]
    fn same_split_as_the_reference(
        old in prop::collection::vec(prop::sample::select(WORDS), 0..12),
        new in prop::collection::vec(prop::collection::vec(prop::sample::select(WORDS), 0..6), 0..12),
    ) {
        let old = old.join(" ");
        let new: Vec<String> = new.iter().map(|w| w.join(" ")).collect();
        let new: Vec<&str> = new.iter().map(String::as_str).collect();
        prop_assert_eq!(split_of(&old, &new), reference::split_of(&old, &new));
    }

    /// However small the budget, the same stored steps are reported (only how may change), and
    /// the same source steps are accounted for: what fails a run does not depend on it.
    #[test]
    fn a_coarse_comparison_reports_the_same_steps(
        t in table(),
        edits in prop::collection::vec(edit(), 0..8),
        budget in 0u64..400,
    ) {
        let old = stored(&steps(&t));
        let new = steps(&apply(t, &edits));
        let full = compare(&old, &new);
        let coarse = compare_within(&old, &new, budget);
        prop_assert_eq!(reported(&full), reported(&coarse));
        prop_assert_eq!(full.is_empty(), coarse.is_empty());
        prop_assert_eq!(&full.renumbered, &coarse.renumbered);
        prop_assert!(coarse.coarse.iter().all(|c| c.stored > 0 && c.source > 0));
    }
}

/// The stored IDs that have drifted, in any way.
fn reported(d: &webmcp_spec_sync::Drift) -> Vec<String> {
    let mut ids: Vec<String> = d
        .removed
        .iter()
        .map(|r| r.id.clone())
        .chain(d.renumbered.iter().map(|r| r.old_id.clone()))
        .chain(d.changed.iter().map(|c| c.old_id.clone()))
        .chain(d.split.iter().map(|s| s.old_id.clone()))
        .collect();
    ids.sort();
    ids
}

/// The built-in store's rows, as steps whose words are the real draft's (hashed): revisions
/// of it exercise the passes on the draft's own mix of repeated and rare words.
fn draft_like() -> Table {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/step-fingerprints.tsv");
    let text = std::fs::read_to_string(path).unwrap();
    let store = read_store(&text).unwrap();
    let slugs: Vec<&str> = store
        .steps
        .iter()
        .map(|s| webmcp_spec_sync::compare::slug_of(&s.id))
        .collect();
    store
        .steps
        .iter()
        .zip(&slugs)
        .map(|(s, slug)| {
            // Three algorithms are enough to keep the numbering simple.
            let k = slugs.iter().position(|x| x == slug).unwrap() % SLUGS.len();
            (
                k,
                s.sketch
                    .split(' ')
                    .filter(|w| !w.is_empty())
                    .map(str::to_string)
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn same_drift_as_the_reference_on_revisions_of_the_draft() {
    let base = draft_like();
    assert!(base.len() > 200);
    let old = stored(&steps(&base));
    let mut runner = proptest::test_runner::TestRunner::new(config(0x000D_2AF7));
    runner
        .run(&prop::collection::vec(edit(), 0..12), |edits| {
            let new = steps(&apply(base.clone(), &edits));
            let got = compare(&old, &new);
            prop_assert_eq!(&got, &reference::compare(&old, &new));
            prop_assert!(got.coarse.is_empty());
            Ok(())
        })
        .unwrap();
}

#[test]
fn unrelated_tables_of_thousands_of_steps_are_compared_in_bounded_time() {
    // Every step a permutation of the same 8 words: every pair is similar, no fingerprint is
    // shared. The passes it replaced took minutes and gigabytes here.
    let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
    ];
    let permutation = |mut k: usize| {
        let mut pool = words.to_vec();
        let mut out = Vec::new();
        while !pool.is_empty() {
            out.push(pool.remove(k % pool.len()));
            k /= pool.len() + 1;
        }
        out.join(" ")
    };
    let table = |offset: usize, n: usize| -> Vec<SourceStep> {
        (0..n)
            .map(|k| {
                step(
                    format!("register-tool#{}", k + 1),
                    permutation(offset + k),
                    k + 1,
                )
            })
            .collect()
    };
    for n in [500, 3000] {
        let old = stored(&table(0, n));
        let new = table(n, n);
        let start = std::time::Instant::now();
        let d = compare(&old, &new);
        let took = start.elapsed();
        // A hang guard (the passes it replaced took minutes), not a claim about speed.
        assert!(took < std::time::Duration::from_secs(30), "{n}: {took:?}");
        assert_eq!(
            d.removed.len() + d.changed.len() + d.split.len() + d.renumbered.len(),
            n
        );
        assert_eq!(d.coarse.is_empty(), n == 500, "{n}: {:?}", d.coarse);
    }
}

#[test]
fn the_real_fixtures_need_a_small_part_of_the_budget() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    let base = parse(&std::fs::read_to_string(format!("{dir}/baseline.bs")).unwrap()).unwrap();
    for name in [
        "changed.bs",
        "split.bs",
        "renumbered.bs",
        "removed.bs",
        "new-algorithm.bs",
    ] {
        let new = parse(&std::fs::read_to_string(format!("{dir}/{name}")).unwrap()).unwrap();
        let old = stored(&base);
        assert_eq!(
            compare_within(&old, &new, MAX_WORK / 1000),
            compare(&old, &new),
            "{name}"
        );
    }
}
