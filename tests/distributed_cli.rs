//! `check --engine timely`: the standard suite on timely dataflow, on worker threads and on
//! two processes over loopback, against the local engine's parallel search, whose rules it
//! follows (so its reports must be byte-identical); a process that dies; and the options it
//! refuses.

mod common;

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use common::{bin, run, text};

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("webmcp-distributed-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `check` with `extra`, the whole suite as JSON without timings.
fn suite(extra: &[&str], traces: &std::path::Path) -> std::process::Output {
    let mut args = vec![
        "check",
        "--all",
        "--quiet",
        "--format",
        "json",
        "--no-timings",
        "--trace-dir",
        traces.to_str().unwrap(),
    ];
    args.extend(extra);
    run(&args)
}

fn free_ports(n: usize) -> Vec<u16> {
    // Held together so that they differ, then released for the processes to listen on.
    let held: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    held.iter()
        .map(|l| l.local_addr().unwrap().port())
        .collect()
}

fn hostfile(dir: &std::path::Path, processes: usize) -> PathBuf {
    let path = dir.join("hosts");
    let lines: Vec<String> = free_ports(processes)
        .into_iter()
        .map(|p| format!("127.0.0.1:{p}"))
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// Process 1 started with `second`, then process 0 run with `first`; both outputs.
fn pair(first: &[String], second: &[String]) -> (Output, Output) {
    let second = bin()
        .args(second)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let first = bin().args(first).output().unwrap();
    (first, second.wait_with_output().unwrap())
}

fn spawn(args: &[&str]) -> Child {
    bin()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn workers_in_one_process_report_what_the_local_parallel_search_reports() {
    let dir = scratch("workers");
    let local = suite(&["--threads", "2"], &dir.join("local"));
    assert_eq!(
        local.status.code(),
        Some(1),
        "the seed variant has findings"
    );
    for workers in ["1", "3"] {
        let timely = suite(
            &["--engine", "timely", "--workers", workers],
            &dir.join(format!("timely-{workers}")),
        );
        assert_eq!(timely.status.code(), local.status.code());
        assert!(
            timely.stdout == local.stdout,
            "{workers} worker(s): the JSON report differs from --threads 2's"
        );
    }
    // Under the proposed fixes nothing is violated: the same report, exit 0.
    let local = suite(
        &["--threads", "2", "--variant", "proposed"],
        &dir.join("lp"),
    );
    let timely = suite(
        &[
            "--engine",
            "timely",
            "--workers",
            "2",
            "--variant",
            "proposed",
        ],
        &dir.join("tp"),
    );
    assert_eq!(local.status.code(), Some(0));
    assert_eq!(timely.status.code(), Some(0));
    assert!(
        timely.stdout == local.stdout,
        "proposed: the JSON report differs"
    );
    // With partial-order reduction, the persistent action's successor alone, as locally.
    let local = suite(&["--threads", "2", "--reduction", "por"], &dir.join("lr"));
    let timely = suite(
        &["--engine", "timely", "--workers", "2", "--reduction", "por"],
        &dir.join("tr"),
    );
    assert_eq!(timely.status.code(), local.status.code());
    assert!(
        timely.stdout == local.stdout,
        "por: the JSON report differs"
    );
    // The same traces, file for file.
    let names = |d: &str| {
        let mut v: Vec<_> = std::fs::read_dir(dir.join(d))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names("local"), names("timely-3"));
    for name in names("local") {
        assert_eq!(
            std::fs::read(dir.join("local").join(&name)).unwrap(),
            std::fs::read(dir.join("timely-3").join(&name)).unwrap(),
            "{name:?}"
        );
    }
}

#[test]
fn two_processes_on_loopback_report_what_one_process_reports() {
    let dir = scratch("processes");
    let hosts = hostfile(&dir, 2);
    let local = suite(&["--threads", "2"], &dir.join("local"));
    let common = |process: &'static str, traces: &str| -> Vec<String> {
        [
            "check",
            "--all",
            "--quiet",
            "--format",
            "json",
            "--no-timings",
            "--engine",
            "timely",
            "--workers",
            "2",
            "--hostfile",
            hosts.to_str().unwrap(),
            "--process",
            process,
            "--trace-dir",
            dir.join(traces).to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let (first, second) = pair(&common("0", "first"), &common("1", "second"));
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    assert!(second.stdout.is_empty(), "only process 0 reports");
    assert_eq!(
        first.status.code(),
        local.status.code(),
        "{}",
        text(&first.stderr)
    );
    assert!(first.stdout == local.stdout, "the JSON report differs");
}

#[test]
fn a_process_that_dies_fails_the_run_with_exit_3_never_a_pass() {
    let dir = scratch("dies");
    let hosts = hostfile(&dir, 2);
    // Long enough to be killed in the middle on any machine: three iframes, 7,871,625
    // states (a scenario named twice is checked once, so repeating one does not do).
    let family = bin()
        .args(["bench", "--print-family", "iframes:3"])
        .output()
        .unwrap();
    assert!(family.status.success());
    let scenario = dir.join("iframes-3.json");
    std::fs::write(&scenario, &family.stdout).unwrap();
    let mut args: Vec<String> = vec![
        "check".into(),
        "--scenario-file".into(),
        scenario.to_str().unwrap().into(),
    ];
    args.extend(
        [
            "--format",
            "json",
            "--engine",
            "timely",
            "--hostfile",
            hosts.to_str().unwrap(),
            "--trace-dir",
            dir.join("t").to_str().unwrap(),
            "--process",
        ]
        .map(String::from),
    );
    let with = |process: &str| {
        let mut a = args.clone();
        a.push(process.into());
        a
    };
    let second = with("1");
    let mut second = spawn(&second.iter().map(String::as_str).collect::<Vec<_>>());
    let first = with("0");
    let first = spawn(&first.iter().map(String::as_str).collect::<Vec<_>>());
    // Let them connect and start, then kill process 1.
    std::thread::sleep(Duration::from_millis(1500));
    second.kill().unwrap();
    let _ = second.wait();
    let started = Instant::now();
    let first = first.wait_with_output().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "it noticed in time"
    );
    let stderr = text(&first.stderr);
    assert_eq!(first.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("the run failed"), "{stderr}");
    assert!(stderr.contains("lost the connection"), "{stderr}");
    let doc: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    for s in doc["scenarios"].as_array().unwrap() {
        assert_eq!(s["stopped_by"]["kind"], "cluster");
        for p in s["properties"].as_array().unwrap() {
            assert_ne!(p["verdict"], "held", "nothing holds in a failed run");
        }
    }
}

#[test]
fn processes_that_run_different_searches_refuse_each_other() {
    let dir = scratch("mismatch");
    let hosts = hostfile(&dir, 2);
    let args = |process: &'static str, extra: &'static str| -> Vec<String> {
        [
            "check",
            "--scenario",
            "target-in-bfcache",
            "--quiet",
            "--engine",
            "timely",
            "--hostfile",
            hosts.to_str().unwrap(),
            "--connect-timeout",
            "20",
            "--variant",
            extra,
            "--trace-dir",
            dir.join(process).to_str().unwrap(),
            "--process",
            process,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let (first, second) = pair(&args("0", "seed"), &args("1", "proposed"));
    for out in [&first, &second] {
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains("runs a different search"));
    }
}

#[test]
fn options_that_make_no_sense_together_are_refused_with_one_line() {
    let dir = scratch("usage");
    let hosts = dir.join("hosts");
    std::fs::write(&hosts, "127.0.0.1:1\n127.0.0.1:2\n").unwrap();
    let bad_hosts = dir.join("bad-hosts");
    std::fs::write(&bad_hosts, "not a host\n").unwrap();
    let h = hosts.to_str().unwrap();
    let b = bad_hosts.to_str().unwrap();
    let cases: &[&[&str]] = &[
        &["--workers", "2"],
        &["--hostfile", h],
        &["--engine", "timely", "--mode", "dfs"],
        &["--engine", "timely", "--threads", "2"],
        &["--engine", "timely", "--symmetry"],
        &["--engine", "timely", "--frontier", "values"],
        &["--engine", "timely", "--workers", "0"],
        &["--engine", "timely", "--workers", "100000"],
        &["--engine", "timely", "--processes", "2"],
        &["--engine", "timely", "--hostfile", h, "--process", "2"],
        &["--engine", "timely", "--hostfile", h, "--processes", "3"],
        &["--engine", "timely", "--hostfile", b],
        &["--engine", "timely", "--hostfile", "/dev/zero"],
        &["--engine", "timely", "--connect-timeout", "99999999999"],
        &["--engine", "timely", "--profile", "legacy"],
    ];
    for extra in cases {
        let mut args = vec!["check", "--scenario", "target-in-bfcache", "--quiet"];
        args.extend(*extra);
        let out = run(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{extra:?}: {err}");
        assert!(out.stdout.is_empty(), "{extra:?}");
    }
}
