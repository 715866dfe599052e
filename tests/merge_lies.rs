//! `merge` never turns shard reports that contradict themselves into a verdict: a check
//! scenario judged on fewer properties than the catalogue (or on one twice), a check shard
//! that leaves a scenario out, a sweep shard whose counts do not add up, a key given twice
//! (which a JSON reader takes as its last value). Each is refused
//! with exit 2 and one line; genuine shard sets still merge with their usual exit code.

mod common;

use common::{bin, text};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("webmcp-merge-lies-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `args` and returns its exit code and its standard output as JSON.
fn report(args: &[&str]) -> (i32, Value) {
    let out = bin().args(args).output().unwrap();
    assert!(
        !text(&out.stderr).contains("panicked"),
        "{args:?}: {}",
        text(&out.stderr)
    );
    let code = out.status.code().unwrap();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?} (exit {code}) wrote no JSON: {e}"));
    (code, json)
}

/// Shard `i` of `n` of `check --all` under `variant`, as JSON.
fn check_shard(dir: &Path, variant: &str, i: u32, n: u32) -> Value {
    let shard = format!("{i}/{n}");
    let traces = dir.join("traces");
    report(&[
        "check",
        "--all",
        "--variant",
        variant,
        "--shard",
        &shard,
        "-q",
        "--no-timings",
        "--format",
        "json",
        "--trace-dir",
        traces.to_str().unwrap(),
    ])
    .1
}

/// Shard `i` of `n` of a sweep with `extra` options (`proposed` unless they name a variant):
/// its exit code and JSON.
fn sweep_shard(bound: &str, i: u32, n: u32, extra: &[&str]) -> (i32, Value) {
    let shard = format!("{i}/{n}");
    let mut args = vec![
        "sweep",
        "--bound",
        bound,
        "--shard",
        &shard,
        "-q",
        "--no-timings",
        "--format",
        "json",
    ];
    if !extra.contains(&"--variant") {
        args.extend(["--variant", "proposed"]);
    }
    args.extend(extra);
    report(&args)
}

fn write(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string(v).unwrap()).unwrap();
    p
}

fn merge(files: &[PathBuf]) -> Output {
    bin()
        .arg("merge")
        .args(files)
        .args(["--format", "markdown"])
        .output()
        .unwrap()
}

