//! The scenario fuzzer through the binary: whatever the file, `check --scenario-file` exits
//! 0, 1, 2 or 3, never panics, and says what was wrong with a rejected file in one line. The
//! in-process fuzzer (profiles/tests/scenario_fuzz.rs) runs 10,000 cases; this runs fewer,
//! for the command-line path around it.

#[path = "../profiles/tests/scenario_gen/mod.rs"]
mod scenario_gen;

use std::process::Command;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use scenario_gen::{near_valid, valid, Choices};

#[test]
fn every_scenario_file_gets_an_exit_code_in_0_to_3_and_rejections_one_line() {
    let dir = std::env::temp_dir().join(format!("webmcp-fuzz-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut runner = TestRunner::new(Config {
        cases: 150,
        rng_seed: RngSeed::Fixed(21),
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        prop::collection::vec(any::<u32>(), 0..200),
        any::<bool>(),
        any::<bool>(),
    );
    let seen = std::cell::Cell::new([0usize; 4]);
    runner
        .run(&strategy, |(numbers, mutate, bom)| {
            let mut c = Choices::new(&numbers);
            let mut v = valid(&mut c, 3);
            if mutate {
                v = near_valid(&mut c, v);
            }
            let mut text = v.to_string();
            if bom {
                text.insert(0, '\u{feff}');
            }
            let file = dir.join("s.json");
            std::fs::write(&file, &text).unwrap();
            let out = Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
                .args(["check", "--quiet", "--max-states", "300", "--timeout", "20"])
                .arg("--scenario-file")
                .arg(&file)
                .arg("--trace-dir")
                .arg(dir.join("traces"))
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            let code = out.status.code();
            prop_assert!(
                matches!(code, Some(0..=3)),
                "exit {code:?}: {stderr}\n{text}"
            );
            prop_assert!(!stderr.contains("panicked"), "{stderr}");
            let mut counts = seen.get();
            counts[code.unwrap_or(0) as usize] += 1;
            seen.set(counts);
            if code == Some(2) {
                prop_assert_eq!(stderr.lines().count(), 1, "{}", stderr);
                prop_assert!(out.stdout.is_empty());
            }
            Ok(())
        })
        .unwrap();
    // Every exit status occurs, or the fuzzer reaches less of the checker than it claims.
    let [held, violated, rejected, incomplete] = seen.get();
    eprintln!(
        "exits: {held} held, {violated} violated, {rejected} rejected, {incomplete} incomplete"
    );
    assert!(
        held > 5 && violated > 5 && rejected > 5 && incomplete > 5,
        "{:?}",
        seen.get()
    );
}
