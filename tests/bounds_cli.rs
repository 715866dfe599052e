//! Every bound that stops a run is honoured, named in every output format, and exits 3;
//! nothing panics for want of threads or memory; long runs show progress in CI logs.

use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{bin, run, text};

/// A scenario file: a top-level document and `n` same-origin iframes without scripts, which
/// has millions of states and decides no property early.
fn iframes_file(n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("webmcp-bounds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("iframes-{n}.json"));
    let frames: Vec<String> = (1..=n)
        .map(|i| format!(r#"{{"nav":"frame{i}","doc":"child{i}","url":"https://a.example/{i}"}}"#))
        .collect();
    std::fs::write(
        &path,
        format!(
            r#"{{"name":"iframes-{n}","summary":"s","description":"d",
                "tabs":[{{"tab":"main","top":{{"doc":"top","url":"https://a.example/","iframes":[{}]}}}}],
                "scripts":{{}}}}"#,
            frames.join(",")
        ),
    )
    .unwrap();
    path
}

fn json_of(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&o.stdout), text(&o.stderr)))
}

#[test]
fn one_thread_dfs_stops_at_its_timeout() {
    // Before: stateright's one-thread depth-first search looked at the timeout only when its
    // stack ran empty; 31 iframes with --timeout 5 still ran after 60 s.
    let file = iframes_file(31);
    for mode in ["dfs", "bfs"] {
        let start = Instant::now();
        let o = run(&[
            "check",
            "--scenario-file",
            file.to_str().unwrap(),
            "--mode",
            mode,
            "--timeout",
            "2",
            "--format",
            "json",
            "-q",
        ]);
        let took = start.elapsed();
        assert_eq!(o.status.code(), Some(3), "{mode}: {}", text(&o.stderr));
        assert!(
            took < Duration::from_millis(3500),
            "{mode}: a 2 s timeout stopped the run after {took:?}"
        );
        let s = &json_of(&o)["scenarios"][0];
        assert_eq!(s["exhaustive"], false);
        assert_eq!(
            s["stopped_by"],
            serde_json::json!({"kind": "timeout", "seconds": 2.0})
        );
    }
    let o = run(&[
        "check",
        "--scenario-file",
        file.to_str().unwrap(),
        "--mode",
        "dfs",
        "--timeout",
        "1",
        "--no-timings",
    ]);
    assert_eq!(o.status.code(), Some(3));
    let out = text(&o.stdout);
    assert!(
        out.lines()
            .next()
            .unwrap()
            .contains("INCOMPLETE (not exhaustive: stopped by --timeout 1 s after "),
        "{out}"
    );
}

#[test]
fn threads_have_an_upper_bound_and_a_refused_thread_is_no_panic() {
    for n in ["0", "257", "10000"] {
        let o = run(&["check", "--all", "--threads", n]);
        assert_eq!(o.status.code(), Some(2), "--threads {n}");
        let err = text(&o.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("between 1 and 256"), "{err}");
    }
    let help = text(&run(&["check", "--help"]).stdout);
    assert!(help.contains("1 to 256"), "{help}");
    for cmd in [
        &["findings", "--threads", "300"][..],
        &["mutants", "--threads", "300"],
    ] {
        let o = run(cmd);
        assert_eq!(o.status.code(), Some(2), "{cmd:?}");
        assert!(text(&o.stderr).contains("between 1 and 256"));
    }
}

#[test]
fn a_thread_the_os_refuses_is_a_named_stop_not_a_panic() {
    // The OS's refusal (EAGAIN from pthread_create) is simulated: an address-space limit
    // small enough to refuse 256 stacks also makes glibc abort at random before our code runs.
    let o = bin()
        .args([
            "check",
            "--scenario",
            "register-and-discover",
            "--threads",
            "256",
            "--format",
            "json",
            "-q",
        ])
        .env("WEBMCP_TEST_REFUSE_THREADS_ABOVE", "4")
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(3), "{err}");
    let stop = &json_of(&o)["scenarios"][0]["stopped_by"];
    assert_eq!(stop["kind"], "thread-spawn", "{stop}");
    assert_eq!(stop["threads"], 256);
    assert!(
        stop["reason"].as_str().unwrap().contains("os error"),
        "{stop}"
    );
}

