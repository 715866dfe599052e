//! The names of the draft's algorithm blocks, mapped to the slugs of our step IDs.
//!
//! The draft has no stable identifiers of its own for its algorithms: a `<div algorithm>` block
//! is named by its first `<dfn>` (or, rarely, by the value of its `algorithm` attribute). Our
//! slugs (`register-tool`, `unload-cleanup`, …) were chosen by hand in
//! `spec/webmcp-algorithms.md` §2, so the mapping is written out here rather than derived: a
//! renamed `<dfn>` must show up as an unknown algorithm (and be looked at), not silently produce
//! a new slug.
//!
//! The key of a block is, in this order of preference:
//! - the value of its `algorithm="…"` attribute, when it has one;
//! - the normalized text of its first `<dfn>`; for an IDL attribute `<dfn>` followed by
//!   "getter steps" / "setter steps", the text plus ` getter` / ` setter`.
//!
//! A block whose key is not in [`SLUGS`] still gets step IDs, under a slug derived from its key
//! ([`fallback_slug`]), and is reported as a new algorithm by the comparison.

/// `(key in the draft, our slug)`, in the draft's order.
pub const SLUGS: &[(&str, &str)] = &[
    (
        "cancel a pending tool execution",
        "cancel-pending-execution",
    ),
    ("unloading-document-cleanup-steps", "unload-cleanup"),
    ("notify documents of a tool change", "notify-tool-change"),
    ("tool is exposed to an origin", "tool-exposed-to-origin"),
    ("tool execute steps", "tool-execute-steps"),
    ("imperative execute steps", "imperative-execute-steps"),
    ("unregister a tool", "unregister-tool"),
    ("modelContext getter", "model-context-getter"),
    ("registerTool(tool, options)", "register-tool"),
    ("getTools(options)", "get-tools"),
    ("executeTool(tool, inputObject, options)", "execute-tool"),
    (
        "synthesize a declarative JSON Schema object algorithm",
        "synthesize-declarative-json-schema",
    ),
    ("declarative execute steps", "declarative-execute-steps"),
    ("perform an observation", "perform-observation"),
];

/// Our slug for a block key, if the key is known.
pub fn slug_for(key: &str) -> Option<&'static str> {
    SLUGS.iter().find(|(k, _)| *k == key).map(|(_, slug)| *slug)
}

/// The slug of an unknown algorithm: its key in lowercase, with every run of characters other
/// than ASCII letters and digits turned into one `-`, at most 60 characters. `line` names the
/// block when the key has no letters or digits at all.
pub fn fallback_slug(key: &str, line: usize) -> String {
    let mut slug = String::new();
    for c in key.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
        if slug.len() >= 60 {
            break;
        }
    }
    let slug = slug.trim_end_matches('-').to_string();
    if slug.is_empty() {
        format!("algorithm-at-line-{line}")
    } else {
        slug
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for (key, slug) in SLUGS {
            assert!(seen.insert(*slug), "{slug} twice");
            assert_eq!(slug_for(key), Some(*slug));
        }
    }

    #[test]
    fn fallback() {
        assert_eq!(
            fallback_slug("Cancel all the Tools!", 3),
            "cancel-all-the-tools"
        );
        assert_eq!(fallback_slug("***", 7), "algorithm-at-line-7");
    }
}
