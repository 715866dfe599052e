//! Mutation operators: the mutants come from the step table, a planted bug changes the
//! model where it says, and equivalence is decided by comparing transitions.

use webmcp_model::mutation::{candidates, Mutant, Operator};
use webmcp_model::steps::{StepKind, STEPS};
use webmcp_model::{Variant, WebMcpModel, World};
use webmcp_profiles::mutants::{same_transitions, Baseline, Fate};

fn model(name: &str) -> WebMcpModel {
    let path = format!("{}/../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("scenario file");
    WebMcpModel::new(
        World::from_json(&text).expect("valid scenario"),
        Variant::proposed(),
    )
}

fn mutant(name: &str) -> Mutant {
    Mutant::parse(name).unwrap_or_else(|| panic!("{name} is a candidate"))
}

#[test]
fn candidates_come_from_step_rows_and_their_names_parse_back() {
    let all = candidates();
    assert!(
        all.len() > STEPS.len(),
        "every Step row gives several mutants"
    );
    for m in &all {
        assert_eq!(m.step.info().kind, StepKind::Step, "{}", m.name());
        assert_eq!(Mutant::parse(&m.name()), Some(*m));
        match m.op {
            Operator::SwapAdjacent => {
                let b = m.next.expect("a swap names the next sibling");
                assert!(
                    b > m.step && b.algorithm() == m.step.algorithm(),
                    "{}",
                    m.name()
                );
            }
            _ => assert_eq!(m.next, None),
        }
        if matches!(
            m.op,
            Operator::NegateCondition | Operator::DropExistenceCheck
        ) {
            let text = m.step.info().summary;
            assert!(
                text.starts_with("If ") || text.starts_with("Otherwise, if "),
                "{text}"
            );
        }
    }
    assert!(all.contains(&mutant("swap-adjacent@execute-tool#16.12,#16.13")));
    assert_eq!(Mutant::parse("drop-step@no-such-step#1"), None);
    assert_eq!(
        Mutant::parse("negate-condition@execute-tool#16.12"),
        None,
        "not an If step"
    );
}

#[test]
fn a_planted_bug_changes_the_transitions_it_targets_and_nothing_else() {
    let m = model("register-and-discover");
    // Dropping the write of the tool map is visible; swapping two writes of one atomic
    // transition is not.
    assert!(!same_transitions(&m, mutant("drop-step@register-tool#19")));
    assert!(same_transitions(
        &m,
        mutant("swap-adjacent@register-tool#19,#20")
    ));
    // A mutant at a step the scenario never runs changes nothing there.
    assert!(same_transitions(
        &m,
        mutant("drop-step@cancel-pending-execution#4")
    ));
}

#[test]
fn the_suite_kills_a_dropped_pending_execution_and_knows_an_equivalent_swap() {
    let baseline = Baseline::new(vec![
        model("abort-racing-settlement"),
        model("register-and-discover"),
    ])
    .expect("exhaustive");
    let fate = baseline.judge(mutant("drop-step@execute-tool#16.12"), 20);
    assert!(fate.is_killed(), "{fate:?}");
    assert_eq!(
        baseline.judge(mutant("swap-adjacent@register-tool#19,#20"), 20),
        Fate::Equivalent
    );
}

/// `--bound` compares like with like: the states the mutated search generates against those
/// the unmutated one generated. An equivalent mutant generates exactly as many, so no bound
/// of 1 or more calls it exploded (it did at bounds 1 to 3 when the unmutated size counted
/// only the states kept, on a scenario past the 10,000-state floor).
#[test]
fn an_equivalent_mutant_never_explodes_even_at_a_bound_of_one() {
    let baseline = Baseline::new(vec![model("target-in-bfcache")]).expect("exhaustive");
    assert!(baseline.results[0].total_states > 10_000, "past the floor");
    assert!(baseline.results[0].total_states > 2 * baseline.results[0].unique_states);
    for bound in [1, 2, 3] {
        assert_eq!(
            baseline.judge(mutant("swap-adjacent@register-tool#19,#20"), bound),
            Fate::Equivalent,
            "bound {bound}"
        );
    }
}