/// The highest `VmHWM` of a running child, read until it exits, in MiB.
fn peak_mib_while_running(child: &mut std::process::Child) -> u64 {
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0u64;
    loop {
        if let Ok(s) = std::fs::read_to_string(&status) {
            if let Some(kib) = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak_kib = peak_kib.max(kib);
            }
        }
        if child.try_wait().unwrap().is_some() {
            return peak_kib / 1024;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Runs `check ARGS --memory-limit LIMIT` (60 s at most, JSON) and asserts that the limit
/// stopped it, exit 3; its peak resident set in MiB and its scenario's report.
fn stopped_by_memory_limit(args: &[&str], limit: u64) -> (u64, serde_json::Value) {
    let limit_text = limit.to_string();
    let mut child = bin()
        .arg("check")
        .args(args)
        .args([
            "--memory-limit",
            &limit_text,
            "--timeout",
            "60",
            "--format",
            "json",
            "-q",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let peak = peak_mib_while_running(&mut child);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(3), "{args:?}: {}", text(&o.stderr));
    let s = json_of(&o)["scenarios"][0].clone();
    assert_eq!(
        s["stopped_by"],
        serde_json::json!({"kind": "memory-limit", "mib": limit}),
        "{args:?}: {s}"
    );
    (peak, s)
}

#[cfg(target_os = "linux")]
#[test]
fn a_memory_limit_stops_the_search_near_the_limit() {
    // Unbounded, breadth-first search of 31 iframes grows by about 100 MiB a second.
    let file = iframes_file(31);
    for threads in ["1", "2"] {
        let (peak, s) = stopped_by_memory_limit(
            &[
                "--scenario-file",
                file.to_str().unwrap(),
                "--threads",
                threads,
            ],
            150,
        );
        assert!(s["unique_states"].as_u64().unwrap() > 10_000);
        assert!(peak < 150 + 100, "--threads {threads}: peak {peak} MiB");
    }
    let help = text(&run(&["check", "--help"]).stdout);
    assert!(help.contains("--memory-limit <MIB>"), "{help}");
    assert!(help.contains("half of this machine's memory"), "{help}");
}

/// The timely engine's workers read the resident set as the local searches do. Before, only
/// the first worker of a process read it, every 4,096 of its own states, and two workers on
/// 32 tabs (many large successors a state) grew to 887 MB under a 300 MiB limit.
#[cfg(target_os = "linux")]
#[test]
fn a_memory_limit_stops_the_timely_engine_near_the_limit() {
    let dir = std::env::temp_dir().join(format!("webmcp-bounds-timely-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tabs-32.json");
    let tabs: Vec<String> = (0..32)
        .map(|i| format!(r#"{{"tab":"t{i}","top":{{"doc":"d{i}","url":"https://a.example/"}}}}"#))
        .collect();
    std::fs::write(
        &file,
        format!(
            r#"{{"name":"tabs-32","summary":"s","description":"d","tabs":[{}],"scripts":{{}}}}"#,
            tabs.join(",")
        ),
    )
    .unwrap();
    let (peak, _) = stopped_by_memory_limit(
        &[
            "--scenario-file",
            file.to_str().unwrap(),
            "--engine",
            "timely",
            "--workers",
            "2",
        ],
        300,
    );
    assert!(peak < 300 + 150, "peak {peak} MiB");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_exploring_command_honours_the_memory_limit() {
    // 1 MiB is below any process's resident set: every exploration stops at its first look.
    let corpus = std::env::temp_dir().join(format!("webmcp-bounds-corpus-{}", std::process::id()));
    let corpus = corpus.to_str().unwrap();
    for cmd in [
        &["report"][..],
        &["coverage"],
        &["findings"],
        &["mutants", "--mutant", "drop-step@register-tool#19"],
        &["corpus", "--dir", corpus],
    ] {
        let mut args = cmd.to_vec();
        args.extend(["--memory-limit", "1"]);
        let o = run(&args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{cmd:?}: {err}");
        assert!(err.contains("--memory-limit 1 MiB"), "{cmd:?}: {err}");
        assert!(!err.contains("panicked"), "{cmd:?}: {err}");
        if cmd == ["coverage"] {
            // What the bound kept unreached is not said to need a scenario.
            let out = text(&o.stdout);
            assert!(out.contains("not exercised: no scenario reached it before a bound stopped some of them: it may be reachable"), "{out}");
            assert!(!out.contains("add a scenario"), "{out}");
        }
    }
    // A results document stopped by a bound would say "checked exhaustively" over rows of one
    // state each: nothing is written, and the document there before stays.
    let doc = std::env::temp_dir().join(format!("webmcp-bounds-report-{}.md", std::process::id()));
    std::fs::write(&doc, "the results before\n").unwrap();
    let o = run(&["report", "-o", doc.to_str().unwrap(), "--memory-limit", "1"]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert!(o.stdout.is_empty());
    assert_eq!(
        std::fs::read_to_string(&doc).unwrap(),
        "the results before\n"
    );
    let o = run(&[
        "check",
        "--profile",
        "legacy",
        "--all",
        "--memory-limit",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(3));
    let v = json_of(&o);
    for s in v["scenarios"].as_array().unwrap() {
        assert_eq!(s["stopped_by"]["kind"], "memory-limit");
    }
    let o = run(&[
        "check",
        "--scenario",
        "register-and-discover",
        "--memory-limit",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn every_output_format_names_the_bound_that_stopped_the_run() {
    let base = [
        "check",
        "--scenario",
        "duplicate-name-race",
        "--max-states",
        "10",
        "-q",
    ];
    let with = |format: &str| {
        let mut a = base.to_vec();
        a.extend(["--format", format]);
        let o = run(&a);
        assert_eq!(o.status.code(), Some(3), "{format}");
        text(&o.stdout)
    };
    assert!(with("human").contains("INCOMPLETE (not exhaustive: stopped by --max-states 10 after "));
    let v: serde_json::Value = serde_json::from_str(&with("json")).unwrap();
    assert_eq!(
        v["scenarios"][0]["stopped_by"],
        serde_json::json!({"kind": "max-states", "states": 10})
    );
    let junit = with("junit");
    assert!(junit.contains(
        "error type=\"incomplete\" message=\"incomplete: stopped by --max-states 10 after "
    ));
    // A report read alone must not look green: the undecided properties are errors.
    let doc = roxmltree::Document::parse(&junit).expect("well-formed XML");
    let errors: usize = doc
        .root_element()
        .attribute("errors")
        .unwrap()
        .parse()
        .unwrap();
    assert!(errors > 0, "{junit}");
    assert!(!junit.contains("<skipped"), "{junit}");
    let markdown = with("markdown");
    assert!(markdown.contains("| incomplete: stopped by --max-states 10 after "));
    assert!(
        markdown.contains("**Incomplete**: a bound stopped the search of 1 scenario(s)"),
        "the headline says so too: {markdown}"
    );
    assert!(with("github")
        .contains("was not decided for duplicate-name-race: stopped by --max-states 10"));
    let o = run(&[
        "check",
        "--scenario",
        "register-and-discover",
        "--format",
        "json",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(json_of(&o)["scenarios"][0]["stopped_by"].is_null());
    // Simulation is never exhaustive, and says why.
    let o = run(&[
        "check",
        "--scenario",
        "register-and-discover",
        "--mode",
        "sim",
        "--runs",
        "5",
        "--format",
        "json",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(3));
    assert_eq!(
        json_of(&o)["scenarios"][0]["stopped_by"],
        serde_json::json!({"kind": "runs", "runs": 5})
    );
    // The legacy profile names its bounds too, --max-depth included.
    let o = run(&[
        "check",
        "--profile",
        "legacy",
        "--scenario",
        "concurrent-executions",
        "--max-depth",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert_eq!(
        json_of(&o)["scenarios"][0]["stopped_by"],
        serde_json::json!({"kind": "max-depth", "depth": 2})
    );
    for bound in ["--max-states", "--max-depth"] {
        let o = run(&["check", "--scenario", "register-and-discover", bound, "0"]);
        assert_eq!(o.status.code(), Some(2), "{bound} 0");
    }
}

/// A closed standard error (`2>&1 | head -1`, a log reader gone) is no reason to end a
/// check: the progress lines and messages are dropped, and the run ends with the status of
/// what it found, on every search. `eprintln!` panicked there (exit 101), and the parallel
/// breadth-first search hung.
#[test]
fn a_closed_standard_error_neither_panics_nor_hangs_a_check() {
    let file = iframes_file(31);
    for search in [
        &["--threads", "1"][..],
        &["--threads", "2"],
        &["--threads", "2", "--mode", "dfs"],
    ] {
        let mut child = bin()
            .args([
                "check",
                "--scenario-file",
                file.to_str().unwrap(),
                "--timeout",
                "2",
                "--format",
                "json",
            ])
            .args(search)
            .env("WEBMCP_PROGRESS_INTERVAL_MS", "20")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stderr.take());
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("{search:?}: the check hangs once standard error is closed");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        assert_eq!(
            status.code(),
            Some(3),
            "{search:?}: the timeout's exit status"
        );
    }
    // A usage error keeps its exit status too.
    let mut child = bin()
        .args(["check", "--scenario", "no-such-scenario"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    assert_eq!(child.wait().unwrap().code(), Some(2));
}

#[test]
fn progress_goes_to_a_log_as_plain_lines() {
    let file = iframes_file(31);
    let o = bin()
        .args([
            "check",
            "--scenario-file",
            file.to_str().unwrap(),
            "--timeout",
            "2",
            "--format",
            "json",
        ])
        .env("WEBMCP_PROGRESS_INTERVAL_MS", "300")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    let err = text(&o.stderr);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("webmcp-check: iframes-31: "))
        .collect();
    assert!(lines.len() >= 3, "one line every 0.3 s of a 2 s run: {err}");
    for l in &lines {
        let rest = l.strip_prefix("webmcp-check: iframes-31: ").unwrap();
        let (states, rest) = rest.split_once(" states (").unwrap();
        assert!(states.replace(',', "").parse::<u64>().is_ok(), "{l}");
        assert!(
            rest.contains(" unique), depth ") && rest.ends_with(" s"),
            "{l}"
        );
    }
    assert!(
        !err.contains('\r') && !err.contains('\u{1b}'),
        "no terminal codes in a log"
    );
    // Nothing for runs shorter than the interval, and nothing with --quiet.
    let short = bin()
        .args(["check", "--scenario", "register-and-discover"])
        .env("WEBMCP_PROGRESS_INTERVAL_MS", "5000")
        .output()
        .unwrap();
    assert!(
        !text(&short.stderr).contains("states ("),
        "{}",
        text(&short.stderr)
    );
    let quiet = bin()
        .args([
            "check",
            "--scenario-file",
            file.to_str().unwrap(),
            "--timeout",
            "1",
            "-q",
        ])
        .env("WEBMCP_PROGRESS_INTERVAL_MS", "100")
        .output()
        .unwrap();
    assert!(!text(&quiet.stderr).contains("states ("));
}
