//! Drift between a stored table and small hand-written sources, one scenario per fixture.

use webmcp_spec_sync::{compare, parse, read_store, write_store, Drift, Kind, StoredStep};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The baseline, through the store format (so every scenario also exercises write and read).
fn baseline_store() -> Vec<StoredStep> {
    let steps = parse(&fixture("baseline.bs")).unwrap();
    read_store(&write_store("baseline.bs", &steps))
        .unwrap()
        .steps
}

fn drift_against(name: &str) -> Drift {
    compare(&baseline_store(), &parse(&fixture(name)).unwrap())
}

fn renumbered(d: &Drift) -> Vec<(&str, &str)> {
    d.renumbered
        .iter()
        .map(|r| (r.old_id.as_str(), r.new_id.as_str()))
        .collect()
}

#[test]
fn baseline_ids() {
    let steps = parse(&fixture("baseline.bs")).unwrap();
    let got: Vec<(&str, Kind, usize)> = steps
        .iter()
        .map(|s| (s.id.as_str(), s.kind, s.line))
        .collect();
    assert_eq!(
        got,
        vec![
            ("tool-exposed-to-origin#1", Kind::Assert, 9),
            ("tool-exposed-to-origin#2", Kind::Step, 11),
            ("tool-exposed-to-origin#3", Kind::Step, 13),
            ("tool-exposed-to-origin#3.1", Kind::Step, 15),
            ("tool-exposed-to-origin#3.1[name]", Kind::Item, 17),
            ("tool-exposed-to-origin#3.1[kind]", Kind::Item, 20),
            ("tool-exposed-to-origin#3.2", Kind::Step, 23),
            ("tool-exposed-to-origin#3.2.note", Kind::Note, 26),
            ("tool-exposed-to-origin#4", Kind::Step, 28),
            ("declarative-execute-steps.issue", Kind::Issue, 35),
        ]
    );
    assert_eq!(
        steps[2].text, "If x is same origin with b, then:",
        "a parent's text leaves out its children"
    );
    assert_eq!(steps[5].text, "kind: \"plain\"");
}

#[test]
fn unchanged_source_has_no_drift() {
    let d = drift_against("baseline.bs");
    assert!(d.is_empty(), "{d}");
    assert_eq!(d.to_string(), "no drift\n");
}

#[test]
fn markup_only_edit_has_no_drift() {
    let d = drift_against("markup-only.bs");
    assert!(d.is_empty(), "{d}");
}

#[test]
fn inserted_step_renumbers_instead_of_removing_and_adding() {
    let d = drift_against("renumbered.bs");
    assert_eq!(
        d.added.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        ["tool-exposed-to-origin#1"]
    );
    assert_eq!(d.added[0].text, "Let z be 0.");
    assert!(d.removed.is_empty(), "{d}");
    assert!(d.changed.is_empty(), "{d}");
    assert!(d.split.is_empty(), "{d}");
    // The new ID of one step is the old ID of the next: #1 → #2 while #2 → #3.
    assert_eq!(
        renumbered(&d),
        [
            ("tool-exposed-to-origin#1", "tool-exposed-to-origin#2"),
            ("tool-exposed-to-origin#2", "tool-exposed-to-origin#3"),
            ("tool-exposed-to-origin#3", "tool-exposed-to-origin#4"),
            ("tool-exposed-to-origin#3.1", "tool-exposed-to-origin#4.1"),
            (
                "tool-exposed-to-origin#3.1[name]",
                "tool-exposed-to-origin#4.1[name]"
            ),
            (
                "tool-exposed-to-origin#3.1[kind]",
                "tool-exposed-to-origin#4.1[kind]"
            ),
            ("tool-exposed-to-origin#3.2", "tool-exposed-to-origin#4.2"),
            (
                "tool-exposed-to-origin#3.2.note",
                "tool-exposed-to-origin#4.2.note"
            ),
            ("tool-exposed-to-origin#4", "tool-exposed-to-origin#5"),
        ]
    );
}

#[test]
fn split_step_is_reported_as_split() {
    let d = drift_against("split.bs");
    assert_eq!(d.split.len(), 1, "{d}");
    let s = &d.split[0];
    assert_eq!(s.old_id, "tool-exposed-to-origin#3.2");
    assert_eq!(
        s.new.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(),
        [
            "tool-exposed-to-origin#3.2",
            "tool-exposed-to-origin#3.3",
            "tool-exposed-to-origin#3.4"
        ]
    );
    assert_eq!(
        renumbered(&d),
        [(
            "tool-exposed-to-origin#3.2.note",
            "tool-exposed-to-origin#3.3.note"
        )]
    );
    assert!(
        d.added.is_empty() && d.removed.is_empty() && d.changed.is_empty(),
        "{d}"
    );
}

#[test]
fn changed_step_is_reported_with_its_new_text() {
    let d = drift_against("changed.bs");
    assert_eq!(d.changed.len(), 1, "{d}");
    let c = &d.changed[0];
    assert_eq!(
        (c.old_id.as_str(), c.new_id.as_str()),
        ("tool-exposed-to-origin#2", "tool-exposed-to-origin#2")
    );
    assert_eq!(c.new_text, "Let x be a's origin, serialized.");
    assert!(
        d.added.is_empty() && d.removed.is_empty() && d.renumbered.is_empty() && d.split.is_empty(),
        "{d}"
    );
}

