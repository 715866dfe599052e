//! Every bound stops every explorer, promptly, and is named in the result; a run that a
//! bound did not cut short is exhaustive.

use std::time::{Duration, Instant};

use webmcp_model::{Variant, WebMcpModel, World};
use webmcp_profiles::legacy::{check_legacy, LegacyOptions};
use webmcp_profiles::{check, CheckOptions, Mode, ScenarioResult, StopReason, Verdict};

/// A top-level document and `n` same-origin iframes without scripts: millions of states
/// (every order of loading and navigating the frames), no property decided early.
fn iframes(n: usize) -> WebMcpModel {
    let frames: Vec<String> = (1..=n)
        .map(|i| format!(r#"{{"nav":"frame{i}","doc":"child{i}","url":"https://a.example/{i}"}}"#))
        .collect();
    let json = format!(
        r#"{{"name":"iframes-{n}","summary":"s","description":"d",
            "tabs":[{{"tab":"main","top":{{"doc":"top","url":"https://a.example/","iframes":[{}]}}}}],
            "scripts":{{}}}}"#,
        frames.join(",")
    );
    WebMcpModel::new(World::from_json(&json).unwrap(), Variant::SEED)
}

fn embedded(name: &str) -> WebMcpModel {
    let path = format!("{}/../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let world = World::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
    WebMcpModel::new(world, Variant::SEED)
}

/// Every way of exploring: (label, options without bounds).
fn modes() -> Vec<(&'static str, CheckOptions)> {
    let base = |mode, threads, symmetry| CheckOptions {
        mode,
        threads,
        symmetry,
        ..CheckOptions::default()
    };
    vec![
        ("bfs", base(Mode::Bfs, 1, false)),
        ("dfs", base(Mode::Dfs, 1, false)),
        ("bfs --threads 2", base(Mode::Bfs, 2, false)),
        ("dfs --threads 2", base(Mode::Dfs, 2, false)),
        ("bfs --symmetry", base(Mode::Bfs, 1, true)),
        (
            "sim",
            base(
                Mode::Sim {
                    seed: 7,
                    runs: u64::MAX,
                },
                1,
                false,
            ),
        ),
    ]
}

fn assert_stopped(label: &str, r: &ScenarioResult, stop: &StopReason) {
    assert_eq!(r.stopped_by.as_ref(), Some(stop), "{label}");
    assert!(!r.exhaustive, "{label}");
    assert!(
        r.properties
            .iter()
            .any(|p| p.verdict == Verdict::Incomplete),
        "{label}: a stopped run leaves something undecided"
    );
    assert!(
        !r.properties
            .iter()
            .any(|p| matches!(p.verdict, Verdict::Holds | Verdict::NotWitnessed)),
        "{label}: a stopped run proves nothing"
    );
}

#[test]
fn a_timeout_stops_every_mode_within_a_second_of_its_deadline() {
    // Before: one-thread `--mode dfs` (stateright's) looked at its timeout only when its stack
    // ran empty, which on 31 iframes is never.
    let model = iframes(31);
    let limit = Duration::from_millis(400);
    for (label, options) in modes() {
        let options = CheckOptions {
            timeout: Some(limit),
            ..options
        };
        let start = Instant::now();
        let r = check(model.clone(), &options);
        let took = start.elapsed();
        assert_stopped(label, &r, &StopReason::Timeout { limit });
        assert!(r.total_states > 1, "{label}: it explored something");
        assert!(
            took < limit + Duration::from_secs(1),
            "{label}: stopped {took:?} after starting, for a {limit:?} timeout"
        );
    }
}

#[test]
fn max_states_stops_every_mode_near_the_bound() {
    let model = iframes(31);
    let n = 5_000;
    for (label, options) in modes() {
        let r = check(
            model.clone(),
            &CheckOptions {
                max_states: Some(n),
                ..options
            },
        );
        assert_stopped(label, &r, &StopReason::MaxStates { n });
        assert!(r.total_states >= n, "{label}: {}", r.total_states);
        // The one-thread searches stop within one expansion; the parallel ones count each
        // worker's states in batches (a chunk of a level, or 256 expansions depth-first).
        let slack = if options.threads > 1 { 200_000 } else { 64 };
        assert!(r.total_states < n + slack, "{label}: {}", r.total_states);
    }
}

#[test]
fn max_depth_stops_every_exhaustive_mode_at_the_bound() {
    let model = iframes(31);
    for (label, options) in modes() {
        let sim = matches!(options.mode, Mode::Sim { .. });
        let options = CheckOptions {
            max_depth: Some(4),
            // Walks cut at depth 4 never end by themselves: the runs must.
            timeout: sim.then_some(Duration::from_millis(200)),
            ..options
        };
        let r = check(model.clone(), &options);
        assert!(r.max_depth <= 4, "{label}: {}", r.max_depth);
        if sim {
            assert_eq!(r.stopped_by.as_ref().map(StopReason::kind), Some("timeout"));
            continue;
        }
        assert_stopped(label, &r, &StopReason::MaxDepth { n: 4 });
        // Depth 4 of 31 iframes is small: the bounded search ends by itself.
        assert!(r.total_states < 200_000, "{label}: {}", r.total_states);
    }
}

#[test]
fn a_memory_limit_stops_every_mode() {
    // 1 MiB is below any process's resident set: the first look at memory stops the run.
    let model = iframes(31);
    for (label, options) in modes() {
        let start = Instant::now();
        let r = check(
            model.clone(),
            &CheckOptions {
                memory_limit_mib: Some(1),
                ..options
            },
        );
        assert_stopped(label, &r, &StopReason::MemoryLimit { mib: 1 });
        assert!(start.elapsed() < Duration::from_secs(2), "{label}");
    }
}

#[test]
fn bounds_that_cut_nothing_off_leave_the_run_exhaustive() {
    let model = embedded("register-and-discover");
    let full = check(model.clone(), &CheckOptions::default());
    assert!(full.exhaustive && full.stopped_by.is_none());
    for (label, options) in modes() {
        if matches!(options.mode, Mode::Sim { .. }) {
            continue;
        }
        let own = check(model.clone(), &options);
        assert!(own.exhaustive, "{label}");
        // The depth of this search's deepest state (one thread: the same every run; on
        // several, depths depend on scheduling, so no path is longer than the states), the
        // count of every state, an hour, 64 GiB.
        let depth = if options.threads > 1 {
            own.unique_states + 1
        } else {
            own.max_depth
        };
        let r = check(
            model.clone(),
            &CheckOptions {
                max_depth: Some(depth),
                max_states: Some(own.total_states + 1),
                timeout: Some(Duration::from_secs(3600)),
                memory_limit_mib: Some(64 << 10),
                ..options
            },
        );
        assert_eq!(r.stopped_by, None, "{label}");
        assert!(r.exhaustive, "{label}");
        assert_eq!(r.unique_states, own.unique_states, "{label}");
        let verdicts =
            |r: &ScenarioResult| r.properties.iter().map(|p| p.verdict).collect::<Vec<_>>();
        assert_eq!(verdicts(&r), verdicts(&full), "{label}");
    }
    // One level less cuts states off, and says so.
    let r = check(
        model,
        &CheckOptions {
            max_depth: Some(full.max_depth - 1),
            ..CheckOptions::default()
        },
    );
    assert_eq!(
        r.stopped_by,
        Some(StopReason::MaxDepth {
            n: full.max_depth - 1
        })
    );
}

#[test]
fn simulation_is_always_stopped_and_names_its_runs() {
    let model = embedded("register-and-discover");
    let r = check(
        model,
        &CheckOptions {
            mode: Mode::Sim { seed: 1, runs: 5 },
            ..CheckOptions::default()
        },
    );
    assert_eq!(r.stopped_by, Some(StopReason::Runs { n: 5 }));
    assert!(!r.exhaustive);
}

#[test]
fn the_legacy_search_honours_every_bound() {
    let text = std::fs::read_to_string(format!(
        "{}/../scenarios/legacy/concurrent-executions.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let world = webmcp_model::legacy::LegacyWorld::from_json(&text).unwrap();
    let model =
        webmcp_model::legacy::LegacyModel::new(world, webmcp_model::legacy::LegacyVariant::CHOSEN);
    let full = check_legacy(&model, &LegacyOptions::default());
    assert!(full.exhaustive && full.stopped_by.is_none());
    let bounded = |o: LegacyOptions| check_legacy(&model, &o);
    let r = bounded(LegacyOptions {
        max_states: Some(5),
        ..LegacyOptions::default()
    });
    assert_eq!(r.stopped_by, Some(StopReason::MaxStates { n: 5 }));
    let r = bounded(LegacyOptions {
        max_depth: Some(2),
        ..LegacyOptions::default()
    });
    assert_eq!(r.stopped_by, Some(StopReason::MaxDepth { n: 2 }));
    assert!(!r.exhaustive);
    let r = bounded(LegacyOptions {
        timeout: Some(Duration::ZERO),
        ..LegacyOptions::default()
    });
    assert_eq!(
        r.stopped_by,
        Some(StopReason::Timeout {
            limit: Duration::ZERO
        })
    );
    let r = bounded(LegacyOptions {
        memory_limit_mib: Some(1),
        ..LegacyOptions::default()
    });
    assert_eq!(r.stopped_by, Some(StopReason::MemoryLimit { mib: 1 }));
    // Bounds at the full size cut nothing off.
    let r = bounded(LegacyOptions {
        max_depth: Some(full.max_depth),
        max_states: Some(full.total_states + 1),
        timeout: Some(Duration::from_secs(3600)),
        memory_limit_mib: Some(64 << 10),
        ..LegacyOptions::default()
    });
    assert_eq!(r.stopped_by, None);
    assert!(r.exhaustive);
}
