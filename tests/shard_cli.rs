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

/// An empty shard's run: exit 3 (it decided nothing, so never a pass), and stderr says so.
fn decided_nothing(out: &Output, shard: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(&format!("shard {shard} holds no items")),
        "{stderr}"
    );
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
    let trace_dir = traces.to_str().unwrap();
    let shard = |extra: &[&str]| {
        let base = [
            "check",
            "--all",
            "--quiet",
            "--shard",
            &last,
            "--trace-dir",
            trace_dir,
        ];
        run(&[&base[..], extra].concat())
    };
    let out = shard(&["--format", "json"]);
    decided_nothing(&out, &last);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["scenarios"], serde_json::json!([]));
    assert_eq!(doc["shard_of"]["total"], count);
    let human = shard(&[]);
    assert!(!text(&human.stdout).contains("every property held"));
    // The timely engine's empty shard decided nothing either.
    let timely = shard(&["--format", "json", "--engine", "timely"]);
    decided_nothing(&timely, &last);
    let path = dir.join("last.json");
    std::fs::write(&path, &out.stdout).unwrap();
    refused(
        &merge(&[path.as_path()], &[]),
        &format!("shard(s) 1/{n}, 2/{n}"),
    );
    // A timely shard is not a local one: the engines stop at different points under
    // --max-states, so merge does not join them.
    let timely_path = dir.join("last-timely.json");
    std::fs::write(&timely_path, &timely.stdout).unwrap();
    refused(
        &merge(&[path.as_path(), timely_path.as_path()], &[]),
        "were run with different --engine",
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
    let doc: serde_json::Value = serde_json::from_slice(&merged.stdout).unwrap();
    assert_eq!(
        doc["selection"],
        serde_json::json!({"operator": "swap-adjacent"})
    );
    // The report of a selection says it is one, merged or not.
    let whole_md = run(&[
        "mutants",
        "--operator",
        "swap-adjacent",
        "--format",
        "markdown",
    ]);
    let merged_md = merge(&parts, &["--format", "markdown"]);
    assert!(
        merged_md.stdout == whole_md.stdout,
        "{}",
        text(&merged_md.stdout)
    );
    let md = text(&merged_md.stdout);
    assert!(
        md.contains("Generated by `webmcp-check mutants --operator swap-adjacent`"),
        "{md}"
    );
    assert!(md.contains("of `--operator swap-adjacent` only"), "{md}");
    assert!(!md.contains("-o docs/mutation.md"), "{md}");
    // A name that is not this build's (a scenario, a property) is refused, not rendered.
    for (field, value, says) in [
        (
            "property",
            "x | <img src=x> [c](javascript:alert(1))",
            "unknown property",
        ),
        ("scenario", "no-such-scenario", "no-such-scenario"),
    ] {
        let mut doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(parts[1]).unwrap()).unwrap();
        let mut edited = false;
        for m in doc["mutants"].as_array_mut().unwrap() {
            if m["fate"] == "killed" {
                m[field] = serde_json::json!(value);
                edited = true;
            }
        }
        assert!(edited, "a killed mutant in shard 2/2");
        let tampered = dir.join(format!("mutants-2-{field}.json"));
        std::fs::write(&tampered, doc.to_string()).unwrap();
        refused(&merge(&[parts[0], tampered.as_path()], &[]), says);
    }
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

    refused(&merge(&[&a, &a], &[]), "a.json is the same file as");
    let copy = write("a-copy.json", &one);
    refused(&merge(&[&a, &copy], &[]), "shard 1/2 is given twice");
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

/// The embedded scenarios that have a browser form, in `list`'s order (the items conformance
/// shards divide), found without a browser: those `--emit-wpt` writes a test for.
fn scenarios_with_browser_form(dir: &Path) -> Vec<String> {
    let out_dir = dir.join("forms");
    let out = run(&[
        "conformance",
        "--all",
        "--emit-wpt",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let emitted: std::collections::BTreeSet<String> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".html"))
        .map(|f| f.split('.').next().unwrap().to_string())
        .collect();
    text(&run(&["list"]).stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| emitted.contains(*name))
        .map(str::to_string)
        .collect()
}

/// A conformance shard report built from `results` (JSON results of a real or made-up run),
/// as `conformance --shard K/N --no-timings --format json` writes it.
fn conformance_shard(
    k: usize,
    n: usize,
    names: &[String],
    results: &[serde_json::Value],
    browser: &str,
) -> serde_json::Value {
    let mine = |list: &[serde_json::Value]| -> Vec<serde_json::Value> {
        list.iter().skip(k - 1).step_by(n).cloned().collect()
    };
    let items: Vec<serde_json::Value> = names.iter().map(|s| s.as_str().into()).collect();
    serde_json::json!({
        "browser": if mine(results).is_empty() { "" } else { browser },
        "counts": {},
        "results": mine(results),
        "shard_of": {
            "command": "conformance",
            "count": n,
            "index": k,
            "items": mine(&items),
            "options": {
                "api": "draft",
                "impl": "chromium",
                "page-timeout": "15",
                "polyfill": "none",
                "timings": "false"
            },
            "total": names.len()
        },
        "without_browser_form": {}
    })
}

