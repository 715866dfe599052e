//! `webmcp-check spec-sync`: an accepted source shows no drift; an edited one shows what moved
//! and what in the model cites it, and fails only when something does; bad input gets one line
//! and exit 2.

use std::path::PathBuf;

mod common;
use common::{run, text};

/// Made-up algorithms in our own words that use every construct the parser reads, under the
/// real slugs (`register-tool`), so that the model's citations apply. The project ships no copy
/// of the draft.
const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/spec-sync/tests/fixtures/constructs.bs"
);

fn fixture() -> String {
    std::fs::read_to_string(FIXTURE).unwrap()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("webmcp-spec-sync-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn write(name: &str, content: impl AsRef<[u8]>) -> String {
    let path = temp(name);
    std::fs::write(&path, content).unwrap();
    path.to_str().unwrap().to_string()
}

/// A store recorded from the fixture with --accept, in its own file.
fn accepted_store(name: &str) -> String {
    let store = temp(name);
    let _ = std::fs::remove_file(&store);
    let store = store.to_str().unwrap().to_string();
    let o = run(&["spec-sync", FIXTURE, "--accept", "--store", &store]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    store
}

/// The fixture with a step inserted after register-tool#3.
fn with_inserted_step() -> String {
    let text = fixture();
    let anchor = "1. If |owner| may not use";
    assert_eq!(text.matches(anchor).count(), 1);
    text.replacen(
        anchor,
        "1. If |owner| is sleeping, then return [=a promise rejected with=] a \"{{SecurityError}}\".\n\n\
         1. If |owner| may not use",
        1,
    )
}

#[test]
fn an_accepted_source_shows_no_drift_and_the_store_holds_no_sentence_of_it() {
    let store = accepted_store("clean.tsv");
    let written = std::fs::read_to_string(&store).unwrap();
    assert!(
        written.starts_with("# source: constructs.bs fnv1a64:"),
        "{written}"
    );
    assert!(
        !written.contains("promise"),
        "the store keeps word sketches, not text"
    );
    let o = run(&["spec-sync", FIXTURE, "--store", &store]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    let out = text(&o.stdout);
    assert!(
        out.contains("0 added, 0 removed, 0 renumbered, 0 changed, 0 split"),
        "{out}"
    );
    assert!(out.contains("no drift"));
}

#[test]
fn an_inserted_step_renumbers_the_cited_steps_after_it_and_fails() {
    let store = accepted_store("inserted.tsv");
    let path = write("inserted.bs", with_inserted_step());
    let o = run(&["spec-sync", &path, "--store", &store, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let drift = v["drift"].as_array().unwrap();
    let added: Vec<_> = drift.iter().filter(|d| d["kind"] == "added").collect();
    assert_eq!(added.len(), 1, "{v}");
    assert_eq!(added[0]["id"], "register-tool#4");
    assert!(added[0]["new_text"].as_str().unwrap().contains("sleeping"));
    // Every later step moved by one and nothing was lost.
    assert!(drift.iter().all(|d| d["kind"] != "removed"), "{v}");
    let moved = drift
        .iter()
        .find(|d| d["kind"] == "renumbered" && d["id"] == "register-tool#8")
        .expect("register-tool#8 moved");
    assert_eq!(moved["new_ids"][0], "register-tool#9");
    // What cites the old ID is named: the model's duplicate-name check, and our paraphrase of it.
    let transitions = moved["cited_by"]["transitions"].as_array().unwrap();
    assert!(transitions.iter().any(|t| t
        .as_str()
        .unwrap()
        .starts_with("model/src/algorithms/register_tool.rs:")));
    assert!(
        moved["paraphrase"].as_str().unwrap().contains("exists"),
        "{moved}"
    );
    assert_eq!(moved["fails"], true);
    assert!(v["failing"].as_u64().unwrap() > 0);
    // The algorithm-level issue of another algorithm is untouched.
    assert!(drift
        .iter()
        .all(|d| d["id"].as_str().unwrap().starts_with("register-tool#")));
}

#[test]
fn github_and_markdown_formats_name_the_lines_and_the_failing_steps() {
    let store = accepted_store("formats.tsv");
    let path = write("inserted-gh.bs", with_inserted_step());
    let o = run(&["spec-sync", &path, "--store", &store, "--format", "github"]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("::error ")).collect();
    assert!(!errors.is_empty(), "{out}");
    assert!(errors.iter().all(|l| l.contains(",line=")), "{out}");
    assert!(out.contains("title=added register-tool#4"), "{out}");
    let o = run(&[
        "spec-sync",
        &path,
        "--store",
        &store,
        "--format",
        "markdown",
    ]);
    let out = text(&o.stdout);
    assert!(out.starts_with("## Spec drift: 1 added"), "{out}");
    assert!(
        out.contains("| renumbered ❌ | `register-tool#8 -> register-tool#9` |"),
        "{out}"
    );
}

#[test]
fn drift_in_a_step_nothing_cites_is_reported_but_does_not_fail() {
    // register-tool#11.note.1 (an item of a note box) is cited by nothing in the model.
    let store = accepted_store("note.tsv");
    let from = "when the name is empty;";
    let edited = fixture().replacen(from, "when the name is blank or empty;", 1);
    assert_ne!(edited, fixture());
    let path = write("note.bs", edited);
    let o = run(&["spec-sync", &path, "--store", &store, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let drift = v["drift"].as_array().unwrap();
    assert_eq!(drift.len(), 1, "{v}");
    assert_eq!(drift[0]["kind"], "changed");
    assert_eq!(drift[0]["id"], "register-tool#11.note.1");
    assert_eq!(drift[0]["fails"], false);
}

#[test]
fn the_built_in_store_matches_the_draft_when_one_is_given() {
    // The project ships no copy of the draft: set WEBMCP_SPEC_FIXTURE to a checkout's index.bs
    // (at the commit spec/step-fingerprints.tsv names) to check the built-in store against it.
    let Ok(path) = std::env::var("WEBMCP_SPEC_FIXTURE") else {
        return;
    };
    let o = run(&["spec-sync", &path]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    assert!(text(&o.stdout).contains("no drift"), "{}", text(&o.stdout));
}

#[test]
fn bad_input_gets_one_line_and_exit_2() {
    let not_utf8 = write("latin1.bs", b"<div algorithm>\n1. caf\xe9\n</div>\n");
    let bad_store = write("bad.tsv", "no header\n");
    let unclosed = write("unclosed.bs", "<div algorithm=\"x\">\n1. Return.\n");
    let empty = write("empty.bs", "");
    let not_bikeshed = write("page.html", "<!doctype html><p>1. Not an algorithm.</p>\n");
    let dir = temp("a-directory");
    std::fs::create_dir_all(&dir).unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["spec-sync", "/nonexistent/index.bs"],
        vec!["spec-sync", &not_utf8],
        vec!["spec-sync", FIXTURE, "--store", &bad_store],
        vec!["spec-sync", &unclosed],
        vec!["spec-sync", &empty],
        vec![
            "spec-sync",
            &not_bikeshed,
            "--accept",
            "--store",
            &bad_store,
        ],
        vec!["spec-sync", dir.to_str().unwrap()],
        vec!["spec-sync", FIXTURE, "--format", "yaml"],
        vec![
            "spec-sync",
            FIXTURE,
            "--accept",
            "--store",
            "/nonexistent-dir/x.tsv",
        ],
    ];
    for args in cases {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stdout));
        let err = text(&o.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("webmcp-check: "), "{args:?}: {err}");
    }
}
