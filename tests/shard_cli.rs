//! `--shard I/N` and `merge` from the command line: the shards of a run, merged, are the
//! unsharded run's report byte for byte (without timings) with the same exit code, and merge
//! refuses anything that is not every shard of one run, each once, with one line.

mod common;

use common::{bin, text};
use std::path::{Path, PathBuf};
use std::process::Output;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("webmcp-shard-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// Runs `args` and writes its standard output to `dir/name`; returns the exit code.
fn run_to(dir: &Path, name: &str, args: &[&str]) -> (i32, PathBuf) {
    let out = run(args);
    let path = dir.join(name);
    std::fs::write(&path, &out.stdout).unwrap();
    assert!(
        !text(&out.stderr).contains("panicked"),
        "{args:?}: {}",
        text(&out.stderr)
    );
    (out.status.code().unwrap(), path)
}

fn merge(files: &[&Path], extra: &[&str]) -> Output {
    bin().arg("merge").args(files).args(extra).output().unwrap()
}

/// A refusal: exit 2, one line on stderr that says `why`, nothing on stdout.
fn refused(out: &Output, why: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("webmcp-check: "), "{stderr}");
    assert!(stderr.contains(why), "wanted '{why}' in: {stderr}");
    assert!(out.stdout.is_empty());
}

