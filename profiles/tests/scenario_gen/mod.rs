//! Scenario files for fuzzing: valid ones drawn from the whole statement vocabulary, near-valid
//! ones (one mutation away: a dropped field, a hostile string, a huge number, a dangling
//! reference), and large ones (hundreds of statements or controllers).
//!
//! The generator reads a list of numbers as a sequence of choices, so proptest's shrinking of
//! the list shrinks the scenario.

#![allow(dead_code)]

use serde_json::{json, Map, Value};

const ORIGINS: &[&str] = &[
    "https://a.example",
    "https://b.example",
    "https://a.example:8443",
    "http://c.example",
];
const TOOLS: &[&str] = &["t1", "t2"];
const ALLOW: &[Option<&str>] = &[
    None,
    Some("tools"),
    Some("tools *"),
    Some("tools 'none'"),
    Some(""),
];
const OUTCOMES: &[&str] = &["fulfil", "fulfil-unserializable", "reject"];

/// Strings no identifier should accept, and page strings a model must survive.
pub const HOSTILE: &[&str] = &[
    "",
    "../../x",
    "a\nb",
    "x\n::error file=y::injected",
    "nul\u{0}byte",
    "\u{feff}bom",
    "tab\tin",
    "ok-name",
    "é",
];

/// How many cases a fuzzer runs: `default`, or the number in the environment variable `var`
/// (for a longer local run).
pub fn cases(var: &str, default: u32) -> u32 {
    std::env::var(var)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// A fuzzer's runner: `cases` cases from a fixed seed (the same cases on every run), no
/// failure file written.
pub fn runner(cases: u32, seed: u64) -> proptest::test_runner::TestRunner {
    use proptest::test_runner::{Config, RngSeed, TestRunner};
    TestRunner::new(Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..Config::default()
    })
}

pub struct Choices<'a> {
    numbers: &'a [u32],
    at: usize,
}

impl<'a> Choices<'a> {
    pub fn new(numbers: &'a [u32]) -> Self {
        Choices { numbers, at: 0 }
    }
    /// A number in 0..n (0 once the choices run out, so every list is a scenario).
    pub fn pick(&mut self, n: usize) -> usize {
        let v = self.numbers.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        v as usize % n.max(1)
    }
    pub fn chance(&mut self, one_in: usize) -> bool {
        self.pick(one_in) == 0
    }
    pub fn of<'b, T>(&mut self, items: &'b [T]) -> &'b T {
        &items[self.pick(items.len())]
    }
}

struct Doc {
    name: String,
    origin: &'static str,
    /// The child navigables this document contains.
    children: Vec<String>,
}

