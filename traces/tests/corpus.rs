//! The corpus of findings: every trace in `traces/corpus/` replays against the current model
//! and still shows its violation, and every property the known findings list as violated by
//! the draft as written has a trace. A model change that loses a finding fails here.
//!
//! To regenerate the corpus after an intended change: `cargo run --release -- corpus`.

mod common;

use std::collections::BTreeSet;

use common::repo;
use webmcp_traces::corpus::files;
use webmcp_traces::reader::read_trace;
use webmcp_traces::replay::{replay, Replayed};
use webmcp_traces::trace::Expect;

const REGENERATE: &str =
    "if the change is intended, regenerate with `cargo run --release -- corpus`";

#[test]
fn every_corpus_trace_replays_with_its_verdict() {
    let dir = repo().join("traces/corpus");
    let all = files(&dir).unwrap();
    assert!(!all.is_empty(), "traces/corpus/ has no traces");
    for path in all {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let l = read_trace(&text).unwrap_or_else(|e| panic!("{name}: {e}; {REGENERATE}"));
        assert_eq!(l.trace.meta.expect, Some(Expect::Violated), "{name}");
        assert_eq!(l.trace.meta.variant, "seed", "{name}");
        match replay(&l) {
            Replayed::Reproduced { shows_at } => assert_eq!(
                shows_at,
                Some(l.trace.actions.len()),
                "{name}: a minimised trace shows its violation only at its end"
            ),
            Replayed::Diverged(d) => panic!("{name} diverges at {d}; {REGENERATE}"),
        }
    }
}

#[test]
fn every_known_finding_of_the_draft_has_a_corpus_trace() {
    let known: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("docs/known-findings.json")).unwrap(),
    )
    .unwrap();
    let wanted: BTreeSet<String> = known["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["variant"] == "seed")
        .map(|f| f["property"].as_str().unwrap().to_string())
        .collect();
    let mut have = BTreeSet::new();
    for path in files(&repo().join("traces/corpus")).unwrap() {
        let l = read_trace(&std::fs::read_to_string(&path).unwrap()).unwrap();
        have.insert(l.trace.meta.property.clone().unwrap());
    }
    let missing: Vec<_> = wanted.difference(&have).collect();
    let extra: Vec<_> = have.difference(&wanted).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "corpus and docs/known-findings.json disagree: no trace for {missing:?}, traces for unlisted {extra:?}; {REGENERATE}"
    );
}