/// A shard that holds no scenario says so, exits 3 (it decided nothing: never a pass) and
/// starts no browser; its report still counts in the merge.
#[test]
fn an_empty_conformance_shard_exits_3_without_a_browser() {
    let dir = scratch("conformance-empty");
    let names = scenarios_with_browser_form(&dir);
    let n = names.len() + 2;
    let last = format!("{n}/{n}");
    let save = dir.join("saved.json");
    let out = run(&[
        "conformance",
        "--shard",
        &last,
        "--format",
        "json",
        "--chromium",
        "/nonexistent/chromium",
        "--save",
        save.to_str().unwrap(),
    ]);
    decided_nothing(&out, &last);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["results"], serde_json::json!([]));
    assert_eq!(doc["shard_of"]["command"], "conformance");
    assert_eq!(doc["shard_of"]["total"], names.len());
    assert_eq!(doc["shard_of"]["items"], serde_json::json!([]));
    let saved: serde_json::Value = serde_json::from_slice(&std::fs::read(&save).unwrap()).unwrap();
    assert_eq!(saved["shard_of"], doc["shard_of"]);
    let path = dir.join("last.json");
    std::fs::write(&path, &out.stdout).unwrap();
    refused(
        &merge(&[path.as_path()], &[]),
        &format!("shard(s) 1/{n}, 2/{n}"),
    );
}

/// A made-up result that conforms (no browser is needed to merge it); "Chromium 1" is a
/// build no analysis of conformance/analysis.json is written for.
fn conforming_result(name: &str) -> serde_json::Value {
    let allowed = serde_json::json!({
        "allowed": true, "allowed_count": 1, "states": 1, "complete": true, "differences": []
    });
    serde_json::json!({
        "scenario": name,
        "implementation": "chromium",
        "browser": "Chromium 1.0 test",
        "api_requested": "draft",
        "api": ["document.modelContext"],
        "surfaces": [],
        "timed_out": false,
        "statements": [],
        "intervened": {},
        "observation": {"top: script": "done"},
        "outside_draft": [],
        "seed": allowed,
        "proposed": allowed,
        "verdict": {"kind": "conforms", "draft_as_written": true},
        "model_reaches_body": {"Ok": null},
        "verdict_text": "conforms"
    })
}

/// Conformance shards are refused like the others': missing, repeated, foreign or hostile,
/// each with one line and exit 2; a whole set merges, in every format but github.
#[test]
fn conformance_shards_are_checked_before_they_merge() {
    let dir = scratch("conformance-refused");
    let names = scenarios_with_browser_form(&dir);
    let results: Vec<serde_json::Value> = names.iter().map(|n| conforming_result(n)).collect();
    let write = |name: &str, v: &serde_json::Value| -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, serde_json::to_string(v).unwrap()).unwrap();
        p
    };
    let shard = |k| conformance_shard(k, 2, &names, &results, "Chromium 1.0 test");
    let (one, two) = (shard(1), shard(2));
    let a = write("a.json", &one);
    let b = write("b.json", &two);
    let merged = merge(&[&b, &a], &[]);
    assert_eq!(merged.status.code(), Some(0), "{}", text(&merged.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&merged.stdout).unwrap();
    let order: Vec<&str> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["scenario"].as_str().unwrap())
        .collect();
    assert_eq!(order, names);
    assert!(doc.get("shard_of").is_none());
    assert!(!doc["without_browser_form"].as_object().unwrap().is_empty());
    let junit = text(&merge(&[&a, &b], &["--format", "junit"]).stdout);
    assert_eq!(junit.matches("<testcase ").count(), names.len());
    assert!(junit.contains(&format!("tests=\"{}\" failures=\"0\"", names.len())));
    let markdown = merge(&[&a, &b], &["--format", "markdown"]);
    assert!(text(&markdown.stdout).starts_with("Browser: `Chromium 1.0 test`"));
    refused(
        &merge(&[&a, &b], &["--format", "github"]),
        "json, junit or markdown only",
    );

    refused(&merge(&[&a, &a], &[]), "a.json is the same file as");
    let copy = write("a-copy.json", &one);
    refused(&merge(&[&a, &copy], &[]), "shard 1/2 is given twice");
    refused(&merge(&[&a], &[]), "shard(s) 2/2 missing");
    let mut polyfill = two.clone();
    polyfill["shard_of"]["options"]["impl"] = "polyfill".into();
    refused(
        &merge(&[&a, &write("p.json", &polyfill)], &[]),
        "different --impl",
    );
    let mut testing = two.clone();
    testing["shard_of"]["options"]["api"] = "testing".into();
    let testing_a = {
        let mut t = one.clone();
        t["shard_of"]["options"]["api"] = "testing".into();
        write("ta.json", &t)
    };
    refused(
        &merge(&[&testing_a, &write("t.json", &testing)], &[]),
        "lacks or garbles the option --api",
    );
    let other_check = {
        let traces = dir.join("traces");
        let out = run(&[
            "check",
            "--all",
            "--quiet",
            "--format",
            "json",
            "--shard",
            "2/2",
            "--trace-dir",
            traces.to_str().unwrap(),
        ]);
        dir_file(&dir, "check.json", &out.stdout)
    };
    refused(
        &merge(&[&a, &other_check], &[]),
        "merge the shards of one run",
    );
    let browser = conformance_shard(2, 2, &names, &results, "Chromium 2.0 test");
    let mut browser = browser;
    for r in browser["results"].as_array_mut().unwrap() {
        r["browser"] = "Chromium 2.0 test".into();
    }
    refused(
        &merge(&[&a, &write("br.json", &browser)], &[]),
        "ran in 'Chromium 2.0 test' but ",
    );
    let mut foreign = two.clone();
    foreign["shard_of"]["items"][0] = "not-a-scenario".into();
    foreign["results"][0]["scenario"] = "not-a-scenario".into();
    refused(
        &merge(&[&a, &write("f.json", &foreign)], &[]),
        "other scenarios than this build's",
    );
    // One field of one result tampered with: each shard is refused, saying why.
    for (field, value, why) in [
        (
            "wall_ms",
            serde_json::json!(1200),
            "the option --no-timings",
        ),
        (
            "scenario",
            serde_json::json!("\u{1b}[2Jnot-a-scenario"),
            "not the items its shard record names",
        ),
        (
            "verdict_text",
            serde_json::json!("conforms: trust me"),
            "a shard of another version",
        ),
        (
            "verdict",
            serde_json::json!({"kind": "fine"}),
            "not a shard report",
        ),
        (
            "api_requested",
            serde_json::json!("\u{7}bell"),
            "neither draft nor testing",
        ),
        ("surprise", serde_json::json!(true), "unknown field"),
    ] {
        let mut tampered = two.clone();
        tampered["results"][0][field] = value;
        refused(
            &merge(&[&a, &write(&format!("{field}.json"), &tampered)], &[]),
            why,
        );
    }
}

