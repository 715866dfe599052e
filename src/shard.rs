//! `--shard I/N`: which of a command's items one run takes, and the record each shard's JSON
//! report carries so that `merge` can tell whether a set of shards is one whole run.
//!
//! Items are dealt out round-robin by their position in the command's canonical order (the
//! type and why are in `webmcp_generator::Shard`): nothing about the machine, the time or
//! the thread count enters, so a shard is the same set wherever it runs.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
pub use webmcp_generator::Shard;

/// The items of `shard` among `items` (in canonical order), in that order; all of them
/// without a shard.
pub fn select<T>(items: Vec<T>, shard: Option<Shard>) -> Vec<T> {
    let Some(shard) = shard else {
        return items;
    };
    items
        .into_iter()
        .enumerate()
        .filter(|(position, _)| shard.contains(*position as u64))
        .map(|(_, item)| item)
        .collect()
}

/// Says on stderr that a shard holds nothing. It decided nothing, so its exit status is 3
/// (incomplete), never a pass; `merge` checks that the shards together hold every item.
pub fn note_empty(shard: Shard, total: u64, what: &str) {
    errln!(
        "webmcp-check: shard {shard} holds no items ({total} {what} in {} shards): nothing was checked; `merge` checks that the shards together cover every item",
        shard.count
    );
}

/// What a shard's JSON report records about itself (under the key [`KEY`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardRecord {
    /// The command that wrote it: `check`, `sweep`, `mutants` or `conformance`.
    pub command: String,
    /// I of `--shard I/N`.
    pub index: u64,
    /// N of `--shard I/N`.
    pub count: u64,
    /// The options that decide what the items are and how they are judged, as text; the
    /// shards of one run agree on every one.
    pub options: BTreeMap<String, String>,
    /// How many items the unsharded run has.
    pub total: u64,
    /// This shard's items by name, in canonical order (every command but sweep, whose
    /// items are counted, not named).
    pub items: Option<Vec<String>>,
}

/// The key of a report's [`ShardRecord`].
pub const KEY: &str = "shard_of";

impl ShardRecord {
    pub fn shard(&self) -> Shard {
        Shard {
            index: self.index,
            count: self.count,
        }
    }
}

/// Why a set of shards is not one whole run.
#[derive(Debug, PartialEq, Eq)]
pub enum SetError {
    Empty,
    /// A shard whose I/N cannot be (0, I > N, N above the limit).
    Impossible {
        file: String,
        index: u64,
        count: u64,
    },
    Commands {
        first: (String, String),
        other: (String, String),
    },
    Counts {
        first: (String, u64),
        other: (String, u64),
    },
    Options {
        first: String,
        other: String,
        option: String,
    },
    Totals {
        first: (String, u64),
        other: (String, u64),
    },
    Twice {
        shard: Shard,
        files: (String, String),
    },
    Missing {
        count: u64,
        missing: Vec<u64>,
    },
    /// A shard's item count is not what its I/N holds of the total.
    Size {
        file: String,
        shard: Shard,
        holds: u64,
        expected: u64,
    },
    /// The same item in two shards (or twice in one).
    Repeated {
        item: String,
    },
}

impl std::fmt::Display for SetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetError::Empty => write!(f, "merge needs at least one shard report"),
            SetError::Impossible { file, index, count } => write!(
                f,
                "{file}: shard {index}/{count} is not a shard (1 ≤ I ≤ N ≤ {})",
                webmcp_generator::MAX_SHARDS
            ),
            SetError::Commands { first, other } => write!(
                f,
                "{} is a {} report but {} is a {} report: merge the shards of one run",
                other.0, other.1, first.0, first.1
            ),
            SetError::Counts { first, other } => write!(
                f,
                "{} is one of {} shards but {} one of {}: merge the shards of one run",
                other.0, other.1, first.0, first.1
            ),
            SetError::Options {
                first,
                other,
                option,
            } => write!(
                f,
                "{other} and {first} were run with different {option}: merge the shards of one run"
            ),
            SetError::Totals { first, other } => write!(
                f,
                "{} counts {} items in the whole run but {} counts {}: shards of different runs or versions",
                other.0, other.1, first.0, first.1
            ),
            SetError::Twice { shard, files } => {
                write!(f, "shard {shard} is given twice ({} and {})", files.0, files.1)
            }
            SetError::Missing { count, missing } => {
                let shown: Vec<String> = missing
                    .iter()
                    .take(10)
                    .map(|i| format!("{i}/{count}"))
                    .collect();
                write!(
                    f,
                    "shard(s) {}{} missing: the merge needs all {count}",
                    shown.join(", "),
                    if missing.len() > 10 { ", ..." } else { "" }
                )
            }
            SetError::Size {
                file,
                shard,
                holds,
                expected,
            } => write!(
                f,
                "{file}: shard {shard} holds {holds} items, but {expected} of the whole run's fall to it"
            ),
            SetError::Repeated { item } => write!(
                f,
                "item '{}' is in more than one shard",
                webmcp_traces::limits::one_line(item, 80)
            ),
        }
    }
}

