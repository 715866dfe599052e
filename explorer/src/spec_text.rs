//! The text of each step, from `spec/webmcp-algorithms.md` (embedded): the line that
//! introduces a step ID (`` - `register-tool#19`: Set ... ``), with its Markdown marks
//! removed. The step table keeps only a shortened summary, which is not enough to read the
//! step beside the state it changed.

use std::collections::HashMap;
use std::sync::OnceLock;

const SPEC: &str = include_str!("../../spec/webmcp-algorithms.md");

fn texts() -> &'static HashMap<&'static str, String> {
    static TEXTS: OnceLock<HashMap<&'static str, String>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        let mut out = HashMap::new();
        for line in SPEC.lines() {
            let t = line.trim_start();
            let Some(rest) = t.strip_prefix("- `").or_else(|| line.strip_prefix('`')) else {
                continue;
            };
            let Some(end) = rest.find('`') else { continue };
            let (id, after) = (&rest[..end], &rest[end + 1..]);
            // The same test as model/tests/step_table.rs: an ID that introduces its step.
            let is_step = id.contains('#') || id.ends_with(".example") || id.ends_with(".issue");
            let Some(text) = after.strip_prefix(':').or_else(|| after.strip_prefix(" ≡")) else {
                continue;
            };
            if is_step && !out.contains_key(id) {
                out.insert(id, text.trim().replace(['*', '`'], ""));
            }
        }
        out
    })
}

/// The spec text of step `id`, if the spec file gives the step a line.
pub fn text_of(id: &str) -> Option<&'static str> {
    texts().get(id).map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_step_of_the_current_text_has_its_text() {
        for s in webmcp_model::STEPS.iter().filter(|s| !s.id.contains(':')) {
            assert!(text_of(s.id).is_some(), "{} has no text", s.id);
        }
        let t = text_of("register-tool#10").unwrap();
        assert!(
            t.starts_with("If tool's description is the empty string"),
            "{t}"
        );
    }
}
