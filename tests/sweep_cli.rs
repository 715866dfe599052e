//! `webmcp-check sweep` from the command line: bad bounds and flags, shards, byte-identical
//! reports, budgets that stop a sweep (exit 3, never a pass), and the files `--out` writes.

use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
}

fn sweep(args: &[&str]) -> Output {
    bin()
        .arg("sweep")
        .arg("--quiet")
        .args(args)
        .output()
        .unwrap()
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("webmcp-sweep-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// One document, at most three statements, one move: about a thousand scenarios, a few
/// seconds.
const SMALL_BOUND: &str = "docs=1,stmts=3,total=3,moves=1";

#[test]
fn bad_bounds_and_flags_exit_2_with_one_line() {
    let file = scratch("bad").join("a-file");
    std::fs::write(&file, "").unwrap();
    let not_a_dir = file.join("out");
    let cases: Vec<Vec<&str>> = vec![
        vec!["--bound", "huge"],
        vec!["--bound", ""],
        vec!["--bound", "docs=0"],
        vec!["--bound", "docs=7"],
        vec!["--bound", "docs=two"],
        vec!["--bound", "colour=2"],
        vec!["--bound", "docs=2,docs=3"],
        vec!["--bound", "stmts=3,tiny"],
        vec!["--bound", "tabs=2,docs=1"],
        vec!["--shard", "0/4"],
        vec!["--shard", "5/4"],
        vec!["--shard", "1/0"],
        vec!["--shard", "half"],
        vec!["--seed", "3"],
        vec!["--sample", "0"],
        vec!["--sample", "many"],
        vec!["--jobs", "0"],
        vec!["--max-states", "0"],
        vec!["--variant", "nope"],
        vec!["--format", "xml"],
        vec!["--count", "--sample", "3"],
        vec!["--out", not_a_dir.to_str().unwrap()],
        vec!["--out", file.to_str().unwrap()],
    ];
    for args in cases {
        let out = sweep(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("webmcp-check: "), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?} printed a report");
        if args[0] == "--out" {
            assert!(
                stderr.to_lowercase().contains("not a directory"),
                "{stderr}"
            );
        }
    }
}

#[test]
fn help_lists_the_exit_codes_and_the_bound_keys() {
    let out = bin().args(["sweep", "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("Exit codes") && help.contains("tiny|small|medium"),
        "{help}"
    );
}

#[test]
fn the_tiny_preset_under_a_shard_runs_and_exits_1_under_seed() {
    let out = sweep(&["--bound", "tiny", "--shard", "1/4", "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(v["preset"], "tiny");
    assert_eq!(v["raw"], 6366);
    assert_eq!(v["canonical"], 6366);
    assert_eq!(v["selected"], 1592);
    assert_eq!(v["checked"], 1592);
    assert_eq!(v["incomplete"], 0);
    assert!(v["violated_properties"].as_u64().unwrap() > 0);
}

#[test]
fn shards_add_up_to_the_whole_sweep() {
    let whole = json(&sweep(&["--bound", SMALL_BOUND, "--format", "json"]));
    let n = 3;
    let parts: Vec<serde_json::Value> = (1..=n)
        .map(|i| {
            json(&sweep(&[
                "--bound",
                SMALL_BOUND,
                "--format",
                "json",
                "--shard",
                &format!("{i}/{n}"),
            ]))
        })
        .collect();
    let sum = |key: &str| parts.iter().map(|p| p[key].as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum("selected"), whole["canonical"].as_u64().unwrap());
    assert_eq!(sum("checked"), whole["checked"].as_u64().unwrap());
    assert_eq!(sum("total_states"), whole["total_states"].as_u64().unwrap());
    let props = whole["properties"].as_array().unwrap();
    assert!(props.iter().any(|p| p["violating"].as_u64().unwrap() > 0));
    for (i, p) in props.iter().enumerate() {
        let parts_sum: u64 = parts
            .iter()
            .map(|x| x["properties"][i]["violating"].as_u64().unwrap())
            .sum();
        assert_eq!(parts_sum, p["violating"].as_u64().unwrap(), "{}", p["name"]);
        // The whole's smallest violating scenario is the smallest of the shards' ones.
        let best = parts
            .iter()
            .filter_map(|x| {
                let s = &x["properties"][i]["smallest"];
                (!s.is_null()).then(|| {
                    (
                        s["statements"].as_u64().unwrap(),
                        s["documents"].as_u64().unwrap(),
                        s["counterexample_length"].as_u64().unwrap(),
                        s["index"].as_u64().unwrap(),
                    )
                })
            })
            .min();
        let s = &p["smallest"];
        assert_eq!(
            best.map(|b| b.3),
            s["index"].as_u64(),
            "{}: the smallest scenario depends on the shard",
            p["name"]
        );
    }
}

#[test]
fn no_timings_output_is_byte_identical_in_every_format_and_with_more_jobs() {
    for format in ["human", "json", "junit", "markdown", "github"] {
        let run = |jobs: &str| {
            sweep(&[
                "--bound",
                SMALL_BOUND,
                "--shard",
                "2/5",
                "--format",
                format,
                "--no-timings",
                "--jobs",
                jobs,
            ])
        };
        let (a, b) = (run("1"), run("2"));
        assert_eq!(a.status.code(), Some(1), "{format}");
        assert!(!a.stdout.is_empty(), "{format}");
        assert_eq!(a.stdout, b.stdout, "{format} differs between runs");
        if format == "junit" {
            let text = String::from_utf8(a.stdout).unwrap();
            roxmltree::Document::parse(&text).expect("well-formed JUnit XML");
        }
    }
}

#[test]
fn a_budget_that_stops_the_sweep_is_exit_3_never_a_pass() {
    // No bfcache, no aborts, and one statement (a page that navigates itself after a call
    // reaches the draft's missing-traversable findings): nothing in this space is violated
    // under seed, so only the budget decides the exit status.
    let bound = "docs=1,stmts=1,total=1,moves=0";
    let full = sweep(&["--bound", bound]);
    assert_eq!(
        full.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&full.stdout)
    );
    let stopped = sweep(&["--bound", bound, "--max-states", "3", "--format", "json"]);
    assert_eq!(stopped.status.code(), Some(3));
    let v = json(&stopped);
    assert!(v["incomplete"].as_u64().unwrap() > 0);
    // The report names the scenarios the bound stopped, to re-run them on their own.
    let named = v["stopped"].as_array().unwrap();
    assert!(!named.is_empty() && named.len() <= 10);
    assert!(named[0]["scenario"].as_str().unwrap().starts_with('g'));
    let out = sweep(&["--bound", bound, "--timeout", "0"]);
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("INCOMPLETE") && text.contains("exit 3"),
        "{text}"
    );
}

/// `--timeout` takes any number of seconds; one past what the clock can add to now is no
/// deadline at all, not a panic (it was `overflow when adding duration to instant`).
#[test]
fn a_timeout_beyond_the_clock_is_no_deadline() {
    let bound = "docs=1,stmts=1,total=1,moves=0";
    for extra in [&[][..], &["--count"][..], &["--sample", "2"][..]] {
        let mut args = vec!["--bound", bound, "--timeout", "18446744073709551615"];
        args.extend_from_slice(extra);
        let out = sweep(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{extra:?}: {err}");
        assert_eq!(out.status.code(), Some(0), "{extra:?}: {err}");
    }
}

#[test]
fn out_writes_each_smallest_scenario_and_a_trace_that_replays() {
    let dir = scratch("out");
    let run = || {
        sweep(&[
            "--bound",
            "docs=1,stmts=1,total=1,moves=1",
            "--format",
            "json",
            "--out",
            dir.to_str().unwrap(),
        ])
    };
    let out = run();
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let violated: Vec<&serde_json::Value> = v["properties"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !p["smallest"].is_null())
        .collect();
    assert!(!violated.is_empty());
    for p in violated {
        let s = &p["smallest"];
        let scenario = s["scenario_file"].as_str().unwrap();
        let trace = s["trace_file"].as_str().unwrap();
        // The scenario file is an ordinary scenario: check reproduces the violation.
        let check = bin()
            .args([
                "check",
                "--quiet",
                "--format",
                "json",
                "--scenario-file",
                scenario,
            ])
            .args(["--trace-dir", dir.join("check").to_str().unwrap()])
            .output()
            .unwrap();
        let report = json(&check);
        let verdict = report["scenarios"][0]["properties"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == p["name"])
            .unwrap()["verdict"]
            .clone();
        assert_eq!(verdict, "violated", "{}", p["name"]);
        let replay = bin().args(["replay", trace]).output().unwrap();
        assert_eq!(
            replay.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&replay.stdout)
        );
        // A directory where the trace goes: the sweep still reports every verdict, with the
        // reason that trace is missing, and keeps its exit 1.
        std::fs::remove_file(trace).unwrap();
        std::fs::create_dir(trace).unwrap();
    }
    let again = run();
    assert_eq!(
        again.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let v = json(&again);
    for p in v["properties"].as_array().unwrap() {
        let s = &p["smallest"];
        if !s.is_null() {
            assert!(s["trace_file"].is_null(), "{s}");
            let why = s["trace_not_written"].as_str().unwrap();
            assert!(why.contains("could not be written"), "{why}");
        }
    }
}

#[test]
fn a_seeded_sample_is_reproducible() {
    let run = || {
        sweep(&[
            "--bound",
            "tabs=2,docs=3,depth=2,iframes=2,stmts=2,total=2,tools=2",
            "--sample",
            "25",
            "--seed",
            "9",
            "--format",
            "json",
            "--no-timings",
        ])
    };
    let (a, b) = (run(), run());
    assert!(matches!(a.status.code(), Some(0 | 1)));
    assert_eq!(a.stdout, b.stdout);
    let v = json(&a);
    assert!(v["raw"].is_null() && v["sample"]["draws"] == 25);
    assert!(v["checked"].as_u64().unwrap() > 10);
}

/// A sample that finds nothing passes for its own scenarios only, and says so: a reader of
/// the last line must not take it for the bound.
#[test]
fn a_passing_sample_says_it_proves_nothing_of_the_rest_of_the_bound() {
    let out = sweep(&[
        "--bound",
        "tiny",
        "--variant",
        "proposed",
        "--sample",
        "3",
        "--no-timings",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("exit 0: every property held in each of the ")
            && text.contains(
                "sampled scenario(s). A sample\nproves nothing of the bound's other scenarios."
            ),
        "{text}"
    );
    assert!(!text.contains("in every generated scenario"), "{text}");
}

/// The proposed fixes on the generated space, not only on the suite: every scenario of the
/// `tiny` and `small` presets holds every property under `proposed` (exit 0), every search
/// exhaustive. `small` is the largest preset CI affords (docs/performance.md).
#[test]
fn the_proposed_fixes_hold_on_every_scenario_of_tiny_and_small() {
    for bound in ["tiny", "small"] {
        let out = sweep(&[
            "--bound",
            bound,
            "--variant",
            "proposed",
            "--jobs",
            "2",
            "--format",
            "json",
            "--no-timings",
        ]);
        let report = json(&out);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{bound} under proposed: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert_eq!(report["incomplete"], 0, "{bound}: {report}");
        assert!(
            report["checked"].as_u64().unwrap() >= 1000,
            "{bound}: {report}"
        );
    }
}

/// `--scale` sweeps the ladder of bounds until one does not finish in time: the table names
/// every bound it ran, marks the stopped one, names the largest that finished, and the plot
/// is written. A stopped rung ends the ladder, never passes as complete.
#[test]
fn scale_runs_the_ladder_until_a_bound_does_not_finish() {
    let dir = scratch("scale");
    let svg = dir.join("scale.svg");
    let out = bin()
        .args([
            "sweep",
            "--scale",
            "--timeout",
            "1",
            "--jobs",
            "1",
            "-q",
            "--svg",
        ])
        .arg(&svg)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    // -q: no line per rung on stderr.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("sweep --scale: docs="), "{stderr}");
    let first = text
        .lines()
        .find(|l| l.starts_with("| `docs=1,stmts=1,total=1` |"))
        .unwrap_or_else(|| panic!("the first rung: {text}"));
    let cells: Vec<&str> = first.split('|').map(str::trim).collect();
    assert_eq!(
        cells[3], cells[4],
        "every canonical scenario checked: {first}"
    );
    assert!(!first.contains("(stopped)"), "{first}");
    let stopped: Vec<&str> = text.lines().filter(|l| l.contains("(stopped)")).collect();
    assert_eq!(stopped.len(), 1, "exactly the last rung is stopped: {text}");
    // Its raw and canonical counts are the enumeration's, or "?" where the limit stopped the
    // enumeration itself: never a 0 standing for "unknown".
    let cells: Vec<&str> = stopped[0].split('|').map(str::trim).collect();
    assert!(cells[2] != "0" && cells[3] != "0", "{}", stopped[0]);
    assert!(
        text.lines().rev().find(|l| l.starts_with('|')) == stopped.first().copied(),
        "{text}"
    );
    assert!(
        text.contains("Largest bound of the ladder swept exhaustively within 1 s"),
        "{text}"
    );
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(
        plot.starts_with("<svg") && plot.contains("unique states"),
        "{}",
        &plot[..200.min(plot.len())]
    );
    let bad = bin()
        .args(["sweep", "--scale", "--bound", "tiny"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    // An unwritable plot is refused before the ladder runs, not after.
    let start = std::time::Instant::now();
    let bad = bin()
        .args(["sweep", "--scale", "--svg", "/nonexistent-dir/x.svg"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
    // A ladder whose first rung the limits stop measured nothing: exit 3, no plot, and the
    // table says which limits.
    let none_svg = dir.join("none.svg");
    let none = bin()
        .args([
            "sweep",
            "--scale",
            "--timeout",
            "5",
            "--memory-limit",
            "1",
            "--svg",
        ])
        .arg(&none_svg)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&none.stdout);
    assert_eq!(none.status.code(), Some(3), "{text}");
    assert!(text.contains("within 5 s and 1 MiB"), "{text}");
    assert!(!none_svg.exists());
    let bad = bin().args(["sweep", "--jobs", "1000"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let bad = bin().args(["sweep", "--svg", "x.svg"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&bad.stderr).lines().count(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each violated property's smallest scenario is traced to its root cause the way
/// `findings` names causes: the fixes whose removal from `proposed` brings it back.
#[test]
fn violations_are_grouped_by_the_root_cause_of_their_smallest_scenario() {
    let out = sweep(&[
        "--bound",
        "tiny",
        "--variant",
        "proposed-reject-on-self-unload",
        "--jobs",
        "2",
        "--format",
        "json",
        "--no-timings",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    let props = report["properties"].as_array().unwrap();
    let violated: Vec<&serde_json::Value> = props
        .iter()
        .filter(|p| p["violating"].as_u64().unwrap() > 0)
        .collect();
    assert_eq!(violated.len(), 1, "{report}");
    assert_eq!(violated[0]["name"], "execute-promise-settles");
    // Taking out capture-traversable also brings it back (the unload cleanup then cannot
    // reach the pending map at all), so both are named.
    assert_eq!(
        violated[0]["root_cause"],
        serde_json::json!({"fixes": ["capture-traversable", "reject-on-self-unload"]})
    );
    let human = sweep(&["--bound", "docs=1,stmts=2,total=2"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("root cause: capture-traversable")
            && text.contains("  capture-traversable: exists:notify-tool-change#2"),
        "{text}"
    );
}

/// A shard that holds no scenario checks nothing and decides nothing: it says so, exits 3
/// (never a pass; `merge` judges whether the shards are the whole sweep), and never claims a
/// property held.
#[test]
fn an_empty_shard_says_so_and_claims_nothing() {
    let bound = "docs=1,stmts=0,total=0,moves=0"; // one scenario, so shard 2/2 is empty
    let out = sweep(&["--bound", bound, "--shard", "2/2"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(text.contains("no scenario was checked"), "{text}");
    assert!(!text.contains("held in every"), "{text}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("shard 2/2 holds no items"),
        "{out:?}"
    );
    let json = json(&sweep(&[
        "--bound", bound, "--shard", "2/2", "--format", "json",
    ]));
    assert_eq!(json["checked"], 0);
    assert_eq!(json["shard_of"]["items"], serde_json::Value::Null);
    assert_eq!(json["shard_of"]["total"], 1);
    let junit = sweep(&["--bound", bound, "--shard", "2/2", "--format", "junit"]);
    assert!(
        String::from_utf8_lossy(&junit.stdout).contains("this shard holds no scenario"),
        "{junit:?}"
    );
    let whole = sweep(&["--bound", bound]);
    assert_eq!(
        whole.status.code(),
        Some(0),
        "the one scenario, checked, holds"
    );
}

/// Partial-order reduction changes no verdict on the generated space: on every scenario of
/// the tiny bound under the draft as written, each property is violated (or witnessed) in
/// exactly as many scenarios with the reduction as without, the exit is the same, and the
/// reduced sweep explores fewer states.
#[test]
fn the_reduction_changes_no_verdict_on_the_tiny_space() {
    let run = |reduction: &str| {
        let out = sweep(&[
            "--bound",
            "tiny",
            "--variant",
            "seed",
            "--format",
            "json",
            "--no-timings",
            "--jobs",
            "2",
            "--reduction",
            reduction,
        ]);
        assert_eq!(out.status.code(), Some(1), "{reduction}");
        json(&out)
    };
    let (full, reduced) = (run("none"), run("por"));
    assert_eq!(full["checked"], reduced["checked"]);
    assert_eq!(full["checked"], 6_366);
    let counts = |v: &serde_json::Value| -> Vec<(String, u64, u64)> {
        v["properties"]
            .as_array()
            .expect("properties")
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().expect("a name").to_string(),
                    p["violating"].as_u64().expect("a count"),
                    p["witnessing"].as_u64().expect("a count"),
                )
            })
            .collect()
    };
    assert_eq!(counts(&full), counts(&reduced));
    let states = |v: &serde_json::Value| v["unique_states"].as_u64().expect("states");
    assert!(states(&reduced) < states(&full));
    // Sleep sets on scenarios nobody wrote: the same states, violations and witnesses.
    let asleep = run("sleep");
    assert_eq!(full["checked"], asleep["checked"]);
    assert_eq!(counts(&full), counts(&asleep));
    assert_eq!(states(&asleep), states(&full));
}

/// A sweep whose searches were cut short says what was searched to the end, and a sweep that
/// searched nothing to the end claims no property held and no witness out of reach.
#[test]
fn a_cut_sweep_claims_nothing_of_what_it_did_not_finish() {
    // Under seed some cut searches still find violations: exit 1.
    let cut = sweep(&["--bound", "tiny", "--max-states", "100"]);
    assert_eq!(cut.status.code(), Some(1));
    let cut = String::from_utf8_lossy(&cut.stdout);
    assert!(
        cut.contains("held in every scenario searched to the end ("),
        "{cut}"
    );
    assert!(cut.contains("may still be reachable"), "{cut}");
    assert!(!cut.contains("reached by none"), "{cut}");
    let none = sweep(&["--bound", "tiny", "--max-states", "1"]);
    assert_eq!(none.status.code(), Some(3));
    let none = String::from_utf8_lossy(&none.stdout);
    assert!(
        none.contains("no scenario was searched to the end"),
        "{none}"
    );
    assert!(!none.contains(" held in every scenario"), "{none}");
    let timed_out = sweep(&["--bound", "tiny", "--timeout", "0"]);
    assert_eq!(timed_out.status.code(), Some(3));
    let timed_out = String::from_utf8_lossy(&timed_out.stdout);
    assert!(timed_out.contains("nothing is decided"), "{timed_out}");
    assert!(
        !timed_out.contains(" held in every scenario"),
        "{timed_out}"
    );
}
