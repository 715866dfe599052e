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
    let o = run(&["spec-sync", FIXTURE, "--store", &store, "--only-stored"]);
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
    let o = run(&[
        "spec-sync",
        &path,
        "--store",
        &store,
        "--only-stored",
        "--format",
        "json",
    ]);
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
    let o = run(&[
        "spec-sync",
        &path,
        "--store",
        &store,
        "--only-stored",
        "--format",
        "github",
    ]);
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
        "--only-stored",
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

/// A step whose text holds markup, an escape sequence and a right-to-left override (as
/// text or as character references): reported, never with any of it live.
#[test]
fn a_steps_text_is_shown_escaped_in_every_format() {
    let store = accepted_store("hostile.tsv");
    let anchor = "1. If |owner| may not use";
    let hostile = fixture().replacen(
        anchor,
        "1. Let &lt;img src=x onerror=alert(1)&gt; be [click](javascript:alert(1)) | `code` \
         &#x202E;rlo &#27;[31m \u{202e}raw \u{1b}[2J.\n\n1. If |owner| may not use",
        1,
    );
    let path = write("hostile.bs", hostile);
    for format in ["human", "markdown", "github"] {
        let o = run(&["spec-sync", &path, "--store", &store, "--format", format]);
        assert_eq!(o.status.code(), Some(1), "{format}");
        let out = text(&o.stdout);
        common::assert_printable(format, &out);
        if format != "github" {
            assert!(out.contains("\\u{202e}rlo \\u{1b}"), "{format}: {out}");
        }
        if format == "markdown" {
            assert!(out.contains("\\<img src=x onerror=alert(1)\\>"), "{out}");
            assert!(!out.contains("[click]("), "{out}");
        }
    }
}

