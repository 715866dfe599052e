//! Why partial-order reduction does not reduce more: explores a scenario with the
//! reduction, and for every state it must expand fully, counts why each thread's step is
//! not safe (`webmcp_model::reduction::Blocker`), and how many such states have no thread
//! at all (only tasks, tool bodies and the environment can move). `bench --targets` prints
//! the same profile for the families whose reduction target it misses.
//!
//! ```sh
//! cargo run --release --example por_profile -- scenarios/two-concurrent-executions.json
//! ```

use webmcp_model::{Variant, WebMcpModel, World};
use webmcp_profiles::bench::targets::{reduction_profile, PROFILE_STATE_BOUND};

fn main() {
    let path = std::env::args().nth(1).expect("a scenario file");
    let world =
        World::from_json(&std::fs::read_to_string(&path).expect("readable")).expect("compiles");
    let m = WebMcpModel::new(world, Variant::parse("seed").unwrap());
    let p = reduction_profile(&m, PROFILE_STATE_BOUND);
    println!(
        "{path}: {} states{}; {} expanded by a persistent set, {} fully ({} of them with no thread)",
        p.states,
        if p.truncated {
            " (stopped at the bound)"
        } else {
            ""
        },
        p.reduced,
        p.full,
        p.no_thread
    );
    println!("why the threads of fully expanded states are not safe:");
    for (b, n) in p.blockers {
        println!("  {n:>10}  {b}");
    }
}
