//! The visited set's hash table: fingerprints to values, open addressing, linear probing.
//!
//! Why not `std`'s `HashMap`: on a large search, looking a successor up misses the cache
//! (a table of millions of entries), and the search waits for memory at every successor.
//! Here the slot a fingerprint starts at is plain arithmetic on the fingerprint, so a search
//! can ask for it ([`FpTable::prefetch`]) as soon as the fingerprint is known, build the
//! state's other successors meanwhile, and look them all up after. Keys and values live in
//! two arrays: a successor already seen (most are) reads only keys.
//!
//! A fingerprint is already a uniform hash, so its low bits choose the slot. The key 0 marks
//! an empty slot; the one state whose fingerprint is 0 is kept beside the table.

use std::mem::MaybeUninit;

use crate::model::prefetch;

/// A map from fingerprints to values.
pub(crate) struct FpTable<V> {
    /// Per slot, its key; 0 where the slot is empty.
    keys: Vec<u64>,
    /// Per slot, its value: initialised exactly where the key is not 0.
    vals: Vec<MaybeUninit<V>>,
    /// Entries in the slots (the fingerprint 0 aside).
    len: usize,
    /// The value of the fingerprint 0.
    zero: Option<V>,
}

/// The least number of slots of a table that holds anything.
const MIN_SLOTS: usize = 16;

impl<V> Default for FpTable<V> {
    fn default() -> Self {
        FpTable {
            keys: Vec::new(),
            vals: Vec::new(),
            len: 0,
            zero: None,
        }
    }
}

impl<V> FpTable<V> {
    /// How many fingerprints the table holds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len + usize::from(self.zero.is_some())
    }

    fn mask(&self) -> usize {
        self.keys.len().wrapping_sub(1)
    }

    /// The slot holding `fp` (`Ok`), or the empty slot where it would go (`Err`). The table
    /// has at least one empty slot.
    fn find(&self, fp: u64) -> Result<usize, usize> {
        debug_assert!(fp != 0 && self.len < self.keys.len());
        let mask = self.mask();
        let mut i = fp as usize & mask;
        loop {
            match self.keys[i] {
                0 => return Err(i),
                k if k == fp => return Ok(i),
                _ => i = (i + 1) & mask,
            }
        }
    }

    pub(crate) fn get(&self, fp: u64) -> Option<&V> {
        if fp == 0 {
            return self.zero.as_ref();
        }
        if self.keys.is_empty() {
            return None;
        }
        let i = self.find(fp).ok()?;
        // SAFETY: the key of slot `i` is `fp`, not 0, so its value is initialised.
        Some(unsafe { self.vals[i].assume_init_ref() })
    }

    pub(crate) fn contains(&self, fp: u64) -> bool {
        self.get(fp).is_some()
    }

    /// The value of `fp`, inserted by `new` if `fp` is not there yet; `true` when it was
    /// inserted.
    pub(crate) fn get_or_insert_with(
        &mut self,
        fp: u64,
        new: impl FnOnce() -> V,
    ) -> (bool, &mut V) {
        if fp == 0 {
            let inserted = self.zero.is_none();
            return (inserted, self.zero.get_or_insert_with(new));
        }
        // Grown before it is more than seven eighths full.
        if (self.len + 1) * 8 > self.keys.len() * 7 {
            self.grow();
        }
        match self.find(fp) {
            // SAFETY: the key of slot `i` is `fp`, not 0, so its value is initialised.
            Ok(i) => (false, unsafe { self.vals[i].assume_init_mut() }),
            Err(i) => {
                self.keys[i] = fp;
                self.len += 1;
                (true, self.vals[i].write(new()))
            }
        }
    }

    /// Asks the memory for the slot `fp` starts at, so that a lookup soon after does not
    /// wait for it. Only a hint: it changes nothing and reads nothing.
    pub(crate) fn prefetch(&self, fp: u64) {
        prefetch_slot(self.slot_hint(), fp);
    }

    /// Where the slots start and the mask that picks one (`usize::MAX` while the table has
    /// no slots): what [`prefetch_slot`] needs to ask for a fingerprint's slot without
    /// holding the table.
    pub(crate) fn slot_hint(&self) -> (usize, usize) {
        (self.keys.as_ptr() as usize, self.mask())
    }

    /// Where the values start: with [`FpTable::slot_hint`]'s mask, what [`prefetch_value`]
    /// needs.
    pub(crate) fn value_hint(&self) -> usize {
        self.vals.as_ptr() as usize
    }

    /// Twice the slots (at least [`MIN_SLOTS`]), every entry moved to its new slot.
    fn grow(&mut self) {
        let slots = (self.keys.len() * 2).max(MIN_SLOTS);
        // Zeroed memory from the allocator: fresh pages are zero already and are not
        // touched until a key lands in them; values are written only with their key.
        let old_keys = std::mem::replace(&mut self.keys, vec![0u64; slots]);
        let mut old_vals = std::mem::replace(&mut self.vals, uninit(slots));
        for (i, &k) in old_keys.iter().enumerate() {
            if k == 0 {
                continue;
            }
            let j = self.find(k).expect_err("each key is in the table once");
            self.keys[j] = k;
            // SAFETY: slot `i` of the old table had a key, so its value is initialised; it
            // is moved out once, and the old values are then dropped as `MaybeUninit`s,
            // which drops nothing.
            self.vals[j].write(unsafe { old_vals[i].assume_init_read() });
        }
        old_vals.clear();
    }
}

