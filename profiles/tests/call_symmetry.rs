//! Symmetry between the calls of one script (`webmcp_model::call_symmetry`), and between
//! tabs, changes no verdict and no path length: on the scenarios and families where a script
//! makes interchangeable `executeTool` calls and on the scenarios of interchangeable tabs,
//! under the draft and under every proposed fix, alone and with partial-order reduction and
//! dead facts forgotten, on one thread and on two; every path it reports replays on the model
//! as written; and it removes about as many states as the group has members' orders (close
//! to 2 for two calls, 6 for three).

use webmcp_model::symmetry::Symmetry;
use webmcp_model::{Variant, WebMcpModel, World};
use webmcp_profiles::bench::Family;
use webmcp_profiles::{check, CheckOptions, Reduction};

mod common;
use common::{options, outcomes, replay_paths, standard_worlds};

/// Checks `world` with and without symmetry under each configuration; returns the least
/// ratio of unique states without to with.
/// A configuration: the reduction, and whether dead facts are forgotten.
type Configuration = (Reduction, bool);

fn compare(world: &World, variant: Variant, configurations: &[Configuration]) -> f64 {
    let m = WebMcpModel::new(world.clone(), variant);
    let name = format!("{} under {}", world.name, variant.name());
    let mut least = f64::INFINITY;
    for &(reduction, forget_facts) in configurations {
        let base = CheckOptions {
            forget_facts,
            ..options(reduction)
        };
        let plain = check(m.clone(), &base);
        // One thread, and the parallel search, which keeps the least link into a class and
        // makes its paths runs at the end (`webmcp_checker`'s `realign`).
        for threads in [1, 2] {
            let sym = check(
                m.clone(),
                &CheckOptions {
                    symmetry: true,
                    threads,
                    ..base.clone()
                },
            );
            let how =
                format!("{name}, {reduction:?}, forget facts {forget_facts}, {threads} thread(s)");
            assert!(plain.exhaustive && sym.exhaustive, "{how}: not exhaustive");
            // Symmetry keeps shortest paths: a class is as far from the start as its nearest
            // member, and the search expands a member it reached first.
            assert_eq!(outcomes(&plain), outcomes(&sym), "{how}");
            if let Err(e) = replay_paths(&m, &sym) {
                panic!("{how}: {e}");
            }
            least = least.min(plain.unique_states as f64 / sym.unique_states as f64);
        }
    }
    least
}

#[test]
fn symmetry_keeps_every_verdict_and_path_length_on_one_thread_and_two() {
    const ALL: &[Configuration] = &[
        (Reduction::None, false),
        (Reduction::Por, false),
        (Reduction::Por, true),
    ];
    let mut worlds: Vec<(World, f64, &[Configuration])> = standard_worlds()
        .into_iter()
        .filter(|w| !Symmetry::of(w).calls().is_trivial())
        .map(|w| (w, 1.7, ALL))
        .collect();
    assert_eq!(
        worlds.len(),
        1,
        "the standard scenarios with interchangeable calls changed"
    );
    // Interchangeable tabs, on two threads too.
    for w in standard_worlds() {
        if w.name.starts_with("identical-tabs-") {
            worlds.push((w, 1.9, ALL));
        }
    }
    worlds.push((Family::CallerTarget.world(1).expect("compiles"), 1.0, ALL));
    // Five million states unreduced under the draft: both reductions only.
    let por_forget: &[Configuration] = &[(Reduction::Por, true)];
    worlds.push((
        Family::CallerTarget.world(2).expect("compiles"),
        1.9,
        por_forget,
    ));
    worlds.push((Family::Executions.world(3).expect("compiles"), 4.0, ALL));
    for (world, least, configurations) in &worlds {
        let sym = Symmetry::of(world);
        assert!(
            !sym.is_trivial() || *least <= 1.0,
            "{}: nothing interchangeable",
            world.name
        );
        for variant in [Variant::SEED, Variant::parse("proposed").expect("proposed")] {
            let ratio = compare(world, variant, configurations);
            assert!(
                ratio >= *least,
                "{} under {}: {ratio:.2}x fewer states, expected at least {least}x",
                world.name,
                variant.name()
            );
        }
    }
}

/// The catalogue's side: every property takes the same value at a released state and at
/// its renaming by the group (`docs/model.md` §7: properties quantify over all calls and
/// never name one), checked at every reachable state of the scenarios with a call group,
/// under the draft and every fix.
#[test]
fn no_property_tells_interchangeable_calls_apart() {
    use webmcp_model::symmetry::Rename;
    let props = webmcp_profiles::driver::engine_properties();
    let mut worlds: Vec<World> = standard_worlds()
        .into_iter()
        .filter(|w| !Symmetry::of(w).calls().is_trivial())
        .collect();
    worlds.push(Family::Executions.world(3).expect("compiles"));
    worlds.push(Family::CallerTarget.world(2).expect("compiles"));
    let mut compared = 0usize;
    for world in &worlds {
        let sym = Symmetry::of(world);
        for variant in [Variant::SEED, Variant::parse("proposed").expect("proposed")] {
            let m = WebMcpModel::new(world.clone(), variant)
                .with_visibility(webmcp_profiles::catalogue::VISIBILITY);
            // Caller/target at n = 2 has 5 million states under the draft: the first 200,000
            // breadth-first.
            for s in &common::first_reached(&m, 200_000).0 {
                for g in sym.calls().groups().iter().filter(|g| g.is_released(s)) {
                    let mut acts = Vec::new();
                    m.enabled_actions(s, &mut acts);
                    let terminal = acts.is_empty();
                    for p in g.perms() {
                        let ps = s.rename(p);
                        for prop in props {
                            assert_eq!(
                                prop.shows_at(&m, s, terminal),
                                prop.shows_at(&m, &ps, terminal),
                                "{} under {}: {} tells the calls apart",
                                world.name,
                                variant.name(),
                                prop.name
                            );
                            compared += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(compared > 1_000_000, "only {compared} comparisons");
}
