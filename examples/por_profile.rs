//! Why partial-order reduction does not reduce more: explores a scenario with the
//! reduction, and for every state it must expand fully, counts why each thread's step is
//! not safe (`webmcp_model::reduction::Blocker`), and how many such states have no thread
//! at all (only tasks, tool bodies and the environment can move).
//!
//! ```sh
//! cargo run --release --example por_profile -- scenarios/two-concurrent-executions.json
//! ```

use std::collections::{BTreeMap, HashSet, VecDeque};

use webmcp_checker::fingerprint::fingerprint;
use webmcp_model::{Variant, WebMcpModel, World};

fn main() {
    let path = std::env::args().nth(1).expect("a scenario file");
    let world =
        World::from_json(&std::fs::read_to_string(&path).expect("readable")).expect("compiles");
    let m = WebMcpModel::new(world, Variant::parse("seed").unwrap());
    let init = m.initial_state();
    let mut seen = HashSet::from([fingerprint(&init)]);
    let mut queue = VecDeque::from([init]);
    let (mut reduced, mut full, mut no_thread) = (0usize, 0usize, 0usize);
    let mut why: BTreeMap<String, usize> = BTreeMap::new();
    let mut actions = Vec::new();
    while let Some(s) = queue.pop_front() {
        actions.clear();
        m.enabled_actions(&s, &mut actions);
        let successors = match m.safe_step(&s) {
            Some((_, t)) => {
                reduced += 1;
                vec![t]
            }
            None => {
                if !actions.is_empty() {
                    full += 1;
                    if s.threads.is_empty() {
                        no_thread += 1;
                    }
                    for (_, b) in m.blockers(&s) {
                        *why.entry(format!("{b:?}")).or_default() += 1;
                    }
                }
                actions.iter().map(|&a| m.apply(&s, a, &mut ())).collect()
            }
        };
        for t in successors {
            if seen.insert(fingerprint(&t)) {
                queue.push_back(t);
            }
        }
    }
    println!("{path}: {} states; {reduced} expanded by one safe step, {full} fully ({no_thread} of them with no thread)", seen.len());
    println!("why the threads of fully expanded states are not safe:");
    for (b, n) in why {
        println!("  {n:>10}  {b}");
    }
}
