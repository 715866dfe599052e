//! A property-based fuzzer of scenario files: valid, near-valid and large scenarios, compiled
//! and explored under a bound. Whatever the file, the checker must not panic, must reject
//! bad input with one clear line, must respect its bounds, and must never call a property
//! held when the search was not exhaustive; renaming documents, tabs, navigables, labels and
//! controllers must not change a single verdict.
//!
//! 10,000 cases with a fixed seed (the same cases on every run); `SCENARIO_FUZZ_CASES`
//! overrides the count for a longer local run.

mod common;
mod scenario_gen;

use std::time::Duration;

use proptest::prelude::*;
use scenario_gen::{near_valid, renamed, valid, Choices};
use webmcp_model::{Variant, WebMcpModel, World};
use webmcp_profiles::{check, CheckOptions, Mode, ScenarioResult, Verdict};

/// A bound small enough for thousands of cases, large enough that most small scenarios are
/// explored exhaustively.
const MAX_STATES: usize = 1_500;

fn options() -> CheckOptions {
    CheckOptions {
        mode: Mode::Bfs,
        threads: 1,
        max_states: Some(MAX_STATES),
        max_depth: None,
        timeout: Some(Duration::from_secs(30)),
        memory_limit_mib: Some(4096),
        symmetry: false,
        reduction: webmcp_profiles::Reduction::None,
        // Every random scenario's states also go through the compact frontier's codec.
        frontier: webmcp_profiles::FrontierStorage::Bytes,
        forget_facts: false,
        time_phases: false,
    }
}

/// The exit status `check` would give, and what it found.
enum Outcome {
    Rejected(String),
    Checked(ScenarioResult),
}

fn run(text: &str, variant: Variant) -> Outcome {
    match World::from_json(text) {
        Err(e) => Outcome::Rejected(e.to_string()),
        Ok(world) => Outcome::Checked(check(WebMcpModel::new(world, variant), &options())),
    }
}

/// What every outcome must satisfy.
fn judge(outcome: &Outcome) -> Result<(), TestCaseError> {
    match outcome {
        Outcome::Rejected(msg) => {
            prop_assert!(!msg.trim().is_empty(), "an empty error");
            prop_assert!(!msg.contains('\n'), "a multi-line error: {msg}");
            prop_assert!(msg.len() < 600, "an error of {} bytes", msg.len());
        }
        Outcome::Checked(r) => {
            // The bound: the search stops within one state's successors of it.
            prop_assert!(
                r.total_states <= MAX_STATES + 2_000,
                "{} states",
                r.total_states
            );
            if !r.exhaustive {
                // A search that stopped decides nothing it did not see: no "holds", no
                // "not witnessed".
                for p in &r.properties {
                    prop_assert!(
                        !matches!(p.verdict, Verdict::Holds | Verdict::NotWitnessed),
                        "{} reported {:?} after a search that was not exhaustive",
                        p.def.name,
                        p.verdict
                    );
                }
                prop_assert!(
                    r.is_incomplete() || r.properties.iter().all(|p| p.verdict != Verdict::Holds)
                );
            }
        }
    }
    Ok(())
}

fn cases() -> u32 {
    scenario_gen::cases("SCENARIO_FUZZ_CASES", 10_000)
}

