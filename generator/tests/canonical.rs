//! Canonical forms: every raw scenario maps to a canonical one that the enumeration yields,
//! the enumeration yields each class once, and renaming a generated scenario (its tabs'
//! order, and the names of its tabs, navigables, documents, origins, tools, controllers and
//! labels) does not change its canonical form.

use std::collections::{BTreeMap, HashSet};
use std::ops::ControlFlow;

use webmcp_generator::enumerate::SplitMix64;
use webmcp_generator::{
    canonical, for_each_canonical, for_each_raw, from_scenario, is_canonical, to_scenario, Bound,
    Gen,
};
use webmcp_model::scenario::{DocSpec, Scenario};

/// Two tabs, two documents, two tools, two statements per script: every kind of renaming
/// (tab order, origins, tools) has something to act on, and the space is small.
fn renaming_bound() -> Bound {
    Bound::parse("tabs=2,docs=2,stmts=2,total=2,tools=2,moves=1").unwrap()
}

/// The same with forged tools and agent clusters that are not origin-keyed, one statement per
/// script: forged tools name documents of either tab and origins of the scenario, so
/// reordering tabs and renaming origins act on statements too. With one tab, the second
/// document is an iframe that the top-level document may remove or navigate.
fn renaming_bound_with_every_key() -> Bound {
    Bound::parse("tabs=2,docs=2,stmts=1,total=2,tools=2,moves=1,forged=1,unkeyed=1").unwrap()
}

#[test]
fn every_raw_scenario_maps_to_a_canonical_one_the_enumeration_yields_once() {
    for b in [renaming_bound(), renaming_bound_with_every_key()] {
        every_raw_scenario_maps_once(b);
    }
}

fn every_raw_scenario_maps_once(b: Bound) {
    let mut set: HashSet<Gen> = HashSet::new();
    let counts = for_each_canonical(&b, |_, g| {
        assert!(set.insert(g.clone()), "a class is yielded twice: {g:?}");
        ControlFlow::Continue(())
    });
    assert_eq!(set.len() as u64, counts.canonical);
    assert!(counts.raw > counts.canonical, "{counts:?}");
    let mut raw = 0;
    for_each_raw(&b, |g| {
        raw += 1;
        let c = canonical(&g);
        assert!(is_canonical(&c), "canonical forms are fixed points: {c:?}");
        assert!(
            set.contains(&c),
            "{g:?} maps to {c:?}, which is not enumerated"
        );
        ControlFlow::Continue(())
    });
    assert_eq!(raw, counts.raw);
}

/// Renames everything a scenario names, reorders its tabs, and drops the labels nothing
/// refers to (those calls are then named `DOC#N`).
fn rename(sc: &Scenario, rng: &mut SplitMix64) -> Scenario {
    let mut sc = sc.clone();
    let fresh =
        |rng: &mut SplitMix64, prefix: &str| format!("{prefix}{}", rng.next_u64() % 1_000_000_007);
    // Tabs in another order.
    if sc.tabs.len() == 2 && rng.next_u64().is_multiple_of(2) {
        sc.tabs.swap(0, 1);
    }
    let mut docs: BTreeMap<String, String> = BTreeMap::new();
    let mut navs: BTreeMap<String, String> = BTreeMap::new();
    let mut hosts: BTreeMap<String, String> = BTreeMap::new();
    fn walk(
        d: &mut DocSpec,
        rng: &mut SplitMix64,
        docs: &mut BTreeMap<String, String>,
        navs: &mut BTreeMap<String, String>,
        hosts: &mut BTreeMap<String, String>,
    ) {
        let new = format!("doc{}", rng.next_u64() % 1_000_000_007);
        docs.insert(d.doc.clone(), new.clone());
        d.doc = new;
        let origin = d.url.rsplit_once('/').unwrap().0.to_string();
        let n = hosts.len();
        let host = hosts
            .entry(origin)
            .or_insert_with(|| format!("https://h{}x{n}.test", rng.next_u64() % 1000))
            .clone();
        d.url = format!("{host}/page{}", rng.next_u64() % 100);
        for f in &mut d.iframes {
            let new = format!("nav{}", rng.next_u64() % 1_000_000_007);
            navs.insert(f.nav.clone(), new.clone());
            f.nav = new;
            walk(&mut f.doc, rng, docs, navs, hosts);
        }
    }
    for t in &mut sc.tabs {
        let new = fresh(rng, "tab");
        navs.insert(t.tab.clone(), new.clone());
        t.tab = new;
        walk(&mut t.top, rng, &mut docs, &mut navs, &mut hosts);
    }
    let origin = |hosts: &BTreeMap<String, String>, o: &String| hosts[o].clone();
    let mut tools: BTreeMap<String, String> = BTreeMap::new();
    let mut ctrls: BTreeMap<String, String> = BTreeMap::new();
    let mut labels: BTreeMap<String, String> = BTreeMap::new();
    let mut referenced: HashSet<String> = HashSet::new();
    for ops in sc.scripts.values() {
        for op in ops {
            if let Some(l) = &op.await_call {
                referenced.insert(l.clone());
            }
            if let Some(r) = &op.execute_tool {
                referenced.extend(r.from.clone());
            }
        }
    }
    let mut scripts = BTreeMap::new();
    for (doc, ops) in &sc.scripts {
        let mut ops = ops.clone();
        for op in &mut ops {
            let mut tool = |name: &mut String, rng: &mut SplitMix64| {
                let n = tools.len();
                *name = tools
                    .entry(name.clone())
                    .or_insert_with(|| format!("tool{}_{n}", rng.next_u64() % 97))
                    .clone();
            };
            if let Some(t) = &mut op.register_tool {
                tool(&mut t.name, rng);
            }
            if let Some(r) = &mut op.execute_tool {
                tool(&mut r.name, rng);
                if let Some(l) = &mut r.from {
                    *l = labels[l.as_str()].clone();
                }
                if let Some(o) = &mut r.origin {
                    *o = origin(&hosts, o);
                }
                if let Some(w) = &mut r.window {
                    *w = docs[w.as_str()].clone();
                }
            }
            for n in [&mut op.remove_iframe, &mut op.navigate]
                .into_iter()
                .flatten()
            {
                *n = navs[n.as_str()].clone();
            }
            for c in [&mut op.signal, &mut op.abort].into_iter().flatten() {
                let n = ctrls.len();
                *c = ctrls
                    .entry(c.clone())
                    .or_insert_with(|| format!("ctl{}_{n}", rng.next_u64() % 97))
                    .clone();
            }
            for list in [&mut op.exposed_to].into_iter().flatten() {
                for o in list.iter_mut() {
                    *o = origin(&hosts, o);
                }
            }
            if let Some(g) = &mut op.get_tools {
                for o in g.from_origins.iter_mut().flatten() {
                    *o = origin(&hosts, o);
                }
            }
            if let Some(l) = &mut op.await_call {
                *l = labels[l.as_str()].clone();
            }
            if let Some(l) = op.label.take() {
                if referenced.contains(&l) || rng.next_u64().is_multiple_of(2) {
                    let n = labels.len();
                    let new = format!("lbl{}_{n}", rng.next_u64() % 97);
                    labels.insert(l, new.clone());
                    op.label = Some(new);
                }
            }
        }
        scripts.insert(docs[doc].clone(), ops);
    }
    sc.scripts = scripts;
    let env = &mut sc.environment;
    for a in &mut env.abort {
        *a = ctrls[a.as_str()].clone();
    }
    for n in env.remove_iframe.iter_mut().chain(&mut env.navigate) {
        *n = navs[n.as_str()].clone();
    }
    for t in &mut env.bfcache {
        *t = navs[t.as_str()].clone();
    }
    env.abort.reverse();
    for nv in &mut sc.navigations {
        nv.nav = navs[nv.nav.as_str()].clone();
        let origin = nv.url.rsplit_once('/').unwrap().0.to_string();
        nv.url = format!("{}/next", hosts[&origin]);
        nv.doc = fresh(rng, "next");
    }
    sc.name = "renamed".into();
    sc
}