fn dir_file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// A real run: the unsharded conformance run's results split into shards, one of them run
/// for real (the shard that holds only `register-and-discover`), merge into the unsharded
/// report byte for byte (JSON and Markdown) with the same exit code. One full run in the
/// browser takes a minute and a half; a real shard of every part would double it.
#[test]
#[cfg_attr(
    webmcp_no_chromium,
    ignore = "no Chromium at $WEBMCP_CHROMIUM or /usr/bin/chromium (WEBMCP_REQUIRE_BROWSER=1 makes this a failure)"
)]
fn conformance_shards_merge_into_the_unsharded_report() {
    let chromium = webmcp_browser::chromium_for_tests();
    let chromium = chromium.to_str().unwrap();
    let dir = scratch("conformance-real");
    let names = scenarios_with_browser_form(&dir);
    let saved = dir.join("whole.json");
    let whole = run(&[
        "conformance",
        "--all",
        "--no-timings",
        "--chromium",
        chromium,
        "--format",
        "markdown",
        "--save",
        saved.to_str().unwrap(),
    ]);
    let whole_json = std::fs::read(&saved).unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&whole_json).unwrap();
    let results = doc["results"].as_array().unwrap();
    let browser = doc["browser"].as_str().unwrap();
    let n = names.len();
    let k = 1 + names
        .iter()
        .position(|s| s == "register-and-discover")
        .unwrap();
    let spec = format!("{k}/{n}");
    let (code, real) = run_to(
        &dir,
        "real.json",
        &[
            "conformance",
            "--shard",
            &spec,
            "--no-timings",
            "--chromium",
            chromium,
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "register-and-discover conforms");
    let real_doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&real).unwrap()).unwrap();
    assert_eq!(
        real_doc["results"][0],
        results[k - 1],
        "the same scenario in the same browser gave another result"
    );
    let mut files = vec![real];
    for i in (1..=n).filter(|i| *i != k) {
        let shard = conformance_shard(i, n, &names, results, browser);
        files.push(dir_file(
            &dir,
            &format!("shard-{i}.json"),
            serde_json::to_string(&shard).unwrap().as_bytes(),
        ));
    }
    let files: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let merged = merge(&files, &[]);
    assert_eq!(merged.status.code(), whole.status.code());
    assert!(
        merged.stdout == [whole_json.as_slice(), b"\n"].concat(),
        "the merged JSON differs from the unsharded run's"
    );
    let merged = merge(&files, &["--format", "markdown"]);
    assert_eq!(merged.status.code(), whole.status.code());
    assert!(
        merged.stdout == whole.stdout,
        "{}\n---\n{}",
        text(&merged.stdout),
        text(&whole.stdout)
    );
    let junit = text(&merge(&files, &["--format", "junit"]).stdout);
    assert_eq!(junit.matches("<testcase ").count(), n);
}
