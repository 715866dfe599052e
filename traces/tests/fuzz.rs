//! Fuzzing the trace reader: truncated, corrupted and wrong-scenario files give a one-line
//! error, never a panic; whatever still reads replays, minimises and explains without a
//! panic. 10,000 cases on small traces (a few seconds). Then tampering with whole states
//! (dropped, duplicated, swapped, cut, a value moved from another state), which keeps the
//! file well-formed: such a trace must fail to read or fail to replay, unless what is left is
//! a genuine prefix of the run. Then hostile shapes: the reader's limits.

mod common;

use std::sync::OnceLock;

use common::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use serde_json::{json, Value};
use webmcp_traces::explain::{explain, Format};
use webmcp_traces::limits::{MAX_DEPTH, MAX_STATES, MAX_STRING_BYTES, MAX_VARS};
use webmcp_traces::reader::read_trace;
use webmcp_traces::replay::{replay, Replayed};
use webmcp_traces::trace::Expect;

/// The checker's shortest counterexample to `property` in `name`.
fn shortest(name: &str, property: &str) -> Vec<webmcp_model::machine::Action> {
    let result = webmcp_profiles::check(scenario(name).2.clone(), &Default::default());
    let p = result
        .properties
        .iter()
        .find(|p| p.def.name == property)
        .unwrap();
    p.path.as_ref().unwrap().iter().map(|s| s.action).collect()
}

/// Valid traces to corrupt: short ones, so each case stays cheap (a plain run of 3 actions, a
/// run of 3 actions with an abort and parallel threads, and a 2-action counterexample).
fn bases() -> &'static [String] {
    static B: OnceLock<Vec<String>> = OnceLock::new();
    B.get_or_init(|| {
        let abort = shortest("abort-before-dispatch", "no-ghost-run");
        let bfcache = shortest("register-in-bfcache", "exists:unload-cleanup#1");
        vec![
            record(
                "not-origin-keyed",
                &walk(&scenario("not-origin-keyed").2, 1, 3),
                None,
            )
            .to_json_text(),
            record("abort-before-dispatch", &abort[..3], None).to_json_text(),
            record(
                "register-in-bfcache",
                &bfcache,
                Some(("exists:unload-cleanup#1", Expect::Violated)),
            )
            .to_json_text(),
        ]
    })
}

fn any_json(depth: u32) -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        Just(json!(1.5)),
        "[a-z#:\"\\\\]{0,6}".prop_map(Value::String),
        "-?[0-9]{0,45}x?".prop_map(|s| json!({"#bigint": s})),
        Just(json!({"#tup": []})),
        Just(json!({"tag": "None", "value": {"#tup": []}})),
        Just(
            json!({"tag": "Step", "value": {"thread": {"tag": "Cleanup", "value": {"#tup": ["top", {"#bigint": "300"}]}}}})
        ),
        Just(json!({"tag": "RunTask", "value": {"agent": "nobody"}})),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    prop_oneof![
        3 => leaf,
        1 => prop::collection::vec(any_json(depth - 1), 0..3).prop_map(Value::Array),
        1 => prop::collection::vec(any_json(depth - 1), 0..3).prop_map(|v| json!({"#set": v})),
        1 => prop::collection::vec((any_json(depth - 1), any_json(depth - 1)), 0..2)
            .prop_map(|v| json!({"#map": v.into_iter().map(|(a, b)| json!([a, b])).collect::<Vec<_>>()})),
        1 => ("[a-z#]{1,5}", any_json(depth - 1)).prop_map(|(k, v)| json!({ k: v })),
    ]
    .boxed()
}

