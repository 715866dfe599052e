//! A state as readable tables (one per state variable of the ITF traces, plus the tool maps
//! pulled out of the documents), and the difference with the previous state.

use serde_json::{json, Value};
use webmcp_traces::itf::{elements, entries, render, tag_of};

/// One table: a row per map entry, list element, set element or record field.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub name: &'static str,
    pub title: &'static str,
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub key: String,
    /// One cell per column of the table (empty where the row has no such field).
    pub cells: Vec<String>,
}

fn title(var: &str) -> &'static str {
    match var {
        "docs" => "documents",
        "navs" => "navigables",
        "queues" => "webmcp task queues (oldest first)",
        "threads" => "in-parallel threads",
        "promises" => "promises",
        "controllers" => "abort controllers",
        "pending" => "pending tool executions (per traversable)",
        "bodies" => "tool bodies",
        "env" => "environment",
        "ghost" => "facts recorded for the properties",
        _ => "state",
    }
}

/// A string cell without quotes; anything else as ITF text.
fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => render(other),
    }
}

/// A record (a plain JSON object), as opposed to an ITF map, set, tuple or variant.
fn is_record(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|o| !o.keys().any(|k| k.starts_with('#')) && tag_of(v).is_none())
}

fn fields(v: &Value) -> Vec<(String, String)> {
    match v.as_object() {
        Some(o) if is_record(v) => o.iter().map(|(k, x)| (k.clone(), cell(x))).collect(),
        _ => vec![("value".to_string(), cell(v))],
    }
}

/// Builds a table from rows of (key, fields): the columns are every field in order of first
/// appearance.
fn table(
    name: &'static str,
    title: &'static str,
    rows: Vec<(String, Vec<(String, String)>)>,
) -> Table {
    let mut columns: Vec<String> = Vec::new();
    for (_, fs) in &rows {
        for (k, _) in fs {
            if !columns.contains(k) {
                columns.push(k.clone());
            }
        }
    }
    let rows = rows
        .into_iter()
        .map(|(key, fs)| Row {
            key,
            cells: columns
                .iter()
                .map(|c| {
                    fs.iter()
                        .find(|(k, _)| k == c)
                        .map(|(_, v)| v.clone())
                        .unwrap_or_default()
                })
                .collect(),
        })
        .collect();
    Table {
        name,
        title,
        columns,
        rows,
    }
}

/// The rows of one variable's value.
fn rows_of(v: &Value) -> Vec<(String, Vec<(String, String)>)> {
    if let Some(es) = entries(v) {
        let mut rows = Vec::new();
        for (k, val) in es {
            let key = cell(k);
            match val {
                Value::Array(items) if items.is_empty() => {
                    rows.push((key, vec![("value".to_string(), "(empty)".to_string())]))
                }
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        rows.push((format!("{key} #{}", i + 1), fields(item)));
                    }
                }
                _ => rows.push((key, fields(val))),
            }
        }
        return rows;
    }
    if v.get("#set").is_some() {
        return elements(v)
            .map(|es| es.iter().map(|e| (cell(e), Vec::new())).collect())
            .unwrap_or_default();
    }
    if is_record(v) {
        return v
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, x)| (k.clone(), vec![("value".to_string(), cell(x))]))
                    .collect()
            })
            .unwrap_or_default();
    }
    vec![(String::new(), vec![("value".to_string(), cell(v))])]
}