/// Asks the memory for the slot `fp` starts at in a table whose [`FpTable::slot_hint`] was
/// `hint`. The table may have grown since: the hint then names memory it no longer uses,
/// and the prefetch is wasted, never wrong (a prefetch reads nothing and never faults).
pub(crate) fn prefetch_slot((keys, mask): (usize, usize), fp: u64) {
    if mask != usize::MAX {
        prefetch((keys as *const u64).wrapping_add(fp as usize & mask));
    }
}

/// Asks the memory for the value in the slot `fp` starts at, in a table whose values
/// started at `vals` and whose mask was `mask` ([`FpTable::value_hint`],
/// [`FpTable::slot_hint`]): for a search that reads the value of a fingerprint already
/// there. Stale hints waste the prefetch, as in [`prefetch_slot`].
pub(crate) fn prefetch_value<V>(vals: usize, mask: usize, fp: u64) {
    if mask != usize::MAX {
        prefetch((vals as *const MaybeUninit<V>).wrapping_add(fp as usize & mask));
    }
}

fn uninit<V>(n: usize) -> Vec<MaybeUninit<V>> {
    let mut v = Vec::with_capacity(n);
    // SAFETY: `MaybeUninit` needs no initialisation, and the capacity is `n`.
    unsafe { v.set_len(n) };
    v
}

impl<V> Drop for FpTable<V> {
    fn drop(&mut self) {
        if std::mem::needs_drop::<V>() {
            for (k, v) in self.keys.iter().zip(self.vals.iter_mut()) {
                if *k != 0 {
                    // SAFETY: a slot with a key holds an initialised value, dropped once.
                    unsafe { v.assume_init_drop() };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;
    use std::rc::Rc;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, rng_seed: proptest::test_runner::RngSeed::Fixed(15), ..ProptestConfig::default() })]
        /// The table answers as a `HashMap` does, whatever the keys (0, colliding low bits,
        /// repeats) and however often it grows.
        #[test]
        fn answers_as_a_hash_map(keys in proptest::collection::vec(
            prop_oneof![Just(0u64), 0u64..64, any::<u64>(), (0u64..8).prop_map(|k| k << 60)],
            0..600,
        )) {
            let mut table = FpTable::default();
            let mut map = HashMap::new();
            for (n, &k) in keys.iter().enumerate() {
                table.prefetch(k);
                let (inserted, v) = table.get_or_insert_with(k, || n);
                prop_assert_eq!(inserted, !map.contains_key(&k));
                let first = *map.entry(k).or_insert(n);
                prop_assert_eq!(*v, first);
            }
            prop_assert_eq!(table.len(), map.len());
            for (k, v) in &map {
                prop_assert_eq!(table.get(*k), Some(v));
            }
            for k in [1u64, 2, 63, 1 << 63, u64::MAX] {
                prop_assert_eq!(table.contains(k), map.contains_key(&k));
            }
        }
    }

    #[test]
    fn values_are_dropped_once() {
        let counted = Rc::new(());
        {
            let mut table = FpTable::default();
            for k in 0..1000u64 {
                table.get_or_insert_with(k.wrapping_mul(0x9e37_79b9_7f4a_7c15), || counted.clone());
            }
            assert_eq!(table.len(), 1000);
            assert_eq!(Rc::strong_count(&counted), 1001);
        }
        assert_eq!(Rc::strong_count(&counted), 1);
    }

    #[test]
    fn a_value_can_be_changed_in_place() {
        let mut table = FpTable::default();
        table.get_or_insert_with(5, || 1);
        let (inserted, v) = table.get_or_insert_with(5, || 9);
        assert!(!inserted);
        *v = 2;
        assert_eq!(table.get(5), Some(&2));
    }
}