#[derive(Debug, Clone)]
enum Mutation {
    Truncate(usize),
    SetByte(usize, u8),
    Delete(usize, usize),
    Duplicate(usize, usize),
    /// Replace the value at a random path of the JSON tree.
    Replace(Vec<usize>, Value),
    /// Remove an object key or array element at a random path.
    Remove(Vec<usize>),
    /// Put another scenario's text in #meta (`rehash`: with a matching sha256).
    OtherScenario(usize, bool),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => any::<usize>().prop_map(Mutation::Truncate),
        3 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::SetByte(i, b)),
        1 => (any::<usize>(), 0usize..40).prop_map(|(i, n)| Mutation::Delete(i, n)),
        1 => (any::<usize>(), 0usize..40).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        5 => (prop::collection::vec(any::<usize>(), 1..7), any_json(2))
            .prop_map(|(p, v)| Mutation::Replace(p, v)),
        2 => prop::collection::vec(any::<usize>(), 1..7).prop_map(Mutation::Remove),
        1 => (any::<usize>(), any::<bool>()).prop_map(|(i, r)| Mutation::OtherScenario(i, r)),
    ]
}

fn at_path<'a>(v: &'a mut Value, path: &[usize]) -> &'a mut Value {
    let mut cur = v;
    for &i in path {
        let next_is_leaf = match &*cur {
            Value::Object(o) => o.is_empty(),
            Value::Array(a) => a.is_empty(),
            _ => true,
        };
        if next_is_leaf {
            break;
        }
        cur = match cur {
            Value::Object(o) => {
                let k = o.keys().nth(i % o.len()).unwrap().clone();
                o.get_mut(&k).unwrap()
            }
            Value::Array(a) => {
                let n = a.len();
                &mut a[i % n]
            }
            _ => unreachable!(),
        };
    }
    cur
}

fn apply(text: &str, m: &Mutation) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let n = bytes.len();
    if n == 0 {
        return String::new();
    }
    match m {
        Mutation::Truncate(i) => bytes.truncate(i % n),
        Mutation::SetByte(i, b) => bytes[i % n] = *b,
        Mutation::Delete(i, k) => {
            let s = i % n;
            bytes.drain(s..(s + k).min(n));
        }
        Mutation::Duplicate(i, k) => {
            let s = i % n;
            let chunk = bytes[s..(s + k).min(n)].to_vec();
            bytes.splice(s..s, chunk);
        }
        Mutation::Replace(path, new) => {
            let Ok(mut doc) = serde_json::from_str::<Value>(text) else {
                return text.to_string();
            };
            *at_path(&mut doc, path) = new.clone();
            return doc.to_string();
        }
        Mutation::Remove(path) => {
            let Ok(mut doc) = serde_json::from_str::<Value>(text) else {
                return text.to_string();
            };
            let (last, parent) = path.split_last().unwrap();
            match at_path(&mut doc, parent) {
                Value::Object(o) if !o.is_empty() => {
                    let k = o.keys().nth(last % o.len()).unwrap().clone();
                    o.remove(&k);
                }
                Value::Array(a) if !a.is_empty() => {
                    let n = a.len();
                    a.remove(last % n);
                }
                _ => {}
            }
            return doc.to_string();
        }
        Mutation::OtherScenario(i, rehash) => {
            let Ok(mut doc) = serde_json::from_str::<Value>(text) else {
                return text.to_string();
            };
            let all = scenarios();
            let other = &all[i % all.len()].1;
            if let Some(meta) = doc.get_mut("#meta").and_then(Value::as_object_mut) {
                meta.insert("scenario-json".into(), json!(other));
                if *rehash {
                    meta.insert(
                        "scenario-sha256".into(),
                        json!(webmcp_traces::trace::sha256_hex(other)),
                    );
                }
            }
            return doc.to_string();
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

proptest! {
    #![proptest_config(Config {
        cases: 10_000,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(0xF0_22ED),
        ..Config::default()
    })]

    #[test]
    fn the_reader_never_panics_and_errors_are_one_line(
        base in prop_oneof![5 => Just(0usize), 3 => Just(1usize), 2 => Just(2usize)],
        mutations in prop::collection::vec(mutation(), 1..3),
    ) {
        let mut text = bases()[base].clone();
        for m in &mutations {
            text = apply(&text, m);
        }
        match read_trace(&text) {
            Err(e) => {
                prop_assert!(!e.0.is_empty());
                prop_assert!(!e.0.contains('\n'), "{}", e.0);
            }
            Ok(l) => {
                let _ = replay(&l);
                let _ = explain(&l, Format::Text);
            }
        }
    }
}