#[test]
fn no_scenario_file_crashes_the_checker_or_makes_it_lie() {
    let mut runner = scenario_gen::runner(cases(), 13);
    let strategy = (prop::collection::vec(any::<u32>(), 0..300), 0u8..3);
    let stats = std::cell::Cell::new([0usize; 9]);
    runner
        .run(&strategy, |(numbers, kind)| {
            let mut c = Choices::new(&numbers);
            let scenario = valid(&mut c, 4);
            let (text, must_compile) = match kind {
                // Near-valid: one mutation away.
                0 => (near_valid(&mut c, scenario.clone()).to_string(), false),
                // Valid, as a file says it, sometimes with a byte-order mark.
                _ => (scenario.to_string(), true),
            };
            let outcome = run(&text, Variant::SEED);
            judge(&outcome)?;
            let mut s = stats.get();
            match &outcome {
                Outcome::Rejected(msg) => {
                    // A valid scenario is rejected only for a named limit.
                    prop_assert!(
                        !must_compile || msg.contains("at most"),
                        "rejected: {msg}\n{text}"
                    );
                    s[0] += 1;
                }
                Outcome::Checked(r) => {
                    s[if r.exhaustive { 1 } else { 2 }] += 1;
                    // Renaming changes no verdict (on a quarter of the cases, for time).
                    if must_compile && numbers.first().is_some_and(|n| n % 4 == 0) {
                        s[3] += 1;
                        let again = run(&renamed(&scenario).to_string(), Variant::SEED);
                        let Outcome::Checked(again) = again else {
                            return Err(TestCaseError::fail("the renamed scenario was rejected"));
                        };
                        prop_assert_eq!(r.verdicts(), again.verdicts());
                        prop_assert_eq!(r.unique_states, again.unique_states);
                    }
                    // Partial-order reduction changes no verdict of an exhaustive search
                    // (on another quarter of the cases).
                    if r.exhaustive && numbers.first().is_some_and(|n| n % 4 == 1) {
                        s[4] += 1;
                        let world = World::from_json(&text).expect("checked once already");
                        let mut por = options();
                        por.reduction = webmcp_profiles::Reduction::Por;
                        let model = WebMcpModel::new(world, Variant::SEED);
                        let reduced = check(model.clone(), &por);
                        prop_assert!(reduced.exhaustive, "the reduced search stopped\n{text}");
                        prop_assert_eq!(r.verdicts(), reduced.verdicts(), "{}", text);
                        // Every path it reports stands on the unreduced model.
                        let stands = webmcp_profiles::paths_stand(&model, &reduced);
                        prop_assert!(stands.is_ok(), "{:?}\n{}", stands, text);
                        prop_assert!(reduced.unique_states <= r.unique_states);
                        s[5] += usize::from(reduced.unique_states < r.unique_states);
                    }
                    // Forgetting dead facts changes no verdict nor any path's length (on a
                    // third quarter).
                    if r.exhaustive && numbers.first().is_some_and(|n| n % 4 == 2) {
                        s[6] += 1;
                        let world = World::from_json(&text).expect("checked once already");
                        let forgetting = CheckOptions {
                            forget_facts: true,
                            ..options()
                        };
                        let forgot = check(WebMcpModel::new(world, Variant::SEED), &forgetting);
                        prop_assert!(forgot.exhaustive, "forgetting stopped the search\n{text}");
                        let lengths = |r: &ScenarioResult| -> Vec<Option<usize>> {
                            r.properties
                                .iter()
                                .map(|p| p.path.as_ref().map(Vec::len))
                                .collect()
                        };
                        prop_assert_eq!(r.verdicts(), forgot.verdicts(), "{}", text);
                        prop_assert_eq!(lengths(r), lengths(&forgot), "{}", text);
                        prop_assert!(forgot.unique_states <= r.unique_states);
                        s[7] += usize::from(forgot.unique_states < r.unique_states);
                    }
                    // The state graph is acyclic (docs/model.md §6; on the last quarter).
                    if r.exhaustive && numbers.first().is_some_and(|n| n % 4 == 3) {
                        s[8] += 1;
                        let world = World::from_json(&text).expect("checked once already");
                        let m = WebMcpModel::new(world, Variant::SEED);
                        let (cycle, _) = common::find_model_cycle(&m);
                        prop_assert!(cycle.is_none(), "a cycle\n{}", text);
                    }
                }
            }
            stats.set(s);
            Ok(())
        })
        .unwrap();
    let [rejected, exhaustive, bounded, renamed, reduced, fewer, forgot, fewer_forgetting, acyclic] =
        stats.get();
    eprintln!(
        "scenario fuzz: {rejected} rejected, {exhaustive} explored exhaustively, {bounded} stopped by the bound, {renamed} renamed, {reduced} also checked with partial-order reduction ({fewer} in fewer states), {forgot} forgetting dead facts ({fewer_forgetting} in fewer states), {acyclic} walked for cycles"
    );
    // The fuzzer must exercise every outcome, or it tests less than it claims.
    assert!(rejected > 100 && exhaustive > 100 && bounded > 100 && renamed > 100);
    assert!(reduced > 100 && fewer > 10);
    assert!(forgot > 100 && fewer_forgetting > 10);
    assert!(acyclic > 100);
}
