//! Dead facts forgotten (`--forget-facts`, `docs/model.md` §7 *Dead facts*) change no
//! verdict and no path's length: every standard scenario, under the seed draft, every
//! proposed fix and each fix alone, on one thread and two, with and without partial-order
//! reduction; every path replays on the model as it is. And the two promises the engine
//! relies on ([`webmcp_checker::Model::forget`]) are checked at every reachable state of
//! the standard scenarios: no transition tells a state from the same state without its dead
//! facts, and no property shows at the latter what it does not show at the former.

use webmcp_checker::Model;
use webmcp_model::state::{Ghost, State};
use webmcp_model::{Variant, WebMcpModel};
use webmcp_profiles::{check, CheckOptions, Reduction, ScenarioResult, Verdict};

mod common;
use common::{options, reachable_up_to, replay_paths, standard_worlds};

/// Every state reachable in `m` (the model as it is, every fact kept).
fn reachable(m: &WebMcpModel) -> Vec<State> {
    reachable_up_to(m, usize::MAX).expect("unbounded")
}

/// Per property: its verdict and the length of the path to where it showed.
fn outcomes(r: &ScenarioResult) -> Vec<(&'static str, Verdict, Option<usize>)> {
    r.properties
        .iter()
        .map(|p| (p.def.name, p.verdict, p.path.as_ref().map(Vec::len)))
        .collect()
}

fn forgetting(base: CheckOptions) -> CheckOptions {
    CheckOptions {
        forget_facts: true,
        ..base
    }
}

/// Returns how many runs stored fewer states, of how many, and the states stored in all of
/// them without and with forgetting.
fn compare(variants: &[Variant]) -> (usize, usize, usize, usize) {
    let (mut fewer, mut runs, mut stored, mut stored_forgetting) = (0, 0, 0, 0);
    for world in standard_worlds() {
        for &variant in variants {
            let m = WebMcpModel::new(world.clone(), variant);
            let name = format!("{} under {}", world.name, variant.name());
            let kept = check(m.clone(), &options(Reduction::None));
            let forgot = check(m.clone(), &forgetting(options(Reduction::None)));
            assert!(kept.exhaustive && forgot.exhaustive, "{name}");
            // The same verdicts, each shown as soon: breadth-first paths stay shortest.
            assert_eq!(outcomes(&kept), outcomes(&forgot), "{name}");
            assert!(forgot.unique_states <= kept.unique_states, "{name}");
            fewer += usize::from(forgot.unique_states < kept.unique_states);
            runs += 1;
            stored += kept.unique_states;
            stored_forgetting += forgot.unique_states;
            if let Err(e) = replay_paths(&m, &forgot) {
                panic!("{name}: {e}");
            }
            let two = check(
                m.clone(),
                &CheckOptions {
                    threads: 2,
                    ..forgetting(options(Reduction::None))
                },
            );
            assert_eq!(outcomes(&kept), outcomes(&two), "{name}, two threads");
            assert_eq!(
                two.unique_states, forgot.unique_states,
                "{name}, two threads"
            );
            // With partial-order reduction: the verdicts of the reduced search (its paths
            // may be longer than the shortest).
            let reduced = check(m.clone(), &options(Reduction::Por));
            let both = check(m.clone(), &forgetting(options(Reduction::Por)));
            assert!(both.exhaustive, "{name}, with the reduction");
            let verdicts = |r: &ScenarioResult| -> Vec<Verdict> {
                r.properties.iter().map(|p| p.verdict).collect()
            };
            assert_eq!(
                verdicts(&kept),
                verdicts(&both),
                "{name}, with the reduction"
            );
            assert!(both.unique_states <= reduced.unique_states, "{name}");
            if let Err(e) = replay_paths(&m, &both) {
                panic!("{name}, with the reduction: {e}");
            }
        }
    }
    (fewer, runs, stored, stored_forgetting)
}

#[test]
fn forgetting_dead_facts_changes_no_verdict_nor_path_length_of_the_draft() {
    let (fewer, runs, stored, forgetting) = compare(&[Variant::SEED]);
    // Not vacuous: where the draft as written records failures on some paths and not on
    // others, fewer states are stored (16 of the 52 scenarios, 30% fewer states in all).
    assert!(
        fewer * 4 > runs && forgetting * 10 < stored * 8,
        "fewer states in only {fewer} of {runs} runs ({stored} -> {forgetting})"
    );
}

#[test]
fn forgetting_dead_facts_changes_no_verdict_nor_path_length_of_any_fix() {
    compare(&common::every_fix());
}

