//! The state's collections (`webmcp_model::coll`) against reference models: `Vec`,
//! `BTreeMap` and `BTreeSet` for contents, and `im`'s collections (which the state used
//! before) for ordering, since the symmetry representative is the least state under `Ord`.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use webmcp_model::coll::{OrdMap, OrdSet, Vector};

#[derive(Clone, Debug)]
enum Op {
    Insert(u8, u8),
    Remove(u8),
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            (0u8..12, any::<u8>()).prop_map(|(k, v)| Op::Insert(k, v)),
            (0u8..12).prop_map(Op::Remove),
        ],
        0..24,
    )
}

fn build_map(ops: &[Op]) -> (OrdMap<u8, u8>, BTreeMap<u8, u8>, im::OrdMap<u8, u8>) {
    let (mut ours, mut reference, mut old) = (OrdMap::new(), BTreeMap::new(), im::OrdMap::new());
    for op in ops {
        match *op {
            Op::Insert(k, v) => {
                assert_eq!(ours.insert(k, v), reference.insert(k, v));
                old.insert(k, v);
            }
            Op::Remove(k) => {
                assert_eq!(ours.remove(&k), reference.remove(&k));
                old.remove(&k);
            }
        }
    }
    (ours, reference, old)
}

fn build_set(ops: &[Op]) -> (OrdSet<u8>, BTreeSet<u8>, im::OrdSet<u8>) {
    let (mut ours, mut reference, mut old) = (OrdSet::new(), BTreeSet::new(), im::OrdSet::new());
    for op in ops {
        match *op {
            Op::Insert(k, _) => {
                assert_eq!(ours.insert(k).is_none(), reference.insert(k));
                old.insert(k);
            }
            Op::Remove(k) => {
                assert_eq!(ours.remove(&k).is_some(), reference.remove(&k));
                old.remove(&k);
            }
        }
    }
    (ours, reference, old)
}

/// Pushes for inserts, removal at a position for removes (when in bounds).
fn build_vector(ops: &[Op]) -> (Vector<u8>, Vec<u8>, im::Vector<u8>) {
    let (mut ours, mut reference, mut old) = (Vector::new(), Vec::new(), im::Vector::new());
    for op in ops {
        match *op {
            Op::Insert(_, v) => {
                ours.push_back(v);
                reference.push(v);
                old.push_back(v);
            }
            Op::Remove(i) if (i as usize) < reference.len() => {
                assert_eq!(ours.remove(i as usize), reference.remove(i as usize));
                old.remove(i as usize);
            }
            Op::Remove(_) => {}
        }
    }
    (ours, reference, old)
}

fn hash_of<T: std::hash::Hash>(x: &T) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one(x)
}

proptest! {
    #[test]
    fn maps_hold_what_a_btreemap_holds(ops in ops()) {
        let (ours, reference, _) = build_map(&ops);
        prop_assert_eq!(ours.len(), reference.len());
        prop_assert_eq!(ours.is_empty(), reference.is_empty());
        prop_assert!(ours.iter().map(|(k, v)| (*k, *v)).eq(reference.iter().map(|(k, v)| (*k, *v))));
        for k in 0..12 {
            prop_assert_eq!(ours.get(&k), reference.get(&k));
            prop_assert_eq!(ours.contains_key(&k), reference.contains_key(&k));
        }
        let collected: OrdMap<u8, u8> = ops.iter().filter_map(|op| match *op {
            Op::Insert(k, v) => Some((k, v)),
            Op::Remove(_) => None,
        }).collect();
        let mut by_inserts = BTreeMap::new();
        for op in &ops {
            if let Op::Insert(k, v) = *op {
                by_inserts.insert(k, v);
            }
        }
        prop_assert!(collected.iter().map(|(k, v)| (*k, *v)).eq(by_inserts.into_iter()));
    }

    #[test]
    fn sets_hold_what_a_btreeset_holds(ops in ops()) {
        let (ours, reference, _) = build_set(&ops);
        prop_assert_eq!(ours.len(), reference.len());
        prop_assert!(ours.iter().eq(reference.iter()));
        for k in 0..12 {
            prop_assert_eq!(ours.contains(&k), reference.contains(&k));
        }
    }

    #[test]
    fn vectors_hold_what_a_vec_holds(ops in ops()) {
        let (ours, reference, _) = build_vector(&ops);
        prop_assert_eq!(ours.len(), reference.len());
        prop_assert!(ours.iter().eq(reference.iter()));
        for i in 0..reference.len() {
            prop_assert_eq!(ours[i], reference[i]);
        }
        prop_assert!(ours.clone().into_iter().eq(reference.iter().copied()));
    }

    /// Equality, order and hash depend on contents only, and order is `im`'s.
    #[test]
    fn compare_and_hash_like_the_im_collections(a in ops(), b in ops()) {
        let ((ma, _, ia), (mb, _, ib)) = (build_map(&a), build_map(&b));
        prop_assert_eq!(ma.cmp(&mb), ia.cmp(&ib));
        prop_assert_eq!(ma == mb, ia == ib);
        if ma == mb {
            prop_assert_eq!(hash_of(&ma), hash_of(&mb));
        }
        let ((sa, _, ja), (sb, _, jb)) = (build_set(&a), build_set(&b));
        prop_assert_eq!(sa.cmp(&sb), ja.cmp(&jb));
        prop_assert_eq!(sa == sb, ja == jb);
        if sa == sb {
            prop_assert_eq!(hash_of(&sa), hash_of(&sb));
        }
        let ((va, _, ka), (vb, _, kb)) = (build_vector(&a), build_vector(&b));
        prop_assert_eq!(va.cmp(&vb), ka.cmp(&kb));
        prop_assert_eq!(va == vb, ka == kb);
        if va == vb {
            prop_assert_eq!(hash_of(&va), hash_of(&vb));
        }
    }

    /// A clone shares its entries until one side changes; the other never sees the change.
    #[test]
    fn clones_are_independent(a in ops(), b in ops()) {
        let (before, reference, _) = build_map(&a);
        let mut after = before.clone();
        for op in &b {
            match *op {
                Op::Insert(k, v) => { after.insert(k, v); }
                Op::Remove(k) => { after.remove(&k); }
            }
        }
        prop_assert!(before.iter().map(|(k, v)| (*k, *v)).eq(reference.into_iter()));
        let (v0, vref, _) = build_vector(&a);
        let mut v1 = v0.clone();
        v1.push_back(7);
        if !v1.is_empty() {
            v1[0] = v1[0].wrapping_add(1);
        }
        prop_assert!(v0.iter().eq(vref.iter()));
    }
}

#[test]
fn an_emptied_collection_equals_a_new_one() {
    let mut m: OrdMap<u8, u8> = OrdMap::new();
    m.insert(1u8, 2u8);
    m.remove(&1);
    assert_eq!(m, OrdMap::new());
    assert_eq!(hash_of(&m), hash_of(&OrdMap::<u8, u8>::new()));
    let mut v: Vector<u8> = Vector::new();
    v.push_back(1u8);
    v.remove(0);
    assert_eq!(v, Vector::new());
    assert_eq!(v.pop_front(), None);
}