#[test]
fn removed_step_is_removed_and_later_steps_renumbered() {
    let d = drift_against("removed.bs");
    assert_eq!(
        d.removed.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["tool-exposed-to-origin#2"]
    );
    assert!(
        d.added.is_empty() && d.changed.is_empty() && d.split.is_empty(),
        "{d}"
    );
    assert_eq!(
        renumbered(&d).first(),
        Some(&("tool-exposed-to-origin#3", "tool-exposed-to-origin#2"))
    );
    assert_eq!(
        renumbered(&d).last(),
        Some(&("tool-exposed-to-origin#4", "tool-exposed-to-origin#3"))
    );
    assert_eq!(d.renumbered.len(), 7);
}

#[test]
fn unknown_algorithm_is_a_new_algorithm() {
    let d = drift_against("new-algorithm.bs");
    assert_eq!(d.new_algorithms, ["forget-a-tool"]);
    assert_eq!(
        d.added.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        ["forget-a-tool#1", "forget-a-tool#2"]
    );
    assert!(
        d.removed.is_empty()
            && d.changed.is_empty()
            && d.renumbered.is_empty()
            && d.split.is_empty(),
        "{d}"
    );
    let spec = webmcp_spec_sync::parse_spec(&fixture("new-algorithm.bs")).unwrap();
    let unknown: Vec<_> = spec
        .algorithms
        .iter()
        .filter(|a| !a.known)
        .map(|a| a.key.as_str())
        .collect();
    assert_eq!(unknown, ["forget a tool"]);
}

#[test]
fn report_names_every_change() {
    let d = drift_against("changed.bs");
    assert_eq!(
        d.to_string(),
        "changed tool-exposed-to-origin#2\n  now: Let x be a's origin, serialized.\n"
    );
}

#[test]
fn step_edited_and_renumbered_is_one_change() {
    let source = fixture("renumbered.bs").replace(
        "1. Let |x| be |a|'s [=url/origin=].",
        "1. Let |x| be |a|'s [=url/origin=], serialized.",
    );
    let d = compare(&baseline_store(), &parse(&source).unwrap());
    assert_eq!(d.changed.len(), 1, "{d}");
    let c = &d.changed[0];
    assert_eq!(
        (c.old_id.as_str(), c.new_id.as_str()),
        ("tool-exposed-to-origin#2", "tool-exposed-to-origin#3")
    );
    assert_eq!(
        d.added.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        ["tool-exposed-to-origin#1"]
    );
    assert!(d.removed.is_empty() && d.split.is_empty(), "{d}");
    assert_eq!(d.renumbered.len(), 8);
    assert!(d
        .to_string()
        .contains("changed tool-exposed-to-origin#2 -> tool-exposed-to-origin#3\n"));
}

/// Every construct the parser reads, in a fixture written for this test (not the draft's
/// text): method steps, nested steps, an Assert, two issues on one step, struct items with a
/// nested definition list, promise-reaction branches, a plain note, a note box with a list, and
/// an algorithm-level issue.
#[test]
fn every_construct_gets_its_id() {
    let steps = parse(&fixture("constructs.bs")).unwrap();
    let got: Vec<(&str, &str)> = steps
        .iter()
        .map(|s| (s.id.as_str(), s.kind.as_str()))
        .collect();
    let mut want: Vec<(String, &str)> = (1..=9)
        .map(|n| (format!("register-tool#{n}"), "step"))
        .collect();
    want.insert(8, ("register-tool#8.issue-1".into(), "issue"));
    want.insert(9, ("register-tool#8.issue-2".into(), "issue"));
    for (id, kind) in [
        ("register-tool#10", "assert"),
        ("register-tool#11", "step"),
        ("register-tool#11.1", "step"),
        ("register-tool#11.1[name]", "item"),
        ("register-tool#11.1[hints]", "item"),
        ("register-tool#11.2", "step"),
        ("register-tool#11.2.fulfilled.1", "step"),
        ("register-tool#11.2.fulfilled.2", "step"),
        ("register-tool#11.2.rejected.1", "step"),
        ("register-tool#11.3", "step"),
        ("register-tool#11.3.note", "note"),
        ("register-tool#11.note", "note"),
        ("register-tool#11.note.1", "note"),
        ("register-tool#11.note.2", "note"),
        ("register-tool#12", "step"),
        ("declarative-execute-steps.issue", "issue"),
    ] {
        want.push((id.into(), kind));
    }
    let want: Vec<(&str, &str)> = want.iter().map(|(i, k)| (i.as_str(), *k)).collect();
    assert_eq!(got, want);
    // The nested definition list is part of its item's text; the branch headings are part of
    // the reaction step's text; sub-steps are not part of their parent's.
    let text = |id: &str| steps.iter().find(|s| s.id == id).unwrap().text.clone();
    assert!(text("register-tool#11.1[hints]").contains("first hint"));
    assert!(text("register-tool#11.2").contains("fulfilled"));
    assert!(!text("register-tool#11").contains("Record"));
}
