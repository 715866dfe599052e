//! A cheap performance regression guard: the unique and total state counts of a few small
//! scenarios, under the seed variant and one-thread BFS, against the baseline stored in
//! `profiles/tests/state_counts.json`.
//!
//! State counts are what the checker's cost is made of, and unlike wall time they are exact
//! and the same on every machine, so CI can compare them. A model change that splits a step,
//! adds a field that distinguishes states, or merges steps changes them; this test makes such
//! a change visible and deliberate. It asserts nothing about time.
//!
//! To accept new counts (after checking the change is intended):
//!
//! ```sh
//! UPDATE_STATE_COUNTS=1 cargo test -p webmcp-profiles --test regression_guard
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use webmcp_model::World;
use webmcp_profiles::bench::Family;
use webmcp_profiles::{check, CheckOptions, Mode};

const UPDATE_VAR: &str = "UPDATE_STATE_COUNTS";
const UPDATE_COMMAND: &str =
    "UPDATE_STATE_COUNTS=1 cargo test -p webmcp-profiles --test regression_guard";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Counts {
    unique: usize,
    total: usize,
}

#[derive(Debug, Serialize, Deserialize)]
struct Baseline {
    about: String,
    variant: String,
    /// Allowed relative difference, in percent, either way (0: exact).
    tolerance_percent: f64,
    /// Scenario name (a file of scenarios/) or `family:NAME-SIZE` (a bench family) -> counts.
    counts: BTreeMap<String, Counts>,
}

fn baseline_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/state_counts.json")
}

fn world(key: &str) -> World {
    if let Some(rest) = key.strip_prefix("family:") {
        let (name, size) = rest
            .rsplit_once('-')
            .unwrap_or_else(|| panic!("{key}: expected family:NAME-SIZE"));
        let family = Family::parse(name).unwrap_or_else(|| panic!("{key}: unknown family"));
        let size = size.parse().unwrap_or_else(|_| panic!("{key}: bad size"));
        return family.world(size).unwrap_or_else(|e| panic!("{e}"));
    }
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios")
        .join(format!("{key}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}\nA scenario listed in {} no longer exists: remove or rename its entry.",
            path.display(),
            baseline_path().display()
        )
    });
    World::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn measure(key: &str, variant: &str) -> Counts {
    let model = webmcp_model::WebMcpModel::new(
        world(key),
        webmcp_model::Variant::parse(variant).expect("variant"),
    );
    let r = check(
        model,
        &CheckOptions {
            mode: Mode::Bfs,
            threads: 1,
            ..CheckOptions::default()
        },
    );
    assert!(r.exhaustive, "{key}: exploration was not exhaustive");
    Counts {
        unique: r.unique_states,
        total: r.total_states,
    }
}

fn within(expected: usize, actual: usize, tolerance_percent: f64) -> bool {
    let diff = (expected as f64 - actual as f64).abs();
    diff <= expected as f64 * tolerance_percent / 100.0
}

#[test]
fn state_counts_match_the_stored_baseline() {
    let path = baseline_path();
    let text = std::fs::read_to_string(&path).expect("the baseline file");
    let mut baseline: Baseline = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{}: not a state-count baseline: {e}", path.display()));
    assert!(
        baseline.counts.len() >= 3,
        "the baseline should list several scenarios"
    );
    let measured: BTreeMap<String, Counts> = baseline
        .counts
        .keys()
        .map(|k| (k.clone(), measure(k, &baseline.variant)))
        .collect();

    if std::env::var_os(UPDATE_VAR).is_some() {
        baseline.counts = measured;
        let mut out = serde_json::to_string_pretty(&baseline).expect("JSON");
        out.push('\n');
        std::fs::write(&path, out).expect("write the baseline");
        eprintln!("updated {}", path.display());
        return;
    }

    let mismatches: Vec<String> = baseline
        .counts
        .iter()
        .filter_map(|(key, want)| {
            let got = measured[key];
            let ok = within(want.unique, got.unique, baseline.tolerance_percent)
                && within(want.total, got.total, baseline.tolerance_percent);
            (!ok).then(|| {
                format!(
                    "  {key}: unique {} -> {} ({:+.1}%), total {} -> {} ({:+.1}%)",
                    want.unique,
                    got.unique,
                    percent(want.unique, got.unique),
                    want.total,
                    got.total,
                    percent(want.total, got.total)
                )
            })
        })
        .collect();
    assert!(
        mismatches.is_empty(),
        "state counts differ from {} (variant {}, one-thread BFS, tolerance {}%):\n{}\n\n\
         The model's state space changed. If that is intended (a step split or merged, a \
         field added to or removed from State, a symmetry or reduction that must change \
         counts), regenerate the baseline and say why in the commit message:\n\n    {}\n\n\
         If it is not intended, the change altered which states are distinct or which \
         transitions exist: compare `webmcp-check check --scenario NAME --verbose` before and \
         after. Fewer states is a win only if every verdict is unchanged (tests/cli.rs).",
        path.display(),
        baseline.variant,
        baseline.tolerance_percent,
        mismatches.join("\n"),
        UPDATE_COMMAND
    );
}

fn percent(want: usize, got: usize) -> f64 {
    if want == 0 {
        0.0
    } else {
        (got as f64 - want as f64) * 100.0 / want as f64
    }
}
