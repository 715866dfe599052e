//! Field-by-field differences between two ITF values, aware of maps (compared by key), sets
//! (compared by element), sum types and records. Used by replay (the first difference is the
//! divergence) and by explain (every difference is what a step changed).

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

fn walk(path: &str, a: &Value, b: &Value, out: &mut Vec<Change>, limit: usize) {
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
        let mut keys: Vec<(String, &Value)> = Vec::new();
        for (k, _) in ea.iter().chain(eb.iter()) {
            let t = k.to_string();
            if !keys.iter().any(|(x, _)| *x == t) {
                keys.push((t, k));
            }
        }
        keys.sort_by(|x, y| x.0.cmp(&y.0));
        for (t, k) in keys {
            let va = ea.iter().find(|(x, _)| x.to_string() == t).map(|(_, v)| *v);
            let vb = eb.iter().find(|(x, _)| x.to_string() == t).map(|(_, v)| *v);
            let p = format!("{path}[{}]", key_text(k));
            match (va, vb) {
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
        let (ia, ib) = (elements(a).expect("a set"), elements(b).expect("a set"));
        for x in ia {
            if !ib.contains(x) && out.len() < limit {
                push(out, path, Some(x), None);
            }
        }
        for y in ib {
            if !ia.contains(y) && out.len() < limit {
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
    let seq = |v: &Value| -> Option<Vec<Value>> {
        match v {
            Value::Array(x) => Some(x.clone()),
            Value::Object(o) if o.len() == 1 => o.get("#tup").and_then(Value::as_array).cloned(),
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
}
