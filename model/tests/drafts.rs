//! A successor built as a draft (`Model::draft`: it reads its parent's collections without
//! counting references to them) is the successor `apply` builds, and leaves its parent as it
//! was: on every reachable state of the standard scenarios (all held at once, so that many
//! states share each collection, as in a search's frontier), for every enabled action. The
//! drafts kept (`Draft::keep`) stay the same successors once every parent is dropped.

mod common;

use common::{enabled, reachable, standard_worlds};
use webmcp_checker::fingerprint::fingerprint;
use webmcp_checker::Model;
use webmcp_model::state::State;
use webmcp_model::{Variant, WebMcpModel};

/// Scenarios with more reachable states are skipped.
const MAX_STATES: usize = 60_000;
/// One successor in this many is kept; one kept in this many is also compared in full.
const KEEP_EVERY: usize = 5;
const SPELL_EVERY: usize = 40;

#[test]
fn a_draft_is_the_successor_and_leaves_its_parent_as_it_was() {
    let (mut successors, mut leaning) = (0usize, 0usize);
    let mut kept: Vec<(State, u64, Option<String>)> = Vec::new();
    for world in standard_worlds() {
        let name = world.name.clone();
        let m = WebMcpModel::new(world, Variant::SEED);
        let Some(states) = reachable(&m, MAX_STATES) else {
            continue;
        };
        for s in &states {
            let parent = fingerprint(s);
            for a in enabled(&m, s) {
                let built = m.apply(s, a, &mut ());
                let draft = Model::draft(&m, s, a).expect("every action leads somewhere");
                assert_eq!(*draft, built, "{name}: {a:?}");
                assert_eq!(fingerprint(&*draft), fingerprint(&built), "{name}: {a:?}");
                let shared = s.unchanged_parts(&draft);
                // A fact recorded again, a pending execution stored as it was or removed
                // where it is not: nothing changes, so nothing is copied.
                assert!(
                    draft.ghost.shares_storage_with(&s.ghost) || draft.ghost != s.ghost,
                    "{name}: {a:?} copied the ghost set and left it equal"
                );
                assert!(
                    draft.pending.shares_storage_with(&s.pending) || draft.pending != s.pending,
                    "{name}: {a:?} copied the pending maps and left them equal"
                );
                assert_eq!(draft.borrows(), shared != 0, "{name}: {a:?}");
                leaning += usize::from(shared != 0);
                successors += 1;
                if successors.is_multiple_of(KEEP_EVERY) {
                    let state = draft.keep();
                    assert!(!state.borrows(), "{name}: {a:?}: kept, yet borrowing");
                    assert_eq!(s.unchanged_parts(&state), shared, "keeping copies nothing");
                    let spelled = successors
                        .is_multiple_of(KEEP_EVERY * SPELL_EVERY)
                        .then(|| format!("{built:?}"));
                    kept.push((state, fingerprint(&built), spelled));
                }
            }
            // Changing a collection clears its cached digest, so a parent changed through a
            // draft would hash differently now.
            assert_eq!(fingerprint(s), parent, "{name}: the parent changed");
        }
        drop(states);
    }
    for (state, fp, spelled) in &kept {
        assert_eq!(fingerprint(state), *fp);
        if let Some(spelled) = spelled {
            assert_eq!(&format!("{state:?}"), spelled);
        }
    }
    assert!(successors > 200_000, "only {successors} successors");
    // Not vacuous: drafts did read their parents' storage.
    assert!(
        leaning * 2 > successors,
        "only {leaning} drafts leaned on their parent"
    );
}