#[test]
fn nothing_tells_a_state_from_the_same_state_without_its_dead_facts() {
    let props = webmcp_profiles::driver::engine_properties();
    let mut checked = 0usize;
    let mut kinds = std::collections::BTreeSet::new();
    for world in standard_worlds() {
        for variant in [Variant::SEED, Variant::proposed()] {
            let m = WebMcpModel::new(world.clone(), variant)
                .with_visibility(webmcp_profiles::catalogue::VISIBILITY);
            let name = format!("{} under {}", world.name, variant.name());
            for s in reachable(&m) {
                let Some(f) = m.forget(&s) else { continue };
                checked += 1;
                kinds.extend(
                    s.ghost
                        .iter()
                        .filter(|g| !f.ghost.contains(g))
                        .map(|g| format!("{g:?}").split('(').next().unwrap().to_owned()),
                );
                assert!(m.forget(&f).is_none(), "{name}: forgotten twice");
                assert!(f.ghost.len() < s.ghost.len(), "{name}: nothing forgotten");
                // The model's promise: the same actions, each leading from `s` where it
                // leads from `f`, with the facts `f` lacks (nothing records or reads
                // differently for them).
                let dead: Vec<Ghost> = s
                    .ghost
                    .iter()
                    .filter(|g| !f.ghost.contains(g))
                    .copied()
                    .collect();
                let (mut here, mut there) = (Vec::new(), Vec::new());
                m.enabled_actions(&s, &mut here);
                m.enabled_actions(&f, &mut there);
                assert_eq!(here, there, "{name}: {s:?}");
                for &a in &here {
                    let mut from_f = m.apply(&f, a, &mut ());
                    for &g in &dead {
                        from_f.record(g);
                    }
                    assert_eq!(
                        m.apply(&s, a, &mut ()),
                        from_f,
                        "{name}: {a:?} tells them apart at {s:?}"
                    );
                }
                // The catalogue's claim: nothing shows without the facts that does not show
                // with them; what shows only with them shows with one of them alone (read
                // as present, so it showed where that fact was recorded); and nothing at
                // termination reads them.
                let terminal = here.is_empty();
                for p in props {
                    let (with, without) =
                        (p.shows_at(&m, &s, terminal), p.shows_at(&m, &f, terminal));
                    assert!(
                        !without || with,
                        "{name}: {} shows only without the facts at {s:?}",
                        p.name
                    );
                    if with && !without {
                        let alone = dead.iter().any(|&g| {
                            let mut one = f.clone();
                            one.record(g);
                            p.shows_at(&m, &one, terminal)
                        });
                        assert!(alone, "{name}: {} needs two facts at {s:?}", p.name);
                    }
                    if p.expectation == webmcp_checker::Expectation::AtTermination {
                        assert_eq!(
                            (p.condition)(&m, &s),
                            (p.condition)(&m, &f),
                            "{name}: {} reads a dead fact",
                            p.name
                        );
                    }
                }
            }
        }
    }
    // Not vacuous: the standard scenarios reach many states with dead facts, of most kinds.
    assert!(checked > 100_000, "only {checked} states with dead facts");
    assert!(kinds.len() >= 6, "dead facts of only {kinds:?}");
}

