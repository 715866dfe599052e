//! The step table is the spec's list of step IDs: every ID in spec/webmcp-algorithms.md is
//! in `STEPS`, in document order, and nothing else is, except the rows of steps that only an
//! earlier text has (`2026-08:`-prefixed, each an ID of spec/revisions/2026-08.md). When the
//! draft changes, these tests name what to add or remove.

use std::collections::BTreeSet;

use webmcp_model::steps::{StepKind, STEPS};

const CURRENT: &str = include_str!("../../spec/webmcp-algorithms.md");
const AUGUST_2026: &str = include_str!("../../spec/revisions/2026-08.md");
const EARLIER_TEXT: &str = "2026-08:";

fn spec_ids() -> Vec<String> {
    ids_of(CURRENT)
}

fn ids_of(text: &str) -> Vec<String> {
    let mut ids = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let rest = match (t.strip_prefix("- `"), line.strip_prefix('`')) {
            (Some(r), _) => r,
            (None, Some(r)) => r,
            _ => continue,
        };
        let Some(end) = rest.find('`') else { continue };
        let id = &rest[..end];
        let after = &rest[end + 1..];
        let is_step_id = id.contains('#') || id.ends_with(".example") || id.ends_with(".issue");
        let introduces = after.starts_with(':') || after.starts_with(" ≡");
        let lowercase = id.chars().next().is_some_and(|c| c.is_ascii_lowercase());
        if is_step_id && introduces && lowercase && !ids.contains(&id.to_string()) {
            ids.push(id.to_string());
        }
    }
    ids
}

#[test]
fn step_table_matches_the_spec() {
    let spec = spec_ids();
    let table: Vec<String> = STEPS
        .iter()
        .filter(|s| !s.id.starts_with(EARLIER_TEXT))
        .map(|s| s.id.to_string())
        .collect();
    let spec_set: BTreeSet<_> = spec.iter().collect();
    let table_set: BTreeSet<_> = table.iter().collect();
    let missing: Vec<_> = spec_set.difference(&table_set).collect();
    let extra: Vec<_> = table_set.difference(&spec_set).collect();
    assert!(
        missing.is_empty(),
        "steps in the spec but not in STEPS: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "steps in STEPS but not in the spec: {extra:?}"
    );
    assert_eq!(spec, table, "STEPS must follow the spec's order");
}

#[test]
fn every_row_of_an_earlier_text_is_a_step_of_that_text() {
    // (Its ID may name another step of the current text: `register-tool#4` is now the
    // permissions-policy check, and `2026-08:register-tool#4` the removed origin-keyed one.)
    let august = ids_of(AUGUST_2026);
    let earlier: Vec<&str> = STEPS
        .iter()
        .filter_map(|s| s.id.strip_prefix(EARLIER_TEXT))
        .collect();
    assert!(!earlier.is_empty(), "the 2026-08 rows are gone");
    for id in earlier {
        assert!(
            august.iter().any(|a| a == id),
            "{EARLIER_TEXT}{id} is not a step of spec/revisions/2026-08.md"
        );
    }
}

#[test]
fn every_assert_of_the_spec_is_an_assert_row() {
    let asserts_of = |text: &str| {
        text.lines()
            .filter(|l| l.contains("**ASSERT:**") && l.trim_start().starts_with("- `"))
            .count()
    };
    let rows = |earlier: bool| {
        STEPS
            .iter()
            .filter(|s| s.kind == StepKind::Assert && s.id.starts_with(EARLIER_TEXT) == earlier)
            .count()
    };
    assert_eq!(rows(false), asserts_of(CURRENT));
    assert_eq!(asserts_of(CURRENT), 10);
    // 2026-08:execute-tool#15.10.1, the completion steps' "running in parallel".
    assert_eq!(rows(true), 1);
    assert_eq!(asserts_of(AUGUST_2026), 10);
}

#[test]
fn the_shared_spec_is_the_2026_08_revision_when_present() {
    let shared = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/spec/webmcp-algorithms.md"
    );
    if let Ok(text) = std::fs::read_to_string(shared) {
        assert_eq!(
            text, AUGUST_2026,
            "spec/revisions/2026-08.md is no longer the shared text: copy ../shared/spec/"
        );
    }
}

#[test]
fn every_fix_cites_steps_of_the_table_and_reads_as_an_issue() {
    for fix in webmcp_model::variant::FIXES {
        assert!(!fix.steps.is_empty(), "{} cites no step", fix.name);
        for id in fix.steps {
            assert!(
                webmcp_model::steps::StepId::parse(id).is_some(),
                "{} cites {id}, which is not a step of the draft",
                fix.name
            );
        }
        assert!(
            !fix.title.ends_with('.'),
            "{}: a title has no period",
            fix.name
        );
        assert!(
            fix.impact.ends_with('.'),
            "{}: the impact is a sentence",
            fix.name
        );
    }
}
