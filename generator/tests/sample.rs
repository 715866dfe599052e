//! Seeded samples: the same seed gives the same scenarios; each is canonical, within the
//! bound, and compiles.

use std::collections::BTreeSet;

use webmcp_generator::space::Stmt;
use webmcp_generator::{is_canonical, sample, to_scenario, Bound, Sampling};

fn kind(s: &Stmt) -> &'static str {
    match s {
        Stmt::Register { .. } => "registerTool",
        Stmt::GetTools { .. } => "getTools",
        Stmt::Execute { .. } => "executeTool",
        Stmt::Forged { .. } => "forged executeTool",
        Stmt::Await(_) => "await",
        Stmt::AwaitToolchange => "awaitToolchange",
        Stmt::Abort(_) => "abort",
        Stmt::RemoveIframe(_) => "removeIframe",
        Stmt::Navigate(_) => "navigate",
    }
}

#[test]
fn a_seed_fixes_the_sample_and_every_sampled_scenario_is_canonical_and_compiles() {
    // Beyond every preset: two tabs, nesting to depth two, two tools, two moves, forged
    // tools and agent clusters that are not origin-keyed.
    let b = Bound::parse(
        "tabs=2,docs=4,depth=2,iframes=2,stmts=3,total=6,tools=2,moves=2,outcomes=2,forged=1,unkeyed=1",
    )
    .unwrap();
    for how in [Sampling::Uniform, Sampling::Swarm] {
        let a = sample(&b, 300, 42, how);
        assert_eq!(a, sample(&b, 300, 42, how));
        assert_ne!(a, sample(&b, 300, 43, how));
    }
    let a = sample(&b, 300, 42, Sampling::Swarm);
    assert!(a.len() > 200, "few duplicates in a big space: {}", a.len());
    // Every statement kind of the scenario format is drawn (executeTool from a list needs
    // three statements before it, so it takes more draws).
    let mut kinds = BTreeSet::new();
    for g in &sample(&b, 3000, 1, Sampling::Swarm) {
        for d in g.tabs.iter().flat_map(|t| &t.docs) {
            kinds.extend(d.script.iter().map(|s| kind(s)));
        }
    }
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        [
            "abort",
            "await",
            "awaitToolchange",
            "executeTool",
            "forged executeTool",
            "getTools",
            "navigate",
            "registerTool",
            "removeIframe"
        ]
    );
    assert!(a
        .iter()
        .any(|g| g.tabs.iter().flat_map(|t| &t.docs).any(|d| d.unkeyed)));
    for g in &a {
        assert!(is_canonical(g));
        assert!(g.documents() <= b.docs as usize && g.tabs.len() <= b.tabs as usize);
        assert!(g.statements() <= b.total as usize);
        assert!(g.env.moves.len() <= b.moves as usize);
        let sc = to_scenario(g);
        webmcp_model::World::compile(&sc).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Swarm draws combine fewer kinds per scenario than uniform draws (each draw keeps about
/// half the kinds), and draw scenarios without any environment move more often: that is the
/// diversity swarm sampling is for. Both still draw every statement kind.
#[test]
fn swarm_draws_vary_which_kinds_a_scenario_combines() {
    let b = Bound::parse("docs=2,stmts=4,total=6,moves=2,forged=1").unwrap();
    let stats = |how| {
        let gens = sample(&b, 2000, 7, how);
        let mut kinds_per_scenario = 0usize;
        let mut without_moves = 0usize;
        let mut all_kinds = BTreeSet::new();
        for g in &gens {
            let kinds: BTreeSet<usize> = g
                .tabs
                .iter()
                .flat_map(|t| &t.docs)
                .flat_map(|d| d.script.iter().map(|s| s.kind()))
                .collect();
            kinds_per_scenario += kinds.len();
            all_kinds.extend(kinds);
            without_moves += usize::from(g.env.moves.is_empty());
        }
        (
            kinds_per_scenario as f64 / gens.len() as f64,
            without_moves as f64 / gens.len() as f64,
            all_kinds.len(),
        )
    };
    let (uniform_kinds, uniform_still, uniform_all) = stats(Sampling::Uniform);
    let (swarm_kinds, swarm_still, swarm_all) = stats(Sampling::Swarm);
    assert!(
        swarm_kinds < uniform_kinds,
        "{swarm_kinds} vs {uniform_kinds}"
    );
    assert!(
        swarm_still > uniform_still,
        "{swarm_still} vs {uniform_still}"
    );
    assert_eq!((uniform_all, swarm_all), (Stmt::KINDS, Stmt::KINDS));
}
