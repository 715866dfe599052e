//! Partial-order reduction against the unreduced search, scenario by scenario, on a seeded
//! sample of a bound larger than the tests' (`docs/performance.md`, "Partial-order
//! reduction", *Beyond the tests' bounds*).
//!
//! The tests compare per scenario only on the fuzzer's cases and per property count on the
//! tiny bound (`tests/sweep_cli.rs`); a sweep's report sums over scenarios, so a scenario the
//! unreduced search could not finish hides a difference there. This example draws the sample
//! as `sweep --sample` does, checks each scenario both ways with the same state bound, and
//! compares every property's verdict on each scenario both searches finished. It exits 1 and
//! prints the scenario on the first difference.
//!
//! ```sh
//! cargo run --release --example por_sample_compare -- BOUND DRAWS SEED VARIANT MAX_STATES
//! cargo run --release --example por_sample_compare -- \
//!   medium,tabs=2,docs=3,stmts=3,total=5,moves=2,outcomes=2,forged=1,unkeyed=1 1500 4 seed 1500000
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use webmcp_generator::{Bound, Sampling};
use webmcp_model::{Variant, WebMcpModel, World};
use webmcp_profiles::{check, CheckOptions, Mode, Reduction};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [bound, draws, seed, variant, max_states] = args.as_slice() else {
        eprintln!("usage: por_sample_compare BOUND DRAWS SEED VARIANT MAX_STATES");
        std::process::exit(2);
    };
    let number = |text: &str, what: &str| -> u64 {
        text.parse().unwrap_or_else(|_| {
            eprintln!("{what} must be a whole number, not \"{text}\"");
            std::process::exit(2)
        })
    };
    let bound = Bound::parse(bound).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let variant = Variant::parse(variant).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let (draws, seed) = (number(draws, "DRAWS"), number(seed, "SEED"));
    let max_states = number(max_states, "MAX_STATES") as usize;
    let sample = webmcp_generator::sample(&bound, draws, seed, Sampling::Swarm);
    let options = |reduction| CheckOptions {
        mode: Mode::Bfs,
        threads: 1,
        reduction,
        max_states: Some(max_states),
        ..CheckOptions::default()
    };
    let next = AtomicUsize::new(0);
    // [compared, unfinished without, unfinished with, states without, states with]
    let tally = Mutex::new([0usize; 5]);
    let difference = Mutex::new(None::<String>);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(gen) = sample.get(i) else { break };
                if difference.lock().expect("no panic").is_some() {
                    break;
                }
                let scenario = webmcp_generator::to_scenario(gen);
                let world = World::compile(&scenario).expect("a generated scenario compiles");
                let model = WebMcpModel::new(world, variant);
                let full = check(model.clone(), &options(Reduction::None));
                let reduced = check(model, &options(Reduction::Por));
                let finished =
                    |r: &webmcp_profiles::ScenarioResult| r.exhaustive && !r.is_incomplete();
                let mut t = tally.lock().expect("no panic");
                if !finished(&full) || !finished(&reduced) {
                    t[1] += usize::from(!finished(&full));
                    t[2] += usize::from(!finished(&reduced));
                    continue;
                }
                t[0] += 1;
                t[3] += full.unique_states;
                t[4] += reduced.unique_states;
                if full.verdicts() != reduced.verdicts() {
                    let differ: Vec<String> = full
                        .verdicts()
                        .into_iter()
                        .zip(reduced.verdicts())
                        .filter(|(a, b)| a != b)
                        .map(|((name, a), (_, b))| format!("{name}: {a:?} without, {b:?} with"))
                        .collect();
                    *difference.lock().expect("no panic") = Some(format!(
                        "{}\n{}",
                        differ.join("\n"),
                        serde_json::to_string_pretty(&scenario).unwrap_or_default()
                    ));
                }
            });
        }
    });
    let [compared, unfinished_full, unfinished_reduced, full, reduced] =
        *tally.lock().expect("no panic");
    println!(
        "{} distinct scenarios drawn; {compared} finished both ways ({full} states without the reduction, {reduced} with); {unfinished_full} unfinished without, {unfinished_reduced} with (at {max_states} states), not compared",
        sample.len()
    );
    if let Some(d) = difference.into_inner().expect("no panic") {
        println!("DIFFERENT VERDICTS:\n{d}");
        std::process::exit(1);
    }
    println!("every verdict the same on every scenario compared");
}