/// Shards of `check --all` in every format, merged, equal the unsharded run's report.
#[test]
fn three_check_shards_merge_into_the_unsharded_report() {
    let dir = scratch("check");
    let traces = dir.join("traces");
    let traces = traces.to_str().unwrap();
    let base = [
        "check",
        "--all",
        "--quiet",
        "--no-timings",
        "--trace-dir",
        traces,
    ];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    let mut shards = Vec::new();
    let mut scenarios = 0;
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let args = with(&["--shard", &shard, "--format", "json"]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, path) = run_to(&dir, &format!("shard-{k}.json"), &args);
        assert_eq!(code, 1, "under seed each shard holds some violation");
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(doc["shard_of"]["index"], k);
        assert_eq!(doc["shard_of"]["command"], "check");
        scenarios += doc["scenarios"].as_array().unwrap().len();
        shards.push(path);
    }
    let files: Vec<&Path> = shards.iter().rev().map(PathBuf::as_path).collect();
    for format in ["json", "junit", "markdown", "github"] {
        let args = with(&["--format", format]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let whole = run(&args);
        let merged = merge(&files, &["--format", format]);
        assert_eq!(merged.status.code(), whole.status.code(), "{format}");
        assert_eq!(merged.status.code(), Some(1), "{format}");
        assert!(
            merged.stdout == whole.stdout,
            "{format}: the merged report differs from the unsharded one"
        );
        if format == "json" {
            let doc: serde_json::Value = serde_json::from_slice(&whole.stdout).unwrap();
            assert_eq!(doc["scenarios"].as_array().unwrap().len(), scenarios);
        }
    }
    // With the known findings as baseline: nothing new, so the whole run and the merge pass.
    let baseline = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/known-findings.json");
    let mut judged = Vec::new();
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let args = with(&[
            "--shard",
            &shard,
            "--format",
            "json",
            "--baseline",
            baseline,
        ]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        judged.push(run_to(&dir, &format!("judged-{k}.json"), &args).1);
    }
    let judged: Vec<&Path> = judged.iter().map(PathBuf::as_path).collect();
    let args = with(&["--format", "json", "--baseline", baseline]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let whole = run(&args);
    let merged = merge(&judged, &["--baseline", baseline]);
    assert_eq!(merged.status.code(), Some(0), "{}", text(&merged.stderr));
    assert_eq!(whole.status.code(), Some(0));
    assert!(merged.stdout == whole.stdout, "the judged merge differs");
    refused(
        &merge(&judged, &[]),
        "give merge the same file with --baseline",
    );
    let empty = dir.join("empty-baseline.json");
    std::fs::write(&empty, r#"{"version": 1, "findings": []}"#).unwrap();
    refused(
        &merge(&judged, &["--baseline", empty.to_str().unwrap()]),
        "judged against another file",
    );
    refused(
        &merge(&files, &["--baseline", baseline]),
        "the shards were run without a baseline",
    );
}

/// More shards than scenarios: the empty shards say so, exit 3 (they decided nothing, so
/// never a pass) and still count.
#[test]
fn empty_check_shards_exit_3_and_the_merge_needs_them() {
    let dir = scratch("empty");
    let traces = dir.join("traces");
    let count = text(&run(&["list"]).stdout).lines().count();
    let n = count + 2;
    let last = format!("{n}/{n}");
    let out = run(&[
        "check",
        "--all",
        "--quiet",
        "--format",
        "json",
        "--shard",
        &last,
        "--trace-dir",
        traces.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains(&format!("shard {last} holds no items")),
        "{}",
        text(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["scenarios"], serde_json::json!([]));
    assert_eq!(doc["shard_of"]["total"], count);
    let human = run(&[
        "check",
        "--all",
        "--quiet",
        "--shard",
        &last,
        "--trace-dir",
        traces.to_str().unwrap(),
    ]);
    assert!(!text(&human.stdout).contains("every property held"));
    let path = dir.join("last.json");
    std::fs::write(&path, &out.stdout).unwrap();
    refused(
        &merge(&[path.as_path()], &[]),
        &format!("shard(s) 1/{n}, 2/{n}"),
    );
}

/// Sweep and mutants shards merge into their unsharded reports too.
#[test]
fn sweep_and_mutants_shards_merge_into_the_unsharded_reports() {
    let dir = scratch("sweep");
    let bound = "docs=2,stmts=1,total=1,moves=1";
    let base = ["sweep", "--quiet", "--no-timings", "--bound", bound];
    let mut shards = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let args: Vec<&str> = base
            .iter()
            .copied()
            .chain(["--shard", &shard, "--format", "json"])
            .collect();
        shards.push(run_to(&dir, &format!("sweep-{k}.json"), &args).1);
    }
    let files: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
    for format in ["json", "junit", "markdown", "github"] {
        let args: Vec<&str> = base.iter().copied().chain(["--format", format]).collect();
        let whole = run(&args);
        let merged = merge(&files, &["--format", format]);
        assert_eq!(merged.status.code(), whole.status.code(), "{format}");
        assert!(
            merged.stdout == whole.stdout,
            "{format}:\n{}\n---\n{}",
            text(&merged.stdout),
            text(&whole.stdout)
        );
    }

    let base = ["mutants", "--operator", "swap-adjacent"];
    let mut parts = Vec::new();
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let args: Vec<&str> = base
            .iter()
            .copied()
            .chain(["--shard", &shard, "--format", "json"])
            .collect();
        parts.push(run_to(&dir, &format!("mutants-{k}.json"), &args).1);
    }
    let parts: Vec<&Path> = parts.iter().map(PathBuf::as_path).collect();
    let args: Vec<&str> = base.iter().copied().chain(["--format", "json"]).collect();
    let whole = run(&args);
    let merged = merge(&parts, &[]);
    assert_eq!(merged.status.code(), whole.status.code());
    assert!(merged.stdout == whole.stdout, "{}", text(&merged.stdout));
    refused(
        &merge(&parts, &["--format", "junit"]),
        "json or markdown only",
    );
    refused(
        &merge(&[parts[0], files[1], files[2]], &[]),
        "merge the shards of one run",
    );
}

/// Whatever the files hold, merge ends with one line and exit 2: never a panic, never an
/// unbounded read.
#[test]
fn hostile_or_mismatched_shard_files_are_refused_with_one_line() {
    let dir = scratch("hostile");
    let traces = dir.join("traces");
    let shard = |k: u32, n: u32, extra: &[&str]| -> serde_json::Value {
        let spec = format!("{k}/{n}");
        let mut args = vec![
            "check",
            "--all",
            "--quiet",
            "--no-timings",
            "--format",
            "json",
            "--shard",
            &spec,
            "--trace-dir",
            traces.to_str().unwrap(),
        ];
        args.extend(extra);
        serde_json::from_slice(&run(&args).stdout).unwrap()
    };
    let write = |name: &str, v: &serde_json::Value| -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, serde_json::to_string(v).unwrap()).unwrap();
        p
    };
    let one = shard(1, 2, &[]);
    let two = shard(2, 2, &[]);
    let a = write("a.json", &one);
    let b = write("b.json", &two);
    assert_eq!(merge(&[&a, &b], &[]).status.code(), Some(1));

    refused(&merge(&[&a, &a], &[]), "shard 1/2 is given twice");
    refused(&merge(&[&a], &[]), "shard(s) 2/2 missing");
    let proposed = write("p.json", &shard(2, 2, &["--variant", "proposed"]));
    refused(&merge(&[&a, &proposed], &[]), "different --variant");
    let timed = shard(2, 2, &[]);
    let mut timed_options = timed.clone();
    timed_options["shard_of"]["options"]["timings"] = "true".into();
    refused(
        &merge(&[&a, &write("t.json", &timed_options)], &[]),
        "different --timings",
    );
    let other_n = write("n.json", &shard(2, 3, &[]));
    refused(&merge(&[&a, &other_n], &[]), "one of 3 shards");

    let mut dropped = two.clone();
    dropped["scenarios"].as_array_mut().unwrap().pop();
    refused(&merge(&[&a, &write("d.json", &dropped)], &[]), "holds");
    let mut renamed = two.clone();
    renamed["scenarios"][0]["scenario"] = "\u{1b}[2Jnot-a-scenario".into();
    refused(
        &merge(&[&a, &write("r.json", &renamed)], &[]),
        "not the items its shard record names",
    );
    let mut lied = two.clone();
    lied["shard_of"]["items"][0] = one["shard_of"]["items"][0].clone();
    lied["scenarios"][0]["scenario"] = one["shard_of"]["items"][0].clone();
    refused(
        &merge(&[&a, &write("l.json", &lied)], &[]),
        "is in more than one shard",
    );
    let mut verdict = two.clone();
    verdict["scenarios"][0]["properties"][0]["verdict"] = "fine".into();
    refused(
        &merge(&[&a, &write("v.json", &verdict)], &[]),
        "unknown verdict 'fine'",
    );
    let mut step = two.clone();
    let violated = step["scenarios"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .flat_map(|s| s["properties"].as_array_mut().unwrap())
        .find(|p| p["verdict"] == "violated")
        .expect("a violation under seed");
    violated["counterexample"][0]["steps"] = serde_json::json!(["nowhere#1"]);
    refused(
        &merge(&[&a, &write("s.json", &step)], &[]),
        "unknown step ID 'nowhere#1'",
    );
    let mut index = two.clone();
    index["shard_of"]["index"] = 0.into();
    refused(
        &merge(&[&a, &write("i.json", &index)], &[]),
        "is not a shard",
    );

    let garbage = dir.join("g.json");
    std::fs::write(&garbage, "{\"shard_of\": ").unwrap();
    refused(&merge(&[&garbage], &[]), "not a shard report");
    std::fs::write(&garbage, "[".repeat(100_000)).unwrap();
    refused(&merge(&[&garbage], &[]), "not a shard report");
    std::fs::write(&garbage, [0xff, 0xfe]).unwrap();
    refused(&merge(&[&garbage], &[]), "not UTF-8");
    refused(&merge(&[Path::new("/dev/zero")], &[]), "larger than 32 MiB");
    refused(&merge(&[&dir.join("absent.json")], &[]), "cannot read");
    let plain = dir.join("plain.json");
    std::fs::write(&plain, "{\"scenarios\": []}").unwrap();
    refused(&merge(&[&plain], &[]), "run the command with --shard I/N");
}

/// `--shard` values: one parser for every command, one line each.
#[test]
fn bad_shard_values_are_one_line_usage_errors() {
    for command in [
        vec!["check", "--all"],
        vec!["sweep"],
        vec!["mutants"],
        vec!["conformance"],
    ] {
        for bad in ["0/4", "5/4", "1/0", "x", "1/1001"] {
            let out = run(&[command.as_slice(), &["--shard", bad]].concat());
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command:?} {bad}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(stderr.contains("--shard wants"), "{stderr}");
        }
    }
    let out = run(&[
        "check",
        "--scenario",
        "abort-before-dispatch",
        "--shard",
        "1/2",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["check", "--all", "--shard", "1/2", "--profile", "legacy"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Conformance shards partition the scenarios that have a browser form (checked without a
/// browser, through the tests they emit).
#[test]
fn conformance_shards_partition_the_browser_forms() {
    let dir = scratch("wpt");
    let emitted = |name: &str, extra: &[&str]| -> Vec<String> {
        let out_dir = dir.join(name);
        let out = run(&[
            &["conformance", "--emit-wpt", out_dir.to_str().unwrap()],
            extra,
        ]
        .concat());
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let mut files: Vec<String> = std::fs::read_dir(&out_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|f| f.ends_with(".html"))
            .collect();
        files.sort();
        files
    };
    let whole = emitted("whole", &[]);
    assert!(whole.len() > 3);
    let mut union: Vec<String> = (1..=3)
        .flat_map(|k| emitted(&format!("s{k}"), &["--shard", &format!("{k}/3")]))
        .collect();
    union.sort();
    assert_eq!(union, whole);
}