/// Every state variable as a table, the tool maps as a table of their own (one row per
/// document and tool name).
pub fn tables(vars: &[(&'static str, Value)]) -> Vec<Table> {
    let mut out = Vec::new();
    for (name, value) in vars {
        if *name == "docs" {
            let mut tools = Vec::new();
            let mut docs = value.clone();
            if let Some(pairs) = docs.get_mut("#map").and_then(Value::as_array_mut) {
                for pair in pairs {
                    let doc = pair.get(0).map(cell).unwrap_or_default();
                    let Some(rec) = pair.get_mut(1).and_then(Value::as_object_mut) else {
                        continue;
                    };
                    let Some(map) = rec.remove("tools") else {
                        continue;
                    };
                    let mut names = Vec::new();
                    for (k, def) in entries(&map).unwrap_or_default() {
                        names.push(cell(k));
                        tools.push((format!("{doc} / {}", cell(k)), fields(def)));
                    }
                    rec.insert("tools".into(), Value::String(names.join(", ")));
                }
            }
            out.push(table("docs", title("docs"), rows_of(&docs)));
            out.push(table("tools", "tool maps (document / tool name)", tools));
        } else {
            out.push(table(name, title(name), rows_of(value)));
        }
    }
    out
}

/// The tables as JSON, every row marked `same` (the initial state has no previous one).
pub fn tables_json(now: &[Table]) -> Value {
    Value::Array(
        now.iter()
            .map(|t| {
                let rows: Vec<Value> = t
                    .rows
                    .iter()
                    .map(|r| json!({"key": r.key, "cells": r.cells, "status": "same", "changed": []}))
                    .collect();
                json!({"name": t.name, "title": t.title, "columns": t.columns, "rows": rows, "changed": false})
            })
            .collect(),
    )
}

/// The tables of `now` as JSON, each row marked `same`, `added` or `changed` (with the
/// columns that changed) against `before`, and the rows `before` had and `now` lacks
/// appended as `removed`.
pub fn diff_tables(before: &[Table], now: &[Table]) -> Value {
    Value::Array(
        now.iter()
            .map(|t| {
                let old = before.iter().find(|b| b.name == t.name);
                let mut any = false;
                let mut rows: Vec<Value> = t
                    .rows
                    .iter()
                    .map(|r| {
                        let prev = old.and_then(|o| {
                            o.rows.iter().find(|p| p.key == r.key).map(|p| {
                                // Cells by column name: the columns may differ between states.
                                (p, &o.columns)
                            })
                        });
                        let (status, changed) = match prev {
                            None => ("added", Vec::new()),
                            Some((p, cols)) => {
                                let changed: Vec<usize> = t
                                    .columns
                                    .iter()
                                    .enumerate()
                                    .filter(|(i, c)| {
                                        let before = cols
                                            .iter()
                                            .position(|x| x == *c)
                                            .map(|j| p.cells[j].as_str())
                                            .unwrap_or("");
                                        before != r.cells[*i]
                                    })
                                    .map(|(i, _)| i)
                                    .collect();
                                (if changed.is_empty() { "same" } else { "changed" }, changed)
                            }
                        };
                        any |= status != "same";
                        json!({"key": r.key, "cells": r.cells, "status": status, "changed": changed})
                    })
                    .collect();
                if let Some(o) = old {
                    for p in &o.rows {
                        if !t.rows.iter().any(|r| r.key == p.key) {
                            any = true;
                            let cells: Vec<String> = t
                                .columns
                                .iter()
                                .map(|c| {
                                    o.columns
                                        .iter()
                                        .position(|x| x == c)
                                        .map(|j| p.cells[j].clone())
                                        .unwrap_or_default()
                                })
                                .collect();
                            rows.push(json!({"key": p.key, "cells": cells, "status": "removed", "changed": []}));
                        }
                    }
                }
                json!({"name": t.name, "title": t.title, "columns": t.columns, "rows": rows, "changed": any})
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use webmcp_traces::itf::{int, named_map, record, set, str};

    #[test]
    fn rows_changed_added_and_removed_are_marked() {
        let before = tables(&[
            (
                "promises",
                named_map([("a".into(), str("Pending")), ("b".into(), str("Pending"))]),
            ),
            ("ghost", set([str("X")])),
        ]);
        let now = tables(&[
            (
                "promises",
                named_map([("a".into(), str("Fulfilled")), ("c".into(), str("Pending"))]),
            ),
            ("ghost", set([str("X")])),
        ]);
        let d = diff_tables(&before, &now);
        let rows = d[0]["rows"].as_array().unwrap();
        let status: Vec<(&str, &str)> = rows
            .iter()
            .map(|r| (r["key"].as_str().unwrap(), r["status"].as_str().unwrap()))
            .collect();
        assert_eq!(status, [("a", "changed"), ("c", "added"), ("b", "removed")]);
        assert_eq!(d[0]["changed"], true);
        assert_eq!(d[1]["changed"], false);
    }

    #[test]
    fn records_become_columns_and_tool_maps_a_table_of_their_own() {
        let doc = record([
            ("lifecycle", str("FullyActive")),
            (
                "tools",
                named_map([("t1".into(), record([("description", str("d"))]))]),
            ),
            ("cleanups", int(0)),
        ]);
        let t = tables(&[("docs", named_map([("top".into(), doc)]))]);
        assert_eq!(t[0].columns, ["cleanups", "lifecycle", "tools"]);
        assert_eq!(t[0].rows[0].cells, ["0", "FullyActive", "t1"]);
        assert_eq!(t[1].name, "tools");
        assert_eq!(t[1].rows[0].key, "top / t1");
        assert_eq!(t[1].rows[0].cells, ["d"]);
    }
}
