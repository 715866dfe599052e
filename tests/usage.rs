//! The command line as a new user and an adversary meet it: a closed pipe, bad flag values,
//! `--help`, the closing summary, and GitHub annotations that point at the right file.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("webmcp-usage-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `webmcp-check list | head -1`, and the same for commands that print a lot: the program
/// stops printing without a panic, and its exit status is still what it found. A reader that
/// stops early must not turn a violation (1) or an incomplete run (3) into a pass (0).
#[test]
fn a_closed_stdout_ends_printing_but_not_the_verdict() {
    fn check(extra: &[&'static str]) -> Vec<&'static str> {
        let mut args = vec!["check", "--all", "--quiet", "--verbose", "--no-timings"];
        args.extend_from_slice(extra);
        args
    }
    // Each prints far more than a pipe holds (half a megabyte for the checks), so a write
    // after the reader is gone fails.
    for (args, status) in [
        (vec!["list"], 0),
        (vec!["list", "--profile", "legacy"], 0),
        (vec!["coverage"], 0),
        (check(&[]), 1),
        (check(&["--variant", "proposed", "--max-states", "50"]), 3),
    ] {
        let mut child = bin()
            .args(&args)
            .args(if args[0] == "check" {
                vec![
                    "--trace-dir".to_string(),
                    scratch("pipe").display().to_string(),
                ]
            } else {
                vec![]
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(!first.is_empty(), "{args:?} printed nothing");
        // The reader is gone: the next write finds a closed pipe.
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn bad_flag_values_are_one_line_usage_errors() {
    let cases: &[&[&str]] = &[
        &["check", "--all", "--variant", "seed+"],
        &["check", "--all", "--variant", "proposed-"],
        &[
            "check",
            "--all",
            "--variant",
            "seed+object-check+object-check",
        ],
        &["check", "--all", "--scenario", "abort-before-dispatch"],
        &[
            "check",
            "--scenario",
            "abort-before-dispatch",
            "--seed",
            "3",
        ],
        &[
            "check",
            "--scenario",
            "abort-before-dispatch",
            "--runs",
            "5",
        ],
        &[
            "check",
            "--scenario",
            "abort-before-dispatch",
            "--mode",
            "sim",
            "--runs",
            "0",
        ],
        &[
            "check",
            "--scenario",
            "abort-before-dispatch",
            "--threads",
            "0",
        ],
        &[
            "check",
            "--scenario",
            "abort-before-dispatch",
            "--mode",
            "dfs",
            "--symmetry",
        ],
        &[
            "check",
            "--profile",
            "legacy",
            "--all",
            "--variant",
            "chosen+",
        ],
        &[
            "check",
            "--scenario",
            "abort-before-dispatch",
            "--mode",
            "sim",
            "--reduction",
            "por",
        ],
        &[
            "check",
            "--scenario",
            "abort-before-dispatch",
            "--mode",
            "dfs",
            "--frontier",
            "bytes",
        ],
        &[
            "check",
            "--profile",
            "legacy",
            "--all",
            "--frontier",
            "bytes",
        ],
        &["check", "--all", "--frontier", "compact"],
        &["sweep", "--reduction", "sometimes"],
        &["mutants", "--min-score", "200"],
        &["mutants", "--min-score", "-1"],
        &["mutants", "--bound", "0"],
        &["conformance", "--all", "--page-timeout", "0"],
        &["legacy-conformance", "--page-timeout", "0"],
        &[
            "record",
            "--dir",
            "/nonexistent/site",
            "--page",
            "a.html",
            "-o",
            "/tmp/x.jsonl",
        ],
        &[
            "record",
            "--dir",
            "conformance/tests/fixtures/record",
            "--page",
            "none.html",
            "-o",
            "/tmp/x.jsonl",
        ],
        &[
            "record",
            "--dir",
            ".",
            "--page",
            "a.html",
            "--page-timeout",
            "0",
            "-o",
            "/tmp/x.jsonl",
        ],
        &["check", "--all", "--revision", "pr999"],
        &["check", "--all", "--variant", "seed@"],
        &[
            "check",
            "--all",
            "--variant",
            "seed@pr247",
            "--revision",
            "pr247",
        ],
        &[
            "check",
            "--profile",
            "legacy",
            "--all",
            "--revision",
            "pr247",
        ],
        &[
            "check",
            "--scenario",
            "kept-model-context",
            "--variant",
            "proposed@current@pr247",
        ],
        &["coverage", "--variant", "seed+nope"],
        &["report", "--variant", "seed+"],
        // Each of these was silently ignored or ran a degenerate table, exit 0.
        &["bench", "--family", "tabs"],
        &["bench", "--scaling", "--max-size", "0"],
        &["bench", "--scaling", "--limit-seconds", "0"],
        &["bench", "--scaling", "--limit-seconds", "NaN"],
        // --timeout bounds each run, so an unbounded count of runs ran for ever.
        &["bench", "--repeat", "0"],
        &["bench", "--repeat", "1001"],
        &["bench", "--repeat", "18446744073709551615"],
        &["coverage", "--scenario", "register-and-discover", "--all"],
        &["mutants", "--mutant", "x", "--operator", "drop-step"],
        // Flags that would do nothing in the mode asked for are refused, not ignored.
        &[
            "check",
            "--scenario",
            "abort-before-dispatch",
            "--mode",
            "sim",
            "--threads",
            "2",
        ],
        &["sweep", "--count", "--jobs", "2"],
        &["sweep", "--count", "--max-states", "5"],
        &["sweep", "--count", "--reduction", "por"],
        &["sweep", "--count", "--memory-limit", "1"],
        &["bench", "--scaling", "--scenario", "tool-throws"],
        &["bench", "--print-family", "tabs:3", "--repeat", "2"],
        &["bench", "--print-family", "tabs:3", "--threads", "2"],
        &["bench", "--print-family", "tabs:3", "--format", "json"],
        &["bench", "--print-family", "tabs:3", "--timeout", "5"],
        &["bench", "--print-family", "tabs:3", "--memory-limit", "5"],
        &["bench", "--scaling", "--threads", "4"],
        &["bench", "--scaling", "--symmetry"],
        &[
            "bench",
            "--print-family",
            "tabs:3",
            "--scenario",
            "tool-throws",
        ],
    ];
    for args in cases {
        let out = bin().args(*args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("webmcp-check: "), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?} printed a report");
    }
}

/// clap lists what it misses or accepts on lines of their own; the one line keeps them.
#[test]
fn a_usage_error_names_the_argument_it_is_about() {
    for (args, want) in [
        (
            &["bench", "--family", "tabs"][..],
            "webmcp-check: the following required arguments were not provided: --scaling\n",
        ),
        (
            &["check", "--mode", "xyz"][..],
            "webmcp-check: invalid value 'xyz' for '--mode <MODE>' [possible values: bfs, dfs, sim]\n",
        ),
    ] {
        let out = bin().args(args).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stderr), want, "{args:?}");
        assert_eq!(out.status.code(), Some(2));
    }
}

#[test]
fn an_error_line_shows_what_reorders_a_line_escaped_and_stays_one_readable_line() {
    // A right-to-left override in an argument, a path or a name from a file would reorder
    // the rest of the line on the terminal.
    for args in [
        vec![
            "check",
            "--scenario",
            "register-and-discover",
            "--variant",
            "seed+\u{202e}X",
        ],
        vec!["check", "--scenario-file", "/nonexistent/\u{202e}evil.json"],
        vec!["check", "--scenario", "x\u{2066}y\u{2028}z"],
    ] {
        let out = bin().args(&args).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            !err.chars()
                .any(|c| matches!(c, '\u{202e}' | '\u{2066}' | '\u{2028}')),
            "{err:?}"
        );
        assert!(
            err.contains("\\u{202e}") || err.contains("\\u{2066}"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // An unknown scenario name as long as an argument can be: the line is cut.
    let long = "n".repeat(100_000);
    let out = bin().args(["check", "--scenario", &long]).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.chars().count() < 2_100 && err.trim_end().ends_with('…'),
        "{}",
        err.len()
    );
}

#[test]
fn every_command_lists_its_exit_codes_in_help() {
    for cmd in [
        "list",
        "check",
        "report",
        "coverage",
        "bench",
        "replay",
        "minimize",
        "explain",
        "conformance",
        "corpus",
        "findings",
        "properties",
        "mutants",
        "legacy-conformance",
        "record",
        "explore",
    ] {
        let out = bin().args([cmd, "--help"]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{cmd}");
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("Exit codes"), "{cmd} --help: {help}");
    }
    let top = bin().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&top.stdout);
    assert!(help.contains("Exit codes") && help.contains("WEBMCP_CHROMIUM"));
}

#[test]
fn check_all_ends_with_a_summary_that_explains_exit_1() {
    let out = bin()
        .args(["check", "--all", "--quiet", "--no-timings", "--trace-dir"])
        .arg(scratch("summary"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let summary = &text[text.rfind("\nsummary: ").expect("a summary") + 1..];
    let scenarios = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "json"))
        })
        .count();
    assert!(
        summary.starts_with(&format!("summary: {scenarios} scenario(s) under seed")),
        "{summary}"
    );
    assert!(
        summary.contains("exit 1: properties are violated"),
        "{summary}"
    );
    assert!(summary.contains("expected"), "{summary}");
    assert!(summary.contains("docs/findings.md"), "{summary}");
    assert!(
        summary.contains("--verbose") && summary.contains("explain"),
        "{summary}"
    );

    let out = bin()
        .args([
            "check",
            "--all",
            "--quiet",
            "--variant",
            "proposed",
            "--trace-dir",
        ])
        .arg(scratch("summary-proposed"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("exit 0: every property held"), "{text}");
}

#[test]
fn verbose_gives_each_property_its_claim() {
    let out = bin()
        .args([
            "check",
            "--scenario",
            "register-and-discover",
            "--verbose",
            "--quiet",
            "--trace-dir",
        ])
        .arg(scratch("verbose"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with("hold") && l.contains("execute-settles-once"))
        .expect("execute-settles-once is listed");
    let claim = lines[at + 1].trim();
    assert!(!claim.is_empty() && !claim.starts_with("hold"), "{text}");
}

#[test]
fn github_annotations_point_at_the_scenario_file_that_was_given() {
    let dir = scratch("github");
    let file = dir.join("mine.json");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/abort-before-dispatch.json"
    ))
    .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["name"] = "mine".into();
    std::fs::write(&file, v.to_string()).unwrap();
    let out = bin()
        .args(["check", "--format", "github", "--quiet", "--scenario-file"])
        .arg(&file)
        .arg("--trace-dir")
        .arg(dir.join("traces"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let want = format!(
        "::error file={},",
        file.display().to_string().replace(':', "%3A")
    );
    assert!(text.lines().all(|l| l.starts_with(&want)), "{text}");
    assert!(!text.contains("scenarios/mine.json"), "{text}");
}

#[test]
fn an_expect_block_names_only_catalogue_properties_and_real_verdicts() {
    let dir = scratch("expect");
    for (profile, source, good) in [
        (
            "draft",
            "scenarios/abort-before-dispatch.json",
            "execute-settles-once",
        ),
        ("legacy", "scenarios/legacy/concurrent-executions.json", ""),
    ] {
        let text =
            std::fs::read_to_string(format!("{}/{source}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let base: serde_json::Value = serde_json::from_str(&text).unwrap();
        let good = if good.is_empty() {
            base["expect"]
                .as_object()
                .unwrap()
                .keys()
                .next()
                .unwrap()
                .clone()
        } else {
            good.to_string()
        };
        for (expect, complaint) in [
            (
                serde_json::json!({"no-such-property": "hold"}),
                "no-such-property",
            ),
            (serde_json::json!({good.clone(): "maybe"}), "maybe"),
        ] {
            let mut v = base.clone();
            v["expect"] = expect;
            let file = dir.join(format!("{profile}.json"));
            std::fs::write(&file, v.to_string()).unwrap();
            let mut check = bin();
            check
                .args(["check", "--profile", profile, "--quiet", "--scenario-file"])
                .arg(&file);
            if profile == "draft" {
                // The legacy profile writes no traces, and refuses --trace-dir.
                check.arg("--trace-dir").arg(dir.join("traces"));
            }
            let out = check.output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{profile}: {stderr}");
            assert!(stderr.contains(complaint), "{profile}: {stderr}");
        }
    }
}

#[test]
fn an_unwritable_output_is_refused_before_the_work_and_leaves_nothing_behind() {
    let dir = scratch("unwritable");
    for cmd in ["report", "findings", "mutants"] {
        for out in [
            dir.clone(),
            dir.join("missing/parent/out.md"),
            std::path::PathBuf::from("/proc/self/nope/out.md"),
        ] {
            let started = std::time::Instant::now();
            let o = bin().args([cmd, "-o"]).arg(&out).output().unwrap();
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert_eq!(
                o.status.code(),
                Some(2),
                "{cmd} -o {}: {stderr}",
                out.display()
            );
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            // Refused before exploring: the work takes seconds, the refusal milliseconds.
            assert!(
                started.elapsed() < std::time::Duration::from_secs(2),
                "{cmd}"
            );
        }
    }
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "temporary files left behind: {left:?}");
}

/// A newline or tab in a path or a value the user gave comes back escaped: the error is one
/// line on stderr, whichever command reports it.
#[test]
fn control_characters_in_what_the_user_gave_are_escaped_in_the_error() {
    for args in [
        vec!["replay", "/nonexistent/no\nsuch.itf.json"],
        vec!["explain", "/nonexistent/no\rsuch.itf.json"],
        vec!["check", "--scenario-file", "/nonexistent/a\tb.json"],
        vec!["check", "--variant", "seed\n", "--scenario", "x"],
        vec!["sweep", "--bound", "tiny\nx"],
        vec!["validate", "/nonexistent/log\n.jsonl"],
        vec!["merge", "/nonexistent/a\n.json", "/nonexistent/b.json"],
    ] {
        let out = bin().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err:?}");
        assert!(err.ends_with('\n') && !err.contains('\r') && !err.contains('\t'));
        assert!(
            err.contains("\\n") || err.contains("\\r") || err.contains("\\t"),
            "{err}"
        );
    }
}

/// `bench --print-family` prints only scenarios `check --scenario-file` takes: a size beyond
/// the model's limits is refused with the limit named, not printed for `check` to refuse.
#[test]
fn print_family_refuses_a_size_check_would_refuse() {
    for (family, limit) in [
        ("executions:64", "MAX_CALLS"),
        ("tabs:33", "MAX_TABS"),
        ("iframes:32", "MAX_NAVIGABLES"),
    ] {
        let out = bin()
            .args(["bench", "--print-family", family])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{family}");
        assert!(out.stdout.is_empty(), "{family}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.lines().count() == 1 && err.contains(limit),
            "{family}: {err}"
        );
    }
    let dir = scratch("print-family");
    let out = bin()
        .args(["bench", "--print-family", "executions:2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let file = dir.join("executions-2.json");
    std::fs::write(&file, &out.stdout).unwrap();
    let checked = bin()
        .args(["check", "--quiet", "--scenario-file"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(checked.status.code(), Some(0));
}