#[test]
fn renaming_a_generated_scenario_does_not_change_its_canonical_form() {
    let mut rng = SplitMix64(7);
    renaming_keeps_the_canonical_form(&renaming_bound(), 3, &mut rng);
    renaming_keeps_the_canonical_form(&renaming_bound_with_every_key(), 29, &mut rng);
}

/// Renames every `step`-th canonical scenario of `b` twice and reads it back.
fn renaming_keeps_the_canonical_form(b: &Bound, step: u64, rng: &mut SplitMix64) {
    let mut checked = 0;
    let mut changed_order = 0;
    for_each_canonical(b, |i, g| {
        if i % step != 0 {
            return ControlFlow::Continue(());
        }
        let original = to_scenario(g);
        let text = serde_json::to_string(&original).unwrap();
        for _ in 0..2 {
            let renamed = rename(&original, rng);
            // The renamed scenario is a real scenario: it compiles.
            webmcp_model::World::compile(&renamed)
                .unwrap_or_else(|e| panic!("{e}: {}", serde_json::to_string(&renamed).unwrap()));
            let back = from_scenario(&renamed).unwrap_or_else(|e| panic!("{e}"));
            if back.tabs != g.tabs {
                changed_order += 1;
            }
            let again = serde_json::to_string(&to_scenario(&canonical(&back))).unwrap();
            assert_eq!(
                again,
                text,
                "renamed: {}",
                serde_json::to_string(&renamed).unwrap()
            );
            checked += 1;
        }
        ControlFlow::Continue(())
    });
    assert!(checked > 1000, "{b}: {checked}");
    assert!(
        changed_order > 100,
        "{b}: renamings must actually move things: {changed_order}"
    );
}

#[test]
fn every_tiny_and_small_scenario_compiles_and_reads_back() {
    for (b, at_least) in [(Bound::TINY, 1000), (Bound::SMALL, 10_000)] {
        let mut n = 0;
        for_each_canonical(&b, |_, g| {
            let sc = to_scenario(g);
            webmcp_model::World::compile(&sc)
                .unwrap_or_else(|e| panic!("{e}: {}", serde_json::to_string_pretty(&sc).unwrap()));
            assert_eq!(&canonical(&from_scenario(&sc).unwrap()), g);
            n += 1;
            ControlFlow::Continue(())
        });
        assert!(
            n >= at_least,
            "{b} covers at least {at_least} canonical scenarios: {n}"
        );
    }
}

#[test]
fn the_presets_hold_the_counts_docs_sweep_md_gives() {
    use webmcp_generator::{count, Counts};
    let expect = [
        (Bound::TINY, 6_366, 6_366),
        (Bound::SMALL, 44_433, 22_282),
        (Bound::MEDIUM, 614_345, 307_589),
    ];
    for (b, raw, canonical) in expect {
        assert_eq!(count(&b), Counts { raw, canonical }, "{b}");
    }
}