/// A scenario that is valid by construction, within the bounded vocabulary.
pub fn valid(c: &mut Choices<'_>, max_statements: usize) -> Value {
    let mut docs: Vec<Doc> = Vec::new();
    let mut navs: Vec<String> = Vec::new();
    let mut tabs = Vec::new();
    for t in 0..1 + c.pick(2) {
        let top = document(c, &mut docs, &mut navs, 0);
        tabs.push(json!({"tab": format!("tab{t}"), "top": top}));
    }
    let mut navigations = Vec::new();
    for nav in navs.clone() {
        if c.chance(4) {
            let origin = *c.of(ORIGINS);
            navigations.push(
                json!({"nav": nav, "doc": format!("{nav}-next"), "url": format!("{origin}/next")}),
            );
        }
    }
    // Navigables not navigated yet: a navigable is navigated once (one replacement document).
    let mut navigable: Vec<String> = navigations
        .iter()
        .map(|n| n["nav"].as_str().unwrap().to_string())
        .collect();
    let mut scripts = Map::new();
    let mut controllers: Vec<String> = Vec::new();
    let large = c.chance(40);
    for d in &docs {
        let n = if large {
            100 + c.pick(200)
        } else {
            c.pick(max_statements + 1)
        };
        let mut labels: Vec<(String, &'static str)> = Vec::new();
        let mut script = Vec::new();
        for i in 0..n {
            script.push(statement(
                c,
                d,
                i,
                &docs,
                &mut navigable,
                &mut labels,
                &mut controllers,
            ));
        }
        if !script.is_empty() {
            scripts.insert(d.name.clone(), Value::Array(script));
        }
    }
    let mut environment = Map::new();
    let aborts: Vec<&String> = controllers.iter().filter(|_| c.chance(3)).collect();
    if !aborts.is_empty() {
        environment.insert("abort".into(), json!(aborts));
    }
    let children: Vec<&String> = docs
        .iter()
        .flat_map(|d| &d.children)
        .filter(|_| c.chance(3))
        .collect();
    if !children.is_empty() {
        environment.insert("removeIframe".into(), json!(children));
    }
    if !navigable.is_empty() && c.chance(2) {
        environment.insert("navigate".into(), json!([navigable[0]]));
    }
    if c.chance(4) {
        environment.insert("bfcache".into(), json!(["tab0"]));
    }
    environment.insert("observe".into(), json!(c.pick(2)));
    let mut outcomes: Vec<&str> = OUTCOMES.iter().copied().filter(|_| c.chance(2)).collect();
    if outcomes.is_empty() {
        outcomes.push("fulfil");
    }
    environment.insert("toolOutcomes".into(), json!(outcomes));
    if c.chance(2) {
        environment.insert("maxInterventions".into(), json!(c.pick(3)));
    }
    json!({
        "name": format!("fuzz-{}", c.pick(1000)),
        "summary": "generated",
        "description": "generated by the scenario fuzzer",
        "tabs": tabs,
        "navigations": navigations,
        "scripts": scripts,
        "environment": environment,
    })
}

fn document(
    c: &mut Choices<'_>,
    docs: &mut Vec<Doc>,
    navs: &mut Vec<String>,
    depth: usize,
) -> Value {
    let name = format!("d{}", docs.len());
    let origin = *c.of(ORIGINS);
    let at = docs.len();
    docs.push(Doc {
        name: name.clone(),
        origin,
        children: Vec::new(),
    });
    let mut doc = json!({"doc": name, "url": format!("{origin}/{name}")});
    if c.chance(6) {
        doc["originKeyed"] = json!(false);
    }
    let iframes = if depth < 2 {
        c.pick(if depth == 0 { 3 } else { 2 })
    } else {
        0
    };
    let mut list = Vec::new();
    for _ in 0..iframes {
        let nav = format!("n{}", navs.len());
        navs.push(nav.clone());
        docs[at].children.push(nav.clone());
        let mut child = document(c, docs, navs, depth + 1);
        child["nav"] = json!(nav);
        if let Some(allow) = c.of(ALLOW) {
            child["allow"] = json!(allow);
        }
        list.push(child);
    }
    if !list.is_empty() {
        doc["iframes"] = Value::Array(list);
    }
    doc
}

fn statement(
    c: &mut Choices<'_>,
    doc: &Doc,
    i: usize,
    docs: &[Doc],
    navigable: &mut Vec<String>,
    labels: &mut Vec<(String, &'static str)>,
    controllers: &mut Vec<String>,
) -> Value {
    let label = format!("{}-c{i}", doc.name);
    let mut controller = |c: &mut Choices<'_>| {
        let mine: Vec<&String> = controllers
            .iter()
            .filter(|n| n.starts_with(&doc.name))
            .collect();
        if !mine.is_empty() && c.chance(2) {
            mine[c.pick(mine.len())].clone()
        } else {
            let name = format!("{}-ac{}", doc.name, controllers.len());
            controllers.push(name.clone());
            name
        }
    };
    match c.pick(9) {
        0 | 1 => {
            let mut s = json!({"as": label, "registerTool": {"name": c.of(TOOLS), "description": "a tool"}});
            if c.chance(3) {
                s["exposedTo"] = json!([c.of(ORIGINS)]);
            }
            if c.chance(3) {
                s["signal"] = json!(controller(c));
            }
            labels.push((label, "register"));
            s
        }
        2 => json!({"abort": controller(c)}),
        3 => {
            let mut s = json!({"as": label, "getTools": {}});
            if c.chance(3) {
                s["getTools"] = json!({"fromOrigins": [c.of(ORIGINS)]});
            }
            labels.push((label, "getTools"));
            s
        }
        4 | 5 => {
            let lists: Vec<&String> = labels
                .iter()
                .filter(|(_, k)| *k == "getTools")
                .map(|(l, _)| l)
                .collect();
            let tool = if !lists.is_empty() && c.chance(2) {
                json!({"from": lists[c.pick(lists.len())], "name": c.of(TOOLS)})
            } else {
                let target = &docs[c.pick(docs.len())];
                json!({"name": c.of(TOOLS), "origin": target.origin, "window": target.name})
            };
            let mut s = json!({"as": label, "executeTool": tool});
            match c.pick(6) {
                0 => s["input"] = json!({"$js": "reaches-body"}),
                1 => s["input"] = json!({"$js": "undefined"}),
                2 => s["input"] = json!(7),
                3 => s["input"] = json!({"q": [1, "x"]}),
                _ => {}
            }
            if c.chance(3) {
                s["signal"] = json!(controller(c));
            }
            labels.push((label, "executeTool"));
            s
        }
        6 if !labels.is_empty() => json!({"await": labels[c.pick(labels.len())].0}),
        7 => json!({"awaitToolchange": true}),
        8 if !doc.children.is_empty() => {
            json!({"removeIframe": doc.children[c.pick(doc.children.len())]})
        }
        8 if !navigable.is_empty() => {
            let nav = navigable.remove(c.pick(navigable.len()));
            json!({"navigate": nav})
        }
        _ => json!({"awaitToolchange": true}),
    }
}

/// One mutation of a valid scenario: most give a file the checker must reject with one clear
/// line, some stay valid (a hostile page string), none may crash it.
pub fn near_valid(c: &mut Choices<'_>, mut v: Value) -> Value {
    match c.pick(8) {
        0 => {
            // A dropped field.
            if let Some(node) = random_object(c, &mut v) {
                let keys: Vec<String> = node.keys().cloned().collect();
                if !keys.is_empty() {
                    node.remove(&keys[c.pick(keys.len())]);
                }
            }
        }
        1 => {
            // A hostile string in place of any string.
            let s = *c.of(HOSTILE);
            let long = "x".repeat(if c.chance(2) { 70 } else { 100_000 });
            let s = if c.chance(4) { long.as_str() } else { s };
            replace_random(c, &mut v, &|x| x.is_string(), Value::String(s.to_string()));
        }
        2 => {
            let n = c
                .of(&[
                    json!(-1),
                    json!(256),
                    json!(1e30),
                    json!(u64::MAX),
                    json!(65536),
                ])
                .clone();
            replace_random(c, &mut v, &|x| x.is_number(), n);
        }
        3 => {
            // An unknown field.
            if let Some(node) = random_object(c, &mut v) {
                node.insert("unknownField".into(), json!(1));
            }
        }
        4 => {
            // A wrong type.
            replace_random(
                c,
                &mut v,
                &|x| x.is_string() || x.is_array(),
                json!({"x": 1}),
            );
        }
        5 => {
            // A dangling reference and a misspelt $js tag.
            let script = json!([{"await": "nowhere"}, {"as": "e", "executeTool": {"name": "t1", "origin": "https://a.example", "window": "d0"}, "input": {"$jss": "undefined"}}]);
            v["scripts"]["d0"] = script;
        }
        6 => {
            // Many controllers, across two documents, and a signal on the first.
            let mut a: Vec<Value> = (0..200)
                .map(|i| json!({"abort": format!("x{i}")}))
                .collect();
            a.insert(
                0,
                json!({"registerTool": {"name": "t1", "description": "d"}, "signal": "x0"}),
            );
            v["scripts"]["d0"] = Value::Array(a);
            let b: Vec<Value> = (200..257 + c.pick(100))
                .map(|i| json!({"abort": format!("x{i}")}))
                .collect();
            v["scripts"]["d1"] = Value::Array(b);
        }
        _ => {
            // A script longer than any counter of 8 bits.
            let n = 250 + c.pick(20);
            v["scripts"]["d0"] = Value::Array((0..n).map(|_| json!({"abort": "c"})).collect());
        }
    }
    v
}

fn random_object<'v>(c: &mut Choices<'_>, v: &'v mut Value) -> Option<&'v mut Map<String, Value>> {
    let mut paths = Vec::new();
    collect(v, &mut Vec::new(), &mut paths, &|x| x.is_object());
    if paths.is_empty() {
        return None;
    }
    let path = paths[c.pick(paths.len())].clone();
    at(v, &path).as_object_mut()
}

fn replace_random(c: &mut Choices<'_>, v: &mut Value, which: &dyn Fn(&Value) -> bool, with: Value) {
    let mut paths = Vec::new();
    collect(v, &mut Vec::new(), &mut paths, which);
    if !paths.is_empty() {
        let path = paths[c.pick(paths.len())].clone();
        *at(v, &path) = with;
    }
}

#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn collect(
    v: &Value,
    here: &mut Vec<Step>,
    out: &mut Vec<Vec<Step>>,
    which: &dyn Fn(&Value) -> bool,
) {
    if which(v) {
        out.push(here.clone());
    }
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                here.push(Step::Key(k.clone()));
                collect(x, here, out, which);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                here.push(Step::Index(i));
                collect(x, here, out, which);
                here.pop();
            }
        }
        _ => {}
    }
}

