//! Seeded samples: the same seed gives the same scenarios; each is canonical, within the
//! bound, and compiles.

use webmcp_generator::{is_canonical, sample, to_scenario, Bound};

#[test]
fn a_seed_fixes_the_sample_and_every_sampled_scenario_is_canonical_and_compiles() {
    // Beyond every preset: two tabs, nesting to depth two, two tools, two moves.
    let b =
        Bound::parse("tabs=2,docs=4,depth=2,iframes=2,stmts=3,total=6,tools=2,moves=2,outcomes=2")
            .unwrap();
    let a = sample(&b, 300, 42);
    assert_eq!(a, sample(&b, 300, 42));
    assert_ne!(a, sample(&b, 300, 43));
    assert!(a.len() > 200, "few duplicates in a big space: {}", a.len());
    for g in &a {
        assert!(is_canonical(g));
        assert!(g.documents() <= b.docs as usize && g.tabs.len() <= b.tabs as usize);
        assert!(g.statements() <= b.total as usize);
        assert!(g.env.moves.len() <= b.moves as usize);
        let sc = to_scenario(g);
        webmcp_model::World::compile(&sc).unwrap_or_else(|e| panic!("{e}"));
    }
}
