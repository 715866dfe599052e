//! Building ITF values (Apalache ADR-015, as Quint emits them) as `serde_json` values.
//!
//! - integers are `{"#bigint": "<decimal>"}`;
//! - tuples `{"#tup": [..]}`, sets `{"#set": [..]}`, maps `{"#map": [[key, value], ..]}`;
//! - records are JSON objects, lists JSON arrays, strings and booleans themselves;
//! - a sum-type value (a Rust enum variant) is the record `{"tag": NAME, "value": PAYLOAD}` that
//!   Quint writes for its variants, with the empty tuple as the payload of a unit variant, and
//!   Quint's `Option` is `Some(x)` / `None`.
//!
//! Sets and maps are written in a canonical order (by the JSON text of the element or key),
//! so the same state always gives the same bytes.

use serde_json::{json, Map, Value};

pub fn int(n: impl Into<i128>) -> Value {
    json!({ "#bigint": n.into().to_string() })
}

pub fn tup(items: Vec<Value>) -> Value {
    json!({ "#tup": items })
}

/// A set: elements sorted by their JSON text, duplicates dropped.
pub fn set(items: impl IntoIterator<Item = Value>) -> Value {
    let mut keyed: Vec<(String, Value)> = items.into_iter().map(|v| (v.to_string(), v)).collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed.dedup_by(|a, b| a.0 == b.0);
    json!({ "#set": keyed.into_iter().map(|(_, v)| v).collect::<Vec<_>>() })
}

/// A map: entries sorted by the JSON text of their key.
pub fn map(entries: impl IntoIterator<Item = (Value, Value)>) -> Value {
    let mut keyed: Vec<(String, Value, Value)> = entries
        .into_iter()
        .map(|(k, v)| (k.to_string(), k, v))
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    json!({ "#map": keyed.into_iter().map(|(_, k, v)| json!([k, v])).collect::<Vec<_>>() })
}

/// A map whose keys are strings (names from the scenario).
pub fn named_map(entries: impl IntoIterator<Item = (String, Value)>) -> Value {
    map(entries.into_iter().map(|(k, v)| (Value::String(k), v)))
}

/// A record from (field, value) pairs.
pub fn record<const N: usize>(fields: [(&str, Value); N]) -> Value {
    let mut m = Map::new();
    for (k, v) in fields {
        m.insert(k.to_string(), v);
    }
    Value::Object(m)
}

/// A variant of a sum type with a payload.
pub fn variant(tag: &str, value: Value) -> Value {
    json!({ "tag": tag, "value": value })
}

/// A variant without payload (the payload is the empty tuple, as Quint writes it).
pub fn unit(tag: &str) -> Value {
    variant(tag, tup(Vec::new()))
}

pub fn str(s: impl Into<String>) -> Value {
    Value::String(s.into())
}

/// Quint's `Option`.
pub fn option(v: Option<Value>) -> Value {
    match v {
        Some(v) => variant("Some", v),
        None => unit("None"),
    }
}

/// The tag of a sum-type value, if it is one.
pub fn tag_of(v: &Value) -> Option<&str> {
    let o = v.as_object()?;
    if o.len() != 2 || !o.contains_key("value") {
        return None;
    }
    o.get("tag")?.as_str()
}

/// The payload of a sum-type value.
pub fn payload(v: &Value) -> Option<&Value> {
    tag_of(v)?;
    v.get("value")
}

/// Reads `{"#bigint": "n"}` (or a plain JSON integer, which ITF readers also accept).
pub fn as_int(v: &Value) -> Option<i128> {
    if let Some(n) = v.as_i64() {
        return Some(n as i128);
    }
    v.as_object()
        .filter(|o| o.len() == 1)?
        .get("#bigint")?
        .as_str()?
        .parse()
        .ok()
}

/// The elements of an ITF set, list or tuple.
pub fn elements(v: &Value) -> Option<&Vec<Value>> {
    match v {
        Value::Array(a) => Some(a),
        Value::Object(o) if o.len() == 1 => o
            .get("#set")
            .or_else(|| o.get("#tup"))
            .and_then(Value::as_array),
        _ => None,
    }
}

/// The entries of an ITF map.
pub fn entries(v: &Value) -> Option<Vec<(&Value, &Value)>> {
    let arr = v
        .as_object()
        .filter(|o| o.len() == 1)?
        .get("#map")?
        .as_array()?;
    arr.iter()
        .map(|pair| match pair.as_array().map(Vec::as_slice) {
            Some([k, v]) => Some((k, v)),
            _ => None,
        })
        .collect()
}

/// A short, readable rendering of an ITF value (for diffs and narratives): integers as
/// numbers, variants as `Tag(payload)`, sets as `{..}`, maps as `{k: v}`, records as
/// `{field: v}`, strings quoted.
pub fn render(v: &Value) -> String {
    let mut out = String::new();
    render_into(v, &mut out);
    out
}

fn render_into(v: &Value, out: &mut String) {
    if let Some(n) = as_int(v) {
        out.push_str(&n.to_string());
        return;
    }
    if let (Some(tag), Some(p)) = (tag_of(v), payload(v)) {
        out.push_str(tag);
        if elements(p).is_some_and(|e| e.is_empty()) && p.get("#tup").is_some() {
            return;
        }
        out.push('(');
        match p.get("#tup").and_then(Value::as_array) {
            Some(items) => join(items.iter(), out),
            None => render_into(p, out),
        }
        out.push(')');
        return;
    }
    match v {
        Value::String(s) => out.push_str(&format!("{s:?}")),
        Value::Array(items) => {
            out.push('[');
            join(items.iter(), out);
            out.push(']');
        }
        Value::Object(o) => {
            if let Some(items) = o.get("#set").and_then(Value::as_array) {
                out.push('{');
                join(items.iter(), out);
                out.push('}');
            } else if let Some(items) = o.get("#tup").and_then(Value::as_array) {
                out.push('(');
                join(items.iter(), out);
                out.push(')');
            } else if let Some(es) = entries(v) {
                out.push('{');
                for (i, (k, val)) in es.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    render_into(k, out);
                    out.push_str(": ");
                    render_into(val, out);
                }
                out.push('}');
            } else {
                out.push('{');
                for (i, (k, val)) in o.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(k);
                    out.push_str(": ");
                    render_into(val, out);
                }
                out.push('}');
            }
        }
        other => out.push_str(&other.to_string()),
    }
}

fn join<'a>(items: impl Iterator<Item = &'a Value>, out: &mut String) {
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        render_into(item, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_sets_and_maps() {
        assert_eq!(
            set([str("b"), str("a"), str("b")]),
            json!({"#set": ["a", "b"]})
        );
        assert_eq!(
            named_map([("z".into(), int(1)), ("a".into(), int(2))]),
            json!({"#map": [["a", {"#bigint": "2"}], ["z", {"#bigint": "1"}]]})
        );
        assert_eq!(render(&option(Some(str("x")))), "Some(\"x\")");
        assert_eq!(render(&unit("None")), "None");
        assert_eq!(as_int(&int(-7)), Some(-7));
    }
}
