//! `check --forget-facts` from the command line: the report of the search without it, but
//! for how many states were stored, and a clear refusal wherever it does not run.

mod common;
use common::{run, run_with_trace_dir, text};

fn report(extra: &[&str], scenario: &str) -> serde_json::Value {
    let mut args = vec![
        "check",
        "--scenario",
        scenario,
        "--format",
        "json",
        "--no-timings",
    ];
    args.extend_from_slice(extra);
    let out = run_with_trace_dir(&format!("forget-facts-cli-{}", extra.join("")), &args);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        text(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn forgetting_dead_facts_reports_what_the_full_search_reports_in_fewer_states() {
    for threads in ["1", "2"] {
        let mut full = report(&["--threads", threads], "target-in-bfcache");
        let mut forgot = report(
            &["--threads", threads, "--forget-facts"],
            "target-in-bfcache",
        );
        let take = |r: &mut serde_json::Value, key: &str| {
            r["scenarios"][0]
                .as_object_mut()
                .unwrap()
                .remove(key)
                .unwrap()
                .as_u64()
                .unwrap()
        };
        let (stored, stored_forgetting) = (
            take(&mut full, "unique_states"),
            take(&mut forgot, "unique_states"),
        );
        assert_eq!(stored, 108_900);
        assert_eq!(stored_forgetting, 48_731, "{threads} thread(s)");
        // Fewer states stored, so a smaller chance that two shared a fingerprint.
        let chance = |r: &mut serde_json::Value| {
            r["scenarios"][0]
                .as_object_mut()
                .unwrap()
                .remove("fingerprint_collision_chance")
                .unwrap()
                .as_f64()
                .unwrap()
        };
        assert!(chance(&mut forgot) < chance(&mut full));
        // Fewer states also means fewer generated, and a shallower deepest stored state.
        for key in ["total_states", "max_depth"] {
            assert!(take(&mut forgot, key) < take(&mut full, key), "{key}");
        }
        // Here, on one thread, the same paths step for step; on two, where the least key
        // among a level's discoveries wins, the same lengths.
        if threads == "2" {
            for r in [&mut full, &mut forgot] {
                for p in r["scenarios"][0]["properties"].as_array_mut().unwrap() {
                    if let Some(path) = p["counterexample"].as_array() {
                        p["counterexample"] = path.len().into();
                    }
                }
            }
        }
        assert!(full == forgot, "{threads} thread(s): the reports differ");
    }
}

#[test]
fn forgetting_dead_facts_is_refused_where_it_does_not_run() {
    for (args, says) in [
        (&["--mode", "dfs"][..], "--mode bfs"),
        (&["--mode", "sim"][..], "--mode bfs"),
        (&["--reduction", "sleep"][..], "--reduction sleep"),
        (&["--profile", "legacy"][..], "--profile legacy"),
        (&["--engine", "timely"][..], "--engine timely"),
    ] {
        let mut all = vec![
            "check",
            "--scenario",
            "abort-before-dispatch",
            "--forget-facts",
        ];
        all.extend_from_slice(args);
        let out = run(&all);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