/// Every fact of every kind a scenario can name: each step's Assert and missing value, each
/// call's and each document's facts. The match is exhaustive, so a new kind is added here.
fn every_fact(w: &webmcp_model::World) -> Vec<Ghost> {
    use webmcp_model::steps::StepId;
    use webmcp_model::world::{CallId, DocId};
    let mut facts = Vec::new();
    let kinds = |g: &Ghost| match g {
        Ghost::AssertFailed(_)
        | Ghost::MissingValue(_)
        | Ghost::InvokedAfterCallerRejected(_)
        | Ghost::ObjectInputRefused(_)
        | Ghost::CancelTargetGone(_)
        | Ghost::GetToolsMismatch(_)
        | Ghost::ToolchangeMisfired(_)
        | Ghost::ToolchangeOrder(_)
        | Ghost::SettledOffItsEventLoop(_)
        | Ghost::LocalMapOffItsEventLoop(_)
        | Ghost::RanUndiscoveredTool(_)
        | Ghost::RanForUnexposedCaller(_)
        | Ghost::DiscoverableChangeUnnotified(_)
        | Ghost::CalledOnInactiveDocument(_)
        | Ghost::ToolActivated(_)
        | Ghost::ToolCancelled(_)
        | Ghost::ToolcancelForLiveCaller(_)
        | Ghost::ToolcancelAfterSettlement(_)
        | Ghost::ResultBeforeToolactivated(_) => (),
    };
    for i in 0..webmcp_model::steps::STEPS.len() {
        let step = StepId(i as u16);
        facts.extend([Ghost::AssertFailed(step), Ghost::MissingValue(step)]);
    }
    for c in 0..w.calls.len() {
        let c = CallId::nth(c);
        facts.extend([
            Ghost::InvokedAfterCallerRejected(c),
            Ghost::ObjectInputRefused(c),
            Ghost::CancelTargetGone(c),
            Ghost::GetToolsMismatch(c),
            Ghost::ToolchangeOrder(c),
            Ghost::SettledOffItsEventLoop(c),
            Ghost::RanUndiscoveredTool(c),
            Ghost::RanForUnexposedCaller(c),
            Ghost::CalledOnInactiveDocument(c),
            Ghost::ToolActivated(c),
            Ghost::ToolCancelled(c),
            Ghost::ToolcancelForLiveCaller(c),
            Ghost::ToolcancelAfterSettlement(c),
            Ghost::ResultBeforeToolactivated(c),
        ]);
    }
    for d in 0..w.docs.len() {
        let d = DocId::nth(d);
        facts.extend([
            Ghost::ToolchangeMisfired(d),
            Ghost::LocalMapOffItsEventLoop(d),
            Ghost::DiscoverableChangeUnnotified(d),
        ]);
    }
    facts.iter().for_each(kinds);
    facts
}

/// The catalogue reads each dead fact as present, whether or not a scenario records it:
/// on a sample of states of every standard scenario (without their dead facts), adding any
/// one dead fact never takes an outcome away; a property whose outcome one changes reads
/// nothing but the facts and shows at every sampled state with that fact alone; and no
/// at-termination property reads one. So a fact shows a property wherever it is, in
/// particular where it was recorded (`docs/model.md` §7, *Dead facts*, claim (C)).
#[test]
fn every_dead_fact_is_read_only_as_present() {
    let props = webmcp_profiles::driver::engine_properties();
    let mut read = std::collections::BTreeSet::new();
    for world in standard_worlds() {
        let m = WebMcpModel::new(world.clone(), Variant::SEED)
            .with_visibility(webmcp_profiles::catalogue::VISIBILITY);
        let all = reachable(&m);
        let samples: Vec<State> = all
            .iter()
            .step_by((all.len() / 40).max(1))
            .map(|s| m.forget(s).unwrap_or_else(|| s.clone()))
            .collect();
        let terminal: Vec<bool> = samples
            .iter()
            .map(|s| {
                let mut a = Vec::new();
                m.enabled_actions(s, &mut a);
                a.is_empty()
            })
            .collect();
        for g in every_fact(&world) {
            if !m.fact_is_dead_once_judged(&g) {
                continue;
            }
            let with: Vec<State> = samples
                .iter()
                .map(|s| {
                    let mut t = s.clone();
                    t.record(g);
                    t
                })
                .collect();
            for p in props {
                if p.expectation == webmcp_checker::Expectation::AtTermination {
                    for (s, t) in samples.iter().zip(&with) {
                        assert_eq!(
                            (p.condition)(&m, s),
                            (p.condition)(&m, t),
                            "{}: {g:?}",
                            p.name
                        );
                    }
                    continue;
                }
                let before: Vec<bool> = samples
                    .iter()
                    .zip(&terminal)
                    .map(|(s, &t)| p.shows_at(&m, s, t))
                    .collect();
                let after: Vec<bool> = with
                    .iter()
                    .zip(&terminal)
                    .map(|(s, &t)| p.shows_at(&m, s, t))
                    .collect();
                let name = format!("{} in {}: {g:?}", p.name, world.name);
                assert!(
                    before.iter().zip(&after).all(|(b, a)| !b || *a),
                    "{name}: taken away"
                );
                if before != after {
                    read.insert(p.name);
                    assert!(
                        after.iter().all(|&a| a),
                        "{name}: not shown by the fact alone"
                    );
                    assert_eq!(
                        p.reads,
                        webmcp_checker::Reads::Parts(webmcp_model::state::parts::GHOST),
                        "{name}: reads more than the facts"
                    );
                }
            }
        }
    }
    // Not vacuous: the Asserts, the missing values and the Notes over facts.
    assert!(read.len() > 20, "only {read:?}");
}
