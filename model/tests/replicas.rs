//! The parallel search's localizer (`webmcp_model::state::Replicas`) changes how a state is
//! stored, never what it is: on every reachable state of the standard scenarios, all held at
//! once (so that many states share each collection, as in a search's frontier), the
//! localized state is equal, has the same fingerprint, and every action leads from it to
//! the state (and fingerprint) it leads to from the original.

mod common;

use common::{enabled, reachable, standard_worlds};
use webmcp_checker::fingerprint::fingerprint;
use webmcp_checker::Localizer;
use webmcp_model::state::{Replicas, State};
use webmcp_model::{Variant, WebMcpModel};

/// Scenarios with more reachable states are skipped.
const MAX_STATES: usize = 120_000;

fn storage_changed(a: &State, b: &State) -> bool {
    !(a.docs.shares_storage_with(&b.docs)
        && a.navs.shares_storage_with(&b.navs)
        && a.queues.shares_storage_with(&b.queues)
        && a.threads.shares_storage_with(&b.threads)
        && a.promises.shares_storage_with(&b.promises)
        && a.controllers.shares_storage_with(&b.controllers)
        && a.pending.shares_storage_with(&b.pending)
        && a.bodies.shares_storage_with(&b.bodies)
        && a.ghost.shares_storage_with(&b.ghost))
}

#[test]
fn a_localized_state_is_the_same_state() {
    let (mut states_checked, mut localized) = (0usize, 0usize);
    for world in standard_worlds() {
        let name = world.name.clone();
        let m = WebMcpModel::new(world, Variant::SEED);
        let Some(states) = reachable(&m, MAX_STATES) else {
            continue;
        };
        let mut replicas = Replicas::default();
        for s in &states {
            let mut l = s.clone();
            replicas.localize(&mut l);
            assert_eq!(&l, s, "{name}");
            assert_eq!(fingerprint(&l), fingerprint(s), "{name}");
            localized += usize::from(storage_changed(&l, s));
            for a in enabled(&m, s) {
                let (from_l, from_s) = (m.apply(&l, a, &mut ()), m.apply(s, a, &mut ()));
                assert_eq!(from_l, from_s, "{name}: {a:?}");
                assert_eq!(fingerprint(&from_l), fingerprint(&from_s), "{name}: {a:?}");
            }
            states_checked += 1;
        }
    }
    assert!(states_checked > 200_000, "only {states_checked} states");
    // Not vacuous: widely shared collections were swapped for copies.
    assert!(localized > 10_000, "only {localized} states localized");
}
