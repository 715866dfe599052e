//! How much could partial-order reduction save? An optimistic estimate.
//!
//! ```sh
//! cargo run --release --example por_estimate -- scenarios/two-concurrent-executions.json
//! cargo run --release --example por_estimate -- family:iframes:2
//! ```
//!
//! Explores a scenario twice: fully, and expanding at each state only one enabled action that
//! commutes *locally* with every other enabled action (both orders enabled and reaching the
//! same state). Local commutation is weaker than the independence a sound reduction needs
//! (along every path, not only at this state), so the second count is optimistic: no sound
//! reduction built on what transitions read and write can do much better.

use std::collections::{HashSet, VecDeque};

use webmcp_checker::fingerprint::fingerprint;
use webmcp_model::machine::Action;
use webmcp_model::state::State;
use webmcp_model::{Variant, WebMcpModel, World};

fn main() {
    let arg = std::env::args()
        .nth(1)
        .expect("a scenario file or family:NAME:N");
    let world = if let Some(rest) = arg.strip_prefix("family:") {
        let (name, n) = rest.split_once(':').expect("family:NAME:N");
        let family = webmcp_profiles::bench::Family::parse(name).expect("a family");
        family.world(n.parse().expect("a size")).expect("compiles")
    } else {
        World::from_json(&std::fs::read_to_string(&arg).expect("readable")).expect("compiles")
    };
    let model = WebMcpModel::new(world, Variant::parse("seed").unwrap());
    let full = explore(&model, false);
    let reduced = explore(&model, true);
    println!(
        "{arg}: {full} states fully, {reduced} with optimistic local reduction ({:.2}x)",
        full as f64 / reduced as f64
    );
}

fn explore(m: &WebMcpModel, reduce: bool) -> usize {
    let init = m.initial_state();
    let mut seen = HashSet::new();
    seen.insert(fingerprint(&init));
    let mut queue = VecDeque::from([init]);
    let mut actions = Vec::new();
    while let Some(s) = queue.pop_front() {
        actions.clear();
        m.enabled_actions(&s, &mut actions);
        let chosen: Vec<Action> = match reduce.then(|| commuting(m, &s, &actions)).flatten() {
            Some(a) => vec![a],
            None => actions.clone(),
        };
        for a in chosen {
            let t = m.apply(&s, a, &mut ());
            if seen.insert(fingerprint(&t)) {
                queue.push_back(t);
            }
        }
    }
    seen.len()
}

fn commuting(m: &WebMcpModel, s: &State, enabled: &[Action]) -> Option<Action> {
    if enabled.len() < 2 {
        return None;
    }
    enabled.iter().copied().find(|&a| {
        let sa = m.apply(s, a, &mut ());
        enabled.iter().all(|&b| {
            if a == b {
                return true;
            }
            if !m.is_enabled(&sa, b) {
                return false;
            }
            let sb = m.apply(s, b, &mut ());
            m.is_enabled(&sb, a) && m.apply(&sa, b, &mut ()) == m.apply(&sb, a, &mut ())
        })
    })
}