#[test]
fn the_bases_are_valid_traces() {
    for b in bases() {
        let l = read_trace(b).unwrap();
        assert!(matches!(
            replay(&l),
            webmcp_traces::replay::Replayed::Reproduced { .. }
        ));
    }
}

#[test]
fn specific_corruptions_have_specific_messages() {
    let b = &bases()[2];
    let e = read_trace(&b[..b.len() / 2]).err().unwrap().0;
    assert!(e.contains("invalid JSON"), "{e}");
    let other = &scenario("register-and-discover").1;
    let e = read_trace(&apply(b, &Mutation::OtherScenario(0, false)))
        .err()
        .map(|e| e.0)
        .unwrap_or_default();
    assert!(
        e.contains("does not match scenario-sha256") || e.is_empty(),
        "{e}"
    );
    let mut doc: Value = serde_json::from_str(b).unwrap();
    doc["#meta"]["scenario-json"] = json!(other);
    doc["#meta"]["scenario-sha256"] = json!(webmcp_traces::trace::sha256_hex(other));
    let e = read_trace(&doc.to_string()).err().unwrap().0;
    assert!(e.contains("wrong scenario"), "{e}");
}

/// A change to the list of states that keeps the file well-formed JSON and ITF.
#[derive(Debug, Clone)]
enum Tamper {
    Drop(usize),
    Duplicate(usize),
    Swap(usize),
    /// Keep the first `n` states (at least one).
    Cut(usize),
    /// Put the value of a variable in state `from` into state `to`.
    Move {
        to: usize,
        from: usize,
        var: usize,
    },
}

fn tamper() -> impl Strategy<Value = Tamper> {
    prop_oneof![
        (any::<usize>()).prop_map(Tamper::Drop),
        (any::<usize>()).prop_map(Tamper::Duplicate),
        (any::<usize>()).prop_map(Tamper::Swap),
        (any::<usize>()).prop_map(Tamper::Cut),
        (any::<usize>(), any::<usize>(), any::<usize>()).prop_map(|(to, from, var)| Tamper::Move {
            to,
            from,
            var
        }),
    ]
}