/// A shard report as `merge` checks it: the file's name, its record, and how many items its
/// results hold.
pub type ShardEntry = (String, ShardRecord, u64);

/// Checks that `shards` are every shard of one run, each once, with the items their I/N
/// give them; returns where each shard is in `shards` (in I order) and the whole run's
/// named items in canonical order (empty for counted items).
pub fn check_set(shards: &[ShardEntry]) -> Result<(Vec<usize>, Vec<String>), SetError> {
    let (first_file, first, _) = shards.first().ok_or(SetError::Empty)?;
    for (file, r, _) in shards {
        if r.index == 0 || r.index > r.count || r.count > webmcp_generator::MAX_SHARDS {
            return Err(SetError::Impossible {
                file: file.clone(),
                index: r.index,
                count: r.count,
            });
        }
        if r.command != first.command {
            return Err(SetError::Commands {
                first: (first_file.clone(), first.command.clone()),
                other: (file.clone(), r.command.clone()),
            });
        }
        if r.count != first.count {
            return Err(SetError::Counts {
                first: (first_file.clone(), first.count),
                other: (file.clone(), r.count),
            });
        }
        if let Some(option) = differing_option(&first.options, &r.options) {
            return Err(SetError::Options {
                first: first_file.clone(),
                other: file.clone(),
                option,
            });
        }
        if r.total != first.total {
            return Err(SetError::Totals {
                first: (first_file.clone(), first.total),
                other: (file.clone(), r.total),
            });
        }
    }
    let mut by_index: BTreeMap<u64, &ShardEntry> = BTreeMap::new();
    for entry in shards {
        if let Some(earlier) = by_index.insert(entry.1.index, entry) {
            return Err(SetError::Twice {
                shard: entry.1.shard(),
                files: (earlier.0.clone(), entry.0.clone()),
            });
        }
    }
    let missing: Vec<u64> = (1..=first.count)
        .filter(|i| !by_index.contains_key(i))
        .collect();
    if !missing.is_empty() {
        return Err(SetError::Missing {
            count: first.count,
            missing,
        });
    }
    for (file, r, holds) in by_index.values() {
        let expected = r.shard().size_of(r.total);
        let named = r.items.as_ref().map(|items| items.len() as u64);
        if *holds != expected || named.is_some_and(|n| n != expected) {
            return Err(SetError::Size {
                file: file.clone(),
                shard: r.shard(),
                holds: named.unwrap_or(*holds),
                expected,
            });
        }
    }
    let ordered: Vec<&ShardEntry> = by_index.into_values().collect();
    let items = interleave(&ordered)?;
    let positions = ordered
        .iter()
        .map(|e| {
            shards
                .iter()
                .position(|x| std::ptr::eq(x, *e))
                .expect("an entry of shards")
        })
        .collect();
    Ok((positions, items))
}

/// The first option (by name) that two shards set differently.
fn differing_option(a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) -> Option<String> {
    let k = a.keys().chain(b.keys()).find(|k| a.get(*k) != b.get(*k))?;
    Some(if a.contains_key(k) && b.contains_key(k) {
        format!("--{k}")
    } else {
        format!("--{k} (one report does not record it: written by another version)")
    })
}