#[test]
fn drift_in_a_step_nothing_cites_is_reported_but_does_not_fail() {
    // register-tool#11.note.1 (an item of a note box) is cited by nothing in the model.
    let store = accepted_store("note.tsv");
    let from = "when the name is empty;";
    let edited = fixture().replacen(from, "when the name is blank or empty;", 1);
    assert_ne!(edited, fixture());
    let path = write("note.bs", edited);
    let o = run(&[
        "spec-sync",
        &path,
        "--store",
        &store,
        "--only-stored",
        "--format",
        "json",
    ]);
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

/// A source of one algorithm holding nothing but an issue (under a real slug).
const ONLY_ISSUE: &str =
    "<div algorithm>\nThe <dfn>declarative execute steps</dfn> are as follows:\n\nIssue: Specify these steps.\n\n</div>\n";

#[test]
fn a_store_that_lacks_what_the_model_cites_is_no_pass() {
    // The store and the source both lack nearly every step the model cites: judging only what
    // the store has would report "no drift" after checking nothing.
    let source = write("only-issue.bs", ONLY_ISSUE);
    let store = temp("header-only.tsv");
    std::fs::write(&store, "# source: x\n").unwrap();
    let store = store.to_str().unwrap().to_string();
    for accepted in [false, true] {
        let o = run(&["spec-sync", &source, "--store", &store, "--format", "json"]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let drift = v["drift"].as_array().unwrap();
        let missing: Vec<_> = drift.iter().filter(|d| d["kind"] == "missing").collect();
        assert!(missing.len() > 100, "{accepted}: {}", missing.len());
        assert!(missing.iter().all(|d| d["fails"] == true));
        let register = missing
            .iter()
            .find(|d| d["id"] == "register-tool#8")
            .expect("a cited step of another algorithm");
        assert_eq!(register["new_ids"].as_array().unwrap().len(), 0);
        assert!(drift
            .iter()
            .all(|d| d["id"] != "declarative-execute-steps.issue" || d["kind"] != "missing"));
        let o = run(&["spec-sync", &source, "--store", &store]);
        let out = text(&o.stdout);
        assert!(!out.contains("no drift") && !out.contains("no step the model cites drifted"));
        assert!(out.contains("cited but not in the store"), "{out}");
        assert!(out.contains("in neither the store nor the source"), "{out}");
        assert!(out.trim_end().ends_with("(the built-in one is)"), "{out}");
        // Asked to judge only what the store has: with none of the cited steps, nothing was
        // judged (exit 3, never a pass); with the one it was accepted with, it passes, and
        // says what it left out.
        let o = run(&["spec-sync", &source, "--store", &store, "--only-stored"]);
        let out = text(&o.stdout);
        let verdict = out.trim_end().lines().last().unwrap();
        if accepted {
            assert_eq!(o.status.code(), Some(0), "{out}");
            assert!(
                verdict.contains("--only-stored: ") && verdict.contains("not judged"),
                "{verdict}"
            );
        } else {
            assert_eq!(o.status.code(), Some(3), "{out}");
            assert!(verdict.starts_with("exit 3: nothing judged"), "{verdict}");
        }
        if !accepted {
            let o = run(&["spec-sync", &source, "--accept", "--store", &store]);
            assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        }
    }
}

#[test]
fn a_cited_step_the_store_lacks_but_the_source_has_is_reported() {
    // A store without register-tool#8 (a cited step), against the fixture that has it: the
    // step is added, and that fails as it did; nothing else about it is invented.
    let store = accepted_store("lacks-8.tsv");
    let rows = std::fs::read_to_string(&store).unwrap();
    let kept: String = rows
        .lines()
        .filter(|l| !l.starts_with("register-tool#8\t"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(kept, rows);
    std::fs::write(&store, kept).unwrap();
    let o = run(&[
        "spec-sync",
        FIXTURE,
        "--store",
        &store,
        "--only-stored",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["failing"], 1, "{v}");
    let about_8: Vec<_> = v["drift"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["id"] == "register-tool#8")
        .collect();
    assert_eq!(about_8.len(), 1, "{v}");
    assert_eq!(about_8[0]["kind"], "added");
    assert_eq!(about_8[0]["fails"], true);
}

#[test]
fn label_is_refused_before_any_work_when_it_cannot_apply() {
    let store = temp("label.tsv");
    let _ = std::fs::remove_file(&store);
    let store = store.to_str().unwrap();
    for args in [
        vec![
            "spec-sync",
            FIXTURE,
            "--accept",
            "--store",
            store,
            "--label",
            "a\nb",
        ],
        vec![
            "spec-sync",
            FIXTURE,
            "--accept",
            "--store",
            store,
            "--label",
            "a\u{1b}[2Jb",
        ],
        vec![
            "spec-sync",
            FIXTURE,
            "--accept",
            "--store",
            store,
            "--label",
            "evil\u{202e}abc\u{2066}x",
        ],
        vec![
            "spec-sync",
            FIXTURE,
            "--store",
            store,
            "--label",
            "commit 0023abd",
        ],
        vec!["spec-sync", FIXTURE, "--label", "x"],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}: {}", text(&o.stdout));
        let err = text(&o.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("--label"), "{err}");
        assert!(!std::path::Path::new(store).exists());
    }
    let o = run(&[
        "spec-sync",
        FIXTURE,
        "--accept",
        "--store",
        store,
        "--label",
        "commit 0023abd",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(std::fs::read_to_string(store)
        .unwrap()
        .starts_with("# source: commit 0023abd\n"));
}

#[test]
fn a_store_with_crlf_line_endings_reads_as_the_same_store() {
    let store = accepted_store("crlf.tsv");
    let lf = std::fs::read_to_string(&store).unwrap();
    std::fs::write(&store, lf.replace('\n', "\r\n")).unwrap();
    let o = run(&["spec-sync", FIXTURE, "--store", &store, "--only-stored"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("no drift"));
}

#[test]
fn a_store_row_whose_id_is_not_a_step_id_is_refused() {
    let store = accepted_store("bad-id.tsv");
    let rows = std::fs::read_to_string(&store).unwrap();
    let first = rows
        .lines()
        .nth(1)
        .unwrap()
        .split('\t')
        .next()
        .unwrap()
        .to_string();
    for bad in ["foo bar", "tool-exposed-to-origin#99999999999999999999999"] {
        std::fs::write(
            &store,
            rows.replacen(&format!("{first}\t"), &format!("{bad}\t"), 1),
        )
        .unwrap();
        let o = run(&["spec-sync", FIXTURE, "--store", &store]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", text(&o.stdout));
        let err = text(&o.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.contains("Line 2 of the store") && err.contains(bad),
            "{err}"
        );
    }
}

#[test]
fn a_store_without_any_cited_step_judges_nothing_and_is_never_a_pass() {
    // An algorithm the model does not know, against a store of only a header: nothing drifted,
    // and nothing the model cites was judged.
    let source = write(
        "unknown.bs",
        "<div algorithm>\nTo <dfn>frobnicate the widget</dfn>, run these steps:\n\n1. Return false.\n\n</div>\n",
    );
    let store = write("nothing.tsv", "# source: nothing\n");
    let human = run(&["spec-sync", &source, "--store", &store, "--only-stored"]);
    let out = text(&human.stdout);
    assert_eq!(human.status.code(), Some(3), "{out}");
    let verdict = out.trim_end().lines().last().unwrap();
    assert!(verdict.starts_with("exit 3: nothing judged"), "{verdict}");
    let json = run(&[
        "spec-sync",
        &source,
        "--store",
        &store,
        "--only-stored",
        "--format",
        "json",
    ]);
    assert_eq!(json.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["exit"], 3, "{v}");
}
