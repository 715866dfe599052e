//! Every bound that stops a run is named and exits 3, never a pass, and never a hang:
//! `sweep --timeout` stops the enumeration of a space far too big to enumerate (and the
//! counting of `--count`, and the drawing of a huge `--sample`), and `bench` exits 3 when a
//! bound stopped a measured run, 2 for a bound of zero. The only wall-clock bound here is a
//! generous hang guard, never a claim about speed.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Far beyond what can be enumerated: before the fix, `--timeout` left it running for
/// hours.
const BIG_BOUND: &str = "docs=6,tabs=3,depth=2,iframes=2,stmts=6,total=12,tools=3,signals=2,\
                         moves=4,outcomes=3,forged=1,unkeyed=1";

/// A run that has not ended by then hangs (the bounds under test are one or two seconds).
const HANG_GUARD: Duration = Duration::from_secs(30);

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the binary with `args`, killing it and failing the test if it outlives the guard.
fn run(args: &[&str]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = reader(Box::new(child.stdout.take().unwrap()));
    let stderr = reader(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > HANG_GUARD {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} still ran after {HANG_GUARD:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Run {
        code: status.code(),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

fn json(r: &Run) -> serde_json::Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", r.stdout, r.stderr))
}

/// `sweep --quiet --bound BOUND --variant proposed` with `more` (under proposed nothing is
/// violated early in the enumeration, so the bound under test decides the exit).
fn sweep_proposed(bound: &str, more: &[&str]) -> Run {
    let mut args = vec![
        "sweep",
        "--quiet",
        "--bound",
        bound,
        "--variant",
        "proposed",
    ];
    args.extend(more);
    run(&args)
}

#[test]
fn sweep_timeout_stops_the_enumeration_of_a_big_bound() {
    // Under proposed nothing is violated early in the enumeration, so the stop decides the
    // exit: 3, never 0.
    let r = sweep_proposed(
        BIG_BOUND,
        &["--timeout", "2", "--format", "json", "--no-timings"],
    );
    assert_eq!(r.code, Some(3), "{}{}", r.stdout, r.stderr);
    let v = json(&r);
    assert_eq!(v["exit"], 3);
    assert_eq!(v["enumeration_stopped_by"], "--timeout 2 s", "{v}");
    // The space was not enumerated: its size is unknown, not invented.
    assert!(v["selected"].is_null() && v["canonical"].is_null() && v["raw"].is_null());
    let generated = v["generated"].as_u64().unwrap();
    let checked = v["checked"].as_u64().unwrap();
    let not_started = v["not_started"].as_u64().unwrap();
    assert!(checked + not_started == generated, "{v}");
    assert!(v["incomplete"].as_u64().unwrap() >= not_started);
}

#[test]
fn sweep_timeout_is_named_in_the_human_report() {
    let r = sweep_proposed(BIG_BOUND, &["--timeout", "1"]);
    assert_eq!(r.code, Some(3), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("INCOMPLETE")
            && r.stdout.contains("--timeout 1 s stopped the enumeration")
            && r.stdout.contains("unknown")
            && r.stdout.contains("exit 3"),
        "{}",
        r.stdout
    );
}

#[test]
fn sweep_timeout_stops_a_huge_sample() {
    let r = sweep_proposed(
        BIG_BOUND,
        &[
            "--sample",
            "100000000",
            "--timeout",
            "1",
            "--format",
            "json",
            "--no-timings",
        ],
    );
    assert_eq!(r.code, Some(3), "{}{}", r.stdout, r.stderr);
    let v = json(&r);
    assert_eq!(v["enumeration_stopped_by"], "--timeout 1 s", "{v}");
    assert!(v["selected"].is_null(), "{v}");
}

#[test]
fn sweep_count_honours_timeout() {
    let r = run(&["sweep", "--bound", BIG_BOUND, "--count", "--timeout", "1"]);
    assert_eq!(r.code, Some(3), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("INCOMPLETE") && r.stdout.contains("--timeout 1 s stopped the count"),
        "{}",
        r.stdout
    );
    let r = run(&[
        "sweep",
        "--bound",
        BIG_BOUND,
        "--count",
        "--timeout",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, Some(3));
    let v = json(&r);
    assert!(v["canonical"].is_null() && v["raw"].is_null(), "{v}");
    assert_eq!(v["stopped_by"], "--timeout 1 s");
    // A count that finishes within its --timeout is a count: exit 0.
    let r = run(&["sweep", "--bound", "tiny", "--count", "--timeout", "60"]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains("INCOMPLETE"), "{}", r.stdout);
}

#[test]
fn bench_exits_3_when_a_bound_stopped_a_row() {
    let r = run(&[
        "bench",
        "--memory-limit",
        "1",
        "--repeat",
        "1",
        "--scenario",
        "identical-tabs-execute",
    ]);
    assert_eq!(r.code, Some(3), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("(stopped: memory limit (1 MiB))"),
        "{}",
        r.stdout
    );
    assert!(r.stderr.contains("exit 3"), "{}", r.stderr);
    let r = run(&[
        "bench",
        "--scaling",
        "--family",
        "tabs",
        "--max-size",
        "2",
        "--memory-limit",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, Some(3), "{}{}", r.stdout, r.stderr);
    // With a plot asked for: the same exit 3 and table, and no plot of nothing (it was exit
    // 2, "no exhaustive scaling point to plot", and no table).
    let svg = std::env::temp_dir().join(format!("webmcp-stop-{}.svg", std::process::id()));
    let r = run(&[
        "bench",
        "--scaling",
        "--family",
        "tabs",
        "--max-size",
        "1",
        "--memory-limit",
        "1",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(r.code, Some(3), "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("stopped"), "{}", r.stdout);
    assert!(r.stderr.contains("not written"), "{}", r.stderr);
    assert!(!svg.exists());
}

/// A scenario named twice is measured once, as `check` checks it once: the totals row does
/// not count it twice.
#[test]
fn bench_measures_a_scenario_named_twice_once() {
    let r = run(&[
        "bench",
        "--repeat",
        "1",
        "--scenario",
        "register-and-discover",
        "--scenario",
        "register-and-discover",
    ]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("**all 1 scenarios**"), "{}", r.stdout);
    assert_eq!(
        r.stdout.matches("| register-and-discover |").count(),
        1,
        "{}",
        r.stdout
    );
}

#[test]
fn bench_refuses_a_bound_of_zero() {
    for flag in ["--memory-limit", "--timeout"] {
        let r = run(&[
            "bench",
            flag,
            "0",
            "--repeat",
            "1",
            "--scenario",
            "identical-tabs-execute",
        ]);
        assert_eq!(r.code, Some(2), "{flag}: {}{}", r.stdout, r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{flag}: {}", r.stderr);
        assert!(r.stderr.contains(flag), "{}", r.stderr);
        assert!(r.stdout.is_empty(), "{}", r.stdout);
    }
}

/// Both shards of a one-second sweep of `bound` under proposed (each must exit 3), written to
/// a fresh directory: their reports and the files holding them.
fn timed_out_shards(bound: &str, dir_name: &str) -> (Vec<serde_json::Value>, Vec<String>) {
    let dir = std::env::temp_dir().join(format!("webmcp-{dir_name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (mut reports, mut files) = (Vec::new(), Vec::new());
    for shard in ["1/2", "2/2"] {
        let r = sweep_proposed(
            bound,
            &["--timeout", "1", "--shard", shard, "--format", "json"],
        );
        assert_eq!(r.code, Some(3), "{}", r.stderr);
        let file = dir.join(format!("shard-{}.json", &shard[..1]));
        std::fs::write(&file, &r.stdout).unwrap();
        reports.push(json(&r));
        files.push(file.display().to_string());
    }
    (reports, files)
}

/// `merge` of `files`, with `format` if given.
fn merged(files: &[String], format: Option<&str>) -> Run {
    let mut args = vec!["merge"];
    if let Some(format) = format {
        args.extend(["--format", format]);
    }
    args.extend(files.iter().map(String::as_str));
    run(&args)
}

/// Shards whose enumeration `--timeout` stopped have no total, so no set of them is the
/// whole sweep: `merge` says so in one line and exits 3 (incomplete), not 2 and never 0.
#[test]
fn merging_shards_whose_enumeration_was_stopped_is_incomplete() {
    let (reports, files) = timed_out_shards(BIG_BOUND, "stop-merge");
    assert!(reports.iter().all(|r| r["selected"].is_null()));
    let r = merged(&files, None);
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("--timeout 1 s stopped this shard's enumeration"),
        "{}",
        r.stderr
    );
}

/// A space that is quick to count keeps its size when --timeout stops the checking: the
/// enumeration goes on counting (a tenth of the timeout at most), the scenarios never
/// checked are counted not started, and the shards still merge into one incomplete whole.
#[test]
fn a_space_quick_to_count_keeps_its_size_when_the_timeout_stops_the_checking() {
    let (reports, files) = timed_out_shards("small", "stop-size");
    for report in &reports {
        let selected = report["selected"].as_u64().expect("the size is known");
        let (checked, not_started) = (
            report["checked"].as_u64().unwrap(),
            report["not_started"].as_u64().unwrap(),
        );
        assert_eq!(checked + not_started, selected, "{report}");
        assert!(
            not_started > 0,
            "small is not checked within a second: {report}"
        );
    }
    let r = merged(&files, Some("json"));
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert_eq!(json(&r)["canonical"], 22_282);
}

/// `--max-states` at exactly the number of states a complete search generates stops
/// nothing, in every engine: the search is exhaustive and exits 0; one fewer stops it (exit
/// 3) wherever something was left to generate. Timely's workers and the parallel depth-first search (then
/// stateright's) called the exact count a stop.
#[test]
fn max_states_at_the_exact_count_is_complete_in_every_engine() {
    let engines: [&[&str]; 6] = [
        &["--threads", "1"],
        &["--threads", "2"],
        &["--mode", "dfs", "--threads", "1"],
        &["--mode", "dfs", "--threads", "2"],
        &["--engine", "timely", "--workers", "1"],
        &["--engine", "timely", "--workers", "2"],
    ];
    let check = |extra: &[&str], max: Option<usize>| {
        let max = max.map(|n| n.to_string());
        let mut args = vec![
            "check",
            "--scenario",
            "register-and-discover",
            "--variant",
            "proposed",
            "--format",
            "json",
            "--no-timings",
            "--quiet",
        ];
        args.extend_from_slice(extra);
        if let Some(n) = &max {
            args.extend(["--max-states", n.as_str()]);
        }
        let r = run(&args);
        let report = json(&r);
        (r.code, report["scenarios"][0].clone())
    };
    let (code, whole) = check(&[], None);
    assert_eq!(code, Some(0), "{whole}");
    let total = whole["total_states"].as_u64().expect("a count") as usize;
    for engine in engines {
        let (code, at) = check(engine, Some(total));
        assert_eq!(code, Some(0), "{engine:?} at {total}: {at}");
        assert_eq!(at["exhaustive"], true, "{engine:?}");
        assert_eq!(at["total_states"], whole["total_states"], "{engine:?}");
        // One fewer: a stop (exit 3), unless the engine's order reached the last state
        // with nothing left to cut (a depth-first search can), which is then exhaustive.
        let (code, below) = check(engine, Some(total - 1));
        match code {
            Some(3) => assert_eq!(below["exhaustive"], false, "{engine:?}"),
            Some(0) => {
                assert_eq!(below["exhaustive"], true, "{engine:?}");
                assert_eq!(below["total_states"], whole["total_states"], "{engine:?}");
            }
            other => panic!("{engine:?} at {}: exit {other:?}: {below}", total - 1),
        }
        if engine == ["--threads", "1"] {
            assert_eq!(code, Some(3), "breadth-first, one thread, at {}", total - 1);
        }
    }
}