fn tamper_states(states: &mut Vec<Value>, t: &Tamper) {
    let n = states.len();
    match *t {
        Tamper::Drop(i) if n > 1 => {
            states.remove(i % n);
        }
        Tamper::Duplicate(i) => {
            let s = states[i % n].clone();
            states.insert(i % n, s);
        }
        Tamper::Swap(i) if n > 1 => states.swap(i % (n - 1), i % (n - 1) + 1),
        Tamper::Cut(k) => states.truncate(1 + k % n),
        Tamper::Move { to, from, var } => {
            let keys: Vec<String> = states[to % n]
                .as_object()
                .unwrap()
                .keys()
                .filter(|k| *k != "#meta")
                .cloned()
                .collect();
            let k = &keys[var % keys.len()];
            let v = states[from % n][k].clone();
            states[to % n][k] = v;
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(Config {
        cases: 2_000,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(0x7A_3BE2),
        ..Config::default()
    })]

    #[test]
    fn a_tampered_trace_replays_only_if_it_is_a_prefix_of_the_run(
        base in 0usize..3,
        tampers in prop::collection::vec(tamper(), 1..3),
        renumber in prop::bool::weighted(0.9),
    ) {
        let original: Value = serde_json::from_str(&bases()[base]).unwrap();
        let mut doc = original.clone();
        let states = doc["states"].as_array_mut().unwrap();
        for t in &tampers {
            tamper_states(states, t);
        }
        if renumber {
            for (i, s) in states.iter_mut().enumerate() {
                s["#meta"]["index"] = json!(i);
            }
        }
        let text = doc.to_string();
        match read_trace(&text) {
            Err(e) => prop_assert!(!e.0.is_empty() && !e.0.contains('\n'), "{}", e.0),
            Ok(l) => {
                if let Replayed::Reproduced { .. } = replay(&l) {
                    let kept = doc["states"].as_array().unwrap();
                    let run = original["states"].as_array().unwrap();
                    // A plain run may be cut short; a counterexample shows its violation only
                    // in its last state (base 2 is the checker's shortest), so only the whole
                    // run replays.
                    let whole = l.trace.meta.property.is_some();
                    prop_assert!(
                        kept.len() <= run.len()
                            && kept[..] == run[..kept.len()]
                            && (!whole || kept.len() == run.len()),
                        "a tampered trace replays: {:?}", tampers
                    );
                }
            }
        }
    }
}

/// The text of base trace 0 with `f` applied to its JSON.
fn edited(f: impl FnOnce(&mut Value)) -> String {
    let mut doc: Value = serde_json::from_str(&bases()[0]).unwrap();
    f(&mut doc);
    doc.to_string()
}

fn refused(text: &str) -> String {
    let e = read_trace(text).err().expect("refused").0;
    assert!(!e.contains('\n') && e.len() < 400, "{e}");
    e
}

#[test]
fn hostile_shapes_are_refused_within_the_limits() {
    // Nesting.
    let deep = edited(|d| {
        let mut v = json!(1);
        for _ in 0..MAX_DEPTH {
            v = json!([v]);
        }
        d["states"][0]["ghost"] = v;
    });
    assert!(refused(&deep).contains("nested too deeply"));
    let at_limit = edited(|d| {
        let mut v = json!({"#set": []});
        for _ in 1..MAX_DEPTH {
            v = json!({"#set": [v]});
        }
        d["states"][0]["ghost"] = v;
    });
    // Within the depth limit: reads, and the replay reports the changed value.
    let l = read_trace(&at_limit).unwrap();
    assert!(matches!(replay(&l), Replayed::Diverged(_)));
    // The action is decoded by the itf crate: only shallow values reach it.
    let deep_action = edited(|d| {
        let mut v = json!("top");
        for _ in 0..8 {
            v = json!({"tag": "Some", "value": v});
        }
        d["states"][1]["mbt::action"] = json!({"tag": "RunScript", "value": {"doc": v}});
    });
    assert!(refused(&deep_action).contains("states[1].mbt::action: nested too deeply"));
    // Too many states.
    let minimal = r##"{"#meta":{"index":0},"mbt::action":{"tag":"Init","value":{"#tup":[]}},"mbt::steps":[]}"##;
    let many = edited(|d| {
        d["vars"] = json!(["mbt::action", "mbt::steps"]);
        d["states"] = json!("STATES");
    })
    .replace(
        "\"STATES\"",
        &format!("[{}]", vec![minimal; MAX_STATES + 1].join(",")),
    );
    assert!(refused(&many).contains("more than 100000 states"));
    // Too many variables.
    let vars = edited(|d| {
        d["vars"] = Value::Array((0..=MAX_VARS).map(|i| json!(format!("v{i}"))).collect());
    });
    assert!(refused(&vars).contains("more than 64 variables"));
    // A trace that leaves a state variable out would replay having compared less than the
    // whole state; one that keeps only the `mbt::` variables, nothing of it.
    for dropped in [&["ghost"][..], webmcp_traces::encode::STATE_VARS] {
        let partial = edited(|d| {
            let keep = |v: &Value| !dropped.contains(&v.as_str().unwrap());
            d["vars"].as_array_mut().unwrap().retain(keep);
            for state in d["states"].as_array_mut().unwrap() {
                for var in dropped {
                    state.as_object_mut().unwrap().remove(*var);
                }
            }
        });
        let why = refused(&partial);
        assert!(
            why.contains(&format!("vars has no \"{}\"", dropped[0])),
            "{why}"
        );
    }
    // A state that would decode into too much memory: 200,000 one-field records (distinct,
    // as a set's elements must be).
    let heavy = edited(|d| d["states"][0]["ghost"] = json!("HEAVY")).replace(
        "\"HEAVY\"",
        &format!(
            "{{\"#set\":[{}]}}",
            (0..200_000)
                .map(|i| format!(r#"{{"a":{i}}}"#))
                .collect::<Vec<_>>()
                .join(",")
        ),
    );
    assert!(refused(&heavy).contains("more than 64 MiB once decoded"));
    // A string longer than the limit, in #meta and in a state.
    let long = format!("\"{}\"", "x".repeat(MAX_STRING_BYTES + 1));
    let meta = edited(|d| d["#meta"]["description"] = json!("LONG")).replace("\"LONG\"", &long);
    assert!(refused(&meta).contains("longer than 16 MiB"));
    let state =
        edited(|d| d["states"][0]["ghost"] = json!({"#set": ["LONG"]})).replace("\"LONG\"", &long);
    assert!(refused(&state).contains("longer than 16 MiB"));
    // Unknown keys anywhere, duplicate keys, and ITF forms this tool does not write.
    for (text, needle) in [
        (edited(|d| d["loop"] = json!(0)), "unknown field `loop`"),
        (
            edited(|d| d["#meta"]["x"] = json!("y")),
            "#meta: unknown key \"x\"",
        ),
        (
            edited(|d| d["#meta"]["tool"] = json!(["x"])),
            "#meta: \"tool\": invalid type",
        ),
        (
            edited(|d| d["states"][1]["x"] = json!(1)),
            "states[1]: has a variable \"x\" that vars does not list",
        ),
        (
            edited(|d| d["states"][1]["#meta"]["x"] = json!(1)),
            "states[1]: #meta: unknown field `x`",
        ),
        (
            edited(|d| d["states"][1]["#meta"] = json!({})),
            "states[1]: #meta: missing field `index`",
        ),
        (
            edited(|d| d["vars"].as_array_mut().unwrap().push(json!("ghost"))),
            "lists \"ghost\" twice",
        ),
        (
            bases()[0].replacen("\"ghost\":", "\"ghost\":{\"#set\":[]},\"ghost\":", 1),
            "\"ghost\" appears twice",
        ),
        (
            edited(|d| d["states"][0]["env"]["#bigint"] = json!("1")),
            "must be alone in its object",
        ),
        (
            edited(|d| d["states"][0]["ghost"] = json!({"#map": [[1, 2, 3]]})),
            "#map entries must be [key, value] pairs",
        ),
        (
            edited(|d| d["states"][0]["ghost"] = json!(18446744073709551615u64)),
            "is not an ITF integer",
        ),
        // A map with a key twice would be compared on its first entry only, and a set that
        // lists an element twice is no set: both refused, whatever form the part takes.
        (
            edited(|d| d["states"][0]["ghost"] = json!({"#map": [["k", 1], ["k", 2]]})),
            "#map has the key \"k\" twice",
        ),
        (
            edited(|d| {
                d["states"][0]["ghost"] = json!({"#map": [[7, 1], [{"#bigint": "0007"}, 1]]})
            }),
            "#map has the key {\"#bigint\":\"0007\"} twice",
        ),
        (
            edited(|d| {
                d["states"][0]["ghost"] =
                    json!({"#set": [{"#set": [1, 2]}, {"#set": [2, {"#bigint": "1"}]}]})
            }),
            "#set lists {\"#set\":[2,{\"#bigint\":\"1\"}]} twice",
        ),
        (
            edited(|d| {
                d["states"][0]["ghost"] =
                    json!({"#set": [{"a": 1, "b": [true]}, {"b": [true], "a": 1}]})
            }),
            "#set lists",
        ),
        (
            edited(|d| d["states"][0]["ghost"] = json!({"#map": [[{"#map": [[null, 1]]}, 1]]})),
            "null is not an ITF value",
        ),
    ] {
        let e = refused(&text);
        assert!(e.contains(needle), "{e} (wanted {needle})");
    }
}
