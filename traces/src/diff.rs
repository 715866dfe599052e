//! Field-by-field differences between two ITF values, aware of maps (compared by key), sets
//! (compared by element), sum types and records. Used by replay (the first difference is the
//! divergence) and by explain (every difference is what a step changed).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::itf::{as_int, elements, entries, payload, render, tag_of};

/// One difference: where, and the value before (or expected) and after (or actual); `None`
/// where the entry or element does not exist on that side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// Every difference between `a` and `b` below `path`, at most `limit` of them.
pub fn differences(path: &str, a: &Value, b: &Value, limit: usize) -> Vec<Change> {
    let mut out = Vec::new();
    walk(path, a, b, &mut out, limit);
    out
}

/// The first difference, if any.
pub fn first_difference(path: &str, a: &Value, b: &Value) -> Option<Change> {
    differences(path, a, b, 1).into_iter().next()
}

fn push(out: &mut Vec<Change>, path: &str, a: Option<&Value>, b: Option<&Value>) {
    out.push(Change {
        path: path.to_string(),
        before: a.map(render),
        after: b.map(render),
    });
}

fn key_text(k: &Value) -> String {
    match k {
        Value::String(s) => format!("{s:?}"),
        other => render(other),
    }
}

fn is_set(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|o| o.len() == 1 && o.contains_key("#set"))
}

