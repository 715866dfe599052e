//! `check --phases` from the command line: the report of the untimed search, and after it
//! where the search's time went; a clear refusal wherever the search is not the one it times.

mod common;
use common::{run, run_with_trace_dir, text};

fn check(extra: &[&str]) -> (serde_json::Value, std::process::Output) {
    let mut args = vec!["check", "--scenario", "tool-events", "--quiet"];
    args.extend_from_slice(extra);
    let out = run_with_trace_dir(&format!("phases-cli-{}", extra.join("")), &args);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        text(&out.stderr)
    );
    let json = if extra.contains(&"json") {
        serde_json::from_slice(&out.stdout).unwrap()
    } else {
        serde_json::Value::Null
    };
    (json, out)
}

#[test]
fn the_json_report_adds_the_phases_and_changes_nothing_else() {
    for reduction in ["none", "por"] {
        let common = ["--format", "json", "--reduction", reduction];
        let (mut plain, _) = check(&common);
        let (mut timed, _) = check(&[&common[..], &["--phases"]].concat());
        let phases = timed["scenarios"][0]
            .as_object_mut()
            .unwrap()
            .remove("phases")
            .expect("a phases member");
        for r in [&mut plain, &mut timed] {
            r["scenarios"][0].as_object_mut().unwrap().remove("seconds");
        }
        assert_eq!(plain, timed, "--reduction {reduction}");
        let names: Vec<&str> = phases["phases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["phase"].as_str().unwrap())
            .collect();
        for phase in [
            "frontier",
            "actions",
            "judging",
            "building",
            "fingerprinting",
        ] {
            assert!(names.contains(&phase), "{phase} in {names:?}");
        }
        // Persistent sets are asked for only under partial-order reduction.
        assert_eq!(
            names.contains(&"reduction"),
            reduction == "por",
            "{names:?}"
        );
        let shares: f64 = phases["phases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["share"].as_f64().unwrap())
            .sum();
        assert!((shares - 1.0).abs() < 1e-6, "{shares}");
        assert!(phases["clock_reads"].as_u64().unwrap() > 0);
    }
}

#[test]
fn the_human_report_says_where_the_time_went_after_the_scenario() {
    let (_, out) = check(&["--phases"]);
    let stdout = text(&out.stdout);
    let at = stdout.find("where the time went").expect(&stdout);
    assert!(stdout[..at].contains("tool-events [seed]"), "{stdout}");
    assert!(stdout[at..].contains("building successors"), "{stdout}");
    assert!(stdout[at..].contains("clock reads at"), "{stdout}");
}

#[test]
fn phases_are_refused_where_the_search_is_not_the_one_thread_search() {
    for extra in [
        &["--threads", "2"][..],
        &["--mode", "sim"],
        &["--reduction", "sleep"],
        &["--no-timings"],
        &["--engine", "timely"],
    ] {
        let mut args = vec!["check", "--scenario", "tool-events", "--phases", "--quiet"];
        args.extend_from_slice(extra);
        let out = run(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{extra:?}: {}",
            text(&out.stderr)
        );
        let err = text(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            err.contains("--phases times the one-thread search"),
            "{err}"
        );
    }
    // Formats with no place for the times refuse it rather than drop it.
    for format in ["junit", "markdown", "github"] {
        let out = run(&[
            "check",
            "--scenario",
            "tool-events",
            "--phases",
            "--quiet",
            "--format",
            format,
        ]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{format}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            err.contains("--phases adds to the human and JSON reports"),
            "{err}"
        );
    }
}
