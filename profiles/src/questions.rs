//! The questions the standard scenarios ask in their descriptions, and what answers each:
//! properties of the catalogue (whose verdicts `docs/properties.md` gives per scenario), or
//! a decision of `docs/model.md`. `profiles/tests/questions.rs` checks that every question
//! sentence of every scenario is listed and that every property named exists.

/// What answers a question.
#[derive(Clone, Copy, Debug)]
pub enum Answer {
    /// These properties, judged on the scenario.
    Properties(&'static [&'static str]),
    /// Not a property: the decision (a row of the decisions table of `docs/model.md`), in
    /// one sentence.
    Decision(&'static str),
}

/// One question of a scenario's description.
#[derive(Clone, Copy, Debug)]
pub struct Question {
    pub scenario: &'static str,
    /// A part of the question sentence that identifies it.
    pub asks: &'static str,
    /// The question on its own, for a reader who has not read the description.
    pub reads: &'static str,
    pub answer: Answer,
}

const fn q(
    scenario: &'static str,
    asks: &'static str,
    reads: &'static str,
    answer: Answer,
) -> Question {
    Question {
        scenario,
        asks,
        reads,
        answer,
    }
}

use Answer::{Decision, Properties};

/// Every question the standard scenarios ask.
pub const QUESTIONS: &[Question] = &[
    q("abort-before-dispatch", "Is that intended?", "Is it intended that the tool runs for a caller that already aborted?", Properties(&["no-ghost-run", "nothing-left-at-end"])),
    q("caller-is-target-in-bfcache", "does its executeTool() promise settle", "Does its executeTool() promise settle?", Properties(&["execute-promise-settles"])),
    q("caller-is-target-in-bfcache", "does the queued tool task still run", "Does the queued tool task still run?", Decision("Tasks queued for a document in the back/forward cache run once it is restored: true by construction (execute-tool#16.13.note).")),
    q("caller-is-target-unloaded", "is anything left queued for the unloaded document", "Is anything left queued for the unloaded document?", Properties(&["unload-cleans-pending-executions", "unload-cleans-local-executions", "nothing-left-at-end"])),
    q("caller-is-target-unloaded", "does the assertion at unload-cleanup#2.3.5 hold", "Does the assertion at unload-cleanup#2.3.5 hold?", Properties(&["assert:unload-cleanup#2.3.5"])),
    q("caller-removed-tool-waits", "is a running tool always told to stop", "Is a running tool always told to stop?", Properties(&["caller-unload-stops-tool"])),
    q("caller-unloaded-mid-execution", "does the pending tool executions map always end empty", "Does the pending tool executions map always end empty?", Properties(&["unload-cleans-pending-executions", "nothing-left-at-end"])),
    q("caller-unloaded-mid-execution", "is the body always told to stop", "Is the body always told to stop?", Properties(&["caller-unload-stops-tool"])),
    q("register-in-bfcache", "does the draft say anything about a registration made by a document that is now in the bfcache", "Does the draft say anything about a registration made by a document that is now in the bfcache?", Decision("The draft says nothing: the tool stays in the map of a document that is not fully active, which getTools does not walk; no sentence claims otherwise, so no property judges it.")),
    q("register-in-bfcache", "can the await hang forever", "Can the await hang forever?", Properties(&["register-promise-settles"])),
    q("reregister-different-schema", "is the schema mismatch reachable", "Is the schema mismatch reachable?", Properties(&["runs-the-discovered-tool"])),
    q("reregister-narrower-exposure", "can the new tool, which is not exposed to https://a.example, run for it", "Can the new tool, which is not exposed to https://a.example, run for it?", Properties(&["runs-only-for-exposed-callers"])),
    q("target-in-bfcache", "which outcomes are reachable", "Which outcomes are reachable?", Properties(&["witness:result-delivered", "witness:unload-unknown-error"])),
    q("target-in-bfcache", "does the assertion at unload-cleanup#2.3.5 hold when two cleanups race", "Does the assertion at unload-cleanup#2.3.5 hold when two cleanups race?", Properties(&["assert:unload-cleanup#2.3.5"])),
    q("target-unloaded-mid-execution", "does the caller's promise always settle", "Does the caller's promise always settle?", Properties(&["execute-promise-settles"])),
    q("tool-events", "does toolcancel ever fire for a tool that already settled", "Does toolcancel ever fire for a tool that already settled?", Properties(&["toolcancel-never-after-settlement"])),
    q("tool-events", "or for a caller that did not give up", "Does toolcancel ever fire for a caller that did not give up?", Properties(&["toolcancel-only-after-caller-gave-up"])),
    q("tool-events", "is a result ever delivered before toolactivated", "Is a result ever delivered before toolactivated?", Properties(&["toolactivated-before-result"])),
    q("tool-executes-itself", "do the two executions stay apart", "Do a tool's execution and the one its callback starts of itself stay apart (each settled once with its own result, nothing left behind)?", Properties(&["execute-settles-once", "local-executions-are-running-tools", "nothing-left-at-end"])),
    q("tool-result-unserializable", "Is that intended?", "Is it intended that a tool that fulfils with undefined fails with UnknownError?", Decision("A value choice, not a property: a tool that fulfils with undefined is rejected with \"UnknownError\", one of the causes a page cannot tell apart (docs/properties.md, failures).")),
    q("unregister-between-gettools-and-execute", "does the executeTool() promise settle in every case", "Does the executeTool() promise settle in every case?", Properties(&["execute-promise-settles"])),
];

/// The sentences of a description that end with a question mark (a sentence ends at a `.`
/// or `?` followed by a space or the end: `unload-cleanup#2.3.5` is one word).
pub fn question_sentences(description: &str) -> impl Iterator<Item = &str> {
    let bytes = description.as_bytes();
    let mut start = 0;
    let mut out = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        if (b == b'.' || b == b'?') && bytes.get(i + 1).is_none_or(|n| *n == b' ') {
            out.push(description[start..=i].trim());
            start = i + 1;
        }
    }
    out.into_iter().filter(|s| s.ends_with('?'))
}
