//! A successor built as a draft (`Model::draft`: it reads its parent's collections without
//! counting references to them) is the successor `apply` builds, and leaves its parent as it
//! was: on every reachable state of the standard scenarios (all held at once, so that many
//! states share each collection, as in a search's frontier), for every enabled action. The
//! drafts kept (`Draft::keep`) stay the same successors once every parent is dropped. Drafts
//! kept from a `Parent` (`Draft::keep_from`) take over its references: every collection's
//! count is what it would be had each kept successor counted itself in and the parent out.

mod common;

use common::{enabled, reachable, standard_worlds};
use webmcp_checker::fingerprint::fingerprint;
use webmcp_checker::{Model, Parent};
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

#[test]
fn successors_kept_from_their_parent_take_over_its_references() {
    let (mut kept_total, mut parents, mut lending) = (0usize, 0usize, 0usize);
    for world in standard_worlds() {
        let name = world.name.clone();
        let m = WebMcpModel::new(world, Variant::SEED);
        let Some(states) = reachable(&m, MAX_STATES / 4) else {
            continue;
        };
        for (i, s) in states.iter().enumerate() {
            let actions = enabled(&m, s);
            let before = s.reference_counts();
            // The parent holds a reference of its own to each of `s`'s collections.
            let parent = Parent::new(s.clone());
            let mut kept = Vec::new();
            let mut spelled = Vec::new();
            for (j, a) in actions.iter().enumerate() {
                let draft = Model::draft(&m, &parent, *a).expect("every action leads somewhere");
                // Some successors kept, in a pattern that moves with the state.
                if (i + j) % 3 != 1 {
                    spelled.push(format!("{:?}", m.apply(s, *a, &mut ())));
                    // SAFETY: `kept` outlives `parent` and every draft built from it.
                    kept.push(unsafe { draft.keep_from(&parent) });
                }
            }
            // Each collection: `s`'s references and the parent's, one per kept successor that
            // holds the same storage, less the one the first of them took over (had it
            // counted itself in, the count would be one more until the parent is dropped).
            let mut want = before.clone();
            let mut sharing = vec![0usize; want.len()];
            for child in &kept {
                assert!(!child.borrows(), "{name}: kept, yet borrowing");
                let shared = s.unchanged_parts(child);
                for (part, n) in sharing.iter_mut().enumerate() {
                    if want[part] > 0 && shared & (1 << part) != 0 {
                        *n += 1;
                    }
                }
            }
            for (count, n) in want.iter_mut().zip(&sharing) {
                if *count > 0 {
                    *count += 1 + n - usize::from(*n > 0);
                }
            }
            assert_eq!(
                s.reference_counts(),
                want,
                "{name}: state {i}, parent alive"
            );
            drop(parent);
            // The parent's own reference is gone, where no successor took it over.
            for (count, n) in want.iter_mut().zip(&sharing) {
                if *count > 0 && *n == 0 {
                    *count -= 1;
                }
            }
            assert_eq!(s.reference_counts(), want, "{name}: state {i}");
            parents += usize::from(!kept.is_empty());
            lending += usize::from(kept.iter().any(|c| s.unchanged_parts(c) != 0));
            kept_total += kept.len();
            // The kept successors are whole: nothing they read was freed with the parent.
            let churn: Vec<State> = actions.iter().map(|a| m.apply(s, *a, &mut ())).collect();
            for (child, spelled) in kept.iter().zip(&spelled) {
                assert_eq!(&format!("{child:?}"), spelled, "{name}: state {i}");
            }
            drop(kept);
            drop(churn);
            assert_eq!(
                s.reference_counts(),
                before,
                "{name}: state {i}, all dropped"
            );
        }
    }
    assert!(kept_total > 20_000, "only {kept_total} successors kept");
    // Not vacuous: most parents had storage to hand over.
    assert!(
        lending * 2 > parents,
        "only {lending} of {parents} parents lent storage"
    );
}