fn at<'v>(v: &'v mut Value, path: &[Step]) -> &'v mut Value {
    path.iter().fold(v, |v, s| match s {
        Step::Key(k) => &mut v[k.as_str()],
        Step::Index(i) => &mut v[*i],
    })
}

/// The same scenario with every document, navigable, tab, label and controller renamed by a
/// prefix (which keeps their order, and tool names and origins unchanged, since those are
/// observable: getTools sorts by them).
pub fn renamed(v: &Value) -> Value {
    let text = v.to_string();
    // Every identifier the generator makes starts with one of these and is quoted whole.
    let mut out = String::with_capacity(text.len() + 256);
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'"' {
            let end = i + 1 + text[i + 1..].find('"').unwrap_or(0);
            let inner = &text[i + 1..end];
            let ident = |p: &str| {
                inner.strip_prefix(p).is_some_and(|rest| {
                    rest.starts_with(|ch: char| ch.is_ascii_digit())
                        && rest
                            .chars()
                            .all(|ch| ch.is_ascii_alphanumeric() || ch == '-')
                })
            };
            if ident("d") || ident("n") || ident("tab") || ident("c") || ident("x") {
                out.push_str(&format!("\"q{inner}\""));
            } else {
                out.push_str(&text[i..=end]);
            }
            i = end + 1;
        } else {
            out.push(bytes[i] as char);
            i += 1;
        }
    }
    serde_json::from_str(&out).expect("renaming keeps the JSON valid")
}