/// The whole run's named items in canonical order: position p is the (p / N)-th item of
/// shard p mod N + 1. Refuses an item named twice.
fn interleave(ordered: &[&ShardEntry]) -> Result<Vec<String>, SetError> {
    let Some(count) = ordered.first().map(|e| e.1.count) else {
        return Ok(Vec::new());
    };
    let total = ordered[0].1.total;
    if ordered.iter().any(|e| e.1.items.is_none()) {
        return Ok(Vec::new());
    }
    let mut items = Vec::with_capacity(total as usize);
    let mut seen = std::collections::BTreeSet::new();
    for position in 0..total {
        let shard = &ordered[(position % count) as usize].1;
        let item = &shard.items.as_ref().expect("named")[(position / count) as usize];
        if !seen.insert(item.as_str()) {
            return Err(SetError::Repeated { item: item.clone() });
        }
        items.push(item.clone());
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn record(index: u64, count: u64, names: &[String]) -> ShardEntry {
        let shard = Shard { index, count };
        let items = select(names.to_vec(), Some(shard));
        (
            format!("shard-{index}.json"),
            ShardRecord {
                command: "check".into(),
                index,
                count,
                options: BTreeMap::from([("variant".into(), "seed".into())]),
                total: names.len() as u64,
                items: Some(items.clone()),
            },
            items.len() as u64,
        )
    }

    proptest! {
        /// Every item falls to exactly one shard, the shards keep canonical order, and
        /// interleaving them gives back the unsharded list.
        #[test]
        fn the_shards_partition_the_items_and_merge_back(total in 0usize..200, count in 1u64..40) {
            let names: Vec<String> = (0..total).map(|i| format!("item-{i}")).collect();
            let mut seen = vec![0; total];
            let mut set = Vec::new();
            for index in 1..=count {
                let shard = Shard { index, count };
                let part = select((0..total).collect::<Vec<_>>(), Some(shard));
                prop_assert_eq!(part.len() as u64, shard.size_of(total as u64));
                prop_assert!(part.windows(2).all(|w| w[0] < w[1]));
                for i in part {
                    seen[i] += 1;
                }
                set.push(record(index, count, &names));
            }
            prop_assert!(seen.iter().all(|&n| n == 1));
            set.reverse();
            let (ordered, items) = check_set(&set).unwrap();
            prop_assert_eq!(items, names);
            prop_assert!(ordered.iter().enumerate().all(|(i, &at)| set[at].1.index == i as u64 + 1));
        }
    }

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("s{i}")).collect()
    }

    #[test]
    fn a_missing_a_repeated_or_a_foreign_shard_is_refused() {
        let all = names(7);
        let whole: Vec<_> = (1..=3).map(|i| record(i, 3, &all)).collect();
        assert!(check_set(&whole).is_ok());

        let e = check_set(&whole[..2]).unwrap_err();
        assert_eq!(e.to_string(), "shard(s) 3/3 missing: the merge needs all 3");

        let mut twice = whole.clone();
        twice[2] = record(2, 3, &all);
        twice[2].0 = "again.json".into();
        assert_eq!(
            check_set(&twice).unwrap_err().to_string(),
            "shard 2/3 is given twice (shard-2.json and again.json)"
        );

        let mut other_n = whole.clone();
        other_n[1] = record(2, 4, &all);
        assert!(matches!(check_set(&other_n), Err(SetError::Counts { .. })));

        let mut other_variant = whole.clone();
        other_variant[1]
            .1
            .options
            .insert("variant".into(), "proposed".into());
        assert_eq!(
            check_set(&other_variant).unwrap_err().to_string(),
            "shard-2.json and shard-1.json were run with different --variant: merge the shards of one run"
        );

        // A report of a version that did not record an option is told apart.
        let mut older = whole.clone();
        older[0].1.options.insert("engine".into(), "local".into());
        assert_eq!(
            check_set(&older).unwrap_err().to_string(),
            "shard-2.json and shard-1.json were run with different --engine (one report does not record it: written by another version): merge the shards of one run"
        );

        let mut other_command = whole.clone();
        other_command[2].1.command = "sweep".into();
        assert!(matches!(
            check_set(&other_command),
            Err(SetError::Commands { .. })
        ));

        let mut dropped = whole.clone();
        dropped[0].1.items.as_mut().unwrap().pop();
        assert!(matches!(check_set(&dropped), Err(SetError::Size { .. })));

        let mut swapped = whole.clone();
        swapped[1].1.items.as_mut().unwrap()[0] = "s0".into();
        assert_eq!(
            check_set(&swapped).unwrap_err().to_string(),
            "item 's0' is in more than one shard"
        );

        let mut bigger = whole.clone();
        bigger[0].1.total = 8;
        assert!(matches!(check_set(&bigger), Err(SetError::Totals { .. })));

        let mut impossible = whole;
        impossible[0].1.index = 0;
        assert!(matches!(
            check_set(&impossible),
            Err(SetError::Impossible { .. })
        ));
    }

    #[test]
    fn more_shards_than_items_leaves_empty_shards_that_still_count() {
        let all = names(2);
        let set: Vec<_> = (1..=5).map(|i| record(i, 5, &all)).collect();
        assert_eq!(set[4].2, 0);
        assert_eq!(check_set(&set).unwrap().1, all);
    }
}
