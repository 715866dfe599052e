//! The text of each step, from `spec/webmcp-algorithms.md` (embedded): the line that
//! introduces a step ID (`` - `register-tool#19`: Set ... ``), with its Markdown marks
//! removed. The step table keeps only a shortened summary, which is not enough to read the
//! step beside the state it changed. A step only an earlier text has (`2026-08:register-tool#4`)
//! is read from that text's rendering under `spec/revisions/`.

use std::collections::HashMap;
use std::sync::OnceLock;

const SPEC: &str = include_str!("../../spec/webmcp-algorithms.md");
/// The texts of earlier revisions whose steps the step table keeps, by ID prefix.
const REVISIONS: [(&str, &str); 1] =
    [("2026-08:", include_str!("../../spec/revisions/2026-08.md"))];

fn texts() -> &'static HashMap<&'static str, String> {
    static TEXTS: OnceLock<HashMap<&'static str, String>> = OnceLock::new();
    TEXTS.get_or_init(|| step_lines(SPEC))
}

fn revision_texts() -> &'static [HashMap<&'static str, String>] {
    static TEXTS: OnceLock<Vec<HashMap<&'static str, String>>> = OnceLock::new();
    TEXTS.get_or_init(|| REVISIONS.iter().map(|(_, text)| step_lines(text)).collect())
}

/// Each step ID of a rendering with the text of the line that introduces it.
fn step_lines(spec: &'static str) -> HashMap<&'static str, String> {
    let mut out = HashMap::new();
    for line in spec.lines() {
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
}

/// The spec text of step `id`, if the spec file (or, for an ID with a revision's prefix, that
/// revision's) gives the step a line.
pub fn text_of(id: &str) -> Option<&'static str> {
    for (i, (prefix, _)) in REVISIONS.iter().enumerate() {
        if let Some(old) = id.strip_prefix(prefix) {
            return revision_texts()[i].get(old).map(String::as_str);
        }
    }
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

    #[test]
    fn a_step_only_an_earlier_text_has_is_read_from_that_text() {
        for s in webmcp_model::STEPS.iter().filter(|s| s.id.contains(':')) {
            assert!(text_of(s.id).is_some(), "{} has no text", s.id);
        }
        let t = text_of("2026-08:register-tool#4").unwrap();
        assert!(t.contains("origin-keyed"), "{t}");
        // The same number names another step in the current text.
        assert_ne!(text_of("register-tool#4"), Some(t));
    }
}
