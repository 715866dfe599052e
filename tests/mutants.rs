//! `webmcp-check mutants`: the committed report is what the model gives, it meets the
//! target, and bad input gets one line and exit 2.

use std::process::Command;

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
        .args(args)
        .output()
        .expect("run webmcp-check")
}

#[test]
fn the_committed_mutation_report_is_up_to_date_and_every_survivor_is_explained() {
    let dir = std::env::temp_dir().join(format!("webmcp-mutation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let fresh_path = dir.join("mutation.md");
    let out = run(&["mutants", "-o", fresh_path.to_str().expect("UTF-8 path")]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "score below the target: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let fresh = std::fs::read_to_string(&fresh_path).expect("report written");
    let committed =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/mutation.md"))
            .expect("docs/mutation.md exists");
    assert!(
        fresh == committed,
        "docs/mutation.md is out of date: run `cargo run --release -- mutants -o docs/mutation.md`"
    );
    assert!(
        !fresh.contains("not analysed"),
        "a surviving mutant has no analysis"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn one_mutant_can_be_run_by_name() {
    let out = run(&["mutants", "--mutant", "negate-condition@execute-tool#16.7"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("killed by"), "{text}");
    assert!(text.contains("1 of 1 mutants killed"), "{text}");
}

#[test]
fn bad_mutants_input_is_one_line_and_exit_2() {
    for args in [
        &["mutants", "--mutant", "drop-step@nowhere#1"][..],
        &["mutants", "--operator", "flip-everything"][..],
        &["mutants", "--threads", "0"][..],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("webmcp-check: "), "{err}");
    }
}

/// Each mutant's fate class (killed, survived, equivalent), from the summary `mutants`
/// prints: one line per mutant, its name then its fate.
fn fates(args: &[&str]) -> Vec<(String, String)> {
    let out = run(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let name = words.next()?;
            let fate = words.next()?;
            name.contains('@')
                .then(|| (name.to_string(), fate.to_string()))
        })
        .collect()
}

#[test]
fn partial_order_reduction_kills_the_same_mutants() {
    let full = fates(&["mutants"]);
    let reduced = fates(&["mutants", "--reduction", "por"]);
    assert!(full.len() > 100, "{} mutants", full.len());
    assert_eq!(full, reduced);
}
