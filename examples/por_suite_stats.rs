//! What partial-order reduction does to the standard suite under the draft: its states
//! without and with the reduction, and how many counterexamples and witnesses get longer
//! (`docs/model.md` §7, "Why it is not the default").
//!
//! ```sh
//! cargo run --release --example por_suite_stats
//! ```

use webmcp_model::{Variant, WebMcpModel, World};
use webmcp_profiles::{check, CheckOptions, Mode, Reduction};

fn main() {
    let mut files: Vec<_> = std::fs::read_dir("scenarios")
        .expect("run from the repository's root")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let options = |reduction| CheckOptions {
        mode: Mode::Bfs,
        threads: 1,
        reduction,
        ..CheckOptions::default()
    };
    let (mut full_states, mut reduced_states) = (0usize, 0usize);
    let (mut paths, mut longer, mut extra) = (0usize, 0usize, 0usize);
    for file in &files {
        let world = World::from_json(&std::fs::read_to_string(file).expect("readable"))
            .expect("a standard scenario compiles");
        let m = WebMcpModel::new(world, Variant::SEED);
        let full = check(m.clone(), &options(Reduction::None));
        let reduced = check(m, &options(Reduction::Por));
        full_states += full.unique_states;
        reduced_states += reduced.unique_states;
        for (p, q) in full.properties.iter().zip(&reduced.properties) {
            if let (Some(short), Some(path)) = (&p.path, &q.path) {
                paths += 1;
                if path.len() > short.len() {
                    longer += 1;
                    extra += path.len() - short.len();
                }
            }
        }
    }
    println!(
        "{} scenarios: {full_states} states without the reduction, {reduced_states} with ({:.1}% fewer); {longer} of {paths} counterexamples and witnesses longer ({extra} actions in all)",
        files.len(),
        100.0 * (1.0 - reduced_states as f64 / full_states.max(1) as f64)
    );
}