/// A caller whose script makes two to four `executeTool` calls of an iframe's tools, most of
/// them alike (the interchangeable calls of `webmcp_model::call_symmetry`), some told apart
/// by one detail: another tool or input, a shared or missing signal, an abort or an await of
/// one of them, an environment that aborts only some signals. Each statement's choices are
/// independent, so the symmetry code must find which calls are interchangeable itself.
pub fn near_symmetric(c: &mut Choices<'_>) -> Value {
    let target_origin = *c.of(&["https://b.example", "https://a.example"]);
    let mut register = json!({"registerTool": {"name": "t1", "description": "a tool"}});
    if target_origin != "https://a.example" || c.chance(3) {
        register["exposedTo"] = json!(["https://a.example"]);
    }
    // The registration's controller is the target's; the calls' are the caller's.
    let registration_signal = c.chance(4);
    if registration_signal {
        register["signal"] = json!("r");
    }
    let mut controllers: Vec<String> = Vec::new();
    let mut target = vec![register];
    if c.chance(3) {
        target.push(json!({"registerTool": {"name": "t2", "description": "another"}, "exposedTo": ["https://a.example"]}));
    }
    let mut caller = Vec::new();
    let listed = c.chance(2);
    if listed || c.chance(2) {
        caller.push(json!({"awaitToolchange": true}));
    }
    if listed {
        caller.push(json!({"as": "list", "getTools": {"fromOrigins": [target_origin]}}));
        caller.push(json!({"await": "list"}));
    }
    let calls = 2 + c.pick(2) + usize::from(c.chance(8));
    let inputs = [
        json!({"$js": "reaches-body"}),
        json!(7),
        json!({"$js": "undefined"}),
    ];
    let input = c.pick(inputs.len());
    // How the calls take a signal: each its own, one shared, or none.
    let signals = c.pick(3);
    for i in 1..=calls {
        let name = if c.chance(10) { "t2" } else { "t1" };
        let tool = if listed && !c.chance(10) {
            json!({"from": "list", "name": name})
        } else {
            json!({"name": name, "origin": target_origin, "window": "target"})
        };
        let input = if c.chance(10) {
            c.pick(inputs.len())
        } else {
            input
        };
        let mut s = json!({"as": format!("exec{i}"), "executeTool": tool, "input": inputs[input]});
        let signal = match if c.chance(10) { c.pick(3) } else { signals } {
            0 => Some(format!("c{i}")),
            1 => Some("c".to_string()),
            _ => None,
        };
        if let Some(signal) = signal {
            if !controllers.contains(&signal) {
                controllers.push(signal.clone());
            }
            s["signal"] = json!(signal);
        }
        caller.push(s);
    }
    if c.chance(4) {
        caller.push(json!({"await": format!("exec{}", 1 + c.pick(calls))}));
    }
    if !controllers.is_empty() && c.chance(5) {
        caller.push(json!({"abort": controllers[c.pick(controllers.len())]}));
    }
    if c.chance(6) {
        caller.push(json!({"as": "again", "getTools": {}}));
    }
    let mut environment = Map::new();
    let all = c.chance(2);
    let mut aborted: Vec<&str> = controllers
        .iter()
        .map(String::as_str)
        .filter(|_| all || c.chance(2))
        .collect();
    if registration_signal && c.chance(2) {
        aborted.push("r");
    }
    if !aborted.is_empty() {
        environment.insert("abort".into(), json!(aborted));
    }
    if c.chance(2) {
        environment.insert("removeIframe".into(), json!(["frame"]));
    }
    let mut outcomes: Vec<&str> = OUTCOMES.iter().copied().filter(|_| c.chance(2)).collect();
    if outcomes.is_empty() {
        outcomes.push("fulfil");
    }
    environment.insert("toolOutcomes".into(), json!(outcomes));
    environment.insert("maxInterventions".into(), json!(c.pick(3)));
    json!({
        "name": "near-symmetric",
        "summary": "generated",
        "description": "generated by the symmetry fuzzer",
        "tabs": [{
            "tab": "main",
            "top": {
                "doc": "caller",
                "url": "https://a.example/",
                "iframes": [{
                    "nav": "frame",
                    "doc": "target",
                    "url": format!("{target_origin}/"),
                    "allow": *c.of(&["tools", "tools *"]),
                }],
            },
        }],
        "scripts": {"caller": caller, "target": target},
        "environment": environment,
    })
}
