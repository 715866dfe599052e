//! Links from step IDs to the published draft (<https://webmachinelearning.github.io/webmcp/>).
//!
//! The draft is a Bikeshed document: its steps are numbered lists with no anchors of their
//! own, but every algorithm has the anchor Bikeshed derives from its definition (`<dfn>`), and
//! a few paragraphs have explicit ids. A step ID therefore links to the most specific anchor
//! that exists: the paragraph id where the draft gives one (for example
//! `unload-cleanup#2.3.2` → `#target-destroyed-cleanup`), otherwise its algorithm's definition
//! (`execute-tool#16.10.1` → `#dom-modelcontext-executetool`). The step number itself is
//! shown in the link text.

use crate::DRAFT_URL;

/// The anchor (without `#`) of an algorithm slug's definition in the published draft.
pub fn algorithm_anchor(slug: &str) -> &'static str {
    match slug {
        "cancel-pending-execution" => "cancel-a-pending-tool-execution",
        // The unloading document cleanup steps have no <dfn>; their section does.
        "unload-cleanup" => "pending-tool-executions",
        "notify-tool-change" => "notify-documents-of-a-tool-change",
        "tool-exposed-to-origin" => "tool-is-exposed-to-an-origin",
        "tool-execute-steps" => "tool-execute-steps",
        "imperative-execute-steps" => "imperative-execute-steps",
        "unregister-tool" => "model-context-unregister-a-tool",
        "model-context-getter" => "dom-document-modelcontext",
        "register-tool" => "dom-modelcontext-registertool",
        "get-tools" => "dom-modelcontext-gettools",
        "execute-tool" | "execute-tool.completion-steps" => "dom-modelcontext-executetool",
        "synthesize-declarative-json-schema" => {
            "synthesize-a-declarative-json-schema-object-algorithm"
        }
        "declarative-execute-steps" => "declarative-execute-steps",
        "perform-observation" => "perform-an-observation",
        _ => "",
    }
}

/// The anchor (without `#`) a step ID links to.
pub fn step_anchor(id: &str) -> &'static str {
    match id {
        "unload-cleanup#2.3.2" | "unload-cleanup#2.3.2.note" => "target-destroyed-cleanup",
        "unload-cleanup#2.3.3" => "caller-destroyed-cleanup",
        "execute-tool#16.10.1" | "execute-tool.completion-steps#1" => {
            "pending-execution-removal-race"
        }
        "notify-tool-change.example" => "notify-task-ordering",
        "tool-execute-steps#3.example" => "unregistration-execution-race",
        _ => algorithm_anchor(slug(id)),
    }
}

/// The algorithm slug of a step ID: `execute-tool` for `execute-tool#16.10.1` (and for
/// `2026-08:execute-tool#3`, a step an earlier text had), `declarative-execute-steps` for
/// `declarative-execute-steps.issue`.
pub fn slug(id: &str) -> &str {
    let id = id.split_once(':').map_or(id, |(_, step)| step);
    match id.split_once('#') {
        Some((s, _)) => s,
        None => id.rsplit_once('.').map_or(id, |(s, _)| s),
    }
}

/// The URL a step ID links to.
pub fn step_url(id: &str) -> String {
    let anchor = step_anchor(id);
    if anchor.is_empty() {
        DRAFT_URL.to_string()
    } else {
        format!("{DRAFT_URL}#{anchor}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_executable_step_has_an_anchor() {
        for s in webmcp_model::STEPS {
            assert!(!step_anchor(s.id).is_empty(), "{} has no anchor", s.id);
        }
        assert_eq!(
            step_url("execute-tool#16.12"),
            "https://webmachinelearning.github.io/webmcp/#dom-modelcontext-executetool"
        );
        assert!(step_url("unload-cleanup#2.3.3").ends_with("#caller-destroyed-cleanup"));
    }
}
