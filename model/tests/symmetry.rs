//! Symmetry reduction (`webmcp_model::symmetry`): the groups found in each scenario, the
//! reduction being exact (the reduced exploration reaches exactly the equivalence classes of
//! the full one, so every verdict is unchanged), renaming commuting with the transition
//! function, and why sibling iframes are not grouped.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use std::path::PathBuf;
use webmcp_checker::fingerprint::fingerprint;

use webmcp_model::machine::Action;
use webmcp_model::state::{Ghost, State, Status, Value};
use webmcp_model::symmetry::{Perm, Rename, Symmetry};
use webmcp_model::{Variant, WebMcpModel, World};

/// The scenarios written to exercise symmetry reduction: their groups (tab names), and the
/// least reduction factor (unique states without / with reduction) to expect. Swapping two
/// members can at best halve the count: with `n` classes of which `f` are fixed by the swap,
/// `2n - f` states become `n`, a factor below 2 (Burnside's lemma, checked below).
const SYMMETRIC: &[(&str, &str, f64)] = &[
    ("identical-tabs-register", "{one, two, three}", 5.0),
    ("identical-tabs-execute", "{one, two}", 1.95),
    (
        "two-concurrent-executions",
        "{exec1, exec2} after statement 5 of top",
        1.9,
    ),
];

fn scenario_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

