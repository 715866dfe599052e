//! `bench --targets` judges each target from what its runs measured: a plan of small searches
//! with bars set so that each outcome (met, missed, undecided) must come out, through the
//! real child processes. No wall time is asserted: the bars that involve time are either
//! unreachable (a 1-second deadline for millions of states) or trivially cleared.

use std::path::Path;

mod common;

use webmcp_model::World;
use webmcp_profiles::bench::targets::{self, Deadline, Plan, Status};
use webmcp_profiles::bench::Family;

fn exe() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_webmcp-check"))
}

/// A standard scenario, as the embedded catalogue compiles it.
fn scenario(name: &str) -> World {
    let path = format!("{}/scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
    World::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn each_target_is_judged_by_what_its_runs_measured() {
    let plan = Plan {
        // Executions at size 2 finishes; iframes at size 3 cannot in one second.
        reduction: vec![(Family::Executions, 2), (Family::Iframes, 3)],
        fewer_states: 1000.0,
        deadlines: vec![
            // Every reduction, on the text: 83,309 states (443,730 under the draft
            // as written), so the child gets the variant and the reductions.
            Deadline {
                family: Family::CallerTarget,
                size: 2,
                threads: 2,
                por: true,
                every_reduction: true,
                variant: Some("seed@2026-08"),
                seconds: 600,
                memory_limit_mib: None,
            },
            Deadline {
                family: Family::Iframes,
                size: 3,
                threads: 1,
                por: false,
                every_reduction: false,
                variant: None,
                seconds: 1,
                memory_limit_mib: Some(512),
            },
            // With the reduction, 3.8 million states (size 5, 403,761, can finish within a
            // second on a fast machine): missed, so profiled one size below.
            Deadline {
                family: Family::Executions,
                size: 6,
                threads: 1,
                por: true,
                every_reduction: false,
                variant: None,
                seconds: 1,
                memory_limit_mib: None,
            },
        ],
        states_per_cpu_second: 1.0,
        parallel: (Family::Tabs, 2),
        speedup: 0.0,
        repeat: 1,
        timeout: 1,
        memory_limit_mib: 1024,
    };
    let names = ["register-and-discover", "cross-origin-exposed"];
    let standard: Vec<World> = names.iter().map(|name| scenario(name)).collect();
    let largest = names
        .into_iter()
        .max_by_key(|name| {
            let m = webmcp_profiles::bench::model_of(scenario(name));
            webmcp_profiles::check(m, &webmcp_profiles::bench::options(1, false, None))
                .unique_states
        })
        .unwrap();
    let mut heard = 0;
    let report = targets::run(exe(), &plan, &standard, &mut |_| heard += 1).unwrap();
    let status: Vec<Status> = report.outcomes.iter().map(|o| o.status).collect();
    assert_eq!(
        status,
        [
            // 3,033 states against more than 3 with the reduction: not a thousandth.
            Status::Missed,
            // Stopped by the timeout: no ratio, so no verdict either way.
            Status::Undecided,
            Status::Met,
            Status::Missed,
            Status::Missed,
            Status::Met,
            Status::Met,
            Status::Met,
        ],
        "{report:#?}"
    );
    assert_eq!(heard, report.outcomes.len());
    assert!(report.outcomes[1].measured.contains("no ratio"));
    assert!(
        report.outcomes[2].measured.starts_with("83,309 states"),
        "{}",
        report.outcomes[2].measured
    );
    assert!(report.outcomes[2].target.contains(
        "size 2 under seed@2026-08, exhaustively within 600 s on 2 thread(s), with partial-order reduction, dead facts forgotten and symmetry"
    ));
    assert!(report.outcomes[3].measured.contains("stopped: timeout"));
    assert!(report.outcomes[4].measured.contains("stopped: timeout"));
    // The largest of the two standard worlds is the one whose throughput is measured.
    assert!(
        report.outcomes[5]
            .measured
            .starts_with(&format!("{largest}: ")),
        "{}",
        report.outcomes[5].measured
    );
    assert!(report.outcomes[7]
        .measured
        .starts_with("2 scenarios: every verdict the same"));
    // A profile of each reduction target not met, then of each deadline with the reduction
    // missed (not of the one without it), one size below it.
    let scenarios: Vec<&str> = report
        .profiles
        .iter()
        .map(|p| p.scenario.as_str())
        .collect();
    assert_eq!(
        scenarios,
        [
            "family-executions-1",
            "family-iframes-2",
            "family-executions-5"
        ]
    );
    assert_eq!(report.exit_status(), 1);
    let md = targets::markdown(
        &report,
        &webmcp_profiles::bench::Machine::this(),
        "webmcp-check bench --targets",
    );
    assert_eq!(md.matches("| **missed** |").count(), 3, "{md}");
    // 952 states without the reduction; the notifications queue together where nothing else
    // can, and a toolchange firing or a registration's resolution runs alone where nothing
    // can tell when it ran.
    assert!(md.contains("| family-iframes-2 | 97 |"), "{md}");
}

#[test]
fn targets_refuse_the_options_of_other_tables() {
    for extra in [
        &["--scaling"][..],
        &["--compare-reduction"],
        &["--family-size", "tabs:2"],
        &["--scenario", "target-in-bfcache"],
        // Options the targets' fixed plan would otherwise ignore.
        &["--threads", "2"],
        &["--family", "tabs"],
        &["--max-size", "3"],
        &["--limit-seconds", "5"],
    ] {
        let out = common::bin()
            .args(["bench", "--targets"])
            .args(extra)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(out.stdout.is_empty());
    }
}