fn walk<'a>(path: &str, a: &'a Value, b: &'a Value, out: &mut Vec<Change>, limit: usize) {
    if out.len() >= limit || a == b {
        return;
    }
    if let (Some(x), Some(y)) = (as_int(a), as_int(b)) {
        if x != y {
            push(out, path, Some(a), Some(b));
        }
        return;
    }
    if let (Some(ea), Some(eb)) = (entries(a), entries(b)) {
        // Each side indexed by its keys' text (the first entry of a key, where a malformed
        // map repeats it), so that a map of n entries costs n log n, not n² (a trace is
        // untrusted and may hold millions).
        let index = |e: Vec<(&'a Value, &'a Value)>| {
            let mut by_key: BTreeMap<String, (&'a Value, &'a Value)> = BTreeMap::new();
            for (k, v) in e {
                by_key.entry(k.to_string()).or_insert((k, v));
            }
            by_key
        };
        let (ia, ib) = (index(ea), index(eb));
        let mut keys: Vec<(&String, &Value)> = ia.iter().map(|(t, (k, _))| (t, *k)).collect();
        keys.extend(
            ib.iter()
                .filter(|(t, _)| !ia.contains_key(*t))
                .map(|(t, (k, _))| (t, *k)),
        );
        keys.sort_by(|x, y| x.0.cmp(y.0));
        for (t, k) in keys {
            let p = format!("{path}[{}]", key_text(k));
            match (ia.get(t).map(|e| e.1), ib.get(t).map(|e| e.1)) {
                (Some(x), Some(y)) => walk(&p, x, y, out, limit),
                (x, y) => push(out, &p, x, y),
            }
            if out.len() >= limit {
                return;
            }
        }
        return;
    }
    if is_set(a) && is_set(b) {
        // Elements looked up by their JSON text (canonical: objects keep their keys sorted),
        // n log n where `contains` was n².
        let (ia, ib) = (elements(a).expect("a set"), elements(b).expect("a set"));
        // Each element's text made once: for the lookup, and for the other side's scan.
        let texts = |v: &[Value]| -> Vec<String> { v.iter().map(Value::to_string).collect() };
        let (xa, xb) = (texts(ia), texts(ib));
        let (ta, tb): (BTreeSet<&String>, BTreeSet<&String>) =
            (xa.iter().collect(), xb.iter().collect());
        for (x, text) in ia.iter().zip(&xa) {
            if out.len() < limit && !tb.contains(text) {
                push(out, path, Some(x), None);
            }
        }
        for (y, text) in ib.iter().zip(&xb) {
            if out.len() < limit && !ta.contains(text) {
                push(out, path, None, Some(y));
            }
        }
        return;
    }
    if let (Some(ta), Some(tb)) = (tag_of(a), tag_of(b)) {
        if ta == tb {
            let (pa, pb) = (payload(a).expect("tagged"), payload(b).expect("tagged"));
            walk(&format!("{path}.{ta}"), pa, pb, out, limit);
        } else {
            push(out, path, Some(a), Some(b));
        }
        return;
    }
    let seq = |v: &'a Value| -> Option<&'a Vec<Value>> {
        match v {
            Value::Array(x) => Some(x),
            Value::Object(o) if o.len() == 1 => o.get("#tup").and_then(Value::as_array),
            _ => None,
        }
    };
    if let (Some(sa), Some(sb)) = (seq(a), seq(b)) {
        if a.is_array() == b.is_array() {
            for i in 0..sa.len().max(sb.len()) {
                let p = format!("{path}[{i}]");
                match (sa.get(i), sb.get(i)) {
                    (Some(x), Some(y)) => walk(&p, x, y, out, limit),
                    (x, y) => push(out, &p, x, y),
                }
                if out.len() >= limit {
                    return;
                }
            }
            return;
        }
    }
    match (a, b) {
        (Value::Object(oa), Value::Object(ob))
            if !oa.keys().any(|k| k.starts_with('#')) && !ob.keys().any(|k| k.starts_with('#')) =>
        {
            let mut keys: Vec<&String> = oa.keys().chain(ob.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match (oa.get(k), ob.get(k)) {
                    (Some(x), Some(y)) => walk(&p, x, y, out, limit),
                    (x, y) => push(out, &p, x, y),
                }
                if out.len() >= limit {
                    return;
                }
            }
        }
        _ => push(out, path, Some(a), Some(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn maps_sets_and_variants() {
        let a = json!({"#map": [["top", {"n": {"#bigint": "1"}, "s": {"#set": ["x"]}}]]});
        let b = json!({"#map": [["top", {"n": {"#bigint": "2"}, "s": {"#set": ["y"]}}]]});
        let d = differences("docs", &a, &b, 10);
        assert_eq!(d[0].path, "docs[\"top\"].n");
        assert_eq!(d[0].before.as_deref(), Some("1"));
        assert_eq!(d[1].path, "docs[\"top\"].s");
        assert_eq!(d[2].after.as_deref(), Some("\"y\""));
        let v1 = json!({"tag": "Pending", "value": {"#tup": []}});
        let v2 =
            json!({"tag": "Rejected", "value": {"tag": "UnknownError", "value": {"#tup": []}}});
        let d = first_difference("status", &v1, &v2).unwrap();
        assert_eq!(d.before.as_deref(), Some("Pending"));
        assert_eq!(d.after.as_deref(), Some("Rejected(UnknownError)"));
        assert!(first_difference("x", &a, &a).is_none());
    }

    /// A map as ITF writes it, from (key, value) pairs (keys kept in the order given).
    fn map(pairs: &[(String, i64)]) -> Value {
        json!({"#map": pairs.iter().map(|(k, v)| json!([k, {"#bigint": v.to_string()}])).collect::<Vec<_>>()})
    }

    fn set(items: &[String]) -> Value {
        json!({ "#set": items })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 512,
            rng_seed: proptest::test_runner::RngSeed::Fixed(37),
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// Maps: one change per key whose value differs or that one side lacks, in the order
        /// of the keys' text, the first entry of a repeated key counting (what the n² scan
        /// this replaced gave).
        #[test]
        fn map_differences_are_the_keys_that_differ_in_key_order(
            a in proptest::collection::vec(("[a-e]{1,2}", 0i64..3), 0..12),
            b in proptest::collection::vec(("[a-e]{1,2}", 0i64..3), 0..12),
        ) {
            let first = |m: &[(String, i64)], k: &str| m.iter().find(|(x, _)| x == k).map(|(_, v)| *v);
            let mut keys: Vec<&String> = a.iter().chain(&b).map(|(k, _)| k).collect();
            keys.sort_by_key(|k| json!(k).to_string());
            keys.dedup();
            let want: Vec<Change> = keys
                .into_iter()
                .filter(|k| first(&a, k) != first(&b, k))
                .map(|k| Change {
                    path: format!("m[{k:?}]"),
                    before: first(&a, k).map(|v| v.to_string()),
                    after: first(&b, k).map(|v| v.to_string()),
                })
                .collect();
            let got = differences("m", &map(&a), &map(&b), usize::MAX);
            if map(&a) == map(&b) {
                proptest::prop_assert!(got.is_empty());
            } else {
                proptest::prop_assert_eq!(got, want);
            }
        }

        /// Sets: the elements one side lacks, the first side's in its order, then the second's.
        #[test]
        fn set_differences_are_the_elements_one_side_lacks(
            a in proptest::collection::vec("[a-d]{1,2}", 0..10),
            b in proptest::collection::vec("[a-d]{1,2}", 0..10),
        ) {
            let quoted = |x: &String| json!(x).to_string();
            let mut want: Vec<Change> = Vec::new();
            for x in a.iter().filter(|x| !b.contains(x)) {
                want.push(Change { path: "s".into(), before: Some(quoted(x)), after: None });
            }
            for y in b.iter().filter(|y| !a.contains(y)) {
                want.push(Change { path: "s".into(), before: None, after: Some(quoted(y)) });
            }
            let got = differences("s", &set(&a), &set(&b), usize::MAX);
            if set(&a) == set(&b) {
                proptest::prop_assert!(got.is_empty());
            } else {
                proptest::prop_assert_eq!(got, want);
            }
        }
    }

    /// A map of 200,000 entries, as a hostile trace may hold (`replay` of a 4 MB file spent
    /// 29 s comparing keys pairwise): the difference is found, and named.
    #[test]
    fn a_large_map_is_compared_by_key() {
        let n = 200_000;
        let a: Vec<(String, i64)> = (0..n).map(|i| (format!("k{i:06}"), i)).collect();
        let mut b = a.clone();
        b[n as usize - 1].1 = -1;
        let d = differences("m", &map(&a), &map(&b), 10);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].path, format!("m[\"k{:06}\"]", n - 1));
        assert_eq!(d[0].after.as_deref(), Some("-1"));
    }
}