fn load(path: &PathBuf) -> World {
    let text = std::fs::read_to_string(path).expect("a readable scenario file");
    World::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn scenario(name: &str) -> World {
    let path = PathBuf::from(format!(
        "{}/../scenarios/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    ));
    load(&path)
}

fn actions(m: &WebMcpModel, s: &State) -> Vec<Action> {
    let mut v = Vec::new();
    m.enabled_actions(s, &mut v);
    v
}

fn successors(m: &WebMcpModel, s: &State) -> Vec<State> {
    actions(m, s)
        .into_iter()
        .map(|a| m.apply(s, a, &mut ()))
        .collect()
}

/// Breadth-first exploration in which every state reached is replaced by `canon(state)`
/// before it is stored and expanded.
fn explore(m: &WebMcpModel, canon: impl Fn(&State) -> State) -> HashSet<State> {
    let init = canon(&m.initial_state());
    let mut seen = HashSet::from([init.clone()]);
    let mut queue = VecDeque::from([init]);
    while let Some(s) = queue.pop_front() {
        for t in successors(m, &s) {
            let t = canon(&t);
            if seen.insert(t.clone()) {
                queue.push_back(t);
            }
        }
    }
    seen
}

/// Breadth-first exploration that stores `canon(state)` but expands the state actually
/// reached (as stateright's DFS does with `symmetry_fn`): the classes it reaches.
fn explore_real(m: &WebMcpModel, canon: impl Fn(&State) -> State) -> HashSet<State> {
    let init = m.initial_state();
    let mut seen = HashSet::from([canon(&init)]);
    let mut queue = VecDeque::from([init]);
    while let Some(s) = queue.pop_front() {
        for t in successors(m, &s) {
            if seen.insert(canon(&t)) {
                queue.push_back(t);
            }
        }
    }
    seen
}

/// What the properties look at, with entity ids erased: the ghost facts (kind and step), and
/// per call its kind and how its promise stands.
fn facts(w: &World, states: &HashSet<State>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in states {
        for g in s.ghost.iter() {
            out.insert(match g {
                Ghost::AssertFailed(step) => format!("assert-failed {step:?}"),
                Ghost::MissingValue(step) => format!("missing {step:?}"),
                Ghost::InvokedAfterCallerRejected(_) => "invoked-after-rejected".into(),
                Ghost::CancelTargetGone(_) => "cancel-target-gone".into(),
                Ghost::ObjectInputRefused(_) => "object-input-refused".into(),
                Ghost::GetToolsMismatch(_) => "get-tools-mismatch".into(),
                Ghost::ToolchangeMisfired(_) => "toolchange-misfired".into(),
                Ghost::ToolchangeOrder(_) => "toolchange-order".into(),
                Ghost::SettledOffItsEventLoop(_) => "settled-off-its-event-loop".into(),
                Ghost::LocalMapOffItsEventLoop(_) => "local-map-off-its-event-loop".into(),
                Ghost::RanUndiscoveredTool(_) => "ran-undiscovered-tool".into(),
                Ghost::RanForUnexposedCaller(_) => "ran-for-unexposed-caller".into(),
                Ghost::DiscoverableChangeUnnotified(_) => "discoverable-change-unnotified".into(),
                Ghost::CalledOnInactiveDocument(_) => "called-on-inactive-document".into(),
                Ghost::ToolActivated(_) => "tool-activated".into(),
                Ghost::ToolCancelled(_) => "tool-cancelled".into(),
                Ghost::ToolcancelForLiveCaller(_) => "toolcancel-for-live-caller".into(),
                Ghost::ToolcancelAfterSettlement(_) => "toolcancel-after-settlement".into(),
                Ghost::ResultBeforeToolactivated(_) => "result-before-toolactivated".into(),
            });
        }
        for (c, p) in s.promises.iter().enumerate() {
            let status = match &p.status {
                Status::NotCalled => "not-called".to_string(),
                Status::Pending => "pending".to_string(),
                Status::Fulfilled(Value::Undefined) => "fulfilled undefined".to_string(),
                Status::Fulfilled(Value::Tools(t)) => format!("fulfilled {} tools", t.len()),
                Status::Fulfilled(Value::Text(_)) => "fulfilled text".to_string(),
                Status::Rejected(r) => format!("rejected {}", r.name()),
            };
            out.insert(format!(
                "{:?} {status} attempts={} settled_at={:?}",
                w.calls[c].kind, p.attempts, p.settled_at
            ));
        }
    }
    out
}

#[derive(Debug)]
struct Counts {
    plain: usize,
    reduced: usize,
}

/// The text as written, and with every proposed fix (the fixes change the transition
/// function, so renaming must commute with each).
fn variants() -> [(&'static str, Variant); 2] {
    [
        ("seed", Variant::SEED),
        (
            "proposed",
            Variant::parse("proposed").expect("the proposed variant"),
        ),
    ]
}

/// Explores `w` under `variant` with and without reduction and checks that the reduction is
/// exact.
fn check_exact(name: &str, w: &World, sym: &Symmetry, (label, variant): (&str, Variant)) -> Counts {
    let name = &format!("{name} ({label})");
    let m = WebMcpModel::new(w.clone(), variant);
    let plain = explore(&m, State::clone);
    let reduced = explore(&m, |s| sym.representative(s));
    for s in &reduced {
        assert_eq!(
            &sym.representative(s),
            s,
            "{name}: a stored state is not its own representative"
        );
    }
    let mut classes = HashSet::new();
    for s in &plain {
        let r = sym.representative(s);
        assert_eq!(
            sym.representative(&r),
            r,
            "{name}: the representative is not idempotent"
        );
        classes.insert(r);
    }
    assert!(
        classes == reduced,
        "{name}: the reduced exploration reaches {} classes, the full one {} (of which {} are missed)",
        reduced.len(),
        classes.len(),
        classes.difference(&reduced).count()
    );
    check_class_fingerprints(name, sym, &plain);
    assert!(
        explore_real(&m, |s| sym.representative(s)) == reduced,
        "{name}: expanding the states reached, not their representatives, reaches other classes"
    );
    assert_eq!(
        facts(w, &plain),
        facts(w, &reduced),
        "{name}: the facts properties judge differ"
    );
    assert!(reduced.len() <= plain.len());
    if !sym.calls().is_trivial() {
        check_call_groups(name, &m, sym, &plain, reduced.len());
    } else if !sym.is_trivial() {
        check_equivariant(name, &m, sym, &plain);
        // The reachable states are closed under the group, and the classes are counted by
        // Burnside's lemma: the average number of states each renaming fixes.
        let mut fixed = plain.len();
        for p in sym.perms() {
            for s in &plain {
                let r = s.rename(p);
                assert!(plain.contains(&r), "{name}: a renamed state is unreachable");
                fixed += usize::from(r == *s);
            }
        }
        assert_eq!(
            fixed % sym.order(),
            0,
            "{name}: Burnside's count is not whole"
        );
        assert_eq!(
            fixed / sym.order(),
            reduced.len(),
            "{name}: Burnside's count"
        );
    }
    Counts {
        plain: plain.len(),
        reduced: reduced.len(),
    }
}

/// The engine knows a state by its class fingerprint: two reachable states have the same
/// one exactly when they have the same representative.
fn check_class_fingerprints(name: &str, sym: &Symmetry, plain: &HashSet<State>) {
    let mut by_class: HashMap<State, u64> = HashMap::new();
    let mut by_fingerprint: HashMap<u64, State> = HashMap::new();
    for s in plain {
        let (r, f) = (sym.representative(s), sym.class_fingerprint(s));
        if !sym.calls().is_trivial() {
            assert_eq!(
                f,
                sym.calls().class_fingerprint_from_scratch(s),
                "{name}: a remembered renamed digest is not the one computed"
            );
        }
        assert_eq!(
            *by_class.entry(r.clone()).or_insert(f),
            f,
            "{name}: two states of one class have different class fingerprints"
        );
        assert_eq!(
            *by_fingerprint.entry(f).or_insert(r.clone()),
            r,
            "{name}: two classes have the same class fingerprint"
        );
    }
}

/// The renamings of the call groups released at `s`, composed (the identity included).
fn released_renamings(w: &World, sym: &Symmetry, s: &State) -> Vec<Perm> {
    let mut all = vec![Perm::identity(w)];
    for g in sym.calls().groups().iter().filter(|g| g.is_released(s)) {
        let mut next = Vec::new();
        for a in &all {
            next.push(a.clone());
            next.extend(g.perms().map(|p| a.then(p)));
        }
        all = next;
    }
    all
}

/// Call groups: renaming by a released group commutes with the transition function at every
/// released reachable state, keeps the state reachable and released, and the classes number
/// what Burnside's lemma counts: the sum over states of |stabiliser| / |group|, the group
/// being that of the groups released there (the same across a class).
fn check_call_groups(
    name: &str,
    m: &WebMcpModel,
    sym: &Symmetry,
    plain: &HashSet<State>,
    reduced: usize,
) {
    let w = &m.world;
    // Per order of the released group: the states fixed, summed over its renamings.
    let mut fixed: std::collections::BTreeMap<usize, usize> = Default::default();
    let mut released = 0;
    for s in plain {
        let perms = released_renamings(w, sym, s);
        if perms.len() > 1 {
            released += 1;
        }
        let acts = actions(m, s);
        for p in &perms {
            let ps = s.rename(p);
            assert!(
                plain.contains(&ps),
                "{name}: a renamed state is unreachable"
            );
            *fixed.entry(perms.len()).or_default() += usize::from(ps == *s);
            assert_eq!(
                webmcp_model::call_symmetry::rename_calls(s, p),
                ps,
                "{name}: renaming calls alone differs from renaming"
            );
            assert_eq!(
                webmcp_model::call_symmetry::renamed_fingerprint(s, p),
                fingerprint(&ps),
                "{name}: the renamed state hashed without building it differs"
            );
            if !p.is_identity() {
                assert_commutes(name, m, s, &acts, p);
            }
        }
    }
    assert!(
        released > 0,
        "{name}: no reachable state releases a call group"
    );
    let mut classes = 0;
    for (order, f) in fixed {
        assert_eq!(f % order, 0, "{name}: Burnside's count is not whole");
        classes += f / order;
    }
    assert_eq!(classes, reduced, "{name}: Burnside's count");
}

/// Renaming commutes with the transition function on every reachable state: the actions
/// enabled in `π s` are the renamed actions of `s`, and each leads to the renamed successor.
fn check_equivariant(name: &str, m: &WebMcpModel, sym: &Symmetry, states: &HashSet<State>) {
    for s in states {
        let acts = actions(m, s);
        for p in sym.perms() {
            assert_commutes(name, m, s, &acts, p);
        }
    }
}

/// At `s`, whose enabled actions are `acts`: the actions enabled in `p s` are the renamed
/// actions, and each leads to the renamed successor.
fn assert_commutes(name: &str, m: &WebMcpModel, s: &State, acts: &[Action], p: &Perm) {
    let ps = s.rename(p);
    let mut expected: Vec<Action> = acts.iter().map(|a| a.rename(p)).collect();
    let mut got = actions(m, &ps);
    expected.sort();
    got.sort();
    assert_eq!(
        got, expected,
        "{name}: enabled actions do not commute with {p:?}"
    );
    for a in acts {
        assert_eq!(
            m.apply(&ps, a.rename(p), &mut ()),
            m.apply(s, *a, &mut ()).rename(p),
            "{name}: {a:?} does not commute with {p:?}"
        );
    }
}

#[test]
fn every_scenario_explores_the_same_classes_with_and_without_reduction() {
    let files = scenario_files();
    let reports: Vec<String> = std::thread::scope(|scope| {
        let jobs: Vec<_> = files
            .iter()
            .map(|path| scope.spawn(move || check_scenario(path)))
            .collect();
        jobs.into_iter()
            .map(|j| j.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    eprintln!("{}", reports.join("\n"));
}

/// One scenario of the test above: its groups are the expected ones, and under each variant
/// the reduction is exact. Returns the report lines.
fn check_scenario(path: &PathBuf) -> String {
    let w = load(path);
    let sym = Symmetry::of(&w);
    let expected = SYMMETRIC
        .iter()
        .find(|(n, ..)| *n == w.name)
        .map(|(_, g, _)| *g);
    match expected {
        Some(groups) => assert_eq!(sym.describe(&w), groups, "{}: groups", w.name),
        None => assert!(
            sym.is_trivial(),
            "{}: unexpected groups {}",
            w.name,
            sym.describe(&w)
        ),
    }
    let mut report = Vec::new();
    for variant in variants() {
        let c = check_exact(&w.name, &w, &sym, variant);
        report.push(format!(
            "{:40} {:8} groups: {:20} order {:3}  unique states {:6} -> {:6} (x{:.2})",
            w.name,
            variant.0,
            if sym.is_trivial() {
                "-".to_string()
            } else {
                sym.describe(&w)
            },
            sym.order(),
            c.plain,
            c.reduced,
            c.plain as f64 / c.reduced as f64
        ));
    }
    report.join("\n")
}

#[test]
fn symmetric_scenarios_reduce_as_expected() {
    for (name, _, least) in SYMMETRIC {
        let w = scenario(name);
        let sym = Symmetry::of(&w);
        assert!(!sym.is_trivial(), "{name}: no symmetry found");
        let m = WebMcpModel::new(w.clone(), Variant::SEED);
        let plain = explore(&m, State::clone).len();
        let reduced = explore(&m, |s| sym.representative(s)).len();
        eprintln!(
            "{name}: {plain} unique states, {reduced} with symmetry reduction (factor {:.2})",
            plain as f64 / reduced as f64
        );
        assert!(
            plain as f64 >= least * reduced as f64,
            "{name}: {plain} -> {reduced} is less than a {least}-fold reduction"
        );
    }
}

#[test]
fn renaming_then_renaming_back_is_the_identity() {
    for (name, ..) in SYMMETRIC {
        let w = scenario(name);
        let sym = Symmetry::of(&w);
        let m = WebMcpModel::new(w.clone(), Variant::SEED);
        let states = explore(&m, State::clone);
        for p in sym.perms() {
            let inv = p.inverse();
            assert_eq!(&inv.inverse(), p);
            assert!(!p.is_identity());
            for s in &states {
                let there = s.rename(p);
                assert_eq!(&there.rename(&inv), s, "{name}: {p:?} then its inverse");
                assert_eq!(&s.rename(&inv).rename(p), s, "{name}: inverse then {p:?}");
            }
        }
    }
}

/// Renaming really moves things: some reachable state is not fixed by a swap of tabs, and the
/// renamed state differs in the places ids live (documents, queues, promises, controllers).
#[test]
fn renaming_moves_every_kind_of_id() {
    let w = scenario("identical-tabs-execute");
    let sym = Symmetry::of(&w);
    let [p] = sym.perms() else {
        panic!("two tabs give one swap")
    };
    for (kind, table) in [
        ("doc", &p.doc),
        ("nav", &p.nav),
        ("call", &p.call),
        ("tab", &p.tab),
        ("agent", &p.agent),
    ] {
        assert!(
            table.fwd.iter().enumerate().all(|(i, &j)| i as u8 != j),
            "every {kind} of the two tabs moves"
        );
    }
    let m = WebMcpModel::new(w.clone(), Variant::SEED);
    let states = explore(&m, State::clone);
    let moved = states.iter().filter(|s| s.rename(p) != **s).count();
    let fixed = states.len() - moved;
    assert!(moved > 0 && fixed > 0, "{moved} moved, {fixed} fixed");
    // A state where tab one has settled an execution and tab two has not: the renamed state
    // has it the other way round.
    let exec1 = w.call_named("exec1").unwrap().index();
    let exec2 = w.call_named("exec2").unwrap().index();
    let s = states
        .iter()
        .find(|s| {
            matches!(s.promises[exec1].status, Status::Fulfilled(_))
                && s.promises[exec2].status == Status::NotCalled
                && !s.bodies.is_empty()
        })
        .expect("tab one can finish before tab two starts");
    let r = s.rename(p);
    assert!(matches!(r.promises[exec2].status, Status::Fulfilled(_)));
    assert_eq!(r.promises[exec1].status, Status::NotCalled);
    assert!(r.bodies.keys().all(|c| c.index() == exec2));
}

/// Three identical same-origin iframes, each registering "t1", under a top document that
/// waits for toolchange and lists its tools.
fn identical_iframes() -> World {
    let frame = |i: u8| serde_json::json!({"nav": format!("frame{i}"), "doc": format!("child{i}"), "url": "https://a.example/child"});
    let register = |i: u8| serde_json::json!([{"as": format!("reg{i}"), "registerTool": {"name": "t1", "description": "a test tool"}}]);
    let text = serde_json::json!({
        "name": "identical-iframes",
        "summary": "s",
        "description": "d",
        "tabs": [{"tab": "main", "top": {"doc": "top", "url": "https://a.example/",
            "iframes": [frame(1), frame(2)]}}],
        "scripts": {
            "child1": register(1),
            "child2": register(2),
            "top": [{"awaitToolchange": true}, {"as": "list", "getTools": {}}, {"await": "list"}]
        }
    })
    .to_string();
    World::from_json(&text).expect("the inline scenario compiles")
}

/// Identical sibling iframes are not grouped: the swap pairs them, but reverses their tree
/// order, and the transition function does not commute with it (the getTools walk visits the
/// earlier sibling first).
#[test]
fn identical_sibling_iframes_are_not_interchangeable() {
    let w = identical_iframes();
    assert!(Symmetry::of(&w).is_trivial());
    let (f1, f2) = (
        w.nav_named("frame1").unwrap(),
        w.nav_named("frame2").unwrap(),
    );
    let swap = Perm::swap_subtrees(&w, f1, f2).expect("the two iframes have the same shape");
    let why = swap.check_automorphism(&w).unwrap_err();
    assert!(why.starts_with("tree order"), "{why}");

    let m = WebMcpModel::new(w.clone(), Variant::SEED);
    let states = explore(&m, State::clone);
    let broken = states.iter().find(|s| {
        let ps = s.rename(&swap);
        actions(&m, s)
            .into_iter()
            .any(|a| m.apply(&ps, a.rename(&swap), &mut ()) != m.apply(s, a, &mut ()).rename(&swap))
    });
    let s = broken.expect("some reachable state where swapping the siblings does not commute");
    assert!(
        s.threads.keys().any(|k| matches!(
            k,
            webmcp_model::threads::ThreadKey::GetTools(_)
                | webmcp_model::threads::ThreadKey::Register(_)
        )),
        "the difference comes from a tree-order walk"
    );
    // The reachable states are not even closed under the swap: a list with both tools is
    // always in tree order.
    let list = w.call_named("list").unwrap().index();
    let c1 = w.doc_named("child1").unwrap();
    let both = states
        .iter()
        .find(|s| matches!(&s.promises[list].status, Status::Fulfilled(Value::Tools(t)) if t.len() == 2))
        .expect("the list can hold both tools");
    let Status::Fulfilled(Value::Tools(t)) = &both.promises[list].status else {
        unreachable!()
    };
    assert_eq!(
        t[0].window, c1,
        "tree order: the first sibling's tool comes first"
    );
    assert!(!states.contains(&both.rename(&swap)));
}

/// Tabs that differ in anything the model reads are not grouped.
#[test]
fn tabs_that_differ_are_not_grouped() {
    let base = std::fs::read_to_string(format!(
        "{}/../scenarios/identical-tabs-execute.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    type Edit = fn(&mut serde_json::Value);
    let variants: [(&str, Edit); 5] = [
        ("another origin", |v| {
            v["tabs"][1]["top"]["iframes"][0]["url"] = "https://c.example/".into()
        }),
        ("another allow attribute", |v| {
            v["tabs"][1]["top"]["iframes"][0]["allow"] = "tools 'none'".into()
        }),
        ("another tool name", |v| {
            v["scripts"]["top2"][0]["registerTool"]["name"] = "t2".into()
        }),
        ("a shared event loop", |v| {
            v["tabs"][0]["top"]["agent"] = "shared".into();
            v["tabs"][1]["top"]["agent"] = "shared".into();
        }),
        ("an environment naming one tab", |v| {
            v["environment"]["bfcache"] = serde_json::json!(["one"])
        }),
    ];
    for (what, edit) in variants {
        let mut v: serde_json::Value = serde_json::from_str(&base).unwrap();
        edit(&mut v);
        let w = World::from_json(&v.to_string()).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(Symmetry::of(&w).is_trivial(), "{what}: grouped anyway");
    }
    // Naming both tabs keeps them interchangeable.
    let mut v: serde_json::Value = serde_json::from_str(&base).unwrap();
    v["environment"]["bfcache"] = serde_json::json!(["two", "one"]);
    let w = World::from_json(&v.to_string()).unwrap();
    assert_eq!(Symmetry::of(&w).describe(&w), "{one, two}");
}

/// Four interchangeable tabs, each registering a tool (the tabs family at n = 4). Many states tie on the members' signatures (tabs in the same local state),
/// so the representative enumerates ties: the classes must still be exact (Burnside's count
/// included).
#[test]
fn four_interchangeable_tabs_tie_and_stay_exact() {
    let mut scripts = serde_json::Map::new();
    let mut tabs = Vec::new();
    for i in 1..=4 {
        tabs.push(serde_json::json!({"tab": format!("tab{i}"), "top": {"doc": format!("top{i}"), "url": "https://a.example/"}}));
        scripts.insert(
            format!("top{i}"),
            serde_json::json!([
                {"registerTool": {"name": "t1", "description": "a test tool"}}
            ]),
        );
    }
    let text = serde_json::json!({
        "name": "four-tabs", "summary": "four interchangeable tabs", "description": "a test",
        "tabs": tabs,
        "scripts": scripts,
        "environment": {}
    })
    .to_string();
    let w = World::from_json(&text).expect("compiles");
    let sym = Symmetry::of(&w);
    assert_eq!(sym.order(), 24);
    let counts = check_exact("four-tabs", &w, &sym, variants()[0]);
    assert!(
        counts.reduced * 10 < counts.plain,
        "{} of {}",
        counts.reduced,
        counts.plain
    );
}

/// `two-concurrent-executions` with its caller's script changed by `edit`.
fn two_executions_edited(edit: impl Fn(&mut serde_json::Value)) -> World {
    let path = PathBuf::from(format!(
        "{}/../scenarios/two-concurrent-executions.json",
        env!("CARGO_MANIFEST_DIR")
    ));
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("readable")).expect("JSON");
    edit(&mut v);
    World::from_json(&v.to_string()).expect("compiles")
}

#[test]
fn calls_are_grouped_only_when_nothing_tells_them_apart() {
    let grouped = two_executions_edited(|_| {});
    assert!(!Symmetry::of(&grouped).calls().is_trivial());
    // Each edit makes the two calls distinguishable once the script is past them.
    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit); 5] = [
        ("a later statement awaits one of them", |v| {
            v["scripts"]["top"]
                .as_array_mut()
                .unwrap()
                .push(serde_json::json!({"await": "exec1"}));
        }),
        ("their inputs differ", |v| {
            v["scripts"]["top"][4]["input"] = serde_json::json!({"n": 2});
        }),
        ("one has a signal and the other none", |v| {
            v["scripts"]["top"][3]["signal"] = serde_json::json!("c1");
        }),
        ("they share one signal", |v| {
            v["scripts"]["top"][3]["signal"] = serde_json::json!("c1");
            v["scripts"]["top"][4]["signal"] = serde_json::json!("c1");
        }),
        ("the tool has a scripted body", |v| {
            v["scripts"]["top"][0]["registerTool"]["body"] =
                serde_json::json!([{"awaitAbort": true}, {"return": "done"}]);
        }),
    ];
    for (what, edit) in edits {
        let w = two_executions_edited(edit);
        assert!(
            Symmetry::of(&w).calls().is_trivial(),
            "{what}: grouped anyway ({})",
            Symmetry::of(&w).describe(&w)
        );
    }
}

/// Swapping two calls before the script has made both reaches states no run reaches: the
/// group is released only past the last member (here the script waits between the two), and
/// the reduction stays exact.
#[test]
fn a_call_group_applied_before_its_statements_run_is_not_a_symmetry() {
    let w = two_executions_edited(|v| {
        let script = v["scripts"]["top"].as_array_mut().unwrap();
        script.insert(4, serde_json::json!({"as": "list2", "getTools": {}}));
        script.insert(5, serde_json::json!({"await": "list2"}));
    });
    assert_eq!(
        Symmetry::of(&w).describe(&w),
        "{exec1, exec2} after statement 7 of top"
    );
    let sym = Symmetry::of(&w);
    let group = &sym.calls().groups()[0];
    let swap = group.perms().next().expect("a swap").clone();
    let m = WebMcpModel::new(w.clone(), Variant::SEED);
    let plain = explore(&m, State::clone);
    let early: Vec<&State> = plain.iter().filter(|s| !group.is_released(s)).collect();
    assert!(
        early.iter().any(|s| !plain.contains(&s.rename(&swap))),
        "swapping the calls before they are both made should leave the reachable states"
    );
    for variant in variants() {
        check_exact(&w.name, &w, &sym, variant);
    }
}

/// Three interchangeable calls, each with its own AbortController: six renamings, of which
/// those that sort a state are told apart by the class fingerprint's remembered digests
/// (keyed by renaming). The reduction stays exact, Burnside's count holds, and two states
/// share a class fingerprint exactly when they share a representative.
#[test]
fn three_interchangeable_calls_with_their_own_signals_stay_exact() {
    let w = two_executions_edited(|v| {
        let script = v["scripts"]["top"].as_array_mut().unwrap();
        let mut third = script[4].clone();
        third["as"] = serde_json::json!("exec3");
        script.push(third);
        for (k, c) in [(3, "c1"), (4, "c2"), (5, "c3")] {
            script[k]["signal"] = serde_json::json!(c);
        }
        v["environment"]["toolOutcomes"] = serde_json::json!(["fulfil"]);
    });
    let sym = Symmetry::of(&w);
    assert_eq!(
        sym.describe(&w),
        "{exec1, exec2, exec3} after statement 6 of top"
    );
    let counts = check_exact("three-calls", &w, &sym, variants()[0]);
    eprintln!("three calls: {} -> {}", counts.plain, counts.reduced);
    assert!(counts.reduced * 4 < counts.plain, "{counts:?}");
}
