//! Every question a standard scenario's description asks is answered (profiles/src/questions.rs):
//! each question sentence has an entry for each of its parts, and every property named exists.

use webmcp_profiles::properties;
use webmcp_profiles::questions::{question_sentences, Answer, QUESTIONS};

mod common;
use common::standard_worlds;

fn questions(description: &str) -> Vec<&str> {
    question_sentences(description).collect()
}

#[test]
fn every_question_sentence_of_every_scenario_is_answered() {
    for w in standard_worlds() {
        for sentence in questions(&w.description) {
            let answered: Vec<_> = QUESTIONS
                .iter()
                .filter(|q| q.scenario == w.name && sentence.contains(q.asks))
                .collect();
            assert!(
                !answered.is_empty(),
                "{}: the question {sentence:?} has no answer in profiles/src/questions.rs",
                w.name
            );
            // A sentence that asks two things ("... , and ...?") needs both answered.
            let parts = sentence.matches(", and ").count() + 1;
            assert!(
                answered.len() >= parts.min(2),
                "{}: {sentence:?} asks {parts} things and {} are answered",
                w.name,
                answered.len()
            );
        }
    }
}

#[test]
fn every_answer_names_a_catalogue_property_and_a_real_question() {
    let names: Vec<&str> = properties().iter().map(|p| p.name).collect();
    let worlds = standard_worlds();
    for q in QUESTIONS {
        let w = worlds
            .iter()
            .find(|w| w.name == q.scenario)
            .unwrap_or_else(|| panic!("no scenario {}", q.scenario));
        assert!(
            questions(&w.description).iter().any(|s| s.contains(q.asks)),
            "{}: {:?} is not a question of its description",
            q.scenario,
            q.asks
        );
        if let Answer::Properties(ps) = q.answer {
            for p in ps {
                assert!(names.contains(p), "{}: no property {p}", q.scenario);
            }
        }
    }
}
