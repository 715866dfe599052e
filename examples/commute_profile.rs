//! How much any partial-order reduction could still remove, state by state: a measurement
//! over the unreduced graph that does not depend on how our reduction declares footprints.
//!
//! At each state with two or more enabled actions it tries every pair both ways. Two actions
//! *commute here* when each stays enabled after the other and both orders reach the same
//! state. Any sound independence relation only relates actions that commute wherever both
//! are enabled, so a persistent set that holds an action must hold every enabled action that
//! does not commute with it here. Hence:
//!
//! - **must expand fully**: no proper subset of the enabled actions is closed under "does not
//!   commute here". Every persistent-set method (ample, stubborn, persistent sets, with or
//!   without sleep sets) expands such a state fully, whatever it knows of the future. This
//!   is a rigorous count.
//! - **a lone candidate**: some thread step commutes here with every other enabled action and
//!   changes no property's value (the one-step forms of conditions C1 and C2). This is only
//!   necessary for a reduction to one step: persistence also asks about every action that
//!   can happen later, and invisibility about every state where the step is postponed, so
//!   the count bounds from above what a finer footprint of thread steps could reach.
//!
//! `docs/performance.md` ("What a reduction could still remove") gives the numbers.
//!
//! ```sh
//! target/release/webmcp-check bench --print-family iframes:2 > f.json
//! cargo run --release --example commute_profile -- f.json
//! ```

use std::collections::{HashSet, VecDeque};

use webmcp_checker::fingerprint::fingerprint;
use webmcp_model::{Action, State, Variant, WebMcpModel, World};

fn main() {
    let path = std::env::args().nth(1).expect("a scenario file");
    let world =
        World::from_json(&std::fs::read_to_string(&path).expect("readable")).expect("compiles");
    let m = WebMcpModel::new(world, Variant::parse("seed").unwrap());
    let props = webmcp_profiles::driver::properties();
    let values = |s: &State| -> Vec<bool> { props.iter().map(|p| (p.holds)(&m, s)).collect() };

    let init = m.initial_state();
    let mut seen = HashSet::from([fingerprint(&init)]);
    let mut queue = VecDeque::from([init]);
    let (mut branching, mut must_expand, mut lone_thread_step) = (0usize, 0usize, 0usize);
    let (mut enabled_sum, mut smallest_closed_sum) = (0usize, 0usize);
    let mut actions = Vec::new();
    while let Some(s) = queue.pop_front() {
        actions.clear();
        m.enabled_actions(&s, &mut actions);
        let n = actions.len();
        let next: Vec<State> = actions.iter().map(|&a| m.apply(&s, a, &mut ())).collect();
        if n >= 2 {
            branching += 1;
            let then = |i: usize, j: usize| {
                m.is_enabled(&next[i], actions[j])
                    .then(|| fingerprint(&m.apply(&next[i], actions[j], &mut ())))
            };
            let dependent: Vec<Vec<bool>> = (0..n)
                .map(|i| {
                    (0..n)
                        .map(|j| {
                            let commute = i == j
                                || matches!((then(i, j), then(j, i)), (Some(a), Some(b)) if a == b);
                            !commute
                        })
                        .collect()
                })
                .collect();
            let smallest = (0..n)
                .map(|start| closure_size(&dependent, start))
                .min()
                .unwrap_or(n);
            must_expand += usize::from(smallest == n);
            enabled_sum += n;
            smallest_closed_sum += smallest;
            let here = values(&s);
            lone_thread_step += usize::from((0..n).any(|i| {
                matches!(actions[i], Action::Step(_))
                    && (0..n).all(|j| j == i || !dependent[i][j])
                    && values(&next[i]) == here
            }));
        }
        for t in next {
            if seen.insert(fingerprint(&t)) {
                queue.push_back(t);
            }
        }
    }
    let pct = |k: usize| 100.0 * k as f64 / branching.max(1) as f64;
    println!(
        "{path}: {} states, {branching} with two or more enabled actions",
        seen.len()
    );
    println!(
        "  must expand fully (any persistent-set method): {must_expand} ({:.1}%)",
        pct(must_expand)
    );
    println!(
        "  smallest closed sets: {smallest_closed_sum} of {enabled_sum} enabled actions ({:.2})",
        smallest_closed_sum as f64 / enabled_sum.max(1) as f64
    );
    println!(
        "  a lone candidate thread step (commutes here, changes no property): {lone_thread_step} ({:.1}%)",
        pct(lone_thread_step)
    );
}

/// The size of the smallest set holding `start` and closed under `dependent`.
fn closure_size(dependent: &[Vec<bool>], start: usize) -> usize {
    let mut inside = vec![false; dependent.len()];
    inside[start] = true;
    let mut stack = vec![start];
    while let Some(i) = stack.pop() {
        for (j, &d) in dependent[i].iter().enumerate() {
            if d && !inside[j] {
                inside[j] = true;
                stack.push(j);
            }
        }
    }
    inside.iter().filter(|&&x| x).count()
}
