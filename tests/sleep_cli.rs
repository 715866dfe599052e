//! `check --reduction sleep` from the command line: the report of the unreduced search, but
//! for how many successors were built, and a clear refusal wherever sleep sets do not run.

mod common;
use common::{run, text};

fn report(reduction: &str, scenario: &str) -> serde_json::Value {
    let trace_dir = std::env::temp_dir().join(format!(
        "webmcp-sleep-cli-{}-{reduction}",
        std::process::id()
    ));
    let out = run(&[
        "check",
        "--scenario",
        scenario,
        "--reduction",
        reduction,
        "--format",
        "json",
        "--no-timings",
        "--trace-dir",
        trace_dir.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_dir_all(&trace_dir);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        text(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn sleep_sets_report_what_the_full_search_reports_with_fewer_successors() {
    for scenario in ["target-in-bfcache", "abort-racing-settlement"] {
        let mut full = report("none", scenario);
        let mut asleep = report("sleep", scenario);
        let built = |r: &mut serde_json::Value| {
            r["scenarios"][0]
                .as_object_mut()
                .unwrap()
                .remove("total_states")
                .unwrap()
                .as_u64()
                .unwrap()
        };
        let (built_full, built_asleep) = (built(&mut full), built(&mut asleep));
        assert!(
            built_asleep < built_full,
            "{scenario}: {built_asleep} of {built_full}"
        );
        // Counterexamples may take another path of the same length: compare lengths.
        for r in [&mut full, &mut asleep] {
            for p in r["scenarios"][0]["properties"].as_array_mut().unwrap() {
                for (_, v) in p.as_object_mut().unwrap().iter_mut() {
                    if let Some(path) = v.as_array().filter(|a| a.iter().all(|x| x.is_object())) {
                        *v = path.len().into();
                    }
                }
            }
        }
        assert_eq!(full, asleep, "{scenario}");
    }
}

#[test]
fn sleep_sets_are_refused_where_they_do_not_run() {
    for (args, says) in [
        (&["--threads", "2"][..], "--threads 1"),
        (&["--mode", "dfs"][..], "--mode bfs"),
        (&["--mode", "sim"][..], "--mode bfs"),
        (&["--symmetry"][..], "--symmetry"),
    ] {
        let mut all = vec![
            "check",
            "--scenario",
            "abort-before-dispatch",
            "--reduction",
            "sleep",
        ];
        all.extend_from_slice(args);
        let out = run(&all);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // Not offered at all (footprints are proven on the draft, not on mutants): --help's
    // possible values leave it out, and the value is refused as any unknown one.
    let out = run(&["mutants", "--reduction", "sleep"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("[possible values: none, por]"));
    assert_eq!(text(&out.stderr).trim().lines().count(), 1);
}