/// A refusal: exit 2, one line on stderr that says every one of `why`, nothing on stdout.
fn refused(out: &Output, why: &[&str]) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("webmcp-check: "), "{stderr}");
    for w in why {
        assert!(stderr.contains(w), "wanted '{w}' in: {stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
}

#[test]
fn the_merged_report_is_never_written_over_a_shard() {
    let dir = scratch("over-a-shard");
    let files: Vec<PathBuf> = (1..=2)
        .map(|i| {
            write(
                &dir,
                &format!("s{i}.json"),
                &check_shard(&dir, "proposed", i, 2),
            )
        })
        .collect();
    let before = std::fs::read(&files[1]).unwrap();
    let out = bin()
        .arg("merge")
        .args(&files)
        .arg("-o")
        .arg(&files[1])
        .output()
        .unwrap();
    refused(&out, &["s2.json", "that is the shard", "itself"]);
    assert_eq!(std::fs::read(&files[1]).unwrap(), before);
    let elsewhere = dir.join("merged.json");
    let out = bin()
        .arg("merge")
        .args(&files)
        .arg("-o")
        .arg(&elsewhere)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(elsewhere.exists());
}

/// Every scenario of every shard passed through `f`.
fn each_scenario(shard: &Value, f: impl Fn(&mut Value)) -> Value {
    let mut v = shard.clone();
    for s in v["scenarios"].as_array_mut().unwrap() {
        f(s);
    }
    v
}

#[test]
fn check_scenarios_not_judged_on_the_whole_catalogue_are_refused() {
    let dir = scratch("props");
    let shards: Vec<Value> = (1..=3)
        .map(|i| check_shard(&dir, "proposed", i, 3))
        .collect();
    let catalogue = shards[0]["scenarios"][0]["properties"]
        .as_array()
        .unwrap()
        .len();
    assert!(catalogue > 1);
    let first_scenario = shards[0]["scenarios"][0]["scenario"]
        .as_str()
        .unwrap()
        .to_string();
    let set = |tag: &str, f: &dyn Fn(&mut Value)| -> Vec<PathBuf> {
        shards
            .iter()
            .enumerate()
            .map(|(i, s)| write(&dir, &format!("{tag}{}.json", i + 1), &each_scenario(s, f)))
            .collect()
    };

    // No verdict at all: was "0 violation(s) in 52 scenario(s)", every row a pass.
    let none = set("none", &|s| s["properties"] = Value::Array(vec![]));
    refused(
        &merge(&none),
        &[
            "none1.json",
            &first_scenario,
            &format!("judges 0 of the catalogue's {catalogue} properties"),
        ],
    );
    // One property only.
    let one = set("one", &|s| {
        s["properties"].as_array_mut().unwrap().truncate(1);
    });
    refused(
        &merge(&one),
        &[
            "one1.json",
            &first_scenario,
            &format!("judges 1 of the catalogue's {catalogue} properties"),
        ],
    );
    // A property listed twice (in place of another, so the count is the catalogue's).
    let twice = set("twice", &|s| {
        let ps = s["properties"].as_array_mut().unwrap();
        ps[1] = ps[0].clone();
    });
    let name = shards[0]["scenarios"][0]["properties"][0]["name"]
        .as_str()
        .unwrap()
        .to_string();
    refused(
        &merge(&twice),
        &[
            "twice1.json",
            &first_scenario,
            &format!("names property '{name}' twice"),
        ],
    );
    // A property listed twice on top of the catalogue.
    let extra = set("extra", &|s| {
        let ps = s["properties"].as_array_mut().unwrap();
        let p = ps[3].clone();
        ps.push(p);
    });
    refused(&merge(&extra), &["extra1.json", &first_scenario, "twice"]);
    // A name that is no property of the catalogue.
    let unknown = set("unknown", &|s| {
        s["properties"][2]["name"] = "made-up".into()
    });
    refused(
        &merge(&unknown),
        &[
            "unknown1.json",
            &first_scenario,
            "unknown property 'made-up'",
        ],
    );
    // Every property, in another order than a check writes.
    let reversed = set("reversed", &|s| {
        s["properties"].as_array_mut().unwrap().reverse();
    });
    refused(
        &merge(&reversed),
        &["reversed1.json", &first_scenario, "order"],
    );

    // One shard alone lying is enough.
    let mut mixed = vec![none[0].clone()];
    mixed.extend(
        shards[1..]
            .iter()
            .enumerate()
            .map(|(i, s)| write(&dir, &format!("real{}.json", i + 2), s)),
    );
    refused(&merge(&mixed), &["none1.json", "judges 0"]);
}

/// Memory stays bounded whatever the files: one file named twice (here through a link) is
/// refused before either is read, and files that are each under the limit of one report but
/// together over the limit of one merge are refused at the one that crosses it.
#[test]
fn merge_reads_each_file_once_and_at_most_its_limit_in_all() {
    let dir = scratch("limits");
    let shard = check_shard(&dir, "proposed", 1, 2);
    let a = write(&dir, "a.json", &shard);
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(&a, &link).unwrap();
    refused(
        &merge(&[a.clone(), link]),
        &["link.json is the same file as", "a.json"],
    );
    // Three reports of 30 MiB each (valid JSON, so that each is read whole).
    let big: Vec<PathBuf> = (1..=3)
        .map(|i| {
            let p = dir.join(format!("big{i}.json"));
            let text = format!("{{\"x\":\"{}\"}}", "y".repeat(30 << 20));
            std::fs::write(&p, text).unwrap();
            p
        })
        .collect();
    refused(
        &merge(&big),
        &["big3.json", "more than 64 MiB of shard reports", "not read"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A scenario's counts, flags and verdicts must be ones a check writes together: more unique
/// states than generated, a search both exhaustive and stopped (or neither), a negative
/// time, a property that holds where the search was not exhaustive, one undecided where it
/// was, or one that holds with a path to a state that shows it. Each is refused.
#[test]
fn check_results_no_check_writes_are_refused() {
    let dir = scratch("inconsistent");
    let shards: Vec<Value> = (1..=2)
        .map(|i| check_shard(&dir, "proposed", i, 2))
        .collect();
    let first_holding = |s: &Value| {
        s["properties"]
            .as_array()
            .unwrap()
            .iter()
            .position(|p| p["verdict"] == "hold")
            .expect("a property that holds")
    };
    type Edit = fn(&mut Value, usize);
    let cases: [(Edit, &str); 10] = [
        (
            // Exhaustive, yet its initial state never expanded.
            |s, _| s["max_depth"] = 0.into(),
            "a depth of 0 over",
        ),
        (
            |s, _| s["max_depth"] = (s["total_states"].as_u64().unwrap() + 1).into(),
            "a depth of",
        ),
        (
            |s, i| s["properties"][i]["verdict"] = "witnessed".into(),
            "is \"witnessed\" for a property that holds or is violated",
        ),
        (
            |s, _| {
                let props = s["properties"].as_array_mut().unwrap();
                let sometimes = props.iter_mut().find(|p| p["kind"] == "sometimes").unwrap();
                sometimes["verdict"] = "hold".into();
                sometimes["counterexample"] = Value::Null;
            },
            "is \"hold\" for a sometimes property (witnessed or not)",
        ),
        (
            |s, _| s["unique_states"] = (s["total_states"].as_u64().unwrap() + 1).into(),
            "unique states of",
        ),
        (
            |s, _| s["stopped_by"] = serde_json::json!({"kind": "max-states", "states": 5}),
            "exhaustive, yet stopped by a bound",
        ),
        (
            |s, _| s["exhaustive"] = false.into(),
            "not exhaustive, and nothing named that stopped it",
        ),
        (
            |s, i| {
                s["exhaustive"] = false.into();
                s["stopped_by"] = serde_json::json!({"kind": "max-states", "states": 5});
                let _ = i;
            },
            "is \"hold\" from a search that was not exhaustive",
        ),
        (
            |s, i| s["properties"][i]["verdict"] = "incomplete".into(),
            "is \"incomplete\" from an exhaustive search",
        ),
        (
            |s, i| {
                s["properties"][i]["counterexample"] =
                    serde_json::json!([{"action": "a", "steps": []}])
            },
            "is \"hold\" with a path to a state that shows it",
        ),
    ];
    for (k, (edit, why)) in cases.into_iter().enumerate() {
        let mut edited = shards[0].clone();
        let scenario = &mut edited["scenarios"][0];
        let i = first_holding(scenario);
        edit(scenario, i);
        let files = vec![
            write(&dir, &format!("e{k}.json"), &edited),
            write(&dir, "s2.json", &shards[1]),
        ];
        refused(
            &merge(&files),
            &[&format!("e{k}.json"), why, "which no check writes"],
        );
    }
    // Timed shards, one of whose times is negative.
    let timed: Vec<Value> = shards
        .iter()
        .map(|s| {
            let mut t = each_scenario(s, |sc| sc["seconds"] = (0.5).into());
            t["shard_of"]["options"]["timings"] = "true".into();
            t
        })
        .collect();
    assert!(matches!(
        merge(&[
            write(&dir, "t1.json", &timed[0]),
            write(&dir, "t2.json", &timed[1])
        ])
        .status
        .code(),
        Some(0 | 1)
    ));
    let mut negative = timed[0].clone();
    negative["scenarios"][0]["seconds"] = (-1.0).into();
    refused(
        &merge(&[
            write(&dir, "neg.json", &negative),
            write(&dir, "t2.json", &timed[1]),
        ]),
        &["neg.json", "a time of -1 s"],
    );
}

/// Shards whose records agree with one another, but that together are not this build's
/// `check --all`: fewer scenarios (the total edited to match), the same ones in another
/// order, or none at all. Each would have merged into a pass of scenarios never checked.
#[test]
fn check_shards_that_are_not_the_whole_suite_are_refused() {
    let dir = scratch("suite");
    let shards: Vec<Value> = (1..=3)
        .map(|i| check_shard(&dir, "proposed", i, 3))
        .collect();
    let suite = shards
        .iter()
        .map(|s| s["scenarios"].as_array().unwrap().len())
        .sum::<usize>();
    let write_all = |name: &str, shards: &[Value]| -> Vec<PathBuf> {
        shards
            .iter()
            .enumerate()
            .map(|(i, s)| write(&dir, &format!("{name}{}.json", i + 1), s))
            .collect()
    };

    // One scenario gone from shard 1's results and record, and every total one lower.
    let mut fewer = shards.clone();
    fewer[0]["scenarios"].as_array_mut().unwrap().remove(0);
    fewer[0]["shard_of"]["items"]
        .as_array_mut()
        .unwrap()
        .remove(0);
    for s in &mut fewer {
        s["shard_of"]["total"] = serde_json::json!(suite - 1);
    }
    refused(
        &merge(&write_all("fewer", &fewer)),
        &[
            "not this build's `check --all`",
            &format!(
                "they hold {} scenario(s) in all, and it has {suite}",
                suite - 1
            ),
        ],
    );

    // The first scenarios of shards 1 and 2 swapped, results and records alike.
    let mut swapped = shards.clone();
    let (a, b) = (
        swapped[0]["scenarios"][0].clone(),
        swapped[1]["scenarios"][0].clone(),
    );
    let (na, nb) = (
        swapped[0]["shard_of"]["items"][0].clone(),
        swapped[1]["shard_of"]["items"][0].clone(),
    );
    (swapped[0]["scenarios"][0], swapped[1]["scenarios"][0]) = (b, a);
    (
        swapped[0]["shard_of"]["items"][0],
        swapped[1]["shard_of"]["items"][0],
    ) = (nb.clone(), na.clone());
    refused(
        &merge(&write_all("swapped", &swapped)),
        &[&format!(
            "scenario 1 of the whole run is '{}', where it has '{}'",
            nb.as_str().unwrap(),
            na.as_str().unwrap()
        )],
    );

    // One shard of one, holding nothing.
    let mut empty = shards[0].clone();
    empty["scenarios"] = serde_json::json!([]);
    empty["shard_of"]["items"] = serde_json::json!([]);
    empty["shard_of"]["total"] = serde_json::json!(0);
    empty["shard_of"]["count"] = serde_json::json!(1);
    refused(
        &merge(&[write(&dir, "empty.json", &empty)]),
        &[&format!(
            "they hold 0 scenario(s) in all, and it has {suite}"
        )],
    );

    // The shards as written still merge.
    let out = merge(&write_all("whole", &shards));
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_check_shard_missing_a_scenario_says_which() {
    let dir = scratch("missing");
    let shards: Vec<Value> = (1..=3)
        .map(|i| check_shard(&dir, "proposed", i, 3))
        .collect();
    let mut files: Vec<PathBuf> = shards
        .iter()
        .enumerate()
        .map(|(i, s)| write(&dir, &format!("c{}.json", i + 1), s))
        .collect();
    let held = shards[0]["scenarios"].as_array().unwrap().len();
    let gone = shards[0]["scenarios"][0]["scenario"]
        .as_str()
        .unwrap()
        .to_string();
    let mut dropped = shards[0].clone();
    dropped["scenarios"].as_array_mut().unwrap().remove(0);
    files[0] = write(&dir, "dropped.json", &dropped);
    let out = merge(&files);
    refused(
        &out,
        &[
            "dropped.json",
            &format!("holds results for {}", held - 1),
            &format!("names {held}"),
            &format!("'{gone}' has no result"),
        ],
    );
    // Not the sentence that contradicted itself.
    assert!(
        !text(&out.stderr).contains(&format!("holds {held} items, but {held}")),
        "{}",
        text(&out.stderr)
    );

    let mut doubled = shards[0].clone();
    let first = doubled["scenarios"][0].clone();
    doubled["scenarios"].as_array_mut().unwrap().push(first);
    files[0] = write(&dir, "doubled.json", &doubled);
    refused(
        &merge(&files),
        &["doubled.json", &format!("'{gone}' has two results")],
    );
}

#[test]
fn sweep_shards_whose_counts_do_not_add_up_are_refused() {
    let dir = scratch("sweep");
    let bound = "tiny,stmts=1";
    let (_, one) = sweep_shard(bound, 1, 2, &[]);
    let (_, two) = sweep_shard(bound, 2, 2, &[]);
    let second = write(&dir, "p2.json", &two);
    let selected = one["selected"].as_u64().unwrap();
    assert!(selected > 0);
    let lie = |name: &str, f: &dyn Fn(&mut Value)| -> Output {
        let mut v = one.clone();
        f(&mut v);
        merge(&[write(&dir, name, &v), second.clone()])
    };

    // Was "No property is violated", exit 0.
    refused(
        &lie("unchecked.json", &|v| v["checked"] = 0.into()),
        &[
            "unchecked.json",
            "counts do not add up",
            &format!("0 checked and 0 not started are not the {selected} scenario(s) it selected"),
        ],
    );
    refused(
        &lie("fewer.json", &|v| v["checked"] = (selected - 1).into()),
        &["fewer.json", "counts do not add up"],
    );
    refused(
        &lie("started.json", &|v| v["not_started"] = 1.into()),
        &["started.json", "counts do not add up"],
    );
    // Not started, yet not incomplete: would read as decided.
    refused(
        &lie("skipped.json", &|v| {
            v["checked"] = 0.into();
            v["not_started"] = selected.into();
        }),
        &["skipped.json", "incomplete"],
    );
    refused(
        &lie("violated.json", &|v| {
            v["properties"][0]["violating"] = 1.into()
        }),
        &["violated.json", "smallest"],
    );
    refused(
        &lie("witnessed.json", &|v| {
            v["properties"][0]["witnessing"] = (selected + 1).into()
        }),
        &["witnessed.json", "counts do not add up"],
    );
    refused(
        &lie("stopped.json", &|v| v["incomplete"] = 1.into()),
        &["stopped.json", "stopped scenario"],
    );
    // A key given twice: serde_json keeps the last value, so the first (here "none
    // checked") was never seen, and the shard merged as if it said one thing.
    let honest = serde_json::to_string(&one).unwrap();
    let checked = format!("\"checked\":{}", one["checked"]);
    assert!(honest.contains(&checked), "{honest}");
    let doubled = dir.join("doubled.json");
    std::fs::write(
        &doubled,
        honest.replacen(&checked, &format!("\"checked\":0,{checked}"), 1),
    )
    .unwrap();
    refused(
        &merge(&[doubled, second.clone()]),
        &[
            "doubled.json",
            "the key \"checked\" is given twice in one object",
        ],
    );
}

#[test]
fn genuine_shard_sets_still_merge_with_their_usual_exit_code() {
    let dir = scratch("genuine");
    for (variant, code) in [("proposed", 0), ("seed", 1)] {
        let files: Vec<PathBuf> = (1..=3)
            .map(|i| {
                let shard = check_shard(&dir, variant, i, 3);
                write(&dir, &format!("{variant}{i}.json"), &shard)
            })
            .collect();
        let out = merge(&files);
        assert_eq!(out.status.code(), Some(code), "{}", text(&out.stderr));
    }
    // Shards stopped before their initial states were expanded (depth 0): incomplete.
    let files: Vec<PathBuf> = (1..=2)
        .map(|i| {
            let shard = format!("{i}/2");
            let (code, v) = report(&[
                "check",
                "--all",
                "--shard",
                &shard,
                "--timeout",
                "0",
                "-q",
                "--no-timings",
                "--format",
                "json",
                "--trace-dir",
                dir.join("traces").to_str().unwrap(),
            ]);
            assert_eq!(code, 3);
            assert!(v["scenarios"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["max_depth"] == 0));
            write(&dir, &format!("unexpanded{i}.json"), &v)
        })
        .collect();
    let out = merge(&files);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));

    let sweep = |bound: &str, extra: &[&str], tag: &str| -> (Vec<i32>, Output) {
        let (codes, files): (Vec<i32>, Vec<PathBuf>) = (1..=2)
            .map(|i| {
                let (code, v) = sweep_shard(bound, i, 2, extra);
                (code, write(&dir, &format!("{tag}{i}.json"), &v))
            })
            .unzip();
        (codes, merge(&files))
    };
    let (_, out) = sweep("tiny,stmts=1", &[], "tiny");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Searches a bound stopped (more than a report names): incomplete, exit 3.
    let (codes, out) = sweep("tiny,stmts=1", &["--max-states", "20"], "stopped");
    assert_eq!(codes, [3, 3]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    // Violations under seed, most searches stopped: exit 1.
    let (codes, out) = sweep(
        "tiny",
        &["--variant", "seed", "--max-states", "20"],
        "violated",
    );
    assert_eq!(codes, [1, 1]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    // One sampled scenario in two shards: the second holds none (selected 0, no largest
    // search), and the set still merges into the whole sweep's pass.
    let (_, out) = sweep("tiny,stmts=1", &["--sample", "1"], "sampled");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// `sweep --out` under `--timeout` may write a smallest scenario without its counterexample
/// (the search for it was stopped); the shard says why, and merge keeps the reason rather
/// than refusing the shard or inventing a trace.
#[test]
fn a_counterexample_a_bound_kept_from_being_written_merges_with_its_reason() {
    let dir = scratch("not-written");
    let bound = "tiny,stmts=1";
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    let extra = ["--variant", "seed", "--out", out];
    let (code, mut one) = sweep_shard(bound, 1, 2, &extra);
    assert_eq!(code, 1, "{one}");
    let (_, two) = sweep_shard(bound, 2, 2, &extra);
    let smallest = one["properties"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .map(|p| &mut p["smallest"])
        .find(|s| s["trace_file"].is_string())
        .expect("a smallest scenario with its trace");
    smallest["trace_file"] = Value::Null;
    smallest["trace_not_written"] = "stopped by --timeout 1 s after 9 states".into();
    let files = [write(&dir, "one.json", &one), write(&dir, "two.json", &two)];
    let merged = bin().arg("merge").args(&files).output().unwrap();
    assert_eq!(merged.status.code(), Some(1), "{}", text(&merged.stderr));
    let report: Value = serde_json::from_slice(&merged.stdout).unwrap();
    let reasons: Vec<&Value> = report["properties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["smallest"]["trace_not_written"])
        .filter(|r| !r.is_null())
        .collect();
    assert_eq!(
        reasons,
        [&Value::from("stopped by --timeout 1 s after 9 states")],
        "{report}"
    );
}
